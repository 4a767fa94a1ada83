"""The Classic Cribbage computer player and coach (bot/ai/cribbage.py).

The exactness tests compare the coach's discard table with brute-force averages counted by the engine's
``show_total``: over every starter for the kept hand, and over every opponent pair × starter for the crib.
"""

from __future__ import annotations

import itertools
import random

import pytest

from bot.ai import Level, UnknownLevel
from bot.ai import cribbage as ai
from bot.ai.cribbage_play import peg_ranks
from bot.rules import cribbage as cr
from bot.rules.cribbage_scoring import count_show, peg_total, show_total
from bot.rules.pack52 import FULL_PACK, Card, cards


def _drive(seed: int, levels: tuple[Level, ...], options: cr.Options) -> tuple[cr.State, int]:
    """One whole game between levels, every decision checked on the way: (end state, decisions)."""
    players = len(levels)
    state, _ = cr.start(seed, players, options)
    rngs = [random.Random(seed * 10 + s) for s in range(players)]
    decisions = 0
    while not cr.is_over(state):
        seat = cr.waiting_for(state)[0]
        view = cr.view(state, seat)
        level = levels[seat]
        before = rngs[seat].getstate()
        action = ai.choose(view, rngs[seat], level)
        assert action in view.legal
        again = random.Random()
        again.setstate(before)
        assert ai.choose(view, again, level) == action  # deterministic for a given generator state
        if level == "hard" and isinstance(action, cr.LayAway):
            assert set(ai.hint(view)[0].laid) == set(action.cards)
        if level == "hard" and isinstance(action, cr.Play):
            advice = ai.play_advice(view)
            assert advice is not None
            assert advice.card == action.card
            assert advice.now == cr.peg_items([*(c for _, c in view.pile), action.card])
            assert all(advice.net >= net - 1e-9 for _, net in advice.others) or _near_end(view)
        if isinstance(action, cr.Claim) and level != "easy":
            claim = view.claim
            assert claim is not None
            assert action.points == show_total(claim.cards, claim.starter, claim.kind == "crib")
        state, _ = cr.apply(state, action)
        decisions += 1
        assert decisions < 3000
    return state, decisions


def _near_end(view: cr.SeatView) -> bool:
    """Near the target the choice weighs pegging out, so it may differ from the best points alone."""
    return min(view.target - s for s in view.scores) <= 61


@pytest.mark.parametrize(
    "levels",
    [
        ("hard", "easy"),
        ("normal", "hard"),
        ("easy", "normal"),
        ("hard", "normal", "easy"),
        ("easy", "hard", "hard"),
        ("hard", "easy", "normal", "hard"),
        ("normal", "hard", "easy", "easy"),
    ],
)
def test_whole_games_every_decision_legal_and_consistent(levels: tuple[Level, ...]) -> None:
    for seed in range(2):
        options = cr.Options(target=61, muggins=seed == 1)
        state, decisions = _drive(seed, levels, options)
        assert cr.final_result(state).winners
        assert decisions > 10


def test_unknown_level_raises() -> None:
    state, _ = cr.start(1)
    with pytest.raises(UnknownLevel):
        ai.choose(cr.view(state, 0), random.Random(0), "impossible")  # type: ignore[arg-type]


def test_no_advice_outside_the_play_nor_hint_outside_the_lay_away() -> None:
    state, _ = cr.start(1)
    assert ai.play_advice(cr.view(state, 0)) is None
    assert ai.hint(cr.view(state, -1)) == []


# ---------------------------------------------------------------- the discard table


def _crib_brute(laid: tuple[Card, ...], unseen: list[Card]) -> float:
    """The crib over every set of its unknown cards and every choice of the starter among them."""
    total = 0
    n = 0
    for drawn in itertools.combinations(unseen, 5 - len(laid)):
        for i, starter in enumerate(drawn):
            total += show_total((*laid, *drawn[:i], *drawn[i + 1 :]), starter, crib=True)
            n += 1
    return total / n


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (3, 3), (4, 4), (2, 5)])
def test_the_hand_column_is_the_average_over_every_starter(players: int, seed: int) -> None:
    rng = random.Random(seed)
    dealt = rng.sample(FULL_PACK, 6 if players == 2 else 5)
    table = ai.discard_table(dealt, players=players, dealer=seed % 2 == 0)
    assert len(table) == (15 if players == 2 else 5)
    assert [line.total for line in table] == sorted((line.total for line in table), reverse=True)
    starters = [c for c in FULL_PACK if c not in dealt]
    for line in table:
        assert set(line.laid) | set(line.kept) == set(dealt)
        want = sum(show_total(line.kept, s) for s in starters) / len(starters)
        assert line.hand == pytest.approx(want, abs=1e-9)
        assert line.total == pytest.approx(line.hand + line.crib, abs=1e-12)


