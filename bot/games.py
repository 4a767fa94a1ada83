"""Registry of playable games, imported lazily so one missing or broken rules module does not stop the bot."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

log = logging.getLogger(__name__)


class GameModule(Protocol):
    """The shape of a rules module (see ``bot/rules/__init__.py``)."""

    Options: Any

    def start(self, seed: int, players: Any, options: Any) -> tuple[Any, list[Any]]: ...
    def apply(self, state: Any, action: Any) -> tuple[Any, list[Any]]: ...
    def parse_action(self, text: str) -> Any: ...
    def action_text(self, action: Any) -> str: ...
    def waiting_for(self, state: Any) -> tuple[int, ...]: ...
    def is_over(self, state: Any) -> bool: ...
    def final_result(self, state: Any) -> Any: ...
    def replay(self, seed: int, players: Any, options: Any, texts: Sequence[str]) -> Any: ...


MODULE_PATHS: dict[str, str] = {"bhargage": "bot.rules.bhargage", "deluxe": "bot.rules.deluxe"}


class LazyGames(Mapping[str, Any]):
    """``GAMES["bhargage"]`` imports ``bot.rules.bhargage`` on first use; a missing module is a KeyError."""

    def __init__(self, paths: Mapping[str, str]) -> None:
        self._paths = dict(paths)
        self._loaded: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name in self._loaded:
            return self._loaded[name]
        path = self._paths[name]
        try:
            module = importlib.import_module(path)
        except ModuleNotFoundError as err:
            if err.name != path:
                raise
            raise KeyError(name) from err
        self._loaded[name] = module
        return module

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


GAMES: Mapping[str, Any] = LazyGames(MODULE_PATHS)
