"""The Bhargage discard: every 2 of the 5 dealt cards with the expected points of the kept hand and of the
bhargage by exact expectation, and of the play by a model fitted to simulated hands (the hard player's
discard and the coach's Hint table)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb

from bot.ai.bhargage_cards import COMB, LIMIT, MASK, NCARDS, PERS, POP, RANK, SHORT, VAL
from bot.rules.bhargage_scoring import FULL_MASK
from bot.rules.decktet import EXCUSE, Card, sort_key

EXCUSE_INDEX = EXCUSE.index


@dataclass(frozen=True, slots=True)
class DiscardLine:
    """One discard choice with its expected points for this hand (the coach's table, best first).

    ``hand``: the kept 3 cards + up-card in the show. ``bhargage``: the bhargage's count, added as dealer and
    subtracted as non-dealer. ``shortage``: shortage claims on the kept hand (always against) and on the
    bhargage (against the dealer, for the non-dealer). ``pegging``: this seat's points in the play minus the
    opponent's, as :func:`pegging` estimates them for the kept cards. ``total`` is their sum.
    """

    cards: tuple[Card, Card]
    hand: float
    bhargage: float
    shortage: float
    pegging: float
    total: float


# ---------------------------------------------------------------- the discard: exact expectations


@lru_cache(maxsize=8192)
def _run_score(ranks: tuple[int, ...]) -> int:
    """R12 runs in the show for a sorted rank multiset: longest run ≥ 3 × the number of distinct runs."""
    mult: dict[int, int] = {}
    for r in ranks:
        mult[r] = mult.get(r, 0) + 1
    keys = sorted(mult)
    best = 0
    total = 0
    i = 0
    while i < len(keys):
        j = i
        ways = mult[keys[i]]
        while j + 1 < len(keys) and keys[j + 1] == keys[j] + 1:
            j += 1
            ways *= mult[keys[j]]
        length = j - i + 1
        if length >= 3:
            if length > best:
                best, total = length, 0
            if length == best:
                total += length * ways
        i = j + 1
    return total


class Unseen:
    """Counting tables over the unseen cards U, so that the expected count of (known cards ∪ T) for a random
    j-subset T of U is a sum over the few subsets of the known cards (linearity of expectation)."""

    __slots__ = ("by_mask", "by_rank", "combos", "n", "or_exact", "pair_pairs", "pers", "sub_mask", "sub_sum")

    def __init__(self, unseen: Sequence[int]) -> None:
        self.n = len(unseen)
        # sub_sum[j][s]: j-subsets with value sum s (s ≤ 11); sub_mask[j][m]: j-subsets whose suits are
        # pairwise disjoint with union m (the Excuse, with no suit, joins any of them).
        sub_sum = [[0] * 12 for _ in range(4)]
        sub_mask = [[0] * 64 for _ in range(4)]
        sub_sum[0][0] = 1
        sub_mask[0][0] = 1
        for c in unseen:
            v, m = VAL[c], MASK[c]
            for j in (3, 2, 1):
                lo, hi = sub_sum[j - 1], sub_sum[j]
                for s in range(11 - v, -1, -1):
                    if lo[s]:
                        hi[s + v] += lo[s]
                lo, hi = sub_mask[j - 1], sub_mask[j]
                for mm in [x for x in range(64) if lo[x] and not x & m]:
                    hi[mm | m] += lo[mm]
        self.sub_sum = sub_sum
        self.sub_mask = sub_mask
        by_rank = [0] * 13
        by_mask = [0] * 64
        for c in unseen:
            by_rank[RANK[c]] += 1
            by_mask[MASK[c]] += 1
        self.by_rank = by_rank
        self.by_mask = by_mask
        self.pair_pairs = sum(k * (k - 1) // 2 for k in by_rank)
        self.pers = sum(1 for c in unseen if PERS[c])
        self.combos: dict[int, list[tuple[tuple[int, ...], int]]] = {}
        # or_exact[j][m]: j-subsets whose suits together are exactly m (Möbius inversion over the 64 masks).
        within = list(by_mask)
        for b in range(6):
            bit = 1 << b
            for mm in range(64):
                if mm & bit:
                    within[mm] += within[mm ^ bit]
        or_exact: list[list[int]] = []
        for j in range(4):
            f = [comb(within[mm], j) for mm in range(64)]
            for b in range(6):
                bit = 1 << b
                for mm in range(64):
                    if mm & bit:
                        f[mm] -= f[mm ^ bit]
            or_exact.append(f)
        self.or_exact = or_exact

    def expected(self, known: Sequence[int], j: int, *, friends: bool, sequences: bool) -> tuple[int, int]:
        """Numerators over C(n, j) of E[count] and E[shortage] of ``known`` + a random j-subset of U."""
        n = self.n
        k = len(known)
        # weight of a given i-subset of U being inside T: C(n-i, j-i) (over C(n, j))
        w = [COMB[n - i][j - i] if i <= j else 0 for i in range(4)]
        total = 0
        sub_sum, sub_mask = self.sub_sum, self.sub_mask
        for sel in range(1 << k):
            s = o = bits = size = 0
            for i in range(k):
                if sel >> i & 1:
                    c = known[i]
                    s += VAL[c]
                    o |= MASK[c]
                    bits += POP[MASK[c]]
                    size += 1
            if s <= 11:
                for i in range(j + 1):
                    if size + i >= 1:
                        total += 2 * w[i] * sub_sum[i][11 - s]
            if bits == POP[o]:
                need = FULL_MASK ^ o
                for i in range(j + 1):
                    if size + i >= 2:
                        total += 6 * w[i] * sub_mask[i][need]
        # pairs: within the known cards, known × T, and within T
        pairs = 0
        for a in range(k):
            for b in range(a + 1, k):
                if RANK[known[a]] == RANK[known[b]]:
                    pairs += w[0]
            pairs += w[1] * self.by_rank[RANK[known[a]]]
        pairs += w[2] * self.pair_pairs
        total += 2 * pairs
        if friends and j == 1:
            npers = sum(1 for c in known if PERS[c])
            total += npers * self.pers
        if sequences:
            total += self._runs(known, j)
        mk = 0
        for c in known:
            mk |= MASK[c]
        short = 0
        for mm, ways in enumerate(self.or_exact[j]):
            if ways:
                short += ways * SHORT[mk | mm]
        return total, short

    def _runs(self, known: Sequence[int], j: int) -> int:
        """Runs summed over the rank multisets of T, weighted by how many j-subsets of U have them."""
        base = tuple(RANK[c] for c in known)
        total = 0
        for combo, ways in self._rank_combos(j):
            total += ways * _run_score(tuple(sorted(base + combo)))
        return total

    def _rank_combos(self, j: int) -> list[tuple[tuple[int, ...], int]]:
        """Each rank multiset of j unseen cards with how many j-subsets of U have it (once per decision)."""
        found = self.combos.get(j)
        if found is not None:
            return found
        counts = self.by_rank
        ranks = [r for r in range(13) if counts[r]]
        out: list[tuple[tuple[int, ...], int]] = []
        for combo in itertools.combinations_with_replacement(ranks, j):
            ways = 1
            prev = -1
            run = 0
            for r in combo:
                run = run + 1 if r == prev else 1
                prev = r
                ways = ways * (counts[r] - run + 1) // run
            if ways:
                out.append((combo, ways))
        self.combos[j] = out
        return out


# ---------------------------------------------------------------- the discard: the play to come

# The net points of the play (this seat's minus the opponent's) for 3 kept cards, as a least-squares fit to
# 25,000 simulated first hands of hard against hard (discards varied among each deal's 4 best lines):
# per kept card by its value (0–10), then per pair of kept cards of one rank, per two making 11, per two of
# disjoint suits covering 4 or more (half a bharg), for the Excuse, and for kept values over 23 (a card
# that may never be played). By role: [non-dealer, dealer]. The dealer plays second and pegs on the
# non-dealer's lead, so its low cards are worth most; the non-dealer's play is mostly defence.
_PEG_VALUE: tuple[tuple[float, ...], ...] = (
    (-0.23, -0.53, -0.37, -0.34, -0.34, -0.26, -0.45, -0.31, -0.5, -0.44, -0.77),
    (0.8, 0.86, 0.58, 0.4, 0.41, 0.23, 0.11, -0.09, -0.1, -0.24, -0.31),
)
_PEG_PAIR = (0.27, -0.06)
_PEG_ELEVEN = (0.35, 0.0)
_PEG_HALF_BHARG = (0.03, 0.15)
_PEG_EXCUSE = (0.3, -0.18)
_PEG_OVER = (-0.43, -0.29)


def pegging(kept: Sequence[int], dealer: bool) -> float:
    """The expected net points of the play for the kept cards (by ``Card.index``), from the fitted model."""
    role = int(dealer)
    values = _PEG_VALUE[role]
    est = sum(values[VAL[c]] for c in kept)
    for x, y in itertools.combinations(kept, 2):
        if RANK[x] == RANK[y]:
            est += _PEG_PAIR[role]
        if VAL[x] + VAL[y] == 11:
            est += _PEG_ELEVEN[role]
        if not MASK[x] & MASK[y] and POP[MASK[x] | MASK[y]] >= 4:
            est += _PEG_HALF_BHARG[role]
    if EXCUSE_INDEX in kept:
        est += _PEG_EXCUSE[role]
    if sum(VAL[c] for c in kept) > LIMIT:
        est += _PEG_OVER[role]
    return est


def discard_table(dealt: Sequence[Card], dealer: bool, *, sequences: bool = False) -> list[DiscardLine]:
    """Every discard of 2 of the 5 dealt cards with its expected value, best first.

    Exact: the up-card is uniform over the 40 unseen cards and the opponent's two discards uniform over the
    pairs of the rest (so the three unknown bhargage cards are a uniform 3-subset of the unseen). "2 for the
    Chief" does not depend on the discard and is left out; Friends of the Chief count in the hand column.
    """
    idx = [c.index for c in dealt]
    if len(set(idx)) != 5:
        raise ValueError("A Bhargage discard is 2 of 5 different dealt cards.")
    taken = set(idx)
    unseen = [i for i in range(NCARDS) if i not in taken]
    u = Unseen(unseen)
    n = u.n
    sign = 1.0 if dealer else -1.0
    lines: list[DiscardLine] = []
    ordered = sorted(dealt, key=sort_key)
    for a, b in itertools.combinations(ordered, 2):
        kept = [c.index for c in ordered if c is not a and c is not b]
        hand_num, hand_short = u.expected(kept, 1, friends=True, sequences=sequences)
        bh_num, bh_short = u.expected([a.index, b.index], 3, friends=False, sequences=sequences)
        hand = hand_num / n
        bhg = sign * bh_num / COMB[n][3]
        short = -hand_short / n - sign * bh_short / COMB[n][3]
        peg = pegging(kept, dealer)
        lines.append(DiscardLine((a, b), hand, bhg, short, peg, hand + bhg + short + peg))
    lines.sort(key=lambda line: -line.total)
    return lines
