"""Rules review: edge cases of RULES.md (R1–R13, D1–D10) the other test files leave open.

Each test names the ruling it pins down. The two reference checks at the end re-derive the rules from the
text with plain brute force (no engine helpers), so a drift in the engines' faster code shows up here.
"""

import itertools
import random
from collections import Counter
from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest

from bot.render.refusals import said
from bot.rules import bhargage as bh
from bot.rules import deluxe as D
from bot.rules.bhargage import GameWon, HandCounted, Options, Phase, Play, PlayEnded, PointsScored, WentGo
from bot.rules.bhargage_scoring import count_hand, peg_points
from bot.rules.decktet import (
    ALL_SUITS,
    BASIC_CARDS,
    COURTS,
    PAWNS,
    Card,
    Rank,
    Suit,
    card,
    cards,
)
from bot.rules.deluxe_melds import Meld, bharg_sets, find_partial, positions
from bot.rules.errors import GameOver, IllegalAction, RulesError
from tests.refusing import refused
from tests.test_bhargage_engine import play_state

# ---------------------------------------------------------------- check() against apply(), both games


def reads_as_sentence(message: str) -> bool:
    """A message shown to a player as it is: a capital (or an opening quote) first, a full stop last."""
    return (message[0].isupper() or message[0] == "“") and message.endswith((".", "?")) and "{" not in message


def check_agrees(game: ModuleType, state: Any, action: Any) -> RulesError | None:
    """``check`` raises exactly what ``apply`` raises (same type, same message) and ``can`` agrees.

    Returns apply's error (None when the action is legal); every error must read as a sentence.
    """
    try:
        game.apply(state, action)
        applied = None
    except RulesError as err:
        applied = err
    try:
        assert game.check(state, action) is None
        checked = None
    except RulesError as err:
        checked = err
    assert type(checked) is type(applied), (action, checked, applied)
    assert said(checked) == said(applied)
    assert game.can(state, action) is (applied is None)
    if applied is not None:
        assert reads_as_sentence(said(applied)), said(applied)
    return applied


def check_odd_actions(game: ModuleType, state: Any, odd: Any, seen: Counter[str]) -> None:
    """Every odd action (``(action, sure_to_fail)`` pairs) is refused by ``check`` exactly as by ``apply``;
    after the end, all of them are refused as GameOver. Counts the refusals seen, by message."""
    over = game.is_over(state)
    for action, sure in odd:
        err = check_agrees(game, state, action)
        if sure or over:
            assert err is not None, action
        if over:
            assert isinstance(err, GameOver)
        if err is not None:
            seen[f"{type(err).__name__}: {said(err)}"] += 1


# ---------------------------------------------------------------- Bhargage helpers


def plays(state: bh.State, *moves: tuple[int, str]) -> tuple[bh.State, list[bh.Event]]:
    events: list[bh.Event] = []
    for seat, name in moves:
        state, ev = bh.apply(state, Play(seat, card(name)))
        events += ev
    return state, events


def reasons(items: list) -> Counter:
    return Counter(it.reason for it in items)


# ---------------------------------------------------------------- R7 "go" and R8 "1 for last"


def test_r7_a_player_out_of_cards_does_not_say_go_and_the_other_plays_on_alone():
    state = play_state("ace of moons, ace of suns, ace of waves", "sea, excuse, consul", "mill")
    state, events = plays(
        state,
        (1, "ace of moons"),  # 1
        (0, "sea"),  # 11 for 2
        (1, "ace of suns"),  # 12
        (0, "excuse"),  # 12
        (1, "ace of waves"),  # 13: the non-dealer has no cards left
    )
    assert state.hands[1] == () and bh.waiting_for(state) == (0,)
    state, last = plays(state, (0, "consul"))
    events += last
    assert not [e for e in events if isinstance(e, WentGo)]
    scored = [(e.seat, e.reason) for e in events if isinstance(e, PointsScored)]
    assert scored == [(0, "11 for 2"), (0, "1 for last")]
    assert PlayEnded(13) in last


