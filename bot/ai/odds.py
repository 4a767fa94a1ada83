"""Odds the coaches speak of, shared by every game: what an unseen hand may hold."""

from __future__ import annotations

from math import comb


def chance_held(cards: int, unseen: int, held: int) -> float:
    """The chance that a hand of ``held`` cards drawn from ``unseen`` holds at least one of ``cards``."""
    if held <= 0 or cards <= 0 or unseen <= 0:
        return 0.0
    return 1.0 - comb(unseen - cards, held) / comb(unseen, held)
