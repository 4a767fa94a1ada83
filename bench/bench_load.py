"""Load benchmark: many concurrent tables played through the fake Discord by simulated users, the bot measured
in its own process.

Run from the repository root::

    python -m bench.bench_load [--tables 200] [--deluxe-tables N] [--seconds 30] [--think 2] [--in-process]

The fake Discord of ``tests/fakediscord`` (REST + gateway on 127.0.0.1) and the simulated players run in this
process; the real bot (discord.py client, cogs, table service, SQLite on disk in a temporary folder) runs in
a child process (:mod:`bench.bot_process`), so its CPU is its own. ``--in-process`` runs the bot in this
process and event loop instead, as the bench first did (its figures then include the harness's work). A
test-only no-op slash command, sent at the same rate as the game interactions and interleaved with them,
is the yardstick: the cheapest interaction the bot can answer.

What the report's figures mean (times are taken by the fake, in this process):

- interactions/s: game interactions (slash commands, clicks, selects of the tables) and all (no-ops too)
  sent per second of the run.
- FAILURES: interactions the bot never acknowledged within the fake's reply timeout (unanswered), and those
  whose callback came after Discord's 3-s deadline (past 3 s; Discord refuses them, the player sees "This
  interaction failed"). Late ones stay in the latency samples; unanswered ones have no latency to sample.
- callback: INTERACTION_CREATE written on the gateway → the interaction's callback POST arrives.
- last reply: → the interaction's last followup or @original edit (a deferred click's real answer).
- delivered ("move fully delivered"): → the last bot request that belongs to the same table (its channel,
  its threads, its players' DM channels, or webhook requests with its players' interaction tokens) made
  before that table's next interaction is sent (or the run ends): when every player has seen the move.
- bot process CPU: the child's user + system CPU during the run (from /proc), and in total (its own
  getrusage at exit, start and stop included); the drawing process is counted apart. The bench process's CPU
  (fake + players) is reported beside it: if that nears one core, the simulator is the bottleneck.
- REST requests per move, by route: ``per move`` divides by the actions committed in the database during
  the run, ``per game interaction`` by the game interactions. Interaction endpoints (callbacks, followups,
  @original edits) are not bound by Discord's global rate limit; everything else shares the bot's global
  budget of about 50 requests/s, so its rate (mean and busiest second) is printed against that. The no-op
  interactions' callbacks are left out of the routes.
- write transactions per move: the store's own counter, printed when the bot's store keeps one.

Simulated users decide only from what the bot sent them: the enabled buttons and selects on their latest DM
and on the latest message that mentions them first in the table's channel and in its newest thread (where a
finished game offers its rematch); choices are random among those offered.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import logging
import math
import os
import random
import re
import resource
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import loop_monitor
from bench.bot_process import (
    COALESCE_ENV,
    NOOP_COMMAND,
    PROFILE_ENV,
    BotChild,
    add_noop,
    bench_settings,
    point_at,
    top_costs,
)
from bot.edge.app import TavernBot, create_bot
from bot.edge.table.courier import WIDEST
from bot.edge.table.outbox import PER_WINDOW
from bot.services.lobbies import LobbyService
from bot.settings import Settings
from bot.store import open_store
from tests.fakediscord import (
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    InteractionResult,
    RequestRecord,
)

log = logging.getLogger("bench")
# Verbs a simulated player never uses: they end or refuse games, or only matter with closed DMs.
AVOID_VERBS = {
    *("decline", "resign", "claim", "show", "hand", "leave", "cancel", "abandon"),
    *("hint", "addbot", "dropbot"),  # not moves: the coach, and the lobby's bot seats
}
CALLBACK_DEADLINE = 3.0  # seconds Discord gives a bot to acknowledge an interaction
GLOBAL_BUDGET = 50  # requests/s Discord's global rate limit allows a bot outside interaction endpoints
# A table's one-time requests outside the interaction endpoints: its thread and its players' DM channels.
LONG_WAIT = 5.0  # a table waiting on the bot longer than this in steady state is a failure (issue 49)
HEARTBEAT_MS = (
    1000  # the fake's heartbeat interval in the bench (Discord's 41.25 s): more samples of lateness
)
SETTLED = 30.0  # seconds after the start by which every table has opened (default; ``--settled``)
OPENINGS = {"POST /channels/{id}/messages/{id}/threads", "POST /users/@me/channels"}
_MENTION = re.compile(r"<@!?(\d+)>")
_CID = re.compile(r"tv:[gl]:\d+:[^:]*:(?P<verb>[a-z_]+)")


# ------------------------------------------------------------------------------------------ measurements


@dataclass
class Series:
    """Latencies (ms) of one kind of interaction, computed once the run is over (replies come late)."""

    interactions: list[FakeInteraction] = field(default_factory=list)
    callback: list[float] = field(default_factory=list)
    done: list[float] = field(default_factory=list)
    delivered: list[float] = field(default_factory=list)
    unanswered: int = 0  # no callback at all within the reply timeout
    late: int = 0  # a callback after Discord's 3-s deadline
    refused: int = 0  # answered with an ephemeral message where the game expected none (an error reply)
    ephemeral_ok: bool = False
    refusals: Counter[str] = field(default_factory=Counter)
    by_label: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)  # (callback, done)
    timeline: list[tuple[float, float, float, float]] = field(default_factory=list)  # sent, cb, done, dlv

    def add(self, it: FakeInteraction) -> None:
        self.interactions.append(it)

    def windows(self, start: float, width: float, attr: int) -> list[float]:
        """p99 of ``attr`` (1 callback, 2 done, 3 delivered) per ``width``-second window from ``start``."""
        buckets: dict[int, list[float]] = {}
        for t in self.timeline:
            buckets.setdefault(int((t[0] - start) // width), []).append(t[attr])
        return [percentile(buckets.get(i, []), 99) for i in range(max(buckets, default=-1) + 1)]

    def finish(self, late_callbacks: dict[str, float], delivered_at: dict[str, float]) -> None:
        """Sort every interaction into the samples or the failures; none is left out silently."""
        for it in self.interactions:
            assert it.sent_at is not None
            if it.callback_at is not None:
                arrived = it.callback_at
            elif it.token in late_callbacks:  # refused by the fake as Discord would (10062)
                arrived = late_callbacks[it.token]
            else:
                self.unanswered += 1
                continue
            callback = (arrived - it.sent_at) * 1000
            if callback > CALLBACK_DEADLINE * 1000 or it.callback_at is None:
                self.late += 1
            done = (max(arrived, it.replied_at or 0.0) - it.sent_at) * 1000
            delivered = (
                max(arrived, it.replied_at or 0.0, delivered_at.get(it.token, 0.0)) - it.sent_at
            ) * 1000
            self.callback.append(callback)
            self.done.append(done)
            self.delivered.append(delivered)
            self.timeline.append((it.sent_at, callback, done, delivered))
            cb, dn = self.by_label.setdefault(_label(it), ([], []))
            cb.append(callback)
            dn.append(done)
            replies = [m for m in InteractionResult(it).messages if m.ephemeral]
            if not self.ephemeral_ok and replies:
                self.refused += 1
                self.refusals[f"{_label(it)}: {replies[0].text()[:70]}"] += 1


def _label(it: FakeInteraction) -> str:
    """What an interaction was, for the per-kind breakdown: a component's verb or a command's path."""
    if it.type == 2:
        return it.command_path
    return _verb(it.data.get("custom_id")) or str(it.data.get("custom_id"))


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


def route(method: str, path: str) -> str:
    """A request's route template (``PATCH /channels/{id}/messages/{id}``): ids and tokens blanked."""
    parts = path.strip("/").split("/")
    out = []
    for i, part in enumerate(parts):
        token = i == 2 and parts[0] in ("interactions", "webhooks")
        out.append("{token}" if token else "{id}" if part.isdigit() else part)
    return f"{method} /" + "/".join(out)


def is_interaction_endpoint(path: str) -> bool:
    """Callbacks, followups and @original edits: outside Discord's global rate limit."""
    return path.startswith(("/interactions/", "/webhooks/"))


@dataclass
class Traffic:
    """The bot's REST requests during the run, by route, and when each table last heard from the bot."""

    routes: Counter[str] = field(default_factory=Counter)
    global_requests: int = 0  # outside the interaction endpoints
    global_while_playing: int = 0  # of those, sent before the play ended (not what the bot tells as it stops)
    global_peak: int = 0  # the most of those in one second
    seconds_over: int = 0  # seconds with more of those than Discord's global budget
    global_429s: int = 0  # of those, answered 429 (Discord's global limit, modelled by the fake)
    openings: int = 0  # of those, a table's one-time requests: its thread, its players' DM channels
    # of those, the ones sent once every table is open (``Config.settled``), by method and place
    settled: Counter[str] = field(default_factory=Counter)
    late_callbacks: dict[str, float] = field(default_factory=dict)  # token → when the refused callback came
    delivered_at: dict[str, float] = field(default_factory=dict)  # token → the table's last request
    # per table opened during the run: the global requests from its opening press (an accept or a start)
    # until its next interaction, and the seconds from that press until its last request meanwhile (its
    # first panels, board and thread all out), with when the press was sent
    per_opening: list[int] = field(default_factory=list)
    opened_in: list[tuple[float, float]] = field(default_factory=list)


