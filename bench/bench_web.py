"""One table watched by many browsers: what the live pages' fan-out costs the bot, and how soon a move
reaches every viewer.

The bot runs in this process on the fake Discord with its web server on a free port; two players click a
seeded Bhargage game through the fake (the hard computer player picks each move, as in ``bench_flow``). The
viewers are WebSocket clients in a child process of their own, so their CPU is not the bot's: they connect to
the table's live page from many loopback addresses (a few sockets each, as so many browsers would) and time
every frame from the moment the bot built it (its ``t``) to its arrival.

The same game is played twice, with the same seed and the same moves: with no viewer, then with
``--viewers``. Printed: this process's CPU per move in both runs (it includes the fake Discord and the
clicking players, the same in both: the difference is the fan-out), the frames built per move (one per table
and language, whatever the number of viewers), the frames the viewers received, and the fan-out latency
(p50/p99/max over every frame every viewer got).

    python -m bench.bench_web [--viewers 1000] [--moves 120] [--think 0.05] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import random
import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp

from bench.bench_flow import Player, _bhargage_move, _places, _quiet, _table
from bench.bench_load import percentile, running_bot
from bot.settings import Settings
from tests.fakediscord import FAKE_TOKEN, FakeDiscord

SOCKETS_PER_ADDRESS = 4  # browsers behind one address; the server allows a few sockets per address


@dataclass
class Run:
    viewers: int
    moves: int = 0
    cpu: float = 0.0  # this process's CPU seconds over the moves
    wall: float = 0.0
    frames_built: int = 0
    seen: dict[str, Any] = dataclasses.field(default_factory=dict)  # what the viewers' process reports

    def line(self) -> str:
        per = 1000 * self.cpu / max(1, self.moves)
        out = f"viewers={self.viewers:<5} moves={self.moves} cpu/move={per:.2f} ms wall={self.wall:.1f} s"
        if self.viewers:
            s = self.seen
            out += (
                f" frames built/move={self.frames_built / max(1, self.moves):.2f}"
                f" connected={s.get('connected')} frames received={s.get('frames')}"
                f" latency p50={s.get('p50', 0):.1f} ms p99={s.get('p99', 0):.1f} ms"
                f" max={s.get('max', 0):.1f} ms frame={s.get('size', 0) / 1000:.1f} kB"
            )
        return out


def _settings(tmp: Path) -> Settings:
    return Settings(
        token=FAKE_TOKEN,
        db_path=tmp / "web.sqlite3",
        log_level="WARNING",
        nudge_minutes=0,
        claim_minutes=0,
        bot_delay=0.0,
        suit_emojis=False,
        web_port=0,
    )


async def _viewers(url: str, n: int) -> asyncio.subprocess.Process:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.bench_web",
        "--viewers-child",
        url,
        str(n),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=str(Path(__file__).resolve().parent.parent),
    )
    assert child.stdout is not None
    line = await asyncio.wait_for(child.stdout.readline(), 120)
    if not line.startswith(b"ready"):
        raise RuntimeError(f"the viewers did not connect: {line!r}")
    return child


async def _seen(child: asyncio.subprocess.Process) -> dict[str, Any]:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(b"stop\n")
    await child.stdin.drain()
    child.stdin.close()
    out = await asyncio.wait_for(child.stdout.read(), 120)
    await child.wait()
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


async def one_run(seed: int, viewers: int, moves: int, think: float) -> Run:
    run = Run(viewers)
    with tempfile.TemporaryDirectory(prefix="tavern-web-") as tmp:
        fake = FakeDiscord()
        fake.referee = False  # its CPU would count as Discord's time; the tests check every body
        a, b = fake.add_user("Ann"), fake.add_user("Bob")
        channel = fake.add_channel("bhargage")
        async with running_bot(fake, _settings(Path(tmp))) as bot:
            bot.lobbies.seed_source = lambda: seed
            made = await fake.slash(a, channel, "bhargage challenge", opponent=b, target=121)
            await fake.click(b, made.message, "Accept")
            await _quiet(fake)
            table = await _table(bot, channel)
            assert bot.links is not None
            child = await _viewers(bot.links.live(table.id, bot.clock()), viewers) if viewers else None
            players = [Player(fake, u, _places(fake, channel)) for u in (a, b)]
            Player.think = think
            rng = random.Random(seed)
            fanout = bot.web_server.fanout if bot.web_server is not None else None
            built0 = fanout.frames_built if fanout is not None else 0
            cpu0, wall0 = time.process_time(), time.perf_counter()
            while table.status == "active" and run.moves < moves:
                await _bhargage_move(table, players, rng)
                await _quiet(fake)
                run.moves += 1
                table = await bot.tables.get(table.id)
                for p in players:
                    p.places = _places(fake, channel)
            run.cpu, run.wall = time.process_time() - cpu0, time.perf_counter() - wall0
            run.frames_built = (fanout.frames_built if fanout is not None else 0) - built0
            if child is not None:
                await asyncio.sleep(1.0)  # the last frames on their way
                run.seen = await _seen(child)
    return run


# ------------------------------------------------------------------------------------ the viewers' process


async def _watch(session: aiohttp.ClientSession, url: str, got: list[float], counts: list[int]) -> None:
    async with session.ws_connect(url, heartbeat=None, max_msg_size=1 << 20) as ws:
        counts[0] += 1
        first = True
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            data = json.loads(msg.data)
            if first:  # the table as it stands when the viewer arrives, not a move
                first = False
                continue
            if "t" in data:
                got.append(1000 * (time.time() - float(data["t"])))
                counts[1] += len(msg.data)


async def viewers_child(url: str, n: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)[1:] * 2)
    ws_url = url.replace("http://", "ws://", 1) + "/ws"
    got: list[float] = []
    counts = [0, 0]  # sockets connected, characters received
    addresses = (n + SOCKETS_PER_ADDRESS - 1) // SOCKETS_PER_ADDRESS
    sessions = [
        aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, local_addr=(f"127.0.{1 + i // 250}.{2 + i % 250}", 0))
        )
        for i in range(addresses)
    ]
    tasks = []
    for i in range(n):
        tasks.append(asyncio.create_task(_watch(sessions[i // SOCKETS_PER_ADDRESS], ws_url, got, counts)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    deadline = time.monotonic() + 60
    while counts[0] < n and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    print(f"ready {counts[0]}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(BaseException):
            await task
    for session in sessions:
        await session.close()
    got.sort()
    print(
        json.dumps(
            {
                "connected": counts[0],
                "frames": len(got),
                "p50": percentile(got, 50) if got else 0.0,
                "p99": percentile(got, 99) if got else 0.0,
                "max": got[-1] if got else 0.0,
                "size": counts[1] / max(1, len(got)),
            }
        ),
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=120, help="moves played in each run (at most a game)")
    parser.add_argument("--think", type=float, default=0.05, help="seconds before each click")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--viewers-child", nargs=2, metavar=("URL", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.viewers_child:
        asyncio.run(viewers_child(args.viewers_child[0], int(args.viewers_child[1])))
        return
    resource.setrlimit(resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)[1:] * 2)
    for n in (0, args.viewers):
        print(asyncio.run(one_run(args.seed, n, args.moves, args.think)).line(), flush=True)


if __name__ == "__main__":
    main()
