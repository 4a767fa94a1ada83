"""Bhargage card tables for the computer player, by ``Card.index``: a hard decision must take about a
millisecond in pure Python, so cards are small integers and their facts are looked up in tuples."""

from __future__ import annotations

from math import comb

from bot.rules.decktet import ALL_CARDS, Suit

_SUIT_BIT = {s: 1 << i for i, s in enumerate(Suit)}
VAL: tuple[int, ...] = tuple(c.value for c in ALL_CARDS)
RANK: tuple[int, ...] = tuple(int(c.rank) for c in ALL_CARDS)
MASK: tuple[int, ...] = tuple(sum(_SUIT_BIT[s] for s in c.suits) for c in ALL_CARDS)
PERS: tuple[bool, ...] = tuple(c.personality for c in ALL_CARDS)
NCARDS = len(ALL_CARDS)
POP: tuple[int, ...] = tuple(m.bit_count() for m in range(64))
SHORT: tuple[int, ...] = tuple((6 - p) * (7 - p) // 2 for p in POP)  # R10 shortage by present-suit mask
LIMIT = 23
# COMB[n][k] = C(n, k) for n ≤ 45, k ≤ 3 (k < 0 or k > n give 0): the bhargage's unknown cards are a random
# k-subset of the unseen.
COMB: tuple[tuple[int, ...], ...] = tuple(tuple(comb(n, k) for k in range(4)) for n in range(NCARDS + 1))
# KEPT[dealer][card]: how often the hard discard keeps the card when it is dealt it, as non-dealer (0) and as
# dealer (1), in percent, measured over 12,000 random deals. In the play the opponent's hand is weighted by
# it: a non-dealer almost never keeps the Excuse, a dealer seldom keeps an Ace.
_KEPT_PERCENT = (
    (
        "85 83 84 83 82 86 60 52 59 50 61 57 55 57 53 47 48 56 50 53 50 48 44 47 54 46 46 45 42 49 69 68 "
        "63 58 60 64 74 83 72 69 71 68 81 65 3"
    ),
    (
        "40 37 39 39 41 37 64 59 60 61 70 68 59 66 61 65 64 70 72 71 66 67 65 65 72 68 66 61 66 72 53 56 "
        "48 46 47 47 72 70 64 63 72 61 63 66 56"
    ),
)
KEPT: tuple[tuple[float, ...], ...] = tuple(tuple(int(x) / 100 for x in row.split()) for row in _KEPT_PERCENT)
