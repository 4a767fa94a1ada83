"""One address floods the web pages: how the bot refuses it, and what everyone else notices.

The bot runs in this process on the fake Discord with its web server on a free port, a Bhargage table
against the computer open. Two child processes, so that neither client's CPU is the bot's or the other's:
a *prober* from 127.0.0.2 asks for the table's live page every 100 ms, first alone, then while a *flooder*
from 127.0.0.1 sends ``--requests`` requests over ``--connections`` connections as fast as it can. Printed:
what the flood got (200s, 429s, how long it took, requests a second), the prober's latency before and during
the flood (p50, p99, max), and the bot's CPU per refused request.

    python -m bench.bench_web_flood [--requests 10000] [--connections 50]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp

from bench.bench_load import percentile, running_bot
from bot.settings import Settings
from tests.fakediscord import FAKE_TOKEN, FakeDiscord

PROBE_EVERY = 0.1  # ten a second: within the per-address limit of 20


async def _child(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.bench_web_flood",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=str(Path(__file__).resolve().parent.parent),
    )


async def _result(child: asyncio.subprocess.Process, stop: bool = False) -> dict[str, Any]:
    assert child.stdin is not None and child.stdout is not None
    if stop:
        child.stdin.write(b"stop\n")
        await child.stdin.drain()
    child.stdin.close()
    out = await asyncio.wait_for(child.stdout.read(), 300)
    await child.wait()
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


def _latency(ms: list[float]) -> str:
    return (
        f"p50 {percentile(ms, 50):.1f} ms, p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms ({len(ms)})"
    )


async def run(requests: int, connections: int) -> None:
    with tempfile.TemporaryDirectory(prefix="tavern-flood-") as tmp:
        fake = FakeDiscord()
        fake.referee = False  # its CPU would count as Discord's time; the tests check every body
        alice = fake.add_user("alice")
        channel = fake.add_channel("bhargage")
        settings = Settings(
            token=FAKE_TOKEN, db_path=Path(tmp) / "t.sqlite3", log_level="WARNING", bot_delay=0.0, web_port=0
        )
        async with running_bot(fake, settings) as bot:
            await fake.slash(alice, channel, "bhargage practice")
            await fake.settle()
            table = await bot.tables.table_for_channel(channel.id)
            assert table is not None and bot.links is not None and bot.web_server is not None
            page = bot.links.live(table.id, bot.clock())
            quiet = await _result(await _child("--probe", page, "2"))
            prober = await _child("--probe", page, "0")
            await asyncio.sleep(0.5)
            cpu = time.process_time()
            flood = await _result(await _child("--flood", page, str(requests), str(connections)))
            cpu = time.process_time() - cpu
            during = await _result(prober, stop=True)
            refused = bot.web_server.guard.refused
    statuses = flood["statuses"]
    print(
        f"flood from 127.0.0.1: {requests} requests over {connections} connections in "
        f"{flood['seconds']:.2f} s ({requests / flood['seconds']:.0f}/s): {statuses}; refused: {refused}"
    )
    print(f"bot CPU during the flood: {cpu:.2f} s, {1e6 * cpu / requests:.0f} µs a request")
    print(f"127.0.0.2 alone:           {_latency(quiet['ms'])}")
    print(f"127.0.0.2 during the flood: {_latency(during['ms'])}")


# --------------------------------------------------------------------------------------- the children


async def probe(page: str, seconds: float) -> None:
    """Ask for the page from 127.0.0.2 every ``PROBE_EVERY`` s, for ``seconds`` (0: until told to stop)."""
    ms: list[float] = []
    stop = asyncio.Event()
    if not seconds:
        loop = asyncio.get_running_loop()
        loop.run_in_executor(None, lambda: (sys.stdin.readline(), loop.call_soon_threadsafe(stop.set)))
    end = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
    async with aiohttp.ClientSession(connector=connector) as session:
        while not stop.is_set() and (not seconds or time.monotonic() < end):
            began = time.perf_counter()
            async with session.get(page) as response:
                await response.read()
                assert response.status == 200, response.status
            ms.append(1000 * (time.perf_counter() - began))
            await asyncio.sleep(PROBE_EVERY)
    print(json.dumps({"ms": ms}), flush=True)


async def flood(page: str, requests: int, connections: int) -> None:
    statuses: collections.Counter[int] = collections.Counter()
    left = [requests]

    async def worker(session: aiohttp.ClientSession) -> None:
        while left[0] > 0:
            left[0] -= 1
            async with session.get(page) as response:
                await response.read()
                statuses[response.status] += 1

    began = time.perf_counter()
    connector = aiohttp.TCPConnector(limit=connections, local_addr=("127.0.0.1", 0))
    async with aiohttp.ClientSession(connector=connector) as session:
        await asyncio.gather(*(worker(session) for _ in range(connections)))
    took = time.perf_counter() - began
    print(json.dumps({"statuses": dict(statuses), "seconds": took}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--probe", nargs=2, metavar=("URL", "SECONDS"), help=argparse.SUPPRESS)
    parser.add_argument("--flood", nargs=3, metavar=("URL", "N", "C"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        asyncio.run(probe(args.probe[0], float(args.probe[1])))
    elif args.flood:
        asyncio.run(flood(args.flood[0], int(args.flood[1]), int(args.flood[2])))
    else:
        asyncio.run(run(args.requests, args.connections))


if __name__ == "__main__":
    main()