def test_r8_zero_value_cards_answer_each_other_on_eleven_then_one_for_last():
    state = play_state("sea, excuse, end", "ace of moons, consul, watchman", "mill")
    state, events = plays(
        state,
        (1, "sea"),  # 10
        (0, "ace of moons"),  # 11 for 2
        (1, "excuse"),  # still 11: "11 for 2" again, for the other player
        (0, "consul"),  # and again
        (1, "end"),  # 21
        (0, "watchman"),  # 21: both out, 1 for last
    )
    scored = [(e.seat, e.points, e.reason) for e in events if isinstance(e, PointsScored)]
    assert scored[:4] == [(0, 2, "11 for 2"), (1, 2, "11 for 2"), (0, 2, "11 for 2"), (0, 1, "1 for last")]
    assert PlayEnded(21) in events


# ---------------------------------------------------------------- R11 a win in the play ends the game


def test_r11_a_win_in_the_play_stops_the_game_before_last_card_and_show():
    state = play_state("sea, end, calamity", "ace of moons, bard, windfall", "mill", scores=(119, 50))
    state, ev = plays(state, (1, "sea"))
    with_win = bh.apply(state, Play(0, card("ace of moons")))
    state, ev = with_win
    assert [type(e) for e in ev] == [bh.CardPlayed, PointsScored, GameWon]
    assert ev[-1] == GameWon(0, "target", (121, 50))
    assert not [e for e in ev if isinstance(e, PlayEnded | HandCounted)]
    result = bh.final_result(state)
    assert result.winners == (0,) and result.how == "target" and not result.muggins
    with pytest.raises(GameOver):
        bh.apply(state, Play(1, card("end")))


# ---------------------------------------------------------------- R8 pegging corner cases


def test_r8_sets_go_by_rank_not_value_four_pawns_score_twelve():
    pawns = cards("watchman, light keeper, borderland, harvest")
    assert reasons(peg_points(pawns)) == Counter({"12 for four": 1})
    assert peg_points(pawns)[0].points == 12
    # a Pawn and a Court are both worth 0 but are different ranks: no pair; nor with the Excuse
    assert peg_points(cards("watchman, consul")) == []
    assert peg_points(cards("watchman, excuse")) == []
    # an interleaved card of another rank breaks the set even though it adds nothing to the count
    assert reasons(peg_points(cards("watchman, excuse, harvest"))) == Counter()


def test_r8_the_excuse_inside_a_pegging_bharg_is_one_bharg():
    items = peg_points(cards("light keeper, excuse, rite"))
    assert reasons(items) == Counter({"6 for bharg": 1})
    assert items[0].cards == cards("light keeper, excuse, rite")
    # the Excuse leading a bharg: two tails qualify, still scored once (the shortest tail)
    items = peg_points(cards("excuse, light keeper, rite"))
    assert [(it.reason, it.cards) for it in items] == [("6 for bharg", cards("light keeper, rite"))]


# ---------------------------------------------------------------- R9 Friends, R12 runs in the show


def test_r9_the_personality_up_card_is_not_its_own_friend():
    hc = count_hand(cards("sea, end, calamity"), card("huntress"))
    assert not [it for it in hc.items if it.reason == "1 for the Chief's Friend"]
    hc = count_hand(cards("bard, sea, end"), card("huntress"))  # the Bard is a Personality Crown
    friends = [it.cards for it in hc.items if it.reason == "1 for the Chief's Friend"]
    assert friends == [(card("bard"),)]


def test_r12_excuse_ace_two_with_three_aces_is_a_triple_run():
    hc = count_hand(
        cards("ace of moons, ace of suns, ace of waves, excuse"),
        card("author"),
        bhargage=True,
        sequences=True,
    )
    runs = [it for it in hc.items if it.reason.endswith("for a run")]
    assert [it.points for it in runs] == [3, 3, 3]
    assert all(card("excuse") in it.cards and card("author") in it.cards for it in runs)
    plain = count_hand(
        cards("ace of moons, ace of suns, ace of waves, excuse"), card("author"), bhargage=True
    )
    assert hc.total == plain.total + 9


