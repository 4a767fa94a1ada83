"""The expert Classic Cribbage player (two players): the hard player's lay-away, and a play that reckons with
the cards the opponent most likely kept.

The hard player's play weighs every rank the opponent might hold as if its four cards were dealt at random.
They were not: the opponent kept the best four of six. So the expert draws the opponent's six cards from the
cards it has not seen (those it has seen it play among them), lays away as the hard player would, and keeps
the samples whose four kept cards hold everything it played so far. Each sample's play is then solved
exactly — both hands known, every go and count — and every card this seat may play is valued by its average
net pegging over the samples (common samples: each card is judged on the same deals). Near the target a
peg-out is worth a game, not its points.

Its work is ``samples`` solved deals (and at most ``TRIES`` times as many lay-aways tried): deterministic for
a seed and a budget; the time it takes only caps it (``bot.services.thinking``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from bot.ai.cribbage_discard import discard_table
from bot.ai.cribbage_play import WIN, peg_ranks
from bot.rules import cribbage as cr
from bot.rules.cribbage_scoring import LIMIT
from bot.rules.pack52 import FULL_PACK, Card

__all__ = ["SAMPLES", "Weighing", "best_card", "play", "weigh"]

SAMPLES = 24  # solved deals per decision: the expert's work
TRIES = 3  # lay-aways tried per sample kept, at most
_VALUE: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)  # by rank (C1)
_FAR = 1 << 20  # a need no play reaches: points only
_REACH = 31  # more than one side pegs in one play: further from the target, the solve does not track it

Hand = tuple[int, ...]  # ranks, sorted


class _Solver:
    """The rest of one play with both hands known: this seat's (0) points minus the other's (1), each side
    playing its best; a side reaching its need wins ``WIN`` and ends the game (C6)."""

    def __init__(self, need: tuple[int, int]) -> None:
        self.need = need
        self.memo: dict[tuple[object, ...], float] = {}

    def scored(self, who: int, points: int, got: tuple[int, int]) -> tuple[float, tuple[int, int] | None]:
        sign = 1.0 if who == 0 else -1.0
        if not points:
            return 0.0, got
        total = got[who] + points
        if total >= self.need[who]:
            return sign * (points + WIN), None
        return sign * points, ((total, got[1]) if who == 0 else (got[0], total))

    def value(
        self, count: int, pile: Hand, hands: tuple[Hand, Hand], turn: int, last: int, got: tuple[int, int]
    ) -> float:
        """``turn`` to act on ``pile`` at ``count``; ``last`` played the last card (-1: nobody yet)."""
        key = (count, pile, hands, turn, last, got)
        known = self.memo.get(key)
        if known is not None:
            return known
        hand = hands[turn]
        room = LIMIT - count
        best: float | None = None
        prev = 0
        for i, rank in enumerate(hand):
            if rank == prev or _VALUE[rank] > room:
                continue
            prev = rank
            value, after = self.scored(turn, peg_ranks(pile, rank), got)
            if after is not None:
                rest = hand[:i] + hand[i + 1 :]
                both = (rest, hands[1]) if turn == 0 else (hands[0], rest)
                if count + _VALUE[rank] == LIMIT:  # 31 pegged 2 already: the count starts again
                    value += self.fresh(both, 1 - turn, after)
                else:
                    value += self.value(count + _VALUE[rank], (*pile, rank), both, 1 - turn, turn, after)
            if best is None or (value > best if turn == 0 else value < best):
                best = value
        if best is None:  # a go: the other plays on if it can, else the last to play pegs 1
            other = hands[1 - turn]
            if any(_VALUE[r] <= room for r in other):
                best = self.value(count, pile, hands, 1 - turn, last, got)
            elif last < 0:
                best = 0.0
            else:
                point, after = self.scored(last, 1, got)
                best = point if after is None else point + self.fresh(hands, 1 - last, after)
        self.memo[key] = best
        return best

    def fresh(self, hands: tuple[Hand, Hand], leader: int, got: tuple[int, int]) -> float:
        """A new count from 0, led by ``leader`` (or the other, when ``leader`` has no cards left)."""
        if not hands[0] and not hands[1]:
            return 0.0
        if not hands[leader]:
            leader = 1 - leader
        return self.value(0, (), hands, leader, -1, got)


def _their_hands(view: cr.SeatView, rng: random.Random, samples: int) -> list[Hand]:
    """The opponent's cards still held, in ``samples`` deals consistent with what this seat saw: six cards
    drawn from those it has not seen plus those the opponent played, kept as the hard player would keep
    them, and kept as a sample only if the four hold every card the opponent played."""
    me = view.seat
    theirs_played = [c for s, c in view.played if s != me]
    seen = {*view.kept, *view.laid_away, *(c for _, c in view.played)}
    if view.starter is not None:
        seen.add(view.starter)
    unseen = [c for c in FULL_PACK if c not in seen]
    held = view.hand_sizes[1 - me]
    dealer = view.dealer != me  # the opponent is the dealer
    stuck = view.gone[1 - me]  # it said go on this count
    room = LIMIT - view.count
    out: list[Hand] = []
    for _ in range(samples * TRIES):
        if len(out) == samples:
            break
        six = [*theirs_played, *rng.sample(unseen, 6 - len(theirs_played))]
        kept = discard_table(six, players=2, dealer=dealer)[0].kept
        if all(c in kept for c in theirs_played):
            left = tuple(sorted(c.rank for c in kept if c not in theirs_played))
            if not (stuck and any(_VALUE[r] <= room for r in left)):  # a go said: nothing of theirs fits
                out.append(left)
    fits = [c for c in unseen if not (stuck and _VALUE[c.rank] <= room)]
    while len(out) < samples:  # the opponent kept what the hard player would not: any cards will do
        out.append(tuple(sorted(c.rank for c in rng.sample(fits, min(held, len(fits))))))
    return out


def _values(view: cr.SeatView, hands: Sequence[Hand], need: tuple[int, int]) -> dict[int, float]:
    """The average over ``hands`` (the opponent's) of every playable rank's solved value."""
    mine = tuple(sorted(c.rank for c in view.hand))
    pile = tuple(c.rank for _, c in view.pile)
    total: dict[int, float] = {}
    room = LIMIT - view.count
    for theirs in hands:
        solver = _Solver(need)
        got = (0, 0)
        for i, rank in enumerate(mine):
            if _VALUE[rank] > room or (i and mine[i - 1] == rank):
                continue
            value, after = solver.scored(0, peg_ranks(pile, rank), got)
            if after is not None:
                rest = mine[:i] + mine[i + 1 :]
                if view.count + _VALUE[rank] == LIMIT:
                    value += solver.fresh((rest, theirs), 1, after)
                else:
                    count = view.count + _VALUE[rank]
                    value += solver.value(count, (*pile, rank), (rest, theirs), 1, 0, after)
            total[rank] = total.get(rank, 0.0) + value
    return {rank: v / len(hands) for rank, v in total.items()}


def _need(view: cr.SeatView) -> tuple[int, int]:
    """What each side still needs, where a peg-out is in reach this play (else out of reach)."""
    left = [view.target - view.scores[view.sides[seat]] for seat in (view.seat, 1 - view.seat)]
    return (left[0] if left[0] <= _REACH else _FAR, left[1] if left[1] <= _REACH else _FAR)


def best_card(view: cr.SeatView, scored: dict[int, float]) -> Card:
    """The card of the best value (ties: the higher card, keeping the low ones for a go)."""
    plays: Sequence[Card] = [a.card for a in view.legal if isinstance(a, cr.Play)]
    return max(plays, key=lambda c: (round(scored[c.rank], 9), c.value, c.rank))


def play(view: cr.SeatView, rng: random.Random, samples: int = SAMPLES) -> Card:
    """The card to play: the best average over the likely deals, a peg-out counted as a game."""
    return best_card(view, _values(view, _their_hands(view, rng, samples), _need(view)))


@dataclass(frozen=True, slots=True)
class Weighing:
    """What the coach tells of the expert's play: its card, and every playable rank's average net points over
    the likely deals (points only: near the end the card also weighs pegging out)."""

    card: Card
    points: tuple[tuple[int, float], ...]


def weigh(view: cr.SeatView, rng: random.Random) -> Weighing:
    """The expert's card and its points, on the same deals (the coach's ``Consult``)."""
    hands = _their_hands(view, rng, SAMPLES)
    need = _need(view)
    points = _values(view, hands, (_FAR, _FAR))
    card = best_card(view, points if need == (_FAR, _FAR) else _values(view, hands, need))
    return Weighing(card, tuple(sorted(points.items())))
