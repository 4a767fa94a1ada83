"""The drawing process: the worker process beside the event loop that draws the pictures
(``bot.services.workers``), and the pictures it drew.

A picture is optional — the text beside it carries the move — and what waits on one is in a hurry: a move
announces while it holds its table's lock, and a slash command must answer Discord within 3 s. So no call
waits longer than ``DRAW_SECONDS`` (``TooSlow``: the picture is left out), and a worker that has finished
nothing for that long is hung: killed and replaced (the workers' watch). The heartbeat's check writes a
replacement into the health file.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures.process import BrokenProcessPool
from functools import partial

from bot import pictures
from bot.base import metrics
from bot.services.workers import TooSlow, WorkerProcess

__all__ = ["CACHE_BYTES", "DRAWING", "DRAW_SECONDS", "Drawing", "TooSlow"]

log = logging.getLogger("tavern.drawing")

DRAW_SECONDS = 1.5  # the longest any picture is waited for: well inside Discord's 3 s for a command's answer
CACHE_BYTES = 32 * 2**20  # drawn pictures kept in the bot process, newest used last out


class Drawing(WorkerProcess):
    """The drawing process of this bot process, started on first use and replaced when it hangs or dies,
    and the pictures it drew."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__("drawing", DRAW_SECONDS, metrics.DRAWING_REPLACED, warm=pictures.warm, clock=clock)
        self._drawn: OrderedDict[Hashable, bytes] = OrderedDict()  # by picture key, least recently used first
        self._drawn_bytes = 0
        self._drawing: dict[Hashable, asyncio.Future[bytes]] = {}  # pictures being drawn, by key
        self.calls = 0  # pictures sent to the worker (a cached or shared one is not)

    async def picture(
        self, key: Hashable | None, draw: Callable[[], bytes], wait: float = DRAW_SECONDS
    ) -> bytes:
        """The picture's PNG: from the cache when this key was drawn before, else drawn in the worker once
        however many ask meanwhile. ``TooSlow`` after ``wait`` seconds: the drawing goes on (up to
        ``DRAW_SECONDS``), and the next ask gets it. A picture with no key is drawn each time."""
        if key is None:
            self.calls += 1
            return await self._draw(draw)
        png = self._drawn.get(key)
        if png is not None:
            self._drawn.move_to_end(key)
            metrics.PICTURE_FROM_CACHE.inc()
            return png
        task = self._drawing.get(key)
        if task is None:
            self.calls += 1
            task = asyncio.ensure_future(self._draw(draw))
            self._drawing[key] = task
            task.add_done_callback(partial(self._drew, key))
        else:
            metrics.PICTURE_SHARED.inc()
        try:
            return await asyncio.wait_for(asyncio.shield(task), wait)
        except TimeoutError:
            raise TooSlow(f"the picture was not drawn within {wait:g} s") from None

    async def _draw(self, draw: Callable[[], bytes]) -> bytes:
        """One picture drawn in the worker, timed and counted for the metrics."""
        metrics.PICTURE_DRAWN.inc()
        start = time.perf_counter()
        try:
            png = await self.call(draw)
        except TooSlow:
            metrics.DRAWING_FAILURES.labels("too_slow").inc()
            raise
        except BrokenProcessPool:
            metrics.DRAWING_FAILURES.labels("stopped").inc()
            raise
        except Exception:
            metrics.DRAWING_FAILURES.labels("error").inc()
            raise
        metrics.DRAWING_SECONDS.observe(time.perf_counter() - start)
        return png

    def forget_pictures(self) -> None:
        """Drop every drawn picture kept: the next ask of each draws it again."""
        self._drawn.clear()
        self._drawn_bytes = 0

    def _drew(self, key: Hashable, task: asyncio.Future[bytes]) -> None:
        """A drawing finished: keep its PNG (dropping the least recently used beyond ``CACHE_BYTES``)."""
        self._drawing.pop(key, None)
        if task.cancelled() or task.exception() is not None:  # the askers were told; the next draws again
            return
        png = task.result()
        self._drawn[key] = png
        self._drawn_bytes += len(png)
        while self._drawn_bytes > CACHE_BYTES and self._drawn:
            _, old = self._drawn.popitem(last=False)
            self._drawn_bytes -= len(old)


DRAWING = Drawing()  # the bot process's one drawing process