def test_r12_two_pairs_in_a_run_make_four_runs():
    hc = count_hand(cards("ace of moons, ace of suns, author"), card("desert"), sequences=True)
    assert sum(it.points for it in hc.items if it.reason.endswith("for a run")) == 0  # A A 2 2: no 3
    hc = count_hand(
        cards("ace of moons, ace of suns, author, desert"), card("journey"), bhargage=True, sequences=True
    )
    runs = [it for it in hc.items if it.reason.endswith("for a run")]
    assert len(runs) == 4 and {it.points for it in runs} == {3}
    assert len({frozenset(it.cards) for it in runs}) == 4


def test_r12_crown_does_not_wrap_in_the_show():
    hc = count_hand(
        cards("sea, excuse, ace of moons"), card("journey"), sequences=True
    )  # Crown, Excuse, Ace, 3
    assert not [it for it in hc.items if it.reason.endswith("for a run")]


# ---------------------------------------------------------------- Deluxe helpers


def dx(players: int = 2, options: D.Options | None = None, seed: str = "review") -> D.State:
    state, _ = D.start(seed, players, options or D.Options())
    return state


def at_bind(
    *,
    hand: str,
    bound: dict[int, list[Meld]] | None = None,
    ace: str | None = None,
    options: D.Options | None = None,
    players: int = 2,
) -> D.State:
    state = dx(players, options)
    hands: list[tuple[Card, ...]] = [() for _ in range(players)]
    hands[0] = cards(hand)
    return replace(
        state,
        turn=0,
        phase=D.Phase.BIND,
        hands=tuple(hands),
        bound=tuple(tuple((bound or {}).get(s, [])) for s in range(players)),
        ace_pile=(card(ace),) if ace else (),
        first_turn=False,
    )


def bharg(names: str) -> Meld:
    return Meld("bharg set", cards(names))


def go_out_on_first_turn(state: D.State) -> tuple[D.State, list[D.Event]]:
    """The seat to move holds two cards and draws the third of a bharg set: out on this turn."""
    seat = state.turn
    state = replace(
        state, hands=D._set(state.hands, seat, cards("painter, forest")), deck=(*state.deck, card("cave"))
    )
    state, events = D.apply(state, D.Draw(seat))
    state, more = D.apply(state, D.Bind(seat, cards("painter, forest, cave")))
    return state, events + more


# ---------------------------------------------------------------- D3 rotation, D4 draw, D7 exception


def test_d3_with_two_players_the_one_who_went_second_starts_the_next_hand():
    state = dx(2)
    first = state.first_seat
    for hand_no, starter in ((1, first), (2, 1 - first), (3, first)):
        assert state.hand_no == hand_no and state.first_seat == starter == state.turn
        state, events = go_out_on_first_turn(state)
        assert events[-1] == D.FinalBindOffered(1 - starter)
        state, events = D.apply(state, D.Done(1 - starter))
        assert any(isinstance(e, D.HandScored) for e in events)


def test_d4_a_turn_draws_from_the_deck_or_the_queue_never_both():
    state = dx(2)
    seat = state.turn
    assert state.queue
    drew, _ = D.apply(state, D.Draw(seat))
    with refused(IllegalAction, "can't take"):
        D.apply(drew, D.TakeQueue(seat, 1))
    took, _ = D.apply(state, D.TakeQueue(seat, 1))
    with refused(IllegalAction, "can't draw"):
        D.apply(took, D.Draw(seat))


def test_d7_only_the_first_players_first_turn_gives_the_others_a_final_bind():
    state = dx(3)
    first = state.first_seat
    state, _ = D.apply(state, D.Draw(first))
    state, _ = D.apply(state, D.Discard(first, next(c for c in state.hands[first] if c.rank != Rank.ACE)))
    second = (first + 1) % 3
    assert state.turn == second
    state, events = go_out_on_first_turn(state)  # the second player's own first turn
    assert D.PlayerWentOut(second) in events
    assert not [e for e in events if isinstance(e, D.FinalBindOffered)]
    assert any(isinstance(e, D.HandScored) for e in events) and state.hand_no == 2


