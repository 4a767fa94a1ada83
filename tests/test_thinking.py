"""The thinking process (``bot.services.thinking``): an expert decides in a process of its own, exactly as it
would here for the same seed, and a decision past its budget is given up at once (the caller plays the hard
player's choice) while the process is left to finish or be replaced."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import time
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import pytest

from bot.ai import bhargage as bh_ai
from bot.base import metrics
from bot.rules import bhargage as bh
from bot.services.thinking import Thinking


def where(view: Any, rng: random.Random) -> tuple[int, float, Any]:
    """A stand-in expert: which process ran it, what its generator gave first, and what it was asked."""
    return os.getpid(), rng.random(), view


def slowly(view: Any, rng: random.Random) -> str:
    """A stand-in ``choose`` that thinks for far longer than any budget here."""
    time.sleep(30)
    return "too late"


@pytest.fixture
async def thinking() -> AsyncIterator[Thinking]:
    """A thinking process of the test's own, killed at its end."""
    made = Thinking()
    yield made
    for pid in made.pids():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    made.pool().shutdown(wait=False, cancel_futures=True)


def fell_back() -> float:
    return float(metrics.REGISTRY.get_sample_value("tavern_expert_fell_back_total") or 0.0)


async def test_the_expert_thinks_in_another_process_as_it_would_here(thinking: Thinking) -> None:
    thought = await thinking.decide(where, ("a", "view"), "7:12:1", 5.0)
    pid, first, view = thought.action
    assert pid != os.getpid() and pid in thinking.pids()
    assert first == random.Random("7:12:1").random() and view == ("a", "view")
    assert 0 < thought.seconds < 5.0


async def test_a_real_expert_choice_is_the_same_there_and_here(thinking: Thinking) -> None:
    state, _ = bh.start(11, options=bh.Options(target=61))
    view = bh.view(state, 0)
    thought = await thinking.decide(partial(bh_ai.choose, level="expert"), view, "11:0:0", 10.0)
    assert thought.action in view.legal
    assert thought.action == bh_ai.choose(view, random.Random("11:0:0"), "expert")


async def test_past_its_budget_the_decision_is_given_up_at_once(thinking: Thinking) -> None:
    await thinking.start()
    before = fell_back()
    thought = await thinking.decide(slowly, None, "1", 0.2)
    assert thought.action is None and 0.2 <= thought.seconds < 2.0
    assert fell_back() == before + 1


async def test_a_budget_of_zero_asks_nothing(thinking: Thinking) -> None:
    thought = await thinking.decide(where, None, "1", 0.0)
    assert thought.action is None and thinking.pids() == []
