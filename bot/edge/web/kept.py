"""The small caches of the pages (finished games' replays and records, a server's tables): at most ``size``
values, each for ``seconds``, least recently used out first; and what is kept of a game is dropped when the
stored game changes (a member who played it forgotten: their name left it)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Kept(Generic[K, V]):
    """A small cache: at most ``size`` values, each for ``seconds``, least recently used out first."""

    def __init__(self, size: int, seconds: float) -> None:
        self.size, self.seconds = size, seconds
        self._kept: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def get(self, key: K) -> V | None:
        found = self._kept.get(key)
        if found is None or time.monotonic() - found[0] > self.seconds:
            return None
        self._kept.move_to_end(key)
        return found[1]

    def put(self, key: K, value: V) -> None:
        self._kept[key] = (time.monotonic(), value)
        self._kept.move_to_end(key)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def drop(self, gone: Callable[[K], bool]) -> None:
        """Forget the values whose keys are ``gone``: what they show changed."""
        self._kept = OrderedDict((k, v) for k, v in self._kept.items() if not gone(k))