def analyse(
    fake: FakeDiscord,
    since: int,
    tables_of: dict[str, int],
    dms: dict[int, int],
    settled: tuple[float, float] = (math.inf, math.inf),
) -> Traffic:
    """Read the fake's request log from index ``since``: routes, late callbacks, and for each game
    interaction (``tables_of``: token → table channel id) the last request of its table before the table's
    next interaction. ``dms`` maps players' DM channel ids to their table's channel id; the global requests
    sent between the two times of ``settled`` (every table open, and the end of the play: not what the bot
    tells as it stops) are counted apart, by place."""
    traffic = Traffic()
    per_table: dict[int, list[float]] = {}
    global_of: dict[int, list[float]] = {}  # table → when each of its global requests went
    per_second: Counter[int] = Counter()
    answered = {it.token for it in fake.interactions if it.callback_at is not None}
    noops = {it.token for it in fake.interactions if it.command_path == "/" + NOOP_COMMAND}
    for rec in fake.request_log[since:]:
        if rec.token is None or rec.token not in noops:
            traffic.routes[route(rec.method, rec.path)] += 1
        if not is_interaction_endpoint(rec.path):
            traffic.global_requests += 1
            per_second[int(rec.at)] += 1
            traffic.global_429s += rec.status == 429
            traffic.openings += route(rec.method, rec.path) in OPENINGS
            traffic.global_while_playing += rec.at < settled[1]
            if settled[0] <= rec.at < settled[1]:
                traffic.settled[f"{rec.method} {_place(fake, rec)}"] += 1
        elif rec.path.endswith("/callback") and rec.status == 404 and rec.token not in answered:
            traffic.late_callbacks.setdefault(rec.token or "", rec.at)  # 10062: past the 3-s deadline
        table = _table_of(fake, rec.channel_id, rec.token, tables_of, dms)
        if table is not None:
            per_table.setdefault(table, []).append(rec.at)
            if not is_interaction_endpoint(rec.path):
                global_of.setdefault(table, []).append(rec.at)
    traffic.global_peak = max(per_second.values(), default=0)
    traffic.seconds_over = sum(n > GLOBAL_BUDGET for n in per_second.values())
    sent: dict[int, list[tuple[float, str]]] = {}
    opening_presses: set[str] = set()
    for it in fake.interactions:
        table = tables_of.get(it.token)
        if table is not None and it.sent_at is not None:
            sent.setdefault(table, []).append((it.sent_at, it.token))
            if _verb(it.data.get("custom_id")) in LobbyService.STARTS:
                opening_presses.add(it.token)
    for table, moves in sent.items():
        times = sorted(per_table.get(table, []))
        globals_ = sorted(global_of.get(table, []))
        moves.sort()
        for i, (at, token) in enumerate(moves):
            until = moves[i + 1][0] if i + 1 < len(moves) else math.inf
            last = bisect.bisect_left(times, until) - 1
            if last >= 0 and times[last] >= at:
                traffic.delivered_at[token] = times[last]
            if token in opening_presses:
                first = bisect.bisect_left(globals_, at)
                traffic.per_opening.append(bisect.bisect_left(globals_, until) - first)
                done = traffic.delivered_at.get(token)
                if done is not None:
                    traffic.opened_in.append((at, done - at))
    return traffic


def _place(fake: FakeDiscord, rec: RequestRecord) -> str:
    """Where a global request went: a DM, a thread, a channel's message (a summary), or elsewhere."""
    channel = fake.channels.get(rec.channel_id) if rec.channel_id is not None else None
    if channel is None or "/messages" not in rec.path:
        return route(rec.method, rec.path).split(" ", 1)[1]
    kind = "DM" if channel.is_dm else "thread" if channel.is_thread else "channel"
    return f"{kind} message"


@dataclass
class Honest:
    """For each committed move (a press the bot answered with a deferred update, as every move is), ms from
    the press until (a) the mover's own panel shows it (the deferred answer), (b) every other seated
    player's panel does (their first redraw before the table's next press), (c) the table's thread or
    channel does (its first post or edit after the press; calls that ping nobody wait for the coalescing
    window by design). What never came is counted apart; an answer after 3 s is a failure."""

    mover: list[float] = field(default_factory=list)
    others: list[float] = field(default_factory=list)
    thread: list[float] = field(default_factory=list)
    mover_missing: int = 0
    others_missing: int = 0
    thread_missing: int = 0
    at: dict[str, list[float]] = field(default_factory=dict)  # when each sample's press was sent, by list

    def add(self, name: str, pressed: float, ms: float) -> None:
        getattr(self, name).append(ms)
        self.at.setdefault(name, []).append(pressed)

    def since(self, name: str, start: float) -> list[float]:
        """The samples of presses sent at ``start`` or later."""
        return [ms for ms, at in zip(getattr(self, name), self.at.get(name, []), strict=True) if at >= start]


def honest(
    fake: FakeDiscord,
    since: int,
    tables_of: dict[str, int],
    players_of: dict[int, tuple[int, ...]],
    dm_user: dict[int, int],
) -> Honest:
    """What each committed move cost the people who wait for it: see :class:`Honest`. ``players_of`` maps a
    table's channel to its players' ids, ``dm_user`` a player's DM channel to the player."""
    user_of = {it.token: it.user.id for it in fake.interactions}
    table_of_user = {user: table for table, players in players_of.items() for user in players}
    seen: dict[tuple[int, int], list[float]] = {}  # (table, player) → when the bot showed them something
    posts: dict[int, list[float]] = {}  # table → when the bot posted or edited in its thread or channel
    for rec in fake.request_log[since:]:
        if rec.status >= 300 or rec.method not in ("POST", "PATCH"):
            continue
        if rec.token is not None:
            table, user = tables_of.get(rec.token), user_of.get(rec.token)
        elif rec.channel_id in dm_user:
            user = dm_user[rec.channel_id]
            table = table_of_user.get(user)
        else:
            table, user = _table_of(fake, rec.channel_id, None, tables_of, {}), None
            if table is not None and "/messages" in rec.path:
                posts.setdefault(table, []).append(rec.at)
            continue
        if table is not None and user is not None:
            seen.setdefault((table, user), []).append(rec.at)
    presses: dict[int, list[float]] = {}
    for it in fake.interactions:
        if (table := tables_of.get(it.token)) is not None and it.sent_at is not None:
            presses.setdefault(table, []).append(it.sent_at)
    for times in [*seen.values(), *posts.values(), *presses.values()]:
        times.sort()
    out = Honest()
    for it in fake.interactions:
        table = tables_of.get(it.token)
        if table is None or it.sent_at is None or it.callback_type != 6:
            continue
        at = it.sent_at
        if it.first_reply_at is None:
            out.mover_missing += 1
        else:
            out.add("mover", at, (it.first_reply_at - at) * 1000)
        later = presses[table]
        until = (
            later[bisect.bisect_right(later, at)] if bisect.bisect_right(later, at) < len(later) else math.inf
        )
        waits = []
        for player in players_of.get(table, ()):
            if player == it.user.id:
                continue
            times = seen.get((table, player), [])
            k = bisect.bisect_left(times, at)
            waits.append(times[k] if k < len(times) and times[k] < until else math.inf)
        if waits and max(waits) < math.inf:
            out.add("others", at, (max(waits) - at) * 1000)
        elif waits:
            out.others_missing += 1
        told = posts.get(table, [])
        k = bisect.bisect_left(told, at)
        if k < len(told):
            out.add("thread", at, (told[k] - at) * 1000)
        else:
            out.thread_missing += 1
    return out


def _table_of(
    fake: FakeDiscord,
    channel_id: int | None,
    token: str | None,
    tables_of: dict[str, int],
    dms: dict[int, int],
) -> int | None:
    if token is not None:
        return tables_of.get(token)
    if channel_id is None:
        return None
    if channel_id in dms:
        return dms[channel_id]
    channel = fake.channels.get(channel_id)
    while channel is not None and channel.parent is not None:  # a thread: its table is its parent's
        channel = channel.parent
    return channel.id if channel is not None else None


