"""The Bhargage expert player: hard's choices, re-weighed by the chance to win over dealt-out unseen cards.

A win and not points counts, and near the target the order of the counts decides the game: pegging out, the
non-dealer's hand counted first, the shortage claims, muggins. The expert deals out the unseen cards many
times (the same deals for every candidate, so that their differences are not noise), solves the rest of the
play exactly for each deal with both hands open, counts the show in its order with the game stopping at the
target, and values a hand that does not end the game by ``win_chance``, a model of the rest of the game
fitted to hard-against-hard hands. Every card in the play is chosen so (the search sees the whole rest of
the count); a lay-away only near the end (either player within ``_ENDGAME`` points) and only among hard's
few best, because far from the target hard's exact expected show and fitted pegging are hard to beat with
samples. Hard's choice stands unless another is better by ``_MARGIN``.

``work`` is the number of deals per decision, never a time, so that a decision is the same for the same view,
seed and work.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import cache

from bot.ai.bhargage_cards import KEPT, LIMIT, NCARDS, PERS, RANK, VAL
from bot.ai.bhargage_discard import DiscardLine, Unseen, discard_table
from bot.ai.bhargage_play import Pile, best_of, evaluate, peg_step
from bot.rules import bhargage as bh

__all__ = ["WORK", "choose", "warm", "win_chance"]

WORK = 40  # deals per decision near the end: one per up-card in the lay-away
_ENDGAME = 40  # points still needed by either player below which a lay-away weighs the win
# The same for a card in the play: every card, as the search sees the whole rest of the count where hard sees
# two or three plies (expert vs hard 50.9% with it, 50.5% from 40 points, same 2,000 duplicate games).
_PLAY_FROM = 1 << 20
_LINES = 4  # hard's best lay-aways re-weighed
_MARGIN = 0.004  # a card or lay-away must beat hard's by this chance to win to replace it (sampling noise)

# Points a seat makes in one hand (pegging, show, shortage claims and the Chief) as (points, hands) over
# 3,290 hands of hard against hard (bench, seeds 1000–1399), dealer and non-dealer. The few hands of 0 are
# counted as 1, so that every hand moves the game on and ``_win`` ends.
_DEALER_HANDS = (
    (1, 4), (2, 7), (3, 19), (4, 41), (5, 69), (6, 102), (7, 109), (8, 150), (9, 164), (10, 252), (11, 192),
    (12, 245), (13, 220), (14, 250), (15, 184), (16, 222), (17, 143), (18, 197), (19, 127), (20, 134),
    (21, 79), (22, 74), (23, 58), (24, 63), (25, 31), (26, 37), (27, 30), (28, 25), (29, 16), (30, 13),
    (31, 7), (32, 9), (33, 4), (34, 7), (35, 1), (36, 2), (38, 1), (39, 1), (41, 1),
)  # fmt: skip
_PONE_HANDS = (
    (1, 50), (2, 79), (3, 154), (4, 216), (5, 251), (6, 338), (7, 279), (8, 332), (9, 281), (10, 261),
    (11, 233), (12, 189), (13, 151), (14, 139), (15, 82), (16, 84), (17, 63), (18, 28), (19, 21), (20, 22),
    (21, 6), (22, 9), (23, 9), (24, 5), (25, 3), (26, 1), (27, 2), (35, 1), (36, 1),
)  # fmt: skip


def _dist(hands: Sequence[tuple[int, int]]) -> tuple[tuple[int, float], ...]:
    total = sum(n for _, n in hands)
    return tuple((p, n / total) for p, n in hands)


_DEALER = _dist(_DEALER_HANDS)
_PONE = _dist(_PONE_HANDS)


@cache
def win_chance(mine: int, theirs: int, dealing: bool) -> float:
    """The chance to win needing ``mine`` points against an opponent needing ``theirs``, before a hand this
    seat deals (``dealing``) or not. Hand by hand the non-dealer's points come first (it counts first), then
    the dealer's; the two are taken as independent."""
    if mine <= 0:
        return 1.0
    if theirs <= 0:
        return 0.0
    if dealing:
        return sum(q * _dealer_after(mine, theirs - x) for x, q in _PONE if x < theirs)
    return sum(q for x, q in _PONE if x >= mine) + sum(
        q * _pone_after(mine - x, theirs) for x, q in _PONE if x < mine
    )


