"""Classic Cribbage scoring: the show (RULES.md C5) and pegging in the play (C4).

Two forms of each count. The itemized ones (:func:`count_show`, :func:`peg_items`) say what scored, as
:class:`ScoreItem` ids and cards, for the events the render layer words ("15 for 2", "a pair for 2").
The plain totals are for speed and for checking from outside: :func:`show_total` is what a computer player
calls hundreds of times per discard decision, so it looks the rank part of the count (fifteens, pairs, runs:
they depend only on the five ranks) up in a table filled as rank patterns are met, and adds flush and nobs
from the suits. :func:`show_points` and :func:`play_points` take two-character codes (``"5H"``, ``"TC"``)
for independent checking.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.rules.pack52 import JACK, Card, card

__all__ = [
    "LIMIT",
    "ScoreItem",
    "ScoreKind",
    "count_show",
    "peg_items",
    "peg_total",
    "play_points",
    "set_kind",
    "show_points",
    "show_total",
]

LIMIT = 31  # C4: the count may not pass 31

# What scored, as an id: the render layer words it ("15 for 2", "pair royal for 6", "1 for his nob").
ScoreKind = Literal[
    "fifteen",
    "pair",
    "pair-royal",
    "double-pair-royal",
    "run",
    "flush",
    "nobs",
    "heels",
    "go",
    "thirty-one",
    "last",
]

_SET_KINDS: dict[int, ScoreKind] = {2: "pair", 3: "pair-royal", 4: "double-pair-royal"}


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One scoring combination: its id, its points, and the cards that made it."""

    kind: ScoreKind
    points: int
    cards: tuple[Card, ...]


def set_kind(n: int) -> ScoreKind:
    """The id of n cards of one rank (2, 3 or 4): pair, pair royal, double pair royal."""
    return _SET_KINDS[n]


def _set_points(n: int) -> int:
    """Every pair among n cards of one rank scores 2: n(n-1) (2, 6, 12)."""
    return n * (n - 1)


# ---------------------------------------------------------------- the show (C5), itemized

# For the 5 cards of a show: every subset of 2 or more as (mask, mask without its lowest card, that card's
# place), each after its predecessor, so the sums of all subsets take one pass.
_SUBSETS: tuple[tuple[int, int, int], ...] = tuple(
    (m, m ^ (m & -m), (m & -m).bit_length() - 1) for m in range(1, 1 << 5)
)


def count_show(hand: Sequence[Card], starter: Card, crib: bool = False) -> tuple[ScoreItem, ...]:
    """Every scoring combination of 4 hand (or crib) cards with the starter (C5), in the order they are
    announced: fifteens, pairs, runs, flush, nobs. An empty tuple is the hand called "19"."""
    if len(hand) != 4:
        raise ValueError(f"a hand or crib is 4 cards, not {len(hand)}")
    allc = (*hand, starter)
    sums = [0] * 32
    items: list[ScoreItem] = []
    for m, prev, i in _SUBSETS:
        s = sums[m] = sums[prev] + allc[i].value
        if s == 15:
            items.append(ScoreItem("fifteen", 2, tuple(c for j, c in enumerate(allc) if m >> j & 1)))

    by_rank: dict[int, list[Card]] = {}
    for c in sorted(allc, key=lambda c: c.rank):
        by_rank.setdefault(c.rank, []).append(c)
    for group in by_rank.values():
        if len(group) >= 2:
            items.append(ScoreItem(set_kind(len(group)), _set_points(len(group)), tuple(group)))

    items.extend(show_runs(by_rank))

    suit = hand[0].suit
    if all(c.suit is suit for c in hand):
        if starter.suit is suit:
            items.append(ScoreItem("flush", 5, allc))
        elif not crib:  # C5: in the crib only a five-card flush counts
            items.append(ScoreItem("flush", 4, tuple(hand)))

    items.extend(ScoreItem("nobs", 1, (c,)) for c in hand if c.rank == JACK and c.suit is starter.suit)
    return tuple(items)


def show_runs(by_rank: dict[int, list[Card]]) -> list[ScoreItem]:
    """Every distinct run of the longest length ≥ 3: a doubled rank in it makes a double run, and so on."""
    best: list[int] = []
    current: list[int] = []
    for r in sorted(by_rank):
        current = [*current, r] if current and r == current[-1] + 1 else [r]
        if len(current) > len(best):
            best = current
    if len(best) < 3:
        return []
    return [ScoreItem("run", len(best), combo) for combo in itertools.product(*(by_rank[r] for r in best))]


# ---------------------------------------------------------------- the show (C5), fast total

