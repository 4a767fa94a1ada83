"""Suit symbols in message text: the application's own suit emojis once the bot has them, else unicode.

Discord shows an application's emojis (``<:decktet_moons:123…>``) in any message the bot sends, in every
server, but not inside button labels or menu options: those keep the unicode symbols (``Suit.emoji``). The
bot sets the table once at start (:func:`use`); until then, and wherever creating them failed, text falls
back to unicode, so nothing here ever waits on Discord.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bot.render import words
from bot.rules.decktet import Suit

EMOJI_NAMES: Mapping[Suit, str] = {s: f"decktet_{s.value.lower()}" for s in Suit}
_marks: dict[Suit, str] = {}


def use(marks: Mapping[Suit, str]) -> None:
    """The suit marks for message text from now on (the suits left out keep their unicode symbol)."""
    _marks.clear()
    _marks.update(marks)


def mark(suit: Suit) -> str:
    return _marks.get(suit, suit.emoji)


def marks(suits: Iterable[Suit]) -> str:
    return "".join(mark(s) for s in suits)


def with_names(suits: Iterable[Suit]) -> str:
    """Suits with their names, for players who don't know the symbols yet: "🌙 Moons ☀️ Suns" (in the
    language in force)."""
    return " ".join(f"{mark(s)} {words.suit(s)}" for s in suits)


def legend() -> str:
    """All six suits with their names: the key under a board and on a panel."""
    return " · ".join(f"{mark(s)} {words.suit(s)}" for s in Suit)
