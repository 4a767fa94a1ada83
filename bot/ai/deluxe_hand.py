"""What the Bharg Deluxe hard player knows at one decision, and what a hand is worth to it (the valuation
the levels in :mod:`bot.ai.deluxe` choose by; the whole turn built on it is :mod:`bot.ai.deluxe_turn`).

A hand is valued as: points bound now, minus the points still held weighted by the chance that the hand ends
before they are bound (D9 counts them against us), minus a little per card (the road to going out), plus the
expected gain of the next draw (cards that would complete a bharg set or a straight), plus a bonus for going
out (D7: everyone else is caught holding cards).

The chance the hand ends is the tempo of the table: each other seat goes out on its next turn with a chance
that grows as its hand shrinks (measured on the bench), so at six seats, or facing a seat down to one card, a
held point is nearly a lost one; a rebuilt deck running dry (D8) ends it too. A discard is charged what it
hands whoever draws next (the queue is open to all), more when the next seat is close to going out. A draw
from the deck is the odds-weighted turn each unseen card would make.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from bot.rules import deluxe as D
from bot.rules.decktet import Card, Rank, Suit, deluxe_deck
from bot.rules.deluxe_melds import (
    ALL_SUITS_MASK,
    Meld,
    find_melds,
    partial_positions,
    positions,
    suit_mask,
)

# Weights of the hard player's hand valuation, tuned by bench/bench_ai_deluxe.py (greedy, then strong).
W_POTENTIAL = 1.5  # per expected point the next draw binds
W_SIZE = 0.35  # per card kept: a small hand is close to going out
DECK_DRAW = 0.3  # the deck's unknown card: a little worse than its odds
GO_OUT_BASE, GO_OUT_PER_CARD = 2.0, 1.7  # going out, per card an average opponent is caught holding
# The chance a player goes out on a turn begun with h cards (h = 0, 1, 2, …), as measured on the bench's
# strong baseline at 3–6 seats: the tempo of the hand.
OUT_CHANCE = (1.0, 0.4, 0.15, 0.12, 0.08, 0.05, 0.02, 0.01)
RISK_LATER = 0.5  # weight of a held point when the hand goes on past our next turn
W_GIFT = 2.0  # per point a discard is likely to give whoever takes it from the queue
GIFT_NEAR = 1.0  # extra gift weight when the next seat holds 2 cards or fewer: our gift may take them out
DECK_FULL = 140  # cards × card types a deck draw weighs in full (the likeliest types that meld with the hand)


# What a discard hands whoever takes it from the queue.
Gift = Literal["ace", "straight", "set", "little"]


@dataclass(frozen=True, slots=True)
class Advice:
    """One choice as the coach weighs it, best first: the action, the hard player's value for it, the melds
    it lets the seat bind this turn (a draw: the best set the new hand binds; a bind: its meld) and, for a
    discard, what it hands the next player. (Here, below the expert, which re-weighs the best of them.)"""

    action: D.Action
    value: float
    binds: tuple[Meld, ...] = ()
    taken: tuple[Card, ...] = ()  # a draw from the queue: the cards taken, top first
    gift: Gift | None = None  # a discard: what it hands the next player
    kept: tuple[Card, ...] = ()  # the hand it leaves (a draw: once its melds are bound, before the discard)


# --- per-decision context -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Context:
    """Everything one decision reuses: the table, the unseen cards, the end-of-hand risk, and caches."""

    view: D.View
    opts: D.Options
    suit: Suit | None
    table: list[tuple[int, Meld]]
    pos: dict[Rank, int]
    unseen: dict[int, int]  # card index -> copies not in sight
    types: dict[int, Card]
    n_unseen: int
    end_risk: float  # weight of a held point: the chance the hand ends before it is bound
    go_out_bonus: float
    gift_weight: float  # per point a discard hands whoever takes it: more when the next seat is nearly out
    single_ok: frozenset[int] = frozenset()  # straight positions one card can fill as a partial straight
    pair_ok: frozenset[tuple[int, int]] = frozenset()
    melds_cache: dict[tuple[int, ...], list[Meld]] = field(default_factory=dict)
    eval_cache: dict[tuple[int, ...], float] = field(default_factory=dict)
    p1: list[float] = field(default_factory=list)  # chance one draw is a card of exactly this suit mask


_MASKS: dict[int, int] = {}


def mask_of(c: Card) -> int:
    """``suit_mask`` remembered per card type: the valuation asks for it thousands of times a decision."""
    m = _MASKS.get(c.index)
    if m is None:
        m = _MASKS[c.index] = suit_mask(c)
    return m


def hand_key(hand: Sequence[Card]) -> tuple[int, ...]:
    return tuple(sorted(c.index for c in hand))


def points_of(hand: Sequence[Card]) -> int:
    return sum(len(c.suits) for c in hand)


def _table(view: D.View) -> list[tuple[int, Meld]]:
    """Bound melds, the seat's own first (the engine's order, so partial straights match its choice)."""
    n = len(view.bound)
    order = [(view.seat + i) % n for i in range(n)]
    return [(s, m) for s in order for m in view.bound[s]]


def context_of(view: D.View) -> Context:
    opts = view.options
    table = _table(view)
    pos = positions(pawns=opts.pawns, courts=opts.courts)
    types: dict[int, Card] = {}
    total: Counter[int] = Counter()
    for c in deluxe_deck(pawns=opts.pawns, courts=opts.courts):
        types[c.index] = c
        total[c.index] += 1
    for c in view.hand:
        total[c.index] -= 1
    for c in view.queue:
        total[c.index] -= 1
    for _, m in table:
        for c in m.cards:
            total[c.index] -= 1
    for c in view.ace_pile:
        total[c.index] -= 1
    unseen = {i: k for i, k in total.items() if k > 0}
    n_unseen = max(1, sum(unseen.values()))
    others = [view.hand_sizes[s] for s in range(len(view.hand_sizes)) if s != view.seat and not view.left[s]]
    p_end = _p_end(view, others)
    end_risk = p_end + (1.0 - p_end) * RISK_LATER
    go_out = GO_OUT_BASE + GO_OUT_PER_CARD * (sum(others) / max(1, len(others))) + _game_end(view)
    ctx = Context(
        view=view,
        opts=opts,
        suit=view.straight_suit,
        table=table,
        pos=pos,
        unseen=unseen,
        types=types,
        n_unseen=n_unseen,
        end_risk=end_risk,
        go_out_bonus=go_out,
        gift_weight=W_GIFT * (1.0 + GIFT_NEAR * (_next_size(view) <= 2)),
    )
    _prepare_draw_odds(ctx)
    _prepare_straights(ctx)
    return ctx


def next_seat(view: D.View) -> int:
    """The next seat still playing: the first to see a discard on top of the queue (this seat when no one
    else plays on)."""
    n = len(view.hand_sizes)
    for k in range(1, n):
        s = (view.seat + k) % n
        if not view.left[s]:
            return s
    return view.seat


def _next_size(view: D.View) -> int:
    """Cards held by the next seat still playing: the first to see our discard on top of the queue."""
    s = next_seat(view)
    return view.hand_sizes[s] if s != view.seat else 10


HELD_POINTS_PER_CARD = 1.7  # an unseen card's average points (Aces/Crowns 1, numbers 2, extensions 3)


def end_estimates(view: D.View) -> list[float]:
    """Each seat's total if this seat went out now (a seat that left: far below anyone): ours with our hand
    bound but the last discard, the others' less what they hold (D9)."""
    est: list[float] = []
    for s in range(len(view.scores)):
        bound = sum(len(c.suits) for m in view.bound[s] for c in m.cards)
        if s == view.seat:  # going out binds our hand but the last discard
            change = max(0.0, points_of(view.hand) - 2.0)
        else:
            change = -HELD_POINTS_PER_CARD * view.hand_sizes[s]
        est.append(-1e9 if view.left[s] else view.scores[s] + bound + change)
    return est


