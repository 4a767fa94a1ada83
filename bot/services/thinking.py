"""The thinking process: where the expert computer players decide (``bot.services.workers``).

An expert weighs many sampled deals, hundreds of milliseconds of pure Python: on the event loop, or in a
thread holding the GIL, that would hold up every other table's clicks. So it thinks in a process of its own,
within a wall-clock budget (``Settings.expert_seconds``). Its choice depends only on the seat's view, the
seed and its work budget (samples, not time), so a game replays exactly; the clock only caps it. Past the
budget, or when the process is gone, the caller plays the hard player's choice: a move never waits longer.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial
from typing import Any

from bot.base import metrics
from bot.services.workers import START_SECONDS, TooSlow, WorkerProcess

HANG_SECONDS = 10.0  # no decision takes this long: the process is hung, and replaced

Weigh = Callable[[Any, random.Random], Any]  # a module's function of a seat's view and a generator


@dataclass(frozen=True, slots=True)
class Thought:
    """What the expert chose (None: no answer within the budget, so the hard player's choice goes), and
    the seconds it waited for it."""

    action: Any
    seconds: float


def _warm() -> None:
    """In the thinking process as it starts: import the computer players and fill the experts' tables, so no
    decision pays for them."""
    import bot.ai.cribbage
    import bot.ai.deluxe  # noqa: F401
    from bot.ai import bhargage_expert

    bhargage_expert.warm()


def _decide(weigh: Weigh, view: Any, seed: str) -> Any:
    """In the thinking process: the expert's answer, from a generator seeded by ``seed``."""
    return weigh(view, random.Random(seed))


class Thinking(WorkerProcess):
    """The expert players' process, started on first use and replaced when it hangs or dies."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__("thinking", HANG_SECONDS, metrics.THINKING_REPLACED, warm=_warm, clock=clock)

    async def decide(
        self, weigh: Weigh, view: Any, seed: str, seconds: float, *, start_wait: float = START_SECONDS
    ) -> Thought:
        """``weigh(view, Random(seed))`` — the expert's choice, or its weighing for the coach — waited for
        at most ``seconds`` (0: not asked). A process not yet up is started first and waited for up to
        ``start_wait``: a move may wait for it (a first expert move after a start pays for it), a hint may
        not."""
        if seconds > 0 and not self.ready():
            with contextlib.suppress(TimeoutError):  # a start that hangs: the call below finds it hung
                await asyncio.wait_for(asyncio.shield(self.start()), start_wait)
        start = time.perf_counter()
        action: Any = None
        if seconds > 0:
            try:
                action = await self.call(partial(_decide, weigh, view, seed), wait=seconds)
            except (TooSlow, BrokenProcessPool):
                metrics.EXPERT_FELL_BACK.inc()
        waited = time.perf_counter() - start
        metrics.EXPERT_SECONDS.observe(waited)
        return Thought(action, waited)


THINKING = Thinking()  # the bot process's one thinking process
