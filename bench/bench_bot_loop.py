"""How long a computer player's move holds the event loop: the real bot against the fake Discord.

Run: ``.venv/bin/python bench/bench_bot_loop.py [--bhargage 20] [--cribbage 0] [--deluxe 10] [--seconds 30]
[--level hard|expert]``. Target: a game against the bot never blocks the event loop for more than 20 ms per
move; against the expert, the loop's lag stays as against hard (its thinking is in its own process).

Bhargage and Cribbage practice tables (one bot of ``--level``) and Deluxe tables (one person, bots of
``--level``) are opened through the lobby service and played to the end; the people's moves go through the
controller's own apply → publish path, chosen by the easy player, and the bots move by themselves as on
Discord. Every step a bot task runs on the loop (the code between two awaits: lock, apply, commit, render,
the REST calls it starts) is timed by wrapping the loop's handle runner; the decision itself runs in a worker
thread (hard) or the thinking process (expert) and is timed apart, the expert's as long as its move waited
for it. Steps during which Python ran a full garbage collection are counted apart: that pause hits whatever
code is running, bot or not. The loop's lag is a probe that asks to wake every 10 ms and records how late it
woke: what a press arriving then would wait before the bot even reads it. Run it on an otherwise idle
machine: the steps are wall-clock times.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_load import percentile, running_bot
from bot.ai import Level
from bot.ai import bhargage as ai_bh
from bot.ai import cribbage as ai_cr
from bot.ai import deluxe as ai_dx
from bot.edge.app import TavernBot
from bot.games import GameAdapter
from bot.games.seats import next_bot
from bot.services.lobbies import Player
from bot.services.thinking import THINKING, Thinking
from bot.settings import Settings
from tests.fakediscord import FAKE_TOKEN, FakeDiscord

AIS: dict[str, Any] = {"bhargage": ai_bh, "cribbage": ai_cr, "deluxe": ai_dx}
steps: list[float] = []  # seconds, one per loop step of a bot task
decisions: list[float] = []  # seconds, one per decision in the worker thread
thoughts: list[float] = []  # seconds an expert's move waited for the thinking process
fell_back = [0]  # expert moves with no answer within the budget
lags: list[float] = []  # seconds the loop woke late, one per probe
PROBE_SECONDS = 0.01
gc_in_step: list[float] = []  # seconds of the steps during which Python ran a full (gen-2) collection
_full_collections = [0]


def _count_full_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "stop" and info.get("generation") == 2:
        _full_collections[0] += 1


@contextlib.contextmanager
def timed_bot_steps() -> Iterator[None]:
    """Time every loop step whose callback belongs to a bot task (named ``bots-<table>``)."""
    handle = asyncio.events.Handle
    original = handle._run

    def run(self: asyncio.Handle) -> None:
        owner = getattr(self._callback, "__self__", None)  # type: ignore[attr-defined]
        if not (isinstance(owner, asyncio.Task) and owner.get_name().startswith("bots-")):
            original(self)
            return
        before = _full_collections[0]
        start = time.perf_counter()
        original(self)
        took = time.perf_counter() - start
        (gc_in_step if _full_collections[0] != before else steps).append(took)

    decide = GameAdapter.bot_action

    def timed_decide(*args: Any) -> Any:
        start = time.perf_counter()
        try:
            return decide(*args)
        finally:
            decisions.append(time.perf_counter() - start)

    think = Thinking.decide

    async def timed_think(*args: Any) -> Any:
        thought = await think(*args)
        thoughts.append(thought.seconds)
        fell_back[0] += thought.action is None
        return thought

    handle._run = run  # type: ignore[method-assign]
    GameAdapter.bot_action = timed_decide  # type: ignore[method-assign]
    Thinking.decide = timed_think  # type: ignore[method-assign]
    gc.callbacks.append(_count_full_gc)
    try:
        yield
    finally:
        gc.callbacks.remove(_count_full_gc)
        handle._run = original  # type: ignore[method-assign]
        GameAdapter.bot_action = decide  # type: ignore[method-assign]
        Thinking.decide = think  # type: ignore[method-assign]


async def probe(stop: float) -> None:
    """How late the loop wakes a callback that asked to run every ``PROBE_SECONDS``."""
    loop = asyncio.get_running_loop()
    while time.perf_counter() < stop:
        asked = loop.time() + PROBE_SECONDS
        await asyncio.sleep(PROBE_SECONDS)
        lags.append(max(0.0, loop.time() - asked))


async def person(bot: TavernBot, table_id: int, seat: int, rng: random.Random, stop: float) -> None:
    """A person's moves through the controller's path (the easy player picks them)."""
    control = bot.controller
    while time.perf_counter() < stop:
        table = await bot.tables.get(table_id)
        if table.status != "active":
            return
        if seat not in table.waiting_for():
            await asyncio.sleep(0.01)
            continue
        async with bot.tables.locked(table_id) as table:
            if seat not in table.waiting_for():
                continue
            ai = AIS[table.game]
            action = ai.choose(table.module.view(table.state, seat), rng, "easy")
            told = table.meta.told(table.seq)
            events = await control.ledger.apply(table, seat, action)
            await control.publisher.publish(table, events, told_before=told)


async def run(bhargage: int, cribbage: int, deluxe: int, bots: int, seconds: float, level: Level) -> None:
    with tempfile.TemporaryDirectory(prefix="tavern-bench-") as folder:
        settings = Settings(
            token=FAKE_TOKEN,
            db_path=Path(folder) / "tavern.sqlite3",
            log_level="WARNING",
            nudge_minutes=0,
            claim_minutes=0,
            bot_delay=0.0,
        )
        fake = FakeDiscord()
        fake.referee = False  # its CPU would count as Discord's time; the tests check every body
        fake.reply_timeout = 10.0
        practice = ["bhargage"] * bhargage + ["cribbage"] * cribbage
        channels = [fake.add_channel(f"t{i}") for i in range(len(practice) + deluxe)]
        people = [fake.add_user(f"p{i}") for i in range(len(practice) + deluxe)]
        async with running_bot(fake, settings) as bot:
            if level == "expert":
                await THINKING.start()  # as the first expert move would: its start is not a decision
            await play(bot, channels, people, practice, bots, seconds, level)


async def play(
    bot: TavernBot,
    channels: list[Any],
    people: list[Any],
    practice: list[str],
    bots: int,
    seconds: float,
    level: Level,
) -> None:
    adapters = bot.tables
    stop = time.perf_counter() + seconds
    workers = []
    with timed_bot_steps():
        started = time.perf_counter()
        workers.append(asyncio.create_task(probe(stop)))
        for i, (channel, user) in enumerate(zip(channels, people, strict=True)):
            host = Player(user.id, user.name)
            if i < len(practice):
                table, _ = await bot.lobbies.practice(
                    adapters.adapter(practice[i]), channel.guild.id, channel.id, host, level
                )
            else:
                seats: list[tuple[int, str]] = [(host.id, host.name)]
                for _ in range(bots):
                    seats.append(next_bot([u for u, _ in seats], level))
                table, _ = await adapters.create("deluxe", channel.guild.id, channel.id, seats, seed=i)
            async with adapters.locked(table.id) as table:
                await bot.controller.publisher.publish(table, table.pending, told_before=-1)
            workers.append(asyncio.create_task(person(bot, table.id, 0, random.Random(i), stop)))
        await asyncio.gather(*workers)
        await bot.controller.computer.idle()
        elapsed = time.perf_counter() - started
    ms = sorted(s * 1000 for s in steps)
    dec = sorted(d * 1000 for d in decisions)
    over = sum(1 for s in ms if s > 20)
    deluxe = len(channels) - len(practice)
    games = ", ".join(f"{practice.count(g)} {g.capitalize()}" for g in dict.fromkeys(practice))
    print(f"tables: {games or 'no'} practice ({level}), {deluxe} Deluxe (1 person + {bots} {level} bots)")
    print(f"ran {elapsed:.1f} s; bot decisions: {len(dec)}; bot loop steps: {len(ms)}")
    print(
        f"bot task loop steps, ms:  p50 {percentile(ms, 50):6.2f}  p99 {percentile(ms, 99):6.2f}  "
        f"max {ms[-1] if ms else 0:6.2f}  over 20 ms: {over}"
    )
    gcs = sorted(s * 1000 for s in gc_in_step)
    print(
        f"steps in which Python ran a full garbage collection (not the bot's code): {len(gcs)}, "
        f"longest {gcs[-1] if gcs else 0:.2f} ms"
    )
    print(
        f"decisions (worker thread, off the loop), ms:  p50 {percentile(dec, 50):6.2f}  "
        f"p99 {percentile(dec, 99):6.2f}  max {dec[-1] if dec else 0:6.2f}"
    )
    if thoughts:
        th = sorted(s * 1000 for s in thoughts)
        print(
            f"expert moves (waited for the thinking process), ms:  p50 {percentile(th, 50):6.2f}  "
            f"p99 {percentile(th, 99):6.2f}  max {th[-1]:6.2f}; {len(th)} moves, {fell_back[0]} past the "
            f"budget (the hard player's choice went)"
        )
    lag = sorted(s * 1000 for s in lags)
    print(
        f"event loop lag (a {PROBE_SECONDS * 1000:.0f} ms probe), ms:  p50 {percentile(lag, 50):6.2f}  "
        f"p99 {percentile(lag, 99):6.2f}  max {lag[-1] if lag else 0:6.2f}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bhargage", type=int, default=20)
    parser.add_argument("--cribbage", type=int, default=0)
    parser.add_argument("--deluxe", type=int, default=10)
    parser.add_argument("--bots", type=int, default=2, help="bots per Deluxe table (1–5)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--level", choices=("hard", "expert"), default="hard", help="the bots' level")
    args = parser.parse_args(argv)
    asyncio.run(run(args.bhargage, args.cribbage, args.deluxe, args.bots, args.seconds, args.level))


if __name__ == "__main__":
    main()
