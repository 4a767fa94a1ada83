"""Cards typed in one line, as players type them: names between commas, "+" or ";", or just spaces
("soldier sea", "4s 5♥ four of spades"), each read by the pack's own reader (the Decktet's or the 52-card
pack's), which takes names in the language in force, in English, and the start of one card's name."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from bot.rules.errors import UnknownCard

CardT = TypeVar("CardT")
WORDS_MOST = 5  # the most words one card's name takes ("the queen of diamonds", "il Guardiano del Faro")


def _card(name: str, read: Callable[[str], CardT]) -> CardT | None:
    if name.isdigit():  # the Decktet's parser reads a deck index; a number typed is never a card here
        return None
    try:
        return read(name)
    except UnknownCard:
        return None


def typed_cards(text: str, read: Callable[[str], CardT]) -> list[CardT]:
    """The cards a line names, in order. Each part between commas is one card, or else several between
    spaces (the longest run of words that is a card, then the next); a part that is neither raises
    ``UnknownCard`` quoting it whole (with the closest names, or the cards it could be)."""
    found: list[CardT] = []
    for part in re.split(r"[,+;]", text):
        names = part.split()
        try:
            found += _runs(names, read)
        except UnknownCard:
            rest = " ".join(names)
            if not rest.isdigit():
                read(rest)  # raises UnknownCard, with the closest names
            raise UnknownCard(rest, ()) from None
    return found


def _runs(names: list[str], read: Callable[[str], CardT]) -> list[CardT]:
    """Words that are several cards: the longest run that is one, then the next; ``UnknownCard`` if a run of
    them is none."""
    found: list[CardT] = []
    while names:
        for n in range(min(len(names), WORDS_MOST), 0, -1):
            card = _card(" ".join(names[:n]), read)
            if card is not None:
                found.append(card)
                names = names[n:]
                break
        else:
            raise UnknownCard(" ".join(names), ())
    return found
