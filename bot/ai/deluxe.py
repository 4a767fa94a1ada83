"""Bharg Deluxe computer player: easy, normal, hard and expert, all deciding from one seat's ``View``.

The hard player plans one whole turn at a time. At the draw it scores every way to draw (the deck, card by
unseen card, or the top n cards of the Discard Queue) by what the new hand can bind, what is left in hand, and
the card it would then discard. While binding it picks the set of melds worth most together (melds that share
cards exclude each other), and it discards the card whose loss hurts its hand least and helps the next player
least. What a hand is worth — held points weighed by how soon the table will end the hand — is
:mod:`bot.ai.deluxe_hand`. The coach (:func:`advise`) shows this same weighing. The expert plays hard's
best few choices out to the end of the hand on sampled deals (:mod:`bot.ai.deluxe_expert`).
"""

from __future__ import annotations

import random
from collections import Counter

from bot.ai import Level, checked
from bot.ai import deluxe_expert as expert
from bot.ai.deluxe_hand import (
    DECK_DRAW,
    Advice,
    Context,
    context_of,
    gift_kind,
    hand_key,
    melds_in,
    points_of,
    ranked_discards,
    without,
)
from bot.ai.deluxe_turn import deck_value, packings, plan
from bot.rules import deluxe as D
from bot.rules.decktet import Card
from bot.rules.deluxe_melds import Meld, suit_mask

# --- the levels ------------------------------------------------------------------------------------------


def _binds(view: D.View) -> list[D.Bind]:
    return [a for a in view.legal if isinstance(a, D.Bind)]


def _discards(view: D.View) -> list[D.Discard]:
    return [a for a in view.legal if isinstance(a, D.Discard)]


def _take_options(view: D.View) -> list[D.TakeQueue]:
    return [a for a in view.legal if isinstance(a, D.TakeQueue)]


def advise(view: D.View, *, explain: bool = True) -> list[Advice]:
    """The hard player's weighing of this decision, best first: its choice is the first line by
    construction (:func:`choose` plays ``advise(view)[0]``).

    The draw: every way to draw it weighs, with what the new hand binds at once. A bind step: the melds of
    its best set (the one to bind first on top), then the discards of what that set leaves — or, in a final
    bind, Done. ``explain=False`` leaves out what only a reader needs (the deck's binds, a discard's
    gift): the computer player needs only the order."""
    if not view.legal:
        return []
    ctx = context_of(view)
    hand = list(view.hand)
    if view.phase == D.Phase.DRAW:
        return _draw_advice(ctx, hand, explain)
    out: list[Advice] = []
    binds = _binds(view)
    rest = hand
    if binds:
        _, pack = plan(ctx, hand)
        wanted = {hand_key(m.cards): m for m in pack}
        for b in binds:
            meld = wanted.pop(hand_key(b.cards), None)
            if meld is not None:
                out.append(Advice(b, points_of(b.cards), (meld,)))
        if out:
            rest = without(hand, [c for a in out for m in a.binds for c in m.cards])
    if view.phase == D.Phase.FINAL_BIND:
        return [*out, Advice(next(a for a in view.legal if isinstance(a, D.Done)), 0.0, kept=tuple(rest))]
    discards = {d.card.index: d for d in _discards(view)}
    for v, card in ranked_discards(ctx, rest, set(discards)):
        if explain:
            out.append(
                Advice(discards[card.index], v, gift=gift_kind(ctx, card), kept=tuple(without(rest, (card,))))
            )
        else:
            out.append(Advice(discards[card.index], v))
    if not out:  # no discard weighed (none legal): the first legal action, as the engine lists them
        out.append(Advice(view.legal[0], 0.0))
    return out


def _left(hand: list[Card], pack: list[Meld]) -> tuple[Card, ...]:
    return tuple(without(hand, [c for m in pack for c in m.cards]))


def unlocks(view: D.View, limit: int = 100) -> dict[int, int]:
    """For each way to take from the queue (n cards, up to ``limit``), how many more points the seat can bind
    this turn than with its hand alone: what the draw menu says each option unlocks."""
    ctx = context_of(view)
    hand = list(view.hand)

    def best(cards: list[Card]) -> int:
        packs = packings(ctx, cards, limit=300)
        return packs[0][0] if packs else 0

    base = best(hand)
    top_first = list(reversed(view.queue))
    return {n: best(hand + top_first[:n]) - base for n in range(1, min(limit, len(top_first)) + 1)}


def _binds_taken(hand: list[Card], pack: list[Meld]) -> bool:
    """The melds bind at least one card that is not from ``hand`` (so: one just taken)."""
    have = Counter(c.index for c in hand)
    have.subtract(c.index for m in pack for c in m.cards)
    return any(k < 0 for k in have.values())


def _draw_advice(ctx: Context, hand: list[Card], explain: bool) -> list[Advice]:
    """Every draw the hard player weighs, best first (ties keep the deck first, then the shallowest take): the
    deck is the odds-weighted turn each unseen card would make; taking n cards is worth the best turn the new
    hand makes. A take is weighed only if that turn binds a card it takes: a take that only swaps cards with
    the queue can go round the table for ever (each seat taking back the card the one before discarded, the
    deck never running out: D8 ends a hand only by the deck)."""
    view = ctx.view
    out: list[Advice] = []
    draw = next((a for a in view.legal if isinstance(a, D.Draw)), None)
    if draw is not None:
        value = deck_value(ctx, hand) - DECK_DRAW
        pack = plan(ctx, hand)[1] if explain else []
        out.append(Advice(draw, value, tuple(pack), kept=_left(hand, pack) if explain else ()))
    queue = view.queue
    deepest_n = max(1, min(12, 22 - len(hand)))  # a big hand is a liability: take little more
    for t in _take_options(view):
        n = t.n
        if n > deepest_n:
            break
        taken = list(reversed(queue[-n:]))
        new = hand + taken
        if n > 1 and not any(taken[-1] in m.cards for m in melds_in(ctx, new)):
            continue
        v, pack = plan(ctx, new, top=3)
        if not _binds_taken(hand, pack):
            continue
        kept = _left(new, pack) if explain else ()
        out.append(Advice(t, v, tuple(pack), taken=tuple(taken), kept=kept))
    out.sort(key=lambda a: -a.value)  # stable: of equal values the first weighed stays first
    if not out:
        out.append(Advice(view.legal[0], 0.0))
    return out


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
    if lv == "expert":
        return expert.choose(view, rng, advise(view, explain=False))
    return advise(view, explain=False)[0].action
