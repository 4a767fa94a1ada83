"""A player's preferences: which clicks that decide nothing the bot makes for them, and which confirmations
they skip. Stored per player (``/tavern me``), the same at every table and in every server; the terminal
(``python -m bot play``) takes them as flags.

The two switches that decide nothing are on by default: the cut is chance and an only card is no choice, so
pressing for them teaches nothing and only slows the table. Laying away without Confirm stays off: the
lay-away is a real choice that can't be undone, and Confirm catches a mis-pick. What is stored is what a
player chose, each switch they pressed with its value, so a later change of default never overrides a choice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace
from typing import Any

from bot.base.i18n import t


@dataclass(frozen=True)
class Prefs:
    auto_cut: bool = True  # the cut for the up-card or starter, made at once (chance: nothing to decide)
    auto_play: bool = True  # a card played at once when it is the only one you may play
    quick_discard: bool = False  # picking the cards to lay away lays them away, with no Confirm

    @staticmethod
    def names() -> tuple[str, ...]:
        return tuple(f.name for f in fields(Prefs))

    @classmethod
    def chosen(cls, data: Mapping[str, Any]) -> dict[str, bool]:
        """The choices stored: known names with true booleans only (anything else is ignored)."""
        return {n: v for n, v in data.items() if n in cls.names() and isinstance(v, bool)}

    @classmethod
    def stored(cls, data: Mapping[str, Any]) -> Prefs:
        """Preferences as stored: the defaults, with what the player chose."""
        return replace(cls(), **cls.chosen(data))


DEFAULT = Prefs()


def label(name: str) -> str:
    """A switch's name as the player reads it: "Cut for me"."""
    if name == "auto_cut":
        return t("general.me.auto-cut")
    if name == "auto_play":
        return t("general.me.auto-play")
    return t("general.me.quick-discard")


# How a player turns a switch on, in the words of the front they play through: `/tavern me` on Discord
# unless a front says otherwise (the terminal's flags, while ``python -m bot play`` runs a game).
_how: ContextVar[Callable[[str], str] | None] = ContextVar("tavern_prefs_how", default=None)


def how_to_turn_on(name: str) -> str:
    """ "turn on **Cut for me** in `/tavern me`" (or the front's own words): what a panel's tip says."""
    told = _how.get()
    if told is not None:
        return told(name)
    command = f"/{t('cmd.tavern.name')} {t('cmd.tavern.me.name')}"
    return t("general.me.how-to-turn-on", switch=label(name), command=command)


@contextmanager
def turned_on_by(how: Callable[[str], str]) -> Iterator[None]:
    """Within the block, tips say ``how(name)`` turns a switch on: a front other than Discord's."""
    token = _how.set(how)
    try:
        yield
    finally:
        _how.reset(token)
