"""The Bhargage state machine (R4–R11): built states and seed searches, never a guessed random outcome."""

import random
from dataclasses import replace

import pytest

from bot.rules import bhargage as bh
from bot.rules.bhargage import (
    BadOptions,
    BhargageMade,
    CardPlayed,
    Cut,
    DealerCut,
    Discard,
    DiscardChosen,
    GameWon,
    HandCounted,
    HandDealt,
    Options,
    Phase,
    Play,
    PlayEnded,
    PointsScored,
    Resign,
    ShortageClaimed,
    State,
    UpCardTurned,
    WentGo,
)
from bot.rules.bhargage_scoring import count_hand, shortage
from bot.rules.decktet import Card, bhargage_deck, card, cards
from bot.rules.errors import BadActionText, GameOver, IllegalAction, NotYourTurn
from tests.refusing import refused


def play_state(
    nd: str,
    d: str,
    up: str,
    *,
    dealer: int = 0,
    scores: tuple[int, int] = (10, 10),
    bhargage: str | None = None,
    options: Options | None = None,
) -> State:
    """A state at the start of the play with the given kept hands (the rest of the deck accounted for)."""
    base, _ = bh.start(1, 2, options)
    nd_cards, d_cards, up_card = cards(nd), cards(d), card(up)
    used = {*nd_cards, *d_cards, up_card}
    spare = tuple(c for c in bhargage_deck() if c not in used)
    bh_cards = spare[:4] if bhargage is None else cards(bhargage)
    used |= set(bh_cards)
    deck = tuple(c for c in bhargage_deck() if c not in used)
    hands: list[tuple[Card, ...]] = [(), ()]
    hands[1 - dealer] = nd_cards
    hands[dealer] = d_cards
    return replace(
        base,
        dealer=dealer,
        phase=Phase.PLAY,
        scores=scores,
        hands=(hands[0], hands[1]),
        kept=(hands[0], hands[1]),
        discards=((), ()),
        bhargage=bh_cards,
        deck=deck,
        up=up_card,
        pile=(),
        count=0,
        to_move=1 - dealer,
        gone=(False, False),
    )


def play_out(state: State) -> tuple[State, list]:
    """Play the first legal card for whoever is to move until the play is over."""
    events: list = []
    while state.phase is Phase.PLAY:
        seat = bh.waiting_for(state)[0]
        state, ev = bh.apply(state, bh.legal_actions(state, seat)[0])
        events += ev
    return state, events


def points_in_play(events: list, seat: int) -> int:
    out = 0
    for e in events:
        if isinstance(e, PlayEnded):
            break
        if isinstance(e, PointsScored) and e.seat == seat:
            out += e.points
    return out


# ---------------------------------------------------------------- start and the cut for deal R4


def test_cut_for_first_deal_lower_rank_deals_and_ties_cut_again():
    recut_seen = False
    for seed in range(300):
        state, events = bh.start(seed)
        cut = events[0]
        assert isinstance(cut, DealerCut)
        *ties, (a, b) = cut.cuts
        assert all(x.rank == y.rank for x, y in ties)
        assert a.rank != b.rank
        assert cut.dealer == (0 if a.rank < b.rank else 1) == state.dealer == state.first_dealer
        assert events[1] == HandDealt(1, state.dealer)
        recut_seen |= bool(ties)
    assert recut_seen, "some seed should need a second cut"


def test_start_is_deterministic_and_seeds_differ():
    assert bh.start(42)[0] == bh.start(42)[0]
    assert bh.start(42)[0].hands != bh.start(43)[0].hands


def test_r3_pegs_start_at_ten_and_every_point_announced_moves_them():
    """R3: both start at 10 and play to 121, so a whole game's announcements add up to score minus 10."""
    assert Options().target == 121
    rng = random.Random(11)
    state, events = bh.start(11)
    assert state.scores == (10, 10)
    while not bh.is_over(state):
        state, ev = bh.apply(state, rng.choice(bh.legal_actions(state, bh.waiting_for(state)[0])))
        events += ev
    assert bh.final_result(state).how == "target"
    for seat in (0, 1):
        pegged = sum(e.points for e in events if isinstance(e, PointsScored) and e.seat == seat)
        assert state.scores[seat] == 10 + pegged + _show_points(events, seat)
    assert max(state.scores) >= 121 > min(state.scores)


