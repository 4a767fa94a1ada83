"""Kill test: the bot is SIGKILLed again and again under load; no move a player saw answered may be lost, and
no table may be left stuck.

Run from the repository root::

    python -m bench.kill_test [--kills 50] [--tables 60] [--deluxe-tables 20] [--think 0.3] [--seed 1]
    python -m bench.kill_test --recovery [--tables 1000 --deluxe-tables 0] [--warmup 20] [--probes 5]

The fake Discord and the simulated players of :mod:`bench.bench_load` run here for the whole test; the bot
runs in a child process (:mod:`bench.bot_process`) on one SQLite file. At random moments (0.3–3 s apart)
the child and its drawing process are SIGKILLed, the database is checked, and a new child starts on the same
file (it reconnects, and its restore rebuilds the tables); the players carry on, retrying what went
unanswered.

The evidence is game-independent: every component the bot draws carries ``tv:g:<game>:<token>:<verb>``,
and a plain-integer token is the game's action count when the panel was drawn, which the bot only does
after committing the move. So after each kill, for every game, the highest integer token the fake ever
received from the bot (in any message sent or edited, ephemeral ones included) must be at most the number
of actions the database holds for that game; and the file must pass ``PRAGMA integrity_check``.

What "stuck" means is what a player would feel, judged once the play is over: the players stop, and the bot
drains — it tells everything it owes (the store marks no game owed, nor with calls untold that its game
does not hold back on purpose: what a restarted bot's first timer pass tells) and then sends nothing for
``QUIET`` seconds. A table is stuck only if then no seat can move it on: nothing its players see can be
pressed, or every press they try is refused or unanswered, or its newest stored move is on no panel (a bot
killed between committing a move and drawing its panels must tell it when it is back). A table with
nothing to press *during* the play is waiting, not stuck: at ``--think 0.3`` the tables ask for far more
than Discord's global budget, so their panels queue for seconds, and more so while a restarted bot retells
what the killed one owed. Those are counted apart ("waiting when the players stopped": nothing to press for
``STALL_SECONDS``), as is how long the drain took.

The summary: kills; moves answered (game interactions the bot acknowledged); checks made (per kill, one
per game shown so far plus the integrity check); violations, with details; interactions sent while the bot
was down or in flight at a kill (expected, not losses) apart from those unanswered while it was up
(failures); the drain; tables waiting when the players stopped; tables stuck after the drain, by why;
ERROR lines of the bot. The exit status is 1 on any violation or stuck table, or a drain that did not end.

``--recovery`` measures instead how long a restarted bot takes to tell everything it owes: the tables open
and play (``--warmup`` seconds once every table has opened), the bot is killed and the players stop at
that moment, and a new bot starts. Printed: the games owing a telling at the kill; READY; when the store
last says each owed game is owed (p50, p90, all), and when the bot then went quiet; its global requests
meanwhile against the budget; what a player sees meanwhile (``--probes`` players of owed tables press what
their panels show at READY: the callback and the redrawn panel, or the refusal); the bot's CPU and the
machine's load average. With ``--tables 1000`` it is heavy for a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_load import (
    GLOBAL_BUDGET,
    Config,
    Harness,
    TableDriver,
    Watch,
    is_interaction_endpoint,
    make_drivers,
    percentile,
    seat_tables,
)
from bench.bot_process import BotChild
from bot.games import GAMES, TableMeta
from bot.services import snapshots
from bot.services.tables import ENDINGS_WINDOW
from bot.services.tables.loading import TableLoader
from bot.settings import Settings
from bot.store import SQLiteStore
from tests.fakediscord import FakeDiscord, FakeMessage, InteractionResult

_PANEL = re.compile(r"tv:g:(\d+):(\d+):")
_GAME = re.compile(r"tv:g:(\d+):")
REPLY_TIMEOUT = 4.0  # past Discord's 3 s: an interaction not answered by then never will be
STALL_SECONDS = 2.0  # a table with nothing to do this long retries what the killed bot may have dropped
QUIET = 2.0  # seconds the bot sends nothing, once it owes nothing, before the tables are judged
DRAIN_LIMIT = 300.0  # seconds the drain may take before the tables are judged anyway


PROGRESS_LIMIT = 30.0  # seconds a kill waits at most for a game to move on


class TokenWatch:
    """The highest integer panel token the bot ever sent or edited in, per game; and when a private panel
    of the game (a DM or an ephemeral message with its controls, whatever their token) was last drawn."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.highest: dict[int, int] = {}
        self.drawn: dict[int, float] = {}  # game → wall-clock time of its last private panel drawn
        fake.listeners.append(self._seen)

    def _seen(self, msg: FakeMessage) -> None:
        ids = [b.custom_id for b in msg.buttons()] + [s.custom_id for s in msg.selects()]
        private = msg.ephemeral or msg.channel.is_dm
        for cid in ids:
            if private and (g := _GAME.match(cid or "")) is not None:
                self.drawn[int(g[1])] = time.time()
            m = _PANEL.match(cid or "")
            if m is not None:
                game, token = int(m[1]), int(m[2])
                if token > self.highest.get(game, -1):
                    self.highest[game] = token

    async def moved_on(self, since: dict[int, int], limit: float) -> None:
        """Wait, ``limit`` seconds at most, until a game moved on since ``since`` (its panels' highest
        tokens): a kill then lands on games in play however slow the machine is (a busy machine once left a
        run with its tables barely open at every kill, and little to check)."""
        deadline = time.perf_counter() + limit
        while time.perf_counter() < deadline:
            if any(v > since.get(g, -1) for g, v in self.highest.items()):
                return
            await asyncio.sleep(0.05)

    def shows(self, game: int, actions: int, newest_at: float) -> bool:
        """Whether a panel shows the game's newest stored move: one carries its action count, or one was
        drawn after it was committed (a panel waiting on another seat carries no count)."""
        return self.highest.get(game, 0) >= actions or self.drawn.get(game, -math.inf) >= newest_at


