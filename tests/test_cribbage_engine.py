"""The Classic Cribbage state machine (RULES.md C2–C9): built states and seed searches for the rulings, and
whole seeded games of 2, 3 and 4 players by random legal play, checked against invariants."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from bot.rules import cribbage as cr
from bot.rules.cribbage import (
    Action,
    BadOptions,
    CardPlayed,
    Claim,
    ClaimAwaited,
    ClaimMade,
    CountReset,
    CribMade,
    Cut,
    DealerCut,
    Event,
    GameWon,
    HandCounted,
    HandDealt,
    LaidAway,
    LayAway,
    MugginsTaken,
    Options,
    Phase,
    Play,
    PlayEnded,
    PointsScored,
    Resign,
    StarterTurned,
    State,
    WentGo,
)
from bot.rules.cribbage_scoring import show_total
from bot.rules.engine import Engine
from bot.rules.errors import BadActionText, GameOver, IllegalAction, NotYourTurn, RulesError
from bot.rules.pack52 import FULL_PACK, Card, card, cards
from bot.services.snapshots import codec

ENGINE: Engine = cr  # the module satisfies the Engine protocol (mypy checks this line)


def refusal(state: State, action: Action) -> RulesError:
    with pytest.raises(RulesError) as err:
        cr.apply(state, action)
    return err.value


# ---------------------------------------------------------------- built states


def play_state(
    hands: list[str],
    starter: str,
    *,
    dealer: int = 0,
    scores: tuple[int, ...] | None = None,
    options: Options | None = None,
    crib: str | None = None,
) -> State:
    """A state at the start of the play with these kept hands (seat by seat), the rest of the pack
    accounted for in the crib and the deck."""
    players = len(hands)
    base, _ = cr.start(1, players, options)
    held = tuple(cards(h) for h in hands)
    st = card(starter)
    used = {st, *(c for h in held for c in h)}
    spare = [c for c in FULL_PACK if c not in used]
    crib_cards = cards(crib) if crib is not None else tuple(spare[:4])
    used |= set(crib_cards)
    return replace(
        base,
        dealer=dealer,
        phase=Phase.PLAY,
        scores=scores if scores is not None else base.scores,
        hands=held,
        laid=tuple(() for _ in hands),
        kept=held,
        crib=crib_cards,
        deck=tuple(c for c in FULL_PACK if c not in used),
        starter=st,
        to_move=(dealer + 1) % players,
    )


def play(state: State, *moves: str) -> tuple[State, list[Event]]:
    """Apply moves given as action texts, collecting the events."""
    events: list[Event] = []
    for text in moves:
        state, ev = cr.apply(state, cr.parse_action(text))
        events += ev
    return state, events


def pegged(events: list[Event]) -> list[tuple[int, str, int]]:
    return [(e.seat, e.reason, e.points) for e in events if isinstance(e, PointsScored)]


def through_lay_away(seed: int, players: int, options: Options | None = None) -> State:
    """A new game with everyone's first legal lay-away made: at the cut."""
    st, _ = cr.start(seed, players, options)
    for seat in range(players):
        st, _ = cr.apply(st, cr.legal_actions(st, seat)[0])
    return st


# ---------------------------------------------------------------- options and start


def test_options_round_trip_and_refusals() -> None:
    for opts in (Options(), Options(61, True, True), Options(121, False, True)):
        assert Options.from_dict(opts.to_dict()) == opts
    assert Options.from_dict({}) == Options() and Options().target == 121
    for bad in ({"target": 100}, {"target": "121"}, {"target": True}, {"muggins": 1}, {"double_lurch": None}):
        with pytest.raises(BadOptions):
            Options.from_dict(bad)
    with pytest.raises(BadOptions) as err:
        Options.from_dict({"colour": "red"})
    assert err.value.msgid == "cribbage.options.unknown"
    with pytest.raises(BadOptions) as err:
        Options(target=100)
    assert err.value.msgid == "cribbage.options.target"
    for players in (1, 5):
        with pytest.raises(BadOptions):
            cr.start(1, players)


@pytest.mark.parametrize(("players", "size", "deck"), [(2, 6, 40), (3, 5, 36), (4, 5, 32)])
def test_c2_the_deal(players: int, size: int, deck: int) -> None:
    st, ev = cr.start(3, players)
    assert [len(h) for h in st.hands] == [size] * players
    assert len(st.crib) == (1 if players == 3 else 0)  # three players: one card face down to the crib
    assert len(st.deck) == deck
    assert sorted({*st.crib, *st.deck, *(c for h in st.hands for c in h)}, key=FULL_PACK.index) == list(
        FULL_PACK
    )
    assert isinstance(ev[0], DealerCut) and ev[-1] == HandDealt(1, st.dealer, size)
    assert st.phase is Phase.DISCARD and cr.waiting_for(st) == tuple(range(players))
    assert st.scores == (0,) * (2 if players in (2, 4) else 3)
    # the deal is a function of the seed
    again, _ = cr.start(3, players)
    assert again == st