def test_a_flush_and_his_nob_in_the_hand_column() -> None:
    dealt = list(cards("2H 6H 9H JH KS QD"))
    line = next(x for x in ai.discard_table(dealt, dealer=True) if set(x.laid) == set(cards("KS QD")))
    starters = [c for c in FULL_PACK if c not in dealt]
    want = sum(show_total(line.kept, s) for s in starters) / len(starters)
    assert line.hand == pytest.approx(want, abs=1e-9)
    assert line.hand > 4  # the flush at least


def test_the_two_player_crib_is_exact_over_every_pair_and_starter() -> None:
    dealt = list(cards("5H JH 4C 6D KS 9S"))
    unseen = [c for c in FULL_PACK if c not in dealt]
    table = ai.discard_table(dealt, dealer=True)
    against = {x.laid: x for x in ai.discard_table(dealt, dealer=False)}
    for line in (table[0], table[-1]):
        want = _crib_brute(line.laid, unseen)
        assert line.crib == pytest.approx(want, abs=1e-9)
        assert against[line.laid].crib == pytest.approx(-want, abs=1e-9)


@pytest.mark.parametrize(
    ("kept", "left"),
    [
        ("JH", "2H 3H 5H 8H QH 3S 5S TD JD JC KC 4C"),  # four unknown cards: his nob and a five-card flush
        ("5D JD", "2D 3D 6D 9D JS JC 5C TC KH QS 4H"),  # three: the two-player crib on a small pack
        ("7C 8C 2C KC", "9C 6S 6C 3H JC"),  # a hand: the starter alone
    ],
)
def test_expected_show_is_exact_on_a_small_unseen_pack(kept: str, left: str) -> None:
    mine, unseen = cards(kept), cards(left)
    seen = [c for c in FULL_PACK if c not in unseen]
    crib = len(mine) < 4
    got = ai.expected_show(mine, seen, crib=crib)
    want = _crib_brute(mine, list(unseen)) if crib else sum(show_total(mine, s) for s in unseen) / len(unseen)
    assert got == pytest.approx(want, abs=1e-9)


def test_the_crib_counts_for_the_dealers_side() -> None:
    dealt = cards("5H 5S TD JC 2H 9C")
    mine = ai.discard_table(dealt, dealer=True)
    theirs = ai.discard_table(dealt, dealer=False)
    assert all(line.crib > 0 for line in mine)
    assert all(line.crib < 0 for line in theirs)
    assert not set(theirs[0].laid) & set(cards("5H 5S"))  # no fives for the opponent's crib
    # three players: a rival's crib point is half as bad; four: the other side's, a whole point
    three = {x.laid: x.crib for x in ai.discard_table(dealt[:5], players=3, dealer=False)}
    four = {x.laid: x.crib for x in ai.discard_table(dealt[:5], players=4, dealer=False)}
    ours = {x.laid: x.crib for x in ai.discard_table(dealt[:5], players=4, dealer=True)}
    assert three.keys() == four.keys() == ours.keys()
    for laid, crib in four.items():
        assert crib < 0
        assert three[laid] == pytest.approx(crib / 2, abs=1e-12)
        assert ours[laid] == pytest.approx(-crib, abs=1e-12)


def test_the_dealt_cards_are_checked() -> None:
    with pytest.raises(ValueError):
        ai.discard_table(cards("5H 5S TD JC 2H"), dealer=True)
    with pytest.raises(ValueError):
        ai.discard_table(cards("5H 5H TD JC 2H 3C"), dealer=True)


# ---------------------------------------------------------------- the play


def test_pegging_by_ranks_agrees_with_the_engine() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        pile: list[Card] = []
        deck = list(FULL_PACK)
        rng.shuffle(deck)
        for c in deck:
            if sum(x.value for x in pile) + c.value > 31:
                break
            assert peg_ranks(tuple(x.rank for x in pile), c.rank) == peg_total([*pile, c])
            pile.append(c)
            if rng.random() < 0.15:
                break


