"""The SQLite schema as numbered migrations, and the function that applies them."""

from __future__ import annotations

import logging

import aiosqlite

log = logging.getLogger(__name__)

# Numbered migrations, applied in order, each in its own transaction and recorded in schema_version.
# Never edit a migration that has shipped: add a new one.
MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        """
        CREATE TABLE games (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            game TEXT NOT NULL,
            guild_id INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            seed INTEGER NOT NULL,
            players INTEGER NOT NULL,
            options TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished', 'abandoned')),
            created_at REAL NOT NULL,
            finished_at REAL,
            result TEXT
        );
        CREATE UNIQUE INDEX games_one_active_per_channel ON games(channel_id) WHERE status = 'active';
        CREATE INDEX games_status ON games(status);
        CREATE TABLE seats (
            game_id INTEGER NOT NULL REFERENCES games(id),
            seat INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (game_id, seat)
        );
        CREATE INDEX seats_user ON seats(user_id);
        CREATE TABLE actions (
            game_id INTEGER NOT NULL REFERENCES games(id),
            seq INTEGER NOT NULL,
            seat INTEGER,
            text TEXT NOT NULL,
            at REAL NOT NULL,
            PRIMARY KEY (game_id, seq)
        ) WITHOUT ROWID;
        """,
    ),
    (
        2,
        """
        CREATE TABLE results (
            game_id INTEGER NOT NULL REFERENCES games(id),
            guild_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            user_id INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            score INTEGER NOT NULL,
            rank INTEGER NOT NULL,
            won INTEGER NOT NULL,
            muggins INTEGER NOT NULL,
            how TEXT NOT NULL,
            hand_score_avg REAL,
            players INTEGER NOT NULL,
            finished_at REAL NOT NULL,
            PRIMARY KEY (game_id, seat)
        );
        CREATE INDEX results_user ON results(guild_id, user_id, game, finished_at);
        CREATE TABLE ratings (
            guild_id INTEGER NOT NULL,
            game TEXT NOT NULL,
            user_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            rating REAL NOT NULL,
            mu REAL,
            sigma REAL,
            games INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            muggins_wins INTEGER NOT NULL DEFAULT 0,
            updated_at REAL NOT NULL,
            PRIMARY KEY (guild_id, game, user_id)
        );
        """,
    ),
    (
        3,
        """
        CREATE TABLE lobbies (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL CHECK (kind IN ('challenge', 'deluxe')),
            guild_id INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            host_id INTEGER NOT NULL,
            invited_id INTEGER,
            options TEXT NOT NULL,
            members TEXT NOT NULL,
            message_id INTEGER,
            created_at REAL NOT NULL,
            expires_at REAL,
            status TEXT NOT NULL DEFAULT 'open'
                CHECK (status IN ('open', 'started', 'declined', 'expired', 'cancelled')),
            game_id INTEGER REFERENCES games(id)
        );
        CREATE INDEX lobbies_open ON lobbies(status, channel_id);
        CREATE TABLE table_meta (
            game_id INTEGER PRIMARY KEY REFERENCES games(id),
            data TEXT NOT NULL
        );
        """,
    ),
    (
        4,
        # Lobbies name their game instead of a fixed 'kind' (games are pluggable), and keep the members'
        # display names in their own column: a 'challenge' was a Bhargage lobby whose options were the game's
        # options; a 'deluxe' lobby kept {"game": options, "names": names} in its options. SQLite cannot drop
        # a CHECK, so the table is rebuilt (ids, and the AUTOINCREMENT counter, are kept).
        """
        CREATE TABLE lobbies_new (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            game TEXT NOT NULL,
            guild_id INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            host_id INTEGER NOT NULL,
            invited_id INTEGER,
            options TEXT NOT NULL,
            names TEXT NOT NULL DEFAULT '{}',
            members TEXT NOT NULL,
            message_id INTEGER,
            created_at REAL NOT NULL,
            expires_at REAL,
            status TEXT NOT NULL DEFAULT 'open'
                CHECK (status IN ('open', 'started', 'declined', 'expired', 'cancelled')),
            game_id INTEGER REFERENCES games(id)
        );
        INSERT INTO lobbies_new (id, game, guild_id, channel_id, host_id, invited_id, options, names, members,
                                 message_id, created_at, expires_at, status, game_id)
        SELECT id,
               CASE kind WHEN 'challenge' THEN 'bhargage' ELSE kind END,
               guild_id, channel_id, host_id, invited_id,
               CASE kind WHEN 'deluxe' THEN coalesce(json_extract(options, '$.game'), '{}') ELSE options END,
               CASE kind WHEN 'deluxe' THEN coalesce(json_extract(options, '$.names'), '{}') ELSE '{}' END,
               members, message_id, created_at, expires_at, status, game_id
        FROM lobbies ORDER BY id;
        DELETE FROM sqlite_sequence WHERE name = 'lobbies_new';
        INSERT INTO sqlite_sequence (name, seq)
            SELECT 'lobbies_new', seq FROM sqlite_sequence WHERE name = 'lobbies';
        DROP TABLE lobbies;
        ALTER TABLE lobbies_new RENAME TO lobbies;
        CREATE INDEX lobbies_open ON lobbies(status, channel_id);
        """,
    ),
    (
        5,
        # Small bot-wide values (e.g. the hash of the last command sync) and each server's settings, which
        # override the environment's defaults.
        """
        CREATE TABLE bot_state (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE guild_settings (
            guild_id INTEGER PRIMARY KEY,
            data TEXT NOT NULL
        );
        """,
    ),
    (
        6,
        # Each live game's latest engine-state snapshot, replaced in place, written in the same transaction
        # as the action it follows: a restart replays only the actions after it (bot.snapshots). Closing a
        # game, by whatever path, deletes its snapshot in that transaction: only live games are restored.
        """
        CREATE TABLE snapshots (
            game_id INTEGER PRIMARY KEY REFERENCES games(id),
            seq INTEGER NOT NULL,
            at REAL NOT NULL,
            fingerprint TEXT NOT NULL,
            data BLOB NOT NULL
        );
        CREATE TRIGGER snapshots_of_closed_games AFTER UPDATE OF status ON games
        WHEN NEW.status != 'active'
        BEGIN
            DELETE FROM snapshots WHERE game_id = NEW.id;
        END;
        """,
    ),
    (
        7,
        # The language each player's Discord client last said it uses (bot.languages): their private panels
        # are redrawn in it when someone else moves, across a restart too. Written only when it changes.
        """
        CREATE TABLE user_languages (
            user_id INTEGER PRIMARY KEY,
            language TEXT NOT NULL
        );
        """,
    ),
    (
        8,
        # Each game's version, bumped by every write to it: several bot processes may share one database,
        # and a process checks its cached copy of a game against this before using it (bot.tables).
        """
        ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
        """,
    ),
]

LATEST_VERSION = MIGRATIONS[-1][0]


async def migrate(db: aiosqlite.Connection, target: int, *, name: str = "database") -> None:
    """Apply every migration above the current version up to ``target``, each in its own transaction.

    The caller must hold the store's lock. A migration that fails is rolled back whole and re-raised.
    """
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_version "
        "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (datetime('now')))"
    )
    cur = await db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version")
    row = await cur.fetchone()
    current = int(row[0]) if row else 0
    for version, sql in MIGRATIONS:
        if current < version <= target:
            script = (
                f"BEGIN IMMEDIATE;\n{sql}\nINSERT INTO schema_version(version) VALUES ({version});\nCOMMIT;"
            )
            try:
                await db.executescript(script)
            except BaseException:
                if db.in_transaction:
                    await db.execute("ROLLBACK")
                raise
            log.info("%s migrated to version %d", name, version)
