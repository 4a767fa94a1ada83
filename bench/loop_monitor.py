"""The bot process's event loop measured from inside: how busy it is, its longest stall, how late it wakes,
and how late its gateway heartbeats are. The load bench turns it on in the bot process (``LOOP_ENV``) and
reads the figures the process prints at exit, by the second, so it can keep to the seconds of its own run.

- busy: the time the loop spends outside its selector's ``select`` (running callbacks, reading sockets);
  measured by a selector of the standard library's own kind that times its ``select``, handed to
  ``asyncio.SelectorEventLoop`` (a public argument): nothing of asyncio is patched.
- a stall: one turn of the loop, from ``select`` returning to the next ``select``: for that long no socket
  was read and no timer fired. The longest per second is kept, with the CPU time the loop's thread ran in
  it: a long turn of little CPU is the thread waiting for a core (a busy machine), not code of the bot's;
  and the most CPU any one turn took (the bot's own longest run without a break).
- CPU: the loop thread's own CPU time (``time.thread_time``, read by the probe), what a press costs the loop
  whatever else the machine runs: busy time also counts the moments the thread waited for a core.
- garbage collection: the time the loop's thread spent in the collector's passes, the longest pass, and how
  many were full ones (``gc.callbacks``).
- lag: a probe that asks to wake every ``PROBE_SECONDS`` and records how late it woke (what a callback
  scheduled now waits behind the ones already queued).
- heartbeat lateness: from the moment discord.py's keep-alive thread finds a heartbeat due until the loop
  has read the gateway's ACK (the fake ACKs at once, so all of it is the bot's own); and of that, until the
  loop wrote the heartbeat. discord.py's own ``latency`` is not used: its keep-alive thread stamps the send
  only once it wakes after the send, so under a busy loop the ACK is often read first and the latency comes
  out as the whole interval ("41.4 s behind" with a 41.25-s interval). The two methods wrapped are
  internals of discord.py's gateway (``DiscordWebSocket.send_heartbeat``, ``KeepAliveHandler.ack``); the
  bench's test counts the heartbeats measured, so a release that moves them shows as none.

Times are ``time.perf_counter()``, the system's monotonic clock on Linux, which the bench process reads too.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import selectors
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from discord import gateway

LOOP_ENV = "TAVERN_BENCH_LOOP"  # in the bot process's environment: measure its loop, into this JSON file
PROBE_SECONDS = 0.1
STALL_SECONDS = 0.1  # a turn of the loop longer than this is a stall (issue: none over 100 ms)
STALL_FRAMES = 8  # the innermost frames noted of a stall
SAVE_EVERY = 10  # probes between two saves of the figures: a bot process killed at its stop loses ~1 s


class Monitor:
    """Per whole second of ``perf_counter``: busy seconds, the longest turn, turns; plus lag samples and
    heartbeats (due, written, ACK read)."""

    def __init__(self, path: Path | None = None, clock: Callable[[], float] = time.perf_counter) -> None:
        self.path = path  # where the figures are saved every second and at exit (the bench reads them)
        self.clock = clock
        # second → [busy s, longest turn s, turns, that turn's CPU s, the most CPU a turn took s]
        self.seconds: dict[int, list[float]] = {}
        self.lag: list[tuple[float, float]] = []  # (when, seconds late)
        # second → [seconds the loop's thread spent collecting garbage, the longest pass, full passes]
        self.collections: dict[int, list[float]] = {}
        self.cpu: list[tuple[float, float]] = []  # (when, the loop thread's CPU seconds so far)
        self.heartbeats: list[tuple[float, float, float]] = []  # (due, written, ACK read)
        self._sent: tuple[float, float] | None = None  # the last heartbeat's (due, written), until its ACK
        self._returned: float | None = None  # when select last returned
        self._returned_cpu = 0.0  # and the loop thread's CPU time then
        self._lock = threading.Lock()  # the keep-alive thread stamps heartbeats too
        self.extra: dict[str, Callable[[], Any]] = {}  # more figures, read at each save (JSON-ready)
        self._selecting = False
        # where the loop's thread was, each time a watcher found one turn running past STALL_SECONDS: the
        # innermost frames, as "file:line function" joined by " < ", with how often
        self.stalls: dict[str, int] = {}

    def turn(self, began: float, ended: float, cpu: float = 0.0) -> None:
        """One turn of the loop: from ``began`` (select returned) to ``ended`` (select called again), of
        which the loop's thread ran ``cpu`` seconds (the rest it waited for a core)."""
        row = self.seconds.setdefault(int(began), [0.0, 0.0, 0, 0.0, 0.0])
        spent = ended - began
        row[0] += spent
        if spent > row[1]:
            row[1], row[3] = spent, cpu
        row[2] += 1
        row[4] = max(row[4], cpu)

    def selector(self) -> selectors.BaseSelector:
        """A selector like the default one whose ``select`` reports each turn of the loop around it."""
        monitor = self

        class Timed(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
            def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
                now, cpu = monitor.clock(), time.thread_time()
                if monitor._returned is not None:
                    monitor.turn(monitor._returned, now, cpu - monitor._returned_cpu)
                monitor._selecting = True
                try:
                    return super().select(timeout)  # type: ignore[no-any-return]
                finally:
                    monitor._returned, monitor._returned_cpu = monitor.clock(), time.thread_time()
                    monitor._selecting = False

        return Timed()

    def loop(self) -> asyncio.AbstractEventLoop:
        """An event loop over the timed selector (for ``asyncio.Runner(loop_factory=...)``)."""
        return asyncio.SelectorEventLoop(self.selector())

    async def probe(self) -> None:
        """Wake every ``PROBE_SECONDS`` and note how late, saving the figures every ``SAVE_EVERY`` wakes
        (runs until cancelled)."""
        while True:
            asked = self.clock()
            await asyncio.sleep(PROBE_SECONDS)
            now = self.clock()
            self.lag.append((asked, max(0.0, now - asked - PROBE_SECONDS)))
            self.cpu.append((now, time.thread_time()))  # the probe runs on the loop's thread
            if len(self.lag) % SAVE_EVERY == 0:
                self.save()

    def save(self) -> None:
        """Write the figures to ``path`` whole (a reader never sees half a file)."""
        if self.path is not None:
            part = self.path.with_suffix(".part")
            part.write_text(json.dumps(self.figures()))
            os.replace(part, self.path)

    def watch_stalls(self, every: float = 0.02) -> None:
        """A thread that looks at the loop's thread every ``every`` s and, while one turn has run past
        ``STALL_SECONDS``, notes where it is: what a long turn spends its time on, by sampling."""
        main = threading.main_thread().ident

        def watch() -> None:
            while True:
                time.sleep(every)
                returned = self._returned
                if self._selecting or returned is None or self.clock() - returned < STALL_SECONDS:
                    continue
                frame = sys._current_frames().get(main or 0)
                if frame is None:
                    continue
                stack = traceback.StackSummary.extract(  # no source lines read: nothing kept in memory
                    traceback.walk_stack(frame), limit=STALL_FRAMES, lookup_lines=False
                )
                where = " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in stack)
                with self._lock:
                    self.stalls[where] = self.stalls.get(where, 0) + 1

        threading.Thread(target=watch, name="stall-watch", daemon=True).start()

    def _stalls_now(self) -> dict[str, int]:
        with self._lock:
            return dict(self.stalls)

    def watch_collections(self) -> None:
        """Time the garbage collector's passes (``gc.callbacks``): a full one stops the loop's thread, and
        with thousands of tables' objects it is the longest thing it does."""
        started: list[float] = [0.0]

        def timed(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                started[0] = time.perf_counter()
                return
            if threading.current_thread() is threading.main_thread():
                spent = time.perf_counter() - started[0]
                row = self.collections.setdefault(int(started[0]), [0.0, 0.0, 0])
                row[0] += spent
                row[1] = max(row[1], spent)
                row[2] += info["generation"] == 2

        gc.callbacks.append(timed)

    def watch_heartbeats(self) -> None:
        """Wrap the two gateway methods that see a heartbeat due, written and acknowledged."""
        send = gateway.DiscordWebSocket.send_heartbeat
        ack = gateway.KeepAliveHandler.ack
        monitor = self

        def send_heartbeat(ws: Any, data: Any) -> Any:
            due = monitor.clock()  # called by the keep-alive thread when the heartbeat is due

            async def timed() -> None:
                await send(ws, data)
                with monitor._lock:
                    monitor._sent = (due, monitor.clock())

            return timed()

        def acked(handler: Any) -> None:
            with monitor._lock:
                if monitor._sent is not None:
                    monitor.heartbeats.append((*monitor._sent, monitor.clock()))
                    monitor._sent = None
            ack(handler)

        gateway.DiscordWebSocket.send_heartbeat = send_heartbeat  # type: ignore[method-assign,assignment]
        gateway.KeepAliveHandler.ack = acked  # type: ignore[method-assign]

    def figures(self) -> dict[str, Any]:
        """What the bot process prints at exit (JSON)."""
        return {
            "seconds": {str(k): v for k, v in self.seconds.items()},
            "lag": self.lag,
            "cpu": self.cpu,
            "collections": {str(k): v for k, v in self.collections.items()},
            "stalls": self._stalls_now(),
            "heartbeats": self.heartbeats,
            **{name: read() for name, read in self.extra.items()},
        }


def read(path: Path) -> dict[str, Any] | None:
    """The figures a bot process last saved, or None if it saved none."""
    try:
        return json.loads(path.read_text())  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return None


def window(figures: dict[str, Any], start: float, end: float) -> dict[str, Any]:
    """The figures of the seconds from ``start`` to ``end`` (perf_counter): busy seconds, the longest turn,
    turns, lag samples and heartbeat lateness (ACK read − due, written − due), each a list of seconds."""
    rows = [v for k, v in figures.get("seconds", {}).items() if start <= int(k) < end]
    cpu = [used for at, used in figures.get("cpu", []) if start <= at < end]
    max_turn = max((r[1] for r in rows), default=0.0)
    gcs = [v for k, v in figures.get("collections", {}).items() if start <= int(k) < end]
    return {
        "busy": sum(r[0] for r in rows),
        "longest": max((r[1] for r in rows), default=0.0),
        "longest_cpu": max((r[3] for r in rows if len(r) > 3 and r[1] >= max_turn), default=0.0),
        "most_cpu": max((r[4] for r in rows if len(r) > 4), default=0.0),
        "turns": sum(int(r[2]) for r in rows),
        "cpu": cpu[-1] - cpu[0] if cpu else 0.0,
        "gc": sum(r[0] for r in gcs),
        "gc_longest": max((r[1] for r in gcs), default=0.0),
        "gc_full": sum(int(r[2]) for r in gcs),
        "lag": [lag for at, lag in figures.get("lag", []) if start <= at < end],
        "heartbeat": [ack - due for due, _, ack in figures.get("heartbeats", []) if start <= due < end],
        "heartbeat_written": [w - due for due, w, _ in figures.get("heartbeats", []) if start <= due < end],
    }
