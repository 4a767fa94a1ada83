"""The Bhargage play by a small expectimax over the cards this seat has not seen (the hard player's card and
the coach's "why")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from bot.ai.bhargage_cards import KEPT, LIMIT, MASK, NCARDS, RANK, VAL
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import FULL_MASK, ScoreItem, peg_points, play_run
from bot.rules.decktet import ALL_CARDS, Card

# Utility of winning the game during the play, on top of the points: near the end, pegging out is all.
_WIN = 100.0
# Needs above this cannot be pegged in one count in practice: the points-only value is the same.
_NEAR = 40
_DEEP = 3  # search two opponent plies when this seat and the opponent hold at most this many cards

# A point of the search, as one value: the pile (count, last rank, how many equal ranks end it, suit chain,
# ranks for runs), this seat's cards, the opponent's hand size, the unseen cards it has played, both seats'
# points so far in this count, whether the opponent said go, and whether this seat played last.
Node = tuple[
    int,
    int,
    int,
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    int,
    tuple[int, ...],
    int,
    int,
    bool,
    bool,
]


@dataclass(frozen=True, slots=True)
class PlayAdvice:
    """The card the hard player would play now, and why: what it scores at once, the expected points of the
    rest of the count after it (this seat's minus the opponent's), and the opponent's expected best reply."""

    card: Card
    now: tuple[ScoreItem, ...]
    net: float
    reply: float


# ---------------------------------------------------------------- the play: expectimax over unseen cards