@pytest.mark.parametrize("players", [2, 3, 4])
def test_c2_the_lowest_cut_deals_and_ties_cut_again(players: int) -> None:
    tied = 0
    for seed in range(300):
        st, ev = cr.start(seed, players)
        cut = ev[0]
        assert isinstance(cut, DealerCut) and cut.dealer == st.dealer == st.first_dealer
        assert [s for s, _ in cut.rounds[0]] == list(range(players))
        for this, after in zip(cut.rounds, cut.rounds[1:], strict=False):
            low = min(c.rank for _, c in this)
            assert [s for s, c in this if c.rank == low] == [s for s, _ in after]
            assert len(after) >= 2
        last = cut.rounds[-1]
        low = min(c.rank for _, c in last)
        assert [s for s, c in last if c.rank == low] == [cut.dealer]
        tied += len(cut.rounds) > 1
    assert tied > 0  # the seed search met ties


def test_the_deal_passes_left() -> None:
    st = through_lay_away(5, 3)
    dealer = st.dealer
    while st.hand_no == 1:
        seat = cr.waiting_for(st)[0]
        st, _ = cr.apply(st, cr.legal_actions(st, seat)[0])
        if st.phase is Phase.OVER:
            pytest.skip("the first hand ended the game")
    assert st.dealer == (dealer + 1) % 3 and st.phase is Phase.DISCARD


# ---------------------------------------------------------------- laying away and the cut


def test_lay_away_in_any_order_replace_until_all_are_in() -> None:
    st, _ = cr.start(8, 2)
    h1 = st.hands[1]
    st, ev = cr.apply(st, LayAway(1, h1[:2]))
    assert ev == [LaidAway(1, False)] and st.laid[1] == h1[:2] and len(st.hands[1]) == 4
    assert cr.waiting_for(st) == (0,)
    st, ev = cr.apply(st, LayAway(1, h1[4:6]))  # changed its mind: the first two come back
    assert ev == [LaidAway(1, True)] and set(st.hands[1]) == set(h1[:4])
    err = refusal(st, LayAway(0, st.hands[0][:1]))
    assert isinstance(err, IllegalAction) and err.msgid == "cribbage.rules.lay-away-count"
    err = refusal(st, LayAway(0, (st.hands[0][0], st.hands[0][0])))
    assert err.msgid == "cribbage.rules.lay-away-count"
    err = refusal(st, LayAway(0, h1[:2]))
    assert err.msgid == "cribbage.rules.not-held"
    err = refusal(st, Play(0, st.hands[0][0]))
    assert err.msgid == "cribbage.rules.time-to-lay-away"
    st, ev = cr.apply(st, LayAway(0, st.hands[0][:2]))
    assert ev[-1] == CribMade(st.dealer, 4) and st.phase is Phase.CUT
    assert set(st.crib) == {*h1[4:6], *st.laid[0]}
    err = refusal(st, LayAway(0, st.hands[0][:2]))
    assert err.msgid == "cribbage.rules.time-to-cut"


@pytest.mark.parametrize("players", [3, 4])
def test_three_and_four_lay_away_one_each(players: int) -> None:
    st, _ = cr.start(9, players)
    assert all(isinstance(a, LayAway) and len(a.cards) == 1 for a in cr.legal_actions(st, 0))
    for seat in range(players):
        st, _ = cr.apply(st, LayAway(seat, st.hands[seat][:1]))
    assert len(st.crib) == 4 and all(len(h) == 4 for h in st.hands)


def test_c3_the_seat_left_of_the_dealer_cuts() -> None:
    st = through_lay_away(2, 4)
    cutter = (st.dealer + 1) % 4
    assert cr.waiting_for(st) == (cutter,)
    err = refusal(st, Cut(st.dealer))
    assert isinstance(err, NotYourTurn)
    top = st.deck[0]
    st, ev = cr.apply(st, Cut(cutter))
    assert ev[0] == StarterTurned(cutter, top) and st.starter == top
    if top.rank != 11:
        assert st.phase is Phase.PLAY and st.to_move == cutter  # the play starts left of the dealer


def jack_seeds(players: int) -> Iterator[State]:
    """States at the cut whose starter will be a Jack (a seed search)."""
    for seed in range(400):
        st = through_lay_away(seed, players)
        if st.deck[0].rank == 11:
            yield st


