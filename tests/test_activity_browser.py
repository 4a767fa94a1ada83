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
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from bot.base.i18n import speaking
from bot.edge.app import TavernBot
from bot.edge.web.sight import sight
from bot.games import Table
from bot.render import words
from bot.rules import bhargage as bh
from bot.rules import cribbage as C
from bot.rules import deluxe as dx
from bot.settings import Settings
from tests.browser import Chromium, Tab
from tests.conftest import StartBot
from tests.fakediscord import CLIENT_SECRET, FakeDiscord, FakeUser
from tests.test_activity_play import pack_marks
from tests.test_bhargage_discord import (
    challenge,
    channel_text,
    computers_idle,
    every_click_mine,
    step,
    waiting_line,
)
from tests.test_cribbage_discord import EXTENSIONS as CRIBBAGE
from tests.test_cribbage_discord import MUGGINS_SEED, Players, true_count
from tests.test_deluxe_discord import EXTENSIONS as DELUXE
from tests.test_deluxe_discord import live_panel, play_turn
from tests.test_deluxe_discord import open_table as open_deluxe
from tests.test_web_browser import bhargage_public, clean_console, deluxe_public, leaks, ping_twice

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
        from playwright.async_api import Error as PlaywrightError  # only where playwright is installed

        parts = urlsplit(route.request.url)
        local = f"http://127.0.0.1:{self.port}{parts.path}" + (f"?{parts.query}" if parts.query else "")
        try:
            response = await route.fetch(url=local)
            await route.fulfill(response=response)
        except PlaywrightError as err:  # the tab closed while its request was on its way: nobody waits for it
            if "disposed" not in str(err) and "closed" not in str(err):
                raise

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


async def activity_challenge(
    fake: FakeDiscord, start_bot: StartBot, settings: Settings
) -> tuple[TavernBot, FakeUser, FakeUser, Any]:
    """A bot that serves the Activity, Alice's challenge to Bob accepted in the channel, and an Activity
    instance launched there with both in it: (bot, alice, bob, the instance)."""
    bot = await start_bot(dataclasses.replace(settings, web_port=0, client_secret=CLIENT_SECRET))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    return bot, alice, bob, fake.oauth.launch(fake.channel, alice, bob)


async def test_the_activity_signs_in_through_the_sdk_and_plays_from_the_page(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    chromium: Chromium,
    tabs: list[Tab],
    seeded: None,
) -> None:
    fake = fake_discord
    bot, alice, bob, instance = await activity_challenge(fake, start_bot, settings)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    tab = await chromium.open(width=1280, height=800)
    tabs.append(tab)
    began = time.monotonic()
    # bob's code is the replayed answer's: never exchanged
    proxy = await launch(tab, bot, setup_for(bot, fake, instance.id, alice, bob))

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


async def test_the_activity_pings_and_its_pongs_keep_the_socket(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    chromium: Chromium,
    tabs: list[Tab],
    seeded: None,
) -> None:
    """``activity.js`` sends ``{"ping": N}`` every 25 s as the live page does (the page's clock is run
    forward, not waited for); each is answered, and the one socket stays open."""
    fake = fake_discord
    bot, alice, bob, instance = await activity_challenge(fake, start_bot, settings)
    tab = await chromium.open(width=1280, height=800)
    tabs.append(tab)
    await tab.run(tab.page.clock.install())
    proxy = await launch(tab, bot, setup_for(bot, fake, instance.id, alice, bob))
    assert await in_frame(tab, "() => document.getElementById('status').textContent === 'Live'")

    def said(sent: bool, key: str) -> list[int]:
        return [
            int(json.loads(text)[key]) for by_page, text in proxy.frames if by_page is sent and key in text
        ]

    await ping_twice(tab, said)
    sessions = [text for by_page, text in proxy.frames if by_page and not text.startswith("{")]
    assert len(sessions) == 1  # each socket's first frame is its session: one socket, never reopened
    await clean_console(tab)


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


# ------------------------------------------------------------------------------- a whole game by clicks
#
# One driver for every game: a seated player ("ann") plays every one of her decisions by clicking her own
# seat in the Activity while the others press Discord's buttons through the fake; a spectator of the same
# instance watches. Each game says how it opens, how ann clicks one decision, how another seat presses one
# move on Discord, and which cards nobody but their holder may know yet.


