"""The SQLite file's connection, used on the event loop's own thread, with aiosqlite's awaitable surface.

Why not a worker thread (aiosqlite): a transaction is several statements, each a hop to the thread and back
through the loop, and the store's lock is held across every hop. Under a busy loop each hop waits its turn
behind the loop's other work, so one move's transaction held the file for milliseconds, and the others
queued behind it: at 500 busy tables a store call waited half a second on average (``bench.bench_load``'s
store line). On the loop a statement of the bot's (a few indexed rows) takes tens of microseconds, a
transaction never yields the loop, and nothing queues.

What could take long on the loop is kept off it: the write-ahead log is checkpointed (the one step that
fsyncs) by an aiosqlite connection of its own, in aiosqlite's worker thread, every ``CHECKPOINT_COMMITS``
commits, and never by a commit here (``wal_autocheckpoint`` is off on this connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import aiosqlite

log = logging.getLogger(__name__)

CHECKPOINT_COMMITS = 500  # a few MB of log at most: at 1,000 busy tables, a checkpoint every few seconds


class Cursor:
    """A finished statement's rows, read as aiosqlite's cursor reads them."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()


class LoopConnection:
    """One ``sqlite3`` connection used on the thread that opened it (the event loop's), awaitable like
    aiosqlite's so the store's statements and their tests read the same. Commits count towards a
    checkpoint in a worker thread (see the module's docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = sqlite3.connect(str(path), isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._commits = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self._closed = False

    def _live(self) -> sqlite3.Connection:
        if self._closed:
            raise ValueError("the store's connection is closed")
        return self._conn

    @property
    def in_transaction(self) -> bool:
        return not self._closed and self._conn.in_transaction

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> Cursor:
        cursor = Cursor(self._live().execute(sql, tuple(params)))
        if sql == "COMMIT":
            self._committed()
        return cursor

    async def executemany(self, sql: str, rows: Iterable[Any]) -> Cursor:
        return Cursor(self._live().executemany(sql, rows))

    async def executescript(self, script: str) -> None:
        self._live().executescript(script)

    async def execute_fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        return self._live().execute(sql, tuple(params)).fetchall()

    async def set_trace_callback(self, callback: Callable[[str], object] | None) -> None:
        self._live().set_trace_callback(callback)

    def _committed(self) -> None:
        self._commits += 1
        if self._commits >= CHECKPOINT_COMMITS and self._checkpoint is None:
            self._commits = 0
            self._checkpoint = asyncio.get_running_loop().create_task(self._checkpoint_off_loop())

    async def _checkpoint_off_loop(self) -> None:
        """Copy the log into the file from a worker thread (PASSIVE: it never blocks this connection's
        writes; what a reader still needs stays for the next one)."""
        try:
            async with aiosqlite.connect(str(self.path), isolation_level=None) as other:
                await other.execute("PRAGMA busy_timeout=5000")
                await other.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as err:  # the log just grows until the next one; nothing is lost
            log.warning("checkpoint of %s failed: %s", self.path, err)
        finally:
            self._checkpoint = None

    async def close(self) -> None:
        """Wait for a checkpoint under way, fold the log into the file, and close."""
        if self._closed:
            return
        if self._checkpoint is not None:
            with contextlib.suppress(Exception):
                await self._checkpoint
        self._closed = True
        with contextlib.suppress(sqlite3.Error):
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._conn.close()
