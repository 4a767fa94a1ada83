"""What the Bharg Deluxe hard player knows at one decision, and what a hand is worth to it (the valuation
the levels in :mod:`bot.ai.deluxe` choose by).

A hand is valued as: points bound now, minus the points still held weighted by the chance that the hand ends
before they are bound (D9 counts them against us), plus the expected gain of the next draw (cards that would
complete a bharg set or a straight), plus a bonus for going out (D7: everyone else is caught holding cards).
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

# Weights of the hard player's hand valuation, tuned by bench/bench_ai_deluxe.py against the greedy baseline.
W_POTENTIAL = 1.5  # per expected point the next draw binds
W_SIZE = 0.35  # per card kept: a small hand is close to going out
DECK_DRAW = 0.3  # the deck's unknown card: a little worse than its odds
GO_OUT_BASE, GO_OUT_PER_CARD = 2.0, 1.7  # going out, per card an average opponent is caught holding
RISK_BASE = 0.25  # weight of a held point even far from the end of the hand
W_GIFT = 2.0  # per point a discard is likely to give whoever takes it from the queue


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
    single_ok: frozenset[int] = frozenset()  # straight positions one card can fill as a partial straight
    pair_ok: frozenset[tuple[int, int]] = frozenset()
    melds_cache: dict[tuple[int, ...], list[Meld]] = field(default_factory=dict)
    eval_cache: dict[tuple[int, ...], float] = field(default_factory=dict)
    p1: list[float] = field(default_factory=list)  # chance one draw is a card of exactly this suit mask


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
    players = sum(1 for s in range(len(view.left)) if not view.left[s])
    others = [view.hand_sizes[s] for s in range(len(view.hand_sizes)) if s != view.seat and not view.left[s]]
    end_risk = _end_risk(view, players, others)
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
    )
    _prepare_draw_odds(ctx)
    _prepare_straights(ctx)
    return ctx


HELD_POINTS_PER_CARD = 1.7  # an unseen card's average points (Aces/Crowns 1, numbers 2, extensions 3)


def _game_end(view: D.View) -> float:
    """Going out scores the hand (D9): if someone then reaches the target, the game ends. Worth a lot when we
    would be the one on top, and to be avoided when someone else would."""
    est: list[float] = []
    for s in range(len(view.scores)):
        bound = sum(len(c.suits) for m in view.bound[s] for c in m.cards)
        if s == view.seat:  # going out binds our hand but the last discard
            change = max(0.0, points_of(view.hand) - 2.0)
        else:
            change = -HELD_POINTS_PER_CARD * view.hand_sizes[s]
        est.append(-1e9 if view.left[s] else view.scores[s] + bound + change)
    if max(est) < view.target:
        return 0.0
    mine = est[view.seat]
    rival = max(v for s, v in enumerate(est) if s != view.seat)
    if mine > rival + 2:
        return 25.0
    if rival > mine:
        return -25.0
    return 0.0


def _end_risk(view: D.View, players: int, others: list[int]) -> float:
    """How likely a held card is still held when the hand ends: high near the end of the deck (D8) or when
    an opponent is nearly out (D7)."""
    rounds_deck = view.deck_count / max(1, players)
    if not view.deck_rebuilt:
        rounds_deck += max(0, len(view.queue) - 1) / max(1, players)
    smallest = min(others) if others else 10
    rounds_out = 1.0 + smallest * 1.2
    rounds = min(rounds_deck, rounds_out)
    return min(1.0, RISK_BASE + 1.5 / (1.0 + rounds))


def _prepare_draw_odds(ctx: Context) -> None:
    p1 = [0.0] * 64
    for i, k in ctx.unseen.items():
        p1[suit_mask(ctx.types[i])] += k / ctx.n_unseen
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


def _reach(hand: Sequence[Card]) -> list[int]:
    """For each suit mask, the most cards of the hand that cover exactly it with disjoint suits (-1: none)."""
    best = [-1] * 64
    best[0] = 0
    for c in hand:
        m = suit_mask(c)
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
    best = _reach(hand)
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


Gift = Literal["ace", "straight", "set", "little"]


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
    return bool(top) and _reach(top)[ALL_SUITS_MASK ^ suit_mask(c)] >= 2


def gift_kind(ctx: Context, c: Card) -> Gift:
    """What discarding ``c`` hands the next player, as the coach says it: an Ace goes to the Ace Pile
    (nothing to take), a card that binds at once as a partial straight or completes a bharg set on the
    queue, or little."""
    if c.rank == Rank.ACE:
        return "ace"
    if _opens_straight(ctx, c):
        return "straight"
    return "set" if _completes_set(ctx, c) else "little"


def _gift(ctx: Context, c: Card) -> float:
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
        masks = [suit_mask(c) for c in hand]

        def rough(c: Card) -> float:
            m = suit_mask(c)
            partners = sum(1 for k in masks if not k & m)
            return ctx.end_risk * len(c.suits) - _gift(ctx, c) - 0.15 * partners

        pool = sorted(pool, key=rough, reverse=True)[:8]
    out: list[tuple[float, Card]] = []
    for c in pool:
        rest = without(hand, (c,))
        v = hold_value(ctx, rest) - W_GIFT * _gift(ctx, c)
        if c.rank == Rank.ACE and rest:
            v += _ace_value(ctx, rest, c)
        out.append((v, c))
    out.sort(key=lambda vc: -vc[0])  # stable: the first of equals stays first
    return out


def _needs(m: Meld) -> tuple[tuple[int, int], ...]:
    return tuple(Counter(c.index for c in m.cards).items())


def packings(ctx: Context, hand: Sequence[Card], limit: int = 1500) -> list[tuple[int, list[Meld]]]:
    """Disjoint sets of bindable melds, best first by points bound. Few melds: every maximal set (capped);
    many (a big hand): greedy sets seeded with each of the best melds, which stays fast on 30-card hands."""
    melds = sorted(melds_in(ctx, hand), key=lambda m: (-points_of(m.cards), len(m.cards)))
    if not melds:
        return []
    items = [(m, _needs(m), points_of(m.cards)) for m in melds]
    have: dict[int, int] = {}
    for c in hand:
        have[c.index] = have.get(c.index, 0) + 1
    out: list[tuple[int, list[Meld]]] = []

    def fits(need: tuple[tuple[int, int], ...]) -> bool:
        return all(have.get(k, 0) >= v for k, v in need)

    def take(need: tuple[tuple[int, int], ...], sign: int) -> None:
        for k, v in need:
            have[k] -= sign * v

    if len(items) <= 14:
        chosen: list[Meld] = []
        nodes = 0

        def walk(i: int, pts: int) -> None:
            nonlocal nodes
            nodes += 1
            extended = False
            for j in range(i, len(items)):
                if nodes > limit:
                    break
                m, need, p = items[j]
                if fits(need):
                    take(need, 1)
                    chosen.append(m)
                    walk(j + 1, pts + p)
                    chosen.pop()
                    take(need, -1)
                    extended = True
            if not extended:
                out.append((pts, list(chosen)))

        walk(0, 0)
    else:
        for seed in range(min(10, len(items))):
            pack: list[Meld] = []
            pts = 0
            order = [items[seed], *items[:seed], *items[seed + 1 :]]
            for m, need, p in order:
                if fits(need):
                    take(need, 1)
                    pack.append(m)
                    pts += p
            for m in pack:
                take(_needs(m), -1)
            out.append((pts, pack))
    out.sort(key=lambda t: -t[0])
    return out


def plan(ctx: Context, hand: Sequence[Card], top: int = 4) -> tuple[float, list[Meld]]:
    """The best binding set for this hand and the value of the turn after it (bound points + kept cards)."""
    packs = packings(ctx, hand)
    if not packs or ctx.go_out_bonus < 0:  # going out would hand someone else the game: binding less may not
        packs = [*packs[: top - 1], (0, [])]
    best_v, best_p = float("-inf"), list[Meld]()
    seen: set[tuple[int, ...]] = set()
    tried = 0
    for pts, pack in packs:
        rest = without(hand, [c for m in pack for c in m.cards])
        key = hand_key(rest)
        if key in seen:
            continue
        seen.add(key)
        tried += 1
        if ctx.view.phase == D.Phase.FINAL_BIND:
            v = pts - points_of(rest) + (ctx.go_out_bonus if not rest else 0.0)
        else:
            v = pts + best_discard(ctx, rest)[0]
        if v > best_v:
            best_v, best_p = v, pack
        if tried >= top:
            break
    if not packs[0][1] and best_v == float("-inf"):
        best_v = best_discard(ctx, hand)[0]
    return best_v, best_p