@dataclass
class Waits:
    """What each table waits on, from its players' side: on the bot while none of its players has anything
    to press (a seat's move is due but no panel shows it yet, or a press is unanswered), on a player while
    one has something to press and is thinking. Each wait is an interval ``(table, start, end)``."""

    bot: list[tuple[int, float, float]] = field(default_factory=list)
    player: list[tuple[int, float, float]] = field(default_factory=list)
    _now: dict[int, tuple[str, float]] = field(default_factory=dict)  # table → (what, since)

    def mark(self, table: int, what: str | None, at: float) -> None:
        """From ``at`` the table waits on ``what`` ("bot", "player", or None: not counted)."""
        was = self._now.pop(table, None)
        if was is not None and was[0] == what:
            self._now[table] = was
            return
        if was is not None:
            getattr(self, was[0]).append((table, was[1], at))
        if what is not None:
            self._now[table] = (what, at)

    def close(self, at: float) -> None:
        """End every open wait at ``at`` (the end of the run)."""
        for table in list(self._now):
            self.mark(table, None, at)

    @staticmethod
    def within(waits: list[tuple[int, float, float]], start: float, end: float) -> list[tuple[int, float]]:
        """Each wait's table and seconds inside ``start``–``end``."""
        out = []
        for table, a, b in waits:
            lo, hi = max(a, start), min(b, end)
            if hi > lo:
                out.append((table, hi - lo))
        return out

    @staticmethod
    def most_at_once(waits: list[tuple[int, float, float]], start: float, end: float) -> int:
        """The most tables waiting at one instant between ``start`` and ``end``."""
        edges = sorted(
            [(max(a, start), 1) for _, a, b in waits if min(b, end) > max(a, start)]
            + [(min(b, end), -1) for _, a, b in waits if min(b, end) > max(a, start)]
        )
        most = now = 0
        for _, step in edges:
            now += step
            most = max(most, now)
        return most


