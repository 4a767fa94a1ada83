"""What the SQL mixins (games, lobbies, stats, config) need from a backend, which provides it: ``SQLiteStore``
in sqlite.py, ``PostgresStore`` in postgres.py.

The mixins' SQL is written once, with ``?`` placeholders, in the dialect both databases speak; it reaches
the database through a ``Conn`` (rows indexable by column name: ``sqlite3.Row`` and ``asyncpg.Record`` both
are). Where the dialects truly differ, the backend overrides a small hook of ``StoreBase``.

Every public operation of a store is timed for the metrics (``tavern_store_seconds`` by operation, and
``tavern_store_errors_total`` when it fails): ``StoreBase.__init_subclass__`` wraps the coroutine methods
each mixin and backend defines, so a new operation is timed without a line of its own.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bot.base import metrics
from bot.base.ratings import RatingSystem
from bot.store.records import (
    ActionConflict,
    ChannelBusy,
    HostBusy,
    PlayerBusy,
    StaleTournament,
    VersionConflict,
    WaitingInLobby,
)

Params = Sequence[Any]
# Operations not timed: closing, and subscribing to other processes' news (once each, at start and stop).
UNTIMED = frozenset({"close", "watch"})
# The store's own refusals: answers, not failures.
REFUSALS = (
    ActionConflict,
    ChannelBusy,
    HostBusy,
    PlayerBusy,
    StaleTournament,
    VersionConflict,
    WaitingInLobby,
)


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


OPERATIONS: set[str] = set()  # every store operation timed, by name (the metrics' ``operation`` label)


def _timed(operation: str, method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """``method`` observed in the store's histogram under ``operation``: two clock reads and one
    observation, a microsecond or two. An operation's histogram appears once it is first used (the store
    has some fifty operations, most of them rare: their buckets served all along would be most of a
    scrape); its error counter is there at 0 from the start."""

    @functools.wraps(method)
    async def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await method(*args, **kwargs)
        except REFUSALS:
            raise
        except Exception:
            metrics.STORE_ERRORS.labels(operation).inc()
            raise
        finally:
            metrics.STORE_SECONDS.labels(operation).observe(time.perf_counter() - start)

    return timed


class StoreBase:
    rating_systems: dict[str, RatingSystem]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Time the public coroutine methods this class defines (see the module's docstring)."""
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if not name.startswith("_") and name not in UNTIMED and inspect.iscoroutinefunction(value):
                setattr(cls, name, _timed(name, value))
                OPERATIONS.add(name)
                metrics.STORE_ERRORS.labels(name)  # at 0 from the start: an alert sees the first failure

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
