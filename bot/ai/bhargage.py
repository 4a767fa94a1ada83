"""Bhargage computer player and coach (RULES.md R1–R13).

Three levels share one entry point, ``choose``. The hard player discards by the exact expected value of the
hand (``discard_table``, also the coach's Hint) and pegs with a small expectimax over the cards it has not
seen (``play_advice``, the coach's "why"). Everything is decided from the seat's view only.

Cards are handled as ``Card.index`` integers with small lookup tables, because a hard decision must take
about a millisecond in pure Python.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb

from bot.ai import Level
from bot.ai import checked as check_level
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import FULL_MASK, ScoreItem, peg_points
from bot.rules.decktet import ALL_CARDS, Card, Suit, sort_key

# ---------------------------------------------------------------- card tables (by Card.index)

_SUIT_BIT = {s: 1 << i for i, s in enumerate(Suit)}
_VAL: tuple[int, ...] = tuple(c.value for c in ALL_CARDS)
_RANK: tuple[int, ...] = tuple(int(c.rank) for c in ALL_CARDS)
_MASK: tuple[int, ...] = tuple(sum(_SUIT_BIT[s] for s in c.suits) for c in ALL_CARDS)
_PERS: tuple[bool, ...] = tuple(c.personality for c in ALL_CARDS)
_NCARDS = len(ALL_CARDS)
_POP: tuple[int, ...] = tuple(m.bit_count() for m in range(64))
_SHORT: tuple[int, ...] = tuple((6 - p) * (7 - p) // 2 for p in _POP)  # R10 shortage by present-suit mask
_LIMIT = 23
# C(n, k) for n ≤ 45, k ≤ 3 (k < 0 or k > n give 0): the opponent's hand is a random k-subset of the unseen.
_C: tuple[tuple[int, ...], ...] = tuple(tuple(comb(n, k) for k in range(4)) for n in range(_NCARDS + 1))
# Utility of winning the game during the play, on top of the points: near the end, pegging out is all.
_WIN = 100.0
# Needs above this cannot be pegged in one count in practice: the points-only value is the same.
_NEAR = 40
_DEEP = 3  # search two opponent plies when this seat and the opponent hold at most this many cards


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


class _Unseen:
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
            v, m = _VAL[c], _MASK[c]
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
            by_rank[_RANK[c]] += 1
            by_mask[_MASK[c]] += 1
        self.by_rank = by_rank
        self.by_mask = by_mask
        self.pair_pairs = sum(k * (k - 1) // 2 for k in by_rank)
        self.pers = sum(1 for c in unseen if _PERS[c])
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
        w = [_C[n - i][j - i] if i <= j else 0 for i in range(4)]
        total = 0
        sub_sum, sub_mask = self.sub_sum, self.sub_mask
        for sel in range(1 << k):
            s = o = bits = size = 0
            for i in range(k):
                if sel >> i & 1:
                    c = known[i]
                    s += _VAL[c]
                    o |= _MASK[c]
                    bits += _POP[_MASK[c]]
                    size += 1
            if s <= 11:
                for i in range(j + 1):
                    if size + i >= 1:
                        total += 2 * w[i] * sub_sum[i][11 - s]
            if bits == _POP[o]:
                need = FULL_MASK ^ o
                for i in range(j + 1):
                    if size + i >= 2:
                        total += 6 * w[i] * sub_mask[i][need]
        # pairs: within the known cards, known × T, and within T
        pairs = 0
        for a in range(k):
            for b in range(a + 1, k):
                if _RANK[known[a]] == _RANK[known[b]]:
                    pairs += w[0]
            pairs += w[1] * self.by_rank[_RANK[known[a]]]
        pairs += w[2] * self.pair_pairs
        total += 2 * pairs
        if friends and j == 1:
            npers = sum(1 for c in known if _PERS[c])
            total += npers * self.pers
        if sequences:
            total += self._runs(known, j)
        mk = 0
        for c in known:
            mk |= _MASK[c]
        short = 0
        for mm, ways in enumerate(self.or_exact[j]):
            if ways:
                short += ways * _SHORT[mk | mm]
        return total, short

    def _runs(self, known: Sequence[int], j: int) -> int:
        """Runs summed over the rank multisets of T, weighted by how many j-subsets of U have them."""
        base = tuple(_RANK[c] for c in known)
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
    unseen = [i for i in range(_NCARDS) if i not in taken]
    u = _Unseen(unseen)
    n = u.n
    sign = 1.0 if dealer else -1.0
    lines: list[DiscardLine] = []
    ordered = sorted(dealt, key=sort_key)
    for a, b in itertools.combinations(ordered, 2):
        kept = [c.index for c in ordered if c is not a and c is not b]
        hand_num, hand_short = u.expected(kept, 1, friends=True, sequences=sequences)
        bh_num, bh_short = u.expected([a.index, b.index], 3, friends=False, sequences=sequences)
        hand = hand_num / n
        bhg = sign * bh_num / _C[n][3]
        short = -hand_short / n - sign * bh_short / _C[n][3]
        lines.append(DiscardLine((a, b), hand, bhg, short, hand + bhg + short))
    lines.sort(key=lambda line: -line.total)
    return lines


# ---------------------------------------------------------------- the play: expectimax over unseen cards


class _Search:
    """One play decision's search: the seat's cards are known, the opponent's are a random subset of the
    unseen cards of its hand size. The value is (this seat's points − the opponent's) for the rest of the
    count, plus ``_WIN`` for pegging out (minus for the opponent pegging out)."""

    __slots__ = ("base", "by_mask", "by_rank", "by_val", "le", "my_need", "opp_need", "seq")

    def __init__(self, base: list[int], my_need: int, opp_need: int, seq: bool) -> None:
        self.base = base
        self.my_need = my_need
        self.opp_need = opp_need
        self.seq = seq
        by_val: list[list[int]] = [[] for _ in range(11)]
        by_rank: list[list[int]] = [[] for _ in range(13)]
        by_mask: list[list[int]] = [[] for _ in range(64)]
        le = [0] * 24
        for c in base:
            by_val[_VAL[c]].append(c)
            by_rank[_RANK[c]].append(c)
            by_mask[_MASK[c]].append(c)
            for v in range(_VAL[c], 24):
                le[v] += 1
        self.by_val = by_val
        self.by_rank = by_rank
        self.by_mask = by_mask
        self.le = le

    # A pile state is (count, last rank, how many equal ranks end the pile, suit chain, ranks for runs).
    # The chain holds the suit unions of the pile's pairwise-disjoint tails (0 for the empty tail): a card
    # of suits m makes a bharg exactly when FULL ^ m is in it (R8).

    def peg(
        self, count: int, lr: int, rl: int, chain: tuple[int, ...], ranks: tuple[int, ...], c: int
    ) -> tuple[int, int, int, tuple[int, ...], tuple[int, ...], int]:
        """Play card c: the new pile state and the points it scores (R8, R12)."""
        nc = count + _VAL[c]
        p = 2 if nc == 11 else 3 if nc == 23 else 0
        r = _RANK[c]
        if r == lr:
            rl += 1
            p += 1000 if rl >= 6 else rl * (rl - 1)
        else:
            lr, rl = r, 1
        m = _MASK[c]
        if FULL_MASK ^ m in chain:
            p += 6
        chain = (0, *[s | m for s in chain if not s & m])
        if self.seq:
            ranks = (*ranks, r)
            p += _play_run(ranks)
        return nc, lr, rl, chain, ranks, p

    def reply(
        self,
        count: int,
        lr: int,
        rl: int,
        chain: tuple[int, ...],
        ranks: tuple[int, ...],
        h: int,
        used: tuple[int, ...],
        opp_acc: int,
        win: bool = True,
    ) -> float:
        """The opponent's expected best immediate points (with the win bonus) if it is to play now."""
        if h <= 0:
            return 0.0
        room = _LIMIT - count
        n = len(self.base) - len(used)
        # only the few cards that can score: by value (11, 23), rank (sets, runs) and suits (bharg)
        cset: set[int] = set()
        if 1 <= count <= 11:
            cset.update(self.by_val[11 - count])
        if count >= 13:
            cset.update(self.by_val[23 - count])
        if lr >= 0:
            cset.update(c for c in self.by_rank[lr] if _VAL[c] <= room)
        for s in chain:
            cset.update(c for c in self.by_mask[FULL_MASK ^ s] if _VAL[c] <= room)
        seq = self.seq
        runs = [0] * 13
        if seq and len(ranks) >= 2:
            for r in range(13):
                runs[r] = _play_run((*ranks, r))
                if runs[r]:
                    cset.update(c for c in self.by_rank[r] if _VAL[c] <= room)
        cands = [c for c in cset if c not in used]
        pts: list[float] = []
        need = self.opp_need - opp_acc
        for c in cands:
            nc = count + _VAL[c]
            p = 2 if nc == 11 else 3 if nc == _LIMIT else 0
            if _RANK[c] == lr:
                p += 1000 if rl >= 5 else (rl + 1) * rl
            if FULL_MASK ^ _MASK[c] in chain:
                p += 6
            if seq:
                p += runs[_RANK[c]]
            if p:
                pts.append(p + _WIN if win and p >= need else p)
        if not pts:
            return 0.0
        pts.sort(reverse=True)
        den = _C[n][h]
        tot = 0.0
        for i, q in enumerate(pts, 1):
            tot += q * _C[n - i][h - 1]
        return tot / den

    def mine(
        self,
        count: int,
        lr: int,
        rl: int,
        chain: tuple[int, ...],
        ranks: tuple[int, ...],
        hand: tuple[int, ...],
        h: int,
        used: tuple[int, ...],
        my_acc: int,
        opp_acc: int,
        opp_gone: bool,
        last_me: bool,
        full: int,
    ) -> float:
        """This seat to move (or to say go): its best value."""
        room = _LIMIT - count
        best = -1e9
        found = False
        for c in hand:
            if _VAL[c] > room:
                continue
            found = True
            nc, nlr, nrl, nch, nrk, p = self.peg(count, lr, rl, chain, ranks, c)
            if my_acc + p >= self.my_need:
                v = p + _WIN
            else:
                rest = tuple(x for x in hand if x != c)
                v = p + self.theirs(
                    nc, nlr, nrl, nch, nrk, rest, h, used, my_acc + p, opp_acc, opp_gone, True, full
                )
            if v > best:
                best = v
        if found:
            return best
        # go: the opponent plays on alone while it can, or the play ends
        if opp_gone or h == 0:
            return self.end(count, last_me, my_acc, opp_acc)
        return self.theirs(count, lr, rl, chain, ranks, hand, h, used, my_acc, opp_acc, False, last_me, full)

    def end(self, count: int, last_me: bool, my_acc: int, opp_acc: int) -> float:
        """The play is over: 1 for last (R8) unless the count ended on 11 or 23."""
        if count in (11, _LIMIT):
            return 0.0
        if last_me:
            return 1.0 + (_WIN if my_acc + 1 >= self.my_need else 0.0)
        return -1.0 - (_WIN if opp_acc + 1 >= self.opp_need else 0.0)

    def theirs(
        self,
        count: int,
        lr: int,
        rl: int,
        chain: tuple[int, ...],
        ranks: tuple[int, ...],
        hand: tuple[int, ...],
        h: int,
        used: tuple[int, ...],
        my_acc: int,
        opp_acc: int,
        opp_gone: bool,
        last_me: bool,
        full: int,
    ) -> float:
        """The opponent to move: expectation over its possible hands of its best card (or its go)."""
        room = _LIMIT - count
        i_can = any(_VAL[c] <= room for c in hand)
        if opp_gone or h == 0:
            if i_can:
                return self.mine(
                    count, lr, rl, chain, ranks, hand, h, used, my_acc, opp_acc, True, last_me, full
                )
            return self.end(count, last_me, my_acc, opp_acc)
        if full <= 0:
            # leaf: the opponent's best immediate reply, then nothing more is looked at
            return -self.reply(count, lr, rl, chain, ranks, h, used, opp_acc)
        n = len(self.base) - len(used)
        vals: list[float] = []
        need = self.opp_need - opp_acc
        for c in self.base:
            if _VAL[c] > room or c in used:
                continue
            nc, nlr, nrl, nch, nrk, p = self.peg(count, lr, rl, chain, ranks, c)
            if p >= need:
                vals.append(-p - _WIN)
                continue
            nu = (*used, c)
            if i_can or any(_VAL[x] <= _LIMIT - nc for x in hand):
                v = self.mine(
                    nc, nlr, nrl, nch, nrk, hand, h - 1, nu, my_acc, opp_acc + p, False, False, full - 1
                )
            elif h > 1:
                v = self.theirs(
                    nc, nlr, nrl, nch, nrk, hand, h - 1, nu, my_acc, opp_acc + p, False, False, full - 1
                )
            else:
                v = self.end(nc, False, my_acc, opp_acc + p)
            vals.append(v - p)
        den = _C[n][h]
        playable = len(vals)
        go = _C[n - playable][h] / den if n >= playable else 0.0
        tot = 0.0
        if vals:
            vals.sort()
            for i, v in enumerate(vals, 1):
                tot += v * _C[n - i][h - 1]
            tot /= den
        if go > 0:
            if i_can:
                gv = self.mine(
                    count, lr, rl, chain, ranks, hand, h, used, my_acc, opp_acc, True, last_me, full
                )
            else:
                gv = self.end(count, last_me, my_acc, opp_acc)
            tot += go * gv
        return tot


