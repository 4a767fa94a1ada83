"""Bharg Deluxe melds (D2, D5, D6): the checks, the partial-straight search and the list of bindable melds.

Kept apart from the state machine so the combinatorics can be tested and benchmarked on their own.
Searches run over *distinct* cards (the two copies of a double deck are the same card for all rules) and
over suit bitmasks, so a crowded table and a 30-card hand stay in the low milliseconds.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from bot.rules.decktet import Card, Rank, Suit, sort_key
from bot.rules.errors import Names, Phrase

MeldKind = Literal["bharg set", "complete straight", "partial straight"]  # i18n: not text
BHARG_SET: MeldKind = "bharg set"  # i18n: not text
COMPLETE: MeldKind = "complete straight"  # i18n: not text
PARTIAL: MeldKind = "partial straight"  # i18n: not text

TableUse = tuple[tuple[int, tuple[Card, ...]], ...]
# Table cards a partial straight builds on: (owner seat, cards) pairs. They stay where they are (D6).

_BIT = {s: 1 << i for i, s in enumerate(Suit)}
ALL_SUITS_MASK = (1 << len(Suit)) - 1

# Cap on the bharg sets listed by ``find_melds``. A real hand holds far fewer (a hand of every basic card has
# a few hundred); the cap only keeps a pathological hand from producing an unbounded list.
MAX_BHARG_SETS = 2000


class StraightOptions(Protocol):
    """What the meld rules need from the table options: which extended ranks exist (D6)."""

    @property
    def pawns(self) -> bool: ...

    @property
    def courts(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class Meld:
    """Bound cards in front of a player. ``used`` names the table cards a partial straight built on."""

    kind: MeldKind
    cards: tuple[Card, ...]
    used: TableUse = ()


def suit_mask(c: Card) -> int:
    mask = 0
    for s in c.suits:
        mask |= _BIT[s]
    return mask


def card_points(c: Card) -> int:
    """D2: a card is worth its number of suits (Ace/Crown 1, numbers 2, Pawn/Court 3)."""
    return len(c.suits)


def is_bharg_set(cards: Sequence[Card]) -> bool:
    """D5: three or more cards whose suits are each of the six exactly once."""
    if len(cards) < 3:
        return False
    mask = 0
    for c in cards:
        m = suit_mask(c)
        if m == 0 or mask & m or len(c.suits) != m.bit_count():
            return False
        mask |= m
    return mask == ALL_SUITS_MASK


def straight_order(*, pawns: bool = False, courts: bool = False) -> tuple[Rank, ...]:
    """D6 rank order for straights: Pawn and Court ranks exist only when their option is on."""
    order = [Rank.ACE, *(Rank(r) for r in range(2, 10))]
    if pawns:
        order.append(Rank.PAWN)
    if courts:
        order.append(Rank.COURT)
    order.append(Rank.CROWN)
    return tuple(order)


_POSITIONS: dict[tuple[bool, bool], dict[Rank, int]] = {
    (p, c): {r: i for i, r in enumerate(straight_order(pawns=p, courts=c))}
    for p in (False, True)
    for c in (False, True)
}


def positions(*, pawns: bool, courts: bool) -> dict[Rank, int]:
    return _POSITIONS[(pawns, courts)]


def is_complete_straight(
    cards: Sequence[Card], suit: Suit, *, pawns: bool = False, courts: bool = False
) -> bool:
    """D6: 3+ cards of the suit on consecutive straight ranks, one card per rank, no wrap."""
    if len(cards) < 3:
        return False
    pos = _POSITIONS[(pawns, courts)]
    ps: list[int] = []
    for c in cards:
        p = pos.get(c.rank)
        if p is None or suit not in c.suits:
            return False
        ps.append(p)
    ps.sort()
    return all(b == a + 1 for a, b in itertools.pairwise(ps))


def sort_meld(cards: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=sort_key))


# --- partial straights -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Block:
    """A bound complete straight usable only whole ("in block")."""

    owner: int
    cards: tuple[Card, ...]
    lo: int
    hi: int


@dataclass(frozen=True, slots=True)
class TablePieces:
    """The table seen from one straight suit: single usable cards by rank position, whole blocks by start."""

    singles: dict[int, tuple[int, Card]]
    blocks: dict[int, tuple[_Block, ...]]


def table_pieces(
    table: Sequence[tuple[int, Meld]], suit: Suit, pos: dict[Rank, int], *, split_blocks: bool = False
) -> TablePieces:
    """Cards of bharg sets and partial straights count one by one; complete straights only whole (D6).

    ``split_blocks`` treats complete straights as loose cards: only used to explain a refusal.
    """
    singles: dict[int, tuple[int, Card]] = {}
    blocks: dict[int, list[_Block]] = {}
    seen: set[tuple[int, int]] = set()
    for owner, meld in table:
        if meld.kind == COMPLETE and not split_blocks:
            ps = [pos.get(c.rank) for c in meld.cards]
            if any(p is None for p in ps) or not all(suit in c.suits for c in meld.cards):
                continue
            ints = sorted(p for p in ps if p is not None)
            key = (ints[0], ints[-1])
            if key in seen:
                continue
            seen.add(key)
            blocks.setdefault(ints[0], []).append(_Block(owner, meld.cards, ints[0], ints[-1]))
            continue
        for c in meld.cards:
            p = pos.get(c.rank)
            if p is not None and suit in c.suits and p not in singles:
                singles[p] = (owner, c)
    return TablePieces(singles, {k: tuple(v) for k, v in blocks.items()})


_Piece = tuple[int, tuple[Card, ...]]


def _search(new_pos: frozenset[int], pieces: TablePieces, n_pos: int) -> list[_Piece] | None:
    """Shortest (then lowest) run of 3+ positions covering the new cards, every other position filled once.

    A forward DP from each start: position p can be covered by a new card, one loose table card, or a whole
    block starting at p that holds none of the new ranks. Parents are kept to report what was used.
    """
    lo_new, hi_new = min(new_pos), max(new_pos)
    best: tuple[int, int, dict[int, tuple[int, _Piece | None]]] | None = None
    for a in range(lo_new, -1, -1):
        reach: dict[int, tuple[int, _Piece | None]] = {a: (-1, None)}
        for p in range(a, n_pos):
            if p not in reach:
                continue
            if p in new_pos:
                reach.setdefault(p + 1, (p, None))
                continue
            single = pieces.singles.get(p)
            if single is not None:
                reach.setdefault(p + 1, (p, (single[0], (single[1],))))
            for blk in pieces.blocks.get(p, ()):
                if not any(blk.lo <= q <= blk.hi for q in new_pos):
                    reach.setdefault(blk.hi + 1, (p, (blk.owner, blk.cards)))
        for q in sorted(reach):
            if q - 1 >= hi_new and q - a >= 3 and a <= lo_new:
                if best is None or (q - a, a) < (best[1] - best[0], best[0]):
                    best = (a, q, reach)
                break
    if best is None:
        return None
    a, q, reach = best
    used: list[_Piece] = []
    at = q
    while at != a:
        prev, piece = reach[at]
        if piece is not None:
            used.append(piece)
        at = prev
    used.reverse()
    return used


def _group(used: list[_Piece]) -> TableUse:
    by_owner: dict[int, list[Card]] = {}
    for owner, cs in used:
        by_owner.setdefault(owner, []).extend(cs)
    return tuple((owner, sort_meld(cs)) for owner, cs in by_owner.items())


def _new_positions(new: Sequence[Card], suit: Suit, pos: dict[Rank, int]) -> frozenset[int] | None:
    ps: set[int] = set()
    for c in new:
        p = pos.get(c.rank)
        if p is None or suit not in c.suits or p in ps:
            return None
        ps.add(p)
    return frozenset(ps)


def find_partial(
    new: Sequence[Card],
    table: Sequence[tuple[int, Meld]] | TablePieces,
    suit: Suit,
    *,
    pawns: bool = False,
    courts: bool = False,
) -> TableUse | None:
    """The table cards that make a complete straight with 1–2 new cards, or None if there is none (D6)."""
    if not 1 <= len(new) <= 2:
        return None
    pos = _POSITIONS[(pawns, courts)]
    new_pos = _new_positions(new, suit, pos)
    if new_pos is None:
        return None
    pieces = table if isinstance(table, TablePieces) else table_pieces(table, suit, pos)
    used = _search(new_pos, pieces, len(pos))
    return None if used is None else _group(used)


def partial_positions(
    table: Sequence[tuple[int, Meld]], suit: Suit, *, pawns: bool = False, courts: bool = False
) -> tuple[frozenset[int], frozenset[tuple[int, int]]]:
    """The straight positions (D6 order, Ace = 0) that one new card of the suit, or two (a pair, lower
    first), could fill as a partial straight on this table. For players weighing cards they don't hold yet."""
    pos = _POSITIONS[(pawns, courts)]
    pieces = table_pieces(table, suit, pos)
    if not pieces.singles and not pieces.blocks:
        return frozenset(), frozenset()
    n = len(pos)
    singles = frozenset(p for p in range(n) if _search(frozenset((p,)), pieces, n) is not None)
    pairs = frozenset(
        (p, q) for p in range(n) for q in range(p + 1, n) if _search(frozenset((p, q)), pieces, n) is not None
    )
    return singles, pairs