def test_d7_fast_start_1_restart_keeps_the_first_turn_exception():
    state = replace(dx(2, D.Options(fast_start=1)), ace_pile=())
    seat = state.turn
    state = replace(
        state,
        hands=D._set(state.hands, seat, cards("painter, forest")),
        deck=(*state.deck, card("cave"), card("ace of suns")),
    )
    state, events = D.apply(state, D.Draw(seat))
    assert events == [D.AceDrawnToPile(seat, card("ace of suns"))] and state.first_turn
    state, _ = D.apply(state, D.Draw(seat))
    state, events = D.apply(state, D.Bind(seat, cards("painter, forest, cave")))
    assert events[-1] == D.FinalBindOffered(1 - seat)


# ---------------------------------------------------------------- D5 Pawns and Courts in bharg sets


def test_d5_pawns_and_courts_give_all_three_suits_and_a_set_needs_three_cards():
    assert D.is_bharg_set(cards("watchman, discovery, end"))  # M Y K + S W + L
    assert D.is_bharg_set(cards("harvest, cave, windfall"))  # M S L + W Y + K
    assert not D.is_bharg_set(cards("light keeper, rite"))  # all six suits, but only two cards (D5)
    assert not D.is_bharg_set(cards("harvest, island, windfall"))  # Suns twice
    state = at_bind(hand="watchman, discovery, end, sea", options=D.Options(pawns=True))
    state, events = D.apply(state, D.Bind(0, cards("watchman, discovery, end")))
    assert events[0].kind == "bharg set"
    state, events = D.apply(state, D.Discard(0, card("sea")))
    row = next(e for e in events if isinstance(e, D.HandScored)).rows[0]
    assert row.bound_points == 3 + 2 + 1  # D2: Pawn 3, number 2, Crown 1


# ---------------------------------------------------------------- D6 straights


def test_d6_straight_suit_is_the_top_of_the_ace_pile():
    state = replace(dx(2), ace_pile=cards("ace of knots, ace of moons"))
    assert D.straight_suit(state) == Suit.MOONS
    seen_many = False
    for seed in range(400):
        state, events = D.start(seed, 2, D.Options())
        turned = [e.card for e in events if isinstance(e, D.AceTurned)]
        assert state.ace_pile == tuple(turned)
        if len(turned) >= 2:
            seen_many = True
            assert D.straight_suit(state) == turned[-1].suits[0]
            assert events[0].straight_suit == turned[-1].suits[0]
    assert seen_many


def test_d6_nine_and_crown_are_adjacent_only_without_pawns_and_courts():
    table = {1: [bharg("betrayal, mountain, mill"), bharg("merchant, pact, darkness")]}  # 8 and 9 of Knots
    for opts, ok in (
        (D.Options(), True),
        (D.Options(pawns=True), False),
        (D.Options(courts=True), False),
    ):
        state = at_bind(hand="windfall, sea", bound=table, ace="ace of knots", options=opts)
        if ok:
            _, events = D.apply(state, D.Bind(0, cards("windfall")))
            assert events[0] == D.MeldBound(
                0, "partial straight", cards("windfall"), ((1, cards("betrayal, merchant")),)
            )
        else:
            with pytest.raises(IllegalAction):
                D.apply(state, D.Bind(0, cards("windfall")))


def test_d6_a_partial_straight_builds_on_the_cards_of_another_partial_straight():
    state = at_bind(
        hand="chance meeting, diplomat, sea",
        bound={0: [bharg("painter, forest, cave")], 1: [bharg("desert, lunatic, merchant")]},
        ace="ace of moons",
    )
    state, _ = D.apply(state, D.Bind(0, cards("chance meeting")))  # 5-6-7 of Moons
    state, events = D.apply(state, D.Bind(0, cards("diplomat")))  # 6-7-8: the 7 is a partial straight's
    bound = events[0]
    assert bound.kind == "partial straight"
    assert dict(bound.used) == {0: cards("chance meeting"), 1: cards("lunatic")}


