"""What the counting family's computer players and coaches (Bhargage, Cribbage) do alike, written once: the
legal discard that lays given cards away, the race near the end, the card that would score more now, and
the facts every play hint names.

Each game keeps what differs: its deck and its scoring, the threats a card leaves (a Decktet pile's suits
against the 52-card pack's ranks), the search, and who answers a card. A card here is a type parameter
(the Decktet's or the 52-card pack's), so nothing here knows either deck.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

__all__ = ["NEAR", "PlayFacts", "Race", "discard_action", "greedier", "race"]

NEAR = 20  # a side this close to the target is in the race: the coach says what each needs

C = TypeVar("C")  # a card: the Decktet's (Bhargage) or the 52-card pack's (Cribbage)
T = TypeVar("T")  # a game's threat: what answering a card scores


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


@dataclass(frozen=True, slots=True)
class Race:
    """Near the end: the points this seat's side and its nearest rival side still need, and whether this
    seat's side counts first in the show (R9, C5: the dealer's side counts last)."""

    need: int
    their_need: int
    first: bool


def race(need: int, their_need: int, first: bool, near: int = NEAR) -> Race | None:
    """The race, once either side is within ``near`` of the target; further off, the coach leaves it out."""
    if min(need, their_need) > near:
        return None
    return Race(need, their_need, first)


def greedier(
    plays: Sequence[C], card: C, now: Callable[[C], int], threats: Callable[[C], Sequence[T]]
) -> tuple[C, T | None] | tuple[None, None]:
    """The card among ``plays`` that scores most ``now`` and the biggest of the ``threats`` it leaves, when
    it scores more than the advised ``card`` (the hint says what the greedy card would give away); (None,
    None) when none does."""
    greedy = max(plays, key=lambda c: (now(c), c == card))
    if now(greedy) <= now(card):
        return None, None
    return greedy, next(iter(threats(greedy)), None)


@dataclass(frozen=True, slots=True)
class PlayFacts(Generic[C, T]):
    """The facts every play hint names: the coach's card and the biggest threat it leaves (None: no unseen
    card scores on it, or nobody can answer), how many cards are unseen and how many the next player holds;
    the card that would score more now, if another would (:func:`greedier`), with the threat that one
    leaves; the race, and the card the points alone would choose when the race changed the choice. Each
    game's ``PlayWhy`` adds who answers."""

    card: C
    threat: T | None
    unseen: int
    held: int
    greedy: C | None
    greedy_threat: T | None
    race: Race | None
    points_pick: C | None
