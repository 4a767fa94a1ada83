"""What the counting family's computer players (Bhargage, Cribbage) do alike, written once: the legal
discard that lays given cards away.

Each game keeps what differs: its deck and its scoring, the search, and the levels. Cards here are any
hashable card type, so nothing here knows either deck (the layer rule: :mod:`bot.rules` and :mod:`bot.ai`
only).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Protocol, TypeVar

__all__ = ["discard_action"]


class _Laying(Protocol):
    """A discard action of either engine (``bh.Discard``, ``cr.LayAway``): the cards it lays away."""

    @property
    def cards(self) -> Sequence[Hashable]: ...


L = TypeVar("L", bound=_Laying)


def discard_action(legal: Iterable[object], kind: type[L], cards: Iterable[Hashable]) -> L:
    """The one legal ``kind`` that lays away exactly ``cards``: the players choose cards, the engine wants
    its own action back."""
    want = set(cards)
    for a in legal:
        if isinstance(a, kind) and set(a.cards) == want:
            return a
    raise ValueError("That discard is not legal here.")  # pragma: no cover - built from the dealt cards