@lru_cache(maxsize=1 << 16)
def _play_run(ranks: tuple[int, ...]) -> int:
    """R12 in the play: the longest k ≥ 3 such that the last k ranks are distinct and consecutive."""
    n = len(ranks)
    best = 0
    seen: set[int] = set()
    lo = hi = ranks[-1]
    for k in range(1, n + 1):
        r = ranks[n - k]
        if r in seen:
            break
        seen.add(r)
        lo = min(lo, r)
        hi = max(hi, r)
        if k >= 3 and hi - lo == k - 1:
            best = k
    return best


@dataclass(slots=True)
class _Root:
    search: _Search
    count: int
    lr: int
    rl: int
    chain: tuple[int, ...]
    ranks: tuple[int, ...]
    hand: tuple[int, ...]
    h: int
    opp_gone: bool


def _root(view: bh.SeatView, score_aware: bool = True) -> _Root:
    """The search set up from what this seat may see (``score_aware=False``: points only, no target)."""
    seen = {c.index for c in (*view.hand, *view.discard)}
    if view.up is not None:
        seen.add(view.up.index)
    count = lr = rl = 0
    lr = -1
    chain: tuple[int, ...] = (0,)
    ranks: tuple[int, ...] = ()
    for _, c in view.pile:
        seen.add(c.index)
        r = _RANK[c.index]
        if r == lr:
            rl += 1
        else:
            lr, rl = r, 1
        m = _MASK[c.index]
        chain = (0, *[s | m for s in chain if not s & m])
        ranks = (*ranks, r)
        count += _VAL[c.index]
    base = [i for i in range(_NCARDS) if i not in seen]
    me = view.seat
    opp = 1 - me
    my_need, opp_need = view.target - view.scores[me], view.target - view.scores[opp]
    if not score_aware:
        my_need = opp_need = 1 << 20
    search = _Search(base, my_need, opp_need, view.sequences)
    return _Root(
        search,
        count,
        lr,
        rl,
        chain,
        ranks[-13:],
        tuple(c.index for c in view.hand),
        view.opponent_hand_size,
        view.gone[opp],
    )