def test_only_two_players_and_options_are_validated():
    with refused(BadOptions, "two players"):
        bh.start(1, 3)
    with refused(BadOptions, "between 21 and 221"):
        Options(target=10)
    with refused(BadOptions, "no option called colour"):
        Options.from_dict({"colour": "red"})
    opts = Options(target=61, sequences=True)
    assert Options.from_dict(opts.to_dict()) == opts
    assert Options.from_dict({}) == Options()


# ---------------------------------------------------------------- discard R5


def test_discards_are_simultaneous_secret_and_replaceable_until_both_are_in():
    state, _ = bh.start(7)
    dealt = set(state.hands[0])
    assert state.phase is Phase.DISCARD and bh.waiting_for(state) == (0, 1)
    assert len(bh.legal_actions(state, 0)) == 10 == len(bh.legal_actions(state, 1))
    first = bh.legal_actions(state, 0)[0]
    state, ev = bh.apply(state, first)
    assert ev == [DiscardChosen(0, False)]
    assert bh.waiting_for(state) == (1,)
    assert bh.view(state, 0).discard == first.cards
    assert bh.view(state, 1).discard == ()
    assert bh.view(state, 1).discarded == (True, False)
    # Seat 0 changes its mind: still 10 choices over its five dealt cards.
    assert len(bh.legal_actions(state, 0)) == 10
    second = bh.legal_actions(state, 0)[-1]
    state, ev = bh.apply(state, second)
    assert ev == [DiscardChosen(0, True)]
    assert second.cards != first.cards
    assert set(state.hands[0]) | set(second.cards) == dealt and len(state.hands[0]) == 3
    other = bh.legal_actions(state, 1)[3]
    state, ev = bh.apply(state, other)
    assert ev[-1] == BhargageMade(state.dealer, 4)
    assert state.phase is Phase.CUT
    assert set(state.bhargage) == set(second.cards) | set(other.cards)
    # Each seat is still shown its own discard, never the other's.
    assert bh.view(state, 0).discard == second.cards and bh.view(state, 1).discard == other.cards
    assert bh.legal_actions(state, state.dealer) == []
    assert bh.legal_actions(state, state.non_dealer) == [Cut(state.non_dealer)]
    with refused(IllegalAction, "time to cut"):
        bh.apply(state, other)
    assert bh.waiting_for(state) == (state.non_dealer,)


def test_discard_errors_read_as_sentences():
    state, _ = bh.start(7)
    mine = state.hands[0]
    theirs = state.hands[1]
    with refused(IllegalAction, "exactly two different cards"):
        bh.apply(state, Discard(0, (mine[0], mine[0])))
    with refused(IllegalAction, "You don't hold that card"):
        bh.apply(state, Discard(0, (mine[0], theirs[0])))
    with refused(IllegalAction, "time to discard"):
        bh.apply(state, Play(0, mine[0]))
    with refused(IllegalAction, "time to discard"):
        bh.apply(state, Cut(state.non_dealer))


# ---------------------------------------------------------------- cut and the Chief R6


def discard_both(state: State) -> State:
    for seat in (0, 1):
        state, _ = bh.apply(state, bh.legal_actions(state, seat)[0])
    return state


def test_the_non_dealer_cuts_and_a_personality_up_card_is_two_for_the_chief():
    chief = plain = False
    for seed in range(200):
        state = discard_both(bh.start(seed)[0])
        with pytest.raises(NotYourTurn):
            bh.apply(state, Cut(state.dealer))
        top = state.deck[0]
        after, ev = bh.apply(state, Cut(state.non_dealer))
        assert ev[0] == UpCardTurned(state.non_dealer, top)
        assert after.up == top and len(after.deck) == len(state.deck) - 1
        gained = after.scores[state.dealer] - state.scores[state.dealer]
        if top.personality:
            chief = True
            assert ev[1] == PointsScored(
                state.dealer, 2, "2 for the Chief", (top,), after.scores[state.dealer]
            )
            assert gained == 2
        else:
            plain = True
            assert gained == 0 and len(ev) == 1
        assert after.phase is Phase.PLAY and bh.waiting_for(after) == (state.non_dealer,)
    assert chief and plain


def test_two_for_the_chief_can_win_the_game():
    for seed in range(200):
        state = discard_both(bh.start(seed)[0])
        if state.deck[0].personality:
            break
    else:
        pytest.fail("no seed turned a personality")
    state = replace(state, scores=(119, 119))
    after, ev = bh.apply(state, Cut(state.non_dealer))
    assert ev[-1] == GameWon(state.dealer, "target", after.scores)
    assert bh.is_over(after) and bh.final_result(after).winners == (state.dealer,)
    assert bh.waiting_for(after) == ()


