"""One address floods the web pages: how the bot refuses it, and what everyone else notices.

The bot runs in this process on the fake Discord with its web server on a free port, a Bhargage table
against the computer open. Two child processes, so that neither client's CPU is the bot's or the other's:
a *prober* from 127.0.0.2 asks for the table's live page every 100 ms, first alone, then while a *flooder*
from 127.0.0.1 sends ``--requests`` requests over ``--connections`` connections as fast as it can. Printed:
what the flood got (200s, 429s, how long it took, requests a second), the prober's latency before and during
the flood (p50, p99, max), and the bot's CPU per refused request.

    python -m bench.bench_web_flood [--requests 10000] [--connections 50]

``--browser``: one browser, within the per-address limit, keeps asking for a costly page: 20 requests a
second (``--rate``) for ``--seconds`` each, from 127.0.0.3 and up (an address per case, each with its
allowance whole). The cases: a finished six-player Bharg Deluxe game's live link (the costliest page), its
replay's first step, every step of its replay in turn (each a page never asked for before), its record, the
records of 40 finished games in turn (more than a cache of 32 holds), and a live game's page. Printed per
case: what the browser got (statuses, latency p50/p99), the event loop's busy fraction while it asked (the
loop thread's CPU over the wall time: work in other threads is not the loop's, and a core taken by another
process on a shared machine is not counted as the loop's either), the whole process's CPU beside it (worker
threads included), and how late a 10 ms timer on the loop came (p99, max: what a click would wait). The
same figures with no browser at all come first, as the floor.

    python -m bench.bench_web_flood --browser [--rate 20] [--seconds 5]
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
from bot.edge.app import TavernBot
from bot.games import GAMES
from bot.services.tables.moves import finish_from
from bot.settings import Settings
from bot.store.records import NewAction, NewGame
from tests.fakediscord import FAKE_TOKEN, FakeDiscord
from tests.stored_games import store_finished

PROBE_EVERY = 0.1  # ten a second: within the per-address limit of 20
TICK = 0.01  # the loop meter's timer
COPIES = 40  # finished games whose records the browser asks for in turn


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


async def _copies(bot: TavernBot, game_id: int, count: int) -> list[int]:
    """``count`` more finished games with the same log as ``game_id`` (each its own record to write)."""
    record = await bot.store.load_game(game_id)
    assert record is not None and record.result is not None
    made = []
    for _ in range(count):
        seats = [(s.user_id, s.name) for s in record.seats]
        new = NewGame(
            record.game, record.guild_id, record.channel_id, record.seed, seats, record.options, 1000.0
        )
        copy = await bot.store.create_game(new)
        for action in record.actions[:-1]:
            await bot.store.append_action(NewAction(copy, action.seq, action.seat, action.text, action.at))
        last = record.actions[-1]
        rules = GAMES[record.game].rules
        state, _ = rules.start(record.seed, len(seats), rules.Options.from_dict(record.options))
        for action in record.actions:
            state, _ = rules.apply(state, rules.parse_action(action.text))
        end = finish_from(rules.final_result(state), 2000.0, rules, state)
        await bot.store.append_action(NewAction(copy, last.seq, last.seat, last.text, last.at, end))
        made.append(copy)
    return made


async def _metered(seconds: float) -> dict[str, float]:
    """The loop's busy fraction over ``seconds`` (its thread's CPU over the wall time), the process's CPU
    beside it, and how late a ``TICK`` timer came."""
    late: list[float] = []
    wall, loop_cpu, cpu = time.perf_counter(), time.thread_time(), time.process_time()
    end = wall + seconds
    while time.perf_counter() < end:
        began = time.perf_counter()
        await asyncio.sleep(TICK)
        late.append(1000 * (time.perf_counter() - began - TICK))
    took = time.perf_counter() - wall
    return {
        "busy": (time.thread_time() - loop_cpu) / took,
        "cpu": (time.process_time() - cpu) / took,
        "late99": percentile(late, 99),
        "late": max(late),
    }


async def _browse(base: str, paths: list[str], host: str, rate: float, seconds: float) -> dict[str, Any]:
    """One browser (a child process from ``host``) asking for ``paths`` in turn at ``rate`` a second, with
    the loop metered meanwhile."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as listed:
        json.dump([base + p for p in paths], listed)
    child = await _child("--pace", listed.name, host, str(rate), str(seconds))
    assert child.stdout is not None and child.stdin is not None
    assert (await child.stdout.readline()).strip() == b"ready"
    child.stdin.write(b"go\n")
    await child.stdin.drain()
    metered = await _metered(seconds)
    got = await _result(child)
    Path(listed.name).unlink()
    return {**got, **metered}


