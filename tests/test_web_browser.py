"""The table in a real headless browser (Debian's chromium, through ``tests/browser.py``): the bot runs on the
fake Discord with its pages on a free port, players move by slash commands and clicks, and the browser shows
it. The live page follows a move within a second without reloading; the replay steps to the end and shows the
stored final score; no card that is hidden at the time (a hand, the lay-away, the deck) is ever in the page's
HTML, a response, a WebSocket frame or a URL the page asked for; the pages fit a 360 px phone and a 1280 px
desktop (screenshots checked for overflow); and the console stays clean (no error, no CSP violation).

Set ``TAVERN_WEB_SHOTS`` to a folder to keep the screenshots there."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import shutil
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.base.i18n import Msg, speaking
from bot.edge.app import TavernBot
from bot.edge.web.cards import card_words
from bot.edge.web.sight import sight
from bot.games import Table
from bot.render import face_name
from bot.rules import bhargage as bh
from bot.rules import deluxe as dx
from bot.rules.decktet import ALL_CARDS, Card
from bot.services.links import LIVE_SECONDS
from bot.services.tournaments.event import Event, GameDone
from bot.services.tournaments.event import Settings as EventSettings
from bot.services.tournaments.stored import doc_of
from bot.settings import Settings
from tests.browser import Chromium, Tab, Traffic
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeUser
from tests.test_bhargage_discord import challenge, play_out, step
from tests.test_deluxe_discord import live_panel, open_table, play_turn, to_move

pytestmark = pytest.mark.timeout(120)

PHONE = (360, 740)
DESKTOP = (1280, 800)
MOVE_SECONDS = 1.0  # the bound: a move reaches the page within a second
WAIT = 5.0  # how long a wait may take before the test fails (the bound above is asserted separately)


# ------------------------------------------------------------------------------------------- fixtures


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the screenshots go (copied to ``TAVERN_WEB_SHOTS`` at the end when it is set)."""
    folder = tmp_path / "shots"
    folder.mkdir()
    return folder