def _game_end(view: D.View) -> float:
    """Going out scores the hand (D9): if someone then reaches the target, the game ends. Worth a lot when we
    would be the one on top, and to be avoided when someone else would."""
    est = end_estimates(view)
    if max(est) < view.target:
        return 0.0
    mine = est[view.seat]
    rival = max(v for s, v in enumerate(est) if s != view.seat)
    if mine > rival + 2:
        return 25.0
    if rival > mine:
        return -25.0
    return 0.0


def _p_end(view: D.View, others: list[int]) -> float:
    """The chance the hand ends before our next turn: one of the others goes out (likelier the fewer cards
    they hold, and the more of them there are), or the rebuilt deck runs dry (D8)."""
    stay = 1.0
    for h in others:
        stay *= 1.0 - OUT_CHANCE[min(h, len(OUT_CHANCE) - 1)]
    if view.deck_rebuilt and view.deck_count < len(others):
        stay *= 0.2  # the second empty deck ends the hand, unless the others take from the queue instead
    return 1.0 - stay


def _prepare_draw_odds(ctx: Context) -> None:
    p1 = [0.0] * 64
    for i, k in ctx.unseen.items():
        p1[mask_of(ctx.types[i])] += k / ctx.n_unseen
    ctx.p1 = p1


def _prepare_straights(ctx: Context) -> None:
    """Which straight positions one or two new cards could fill as partial straights on today's table."""
    if ctx.suit is not None:
        ctx.single_ok, ctx.pair_ok = partial_positions(
            ctx.table, ctx.suit, pawns=ctx.opts.pawns, courts=ctx.opts.courts
        )


