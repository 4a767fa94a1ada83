"""``SQLiteStore``: the ``Store`` on one SQLite file.

Durability: the database runs in WAL mode with ``synchronous=NORMAL``. A commit is in the write-ahead log
before the call returns, so a crash of the process (a kill, an exception, running out of memory) loses
nothing the bot has announced; the log is fsynced at checkpoints, not at every commit, so a power cut or an
operating-system crash can roll back the last moments of play (the file itself is never corrupted).
``FULL`` would fsync on every commit; ``bench/bench_store.py`` measures what that costs per move.

All access goes through one connection used on the event loop's thread (``bot.store.sqlite_conn``: why not a
worker thread, and how the log's checkpoints stay off the loop), guarded by an ``asyncio.Lock``: statements
of one coroutine's transaction can never interleave with another's, and reads never see half a
transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite

from bot.base import ratings as rt
from bot.store import schema
from bot.store._base import Conn, Params, Row
from bot.store.config import ConfigMixin
from bot.store.forget import ForgetMixin
from bot.store.games import GamesMixin
from bot.store.lobbies import LobbiesMixin
from bot.store.profiles import ProfilesMixin
from bot.store.records import StoreOpenError
from bot.store.sqlite_conn import LoopConnection
from bot.store.stats import StatsMixin
from bot.store.tournaments import TournamentsMixin

if TYPE_CHECKING:
    from bot.store.interface import Store


SYNCHRONOUS = "NORMAL"


@dataclass
class SQLiteStore(
    GamesMixin, LobbiesMixin, StatsMixin, ProfilesMixin, ConfigMixin, ForgetMixin, TournamentsMixin
):
    """Async SQLite store. Create with ``await SQLiteStore.open(path)``."""

    db: LoopConnection
    path: Path
    rating_systems: dict[str, rt.RatingSystem] = field(default_factory=lambda: dict(rt.DEFAULT_SYSTEMS))

    shared = False  # one process: its cached games are the truth
    _unique_errors = (sqlite3.IntegrityError,)

    def __post_init__(self) -> None:
        self._lock = asyncio.Lock()
        self._closed = False
        self.write_transactions = 0  # committed write transactions, for the benchmarks

    # ---------------------------------------------------------------- lifecycle

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        rating_systems: Mapping[str, rt.RatingSystem] | None = None,
        migrate_to: int | None = None,
    ) -> SQLiteStore:
        """Open (creating the file and its folder if needed) and migrate to the latest schema.

        ``rating_systems`` overrides ``bot.base.ratings.DEFAULT_SYSTEMS`` per game. ``migrate_to`` stops at an
        older version; it exists so tests can build an old database.
        """
        p = Path(path)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            db = LoopConnection(p)
        except (OSError, sqlite3.Error) as err:  # a folder that can't be made, a file that can't be opened
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            raise StoreOpenError(f"{p} can't be opened or created ({reason})") from None
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
            await db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints run off the loop (sqlite_conn)
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            systems = dict(rt.DEFAULT_SYSTEMS)
            systems.update(rating_systems or {})
            store = cls(db=db, path=p, rating_systems=systems)
            async with store._lock:
                target = schema.LATEST_VERSION if migrate_to is None else migrate_to
                await schema.migrate(db, target, name=f"database {p}")
        except BaseException:
            await db.close()
            raise
        return store

    @staticmethod
    async def version_at(path: str | Path) -> int | None:
        """The schema version of the database at ``path``, read without writing anything (``python -m bot
        check``); None when there is no file yet (the first start makes it). ``StoreOpenError`` when the
        file is no database this bot can read."""
        p = Path(path)
        if not p.exists():
            return None
        try:
            async with aiosqlite.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True) as db:
                found = await db.execute_fetchall(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
                )
                if not found:
                    return 0
                rows = list(await db.execute_fetchall("SELECT COALESCE(MAX(version), 0) FROM schema_version"))
                return int(rows[0][0])
        except sqlite3.Error as err:
            raise StoreOpenError(f"{p} cannot be read as a SQLite database ({err})") from None

    async def close(self) -> None:
        """Close the connection; closing twice is harmless."""
        async with self._lock:
            if not self._closed:
                self._closed = True
                await self.db.close()

    async def pragma(self, name: str) -> Any:
        """Read a PRAGMA (tests check WAL and synchronous). SQLite only: not part of ``Store``."""
        row = await self._one(f"PRAGMA {name}")
        return row[0] if row else None

    @asynccontextmanager
    async def table_lock(self, game_id: int) -> AsyncIterator[int | None]:
        """Nothing to hold across processes: the file serves one process, whose own lock suffices."""
        yield None

    async def watch(self, changed: Callable[[int | None, bool], None]) -> None:
        """No other process writes this file: there is never news."""

    # ---------------------------------------------------------------- plumbing

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Conn]:
        async with self._lock:
            db = self.db
            try:
                await db.execute("BEGIN IMMEDIATE")
                yield SQLiteConn(db)
                await db.execute("COMMIT")
                self.write_transactions += 1
            except BaseException:
                # Whichever statement failed — BEGIN after it began, one inside, or COMMIT (disk I/O, full
                # disk) — an open transaction is rolled back, or the next write's COMMIT would carry it too.
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        await db.execute("ROLLBACK")
                raise

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Conn]:
        async with self._lock:
            db = self.db
            try:
                await db.execute("BEGIN")
                yield SQLiteConn(db)
            finally:
                if db.in_transaction:
                    await db.execute("COMMIT")

    async def _all(self, sql: str, params: Params = ()) -> list[Row]:
        async with self._lock:
            return await SQLiteConn(self.db).fetch(sql, params)

    async def _one(self, sql: str, params: Params = ()) -> Row | None:
        async with self._lock:
            return await SQLiteConn(self.db).fetchrow(sql, params)


class SQLiteConn:
    """``Conn`` on the store's connection: one ``execute`` of it per statement."""

    def __init__(self, db: LoopConnection) -> None:
        self.db = db

    async def fetch(self, sql: str, params: Params = ()) -> list[Row]:
        cur = await self.db.execute(sql, params)
        rows: list[Row] = list(await cur.fetchall())
        return rows

    async def fetchrow(self, sql: str, params: Params = ()) -> Row | None:
        cur = await self.db.execute(sql, params)
        try:
            row: sqlite3.Row | None = await cur.fetchone()
        finally:
            await cur.close()  # a statement left half-read would keep the transaction from committing
        return row

    async def execute(self, sql: str, params: Params = ()) -> int:
        cur = await self.db.execute(sql, params)
        return int(cur.rowcount)

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        await self.db.executemany(sql, rows)


if TYPE_CHECKING:

    def _implements_store(s: SQLiteStore) -> Store:
        return s

    def _implements_conn(c: SQLiteConn) -> Conn:
        return c