@dataclass
class BenchResult:
    tables: dict[str, int]
    think: float
    started: float
    duration: float
    cpu_seconds: float  # the bench process (everything, with --in-process)
    series: dict[str, Series]
    games_finished: dict[str, int]
    actions: dict[str, int]  # committed during the run
    errors: list[str]
    stuck: int
    not_sent: int = 0  # the fake had no bot to send them to
    in_process: bool = False
    bot_cpu_seconds: float | None = None  # the bot process during the run (split runs)
    drawing_cpu_seconds: float | None = None  # its descendants (the drawing process) during the run
    settled: float = SETTLED  # seconds after the start from which the steady state is counted
    settled_cpu: tuple[float, float] | None = None  # the same from ``settled`` s after the start on
    bot_counters: dict[str, Any] | None = None  # what the bot process printed at exit
    traffic: Traffic = field(default_factory=Traffic)
    honest: Honest = field(default_factory=Honest)
    coalesce_seconds: float = Settings.coalesce_seconds  # calls that ping nobody wait up to this long
    loops: list[dict[str, Any]] = field(default_factory=list)  # each bot process's loop figures
    gateway_events: Counter[str] = field(default_factory=Counter)  # dispatches the bot got during the run
    waits: Waits = field(default_factory=Waits)

    @property
    def game_kinds(self) -> list[str]:
        return [k for k in self.series if k != "noop"]

    @property
    def unanswered(self) -> int:
        return sum(s.unanswered for s in self.series.values())

    @property
    def late(self) -> int:
        return sum(s.late for s in self.series.values())

    @property
    def moves(self) -> int:
        return sum(self.actions.values())

    def count(self, kind: str | None = None) -> int:
        """Game interactions sent (answered or not) of ``kind``, or of every game kind."""
        kinds = self.game_kinds if kind is None else [kind]
        return sum(len(self.series[k].interactions) for k in kinds)

    def merged(self, attr: str) -> list[float]:
        return [v for k in self.game_kinds for v in getattr(self.series[k], attr)]

    def report(self) -> str:
        noop = self.series.get("noop", Series())
        games = self.count()
        total = games + len(noop.interactions)
        where = (
            "bot, fake Discord and simulated users share one process and event loop"
            if self.in_process
            else "the bot in its own process; fake Discord and simulated users in the bench process"
        )
        lines = [
            f"Decktet Tavern load benchmark — {where}",
            f"tables: {', '.join(f'{n} {k}' for k, n in self.tables.items())}   think time: mean "
            f"{self.think:g} s per move (exponential; 0 = flat out)",
            f"FAILURES: {self.unanswered} unanswered, {self.late} past {CALLBACK_DEADLINE:g} s "
            f"(of {total} interactions)"
            + (f"   not sent (no bot connected): {self.not_sent}" * bool(self.not_sent)),
            f"duration: {self.duration:.1f} s   interactions: {total} total = {games} game + "
            f"{len(noop.interactions)} no-op   game interactions/s: {games / self.duration:.1f}   "
            f"all interactions/s: {total / self.duration:.1f}",
        ]
        lines.extend(self._cpu_lines())
        lines.extend(self._loop_lines())
        every = self.presses(self.started)[1]
        lines.append(
            f"gateway events sent to the bot during the run, per interaction ({every}): "
            + (
                ", ".join(f"{t} {n} ({n / max(every, 1):.2f})" for t, n in self.gateway_events.most_common())
                or "none"
            )
        )
        lines.extend(self._wait_lines())
        lines.extend(self._route_lines(games))
        lines.extend(self._honest_lines())

        def row(name: str, values: list[float]) -> str:
            return (
                f"  {name:<22} p50 {percentile(values, 50):7.2f}   p99 {percentile(values, 99):7.2f}   "
                f"max {max(values, default=float('nan')):7.2f}   (n={len(values)})"
            )

        for title, attr in (
            ("INTERACTION_CREATE → callback POST", "callback"),
            ("INTERACTION_CREATE → last reply (callback, or the deferred edit/followup)", "done"),
            ("INTERACTION_CREATE → move fully delivered (the table's last bot request)", "delivered"),
        ):
            lines.append(f"latency ms, {title}:")
            for kind in self.game_kinds:
                lines.append(row(kind, getattr(self.series[kind], attr)))
            if len(self.game_kinds) > 1:
                lines.append(row("all games", self.merged(attr)))
            if attr != "delivered":
                lines.append(row("no-op", getattr(noop, attr)))

        def ratio(a: list[float], b: list[float], q: float) -> str:
            pa, pb = percentile(a, q), percentile(b, q)
            return f"{pa / pb:.2f}×" if pb > 0 else "n/a"

        lines.append("per interaction kind, ms (callback p50/p99 | last reply p50/p99):")
        for kind in self.game_kinds:
            for label, (cb, dn) in sorted(self.series[kind].by_label.items()):
                lines.append(
                    f"  {kind + ' ' + label:<30} n={len(cb):<6} {percentile(cb, 50):7.2f} "
                    f"{percentile(cb, 99):7.2f} | {percentile(dn, 50):7.2f} {percentile(dn, 99):7.2f}"
                )
        width = 5.0 if self.duration >= 10 else 1.0
        merged = Series(timeline=[t for k in self.game_kinds for t in self.series[k].timeline])

        def fmt(values: list[float]) -> str:
            return " ".join(f"{v:.0f}" for v in values)

        lines.append(f"p99 ms per {width:g} s window, from the start:")
        lines.append(f"  games callback:    {fmt(merged.windows(self.started, width, 1))}")
        lines.append(f"  games delivered:   {fmt(merged.windows(self.started, width, 3))}")
        lines.append(f"  no-op callback:    {fmt(noop.windows(self.started, width, 1))}")
        opening = 10.0  # every table opens in the first seconds: report the steady state on its own too
        if self.duration >= 3 * opening:
            lines.append(f"steady state (interactions sent {opening:g} s or more after the start), ms:")
            for name, series in (("all games", merged), ("no-op", noop)):
                later = [t for t in series.timeline if t[0] - self.started >= opening]
                cb, dv = [t[1] for t in later], [t[3] for t in later]
                lines.append(
                    f"  {name:<10} callback p50 {percentile(cb, 50):6.2f} p99 {percentile(cb, 99):6.2f}   "
                    f"delivered p50 {percentile(dv, 50):6.2f} p99 {percentile(dv, 99):6.2f}   "
                    f"(n={len(later)})"
                )
        lines.append("bot / no-op ratio:")
        for kind in [*self.game_kinds, *(["all games"] if len(self.game_kinds) > 1 else [])]:
            cb = self.merged("callback") if kind == "all games" else self.series[kind].callback
            dn = self.merged("done") if kind == "all games" else self.series[kind].done
            lines.append(
                f"  {kind:<22} callback: medians {ratio(cb, noop.callback, 50)}, p99s "
                f"{ratio(cb, noop.callback, 99)}   last reply: medians {ratio(dn, noop.done, 50)}, p99s "
                f"{ratio(dn, noop.done, 99)}"
            )
        lines.append(
            "games finished: "
            + ", ".join(f"{k} {self.games_finished.get(k, 0)}" for k in self.tables)
            + "   actions committed: "
            + ", ".join(f"{k} {self.actions.get(k, 0)}" for k in self.tables)
        )
        refused = {k: s.refused for k, s in self.series.items() if s.refused}
        lines.append(
            f"refusals (ephemeral error replies): {refused or 0}   stuck tables: {self.stuck}   "
            f"ERROR logs: {len(self.errors)}"
        )
        for kind in self.game_kinds:
            for text, n in self.series[kind].refusals.most_common(3):
                lines.append(f"  refused {n}× {kind} {text!r}")
        lines.extend(f"  ! {e.splitlines()[0][:160]}" for e in self.errors[:5])
        return "\n".join(lines)

    def _honest_lines(self) -> list[str]:
        h = self.honest

        def row(name: str, values: list[float], missing: str) -> str:
            late = sum(v > CALLBACK_DEADLINE * 1000 for v in values)
            return (
                f"  {name:<34} p50 {percentile(values, 50):8.1f}   p99 {percentile(values, 99):8.1f}   "
                f"max {max(values, default=float('nan')):8.1f}   past 3 s: {late}   {missing}"
            )

        lines = [
            f"latency of each committed move, ms (n={len(h.mover) + h.mover_missing}), from the press until:",
            row("(a) the mover's own panel shows it", h.mover, f"never: {h.mover_missing}"),
            row(
                "(b) every other player's panel does",
                h.others,
                f"not before the next press: {h.others_missing}",
            ),
            row("(c) the thread does", h.thread, f"never: {h.thread_missing}")
            + f"   (calls that ping nobody wait a window by design: {self._window()})",
        ]
        if self.duration > self.settled:
            settled = self.started + self.settled
            lines.append(
                f"  the same for the moves pressed {self.settled:g} s or more after the start "
                "(every table open):"
            )
            for name, label in (("mover", "(a)"), ("others", "(b)"), ("thread", "(c)")):
                lines.append(row(f"  {label}", h.since(name, settled), ""))
        return lines

    def presses(self, start: float, end: float = math.inf) -> tuple[int, int]:
        """Game interactions, and all interactions (no-ops too), sent between ``start`` and ``end``."""
        sent = [
            (k != "noop", it.sent_at)
            for k, series in self.series.items()
            for it in series.interactions
            if it.sent_at is not None and start <= it.sent_at < end
        ]
        return sum(game for game, _ in sent), len(sent)

    def _loop_lines(self) -> list[str]:
        """The bot process's event loop, from inside it (:mod:`bench.loop_monitor`): the whole run, and
        the steady state once every table is open."""
        if not self.loops:
            return ["event loop: not measured (in-process run)"] if self.in_process else []
        end = self.started + self.duration
        lines = []
        for name, start in (
            ("whole run", self.started),
            (f"from {self.settled:g} s", self.started + self.settled),
        ):
            if start >= end:
                continue
            games, every = self.presses(start, end)
            for k, figures in enumerate(self.loops):
                w = loop_monitor.window(figures, start, end)
                who = f" (process {k})" if len(self.loops) > 1 else ""
                seconds = max(end - start, 1e-9)
                lines.append(
                    f"event loop{who}, {name}: busy {w['busy']:.1f} s "
                    f"({100 * w['busy'] / seconds:.0f}% of the time) = "
                    f"{1000 * w['busy'] / max(games, 1):.2f} ms per game press "
                    f"({1000 * w['busy'] / max(every, 1):.2f} per interaction, no-ops included; "
                    f"{games} game presses, {every} in all)   longest stall {1000 * w['longest']:.0f} ms "
                    f"(the loop ran {1000 * w['longest_cpu']:.0f} ms of it; its longest run "
                    f"{1000 * w['most_cpu']:.0f} ms of CPU)   "
                    f"turns {w['turns']}"
                )
                lines.append(
                    f"  loop thread CPU {w['cpu']:.1f} s = {1000 * w['cpu'] / max(games, 1):.2f} ms per game "
                    f"press ({1000 * w['cpu'] / max(every, 1):.2f} per interaction, no-ops included)   "
                    f"garbage collection {w['gc']:.1f} s, longest pass {1000 * w['gc_longest']:.0f} ms, "
                    f"{w['gc_full']} full passes"
                )
                lag, beat = w["lag"], w["heartbeat"]
                lines.append(
                    f"  loop lag ms (a {1000 * loop_monitor.PROBE_SECONDS:.0f}-ms timer, n={len(lag)}): p50 "
                    f"{1000 * percentile(lag, 50):.1f} p99 {1000 * percentile(lag, 99):.1f} max "
                    f"{1000 * max(lag, default=float('nan')):.1f}   heartbeat lateness ms (due → ACK read, "
                    f"n={len(beat)}): p50 {1000 * percentile(beat, 50):.1f} p99 "
                    f"{1000 * percentile(beat, 99):.1f} max {1000 * max(beat, default=float('nan')):.1f}"
                )
        return lines

    def _wait_lines(self) -> list[str]:
        """What the tables waited on once every table is open: the bot, or a player."""
        start, end = self.started + self.settled, self.started + self.duration
        if start >= end:
            start = self.started
        seconds = end - start
        lines = [f"tables waiting, from {start - self.started:g} s to the end ({seconds:.0f} s):"]
        for what in ("bot", "player"):
            waits = getattr(self.waits, what)
            parts = Waits.within(waits, start, end)
            long = {table for table, s in parts if s > LONG_WAIT}
            lengths = [s for _, s in parts]
            lines.append(
                f"  on the {what:<6}: {sum(lengths) / max(seconds, 1e-9):6.1f} tables on average, at most "
                f"{Waits.most_at_once(waits, start, end)} at once   each wait s: p50 "
                f"{percentile(lengths, 50):.2f} p99 {percentile(lengths, 99):.2f} max "
                f"{max(lengths, default=float('nan')):.2f} (n={len(lengths)})   tables that waited over "
                f"{LONG_WAIT:g} s: {len(long)}"
            )
        return lines

    def _window(self) -> str:
        """The coalescing window the bot uses for this many tables (``Courier.window``): the setting, or
        each table's fair share of the global budget, up to ``WIDEST`` times longer while requests wait."""
        tables = sum(self.tables.values())
        share = tables * PER_WINDOW / GLOBAL_BUDGET
        window = max(self.coalesce_seconds, share)
        return f"{window:.1f} s for {tables} tables, up to {WIDEST * window:.0f} s while requests wait"

    def _cpu_lines(self) -> list[str]:
        def share(cpu: float) -> str:
            return f"{cpu:.1f} s ({100 * cpu / max(self.duration, 1e-9):.0f}% of one core)"

        if self.in_process:
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            return [
                f"CPU (bot + fake + players, one process): {share(self.cpu_seconds)}   max RSS {rss:.0f} MB"
            ]
        c = self.bot_counters or {}
        nan = float("nan")
        writes = c.get("write_transactions")
        counted = "n/a (the store does not count them)" if writes is None else str(writes)
        per = f" = {writes / self.moves:.2f} per move" if writes is not None and self.moves else ""
        return [
            f"bot process CPU during the run: {share(self.bot_cpu_seconds or 0.0)}   its drawing process: "
            f"{share(self.drawing_cpu_seconds or 0.0)}",
            f"bot process in all (start and stop included): CPU {c.get('cpu_seconds', nan):.1f} s   "
            f"max RSS {c.get('max_rss_mb', nan):.0f} MB",
            f"bench process CPU (fake Discord + simulated players): {share(self.cpu_seconds)}",
            f"store write transactions: {counted}{per}",
            *(line for figures in self.loops for line in self._store_lines(figures.get("store") or {})),
            *(line for figures in self.loops for line in self._stall_lines(figures.get("stalls") or {})),
            *self._settled_cpu_line(),
        ]

    @staticmethod
    def _stall_lines(stalls: dict[str, int], most: int = 6) -> list[str]:
        """Where the loop's thread was in turns past 100 ms (sampled every 20 ms), most often first."""
        if not stalls:
            return []
        samples = sum(stalls.values())
        lines = [f"loop turns past 100 ms, sampled every 20 ms ({samples} samples), most often at:"]
        for where, n in sorted(stalls.items(), key=lambda kv: -kv[1])[:most]:
            lines.append(f"  {n:5d}  {where}")
        return lines

    @staticmethod
    def _store_lines(times: dict[str, list[float]], most: int = 8) -> list[str]:
        """The store operations the bot waited on longest in all (queueing included), whole run."""
        if not times:
            return []
        ranked = sorted(times.items(), key=lambda kv: -kv[1][1])[:most]
        waited = sum(s for _, s in times.values())
        return [
            f"store waits, whole run: {waited:.1f} s in {sum(int(n) for n, _ in times.values())} operations; "
            "the longest in all (calls, mean ms): "
            + ", ".join(f"{op} {int(n)} × {1000 * s / max(n, 1):.1f}" for op, (n, s) in ranked)
        ]

    def _settled_cpu_line(self) -> list[str]:
        """CPU per move once every table is open: the moves pressed ``settled`` s or more after the start
        (the no-op interactions of the run are in the CPU; ``--noop-ratio 0`` leaves them out)."""
        moves = len(self.honest.since("mover", self.started + self.settled))
        if self.settled_cpu is None or not moves:
            return []
        own, drawing = (1000 * cpu / moves for cpu in self.settled_cpu)
        return [
            f"steady state CPU per move ({moves} moves pressed {self.settled:g} s or more after the start): "
            f"bot {own:.1f} ms + drawing {drawing:.1f} ms = {own + drawing:.1f} ms"
        ]

    def _route_lines(self, games: int) -> list[str]:
        t = self.traffic
        moves = self.moves
        lines = [
            f"moves (actions committed during the run): {moves}   game interactions: {games}",
            "bot REST requests by route — per move | per game interaction | total:",
        ]
        for title, inside in (
            ("interaction endpoints (outside the global rate limit; no-op callbacks left out)", True),
            (f"everything else (the bot's global budget, ~{GLOBAL_BUDGET} req/s)", False),
        ):
            lines.append(f"  {title}:")
            chosen = {
                r: n for r, n in t.routes.items() if is_interaction_endpoint(r.split(" ", 1)[1]) == inside
            }
            for r, n in sorted(chosen.items(), key=lambda kv: -kv[1]):
                lines.append(f"    {r:<58} {n / max(moves, 1):6.2f} | {n / max(games, 1):6.2f} | {n}")
            n = sum(chosen.values())
            lines.append(f"    {'total':<58} {n / max(moves, 1):6.2f} | {n / max(games, 1):6.2f} | {n}")
        rate = t.global_while_playing / max(self.duration, 1e-9)
        lines.append(
            f"  global-budget requests/s: mean {rate:.1f}, busiest second {t.global_peak} "
            f"(limit ~{GLOBAL_BUDGET}); seconds above it: {t.seconds_over}; global 429s: {t.global_429s}"
        )
        steady = (t.global_requests - t.openings) / max(moves, 1)
        lines.append(
            f"  global requests per move without the openings (threads, DM channels): {steady:.2f}; "
            f"openings: {t.openings}"
        )
        if t.per_opening:
            per = sorted(t.per_opening)
            spread = Counter(per)
            lines.append(
                f"  global requests per opening (its press until the table's next interaction): "
                f"mean {sum(per) / len(per):.2f}, max {per[-1]} over {len(per)} openings; "
                + ", ".join(f"{k}: {spread[k]}" for k in sorted(spread))
            )
        if t.opened_in:
            took = sorted(d for _, d in t.opened_in)
            first = min(at for at, _ in t.opened_in)
            every = max(at + d for at, d in t.opened_in) - first
            lines.append(
                f"  an opening fully told (press → its last request: first panels, board, thread): "
                f"p50 {1000 * percentile(took, 50):.0f} ms, p99 {1000 * percentile(took, 99):.0f} ms, "
                f"max {1000 * took[-1]:.0f} ms; every table told {every:.1f} s after the first opening press"
            )
        settled_moves = len(self.honest.since("mover", self.started + self.settled))
        if t.settled and settled_moves:
            n = sum(t.settled.values())
            lines.append(
                f"  steady state (moves pressed {self.settled:g} s or more after the start): "
                f"{n} global requests for {settled_moves} moves = {n / settled_moves:.2f} per move:"
            )
            lines += [f"    {k:<40} {v / settled_moves:6.2f}" for k, v in t.settled.most_common()]
        return lines


