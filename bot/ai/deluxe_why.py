"""Why the Bharg Deluxe coach says what it says: what a discard risks with the next player, why the first
discard is first, and the race when going out would end the game.

A discard's risk weighs what the next player may hold: the cards this seat has not seen (less those others
took from the Discard Queue in sight of everyone), the cards the next player took that way, the queue under
the discard, and the card it passed over at its last draw. It is "none" only when no card it could hold
binds the discard — a proof, never a guess; otherwise it says how the card binds and how likely that is.

The hint's order is the hard player's (:func:`bot.ai.deluxe.advise`); nothing here changes it. No words
either: :mod:`bot.render.deluxe_coach` says these facts in the player's language.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.ai.deluxe import unlocks
from bot.ai.deluxe_hand import (
    W_POTENTIAL,
    Advice,
    Context,
    _ace_value,
    context_of,
    end_estimates,
    gift_value,
    mask_of,
    next_seat,
    points_of,
    potential,
    reach_of,
    without,
)
from bot.ai.deluxe_turn import _joins
from bot.rules import deluxe as D
from bot.rules.decktet import Card, Rank, Suit
from bot.rules.deluxe_melds import ALL_SUITS_MASK, Meld, partial_positions

SAMPLES = 240  # hands drawn for the next player: the chance is good to a few percent, in a few milliseconds

Risk = Literal["ace", "straight", "queue", "known", "chance", "none"]
Reason = Literal["points", "potential", "gift", "ace", "even"]
EVEN = 0.05  # a first discard ahead of the second by less than this is worth about the same


@dataclass(frozen=True, slots=True)
class Safety:
    """What discarding a card risks with the next player (``seat``).

    ``ace``: it goes to the Ace Pile. ``straight``: anyone binds it alone as a partial straight. ``queue``:
    it binds with ``cards`` under it on the Discard Queue; ``known``: with ``cards`` the next player took
    from the queue (and the queue). ``chance``: nothing in sight binds it; the next player does with the
    chance ``chance``, most often with cards like ``cards`` (``passed``: the card it passed over, which the
    same cards bind, made that less likely). ``none``: no card it could hold binds it. ``straight_meld``:
    ``cards`` bind it in a straight of ``suit`` (else a bharg set)."""

    kind: Risk
    seat: int
    cards: tuple[Card, ...] = ()
    straight_meld: bool = False
    chance: float = 0.0
    passed: Card | None = None
    suit: Suit | None = None  # the straight suit, when ``cards`` bind it in a straight


@dataclass(frozen=True, slots=True)
class DiscardWhy:
    """Why the first discard is first against the second (``other``): the part of the hard player's value
    where it gains most — it sheds more points (``points``), the other would break up ``keeps``, cards a draw
    of suits ``need`` would complete (``potential``), it hands the next player less (``gift``), as an Ace it
    makes a straight suit that suits the hand (``ace``) — or nowhere by much (``even``)."""

    reason: Reason
    other: Card
    keeps: tuple[Card, ...] = ()
    need: int = 0


@dataclass(frozen=True, slots=True)
class Race:
    """Going out now would end the game (someone would reach the target): this seat's total and the best
    rival's then (``rival`` its seat), as the hard player estimates them."""

    mine: int
    their: int
    rival: int


class _Binder:
    """Which cards bind a card on one table: a bharg set, or a straight in the straight suit."""

    def __init__(self, ctx: Context, planned: Sequence[Meld]) -> None:
        self.suit = ctx.suit
        self.pos = ctx.pos
        self.single, self.pairs = ctx.single_ok, ctx.pair_ok
        if planned and ctx.suit is not None:  # our own binds first grow the table the next player builds on
            table = [*ctx.table, *((ctx.view.seat, m) for m in planned)]
            self.single, self.pairs = partial_positions(
                table, ctx.suit, pawns=ctx.opts.pawns, courts=ctx.opts.courts
            )

    def alone(self, c: Card) -> bool:
        """Anyone binds ``c`` alone as a partial straight."""
        return (
            self.suit is not None
            and self.suit in c.suits
            and c.rank in self.pos
            and self.pos[c.rank] in self.single
        )

    def relevant(self, c: Card, d: Card) -> bool:
        """``d`` could be part of a meld with ``c``."""
        if not mask_of(d) & mask_of(c):
            return True
        return self.suit is not None and self.suit in c.suits and self.suit in d.suits and d.rank in self.pos

    def binding(self, c: Card, cards: Sequence[Card]) -> tuple[tuple[Card, ...], bool] | None:
        """Cards among ``cards`` that bind with ``c`` (a bharg set's others, or a straight's), and whether it
        is a straight; None when none do."""
        cover = _cover(ALL_SUITS_MASK ^ mask_of(c), cards)
        if cover is not None:
            return cover, False
        suit = self.suit
        if suit is None or suit not in c.suits or c.rank not in self.pos:
            return None
        p = self.pos[c.rank]
        held = {self.pos[d.rank]: d for d in cards if suit in d.suits and d.rank in self.pos}
        held.pop(p, None)
        for q, d in sorted(held.items()):
            if (min(p, q), max(p, q)) in self.pairs:
                return (d,), True
        for a, b in ((p - 2, p - 1), (p - 1, p + 1), (p + 1, p + 2)):
            if a in held and b in held:
                return (held[a], held[b]), True
        return None