@dataclass(frozen=True)
class Game:
    name: str
    extensions: list[str] | None
    people: int  # seated players: ann, then the ones pressing Discord's buttons
    open: Callable[[FakeDiscord, TavernBot, list[FakeUser]], Awaitable[None]]
    click: Callable[[Tab, Table, int], Awaitable[str]]  # one of ann's decisions by clicks; what it was
    press: Callable[[FakeDiscord, TavernBot, Table, dict[int, FakeUser]], Awaitable[None]]  # another's move
    secret: Callable[[FakeDiscord, TavernBot, Table, int], Awaitable[set[Any]]]  # a seat's unknown cards
    leaks: Callable[[set[Any], list[tuple[str, str]]], list[str]]
    kinds: frozenset[str]  # every kind of decision ann must have clicked in the game
    played: Callable[[Table], str] = lambda table: ""  # the card the newest call names, where checked


def enabled(selector: str) -> str:
    return f"() => !!document.querySelector({json.dumps(selector)})"


async def tap_legal(tab: Tab, legal: list[str]) -> None:
    """Tap the first playable card once the page's panel offers exactly the cards the table allows (its
    panel as the table is now, not the one before the other's last move)."""
    play = "#seat button.press[data-press*=':play:']:not([disabled])"
    offered = f'() => Array.from(document.querySelectorAll("{play}"), (b) => b.dataset.arg).sort()'
    said = json.dumps(json.dumps(sorted(legal), separators=(",", ":")))
    await in_frame(tab, f"() => JSON.stringify(({offered})()) === {said}")
    await frame_click(tab, f'#seat .own-hand img.card[data-card="{sorted(legal)[0]}"]')


async def lay_away(tab: Tab) -> None:
    """Tap the first cards the lay-away menu asks for (ticking its boxes), send the menu, Confirm."""
    await in_frame(tab, enabled("#seat fieldset.menu[data-menu]"))
    size = int(await frame_eval(tab, "() => document.querySelector('#seat fieldset.menu').dataset.min"))
    values = "Array.from(document.querySelectorAll('#seat fieldset.menu input'), (i) => i.value)"
    chosen = (await frame_eval(tab, f"() => {values}"))[:size]
    for index in chosen:
        await frame_click(tab, f'#seat .own-hand img.card[data-card="{index}"]')
    ticked = (
        "() => Array.from(document.querySelectorAll('#seat fieldset.menu input:checked'), (i) => i.value)"
    )
    assert await frame_eval(tab, ticked) == chosen
    await frame_click(tab, "#seat fieldset.menu button.press")
    await in_frame(tab, enabled("#seat button.press.success"))
    await frame_click(tab, "#seat button.press.success")  # Confirm


async def cut(tab: Tab) -> None:
    await in_frame(tab, enabled("#seat button.press:not([disabled])"))
    await frame_click(tab, '#seat button.press:has-text("Cut")')


async def bhargage_open(fake: FakeDiscord, bot: TavernBot, people: list[FakeUser]) -> None:
    ann, bo = people
    await challenge(fake, ann, bo)


async def bhargage_click(tab: Tab, table: Table, mine: int) -> str:
    state: bh.State = table.state
    if state.phase is bh.Phase.CUT:  # (the table's phase: the board's line may lag behind it)
        await cut(tab)
        return "cut"
    if state.phase is bh.Phase.DISCARD:
        await lay_away(tab)
        return "lay away"
    await tap_legal(tab, [str(a.card.index) for a in bh.view(state, mine).legal if isinstance(a, bh.Play)])
    return "play"


async def bhargage_press(
    fake: FakeDiscord, bot: TavernBot, table: Table, by_seat: dict[int, FakeUser]
) -> None:
    """``step`` reads whom to move for from the board; after ann's page press its edit comes from the page's
    own handler, which ``fake.settle()`` does not wait for (no Discord handler): wait until it says so."""
    names = [by_seat[s].name for s in table.waiting_for() if s in by_seat]
    deadline = time.monotonic() + WAIT
    while not any(n in waiting_line(fake, fake.channel) for n in names):
        assert time.monotonic() < deadline, (names, waiting_line(fake, fake.channel))
        await asyncio.sleep(0.02)
    assert await step(fake, fake.channel, list(by_seat.values())) is not None


