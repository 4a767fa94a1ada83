"""The Activity's two figures: how soon its table is drawn after Discord's READY, and how soon a seated
player's move reaches every page watching.

The bot runs in this process on the fake Discord with its web server and the Activity on (a client secret);
ann and bob sit at a seeded Bhargage table.

1. **First render.** Headless Chromium (``tests/browser.py``) loads the Activity as Discord's client frames
   it, through the test's mock client and proxy (``tests/test_activity_browser.py``: the SDK's handshake,
   READY, AUTHORIZE, ``POST /a/token``, AUTHENTICATE, the socket), ``--loads`` times, each in a fresh browser
   context (no cache). Timed by the page's own performance marks (``activity.js``): READY →
   signed in (``/a/token`` answered) → authenticated → the socket open → the table drawn. Printed:
   p50 and max of each step, from READY, and of the whole, from the navigation's start.
2. **A move's round trip.** ``--watchers`` live pages (WebSocket clients of the table's live link, in a child
   process of their own so their CPU is not the bot's, as ``bench_web`` has them) and ann's own Activity
   socket (``/a/ws``, signed in as the page is) watch the table. Ann plays her cards by pressing on her
   socket, as ``activity.js`` sends a tap; bob plays on Discord's buttons. For each of ann's plays: from the
   press sent to the first frame of the new move at each page (every watcher, and ann's own). Printed:
   p50/p99/max over every (press, page).

    python -m bench.bench_activity [--loads 8] [--watchers 100] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp

from bench.bench_load import percentile, running_bot
from bot.edge.app import TavernBot
from bot.rules import bhargage as bh
from bot.settings import Settings
from tests.browser import Chromium, find_chromium
from tests.fakediscord import CLIENT_SECRET, FAKE_TOKEN, FakeDiscord, FakeUser
from tests.test_activity_browser import in_frame, launch, setup_for
from tests.test_activity_play import Page, buttons, page_move, signed_in
from tests.test_bhargage_discord import computers_idle, step

SOCKETS_PER_ADDRESS = 4  # browsers behind one address; the server allows a few sockets per address
STEPS = ("tavern:signed", "tavern:authenticated", "tavern:socket", "tavern:table")
MARKS = """() => {
  const at = (name) => {
    const e = performance.getEntriesByName(name);
    return e.length ? e[0].startTime : null;
  };
  const sdk = performance.getEntriesByType('resource').find((r) => r.name.includes('embedded-app-sdk'));
  return {ready: at('tavern:ready'), signed: at('tavern:signed'), authenticated: at('tavern:authenticated'),
    socket: at('tavern:socket'), table: at('tavern:table'), sdk: sdk ? sdk.duration : null,
    sdkBytes: sdk ? sdk.transferSize || sdk.encodedBodySize : null};
}"""


def _settings(tmp: Path) -> Settings:
    return Settings(
        token=FAKE_TOKEN,
        db_path=tmp / "activity.sqlite3",
        log_level="WARNING",
        nudge_minutes=0,
        claim_minutes=0,
        bot_delay=0.0,
        suit_emojis=False,
        web_port=0,
        client_secret=CLIENT_SECRET,
    )


def _line(name: str, values: list[float]) -> str:
    values = sorted(values)
    return f"{name:<28} p50={percentile(values, 50):7.1f} ms  max={values[-1]:7.1f} ms"


# ------------------------------------------------------------------------------------------ first render


async def first_renders(bot: TavernBot, fake: FakeDiscord, people: list[FakeUser], loads: int) -> list[str]:
    """The Activity loaded ``loads`` times by ann, each in a fresh context; a line per step."""
    executable = find_chromium()
    if executable is None:
        return ["first render: no chromium (apt-get install chromium)"]
    ann, bob = people
    channel = fake.channel
    chromium = Chromium(executable).start()
    rows: list[dict[str, Any]] = []
    try:
        for _ in range(loads):
            instance = fake.oauth.launch(channel, ann, bob)
            tab = await chromium.open(width=1280, height=800)
            try:
                await launch(tab, bot, setup_for(bot, fake, instance.id, ann, bob))
                await in_frame(tab, "() => performance.getEntriesByName('tavern:table').length > 0")
                rows.append(await in_frame(tab, MARKS))
            finally:  # the card pictures still on their way are dropped, not answered into a closed page
                await tab.run(tab.context.unroute_all(behavior="ignoreErrors"))
                await tab.close()
    finally:
        chromium.close()
    out = [f"first render over {len(rows)} loads (each a fresh context), from the page's READY:"]
    for step_ in STEPS:
        key = step_.split(":")[1]
        out.append(_line(f"  READY → {key}", [r[key] - r["ready"] for r in rows]))
    out.append(_line("  navigation → READY", [r["ready"] for r in rows]))
    out.append(_line("  navigation → table", [r["table"] for r in rows]))
    sdk = [r["sdk"] for r in rows if r["sdk"] is not None]
    if sdk:
        out.append(_line("  the SDK's download", sdk))
    return out


# ------------------------------------------------------------------------------------------ round trip


async def _watchers(url: str, n: int) -> asyncio.subprocess.Process:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.bench_activity",
        "--watchers-child",
        url,
        str(n),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=str(Path(__file__).resolve().parent.parent),
    )
    assert child.stdout is not None
    line = await asyncio.wait_for(child.stdout.readline(), 120)
    if not line.startswith(b"ready"):
        raise RuntimeError(f"the watchers did not connect: {line!r}")
    return child


async def _arrivals(child: asyncio.subprocess.Process) -> list[list[tuple[int, float]]]:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(b"stop\n")
    await child.stdin.drain()
    child.stdin.close()
    out = await asyncio.wait_for(child.stdout.read(), 120)
    await child.wait()
    return [[(int(s), float(t)) for s, t in pages] for pages in json.loads(out.decode().splitlines()[-1])]


class Timed(Page):
    """Ann's Activity socket, each table frame's arrival kept (wall clock, as the watchers keep theirs)."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.arrived: list[tuple[int, float]] = []
        super().__init__(socket)

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type is aiohttp.WSMsgType.TEXT:
                frame = json.loads(message.data)
                if "html" in frame:
                    self.arrived.append((int(frame["seq"]), time.time()))
                self.texts.append(message.data)
                self.frames.append(frame)
        self.closed = self.socket.close_code


