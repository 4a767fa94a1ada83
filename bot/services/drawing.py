"""The drawing process: one worker process beside the event loop that draws the pictures, and its watch.

Drawing is CPU work that holds Python's GIL: in a thread it would slow every other table's clicks, so it runs
in a process of its own (the scene goes over as a copy, PNG bytes come back). A picture is optional — the text
beside it carries the move — and what waits on one is in a hurry: a move announces while it holds its table's
lock, and a slash command must answer Discord within 3 s. So no call waits longer than ``DRAW_SECONDS``
(``TooSlow``: the picture is left out). A worker that has finished nothing for that long is hung (stopped,
deadlocked, starved): it is killed with SIGKILL — a stopped process ignores SIGTERM until it is continued —
and a new one is started at once, so the next pictures come again. A worker that died is replaced the same
way. A long queue is no hang: its pictures are left out while the worker keeps finishing calls.

The heartbeat calls :meth:`Drawing.check`, which finds a hung worker even while no picture is wanted, and
writes what it says (a replacement in the last ``REPORT_SECONDS``) into the health file: a replaced worker
has healed, so it does not make the bot unhealthy, but the operator sees it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import queue
import signal
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from bot import pictures
from bot.base import metrics

log = logging.getLogger("tavern.drawing")

WORKERS = 1  # one process beside the event loop: a move's pictures take a few milliseconds
DRAW_SECONDS = 1.5  # the longest any picture is waited for: well inside Discord's 3 s for a command's answer
START_SECONDS = 10.0  # a new worker's start (a process, the imports, every card face drawn) before it is hung
REPORT_SECONDS = 600.0  # how long the heartbeat mentions a replaced worker
KEEP = 20  # replacements remembered
CACHE_BYTES = 32 * 2**20  # drawn pictures kept in the bot process, newest used last out
T = TypeVar("T")


class TooSlow(Exception):
    """No answer from the drawing process within ``DRAW_SECONDS``: the picture is left out."""


@dataclass
class _Worker:
    """One pool of the drawing process, and when it last finished a call (None: it is still starting). Its
    process says its id on ``told`` as it starts (``_started``), so a hung one can be killed even before
    it has finished a call."""

    pool: ProcessPoolExecutor
    started: float
    told: Any  # a multiprocessing Queue of process ids
    answered: float | None = None
    pids: set[int] = field(default_factory=set)

    def known(self) -> set[int]:
        """The ids of the processes that said they started, so far."""
        with contextlib.suppress(queue.Empty, OSError, ValueError):
            while True:
                self.pids.add(int(self.told.get_nowait()))
        return self.pids


def _started(told: Any) -> None:
    """The worker's initializer: say which process it is, then draw every card face once."""
    told.put(os.getpid())
    pictures.warm()