async def bhargage_secret(fake: FakeDiscord, bot: TavernBot, table: Table, seat: int) -> set[Any]:
    state: bh.State = table.state
    if state.hand_no != 1 or state.phase is not bh.Phase.PLAY:
        return set()
    return set(state.hands[seat]) - bhargage_public(table)


def bhargage_played(table: Table) -> str:
    with speaking("en"):
        return words.title(table.state.pile[-1][1]) if table.state.pile else ""


async def cribbage_open(fake: FakeDiscord, bot: TavernBot, people: list[FakeUser]) -> None:
    bot.lobbies.seed_source = lambda: MUGGINS_SEED
    ann, bo = people
    posted = await fake.slash(ann, fake.channel, "cribbage challenge", opponent=bo, target=61, muggins=True)
    await fake.click(bo, posted.message, "Accept")


async def cribbage_click(tab: Tab, table: Table, mine: int) -> str:
    state: C.State = table.state
    if state.phase is C.Phase.DISCARD:
        await lay_away(tab)
        return "lay away"
    if state.phase is C.Phase.CUT:
        await cut(tab)
        return "cut"
    if state.phase is C.Phase.PLAY:
        await tap_legal(tab, [str(a.card.index) for a in C.view(state, mine).legal if isinstance(a, C.Play)])
        return "play"
    # muggins: her count claimed by its button
    claim = f'#seat button.choice[data-press*=":tally:"][data-value="{true_count(state)}"]'
    await in_frame(tab, enabled(claim))
    await frame_click(tab, claim)
    return "claim"


async def cribbage_press(
    fake: FakeDiscord, bot: TavernBot, table: Table, by_seat: dict[int, FakeUser]
) -> None:
    await Players(fake, bot, table, list(by_seat.values())).move()


async def cribbage_secret(fake: FakeDiscord, bot: TavernBot, table: Table, seat: int) -> set[Any]:
    state: C.State = table.state
    if state.hand_no != 1:
        return set()
    said = [("channel", channel_text(fake, fake.channel))]
    return {c for c in state.hands[seat] if not pack_leaks_in({c}, said)}


def pack_leaks_in(hidden: set[Any], places: list[tuple[str, str]]) -> list[str]:
    """Where a hidden playing card shows (``pack_marks``), and in which place."""
    out = []
    for card in hidden:
        en, marks = pack_marks(card)
        for where, text in places:
            out += [f"{en}: {where}: {m}" for m in marks if re.search(m, text, re.IGNORECASE)]
    return out


async def deluxe_open(fake: FakeDiscord, bot: TavernBot, people: list[FakeUser]) -> None:
    bot.lobbies.seed_source = lambda: 5
    await open_deluxe(fake, people, target=dx.MIN_TARGET)


async def deluxe_click(tab: Tab, table: Table, mine: int) -> str:
    """Draw from the deck, or (on an odd move number) take the Discard Queue's top card by its button;
    bind the first meld offered while one is; then discard by tapping a card (or Done)."""
    current = f'#seat [data-press^="tv:g:{table.id}:{table.seq}:"]'  # her panel as the table is now
    await in_frame(tab, enabled(current))
    draw = '#seat button.press[data-press$=":draw"]:not([disabled])'
    take = '#seat button.choice[data-press*=":take:"][data-value="1"]'
    meld = '#seat button.choice[data-press$=":meld"]'
    toss = '#seat button.choice[data-press*=":toss:"][data-arg]'
    done = '#seat button.press[data-press$=":done"]'
    has = await frame_eval(
        tab, "(s) => s.map((one) => !!document.querySelector(one))", [draw, take, meld, toss, done]
    )
    if has[0] or has[1]:
        taking = has[1] and table.seq % 2 == 1
        await frame_click(tab, take if taking else draw)
        return "take" if taking else "draw"
    if has[2]:
        await frame_click(tab, meld)
        return "bind"
    if has[3]:
        index = await frame_eval(tab, f"() => document.querySelector({json.dumps(toss)}).dataset.arg")
        await frame_click(tab, f'#seat .own-hand img.card[data-card="{index}"]')  # tapping the card
        return "discard"
    assert has[4], "nothing to press"
    await frame_click(tab, done)
    return "done"


