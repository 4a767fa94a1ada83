"""Rows of a scene that several games draw alike (no words of their own: the caller's labels)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot import pictures as pic
from bot.pictures.french import AnyCard


def hand_row(caption: str, cards: Sequence[AnyCard], raised: Collection[AnyCard] = ()) -> pic.Row:
    """A player's cards, those chosen (to lay away, to discard) raised and outlined."""
    picked = tuple((0, i) for i, c in enumerate(cards) if c in raised)
    return pic.Row(caption=caption, groups=(tuple(cards),), picked=picked)


def card_and_pile(first: AnyCard, first_label: str, pile: Sequence[AnyCard], pile_label: str) -> pic.Row:
    """One card face up (Bhargage's up-card, Cribbage's starter) and, while there is one, the count's pile
    beside it, each with its label."""
    if not pile:
        return pic.Row(caption="", groups=((first,),), labels=(first_label,))
    return pic.Row(caption="", groups=((first,), tuple(pile)), labels=(first_label, pile_label))
