"""Keyed locks: one lock per key, kept only while someone holds or waits for it.

The lock discipline, in one sentence: a channel's lock covers opening anything there (a lobby or a table),
a lobby's lock covers one click on that lobby, a table's lock covers one whole move (check, apply, persist,
announce); when more than one is needed they are taken in that order (channel, then lobby, then table),
never the other way round.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager


class KeyedLocks:
    """``async with locks(key):`` — a lock per table ever hosted would otherwise stay in memory for good."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def __call__(self, key: Hashable) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def locked(self, key: Hashable) -> bool:
        found = self._locks.get(key)
        return found is not None and found[0].locked()

    def __len__(self) -> int:
        return len(self._locks)
