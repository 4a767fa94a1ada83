"""A worker process beside the event loop, and its watch: CPU work that holds Python's GIL (drawing the
pictures, an expert computer player's thinking) would slow every other table's clicks in a thread, so it
runs in a process of its own (its arguments go over as a copy, its answer comes back).

What waits on one is in a hurry, so no call waits longer than it was given (``TooSlow``). A worker that has
finished nothing for ``hang_seconds`` is hung (stopped, deadlocked, starved): it is killed with SIGKILL — a
stopped process ignores SIGTERM until it is continued — and a new one is started at once. A worker that died
is replaced the same way. A long queue is no hang: its calls come back late while the worker keeps finishing
them. The heartbeat calls :meth:`WorkerProcess.check`, which finds a hung worker even while nothing is asked,
and says what it did (a replacement in the last ``REPORT_SECONDS``) in the health file: a replaced worker has
healed, so it does not make the bot unhealthy, but the operator sees it.
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
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from prometheus_client import Counter

log = logging.getLogger("tavern.workers")

START_SECONDS = 10.0  # a new worker's start (a process, the imports, its warming) before it is hung
REPORT_SECONDS = 600.0  # how long the heartbeat mentions a replaced worker
KEEP = 20  # replacements remembered
T = TypeVar("T")


class TooSlow(Exception):
    """No answer from the worker process within the time a call was given."""


@dataclass
class _Worker:
    """One pool of the worker process, and when it last finished a call (None: it is still starting). Its
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


def _started(told: Any, warm: Callable[[], object] | None) -> None:
    """The worker's initializer: say which process it is, then warm up (draw every card face once)."""
    told.put(os.getpid())
    if warm is not None:
        warm()


class WorkerProcess:
    """One worker process of this bot process (``name``: what the log and the health file call it), started
    on first use and replaced when it hangs or dies. ``warm`` runs in it as it starts."""

    def __init__(
        self,
        name: str,
        hang_seconds: float,
        replaced_metric: Counter,
        warm: Callable[[], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.hang_seconds = hang_seconds
        self._replaced_metric = replaced_metric
        self._warm = warm
        self._clock = clock
        self._worker: _Worker | None = None
        self.replaced: list[tuple[float, str]] = []  # (when, why) of the latest replacements, oldest first

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
            pool = ProcessPoolExecutor(
                1, mp_context=context, initializer=_started, initargs=(told, self._warm)
            )
            self._worker = _Worker(pool, self._clock(), told)
            self._submit(self._worker, os.getpid)  # starts the process now; its answer says it is up
        return self._worker

    def _submit(self, worker: _Worker, fn: Callable[[], T]) -> Future[T]:
        future = worker.pool.submit(fn)
        future.add_done_callback(partial(self._finished, worker))
        return future

    def _finished(self, worker: _Worker, future: Future[Any]) -> None:
        """A call came back (in the pool's own thread): the worker is alive and working."""
        if not future.cancelled() and not isinstance(future.exception(), BrokenProcessPool):
            worker.answered = self._clock()

    async def call(self, fn: Callable[[], T], wait: float | None = None) -> T:
        """``fn()`` in the worker process. ``TooSlow`` after ``wait`` seconds (``hang_seconds`` if None; the
        worker replaced if it is hung); ``BrokenProcessPool`` if it died (replaced); what ``fn`` raised."""
        worker = self._current()
        wait = self.hang_seconds if wait is None else wait
        try:
            future = self._submit(worker, fn)
            return await asyncio.wait_for(asyncio.wrap_future(future), wait)
        except TimeoutError:
            if self._hung(worker):
                self._replace(worker, "hung")
            raise TooSlow(f"no answer from the {self.name} process within {wait:g} s") from None
        except BrokenProcessPool:
            self._replace(worker, "stopped")
            raise

    async def check(self) -> str:
        """For the heartbeat: call the worker, so a hung one is found and replaced even when nothing is
        asked of it, and say what an operator should know ("" when all is well). Starts no worker."""
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
        now_state = "the new one works" if self.ready() else "the new one is starting"
        return (
            f"the {self.name} process was replaced {times} in the last {REPORT_SECONDS / 60:.0f} minutes "
            f"(the last one {why} {now - at:.0f} s ago; {now_state})"
        )

    def _hung(self, worker: _Worker) -> bool:
        """Nothing finished for ``hang_seconds`` (or a start longer than ``START_SECONDS``)."""
        now = self._clock()
        if worker.answered is None:
            return now - worker.started >= START_SECONDS
        return now - worker.answered >= self.hang_seconds

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
        self._replaced_metric.labels(why).inc()
        what = f"did not answer for {self.hang_seconds:g} s" if why == "hung" else "stopped"
        worker.told.close()
        log.error(
            "The %s process %s (process %s): killed it and started a new one",
            self.name,
            what,
            ", ".join(map(str, pids)) or "?",
        )
        self._current()

    async def start(self) -> None:
        """Start the worker now and wait until it is warm, so the first call is as fast as the rest (a start
        may take longer than one call is waited for)."""
        worker = self._current()
        try:
            await asyncio.wrap_future(self._submit(worker, os.getpid))
        except Exception as err:  # replaced meanwhile, or it died: the next call starts another
            log.warning("The %s process did not start (%s: %s)", self.name, type(err).__name__, err)
