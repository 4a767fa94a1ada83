"""Pure rating maths: Elo conserves and bounds, openskill orders players by their final rank."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.base import ratings as rt

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


def test_system_for_defaults_and_unknown_games() -> None:
    assert rt.system_for("bhargage") == "elo"
    assert rt.system_for("deluxe") == "openskill"
    assert rt.system_for("race") == "openskill"  # nobody configured it
    assert rt.system_for("race", {"race": "elo"}) == "elo"


def test_rate_game_newcomers_start_at_the_defaults() -> None:
    # Elo: two newcomers are two players at ELO_START.
    assert rt.rate_game("elo", [None, None], [1, 2], [0]) == rt.rate_game(
        "elo", [rt.Rating(rt.ELO_START), rt.Rating(rt.ELO_START)], [1, 2], [0]
    )
    assert rt.rate_game("elo", [None, None], [1, 2], [0]) == [rt.Rating(1516.0), rt.Rating(1484.0)]
    # Openskill: a newcomer, and an Elo row without mu/sigma, start at OS_MU/OS_SIGMA.
    start = rt.Rating(0.0, rt.OS_MU, rt.OS_SIGMA)
    fresh = rt.rate_game("openskill", [None, rt.Rating(1500.0), None], [2, 1, 3], [1])
    assert fresh == rt.rate_game("openskill", [start, start, start], [2, 1, 3], [1])
    expected = rt.openskill_update([(rt.OS_MU, rt.OS_SIGMA)] * 3, [2, 1, 3])
    assert [(r.mu, r.sigma) for r in fresh] == expected
    assert [r.rating for r in fresh] == [float(rt.display_openskill(mu, s)) for mu, s in expected]


@given(elo, elo, st.sampled_from([(0,), (1,), (0, 1), ()]))
def test_rate_game_two_player_elo_conserves(ra: float, rb: float, winners: tuple[int, ...]) -> None:
    new = rt.rate_game("elo", [rt.Rating(ra), rt.Rating(rb)], [1, 2], winners)
    assert all(r.mu is None and r.sigma is None for r in new)
    assert math.isclose(new[0].rating + new[1].rating, ra + rb, abs_tol=1e-9)
    score_a = {(0,): 1.0, (1,): 0.0}.get(winners, 0.5)
    assert (new[0].rating, new[1].rating) == rt.elo_update(ra, rb, score_a)


def test_rate_game_elo_needs_exactly_two_players() -> None:
    three = rt.rate_game("elo", [None, None, None], [1, 2, 3], [0])
    assert three == rt.rate_game("openskill", [None, None, None], [1, 2, 3], [0])
    assert all(r.mu is not None for r in three)


def test_rate_game_three_player_openskill_follows_ranks() -> None:
    current = [rt.Rating(100.0, 26.0, 7.0), None, rt.Rating(300.0, 24.0, 6.0)]
    new = rt.rate_game("openskill", current, [3, 1, 2], [1])
    assert [(r.mu, r.sigma) for r in new] == rt.openskill_update(
        [(26.0, 7.0), (rt.OS_MU, rt.OS_SIGMA), (24.0, 6.0)], [3, 1, 2]
    )
    mus = [r.mu for r in new]
    assert mus[1] is not None and mus[2] is not None and mus[0] is not None
    assert mus[1] > rt.OS_MU and mus[0] < 26.0  # the winner climbs, the last one drops
    ranked = rt.rate_game("openskill", [None, None, None], [3, 1, 2], [1])
    shown = [r.rating for r in ranked]
    assert shown[1] > shown[2] > shown[0]
    assert [r.rating for r in ranked] == [
        float(rt.display_openskill(mu, s))
        for mu, s in rt.openskill_update([(rt.OS_MU, rt.OS_SIGMA)] * 3, [3, 1, 2])
    ]