# ------------------------------------------------------------------------------------------ the harness


class ErrorCollector(logging.Handler):
    """Collects ERROR records (discord.py only logs exceptions raised in commands and views)."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.name}: {record.getMessage()}")


class Watch:
    """Wakes a table's driver when the bot posts, edits or deletes a message in one of its channels (or in a
    thread of one), and remembers each channel's newest thread: a game may be played on in its thread."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.events: dict[int, asyncio.Event] = {}
        self.threads: dict[int, FakeChannel] = {}  # channel id → the thread the bot last wrote in
        fake.listeners.append(self._changed)

    def register(self, channel_ids: list[int]) -> asyncio.Event:
        event = asyncio.Event()
        for cid in channel_ids:
            self.events[cid] = event
        return event

    def _changed(self, msg: FakeMessage) -> None:
        channel = msg.channel
        if channel.parent is not None:
            self.threads[channel.parent.id] = channel
            channel = channel.parent
        event = self.events.get(channel.id)
        if event is not None:
            event.set()


@dataclass
class Harness:
    fake: FakeDiscord
    rng: random.Random
    deadline: float
    max_interactions: int | None
    noop_ratio: float
    think: float
    noop_channel: FakeChannel
    noop_users: list[FakeUser]
    watch: Watch
    series: dict[str, Series] = field(default_factory=dict)
    sent: int = 0
    not_sent: int = 0
    tables_of: dict[str, int] = field(default_factory=dict)  # game interaction token → table channel id
    # The kill test: a table whose opening went unanswered opens again, and a stuck one clicks again what it
    # already clicked (in the load bench a failure stays one: retries would pile onto an overloaded bot).
    retry_when_stuck: bool = False
    stall_after: float = 10.0  # seconds without anything to do before a table counts as stuck
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    noop_tasks: set[asyncio.Task[None]] = field(default_factory=set)
    waits: Waits = field(default_factory=Waits)  # what each table waits on, the bot or a player
    open_over: float | None = None  # seconds the tables' openings are spread over (None: a think time)
    _noop_credit: float = 0.0

    async def pause(self) -> None:
        """A user's think time before the next move: exponential around ``think`` seconds, capped at 4×."""
        if self.think > 0:
            delay = min(self.rng.expovariate(1 / self.think), 4 * self.think)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop.wait(), delay)

    def running(self) -> bool:
        if self.stop.is_set():
            return False
        if time.perf_counter() >= self.deadline or (
            self.max_interactions is not None and self.sent >= self.max_interactions
        ):
            self.stop.set()
            return False
        return True

    async def interact(
        self, kind: str, table: int, send: Callable[[], Any], *, ephemeral_ok: bool = False
    ) -> FakeInteraction | None:
        """Send one game interaction of ``table`` (``send`` must not wait for the reply), matched by no-op
        interactions at ``noop_ratio``; None if it was not sent or not answered (the series says which)."""
        self.sent += 1
        self._noop_credit += self.noop_ratio
        while self._noop_credit >= 1:
            self._noop_credit -= 1
            task = asyncio.create_task(self._noop())
            self.noop_tasks.add(task)
            task.add_done_callback(self.noop_tasks.discard)
        it = await self._send(kind, send, ephemeral_ok)
        if it is not None:
            self.tables_of[it.token] = table
        return await self._answered(it)

    async def _send(self, kind: str, send: Callable[[], Any], ephemeral_ok: bool) -> FakeInteraction | None:
        try:
            result = await send()
        # No bot connected (the kill test), or the socket closed under the send.
        except (AssertionError, ConnectionError) as err:
            self.not_sent += 1
            log.info("not sent: %s", err)
            return None
        it: FakeInteraction = result.interaction
        self.series.setdefault(kind, Series(ephemeral_ok=ephemeral_ok)).add(it)
        return it

    async def _answered(self, it: FakeInteraction | None) -> FakeInteraction | None:
        """Wait for the callback as long as the fake would; the series counts the silence afterwards."""
        if it is None:
            return None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(it.answered.wait(), self.fake.reply_timeout)
        return it if it.answered.is_set() else None

    async def _noop(self) -> None:
        user = self.rng.choice(self.noop_users)
        send = lambda: self.fake.slash(  # noqa: E731
            user, self.noop_channel, NOOP_COMMAND, settle=False, expect_reply=False
        )
        await self._answered(await self._send("noop", send, True))


def _verb(custom_id: str | None) -> str:
    m = _CID.match(custom_id or "")
    return m["verb"] if m else ""


@dataclass
class Choice:
    """One thing a user can do on one version of one message."""

    user: FakeUser
    message: FakeMessage
    kind: str  # "button" | "select"
    target: str
    values: list[str] = field(default_factory=list)
    version: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.version = len(self.message.edits)

    @property
    def key(self) -> tuple[int, int, str, tuple[str, ...]]:
        """The same click on the same message version is made once (a refused one is not repeated)."""
        return (self.message.id, self.version, self.target, tuple(self.values))

    @property
    def current(self) -> bool:
        """The message still shows this version: a live panel is redrawn in place, so a person acts on
        what it shows now."""
        return self.version == len(self.message.edits)


def _live(msg: FakeMessage) -> bool:
    return any(
        not b.disabled and b.custom_id and _verb(b.custom_id) not in AVOID_VERBS for b in msg.buttons()
    ) or any(not s.disabled and _verb(s.custom_id) not in AVOID_VERBS for s in msg.selects())


