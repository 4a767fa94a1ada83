"""Bharg Deluxe melds: D2 points, D5 bharg sets, D6 straights, and the worked examples of the seed texts."""

from dataclasses import replace

import pytest

from bot.render.refusals import said
from bot.rules import deluxe as D
from bot.rules.decktet import Rank, Suit, card, cards, deluxe_deck
from bot.rules.deluxe_melds import bharg_sets, complete_straights, find_partial
from bot.rules.errors import IllegalAction
from tests.refusing import refused


def at_bind(
    *,
    seat: int = 0,
    players: int = 2,
    hand: str = "",
    bound: dict[int, list[D.Meld]] | None = None,
    ace: str | None = None,
    options: D.Options | None = None,
) -> D.State:
    """A state where ``seat`` has drawn and may bind: hands and table as the test says."""
    state, _ = D.start("melds", players, options or D.Options())
    hands = [() for _ in range(players)]
    hands[seat] = cards(hand) if hand else ()
    table = [tuple((bound or {}).get(s, [])) for s in range(players)]
    return replace(
        state,
        turn=seat,
        phase=D.Phase.BIND,
        hands=tuple(hands),
        bound=tuple(table),
        ace_pile=(card(ace),) if ace else (),
        first_turn=False,
    )


def bharg(names: str) -> D.Meld:
    return D.Meld("bharg set", cards(names))


# --- D2, D5, D6 checks -------------------------------------------------------------------------------------


def test_card_points_are_the_number_of_suits():
    assert D.card_points(card("ace of moons")) == 1
    assert D.card_points(card("huntress")) == 1
    assert all(D.card_points(c) == 2 for c in deluxe_deck() if Rank.TWO <= c.rank <= Rank.NINE)
    assert D.card_points(card("watchman")) == 3 and D.card_points(card("island")) == 3


def test_bharg_sets_need_three_cards_and_each_suit_once():
    assert D.is_bharg_set(cards("painter, forest, cave"))
    assert D.is_bharg_set(cards("desert, lunatic, merchant"))
    assert D.is_bharg_set(cards("watchman, origin, bard"))  # Pawns give all three suits: M Y K + W L + S
    assert D.is_bharg_set(cards("harvest, cave, windfall"))  # M S L + W Y + K
    assert not D.is_bharg_set(cards("watchman, harvest, sea"))  # Moons twice
    assert not D.is_bharg_set(cards("watchman, island, end"))  # Wyrms twice
    assert not D.is_bharg_set(cards("author, desert"))  # two cards: never a set
    assert not D.is_bharg_set(cards("author, desert, origin, ace of moons"))  # Moons twice
    assert not D.is_bharg_set(cards("author, desert, ace of waves"))  # Leaves missing
    six = cards("ace of moons, ace of suns, ace of waves, ace of leaves, ace of wyrms, ace of knots")
    assert D.is_bharg_set(six)
    assert not D.is_bharg_set(cards("watchman, light keeper"))


def test_complete_straights_consecutive_in_suit_without_wrap():
    k = Suit.KNOTS
    assert D.is_complete_straight(cards("battle, soldier, market"), k)
    assert D.is_complete_straight(cards("market, battle, soldier"), k)  # any order
    assert D.is_complete_straight(cards("ace of knots, author, painter"), k)
    assert not D.is_complete_straight(cards("battle, soldier"), k)  # too short
    assert not D.is_complete_straight(cards("battle, soldier, castle"), k)  # 4-5-7 gap
    assert not D.is_complete_straight(cards("battle, soldier, market"), Suit.WYRMS)  # Market has no Wyrms
    assert not D.is_complete_straight(cards("merchant, windfall, ace of knots"), k)  # no wrap Crown-Ace
    assert not D.is_complete_straight(cards("battle, battle, soldier, market"), k)  # one card per rank


def test_pawn_and_court_ranks_exist_only_when_their_option_is_on():
    k = Suit.KNOTS
    plain = cards("betrayal, merchant, windfall")  # 8-9-Crown
    assert D.is_complete_straight(plain, k)
    assert not D.is_complete_straight(plain, k, pawns=True)  # the Pawn rank sits between 9 and Crown
    assert D.is_complete_straight(cards("merchant, watchman, windfall"), k, pawns=True)
    assert not D.is_complete_straight(cards("merchant, watchman, windfall"), k)  # no Pawns in the game
    assert D.is_complete_straight(
        cards("merchant, light keeper, consul, windfall"), k, pawns=True, courts=True
    )
    assert not D.is_complete_straight(cards("merchant, consul, windfall"), k, pawns=True, courts=True)
    assert D.is_complete_straight(cards("merchant, consul, windfall"), k, courts=True)
    assert D.straight_order(pawns=True, courts=True)[-4:] == (Rank.NINE, Rank.PAWN, Rank.COURT, Rank.CROWN)