def _evaluate(
    view: bh.SeatView, full: int | None = None, only: int | None = None, score_aware: bool = True
) -> list[tuple[float, int, float]]:
    """(value, card index, opponent's expected reply) for each card playable now, or card ``only``."""
    rt = _root(view, score_aware)
    s = rt.search
    if full is None:
        # one full opponent ply then its best reply; deeper when few cards are left
        full = 2 if len(rt.hand) + rt.h <= _DEEP else 1
    out: list[tuple[float, int, float]] = []
    legal = {a.card.index for a in view.legal if isinstance(a, bh.Play) and only in (None, a.card.index)}
    for c in sorted(legal):
        nc, nlr, nrl, nch, nrk, p = s.peg(rt.count, rt.lr, rt.rl, rt.chain, rt.ranks, c)
        rest = tuple(x for x in rt.hand if x != c)
        reply = 0.0 if rt.opp_gone else s.reply(nc, nlr, nrl, nch, nrk, rt.h, (), 0, win=False)
        if p >= s.my_need:
            v = p + _WIN
        elif full == 0:
            v = p - s.reply(nc, nlr, nrl, nch, nrk, rt.h, (), 0) if not rt.opp_gone else float(p)
        else:
            v = p + s.theirs(nc, nlr, nrl, nch, nrk, rest, rt.h, (), p, 0, rt.opp_gone, True, full)
        out.append((v, c, reply))
    return out