def test_d6_two_new_cards_around_a_whole_block():
    block = Meld("complete straight", cards("battle, soldier, market"))  # 4-5-6 of Knots
    assert find_partial(cards("painter, castle"), [(1, block)], Suit.KNOTS) == ((1, block.cards),)
    # two new cards of one rank are never a straight; nor a new card inside the block
    assert find_partial(cards("castle, castle"), [(1, block)], Suit.KNOTS) is None
    assert find_partial(cards("painter, soldier"), [(1, block)], Suit.KNOTS) is None


def test_d10_option_3_die_faces_name_the_suits_in_order():
    assert [s.die for s in Suit] == [1, 2, 3, 4, 5, 6]
    assert [s.value for s in Suit] == ["Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots"]


# ---------------------------------------------------------------- references straight from the text


def _partial_reference(
    new: tuple[Card, ...], table: list[tuple[int, Meld]], suit: Suit, pawns: bool, courts: bool
) -> bool:
    """D6 read literally: some window of 3+ ranks holds the new cards once each, and its other ranks are
    filled by loose table cards (bharg sets, partial straights) and whole complete straights, all in suit."""
    pos = positions(pawns=pawns, courts=courts)
    if not 1 <= len(new) <= 2 or any(c.rank not in pos or suit not in c.suits for c in new):
        return False
    mine = {pos[c.rank] for c in new}
    if len(mine) != len(new):
        return False
    loose = {
        pos[c.rank]
        for _, m in table
        if m.kind != "complete straight"
        for c in m.cards
        if c.rank in pos and suit in c.suits
    }
    blocks = []
    for _, m in table:
        if m.kind == "complete straight" and all(c.rank in pos and suit in c.suits for c in m.cards):
            ps = sorted(pos[c.rank] for c in m.cards)
            blocks.append(set(range(ps[0], ps[-1] + 1)))
    for a, b in itertools.combinations(range(len(pos)), 2):
        window = set(range(a, b + 1))
        if b - a < 2 or not mine <= window:
            continue
        for k in range(len(blocks) + 1):
            for chosen in itertools.combinations(blocks, k):
                covered: set[int] = set()
                fits = True
                for blk in chosen:
                    if not blk <= window - mine or blk & covered:
                        fits = False
                        break
                    covered |= blk
                if fits and window - mine - covered <= loose:
                    return True
    return False


def test_d6_partial_straight_search_agrees_with_a_literal_reading():
    rng = random.Random(20240601)
    found = 0
    for _ in range(2500):
        pawns, courts = rng.random() < 0.4, rng.random() < 0.4
        deck = [*BASIC_CARDS, *(PAWNS if pawns else ()), *(COURTS if courts else ())]
        order = sorted(positions(pawns=pawns, courts=courts).items(), key=lambda kv: kv[1])
        table: list[tuple[int, Meld]] = []
        for _ in range(rng.randint(0, 6)):
            kind = rng.choice("bcp")
            if kind == "b":
                sets = bharg_sets(rng.sample(deck, 15))
                if sets:
                    table.append((rng.randrange(3), Meld("bharg set", rng.choice(sets))))
            elif kind == "p":
                table.append((rng.randrange(3), Meld("partial straight", tuple(rng.sample(deck, 2)))))
            else:
                s = rng.choice(list(Suit))
                a = rng.randrange(len(order) - 2)
                run: list[Card] = []
                for rank, _ in order[a : a + rng.randint(3, 5)]:
                    options = [c for c in deck if c.rank == rank and s in c.suits]
                    if not options:
                        break
                    run.append(rng.choice(options))
                if len(run) >= 3:
                    table.append((rng.randrange(3), Meld("complete straight", tuple(run))))
        suit = rng.choice(list(Suit))
        pool = [c for c in deck if suit in c.suits] if rng.random() < 0.8 else deck
        new = tuple(rng.sample(pool, rng.randint(1, 2)))
        want = _partial_reference(new, table, suit, pawns, courts)
        got = find_partial(new, table, suit, pawns=pawns, courts=courts)
        assert (got is not None) == want, (new, table, suit, pawns, courts)
        found += want
    assert found > 100  # the sample really exercises bindable partial straights


