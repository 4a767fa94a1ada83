"""The Activity's page and socket (``/``, ``/a/ws``) against the fake Discord: a seated player plays a whole
game of Bhargage from the socket, the page's frames as ``activity.js`` gets them, while the other player
presses Discord's buttons; the channel, the table and the page agree at every step; no card of the other
seat's hand ever reaches the player's socket, and a spectator's never carries a hand; and what the page is
not allowed is refused: a forged or expired session, an ended instance, a press for another seat or another
table, a control that was not offered, a spectator's press."""

from __future__ import annotations

import asyncio
import dataclasses
import html
import json
import re
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.base.i18n import speaking
from bot.edge.app import TavernBot
from bot.edge.web import parts
from bot.edge.web.activity_ws import ENDED, NO_TABLE, NOT_SIGNED_IN
from bot.edge.web.guard import Guard
from bot.edge.web.sight import sight
from bot.games import Table
from bot.render import cribbage_words as cw
from bot.rules import bhargage as bh
from bot.rules import cribbage as C
from bot.rules import deluxe as dx
from bot.rules.decktet import Card
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import CLIENT_SECRET, FakeDiscord, FakeInstance, FakeUser
from tests.test_activity_sign_in import activity_bot, post
from tests.test_bhargage_discord import (
    board,
    challenge,
    channel_text,
    computers_idle,
    panel_for,
    step,
    waiting_line,
)
from tests.test_cribbage_discord import EXTENSIONS, TWO_HUMANS_LURCH, Players
from tests.test_deluxe_discord import EXTENSIONS as DELUXE
from tests.test_deluxe_discord import live_panel, play_turn
from tests.test_deluxe_discord import open_table as open_deluxe
from tests.test_web_browser import bhargage_public, leaks

pytestmark = pytest.mark.timeout(120)
WAIT = 15.0
PRESS = re.compile(
    r'<button type="button" class="press [a-z]+" data-press="([^"]+)"( disabled)?[^>]*>([^<]*)<'
)
MENU = re.compile(r'<fieldset class="menu" data-menu="([^"]+)"[^>]*>(.*?)</fieldset>')
BOX = re.compile(r'<input type="checkbox" value="([^"]+)"')