# --- the worked examples ----------------------------------------------------------------------------------


def test_tizio_binds_the_seven_of_moons_on_his_five_and_the_opponents_six():
    """Italian text: Tizio 3☀🪢-5🌙🍃-7🌊🐉, Caio 2☀🐉-6🌙🌊-9🍃🪢, Ace of Moons on top; Tizio plays 7🌙🍃."""
    tizio = bharg("painter, forest, cave")
    caio = bharg("desert, lunatic, merchant")
    assert D.is_bharg_set(tizio.cards) and D.is_bharg_set(caio.cards)
    state = at_bind(seat=0, hand="chance meeting, sea", bound={0: [tizio], 1: [caio]}, ace="ace of moons")
    assert D.straight_suit(state) == Suit.MOONS
    state, events = D.apply(state, D.Bind(0, cards("chance meeting")))
    bound = [e for e in events if isinstance(e, D.MeldBound)]
    assert bound == [
        D.MeldBound(
            0, "partial straight", cards("chance meeting"), ((0, cards("forest")), (1, cards("lunatic")))
        )
    ]
    # the table cards stay where they are; the new card scores for Tizio
    assert state.bound[1] == (caio,) and state.bound[0][0] == tizio
    assert state.bound[0][1].cards == cards("chance meeting")
    assert state.hands[0] == cards("sea")


def test_without_the_ace_of_moons_the_seven_makes_no_meld():
    tizio = bharg("painter, forest, cave")
    caio = bharg("desert, lunatic, merchant")
    state = at_bind(hand="chance meeting, sea", bound={0: [tizio], 1: [caio]})
    with refused(
        IllegalAction, r"^One card is no meld: a bharg set takes three or more, .* until an Ace is on"
    ):
        D.apply(state, D.Bind(0, cards("chance meeting")))
    state = replace(state, ace_pile=(card("ace of suns"),))
    with refused(IllegalAction, r"^Those cards make no meld: .*Suns"):
        D.apply(state, D.Bind(0, cards("chance meeting")))


def test_caio_complete_straight_of_knots_allows_3_or_7_but_not_another_6():
    """Caio bound 4🐉🪢-5🐉🪢-6🍃🪢; with the Ace of Knots on top, 3☀🪢 or 7☀🪢 may build on it in block."""
    state = at_bind(seat=1, hand="battle, soldier, market, author", ace="ace of knots", players=3)
    state, events = D.apply(state, D.Bind(1, cards("market, soldier, battle")))
    assert [e.kind for e in events if isinstance(e, D.MeldBound)] == ["complete straight"]
    straight = state.bound[1][0]
    for seat in (1, 2):  # Shar herself (English text) or another player (Sempronio, Italian text)
        s = replace(state, turn=seat, hands=D._set(state.hands, seat, cards("painter, castle, market")))
        for new in ("painter", "castle"):
            after, events = D.apply(s, D.Bind(seat, cards(new)))
            assert events[0] == D.MeldBound(seat, "partial straight", cards(new), ((1, straight.cards),))
            assert after.bound[seat][-1].cards == cards(new)
        with pytest.raises(IllegalAction) as err:
            D.apply(s, D.Bind(seat, cards("market")))
        assert (
            said(err.value)
            == "The 6 and 4–5 are part of a complete straight: a partial straight must use all of it."
        )


def test_bound_straight_stays_bound_when_the_ace_pile_changes_but_is_used_only_whole_in_suit():
    state = at_bind(hand="battle, soldier, market, savage, ace of wyrms", ace="ace of knots")
    state, _ = D.apply(state, D.Bind(0, cards("battle, soldier, market")))
    state, _ = D.apply(state, D.Discard(0, card("ace of wyrms")))
    assert D.straight_suit(state) == Suit.WYRMS
    assert state.bound[0][0].kind == "complete straight"
    state = replace(state, turn=0, phase=D.Phase.BIND)
    # the Savage (3 🍃🐉) would need the 4–5 of Wyrms, but the Market has no Wyrms: the block is unusable
    with refused(IllegalAction, "must use all of it"):
        D.apply(state, D.Bind(0, cards("savage")))


def test_partial_straight_with_two_new_cards_and_mixed_table_pieces():
    k = Suit.KNOTS
    table = [
        (1, D.Meld("complete straight", cards("battle, soldier, market"))),
        (2, bharg("painter, forest, cave")),
    ]
    # 2 (Author) + 3 (Painter from a set) + block 4-5-6 + 7 (Castle, new)
    used = find_partial(cards("author, castle"), table, k)
    assert used == ((2, cards("painter")), (1, cards("battle, soldier, market")))
    assert find_partial(cards("author, merchant"), table, k) is None  # 9 needs 7 and 8 on the table
    assert find_partial(cards("author, author"), table, k) is None
    assert find_partial(cards("ace of knots"), [(0, bharg("author, painter, sea, end, calamity"))], k) == (
        (0, cards("author, painter")),
    )