def _play_view(
    hand: str, pile: list[tuple[int, str]], *, scores: tuple[int, int] = (10, 10), opp_cards: int = 4
) -> cr.SeatView:
    """A hand-made two-player play position for seat 0, the non-dealer (the engine need not reach it)."""
    mine = cards(hand)
    played = tuple((s, cards(code)[0]) for s, code in pile)
    count = sum(c.value for _, c in played)
    kept = (*mine, *(c for s, c in played if s == 0))
    legal = tuple(cr.Play(0, c) for c in mine if c.value + count <= 31)
    return cr.SeatView(
        seat=0,
        players=2,
        phase=cr.Phase.PLAY,
        hand_no=1,
        dealer=1,
        sides=(0, 1),
        scores=scores,
        target=121,
        muggins=False,
        double_lurch=False,
        hand=mine,
        kept=kept,
        laid_away=cards("2C 3C"),
        hand_sizes=(len(mine), opp_cards - sum(1 for s, _ in played if s == 1)),
        laid=(True, True),
        crib_size=4,
        starter=cards("KD")[0],
        pile=played,
        played=played,
        count=count,
        to_move=0,
        gone=(False, False),
        legal=legal,
    )


def test_takes_the_fifteen_and_the_pair() -> None:
    view = _play_view("7H 8S 2D", [(0, "4D"), (1, "4S")])  # count 8: the 7 makes 15, the 4s a pair gone
    advice = ai.play_advice(view)
    assert advice is not None
    assert advice.card == cards("7H")[0]
    assert [i.kind for i in advice.now] == ["fifteen"]
    view = _play_view("9H 4C 2D", [(0, "3D"), (1, "4S")])
    advice = ai.play_advice(view)
    assert advice is not None
    assert advice.card == cards("4C")[0]
    assert [i.kind for i in advice.now] == ["pair"]


def test_does_not_lead_a_five() -> None:
    # a 5 led is a 15 for any ten-card; the 4 gives nothing at once
    advice = ai.play_advice(_play_view("5H 4S KD QC", []))
    assert advice is not None
    assert advice.card != cards("5H")[0]
    worse = dict(advice.others)
    assert worse[cards("5H")[0]] < advice.net


def test_pegs_out_when_it_can() -> None:
    # the pair of 7s (2) wins at 119; far from the end it is also the better card than the King
    for scores in ((119, 100), (10, 10)):
        view = _play_view("7D KS", [(1, "7C")], scores=scores)
        choice = ai.choose(view, random.Random(0), "hard")
        assert isinstance(choice, cr.Play) and choice.card == cards("7D")[0]
    # with no card that pegs, it keeps the opponent (at 120) from the 15 a led 5 would give
    view = _play_view("5H 4S", [], scores=(10, 120))
    choice = ai.choose(view, random.Random(0), "hard")
    assert isinstance(choice, cr.Play) and choice.card == cards("4S")[0]


# ---------------------------------------------------------------- claims


def test_easy_sometimes_forgets_his_nob_and_never_claims_too_much() -> None:
    """The menu runs 0 to 29 whatever the count (C9): every level counts the shown cards itself."""
    starter = cards("5H")[0]
    hand = cards("JH TS 2C 3D")  # fifteens J5, T5, 23J, 23T (8) and his nob
    true = show_total(hand, starter)
    assert any(i.kind == "nobs" for i in count_show(hand, starter))
    claims = []
    for seed in range(40):
        view = cr.SeatView(
            seat=0,
            players=2,
            phase=cr.Phase.CLAIM,
            hand_no=1,
            dealer=1,
            sides=(0, 1),
            scores=(0, 0),
            target=121,
            muggins=True,
            double_lurch=False,
            hand=(),
            kept=hand,
            laid_away=(),
            hand_sizes=(0, 0),
            laid=(True, True),
            crib_size=4,
            starter=starter,
            pile=(),
            played=(),
            count=0,
            to_move=None,
            gone=(False, False),
            legal=tuple(cr.Claim(0, p) for p in range(30)),
            claim=cr.ShowClaim(0, "hand", hand, starter),
        )
        easy = ai.choose(view, random.Random(seed), "easy")
        assert isinstance(easy, cr.Claim)
        claims.append(easy.points)
        for level in ("normal", "hard"):
            assert ai.choose(view, random.Random(seed), level) == cr.Claim(0, true)
    assert {true, true - 1} <= set(claims) <= {true, true - 1, true - 2}
