"""The Activity in headless Chromium (``tests/browser.py``), with the test playing the Discord client's part
of the Embedded App SDK's ``postMessage`` protocol.

The top page is the "Discord client" at ``https://discord.com/`` (served by the browser's router): it frames
the Activity at ``https://<app>.discordsays.com/?frame_id=…&instance_id=…`` as Discord does, and Discord's
proxy is played by the router too: the page, its files and ``POST /a/token`` are fetched from the bot's web
server, and its WebSocket is carried to ``/a/ws``. The client answers the SDK as Discord's does — the
handshake (its frame id checked) with READY, AUTHORIZE with a code the fake Discord's OAuth2 issued for the
player, AUTHENTICATE with the user — and refuses a command whose nonce it saw already. Meanwhile a sandboxed
frame (origin ``null``, which the SDK itself accepts messages from) answers AUTHORIZE first, with the
nonce and another player's code (the worst case: a forger that learnt the nonce), and
the client replays its AUTHORIZE answer with another player's code: the page takes none of them.
The player then plays their seat from the page's own buttons, and the table follows."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from bot.base.i18n import speaking
from bot.edge.app import TavernBot
from bot.edge.web.sight import sight
from bot.render import words
from bot.rules import bhargage as bh
from bot.settings import Settings
from tests.browser import Chromium, Tab, chromium_or_skip
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.fakediscord.oauth import CLIENT_SECRET
from tests.test_bhargage_discord import SEED, challenge, every_click_mine, step
from tests.test_web_browser import bhargage_public, clean_console, leaks

pytestmark = pytest.mark.timeout(180)
WAIT = 10.0
FRAME_ID = "frame-7d1c0b"

# The Discord client's side of the SDK's protocol (opcodes 0 HANDSHAKE, 1 FRAME), as the test plays it.
CLIENT = """
<!DOCTYPE html><html><head><meta charset="utf-8"><title>Discord</title></head><body>
<iframe id="activity" width="1000" height="760"></iframe>
<iframe id="forger" sandbox="allow-scripts"></iframe>
<script>
const SETUP = JSON.parse(document.getElementById("setup").textContent);
const ORIGIN = "https://" + SETUP.app + ".discordsays.com";
const frame = document.getElementById("activity");
const forger = document.getElementById("forger");
const log = window.clientLog = [];
const seen = new Set();
const asked = new Map();  // AUTHORIZE nonces waiting for the forger to have spoken first
let ready = false;
function reply(message) { frame.contentWindow.postMessage(message, ORIGIN); }
function authorized(nonce) {
  reply([1, {cmd: "AUTHORIZE", evt: null, nonce: nonce, data: {code: SETUP.code}}]);
  reply([1, {cmd: "AUTHORIZE", evt: null, nonce: nonce, data: {code: SETUP.other}}]);  // replayed
}
window.addEventListener("message", (event) => {
  if (event.source === forger.contentWindow) {
    log.push("forged");
    return authorized(event.data.forged);
  }
  if (event.source !== frame.contentWindow || event.origin !== ORIGIN) {
    log.push("refused: not the frame");
    return;
  }
  const [op, data] = event.data;
  if (op === 0) {
    if (data.frame_id !== SETUP.frame || data.client_id !== SETUP.app) {
      log.push("refused: frame id");
      return;
    }
    log.push("HANDSHAKE");
    ready = true;
    log.push("READY");
    reply([1, {cmd: "DISPATCH", evt: "READY", nonce: null, data: {
      v: 1, config: {api_endpoint: "//discord.com/api", environment: "production"}, user: SETUP.user}}]);
    return;
  }
  if (op !== 1) { return; }
  if (seen.has(data.nonce)) { log.push("refused: replayed nonce"); return; }
  seen.add(data.nonce);
  if (data.cmd === "CAPTURE_LOG") { return; }
  log.push(data.cmd + (ready ? "" : " before READY"));
  if (data.cmd === "AUTHORIZE") {
    const a = data.args;
    if (a.client_id !== SETUP.app || a.response_type !== "code" || a.scope.join() !== "identify"
        || !a.state) {
      reply([1, {cmd: "AUTHORIZE", evt: "ERROR", nonce: data.nonce, data: {code: 4000, message: "bad"}}]);
      return;
    }
    // The worst case: a forger that knows the nonce answers first, with a code of its own player's.
    forger.contentWindow.postMessage({nonce: data.nonce, code: SETUP.other}, "*");
  } else if (data.cmd === "AUTHENTICATE") {
    reply([1, {cmd: "AUTHENTICATE", evt: null, nonce: data.nonce, data: {
      access_token: data.args.access_token, user: SETUP.user, scopes: ["identify"],
      expires: "2030-01-01T00:00:00+00:00",
      application: {id: SETUP.app, name: "Decktet Tavern", description: ""}}}]);
  }
});
// The forger's origin is "null", which the SDK itself takes messages from.
forger.srcdoc = "<script>window.addEventListener('message', (e) => {"
  + "parent.frames[0].postMessage([1, {cmd: 'AUTHORIZE', evt: null, nonce: e.data.nonce,"
  + " data: {code: e.data.code}}], '*');"
  + "parent.postMessage({forged: e.data.nonce}, '*'); });<\\/script>";
