"""The expert Classic Cribbage player (``bot.ai.cribbage_expert``): its open-handed solve of the play counts
as C4 does, and its choices are legal and the same for the same seed."""

from __future__ import annotations

import random

import pytest

from bot.ai import cribbage as ai
from bot.ai import cribbage_expert as expert
from bot.ai.cribbage_play import WIN
from bot.rules import cribbage as cr

FAR = (1 << 20, 1 << 20)


@pytest.mark.parametrize(
    ("mine", "theirs", "value"),
    [
        ((5,), (10,), -3),  # 15 for 2 to them, and the last card
        ((6,), (9,), -3),
        ((7, 7), (7,), 5),  # they pair (2), the pair royal (6) and the last card (1) are ours
        ((2,), (3,), -1),  # nothing but the last card
        # 10, their 10 (a pair: 2), our 10 (pair royal: 6), they go, our ace (31: 2); their last ten (1)
        ((10, 10, 1), (10, 10), 5),
    ],
)
def test_the_solve_counts_the_play_as_c4_does(
    mine: tuple[int, ...], theirs: tuple[int, ...], value: int
) -> None:
    solver = expert._Solver(FAR)
    assert solver.fresh((mine, theirs), 0, (0, 0)) == value


def test_near_the_target_a_peg_out_is_worth_a_game() -> None:
    solver = expert._Solver((1 << 20, 2))  # they need 2: the 15 ends the game
    assert solver.fresh(((5,), (10,)), 0, (0, 0)) == -(2 + WIN)


def test_the_expert_plays_legal_cards_and_the_same_for_the_same_seed() -> None:
    decided = 0
    for seed in range(4):
        state, _ = cr.start(seed, 2, cr.Options(target=61))
        rng = random.Random(seed)
        while not cr.is_over(state):
            seat = cr.waiting_for(state)[0]
            view = cr.view(state, seat)
            if view.phase is cr.Phase.PLAY and len(view.legal) > 1:
                card = expert.play(view, random.Random(f"{seed}:{decided}"), samples=4)
                assert cr.Play(seat, card) in view.legal
                assert card == expert.play(view, random.Random(f"{seed}:{decided}"), samples=4)
                if decided % 10 == 0:  # the level is this play, at its own work
                    level = ai.choose(view, random.Random(decided), "expert")
                    assert level == cr.Play(seat, expert.play(view, random.Random(decided)))
                decided += 1
            state, _ = cr.apply(state, ai.choose(view, rng, "hard"))
    assert decided >= 40
