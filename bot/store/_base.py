"""What the SQL mixins (games, lobbies, stats, config) need from a backend, which provides it: ``SQLiteStore``
in sqlite.py, ``PostgresStore`` in postgres.py.

The mixins' SQL is written once, with ``?`` placeholders, in the dialect both databases speak; it reaches
the database through a ``Conn`` (rows indexable by column name: ``sqlite3.Row`` and ``asyncpg.Record`` both
are). Where the dialects truly differ, the backend overrides a small hook of ``StoreBase``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bot.base.ratings import RatingSystem

Params = Sequence[Any]


class Row(Protocol):
    """One result row: by column name or position."""

    def __getitem__(self, key: int | str, /) -> Any: ...

    def keys(self) -> Iterable[str]: ...


class Conn(Protocol):
    """The statements of one transaction (or one read), whatever the backend."""

    async def fetch(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row the statement returns."""
        ...

    async def fetchrow(self, sql: str, params: Params = ()) -> Row | None:
        """The first row the statement returns, if any."""
        ...

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run a statement; the number of rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run a statement once per parameter row."""
        ...


class StoreBase:
    rating_systems: dict[str, RatingSystem]

    # The errors a backend raises when a unique key (or primary key) would be duplicated.
    _unique_errors: tuple[type[Exception], ...] = ()

    def _tx(self) -> AbstractAsyncContextManager[Conn]:
        """A write transaction: committed at the end, rolled back on any error."""
        raise NotImplementedError

    def _read(self) -> AbstractAsyncContextManager[Conn]:
        """Several reads that see one snapshot."""
        raise NotImplementedError

    async def _all(self, sql: str, params: Params = ()) -> list[Row]:
        raise NotImplementedError

    async def _one(self, sql: str, params: Params = ()) -> Row | None:
        raise NotImplementedError

    async def schema_version(self) -> int:
        """The highest schema migration applied to the database."""
        row = await self._one("SELECT COALESCE(MAX(version), 0) AS v FROM schema_version")
        return int(row["v"]) if row else 0

    async def _serialize_seating(self, db: Conn) -> None:
        """Inside ``create_game``'s and ``create_lobby``'s transactions, before their checks: make other
        processes' seating and hosting wait until this transaction ends. A backend whose write transactions
        are already serialized does nothing."""