async def round_trips(bot: TavernBot, fake: FakeDiscord, people: list[FakeUser], watchers: int) -> list[str]:
    ann, bob = people
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and bot.links is not None
    child = await _watchers(bot.links.live(table.id, bot.clock()), watchers)
    instance = fake.oauth.launch(fake.channel, ann, bob)
    presses: list[tuple[int, float]] = []  # (the table's seq before, when the press was sent)
    own = aiohttp.TCPConnector(local_addr=("127.0.9.1", 0))  # ann's address, none of the watchers'
    async with aiohttp.ClientSession(connector=own) as client:
        socket = await client.ws_connect(f"ws://127.0.0.1:{bot.web_server.port}/a/ws?lang=en")  # type: ignore[union-attr]
        await socket.send_str(await signed_in(fake, bot, ann, instance))
        page = Timed(socket)
        mine = table.seat_of(ann.id)
        while table.status == "active" and not table.is_over():
            await computers_idle(fake)
            table = await bot.tables.get(table.id)
            if table.status != "active" or table.is_over():
                break
            if mine not in table.waiting_for():
                await step(fake, fake.threads(fake.channel)[-1], [bob])  # the game plays in a thread
                continue
            state: bh.State = table.state
            now = table.seq
            await page.until(lambda: page.seq == now and page.panel is not None, "ann's page lags")  # noqa: B023
            plays = [c for c, on, _ in buttons(page.panel or "") if on and ":play:" in c]
            if state.phase is bh.Phase.PLAY and plays:
                await asyncio.sleep(0.3)  # the table still: every page has the last move
                before = page.panels()
                presses.append((table.seq, time.time()))
                await page.press(plays[0])
                await page.until(lambda: page.panels() > before, "the play was not answered")  # noqa: B023
            else:
                await page_move(fake, page, "to cut" if state.phase is bh.Phase.CUT else "")
            await fake.settle()
            table = await bot.tables.get(table.id)
        await asyncio.sleep(1.0)  # the last frames on their way
        await socket.close()
    pages = [*await _arrivals(child), page.arrived]
    trips: list[float] = []
    for seq, sent in presses:
        for arrived in pages:
            first = next((t for s, t in arrived if s > seq and t >= sent), None)
            if first is not None:
                trips.append(1000 * (first - sent))
    expected = len(presses) * len(pages)
    return [
        f"a move's round trip: {len(presses)} presses of ann's from her Activity socket, "
        f"{len(pages) - 1} watchers + her page, {len(trips)} of {expected} arrivals",
        f"  press → every page        p50={percentile(sorted(trips), 50):.1f} ms "
        f"p99={percentile(sorted(trips), 99):.1f} ms max={max(trips):.1f} ms",
    ]