@cache
def _dealer_after(mine: int, theirs: int) -> float:
    """This seat deals and the non-dealer has scored, not reaching the target: the dealer's points."""
    return sum(q for y, q in _DEALER if y >= mine) + sum(
        q * win_chance(mine - y, theirs, False) for y, q in _DEALER if y < mine
    )


@cache
def _pone_after(mine: int, theirs: int) -> float:
    """This seat is the non-dealer and has scored, not reaching the target: the dealer's points."""
    return sum(q * win_chance(mine, theirs - y, True) for y, q in _DEALER if y < theirs)


_TABLE = 124  # the largest need the model is asked about


@cache
def warm() -> None:
    """Fill the model's tables from small needs up, so that no decision recurses deeply (about 0.7 s, once
    per process: the first decision, or the thinking process as it starts)."""
    for total in range(2, 2 * _TABLE + 1):
        for a in range(max(1, total - _TABLE), min(_TABLE, total - 1) + 1):
            win_chance(a, total - a, True)
            win_chance(a, total - a, False)


# ---------------------------------------------------------------- one dealt-out hand, both hands open

_COUNTER = Unseen([])


def _show(cards: Sequence[int], friends: bool, seq: bool) -> tuple[int, int]:
    """(count, shortage) of known cards (R9, R10); ``friends``: the up-card is among them and a Personality,
    and the cards are a hand."""
    num, short = _COUNTER.expected(cards, 0, friends=False, sequences=seq)
    if friends:
        num += sum(1 for c in cards if PERS[c]) - 1
    return num, short


def _pile_of(cards: Sequence[int]) -> Pile:
    pile: Pile = (0, -1, 0, (0,), ())
    for c in cards:
        pile, _ = peg_step(pile, c, False)
    count, lr, rl, chain, _ = pile
    return count, lr, rl, chain, tuple(RANK[c] for c in cards)[-13:]


class _Deal:
    """One deal of the unseen cards: the show's counts in their order, and the play solved exactly with
    both hands open. Values are this seat's chance to win."""

    __slots__ = ("dealer_me", "memo", "seq", "steps")

    def __init__(self, steps: tuple[tuple[bool, int], ...], dealer_me: bool, seq: bool) -> None:
        self.steps = steps  # (whether this seat scores, points), in the show's order
        self.dealer_me = dealer_me
        self.seq = seq
        self.memo: dict[tuple[int, int], float] = {}

    def after_play(self, mine: int, theirs: int) -> float:
        """The show in its order, stopping at the target (R9–R11), then the rest of the game."""
        key = (mine, theirs)
        found = self.memo.get(key)
        if found is not None:
            return found
        value = -1.0
        for me, pts in self.steps:
            if me:
                mine -= pts
                if mine <= 0:
                    value = 1.0
                    break
            else:
                theirs -= pts
                if theirs <= 0:
                    value = 0.0
                    break
        if value < 0:
            # needs past the model's table are as good as lost or won (a target up to 221 is allowed)
            value = win_chance(min(mine, _TABLE), min(theirs, _TABLE), not self.dealer_me)
        self.memo[key] = value
        return value

    def play(
        self,
        pile: Pile,
        mine_cards: tuple[int, ...],
        their_cards: tuple[int, ...],
        my_turn: bool,
        mine: int,
        theirs: int,
        last_me: bool,
    ) -> float:
        """The rest of the play, each side choosing its best card (R7, R8): no reset, so a player who
        cannot play now never can again."""
        room = LIMIT - pile[0]
        hand = mine_cards if my_turn else their_cards
        cards = [c for c in hand if VAL[c] <= room]
        if not cards:
            other = their_cards if my_turn else mine_cards
            if any(VAL[c] <= room for c in other):
                return self.play(pile, mine_cards, their_cards, not my_turn, mine, theirs, last_me)
            if pile[0] not in (11, LIMIT):
                if last_me:
                    mine -= 1
                    if mine <= 0:
                        return 1.0
                else:
                    theirs -= 1
                    if theirs <= 0:
                        return 0.0
            return self.after_play(mine, theirs)
        best = -1.0 if my_turn else 2.0
        for c in cards:
            after, p = peg_step(pile, c, self.seq)
            if my_turn:
                if p >= mine:
                    return 1.0
                rest = tuple(x for x in mine_cards if x != c)
                v = self.play(after, rest, their_cards, False, mine - p, theirs, True)
                if v > best:
                    best = v
                    if best >= 1.0:
                        break
            else:
                if p >= theirs:
                    return 0.0
                rest = tuple(x for x in their_cards if x != c)
                v = self.play(after, mine_cards, rest, True, mine, theirs - p, False)
                if v < best:
                    best = v
                    if best <= 0.0:
                        break
        return best


