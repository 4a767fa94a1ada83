"""Tables watched from outside Discord: the one place a table says "I told something" to whoever listens
(the web pages' live fan-out), without the table code knowing who does.

The Discord publisher calls :meth:`Watch.told` once per publish that told the channel something, with the
events it told, under the table's lock; a listener must be quick and never raise (it copies what it needs
and returns: the pages' fan-out builds one message per table and language, and only for tables somebody
watches). With no listener, telling costs one empty loop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from bot.games import Table

log = logging.getLogger("tavern.watch")

Listener = Callable[[Table, Sequence[Any]], None]


class Watch:
    """Listeners to what tables tell."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Add ``listener``; the function returned removes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def told(self, table: Table, events: Sequence[Any]) -> None:
        """``table`` told ``events`` (its state is the one after them)."""
        for listener in tuple(self._listeners):
            try:
                listener(table, events)
            except Exception:  # a watcher's fault never reaches the table's move
                log.exception("game %d: a watcher failed on what the table told", table.id)
