"""``/tavern tables`` on a bot holding many live games: how long the event loop is held while it answers.

Run: ``.venv/bin/python bench/bench_tables.py [--games 10000] [--here 40] [--asks 10]``.

The database is built as ``bench_start`` builds it (``--games`` live Bhargage and Bharg Deluxe games, played
to
a random point, with their snapshots), the newest ``--here`` of them moved into channels of the fake's server
and the rest left in other servers; the real bot starts on it against the fake Discord, in this process, and
restores every table. Then ``--asks`` members each ask ``/tavern tables`` in turn while a probe task on the
same
event loop wakes every millisecond and records how late it woke: the longest stall and the sum of the stalls
during each answer are the loop time the answer held (the fake's own handling of the interaction is in it too,
so ``/tavern ping``, asked the same way, is printed beside it as the floor). The target: under 20 ms of loop
time for ``/tavern tables`` at 10,000 live games.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_load import running_bot
from bench.bench_start import build
from bot.settings import Settings
from tests.fakediscord import FAKE_TOKEN, FakeDiscord

TICK = 0.001


class LagProbe:
    """Wakes every ``TICK`` seconds and keeps how late each wake was (a stall of the loop)."""

    def __init__(self) -> None:
        self.stalls: list[tuple[float, float]] = []  # (when it woke, how late)
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            self.stalls.append((now, max(0.0, now - before - TICK)))

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def held(self, start: float, end: float) -> tuple[float, float]:
        """(the longest stall, the stalls' sum) in ms between ``start`` and ``end``."""
        inside = [late for at, late in self.stalls if start <= at <= end + 0.05]
        return (max(inside, default=0.0) * 1000, sum(inside) * 1000)


async def run(games: int, here: int, asks: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tavern.sqlite3"
        started = time.perf_counter()
        await build(path, games, seed=1)
        print(f"built {games} live games in {time.perf_counter() - started:.1f} s")
        fake = FakeDiscord()
        fake.referee = False  # its CPU would count as the bot's loop time
        channels = [fake.add_channel(f"table-{i}") for i in range(here)]
        with sqlite3.connect(path) as db:
            newest = [r[0] for r in db.execute("SELECT id FROM games ORDER BY id DESC LIMIT ?", (here,))]
            for game_id, channel in zip(newest, channels, strict=True):
                db.execute(
                    "UPDATE games SET guild_id = ?, channel_id = ? WHERE id = ?",
                    (fake.guild.id, channel.id, game_id),
                )
        askers = [fake.add_user(f"asker-{i}") for i in range(asks)]
        settings = Settings(
            token=FAKE_TOKEN, db_path=path, health_path=Path(tmp) / "heartbeat", suit_emojis=False
        )
        async with running_bot(fake, settings, ready_timeout=300) as bot:
            await asyncio.wait_for(bot.tables.restored(), 600)
            print(f"restored {len(bot.tables.active_tables())} live tables")
            probe = LagProbe()
            probe.start()
            figures: dict[str, list[tuple[float, float, float]]] = {"tavern ping": [], "tavern tables": []}
            for command in figures:
                for asker in askers:
                    await fake.settle()
                    await asyncio.sleep(0.02)
                    answer = await fake.slash(asker, fake.channel, command)
                    it = answer.interaction
                    assert it.sent_at is not None and it.callback_at is not None
                    longest, total = probe.held(it.sent_at, it.callback_at)
                    figures[command].append(((it.callback_at - it.sent_at) * 1000, longest, total))
                    if command == "tavern tables":
                        assert "more" in answer.text() or answer.text().count("\n") >= min(here, 15) - 1
            probe.stop()
    print(f"\n{games} live games, {here} of them in the asker's server; {asks} asks of each command")
    print(f"{'command':16} {'answer p50':>11} {'answer max':>11} {'loop held p50':>14} {'loop held max':>14}")
    for command, rows in figures.items():
        answers = [r[0] for r in rows]
        held = [r[2] for r in rows]
        print(
            f"/{command:15} {statistics.median(answers):9.1f} ms {max(answers):8.1f} ms "
            f"{statistics.median(held):11.1f} ms {max(held):11.1f} ms"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--here", type=int, default=40, help="live games in the asker's server")
    parser.add_argument("--asks", type=int, default=10)
    args = parser.parse_args(argv)
    asyncio.run(run(args.games, args.here, args.asks))


if __name__ == "__main__":
    main()
