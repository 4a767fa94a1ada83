"""The Classic Cribbage play (RULES.md C4): a depth-limited expectimax over the cards this seat has not seen
(the hard player's card and the coach's "why").

Suits never score in the play, so the search works on ranks: this seat's cards, and for every other seat a
hand size drawn from the unseen cards counted by rank. A seat to move plays the rank best for its side; the
chance that a rank is its best is exact for a hand drawn uniformly from the unseen (it holds that rank and
none of the better ones), and what is left is the chance that it must say go. Values are this seat's side's
points minus the others' (with three players each rival's half, as in ``crib_weight``), plus a large bonus
for reaching the target, which ends the game at once (C6).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb

from bot.ai.cribbage_discard import crib_weight
from bot.rules import cribbage as cr
from bot.rules.cribbage_scoring import LIMIT, ScoreItem, peg_items
from bot.rules.pack52 import FULL_PACK, Card

__all__ = ["PlayAdvice", "evaluate", "peg_ranks", "play_advice"]

WIN = 100.0  # the value of pegging out (C6), over any number of points
_FAR = 1 << 20  # a need no count reaches: the points-only search
_REACH = 61  # more than any side pegs in one play: further from the target, the search does not track it
_VALUE: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)  # by rank (C1)
# C(n, k): the chance that a hand of k cards drawn from n misses some of them.
_C: tuple[tuple[int, ...], ...] = tuple(tuple(comb(n, k) for k in range(6)) for n in range(53))
# Nodes a decision may expand: the search goes as deep as this allows (under a millisecond at the median).
BUDGET = 400


@lru_cache(maxsize=1 << 16)
def peg_ranks(pile: tuple[int, ...], rank: int) -> int:
    """What a card of ``rank`` pegs played on ``pile`` (the ranks since the count started), C4: 15 or 31,
    the pair / pair royal / double pair royal it ends, and the longest run of the last k ≥ 3 cards."""
    count = sum(_VALUE[r] for r in pile) + _VALUE[rank]
    points = 2 if count in (15, LIMIT) else 0
    same = 1
    while same <= len(pile) and pile[-same] == rank:
        same += 1
    points += same * (same - 1)  # every pair among the cards of one rank that end the pile
    ranks = (*pile, rank)
    seen = 0
    low = high = rank
    run = 0
    for k in range(1, len(ranks) + 1):
        r = ranks[-k]
        if seen >> r & 1:
            break  # a repeat: every longer tail holds it too
        seen |= 1 << r
        low, high = min(low, r), max(high, r)
        if k >= 3 and high - low == k - 1:
            run = k
    return points + run


@dataclass(frozen=True, slots=True)
class PlayAdvice:
    """The card the hard player would play now and why: what it pegs at once (the engine's items; a go or
    last card comes after), and ``net``: those points plus the expected points of the rest of the play as
    far as the search looks, this seat's side's minus the others'. ``others`` holds every other playable
    card with its ``net``, best first."""

    card: Card
    now: tuple[ScoreItem, ...]
    net: float
    others: tuple[tuple[Card, float], ...]


# A node's position: the count, the ranks since it started, this seat's ranks, every seat's hand size, the
# unseen cards by rank and their number, the seats known unable to play this count (a bit each), the seat
# that played last, and each side's points so far in the search.
_Pos = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int, int]


class _TooBig(Exception):
    """A deeper search would pass its node budget: the last finished depth decides."""


class _Search:
    """One decision's search. ``sign[seat]`` is what a point of that seat is worth to this seat's side."""

    __slots__ = ("cap", "close", "me", "need", "nodes", "players", "side", "sign")

    def __init__(self, me: int, players: int, sides: tuple[int, ...], need: tuple[int, ...]) -> None:
        self.me = me
        self.players = players
        self.side = sides
        ours = sides[me]
        self.sign = tuple(crib_weight(players, sides[s] == ours) for s in range(players))
        self.need = need
        # Whether any side could peg out in this play: if not, points need no tracking (the common case).
        self.close = min(need) <= _REACH
        self.nodes = 0
        self.cap = 1 << 30  # nodes this search may expand before it gives up (``_TooBig``)

    def scored(self, seat: int, points: int, got: tuple[int, ...]) -> tuple[float, tuple[int, ...] | None]:
        """(what ``seat`` pegging ``points`` is worth to us, each side's points after; None: game won)."""
        if not self.close:
            return self.sign[seat] * points, got
        side = self.side[seat]
        value = self.sign[seat] * points
        total = got[side] + points
        if total >= self.need[side]:
            return value + self.sign[seat] * WIN, None
        return value, (*got[:side], total, *got[side + 1 :])

    # ---- whose turn

    def after(self, pos: _Pos, got: tuple[int, ...], depth: int) -> float:
        """The rest of the play after ``pos``'s last seat played (its points already counted)."""
        if pos[0] == LIMIT:
            return self.fresh(pos, got, depth)
        return self.seek(pos, got, depth, 1)

    def seek(self, pos: _Pos, got: tuple[int, ...], depth: int, k: int) -> float:
        """C4: the turn goes left from the last seat to the first that can play; when none can, the last to
        play pegs 1 (the go, or the last card) and the count starts again."""
        count, _, mine, sizes, _, _, stuck, last = pos
        n = self.players
        room = LIMIT - count
        for step in range(k, n + 1):
            t = (last + step) % n
            if t == self.me:
                if any(_VALUE[r] <= room for r in mine):
                    return self.mine(pos, got, depth)
            elif sizes[t] and not stuck >> t & 1:
                return self.other(t, pos, got, depth, step)
        value, after = self.scored(last, 1, got)
        if after is None:
            return value
        return value + self.fresh(pos, after, depth)

    def fresh(self, pos: _Pos, got: tuple[int, ...], depth: int) -> float:
        """A new count from 0, led by the first seat after the last to play that holds cards (or the end)."""
        _, _, mine, sizes, pool, unseen, _, last = pos
        n = self.players
        for step in range(1, n + 1):
            t = (last + step) % n
            if t == self.me and mine:
                return self.mine((0, (), mine, sizes, pool, unseen, 0, last), got, depth)
            if t != self.me and sizes[t]:
                return self.other(t, (0, (), mine, sizes, pool, unseen, 0, last), got, depth, step)
        return 0.0

    # ---- moves

    def mine(self, pos: _Pos, got: tuple[int, ...], depth: int) -> float:
        """This seat to play: its best card (at the horizon, its best points now)."""
        return max(v for v, _ in self.my_options(pos, got, depth))

    def my_options(self, pos: _Pos, got: tuple[int, ...], depth: int) -> list[tuple[float, int]]:
        """(value, rank) of each rank this seat may play now."""
        self.nodes += 1
        if self.nodes > self.cap:
            raise _TooBig
        count, pile, mine, sizes, pool, unseen, stuck, _ = pos
        room = LIMIT - count
        out: list[tuple[float, int]] = []
        prev = 0
        for i, r in enumerate(mine):
            if r == prev or _VALUE[r] > room:
                continue
            prev = r
            value, after = self.scored(self.me, peg_ranks(pile, r), got)
            if after is not None and depth > 0:
                rest = (
                    count + _VALUE[r],
                    (*pile, r),
                    mine[:i] + mine[i + 1 :],
                    sizes,
                    pool,
                    unseen,
                    stuck,
                    self.me,
                )
                value += self.after(rest, after, depth - 1)
            out.append((value, r))
        return out

    def other(self, t: int, pos: _Pos, got: tuple[int, ...], depth: int, step: int) -> float:
        """Seat ``t`` to play from a hand drawn from the unseen: the expectation of its best rank, and of its
        go when it holds nothing that fits (then the turn goes on past it)."""
        self.nodes += 1
        if self.nodes > self.cap:
            raise _TooBig
        count, pile, mine, sizes, pool, unseen, stuck, _ = pos
        sign = self.sign[t]
        h = sizes[t]
        if depth <= 0:
            return self.reply(t, pile, pool, unseen, h, got)
        room = LIMIT - count
        left = (*sizes[:t], h - 1, *sizes[t + 1 :])
        options: list[tuple[float, int]] = []
        for r in range(1, 14):
            have = pool[r]
            if not have or _VALUE[r] > room:
                continue
            value, after = self.scored(t, peg_ranks(pile, r), got)
            if after is not None:
                less = (*pool[:r], have - 1, *pool[r + 1 :])
                rest = (count + _VALUE[r], (*pile, r), mine, left, less, unseen - 1, stuck, t)
                value += self.after(rest, after, depth - 1)
            options.append((value, have))
        options.sort(reverse=sign > 0)  # its side's best first: ours when a partner plays
        whole = _C[unseen][h]
        total = 0.0
        better = 0
        for value, have in options:
            total += value * (_C[unseen - better][h] - _C[unseen - better - have][h]) / whole
            better += have
        go = _C[unseen - better][h] / whole
        if go > 0:
            total += go * self.seek((*pos[:6], stuck | 1 << t, pos[7]), got, depth, step + 1)
        return total

    def reply(
        self, t: int, pile: tuple[int, ...], pool: tuple[int, ...], unseen: int, h: int, got: tuple[int, ...]
    ) -> float:
        """At the horizon: the expectation of what seat ``t`` pegs at once with its best card (only the few
        ranks that peg at all matter: any other card is worth nothing now, whatever it holds)."""
        options: list[tuple[float, int]] = []
        for r, points in _pegging(pile):
            if pool[r]:
                options.append((self.scored(t, points, got)[0], pool[r]))
        if not options:
            return 0.0
        options.sort(reverse=self.sign[t] > 0)
        whole = _C[unseen][h]
        total = 0.0
        better = 0
        for value, have in options:
            total += value * (_C[unseen - better][h] - _C[unseen - better - have][h]) / whole
            better += have
        return total


@lru_cache(maxsize=1 << 14)
def _pegging(pile: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """(rank, points) of every rank that pegs when played on ``pile`` without passing 31."""
    room = LIMIT - sum(_VALUE[r] for r in pile)
    return tuple((r, p) for r in range(1, 14) if _VALUE[r] <= room and (p := peg_ranks(pile, r)))


def _setup(view: cr.SeatView, score_aware: bool) -> tuple[_Search, _Pos]:
    """The search and its root position from what the seat sees."""
    seen = {*view.kept, *view.laid_away, *(c for _, c in view.played)}
    if view.starter is not None:
        seen.add(view.starter)
    pool = [0] * 14
    for c in FULL_PACK:
        if c not in seen:
            pool[c.rank] += 1
    n = view.players
    need = tuple(view.target - s if score_aware else _FAR for s in view.scores)
    search = _Search(view.seat, n, view.sides, need)
    stuck = sum(1 << s for s in range(n) if s != view.seat and view.gone[s])
    last = view.pile[-1][0] if view.pile else (view.seat - 1) % n
    mine = tuple(sorted(c.rank for c in view.hand))
    pos: _Pos = (
        view.count,
        tuple(c.rank for _, c in view.pile),
        mine,
        view.hand_sizes,
        tuple(pool),
        sum(pool),
        stuck,
        last,
    )
    return search, pos


_MAX_DEPTH = 16  # moves: more than a whole play


def _deepened(search: _Search, pos: _Pos, got: tuple[int, ...]) -> dict[int, float]:
    """The values of the ranks this seat may play, from the deepest search that fits ``BUDGET``: deeper by
    one move at a time while the last depth's node count, grown by its own growth factor, still fits (or
    until the whole play is seen). A count of nodes, not a clock, so the choice is deterministic."""
    counts = [1]  # nodes by depth: the root alone at depth 0
    values: dict[int, float] = {}
    for depth in range(1, _MAX_DEPTH + 1):
        search.nodes = 0
        search.cap = 1 << 30 if depth <= 2 else 2 * BUDGET  # always this seat, a reply, this seat
        try:
            values = {r: v for v, r in search.my_options(pos, got, depth)}
        except _TooBig:
            break
        used = search.nodes
        if used == counts[-1]:
            break  # nothing more to see: the whole play is in
        growth = max(used / counts[-1], counts[-1] / counts[-2] if len(counts) > 1 else 1.0)
        if depth >= 2 and used * growth > BUDGET:
            break
        counts.append(used)
    return values


def evaluate(
    view: cr.SeatView, *, score_aware: bool = True, shallow: bool = False
) -> list[tuple[float, Card]]:
    """Every card this seat may play now with its value, best first (ties: the higher card, keeping the low
    ones for a go; then the engine's order). ``shallow``: look only at the next seat's reply (the normal
    player)."""
    search, pos = _setup(view, score_aware)
    got = tuple(0 for _ in view.scores)
    values = {r: v for v, r in search.my_options(pos, got, 1)} if shallow else _deepened(search, pos, got)
    plays = [a.card for a in view.legal if isinstance(a, cr.Play)]
    out = [(values[c.rank], c) for c in plays]
    out.sort(key=lambda vc: (-round(vc[0], 9), -vc[1].value, -vc[1].rank))
    return out


def play_advice(view: cr.SeatView) -> PlayAdvice | None:
    """The hard player's card in the play and why, or None when the seat has no card to choose now."""
    if view.phase is not cr.Phase.PLAY or not any(isinstance(a, cr.Play) for a in view.legal):
        return None
    ranked = evaluate(view)
    best = ranked[0][1]
    # The coach speaks in points: near the end the choice weighs pegging out, but the values it reports
    # are those of the same search without the target (the same search, when no side is near it).
    near = min(view.target - s for s in view.scores) <= _REACH
    points = {c: v for v, c in (evaluate(view, score_aware=False) if near else ranked)}
    now = peg_items([*(c for _, c in view.pile), best])
    return PlayAdvice(best, now, points[best], tuple((c, points[c]) for _, c in ranked[1:]))