@pytest.mark.parametrize("players", [2, 3, 4])
def test_c3_heels_scores_two_for_the_dealer_at_once(players: int) -> None:
    st = next(jack_seeds(players))
    cutter = (st.dealer + 1) % players
    side = cr.side_of(st, st.dealer)
    after, ev = cr.apply(st, Cut(cutter))
    assert PointsScored(side, st.dealer, 2, "heels", (st.deck[0],), 2) in ev
    assert after.scores[side] == 2 and sum(after.scores) == 2


def test_c6_heels_can_end_the_game_at_the_cut() -> None:
    st = next(jack_seeds(2))
    d = st.dealer
    scores = [0, 0]
    scores[d], scores[1 - d] = 119, 80
    st = replace(st, scores=tuple(scores))
    after, ev = cr.apply(st, Cut(1 - d))
    assert isinstance(ev[-1], GameWon) and ev[-1].sides == (d,) and ev[-1].how == "target"
    assert after.phase is Phase.OVER and cr.is_over(after)
    res = cr.final_result(after)
    assert res.winners == (d,) and res.scores[d] == 121 and res.how == "lurch"
    assert res.lurch == "lurch" and res.lurched[1 - d] == "lurch" and res.lurched[d] == "none"
    err = refusal(after, Cut(1 - d))
    assert isinstance(err, GameOver)


@pytest.mark.parametrize(
    ("double", "loser", "lurch"),
    [
        (True, 40, "double"),
        (False, 40, "lurch"),
        (True, 60, "double"),
        (True, 61, "lurch"),
        (True, 91, "none"),
    ],
)
def test_c6_lurch_and_double_lurch(double: bool, loser: int, lurch: str) -> None:
    st = next(jack_seeds(2))
    st = replace(st, options=Options(double_lurch=double))
    d = st.dealer
    scores = [0, 0]
    scores[d], scores[1 - d] = 120, loser
    after, ev = cr.apply(replace(st, scores=tuple(scores)), Cut(1 - d))
    assert cr.final_result(after).lurch == lurch
    assert cr.final_result(after).how == {"none": "target", "lurch": "lurch", "double": "double-lurch"}[lurch]
    assert isinstance(ev[-1], GameWon) and ev[-1].lurch == lurch


def test_lurch_lines() -> None:
    o121, o121d, o61, o61d = (
        Options(),
        Options(double_lurch=True),
        Options(61),
        Options(61, double_lurch=True),
    )
    assert [cr.lurch_of(s, o121) for s in (90, 91, 60, 0)] == ["lurch", "none", "lurch", "lurch"]
    assert [cr.lurch_of(s, o121d) for s in (90, 61, 60, 0)] == ["lurch", "lurch", "double", "double"]
    assert [cr.lurch_of(s, o61) for s in (30, 31, 0)] == ["lurch", "none", "lurch"]
    assert [cr.lurch_of(s, o61d) for s in (30, 31, 0)] == ["lurch", "none", "lurch"]


# ---------------------------------------------------------------- the play (C4)


def test_c4_two_players_run_go_and_last_card() -> None:
    # Benny (0) deals; Annie (1) leads: the rule text's 5-7-6 run, then Benny's 8 for a run of four.
    st = play_state(["7S 8D KH QH", "5H 6C KS QS"], "2C")
    st, ev = play(st, "1 play 5H", "0 play 7S", "1 play 6C", "0 play 8D")
    assert pegged(ev)[:2] == [(1, "run", 3), (0, "run", 4)]
    # at 26 Annie can't play: go; Benny can't either: 1 for the go to Benny, and Annie leads the new count
    assert ev[-3:] == [WentGo(1), PointsScored(0, 0, 1, "go", (card("8D"),), 5), CountReset(26)]
    assert st.count == 0 and st.to_move == 1 and st.pile == () and len(st.played) == 4
    assert isinstance(refusal(st, Play(0, card("KH"))), NotYourTurn)
    st, ev = play(st, "1 play KS", "0 play KH", "1 play QS")
    # at 30 Benny says go and Annie has no cards left: 1 for the go to Annie; Benny leads again
    assert pegged(ev) == [(0, "pair", 2), (1, "go", 1)]
    assert ev[-3:] == [WentGo(0), PointsScored(1, 1, 1, "go", (card("QS"),), 4), CountReset(30)]
    assert st.to_move == 0 and st.scores == (7, 4)
    st, ev = play(st, "0 play QH")  # the last card: 1 for last, then the show and the next deal
    assert pegged(ev) == [(0, "last", 1)]
    assert PlayEnded(10) in ev
    counted = [e for e in ev if isinstance(e, HandCounted)]
    assert [(e.seat, e.kind) for e in counted] == [(1, "hand"), (0, "hand"), (0, "crib")]
    assert st.phase is Phase.DISCARD and st.hand_no == 2 and st.dealer == 1
    assert isinstance(ev[-1], HandDealt) and ev[-1].dealer == 1


