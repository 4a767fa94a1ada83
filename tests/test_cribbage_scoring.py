"""Classic Cribbage scoring (RULES.md C1, C4, C5): the rule text's own examples, the classic hands, and the
fast counts against slow counts written here from the rules' words (every subset of the five cards)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest

from bot.rules.cribbage_scoring import (
    count_show,
    peg_items,
    play_points,
    show_points,
    show_total,
)
from bot.rules.errors import UnknownCard
from bot.rules.pack52 import FULL_PACK, RANK_CHARS, Card, Suit, card, cards, sort_key

CODES = [c.code for c in FULL_PACK]


# ---------------------------------------------------------------- the pack (C1)


def test_the_pack_has_52_distinct_cards_with_their_codes_and_values() -> None:
    assert len(FULL_PACK) == len(set(FULL_PACK)) == 52
    assert len(set(CODES)) == 52
    assert all(card(c.code) is c for c in FULL_PACK)
    assert [c.index for c in FULL_PACK] == list(range(52))
    assert card("AS") == Card(1, Suit.SPADES) and card("AS").value == 1
    assert card("TC") == Card(10, Suit.CLUBS) and card("TC").value == 10
    assert [card(f"{r}D").value for r in "JQK"] == [10, 10, 10]
    assert card("KD").rank == 13 and str(card("KD")) == "KD"
    assert sorted(cards("KD 2S 2C AH 2H"), key=sort_key) == list(cards("AH 2S 2H 2C KD"))
    assert {card("5H"): 1}[Card(5, Suit.HEARTS)] == 1  # a dict key by value


@pytest.mark.parametrize(
    ("text", "hint"), [("5h", ("5H",)), ("10H", ("TH",)), (" ts ", ("TS",)), ("XX", ()), ("5", ()), ("", ())]
)
def test_card_codes_are_strict(text: str, hint: tuple[str, ...]) -> None:
    with pytest.raises(UnknownCard) as err:
        card(text)
    assert err.value.suggestions == hint


def test_a_card_outside_the_pack_cannot_be_made() -> None:
    for rank, suit in ((0, Suit.SPADES), (14, Suit.SPADES), (True, Suit.SPADES), (5, "H")):
        with pytest.raises(ValueError):
            Card(rank, suit)  # type: ignore[arg-type]


# ---------------------------------------------------------------- the show: classic hands and C5


def items_of(hand: str, starter: str, crib: bool = False) -> list[tuple[str, int]]:
    return sorted((it.kind, it.points) for it in count_show(cards(hand), card(starter), crib))


@pytest.mark.parametrize(
    ("hand", "starter", "points"),
    [
        ("5H 5S 5C JD", "5D", 29),  # three 5s and the Jack, the 5 of the Jack's suit turned: the best hand
        ("5H 5S 5C 5D", "TD", 28),  # four 5s and a ten-card
        ("5H 5S 5C 5D", "KD", 28),
        ("4H 4S 5C 5D", "6D", 24),  # 4-4-5-5-6
        ("4H 5S 5C 6D", "4D", 24),  # the same ranks, whichever is the starter
        ("2H 4S 6C 8D", "TD", 0),  # "19": nothing
        ("7H 7S 8C JD", "KD", 7),  # "Fifteen 2, fifteen 4, 2 for me pair of Sevens and 1 for his nob"
    ],
)
def test_classic_hands(hand: str, starter: str, points: int) -> None:
    assert show_points(hand.split(), starter, False) == points
    assert sum(p for _, p in items_of(hand, starter)) == points


def test_the_29_hand_itemized() -> None:
    got = items_of("5H 5S 5C JD", "5D")
    assert got == sorted([("fifteen", 2)] * 8 + [("double-pair-royal", 12), ("nobs", 1)])


def test_the_19_hand_scores_nothing_at_all() -> None:
    assert count_show(cards("2H 4S 6C 8D"), card("TD")) == ()


def test_c5_pairs_three_and_four_of_a_kind() -> None:
    # the fillers make no fifteen: 9+A+3 is 13, Q+A+3 14
    assert items_of("9H 9S AC 3D", "QD") == [("pair", 2)]
    assert items_of("9H 9S 9C AD", "QD") == [("pair-royal", 6)]
    assert items_of("9H 9S 9C 9D", "AD") == [("double-pair-royal", 12)]
    assert items_of("9H 9S AC AD", "QD") == [("pair", 2), ("pair", 2)]


def test_c5_runs_double_and_triple() -> None:
    assert items_of("9H TS JC AD", "3S") == [("run", 3)]
    assert items_of("9H TS JC QD", "2D") == [("run", 4)]
    assert items_of("9H TS JC QD", "KH") == [("run", 5)]
    assert items_of("8H 9S TC TD", "2H") == [("pair", 2), ("run", 3), ("run", 3)]  # a double run, 8
    # a triple run (9), a pair royal (6) and 3+4+4+4 (2)
    assert show_points(["2H", "3S", "4C", "4D"], "4H", False) == 17
    # a double double run (12) and two pairs (4); 2+2+3+3+4 is 14, so no fifteen
    assert show_points(["2H", "2S", "3C", "3D"], "4H", False) == 16
    # a double run (6), a pair (2) and Q+2+3 twice (4)
    assert show_points(["AH", "2S", "3C", "3D"], "QH", False) == 12


def test_c1_ace_is_low_and_runs_do_not_wrap() -> None:
    assert items_of("QH KS AC 7D", "2D") == []  # Q-K-A, K-A-2: no runs
    assert items_of("AH 2S 3C 8D", "8S") == [("pair", 2), ("run", 3)]  # A+2+3+8 is 14
    assert items_of("JH QS KC 8D", "2D") == [("run", 3)]


def test_c5_flush_in_hand_and_in_crib() -> None:
    assert items_of("2H 4H 6H 8H", "TS") == [("flush", 4)]
    assert items_of("2H 4H 6H 8H", "TH") == [("flush", 5)]
    assert items_of("2H 4H 6H 8H", "TS", crib=True) == []  # only a five-card flush counts in the crib
    assert items_of("2H 4H 6H 8H", "TH", crib=True) == [("flush", 5)]
    assert items_of("2H 4H 6H 8S", "TH") == []  # the starter never makes a four-card flush


def test_c5_nobs_is_the_jack_of_the_starters_suit_in_hand() -> None:
    assert items_of("JH 2S 4C 6D", "8H") == [("nobs", 1)]
    assert items_of("JH 2S 4C 6D", "8H", crib=True) == [("nobs", 1)]  # in the crib too
    assert items_of("JS 2S 4C 6D", "8H") == []
    assert items_of("2S 4C 6D 8H", "JH") == []  # the starter itself is no nob (it was heels)


def test_c5_fifteens_count_every_combination() -> None:
    # 5+T, 5+K, T+2+3 and K+2+3: four combinations, a card used in more than one
    assert items_of("5H TS 2C 3D", "KD") == [("fifteen", 2)] * 4
    assert items_of("5H 5S 5C 5D", "AD") == [
        ("double-pair-royal", 12),
        ("fifteen", 2),
        ("fifteen", 2),
        ("fifteen", 2),
        ("fifteen", 2),
    ]


def test_show_points_refuses_what_is_no_show() -> None:
    with pytest.raises(ValueError):
        show_points(["5H", "5H", "5C", "JD"], "5D", False)
    with pytest.raises(ValueError):
        show_points(["5H", "5S", "5C"], "5D", False)
    with pytest.raises(UnknownCard):
        show_points(["5H", "5S", "5C", "10D"], "5D", False)


# ---------------------------------------------------------------- the show against a slow count


def slow_show(hand: Sequence[Card], starter: Card, crib: bool) -> int:
    """C5 read literally over every subset of the five cards: each subset totalling 15 is 2, each two of a
    rank 2, each subset of 3+ distinct consecutive ranks a run, of which only the longest length counts."""
    five = (*hand, starter)
    values = [min(c.rank, 10) for c in five]
    ranks = [c.rank for c in five]
    points = 0
    for k in range(2, 6):
        points += 2 * sum(1 for combo in itertools.combinations(values, k) if sum(combo) == 15)
    points += 2 * sum(1 for a, b in itertools.combinations(ranks, 2) if a == b)
    for k in (5, 4, 3):
        runs = sum(
            1
            for combo in itertools.combinations(ranks, k)
            if len(set(combo)) == k and max(combo) - min(combo) == k - 1
        )
        if runs:
            points += k * runs
            break
    if len({c.suit for c in hand}) == 1:
        if starter.suit == hand[0].suit:
            points += 5
        elif not crib:
            points += 4
    points += sum(1 for c in hand if c.rank == 11 and c.suit == starter.suit)
    return points


def test_show_points_matches_the_slow_count_over_100000_random_hands() -> None:
    rng = random.Random(34)
    for i in range(100_000):
        five = rng.sample(FULL_PACK, 5)
        crib = i % 4 == 0
        hand, starter = five[:4], five[4]
        expected = slow_show(hand, starter, crib)
        got = show_points([c.code for c in hand], starter.code, crib)
        assert got == expected, (hand, starter, crib)
        if i % 10 == 0:  # the itemized count, slower, on a tenth of them
            assert sum(it.points for it in count_show(hand, starter, crib)) == expected


def test_every_rank_pattern_against_the_slow_count() -> None:
    """The fast count looks the rank part up by rank pattern: check all 6175 patterns of five ranks (the
    n-th card of a rank in the n-th suit), each card of the pattern in turn as the starter."""
    seen = 0
    suits = list(Suit)
    for ranks in itertools.combinations_with_replacement(range(1, 14), 5):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        seen += 1
        five = [Card(r, suits[ranks[:i].count(r)]) for i, r in enumerate(ranks)]
        for s in range(5):
            hand = [c for i, c in enumerate(five) if i != s]
            assert show_total(hand, five[s]) == slow_show(hand, five[s], False), (hand, five[s])
    assert seen == 6175


# ---------------------------------------------------------------- pegging (C4)


def test_c4_the_rule_texts_own_play_examples() -> None:
    # Annie plays 5, Benny 7, Annie 6 and pegs 3 for the run; then Benny's 4 or 8 pegs 4.
    assert play_points(["5H", "7S", "6C"]) == 3
    assert play_points(["5H", "7S", "6C", "4D"]) == 4
    assert play_points(["5H", "7S", "6C", "8D"]) == 4
    # Benny's 3 breaks it (0), and Annie's 4 then makes a run of five.
    assert play_points(["5H", "7S", "6C", "3D"]) == 0
    assert play_points(["5H", "7S", "6C", "3D", "4C"]) == 5
    # 6 7 7 8: the second Seven breaks the run (only the pair of Sevens scores).
    assert play_points(["6H", "7S", "7C"]) == 2
    assert play_points(["6H", "7S", "7C", "8D"]) == 0


def test_c4_fifteen_thirty_one_and_pairs() -> None:
    assert play_points(["7H", "8S"]) == 2
    assert play_points(["KH", "QS", "TC", "AD"]) == 2  # 31
    assert play_points(["KH", "QS", "9C"]) == 0  # 29
    assert play_points(["9H", "9S"]) == 2
    assert play_points(["9H", "9S", "9C"]) == 6  # pair royal
    assert play_points(["3H", "3S", "3C", "3D"]) == 12  # double pair royal
    assert play_points(["5H", "5S", "5C"]) == 2 + 6  # 15 and a pair royal
    assert play_points(["9H", "9S", "3C", "9D"]) == 0  # not in succession (30)
    assert play_points(["5H", "5S", "4C", "6D"]) == 3  # the pair is broken; 5-4-6 still a run of 3


def test_c4_runs_in_any_order_and_flushes_do_not_count() -> None:
    assert play_points(["3H", "AH", "2H"]) == 3
    assert play_points(["AH", "2H", "3H", "4H"]) == 4
    assert play_points(["4S", "2H", "3D", "AC", "5C"]) == 5 + 2  # a run of five making 15
    assert play_points(["QH", "KH", "AH"]) == 0  # Ace low, no wrap
    assert play_points(["2H", "4H"]) == 0
    kinds = [it.kind for it in peg_items(cards("7H 8H"))]
    assert kinds == ["fifteen"]


def test_play_points_refuses_what_cannot_be_played() -> None:
    with pytest.raises(ValueError):
        play_points(["KH", "QS", "TC", "2D"])  # 32
    with pytest.raises(ValueError):
        play_points(["5H", "5H"])
    assert play_points([]) == 0


def slow_peg(pile: Sequence[Card]) -> int:
    """C4 read literally: 15 or 31 by the count; the trailing cards of one rank as every pair among them; the
    longest tail of 3+ cards that sorts into consecutive ranks."""
    points = 0
    total = sum(min(c.rank, 10) for c in pile)
    if total in (15, 31):
        points += 2
    k = 1
    while k < len(pile) and pile[-1 - k].rank == pile[-1].rank:
        k += 1
    points += 2 * len(list(itertools.combinations(range(k), 2)))
    for length in range(len(pile), 2, -1):
        ranks = sorted(c.rank for c in pile[-length:])
        if ranks == list(range(ranks[0], ranks[0] + length)):
            points += length
            break
    return points


@pytest.mark.parametrize("top_rank", [6, 9, 13])
def test_pegging_matches_the_slow_count_over_random_plays(top_rank: int) -> None:
    """Random sequences of play up to 31, drawn from low cards too so that long runs and pairs come up."""
    rng = random.Random(top_rank)
    pack = [c for c in FULL_PACK if c.rank <= top_rank]
    scored = 0
    for _ in range(3000):
        deck = rng.sample(pack, len(pack))
        pile: list[Card] = []
        for c in deck:
            if sum(x.value for x in pile) + c.value > 31:
                break
            pile.append(c)
            expected = slow_peg(pile)
            assert play_points([x.code for x in pile]) == expected, pile
            assert sum(it.points for it in peg_items(pile)) == expected
            scored += expected > 0
    assert scored > 500


def test_show_total_gives_the_same_count_once_its_pattern_is_met() -> None:
    """The coach counts ~46 x 15 shows per discard decision, so the plain total keeps what it learnt of a
    rank pattern: a deal counted again (from what was kept) counts as the first time, and as the code
    count does. How fast it stays is bench/bench_ai_cribbage.py's ``speed`` to say (about 1 µs)."""
    rng = random.Random(7)
    deals = [rng.sample(FULL_PACK, 5) for _ in range(2000)]
    first = [show_total(d[:4], d[4]) for d in deals]  # meet every pattern once
    for _ in range(2):
        assert [show_total(d[:4], d[4]) for d in deals] == first
    assert first == [show_points([c.code for c in d[:4]], d[4].code, False) for d in deals]


def test_rank_codes_cover_the_pack() -> None:
    assert RANK_CHARS == "A23456789TJQK"
    assert {c.code[0] for c in FULL_PACK} == set(RANK_CHARS)