# ------------------------------------------------------------------------------------ the watchers' process


async def _watch(
    session: aiohttp.ClientSession, url: str, arrived: list[tuple[int, float]], up: list[int]
) -> None:
    async with session.ws_connect(url, heartbeat=None, max_msg_size=1 << 20) as ws:
        up[0] += 1
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            now = time.time()
            data = json.loads(msg.data)
            if "seq" in data:
                arrived.append((int(data["seq"]), now))


async def watchers_child(url: str, n: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)[1:] * 2)
    ws_url = url.replace("http://", "ws://", 1) + "/ws"
    pages: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    up = [0]
    addresses = (n + SOCKETS_PER_ADDRESS - 1) // SOCKETS_PER_ADDRESS
    sessions = [
        aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, local_addr=(f"127.0.{1 + i // 250}.{2 + i % 250}", 0))
        )
        for i in range(addresses)
    ]
    tasks = [
        asyncio.create_task(_watch(sessions[i // SOCKETS_PER_ADDRESS], ws_url, pages[i], up))
        for i in range(n)
    ]
    deadline = time.monotonic() + 60
    while up[0] < n and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    print(f"ready {up[0]}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(BaseException):
            await task
    for session in sessions:
        await session.close()
    print(json.dumps(pages), flush=True)


async def run(loads: int, watchers: int, seed: int) -> None:
    with tempfile.TemporaryDirectory(prefix="tavern-activity-") as tmp:
        fake = FakeDiscord()
        fake.referee = False  # its CPU would count as Discord's time; the tests check every body
        ann, bob = fake.add_user("ann"), fake.add_user("bob")
        async with running_bot(fake, _settings(Path(tmp))) as bot:
            bot.lobbies.seed_source = lambda: seed
            made = await fake.slash(ann, fake.channel, "bhargage challenge", opponent=bob, target=121)
            await fake.click(bob, made.message, "Accept")
            await fake.settle()
            for line in await first_renders(bot, fake, [ann, bob], loads):  # (before the game is over)
                print(line, flush=True)
            for line in await round_trips(bot, fake, [ann, bob], watchers):
                print(line, flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=8)
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--watchers-child", nargs=2, metavar=("URL", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.watchers_child:
        asyncio.run(watchers_child(args.watchers_child[0], int(args.watchers_child[1])))
        return
    resource.setrlimit(resource.RLIMIT_NOFILE, resource.getrlimit(resource.RLIMIT_NOFILE)[1:] * 2)
    asyncio.run(run(args.loads, args.watchers, args.seed))


if __name__ == "__main__":
    main()
