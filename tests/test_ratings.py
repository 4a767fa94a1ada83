"""Pure rating maths: Elo conserves and bounds, openskill orders players by their final rank."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot import ratings as rt

elo = st.floats(min_value=100, max_value=3000, allow_nan=False)


@given(elo, elo, st.sampled_from([0.0, 0.5, 1.0]))
def test_elo_symmetric_and_bounded(ra: float, rb: float, score: float) -> None:
    na, nb = rt.elo_update(ra, rb, score)
    assert math.isclose(na + nb, ra + rb, abs_tol=1e-9)
    assert abs(na - ra) <= rt.ELO_K
    # Swapping the players mirrors the result.
    mb, ma = rt.elo_update(rb, ra, 1.0 - score)
    assert math.isclose(ma, na, abs_tol=1e-9) and math.isclose(mb, nb, abs_tol=1e-9)
    if score == 1.0:
        assert na > ra
    if score == 0.0:
        assert na < ra


def test_elo_equal_players_move_half_k() -> None:
    assert rt.elo_update(1500, 1500, 1.0) == (1516.0, 1484.0)
    assert rt.elo_update(1500, 1500, 0.5) == (1500.0, 1500.0)


def test_elo_upset_moves_more_than_expected_win() -> None:
    gain_fav, _ = rt.elo_update(1700, 1300, 1.0)
    gain_dog, _ = rt.elo_update(1300, 1700, 1.0)
    assert (gain_dog - 1300) > (gain_fav - 1700) > 0


@pytest.mark.parametrize(
    ("scores", "winners", "ranks"),
    [
        ((50, 100, 70), (1,), [3, 1, 2]),
        ((50, 100, 70, 70), (1,), [4, 1, 2, 2]),
        ((130, 90), (1,), [2, 1]),  # a forfeit: the winner ranks first even with fewer points
        ((10, 10), (0, 1), [1, 1]),
    ],
)
def test_ranks_from_result(scores: tuple[int, ...], winners: tuple[int, ...], ranks: list[int]) -> None:
    assert rt.ranks_from_result(scores, winners) == ranks


def test_openskill_ranks_order_the_ratings() -> None:
    start = [(rt.OS_MU, rt.OS_SIGMA)] * 4
    new = rt.openskill_update(start, [2, 4, 1, 3])
    mus = [mu for mu, _ in new]
    assert mus[2] > mus[0] > mus[3] > mus[1]
    assert all(sigma < rt.OS_SIGMA for _, sigma in new)
    shown = [rt.display_openskill(mu, s) for mu, s in new]
    assert shown[2] > shown[0] > shown[3] > shown[1]


def test_openskill_display_scale() -> None:
    assert rt.display_openskill(rt.OS_MU, rt.OS_SIGMA) == 0
    assert rt.display_openskill(25.0, 0.0) == 1500


def test_seats_that_left_rank_below_everyone_who_played_on() -> None:
    # seat 1 left with the most points: it still ranks last; seat 0 won, seat 2 stayed
    assert rt.ranks_from_result((40, 90, 10), (0,), (False, True, False)) == [1, 3, 2]
    assert rt.ranks_from_result((40, 90, 10), (0,)) == [1, 2, 3]  # nobody left: by score after the winner