async def deluxe_press(fake: FakeDiscord, bot: TavernBot, table: Table, by_seat: dict[int, FakeUser]) -> None:
    user = by_seat[table.waiting_for()[0]]
    try:
        await play_turn(fake, user, live_panel(fake, user))
    except AssertionError:  # (the helper expects a bind's answer; a bind that ends the game has none)
        if (await bot.tables.get(table.id)).status == "active":
            raise


async def deluxe_secret(fake: FakeDiscord, bot: TavernBot, table: Table, seat: int) -> set[Any]:
    state: dx.State = table.state
    if state.hand_no != 1:
        return set()
    said = [("channel", channel_text(fake, fake.channel))]
    public = await deluxe_public(bot, table)
    return {c for c in state.hands[seat] if c not in public and not leaks({c}, said)}


GAMES = {
    "bhargage": Game(
        "Bhargage",
        None,
        2,
        bhargage_open,
        bhargage_click,
        bhargage_press,
        bhargage_secret,
        leaks,
        frozenset({"cut", "lay away", "play"}),
        bhargage_played,
    ),
    "cribbage": Game(
        "Cribbage",
        CRIBBAGE,
        2,
        cribbage_open,
        cribbage_click,
        cribbage_press,
        cribbage_secret,
        pack_leaks_in,
        frozenset({"cut", "lay away", "play", "claim"}),
    ),
    "deluxe": Game(
        "Deluxe",
        DELUXE,
        3,
        deluxe_open,
        deluxe_click,
        deluxe_press,
        deluxe_secret,
        leaks,
        frozenset({"draw", "take", "bind", "discard"}),
    ),
}


async def shows(tab: Tab, table: Table, game: Game) -> None:
    """The page agrees with the table the channel tells: the same score, the same seats marked as waited
    for, the deck's size, and (Bhargage) the last card played in the newest call."""
    with speaking("en"):
        seen = sight(table)
    played = game.played(table)
    waited = sorted(table.waiting_for()) if table.status == "active" else []
    script = """(want) => {
      const score = document.querySelector('#felt .score');
      const marked = Array.from(document.querySelectorAll('#felt li.seat.turn'),
        (li) => Number(li.dataset.seat)).sort();
      const deck = document.querySelector('#felt .deck-count');
      const newest = document.querySelector('#log .call.newest');
      return !!score && score.textContent === want.score
        && JSON.stringify(marked) === JSON.stringify(want.waited)
        && (want.deck === null || (!!deck && deck.textContent.includes(String(want.deck))))
        && (!want.played || (!!newest && newest.textContent.includes(want.played)));
    }"""
    deck = seen.deck if seen.deck else None
    want = json.dumps({"score": seen.score, "waited": waited, "deck": deck, "played": played})
    await in_frame(tab, f"() => ({script})({want})")


async def everything(tab: Tab, proxy: Proxy) -> list[tuple[str, str]]:
    """What a tab holds: its Activity frame's DOM, every socket frame through the proxy, all its traffic."""
    dom = await in_frame(tab, "() => document.documentElement.outerHTML")
    traffic = await tab.settle()
    return [("frame DOM", dom), *(("socket", text) for _, text in proxy.frames), *traffic.texts()]