# ---------------------------------------------------------------- the play R7/R8


def test_play_errors():
    state = play_state("sea, end, ace of moons", "calamity, windfall, mill", "journey")
    with refused(NotYourTurn, r"It is not your turn\."):
        bh.apply(state, Play(0, card("calamity")))
    with refused(IllegalAction, r"You don't hold that card\."):
        bh.apply(state, Play(1, card("calamity")))
    state, _ = bh.apply(state, Play(1, card("sea")))
    state, _ = bh.apply(state, Play(0, card("calamity")))
    with refused(IllegalAction, "past 23"):
        bh.apply(state, Play(1, card("end")))
    assert bh.legal_actions(state, 1) == [Play(1, card("ace of moons"))]


def test_automatic_go_and_one_for_last():
    state = play_state("sea, end, ace of moons", "calamity, windfall, mill", "journey", scores=(50, 50))
    state, ev = bh.apply(state, Play(1, card("sea")))
    state, ev = bh.apply(state, Play(0, card("calamity")))
    assert [e for e in ev if isinstance(e, PointsScored)] == [
        PointsScored(0, 2, "2 for a pair", cards("sea, calamity"), 52)
    ]
    state, ev = bh.apply(state, Play(1, card("ace of moons")))
    # The dealer cannot play on 21 and goes; the non-dealer cannot either: the play ends.
    assert ev[:4] == [
        CardPlayed(1, card("ace of moons"), 21),
        WentGo(0),
        PointsScored(1, 1, "1 for last", (card("ace of moons"),), 51),
        PlayEnded(21),
    ]
    assert sum(isinstance(e, WentGo) for e in ev) == 1


def test_the_other_player_plays_on_alone_after_a_go():
    state = play_state("sea, end, ace of moons", "calamity, harvest, ace of suns", "journey")
    state, _ = bh.apply(state, Play(1, card("sea")))
    state, _ = bh.apply(state, Play(0, card("calamity")))
    state, ev = bh.apply(state, Play(1, card("ace of moons")))  # 21
    assert ev == [CardPlayed(1, card("ace of moons"), 21)]
    state, ev = bh.apply(state, Play(0, card("ace of suns")))  # 22, a pair; the non-dealer only holds the End
    assert WentGo(1) in ev and bh.waiting_for(state) == (0,)
    state, ev = bh.apply(state, Play(0, card("harvest")))  # 22, plays on alone, then the play ends
    assert ev[:3] == [
        CardPlayed(0, card("harvest"), 22),
        PointsScored(0, 1, "1 for last", (card("harvest"),), state.scores[0] - _show_points(ev, 0)),
        PlayEnded(22),
    ]
    assert sum(isinstance(e, WentGo) for e in ev) == 0


def _show_points(events: list, seat: int) -> int:
    total = 0
    for e in events:
        if isinstance(e, HandCounted) and e.seat == seat:
            total += e.total
        if isinstance(e, ShortageClaimed) and e.claimant == seat:
            total += e.points
    return total


def test_no_point_for_last_on_23_and_zero_cards_score_23_again():
    state = play_state("sea, journey, rite", "calamity, windfall, mill", "ace of moons")
    state, _ = bh.apply(state, Play(1, card("sea")))
    state, _ = bh.apply(state, Play(0, card("calamity")))
    state, ev = bh.apply(state, Play(1, card("journey")))  # 23
    assert PointsScored(1, 3, "23 for 3", cards("sea, calamity, journey"), 13) in ev
    assert WentGo(0) in ev and bh.waiting_for(state) == (1,)
    state, ev = bh.apply(state, Play(1, card("rite")))  # the Court keeps 23: "23 for 3" again
    scored = [e for e in ev if isinstance(e, PointsScored)]
    assert scored[0].reason == "23 for 3" and scored[0].seat == 1
    assert not [e for e in scored if e.reason == "1 for last"]
    assert PlayEnded(23) in ev


def test_no_point_for_last_on_11_when_both_are_out():
    state = play_state("ace of moons, author, borderland", "ace of suns, cave, island", "sea")
    seq = ["ace of moons", "ace of suns", "author", "cave", "borderland", "island"]
    events: list = []
    for i, name in enumerate(seq):
        state, ev = bh.apply(state, Play(1 - i % 2, card(name)))
        events += ev
    scored = [(e.seat, e.reason) for e in events if isinstance(e, PointsScored)]
    play_scores = scored[: scored.index((0, "11 for 2")) + 3]
    assert play_scores == [(0, "2 for a pair"), (0, "11 for 2"), (1, "11 for 2"), (0, "11 for 2")]
    assert PlayEnded(11) in events
    assert (0, "1 for last") not in scored and (1, "1 for last") not in scored