def _best(evals: list[tuple[float, int, float]]) -> tuple[float, int, float]:
    """Highest value; ties go to the lower-valued card (keeps the big ones for later), then the index."""
    return max(evals, key=lambda e: (round(e[0], 9), -_VAL[e[1]], -e[1]))


def play_advice(view: bh.SeatView) -> PlayAdvice | None:
    """The hard player's card in the play, or None when the seat has no card to choose."""
    if view.phase is not bh.Phase.PLAY or not any(isinstance(a, bh.Play) for a in view.legal):
        return None
    value, c, reply = _best(_evaluate(view))
    if min(view.target - view.scores[0], view.target - view.scores[1]) <= _NEAR:
        # near the end the choice weighs pegging out; the coach still reports the card's points
        value = _evaluate(view, only=c, score_aware=False)[0][0]
    card = ALL_CARDS[c]
    now = tuple(peg_points([*(x for _, x in view.pile), card], sequences=view.sequences))
    return PlayAdvice(card, now, value, reply)


# ---------------------------------------------------------------- levels


def _discard_action(view: bh.SeatView, cards: tuple[Card, Card]) -> bh.Action:
    want = {cards[0].index, cards[1].index}
    for a in view.legal:
        if isinstance(a, bh.Discard) and {c.index for c in a.cards} == want:
            return a
    raise ValueError("That discard is not legal here.")  # pragma: no cover - built from the dealt cards