class _Search:
    """One play decision's search: the seat's cards are known, the opponent's are a random subset of the
    unseen cards of its hand size. The value is (this seat's points − the opponent's) for the rest of the
    count, plus ``_WIN`` for pegging out (minus for the opponent pegging out)."""

    __slots__ = ("base", "by_mask", "by_rank", "by_val", "le", "my_need", "opp_need", "seq", "w", "wsum")

    def __init__(
        self, base: list[int], my_need: int, opp_need: int, seq: bool, weight: Sequence[float]
    ) -> None:
        self.base = base
        self.my_need = my_need
        self.opp_need = opp_need
        self.seq = seq
        self.w = weight
        self.wsum = sum(weight[c] for c in base)
        by_val: list[list[int]] = [[] for _ in range(11)]
        by_rank: list[list[int]] = [[] for _ in range(13)]
        by_mask: list[list[int]] = [[] for _ in range(64)]
        le = [0] * 24
        for c in base:
            by_val[VAL[c]].append(c)
            by_rank[RANK[c]].append(c)
            by_mask[MASK[c]].append(c)
            for v in range(VAL[c], 24):
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
        (nc, lr, rl, chain, ranks), p = peg_step((count, lr, rl, chain, ranks), c, self.seq)
        return nc, lr, rl, chain, ranks, p

    def scorers(
        self, count: int, lr: int, chain: tuple[int, ...], ranks: tuple[int, ...], used: tuple[int, ...]
    ) -> tuple[list[int], list[int]]:
        """The few unseen cards that can score on this pile: by value (11, 23), rank (sets, runs) and suits
        (bharg); and what a card of each rank would score as a run (for ``reply`` to add)."""
        room = LIMIT - count
        cset: set[int] = set()
        if 1 <= count <= 11:
            cset.update(self.by_val[11 - count])
        if count >= 13:
            cset.update(self.by_val[23 - count])
        if lr >= 0:
            cset.update(c for c in self.by_rank[lr] if VAL[c] <= room)
        for s in chain:
            cset.update(c for c in self.by_mask[FULL_MASK ^ s] if VAL[c] <= room)
        runs = [0] * 13
        if self.seq and len(ranks) >= 2:
            for r in range(13):
                runs[r] = _play_run((*ranks, r))
                if runs[r]:
                    cset.update(c for c in self.by_rank[r] if VAL[c] <= room)
        return [c for c in cset if c not in used], runs

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
        cands, runs = self.scorers(count, lr, chain, ranks, used)
        seq = self.seq
        pts: list[tuple[float, int]] = []
        need = self.opp_need - opp_acc
        for c in cands:
            nc = count + VAL[c]
            p = 2 if nc == 11 else 3 if nc == LIMIT else 0
            if RANK[c] == lr:
                p += 1000 if rl >= 5 else (rl + 1) * rl
            if FULL_MASK ^ MASK[c] in chain:
                p += 6
            if seq:
                p += runs[RANK[c]]
            if p:
                pts.append((p + _WIN if win and p >= need else p, c))
        if not pts:
            return 0.0
        pts.sort(reverse=True)
        scale = self.scale(h, used)
        tot = 0.0
        none = 1.0  # the chance that the opponent holds none of the better cards
        for q, c in pts:
            pc = min(1.0, self.w[c] * scale)
            tot += q * pc * none
            none *= 1.0 - pc
        return tot

    def scale(self, h: int, used: tuple[int, ...]) -> float:
        """Chance per unit of weight that the opponent holds a card, with ``h`` cards among those unplayed."""
        rest = self.wsum - sum(self.w[c] for c in used)
        return h / rest if rest > 0 else 0.0

    def mine(self, node: Node, full: int) -> float:
        """This seat to move (or to say go): its best value."""
        count, lr, rl, chain, ranks, hand, h, used, my_acc, opp_acc, opp_gone, last_me = node
        room = LIMIT - count
        best = -1e9
        found = False
        for c in hand:
            if VAL[c] > room:
                continue
            found = True
            nc, nlr, nrl, nch, nrk, p = self.peg(count, lr, rl, chain, ranks, c)
            if my_acc + p >= self.my_need:
                v = p + _WIN
            else:
                rest = tuple(x for x in hand if x != c)
                v = p + self.theirs(
                    (nc, nlr, nrl, nch, nrk, rest, h, used, my_acc + p, opp_acc, opp_gone, True), full
                )
            if v > best:
                best = v
        if found:
            return best
        # go: the opponent plays on alone while it can, or the play ends
        if opp_gone or h == 0:
            return self.end(count, last_me, my_acc, opp_acc)
        return self.theirs(
            (count, lr, rl, chain, ranks, hand, h, used, my_acc, opp_acc, False, last_me), full
        )

    def end(self, count: int, last_me: bool, my_acc: int, opp_acc: int) -> float:
        """The play is over: 1 for last (R8) unless the count ended on 11 or 23."""
        if count in (11, LIMIT):
            return 0.0
        if last_me:
            return 1.0 + (_WIN if my_acc + 1 >= self.my_need else 0.0)
        return -1.0 - (_WIN if opp_acc + 1 >= self.opp_need else 0.0)

    def theirs(self, node: Node, full: int) -> float:
        """The opponent to move: expectation over its possible hands of its best card (or its go)."""
        count, lr, rl, chain, ranks, hand, h, used, my_acc, opp_acc, opp_gone, _ = node
        room = LIMIT - count
        i_can = any(VAL[c] <= room for c in hand)
        if opp_gone or h == 0:
            return self.after_go(node, i_can, full)
        if full <= 0:
            # leaf: the opponent's best immediate reply, then nothing more is looked at
            return -self.reply(count, lr, rl, chain, ranks, h, used, opp_acc)
        vals: list[tuple[float, float]] = []
        scale = self.scale(h, used)
        need = self.opp_need - opp_acc
        for c in self.base:
            if VAL[c] > room or c in used:
                continue
            nc, nlr, nrl, nch, nrk, p = self.peg(count, lr, rl, chain, ranks, c)
            pc = min(1.0, self.w[c] * scale)
            if p >= need:
                vals.append((-p - _WIN, pc))
                continue
            after = (nc, nlr, nrl, nch, nrk, hand, h - 1, (*used, c), my_acc, opp_acc + p, False, False)
            if i_can or any(VAL[x] <= LIMIT - nc for x in hand):
                v = self.mine(after, full - 1)
            elif h > 1:
                v = self.theirs(after, full - 1)
            else:
                v = self.end(nc, False, my_acc, opp_acc + p)
            vals.append((v - p, pc))
        tot, go = _spread(vals)
        if go > 0:
            tot += go * self.after_go(node, i_can, full)
        return tot

    def after_go(self, node: Node, i_can: bool, full: int) -> float:
        """The opponent says go: this seat plays on alone while it can (``i_can``), or the play ends."""
        count, lr, rl, chain, ranks, hand, h, used, my_acc, opp_acc, _, last_me = node
        if i_can:
            return self.mine(
                (count, lr, rl, chain, ranks, hand, h, used, my_acc, opp_acc, True, last_me), full
            )
        return self.end(count, last_me, my_acc, opp_acc)


