"""A player's preferences: which clicks that decide nothing the bot makes for them, and which confirmations
they skip. Stored per player (``/tavern me``), the same at every table and in every server.

All are off by default: nothing is done in a player's name unless they asked for it, and a newcomer learns
each step by taking it. The Cut panel says where to turn the cut over to the bot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Prefs:
    auto_cut: bool = False  # Bhargage: cut for the up-card at once (the cut is chance: nothing to decide)
    auto_play: bool = False  # Bhargage: play a card at once when it is the only one you may play
    quick_discard: bool = False  # Bhargage: picking two cards lays them away, with no Confirm

    @staticmethod
    def names() -> tuple[str, ...]:
        return tuple(f.name for f in fields(Prefs))

    def changes(self) -> dict[str, bool]:
        """What differs from the defaults: what is stored."""
        default = Prefs()
        return {n: getattr(self, n) for n in self.names() if getattr(self, n) != getattr(default, n)}

    @classmethod
    def stored(cls, data: Mapping[str, Any]) -> Prefs:
        """Preferences as stored: known names with true booleans only (anything else is ignored)."""
        known = {n: v for n, v in data.items() if n in cls.names() and isinstance(v, bool)}
        return replace(cls(), **known)


DEFAULT = Prefs()
