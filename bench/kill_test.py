"""Kill test: the bot is SIGKILLed again and again under load; no move a player saw answered may be lost.

Run from the repository root::

    python -m bench.kill_test [--kills 50] [--tables 60] [--deluxe-tables 20] [--think 0.3] [--seed 1]

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

The summary: kills; moves answered (game interactions the bot acknowledged); checks made (per kill, one
per game shown so far plus the integrity check); violations, with details; interactions sent while the bot
was down or in flight at a kill (expected, not losses) apart from those unanswered while it was up
(failures); tables stuck at the end: nothing their players can press moves them on (for ``stall``
seconds), or their newest stored move is on no panel (a bot killed between committing a move and drawing
its panels must tell it when it is back); ERROR lines of the bot. The exit status is 1 on any violation or
stuck table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_load import Config, Harness, Watch, make_drivers, seat_tables
from bench.bot_process import BotChild
from tests.fakediscord import FakeDiscord, FakeMessage

_PANEL = re.compile(r"tv:g:(\d+):(\d+):")
_GAME = re.compile(r"tv:g:(\d+):")
REPLY_TIMEOUT = 4.0  # past Discord's 3 s: an interaction not answered by then never will be
STALL_SECONDS = 2.0  # a table with nothing to do this long retries what the killed bot may have dropped


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
    stuck_tables: int = 0  # at the end: nothing left to press, or the newest stored move on no panel
    unshown: int = 0  # active games at the end whose newest stored move no panel ever showed
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
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
            f"tables stuck at the end: {self.stuck_tables} (nothing their players can press moves them on, "
            f"or their newest stored move is on no panel; of these, newest move on no panel: {self.unshown})",
            f"ERROR lines of the bot: {len(self.errors)}",
            *(f"  ! {e[:160]}" for e in self.errors[:5]),
        ]
        return "\n".join(lines)


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
    referee: bool = (
        True  # the fake checks every request against Discord's contract (off from the command line)
    )


async def run_kill_test(
    config: KillConfig, *, tamper: Callable[[Path, dict[int, int]], None] | None = None
) -> KillReport:
    """Play, kill and restart the bot ``config.kills`` times, checking the database after each kill.
    ``tamper`` (for the test of the test) runs on the database between a kill and its check."""
    report = KillReport()
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
            child = await BotChild.start(fake.api_base, fake.gateway_url, db_path)
            h = Harness(
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
            drivers = make_drivers(bench, h, seating)
            tasks = [asyncio.create_task(d.run()) for d in drivers]
            try:
                for kill in range(1, config.kills + 1):
                    await asyncio.sleep(rng.uniform(config.min_gap, config.max_gap))
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
                    child = await BotChild.start(fake.api_base, fake.gateway_url, db_path)
                    down.append((killed_at, time.perf_counter()))
                await asyncio.sleep(config.max_gap)
            finally:
                h.stop.set()
                await asyncio.gather(*tasks)
                await child.stop()
                report.errors.extend(child.errors)
        finally:
            await fake.stop()
        _classify(report, h, down)
        with contextlib.closing(sqlite3.connect(db_path)) as db:
            report.actions_stored = db.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
            active = db.execute(
                "SELECT g.id, g.channel_id, COUNT(a.seq), COALESCE(MAX(a.at), g.created_at) FROM games g "
                "LEFT JOIN actions a ON a.game_id = g.id WHERE g.status = 'active' GROUP BY g.id"
            ).fetchall()
        # A rematch plays on in its game's thread: count it as its channel's table.
        parent = {thread.id: channel for channel, thread in h.watch.threads.items()}
        unshown = {parent.get(c, c) for game, c, n, at in active if not tokens.shows(game, n, at)}
        report.unshown = len(unshown)
        # Stuck: nothing a player can press moves it on, or its newest stored move is on no panel.
        report.stuck_tables = len({d.channel.id for d in drivers if d.stuck} | unshown)
    return report


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--tables", type=int, default=60, help="Bhargage tables")
    parser.add_argument("--deluxe-tables", type=int, default=20)
    parser.add_argument("--think", type=float, default=0.3, help="mean seconds a player thinks per move")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    config = KillConfig(
        kills=args.kills,
        tables=args.tables,
        deluxe_tables=args.deluxe_tables,
        think=args.think,
        seed=args.seed,
        referee=False,
    )
    report = asyncio.run(run_kill_test(config))
    print(report.summary())
    return 1 if report.violations or report.stuck_tables else 0


if __name__ == "__main__":
    sys.exit(main())