# --- explaining a refusal -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """Ranks in straight order, named in a refusal: shown joined by dashes ("Ace–2–3")."""

    ranks: tuple[Rank, ...]


def _ranks(cs: Iterable[Card], pos: dict[Rank, int]) -> Run:
    return Run(tuple(c.rank for c in sorted(cs, key=lambda c: pos.get(c.rank, 99))))


def _bharg_reason(cards: Sequence[Card]) -> Phrase:
    counts = {s: 0 for s in Suit}
    for c in cards:
        for s in c.suits:
            counts[s] += 1
    twice = tuple(s for s in Suit if counts[s] > 1)
    missing = tuple(s for s in Suit if counts[s] == 0)
    if twice:
        return Phrase("deluxe.meld.suits-twice", n=len(twice), suits=Names(twice))
    return Phrase("deluxe.meld.suits-missing", n=len(missing), suits=Names(missing))


def _straight_reason(cards: Sequence[Card], suit: Suit, pos: dict[Rank, int]) -> Phrase:
    lacking = tuple(c for c in cards if suit not in c.suits)
    if lacking:
        return Phrase("deluxe.meld.lacks-suit", n=len(lacking), cards=Names(lacking), suit=suit)
    off = tuple(c for c in cards if c.rank not in pos)
    if off:
        return Phrase("deluxe.meld.no-straight-rank", n=len(off), cards=Names(off))
    ranks = [pos[c.rank] for c in cards]
    if len(set(ranks)) != len(ranks):
        return Phrase("deluxe.meld.shared-rank")
    return Phrase("deluxe.meld.not-consecutive", ranks=_ranks(cards, pos))