def test_c4_thirty_one_scores_two_and_no_go() -> None:
    st = play_state(["KH QH 2C 3C", "TS AS 9S 4S"], "7D")
    st, ev = play(st, "1 play TS", "0 play KH", "1 play AS", "0 play QH")
    assert pegged(ev) == [(0, "thirty-one", 2)]
    assert ev[-1] == CountReset(31) and st.to_move == 1  # the next after the one who made 31
    assert not any(isinstance(e, WentGo) for e in ev)


def test_c4_three_players_go_passes_around() -> None:
    st = play_state(["TD 5D 4D 3D", "TS 9S 8S 7S", "TH KH QH JH"], "2C")
    st, ev = play(st, "1 play TS", "2 play TH", "0 play TD")
    # at 30 nobody can play: seats 1 and 2 say go, and seat 0, the last to play, pegs 1 for the go
    assert pegged(ev) == [(2, "pair", 2), (0, "pair-royal", 6), (0, "go", 1)]
    assert [e for e in ev if isinstance(e, WentGo)] == [WentGo(1), WentGo(2)]
    assert st.to_move == 1 and st.count == 0  # the next player after the last who played
    st, ev = play(st, "1 play 9S", "2 play KH", "0 play 5D", "1 play 7S")
    assert pegged(ev) == [(1, "thirty-one", 2)]
    assert st.to_move == 2
    st, ev = play(st, "2 play QH", "0 play 4D", "1 play 8S")
    # seat 2's Jack would pass 31: go; seat 0 plays on
    assert WentGo(2) in ev and st.to_move == 0
    st, ev = play(st, "0 play 3D")
    # seat 1 is out of cards (skipped), seat 2 has gone: 1 for the go to seat 0, then seat 2 alone
    assert pegged(ev) == [(0, "go", 1)] and st.to_move == 2
    st, ev = play(st, "2 play JH")
    assert pegged(ev)[0] == (2, "last", 1)
    assert [(e.seat, e.kind) for e in ev if isinstance(e, HandCounted)] == [
        (1, "hand"),
        (2, "hand"),
        (0, "hand"),
        (0, "crib"),
    ]


def test_c4_four_players_score_for_their_side() -> None:
    st = play_state(["5D 2D 3D 4D", "5S 2S 3S 4S", "5H 2H 3H 4H", "5C 2C 3C 4C"], "KD", dealer=3)
    st, ev = play(st, "0 play 5D", "1 play 5S", "2 play 5H", "3 play 5C")
    assert [(e.side, e.seat, e.reason, e.points) for e in ev if isinstance(e, PointsScored)] == [
        (1, 1, "pair", 2),
        (0, 2, "fifteen", 2),
        (0, 2, "pair-royal", 6),
        (1, 3, "double-pair-royal", 12),
    ]
    assert st.scores == (8, 14)


def test_refusals_in_the_play() -> None:
    st = play_state(["KH QH 2C 3C", "TS JS 4S AS"], "7D")
    assert isinstance(refusal(st, Play(0, card("KH"))), NotYourTurn)
    assert refusal(st, Play(1, card("KH"))).msgid == "cribbage.rules.not-held"
    assert refusal(st, Cut(1)).msgid == "cribbage.rules.time-to-play"
    assert refusal(st, LayAway(1, (card("TS"), card("JS")))).msgid == "cribbage.rules.time-to-play"
    assert refusal(st, Claim(1, 0)).msgid == "cribbage.rules.time-to-play"
    assert refusal(st, Play(7, card("TS"))).msgid == "cribbage.rules.no-such-seat"
    st, _ = play(st, "1 play TS", "0 play KH", "1 play AS", "0 play 2C")
    assert st.count == 23 and st.to_move == 1
    err = refusal(st, Play(1, card("JS")))
    assert isinstance(err, IllegalAction) and err.msgid == "cribbage.rules.past-31"
    assert not cr.can(st, Play(1, card("JS"))) and cr.can(st, Play(1, card("4S")))
    with pytest.raises(IllegalAction) as raised:
        cr.check(st, Play(1, card("JS")))
    assert raised.value.msgid == "cribbage.rules.past-31"
    assert cr.legal_actions(st, 1) == [Play(1, card("4S"))]
    assert cr.legal_actions(st, 0) == []


# ---------------------------------------------------------------- the show (C5, C6)


