"""The Bhargage expert player (bot/ai/bhargage_expert.py): legal and repeatable in whole games, its show
count agrees with the engine's, its end-of-game model is a consistent chance, and it pegs out when it can."""

from __future__ import annotations

import random

import pytest

from bot.ai import bhargage_expert as expert
from bot.ai.bhargage import choose as level_choose
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import count_hand, shortage
from bot.rules.decktet import ALL_CARDS, card
from tests.test_ai_bhargage import play_view


@pytest.mark.parametrize(("target", "sequences"), [(41, False), (61, True), (121, False)])
def test_whole_games_every_decision_legal_and_repeatable(target: int, sequences: bool) -> None:
    # a low target puts most decisions near the end, where the expert does its own search
    decisions = 0
    for seed in range(4 if target < 121 else 1):
        state, _ = bh.start(seed, 2, bh.Options(target=target, sequences=sequences))
        rngs = [random.Random(seed), random.Random(seed + 1000)]
        while not bh.is_over(state):
            seat = bh.waiting_for(state)[0]
            view = bh.view(state, seat)
            if seat == seed % 2:
                before = rngs[seat].getstate()
                action = expert.choose(view, rngs[seat], 6) or level_choose(view, rngs[seat], "hard")
                again = random.Random()
                again.setstate(before)
                assert (expert.choose(view, again, 6) or level_choose(view, again, "hard")) == action
                decisions += 1
            else:
                action = level_choose(view, rngs[seat], "hard")
            assert action in view.legal
            state, _ = bh.apply(state, action)
        assert state.winner in (0, 1)
    assert decisions > 20


def test_show_count_is_the_engines() -> None:
    rng = random.Random(5)
    for _ in range(300):
        cards = rng.sample(ALL_CARDS, rng.choice((4, 5)))
        up = cards[-1]
        hand = len(cards) == 4
        friends = hand and up.personality
        num, short = expert._show([c.index for c in cards], friends, False)
        counted = count_hand(cards[:-1], up, bhargage=not hand)
        assert num == counted.total
        assert short == shortage(cards)


def test_win_chance_is_a_chance_seen_from_both_seats() -> None:
    for a, b in [(1, 1), (5, 30), (30, 5), (40, 41), (111, 111), (7, 90)]:
        for dealing in (True, False):
            p = expert.win_chance(a, b, dealing)
            assert 0.0 <= p <= 1.0
            assert p + expert.win_chance(b, a, not dealing) == pytest.approx(1.0)
            assert expert.win_chance(a + 5, b, dealing) <= p
    # needing a point as the non-dealer, which counts first, nearly always wins
    assert expert.win_chance(1, 1, False) > 0.95


def test_pegs_out_when_it_can() -> None:
    # 2 points win: the Forest makes 11 on the count of 6 and ends the game before the dealer's turn
    view = play_view("forest,penitent", [(0, "ace-moons"), (1, "discovery")], scores=(119, 118))
    for seed in range(5):
        choice = expert.choose(view, random.Random(seed))
        assert isinstance(choice, bh.Play)
        assert choice.card == card("forest")
