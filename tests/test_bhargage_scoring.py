"""The seed text's worked examples and the rulings R8–R10, R12 for the scoring functions."""

from collections import Counter

import pytest

from bot.rules.bhargage import count_hand, peg_points, shortage
from bot.rules.decktet import Suit, card, cards


def reasons(items):
    return Counter(it.reason for it in items)


def points_for(items, reason):
    return sum(it.points for it in items if it.reason == reason)


# ---------------------------------------------------------------- the show: 11s


def test_crown_crown_ace_is_two_elevens_sharing_the_ace():
    hc = count_hand(cards("sea, end, ace of suns"), card("mill"))
    assert points_for(hc.items, "11 for 2") == 4
    assert reasons(hc.items)["11 for 2"] == 2
    # The two Crowns are also a pair; nothing else scores.
    assert reasons(hc.items) == Counter({"11 for 2": 2, "2 for a pair": 1})
    assert hc.total == 6
    for it in hc.items:
        if it.reason == "11 for 2":
            assert sum(c.value for c in it.cards) == 11
            assert card("ace of suns") in it.cards


def test_a_zero_value_up_card_doubles_the_elevens():
    hc = count_hand(cards("sea, end, ace of suns"), card("borderland"))
    assert points_for(hc.items, "11 for 2") == 8
    with_pawn = [it for it in hc.items if it.reason == "11 for 2" and card("borderland") in it.cards]
    assert len(with_pawn) == 2
    assert hc.total == 8 + 2


def test_two_zero_cards_multiply_elevens_by_four():
    hc = count_hand(cards("sea, ace of suns, borderland"), card("island"))
    assert points_for(hc.items, "11 for 2") == 2 * 4


# ---------------------------------------------------------------- sets and bhargs


def test_three_fives_score_six_for_the_set_and_six_for_the_bharg():
    hc = count_hand(cards("forest, discovery, soldier"), card("sea"))
    assert reasons(hc.items) == Counter({"6 for three": 1, "6 for bharg": 1})
    assert hc.total == 12


@pytest.mark.parametrize(
    ("names", "expected"),
    [("ace of moons, ace of suns", 2), ("ace of moons, ace of suns, ace of waves", 6)],
)
def test_sets_in_the_show(names, expected):
    hc = count_hand(cards(names), card("mill"))
    assert points_for(hc.items, "2 for a pair") + points_for(hc.items, "6 for three") == expected


def test_four_and_five_of_a_kind_in_the_bhargage():
    four = count_hand(cards("sea, end, calamity, windfall"), card("mill"), bhargage=True)
    assert points_for(four.items, "12 for four") == 12
    five = count_hand(cards("sea, end, calamity, windfall"), card("huntress"), bhargage=True)
    assert points_for(five.items, "20 for five") == 20


def test_light_keeper_and_rite_are_a_two_card_bharg():
    hc = count_hand(cards("light keeper, rite, ace of moons"), card("mill"))
    bhargs = [it for it in hc.items if it.reason == "6 for bharg"]
    assert [set(b.cards) for b in bhargs] == [{card("light keeper"), card("rite")}]
    assert hc.total == 6


def test_the_excuse_doubles_every_bharg():
    without = count_hand(cards("forest, discovery, soldier"), card("sea"))
    with_excuse = count_hand(cards("forest, discovery, soldier"), card("excuse"))
    assert points_for(without.items, "6 for bharg") == 6
    assert points_for(with_excuse.items, "6 for bharg") == 12
    two = count_hand(cards("light keeper, rite, excuse"), card("mill"))
    assert points_for(two.items, "6 for bharg") == 12


def test_overlapping_suits_are_not_a_bharg():
    # Six suits are present but the Waves appear twice.
    hc = count_hand(cards("light keeper, rite, sea"), card("mill"))
    assert [set(it.cards) for it in hc.items if it.reason == "6 for bharg"] == [
        {card("light keeper"), card("rite")}
    ]


# ---------------------------------------------------------------- Friends of the Chief


def test_friends_of_the_chief_only_with_a_personality_up_card():
    hand = cards("author, painter, forest")
    hc = count_hand(hand, card("huntress"))
    assert points_for(hc.items, "1 for the Chief's Friend") == 2
    assert {it.cards[0] for it in hc.items if it.reason == "1 for the Chief's Friend"} == {
        card("author"),
        card("painter"),
    }
    assert points_for(count_hand(hand, card("sea")).items, "1 for the Chief's Friend") == 0


def test_no_friends_of_the_chief_in_the_bhargage():
    hc = count_hand(cards("author, painter, forest, mill"), card("huntress"), bhargage=True)
    assert points_for(hc.items, "1 for the Chief's Friend") == 0


# ---------------------------------------------------------------- shortage R10


@pytest.mark.parametrize(
    ("names", "missing"),
    [
        ("author, desert, origin, mountain", 0),  # M K S Y W L
        ("author, desert, journey, mountain", 1),  # no Leaves
        ("journey, lunatic, mountain, forest", 2),  # M W S L: no Y K
        ("sea, journey, lunatic, mill", 3),  # W M L: no S Y K
        ("ace of moons, huntress, journey, lunatic", 4),  # M W only
        ("ace of moons, huntress, excuse, journey, lunatic", 4),  # five cards, the Excuse adds nothing
    ],
)
def test_shortage_is_n_n_plus_one_over_two(names, missing):
    assert shortage(cards(names)) == [0, 1, 3, 6, 10][missing]