def test_c6_the_show_stops_when_a_side_reaches_the_target() -> None:
    # non-dealer (1) holds the 29 hand, counted first; the dealer would reach 121 too if his were counted
    st = play_state(["2C 3D 4H 9S", "5H 5S 5C JD"], "5D", scores=(100, 100), crib="KC QC 9C 8D")
    while st.phase is Phase.PLAY:
        st, ev = cr.apply(st, cr.legal_actions(st, st.to_move)[0])
    counted = [e for e in ev if isinstance(e, HandCounted)]
    assert [(e.seat, e.kind) for e in counted] == [(1, "hand")]  # the dealer's counts are never made
    assert isinstance(ev[-1], GameWon) and ev[-1].sides == (1,)
    assert st.scores[1] >= 121 > st.scores[0]
    res = cr.final_result(st)
    assert res.best_hands[1] == 29 and res.best_hands[0] is None


def test_c5_the_show_counts_hands_then_the_crib() -> None:
    st = play_state(["5H 5S 5C JD", "2C 3D 4H 9S"], "5D", crib="KC QC 9C 8D")
    before = st.scores
    while st.phase is Phase.PLAY:
        st, ev = cr.apply(st, cr.legal_actions(st, st.to_move)[0])
    counted = [e for e in ev if isinstance(e, HandCounted)]
    # 2-3-4-5 and 2+4+9: 6; the 29 hand; K+5 and Q+5 in the crib (four clubs make no crib flush): 4
    assert [(e.seat, e.kind, e.total) for e in counted] == [(1, "hand", 6), (0, "hand", 29), (0, "crib", 4)]
    assert counted[1].total_after == counted[2].total_after - 4
    assert before == (0, 0) and st.best == (29, 6)


# ---------------------------------------------------------------- muggins (C7, C9)


def at_the_show(options: Options, scores: tuple[int, ...] = (0, 0)) -> tuple[State, list[Event]]:
    """Seat 1's hand (2C 3D 4H 9S, worth 6 with the 5D) is the first count of the show."""
    st = play_state(["5H 5S 5C JD", "2C 3D 4H 9S"], "5D", crib="KC QC 9C 8D", options=options, scores=scores)
    events: list[Event] = []
    while st.phase is Phase.PLAY:
        st, ev = cr.apply(st, cr.legal_actions(st, st.to_move)[0])
        events += ev
    return st, events


def test_c9_any_claim_from_0_to_29_is_taken_whatever_the_count() -> None:
    st, ev = at_the_show(Options(muggins=True))
    assert st.phase is Phase.CLAIM and cr.waiting_for(st) == (1,)
    assert ev[-1] == ClaimAwaited(1, "hand", cards("2C 3D 4H 9S"), card("5D"))
    assert cr.legal_actions(st, 1) == [Claim(1, p) for p in range(30)]  # not 0..6: that would tell the count
    assert cr.legal_actions(st, 0) == []
    assert all(cr.can(st, Claim(1, p)) for p in range(30))  # none refused, so none is worth trying
    for points in (-1, 30, 99):  # no hand is worth these: refused whatever the count
        err = refusal(st, Claim(1, points))
        assert err.msgid == "cribbage.rules.claim-range" and err.values == {"most": 29}
    assert isinstance(refusal(st, Claim(0, 6)), NotYourTurn)
    assert refusal(st, Play(1, card("2C"))).msgid == "cribbage.rules.time-to-claim"


def test_c9_nothing_in_the_view_or_the_legal_actions_tells_the_count() -> None:
    st, _ = at_the_show(Options(muggins=True))
    # The same state with seat 1 holding cards worth another count (in its kept cards and in the play).
    swap = dict(zip(cards("2C 3D 4H 9S"), cards("TH 6D 8H AS"), strict=True))
    other = replace(
        st,
        kept=(st.kept[0], tuple(swap[c] for c in st.kept[1])),
        played=tuple((s, swap.get(c, c)) for s, c in st.played),
    )
    assert (show_total(st.kept[1], card("5D")), show_total(other.kept[1], card("5D"))) == (6, 4)
    for seat in (-1, 0, 1):
        a, b = cr.view(st, seat), cr.view(other, seat)
        assert a.claim is not None and b.claim is not None
        assert b.claim == replace(a.claim, cards=other.kept[1])
        assert b.played == tuple((s, swap.get(c, c)) for s, c in a.played)
        # Everything else is the same: the cards shown are all that differs.
        assert replace(a, kept=(), played=(), claim=None) == replace(b, kept=(), played=(), claim=None)