@dataclass
class KillReport:
    kills: int = 0
    moves_answered: int = 0
    checks: int = 0
    violations: list[str] = field(default_factory=list)
    sent_while_down: int = 0  # refused by the fake (no bot connected) or unanswered around a kill
    unanswered_while_up: int = 0
    actions_stored: int = 0
    tables: int = 0
    waiting_at_stop: int = 0  # nothing to press for STALL_SECONDS when the players stopped (the budget)
    drain_seconds: float | None = None  # from the players' stop until the bot owed nothing and went quiet
    stuck: dict[int, str] = field(default_factory=dict)  # table channel → why no seat can move it on
    errors: list[str] = field(default_factory=list)

    @property
    def stuck_tables(self) -> int:
        return len(self.stuck)

    def summary(self) -> str:
        drained = (
            f"in {self.drain_seconds:.1f} s"
            if self.drain_seconds is not None
            else "NOT within the drain's limit (the tables were judged anyway)"
        )
        why = Counter(self.stuck.values())
        lines = [
            f"kills: {self.kills}   moves answered: {self.moves_answered}   actions stored at the end: "
            f"{self.actions_stored}",
            f"checks made: {self.checks} (game × kill: highest panel token ≤ stored actions; integrity_check "
            f"after every kill)",
            f"violations: {len(self.violations)}",
            *(f"  ! {v}" for v in self.violations[:20]),
            "interactions sent while the bot was down or in flight at a kill (expected): "
            f"{self.sent_while_down}",
            f"unanswered while the bot was up (failures): {self.unanswered_while_up}",
            f"tables waiting when the players stopped: {self.waiting_at_stop} of {self.tables} (nothing to "
            f"press for {STALL_SECONDS:.0f} s: their panels queued behind the global budget; not stuck)",
            f"the bot drained (told everything it owed, then {QUIET:.0f} s quiet) {drained}",
            f"tables stuck after the drain: {self.stuck_tables} (no seat can move them on)"
            + "".join(f"; {n} {reason}" for reason, n in sorted(why.items())),
            f"ERROR lines of the bot: {len(self.errors)}",
            *(f"  ! {e[:160]}" for e in self.errors[:5]),
        ]
        return "\n".join(lines)

    @property
    def failed(self) -> bool:
        return bool(self.violations or self.stuck or self.drain_seconds is None)