@pytest.fixture(autouse=True)
def keep_shots(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[None]:
    yield
    keep = os.environ.get("TAVERN_WEB_SHOTS")
    folder = tmp_path / "shots"
    if keep and folder.is_dir():
        Path(keep).mkdir(parents=True, exist_ok=True)
        for png in folder.glob("*.png"):
            shutil.copy(png, Path(keep) / png.name)


@pytest.fixture
async def web_bot(start_bot: StartBot, settings: Settings) -> TavernBot:
    """The bot on the fake Discord, its pages served on a free port of 127.0.0.1."""
    bot = await start_bot(dataclasses.replace(settings, web_port=0))
    assert bot.web_server is not None and bot.web_server.port, "the pages are not served"
    assert bot.links is not None, "the bot makes no links to its pages"
    return bot


@pytest.fixture
async def tabs(chromium: Chromium) -> AsyncIterator[list[Tab]]:
    """The tabs a test opened (append them), closed at its end."""
    opened: list[Tab] = []
    yield opened
    for tab in opened:
        await tab.close()


# ------------------------------------------------------------------------------------------- helpers


async def open_tab(chromium: Chromium, tabs: list[Tab], url: str, size: tuple[int, int] = DESKTOP) -> Tab:
    tab = await chromium.open(width=size[0], height=size[1])
    tabs.append(tab)
    status = await tab.goto(url)
    assert status == 200, f"{url} answered {status}"
    return tab


def frame_seqs(tab: Tab) -> list[int]:
    """The seq of every frame the live page's WebSocket brought (pongs have none)."""
    found = []
    for frame in tab.traffic.frames:
        if not frame.sent and isinstance(frame.payload, str):
            message = json.loads(frame.payload)
            if "seq" in message:
                found.append(int(message["seq"]))
    return found


async def caught_up(tab: Tab, seq: int) -> None:
    """Wait until the live page's WebSocket brought the table at ``seq`` (or later)."""
    deadline = time.monotonic() + WAIT
    while not any(s >= seq for s in frame_seqs(tab)):
        assert time.monotonic() < deadline, f"no frame of seq {seq} within {WAIT}s: {frame_seqs(tab)}"
        await asyncio.sleep(0.01)


async def connected(tab: Tab, seq: int) -> None:
    """Wait until the live page's WebSocket is open and brought the table as it is, and the page says so."""
    await caught_up(tab, seq)
    await tab.wait_for(
        "() => document.getElementById('status').textContent"
        " === document.getElementById('table').dataset.live"
    )


ARM = """
() => {
  window.__changedAt = 0;
  const main = document.querySelector('#table');
  const before = main.innerHTML;
  const seen = new MutationObserver(() => {
    if (window.__changedAt || main.innerHTML === before) return;
    window.__changedAt = Date.now();
    seen.disconnect();
  });
  seen.observe(main, {childList: true, subtree: true, characterData: true});
}
"""


async def timed_move(tab: Tab, move: Any) -> float:
    """Seconds from the start of ``move`` (a coroutine: a click through the fake Discord) to the live page's
    table changing; the page's clock and this one are the same wall clock."""
    await tab.evaluate(ARM)
    started = time.time()
    await move
    changed = await tab.wait_for("() => window.__changedAt", timeout=WAIT)
    return float(changed) / 1000 - started


async def no_overflow(tab: Tab, shots: Path, name: str, size: tuple[int, int]) -> None:
    """A full-page screenshot as wide as the viewport, and nothing past its right edge."""
    width, _ = await tab.screenshot(shots / f"{name}-{size[0]}.png")
    found = await tab.overflow()
    assert found["innerWidth"] == size[0], found
    assert found["scrollWidth"] <= found["innerWidth"], f"{name} at {size[0]} px scrolls sideways: {found}"
    assert not found["over"], f"{name} at {size[0]} px: past the right edge: {found['over']}"
    assert not found["cut"], f"{name} at {size[0]} px: cut at the right (scrolls in its box): {found['cut']}"
    assert width == size[0], f"{name} at {size[0]} px: the full-page screenshot is {width} px wide"


async def clean_console(tab: Tab) -> None:
    traffic = await tab.settle()
    assert not traffic.errors(), traffic.errors()
    assert not await tab.csp_violations()
    bad = [r for r in traffic.responses if r.status >= 400]
    assert not bad, [(r.url, r.status) for r in bad]


def fresh(tab: Tab, url: str) -> None:
    """The page was loaded once: everything since came over its WebSocket (or its own fetches)."""
    documents = [u for u in tab.traffic.requests if u.split("?")[0] == url.split("?")[0]]
    assert documents == [url], documents


# ------------------------------------------------------------------------------------------- hidden cards


def patterns(card: Card) -> list[re.Pattern[str]]:
    """Every way a page could give ``card`` away: its picture's file (any badge, any language), its face
    name and alt text in English and Italian, its name and its slug as the action log writes it."""
    with speaking("en"):
        en_name, en_alt = face_name(card), card_words(card)
    with speaking("it"):
        it_name, it_alt = face_name(card), card_words(card)
    found = [
        rf"(?<![0-9A-Za-z])[ds]{card.index}\.png",
        rf"\b{re.escape(en_name)}\b",
        rf"\b{re.escape(card.name)}\b",
        re.escape(en_alt),
        re.escape(it_alt),
        rf"\b{re.escape(it_name)} \(",  # "la Foresta (5) …" as an Italian call writes a card
        rf"\b(?:play|discard|meld|toss|take)\b[^\n<]{{0,80}}\b{re.escape(card.slug)}\b",
    ]
    if "-" in card.slug:
        found.append(rf"\b{re.escape(card.slug)}\b")
    return [re.compile(p) for p in dict.fromkeys(found)]


def leaks(hidden: Iterable[Card], places: Iterable[tuple[str, str]]) -> list[str]:
    """Where a hidden card shows, as "card: where: …text around it…"."""
    out = []
    compiled = [(c, patterns(c)) for c in hidden]
    for where, text in places:
        for card, pats in compiled:
            for pat in pats:
                hit = pat.search(text)
                if hit:
                    around = text[max(0, hit.start() - 60) : hit.end() + 60].replace("\n", " ")
                    out.append(f"{card.name}: {where}: …{around}…")
    return out


async def seen_by(tab: Tab, label: str) -> list[tuple[str, str]]:
    """Everything the tab holds: its DOM now, and all its traffic so far."""
    traffic: Traffic = await tab.settle()
    return [(f"{label} DOM", await tab.content()), *((f"{label} {w}", t) for w, t in traffic.texts())]


def bhargage_public(table: Table) -> set[Card]:
    """What everyone has seen of a hand of Bhargage still in its play: the cut for the deal, the up-card and
    the cards played (the table's events from its start, replayed)."""
    state: bh.State = table.state
    assert state.phase is bh.Phase.PLAY and state.hand_no == 1, "only hand 1's play is checked"
    _, events = bh.start(table.seed, 2, table.options)
    public = {c for e in events if isinstance(e, bh.DealerCut) for pair in e.cuts for c in pair}
    if state.up is not None:
        public.add(state.up)
    public.update(c for _, c in state.pile)
    return public


async def deluxe_public(bot: TavernBot, table: Table) -> set[Card]:
    """Every card that was ever face up at a Bharg Deluxe table: on the Discard Queue, the Ace Pile or bound
    (its whole log walked state by state; a card taken from the queue stays known)."""
    record = await bot.store.load_game(table.id)
    assert record is not None
    state, _ = dx.start(record.seed, record.players, dx.Options.from_dict(record.options))
    states = [state]
    for action in record.actions:
        state, _ = dx.apply(state, dx.parse_action(action.text))
        states.append(state)
    public: set[Card] = set()
    for s in states:
        public.update(s.queue, s.ace_pile, (c for melds in s.bound for m in melds for c in m.cards))
    return public


# ------------------------------------------------------------------------------------------- the table


async def the_table_shows_whose_turn_and_the_newest_call_first(
    fake: FakeDiscord, tab: Tab, table: Table
) -> None:
    """The seat the table waits for is marked (and said to a screen reader), its idle time counts on in the
    page with no request, and the calls run newest first with no prompt to a player, though the channel
    had them."""
    [waited] = table.waiting_for()
    name = table.names[waited]
    marked = await tab.evaluate(
        "() => Array.from(document.querySelectorAll('#felt .seat.turn[aria-current=\"true\"] .seat-name'),"
        " (e) => e.textContent)"
    )
    assert marked == [name], marked
    turn = await tab.text("#felt .turn-who")
    assert name in turn and await tab.evaluate("document.getElementById('turn-said').textContent") == turn
    asked = len(tab.traffic.requests)
    first = await tab.wait_for("() => document.querySelector('#felt .idle-time').textContent")
    assert re.fullmatch(r"\d+:\d\d", first), first
    await tab.wait_for(
        "(first) => document.querySelector('#felt .idle-time').textContent !== first", first, timeout=WAIT
    )
    assert len(tab.traffic.requests) == asked, "the idle time asked the server"
    seqs = await tab.evaluate(
        "() => Array.from(document.querySelectorAll('#log .call-list > li.call'),"
        " (li) => Number(li.dataset.seq))"
    )
    assert len(seqs) >= 3 and seqs == sorted(seqs, reverse=True) and seqs[0] == table.seq, seqs
    newest = await tab.text("#log .call.newest")
    _, played = table.state.pile[-1]
    with speaking("en"):
        assert face_name(played) in newest, newest
    told = "\n".join(m.content for m in fake.channel_messages(fake.channel))
    log = await tab.text("#log")
    for prompt in ("your turn", "on your panel"):
        assert prompt in told, f"the channel had no {prompt!r}: nothing to check"
        assert prompt not in log, f"{prompt!r} is in the page's log: {log}"


RECTS = """() => Object.fromEntries(['felt', 'log'].map((id) => {
  const r = document.getElementById(id).getBoundingClientRect();
  return [id, {left: r.left, right: r.right, top: r.top, bottom: r.bottom}];
}))"""


async def side_by_side_on_a_desktop(tab: Tab, size: tuple[int, int]) -> None:
    """The table and its calls side by side from 1000 px (the calls on the right, level with the table),
    one above the other on a phone (the table first)."""
    rects = await tab.evaluate(RECTS)
    felt, log = rects["felt"], rects["log"]
    if size[0] >= 1000:
        assert log["left"] >= felt["right"] and abs(log["top"] - felt["top"]) < 2, rects
    else:
        assert log["top"] >= felt["bottom"], rects


async def keyboard_steps_leave_no_ring_around_the_page(tab: Tab) -> None:
    """Stepping with the keyboard to a step where the link pressed is gone puts the focus on the replay's
    region (where reading resumes), with no focus ring around the whole page."""
    await tab.run(tab.page.focus("#replay a.step[data-which='last']"))
    await tab.run(tab.page.keyboard.press("Enter"))
    await tab.wait_for("() => !!document.querySelector('#replay .score.final')")
    await tab.wait_for("() => document.activeElement === document.getElementById('replay')")
    ring = await tab.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert ring == "none", f"the whole replay is ringed ({ring})"


NEWEST = "() => Number((document.querySelector('#log .call.newest') || {dataset: {seq: 0}}).dataset.seq)"


async def a_draw_shows_as_it_happens_face_down(fake: FakeDiscord, tab: Tab, users: list[FakeUser]) -> None:
    """A Deluxe draw reaches the page at once, though the channel is told the turn only when it passes: the
    newest call says it and shows the card face down; the rest of the turn follows in order."""
    user = to_move(fake, users)
    said = len([m for m in fake.channel_messages(fake.channel) if "drew from the deck" in m.content])
    before = await tab.evaluate(NEWEST)
    drawn = (await fake.click(user, live_panel(fake, user), "Draw from deck")).message
    await tab.wait_for(f"() => ({NEWEST})() > {before}")
    newest = await tab.text("#log .call.newest")
    assert f"{user.name} drew from the deck" in newest, newest
    faces = await tab.evaluate(
        "() => Array.from(document.querySelectorAll('#log .call.newest img.card'), (i) => i.alt)"
    )
    assert faces[:1] == ["face down"], faces
    told = [m for m in fake.channel_messages(fake.channel) if "drew from the deck" in m.content]
    assert len(told) == said, "the channel was told the turn before it passed: nothing held to check"
    await play_turn(fake, user, drawn)
    await tab.wait_for(f"() => ({NEWEST})() > {before} + 1")
    turn = await tab.text("#log .call.newest")
    assert turn.index("drew from the deck") < turn.index("discarded"), turn  # the turn, in order
    log = await tab.text("#log")
    assert log.count(f"{user.name} drew from the deck") == 1, log  # the turn replaced its first part


# ------------------------------------------------------------------------------------------- the tests


async def test_the_harness_sees_overflow_leaks_and_errors(chromium: Chromium, tabs: list[Tab]) -> None:
    """The checks below are not vacuous: a page that is too wide, cut, names a card or logs an error is
    caught (a page of the harness's own, no server)."""
    tab = await chromium.open(width=PHONE[0], height=PHONE[1])
    tabs.append(tab)
    forest = next(c for c in ALL_CARDS if c.name == "Forest")
    await tab.show(
        '<p style="width: 500px">wide</p><pre style="overflow-x: auto">' + "x" * 200 + "</pre>"
        f'<img alt="{card_words(forest)}" src="/c/en/d{forest.index}.png">'
        "<script>console.error('boom')</script>"
    )
    found = await tab.overflow()
    assert found["scrollWidth"] > PHONE[0] and found["over"] == ["p ends at 508px"], found
    assert len(found["cut"]) == 1 and found["cut"][0].startswith("pre holds"), found
    assert any("boom" in e for e in (await tab.settle()).errors())
    places = await seen_by(tab, "self")
    assert len(leaks({forest}, places)) >= 3  # the name, the alt text, the picture's file
    assert not leaks(set(ALL_CARDS) - {forest}, places)


async def test_live_page_follows_moves_and_shows_no_hidden_card(
    fake_discord: FakeDiscord,
    web_bot: TavernBot,
    chromium: Chromium,
    tabs: list[Tab],
    seeded: None,
    shots: Path,
) -> None:
    fake, bot = fake_discord, web_bot
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and bot.links is not None
    url = bot.links.live(table.id, bot.clock())
    tab = await open_tab(chromium, tabs, url, DESKTOP)
    phone = await open_tab(chromium, tabs, url + "?lang=it", PHONE)
    for t in (tab, phone):
        await connected(t, table.seq)
    shown = await tab.text("#table")
    assert "alice" in shown and "bob" in shown and "31" in shown, shown
    assert "Bhargage" in await tab.text("header"), await tab.text("header")
    with speaking("en"):
        expected = sight(table).score  # "Hand 1 · alice 10 · bob 10"
    assert await tab.text("#table .score") == expected
    await tab.evaluate("window.__marker = 35")

    delays = []
    dom: list[tuple[str, str]] = []
    while len(table.state.pile) < 2:  # the two discards, the cut, and a card from each
        delay = await timed_move(tab, step(fake, fake.channel, [alice, bob]))
        delays.append(delay)
        await caught_up(tab, table.seq)
        dom.append((f"DOM at seq {table.seq}", await tab.content()))
    assert max(delays) < MOVE_SECONDS, f"moves reached the page after {delays} s"
    print(
        f"\nBhargage: {len(delays)} moves reached the live page after "
        + ", ".join(f"{d:.3f}" for d in delays)
        + " s"
    )
    await caught_up(phone, table.seq)
    # The last card played is on the page: its picture in the table, by its alt text.
    _, played = table.state.pile[-1]
    with speaking("en"):
        alt = card_words(played)
    assert await tab.evaluate(
        "(alt) => Array.from(document.querySelectorAll('#table img')).some((i) => i.alt === alt)", alt
    ), f"{alt} is not on the page"
    assert await tab.evaluate("window.__marker") == 35, "the page was reloaded"
    fresh(tab, url)
    document = next(r for r in tab.traffic.responses if r.url == url)
    assert "script-src 'self'" in document.headers["content-security-policy"]  # the policy the page obeys

    await the_table_shows_whose_turn_and_the_newest_call_first(fake, tab, table)

    # A live game has no replay and no record (the record's seed would deal every hand).
    replay = await chromium.open()
    tabs.append(replay)
    assert await replay.goto(bot.links.replay(table.id)) == 404
    assert await replay.goto(bot.links.replay(table.id) + "/record") == 404

    state: bh.State = table.state
    hidden = set(ALL_CARDS) - bhargage_public(table)
    held = {*state.hands[0], *state.hands[1], *state.bhargage}
    assert len(held & hidden) >= 6, "the hands and the bhargage are mostly hidden"  # but the cut's cards
    places = [*dom, *await seen_by(tab, "en"), *await seen_by(phone, "it")]
    assert not leaks(hidden, places), "\n".join(leaks(hidden, places))
    # …and the public ones are there: the check looks where the cards would be.
    assert leaks({played}, places)

    for t, size in ((tab, DESKTOP), (phone, PHONE)):
        await no_overflow(t, shots, "live", size)
        await side_by_side_on_a_desktop(t, size)
        await clean_console(t)


async def test_deluxe_hands_never_reach_the_browser(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, chromium: Chromium, tabs: list[Tab]
) -> None:
    fake = fake_discord
    bot = await start_bot(
        dataclasses.replace(settings, web_port=0), extensions=["cogs.general", "cogs.stats", "cogs.deluxe"]
    )
    bot.lobbies.seed_source = lambda: 5
    users = [fake.add_user(n) for n in ("ann", "bob")]
    await open_table(fake, users, target=30)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.game == "deluxe" and bot.links is not None
    url = bot.links.live(table.id, bot.clock())
    tab = await open_tab(chromium, tabs, url, DESKTOP)
    await connected(tab, table.seq)
    shown = await tab.text("#table")
    assert all(u.name in shown for u in users), shown
    await a_draw_shows_as_it_happens_face_down(fake, tab, users)
    delays = []
    for _ in range(3):  # three turns: draws, binds, discards
        user = to_move(fake, users)
        delays.append(await timed_move(tab, play_turn(fake, user, live_panel(fake, user))))
    assert max(delays) < MOVE_SECONDS, f"turns reached the page after {delays} s"
    print(
        f"\nDeluxe: {len(delays)} turns reached the live page after "
        + ", ".join(f"{d:.3f}" for d in delays)
        + " s"
    )
    await caught_up(tab, table.seq)
    state: dx.State = table.state
    assert not state.winners, "the game ended: its hands are public now"
    hidden = set(ALL_CARDS) - await deluxe_public(bot, table)
    held = {c for hand in state.hands for c in hand}
    assert held & hidden, "every card held was once face up: nothing to check"
    places = await seen_by(tab, "en")
    assert not leaks(hidden, places), "\n".join(leaks(hidden, places))
    assert leaks(set(state.queue), places), "the Discard Queue is not on the page"
    await clean_console(tab)


async def test_replay_steps_to_the_stored_final_score(
    fake_discord: FakeDiscord,
    web_bot: TavernBot,
    chromium: Chromium,
    tabs: list[Tab],
    seeded: None,
    shots: Path,
) -> None:
    fake, bot = fake_discord, web_bot
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and bot.links is not None
    await play_out(fake, fake.channel, [alice, bob])
    record = await bot.store.load_game(table.id)
    assert record is not None and record.status == "finished" and record.result is not None
    names = [s.name for s in record.seats]
    scores = list(record.result["scores"])

    url = bot.links.replay(table.id)
    tab = await open_tab(chromium, tabs, url, DESKTOP)
    where = await tab.text("#replay .where")
    assert re.search(r"\b1\b.*\b\d+\b", where), where
    total = int(re.findall(r"\d+", where)[1])
    await tab.evaluate("window.__marker = 35")

    async def goes(which: str) -> str:
        before = await tab.text("#replay .where")
        await tab.click(f"#replay a.step[data-which='{which}']")
        await tab.wait_for(
            "(before) => document.querySelector('#replay .where').innerText !== before", before
        )
        return await tab.text("#replay .where")

    after_next = await goes("next")
    assert re.search(rf"\b2\b.*\b{total}\b", after_next), after_next
    at_end = await goes("last")
    assert re.search(rf"\b{total}\b.*\b{total}\b", at_end), at_end
    final = await tab.text("#replay .score.final")
    for name, score in zip(names, scores, strict=True):
        assert f"{name} {score}" in final, f"{name} {score} is not in {final!r}"
    back = await goes("hand-")
    assert back != at_end and not await tab.evaluate("!!document.querySelector('#replay .score.final')")
    await keyboard_steps_leave_no_ring_around_the_page(tab)
    assert await tab.evaluate("window.__marker") == 35, "the replay reloaded the page"
    await clean_console(tab)
    await no_overflow(tab, shots, "replay", DESKTOP)

    phone = await open_tab(chromium, tabs, f"{url}?step={total - 1}", PHONE)
    assert f"{names[0]} {scores[0]}" in await phone.text("#replay .score.final")
    await no_overflow(phone, shots, "replay", PHONE)
    await clean_console(phone)


async def test_a_revoked_socket_says_why_and_does_not_come_back(
    fake_discord: FakeDiscord, web_bot: TavernBot, chromium: Chromium, tabs: list[Tab], seeded: None
) -> None:
    """The page's socket closed for an expired link (4410), then for pages turned off (4404): the page says
    which, in place of "Reconnecting…", and opens no socket again."""
    fake, bot = fake_discord, web_bot
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and bot.links is not None
    said = (
        "(why) => document.getElementById('status').textContent"
        " === document.getElementById('table').dataset[why]"
    )
    expiring = await open_tab(chromium, tabs, bot.links.live(table.id, bot.clock()), DESKTOP)
    await connected(expiring, table.seq)
    bot.clock.advance(LIVE_SECONDS + 2 * 3600)  # a link lasts from the next whole hour
    await expiring.wait_for(said, "expired", timeout=10)
    fresh = await open_tab(chromium, tabs, bot.links.live(table.id, bot.clock()) + "?lang=it", PHONE)
    await connected(fresh, table.seq)
    await fake.slash(fake.owner, fake.channel, "tavern-admin settings", browser="off")
    await fresh.wait_for(said, "off", timeout=10)
    with speaking("it"):
        assert await fresh.text("#status") == str(Msg("web.live.off"))
    for tab in (expiring, fresh):
        assert len((await tab.settle()).sockets) == 1
        assert not (await tab.settle()).errors()


async def ping_twice(tab: Tab, said: Callable[[bool, str], list[int]]) -> None:
    """Run the page's clock past two of its pings (25 s apart), each answered by its pong before the next;
    ``said(sent_by_page, key)``: the numbers of the frames with that key, in order."""
    for n in (1, 2):
        await tab.run(tab.page.clock.run_for(25_000))
        deadline = time.monotonic() + WAIT
        while said(False, "pong") != list(range(1, n + 1)):
            assert time.monotonic() < deadline, (said(True, "ping"), said(False, "pong"))
            await asyncio.sleep(0.01)
    assert said(True, "ping") == [1, 2]


async def test_the_live_page_pings_and_its_pongs_keep_the_socket(
    fake_discord: FakeDiscord, web_bot: TavernBot, chromium: Chromium, tabs: list[Tab], seeded: None
) -> None:
    """``live.js`` sends ``{"ping": N}`` every 25 s (the page's clock is run forward, not waited for); each
    is answered, and the one socket stays open."""
    fake, bot = fake_discord, web_bot
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and bot.links is not None
    tab = await chromium.open(width=DESKTOP[0], height=DESKTOP[1])
    tabs.append(tab)
    await tab.run(tab.page.clock.install())
    assert await tab.goto(bot.links.live(table.id, bot.clock())) == 200
    await connected(tab, table.seq)

    def said(sent: bool, key: str) -> list[int]:
        found = []
        for frame in tab.traffic.frames:
            if frame.sent is sent and isinstance(frame.payload, str) and key in frame.payload:
                found.append(int(json.loads(frame.payload)[key]))
        return found

    await ping_twice(tab, said)
    assert len((await tab.settle()).sockets) == 1
    await clean_console(tab)


# ------------------------------------------------------------------------------------------- a tournament


async def test_a_tournament_page_fits_a_phone_and_a_desktop(
    fake_discord: FakeDiscord, web_bot: TavernBot, chromium: Chromium, tabs: list[Tab], shots: Path
) -> None:
    """A Swiss's standings and matches, and a knockout's bracket, with a long unbroken name and a hostile
    one: nothing runs, nothing scrolls sideways, the console stays clean."""
    fake, bot = fake_discord, web_bot
    assert fake.channel.guild is not None and bot.links is not None
    names = ["<img src=x onerror=alert(1)>", "W" * 32, "carol", "dave", "eve"]
    for name, fmt in (("swiss", "swiss"), ("knockout", "knockout")):
        event = Event(EventSettings("Spring " + name, "cribbage", fmt, {"target": 61}), 1)
        for n, who in enumerate(names):
            event.join(1000 + n, who, 1500.0 + n)
        first = event.start()[0]
        event.record(first.key, GameDone(first.players, (61, 40), 61, first.players[0], game_id=1))
        playing = [m for m in event.current if not m.decided]
        playing[0].game_id = 2  # a table plays now (a knockout: in its second round)
        row = await bot.store.create_tournament(
            fake.channel.guild.id, fake.channel.id, event.status, doc_of(event), bot.clock()
        )
        for size in (PHONE, DESKTOP):
            tab = await open_tab(chromium, tabs, bot.links.tournament(row.id, bot.clock()), size)
            assert await tab.evaluate("() => document.querySelectorAll('main img').length") == 0
            await no_overflow(tab, shots, f"tournament-{name}", size)
            await clean_console(tab)