def test_c9_an_over_claim_pegs_the_count_and_gives_the_excess_to_the_left() -> None:
    st, _ = at_the_show(Options(muggins=True))
    before = st.scores
    st, ev = cr.apply(st, Claim(1, 9))  # the count is 6: 3 too many
    assert ev[0] == ClaimMade(1, "hand", 9)
    counted = ev[1]
    assert isinstance(counted, HandCounted)
    assert (counted.total, counted.claimed, counted.pegged) == (6, 9, 6)
    assert counted.total_after == before[1] + 6
    assert ev[2] == MugginsTaken(0, 0, 1, 3, before[0] + 3, over=True)
    assert st.scores == (before[0] + 3, before[1] + 6)
    assert st.phase is Phase.CLAIM and cr.waiting_for(st) == (0,)  # the show goes on: the dealer's hand


def test_c9_an_under_claim_pegs_the_claim_and_gives_what_it_missed_to_the_left() -> None:
    st, _ = at_the_show(Options(muggins=True))
    before = st.scores
    st, ev = cr.apply(st, Claim(1, 4))  # 2 under
    assert ev[0] == ClaimMade(1, "hand", 4)
    counted = ev[1]
    assert isinstance(counted, HandCounted)
    assert (counted.total, counted.claimed, counted.pegged) == (6, 4, 4)
    assert ev[2] == MugginsTaken(0, 0, 1, 2, before[0] + 2, over=False)
    assert st.scores == (before[0] + 2, before[1] + 4)
    st, ev = cr.apply(st, Claim(0, 29))  # the dealer's 29 hand, claimed exactly: nothing to take
    assert not any(isinstance(e, MugginsTaken) for e in ev)
    assert ev[-1] == ClaimAwaited(0, "crib", cards("KC QC 9C 8D"), card("5D"))
    st, ev = cr.apply(st, Claim(0, 0))  # the crib's 4 missed
    assert isinstance(ev[2], MugginsTaken) and ev[2].points == 4 and ev[2].seat == 1 and not ev[2].over
    assert st.phase is Phase.DISCARD and st.hand_no == 2


@pytest.mark.parametrize("claim", [0, 12], ids=["under", "over"])
def test_c9_a_game_won_by_muggins_either_way(claim: int) -> None:
    st, _ = at_the_show(Options(muggins=True))
    st = replace(st, scores=(118, st.scores[1]))
    st, ev = cr.apply(st, Claim(1, claim))  # 6 missed, or 6 too many: the dealer reaches 124
    assert isinstance(ev[-2], MugginsTaken) and ev[-2].points == 6 and ev[-2].over == (claim > 6)
    assert isinstance(ev[-1], GameWon) and ev[-1].sides == (0,)
    res = cr.final_result(st)
    assert res.muggins and res.winners == (0,) and res.how in ("target", "lurch")


def test_c9_an_owner_who_reaches_the_target_wins_before_the_muggins() -> None:
    st, _ = at_the_show(Options(muggins=True))
    st = replace(st, scores=(st.scores[0], 117))
    st, ev = cr.apply(st, Claim(1, 20))  # pegs the count, 6: 123 is game, and the game ends there
    assert not any(isinstance(e, MugginsTaken) for e in ev)
    assert isinstance(ev[-1], GameWon) and ev[-1].sides == (1,)
    assert st.scores[1] == 123 and not cr.final_result(st).muggins


def test_c7_three_players_muggins_goes_to_the_next_seat_left() -> None:
    st = play_state(["9D 9H 2C AD", "5H 5S 5C JD", "2D 3D 4H 9S"], "5D", options=Options(muggins=True))
    while st.phase is Phase.PLAY:
        st, _ = cr.apply(st, cr.legal_actions(st, st.to_move)[0])
    assert cr.waiting_for(st) == (1,)
    st, ev = cr.apply(st, Claim(1, 20))
    assert [e for e in ev if isinstance(e, MugginsTaken)] == [
        MugginsTaken(2, 2, 1, 9, st.scores[2], over=False)
    ]


# A game to 61 with muggins, seed 3, recorded under C7 (before C9): random play, under-claims, a muggins win.
C7_LOG = (
    "0 lay 6C 9D;1 lay TS TH;1 cut;1 play QD;0 play 6S;1 play QH;0 play 4H;1 play 6H;0 play QC;"
    "1 play TC;0 play KS;1 claim 4;0 claim 2;0 claim 9;1 lay 5S JS;0 lay 3C 7S;0 cut;0 play 2H;"
    "1 play 3S;0 play 5C;1 play 9C;0 play QS;1 play 2S;0 play 9H;1 play 7D;0 claim 2;1 claim 2;"
    "1 claim 8;0 lay 5D KH;1 lay 8S JH;1 cut;1 play 6H;0 play JS;1 play 9H;0 play AD;0 play AH;"
    "1 play JD;0 play 6D;1 play 7S;1 claim 2;0 claim 4;0 claim 4;0 lay 2C 4D;1 lay 2S 3D;0 cut;"
    "0 play 8C;1 play 8S;0 play 5H;1 play 7S;1 play 3C;0 play QS;1 play JS;0 play 9H;0 claim 3;"
    "1 claim 2;1 claim 4;1 lay 6C TD;0 lay 2S 4H;1 cut;1 play 9C;0 play 6S;1 play 7S;0 play 8H;"
    "1 play 8C;0 play 7H;1 play 5D;0 play QS;1 claim 5"
)


