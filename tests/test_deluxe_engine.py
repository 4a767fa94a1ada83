"""Bharg Deluxe state machine: setup (D3), turns (D4), hand end (D7, D8), scoring (D9), fast starts (D10),
leaving, options and the action text."""

import random
from collections import Counter
from dataclasses import replace

import pytest

from bot.rules import deluxe as D
from bot.rules.decktet import Card, Rank, Suit, card, cards, deluxe_deck
from bot.rules.errors import BadActionText, GameOver, IllegalAction, NotYourTurn
from tests.refusing import refused


def base(players: int = 2, options: D.Options | None = None, seed: str = "engine") -> D.State:
    state, _ = D.start(seed, players, options or D.Options())
    return state


def kinds(events: list[D.Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def zones(state: D.State) -> Counter[Card]:
    """Every card of the game, wherever it is (deck, queue, Ace Pile, hands, bound melds)."""
    c: Counter[Card] = Counter(state.deck) + Counter(state.queue) + Counter(state.ace_pile)
    for h in state.hands:
        c += Counter(h)
    for melds in state.bound:
        for m in melds:
            c += Counter(m.cards)
    return c


# --- setup ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_start_deals_ten_each_and_turns_aces_to_the_ace_pile(players: int):
    for seed in range(30):
        state, events = D.start(seed, players, D.Options())
        assert all(len(h) == 10 for h in state.hands)
        assert zones(state) == Counter(deluxe_deck())
        assert all(c.rank == Rank.ACE for c in state.ace_pile)
        assert len(state.queue) == 1 and state.queue[0].rank != Rank.ACE
        assert [e.card for e in events if isinstance(e, D.AceTurned)] == list(state.ace_pile)
        started = events[0]
        assert isinstance(started, D.HandStarted) and started.hand_no == 1
        assert started.first_seat == state.turn == state.first_seat
        assert started.queue == state.queue
        assert state.phase == D.Phase.DRAW and D.waiting_for(state) == (state.turn,)


def test_first_player_is_random_from_the_seed_and_reproducible():
    firsts = {D.start(seed, 4, D.Options())[0].first_seat for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert D.start("x", 4)[0] == D.start("x", 4)[0]
    some_ace_start = any(D.start(seed, 2)[0].ace_pile for seed in range(60))
    assert some_ace_start


def test_start_refuses_bad_player_counts_and_options():
    for n in (1, 7):
        with refused(D.BadOptions, "2 to 6 players"):
            D.start(1, n, D.Options())
    with refused(D.BadOptions, "Fast start"):
        D.Options(fast_start=4)
    with refused(D.BadOptions, "target"):
        D.Options(target=0)
    with refused(D.BadOptions, "no option called colour"):
        D.Options.from_dict({"colour": "red"})
    opts = D.Options(target=50, pawns=True, courts=False, fast_start=3)
    assert D.Options.from_dict(opts.to_dict()) == opts
    assert opts.to_dict() == {"target": 50, "pawns": True, "courts": False, "fast_start": 3}


# --- turns ------------------------------------------------------------------------------------------------


def test_draw_then_discard_passes_the_turn_in_seat_order():
    state = replace(base(3), turn=2, first_seat=2)
    deck_top = state.deck[-1]
    state, events = D.apply(state, D.Draw(2))
    assert events == [D.CardDrawn(2)] and deck_top in state.hands[2] and len(state.hands[2]) == 11
    assert state.phase == D.Phase.BIND
    with refused(IllegalAction, "already drawn"):
        D.apply(state, D.Draw(2))
    with pytest.raises(NotYourTurn):
        D.apply(state, D.Draw(0))
    non_ace = next(c for c in state.hands[2] if c.rank != Rank.ACE)
    state, events = D.apply(state, D.Discard(2, non_ace))
    assert events[0] == D.CardDiscarded(2, non_ace, "queue") and state.queue[-1] == non_ace
    assert events[-1] == D.TurnStarted(0) and state.turn == 0 and state.phase == D.Phase.DRAW


def test_take_from_the_queue_takes_the_top_n_from_the_top_down():
    state = base()
    q = cards("author, desert, origin, journey")
    state = replace(state, queue=q)
    seat = state.turn
    assert D.legal_actions(state, seat) == [D.Draw(seat), *(D.TakeQueue(seat, n) for n in range(1, 5))]
    with refused(IllegalAction, "holds only 4 cards"):
        D.apply(state, D.TakeQueue(seat, 5))
    after, events = D.apply(state, D.TakeQueue(seat, 3))
    assert events == [D.QueueTaken(seat, cards("journey, origin, desert"))]
    assert after.queue == cards("author") and after.hands[seat][-3:] == cards("journey, origin, desert")


def test_every_seat_sees_what_was_taken_from_the_queue_and_what_was_passed_over():
    """Issue 46: the cards a seat took from the Discard Queue stay known to everyone (its view and every
    other's) until it binds or discards them; the queue's top card a seat left when it drew from the deck is
    known as passed over; a new hand forgets both."""
    state = replace(base(3), ace_pile=(), die_suit=None)
    seat = state.turn
    state = replace(state, queue=cards("author, desert, origin, journey"))
    state, _ = D.apply(state, D.TakeQueue(seat, 2))
    taken = cards("journey, origin")
    assert D.view(state, (seat + 1) % 3).taken[seat] == taken and D.view(state, seat).passed[seat] == ()
    state, _ = D.apply(state, D.Discard(seat, card("origin")))
    assert D.view(state, -1).taken[seat] == cards("journey")
    after = (seat + 1) % 3
    state, _ = D.apply(state, D.Draw(after))
    assert D.view(state, seat).passed[after] == cards("origin")  # the queue's top it left for the deck
    assert D.view(state, seat).taken[after] == ()
    dealt = D._deal(state, state.hand_no + 1, seat, [])
    assert dealt.taken == ((), (), ()) and dealt.passed == ((), (), ())


def test_aces_are_discarded_onto_the_ace_pile_and_change_the_straight_suit():
    state = replace(base(), phase=D.Phase.BIND, ace_pile=(card("ace of knots"),))
    seat = state.turn
    state = replace(state, hands=D._set(state.hands, seat, cards("ace of moons, sea")))
    assert D.straight_suit(state) == Suit.KNOTS
    state, events = D.apply(state, D.Discard(seat, card("ace of moons")))
    assert events[0] == D.CardDiscarded(seat, card("ace of moons"), "ace pile")
    assert D.straight_suit(state) == Suit.MOONS


# --- end of hand (D7) and scoring (D9) --------------------------------------------------------------------


def test_going_out_by_discarding_ends_the_hand_and_scores_bound_minus_hand():
    state = base(3)
    seat = state.turn
    other = [s for s in range(3) if s != seat]
    hands = [(), (), ()]
    hands[seat] = cards("sea")
    hands[other[0]] = cards("watchman, author")  # -3 -2
    hands[other[1]] = ()
    bound = [(), (), ()]
    bound[seat] = (D.Meld("bharg set", cards("painter, forest, cave")),)  # +6
    bound[other[1]] = (D.Meld("bharg set", cards("desert, lunatic, merchant")),)  # +6
    state = replace(state, phase=D.Phase.BIND, hands=tuple(hands), bound=tuple(bound), first_turn=False)
    state, events = D.apply(state, D.Discard(seat, card("sea")))
    assert kinds(events)[:3] == ["CardDiscarded", "PlayerWentOut", "HandScored"]
    rows = {r.seat: r for r in next(e for e in events if isinstance(e, D.HandScored)).rows}
    assert (rows[seat].bound_points, rows[seat].hand_penalty, rows[seat].hand_score) == (6, 0, 6)
    assert (rows[other[0]].bound_points, rows[other[0]].hand_penalty, rows[other[0]].hand_score) == (0, 5, -5)
    assert rows[other[0]].total == -5 and state.totals[other[0]] == -5  # negative hand score and total
    assert rows[other[1]].hand_score == 6
    # the next hand starts with the next seat in order
    assert state.hand_no == 2 and state.first_seat == (seat + 1) % 3 == state.turn
    assert all(len(h) == 10 for h in state.hands) and state.bound == ((), (), ())


def test_first_player_going_out_on_their_first_turn_lets_the_others_bind_in_seat_order():
    state = base(3)
    first = state.first_seat
    s1, s2 = (first + 1) % 3, (first + 2) % 3
    hands = [(), (), ()]
    hands[first] = cards("painter, forest")
    hands[s1] = cards("desert, lunatic, merchant, author, sea")
    hands[s2] = cards("origin, journey")
    state = replace(state, hands=tuple(hands), deck=(*state.deck, card("cave")))
    state, _ = D.apply(state, D.Draw(first))
    state, events = D.apply(state, D.Bind(first, cards("painter, forest, cave")))
    assert kinds(events) == ["MeldBound", "PlayerWentOut", "FinalBindOffered"]
    assert events[-1] == D.FinalBindOffered(s1)
    assert state.phase == D.Phase.FINAL_BIND and D.waiting_for(state) == (s1,)
    assert D.legal_actions(state, s1) == [D.Done(s1)]
    with refused(IllegalAction, "can't discard"):
        D.apply(state, D.Discard(s1, card("sea")))
    with refused(IllegalAction, "can't draw"):
        D.apply(state, D.Draw(s1))
    assert any(m.cards == cards("desert, lunatic, merchant") for m in D.bindable_melds(state, s1))
    state, _ = D.apply(state, D.Bind(s1, cards("desert, lunatic, merchant")))
    state, events = D.apply(state, D.Done(s1))
    assert events == [D.FinalBindOffered(s2)]
    state, events = D.apply(state, D.Done(s2))
    scored = next(e for e in events if isinstance(e, D.HandScored))
    rows = {r.seat: r for r in scored.rows}
    assert rows[first].hand_score == 6
    assert (rows[s1].bound_points, rows[s1].hand_penalty) == (6, 3)
    assert (rows[s2].bound_points, rows[s2].hand_penalty) == (0, 4)


def test_going_out_after_the_first_turn_gives_no_final_bind():
    state = base(3)
    first = state.first_seat
    hands = [cards("sea") for _ in range(3)]
    hands[first] = cards("painter, forest")
    state = replace(state, hands=tuple(hands), deck=(*state.deck, card("cave")), first_turn=False)
    state, _ = D.apply(state, D.Draw(first))
    state, events = D.apply(state, D.Bind(first, cards("painter, forest, cave")))
    assert kinds(events)[:3] == ["MeldBound", "PlayerWentOut", "HandScored"]
    assert state.hand_no == 2


def test_the_first_turn_ends_when_the_turn_passes():
    state = base(2)
    first = state.first_seat
    state, _ = D.apply(state, D.Draw(first))
    assert state.first_turn
    state, _ = D.apply(state, D.Discard(first, next(c for c in state.hands[first] if c.rank != Rank.ACE)))
    assert not state.first_turn


# --- D8 empty deck (the amended ruling's cases are in test_deluxe_d8.py) ------------------------------------


def test_drawing_from_an_empty_deck_reshuffles_the_queue_except_its_top():
    state = base()
    seat = state.turn
    q = cards("author, desert, origin, journey, painter")
    state = replace(state, deck=(), queue=q)
    before = zones(state)
    after, events = D.apply(state, D.Draw(seat))
    assert events[:2] == [D.DeckReshuffled(4), D.CardDrawn(seat)]
    assert after.queue == cards("painter") and len(after.deck) == 3
    assert zones(after) == before
    assert Counter(after.deck) + Counter([after.hands[seat][-1]]) == Counter(q[:-1])
    again, _ = D.apply(state, D.Draw(seat))
    assert again == after  # seeded


def test_a_turn_starting_with_no_deck_and_no_queue_ends_the_hand_at_once():
    state = base()
    seat = state.turn
    state = replace(
        state,
        deck=(),
        queue=(),
        phase=D.Phase.BIND,
        hands=D._set(state.hands, seat, cards("ace of moons, sea")),
    )
    state, events = D.apply(state, D.Discard(seat, card("ace of moons")))
    assert kinds(events)[:4] == ["CardDiscarded", "TurnStarted", "DeckRanOut", "HandScored"]
    assert state.hand_no == 2


# --- D9 target and ties -----------------------------------------------------------------------------------


def test_a_tie_at_the_top_plays_another_hand_then_the_highest_total_wins():
    state = base(3, D.Options(target=50))
    empty = tuple(() for _ in range(3))
    state = replace(state, totals=(55, 55, 30), hands=empty, bound=empty, deck=(), queue=cards("sea"))
    state, events = D.apply(state, D.Draw(state.turn))
    assert D.TiePlayedOn((0, 1), 55) in events and not D.is_over(state) and state.hand_no == 2
    hands = [(), cards("sea"), ()]
    bound = [(D.Meld("bharg set", cards("painter, forest, cave")),), (), ()]
    state = replace(state, hands=tuple(hands), bound=tuple(bound), deck=(), queue=cards("end"))
    state, events = D.apply(state, D.Draw(state.turn))
    assert D.is_over(state) and events[-1] == D.GameWon((0,), (61, 54, 30))
    result = D.final_result(state)
    assert result.winners == (0,) and result.scores == (61, 54, 30) and not result.muggins
    assert D.waiting_for(state) == () and D.legal_actions(state, 0) == []
    with pytest.raises(GameOver):
        D.apply(state, D.Draw(state.turn))


def test_the_highest_total_wins_even_if_someone_else_reached_the_target_first():
    state = base(2, D.Options(target=10))
    state = replace(
        state,
        totals=(9, 30),
        hands=((), ()),
        bound=((D.Meld("bharg set", cards("painter, forest, cave")),), ()),
        deck=(),
        queue=(),
    )
    state = D._end_hand(state, [])
    assert state.winners == (1,) and state.totals == (15, 30)


# --- D10 fast starts --------------------------------------------------------------------------------------


def test_fast_start_1_puts_a_drawn_ace_on_the_empty_ace_pile_and_restarts_the_turn():
    state = replace(base(options=D.Options(fast_start=1)), ace_pile=())
    seat = state.turn
    state = replace(state, deck=(*state.deck, card("sea"), card("ace of waves")))
    hand = state.hands[seat]
    state, events = D.apply(state, D.Draw(seat))
    assert events == [D.AceDrawnToPile(seat, card("ace of waves"))]
    assert (
        state.ace_pile == (card("ace of waves"),)
        and state.phase == D.Phase.DRAW
        and state.hands[seat] == hand
    )
    state2 = replace(state, deck=(*state.deck, card("ace of moons")))
    state2, events = D.apply(state2, D.Draw(seat))  # the pile has an Ace now: this one is kept
    assert events == [D.CardDrawn(seat)] and state2.hands[seat][-1] == card("ace of moons")
    plain = replace(base(), ace_pile=(), deck=(*base().deck, card("ace of waves")))
    plain, events = D.apply(plain, D.Draw(plain.turn))
    assert events == [D.CardDrawn(plain.turn)] and not plain.ace_pile


def test_fast_start_2_forces_an_ace_discard_while_the_ace_pile_is_empty():
    state = replace(base(options=D.Options(fast_start=2)), ace_pile=(), phase=D.Phase.BIND)
    seat = state.turn
    state = replace(state, hands=D._set(state.hands, seat, cards("sea, ace of suns, end, ace of suns")))
    assert D.legal_actions(state, seat) == [D.Discard(seat, card("ace of suns"))]
    with refused(IllegalAction, "must discard an Ace"):
        D.apply(state, D.Discard(seat, card("sea")))
    after, _ = D.apply(state, D.Discard(seat, card("ace of suns")))
    assert after.ace_pile == (card("ace of suns"),)
    with_pile = replace(state, ace_pile=(card("ace of moons"),))
    assert len(D.legal_actions(with_pile, seat)) == 3
    D.apply(with_pile, D.Discard(seat, card("sea")))


def test_fast_start_3_rolls_a_die_for_the_straight_suit_until_a_real_ace_arrives():
    suits = set()
    for seed in range(40):
        state, events = D.start(seed, 2, D.Options(fast_start=3))
        rolled = [e for e in events if isinstance(e, D.DieRolled)]
        assert len(rolled) == 1 and rolled[0].suit.die == rolled[0].face and state.die_suit == rolled[0].suit
        expected = state.ace_pile[-1].suits[0] if state.ace_pile else rolled[0].suit
        assert D.straight_suit(state) == expected
        suits.add(rolled[0].suit)
    assert suits == set(Suit)
    state, _ = D.start(0, 2, D.Options(fast_start=3))
    state = replace(state, ace_pile=(), die_suit=Suit.KNOTS, phase=D.Phase.BIND)
    seat = state.turn
    state = replace(
        state, hands=D._set(state.hands, seat, cards("battle, soldier, market, ace of moons, sea"))
    )
    state, events = D.apply(state, D.Bind(seat, cards("battle, soldier, market")))
    assert events[0].kind == "complete straight"
    state, _ = D.apply(state, D.Discard(seat, card("ace of moons")))
    assert D.straight_suit(state) == Suit.MOONS
    assert not any(isinstance(e, D.DieRolled) for e in D.start(0, 2, D.Options())[1])


# --- Pawns and Courts -------------------------------------------------------------------------------------


def test_pawns_and_courts_in_straights_and_worth_three():
    opts = D.Options(pawns=True, courts=True)
    state = replace(base(options=opts), phase=D.Phase.BIND, ace_pile=(card("ace of knots"),))
    seat = state.turn
    assert zones(base(options=opts)) == Counter(deluxe_deck(pawns=True, courts=True))
    state = replace(state, hands=D._set(state.hands, seat, cards("merchant, light keeper, consul, sea")))
    state, events = D.apply(state, D.Bind(seat, cards("merchant, light keeper, consul")))
    assert events[0].kind == "complete straight"
    state = replace(state, hands=D._set(state.hands, seat, cards("windfall, sea")))
    state, events = D.apply(state, D.Bind(seat, cards("windfall")))
    assert events[0].kind == "partial straight"
    state = D._end_hand(replace(state, hands=D._set(state.hands, seat, cards("watchman"))), [])
    row = next(r for r in state.last_rows if r.seat == seat)
    assert (row.bound_points, row.hand_penalty) == (2 + 3 + 3 + 1, 3)
    no_pawns = replace(base(), phase=D.Phase.BIND, ace_pile=(card("ace of knots"),))
    no_pawns = replace(
        no_pawns, hands=D._set(no_pawns.hands, no_pawns.turn, cards("merchant, windfall, betrayal"))
    )
    _, events = D.apply(no_pawns, D.Bind(no_pawns.turn, cards("merchant, windfall, betrayal")))
    assert events[0].kind == "complete straight"  # without Pawns/Courts 9 and Crown are adjacent
    with pytest.raises(IllegalAction):
        D.apply(replace(no_pawns, options=opts), D.Bind(no_pawns.turn, cards("merchant, windfall, betrayal")))


# --- leaving ----------------------------------------------------------------------------------------------


def test_leaving_on_your_turn_passes_it_on_and_you_get_no_more_hands():
    state = base(3)
    seat = state.turn
    nxt = (seat + 1) % 3
    state, events = D.apply(state, D.Leave(seat))
    assert events == [D.SeatLeft(seat), D.TurnStarted(nxt)] and state.turn == nxt
    with refused(IllegalAction, "left"):
        D.apply(state, D.Draw(seat))
    assert D.legal_actions(state, seat) == []
    kept = state.hands[seat]
    state = D._end_hand(replace(state, bound=tuple(() for _ in range(3))), [])
    row = next(r for r in state.last_rows if r.seat == seat)
    assert row.hand_penalty == sum(D.card_points(c) for c in kept)  # scored as left
    assert state.hands[seat] == () and all(len(state.hands[s]) == 10 for s in range(3) if s != seat)
    assert state.first_seat != seat
    state, events = D.apply(state, D.Leave(state.first_seat))
    survivor = next(s for s in range(3) if not state.left[s])
    assert events[-1] == D.GameWon((survivor,), state.totals) and D.is_over(state)
    assert D.final_result(state).winners == (survivor,)


def test_leaving_out_of_turn_and_during_a_final_bind():
    state = base(4)
    seat = state.turn
    other = (seat + 2) % 4
    after, events = D.apply(state, D.Leave(other))
    assert events == [D.SeatLeft(other)] and after.turn == seat
    final = replace(
        state, phase=D.Phase.FINAL_BIND, turn=(seat + 1) % 4, final_binders=((seat + 2) % 4, (seat + 3) % 4)
    )
    final, events = D.apply(final, D.Leave((seat + 2) % 4))
    assert final.final_binders == ((seat + 3) % 4,)
    final, events = D.apply(final, D.Leave((seat + 1) % 4))
    assert events[-1] == D.FinalBindOffered((seat + 3) % 4)


def test_a_leaver_cannot_win_even_with_the_top_total():
    state = base(3, D.Options(target=10))
    state, _ = D.apply(state, D.Leave(0))
    empty = tuple(() for _ in range(3))
    state = D._end_hand(replace(state, totals=(50, 12, 11), hands=empty, bound=empty), [])
    assert state.winners == (1,)


# --- text and view ----------------------------------------------------------------------------------------


def test_action_text_round_trips_and_bad_text_is_refused():
    for text in ("2 draw", "2 take 3", "2 bind sea,end,calamity", "2 discard forest", "2 done", "2 leave"):
        assert D.action_text(D.parse_action(text)) == text
    assert D.parse_action("1 bind The Light Keeper, ace of moons") == D.Bind(
        1, (card("light keeper"), card("ace of moons"))
    )
    assert (
        D.action_text(D.Bind(0, cards("chance meeting, ace of knots"))) == "0 bind chance-meeting,ace-knots"
    )
    for bad in ("draw", "x draw", "2 take", "2 take two", "2 fly", "2 discard sea,end", "2 draw 3"):
        with pytest.raises(BadActionText):
            D.parse_action(bad)


def test_view_shows_own_hand_and_public_things_only():
    state = base(3)
    seat = (state.turn + 1) % 3
    secret = [cards("watchman, island"), cards("harvest, rite")]  # not in a basic deck: nowhere else
    hands = list(state.hands)
    hands[(seat + 1) % 3] = secret[0]
    hands[(seat + 2) % 3] = secret[1]
    state = replace(state, hands=tuple(hands))
    v = D.view(state, seat)
    assert v.hand == tuple(sorted(state.hands[seat], key=lambda c: (int(c.rank), c.index)))
    assert v.hand_sizes == tuple(len(h) for h in hands) and v.queue == state.queue
    assert v.deck_count == len(state.deck) and v.phase == D.Phase.DRAW
    assert v.turn == state.turn and v.first_seat == state.first_seat and v.hand_no == 1
    assert v.ace_pile_top == (state.ace_pile[-1] if state.ace_pile else None)
    text = repr(v)
    assert all(c.slug not in text for h in secret for c in h)
    assert all(c.slug in text for c in state.hands[seat])


def test_random_seeded_replay_reproduces_state():
    rng = random.Random(5)
    state, _ = D.start("r", 4, D.Options(fast_start=1))
    texts = []
    for _ in range(200):
        if D.is_over(state):
            break
        seat = D.waiting_for(state)[0]
        action = rng.choice(D.legal_actions(state, seat))
        texts.append(D.action_text(action))
        state, _ = D.apply(state, action)
    assert D.replay("r", 4, D.Options(fast_start=1), texts) == state


def test_hand_scores_list_each_scored_hand_per_seat_and_skip_hands_after_leaving():
    rng = random.Random(7)
    state, _ = D.start("hands", 3, D.Options(target=150))
    rows_seen: list[tuple[D.ScoreRow, ...]] = []
    left_at_hand = None
    while not D.is_over(state):
        seat = state.turn
        if state.hand_no == 2 and left_at_hand is None and state.phase == D.Phase.DRAW:
            other = (seat + 1) % 3
            state, events = D.apply(state, D.Leave(other))
            left_at_hand = state.hand_no
        else:
            melds = D.bindable_melds(state, seat)
            action = D.Bind(seat, melds[0].cards) if melds else rng.choice(D.legal_actions(state, seat))
            state, events = D.apply(state, action)
        rows_seen += [e.rows for e in events if isinstance(e, D.HandScored)]
    scores = D.hand_scores(state)
    assert len(rows_seen) >= 3 and left_at_hand == 2
    leaver = next(s for s in range(3) if state.left[s])
    for s in range(3):
        expected = [rows[s].hand_score for i, rows in enumerate(rows_seen) if s != leaver or i < 2]
        assert list(scores[s]) == expected
    assert len(scores[leaver]) == 2 < len(scores[(leaver + 1) % 3])
    assert [sum(scores[s]) for s in range(3)] == list(state.totals)