def _spread(vals: list[tuple[float, float]]) -> tuple[float, float]:
    """The opponent's best card over its possible hands (its playable cards as (value for this seat, chance
    that it holds the card)), and the chance that it holds none of them and goes. The cards are taken as
    held independently: the chance that a card is its best is its own chance times none of the better."""
    tot = 0.0
    none = 1.0
    vals.sort()
    for v, pc in vals:
        tot += v * pc * none
        none *= 1.0 - pc
    return tot, none


# R12 in the play, cached: the search asks again and again for the same few rank sequences.
_play_run = lru_cache(maxsize=1 << 16)(play_run)

# A pile state: count, last rank, how many equal ranks end the pile, suit chain (see _Search), ranks for runs.
Pile = tuple[int, int, int, tuple[int, ...], tuple[int, ...]]


def peg_step(pile: Pile, c: int, seq: bool) -> tuple[Pile, int]:
    """Card c played on the pile: the new pile and its points (R8, R12); 1000 for six of a rank (Game!). The
    ranks for runs keep the last 13: no run is longer."""
    count, lr, rl, chain, ranks = pile
    nc = count + VAL[c]
    p = 2 if nc == 11 else 3 if nc == LIMIT else 0
    r = RANK[c]
    if r == lr:
        rl += 1
        p += 1000 if rl >= 6 else rl * (rl - 1)
    else:
        lr, rl = r, 1
    m = MASK[c]
    if FULL_MASK ^ m in chain:
        p += 6
    chain = (0, *[s | m for s in chain if not s & m])
    if seq:
        ranks = (*ranks, r)[-13:]
        p += _play_run(ranks)
    return (nc, lr, rl, chain, ranks), p


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
        r = RANK[c.index]
        if r == lr:
            rl += 1
        else:
            lr, rl = r, 1
        m = MASK[c.index]
        chain = (0, *[s | m for s in chain if not s & m])
        ranks = (*ranks, r)
        count += VAL[c.index]
    base = [i for i in range(NCARDS) if i not in seen]
    me = view.seat
    opp = 1 - me
    my_need, opp_need = view.target - view.scores[me], view.target - view.scores[opp]
    if not score_aware:
        my_need = opp_need = 1 << 20
    search = _Search(base, my_need, opp_need, view.sequences, KEPT[view.dealer == opp])
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


def evaluate(
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
            v = p + s.theirs((nc, nlr, nrl, nch, nrk, rest, rt.h, (), p, 0, rt.opp_gone, True), full)
        out.append((v, c, reply))
    return out


def best_of(evals: list[tuple[float, int, float]]) -> tuple[float, int, float]:
    """Highest value; ties go to the lower-valued card (keeps the big ones for later), then the index."""
    return max(evals, key=lambda e: (round(e[0], 9), -VAL[e[1]], -e[1]))


def play_advice(view: bh.SeatView) -> PlayAdvice | None:
    """The hard player's card in the play, or None when the seat has no card to choose."""
    if view.phase is not bh.Phase.PLAY or not any(isinstance(a, bh.Play) for a in view.legal):
        return None
    value, c, reply = best_of(evaluate(view))
    if min(view.target - view.scores[0], view.target - view.scores[1]) <= _NEAR:
        # near the end the choice weighs pegging out; the coach still reports the card's points
        value = evaluate(view, only=c, score_aware=False)[0][0]
    card = ALL_CARDS[c]
    now = tuple(peg_points([*(x for _, x in view.pile), card], sequences=view.sequences))
    return PlayAdvice(card, now, value, reply)