def test_a_game_logged_under_c7_replays_to_the_result_it_was_stored_with() -> None:
    """C7 took only claims up to the count, and C9 scores those alike: old logs need no migration."""
    options = Options(target=61, muggins=True)
    st = cr.replay(3, 2, options, C7_LOG.split(";"))
    res = cr.final_result(st)
    assert (res.scores, res.winners, res.muggins, res.how) == ((62, 45), (0,), True, "target")


def test_muggins_off_counts_everything_itself() -> None:
    _, ev = at_the_show(Options())
    assert not any(isinstance(e, ClaimAwaited | MugginsTaken) for e in ev)
    assert all(e.claimed is None for e in ev if isinstance(e, HandCounted))


# ---------------------------------------------------------------- resigning, text form


def test_resign_with_partnerships_and_three_players() -> None:
    st, _ = cr.start(4, 4)
    end, ev = cr.apply(st, Resign(2))
    res = cr.final_result(end)
    assert res.winners == (1, 3) and res.how == "resign" and res.lurch == "none"
    assert isinstance(ev[-1], GameWon) and ev[-1].seats == (1, 3)
    st, _ = cr.start(4, 3)
    st = replace(st, scores=(10, 30, 20))
    res = cr.final_result(cr.apply(st, Resign(1, "forfeit"))[0])
    assert res.winners == (2,) and res.how == "forfeit" and res.scores == (10, 30, 20)
    res = cr.final_result(cr.apply(replace(st, scores=(10, 30, 10)), Resign(1))[0])
    assert res.winners == (0, 2)
    with pytest.raises(IllegalAction):
        cr.final_result(st)


@pytest.mark.parametrize(
    "text",
    ["", "0", "0 dance", "x cut", "4 cut", "0 cut now", "0 play", "0 play 5h", "0 play 10H", "0 lay",
     "0 lay 5H 6H 7H", "0 claim", "0 claim 012", "0 claim -1", "0 claim 1.5", "0 resign now"],
)  # fmt: skip
def test_malformed_action_text_is_refused(text: str) -> None:
    with pytest.raises(BadActionText):
        cr.parse_action(text)


def test_a_misspelt_card_is_refused_with_a_hint() -> None:
    with pytest.raises(BadActionText) as err:
        cr.parse_action("0 play 5h")
    assert err.value.msgid == "cards.unknown-did-you-mean"


def test_action_texts() -> None:
    examples = {
        "0 lay 5H TC": LayAway(0, (card("5H"), card("TC"))),
        "2 lay AS": LayAway(2, (card("AS"),)),
        "1 cut": Cut(1),
        "3 play KD": Play(3, card("KD")),
        "0 claim 12": Claim(0, 12),
        "1 claim 0": Claim(1, 0),
        "1 resign": Resign(1),
        "0 forfeit": Resign(0, "forfeit"),
    }
    for text, action in examples.items():
        assert cr.parse_action(text) == action
        assert cr.action_text(action) == text


# ---------------------------------------------------------------- whole random games


def cards_in(obj: Any) -> Iterator[Card]:
    """Every card anywhere in a view (fields, tuples, actions)."""
    if isinstance(obj, Card):
        yield obj
    elif isinstance(obj, tuple):
        for x in obj:
            yield from cards_in(x)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from cards_in(getattr(obj, f.name))


def accounted(st: State) -> Counter[Card]:
    if st.phase is Phase.DISCARD:
        parts = [*st.hands, *st.laid, st.crib, st.deck]
    else:
        parts = [
            *st.hands,
            st.crib,
            st.deck,
            (st.starter,) if st.starter else (),
            tuple(c for _, c in st.played),
        ]
    return Counter(c for part in parts for c in part)


def check_view(st: State, seat: int) -> None:
    v = cr.view(st, seat)
    public = {c for _, c in st.played} | ({st.starter} if st.starter else set())
    if v.claim is not None:
        owner, _, shown = cr.show_order(st)[st.show_step]
        assert v.claim.cards == shown and v.claim.seat == owner
        public |= set(shown)
        if st.show_step > 0:  # the counts already made were shown
            public |= {c for _, _, cs in cr.show_order(st)[: st.show_step] for c in cs}
    own = set(st.hands[seat]) | set(st.kept[seat]) | set(st.laid[seat]) if seat >= 0 else set()
    leaked = set(cards_in(v)) - public - own
    assert not leaked, (seat, leaked)
    assert v.hand_sizes == tuple(len(h) for h in st.hands)
    assert v.scores == st.scores