frame.src = ORIGIN + "/?frame_id=" + SETUP.frame + "&instance_id=" + SETUP.instance
  + "&platform=desktop&guild_id=" + SETUP.guild + "&channel_id=" + SETUP.channel;
</script></body></html>
"""


@pytest.fixture(scope="module")
def chromium() -> Iterator[Chromium]:
    browser = chromium_or_skip()
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.services.tables.secrets.randbits", lambda bits: SEED)


@pytest.fixture
async def tabs(chromium: Chromium) -> AsyncIterator[list[Tab]]:
    opened: list[Tab] = []
    yield opened
    for tab in opened:
        await tab.close()


class Proxy:
    """Discord's proxy for one tab: ``https://<app>.discordsays.com`` → the bot's web server, the socket
    too; every frame through the socket is kept, both ways."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.frames: list[tuple[bool, str]] = []  # (sent by the page, text)
        self._tasks: set[asyncio.Task[None]] = set()

    async def http(self, route: Any) -> None:
        parts = urlsplit(route.request.url)
        local = f"http://127.0.0.1:{self.port}{parts.path}" + (f"?{parts.query}" if parts.query else "")
        response = await route.fetch(url=local)
        await route.fulfill(response=response)

    async def socket(self, ws: Any) -> None:
        parts = urlsplit(ws.url)
        client = aiohttp.ClientSession()
        server = await client.ws_connect(f"ws://127.0.0.1:{self.port}{parts.path}?{parts.query}")

        def from_page(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            self.frames.append((True, text))
            self._spawn(server.send_str(text))

        async def to_page() -> None:
            async for message in server:
                if message.type is aiohttp.WSMsgType.TEXT:
                    self.frames.append((False, message.data))
                    ws.send(message.data)
            await ws.close(code=server.close_code or 1000)
            await client.close()

        ws.on_message(from_page)
        self._spawn(to_page())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def got(self) -> list[dict[str, Any]]:
        return [json.loads(text) for sent, text in self.frames if not sent]


async def launch(tab: Tab, bot: TavernBot, setup: dict[str, Any]) -> Proxy:
    """Route the tab as Discord's client and proxy would, and open the client's page."""
    assert bot.web_server is not None and bot.web_server.port
    proxy = Proxy(bot.web_server.port)
    body = CLIENT.replace(
        "<body>", f'<body><script type="application/json" id="setup">{json.dumps(setup)}</script>', 1
    )

    async def client(route: Any) -> None:
        await route.fulfill(status=200, content_type="text/html", body=body)

    async def setup_routes() -> None:
        context = tab.context
        await context.route("https://discord.com/**", client)
        await context.route(f"https://{setup['app']}.discordsays.com/**", proxy.http)
        await context.route_web_socket(f"wss://{setup['app']}.discordsays.com/**", proxy.socket)

    await tab.run(setup_routes())
    assert await tab.goto("https://discord.com/activities") == 200
    return proxy


async def in_frame(tab: Tab, script: str, *, timeout: float = WAIT) -> Any:
    """Wait until ``script`` (a JS function) is truthy inside the Activity's frame; its value."""

    async def wait() -> Any:
        deadline = time.monotonic() + timeout
        while True:
            frame = next((f for f in tab.page.frames if ".discordsays.com" in f.url), None)
            if frame is not None:
                try:
                    handle = await frame.wait_for_function(script, timeout=timeout * 1000, polling="raf")
                    return await handle.json_value()
                except Exception:
                    if time.monotonic() > deadline:
                        raise
            if time.monotonic() > deadline:
                raise TimeoutError(script)
            await asyncio.sleep(0.02)

    return await tab.run(wait())


async def frame_click(tab: Tab, selector: str) -> None:
    async def click() -> None:
        frame = next(f for f in tab.page.frames if ".discordsays.com" in f.url)
        await frame.click(selector)

    await tab.run(click())


async def test_the_activity_signs_in_through_the_sdk_and_plays_from_the_page(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    chromium: Chromium,
    tabs: list[Tab],
    seeded: None,
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, web_port=0, client_secret=CLIENT_SECRET))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and fake.guild is not None
    instance = fake.oauth.launch(fake.channel, alice, bob)
    user = {"id": str(alice.id), "username": "alice", "discriminator": "0", "public_flags": 0}
    setup = {
        "app": str(bot.application_id),
        "frame": FRAME_ID,
        "instance": instance.id,
        "guild": str(fake.guild.id),
        "channel": str(fake.channel.id),
        "code": fake.oauth.authorize(alice),
        "other": fake.oauth.authorize(bob),  # the replayed answer's: never exchanged
        "user": user,
    }
    tab = await chromium.open(width=1280, height=800)
    tabs.append(tab)
    began = time.monotonic()
    proxy = await launch(tab, bot, setup)

    await in_frame(tab, "() => !document.getElementById('seat').hidden")
    print(
        f"\nthe Activity's first render (client page loaded → seat shown): {time.monotonic() - began:.3f} s"
    )
    log = await tab.evaluate("window.clientLog")
    assert log[:4] == ["HANDSHAKE", "READY", "AUTHORIZE", "forged"], log
    assert "AUTHENTICATE" in log and "refused: frame id" not in log, log
    assert [outcome for outcome, _ in fake.oauth.exchanges] == ["granted"]  # one code, alice's
    assert proxy.frames and proxy.frames[0][0], "the socket's first frame is the page's"
    assert bot.links is not None and bot.links.read_session(proxy.frames[0][1], bot.clock()) == (
        alice.id,
        instance.id,
    )
    status = await in_frame(tab, "() => document.getElementById('status').textContent")
    assert status == "Live", status
    table_text = await in_frame(tab, "() => document.getElementById('table').textContent")
    assert "alice" in table_text and "bob" in table_text

    # Alice lays two cards away from the page's own controls; the channel hears it as from Discord.
    seq = table.seq
    await frame_click(tab, "#seat fieldset.menu label.pick:nth-of-type(1) input")
    await frame_click(tab, "#seat fieldset.menu label.pick:nth-of-type(2) input")
    await frame_click(tab, "#seat fieldset.menu button.press")
    confirm = (
        "() => [...document.querySelectorAll('#seat button.press')].some(b => b.textContent === 'Confirm')"
    )
    await in_frame(tab, confirm)
    await frame_click(tab, '#seat button.press:has-text("Confirm")')
    deadline = time.monotonic() + WAIT
    while (await bot.tables.get(table.id)).seq == seq:
        assert time.monotonic() < deadline, "alice's discard from the page never reached the table"
        await asyncio.sleep(0.02)
    after = await bot.tables.get(table.id)
    assert after.waiting_for() == (after.seat_of(bob.id),)  # alice's part is done: the table waits for bob
    await fake.settle()
    # Nothing of bob's hand reached alice's frame, socket or requests (but the cards cut for the deal).
    _, events = bh.start(after.seed, 2, after.options)
    cut = {c for e in events if isinstance(e, bh.DealerCut) for pair in e.cuts for c in pair}
    hidden = set(after.state.hands[after.seat_of(bob.id)]) - cut
    dom = await in_frame(tab, "() => document.documentElement.outerHTML")
    traffic = await tab.settle()
    places = [("frame DOM", dom), *(("socket", text) for _, text in proxy.frames), *traffic.texts()]
    assert hidden and not leaks(hidden, places), leaks(hidden, places)
    await clean_console(tab)
    assert not await tab.csp_violations()