def peg_reference(pile: list[Card], sequences: bool) -> int | None:
    """R8/R12 for the card just played; None for the sixth Ace ("Game!")."""
    total = {11: 2, 23: 3}.get(sum(c.value for c in pile), 0)
    n = 1
    while n < len(pile) and pile[-1 - n].rank == pile[-1].rank:
        n += 1
    if n == 6:
        return None
    total += n * (n - 1)
    for k in range(1, len(pile) + 1):
        suits = [s for c in pile[-k:] for s in c.suits]
        if len(suits) == 6 and set(suits) == ALL_SUITS:
            total += 6
            break
    if sequences:
        best = 0
        for k in range(3, len(pile) + 1):
            ranks = sorted(int(c.rank) for c in pile[-k:])
            if len(set(ranks)) == k and ranks[-1] - ranks[0] == k - 1:
                best = k
        total += best
    return total


def show_reference(hand: tuple[Card, ...], up: Card, bhargage: bool, sequences: bool) -> int:
    """R9/R12 over every combination of the 4 or 5 cards."""
    allc = (*hand, up)
    total = 0
    best = runs = 0
    for k in range(2, len(allc) + 1):
        for combo in itertools.combinations(allc, k):
            total += 2 if sum(c.value for c in combo) == 11 else 0
            suits = [s for c in combo for s in c.suits]
            total += 6 if len(suits) == 6 and set(suits) == ALL_SUITS else 0
            total += 2 if k == 2 and combo[0].rank == combo[1].rank else 0
            ranks = sorted(int(c.rank) for c in combo)
            if sequences and k >= 3 and len(set(ranks)) == k and ranks[-1] - ranks[0] == k - 1:
                best, runs = (k, 1) if k > best else (best, runs + (k == best))
    if up.personality and not bhargage:
        total += sum(c.personality for c in hand)
    return total + best * runs


def shortage_reference(cs: tuple[Card, ...]) -> int:
    n = 6 - len({s for c in cs for s in c.suits})
    return n * (n + 1) // 2


def test_r4_to_r11_whole_games_agree_with_a_literal_reading():
    """Random games, re-scored independently: Chief, the play with go and last, the show in order with
    shortage claims, the first win ending it (muggins only on a claim), and the deal alternating."""
    hows: Counter[str] = Counter()
    for g in range(250):
        rng = random.Random(g)
        opts = Options(target=rng.choice([61, 121]), sequences=g % 2 == 0)
        state, events = bh.start(g, 2, opts)
        assert state.dealer == next(e for e in events if isinstance(e, bh.DealerCut)).dealer
        dealer = state.dealer
        won: tuple[int, str] | None = None
        in_play = False
        while won is None:
            assert state.phase is Phase.DISCARD and state.dealer == dealer
            for seat in (0, 1):
                state, _ = bh.apply(state, rng.choice(bh.legal_actions(state, seat)))
            bhargage = state.bhargage
            sc = list(state.scores)
            state, _ = bh.apply(state, bh.Cut(1 - dealer))
            up = state.up
            assert up is not None
            if up.personality:
                sc[dealer] += 2
                if sc[dealer] >= opts.target:
                    won = (dealer, "target")
                    break
            kept = (state.hands[0], state.hands[1])
            hands = [list(kept[0]), list(kept[1])]
            pile: list[Card] = []
            turn, last = 1 - dealer, -1
            while True:
                count = sum(c.value for c in pile)
                legal = [c for c in hands[turn] if count + c.value <= 23]
                assert bh.waiting_for(state) == (turn,)
                assert sorted(a.card.index for a in bh.legal_actions(state, turn)) == sorted(  # type: ignore[union-attr]
                    c.index for c in legal
                )
                c = rng.choice(legal)
                state, _ = bh.apply(state, Play(turn, c))
                hands[turn].remove(c)
                pile.append(c)
                count += c.value
                points = peg_reference(pile, opts.sequences)
                if points is None:
                    won, in_play = (turn, "game"), True
                    break
                sc[turn] += points
                if sc[turn] >= opts.target:
                    won, in_play = (turn, "target"), True
                    break
                last = turn
                if any(count + x.value <= 23 for x in hands[1 - last]):
                    turn = 1 - last
                elif not any(count + x.value <= 23 for x in hands[last]):
                    break
                assert list(state.scores) == sc
            if won is not None:
                break
            if count not in (11, 23):
                sc[last] += 1
                if sc[last] >= opts.target:
                    won = (last, "target")
                    break
            counts = (
                (1 - dealer, kept[1 - dealer], False),
                (dealer, kept[dealer], False),
                (dealer, bhargage, True),
            )
            for owner, cs, is_bh in counts:
                sc[owner] += show_reference(cs, up, is_bh, opts.sequences)
                if sc[owner] >= opts.target:
                    won = (owner, "target")
                    break
                sc[1 - owner] += shortage_reference((*cs, up))
                if sc[1 - owner] >= opts.target:
                    won = (1 - owner, "muggins")
                    break
            if won is None:
                assert list(state.scores) == sc and not bh.is_over(state)
                dealer = 1 - dealer  # R4: the deal alternates
        assert bh.is_over(state)
        if in_play:  # the engine stops adding a card's items at the one that reaches the target
            assert state.scores[won[0]] >= opts.target and state.scores[1 - won[0]] == sc[1 - won[0]]
        else:
            assert list(state.scores) == sc
        result = bh.final_result(state)
        assert (result.winners, result.how, result.muggins) == ((won[0],), won[1], won[1] == "muggins")
        hows[won[1]] += 1
    assert hows["target"] and hows["muggins"]


