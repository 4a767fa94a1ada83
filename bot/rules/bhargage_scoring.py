"""Bhargage scoring: the show (R9, R12), shortage (R10) and pegging in the play (R8, R12).

Everything works on small integer tables indexed by ``Card.index`` (value, rank, 6-bit suit mask), because
the show is counted for every hand of every game and random-game simulations call it very often.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from bot.rules.decktet import ALL_CARDS, Card, Suit

_SUIT_ORDER: tuple[Suit, ...] = tuple(Suit)
_SUIT_BIT: dict[Suit, int] = {s: 1 << i for i, s in enumerate(_SUIT_ORDER)}
FULL_MASK = (1 << len(_SUIT_ORDER)) - 1  # all six suits

_VAL: tuple[int, ...] = tuple(c.value for c in ALL_CARDS)
_RANK: tuple[int, ...] = tuple(int(c.rank) for c in ALL_CARDS)
_MASK: tuple[int, ...] = tuple(sum(_SUIT_BIT[s] for s in c.suits) for c in ALL_CARDS)
_NSUITS: tuple[int, ...] = tuple(len(c.suits) for c in ALL_CARDS)
_PERS: tuple[bool, ...] = tuple(c.personality for c in ALL_CARDS)

# Each call's English words are its identity in events, logs and tests; bot.render.bhargage.call_text words it
# for players in their language.
SET_REASONS: dict[int, str] = {
    2: "2 for a pair",
    3: "6 for three",  # i18n: not text
    4: "12 for four",  # i18n: not text
    5: "20 for five",  # i18n: not text
}
ELEVEN = "11 for 2"
TWENTY_THREE = "23 for 3"
BHARG = "6 for bharg"  # i18n: not text
FRIEND = "1 for the Chief's Friend"  # i18n: not text
GAME = "Game!"


def set_points(n: int) -> int:
    """Points for n cards of one rank: every pair scores 2, so n(n-1) (R8/R9: 2, 6, 12, 20)."""
    return n * (n - 1)


def run_reason(length: int) -> str:
    return f"{length} for a run"  # i18n: not text (the call's identity; see SET_REASONS)


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One scoring combination, worded as announced at the table (R13)."""

    reason: str
    points: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class HandCount:
    """The result of counting a hand or the bhargage in the show."""

    total: int
    items: tuple[ScoreItem, ...]


def _subset_table(n: int) -> tuple[tuple[int, int, int, int], ...]:
    """(mask, mask without its lowest card, index of that card, size) for every non-empty subset of n cards.

    Ordered so that each mask's predecessor comes first: the show is one pass of O(1) updates per subset.
    """
    rows = []
    for m in range(1, 1 << n):
        low = m & -m
        rows.append((m, m ^ low, low.bit_length() - 1, m.bit_count()))
    return tuple(rows)


_SUBSETS: dict[int, tuple[tuple[int, int, int, int], ...]] = {n: _subset_table(n) for n in range(1, 7)}


def _members(cards: Sequence[Card], mask: int) -> tuple[Card, ...]:
    return tuple(c for i, c in enumerate(cards) if mask >> i & 1)


def count_hand(
    cards: Sequence[Card], up: Card, *, bhargage: bool = False, sequences: bool = False
) -> HandCount:
    """Count 3 kept cards (or the 4 bhargage cards) with the up-card, as in the show (R9, R12)."""
    allc = (*cards, up)
    n = len(allc)
    vals = [_VAL[c.index] for c in allc]
    masks = [_MASK[c.index] for c in allc]
    nsuits = [_NSUITS[c.index] for c in allc]
    size = 1 << n
    sums = [0] * size
    ors = [0] * size
    bits = [0] * size
    elevens: list[int] = []
    bhargs: list[int] = []
    for m, prev, i, k in _SUBSETS[n]:
        s = sums[prev] + vals[i]
        o = ors[prev] | masks[i]
        b = bits[prev] + nsuits[i]
        sums[m] = s
        ors[m] = o
        bits[m] = b
        if s == 11:
            elevens.append(m)
        # Each of the six suits exactly once: all six present and no suit counted twice.
        if o == FULL_MASK and b == 6 and k >= 2:
            bhargs.append(m)

    items: list[ScoreItem] = [ScoreItem(ELEVEN, 2, _members(allc, m)) for m in elevens]

    by_rank: dict[int, list[Card]] = {}
    for c in allc:
        by_rank.setdefault(_RANK[c.index], []).append(c)
    for group in by_rank.values():
        if len(group) >= 2:
            items.append(ScoreItem(SET_REASONS[len(group)], set_points(len(group)), tuple(group)))

    items.extend(ScoreItem(BHARG, 6, _members(allc, m)) for m in bhargs)

    if sequences:
        items.extend(_show_runs(by_rank))

    if not bhargage and up.personality:
        items.extend(ScoreItem(FRIEND, 1, (c,)) for c in cards if _PERS[c.index])

    return HandCount(sum(it.points for it in items), tuple(items))