class TableDriver:
    """The players of one table in one channel, one interaction in flight at a time."""

    game = "?"
    window = 6  # how many of the latest messages per channel a user looks at

    def __init__(self, h: Harness, channel: FakeChannel, users: list[FakeUser]) -> None:
        self.h = h
        self.channel = channel
        self.users = users
        self.dm_channels = [h.fake.dm_channel(u) for u in users]
        self.changed = h.watch.register([channel.id, *(c.id for c in self.dm_channels)])
        self.acted: set[tuple[int, int, str, tuple[str, ...]]] = set()
        self.stuck = False

    async def open(self) -> FakeInteraction | None:
        """The first interaction: a slash command that opens the game; None if the bot did not answer."""
        raise NotImplementedError

    def waiting(self, what: str | None) -> None:
        """From now the table waits on ``what``: "bot", "player" or None (see :class:`Waits`)."""
        self.h.waits.mark(self.channel.id, what, time.perf_counter())

    async def run(self) -> None:
        # stagger the openings: over --open-over seconds, else over a think time
        await asyncio.sleep(
            self.h.rng.uniform(0, self.h.think if self.h.open_over is None else self.h.open_over)
        )
        self.waiting("bot")
        opened = await self.open()
        while opened is None and self.h.retry_when_stuck and self.h.running():  # the bot was down
            await self._wait_change(1.0)
            opened = await self.open()
        idle_since = time.perf_counter()
        while self.h.running():
            choice = self.pick()
            self.waiting("bot" if choice is None else "player")
            if choice is None:
                await self._wait_change(1.0)
                if time.perf_counter() - idle_since > self.h.stall_after and not self.stuck:
                    self.stuck = True
                    log.warning("%s table in %r has nothing to do", self.game, self.channel)
                    if self.h.retry_when_stuck:  # the bot was restarted: what it dropped is worth a retry
                        self.acted.clear()
                continue
            self.stuck = False
            await self.h.pause()
            if not self.h.running():
                break
            if choice.key in self.acted or choice.message.deleted or not choice.current:
                continue  # the bot moved on (or redrew the panel) while the user was thinking
            self.acted.add(choice.key)
            self.waiting("bot")
            it = await self.act(choice)
            if it is None and self.h.retry_when_stuck:
                self.acted.discard(choice.key)  # not sent or not answered: the panel still offers it
            elif it is not None:
                await self._until_replied(it)
            idle_since = time.perf_counter()
        self.waiting(None)

    async def can_move_on(self, attempts: int = 3) -> str:
        """Whether a seat can move the table on now, as its players would find out: what they see pressed,
        until one press is answered without a refusal. '' when one is, else why not (the kill test's
        judgement, once the players stopped and the bot told everything it owed)."""
        self.acted.clear()
        for _ in range(attempts):
            choice = self.pick()
            if choice is None:
                return "every press refused or unanswered" if self.acted else "nothing to press"
            self.acted.add(choice.key)
            it = await self.act(choice)
            if it is not None:
                await self._until_replied(it)
                if not any(m.ephemeral for m in InteractionResult(it).messages):
                    return ""
        return "every press refused or unanswered"

    async def _wait_change(self, timeout: float) -> None:
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), timeout)

    async def _until_replied(self, it: FakeInteraction, timeout: float = 5.0) -> None:
        """A deferred click is only over when its edit or followup lands: until then its buttons look live."""
        deadline = time.perf_counter() + timeout
        while it.callback_type in (5, 6) and it.replied_at is None and time.perf_counter() < deadline:
            await self._wait_change(0.5)

    async def act(self, c: Choice) -> FakeInteraction | None:
        fake = self.h.fake
        if c.kind == "select":
            return await self.h.interact(
                self.game,
                self.channel.id,
                lambda: fake.select(c.user, c.message, c.target, c.values, settle=False, expect_reply=False),
            )
        return await self.h.interact(
            self.game,
            self.channel.id,
            lambda: fake.click(c.user, c.message, c.target, settle=False, expect_reply=False),
        )

    # ------------------------------------------------------------------ deciding from what the bot sent

    def _latest_live(self, messages: list[FakeMessage]) -> FakeMessage | None:
        for msg in reversed(messages[-self.window :]):
            if _live(msg):
                return msg
        return None

    def pick(self) -> Choice | None:
        fake = self.h.fake
        options: list[Choice] = []
        for user, dm in zip(self.users, self.dm_channels, strict=True):
            msg = self._latest_live(fake.channel_messages(dm))
            if msg is not None:
                options.extend(self.choices(user, msg))
        thread = self.h.watch.threads.get(self.channel.id)
        for place in (self.channel, *([thread] if thread is not None else [])):
            msg = self._latest_live(fake.channel_messages(place))
            if msg is not None:
                options.extend(self.channel_choices(msg))
        options = [o for o in options if o.key not in self.acted]
        return self.h.rng.choice(options) if options else None

    def channel_choices(self, msg: FakeMessage) -> list[Choice]:
        """A channel message is for the user it mentions first (the challenged, the one to cut...)."""
        ids = [int(x) for x in _MENTION.findall(msg.content)]
        mentioned = [u for uid in ids for u in self.users if u.id == uid]
        return self.choices(mentioned[0] if mentioned else self.users[0], msg)

    def buttons(self, msg: FakeMessage) -> dict[str, list[str]]:
        """Enabled buttons a player would use, custom ids by verb."""
        out: dict[str, list[str]] = {}
        for b in msg.buttons():
            verb = _verb(b.custom_id)
            if b.custom_id and not b.disabled and verb not in AVOID_VERBS:
                out.setdefault(verb, []).append(b.custom_id)
        return out

    def choices(self, user: FakeUser, msg: FakeMessage) -> list[Choice]:
        """What ``user`` may do on ``msg``: a confirm if offered, else any enabled button or select."""
        buttons = self.buttons(msg)
        confirms = buttons.get("discard", []) + buttons.get("confirm", [])
        if confirms:
            return [Choice(user, msg, "button", cid) for cid in confirms]
        out = [Choice(user, msg, "button", cid) for cids in buttons.values() for cid in cids]
        for sel in msg.selects():
            if sel.disabled or sel.type != 3 or _verb(sel.custom_id) in AVOID_VERBS:
                continue
            if (sel.placeholder or "").startswith("Change"):
                continue  # a player who laid away does not keep changing it (that races the other's discard)
            n = self.h.rng.randint(sel.min_values, max(sel.min_values, min(sel.max_values, len(sel.options))))
            out.append(Choice(user, msg, "select", sel.custom_id, self.h.rng.sample(sel.values(), n)))
        return out


class PingTable(TableDriver):
    """Two users taking turns at ``/tavern ping``: the harness with the bot's cheapest real command."""

    game = "ping"

    async def open(self) -> FakeInteraction | None:
        return None  # nothing to open: run() pings from the start

    def _ping(self, user: FakeUser) -> Any:
        return self.h.fake.slash(user, self.channel, "tavern ping", settle=False, expect_reply=False)

    async def run(self) -> None:
        turn = 0
        await asyncio.sleep(self.h.rng.uniform(0, self.h.think))
        while self.h.running():
            await self.h.pause()
            if not self.h.running():
                break
            user = self.users[turn % 2]
            turn += 1
            await self.h.interact(self.game, self.channel.id, lambda u=user: self._ping(u), ephemeral_ok=True)


class BhargageTable(TableDriver):
    """Two players: challenge, accept, select+confirm discards, cut, plays; rematch at the end."""

    game = "bhargage"

    def __init__(self, h: Harness, channel: FakeChannel, users: list[FakeUser], target: int) -> None:
        super().__init__(h, channel, users)
        self.target = target

    async def open(self) -> FakeInteraction | None:
        host, other = self.users
        return await self.h.interact(
            self.game,
            self.channel.id,
            lambda: self.h.fake.slash(
                host,
                self.channel,
                "bhargage challenge",
                opponent=other,
                target=self.target,
                settle=False,
                expect_reply=False,
            ),
        )