def random_action(st: State, rng: random.Random) -> Action:
    """Anything at all, mostly wrong: for check/can/apply agreement."""
    seat = rng.randrange(-1, st.players + 1)
    c = rng.choice(FULL_PACK)
    choices: list[Action] = [
        Play(seat, c),
        LayAway(seat, tuple(rng.sample(FULL_PACK, rng.choice((1, 2))))),
        Cut(seat),
        Claim(seat, rng.randrange(-2, 32)),
    ]
    return rng.choice(choices)


def agree(st: State, action: Action) -> None:
    """``check``, ``can`` and ``apply`` say the same of an action."""
    try:
        cr.check(st, action)
        checked: RulesError | None = None
    except RulesError as err:
        checked = err
    assert cr.can(st, action) == (checked is None)
    if checked is not None:
        with pytest.raises(type(checked)) as applied:
            cr.apply(st, action)
        assert applied.value.msgid == checked.msgid and applied.value.values == checked.values


def run_game(seed: int, players: int, options: Options) -> tuple[State, list[str], list[Event]]:
    rng = random.Random(seed)
    st, events = cr.start(seed, players, options)
    texts: list[str] = []
    snaps = codec(cr)
    assert snaps is not None
    target = options.target
    while not cr.is_over(st):
        assert max(st.scores) < target  # the game ends exactly on reaching the target
        assert sum(accounted(st).values()) == 52 and len(accounted(st)) == 52
        for seat in (-1, *range(players)):
            check_view(st, seat)
        agree(st, random_action(st, rng))
        waiting = cr.waiting_for(st)
        assert waiting
        for seat in range(players):
            legal = cr.legal_actions(st, seat)
            # a seat that has laid away may still replace it until everyone has
            assert bool(legal) == (seat in waiting or st.phase is Phase.DISCARD)
            assert all(cr.can(st, a) for a in legal)
        action = rng.choice(cr.legal_actions(st, rng.choice(waiting)))
        text = cr.action_text(action)
        assert cr.parse_action(text) == action
        texts.append(text)
        before = st.scores
        st, ev = cr.apply(st, action)
        events += ev
        assert all(a <= b for a, b in zip(before, st.scores, strict=True))  # scores only go up
        if len(texts) % 7 == 0:
            assert snaps.load(snaps.dump(st), seed=seed, options=options) == st
    res = cr.final_result(st)
    winners = {cr.side_of(players, s) for s in res.winners}
    assert all(st.scores[w] >= target for w in winners)
    assert all(s < target for side, s in enumerate(st.scores) if side not in winners)
    losers = [s for side, s in enumerate(st.scores) if side not in winners]
    lurches = [cr.lurch_of(s, options) for s in losers]
    assert res.lurch == max(lurches, key=["none", "lurch", "double"].index)
    assert res.scores == tuple(st.scores[cr.side_of(players, s)] for s in range(players))
    assert isinstance(events[-1], GameWon) and events[-1].lurch == res.lurch
    return st, texts, events


def tally(events: list[Event], sides: int) -> list[int]:
    """Each side's score added up from the events alone."""
    got = [0] * sides
    for e in events:
        if isinstance(e, PointsScored | MugginsTaken):
            got[e.side] += e.points
        elif isinstance(e, HandCounted):
            got[e.side] += e.pegged
    return got


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize(
    "options",
    [Options(), Options(61), Options(muggins=True, double_lurch=True)],
    ids=["121", "61", "muggins"],
)
def test_whole_random_games(players: int, options: Options) -> None:
    for seed in range(4):
        st, texts, events = run_game(seed * 10 + players, players, options)
        assert cr.replay(seed * 10 + players, players, options, texts) == st
        assert tally(events, len(st.scores)) == list(st.scores)
        for e in events:
            if isinstance(e, HandCounted):
                assert e.total == show_total(e.cards, e.starter, e.kind == "crib")
                assert e.total == sum(it.points for it in e.items)
                assert e.pegged == (e.total if e.claimed is None else min(e.claimed, e.total))  # C9
            if isinstance(e, CardPlayed):
                assert 0 < e.count <= 31


def test_the_first_hand_of_a_game_is_fully_determined_by_the_seed() -> None:
    a, _, _ = run_game(77, 2, Options())
    b, _, _ = run_game(77, 2, Options())
    assert a == b