def refusal(
    cards: Sequence[Card],
    table: Sequence[tuple[int, Meld]],
    suit: Suit | None,
    *,
    pawns: bool = False,
    courts: bool = False,
) -> Phrase:
    """The message saying why these cards bind as no meld (the caller has found that they don't)."""
    pos = _POSITIONS[(pawns, courts)]
    if len(cards) >= 3:
        bharg = _bharg_reason(cards)
        if suit is None:
            shared = set(cards[0].suits).intersection(*(c.suits for c in cards[1:]))
            if any(is_complete_straight(cards, s, pawns=pawns, courts=courts) for s in shared):
                return Phrase("deluxe.meld.need-ace")
            return Phrase("deluxe.meld.none-need-ace", bharg=bharg)
        return Phrase("deluxe.meld.none-both", bharg=bharg, straight=_straight_reason(cards, suit, pos))
    if suit is None:  # one or two cards bind only as a partial straight, and there is no straight yet
        return Phrase("deluxe.meld.few-no-suit", n=len(cards))
    if len(cards) == 2 and pos.get(cards[0].rank) == pos.get(cards[1].rank):
        return Phrase("deluxe.meld.none-shared-rank")
    new_pos = _new_positions(cards, suit, pos)
    if new_pos is None:
        return Phrase("deluxe.meld.none-straight", straight=_straight_reason(cards, suit, pos))
    loose = table_pieces(table, suit, pos, split_blocks=True)
    used = _search(new_pos, loose, len(pos))
    if used is not None:
        complete = [m for _, m in table if m.kind == COMPLETE]
        for _, cs in used:
            for m in complete:
                if cs[0] in m.cards:
                    part = [c for c in m.cards if any(c == u for _, us in used for u in us)]
                    if len(part) < len(m.cards) or not all(suit in c.suits for c in m.cards):
                        return Phrase(
                            "deluxe.meld.whole-straight",
                            ranks=_ranks(cards, pos),
                            table=_ranks(part, pos),
                        )
    return Phrase("deluxe.meld.none-partial", suit=suit, ranks=_ranks(cards, pos))