class DeluxeTable(TableDriver):
    """2–6 players: create, join, start; each turn draw (or take), bind from the meld menu (sometimes by
    hand), discard from the discard menu (or by hand)."""

    game = "deluxe"

    def __init__(self, h: Harness, channel: FakeChannel, users: list[FakeUser], target: int) -> None:
        super().__init__(h, channel, users)
        self.target = target
        self.built: set[str] = set()  # turns (panel tokens) on which the player already built by hand

    async def open(self) -> FakeInteraction | None:
        return await self.h.interact(
            self.game,
            self.channel.id,
            lambda: self.h.fake.slash(
                self.users[0],
                self.channel,
                "deluxe create",
                target=self.target,
                settle=False,
                expect_reply=False,
            ),
        )

    def channel_choices(self, msg: FakeMessage) -> list[Choice]:
        buttons = self.buttons(msg)
        if "rematch" in buttons:
            return [Choice(self.users[0], msg, "button", buttons["rematch"][0])]
        if "join" not in buttons and "start" not in buttons:
            return []
        # The lobby says who hosts and who sits: the others join, then the host starts.
        host = re.search(r"table by (.+?) —", msg.content)
        seated = re.search(r"Players \(\d+/\d+\): (.*)", msg.content)
        names = set(seated[1].split(", ")) if seated else set()
        missing = [u for u in self.users if u.name not in names]
        if missing and "join" in buttons:
            return [Choice(u, msg, "button", buttons["join"][0]) for u in missing]
        hosts = [u for u in self.users if host is not None and u.name == host[1]]
        if hosts and "start" in buttons:
            return [Choice(hosts[0], msg, "button", buttons["start"][0])]
        return []

    def choices(self, user: FakeUser, msg: FakeMessage) -> list[Choice]:
        rng = self.h.rng
        if msg.content.startswith("Done"):
            # A finished turn's panel says so; it still shows its old controls (the cog edits it without
            # view=None), but a player reading it would not press them.
            return []
        buttons = self.buttons(msg)
        selects = [s for s in msg.selects() if not s.disabled and s.type == 3]
        if "draw" in buttons:
            takes = [s for s in selects if _verb(s.custom_id) == "take"]
            if takes and rng.random() < 0.2:
                return [Choice(user, msg, "select", takes[0].custom_id, ["1"])]
            return [Choice(user, msg, "button", buttons["draw"][0])]
        if buttons.get("bind"):  # cards picked by hand that bind
            return [Choice(user, msg, "button", cid) for cid in buttons["bind"]]
        if buttons.get("disc"):  # one card picked by hand
            return [Choice(user, msg, "button", buttons["disc"][0])]
        picks = [s for s in selects if _verb(s.custom_id) == "pick"]
        if picks:  # building a meld by hand: a card or two, or back to the menus
            if "back" in buttons and rng.random() < 0.3:
                return [Choice(user, msg, "button", buttons["back"][0])]
            sel = rng.choice(picks)
            return [Choice(user, msg, "select", sel.custom_id, [rng.choice(sel.values())])]
        melds = [s for s in selects if _verb(s.custom_id) == "meld"]
        if melds and rng.random() < 0.8:  # bind one of the offered melds, usually the best
            values = melds[0].values()
            value = values[0] if rng.random() < 0.7 else rng.choice(values)
            return [Choice(user, msg, "select", melds[0].custom_id, [value])]
        token = next((_token(c) for cids in buttons.values() for c in cids), "")
        if "build" in buttons and token not in self.built and rng.random() < 0.2:
            self.built.add(token)
            return [Choice(user, msg, "button", buttons["build"][0])]
        if "done" in buttons:
            return [Choice(user, msg, "button", buttons["done"][0])]
        tosses = [s for s in selects if _verb(s.custom_id) == "toss"]
        if tosses:
            sel = rng.choice(tosses)
            return [Choice(user, msg, "select", sel.custom_id, [rng.choice(sel.values())])]
        return []


def _token(custom_id: str) -> str:
    parts = custom_id.split(":")
    return parts[3] if len(parts) > 3 else ""


# ------------------------------------------------------------------------------------------ the run


@dataclass
class Config:
    tables: int = 200
    deluxe_tables: int = 0
    ping_tables: int = 0
    seconds: float = 30.0
    max_interactions: int | None = None
    noop_ratio: float = 1.0
    think: float = 2.0
    open_over: float | None = None  # seconds the openings are spread over (None: one think time)
    target: int = 121
    deluxe_players: int = 3
    deluxe_target: int = 100
    seed: int = 1
    db_dir: Path | None = None
    in_process: bool = False
    # PostgreSQL instead of the SQLite file, and how many bot processes share it (each one shard of that
    # many; the tables' guilds spread evenly over the shards, every DM on shard 0 as Discord does).
    database_url: str | None = None
    processes: int = 1
    settled: float = SETTLED  # seconds after the start from which the steady state is counted
    coalesce: float = Settings.coalesce_seconds  # the bot's coalescing window (split runs)
    # Every request checked against Discord's contract by the fake: on in the tests that run this, off from
    # the command line, where its CPU in the fake would count as Discord's time.
    referee: bool = True
    # Players the bot has played with before: their DM channels are in the store when it starts, so an
    # opening opens none (the first time, a player's DM channel costs one global request).
    returning: bool = False


async def remember_dms(config: Config, fake: FakeDiscord, db_path: Path, users: list[FakeUser]) -> None:
    """Write every player's DM channel into the store before the bot starts, as a bot that has DMed them
    before would have it."""
    store = await open_store(config.database_url or db_path)
    try:
        for user in users:
            await store.set_dm_channel(user.id, fake.dm_channel(user).id)
    finally:
        await store.close()


@contextlib.contextmanager
def _pointed_at(fake: FakeDiscord) -> Iterator[None]:
    """Point the unmodified discord.py client at the fake (what the test fixture does with monkeypatch)."""
    old_base, old_gateway = point_at(fake.api_base, fake.gateway_url)
    try:
        yield
    finally:
        point_at(old_base, str(old_gateway))


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeDiscord,
    settings: Settings,
    setup: Callable[[TavernBot], None] | None = None,
    ready_timeout: float = 30,
) -> AsyncIterator[TavernBot]:
    """The fake started, the real bot connected to it (in this process) and ready; both stopped on the way
    out. ``setup`` runs on the bot just before it starts."""
    await fake.start()
    try:
        with _pointed_at(fake):
            bot = create_bot(settings, guild_ready_timeout=0.01)
            if setup is not None:
                setup(bot)
            task = asyncio.create_task(bot.start(settings.token), name="bench-bot")
            try:
                await asyncio.wait_for(bot.wait_until_ready(), ready_timeout)
                yield bot
            finally:
                await bot.close()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(task, 10)
    finally:
        await fake.stop()


@dataclass
class BotSide:
    """The bot under test, wherever it runs: its ERROR logs, and its CPU when it has processes of its own."""

    errors: list[str]
    children: list[BotChild] = field(default_factory=list)

    @property
    def child(self) -> BotChild | None:
        """The first (or only) bot process."""
        return self.children[0] if self.children else None

    def cpu(self) -> tuple[float, float] | None:
        """The bot processes' CPU seconds so far, and their descendants' (None in-process)."""
        if not self.children:
            return None
        each = [c.cpu_seconds() for c in self.children]
        return sum(own for own, _ in each), sum(kids for _, kids in each)

    @property
    def counters(self) -> dict[str, Any] | None:
        """What the bot processes printed at exit, added up (the first's when there is one)."""
        found = [c.counters for c in self.children if c.counters]
        if len(found) < 2:
            return found[0] if found else None
        return {k: sum(f.get(k) or 0 for f in found) for k in found[0]}

    @property
    def loops(self) -> list[dict[str, Any]]:
        """Each bot process's event-loop figures (:mod:`bench.loop_monitor`), as it last saved them."""
        return [f for c in self.children if (f := c.loop_figures()) is not None]


@contextlib.asynccontextmanager
async def bot_side(
    fake: FakeDiscord,
    db_path: Path,
    *,
    in_process: bool,
    database_url: str | None = None,
    processes: int = 1,
) -> AsyncIterator[BotSide]:
    """The fake started and the bot connected to it, in child processes (or this one); all stopped on the
    way out (the children by SIGTERM, so their counters come back). With ``processes`` > 1, each child runs
    one shard of that many, all on ``database_url``."""
    if in_process:
        errors = ErrorCollector()
        logging.getLogger().addHandler(errors)
        try:
            async with running_bot(fake, bench_settings(fake.token, db_path), setup=add_noop):
                yield BotSide(errors.records)
        finally:
            logging.getLogger().removeHandler(errors)
        return
    await fake.start()
    side = BotSide([])
    try:
        for k in range(processes):
            shards = (processes, (k,)) if processes > 1 else None
            where = db_path if processes == 1 else db_path.parent / f"process-{k}" / db_path.name
            where.parent.mkdir(parents=True, exist_ok=True)
            child = await BotChild.start(
                fake.api_base,
                fake.gateway_url,
                where,
                token=fake.token,
                database_url=database_url,
                shards=shards,
                monitor=where.parent / f"loop-{k}.json",
            )
            side.children.append(child)
        yield side
    finally:
        for child in side.children:
            await child.stop()
        side.errors = [e for c in side.children for e in c.errors]  # read once the run is over
        await fake.stop()


FINISHED_SQL = "SELECT game, COUNT(*) FROM games WHERE status='finished' GROUP BY game"
ACTIONS_SQL = "SELECT g.game, COUNT(*) FROM actions a JOIN games g ON g.id = a.game_id GROUP BY g.game"


async def _db_figures(path: Path, database_url: str | None = None) -> tuple[dict[str, int], dict[str, int]]:
    """Finished games and stored actions by game, read straight from the SQLite file (or PostgreSQL)."""
    if database_url is not None:
        db = await asyncpg.connect(database_url)
        try:
            finished = {r[0]: int(r[1]) for r in await db.fetch(FINISHED_SQL)}
            actions = {r[0]: int(r[1]) for r in await db.fetch(ACTIONS_SQL)}
        finally:
            await db.close()
        return finished, actions
    with contextlib.closing(sqlite3.connect(path)) as db:
        return dict(db.execute(FINISHED_SQL)), dict(db.execute(ACTIONS_SQL))


