"""Muggins as RULES.md C9 rules it, over many seeded random games with any claims at all: a claim is made once
and never refused; the owner pegs the smaller of claim and count, the seat on the owner's left the difference
either way; the events add up to the scores; the game replays from its log."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import cribbage as cr
from bot.rules.cribbage import Claim, ClaimMade, Event, GameWon, HandCounted, MugginsTaken, Options, Phase
from bot.rules.cribbage_scoring import show_total

MOST = 29  # the most a hand or crib is worth: claims run from 0 to it (C9)


def claim_once(state: cr.State, points: int) -> tuple[cr.State, list[Event]]:
    """One claim, checked against C9 from the outside: what each side gains, and what the events say."""
    owner, kind, shown = cr.show_order(state)[state.show_step]
    assert state.starter is not None
    true = show_total(shown, state.starter, kind == "crib")
    for seat in range(-1, state.players):  # nothing offered or shown depends on the count
        legal = cr.view(state, seat).legal
        assert legal == (tuple(Claim(owner, p) for p in range(MOST + 1)) if seat == owner else ())
    assert cr.can(state, Claim(owner, points))
    before = state.scores
    state, events = cr.apply(state, Claim(owner, points))
    gained = [b - a for a, b in zip(before, state.scores, strict=True)]
    own, left = cr.side_of(state, owner), cr.side_of(state, (owner + 1) % state.players)
    assert own != left
    expected = [0] * len(gained)
    expected[own] = min(points, true)
    won_by_owner = before[own] + min(points, true) >= state.options.target
    if not won_by_owner:
        expected[left] = abs(points - true)
    assert gained == expected
    assert events[0] == ClaimMade(owner, kind, points)
    counted = events[1]
    assert (
        isinstance(counted, HandCounted) and counted.claimed == points and counted.pegged == min(points, true)
    )
    taken = [e for e in events if isinstance(e, MugginsTaken)]
    if points == true or won_by_owner:
        assert taken == []
    else:
        assert taken == [
            MugginsTaken(
                left,
                (owner + 1) % state.players,
                owner,
                abs(points - true),
                state.scores[left],
                over=points > true,
            )
        ]
    if cr.is_over(state):
        assert cr.final_result(state).muggins == bool(taken)
    return state, events


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    players=st.sampled_from(cr.PLAYERS),
    target=st.sampled_from(cr.TARGETS),
    claims=st.lists(st.integers(0, MOST), min_size=1, max_size=8),
)
def test_every_claim_is_taken_and_scored_as_c9_rules(
    seed: int, players: int, target: int, claims: list[int]
) -> None:
    rng = random.Random(seed)
    options = Options(target=target, muggins=True)
    state, events = cr.start(seed, players, options)
    texts: list[str] = []
    made = 0
    while not cr.is_over(state):
        if state.phase is Phase.CLAIM:
            owner = cr.waiting_for(state)[0]
            action: cr.Action = Claim(owner, claims[made % len(claims)])
            made += 1
            state, ev = claim_once(state, action.points)
        else:
            action = rng.choice(cr.legal_actions(state, rng.choice(cr.waiting_for(state))))
            state, ev = cr.apply(state, action)
        texts.append(cr.action_text(action))
        events += ev
    assert made > 0 or not any(isinstance(e, HandCounted) for e in events)
    assert cr.replay(seed, players, options, texts) == state
    sides = [0] * len(state.scores)
    for e in events:  # the events say who pegged what, and add up to the scores
        if isinstance(e, HandCounted):
            sides[e.side] += e.pegged
        elif isinstance(e, cr.PointsScored | MugginsTaken):
            sides[e.side] += e.points
    assert sides == list(state.scores)
    assert isinstance(events[-1], GameWon)
