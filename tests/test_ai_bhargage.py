"""The Bhargage computer player and coach (bot/ai/bhargage.py).

The exactness test compares the coach's discard table with a brute-force enumeration that uses only the
engine's ``count_hand`` and ``shortage``; ``AI_EXACT_HANDS=200`` runs it on more hands.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import random

import pytest

from bot.ai import Level, UnknownLevel, bhargage_play
from bot.ai import bhargage as ai
from bot.render.levels import level as ai_level
from bot.render.refusals import said
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import count_hand, peg_points, shortage
from bot.rules.decktet import ALL_CARDS, EXCUSE, Card, card


def _drive(seed: int, levels: tuple[Level, Level], options: bh.Options) -> tuple[bh.State, int]:
    """One whole game between two levels, every decision checked on the way: (end state, decisions)."""
    state, _ = bh.start(seed, 2, options)
    rngs = [random.Random(seed * 2), random.Random(seed * 2 + 1)]
    decisions = 0
    while not bh.is_over(state):
        waiting = bh.waiting_for(state)
        assert waiting
        seat = waiting[0]
        view = bh.view(state, seat)
        level = levels[seat]
        before = rngs[seat].getstate()
        action = ai.choose(view, rngs[seat], level)
        assert action in view.legal
        # deterministic for a fixed generator state
        again = random.Random()
        again.setstate(before)
        assert ai.choose(view, again, level) == action
        if level == "hard" and view.phase is bh.Phase.DISCARD:
            dealt = (*view.hand, *view.discard)
            best = ai.discard_table(dealt, view.dealer == seat, sequences=view.sequences)[0]
            assert isinstance(action, bh.Discard)
            assert set(best.cards) == set(action.cards)
        if level == "hard" and view.phase is bh.Phase.PLAY:
            advice = ai.play_advice(view)
            assert advice is not None
            assert isinstance(action, bh.Play)
            assert advice.card == action.card
            pile = [c for _, c in view.pile]
            assert advice.now == tuple(peg_points([*pile, action.card], sequences=view.sequences))
            assert advice.reply >= 0
        state, _ = bh.apply(state, action)
        decisions += 1
        assert decisions < 5000
    return state, decisions


@pytest.mark.parametrize(
    ("levels", "sequences"),
    [
        (("easy", "normal"), False),
        (("normal", "hard"), False),
        (("hard", "easy"), False),
        (("hard", "hard"), True),
        (("easy", "easy"), True),
    ],
)
def test_whole_games_every_decision_legal_and_consistent(
    levels: tuple[Level, Level], sequences: bool
) -> None:
    for seed in range(3):
        state, decisions = _drive(seed, levels, bh.Options(sequences=sequences, target=81))
        assert bh.is_over(state)
        assert state.winner in (0, 1)
        assert decisions > 10


def test_unknown_level_raises() -> None:
    state, _ = bh.start(1)
    view = bh.view(state, 0)
    with pytest.raises(UnknownLevel):
        ai.choose(view, random.Random(0), "impossible")  # type: ignore[arg-type]


def test_no_advice_outside_the_play() -> None:
    state, _ = bh.start(1)
    assert ai.play_advice(bh.view(state, 0)) is None


def play_view(hand: str, pile: list[tuple[int, str]], scores: tuple[int, int] = (10, 10)) -> bh.SeatView:
    """A hand-made play position for seat 0 (the engine never needs to reach it)."""
    mine = tuple(card(x) for x in hand.split(","))
    played = tuple((s, card(x)) for s, x in pile)
    count = sum(c.value for _, c in played)
    legal = tuple(bh.Play(0, c) for c in mine if c.value + count <= 23)
    return bh.SeatView(
        seat=0,
        phase=bh.Phase.PLAY,
        hand_no=1,
        dealer=1,
        scores=scores,
        target=121,
        sequences=False,
        hand=mine,
        discard=(card("sea"), card("end")),
        opponent_hand_size=3 - sum(1 for s, _ in played if s == 1),
        discarded=(False, False),
        bhargage_size=4,
        up=card("calamity"),
        pile=played,
        count=count,
        to_move=0,
        gone=(False, False),
        legal=legal,
    )


def test_takes_the_eleven_and_the_pair() -> None:
    # count 6 after the opponent's Discovery: the Forest makes 11 and pairs the Discovery's 5
    view = play_view("forest,penitent,pact", [(0, "ace-moons"), (1, "discovery")])
    advice = ai.play_advice(view)
    assert advice is not None
    assert advice.card == card("forest")
    assert sorted(i.reason for i in advice.now) == ["11 for 2", "2 for a pair"]
    assert advice.net > 0


def test_pegs_out_when_it_can() -> None:
    # 2 points win the game: the 11 is taken even if something else looks better in the long run
    view = play_view("forest,penitent", [(0, "ace-moons"), (1, "discovery")], scores=(119, 100))
    choice = ai.choose(view, random.Random(0), "hard")
    assert isinstance(choice, bh.Play)
    assert choice.card == card("forest")


def _brute(
    dealt: list[Card], dealer: bool, sequences: bool, lines: list[frozenset[Card]]
) -> dict[frozenset[Card], tuple[float, float, float]]:
    """Every up-card × every opponent discard pair, counted with the engine (bhargage by its 3 unknown cards,
    each set standing for the 3 (up-card, pair) splits, which count the same: no Friends in the bhargage)."""
    unseen = [c for c in ALL_CARDS if c not in dealt]
    n = len(unseen)
    triples = n * (n - 1) * (n - 2) // 6
    sign = 1 if dealer else -1
    out = {}
    for pair in lines:
        a, b = sorted(pair, key=lambda c: c.index)
        kept = [c for c in dealt if c not in pair]
        hand = short_h = 0
        for up in unseen:
            hand += count_hand(kept, up, sequences=sequences).total
            short_h += shortage((*kept, up))
        bhg = short_b = 0
        for x, y, up in itertools.combinations(unseen, 3):
            bhg += count_hand((a, b, x, y), up, bhargage=True, sequences=sequences).total
            short_b += shortage((a, b, x, y, up))
        out[frozenset((a, b))] = (hand / n, sign * bhg / triples, -short_h / n - sign * short_b / triples)
    return out


def test_discard_table_is_exact() -> None:
    """30 hands by default (about 20 s): the best and worst line and 2 others of each hand; with
    AI_EXACT_HANDS=N, N hands and all 10 lines of each."""
    hands = int(os.environ.get("AI_EXACT_HANDS", "0")) or 30
    every_line = "AI_EXACT_HANDS" in os.environ
    rng = random.Random(20261123)
    for i in range(hands):
        dealt = rng.sample(ALL_CARDS, 5)
        if i % 7 == 3 and EXCUSE not in dealt:
            dealt[0] = EXCUSE  # the Excuse doubles 11s and bhargs: worth covering every run
        dealer = i % 2 == 0
        sequences = i % 5 == 4
        table = ai.discard_table(dealt, dealer, sequences=sequences)
        assert len(table) == 10
        assert [line.total for line in table] == sorted((line.total for line in table), reverse=True)
        checked = table if every_line else [table[0], table[-1], *rng.sample(table[1:-1], 2)]
        expect = _brute(dealt, dealer, sequences, [frozenset(line.cards) for line in checked])
        for line in checked:
            want = expect[frozenset(line.cards)]
            got = (line.hand, line.bhargage, line.shortage)
            assert got == pytest.approx(want, abs=1e-9), (dealt, dealer, sequences, line)
            assert line.total == pytest.approx(sum(got) + line.pegging, abs=1e-12)
            kept = [c.index for c in dealt if c not in line.cards]
            assert line.pegging == pytest.approx(ai.pegging(kept, dealer), abs=1e-12)


def test_discard_signs_follow_the_dealer() -> None:
    # the bhargage is the dealer's: its count is added for the dealer and taken off for the non-dealer
    dealt = [card("ace-moons"), card("ace-suns"), card("pact"), card("sea"), card("end")]
    for line in ai.discard_table(dealt, True):
        assert line.bhargage > 0
        assert line.shortage < 0
    for line in ai.discard_table(dealt, False):
        assert line.bhargage < 0
    # the non-dealer does not hand the dealer the pair of Crowns
    assert set(ai.discard_table(dealt, False)[0].cards) != {card("sea"), card("end")}


def test_defends_when_the_opponent_is_close() -> None:
    # After the opponent's Diplomat (8) the Savage makes 11 for 2, and the hard player takes it at the start
    # of a game. When the opponent needs only 2 it plays the Mountain instead: at 12 only the Battle (a pair)
    # scores at once, and the search finds the opponent's chance to peg out over the rest of the count lower.
    cards, pile = "sailor,savage,mountain", [(1, "diplomat")]
    early = ai.play_advice(play_view(cards, pile))
    late = ai.play_advice(play_view(cards, pile, scores=(10, 119)))
    assert early is not None and late is not None
    assert early.card == card("savage")
    assert late.card == card("mountain")
    assert late.reply < early.reply
    assert abs(late.net) < 10  # the coach reports points, not the search's bonus for pegging out


def test_an_unknown_level_is_quoted_as_harmless_text() -> None:
    with pytest.raises(UnknownLevel) as err:
        ai_level("**@everyone** " + "x" * 40)
    message = said(err.value)
    assert "@everyone" not in message and "\\*\\*" in message and len(message) < 120


def test_the_play_weighs_in_the_discard() -> None:
    # The dealer plays second, so low cards peg on the non-dealer's lead: the model values them over Crowns,
    # and enough to change the choice between two discards whose show is worth the same.
    low = [card(x).index for x in ("ace-moons", "author", "watchman")]
    high = [card(x).index for x in ("sea", "end", "pact")]
    assert ai.pegging(low, True) > ai.pegging(high, True) + 2
    assert ai.pegging(low, False) < 0 < ai.pegging(low, True)
    dealt = [card(x) for x in ("ace-moons", "author", "watchman", "sea", "end")]
    for dealer in (True, False):
        table = ai.discard_table(dealt, dealer)
        best = max(table, key=lambda line: line.hand + line.bhargage + line.shortage)
        assert table[0].total >= best.total
        assert table[0].total - table[0].pegging <= best.total - best.pegging


def test_the_opponent_hand_is_weighted_by_what_it_would_keep() -> None:
    # A non-dealer opponent lays the Excuse away almost always: its chance of holding it is far below a
    # uniform guess, and the chances over the unseen cards add up to its hand size.
    view = dataclasses.replace(play_view("forest,penitent,pact", []), dealer=0)
    search = bhargage_play._root(view).search
    scale = search.scale(3, ())
    chances = {c: min(1.0, search.w[c] * scale) for c in search.base}
    assert sum(chances.values()) == pytest.approx(3)
    assert chances[EXCUSE.index] < 0.2 * 3 / len(search.base)
    assert chances[card("ace-suns").index] > 3 / len(search.base)


def test_previous_player_is_rebuilt_from_git() -> None:
    from bench import previous
    from bench.bench_ai import PREVIOUS_MODULES

    try:
        old = previous.load(PREVIOUS_MODULES)["bhargage"]
    except previous.PreviousUnavailable:
        pytest.skip("git or commit ea59b99 is not available here")
    assert old.__name__.startswith("_previous_") and old.__name__ != ai.__name__
    # its helpers are its own, not today's
    assert old.discard_table is not ai.discard_table
    state, _ = bh.start(3)
    view = bh.view(state, bh.waiting_for(state)[0])
    assert old.choose(view, random.Random(0), "hard") in view.legal
    with pytest.raises(previous.PreviousUnavailable, match="not in this repository"):
        previous.load(["bhargage_cards"], commit="0" * 40)