def seat_tables(config: Config, fake: FakeDiscord) -> list[tuple[str, FakeChannel, list[FakeUser]]]:
    """A channel and its players for every table the config asks for; with several processes, the
    channels are spread over one guild per shard."""
    seating: list[tuple[str, FakeChannel, list[FakeUser]]] = []
    guilds = [fake.guild]
    if config.processes > 1:
        guilds = [
            fake.add_guild(f"shard-{k}", shard=k, shard_count=config.processes)
            for k in range(config.processes)
        ]
    for kind, n in (
        ("bhargage", config.tables),
        ("deluxe", config.deluxe_tables),
        ("ping", config.ping_tables),
    ):
        for i in range(n):
            channel = fake.add_channel(f"{kind}-{i}", guilds[i % len(guilds)])
            size = config.deluxe_players if kind == "deluxe" else 2
            users = [fake.add_user(f"{kind}{i}-{s}") for s in range(size)]
            seating.append((kind, channel, users))
    return seating


def make_drivers(
    config: Config, h: Harness, seating: list[tuple[str, FakeChannel, list[FakeUser]]]
) -> list[TableDriver]:
    drivers: list[TableDriver] = []
    for kind, channel, users in seating:
        if kind == "bhargage":
            drivers.append(BhargageTable(h, channel, users, config.target))
        elif kind == "deluxe":
            drivers.append(DeluxeTable(h, channel, users, config.deluxe_target))
        else:
            drivers.append(PingTable(h, channel, users))
    return drivers


async def run_bench(config: Config) -> BenchResult:
    """Start fake and bot, play for ``config.seconds`` (or ``max_interactions``), stop, return figures."""
    with contextlib.ExitStack() as stack:
        db_dir = config.db_dir or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="tavern-bench-"))
        )
        db_path = db_dir / "tavern.sqlite3"
        fake = FakeDiscord()
        fake.referee = config.referee
        fake.reply_timeout = 10.0
        fake.heartbeat_interval_ms = HEARTBEAT_MS
        seating = seat_tables(config, fake)
        noop_channel = fake.add_channel("bench-noop")
        noop_users = [fake.add_user(f"noop-{i}") for i in range(8)]
        if config.returning:
            await remember_dms(config, fake, db_path, [u for _, _, users in seating for u in users])
        async with bot_side(
            fake,
            db_path,
            in_process=config.in_process,
            database_url=config.database_url,
            processes=config.processes,
        ) as bot:
            _, actions0 = await _db_figures(db_path, config.database_url)
            since, events0 = len(fake.request_log), Counter(fake.gateway_events)
            try:
                result, h = await _play(config, fake, bot, seating, noop_channel, noop_users)
            finally:
                with contextlib.suppress(AssertionError):
                    await fake.settle(quiet=0.2, timeout=10)
        result.bot_counters = bot.counters
        result.gateway_events = fake.gateway_events - events0
        result.loops = bot.loops
        dms = {fake.dm_channel(u).id: channel.id for _, channel, users in seating for u in users}
        result.traffic = analyse(
            fake, since, h.tables_of, dms, (result.started + config.settled, result.started + result.duration)
        )
        players_of = {channel.id: tuple(u.id for u in users) for _, channel, users in seating}
        dm_user = {fake.dm_channel(u).id: u.id for _, _, users in seating for u in users}
        result.honest = honest(fake, since, h.tables_of, players_of, dm_user)
        for series in result.series.values():
            series.finish(result.traffic.late_callbacks, result.traffic.delivered_at)
        result.games_finished, actions = await _db_figures(db_path, config.database_url)
        result.actions = {k: n - actions0.get(k, 0) for k, n in actions.items()}
        result.errors = bot.errors + fake.errors + [f"unmodelled route {u}" for u in fake.unhandled]
        return result


async def _play(
    config: Config,
    fake: FakeDiscord,
    bot: BotSide,
    seating: list[tuple[str, FakeChannel, list[FakeUser]]],
    noop_channel: FakeChannel,
    noop_users: list[FakeUser],
) -> tuple[BenchResult, Harness]:
    start = time.perf_counter()
    h = Harness(
        fake=fake,
        rng=random.Random(config.seed),
        deadline=start + config.seconds,
        max_interactions=config.max_interactions,
        noop_ratio=config.noop_ratio,
        think=config.think,
        open_over=config.open_over,
        noop_channel=noop_channel,
        noop_users=noop_users,
        watch=Watch(fake),
    )
    drivers = make_drivers(config, h, seating)
    cpu0, bot_cpu0 = _cpu(), bot.cpu()
    settled_cpu: list[tuple[float, float] | None] = []

    async def sample_when_settled() -> None:
        await asyncio.sleep(config.settled)
        settled_cpu.append(bot.cpu())

    sampler = asyncio.create_task(sample_when_settled())
    tasks = [asyncio.create_task(d.run()) for d in drivers]
    await asyncio.gather(*tasks)
    sampler.cancel()
    if h.noop_tasks:
        await asyncio.gather(*h.noop_tasks)
    duration = time.perf_counter() - start
    h.waits.close(start + duration)
    cpu, bot_cpu = _cpu() - cpu0, bot.cpu()
    counts: dict[str, int] = {}
    for kind, _, _ in seating:
        counts[kind] = counts.get(kind, 0) + 1
    series = {k: h.series.get(k, Series()) for k in counts}
    series["noop"] = h.series.get("noop", Series())
    result = BenchResult(
        tables=counts,
        think=config.think,
        started=start,
        settled=config.settled,
        coalesce_seconds=config.coalesce,
        duration=duration,
        cpu_seconds=cpu,
        series=series,
        games_finished={},
        actions={},
        errors=[],
        stuck=sum(d.stuck for d in drivers),
        not_sent=h.not_sent,
        in_process=config.in_process,
        bot_cpu_seconds=None if bot_cpu is None or bot_cpu0 is None else bot_cpu[0] - bot_cpu0[0],
        drawing_cpu_seconds=None if bot_cpu is None or bot_cpu0 is None else bot_cpu[1] - bot_cpu0[1],
        waits=h.waits,
    )
    if settled_cpu and settled_cpu[0] is not None and bot_cpu is not None:
        at = settled_cpu[0]
        result.settled_cpu = (bot_cpu[0] - at[0], bot_cpu[1] - at[1])
    return result, h


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=200, help="concurrent Bhargage tables")
    parser.add_argument("--deluxe-tables", type=int, default=0, help="concurrent Bharg Deluxe tables")
    parser.add_argument("--ping-tables", type=int, default=0, help="tables whose users only /tavern ping")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to play")
    parser.add_argument("--max-interactions", type=int, default=None, help="stop after this many game clicks")
    parser.add_argument(
        "--noop-ratio", type=float, default=1.0, help="no-op interactions per game interaction"
    )
    parser.add_argument(
        "--think", type=float, default=2.0, help="mean seconds a user thinks before each move (0: flat out)"
    )
    parser.add_argument(
        "--open-over",
        type=float,
        default=None,
        help="seconds the tables' openings are spread over, evenly at random (default: one think time)",
    )
    parser.add_argument("--target", type=int, default=121, help="Bhargage target (21..221)")
    parser.add_argument("--deluxe-players", type=int, default=3, help="players per Deluxe table (2..6)")
    parser.add_argument("--deluxe-target", type=int, default=100, help="Bharg Deluxe target score")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--coalesce",
        type=float,
        default=Settings.coalesce_seconds,
        help="the bot's coalescing window in seconds (TAVERN_COALESCE_SECONDS)",
    )
    parser.add_argument(
        "--settled",
        type=float,
        default=SETTLED,
        help="seconds after the start from which the steady state is counted (every table open)",
    )
    parser.add_argument(
        "--profile",
        default=None,
        help="profile the bot process (cProfile) into this file and print its top costs",
    )
    parser.add_argument(
        "--returning",
        action="store_true",
        help="players the bot has DMed before: their DM channels known at the start (none opened)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run the bot in this process and event loop (for comparison)",
    )
    args = parser.parse_args(argv)
    config = Config(
        tables=args.tables,
        deluxe_tables=args.deluxe_tables,
        ping_tables=args.ping_tables,
        seconds=args.seconds,
        max_interactions=args.max_interactions,
        noop_ratio=args.noop_ratio,
        think=args.think,
        open_over=args.open_over,
        target=args.target,
        deluxe_players=args.deluxe_players,
        deluxe_target=args.deluxe_target,
        seed=args.seed,
        in_process=args.in_process,
        settled=args.settled,
        coalesce=args.coalesce,
        referee=False,
        returning=args.returning,
    )
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    os.environ[COALESCE_ENV] = str(args.coalesce)  # the bot process inherits it
    if args.profile:
        os.environ[PROFILE_ENV] = str(Path(args.profile).resolve())  # the bot process inherits it
    result = asyncio.run(run_bench(config))
    print(result.report())
    if args.profile and not args.in_process:
        print(f"\nthe bot process's top costs ({args.profile}):")
        print(top_costs(args.profile))


if __name__ == "__main__":
    main()
