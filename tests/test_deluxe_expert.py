"""Bharg Deluxe expert player: always legal, deterministic for (view, seed, work), and its sampled deals agree
with what the seat sees (a sample that contradicts the view would weigh impossible games)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from bot.ai import deluxe as ai
from bot.ai import deluxe_expert as expert
from bot.rules import deluxe as D
from bot.rules.decktet import deluxe_deck

OPTION_SETS = [
    D.Options(target=25, pawns=p, courts=c, fast_start=f)
    for p, c, f in itertools.product((False, True), (False, True), (0, 1, 2, 3))
]
WORK = 60  # small: the tests check the machinery, not the strength


def expert_choice(view: D.View, rng: random.Random) -> D.Action:
    """The expert's choice at the tests' small budget, over hard's weighing as the level gives it."""
    return expert.choose(view, rng, ai.advise(view, explain=False), WORK)


def _views(seed: str, players: int, options: D.Options, every: int = 7) -> list[D.View]:
    """Views met along one hard-played game (every ``every``-th decision)."""
    state, _ = D.start(seed, players, options)
    rng = random.Random(seed)
    out: list[D.View] = []
    steps = 0
    while not D.is_over(state) and steps < 5000:
        view = D.view(state, D.waiting_for(state)[0])
        if steps % every == 0:
            out.append(view)
        state, _ = D.apply(state, ai.choose(view, rng, "hard"))
        steps += 1
    return out


@pytest.mark.parametrize("players", [2, 3, 6])
def test_the_expert_plays_legal_whole_games(players: int) -> None:
    for i, options in enumerate(OPTION_SETS[::3]):
        state, _ = D.start(f"x{players}:{i}", players, options)
        rngs = [random.Random(f"x{players}:{i}:{s}") for s in range(players)]
        steps = 0
        while not D.is_over(state):
            assert steps < 20_000, "the game did not end"
            seat = D.waiting_for(state)[0]
            view = D.view(state, seat)
            action = expert_choice(view, rngs[seat]) if seat % 2 == 0 else ai.choose(view, rngs[seat], "hard")
            assert action in view.legal, (action, view.legal)
            state, _ = D.apply(state, action)
            steps += 1
        assert len(D.final_result(state).winners) == 1


def test_the_expert_is_legal_on_many_positions() -> None:
    n = 0
    for i, options in enumerate(OPTION_SETS):
        for view in _views(f"pos:{i}", 3 + i % 4, options, every=5):
            action = expert_choice(view, random.Random(i))
            assert action in view.legal
            n += 1
    assert n > 200


def test_the_same_view_seed_and_work_make_the_same_choice() -> None:
    views = _views("same", 4, D.Options(target=40, pawns=True), every=5)[:40]
    first = [expert_choice(v, random.Random(7)) for v in views]
    again = [expert_choice(v, random.Random(7)) for v in views]
    assert first == again


def test_a_sampled_deal_shows_the_seat_exactly_its_view() -> None:
    """The sample hides only what the seat can't see: the seat's own view of it is the view it came from,
    the other hands hold the cards they are known to have taken, and no card is doubled or lost."""
    checked = 0
    for i, options in enumerate(OPTION_SETS):
        for view in _views(f"sample:{i}", 2 + i % 5, options, every=3):
            if view.phase == D.Phase.OVER:
                continue
            state = expert.sample_state(view, random.Random(i), f"s{i}")
            again = D.view(state, view.seat)
            assert again.hand == view.hand
            assert again.hand_sizes == view.hand_sizes
            assert again.deck_count == view.deck_count
            assert again.legal == view.legal
            assert again.straight_suit == view.straight_suit
            for s, known in enumerate(view.taken):
                assert not Counter(c.index for c in known) - Counter(c.index for c in state.hands[s])
            every = [*state.deck, *state.queue, *state.ace_pile, *(c for h in state.hands for c in h)]
            every += [c for ms in state.bound for m in ms for c in m.cards]
            deck = deluxe_deck(pawns=options.pawns, courts=options.courts)
            assert Counter(c.index for c in every) == Counter(c.index for c in deck)
            checked += 1
    assert checked > 300


def test_a_won_game_is_worth_everything_and_a_point_counts_more_near_the_target() -> None:
    left = (False, False, False)
    far = expert.utility(0, (12.0, 10.0, 10.0), left, 100) - expert.utility(0, (10.0, 10.0, 10.0), left, 100)
    near = expert.utility(0, (92.0, 90.0, 90.0), left, 100) - expert.utility(0, (90.0, 90.0, 90.0), left, 100)
    assert 0 < far < near
    assert expert.utility(0, (50.0, 10.0, 10.0), (False, True, True), 100) == 1.0