def test_six_aces_is_game():
    state = play_state(
        "ace of moons, ace of waves, ace of wyrms", "ace of suns, ace of leaves, ace of knots", "sea"
    )
    state, events = play_out(state)
    reasons = [(e.seat, e.reason) for e in events if isinstance(e, PointsScored)]
    assert reasons == [
        (0, "2 for a pair"),
        (1, "6 for three"),
        (0, "12 for four"),
        (1, "20 for five"),
        (0, "Game!"),
        (0, "6 for bharg"),  # six Aces carry the six suits: every combination is scored, then Game!
    ]
    assert events[-1] == GameWon(0, "game", state.scores)
    result = bh.final_result(state)
    assert result.winners == (0,) and result.how == "game" and not result.muggins
    assert state.scores == (10 + 2 + 12 + 6, 10 + 6 + 20)


def test_bharg_extended_by_the_excuse_in_the_play():
    state = play_state("light keeper, excuse, sea", "rite, forest, end", "ace of moons")
    state, _ = bh.apply(state, Play(1, card("light keeper")))
    state, ev = bh.apply(state, Play(0, card("rite")))
    assert PointsScored(0, 6, "6 for bharg", cards("light keeper, rite"), 16) in ev
    # The opponent answers with the Excuse and scores the bharg again.
    state, ev = bh.apply(state, Play(1, card("excuse")))
    assert PointsScored(1, 6, "6 for bharg", cards("light keeper, rite, excuse"), 16) in ev
    # A card that repeats a suit breaks it: the Forest (Moons, Leaves) after the bharg scores nothing.
    state, ev = bh.apply(state, Play(0, card("forest")))
    assert not [e for e in ev if isinstance(e, PointsScored) and e.reason == "6 for bharg"]


def test_runs_in_the_play_with_the_sequences_option():
    for sequences, expected in ((True, [(1, "3 for a run")]), (False, [])):
        state = play_state(
            "ace of moons, journey, sea",
            "author, end, bard",
            "mill",
            options=Options(sequences=sequences),
        )
        state, _ = bh.apply(state, Play(1, card("ace of moons")))
        state, _ = bh.apply(state, Play(0, card("author")))
        state, ev = bh.apply(state, Play(1, card("journey")))
        assert [(e.seat, e.reason) for e in ev if isinstance(e, PointsScored)] == expected


# ---------------------------------------------------------------- the show R9–R11


def test_show_order_counts_and_shortage_then_next_deal():
    state = play_state("forest, discovery, soldier", "sea, end, ace of suns", "mill", dealer=0)
    before = state
    state, events = play_out(state)
    shows = [e for e in events if isinstance(e, HandCounted | ShortageClaimed)]
    assert [(type(e).__name__, getattr(e, "seat", getattr(e, "claimant", None))) for e in shows] == [
        ("HandCounted", 1),
        ("ShortageClaimed", 0),
        ("HandCounted", 0),
        ("ShortageClaimed", 1),
        ("HandCounted", 0),
        ("ShortageClaimed", 1),
    ]
    up = before.up
    assert up is not None
    nd_count, _, d_count, _, bh_count, _ = shows
    assert isinstance(nd_count, HandCounted) and nd_count.cards == before.kept[1]
    assert nd_count.total == count_hand(before.kept[1], up).total
    assert isinstance(d_count, HandCounted) and d_count.total == count_hand(before.kept[0], up).total
    assert isinstance(bh_count, HandCounted) and bh_count.kind == "bhargage"
    assert bh_count.total == count_hand(before.bhargage, up, bhargage=True).total
    assert shows[1].points == shortage((*before.kept[1], up))  # type: ignore[union-attr]
    assert shows[5].points == shortage((*before.bhargage, up))  # type: ignore[union-attr]
    # Scores are the sum of everything announced.
    for seat in (0, 1):
        gained = sum(e.points for e in events if isinstance(e, PointsScored) and e.seat == seat)
        gained += _show_points(events, seat)
        assert state.scores[seat] == 10 + gained
    assert events[-1] == HandDealt(2, 1)
    assert state.phase is Phase.DISCARD and state.dealer == 1 and state.hand_no == 2
    assert len(state.hands[0]) == len(state.hands[1]) == 5