def setup_for(bot: TavernBot, fake: FakeDiscord, instance_id: str, user: Any, other: Any) -> dict[str, Any]:
    """What the test's Discord client needs to launch the Activity for ``user`` (``other``: the player whose
    code the forger and the replay offer)."""
    assert fake.guild is not None
    return {
        "app": str(bot.application_id),
        "frame": FRAME_ID,
        "instance": instance_id,
        "guild": str(fake.guild.id),
        "channel": str(fake.channel.id),
        "code": fake.oauth.authorize(user),
        "other": fake.oauth.authorize(other),
        "user": {"id": str(user.id), "username": user.name, "discriminator": "0", "public_flags": 0},
    }


# Where the page has put the seats and the seat's own panel: each ring's seats by number, and what sits
# right after the bottom ring inside the felt.
PLACES = """() => {
  const felt = document.getElementById('felt');
  const ring = (where) => Array.from(felt.querySelectorAll('ul.seats.' + where + ' > li.seat'),
    (li) => Number(li.dataset.seat));
  const seat = document.getElementById('seat');
  const bottom = felt.querySelector('ul.seats.bottom');
  return {top: ring('top'), bottom: ring('bottom'), panelInFelt: seat.parentElement === felt,
    underOwn: !!bottom && bottom.nextElementSibling === seat, hidden: seat.hidden,
    mine: Array.from(felt.querySelectorAll('li.seat.mine'), (li) => Number(li.dataset.seat)),
    cards: Array.from(seat.querySelectorAll('.own-hand img.card[data-card]'), (i) => i.alt)};
}"""


