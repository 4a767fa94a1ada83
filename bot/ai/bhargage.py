"""Bhargage computer player and coach (RULES.md R1–R13).

Four levels share one entry point, ``choose``. The hard player discards by the exact expected value of the
show plus a fitted estimate of the play to come (``discard_table``, also the coach's Hint) and pegs with a
small expectimax over the cards it has not seen, each weighted by how often a player keeps it
(``play_advice``, the coach's "why"). The expert re-weighs hard's choice by the chance to win over
dealt-out unseen cards (:mod:`bot.ai.bhargage_expert`). Everything is decided from the seat's view only.

Cards are handled as ``Card.index`` integers with small lookup tables, because a hard decision must take
about a millisecond in pure Python.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from bot.ai import Level, checked
from bot.ai import bhargage_expert as expert
from bot.ai.bhargage_cards import NCARDS, VAL
from bot.ai.bhargage_discard import DiscardLine, Unseen, discard_table, pegging
from bot.ai.bhargage_play import PlayAdvice, best_of, evaluate, play_advice
from bot.ai.counting import discard_action
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import peg_points
from bot.rules.decktet import Card, sort_key

__all__ = ["DiscardLine", "PlayAdvice", "Unseen", "choose", "discard_table", "pegging", "play_advice"]

# ---------------------------------------------------------------- levels


def _kept_points(kept: Sequence[Card]) -> int:
    """Easy habit: pairs and 11s already among the kept cards."""
    pts = 0
    for a, b in itertools.combinations(kept, 2):
        if a.rank == b.rank:
            pts += 2
        if VAL[a.index] + VAL[b.index] == 11:
            pts += 2
    if sum(VAL[c.index] for c in kept) == 11:
        pts += 2
    return pts


def _hand_only_discard(dealt: Sequence[Card], sequences: bool) -> tuple[Card, Card]:
    """Normal level: the best kept hand (count − shortage over the up-cards), blind to the bhargage."""
    taken = {c.index for c in dealt}
    u = Unseen([i for i in range(NCARDS) if i not in taken])
    best: tuple[int, tuple[Card, Card]] | None = None
    ordered = sorted(dealt, key=sort_key)
    for a, b in itertools.combinations(ordered, 2):
        kept = [c.index for c in ordered if c is not a and c is not b]
        num, short = u.expected(kept, 1, friends=True, sequences=sequences)
        if best is None or num - short > best[0]:
            best = (num - short, (a, b))
    assert best is not None
    return best[1]


def choose(view: bh.SeatView, rng: random.Random, level: Level = "hard") -> bh.Action:
    """One of ``view.legal``, chosen as a player of ``level`` would."""
    level = checked(level)
    if not view.legal:
        raise ValueError("This seat has nothing to do now.")
    if len(view.legal) == 1:
        return view.legal[0]
    if level == "expert":
        weighed = expert.choose(view, rng)
        if weighed is not None:
            return weighed
    if view.phase is bh.Phase.DISCARD:
        dealt = (*view.hand, *view.discard)
        if level == "easy":
            scored = []
            for a in view.legal:
                assert isinstance(a, bh.Discard)
                kept = [c for c in dealt if c not in a.cards]
                scored.append((_kept_points(kept), rng.random(), a))
            return max(scored, key=lambda t: (t[0], t[1]))[2]
        if level == "normal":
            return discard_action(view.legal, bh.Discard, _hand_only_discard(dealt, view.sequences))
        line = discard_table(dealt, view.dealer == view.seat, sequences=view.sequences)[0]
        return discard_action(view.legal, bh.Discard, line.cards)
    if view.phase is bh.Phase.PLAY:
        plays = [a for a in view.legal if isinstance(a, bh.Play)]
        if level == "easy":
            pile = [c for _, c in view.pile]
            scoring = [a for a in plays if peg_points([*pile, a.card], sequences=view.sequences)]
            return rng.choice(scoring or plays)
        if level == "normal":
            _, c, _ = best_of(evaluate(view, full=0))
        else:
            _, c, _ = best_of(evaluate(view))
        for a in plays:
            if a.card.index == c:
                return a
    return view.legal[0]
