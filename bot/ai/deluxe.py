"""Bharg Deluxe computer player (placeholder: plays the first legal action)."""

from __future__ import annotations

import random

from bot.ai import Level
from bot.ai import level as check_level
from bot.rules import deluxe as D


def choose(view: D.View, rng: random.Random, level: Level = "hard") -> D.Action:
    """One of ``view.legal``, chosen as a player of ``level`` would."""
    check_level(level)
    if not view.legal:
        raise ValueError("This seat has nothing to do now.")
    return view.legal[0]