def _cover(need: int, cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """Two or more of ``cards`` whose suits are exactly ``need``, each suit once (with the discard: a bharg
    set), or None."""
    types = {mask_of(c): c for c in cards if mask_of(c) and not mask_of(c) & ~need}
    chosen: list[Card] = []

    def walk(left: int) -> tuple[Card, ...] | None:
        if not left:
            return tuple(chosen) if len(chosen) >= 2 else None
        bit = left & -left
        for m, c in types.items():
            if m & bit and not m & ~left:
                chosen.append(c)
                found = walk(left ^ m)
                chosen.pop()
                if found is not None:
                    return found
        return None

    return walk(need)


def _known(view: D.View, seat: int) -> tuple[Card, ...]:
    return view.taken[seat] if seat < len(view.taken) else ()


def _pool(ctx: Context) -> list[Card]:
    """The cards another seat may hold: every copy unseen, less those others took in sight of everyone."""
    left = Counter(ctx.unseen)
    for s in range(len(ctx.view.hand_sizes)):
        if s != ctx.view.seat:
            left.subtract(c.index for c in _known(ctx.view, s))
    return [ctx.types[i] for i, k in sorted(left.items()) for _ in range(max(0, k))]


def discard_safety(ctx: Context, c: Card, planned: Sequence[Meld] = ()) -> Safety:
    """What discarding ``c`` (after binding ``planned``) risks with the next player."""
    view = ctx.view
    seat = next_seat(view)
    if c.rank == Rank.ACE:
        return Safety("ace", seat)
    binder = _Binder(ctx, planned)
    if binder.alone(c):
        return Safety("straight", seat, straight_meld=True)
    queue = list(view.queue)
    found = binder.binding(c, queue)
    if found is not None:
        return Safety("queue", seat, found[0], found[1], suit=binder.suit)
    known = list(_known(view, seat))
    found = binder.binding(c, [*known, *queue])
    if found is not None:
        return Safety("known", seat, found[0], found[1], suit=binder.suit)
    unseen = _pool(ctx)
    pool = [d for d in unseen if binder.relevant(c, d)]
    unknown = view.hand_sizes[seat] - len(known)
    if unknown <= 0 or binder.binding(c, [*pool, *known, *queue]) is None:
        return Safety("none", seat)
    return _chance(ctx, binder, c, seat, [*known, *queue], pool, len(unseen), unknown)


def _chance(
    ctx: Context,
    binder: _Binder,
    c: Card,
    seat: int,
    sure: list[Card],
    pool: list[Card],
    everyone: int,
    unknown: int,
) -> Safety:
    """The chance the next player's unknown cards bind ``c``, over hands drawn from the unseen cards (a fixed
    seed: the same hint every time). A card it passed over at its last draw that the same cards bind makes
    those hands less likely: a hand that held them before its draw (all but one of its cards) is drawn
    again, unless that leaves too few hands to tell."""
    view = ctx.view
    passed = view.passed[seat][0] if seat < len(view.passed) and view.passed[seat] else None
    if passed is not None and mask_of(passed) != mask_of(c):
        passed = None
    if passed is not None:
        found = _draws(binder, c, sure, pool, everyone, unknown, passed)
        if found[1] >= SAMPLES // 5:
            return _safety(seat, found, passed, binder)
    return _safety(seat, _draws(binder, c, sure, pool, everyone, unknown, None), None, binder)


_Draws = tuple[int, int, Counter[tuple[int, ...]], dict[tuple[int, ...], tuple[tuple[Card, ...], bool]]]


def _draws(
    binder: _Binder,
    c: Card,
    sure: list[Card],
    pool: list[Card],
    everyone: int,
    unknown: int,
    passed: Card | None,
) -> _Draws:
    """Hands drawn for the next player: how many bind ``c``, of how many kept, and the cards they bind it
    with. ``pool`` is the relevant part of the ``everyone`` cards it may hold (only those can bind)."""
    rng = random.Random(c.index)
    hits = kept = 0
    covers: Counter[tuple[int, ...]] = Counter()
    example: dict[tuple[int, ...], tuple[tuple[Card, ...], bool]] = {}
    for _ in range(SAMPLES):
        picked = rng.sample(range(everyone), min(unknown, everyone))
        drawn = [pool[i] for i in picked if i < len(pool)]
        if passed is not None:
            before = [pool[i] for i in picked[1:] if i < len(pool)]  # the first: the card drawn since
            if binder.binding(passed, [*before, *sure]) is not None:
                continue
        kept += 1
        found = binder.binding(c, [*drawn, *sure])
        if found is not None:
            hits += 1
            key = tuple(sorted(d.index for d in found[0]))
            covers[key] += 1
            example.setdefault(key, found)
    return hits, kept, covers, example


def _safety(seat: int, draws: _Draws, passed: Card | None, binder: _Binder) -> Safety:
    hits, kept, covers, example = draws
    cards, straight = example[covers.most_common(1)[0][0]] if covers else ((), False)
    return Safety("chance", seat, cards, straight, hits / max(1, kept), passed, binder.suit)


def discard_why(ctx: Context, rest: Sequence[Card], first: Card, second: Card) -> DiscardWhy:
    """Why discarding ``first`` from ``rest`` is worth more to the hard player than discarding ``second``:
    the part of its value (:func:`bot.ai.deluxe_hand.ranked_discards`) where it gains most."""
    kept_a, kept_b = without(rest, (first,)), without(rest, (second,))
    gains: dict[Reason, float] = {
        "points": ctx.end_risk * (points_of((first,)) - points_of((second,))),
        "potential": W_POTENTIAL * (potential(ctx, kept_a) - potential(ctx, kept_b)),
        "gift": -ctx.gift_weight * (gift_value(ctx, first) - gift_value(ctx, second)),
        "ace": (_ace_value(ctx, kept_a, first) if first.rank == Rank.ACE and kept_a else 0.0)
        - (_ace_value(ctx, kept_b, second) if second.rank == Rank.ACE and kept_b else 0.0),
    }
    reason = max(gains, key=lambda r: gains[r])
    if gains[reason] < EVEN:
        return DiscardWhy("even", second)
    if reason != "potential":
        return DiscardWhy(reason, second)
    keeps, need = _partial_with(ctx, kept_a, second)
    return DiscardWhy("potential", second, keeps, need)


def _partial_with(ctx: Context, hand: Sequence[Card], card: Card) -> tuple[tuple[Card, ...], int]:
    """The likeliest half-built bharg set in ``hand`` that holds ``card``: its cards and the suits a draw
    would need to complete it (0 when ``card`` is in none)."""
    best: tuple[float, tuple[Card, ...], int] = (0.0, (card,), 0)
    others = [d for d in hand if d is not card and not mask_of(d) & mask_of(card)]

    def walk(i: int, cards: tuple[Card, ...], mask: int) -> None:
        nonlocal best
        if len(cards) >= 2:
            need = ALL_SUITS_MASK ^ mask
            chance = ctx.p1[need] if need else 0.0
            if chance > best[0]:
                best = (chance, cards, need)
        for j in range(i, len(others)):
            m = mask_of(others[j])
            if not m & mask:
                walk(j + 1, (*cards, others[j]), mask | m)

    walk(0, (card,), mask_of(card))
    return best[1], best[2]


def race_of(view: D.View) -> Race | None:
    """The race, when going out now would end the game (someone would reach the target)."""
    est = end_estimates(view)
    if len(est) < 2 or max(est) < view.target:
        return None
    rival = max((s for s in range(len(est)) if s != view.seat), key=lambda s: est[s])
    return Race(round(est[view.seat]), round(est[rival]), rival)


@dataclass(frozen=True, slots=True)
class Explained:
    """Everything one Deluxe hint names besides the options themselves: the seat and the next seat to play,
    the cards left once the advised melds are bound, each advised discard's risk (by card
    index), why the first discard beats the second, each take's gain as the draw menu says it (points it
    lets the seat bind this turn beyond its hand alone), the chance the deck's card melds with the hand, and
    the race."""

    seat: int
    next: int
    left: int
    safety: dict[int, Safety]
    first: DiscardWhy | None
    unlocks: dict[int, int]
    deck_chance: float
    race: Race | None


def deck_chance(ctx: Context, hand: Sequence[Card]) -> float:
    """The chance the deck's top card melds with this hand (the hard player's own test of a drawn card)."""
    reach = reach_of(hand)
    held = {
        ctx.pos[c.rank] for c in hand if ctx.suit is not None and ctx.suit in c.suits and c.rank in ctx.pos
    }
    joined = sum(k for i, k in ctx.unseen.items() if _joins(ctx, reach, held, ctx.types[i]))
    return joined / ctx.n_unseen


def explain(view: D.View, advice: Sequence[Advice], unlock_limit: int = 100) -> Explained:
    """The facts behind one decision's advice (its order is the hard player's and stays so)."""
    ctx = context_of(view)
    planned = [m for a in advice if isinstance(a.action, D.Bind) for m in a.binds]
    discards = [a for a in advice if isinstance(a.action, D.Discard)]
    safety = {
        a.action.card.index: discard_safety(ctx, a.action.card, planned)
        for a in discards
        if isinstance(a.action, D.Discard)
    }
    first: DiscardWhy | None = None
    if len(discards) >= 2:
        a, b = discards[0].action, discards[1].action
        assert isinstance(a, D.Discard) and isinstance(b, D.Discard)
        first = discard_why(ctx, [*discards[0].kept, a.card], a.card, b.card)
    drawing = view.phase == D.Phase.DRAW
    return Explained(
        seat=view.seat,
        next=next_seat(view),
        left=len(view.hand) - sum(len(m.cards) for m in planned),
        safety=safety,
        first=first,
        unlocks=unlocks(view, limit=unlock_limit) if drawing and view.queue else {},
        deck_chance=deck_chance(ctx, view.hand) if drawing else 0.0,
        race=race_of(view),
    )
