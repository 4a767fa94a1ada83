import random

import pytest

from bot.render.refusals import said
from bot.rules.decktet import (
    ALL_CARDS,
    EXCUSE,
    Rank,
    Suit,
    bhargage_deck,
    card,
    cards,
    deluxe_deck,
    shuffled,
)
from bot.rules.errors import RulesError, UnknownCard


def test_deck_has_45_cards_with_the_ranks_of_r1():
    deck = bhargage_deck()
    assert len(deck) == 45
    assert len({c.name for c in deck}) == 45
    counts = {r: sum(c.rank == r for c in deck) for r in Rank}
    assert counts[Rank.ACE] == 6 and counts[Rank.CROWN] == 6
    assert counts[Rank.PAWN] == 4 and counts[Rank.COURT] == 4 and counts[Rank.EXCUSE] == 1
    assert all(counts[r] == 3 for r in Rank if Rank.TWO <= r <= Rank.NINE)
    assert sorted(Rank) == [Rank.EXCUSE, Rank.ACE, *range(2, 10), Rank.PAWN, Rank.COURT, Rank.CROWN]


def test_each_numbered_rank_is_a_bharg_and_each_suit_appears_equally():
    for r in range(2, 10):
        suits = [s for c in ALL_CARDS if c.rank == r for s in c.suits]
        assert sorted(s.value for s in suits) == sorted(s.value for s in Suit)
    for s in Suit:
        assert sum(s in c.suits for c in ALL_CARDS) == 14  # Ace, 8 numbers, Crown, 2 Pawns, 2 Courts


def test_values_r2_and_personalities():
    assert [
        card(n).value for n in ("ace of suns", "desert", "merchant", "bard", "harvest", "rite", "excuse")
    ] == [
        1,
        2,
        9,
        10,
        0,
        0,
        0,
    ]
    assert sum(c.personality for c in ALL_CARDS) == 14
    assert card("Light Keeper").personality and not card("Sea").personality
    assert EXCUSE.suits == ()


@pytest.mark.parametrize(
    "text,expected",
    [
        ("author", "Author"),
        ("The Light Keeper", "Light Keeper"),
        ("ace of moons", "Ace of Moons"),
        ("  THE   chance meeting ", "Chance Meeting"),
        ("ace-knots", "Ace of Knots"),
        ("moons ace", "Ace of Moons"),
        ("light-keeper", "Light Keeper"),
    ],
)
def test_parse_card_names(text, expected):
    assert card(text).name == expected


def test_slug_round_trips_for_every_card():
    for c in ALL_CARDS:
        assert card(c.slug) is c
        assert card(c.title) is c


def test_typo_suggests_closest_names():
    with pytest.raises(UnknownCard) as err:
        card("Autor")
    assert "the Author" in err.value.suggestions
    assert "Did you mean" in said(err.value)
    assert isinstance(err.value, RulesError)
    with pytest.raises(UnknownCard) as err:
        card("zzzzqqq")
    assert err.value.suggestions == ()


def test_cards_splits_on_commas():
    assert [c.name for c in cards("author, desert ,ace of waves")] == ["Author", "Desert", "Ace of Waves"]


def test_deluxe_decks():
    assert len(deluxe_deck()) == 72
    assert len(deluxe_deck(pawns=True)) == 80
    assert len(deluxe_deck(courts=True)) == 80
    both = deluxe_deck(pawns=True, courts=True)
    assert len(both) == 88 and EXCUSE not in both
    assert sum(c == card("Consul") for c in both) == 2


def test_shuffle_is_determined_by_the_seed():
    deck = bhargage_deck()
    a = shuffled(deck, random.Random(7))
    assert a == shuffled(deck, random.Random(7))
    assert a != shuffled(deck, random.Random(8))
    assert sorted(a, key=lambda c: c.index) == list(deck)