def _show_runs(by_rank: dict[int, list[Card]]) -> list[ScoreItem]:
    """Every distinct run of the longest length ≥ 3 (R12): duplicate ranks make double and triple runs."""
    ranks = sorted(by_rank)
    segments: list[list[int]] = []
    current: list[int] = []
    for r in ranks:
        if current and r == current[-1] + 1:
            current.append(r)
        else:
            current = [r]
            segments.append(current)
    longest = max((len(seg) for seg in segments), default=0)
    if longest < 3:
        return []
    out: list[ScoreItem] = []
    for seg in segments:
        if len(seg) == longest:
            for combo in itertools.product(*(by_rank[r] for r in seg)):
                out.append(ScoreItem(run_reason(longest), longest, combo))
    return out


def missing_suits(cards: Sequence[Card]) -> tuple[Suit, ...]:
    """The suits none of these cards carries, in suit order."""
    present = 0
    for c in cards:
        present |= _MASK[c.index]
    return tuple(s for s in _SUIT_ORDER if not present & _SUIT_BIT[s])


def shortage_for(missing: int) -> int:
    """R10: n missing suits score n(n+1)/2 for the opponent."""
    return missing * (missing + 1) // 2


def shortage(cards: Sequence[Card]) -> int:
    """Points the opponent claims for a counted hand or bhargage (the up-card included in ``cards``)."""
    present = 0
    for c in cards:
        present |= _MASK[c.index]
    return shortage_for(6 - present.bit_count())


def peg_points(pile: Sequence[Card], *, sequences: bool = False) -> list[ScoreItem]:
    """What the last card of ``pile`` scores in the play (R8, R12); "1 for last" is the engine's business."""
    if not pile:
        return []
    items: list[ScoreItem] = []
    total = 0
    for c in pile:
        total += _VAL[c.index]
    if total == 11:
        items.append(ScoreItem(ELEVEN, 2, tuple(pile)))
    elif total == 23:
        items.append(ScoreItem(TWENTY_THREE, 3, tuple(pile)))

    n = len(pile)
    last_rank = _RANK[pile[-1].index]
    same = 1
    while same < n and _RANK[pile[n - 1 - same].index] == last_rank:
        same += 1
    if same >= 6:
        items.append(ScoreItem(GAME, 0, tuple(pile[n - same :])))
    elif same >= 2:
        items.append(ScoreItem(SET_REASONS[same], set_points(same), tuple(pile[n - same :])))

    # Bharg: the shortest tail carrying each suit exactly once; scored once even if a longer tail also does.
    seen = 0
    for k in range(1, n + 1):
        m = _MASK[pile[n - k].index]
        if seen & m:
            break
        seen |= m
        if seen == FULL_MASK:
            items.append(ScoreItem(BHARG, 6, tuple(pile[n - k :])))
            break

    if sequences:
        best = play_run(tuple(_RANK[c.index] for c in pile))
        if best:
            items.append(ScoreItem(run_reason(best), best, tuple(pile[n - best :])))
    return items


def play_run(ranks: Sequence[int]) -> int:
    """R12 in the play: the longest k ≥ 3 such that the last k ranks played are distinct and consecutive
    (0 for none)."""
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


def card_value(c: Card) -> int:
    return _VAL[c.index]
