"""The schema as numbered migrations, each in SQLite's words and in PostgreSQL's, and the functions that
apply them.

One thing, kept in one file: the list is the schema's history and the two ``migrate`` functions are how a
database walks it, reading ``MIGRATIONS`` here (the tests swap in a failing list). Nearly all the lines are
the migrations' SQL, which only grows: when it outgrows the file, the oldest migrations move out as a list,
not the functions away from it."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, NamedTuple

from bot.store.records import StoreOpenError

if TYPE_CHECKING:
    import asyncpg
    from asyncpg.pool import PoolConnectionProxy

    from bot.store.sqlite_conn import LoopConnection

log = logging.getLogger(__name__)


class Migration(NamedTuple):
    """One step of the schema: its number, and the script that takes each backend there."""

    version: int
    sqlite: str
    postgres: str


# Numbered migrations, applied in order, each in its own transaction and recorded in schema_version.
# Never edit a migration that has shipped: add a new one. PostgreSQL's types: BIGINT for ids, user and
# guild ids and seeds (Discord snowflakes; bot seats are negative), DOUBLE PRECISION for times and ratings,
# TEXT for JSON (decoded in Python for both), BYTEA for snapshots.
# A lobby's message, times, status and game: the last columns of the lobbies table, in migration 3 and in
# migration 4's rebuild of it.
_LOBBY_LIFE = """\
            message_id INTEGER,
            created_at REAL NOT NULL,
            expires_at REAL,
            status TEXT NOT NULL DEFAULT 'open'
                CHECK (status IN ('open', 'started', 'declined', 'expired', 'cancelled')),
            game_id INTEGER REFERENCES games(id)