def melds_in(ctx: Context, hand: Sequence[Card]) -> list[Meld]:
    key = hand_key(hand)
    found = ctx.melds_cache.get(key)
    if found is None:
        found = find_melds(hand, ctx.table, ctx.suit, ctx.opts)
        ctx.melds_cache[key] = found
    return found


# --- valuing a hand ---------------------------------------------------------------------------------------


def reach_of(hand: Sequence[Card]) -> list[int]:
    """For each suit mask, the most cards of the hand that cover exactly it with disjoint suits (-1: none)."""
    best = [-1] * 64
    best[0] = 0
    for c in hand:
        m = mask_of(c)
        if m == 0:
            continue
        snapshot = [(k, v) for k, v in enumerate(best) if v >= 0 and not k & m]
        for k, v in snapshot:
            if best[k | m] < v + 1:
                best[k | m] = v + 1
    return best


def potential(ctx: Context, hand: Sequence[Card]) -> float:
    """Expected points the next draw binds with these cards: bharg sets it completes, straights it extends."""
    if not hand:
        return 0.0
    best = reach_of(hand)
    gain = 0.0
    seen_missing: set[int] = set()
    for m in range(1, 64):
        cnt = best[m]
        if cnt < 2 or m == ALL_SUITS_MASK:
            continue
        missing = ALL_SUITS_MASK ^ m
        if missing in seen_missing:
            continue
        seen_missing.add(missing)
        gain += ctx.p1[missing] * 6.0
    if ctx.suit is not None:
        gain += _straight_potential(ctx, hand)
    return gain


def _straight_potential(ctx: Context, hand: Sequence[Card]) -> float:
    suit = ctx.suit
    assert suit is not None
    held = {ctx.pos[c.rank] for c in hand if suit in c.suits and c.rank in ctx.pos}
    gain = 0.0
    for i, k in ctx.unseen.items():
        c = ctx.types[i]
        if suit not in c.suits or c.rank not in ctx.pos:
            continue
        p = ctx.pos[c.rank]
        if p in held:
            continue
        pts = 0.0
        if p in ctx.single_ok:
            pts = 2.0
        for q in held:
            pair = (p, q) if p < q else (q, p)
            if pair in ctx.pair_ok:
                pts = max(pts, 4.0)
        if (
            (p - 1 in held and p + 1 in held)
            or (p - 1 in held and p - 2 in held)
            or (p + 1 in held and p + 2 in held)
        ):
            pts = max(pts, 6.0)
        gain += pts * k / ctx.n_unseen
    return gain


def hold_value(ctx: Context, hand: Sequence[Card]) -> float:
    """What the cards kept at the end of a turn are worth: held points at risk, a little for hand size (the
    road to going out), and the next draw's expected gain. Going out is worth the bonus."""
    if not hand:
        return ctx.go_out_bonus
    key = hand_key(hand)
    cached = ctx.eval_cache.get(key)
    if cached is not None:
        return cached
    value = -ctx.end_risk * points_of(hand) - W_SIZE * len(hand) + W_POTENTIAL * potential(ctx, hand)
    ctx.eval_cache[key] = value
    return value