def check_database(db_path: Path, highest: dict[int, int], kill: int) -> tuple[int, list[str]]:
    """Compare what players were shown with what the database kept; returns (checks made, violations)."""
    violations: list[str] = []
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        integrity = [row[0] for row in db.execute("PRAGMA integrity_check")]
        if integrity != ["ok"]:
            violations.append(f"kill {kill}: integrity_check says {integrity[:3]}")
        stored = dict(db.execute("SELECT game_id, COUNT(*) FROM actions GROUP BY game_id"))
    for game, token in sorted(highest.items()):
        if token > stored.get(game, 0):
            violations.append(
                f"kill {kill}: game {game} showed a panel drawn after {token} actions, "
                f"the database keeps {stored.get(game, 0)}"
            )
    return len(highest) + 1, violations


def drop_last_action(db_path: Path, highest: dict[int, int]) -> None:
    """Lose the last answered move of one game (its action that the newest panel showed, and any later):
    the crash the check is there to catch."""
    shown = {game: token for game, token in highest.items() if token > 0}
    if not shown:
        return
    game = max(shown, key=lambda g: shown[g])
    with contextlib.closing(sqlite3.connect(db_path)) as db, db:
        db.execute("DELETE FROM actions WHERE game_id = ? AND seq >= ?", (game, shown[game]))


@dataclass
class KillConfig:
    kills: int = 50
    tables: int = 60
    deluxe_tables: int = 20
    think: float = 0.3
    seed: int = 1
    min_gap: float = 0.3
    max_gap: float = 3.0
    db_dir: Path | None = None
    drain_limit: float = DRAIN_LIMIT
    referee: bool = (
        True  # the fake checks every request against Discord's contract (off from the command line)
    )
    warmup: float = 20.0  # --recovery: seconds of play once every table has opened, before the kill
    probes: int = 5  # --recovery: players of owed tables who press at READY


# ------------------------------------------------------------------------------------------ what is owed


async def owing(db_path: Path) -> set[int]:
    """The games the bot owes a telling, as far as the store shows (what a restarted bot's first timer pass
    tells, ``Publisher.owes``): marked owed (active, or finished within a day), or active with calls untold
    that its game does not hold back on purpose (a Bharg Deluxe turn is told when it passes)."""
    store = await SQLiteStore.open(db_path)
    try:
        found = set(await store.untold_endings(since=time.time() - ENDINGS_WINDOW))
        loader = TableLoader(store, GAMES, snapshots.PROCESS_KEY)  # whole logs: no snapshot is read
        for game in await store.active_index():
            meta = TableMeta.from_dict(game.meta)
            if meta.owed:
                found.add(game.id)
            elif meta.untold_after is not None:
                record = await store.load_game(game.id)
                table = loader.rebuild(record) if record is not None else None
                if (
                    table is not None
                    and table.pending
                    and not table.adapter.tells_later(table, table.pending)
                ):
                    found.add(game.id)
    finally:
        await store.close()
    return found


async def drain(fake: FakeDiscord, db_path: Path, limit: float) -> float | None:
    """Wait until the bot owes nothing and has then sent nothing for ``QUIET`` seconds; how long that took
    (None: not within ``limit`` seconds)."""
    start = time.perf_counter()
    while (left := start + limit - time.perf_counter()) > 0:
        if await owing(db_path):
            await asyncio.sleep(0.5)
            continue
        try:
            await fake.settle(quiet=QUIET, timeout=left)
        except AssertionError:
            return None
        if not await owing(db_path):
            return time.perf_counter() - start
    return None


