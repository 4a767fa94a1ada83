"""Controls that several games' panels draw alike."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Protocol, TypeVar

from bot.base.panel import Button


class Indexed(Protocol):
    """A card that knows its place in its pack (what a control carries to name it)."""

    @property
    def index(self) -> int: ...


CardT = TypeVar("CardT", bound=Indexed)


def play_buttons(
    hand: Sequence[CardT], label: Callable[[CardT], str], playable: Collection[CardT], token: str
) -> list[Button]:
    """A "play" button per card in hand, carrying the card's index; the cards that may not be played now are
    shown greyed out (the player sees why: the label says so)."""
    return [
        Button(label(c), "play", token=token, arg=str(c.index), style="primary", disabled=c not in playable)
        for c in hand
    ]
