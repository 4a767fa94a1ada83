"""What every part of the SQLite store shares: the connection, its lock, transactions and queries."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from bot import ratings as rt


class SQLiteBase:
    def __init__(
        self, db: aiosqlite.Connection, path: Path, rating_systems: Mapping[str, rt.RatingSystem]
    ) -> None:
        self.db = db
        self.path = path
        self.rating_systems = dict(rating_systems)
        self._lock = asyncio.Lock()
        self._closed = False

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