@pytest.fixture(autouse=True)
def quick_hands(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test presses faster than any player: the page's press budget is a test of its own."""
    monkeypatch.setattr("bot.edge.web.activity_ws.PRESSES", 1000.0)
    monkeypatch.setattr("bot.edge.web.activity_ws.PRESS_BURST", 1000.0)


class Page:
    """One Activity page's socket, as ``activity.js`` holds it: every frame it got, the table's newest, the
    seat's panel."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.frames: list[dict[str, Any]] = []
        self.texts: list[str] = []
        self.task = asyncio.create_task(self._read())
        self.closed: int | None = None

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type is aiohttp.WSMsgType.TEXT:
                self.texts.append(message.data)
                self.frames.append(json.loads(message.data))
        self.closed = self.socket.close_code

    @property
    def seq(self) -> int:
        return max((f["seq"] for f in self.frames if "html" in f), default=-1)

    @property
    def table(self) -> str:
        return next(f["html"] for f in reversed(self.frames) if "html" in f)

    @property
    def panel(self) -> str | None:
        return next((f["panel"] for f in reversed(self.frames) if "panel" in f), None)

    def panels(self) -> int:
        return sum("panel" in f for f in self.frames)

    async def until(self, what: Any, why: str) -> None:
        deadline = time.monotonic() + WAIT
        while not what():
            shown = [{k: "…" if k == "html" else v for k, v in f.items()} for f in self.frames[-4:]]
            assert time.monotonic() < deadline, f"{why}; the last frames: {shown}"
            assert self.closed is None or what(), f"closed ({self.closed}): {why}"
            await asyncio.sleep(0.01)

    async def press(self, cid: str, values: list[str] | None = None) -> None:
        await self.socket.send_json({"press": cid, "values": values or []})

    async def closing(self) -> int:
        await asyncio.wait_for(self.task, WAIT)
        assert self.closed is not None
        return self.closed


@pytest.fixture
async def client() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def signed_in(fake: FakeDiscord, bot: TavernBot, user: FakeUser, instance: FakeInstance) -> str:
    assert bot.web_server is not None
    url = f"http://127.0.0.1:{bot.web_server.port}/a/token"
    status, answer = await post(url, {"code": fake.oauth.authorize(user), "instance_id": instance.id})
    assert status == 200, answer
    return str(answer["session"])


async def opened(client: aiohttp.ClientSession, bot: TavernBot, session: str) -> Page:
    assert bot.web_server is not None
    socket = await client.ws_connect(f"ws://127.0.0.1:{bot.web_server.port}/a/ws?lang=en")
    await socket.send_str(session)
    return Page(socket)


def buttons(panel: str) -> list[tuple[str, bool, str]]:
    """(custom id, enabled, label) of each button of a panel's HTML."""
    return [(html.unescape(c), not off, html.unescape(label)) for c, off, label in PRESS.findall(panel)]


async def page_move(fake: FakeDiscord, page: Page, line: str) -> None:
    """What ``act_with_panel`` does from Discord, done from the page: cut, discard two, or play a card."""
    assert page.panel is not None, "the seated player has no panel on the page"
    panel = page.panel
    if "to cut" in line:
        cut = [c for c, on, label in buttons(panel) if on and label == "Cut"]
        if not cut:
            await fake.settle()  # cut for them (their preference)
            return
        before = page.panels()
        await page.press(cut[0])
        await page.until(lambda: page.panels() > before, "the cut was not answered")
        return
    menus = MENU.findall(panel)
    if menus:
        cid, body = menus[0]
        before = page.panels()
        await page.press(html.unescape(cid), BOX.findall(body)[:2])
        await page.until(lambda: page.panels() > before, "the pick was not answered")
        assert page.panel is not None
        confirm = [c for c, on, label in buttons(page.panel) if on and label == "Confirm"]
        assert confirm, page.panel
        before = page.panels()
        await page.press(confirm[0])
        await page.until(lambda: page.panels() > before, "the discard was not answered")
        return
    plays = [c for c, on, _ in buttons(panel) if on and ":play:" in c]
    assert plays, f"nothing to do on the page's panel: {panel}"
    before = page.panels()
    await page.press(plays[0])
    await page.until(lambda: page.panels() > before, "the play was not answered")


async def agree(fake: FakeDiscord, bot: TavernBot, table_id: int, *pages: Page) -> Table:
    """The table as the bot holds it, once every page shows it: the same action count and score (the bot
    may still be moving for a player, an only card: its moves are waited for first, then the pages)."""
    await computers_idle(fake)
    deadline = time.monotonic() + WAIT
    while True:
        table = await bot.tables.get(table_id)
        with speaking("en"):
            score = parts.line_html(sight(table).score)
        if all(p.seq == table.seq and score in p.table for p in pages):
            return table
        assert time.monotonic() < deadline, (table.seq, score, [(p.seq, p.table[:200]) for p in pages])
        await asyncio.sleep(0.01)


async def test_a_seated_player_plays_a_whole_game_from_the_activity(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    seeded: None,
    client: aiohttp.ClientSession,
) -> None:
    fake = fake_discord
    bot, _ = await activity_bot(start_bot, settings)
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    instance = fake.oauth.launch(fake.channel, alice, carol)
    page = await opened(client, bot, await signed_in(fake, bot, alice, instance))
    watcher = await opened(client, bot, await signed_in(fake, bot, carol, instance))  # not seated
    await agree(fake, bot, table.id, page, watcher)
    assert page.panel is not None and f"tv:g:{table.id}:" in page.panel
    with speaking("en"):
        own = table.adapter.seat_panel(table, table.seat_of(alice.id))
    assert all(cid in page.panel for cid in (f"tv:g:{table.id}:{c.token}:{c.verb}" for c in own.controls))
    alice_seat, bob_seat = table.seat_of(alice.id), table.seat_of(bob.id)
    assert alice_seat is not None and bob_seat is not None

    moves = {"page": 0, "discord": 0}
    checked = 0
    while table.status == "active":
        if alice_seat in table.waiting_for():
            await page_move(fake, page, waiting_line(fake, fake.channel))
            moves["page"] += 1
        else:
            assert await step(fake, fake.channel, [bob]) is not None
            moves["discord"] += 1
        table = await agree(fake, bot, table.id, page, watcher)
        state: bh.State = table.state
        if state.hand_no == 1 and state.phase is bh.Phase.PLAY:  # what alice can't know of bob's hand
            hidden: set[Card] = set(state.hands[bob_seat]) - bhargage_public(table)  # never shown yet
            held = {c for hand in state.hands for c in hand} - bhargage_public(table)
            assert not leaks(hidden, [("alice's socket", t) for t in page.texts])
            assert not leaks(held, [("carol's socket", t) for t in watcher.texts])
            checked += bool(hidden)
        assert moves["page"] + moves["discord"] < 200, "the game did not end"
    assert table.status == "finished" and moves["page"] >= 5 and moves["discord"] >= 5, moves
    assert checked, "bob's hand was never checked"
    await page.until(lambda: page.panel is None, "the page kept a panel after the game")
    assert all("panel" not in f and "aside" not in f for f in watcher.frames), "a spectator got a panel"
    # Discord's side saw the page's moves: alice's DM panel followed them, and the channel told them.
    record = await bot.store.load_game(table.id)
    assert record is not None and record.status == "finished"


async def test_the_page_is_framed_by_discord_only_and_loads_the_pinned_sdk(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, client: aiohttp.ClientSession
) -> None:
    bot, _ = await activity_bot(start_bot, settings)
    assert bot.web_server is not None
    base = f"http://127.0.0.1:{bot.web_server.port}"
    launch = "/?frame_id=f-1&instance_id=i-1-ab&platform=desktop&guild_id=1&channel_id=2"
    async with client.get(base + launch) as response:
        assert response.status == 200
        page, policy = await response.text(), response.headers["Content-Security-Policy"]
        assert "X-Frame-Options" not in response.headers
    assert (
        "frame-ancestors https://discord.com " in policy
        and "'none'" not in policy.split("frame-ancestors")[1]
    )
    assert f"wss://{bot.application_id}.discordsays.com" in policy and "script-src 'self';" in policy
    assert f'data-client="{bot.application_id}"' in page
    sdk = re.search(r'src="(/static/embedded-app-sdk-[0-9.]+\.js)"', page)
    script = re.search(r'src="(/static/activity\.js\?v=[0-9a-f]{12})"', page)
    assert sdk and script, page
    for path in (sdk[1], script[1], "/static/tavern.css"):
        async with client.get(base + path) as response:
            assert response.status == 200 and ("javascript" in response.content_type or path.endswith("css"))
            assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    for path in ("/", "/?frame_id=f-1&instance_id=i-1", "/?frame_id=f-1&instance_id=i/1&platform=desktop"):
        async with client.get(base + path) as response:
            assert response.status == 404, path
            assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
            assert response.headers["X-Frame-Options"] == "DENY"


async def test_a_socket_without_a_good_session_or_a_live_instance_sees_nothing(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    seeded: None,
    client: aiohttp.ClientSession,
) -> None:
    fake = fake_discord
    bot, _ = await activity_bot(start_bot, settings)
    assert bot.web_server is not None
    bot.web_server.guard = Guard(rate=1000, burst=10_000, opens=1000, open_burst=1000)  # (other tests)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    instance = fake.oauth.launch(fake.channel, alice, bob)
    good = await signed_in(fake, bot, alice, instance)
    bobs = await signed_in(fake, bot, bob, instance)
    _, rest = bobs.split(".", 1)
    forged = [
        f"{alice.id}.{rest}",  # bob's signature on alice's name
        good[:-2] + ("AA" if not good.endswith("AA") else "BB"),
        "not a session",
        "",
    ]
    for token in forged:
        page = await opened(client, bot, token)
        assert await page.closing() == NOT_SIGNED_IN, token
        assert not page.frames, token
    clock = bot.clock
    bot.clock = lambda: clock() + 3601  # type: ignore[method-assign]
    page = await opened(client, bot, good)
    assert await page.closing() == NOT_SIGNED_IN  # expired
    bot.clock = clock  # type: ignore[method-assign]
    fake.oauth.leave(instance, alice)
    fake.oauth.leave(instance, bob)  # the instance ends
    page = await opened(client, bot, good)
    assert await page.closing() == ENDED and not page.frames
    # A spectator in an instance of a channel with no game is told there is none.
    carol = fake.add_user("carol")
    quiet = fake.oauth.launch(fake.add_channel("quiet"), carol)
    page = await opened(client, bot, await signed_in(fake, bot, carol, quiet))
    assert await page.closing() == NO_TABLE
    assert [set(f) for f in page.frames] == [{"none"}]


async def test_a_press_for_another_seat_or_not_offered_is_refused(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    seeded: None,
    client: aiohttp.ClientSession,
) -> None:
    fake = fake_discord
    bot, _ = await activity_bot(start_bot, settings)
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    instance = fake.oauth.launch(fake.channel, alice, carol)
    page = await opened(client, bot, await signed_in(fake, bot, alice, instance))
    for _ in range(20):  # on to the play, bob to play a card: his panel's cards are his alone
        bob_panel = await panel_for(fake, fake.channel, bob, set())
        line = waiting_line(fake, fake.channel)
        if (
            line.startswith("Waiting for bob")
            and bob_panel
            and any(":play:" in (b.custom_id or "") for b in bob_panel.buttons())
        ):
            break
        await step(fake, fake.channel, [alice, bob])
    table = await agree(fake, bot, table.id, page)
    assert bob_panel is not None
    bob_ids = [b.custom_id for b in bob_panel.buttons() if b.custom_id] + [
        s.custom_id for s in bob_panel.selects()
    ]
    seq = table.seq
    own = [c for c, _, _ in buttons(page.panel or "")]
    bob_ids = [cid for cid in bob_ids if cid not in own]  # (a Hint is the same id on every seat's panel)
    assert bob_ids
    other_table = own[0].replace(f"tv:g:{table.id}:", f"tv:g:{table.id + 1}:") if own else ""
    tries: list[tuple[str, list[str]]] = [
        *((cid, []) for cid in bob_ids),  # bob's own panel's controls
        (f"tv:g:{table.id}:{table.seq}:resign", []),  # a control not on alice's page panel
        ("tv:g:1:x:play:31", []),
        (other_table, []),
        ("not an id", []),
    ]
    menus = MENU.findall(page.panel or "")
    if menus:
        tries.append((html.unescape(menus[0][0]), ["z99", "z98"]))  # values never offered
    for cid, values in tries:
        before = sum("refused" in f for f in page.frames)
        await page.press(cid, values)
        await page.until(lambda b=before: sum("refused" in f for f in page.frames) > b, f"{cid} not refused")  # type: ignore[misc]
    assert (await bot.tables.get(table.id)).seq == seq, "a refused press moved the table"
    assert page.closed is None  # refusals are answers, not the end
    # A spectator's press closes their socket: they have no seat to press for.
    watcher = await opened(client, bot, await signed_in(fake, bot, carol, instance))
    await agree(fake, bot, table.id, watcher)
    await watcher.press(bob_ids[0])
    assert await watcher.closing() == aiohttp.WSCloseCode.POLICY_VIOLATION
    assert (await bot.tables.get(table.id)).seq == seq


async def test_the_board_opens_the_table_in_discord_with_launch_activity(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    seeded: None,
    client: aiohttp.ClientSession,
) -> None:
    """Where Activities are on, the board's "Open the table" is answered with ``LAUNCH_ACTIVITY`` (12):
    Discord opens the Activity in the channel, and whoever is in it sees the table."""
    fake = fake_discord
    fake.enable_activities()
    bot, _ = await activity_bot(start_bot, settings)
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    shown = board(fake, fake.channel)
    assert "Open the table" in [b.label for b in shown.buttons()]
    before = set(fake.oauth.instances)
    opened_it = await fake.click(carol, shown, "Open the table")  # anyone may: carol is not seated
    assert opened_it.interaction.callback_type == 12
    (instance_id,) = set(fake.oauth.instances) - before
    instance = fake.oauth.instances[instance_id]
    assert instance.channel is fake.channel and instance.users == [carol]
    page = await opened(client, bot, await signed_in(fake, bot, carol, instance))
    await agree(fake, bot, table.id, page)
    assert page.panel is None and table.seq == (await bot.tables.get(table.id)).seq


async def panel_move(page: Page) -> bool:
    """Whatever the page's panel offers, as a player who always takes the first choice: lay away the first
    cards a menu asks for and confirm, cut, or play the first card that may be played. False: nothing to
    press (the bot is making the move for the player)."""
    panel = page.panel or ""
    menus = MENU.findall(panel)
    presses = [(c, label) for c, on, label in buttons(panel) if on]
    if menus:
        cid, body = menus[0]
        size = int(re.search(r'data-min="([0-9]+)"', panel)[1])  # type: ignore[index]
        before = page.panels()
        await page.press(html.unescape(cid), BOX.findall(body)[:size])
        await page.until(lambda: page.panels() > before, "the pick was not answered")
        presses = [(c, label) for c, on, label in buttons(page.panel or "") if on and label == "Confirm"]
        if not presses:
            return True  # (refused: the table moved on)
    else:
        presses = [(c, label) for c, label in presses if label == "Cut" or ":play:" in c]
        if not presses:
            return False
    before = page.panels()
    await page.press(presses[0][0])
    await page.until(lambda: page.panels() > before, f"{presses[0][1]} was not answered")
    return True


def pack_marks(card: Any) -> tuple[str, list[str]]:
    """A playing card's English name, and the patterns that show it: its face mark ("5♥"), its name in
    English or Italian, its picture's file."""
    with speaking("en"):
        en = cw.name(card)
    with speaking("it"):
        it = cw.name(card)
    marks = [rf"(?<![0-9A-Za-z]){re.escape(cw.short(card))}", re.escape(en), re.escape(it)]
    return en, [*marks, rf"\bf{re.escape(card.code)}\.png"]


def pack_leaks(hidden: set[Any], texts: list[str]) -> list[str]:
    """Where a hidden playing card shows in ``texts`` (JSON frames, read as the page reads them)."""
    out = []
    for card in hidden:
        en, marks = pack_marks(card)
        for text in texts:
            seen = json.dumps(json.loads(text), ensure_ascii=False)
            out += [f"{en}: {m}" for m in marks if re.search(m, seen, re.IGNORECASE)]
    return out


async def test_a_seated_player_plays_a_whole_game_of_cribbage_from_the_activity(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, client: aiohttp.ClientSession
) -> None:
    fake = fake_discord
    bot = await start_bot(
        dataclasses.replace(settings, web_port=0, client_secret=CLIENT_SECRET), extensions=EXTENSIONS
    )
    bot.lobbies.seed_source = lambda: TWO_HUMANS_LURCH
    ann, bo, cy = fake.add_user("ann"), fake.add_user("bo"), fake.add_user("cy")
    posted = await fake.slash(ann, fake.channel, "cribbage challenge", opponent=bo, target=61)
    await fake.click(bo, posted.message, "Accept")
    await fake.settle()
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    instance = fake.oauth.launch(fake.channel, ann, cy)
    page = await opened(client, bot, await signed_in(fake, bot, ann, instance))
    watcher = await opened(client, bot, await signed_in(fake, bot, cy, instance))
    table = await agree(fake, bot, table.id, page, watcher)
    players = Players(fake, bot, table, [bo])
    ann_seat, bo_seat = table.seat_of(ann.id), table.seat_of(bo.id)
    assert ann_seat is not None and bo_seat is not None
    assert pack_leaks(set(table.state.hands[ann_seat]), page.texts)  # the check looks where cards are
    moves = {"page": 0, "discord": 0}
    checked = 0
    while table.status == "active":
        if ann_seat in table.waiting_for() and await panel_move(page):
            moves["page"] += 1
        elif bo_seat in table.waiting_for():
            players.table = table
            await players.move()
            moves["discord"] += 1
        else:
            await fake.settle()
        table = await agree(fake, bot, table.id, page, watcher)
        state: C.State = table.state
        if state.hand_no == 1:  # bo's cards still in hand, none said in the channel: ann never saw them
            said = channel_text(fake, fake.channel)
            hidden = {c for c in state.hands[bo_seat] if not pack_leaks({c}, [json.dumps(said)])}
            assert not pack_leaks(hidden, page.texts)
            checked += bool(hidden)
        assert sum(moves.values()) < 400, "the game did not end"
    assert moves["page"] >= 5 and moves["discord"] >= 5 and checked, (moves, checked)
    await page.until(lambda: page.panel is None, "the page kept a panel after the game")
    assert all("panel" not in f for f in watcher.frames)


CHOOSE = re.compile(r'<fieldset class="menu choices" data-choose="([^"]+)">(.*?)</fieldset>')
CHOICE = re.compile(r'<button type="button" class="press choice" data-press="[^"]+" data-value="([^"]+)"')


async def deluxe_turn(page: Page) -> int:
    """A Deluxe turn from the page as ``play_turn`` plays it from Discord: draw from the deck, bind the first
    meld offered until none is, then discard the first card offered (or Done); the presses it took."""
    presses = 0

    async def press(cid: str, values: list[str]) -> None:
        nonlocal presses
        before = page.panels()
        await page.press(cid, values)
        await page.until(lambda: page.panels() > before, f"{cid} was not answered")
        presses += 1

    while True:
        panel = page.panel or ""
        draw = [c for c, on, label in buttons(panel) if on and label == "Draw from deck"]
        menus = {
            html.unescape(c).split(":")[4]: (html.unescape(c), CHOICE.findall(b))
            for c, b in CHOOSE.findall(panel)
        }
        done = [c for c, on, label in buttons(panel) if on and label == "Done"]
        if draw:
            await press(draw[0], [])
        elif "meld" in menus:
            await press(menus["meld"][0], menus["meld"][1][:1])
        elif done:
            await press(done[0], [])
            return presses
        elif "toss" in menus:
            await press(menus["toss"][0], menus["toss"][1][:1])
            return presses
        else:
            return presses


async def test_a_seated_player_plays_a_whole_game_of_deluxe_from_the_activity(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, client: aiohttp.ClientSession
) -> None:
    fake = fake_discord
    bot = await start_bot(
        dataclasses.replace(settings, web_port=0, client_secret=CLIENT_SECRET), extensions=DELUXE
    )
    bot.lobbies.seed_source = lambda: 5
    ann, bo, cy = fake.add_user("ann"), fake.add_user("bo"), fake.add_user("cy")
    await open_deluxe(fake, [ann, bo])
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    instance = fake.oauth.launch(fake.channel, ann, cy)
    page = await opened(client, bot, await signed_in(fake, bot, ann, instance))
    watcher = await opened(client, bot, await signed_in(fake, bot, cy, instance))
    table = await agree(fake, bot, table.id, page, watcher)
    ann_seat, bo_seat = table.seat_of(ann.id), table.seat_of(bo.id)
    assert ann_seat is not None and bo_seat is not None
    turns = {"page": 0, "discord": 0}
    checked = 0
    known: set[Any] = set(table.state.hands[ann_seat])
    while table.status == "active":
        if ann_seat in table.waiting_for():
            assert await deluxe_turn(page), page.panel
            turns["page"] += 1
        else:
            try:
                await play_turn(fake, bo, live_panel(fake, bo))
            except AssertionError:  # (the helper expects a bind's answer; a bind that ends the game has none)
                if (await bot.tables.get(table.id)).status == "active":
                    raise
            turns["discord"] += 1
        table = await agree(fake, bot, table.id, page, watcher)
        state: dx.State = table.state
        known |= {*state.hands[ann_seat], *state.queue, *state.ace_pile}  # ann held it, or it lay face up
        if state.hand_no == 1 and table.status == "active":  # bo's hand, unsaid in the channel
            said = [("channel", channel_text(fake, fake.channel))]
            hidden = {c for c in state.hands[bo_seat] if c not in known and not leaks({c}, said)}
            assert not leaks(hidden, [("ann's socket", t) for t in page.texts])
            held = {c for hand in state.hands for c in hand if c not in known and not leaks({c}, said)}
            assert not leaks(held, [("cy's socket", t) for t in watcher.texts])
            checked += bool(hidden)
        assert sum(turns.values()) < 400, "the game did not end"
    assert turns["page"] >= 3 and turns["discord"] >= 3 and checked, (turns, checked)
    await page.until(lambda: page.panel is None, "the page kept a panel after the game")
    assert all("panel" not in f for f in watcher.frames)


async def test_a_page_pressing_too_fast_is_told_to_slow_down(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    seeded: None,
    client: aiohttp.ClientSession,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each press is answered once, and a page over its budget is refused, not played (nor cut off)."""
    monkeypatch.setattr("bot.edge.web.activity_ws.PRESSES", 0.001)
    monkeypatch.setattr("bot.edge.web.activity_ws.PRESS_BURST", 3.0)
    fake = fake_discord
    bot, _ = await activity_bot(start_bot, settings)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    instance = fake.oauth.launch(fake.channel, alice)
    page = await opened(client, bot, await signed_in(fake, bot, alice, instance))
    await agree(fake, bot, table.id, page)
    hint = next(c for c, on, label in buttons(page.panel or "") if on and ":hint" in c)
    for _ in range(8):
        await page.socket.send_json({"press": hint, "values": []})
    await page.until(
        lambda: sum("aside" in f or "refused" in f for f in page.frames) >= 8, "a press unanswered"
    )
    assert [("aside" in f, "refused" in f) for f in page.frames if "aside" in f or "refused" in f] == [
        *[(True, False)] * 3,
        *[(False, True)] * 5,
    ]
    assert page.closed is None
