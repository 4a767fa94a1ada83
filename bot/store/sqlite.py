"""The SQLite backend: one aiosqlite connection with its lock and transactions, one part per concern.

Durability: the database runs in WAL mode with ``synchronous=FULL``. In WAL mode ``NORMAL`` never corrupts the
file, but a commit acknowledged just before a power cut can be rolled back; ``FULL`` fsyncs the log on every
commit, so an action the bot has announced is on disk.

All access goes through one connection guarded by an ``asyncio.Lock``: statements of one coroutine's
transaction can never interleave with another's, and reads never see half a transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import aiosqlite

from bot import ratings as rt
from bot.store.base import SQLiteBase
from bot.store.games import GamesPart
from bot.store.lobbies import LobbiesPart
from bot.store.schema import LATEST_VERSION, migrate
from bot.store.stats import StatsPart


class SQLiteStore(GamesPart, LobbiesPart, StatsPart, SQLiteBase):
    """The store on one SQLite file. Create with ``await SQLiteStore.open(path)``."""

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        rating_systems: Mapping[str, rt.RatingSystem] | None = None,
        migrate_to: int | None = None,
    ) -> SQLiteStore:
        """Open (creating the file and its folder if needed) and migrate to the latest schema.

        ``migrate_to`` stops at an older version; it exists so tests can build an old database.
        """
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(str(p), isolation_level=None)
        db.row_factory = aiosqlite.Row
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA synchronous=FULL")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            systems = dict(rt.DEFAULT_SYSTEMS)
            systems.update(rating_systems or {})
            store = cls(db, p, systems)
            async with store._lock:
                await migrate(db, p, LATEST_VERSION if migrate_to is None else migrate_to)
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

    async def schema_version(self) -> int:
        row = await self._one("SELECT COALESCE(MAX(version), 0) AS v FROM schema_version")
        return int(row["v"]) if row else 0

    async def pragma(self, name: str) -> Any:
        """Read a PRAGMA (tests check WAL and synchronous)."""
        row = await self._one(f"PRAGMA {name}")
        return row[0] if row else None


__all__ = ["SQLiteStore"]
