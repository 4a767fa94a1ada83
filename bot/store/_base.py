"""What the SQL mixins (games, lobbies, stats) need from ``SQLiteStore``, which provides it in sqlite.py."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

import aiosqlite

from bot.ratings import RatingSystem

Params = Sequence[Any] | Mapping[str, Any]


class SQLiteBase:
    db: aiosqlite.Connection
    rating_systems: dict[str, RatingSystem]

    def _tx(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """A write transaction (BEGIN IMMEDIATE … COMMIT, ROLLBACK on any error) under the store's lock."""
        raise NotImplementedError

    def _read(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """Several reads that see one snapshot, under the store's lock."""
        raise NotImplementedError

    async def _all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        raise NotImplementedError

    async def _one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        raise NotImplementedError
