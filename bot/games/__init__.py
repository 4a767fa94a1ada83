"""Game adapters: the one object per game that the shared table code drives, and the table it drives it at.

An adapter (:class:`GameAdapter`, in :mod:`bot.games.table`) names its rules engine (a
:class:`bot.rules.engine.Engine`) and its computer player, and says, for that game only: its options and how
they read, how its lobby works (a two-player challenge, an open lobby of ``min_players``–``max_players``, or
both), what the board, a seat's private panel and a move's announcement look like (as :mod:`bot.base.panel`
values built from events and seat views), which panels a move redraws, and what a click on one of its own
controls means. Everything else — locks, the store, delivery to the channel and to DMs, closed-DMs fallback,
timers, resign, claims and rematch — is shared code (:mod:`bot.edge.controller`, :mod:`bot.services.lobbies`,
:mod:`bot.services.tables`). Adapters hold no state and import no Discord.

The plain values the table code and the adapters share live here too: the :class:`Table` in play, its
seats (:class:`Seat`) and :class:`TableMeta`, the :class:`Lobby` being gathered, a table's refusals
(:mod:`bot.games.refusals`), and what a click asks and a move answers (:mod:`bot.games.answers`).

The registry imports adapters lazily, so one missing or broken game does not stop the bot.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from bot.games.answers import Announcement, Aside, Click, Consult, clip
from bot.games.lobby import Lobby
from bot.games.meta import INTERACTIONS, REST, TableMeta
from bot.games.prefs import Prefs
from bot.games.refusals import (
    MoveConflict,
    MoveNotSaved,
    NotSeated,
    StaleAction,
    TableClosed,
    TableError,
    TableUnavailable,
)
from bot.games.table import GameAdapter, Move, Seat, Table

__all__ = [
    "ADAPTER_PATHS",
    "GAMES",
    "INTERACTIONS",
    "REST",
    "Announcement",
    "Aside",
    "Click",
    "Consult",
    "GameAdapter",
    "LazyGames",
    "Lobby",
    "Move",
    "MoveConflict",
    "MoveNotSaved",
    "NotSeated",
    "Prefs",
    "Seat",
    "StaleAction",
    "Table",
    "TableClosed",
    "TableError",
    "TableMeta",
    "TableUnavailable",
    "clip",
]

ADAPTER_PATHS: dict[str, str] = {
    "bhargage": "bot.games.bhargage",
    "deluxe": "bot.games.deluxe",
    "cribbage": "bot.games.cribbage",
}


class LazyGames(Mapping[str, GameAdapter]):
    """``GAMES["bhargage"]`` imports ``bot.games.bhargage`` on first use and returns its ``ADAPTER``;
    a missing module is a KeyError."""

    def __init__(self, paths: Mapping[str, str]) -> None:
        self._paths = dict(paths)
        self._loaded: dict[str, GameAdapter] = {}

    def __getitem__(self, name: str) -> GameAdapter:
        if name in self._loaded:
            return self._loaded[name]
        path = self._paths[name]
        try:
            module = importlib.import_module(path)
        except ModuleNotFoundError as err:
            if err.name != path:
                raise
            raise KeyError(name) from err
        adapter: GameAdapter = module.ADAPTER
        self._loaded[name] = adapter
        return adapter

    def __iter__(self) -> Iterator[str]:
        """Only the games whose module imports."""
        for name in self._paths:
            try:
                self[name]
            except KeyError:
                continue
            yield name

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or name not in self._paths:
            return False
        try:
            self[name]
        except KeyError:
            return False
        return True


GAMES: Mapping[str, GameAdapter] = LazyGames(ADAPTER_PATHS)