def table_channels(db_path: Path, h: Harness) -> dict[int, int]:
    """{game id: the channel of its table}: a rematch plays on in its game's thread."""
    parent = {thread.id: channel for channel, thread in h.watch.threads.items()}
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        return {
            game: parent.get(channel, channel)
            for game, channel in db.execute("SELECT id, channel_id FROM games")
        }


async def judge(drivers: list[TableDriver], tokens: TokenWatch, db_path: Path, h: Harness) -> dict[int, str]:
    """The tables no seat can move on, by channel, with why: its newest stored move on no panel, or nothing
    to press, or every press refused (the players stopped and the bot drained)."""
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        active = db.execute(
            "SELECT g.id, COUNT(a.seq), COALESCE(MAX(a.at), g.created_at) FROM games g "
            "LEFT JOIN actions a ON a.game_id = g.id WHERE g.status = 'active' GROUP BY g.id"
        ).fetchall()
    channel_of = table_channels(db_path, h)
    stuck = {
        channel_of[game]: "with its newest move on no panel"
        for game, n, at in active
        if not tokens.shows(game, n, at)
    }
    rest = [d for d in drivers if d.channel.id not in stuck]
    for d, why in zip(rest, await asyncio.gather(*(d.can_move_on() for d in rest)), strict=True):
        if why:
            stuck[d.channel.id] = f"with {why}"
    return stuck


# ------------------------------------------------------------------------------------------ the kill test


async def run_kill_test(
    config: KillConfig,
    *,
    tamper: Callable[[Path, dict[int, int]], None] | None = None,
    before_judging: Callable[[FakeDiscord, list[TableDriver]], None] | None = None,
) -> KillReport:
    """Play, kill and restart the bot ``config.kills`` times, checking the database after each kill; then
    stop the players, let the bot drain, and judge every table. ``tamper`` (for the test of the test) runs
    on the database between a kill and its check, ``before_judging`` on the fake once the bot drained."""
    report = KillReport(tables=config.tables + config.deluxe_tables)
    rng = random.Random(config.seed)
    with contextlib.ExitStack() as stack:
        db_dir = config.db_dir or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="tavern-kill-"))
        )
        db_path = db_dir / "tavern.sqlite3"
        fake = FakeDiscord()
        fake.referee = config.referee
        fake.reply_timeout = REPLY_TIMEOUT
        bench = Config(tables=config.tables, deluxe_tables=config.deluxe_tables, target=61, deluxe_target=60)
        seating = seat_tables(bench, fake)
        tokens = TokenWatch(fake)
        down: list[tuple[float, float]] = []  # (killed at, ready again at)
        await fake.start()
        try:
            child = await BotChild.start(fake.api_base, fake.gateway_url, db_path, token=fake.token)
            h = _harness(fake, config)
            drivers = make_drivers(bench, h, seating)
            tasks = [asyncio.create_task(d.run()) for d in drivers]
            try:
                moved: dict[int, int] = {}
                for kill in range(1, config.kills + 1):
                    await asyncio.sleep(rng.uniform(config.min_gap, config.max_gap))
                    await tokens.moved_on(moved, PROGRESS_LIMIT)
                    moved = dict(tokens.highest)
                    killed_at = time.perf_counter()
                    await child.kill()
                    report.kills += 1
                    report.errors.extend(child.errors)
                    highest = dict(tokens.highest)
                    if tamper is not None:
                        tamper(db_path, highest)
                    checks, violations = check_database(db_path, highest, kill)
                    report.checks += checks
                    report.violations.extend(violations)
                    child = await BotChild.start(fake.api_base, fake.gateway_url, db_path, token=fake.token)
                    down.append((killed_at, time.perf_counter()))
                await asyncio.sleep(config.max_gap)
            finally:
                h.stop.set()
                await asyncio.gather(*tasks)
            report.waiting_at_stop = sum(d.stuck for d in drivers)
            try:
                report.drain_seconds = await drain(fake, db_path, config.drain_limit)
                if before_judging is not None:
                    before_judging(fake, drivers)
                report.stuck = await judge(drivers, tokens, db_path, h)
            finally:
                await child.stop()
                report.errors.extend(child.errors)
        finally:
            await fake.stop()
        _classify(report, h, down)
        with contextlib.closing(sqlite3.connect(db_path)) as db:
            report.actions_stored = db.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    return report