def _steps(
    dealer_me: bool,
    my_kept: Sequence[int],
    their_kept: Sequence[int],
    bhargage: Sequence[int],
    up: int,
    seq: bool,
) -> tuple[tuple[bool, int], ...]:
    """The show's scores in order (R9, R10): non-dealer's hand and the dealer's shortage claim on it, the
    dealer's hand and the claim, the bhargage and the claim."""
    friends = PERS[up]
    mine = _show((*my_kept, up), friends, seq)
    theirs = _show((*their_kept, up), friends, seq)
    bhg = _show((*bhargage, up), False, seq)
    if dealer_me:
        return (
            (False, theirs[0]),
            (True, theirs[1]),
            (True, mine[0]),
            (False, mine[1]),
            (True, bhg[0]),
            (False, bhg[1]),
        )
    return (
        (True, mine[0]),
        (False, mine[1]),
        (False, theirs[0]),
        (True, theirs[1]),
        (False, bhg[0]),
        (True, bhg[1]),
    )


def _draw(pool: list[int], weight: Callable[[int], float], k: int, rng: random.Random) -> list[int]:
    """k cards taken from ``pool`` without replacement, each in proportion to its weight."""
    out: list[int] = []
    for _ in range(k):
        ws = [weight(c) + 1e-3 for c in pool]
        r = rng.random() * sum(ws)
        i = 0
        while i < len(pool) - 1 and r >= ws[i]:
            r -= ws[i]
            i += 1
        out.append(pool.pop(i))
    return out


# ---------------------------------------------------------------- decisions


def _needs(view: bh.SeatView) -> tuple[int, int]:
    return view.target - view.scores[view.seat], view.target - view.scores[1 - view.seat]


def _discard(view: bh.SeatView, rng: random.Random, work: int) -> bh.Action:
    """Hard's best lay-aways re-weighed by the chance to win over ``work`` deals of the up-card (each up-card
    once in turn) and the opponent's kept and thrown cards."""
    dealt = (*view.hand, *view.discard)
    dealer_me = view.dealer == view.seat
    lines: list[DiscardLine] = discard_table(dealt, dealer_me, sequences=view.sequences)[:_LINES]
    taken = {c.index for c in dealt}
    unseen = [i for i in range(NCARDS) if i not in taken]
    ups = list(unseen)
    rng.shuffle(ups)
    keep_w = KEPT[not dealer_me]
    mine0, theirs0 = _needs(view)
    seq = view.sequences
    totals = [0.0] * len(lines)
    kepts = [tuple(c.index for c in dealt if c not in line.cards) for line in lines]
    for i in range(work):
        up = ups[i % len(ups)]
        pool = [c for c in unseen if c != up]
        their_kept = _draw(pool, lambda c: keep_w[c], 3, rng)
        thrown = _draw(pool, lambda c: 1.0 - keep_w[c], 2, rng)
        mine, theirs = mine0, theirs0
        if PERS[up]:  # R6: 2 for the Chief, at once
            if dealer_me:
                mine -= 2
            else:
                theirs -= 2
        for j, line in enumerate(lines):
            if mine <= 0:
                totals[j] += 1.0
                continue
            if theirs <= 0:
                continue
            kept = kepts[j]
            bhargage = (line.cards[0].index, line.cards[1].index, *thrown)
            deal = _Deal(_steps(dealer_me, kept, their_kept, bhargage, up, seq), dealer_me, seq)
            pile: Pile = (0, -1, 0, (0,), ())
            totals[j] += deal.play(pile, kept, tuple(their_kept), not dealer_me, mine, theirs, False)
    best = 0
    for j in range(1, len(lines)):
        if totals[j] > totals[best] + _MARGIN * work and totals[j] > totals[0] + _MARGIN * work:
            best = j
    want = {c.index for c in lines[best].cards}
    for a in view.legal:
        if isinstance(a, bh.Discard) and {c.index for c in a.cards} == want:
            return a
    raise ValueError("That discard is not legal here.")  # pragma: no cover - built from the dealt cards