def _kept_points(kept: Sequence[Card]) -> int:
    """Easy habit: pairs and 11s already among the kept cards."""
    pts = 0
    for a, b in itertools.combinations(kept, 2):
        if a.rank == b.rank:
            pts += 2
        if _VAL[a.index] + _VAL[b.index] == 11:
            pts += 2
    if sum(_VAL[c.index] for c in kept) == 11:
        pts += 2
    return pts


def _hand_only_discard(dealt: Sequence[Card], sequences: bool) -> tuple[Card, Card]:
    """Normal level: the best kept hand (count − shortage over the up-cards), blind to the bhargage."""
    taken = {c.index for c in dealt}
    u = _Unseen([i for i in range(_NCARDS) if i not in taken])
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
    level = check_level(level)
    if not view.legal:
        raise ValueError("This seat has nothing to do now.")
    if len(view.legal) == 1:
        return view.legal[0]
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
            return _discard_action(view, _hand_only_discard(dealt, view.sequences))
        line = discard_table(dealt, view.dealer == view.seat, sequences=view.sequences)[0]
        return _discard_action(view, line.cards)
    if view.phase is bh.Phase.PLAY:
        plays = [a for a in view.legal if isinstance(a, bh.Play)]
        if level == "easy":
            pile = [c for _, c in view.pile]
            scoring = [a for a in plays if peg_points([*pile, a.card], sequences=view.sequences)]
            return rng.choice(scoring or plays)
        if level == "normal":
            _, c, _ = _best(_evaluate(view, full=0))
        else:
            _, c, _ = _best(_evaluate(view))
        for a in plays:
            if a.card.index == c:
                return a
    return view.legal[0]
