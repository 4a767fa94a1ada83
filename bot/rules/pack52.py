"""The 52-card French pack of Classic Cribbage (RULES.md C1): cards as small immutable values, and their
two-character codes.

A card is ``Card(rank, suit)`` with ``rank`` 1..13 (Ace 1, Jack 11, Queen 12, King 13: Ace low, no wrap)
and ``suit`` a :class:`Suit`; its ``code`` is two characters, rank then suit: ``"AS"``, ``"5H"``, ``"TC"``.
It is a plain frozen dataclass of an int and a string enum, so it is a dict key and snapshots
(``bot.services.snapshots``) carry it as ``{"rank": 5, "suit": "H"}`` with no help.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from bot.rules.errors import UnknownCard

__all__ = [
    "FULL_PACK",
    "RANK_CHARS",
    "Card",
    "Suit",
    "card",
    "cards",
    "sort_key",
]

RANK_CHARS = "A23456789TJQK"  # index + 1 is the rank
ACE, JACK, QUEEN, KING = 1, 11, 12, 13


class Suit(enum.StrEnum):
    """The four suits by their letter (C1: they matter only for flushes and for nobs and heels)."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"


_SUITS: tuple[Suit, ...] = tuple(Suit)
_SUIT_NO: dict[str, int] = {s.value: i for i, s in enumerate(_SUITS)}


@dataclass(frozen=True, slots=True)
class Card:
    """One card of the pack. Equal cards are the same card (the pack has one of each)."""

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        # Snapshots rebuild cards through this constructor: nothing outside the pack gets in.
        if type(self.rank) is not int or not ACE <= self.rank <= KING or type(self.suit) is not Suit:
            raise ValueError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    @property
    def value(self) -> int:
        """The card's value in fifteens and the count (C1): Ace 1, 2–10 face value, J/Q/K 10."""
        return self.rank if self.rank < 10 else 10

    @property
    def code(self) -> str:
        """Two characters, rank then suit: ``"5H"``, ``"TC"``, ``"AS"``, ``"KD"``."""
        return RANK_CHARS[self.rank - 1] + self.suit.value

    @property
    def index(self) -> int:
        """Its place in ``FULL_PACK`` (0..51): suit by suit S, H, D, C, each Ace to King."""
        return _SUIT_NO[self.suit] * 13 + self.rank - 1

    def __str__(self) -> str:
        return self.code


FULL_PACK: tuple[Card, ...] = tuple(Card(r, s) for s in _SUITS for r in range(ACE, KING + 1))
_BY_CODE: dict[str, Card] = {c.code: c for c in FULL_PACK}


def sort_key(c: Card) -> int:
    """Hands are shown by rank, then suit in the order S, H, D, C."""
    return c.rank * 4 + _SUIT_NO[c.suit]


def card(code: str) -> Card:
    """The card of an exact two-character code (``"5H"``, ``"TC"``); anything else raises ``UnknownCard``,
    with the code meant when it is only spelled differently (``"5h"``, ``"10H"``)."""
    found = _BY_CODE.get(code) if type(code) is str else None
    if found is not None:
        return found
    text = str(code).strip()
    guess = text.upper().replace("10", "T")
    hint = _BY_CODE.get(guess)
    raise UnknownCard(text, (hint.code,) if hint is not None else ())


def cards(codes: str | Iterable[str]) -> tuple[Card, ...]:
    """Several cards: an iterable of codes, or one string of codes split on spaces (``"5H 5S JD"``)."""
    if isinstance(codes, str):
        codes = codes.split()
    return tuple(card(c) for c in codes)
