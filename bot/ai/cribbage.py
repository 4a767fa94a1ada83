"""Classic Cribbage computer player and coach (RULES.md C1–C9), for 2, 3 or 4 players.

Four levels share one entry point, ``choose``. The hard player lays away by the exact expected show of the
kept hand and of the crib (``discard_table``, also the coach's Hint) and plays by an expectimax over the
cards it has not seen (``play_advice``, the coach's "why"). Everything is decided from the seat's view only.

- easy: keeps the cards that already score together, plays a scoring card when it has one (else any), and
  now and then under-claims its count under muggins (misses his nob, or a fifteen).
- normal: the hard lay-away; in the play it looks only one reply ahead.
- hard: the table's first line; the play searches as deep as a fixed node budget allows (about a
  millisecond of Python; a count of nodes, not a clock, so it stays deterministic).
- expert (two players): the hard lay-away; in the play every card solved open-handed against the hands the
  opponent likely kept (:mod:`bot.ai.cribbage_expert`); with three or four, the hard player.

Normal, hard and expert claim the true count, counted from the shown cards as a player does (the claim menu
runs from 0 to 29 whatever the count: C9); easy never claims more than it.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from bot.ai import Level, checked
from bot.ai import cribbage_expert as expert
from bot.ai.counting import discard_action
from bot.ai.cribbage_discard import DiscardLine, crib_weight, discard_table, expected_show
from bot.ai.cribbage_play import PlayAdvice, evaluate, play_advice
from bot.rules import cribbage as cr
from bot.rules.cribbage_scoring import count_show, peg_total
from bot.rules.pack52 import Card

__all__ = [
    "DiscardLine",
    "PlayAdvice",
    "choose",
    "crib_weight",
    "discard_table",
    "expected_show",
    "hint",
    "play_advice",
]

_MISS_NOBS = 0.5  # how often the easy player forgets his nob when claiming under muggins
_MISS_FIFTEEN = 0.2  # ... and a fifteen


def hint(view: cr.SeatView) -> list[DiscardLine]:
    """The coach's lay-away table for this seat's dealt cards (the hard player's choice first), or [] when
    it has nothing to lay away."""
    if view.phase is not cr.Phase.DISCARD or not view.legal:
        return []
    dealt = (*view.hand, *view.laid_away)
    ours = view.sides[view.dealer] == view.sides[view.seat]
    return discard_table(dealt, players=view.players, dealer=ours)


def _together(kept: Sequence[Card]) -> int:
    """Easy habit: what the kept cards already score among themselves (fifteens, pairs, a run), no starter."""
    points = 0
    for k in range(2, len(kept) + 1):
        for combo in itertools.combinations(kept, k):
            if sum(c.value for c in combo) == 15:
                points += 2
    for a, b in itertools.combinations(kept, 2):
        if a.rank == b.rank:
            points += 2
    ranks = sorted({c.rank for c in kept})
    longest = length = 1
    for x, y in itertools.pairwise(ranks):
        length = length + 1 if y == x + 1 else 1
        longest = max(longest, length)
    return points + (longest if longest >= 3 else 0)


def _easy_lay_away(view: cr.SeatView, rng: random.Random) -> cr.Action:
    """Keeps the cards that score most together now; a random draw per choice settles ties."""
    dealt = (*view.hand, *view.laid_away)
    choices = [a for a in view.legal if isinstance(a, cr.LayAway)]
    keys = {a: (_together([c for c in dealt if c not in a.cards]), rng.random()) for a in choices}
    return max(keys, key=keys.__getitem__)


def _easy_play(view: cr.SeatView, plays: Sequence[cr.Play[Card]], rng: random.Random) -> cr.Action:
    """Any card that pegs now, else any card: no thought for the reply."""
    pile = [c for _, c in view.pile]
    pegging = [p for p in plays if peg_total([*pile, p.card]) > 0]
    return rng.choice(pegging if pegging else plays)


def _claim(view: cr.SeatView, rng: random.Random | None = None) -> cr.Action:
    """The count of the shown cards; with ``rng`` (easy), under by what people miss now and then: his nob
    forgotten, or a fifteen overlooked."""
    claim = view.claim
    if claim is None:  # pragma: no cover - the engine offers claims only with a count to claim
        raise ValueError("There is no count to claim.")
    items = count_show(claim.cards, claim.starter, claim.kind == "crib")
    missed = 0
    if rng is not None:
        if any(i.kind == "nobs" for i in items) and rng.random() < _MISS_NOBS:
            missed = 1
        elif any(i.kind == "fifteen" for i in items) and rng.random() < _MISS_FIFTEEN:
            missed = 2
    points = sum(i.points for i in items) - missed
    return next(a for a in view.legal if isinstance(a, cr.Claim) and a.points == points)


def choose(view: cr.SeatView, rng: random.Random, level: Level = "hard") -> cr.Action:
    """One of ``view.legal``, chosen as a player of ``level`` would (deterministic for a given ``rng``
    state; only easy draws from it)."""
    level = checked(level)
    if not view.legal:
        raise ValueError("This seat has nothing to do now.")
    if len(view.legal) == 1:
        return view.legal[0]
    if view.phase is cr.Phase.DISCARD:
        if level == "easy":
            return _easy_lay_away(view, rng)
        return discard_action(view.legal, cr.LayAway, hint(view)[0].laid)
    if view.phase is cr.Phase.PLAY:
        plays = [a for a in view.legal if isinstance(a, cr.Play)]
        if level == "easy":
            return _easy_play(view, plays, rng)
        if level == "expert" and view.players == 2:
            best = expert.play(view, rng)
        else:
            best = evaluate(view, shallow=level == "normal")[0][1]
        return next(a for a in plays if a.card == best)
    if view.phase is cr.Phase.CLAIM:
        return _claim(view, rng if level == "easy" else None)
    return view.legal[0]