@pytest.mark.parametrize("name", list(GAMES))
async def test_a_whole_game_played_by_clicks_in_the_activity(
    name: str,
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    chromium: Chromium,
    tabs: list[Tab],
    seeded: None,
) -> None:
    """Ann plays every one of her decisions by clicking her own seat in the Activity (her cards tapped, the
    menus' buttons, Confirm, Cut, a muggins claim, a draw, a bind) while the others press Discord's buttons:
    her seat alone at the bottom with her panel right under it, in the felt; the page agrees with the table
    at every step; no unknown card of another seat ever in her frame's DOM, socket frames or requests. A
    spectator in the instance sees the table as the live page seats it, no panel, and no hand at all."""
    game = GAMES[name]
    fake = fake_discord
    bot = await start_bot(
        dataclasses.replace(settings, web_port=0, client_secret=CLIENT_SECRET), extensions=game.extensions
    )
    people = [fake.add_user(n) for n in ("ann", "bo", "cy", "di")[: game.people]]
    watcher = fake.add_user("wes")
    await every_click_mine(fake, people[:1])  # no cut nor only card played for her: every decision a click
    await game.open(fake, bot, people)
    await fake.settle()
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    mine = table.seat_of(people[0].id)
    seats = [table.seat_of(u.id) for u in people[1:]]
    assert mine is not None and None not in seats
    by_seat = {s: u for s, u in zip(seats, people[1:], strict=True) if s is not None}
    instance = fake.oauth.launch(fake.channel, people[0], watcher)
    tab = await chromium.open(width=360, height=740)
    tabs.append(tab)
    proxy = await launch(tab, bot, setup_for(bot, fake, instance.id, people[0], people[1]))
    await in_frame(tab, "() => !document.getElementById('seat').hidden")
    await in_frame(tab, "() => !!document.querySelector('#felt li.seat.mine')")
    places = await frame_eval(tab, PLACES)
    others = [(mine + k) % game.people for k in range(1, game.people)]
    assert places["bottom"] == [mine] and places["top"] == others and places["mine"] == [mine], places
    assert places["panelInFelt"] and places["underOwn"] and len(places["cards"]) >= 5, places

    # A spectator of the instance: the table as the live page seats it, no panel, no seat of their own.
    spectator = await chromium.open(width=1280, height=800)
    tabs.append(spectator)
    watched_proxy = await launch(spectator, bot, setup_for(bot, fake, instance.id, watcher, people[0]))
    await in_frame(spectator, "() => !!document.getElementById('felt')")
    watched = await frame_eval(spectator, PLACES)
    assert sorted(watched["top"] + watched["bottom"]) == list(range(game.people)) and watched["hidden"]
    assert not watched["mine"] and not watched["cards"], watched

    clicks = {"page": 0, "discord": 0}
    checked = 0
    held: set[Any] = set()
    kinds: set[str] = set()
    while table.status == "active" and not table.is_over():  # (over: its status follows a moment later)
        seq = table.seq
        waiting = table.waiting_for()
        if mine in waiting:
            kinds.add(await game.click(tab, table, mine))
            clicks["page"] += 1
            deadline = time.monotonic() + WAIT
            while (await bot.tables.get(table.id)).seq == seq:
                assert time.monotonic() < deadline, "ann's click never reached the table"
                await asyncio.sleep(0.02)
        elif any(s in by_seat for s in waiting):
            await game.press(fake, bot, table, by_seat)
            clicks["discord"] += 1
        else:  # the bot is making a forced move for someone
            await computers_idle(fake)
        await fake.settle()
        table = await bot.tables.get(table.id)
        if table.status == "active" and not table.is_over():
            await shows(tab, table, game)
        held |= set(table.state.hands[mine])  # every card ann ever held
        hidden = {s: await game.secret(fake, bot, table, s) for s in range(game.people)}
        if any(hidden.values()):  # what ann can't know of the others' hands, the spectator of anyone's
            theirs = set().union(*(hidden[s] for s in by_seat)) - held  # (Deluxe plays two decks)
            seen = await everything(tab, proxy)
            assert not game.leaks(theirs, seen), game.leaks(theirs, seen)
            anyone = set().union(*hidden.values())
            seen = await everything(spectator, watched_proxy)
            assert not game.leaks(anyone, seen), game.leaks(anyone, seen)
            checked += bool(theirs)
        assert sum(clicks.values()) < 300, "the game did not end"
    deadline = time.monotonic() + WAIT
    while table.status != "finished":
        assert time.monotonic() < deadline, table.status
        await asyncio.sleep(0.02)
        table = await bot.tables.get(table.id)
    assert clicks["page"] >= 5 and clicks["discord"] >= 5, clicks
    assert checked, "the others' hands were never checked"
    assert kinds >= game.kinds, kinds
    await in_frame(tab, "() => document.getElementById('seat').hidden")  # no panel once the game is over
    await in_frame(tab, "() => !!document.querySelector('#felt .turn-bar.over')")
    assert not any("panel" in json.loads(text) for _, text in watched_proxy.frames[1:])
    assert await frame_eval(spectator, "() => !document.querySelector('.own-hand, #seat *')")
    print(
        f"\n{game.name} by clicks in the Activity: {clicks['page']} of ann's, {clicks['discord']} on Discord"
    )
    for t in (tab, spectator):
        await t.settle()
        await clean_console(t)
        assert not await t.csp_violations()