def _harness(fake: FakeDiscord, config: KillConfig) -> Harness:
    """The players: no no-ops, no end but ``stop``; a table whose opening went unanswered opens again, and
    one with nothing to press for ``STALL_SECONDS`` presses again what the killed bot may have dropped."""
    return Harness(
        fake=fake,
        rng=random.Random(config.seed),
        deadline=math.inf,
        max_interactions=None,
        noop_ratio=0.0,
        think=config.think,
        noop_channel=fake.channel,
        noop_users=[],
        watch=Watch(fake),
        retry_when_stuck=True,
        stall_after=STALL_SECONDS,
    )


def _classify(report: KillReport, h: Harness, down: list[tuple[float, float]]) -> None:
    """Answered moves, and unanswered ones sorted by whether a kill explains them: sent while the bot was
    down, or within the reply timeout before a kill."""
    report.sent_while_down = h.not_sent
    for series in h.series.values():
        for it in series.interactions:
            if it.callback_at is not None:
                report.moves_answered += 1
                continue
            sent = it.sent_at or 0.0
            if any(killed - REPLY_TIMEOUT <= sent <= ready for killed, ready in down):
                report.sent_while_down += 1
            else:
                report.unanswered_while_up += 1


# ------------------------------------------------------------------------------------------ recovery


@dataclass
class RecoveryReport:
    """How long a restarted bot takes to tell what the killed one owed (seconds from the restart)."""

    tables: int
    think: float
    opened_after: float = 0.0  # from the first start until every table had opened
    active: int = 0  # active games at the kill
    owed: int = 0  # games owing a telling at the kill
    ready: float = 0.0
    told: list[float] = field(default_factory=list)  # per owed game (probed ones aside): owed no more
    still_owed: int = 0  # owed at the limit
    quiet: float | None = None  # the bot then sent nothing for QUIET seconds (None: not within the limit)
    global_requests: int = 0  # outside the interaction endpoints, from the restart until quiet
    busiest_second: int = 0
    # per probe: s until something to press, then ms to the callback and to the redrawn panel, why not
    probes: list[tuple[float | None, float | None, float | None, str]] = field(default_factory=list)
    bot_cpu: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)  # 1-minute load average at the kill and at the end

    def summary(self) -> str:
        told = sorted(self.told)
        last = told[-1] if told else 0.0
        quiet = f"{self.quiet:.1f} s" if self.quiet is not None else "NOT within the limit"
        span = max(self.quiet or last, 1e-9)
        answered = [p for p in self.probes if p[1] is not None and not p[3]]
        lines = [
            f"recovery at {self.tables} tables (--think {self.think}): every table open after "
            f"{self.opened_after:.0f} s, killed with {self.owed} of {self.active} active games owing a "
            f"telling; load average {self.load[0]:.1f} at the kill, {self.load[1]:.1f} at the end "
            f"({os.cpu_count()} cores)",
            f"READY after {self.ready:.1f} s",
            f"every owed game told after {last:.1f} s (the store read every 0.25 s; p50 "
            f"{percentile(told, 50):.1f} s, p90 {percentile(told, 90):.1f} s; {len(told)} games, the probed "
            f"ones aside; {self.still_owed} still owed at the limit)",
            f"the bot quiet (everything sent) after {quiet}: {self.global_requests} global requests, "
            f"{self.global_requests / span:.1f}/s on average, at most {self.busiest_second} in one second "
            f"(budget {Settings.global_budget}, Discord's {GLOBAL_BUDGET})",
            f"meanwhile, players of owed tables from READY ({len(self.probes)} probes): something to press "
            f"after {_s([p[0] for p in self.probes])}; then {len(answered)} presses answered, callback "
            f"{_ms([p[1] for p in answered])}, panel redrawn {_ms([p[2] for p in answered])}"
            + "".join(f"; {why}" for *_, why in self.probes if why),
            f"bot CPU from the restart until quiet: {self.bot_cpu:.1f} s",
        ]
        return "\n".join(lines)