# --- listing -----------------------------------------------------------------------------------------------


def _distinct(hand: Iterable[Card]) -> list[Card]:
    seen: dict[int, Card] = {}
    for c in hand:
        seen.setdefault(c.index, c)
    return sorted(seen.values(), key=sort_key)


def bharg_sets(hand: Iterable[Card], limit: int = MAX_BHARG_SETS) -> list[tuple[Card, ...]]:
    """Every distinct bharg set in a hand: exact cover of the six suit bits, lowest uncovered bit first."""
    types = [(suit_mask(c), c) for c in _distinct(hand) if c.suits]
    by_bit: list[list[tuple[int, Card]]] = [[t for t in types if t[0] & (1 << b)] for b in range(len(Suit))]
    out: list[tuple[Card, ...]] = []
    chosen: list[Card] = []

    def walk(covered: int) -> None:
        if len(out) >= limit:
            return
        if covered == ALL_SUITS_MASK:
            if len(chosen) >= 3:
                out.append(sort_meld(chosen))
            return
        bit = (~covered & (covered + 1)).bit_length() - 1  # lowest suit not yet covered
        for mask, c in by_bit[bit]:
            if mask & covered == 0:
                chosen.append(c)
                walk(covered | mask)
                chosen.pop()

    walk(0)
    return out


def complete_straights(
    hand: Iterable[Card], suit: Suit, *, pawns: bool, courts: bool
) -> list[tuple[Card, ...]]:
    """Every distinct complete straight in the suit: runs of 3+ filled positions, one card type per rank."""
    pos = _POSITIONS[(pawns, courts)]
    at: list[list[Card]] = [[] for _ in pos]
    for c in _distinct(hand):
        p = pos.get(c.rank)
        if p is not None and suit in c.suits:
            at[p].append(c)
    out: list[tuple[Card, ...]] = []
    n = len(at)
    for a in range(n):
        combos: list[tuple[Card, ...]] = [()]
        for b in range(a, n):
            if not at[b]:
                break
            combos = [(*combo, c) for combo in combos for c in at[b]]
            if b - a >= 2:
                out.extend(combos)
    return out


def find_melds(
    hand: Sequence[Card],
    table: Sequence[tuple[int, Meld]],
    straight_suit: Suit | None,
    options: StraightOptions,
) -> list[Meld]:
    """Every distinct meld the hand could bind now: bharg sets, complete straights, and partial straights
    (1–2 hand cards, each with the one table combination the engine would pick)."""
    melds = [Meld(BHARG_SET, cs) for cs in bharg_sets(hand)]
    if straight_suit is None:
        return melds
    pawns, courts = options.pawns, options.courts
    melds += [
        Meld(COMPLETE, cs) for cs in complete_straights(hand, straight_suit, pawns=pawns, courts=courts)
    ]
    pos = _POSITIONS[(pawns, courts)]
    pieces = table_pieces(table, straight_suit, pos)
    if not pieces.singles and not pieces.blocks:
        return melds
    suited = [c for c in _distinct(hand) if straight_suit in c.suits and c.rank in pos]
    candidates: list[tuple[Card, ...]] = [(c,) for c in suited]
    candidates += [
        (c, d) for i, c in enumerate(suited) for d in suited[i + 1 :] if pos[c.rank] != pos[d.rank]
    ]
    for cs in candidates:
        used = _search(frozenset(pos[c.rank] for c in cs), pieces, len(pos))
        if used is not None:
            melds.append(Meld(PARTIAL, cs, _group(used)))
    return melds
