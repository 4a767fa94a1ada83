"""Bounded memories: an ordered mapping kept to its most recently used entries (a process remembers what
its messages show, the replays asked for lately), so that it never grows with the bot's uptime."""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def keep_newest(kept: OrderedDict[K, V], key: K, value: V, most: int) -> None:
    """Keep ``value`` under ``key`` as the most recently used entry of ``kept``, dropping the least recently
    used ones past ``most``."""
    kept.pop(key, None)
    kept[key] = value
    while len(kept) > most:
        kept.popitem(last=False)
