"""The Classic Cribbage lay-away (RULES.md C2, C5): every choice with the exact expected show of the kept hand
and of the crib (the hard player's discard and the coach's table).

Exact means: the starter is uniform over the cards this seat has not seen, and the crib's unknown cards are
a uniform subset of them too (with two players, every pair the opponent may lay away × every starter). The
show's fifteens, pairs and runs depend only on the five ranks, so the expectation is a sum over the rank
multisets the unseen cards can make, each weighted by how many card sets have it; flushes and nobs are added
in closed form from the suits. That is a few hundred table look-ups per choice instead of the 45,540 crib
shows per choice of a card-by-card enumeration, so a discard decision takes about a millisecond.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from operator import mul

from bot.rules.cribbage_scoring import show_total
from bot.rules.pack52 import FULL_PACK, JACK, Card, Suit, sort_key

__all__ = ["DiscardLine", "crib_weight", "discard_table", "expected_show"]

_BITS = 3  # a rank's count (0..4) in a rank-multiset key: 3 bits per rank, so keys add
_WEIGHT: tuple[int, ...] = tuple(1 << (_BITS * r) for r in range(14))
_SUITS: tuple[Suit, ...] = tuple(Suit)
# Suits that make neither a flush nor nobs: the rank part of a show is counted on cards of these suits.
_PLAIN_HAND = (Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.HEARTS)
_PLAIN_STARTER = Suit.SPADES


class _RankPoints(dict[int, int]):
    """Fifteens, pairs and runs of five ranks by multiset key, counted by the engine's ``show_total`` the
    first time a pattern is met (on suits that score nothing), so scoring has one source of truth."""

    def __missing__(self, key: int) -> int:
        ranks = [r for r in range(1, 14) for _ in range(key >> (_BITS * r) & 7)]
        hand = [Card(r, s) for r, s in zip(ranks[:4], _PLAIN_HAND, strict=True)]
        points = show_total(hand, Card(ranks[4], _PLAIN_STARTER))
        self[key] = points
        return points


_RANK_POINTS = _RankPoints()


@dataclass(frozen=True, slots=True)
class DiscardLine:
    """One lay-away choice with its expected points this hand (one line of the coach's table, best first).

    ``hand``: the kept cards' show with the starter, averaged over every starter. ``crib``: the crib's show
    averaged over its unknown cards and the starter, weighted by :func:`crib_weight` (added when the crib is
    our side's, taken off when it is not). ``total`` is their sum, what the choice is ranked by."""

    laid: tuple[Card, ...]
    kept: tuple[Card, ...]
    hand: float
    crib: float
    total: float


def crib_weight(players: int, ours: bool) -> float:
    """What a crib point is worth to this seat: 1 when its side owns the crib; −1 when the one opponent side
    does (two players, or four in partnerships); −½ with three players, where the crib's points go to one of
    two opponents and a point for one rival is only half a point against us in a three-way race."""
    if ours:
        return 1.0
    return -0.5 if players == 3 else -1.0


def _all_multisets(size: int) -> tuple[tuple[int, ...], tuple[int, ...], list[list[tuple[int, int]]]]:
    """Every multiset of ``size`` ranks a full pack can make: its key, its number of card sets in a full pack,
    and for each rank the (place, multiplicity) of the multisets holding it."""
    keys: list[int] = []
    full: list[int] = []
    holding: list[list[tuple[int, int]]] = [[] for _ in range(14)]
    for i, ranks in enumerate(itertools.combinations_with_replacement(range(1, 14), size)):
        keys.append(sum(_WEIGHT[r] for r in ranks))
        ways = 1
        for r in set(ranks):
            m = ranks.count(r)
            ways *= comb(4, m)
            holding[r].append((i, m))
        full.append(ways)
    return tuple(keys), tuple(full), holding


_MULTISETS = {size: _all_multisets(size) for size in (1, 3, 4)}  # a starter; a crib's 3 or 4 unknown cards
_VECTORS: dict[tuple[int, int], list[int]] = {}


def _points_vector(size: int, base: int) -> list[int]:
    """The rank points of the known ranks ``base`` with each multiset of ``size`` ranks, in ``_MULTISETS``
    order (kept once made: at most 91 + 13 + 13 of them are ever needed)."""
    found = _VECTORS.get((size, base))
    if found is None:
        points = _RANK_POINTS
        found = _VECTORS[size, base] = [points[base + key] for key in _MULTISETS[size][0]]
    return found


@dataclass(frozen=True, slots=True)
class _Unseen:
    """The cards a seat has not seen, counted by rank and by suit, and how many card sets of them make each
    rank multiset (by size, in ``_MULTISETS`` order)."""

    n: int
    by_suit: dict[Suit, int]
    jacks: tuple[Suit, ...]  # the suits of the unseen Jacks
    ways: dict[int, list[int]]

    @classmethod
    def of(cls, seen: Sequence[Card], sizes: Sequence[int]) -> _Unseen:
        gone = set(seen)
        rest = [c for c in FULL_PACK if c not in gone]
        by_suit = dict.fromkeys(_SUITS, 0)
        missing = [0] * 14
        for c in rest:
            by_suit[c.suit] += 1
        for c in gone:
            missing[c.rank] += 1
        jacks = tuple(c.suit for c in rest if c.rank == JACK)
        ways: dict[int, list[int]] = {}
        for size in sizes:
            _, full, holding = _MULTISETS[size]
            w = list(full)
            for r in range(1, 14):
                if missing[r]:
                    left = 4 - missing[r]
                    for i, m in holding[r]:  # a full pack's C(4, m) of this rank becomes C(left, m)
                        w[i] = w[i] * comb(left, m) // comb(4, m)
            ways[size] = w
        return cls(len(rest), by_suit, jacks, ways)


def _expected(known: Sequence[Card], u: _Unseen, crib: bool) -> float:
    """The expected show of ``known`` with 5 − len(known) cards drawn uniformly from the unseen, the starter
    being any one of them (C5: only a five-card flush in the crib; nobs for a Jack of the starter's suit)."""
    j = 5 - len(known)
    n = u.n
    base = sum(_WEIGHT[c.rank] for c in known)
    ranked: int = sum(map(mul, u.ways[j], _points_vector(j, base)))
    value = ranked / comb(n, j)
    suit = known[0].suit
    if all(c.suit is suit for c in known):
        five = comb(u.by_suit[suit], j) / comb(n, j)
        value += 5 * five
        if not crib and len(known) == 4:
            value += 4 * (1 - five)
    for c in known:
        if c.rank == JACK:
            value += u.by_suit[c.suit] / n  # the starter is of its suit
    if j > 1:
        # an unseen Jack among the other drawn cards, and a starter of its suit
        value += sum((j - 1) * (u.by_suit[s] - 1) for s in u.jacks) / (n * (n - 1))
    return value


def expected_show(kept: Sequence[Card], seen: Sequence[Card], *, crib: bool = False) -> float:
    """The exact expected show of ``kept`` (1 to 4 cards) completed to five by cards drawn uniformly from
    those not in ``seen`` (which holds ``kept``), one of them the starter: a hand (4 kept) over every starter,
    or a crib from the cards laid into it."""
    if not 1 <= len(kept) <= 4 or any(c not in seen for c in kept):
        raise ValueError("1 to 4 kept cards, all among the seen ones")
    return _expected(kept, _Unseen.of(seen, (5 - len(kept),)), crib)


def discard_table(
    dealt: Sequence[Card], *, players: int = 2, dealer: bool, weight: float | None = None
) -> list[DiscardLine]:
    """Every lay-away of the dealt cards (6 with two players: 2 laid; 5 with three or four: 1 laid) with its
    exact expected hand and crib, best first (ties: the order of ``LayAway`` in the engine's legal list).

    ``dealer``: whether the crib is this seat's side's (it deals, or with four players its partner does).
    ``weight`` overrides :func:`crib_weight` (what a crib point is worth to this seat). With three players
    the crib's fifth card, dealt face down, is one of its unknown cards like the others' lay-aways."""
    size = 6 if players == 2 else 5
    laid_n = 2 if players == 2 else 1
    if players not in (2, 3, 4) or len(set(dealt)) != size or len(dealt) != size:
        raise ValueError(f"with {players} players a lay-away is {laid_n} of {size} different dealt cards")
    if weight is None:
        weight = crib_weight(players, dealer)
    u = _Unseen.of(dealt, (1, 5 - laid_n))
    ordered = sorted(dealt, key=sort_key)
    lines: list[DiscardLine] = []
    for laid in itertools.combinations(ordered, laid_n):
        kept = tuple(c for c in ordered if c not in laid)
        hand = _expected(kept, u, crib=False)
        crib = weight * _expected(laid, u, crib=True)
        lines.append(DiscardLine(laid, kept, hand, crib, hand + crib))
    lines.sort(key=lambda line: -line.total)  # stable: equal totals keep the engine's order
    return lines