def test_r8_r11_a_winning_card_scores_all_its_combinations_before_the_game_ends():
    """ "All combinations are scored": the card that crosses the target still pegs its other calls."""
    from bot.rules import bhargage as bh
    from bot.rules.decktet import card

    state = _bh_play_state_for_winning_card()
    state, events = bh.apply(state, bh.Play(1, card("ace of suns")))
    reasons = [e.reason for e in events if isinstance(e, bh.PointsScored)]
    assert reasons == ["11 for 2", "2 for a pair"]
    assert state.scores[1] == 119 + 2 + 2
    assert isinstance(events[-1], bh.GameWon) and events[-1].how == "target"


def _bh_play_state_for_winning_card():
    from bot.rules import bhargage as bh
    from bot.rules.decktet import card

    state = play_state("pact, ace of suns, sea", "ace of moons, end, calamity", "author", scores=(10, 119))
    state, _ = bh.apply(state, bh.Play(1, card("pact")))
    state, _ = bh.apply(state, bh.Play(0, card("ace of moons")))
    return state


def test_deluxe_result_names_the_seats_that_left():
    from bot.rules import deluxe as dx

    state, _ = dx.start(4, 3, dx.Options())
    state, _ = dx.apply(state, dx.Leave(1))
    assert not dx.is_over(state)
    state, _ = dx.apply(state, dx.Leave(2))
    result = dx.final_result(state)
    assert result.winners == (0,) and result.left == (False, True, True)


def test_deluxe_view_shows_the_drawn_card_only_to_its_drawer_during_its_turn():
    from bot.rules import deluxe as dx

    state, _ = dx.start(7, 3, dx.Options())
    seat = state.turn
    top = state.deck[-1]
    state, _ = dx.apply(state, dx.Draw(seat))
    assert dx.view(state, seat).drawn == top
    assert all(dx.view(state, other).drawn is None for other in range(3) if other != seat)
    card = dx.view(state, seat).hand[0]
    state, _ = dx.apply(state, dx.Discard(seat, card))
    assert all(dx.view(state, s).drawn is None for s in range(3))
    nxt = state.turn
    if state.queue:
        state, _ = dx.apply(state, dx.TakeQueue(nxt, 1))
        assert dx.view(state, nxt).drawn is None  # taken from the queue: public, not a secret draw