def _play(view: bh.SeatView, rng: random.Random, work: int) -> bh.Action:
    """Every playable card by its chance to win over ``work`` deals of the opponent's unseen cards (its hand
    and its two thrown cards), the rest of the play solved with both hands open; hard's card unless another
    is clearly better."""
    plays = {a.card.index: a for a in view.legal if isinstance(a, bh.Play)}
    hard_card = best_of(evaluate(view))[1]
    if len(plays) == 1:
        return plays[hard_card]
    me = view.seat
    dealer_me = view.dealer == me
    seen = {c.index for c in (*view.hand, *view.discard)}
    assert view.up is not None
    up = view.up.index
    seen.add(up)
    pile_cards = [c.index for _, c in view.pile]
    seen.update(pile_cards)
    my_played = [c.index for s, c in view.pile if s == me]
    their_played = [c.index for s, c in view.pile if s != me]
    unseen = [i for i in range(NCARDS) if i not in seen]
    keep_w = KEPT[not dealer_me]
    hand = tuple(c.index for c in view.hand)
    my_kept = (*my_played, *hand)
    my_thrown = tuple(c.index for c in view.discard)
    mine0, theirs0 = _needs(view)
    seq = view.sequences
    pile0 = _pile_of(pile_cards)
    h = view.opponent_hand_size
    cards = sorted(plays)
    totals = dict.fromkeys(cards, 0.0)
    for _ in range(work):
        pool = list(unseen)
        theirs_hand = tuple(_draw(pool, lambda c: keep_w[c], h, rng))
        thrown = _draw(pool, lambda c: 1.0 - keep_w[c], 2, rng)
        steps = _steps(dealer_me, my_kept, (*their_played, *theirs_hand), (*my_thrown, *thrown), up, seq)
        deal = _Deal(steps, dealer_me, seq)
        for c in cards:
            after, p = peg_step(pile0, c, seq)
            if p >= mine0:
                totals[c] += 1.0
                continue
            rest = tuple(x for x in hand if x != c)
            totals[c] += deal.play(after, rest, theirs_hand, False, mine0 - p, theirs0, True)
    best = hard_card
    for c in cards:
        if totals[c] > totals[best] + _MARGIN * work:
            best = c
    return plays[best]


def choose(view: bh.SeatView, rng: random.Random, work: int = WORK) -> bh.Action | None:
    """One of ``view.legal``: hard's choice, re-weighed by the chance to win (every card in the play, a
    lay-away near the target); None where hard's choice stands unweighed (``bot.ai.bhargage`` makes it).
    The same view, generator state and ``work`` give the same action."""
    near = min(_needs(view))
    if work > 0 and len(view.legal) > 1:
        if view.phase is bh.Phase.DISCARD and near <= _ENDGAME:
            warm()
            return _discard(view, rng, work)
        if view.phase is bh.Phase.PLAY and near <= _PLAY_FROM:
            warm()
            return _play(view, rng, work)
    return None
