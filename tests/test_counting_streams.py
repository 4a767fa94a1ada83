"""Bhargage and Classic Cribbage play exactly as they did: for each engine and number of seats, 2,000
seeded games played to their end by a seeded random policy, every event stream and final result hashed
into one SHA-256.

The expected digests were recorded from the engines before the counting core (``bot.rules.counting``)
was shared (commit eaf25fb). A digest that changes means the play changed: the turn order, a go, a last
card, a reset, the show's order, where a game stops, an event's fields or their order, or a final result.

The policy is as cheap as a policy can be: a seeded choice among the legal actions of the first seat
waited for. Each game's options come from its seed (targets, the sequences variant, muggins, the double
lurch), and one game in 40 ends by a resignation or forfeit at a seeded point, so every path of both
engines is walked. The four digests take about 35 s of CPU (one core): the engines, not the policy, are
the cost.
"""

from __future__ import annotations

import hashlib
import random
from types import ModuleType
from typing import Any

import pytest

from bot.rules import bhargage, cribbage

GAMES = 2000

# Recorded from the engines before the counting core was shared (commit eaf25fb).
EXPECTED = {
    ("bhargage", 2): "fdbf63f21dc2c55577e814bf976476c6551ac9910b8db676b539277f12ee0b9e",
    ("cribbage", 2): "133ca555a6c0f11001fb99fa259e03f26c703c4ad38ffc30c12d8420a2e82c23",
    ("cribbage", 3): "b68369bb999c8871517bef007c6eda24d80657c4520e2af5c9ee838a6a0d504a",
    ("cribbage", 4): "b4beb2141d5aa5c22a331bdba18137b3727b2c3848b3b8e03b6b28bd3745181c",
}


def _options(rules: ModuleType, seed: int) -> Any:
    if rules is bhargage:
        return bhargage.Options(target=(61, 31, 121, 41)[seed % 4], sequences=seed % 3 == 1)
    target = 121 if seed % 4 == 0 else 61
    return cribbage.Options(target=target, muggins=seed % 2 == 1, double_lurch=seed % 5 < 2)


def play(rules: ModuleType, players: int, seed: int, sink: Any) -> int:
    """One seeded game to its end; each batch of events and the final result go to ``sink``.

    Returns the number of moves."""
    rng = random.Random(seed)
    state, events = rules.start(seed, players, _options(rules, seed))
    sink(repr(events).encode())
    resign_at = rng.randrange(200) if seed % 40 == 7 else -1
    moves = 0
    while not rules.is_over(state):
        seat = rules.waiting_for(state)[0]
        if moves == resign_at:
            action = rules.Resign(seat, "forfeit" if seed % 80 == 7 else "resign")
        else:
            action = rng.choice(rules.legal_actions(state, seat))
        state, events = rules.apply(state, action)
        sink(repr(events).encode())
        moves += 1
    sink(repr(rules.final_result(state)).encode())
    return moves


def digest(rules: ModuleType, players: int, games: int = GAMES) -> str:
    h = hashlib.sha256()
    for seed in range(games):
        play(rules, players, seed, h.update)
    return h.hexdigest()


@pytest.mark.parametrize(("name", "players"), list(EXPECTED))
def test_event_streams_unchanged(name: str, players: int) -> None:
    rules = {"bhargage": bhargage, "cribbage": cribbage}[name]
    assert digest(rules, players) == EXPECTED[name, players]