async def browse(rate: float, seconds: float) -> None:
    with tempfile.TemporaryDirectory(prefix="tavern-browser-") as tmp:
        fake = FakeDiscord()
        fake.referee = False
        people = [fake.add_user(f"player{n}") for n in range(7)]
        channel = fake.add_channel("bhargage")
        settings = Settings(
            token=FAKE_TOKEN, db_path=Path(tmp) / "t.sqlite3", log_level="WARNING", bot_delay=0.0, web_port=0
        )
        async with running_bot(fake, settings) as bot:
            links, server = bot.links, bot.web_server
            assert links is not None and server is not None
            await fake.slash(people.pop(), channel, "bhargage practice")
            await fake.settle()
            table = await bot.tables.table_for_channel(channel.id)
            assert table is not None
            deluxe = await store_finished(bot, "deluxe", people, 5, fake.guild.id)
            bhargage = await store_finished(bot, "bhargage", people[:2], 5, fake.guild.id)
            copies = await _copies(bot, bhargage, COPIES)
            record = await bot.store.load_game(deluxe)
            assert record is not None
            replay = "/r/" + links.token("r", deluxe, 0)
            steps = len(record.actions) + 1
            cases = [
                (
                    f"a finished 6-player Deluxe game's live link ({len(record.actions)} actions)",
                    ["/t/" + links.token("t", deluxe, bot.clock())],
                ),
                ("its replay, first step", [replay]),
                (
                    f"its replay, every step in turn (up to {steps})",
                    [f"{replay}?step={n}" for n in range(steps)],
                ),
                ("its record", [replay + "/record"]),
                (
                    f"the records of {COPIES} finished games in turn",
                    ["/r/" + links.token("r", g, 0) + "/record" for g in copies],
                ),
                (
                    "a live game's page (Bhargage against the computer)",
                    ["/t/" + links.token("t", table.id, bot.clock())],
                ),
            ]
            base = f"http://127.0.0.1:{server.port}"
            await asyncio.sleep(1.0)
            idle = await _metered(seconds)
            print(f"one browser at {rate:g} requests a second, {seconds:g} s a case")
            print(
                f"  no browser: loop busy {100 * idle['busy']:4.1f}%, process CPU {100 * idle['cpu']:5.1f}%, "
                f"timer late p99 {idle['late99']:.1f} ms, max {idle['late']:.1f} ms"
            )
            for n, (name, paths) in enumerate(cases):
                got = await _browse(base, paths, f"127.0.0.{3 + n}", rate, seconds)
                ms = got["ms"]
                print(
                    f"  {name}: {dict(sorted(got['statuses'].items()))}, latency p50 "
                    f"{percentile(ms, 50):.1f} ms, p99 {percentile(ms, 99):.1f} ms\n"
                    f"      loop busy {100 * got['busy']:4.1f}%, process CPU {100 * got['cpu']:5.1f}%, "
                    f"timer late p99 {got['late99']:.1f} ms, max {got['late']:.1f} ms"
                )


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


async def pace(listed: str, host: str, rate: float, seconds: float) -> None:
    """Ask for each address of the file ``listed`` in turn, ``rate`` a second (one at a time, as a browser
    on one connection), for ``seconds`` once told to go."""
    urls = json.loads(Path(listed).read_text())
    statuses: collections.Counter[int] = collections.Counter()
    ms: list[float] = []
    connector = aiohttp.TCPConnector(limit=1, local_addr=(host, 0))
    async with aiohttp.ClientSession(connector=connector) as session:
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        began = time.perf_counter()
        n = 0
        while time.perf_counter() - began < seconds:
            wait = began + n / rate - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            asked = time.perf_counter()
            async with session.get(urls[n % len(urls)]) as response:
                await response.read()
                statuses[response.status] += 1
            ms.append(1000 * (time.perf_counter() - asked))
            n += 1
    print(json.dumps({"statuses": dict(statuses), "ms": ms}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--browser", action="store_true", help="one browser on the costly pages")
    parser.add_argument("--rate", type=float, default=20.0, help="the browser's requests a second")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long each case of --browser lasts")
    parser.add_argument("--pace", nargs=4, metavar=("FILE", "HOST", "RATE", "S"), help=argparse.SUPPRESS)
    parser.add_argument("--probe", nargs=2, metavar=("URL", "SECONDS"), help=argparse.SUPPRESS)
    parser.add_argument("--flood", nargs=3, metavar=("URL", "N", "C"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        asyncio.run(probe(args.probe[0], float(args.probe[1])))
    elif args.flood:
        asyncio.run(flood(args.flood[0], int(args.flood[1]), int(args.flood[2])))
    elif args.pace:
        asyncio.run(pace(args.pace[0], args.pace[1], float(args.pace[2]), float(args.pace[3])))
    elif args.browser:
        asyncio.run(browse(args.rate, args.seconds))
    else:
        asyncio.run(run(args.requests, args.connections))


if __name__ == "__main__":
    main()