# ---------------------------------------------------------------- the play R8


def test_eleven_and_twenty_three_in_the_play_and_zero_cards_after_them():
    assert reasons(peg_points(cards("mountain, cave"))) == Counter({"11 for 2": 1})
    assert reasons(peg_points(cards("mountain, cave, borderland"))) == Counter({"11 for 2": 1})
    assert reasons(peg_points(cards("mountain, cave, borderland, island"))) == Counter({"11 for 2": 1})
    assert reasons(peg_points(cards("sea, journey, end"))) == Counter({"23 for 3": 1})
    assert reasons(peg_points(cards("sea, journey, end, rite"))) == Counter({"23 for 3": 1})
    assert peg_points(cards("mountain, desert")) == []


def test_sets_in_the_play_count_only_the_last_cards():
    assert points_for(peg_points(cards("ace of moons, ace of suns")), "2 for a pair") == 2
    assert points_for(peg_points(cards("ace of moons, ace of suns, ace of waves")), "6 for three") == 6
    assert peg_points(cards("ace of moons, forest, ace of suns")) == []
    four = peg_points(cards("harvest, watchman, light keeper, borderland"))
    assert points_for(four, "12 for four") == 12
    five = peg_points(cards("ace of moons, ace of suns, ace of waves, ace of leaves, ace of wyrms"))
    assert points_for(five, "20 for five") == 20


def test_six_aces_is_game():
    six = peg_points(
        cards("ace of moons, ace of suns, ace of waves, ace of leaves, ace of wyrms, ace of knots")
    )
    assert [it.reason for it in six] == ["Game!", "6 for bharg"]


def test_bharg_in_the_play_and_the_excuse_extends_it():
    first = peg_points(cards("forest, light keeper, rite"))
    assert reasons(first) == Counter({"6 for bharg": 1})
    again = peg_points(cards("forest, light keeper, rite, excuse"))
    assert reasons(again) == Counter({"6 for bharg": 1})
    assert set(again[0].cards) == set(cards("light keeper, rite, excuse"))
    # A Moon card after the bharg repeats Moons with the Rite: no bharg.
    assert peg_points(cards("light keeper, rite, ace of moons")) == []


def test_bharg_scores_once_even_when_two_tails_qualify():
    pile = cards("excuse, light keeper, rite")
    assert points_for(peg_points(pile), "6 for bharg") == 6


def test_a_card_can_score_eleven_and_a_set_and_a_bharg_at_once():
    pile = cards("origin, journey, painter, savage")  # 2+3+3+3 = 11; the three 3s carry all six suits
    assert reasons(peg_points(pile)) == Counter({"11 for 2": 1, "6 for three": 1, "6 for bharg": 1})


# ---------------------------------------------------------------- sequences variant R12


def test_runs_in_the_play_any_order_longest_only():
    assert peg_points(cards("ace of moons, journey, author"), sequences=True)[-1].reason == "3 for a run"
    assert peg_points(cards("ace of moons, journey, author"), sequences=False) == []
    four = peg_points(cards("mountain, ace of moons, journey, author"), sequences=True)
    assert [it.reason for it in four if "run" in it.reason] == ["4 for a run"]
    # Excuse–Ace–2 is a run; Crown does not wrap to the Excuse or the Ace.
    assert points_for(peg_points(cards("ace of moons, excuse, author"), sequences=True), "3 for a run") == 3
    wrap = peg_points(cards("sea, excuse, ace of moons"), sequences=True)
    assert [it.reason for it in wrap] == ["11 for 2"]
    # A repeated rank inside the tail breaks it.
    repeated = peg_points(cards("author, journey, painter"), sequences=True)
    assert [it.reason for it in repeated] == ["2 for a pair"]


def test_runs_in_the_show_with_a_double_run():
    hand = cards("author, journey, painter")  # 2, 3, 3
    hc = count_hand(hand, card("mountain"), sequences=True)  # up 4
    runs = [it for it in hc.items if it.reason == "3 for a run"]
    assert len(runs) == 2
    assert {frozenset(r.cards) for r in runs} == {
        frozenset(cards("author, journey, mountain")),
        frozenset(cards("author, painter, mountain")),
    }
    plain = count_hand(hand, card("mountain"))
    assert hc.total == plain.total + 6


def test_show_runs_score_the_longest_only_and_pawn_court_crown_is_a_run():
    hc = count_hand(cards("author, journey, mountain"), card("forest"), sequences=True)
    assert [it.reason for it in hc.items if "run" in it.reason] == ["4 for a run"]
    top = count_hand(cards("merchant, harvest, consul"), card("sea"), sequences=True)
    assert [it.reason for it in top.items if "run" in it.reason] == ["4 for a run"]
    low = count_hand(cards("excuse, ace of moons, author"), card("sea"), sequences=True)
    assert points_for(low.items, "3 for a run") == 3


def test_missing_suits_are_named():
    from bot.rules.bhargage_scoring import missing_suits

    assert missing_suits(cards("sea, journey, lunatic, mill")) == (Suit.SUNS, Suit.WYRMS, Suit.KNOTS)
