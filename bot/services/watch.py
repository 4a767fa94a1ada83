"""Tables watched from outside Discord: the one place a table says "I told something" to whoever listens
(the web pages' live fan-out), without the table code knowing who does.

The Discord publisher calls :meth:`Watch.told` once per publish that told the channel something, with the
events it told, under the table's lock — and once per move whose calls the game holds back (a Deluxe turn
under way: the table's ``pending`` still holds them, and they come again, with the rest of the turn, when it
is told); a listener must be quick and never raise (it copies what it needs
and returns: the pages' fan-out builds one message per table and language, and only for tables somebody
watches). With no listener, telling costs one empty loop. A stored game written outside its table's telling
is news too (:meth:`Watch.changed`): by another process sharing the store (from the store's notifications),
or here, when a member who played it is forgotten (their name left it). A listener reads it again on its own
time, and drops whatever it kept of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from bot.games import Table

log = logging.getLogger("tavern.watch")

Listener = Callable[[Table, Sequence[Any]], None]
Changed = Callable[[int | None], None]


class Watch:
    """Listeners to what tables tell."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._changed: list[Changed] = []

    def listen(self, listener: Listener, changed: Changed | None = None) -> Callable[[], None]:
        """Add ``listener`` (and ``changed``, told of tables other processes wrote); the function returned
        removes them."""
        self._listeners.append(listener)
        if changed is not None:
            self._changed.append(changed)

        def remove() -> None:
            for kept, item in ((self._listeners, listener), (self._changed, changed)):
                if item in kept:
                    kept.remove(item)  # type: ignore[arg-type]

        return remove

    def told(self, table: Table, events: Sequence[Any]) -> None:
        """``table`` told ``events`` (its state is the one after them)."""
        for listener in tuple(self._listeners):
            try:
                listener(table, events)
            except Exception:  # a watcher's fault never reaches the table's move
                log.exception("game %d: a watcher failed on what the table told", table.id)

    def changed(self, game_id: int | None) -> None:
        """This stored game was written elsewhere (another process, or a member forgotten; None: any game
        may have been)."""
        for listener in tuple(self._changed):
            try:
                listener(game_id)
            except Exception:
                log.exception("a watcher failed on news of game %s", game_id)
