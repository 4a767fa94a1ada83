"""The Bharg Deluxe hard player's whole turn: the sets of melds a hand can bind (``packings``), the best
turn a hand makes once bound and discarded from (``plan``), and what a draw from the deck is worth
(``deck_value``), all on the valuation of :mod:`bot.ai.deluxe_hand`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bot.ai.deluxe_hand import (
    DECK_FULL,
    Context,
    best_discard,
    gift_value,
    hand_key,
    hold_value,
    mask_of,
    melds_in,
    points_of,
    reach_of,
    without,
)
from bot.rules import deluxe as D
from bot.rules.decktet import Card
from bot.rules.deluxe_melds import ALL_SUITS_MASK, Meld

Need = tuple[tuple[int, int], ...]  # (card index, copies) a meld takes from the hand
Packable = tuple[Meld, Need, int]  # a meld, the cards it takes, its points


def _needs(m: Meld) -> Need:
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
    out = _every_packing(items, have, limit) if len(items) <= 14 else _greedy_packings(items, have)
    out.sort(key=lambda t: -t[0])
    return out


def _fits(have: dict[int, int], need: Need) -> bool:
    return all(have.get(k, 0) >= v for k, v in need)


def _take(have: dict[int, int], need: Need, sign: int) -> None:
    """Take a meld's cards from ``have`` (``sign`` -1: put them back)."""
    for k, v in need:
        have[k] -= sign * v


def _every_packing(
    items: Sequence[Packable], have: dict[int, int], limit: int
) -> list[tuple[int, list[Meld]]]:
    """Every maximal set of disjoint melds with its points, in search order; the search stops after
    ``limit`` nodes. ``have`` is left as it was found."""
    out: list[tuple[int, list[Meld]]] = []
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
            if _fits(have, need):
                _take(have, need, 1)
                chosen.append(m)
                walk(j + 1, pts + p)
                chosen.pop()
                _take(have, need, -1)
                extended = True
        if not extended:
            out.append((pts, list(chosen)))

    walk(0, 0)
    return out


def _greedy_packings(items: Sequence[Packable], have: dict[int, int]) -> list[tuple[int, list[Meld]]]:
    """A greedy set for each of the ten best melds as its seed: the seed first, then every meld that still
    fits, best first. ``have`` is left as it was found."""
    out: list[tuple[int, list[Meld]]] = []
    for seed in range(min(10, len(items))):
        pack: list[Meld] = []
        pts = 0
        order = [items[seed], *items[:seed], *items[seed + 1 :]]
        for m, need, p in order:
            if _fits(have, need):
                _take(have, need, 1)
                pack.append(m)
                pts += p
        for m in pack:
            _take(have, _needs(m), -1)
        out.append((pts, pack))
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


def _joins(ctx: Context, reach: list[int], held: set[int], c: Card) -> bool:
    """``c`` drawn would be part of some meld with this hand: a bharg set, or a straight in the suit."""
    if reach[ALL_SUITS_MASK ^ mask_of(c)] >= 2:
        return True
    if ctx.suit is None or ctx.suit not in c.suits or c.rank not in ctx.pos:
        return False
    p = ctx.pos[c.rank]
    if p in ctx.single_ok:
        return True
    if any(((p, q) if p < q else (q, p)) in ctx.pair_ok for q in held):
        return True
    return (p - 1 in held and (p + 1 in held or p - 2 in held)) or (p + 1 in held and p + 2 in held)


def deck_value(ctx: Context, hand: Sequence[Card]) -> float:
    """What drawing from the deck is worth: the turn each unseen card would make, weighted by its odds. A
    card that melds with nothing is discarded again (the hand's own best turn, minus what it gifts); the
    likeliest cards that meld get the full turn, the rarer ones the average of those."""
    pack_pts, pack = 0, list[Meld]()
    packs = packings(ctx, hand)
    if packs:
        pack_pts, pack = packs[0]
    rest = without(hand, [c for m in pack for c in m.cards])
    base = pack_pts + hold_value(ctx, rest)
    reach = reach_of(hand)
    held = {
        ctx.pos[c.rank] for c in hand if ctx.suit is not None and ctx.suit in c.suits and c.rank in ctx.pos
    }
    total, joined = 0.0, list[tuple[int, Card]]()
    for i, k in ctx.unseen.items():
        c = ctx.types[i]
        if _joins(ctx, reach, held, c):
            joined.append((k, c))
        else:
            total += k * (base - ctx.gift_weight * gift_value(ctx, c))
    joined.sort(key=lambda kc: (-kc[0], kc[1].index))
    budget = min(14, DECK_FULL // max(1, len(hand)))  # a big hand: fewer, each dearer to weigh
    budget = 0 if budget < 5 else budget  # a huge hand has melds enough: a draw's card is a detail
    values = [(k, plan(ctx, [*hand, c], top=2)[0]) for k, c in joined[:budget]]
    weighed = sum(k for k, _ in values)
    mean = sum(k * v for k, v in values) / weighed if weighed else base
    total += sum(k * v for k, v in values) + mean * sum(k for k, _ in joined[budget:])
    return total / ctx.n_unseen