async def frame_eval(tab: Tab, script: str, arg: Any = None) -> Any:
    async def run() -> Any:
        frame = next(f for f in tab.page.frames if ".discordsays.com" in f.url)
        return await frame.evaluate(script, arg)

    return await tab.run(run())


async def shows(tab: Tab, table: Any) -> None:
    """The page agrees with the table the channel tells: the same score, the same seats marked as waited
    for, and, in a hand's play, the last card played in the newest call."""
    with speaking("en"):
        score = sight(table).score
        played = words.title(table.state.pile[-1][1]) if table.state.pile else ""
    waited = sorted(table.waiting_for()) if table.status == "active" else []
    script = """(want) => {
      const score = document.querySelector('#felt .score');
      const marked = Array.from(document.querySelectorAll('#felt li.seat.turn'),
        (li) => Number(li.dataset.seat)).sort();
      const newest = document.querySelector('#log .call.newest');
      return !!score && score.textContent === want.score
        && JSON.stringify(marked) === JSON.stringify(want.waited)
        && (!want.played || (!!newest && newest.textContent.includes(want.played)));
    }"""
    want = json.dumps({"score": score, "waited": waited, "played": played})
    await in_frame(tab, f"() => ({script})({want})")


async def test_a_whole_bhargage_game_played_by_clicks_in_the_activity(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    chromium: Chromium,
    tabs: list[Tab],
    seeded: None,
) -> None:
    """Alice plays every one of her decisions by clicking her own seat in the Activity (her cards tapped,
    the menu's button, Confirm) while bob presses Discord's buttons: her seat alone at the bottom with her
    panel right under it, in the felt; the page agrees with the table at every step; nothing of bob's hand
    ever in her frame's DOM, socket frames or requests. A spectator in the instance sees the table as the
    live page shows it, and no panel."""
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, web_port=0, client_secret=CLIENT_SECRET))
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    await every_click_mine(fake, [alice])  # no cut nor only card played for her: every decision is a click
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    mine, theirs = table.seat_of(alice.id), table.seat_of(bob.id)
    assert mine is not None and theirs is not None
    instance = fake.oauth.launch(fake.channel, alice, carol)
    tab = await chromium.open(width=360, height=740)
    tabs.append(tab)
    proxy = await launch(tab, bot, setup_for(bot, fake, instance.id, alice, bob))
    await in_frame(tab, "() => !document.getElementById('seat').hidden")
    await in_frame(tab, "() => !!document.querySelector('#felt li.seat.mine')")
    places = await frame_eval(tab, PLACES)
    assert places["bottom"] == [mine] and places["top"] == [theirs] and places["mine"] == [mine], places
    assert places["panelInFelt"] and places["underOwn"] and len(places["cards"]) >= 5, places

    # A spectator of the instance: the table as the live page seats it, no panel, no seat of their own.
    spectator = await chromium.open(width=1280, height=800)
    tabs.append(spectator)
    await launch(spectator, bot, setup_for(bot, fake, instance.id, carol, alice))
    await in_frame(spectator, "() => !!document.getElementById('felt')")
    watched = await frame_eval(spectator, PLACES)
    assert watched["top"] == [0] and watched["bottom"] == [1] and watched["hidden"], watched
    assert not watched["mine"] and not watched["cards"], watched

    clicks = {"page": 0, "discord": 0}
    checked = 0
    while table.status == "active" and not table.is_over():  # (over: its status follows a moment later)
        seq = table.seq
        state: bh.State = table.state
        if mine in table.waiting_for():
            if state.phase is bh.Phase.CUT:  # (the table's phase: the board's line may lag behind it)
                await in_frame(tab, "() => !!document.querySelector('#seat button.press:not([disabled])')")
                await frame_click(tab, '#seat button.press:has-text("Cut")')
            elif state.phase is bh.Phase.DISCARD:
                await in_frame(tab, "() => !!document.querySelector('#seat fieldset.menu')")
                two = await frame_eval(
                    tab,
                    "() => Array.from(document.querySelectorAll('#seat fieldset.menu input'), (i) => i.value)"
                    ".slice(0, 2)",
                )
                for index in two:  # tapping her cards ticks the menu's boxes
                    await frame_click(tab, f'#seat .own-hand img.card[data-card="{index}"]')
                ticked = (
                    "() => Array.from(document.querySelectorAll('#seat fieldset.menu input:checked'),"
                    " (i) => i.value)"
                )
                assert await frame_eval(tab, ticked) == two
                await frame_click(tab, "#seat fieldset.menu button.press")
                await in_frame(tab, "() => !!document.querySelector('#seat button.press.success')")
                await frame_click(tab, "#seat button.press.success")  # Confirm
            else:
                # Her panel as the table is now (not the one before bob's last move): the cards she may play.
                legal = sorted(
                    str(a.card.index) for a in bh.view(state, mine).legal if isinstance(a, bh.Play)
                )
                play = "#seat button.press[data-press*=':play:']:not([disabled])"
                offered = (
                    f'() => Array.from(document.querySelectorAll("{play}"), (b) => b.dataset.arg).sort()'
                )
                said = json.dumps(json.dumps(legal, separators=(",", ":")))
                await in_frame(tab, f"() => JSON.stringify(({offered})()) === {said}")
                await frame_click(
                    tab, f'#seat .own-hand img.card[data-card="{legal[0]}"]'
                )  # tapping the card
            clicks["page"] += 1
            deadline = time.monotonic() + WAIT
            while (await bot.tables.get(table.id)).seq == seq:
                assert time.monotonic() < deadline, "alice's click never reached the table"
                await asyncio.sleep(0.02)
        else:
            assert await step(fake, fake.channel, [bob]) is not None
            clicks["discord"] += 1
        await fake.settle()
        table = await bot.tables.get(table.id)
        if table.status == "active" and not table.is_over():
            await shows(tab, table)
        state = table.state
        if state.hand_no == 1 and state.phase is bh.Phase.PLAY:  # what alice can't know of bob's hand
            hidden = set(state.hands[theirs]) - bhargage_public(table)
            dom = await in_frame(tab, "() => document.documentElement.outerHTML")
            traffic = await tab.settle()
            seen = [("frame DOM", dom), *(("socket", text) for _, text in proxy.frames), *traffic.texts()]
            assert not leaks(hidden, seen), leaks(hidden, seen)
            checked += bool(hidden)
        assert sum(clicks.values()) < 200, "the game did not end"
    deadline = time.monotonic() + WAIT
    while table.status != "finished":
        assert time.monotonic() < deadline, table.status
        await asyncio.sleep(0.02)
        table = await bot.tables.get(table.id)
    assert clicks["page"] >= 5 and clicks["discord"] >= 5, clicks
    assert checked, "bob's hand was never checked"
    await in_frame(tab, "() => document.getElementById('seat').hidden")  # no panel once the game is over
    await in_frame(tab, "() => !!document.querySelector('#felt .turn-bar.over')")
    print(f"\nBhargage by clicks in the Activity: {clicks['page']} of alice's, {clicks['discord']} of bob's")
    for t in (tab, spectator):
        await t.settle()
        await clean_console(t)
        assert not await t.csp_violations()
