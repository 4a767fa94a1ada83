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
# COMB[n][k] = C(n, k) for n ≤ 45, k ≤ 3 (k < 0 or k > n give 0): the opponent's hand is a random
# k-subset of the unseen.
COMB: tuple[tuple[int, ...], ...] = tuple(tuple(comb(n, k) for k in range(4)) for n in range(NCARDS + 1))