def _ms(values: list[float | None]) -> str:
    found = [v for v in values if v is not None]
    return f"p50 {percentile(found, 50):.0f} ms, max {max(found):.0f} ms" if found else "-"


def _s(values: list[float | None]) -> str:
    found = [v for v in values if v is not None]
    return f"p50 {percentile(found, 50):.1f} s, max {max(found):.1f} s" if found else "-"


async def run_recovery(config: KillConfig, *, limit: float = 900.0) -> RecoveryReport:
    """Open and play every table, kill the bot under load and stop the players, restart it, and time how long
    it takes to tell everything it owed (``limit`` seconds at most)."""
    report = RecoveryReport(tables=config.tables + config.deluxe_tables, think=config.think)
    with contextlib.ExitStack() as stack:
        db_dir = config.db_dir or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="tavern-recovery-"))
        )
        db_path = db_dir / "tavern.sqlite3"
        fake = FakeDiscord()
        fake.referee = config.referee
        fake.reply_timeout = REPLY_TIMEOUT
        bench = Config(tables=config.tables, deluxe_tables=config.deluxe_tables, target=61, deluxe_target=60)
        seating = seat_tables(bench, fake)
        await fake.start()
        try:
            child = await BotChild.start(fake.api_base, fake.gateway_url, db_path, token=fake.token)
            try:
                h = _harness(fake, config)
                drivers = make_drivers(bench, h, seating)
                tasks = [asyncio.create_task(d.run()) for d in drivers]
                report.opened_after = await _all_open(drivers, db_path, h, limit)
                await asyncio.sleep(config.warmup)
                report.load = (os.getloadavg()[0], 0.0)
                await child.kill()
                h.stop.set()
                await asyncio.gather(*tasks)
                owed = await owing(db_path)
                report.owed = len(owed)
                with contextlib.closing(sqlite3.connect(db_path)) as db:
                    report.active = db.execute(
                        "SELECT COUNT(*) FROM games WHERE status = 'active'"
                    ).fetchone()[0]
                since, restarted = len(fake.request_log), time.perf_counter()
                child = await BotChild.start(fake.api_base, fake.gateway_url, db_path, token=fake.token)
                report.ready = time.perf_counter() - restarted
                cpu0 = sum(child.cpu_seconds())
                await _recover(report, fake, db_path, h, drivers, owed, restarted, limit, config.probes)
                report.bot_cpu = sum(child.cpu_seconds()) - cpu0
                _requests(report, fake, since, restarted)
                report.load = (report.load[0], os.getloadavg()[0])
            finally:
                await child.stop()
        finally:
            await fake.stop()
    return report


async def _all_open(drivers: list[TableDriver], db_path: Path, h: Harness, limit: float) -> float:
    """Wait until every table has a game; how long that took."""
    start = time.perf_counter()
    want = {d.channel.id for d in drivers}
    while not want <= set(table_channels(db_path, h).values()):
        if time.perf_counter() - start > limit:
            raise RuntimeError(f"the tables did not all open within {limit:.0f} s")
        await asyncio.sleep(1.0)
    return time.perf_counter() - start