def test_three_card_groups_are_never_partial_and_reasons_are_given():
    state = at_bind(hand="author, desert, journey, sea", ace="ace of moons")
    with refused(IllegalAction, r"^Those cards make no meld: Moons appears more than once"):
        D.apply(state, D.Bind(0, cards("author, desert, journey")))
    with refused(IllegalAction, "don't hold"):
        D.apply(state, D.Bind(0, cards("author, author, desert")))


# --- listing ----------------------------------------------------------------------------------------------


def test_bharg_sets_listing_dedupes_copies_and_finds_every_cover():
    hand = cards("painter, painter, forest, cave, desert, lunatic, merchant, sea, end")
    sets = bharg_sets(hand)
    assert len(sets) == len(set(sets))
    assert all(D.is_bharg_set(s) for s in sets)
    assert cards("cave, forest, painter") in {tuple(sorted(s, key=lambda c: c.name)) for s in sets}
    # brute force over distinct cards agrees
    import itertools

    distinct = sorted(set(hand), key=lambda c: c.index)
    brute = {
        frozenset(c.index for c in combo)
        for n in range(3, 7)
        for combo in itertools.combinations(distinct, n)
        if D.is_bharg_set(combo)
    }
    assert {frozenset(c.index for c in s) for s in sets} == brute


def test_complete_straights_listing_with_pawns_offers_both_pawns_of_a_suit():
    hand = cards("merchant, watchman, light keeper, windfall, castle, betrayal")
    found = complete_straights(hand, Suit.KNOTS, pawns=True, courts=False)
    assert all(D.is_complete_straight(s, Suit.KNOTS, pawns=True) for s in found)
    assert (
        cards("merchant, watchman, windfall") in found and cards("merchant, light keeper, windfall") in found
    )
    assert cards("castle, betrayal, merchant, watchman, windfall") in found


def test_bindable_melds_are_all_bindable_with_the_same_table_use():
    tizio = bharg("painter, forest, cave")
    caio = bharg("desert, lunatic, merchant")
    state = at_bind(
        hand="chance meeting, diplomat, pact, huntress, journey, author, origin, desert, sea, end",
        bound={0: [tizio], 1: [caio]},
        ace="ace of moons",
    )
    melds = D.bindable_melds(state, 0)
    kinds = {m.kind for m in melds}
    assert kinds == {"bharg set", "complete straight", "partial straight"}
    for m in melds:
        _, events = D.apply(state, D.Bind(0, m.cards))
        assert events[0] == D.MeldBound(0, m.kind, m.cards, m.used)
    assert D.bindable_melds(state, 1) == []  # not seat 1's move


def _straight_without_ace() -> tuple[str, list[D.Card]]:
    """Three cards that are a complete straight in a suit they share (no Ace on the pile to make it so)."""
    from itertools import combinations

    from bot.rules.deluxe_melds import is_complete_straight

    numbers = [c for c in deluxe_deck() if c.rank not in (Rank.ACE, Rank.CROWN)]
    for trio in combinations(numbers, 3):
        for s in set(trio[0].suits).intersection(*(c.suits for c in trio[1:])):
            if is_complete_straight(trio, s):
                return s.name.lower(), list(trio)
    raise AssertionError("no straight in the deck")


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        # the example: no straight suit yet, and two cards that are no bharg set either
        (
            "ace of leaves, savage",
            r"^Those 2 cards make no meld: a bharg set takes three or more, and two cards",
        ),
        ("chance meeting", r"^One card is no meld: .*until an Ace is on the Ace Pile"),
        ("straight, no ace", r"^Straights need an Ace on the Ace Pile\.$"),
        ("author, desert, journey", r"^Those cards make no meld: Moons appears more than once.*need an Ace"),
        (
            "author, desert, journey | ace of moons",
            r"^Those cards make no meld: Moons .*, and the Desert has no Moons",
        ),
        ("chance meeting | ace of suns", r"^Those cards make no meld: the Chance Meeting has no Suns"),
        ("author, author | ace of moons", r"^Those cards make no meld: two cards share a rank"),
    ],
)
def test_each_refusal_says_the_real_reason(case: str, reason: str) -> None:
    """A bind the rules refuse says why in the player's words — the reason that applies to these cards."""
    names, _, ace = case.partition(" | ")
    if names == "straight, no ace":
        _, trio = _straight_without_ace()
        hand, picked = trio, trio
    else:
        picked = list(cards(names))
        hand = picked
    state = at_bind(hand="", ace=ace or None)
    state = replace(state, hands=(tuple(hand), ()))
    with refused(IllegalAction, reason):
        D.apply(state, D.Bind(0, tuple(picked)))