def test_a_win_mid_show_stops_the_later_counts():
    hands = ("forest, discovery, soldier", "sea, end, ace of suns", "mill")
    _, events = play_out(play_state(*hands, dealer=0))
    nd_hand = next(e for e in events if isinstance(e, HandCounted))
    assert nd_hand.seat == 1 and nd_hand.total > 0
    nd_play = points_in_play(events, 1)
    d_play = points_in_play(events, 0)
    target = 121
    start_scores = (50, target - nd_play - nd_hand.total)  # the non-dealer's hand reaches exactly 121
    assert start_scores[0] + d_play < target
    state, events = play_out(play_state(*hands, dealer=0, scores=start_scores))
    assert [type(e) for e in events if isinstance(e, HandCounted | ShortageClaimed)] == [HandCounted]
    assert events[-1] == GameWon(1, "target", state.scores)
    assert state.scores[1] == target
    result = bh.final_result(state)
    assert result.how == "target" and not result.muggins and result.winners == (1,)


def test_a_win_on_a_shortage_claim_is_muggins():
    hands = ("journey, lunatic, forest", "sea, end, ace of suns", "mill")  # Moons, Waves, Leaves only
    _, events = play_out(play_state(*hands, dealer=0))
    claim = next(e for e in events if isinstance(e, ShortageClaimed))
    assert claim.claimant == 0 and claim.owner == 1
    assert claim.points == shortage((*cards(hands[0]), card(hands[2]))) == 6
    d_play = points_in_play(events, 0)
    start_scores = (121 - d_play - claim.points, 50)
    state, events = play_out(play_state(*hands, dealer=0, scores=start_scores))
    assert events[-1] == GameWon(0, "muggins", state.scores)
    assert [type(e) for e in events if isinstance(e, HandCounted | ShortageClaimed)] == [
        HandCounted,
        ShortageClaimed,
    ]
    result = bh.final_result(state)
    assert result.muggins and result.how == "muggins" and result.winners == (0,)


def test_friends_of_the_chief_in_the_show_but_not_the_bhargage():
    state = play_state(
        "author, painter, forest", "sea, end, ace of suns", "huntress", bhargage="lunatic, mill, cave, pact"
    )
    _, events = play_out(state)
    counted = [e for e in events if isinstance(e, HandCounted)]
    friends = {e.kind: [i for i in e.items if i.reason == "1 for the Chief's Friend"] for e in counted[::2]}
    assert len(friends["hand"]) == 2
    assert friends["bhargage"] == []


# ---------------------------------------------------------------- resign, text, view


@pytest.mark.parametrize("how", ["resign", "forfeit"])
def test_resign_and_forfeit_end_the_game_at_once(how):
    state, _ = bh.start(3)
    state, ev = bh.apply(state, Resign(1, how))
    assert ev == [GameWon(0, how, state.scores)]
    nothing = (None, None)  # no hand was counted
    assert bh.final_result(state) == bh.Result(state.scores, (0,), False, how, nothing)
    with pytest.raises(GameOver):
        bh.apply(state, Resign(0))
    assert bh.legal_actions(state, 0) == [] and bh.waiting_for(state) == ()


def test_final_result_needs_a_finished_game():
    with pytest.raises(IllegalAction):
        bh.final_result(bh.start(3)[0])


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("0 discard author ace-moons", Discard(0, (card("author"), card("ace of moons")))),
        ("1 cut", Cut(1)),
        ("0 play forest", Play(0, card("forest"))),
        ("1 play light-keeper", Play(1, card("light keeper"))),
        ("1 resign", Resign(1)),
        ("0 forfeit", Resign(0, "forfeit")),
    ],
)
def test_action_text_round_trips(text, action):
    assert bh.parse_action(text) == action
    assert bh.action_text(action) == text


@pytest.mark.parametrize(
    "text", ["", "play forest", "2 play forest", "0 play", "0 play forrest", "0 discard forest", "0 dance"]
)
def test_bad_action_text(text):
    with pytest.raises(BadActionText):
        bh.parse_action(text)


def test_view_hides_the_other_hand_and_the_bhargage():
    state = play_state("forest, discovery, soldier", "sea, end, ace of suns", "mill", dealer=0)
    v = bh.view(state, 1)
    assert v.hand == cards("forest, discovery, soldier")
    assert v.opponent_hand_size == 3 and v.bhargage_size == 4
    assert v.to_move == 1 and v.legal == tuple(bh.legal_actions(state, 1))
    assert v.discard == state.bhargage[:2]  # the non-dealer's own two, laid first
    text = repr(v)
    for hidden in (*state.hands[0], *state.bhargage[2:], *state.deck):
        assert repr(hidden) not in text
