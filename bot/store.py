"""The one place that talks SQL: games, their action logs, results, ratings, lobbies and per-table UI data.

Durability: the database runs in WAL mode with ``synchronous=FULL``. In WAL mode ``NORMAL`` never corrupts the
file, but a commit acknowledged just before a power cut can be rolled back; ``FULL`` fsyncs the log on every
commit, so an action the bot has announced is on disk. A move costs one small fsync, which is cheap next to a
Discord round trip.

All access goes through one ``aiosqlite`` connection guarded by an ``asyncio.Lock``: statements of one
coroutine's transaction can never interleave with another's, and reads never see half a transaction.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite

from bot import ratings as rt

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
]

LATEST_VERSION = MIGRATIONS[-1][0]


class ChannelBusy(Exception):
    """The channel already has an active game."""


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    user_id: int
    name: str


@dataclass(frozen=True)
class ActionRecord:
    seq: int
    seat: int | None
    text: str
    at: float


@dataclass(frozen=True)
class GameRecord:
    id: int
    game: str
    guild_id: int
    channel_id: int
    seed: int
    players: int
    options: dict[str, Any]
    status: str
    created_at: float
    finished_at: float | None
    result: dict[str, Any] | None
    seats: tuple[SeatRecord, ...]
    actions: tuple[ActionRecord, ...]


@dataclass(frozen=True)
class Finish:
    """What the store needs to close a game: the engine's Result flattened, plus the time."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    muggins: bool
    how: str
    at: float
    hand_score_avg: tuple[float | None, ...] = ()
    left: tuple[bool, ...] = ()  # seats that left before the end (games that allow leaving)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "winners": list(self.winners),
            "muggins": self.muggins,
            "how": self.how,
            "hand_score_avg": list(self.hand_score_avg),
            "left": list(self.left),
        }


@dataclass(frozen=True)
class LeaderRow:
    user_id: int
    name: str
    games: int
    wins: int
    losses: int
    win_pct: float  # 0–100
    muggins_wins: int
    rating: int
    hand_score_avg: float | None = None  # games that score by hands (Deluxe)


@dataclass(frozen=True)
class HistoryRow:
    game_id: int
    game: str
    finished_at: float
    seat: int
    score: int
    rank: int
    players: int
    won: bool
    muggins: bool
    how: str


@dataclass(frozen=True)
class GameStats:
    game: str
    games: int
    wins: int
    losses: int
    muggins_wins: int
    rating: int
    hand_score_avg: float | None
    recent: tuple[HistoryRow, ...]


@dataclass(frozen=True)
class Lobby:
    id: int
    kind: str
    guild_id: int
    channel_id: int
    host_id: int
    invited_id: int | None
    options: dict[str, Any]
    members: tuple[int, ...]
    message_id: int | None
    created_at: float
    expires_at: float | None
    status: str
    game_id: int | None


_LOBBY_FIELDS = frozenset(
    {"status", "members", "message_id", "options", "invited_id", "expires_at", "game_id"}
)