class Drawing:
    """The drawing process of this bot process, started on first use and replaced when it hangs or dies."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._worker: _Worker | None = None
        self.replaced: list[tuple[float, str]] = []  # (when, why) of the latest replacements, oldest first
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

    def pool(self) -> ProcessPoolExecutor:
        """The current worker's pool (started now if there is none)."""
        return self._current().pool

    def pids(self) -> list[int]:
        """The process ids of the current worker, once it runs."""
        worker = self._worker
        return sorted(worker.known()) if worker is not None else []

    def ready(self) -> bool:
        """Whether the current worker is up and has answered a call."""
        return self._worker is not None and self._worker.answered is not None

    def _current(self) -> _Worker:
        if self._worker is None:
            # forkserver: the worker gets no copy of the running bot's event loop and sockets
            context = multiprocessing.get_context("forkserver")
            told = context.Queue()
            pool = ProcessPoolExecutor(WORKERS, mp_context=context, initializer=_started, initargs=(told,))
            self._worker = _Worker(pool, self._clock(), told)
            self._submit(self._worker, os.getpid)  # starts the process now; its answer says it is up
        return self._worker

    def _submit(self, worker: _Worker, fn: Callable[[], T]) -> Future[T]:
        future = worker.pool.submit(fn)
        future.add_done_callback(partial(self._finished, worker))
        return future

    def _finished(self, worker: _Worker, future: Future[Any]) -> None:
        """A call came back (in the pool's own thread): the worker is alive and drawing."""
        if not future.cancelled() and not isinstance(future.exception(), BrokenProcessPool):
            worker.answered = self._clock()

    async def call(self, fn: Callable[[], T]) -> T:
        """``fn()`` in the drawing process. ``TooSlow`` after ``DRAW_SECONDS`` (the worker replaced if it is
        hung); ``BrokenProcessPool`` if it died (replaced); whatever ``fn`` raised."""
        worker = self._current()
        try:
            future = self._submit(worker, fn)
            return await asyncio.wait_for(asyncio.wrap_future(future), DRAW_SECONDS)
        except TimeoutError:
            if self._hung(worker):
                self._replace(worker, "hung")
            raise TooSlow(f"no answer from the drawing process within {DRAW_SECONDS:g} s") from None
        except BrokenProcessPool:
            self._replace(worker, "stopped")
            raise

    async def check(self) -> str:
        """For the heartbeat: call the worker, so a hung one is found and replaced even when no picture is
        wanted, and say what an operator should know ("" when all is well). Starts no worker."""
        if self._worker is not None:
            with contextlib.suppress(Exception):  # what went wrong is in the note (and the log)
                await self.call(os.getpid)
        return self.note()

    def note(self) -> str:
        """The replacements of the last ``REPORT_SECONDS``, in a line; "" if there were none."""
        now = self._clock()
        recent = [(at, why) for at, why in self.replaced if now - at < REPORT_SECONDS]
        if not recent:
            return ""
        at, why = recent[-1]
        times = "once" if len(recent) == 1 else f"{len(recent)} times"
        now_state = "the new one draws" if self.ready() else "the new one is starting"
        return (
            f"the drawing process was replaced {times} in the last {REPORT_SECONDS / 60:.0f} minutes "
            f"(the last one {why} {now - at:.0f} s ago; {now_state})"
        )

    def _hung(self, worker: _Worker) -> bool:
        """Nothing finished for ``DRAW_SECONDS`` (or a start longer than ``START_SECONDS``)."""
        now = self._clock()
        if worker.answered is None:
            return now - worker.started >= START_SECONDS
        return now - worker.answered >= DRAW_SECONDS

    def _replace(self, worker: _Worker, why: str) -> None:
        """Kill the worker's processes and start a new one, once per worker (several calls may find it)."""
        if self._worker is not worker:
            return
        self._worker = None
        pids = sorted(worker.known()) if why == "hung" else []  # a stopped one is gone: its id may be reused
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)  # SIGKILL: a stopped (SIGSTOP) process would never see SIGTERM
        # Not cancel_futures: a call cancelled under its caller would cancel the caller (a move, the
        # heartbeat). The pool fails them all with BrokenProcessPool once it sees its process gone.
        worker.pool.shutdown(wait=False)
        self.replaced = [*self.replaced, (self._clock(), why)][-KEEP:]
        metrics.DRAWING_REPLACED.labels(why).inc()
        what = f"did not answer for {DRAW_SECONDS:g} s" if why == "hung" else "stopped"
        worker.told.close()
        log.error(
            "The drawing process %s (process %s): killed it and started a new one; pictures go as text alone "
            "until it is up",
            what,
            ", ".join(map(str, pids)) or "?",
        )
        self._current()

    async def start(self) -> None:
        """Start the worker now and wait until it has drawn every card face, so the first game's pictures
        come as fast as the rest (a start may take longer than one picture is waited for)."""
        worker = self._current()
        try:
            await asyncio.wrap_future(self._submit(worker, pictures.warm))
        except Exception as err:  # replaced meanwhile, or it died: the next picture starts another
            log.warning("The drawing process did not start (%s: %s)", type(err).__name__, err)


DRAWING = Drawing()  # the bot process's one drawing process
