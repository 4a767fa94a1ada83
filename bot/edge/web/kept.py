"""What the pages keep: things built once and served again, by what they show (a game, its version, a step,
a language), never by the link that asked for them, so every link to the same page finds it.

A thing is kept ``seconds`` at most, and the whole is bounded by ``most``, in whatever ``weigh`` counts (one a
thing, or a page's bytes), least recently used out first. What is kept of a game is dropped when the stored
game changes (:meth:`Kept.drop`: another process wrote it, or a member who played it was forgotten and their
name left it).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True)
class _Entry(Generic[V]):
    at: float
    value: V
    weight: int


class Kept(Generic[K, V]):
    """At most ``most`` (by ``weigh``) values, each for ``seconds``, least recently used out first."""

    def __init__(
        self,
        most: int,
        seconds: float,
        weigh: Callable[[V], int] = lambda _: 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.most, self.seconds, self.weigh, self.clock = most, seconds, weigh, clock
        self._kept: OrderedDict[K, _Entry[V]] = OrderedDict()
        self.weight = 0

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: K) -> V | None:
        found = self._kept.get(key)
        if found is None:
            return None
        if self.clock() - found.at > self.seconds:
            self._pop(key)
            return None
        self._kept.move_to_end(key)
        return found.value

    def put(self, key: K, value: V) -> None:
        self._pop(key)
        entry = _Entry(self.clock(), value, self.weigh(value))
        self._kept[key] = entry
        self.weight += entry.weight
        while self.weight > self.most and len(self._kept) > 1:
            self._pop(next(iter(self._kept)))

    def drop(self, gone: Callable[[K], bool]) -> None:
        """Forget the values whose keys are ``gone``: what they show changed."""
        for key in [k for k in self._kept if gone(k)]:
            self._pop(key)

    def _pop(self, key: K) -> None:
        entry = self._kept.pop(key, None)
        if entry is not None:
            self.weight -= entry.weight