def _opens_straight(ctx: Context, c: Card) -> bool:
    """Anyone can bind ``c`` at once as a partial straight on today's table."""
    return (
        ctx.suit is not None
        and ctx.suit in c.suits
        and c.rank in ctx.pos
        and ctx.pos[c.rank] in ctx.single_ok
    )


def _completes_set(ctx: Context, c: Card) -> bool:
    """``c`` completes a bharg set with cards near the top of the queue (under it once discarded)."""
    top = list(ctx.view.queue[-4:])
    return bool(top) and reach_of(top)[ALL_SUITS_MASK ^ mask_of(c)] >= 2


def gift_kind(ctx: Context, c: Card) -> Gift:
    """What discarding ``c`` hands the next player, as the coach says it: an Ace goes to the Ace Pile
    (nothing to take), a card that binds at once as a partial straight or completes a bharg set on the
    queue, or little."""
    if c.rank == Rank.ACE:
        return "ace"
    if _opens_straight(ctx, c):
        return "straight"
    return "set" if _completes_set(ctx, c) else "little"


def gift_value(ctx: Context, c: Card) -> float:
    """How much discarding ``c`` onto the queue helps whoever takes it next (we can't see their hands)."""
    if c.rank == Rank.ACE:
        return 0.0
    gift = 0.25 * len(c.suits)
    if _opens_straight(ctx, c):
        gift += len(c.suits) + 1.5
    if _completes_set(ctx, c):
        gift += 4.0
    return gift


def without(hand: Sequence[Card], cs: Sequence[Card]) -> list[Card]:
    out = list(hand)
    for c in cs:
        out.remove(c)
    return out


def _ace_value(ctx: Context, rest: Sequence[Card], ace: Card) -> float:
    """Discarding an Ace makes its suit the straight suit: worth what our kept cards can then bind."""
    suit = ace.suits[0]
    if suit == ctx.suit:
        return 0.0
    melds = find_melds(rest, ctx.table, suit, ctx.opts)
    straight_pts = max((points_of(m.cards) for m in melds if m.kind != D.BHARG_SET), default=0)
    before = 0
    if ctx.suit is not None:
        before = max((points_of(m.cards) for m in melds_in(ctx, rest) if m.kind != D.BHARG_SET), default=0)
    return 0.6 * (straight_pts - before)


def best_discard(
    ctx: Context, hand: Sequence[Card], legal: set[int] | None = None
) -> tuple[float, Card | None]:
    """The discard that leaves the most valuable hand, net of what it gives the next player."""
    if not hand:
        return ctx.go_out_bonus, None
    ranked = ranked_discards(ctx, hand, legal)
    return ranked[0] if ranked else (float("-inf"), None)


def ranked_discards(
    ctx: Context, hand: Sequence[Card], legal: set[int] | None = None
) -> list[tuple[float, Card]]:
    """The discards worth weighing, best first (ties keep rank order): the value of the hand each leaves,
    net of what it gives the next player."""
    cands: dict[int, Card] = {}
    for c in sorted(hand, key=lambda c: (c.rank, c.index)):
        if legal is None or c.index in legal:
            cands.setdefault(c.index, c)
    pool = list(cands.values())
    if len(pool) > 8:  # a big hand: only the likeliest discards get the full valuation
        masks = [mask_of(c) for c in hand]

        def rough(c: Card) -> float:
            m = mask_of(c)
            partners = sum(1 for k in masks if not k & m)
            return ctx.end_risk * len(c.suits) - gift_value(ctx, c) - 0.15 * partners

        pool = sorted(pool, key=rough, reverse=True)[:8]
    out: list[tuple[float, Card]] = []
    for c in pool:
        rest = without(hand, (c,))
        v = hold_value(ctx, rest) - ctx.gift_weight * gift_value(ctx, c)
        if c.rank == Rank.ACE and rest:
            v += _ace_value(ctx, rest, c)
        out.append((v, c))
    out.sort(key=lambda vc: -vc[0])  # stable: the first of equals stays first
    return out