@dataclass
class Store:
    """Async SQLite store. Create with ``await Store.open(path)``."""

    db: aiosqlite.Connection
    path: Path
    rating_systems: dict[str, rt.RatingSystem] = field(default_factory=lambda: dict(rt.DEFAULT_SYSTEMS))

    def __post_init__(self) -> None:
        self._lock = asyncio.Lock()
        self._closed = False

    # ---------------------------------------------------------------- lifecycle

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        rating_systems: Mapping[str, rt.RatingSystem] | None = None,
        migrate_to: int | None = None,
    ) -> Store:
        """Open (creating the file and its folder if needed) and migrate to the latest schema.

        ``migrate_to`` stops at an older version; it exists so tests can build an old database.
        """
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(str(p), isolation_level=None)
        db.row_factory = sqlite3.Row
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA synchronous=FULL")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            systems = dict(rt.DEFAULT_SYSTEMS)
            systems.update(rating_systems or {})
            store = cls(db=db, path=p, rating_systems=systems)
            await store._migrate(LATEST_VERSION if migrate_to is None else migrate_to)
        except BaseException:
            await db.close()
            raise
        return store

    async def close(self) -> None:
        """Close the connection; closing twice is harmless."""
        async with self._lock:
            if not self._closed:
                self._closed = True
                await self.db.close()

    async def _migrate(self, target: int) -> None:
        async with self._lock:
            await self.db.execute(
                "CREATE TABLE IF NOT EXISTS schema_version "
                "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (datetime('now')))"
            )
            cur = await self.db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version")
            row = await cur.fetchone()
            current = int(row[0]) if row else 0
            for version, sql in MIGRATIONS:
                if current < version <= target:
                    script = (
                        f"BEGIN IMMEDIATE;\n{sql}\n"
                        f"INSERT INTO schema_version(version) VALUES ({version});\nCOMMIT;"
                    )
                    try:
                        await self.db.executescript(script)
                    except BaseException:
                        if self.db.in_transaction:
                            await self.db.execute("ROLLBACK")
                        raise
                    log.info("database %s migrated to version %d", self.path, version)

    async def schema_version(self) -> int:
        row = await self._one("SELECT COALESCE(MAX(version), 0) AS v FROM schema_version")
        return int(row["v"]) if row else 0

    async def pragma(self, name: str) -> Any:
        """Read a PRAGMA (tests check WAL and synchronous)."""
        row = await self._one(f"PRAGMA {name}")
        return row[0] if row else None

    # ---------------------------------------------------------------- plumbing

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            await self.db.execute("COMMIT")

    async def _all(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[sqlite3.Row]:
        async with self._lock:
            cur = await self.db.execute(sql, params)
            return list(await cur.fetchall())

    async def _one(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> sqlite3.Row | None:
        async with self._lock:
            cur = await self.db.execute(sql, params)
            row: sqlite3.Row | None = await cur.fetchone()
            return row

    # ---------------------------------------------------------------- games

    async def create_game(
        self,
        game: str,
        guild_id: int,
        channel_id: int,
        seed: int,
        seats: Sequence[tuple[int, str]],
        options: Mapping[str, Any],
        created_at: float,
    ) -> int:
        """Insert an active game and its seats; raises ``ChannelBusy`` if the channel has an active game."""
        try:
            async with self._tx() as db:
                cur = await db.execute(
                    "INSERT INTO games (game, guild_id, channel_id, seed, players, options, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game, guild_id, channel_id, seed, len(seats), json.dumps(dict(options)), created_at),
                )
                game_id = cur.lastrowid
                assert game_id is not None
                await db.executemany(
                    "INSERT INTO seats (game_id, seat, user_id, name) VALUES (?, ?, ?, ?)",
                    [(game_id, i, uid, name) for i, (uid, name) in enumerate(seats)],
                )
        except sqlite3.IntegrityError as err:
            if "games.channel_id" in str(err) or "UNIQUE" in str(err):
                raise ChannelBusy(channel_id) from err
            raise
        return int(game_id)

    async def append_action(
        self,
        game_id: int,
        seq: int,
        seat: int | None,
        text: str,
        at: float,
        *,
        finish: Finish | None = None,
    ) -> None:
        """Commit one accepted action; with ``finish`` the same transaction also closes the game.

        ``seq`` is 1 for the first action. A duplicate (game_id, seq) raises ``sqlite3.IntegrityError``.
        """
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO actions (game_id, seq, seat, text, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, seat, text, at),
            )
            if finish is not None:
                await self._finish_in_tx(db, game_id, finish)

    async def finish_game(self, game_id: int, finish: Finish) -> None:
        """Close a game whose last action is already logged (used when a restore finds a finished state)."""
        async with self._tx() as db:
            await self._finish_in_tx(db, game_id, finish)

    async def abandon_game(self, game_id: int, at: float) -> bool:
        """Mark an active game abandoned (no results, no rating change). False if it was not active."""
        async with self._tx() as db:
            cur = await db.execute(
                "UPDATE games SET status = 'abandoned', finished_at = ? WHERE id = ? AND status = 'active'",
                (at, game_id),
            )
            return cur.rowcount == 1

    async def load_game(self, game_id: int) -> GameRecord | None:
        rows = await self._all("SELECT * FROM games WHERE id = ?", (game_id,))
        if not rows:
            return None
        return (await self._records(rows))[0]

    async def active_games(self) -> list[GameRecord]:
        rows = await self._all("SELECT * FROM games WHERE status = 'active' ORDER BY id")
        return await self._records(rows)

    async def actions(self, game_id: int) -> list[ActionRecord]:
        rows = await self._all(
            "SELECT seq, seat, text, at FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [ActionRecord(r["seq"], r["seat"], r["text"], r["at"]) for r in rows]

    async def _records(self, rows: Iterable[sqlite3.Row]) -> list[GameRecord]:
        out = []
        for r in rows:
            seats = await self._all(
                "SELECT seat, user_id, name FROM seats WHERE game_id = ? ORDER BY seat", (r["id"],)
            )
            out.append(
                GameRecord(
                    id=r["id"],
                    game=r["game"],
                    guild_id=r["guild_id"],
                    channel_id=r["channel_id"],
                    seed=r["seed"],
                    players=r["players"],
                    options=json.loads(r["options"]),
                    status=r["status"],
                    created_at=r["created_at"],
                    finished_at=r["finished_at"],
                    result=json.loads(r["result"]) if r["result"] else None,
                    seats=tuple(SeatRecord(s["seat"], s["user_id"], s["name"]) for s in seats),
                    actions=tuple(await self.actions(r["id"])),
                )
            )
        return out

    async def _finish_in_tx(self, db: aiosqlite.Connection, game_id: int, f: Finish) -> None:
        cur = await db.execute("SELECT game, guild_id, status FROM games WHERE id = ?", (game_id,))
        g = await cur.fetchone()
        if g is None or g["status"] != "active":
            raise ValueError(f"game {game_id} is not active")
        cur = await db.execute(
            "SELECT seat, user_id, name FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
        )
        seats = list(await cur.fetchall())
        await db.execute(
            "UPDATE games SET status = 'finished', finished_at = ?, result = ? WHERE id = ?",
            (f.at, json.dumps(f.to_dict()), game_id),
        )
        game, guild_id, n = g["game"], g["guild_id"], len(seats)
        ranks = rt.ranks_from_result(f.scores, f.winners, f.left)
        hands = list(f.hand_score_avg) + [None] * (n - len(f.hand_score_avg))
        await db.executemany(
            "INSERT INTO results (game_id, guild_id, game, user_id, seat, score, rank, won, muggins, how, "
            "hand_score_avg, players, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    game_id,
                    guild_id,
                    game,
                    s["user_id"],
                    s["seat"],
                    f.scores[s["seat"]],
                    ranks[s["seat"]],
                    int(s["seat"] in f.winners),
                    int(f.muggins and s["seat"] in f.winners),
                    f.how,
                    hands[s["seat"]],
                    n,
                    f.at,
                )
                for s in seats
            ],
        )
        # Current ratings (or starting values) for everyone at the table.
        current: list[tuple[float, float | None, float | None]] = []
        for s in seats:
            cur = await db.execute(
                "SELECT rating, mu, sigma FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",
                (guild_id, game, s["user_id"]),
            )
            row = await cur.fetchone()
            current.append((row["rating"], row["mu"], row["sigma"]) if row else (rt.ELO_START, None, None))
        system = self.rating_systems.get(game, "openskill")
        if system == "elo" and n != 2:
            system = "openskill"
        new: list[tuple[float, float | None, float | None]]
        if system == "elo":
            a, b = (seat["seat"] in f.winners for seat in seats)
            score_a = 1.0 if a and not b else 0.0 if b and not a else 0.5
            ra, rb = rt.elo_update(current[0][0], current[1][0], score_a)
            new = [(ra, None, None), (rb, None, None)]
        else:
            pairs = [
                (mu if mu is not None else rt.OS_MU, sg if sg is not None else rt.OS_SIGMA)
                for _, mu, sg in current
            ]
            updated = rt.openskill_update(pairs, ranks)
            new = [(float(rt.display_openskill(mu, sg)), mu, sg) for mu, sg in updated]
        for s, (rating, mu, sigma) in zip(seats, new, strict=True):
            won = s["seat"] in f.winners
            await db.execute(
                "INSERT INTO ratings (guild_id, game, user_id, name, rating, mu, sigma, games, wins, losses, "
                "muggins_wins, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id, game, user_id) DO UPDATE SET name = excluded.name, "
                "rating = excluded.rating, mu = excluded.mu, sigma = excluded.sigma, games = games + 1, "
                "wins = wins + excluded.wins, losses = losses + excluded.losses, "
                "muggins_wins = muggins_wins + excluded.muggins_wins, updated_at = excluded.updated_at",
                (
                    guild_id,
                    game,
                    s["user_id"],
                    s["name"],
                    rating,
                    mu,
                    sigma,
                    int(won),
                    int(not won),
                    int(won and f.muggins),
                    f.at,
                ),
            )

    # ---------------------------------------------------------------- per-table UI data

    async def get_meta(self, game_id: int) -> dict[str, Any]:
        row = await self._one("SELECT data FROM table_meta WHERE game_id = ?", (game_id,))
        return dict(json.loads(row["data"])) if row else {}

    async def set_meta(self, game_id: int, **values: Any) -> dict[str, Any]:
        """Merge JSON-able values into the game's meta (``None`` removes a key); returns the new dict."""
        async with self._tx() as db:
            cur = await db.execute("SELECT data FROM table_meta WHERE game_id = ?", (game_id,))
            row = await cur.fetchone()
            data: dict[str, Any] = json.loads(row["data"]) if row else {}
            for key, value in values.items():
                if value is None:
                    data.pop(key, None)
                else:
                    data[key] = value
            await db.execute(
                "INSERT INTO table_meta (game_id, data) VALUES (?, ?) "
                "ON CONFLICT (game_id) DO UPDATE SET data = excluded.data",
                (game_id, json.dumps(data)),
            )
            return data

    # ---------------------------------------------------------------- ratings queries

    async def rating_of(self, guild_id: int, game: str, user_id: int) -> dict[str, Any] | None:
        row = await self._one(
            "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?", (guild_id, game, user_id)
        )
        return dict(row) if row else None

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderRow]:
        rows = await self._all(
            "SELECT r.*, (SELECT AVG(x.hand_score_avg) FROM results x WHERE x.guild_id = r.guild_id "
            "AND x.game = r.game AND x.user_id = r.user_id AND x.hand_score_avg IS NOT NULL) AS hand_avg "
            "FROM ratings r WHERE r.guild_id = ? AND r.game = ? AND r.games > 0 "
            "ORDER BY r.rating DESC, r.wins DESC, r.games DESC, r.user_id LIMIT ?",
            (guild_id, game, limit),
        )
        return [
            LeaderRow(
                user_id=r["user_id"],
                name=r["name"],
                games=r["games"],
                wins=r["wins"],
                losses=r["losses"],
                win_pct=100.0 * r["wins"] / r["games"],
                muggins_wins=r["muggins_wins"],
                rating=round(r["rating"]),
                hand_score_avg=r["hand_avg"],
            )
            for r in rows
        ]

    async def stats(self, guild_id: int, user_id: int, *, recent: int = 5) -> dict[str, GameStats]:
        """Per game the user has finished in this guild: totals, rating, average hand score, recent games."""
        out: dict[str, GameStats] = {}
        rows = await self._all(
            "SELECT * FROM ratings WHERE guild_id = ? AND user_id = ? ORDER BY game", (guild_id, user_id)
        )
        for r in rows:
            avg = await self._one(
                "SELECT AVG(hand_score_avg) AS a FROM results "
                "WHERE guild_id = ? AND user_id = ? AND game = ? AND hand_score_avg IS NOT NULL",
                (guild_id, user_id, r["game"]),
            )
            hist = await self._all(
                "SELECT * FROM results WHERE guild_id = ? AND user_id = ? AND game = ? "
                "ORDER BY finished_at DESC, game_id DESC LIMIT ?",
                (guild_id, user_id, r["game"], recent),
            )
            out[r["game"]] = GameStats(
                game=r["game"],
                games=r["games"],
                wins=r["wins"],
                losses=r["losses"],
                muggins_wins=r["muggins_wins"],
                rating=round(r["rating"]),
                hand_score_avg=avg["a"] if avg else None,
                recent=tuple(
                    HistoryRow(
                        game_id=h["game_id"],
                        game=h["game"],
                        finished_at=h["finished_at"],
                        seat=h["seat"],
                        score=h["score"],
                        rank=h["rank"],
                        players=h["players"],
                        won=bool(h["won"]),
                        muggins=bool(h["muggins"]),
                        how=h["how"],
                    )
                    for h in hist
                ),
            )
        return out

    # ---------------------------------------------------------------- lobbies

    async def create_lobby(
        self,
        kind: str,
        guild_id: int,
        channel_id: int,
        host_id: int,
        *,
        created_at: float,
        expires_at: float | None = None,
        invited_id: int | None = None,
        options: Mapping[str, Any] | None = None,
        members: Sequence[int] = (),
        message_id: int | None = None,
    ) -> Lobby:
        async with self._tx() as db:
            cur = await db.execute(
                "INSERT INTO lobbies (kind, guild_id, channel_id, host_id, invited_id, options, members, "
                "message_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kind,
                    guild_id,
                    channel_id,
                    host_id,
                    invited_id,
                    json.dumps(dict(options or {})),
                    json.dumps(list(members)),
                    message_id,
                    created_at,
                    expires_at,
                ),
            )
            lobby_id = cur.lastrowid
        lobby = await self.get_lobby(int(lobby_id or 0))
        assert lobby is not None
        return lobby

    async def get_lobby(self, lobby_id: int) -> Lobby | None:
        row = await self._one("SELECT * FROM lobbies WHERE id = ?", (lobby_id,))
        return _lobby(row) if row else None

    async def update_lobby(self, lobby_id: int, **fields: Any) -> Lobby:
        """Set any of status, members, message_id, options, invited_id, expires_at, game_id."""
        bad = set(fields) - _LOBBY_FIELDS
        if bad:
            raise TypeError(f"unknown lobby fields: {sorted(bad)}")
        if fields:
            values = [
                json.dumps(list(v)) if k == "members" else json.dumps(dict(v)) if k == "options" else v
                for k, v in fields.items()
            ]
            sets = ", ".join(f"{k} = ?" for k in fields)
            async with self._tx() as db:
                await db.execute(f"UPDATE lobbies SET {sets} WHERE id = ?", (*values, lobby_id))
        lobby = await self.get_lobby(lobby_id)
        if lobby is None:
            raise KeyError(lobby_id)
        return lobby

    async def open_lobbies(self, *, channel_id: int | None = None) -> list[Lobby]:
        if channel_id is None:
            rows = await self._all("SELECT * FROM lobbies WHERE status = 'open' ORDER BY id")
        else:
            rows = await self._all(
                "SELECT * FROM lobbies WHERE status = 'open' AND channel_id = ? ORDER BY id", (channel_id,)
            )
        return [_lobby(r) for r in rows]

    async def expire_lobbies(self, now: float) -> list[Lobby]:
        """Mark open lobbies past their expiry as expired; returns them (so their messages can be edited)."""
        async with self._tx() as db:
            cur = await db.execute(
                "SELECT * FROM lobbies WHERE status = 'open' AND expires_at IS NOT NULL AND expires_at <= ?",
                (now,),
            )
            rows = list(await cur.fetchall())
            await db.executemany(
                "UPDATE lobbies SET status = 'expired' WHERE id = ?", [(r["id"],) for r in rows]
            )
        return [_lobby(r, status="expired") for r in rows]


def _lobby(r: sqlite3.Row, *, status: str | None = None) -> Lobby:
    return Lobby(
        id=r["id"],
        kind=r["kind"],
        guild_id=r["guild_id"],
        channel_id=r["channel_id"],
        host_id=r["host_id"],
        invited_id=r["invited_id"],
        options=json.loads(r["options"]),
        members=tuple(json.loads(r["members"])),
        message_id=r["message_id"],
        created_at=r["created_at"],
        expires_at=r["expires_at"],
        status=status or r["status"],
        game_id=r["game_id"],
    )