async def _recover(
    report: RecoveryReport,
    fake: FakeDiscord,
    db_path: Path,
    h: Harness,
    drivers: list[TableDriver],
    owed: set[int],
    restarted: float,
    limit: float,
    probes: int,
) -> None:
    """Probe a few owed tables at READY, then watch the store until nothing is owed, and the bot go quiet."""
    channel_of = table_channels(db_path, h)
    owed_channels = {channel_of[g] for g in owed}
    probed = [d for d in drivers if d.channel.id in owed_channels][:probes]
    pressed = asyncio.gather(*(_probe(d, limit) for d in probed))
    skip = {d.channel.id for d in probed}
    waiting = {g for g in owed if channel_of[g] not in skip}
    while waiting and time.perf_counter() - restarted < limit:
        now = time.perf_counter() - restarted
        left = await owing(db_path)
        report.told.extend(now for _ in waiting - left)
        waiting &= left
        if waiting:
            await asyncio.sleep(0.25)
    report.still_owed = len(waiting)
    report.probes = list(await pressed)
    with contextlib.suppress(AssertionError):
        await fake.settle(quiet=QUIET, timeout=max(0.0, limit - (time.perf_counter() - restarted)))
        report.quiet = time.perf_counter() - restarted - QUIET


async def _probe(d: TableDriver, limit: float) -> tuple[float | None, float | None, float | None, str]:
    """A player of an owed table at READY: waits until their panels offer something to press, presses it,
    and waits for the redrawn panel; (waited s, callback ms, panel ms, why not)."""
    start = time.perf_counter()
    d.acted.clear()
    while (choice := d.pick()) is None:
        if time.perf_counter() - start > limit:
            return None, None, None, "nothing to press"
        await d._wait_change(0.25)
    waited = time.perf_counter() - start
    it = await d.act(choice)
    if it is None or it.sent_at is None or it.callback_at is None:
        return waited, None, None, "unanswered"
    await d._until_replied(it, timeout=limit)
    panel = None if it.replied_at is None else (it.replied_at - it.sent_at) * 1000
    refused = [m.text()[:60] for m in InteractionResult(it).messages if m.ephemeral]
    return waited, (it.callback_at - it.sent_at) * 1000, panel, f"refused: {refused[0]}" if refused else ""


def _requests(report: RecoveryReport, fake: FakeDiscord, since: int, restarted: float) -> None:
    """The bot's global requests from the restart until it went quiet, and the most in one second."""
    per_second: Counter[int] = Counter()
    end = restarted + (report.quiet if report.quiet is not None else math.inf)
    for rec in fake.request_log[since:]:
        if not is_interaction_endpoint(rec.path) and rec.at <= end:
            per_second[int(rec.at - restarted)] += 1
    report.global_requests = sum(per_second.values())
    report.busiest_second = max(per_second.values(), default=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--tables", type=int, default=60, help="Bhargage tables")
    parser.add_argument("--deluxe-tables", type=int, default=20)
    parser.add_argument("--think", type=float, default=0.3, help="mean seconds a player thinks per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--recovery",
        action="store_true",
        help="one kill under load: how long the restarted bot takes to tell",
    )
    parser.add_argument(
        "--warmup", type=float, default=20.0, help="--recovery: seconds of play before the kill"
    )
    parser.add_argument("--probes", type=int, default=5, help="--recovery: players who press at READY")
    args = parser.parse_args(argv)
    config = KillConfig(
        kills=args.kills,
        tables=args.tables,
        deluxe_tables=args.deluxe_tables,
        think=args.think,
        seed=args.seed,
        referee=False,
        warmup=args.warmup,
        probes=args.probes,
    )
    if args.recovery:
        print(asyncio.run(run_recovery(config)).summary())
        return 0
    report = asyncio.run(run_kill_test(config))
    print(report.summary())
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
