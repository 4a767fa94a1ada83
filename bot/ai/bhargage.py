"""Bhargage computer player and coach (placeholder: plays the first legal action)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from bot.ai import Level
from bot.ai import level as check_level
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import ScoreItem
from bot.rules.decktet import Card


@dataclass(frozen=True, slots=True)
class DiscardLine:
    """One discard choice with its expected points for this hand (the coach's table, best first).

    ``hand``: the kept 3 cards + up-card in the show. ``bhargage``: the bhargage's count, added as dealer and
    subtracted as non-dealer. ``shortage``: shortage claims on the kept hand (always against) and on the
    bhargage (against the dealer, for the non-dealer). ``total`` is their sum.
    """

    cards: tuple[Card, Card]
    hand: float
    bhargage: float
    shortage: float
    total: float


@dataclass(frozen=True, slots=True)
class PlayAdvice:
    """The card the hard player would play now, and why: what it scores at once, the expected points of the
    rest of the count after it (this seat's minus the opponent's), and the opponent's expected best reply."""

    card: Card
    now: tuple[ScoreItem, ...]
    net: float
    reply: float


def discard_table(dealt: Sequence[Card], dealer: bool, *, sequences: bool = False) -> list[DiscardLine]:
    """Every discard of 2 of the 5 dealt cards with its expected value, best first."""
    raise NotImplementedError


def play_advice(view: bh.SeatView) -> PlayAdvice | None:
    """The hard player's card in the play, or None when the seat has no card to choose."""
    raise NotImplementedError


def choose(view: bh.SeatView, rng: random.Random, level: Level = "hard") -> bh.Action:
    """One of ``view.legal``, chosen as a player of ``level`` would."""
    check_level(level)
    if not view.legal:
        raise ValueError("This seat has nothing to do now.")
    return view.legal[0]