"""

_SQLITE: list[tuple[int, str]] = [
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
"""
        + _LOBBY_LIFE
        + """        );
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
"""
        + _LOBBY_LIFE
        + """        );
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
    (
        9,
        # Snapshots are typed JSON from now on, their column fingerprint holding a tag (format, engine, state
        # version: bot.snapshots); those written before in the old form are never read again, so they go.
        """
        DELETE FROM snapshots;
        """,
    ),
    (
        10,
        # Each player's DM channel with the bot, so a known player's panel costs no DM-channel opening (a
        # request of the bot's global budget) after a restart.
        """
        CREATE TABLE dm_channels (
            user_id INTEGER PRIMARY KEY,
            channel_id INTEGER NOT NULL
        );
        """,
    ),
    (
        11,
        # Each player's preferences (/tavern me): only what they changed from the defaults, as JSON.
        """
        CREATE TABLE user_prefs (
            user_id INTEGER PRIMARY KEY,
            data TEXT NOT NULL
        );
        """,
    ),
    (
        12,
        # Each rated result's rating before and after the game, on the stored scale (NULL for a game that
        # moved no rating: against the bot, or finished before this): a history's rating change, a trend.
        """
        ALTER TABLE results ADD COLUMN rating_before REAL;
        ALTER TABLE results ADD COLUMN rating_after REAL;
        """,
    ),
    (
        13,
        # Seasons (bot.store.boards): each server's numbered periods (when each began, was closed, had its
        # newest result), each season's own ratings (the name is the all-time row's), and the season each
        # result counted in (NULL before this). Nothing here is ever deleted: a closed season stays viewable.
        """
        CREATE TABLE seasons (
            guild_id INTEGER NOT NULL,
            season INTEGER NOT NULL,
            started_at REAL NOT NULL,
            ended_at REAL,
            last_at REAL,
            PRIMARY KEY (guild_id, season)
        );
        CREATE TABLE season_ratings (
            guild_id INTEGER NOT NULL,
            season INTEGER NOT NULL,
            game TEXT NOT NULL,
            user_id INTEGER NOT NULL,
            rating REAL NOT NULL,
            mu REAL,
            sigma REAL,
            games INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            muggins_wins INTEGER NOT NULL DEFAULT 0,
            updated_at REAL NOT NULL,
            PRIMARY KEY (guild_id, game, season, user_id)
        );
        ALTER TABLE results ADD COLUMN season INTEGER;
        """,
    ),
    (
        14,
        # Each result's best hand: the most points the seat scored for one hand in that game (a Deluxe hand's
        # score; a Bhargage hand or bhargage as the show counted it), NULL when none was scored or recorded.
        """
        ALTER TABLE results ADD COLUMN best_hand INTEGER;
        """,
    ),
    (
        15,
        # A server's live games, newest first, without reading every server's (/tavern tables, the server
        # page): the active games by guild and id.
        """
        CREATE INDEX games_active_in_guild ON games(guild_id, id) WHERE status = 'active';
        """,
    ),
    (
        16,
        # A game an admin ended no longer keeps their name (a forgotten admin's would stay behind): the games
        # ended so far keep only that an admin ended them.
        """
        UPDATE games SET result = '{"abandoned": "ended by an admin"}'
        WHERE status = 'abandoned' AND result LIKE '{"abandoned": "ended by %';
        """,
    ),
    (
        17,
        # Tournaments (bot.services.tournaments): each event is one JSON document the service owns, written
        # only at the version it read (``version``, bumped by each save), so two organisers or two processes
        # never both win; the games played for it; and each entrant's final place, for their profile.
        """
        CREATE TABLE tournaments (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            guild_id INTEGER NOT NULL,
            channel_id INTEGER NOT NULL,
            status TEXT NOT NULL
                CHECK (status IN ('signup', 'running', 'paused', 'finished', 'cancelled')),
            doc TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX tournaments_in_guild ON tournaments(guild_id, status);
        CREATE TABLE tournament_games (
            game_id INTEGER PRIMARY KEY REFERENCES games(id),
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id)
        );
        CREATE INDEX tournament_games_of ON tournament_games(tournament_id);
        CREATE TABLE tournament_places (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            user_id INTEGER NOT NULL,
            place INTEGER NOT NULL,
            PRIMARY KEY (tournament_id, user_id)
        );
        CREATE INDEX tournament_places_user ON tournament_places(user_id);
        """,
    ),
]

# PostgreSQL's own script where a migration cannot be its SQLite script translated word for word
# (``in_postgres``): a table rebuilt in place, triggers in PL/pgSQL, the news of writes.
_POSTGRES: dict[int, str] = {
    # The same conversion as SQLite's, in place: PostgreSQL can drop a column and its CHECK, and the ids
    # and their sequence stay as they are.
    4: """
        ALTER TABLE lobbies ADD COLUMN game TEXT;
        ALTER TABLE lobbies ADD COLUMN names TEXT NOT NULL DEFAULT '{}';
        UPDATE lobbies SET
            game = CASE kind WHEN 'challenge' THEN 'bhargage' ELSE kind END,
            names = CASE kind WHEN 'deluxe' THEN coalesce(options::json ->> 'names', '{}') ELSE '{}' END,
            options = CASE kind WHEN 'deluxe' THEN coalesce(options::json ->> 'game', '{}')
                      ELSE options END;
        ALTER TABLE lobbies ALTER COLUMN game SET NOT NULL;
        ALTER TABLE lobbies DROP COLUMN kind;
        """,
    6: """
        CREATE TABLE snapshots (
            game_id BIGINT PRIMARY KEY REFERENCES games(id),
            seq INTEGER NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            fingerprint TEXT NOT NULL,
            data BYTEA NOT NULL
        );
        CREATE FUNCTION snapshots_of_closed_games() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM snapshots WHERE game_id = NEW.id;
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER snapshots_of_closed_games AFTER UPDATE OF status ON games
            FOR EACH ROW WHEN (NEW.status <> 'active') EXECUTE FUNCTION snapshots_of_closed_games();
        """,
    # With the version, the news of other processes' writes (PostgresStore.watch): every new game and every
    # write to one (its version or status) notifies 'tavern_games' with "<game id>:<status>:<writer>", the
    # writer being the token each store sets as tavern.writer on its connections (it skips its own news).
    8: """
        ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
        CREATE FUNCTION tavern_games_news() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('tavern_games', NEW.id || ':' || NEW.status || ':'
                              || coalesce(current_setting('tavern.writer', true), ''));
            RETURN NULL;
        END
        $$;
        CREATE TRIGGER games_news_of_writes AFTER UPDATE OF version, status ON games
            FOR EACH ROW EXECUTE FUNCTION tavern_games_news();
        CREATE TRIGGER games_news_of_new_games AFTER INSERT ON games
            FOR EACH ROW EXECUTE FUNCTION tavern_games_news();
        """,
}


def in_postgres(sql: str) -> str:
    """A SQLite script in PostgreSQL's words: Discord ids, seeds and row ids are 64-bit (``BIGINT``, the row
    id an identity column), ``REAL`` is ``DOUBLE PRECISION``, ``BLOB`` is ``BYTEA``, and a table has no
    ``WITHOUT ROWID``. Each migration is so written once; ``_POSTGRES`` holds the ones that are not."""
    sql = sql.replace(
        "INTEGER PRIMARY KEY AUTOINCREMENT", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    )
    sql = re.sub(r"\b(id|\w+_id|seed) INTEGER\b", r"\1 BIGINT", sql)
    sql = re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)
    return sql.replace(") WITHOUT ROWID;", ");").replace(" BLOB", " BYTEA")


MIGRATIONS: list[Migration] = [Migration(v, sql, _POSTGRES.get(v) or in_postgres(sql)) for v, sql in _SQLITE]

LATEST_VERSION = MIGRATIONS[-1].version

# The transaction-level advisory lock every process takes before migrating a PostgreSQL database.
MIGRATION_LOCK = (3, 0)


def refuse_newer(current: int, name: str) -> None:
    """A database migrated by a newer version of the bot has tables and rules this code does not know: using
    it would fail later, in front of the players, or write what the newer code cannot read. Refused at open,
    before anything is written."""
    if current > LATEST_VERSION:
        raise StoreOpenError(
            f"{name} is at schema version {current}, newer than this version of the bot knows "
            f"({LATEST_VERSION}): run the newer version of the bot, or restore a backup taken before it "
            "was upgraded."
        )


async def migrate(db: LoopConnection, target: int, *, name: str = "database") -> None:
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
    refuse_newer(current, name)
    for version, sql, _ in MIGRATIONS:
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


async def migrate_postgres(
    conn: asyncpg.Connection | PoolConnectionProxy, target: int, *, name: str = "database"
) -> None:
    """Apply every migration above the current version up to ``target`` to a PostgreSQL database, each in
    its own transaction under an advisory lock (another process starting at once waits, then finds the work
    done). A migration that fails is rolled back whole and re-raised."""
    while True:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1, $2)", *MIGRATION_LOCK)
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            current = int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))
            refuse_newer(current, name)
            step = next((m for m in MIGRATIONS if current < m.version <= target), None)
            if step is None:
                return
            await conn.execute(step.postgres)
            await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", step.version)
        log.info("%s migrated to version %d", name, step.version)
