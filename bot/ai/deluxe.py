"""Bharg Deluxe computer player: easy, normal and hard, all deciding from one seat's ``View``.

The hard player plans one whole turn at a time. At the draw it scores every way to draw (the deck, or the top
n cards of the Discard Queue) by what the new hand can bind, what is left in hand, and the card it would then
discard. While binding it picks the set of melds worth most together (melds that share cards exclude each
other), and it discards the card whose loss hurts its hand least and helps the next player least. What a
hand is worth is :mod:`bot.ai.deluxe_hand`.
"""

from __future__ import annotations

import random

from bot.ai import Level, checked
from bot.ai.deluxe_hand import (
    DECK_DRAW,
    Context,
    best_discard,
    context_of,
    hand_key,
    hold_value,
    melds_in,
    packings,
    plan,
    points_of,
    potential,
)
from bot.rules import deluxe as D
from bot.rules.decktet import Card
from bot.rules.deluxe_melds import suit_mask

# --- the levels ------------------------------------------------------------------------------------------


def _binds(view: D.View) -> list[D.Bind]:
    return [a for a in view.legal if isinstance(a, D.Bind)]


def _discards(view: D.View) -> list[D.Discard]:
    return [a for a in view.legal if isinstance(a, D.Discard)]


def _take_options(view: D.View) -> list[D.TakeQueue]:
    return [a for a in view.legal if isinstance(a, D.TakeQueue)]


def _choose_hard(view: D.View) -> D.Action:
    ctx = context_of(view)
    hand = list(view.hand)
    if view.phase == D.Phase.DRAW:
        return _hard_draw(ctx, hand)
    binds = _binds(view)
    if binds:
        _, pack = plan(ctx, hand)
        if pack:
            wanted = {hand_key(m.cards) for m in pack}
            for b in binds:
                if hand_key(b.cards) in wanted:
                    return b
    if view.phase == D.Phase.FINAL_BIND:
        return next(a for a in view.legal if isinstance(a, D.Done))
    discards = _discards(view)
    legal = {d.card.index for d in discards}
    _, card = best_discard(ctx, hand, legal)
    for d in discards:
        if card is not None and d.card.index == card.index:
            return d
    return discards[0]


def _hard_draw(ctx: Context, hand: list[Card]) -> D.Action:
    view = ctx.view
    draw = next((a for a in view.legal if isinstance(a, D.Draw)), None)
    takes = _take_options(view)
    best_a: D.Action | None = None
    best_v = float("-inf")
    if draw is not None:
        # The deck: we keep our hand (the drawn card, or a worse one, is discarded) plus the draw's odds.
        best_v = hold_value(ctx, hand) + potential(ctx, hand) - DECK_DRAW
        best_a = draw
    queue = view.queue
    deepest_n = max(1, min(12, 22 - len(hand)))  # a big hand is a liability: take little more
    for t in takes:
        n = t.n
        if n > deepest_n:
            break
        taken = list(reversed(queue[-n:]))
        new = hand + taken
        if n > 1:
            deepest = taken[-1]
            if not any(deepest in m.cards for m in melds_in(ctx, new)):
                continue
        v, _ = plan(ctx, new, top=3)
        if v > best_v:
            best_v, best_a = v, t
    if best_a is None:
        return view.legal[0]
    return best_a


def _choose_normal(view: D.View, rng: random.Random) -> D.Action:
    """Greedy: draw what lets it bind most, bind the biggest meld, discard the card with fewest partners."""
    ctx = context_of(view)
    hand = list(view.hand)
    if view.phase == D.Phase.DRAW:
        best: D.Action = next((a for a in view.legal if isinstance(a, D.Draw)), view.legal[0])
        best_pts = 0
        for t in _take_options(view):
            if t.n > 6:
                break
            new = hand + list(view.queue[-t.n :])
            packs = packings(ctx, new, limit=300)
            pts = packs[0][0] if packs else 0
            if pts - 2 * t.n + 2 > best_pts:
                best, best_pts = t, pts - 2 * t.n + 2
        return best
    binds = _binds(view)
    if binds:
        return max(binds, key=lambda b: (points_of(b.cards), len(b.cards)))
    discards = _discards(view)
    if not discards:
        return view.legal[0]

    def partners(c: Card) -> float:
        m = suit_mask(c)
        return sum(1 for d in hand if d is not c and not suit_mask(d) & m) + rng.random() * 0.1

    return min(discards, key=lambda d: (partners(d.card), -len(d.card.suits)))


def _choose_easy(view: D.View, rng: random.Random) -> D.Action:
    """Simple habits: the deck unless the top queue card makes a meld, any meld it sees, a random discard."""
    if view.phase == D.Phase.DRAW:
        draw = next((a for a in view.legal if isinstance(a, D.Draw)), view.legal[0])
        if view.queue and any(isinstance(a, D.TakeQueue) and a.n == 1 for a in view.legal):
            ctx = context_of(view)
            if any(view.queue[-1] in m.cards for m in melds_in(ctx, [*view.hand, view.queue[-1]])):
                return D.TakeQueue(view.seat, 1)
        return draw
    binds = _binds(view)
    if binds:
        return rng.choice(binds)
    others = [a for a in view.legal if not isinstance(a, D.Bind)]
    return rng.choice(others)


def choose(view: D.View, rng: random.Random, level: Level = "hard") -> D.Action:
    """One of ``view.legal``, chosen as a player of ``level`` would."""
    lv = checked(level)
    if not view.legal:
        raise ValueError("This seat has nothing to do now.")
    if lv == "easy":
        return _choose_easy(view, rng)
    if lv == "normal":
        return _choose_normal(view, rng)
    return _choose_hard(view)