_VALUE: tuple[int, ...] = tuple(min(r, 10) for r in range(14))  # by rank; index 0 unused
# A rank pattern's key: each rank's count in its own 3 bits (at most 4 of a rank), so any order sums alike.
_WEIGHT: tuple[int, ...] = tuple(1 << (3 * r) for r in range(14))
_RANK_POINTS: dict[int, int] = {}


def _rank_points(ranks: Sequence[int]) -> int:
    """Fifteens, pairs and runs of five ranks: everything in the show that suits don't decide."""
    ways = [1] + [0] * 15  # ways[s]: subsets of the cards so far whose values sum to s
    counts = [0] * 15
    for r in ranks:
        v = _VALUE[r]
        for s in range(15, v - 1, -1):
            ways[s] += ways[s - v]
        counts[r] += 1
    points = 2 * ways[15]
    points += sum(_set_points(n) for n in counts)
    length = mult = 0
    best = 0
    for r in range(1, 15):  # counts[14] is always 0: it closes the last segment
        if counts[r]:
            length += 1
            mult = mult * counts[r] if length > 1 else counts[r]
        else:
            if length >= 3:
                best = max(best, length * mult)
            length = 0
    return points + best


def show_total(hand: Sequence[Card], starter: Card, crib: bool = False) -> int:
    """The show's total for 4 hand (or crib) cards and the starter (C5): ``count_show`` summed, faster
    (about 1 µs once the hand's rank pattern has been met)."""
    a, b, c, d = hand
    key = _WEIGHT[a.rank] + _WEIGHT[b.rank] + _WEIGHT[c.rank] + _WEIGHT[d.rank] + _WEIGHT[starter.rank]
    points = _RANK_POINTS.get(key)
    if points is None:
        points = _RANK_POINTS[key] = _rank_points((a.rank, b.rank, c.rank, d.rank, starter.rank))
    s = a.suit
    t = starter.suit
    if b.suit is s and c.suit is s and d.suit is s:
        if t is s:
            points += 5
        elif not crib:
            points += 4
    for x in hand:
        if x.rank == JACK and x.suit is t:
            points += 1
    return points


# ---------------------------------------------------------------- pegging (C4)


def peg_items(pile: Sequence[Card]) -> tuple[ScoreItem, ...]:
    """What the last card of ``pile`` (the cards since the count started, in order) scores in the play:
    15 or 31, a pair / pair royal / double pair royal, the longest run of the last k ≥ 3 cards in any order.
    The go and last-card points are the engine's: they depend on who else can play."""
    if not pile:
        return ()
    items: list[ScoreItem] = []
    total = sum(c.value for c in pile)
    if total == 15:
        items.append(ScoreItem("fifteen", 2, tuple(pile)))
    elif total == LIMIT:
        items.append(ScoreItem("thirty-one", 2, tuple(pile)))
    n = len(pile)
    last = pile[-1].rank
    same = 1
    while same < n and pile[n - 1 - same].rank == last:
        same += 1
    if same >= 2:
        items.append(ScoreItem(set_kind(same), _set_points(same), tuple(pile[n - same :])))
    run = _play_run(pile)
    if run:
        items.append(ScoreItem("run", run, tuple(pile[n - run :])))
    return tuple(items)


def _play_run(pile: Sequence[Card]) -> int:
    """The longest k ≥ 3 such that the last k cards have distinct, consecutive ranks (0 for none): a
    repeated rank ends the search, as every longer tail holds the same repeat."""
    n = len(pile)
    best = 0
    seen = 0
    lo = hi = pile[-1].rank
    for k in range(1, n + 1):
        r = pile[n - k].rank
        if seen >> r & 1:
            break
        seen |= 1 << r
        lo = min(lo, r)
        hi = max(hi, r)
        if k >= 3 and hi - lo == k - 1:
            best = k
    return best


def peg_total(pile: Sequence[Card]) -> int:
    """``peg_items`` summed."""
    return sum(it.points for it in peg_items(pile))


# ---------------------------------------------------------------- by two-character codes


def show_points(hand: Sequence[str], starter: str, crib: bool) -> int:
    """The show's points of 4 cards given by code (``["5H", "5S", "5C", "JD"]``) and the starter
    (``"5D"``); ``crib`` says whether they are the crib (only a five-card flush counts there)."""
    cs = tuple(card(code) for code in hand)
    st = card(starter)
    if len(cs) != 4 or len({*cs, st}) != 5:
        raise ValueError("a show is 4 different cards and a starter that is none of them")
    return show_total(cs, st, crib)


def play_points(played: Sequence[str]) -> int:
    """The points the last of ``played`` scores: the cards played, by code, since the count started (the go
    and last-card points are not in it)."""
    cs = tuple(card(code) for code in played)
    if len(set(cs)) != len(cs):
        raise ValueError("a card played twice")
    if sum(c.value for c in cs) > LIMIT:
        raise ValueError("the count passes 31")
    return peg_total(cs)
