"""The table in a browser, served by the real bot on the fake Discord (``web_port=0``): a practice game's
live page and its WebSocket (a move reaches every viewer, one frame built per language), the finished game's
replay step by step and its record, the server page where the server allows it, the cards and the css/js —
and the headers every answer carries."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import itertools
import json
import re
import time
from html import escape as html_escape
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.edge.app import TavernBot
from bot.edge.web import WebServer, pages
from bot.edge.web.answers import CSP
from bot.edge.web.fanout import Fanout
from bot.games import Table
from bot.rules import bhargage as bh
from bot.services import record_reader
from bot.services.links import EVENT_SECONDS
from bot.services.tournaments.event import Event, GameDone
from bot.services.tournaments.event import Settings as EventSettings
from bot.services.tournaments.stored import doc_of
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.test_admin_commands import MODERATOR
from tests.test_ai_discord import bhargage_move, settle

EXTENSIONS = ["cogs.general", "cogs.stats", "cogs.bhargage", "cogs.deluxe"]
Client = aiohttp.ClientSession


# ------------------------------------------------------------------------------------------- helpers


async def served(start_bot: StartBot, settings: Settings) -> tuple[TavernBot, WebServer]:
    bot = await start_bot(dataclasses.replace(settings, web_port=0), extensions=EXTENSIONS)
    bot.lobbies.seed_source = lambda: 9
    assert bot.web_server is not None and bot.web_server.port and bot.links is not None
    assert bot.links.base == f"http://127.0.0.1:{bot.web_server.port}"
    bot.web_server.built.cpu = itertools.count(step=0.001).__next__  # each page 1 ms, however busy the box
    return bot, bot.web_server


async def practice(
    fake: FakeDiscord, bot: TavernBot, user: FakeUser, channel: FakeChannel | None = None
) -> Table:
    """A Bhargage table of ``user`` against the bot, to 31."""
    channel = channel or fake.channel
    await fake.slash(user, channel, "bhargage practice", level="easy", target=31)
    await settle(fake, bot)
    table = await bot.tables.table_for_channel(channel.id)
    assert table is not None
    return table


async def finish(fake: FakeDiscord, bot: TavernBot, table: Table, user: FakeUser) -> None:
    for _ in range(300):
        if table.status != "active":
            return
        await bhargage_move(fake, bot, table, user)
    raise AssertionError("the game did not end")


def url(server: WebServer, path: str) -> str:
    return f"http://127.0.0.1:{server.port}{path}"


def live_path(bot: TavernBot, game_id: int) -> str:
    assert bot.links is not None
    return "/t/" + bot.links.token("t", game_id, bot.clock())


def replay_path(bot: TavernBot, game_id: int) -> str:
    assert bot.links is not None
    return "/r/" + bot.links.token("r", game_id, 0)


def assert_secure(response: aiohttp.ClientResponse, cache: str = "no-store") -> None:
    headers = response.headers
    assert headers["Content-Security-Policy"] == CSP
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["Cache-Control"] == cache
    assert "aiohttp" not in headers.get("Server", "") and "Python" not in headers.get("Server", "")


async def get(
    client: Client, server: WebServer, path: str, **kw: Any
) -> tuple[int, str, aiohttp.ClientResponse]:
    async with client.get(url(server, path), **kw) as response:
        return response.status, await response.text(), response


async def frame_after(ws: aiohttp.ClientWebSocketResponse, seq: int, timeout: float = 5.0) -> dict[str, Any]:
    """The first frame whose seq passes ``seq``."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no frame after seq {seq}"
        message = await ws.receive(timeout=left)
        assert message.type is aiohttp.WSMsgType.TEXT, message
        data = json.loads(message.data)
        if "seq" in data and data["seq"] > seq:
            return dict(data)


# ------------------------------------------------------------------------------------------- live


async def assert_versioned(
    client: aiohttp.ClientSession, server: WebServer, html: str, names: tuple[str, ...]
) -> None:
    """The page links each of its files as ``/static/<name>?v=<the file's digest>`` (docs/ACTIVITY.md,
    "Caching": a changed file arrives at once), and that address serves the file."""
    for name in names:
        body = (Path(pages.__file__).parent / "static" / name).read_bytes()
        linked = f"/static/{name}?v={hashlib.sha256(body).hexdigest()[:12]}"
        assert f'"{linked}"' in html, (name, re.findall(r'"/static/[^"]*"', html))
        async with client.get(url(server, linked)) as response:
            assert response.status == 200 and await response.read() == body


async def test_live_page_and_its_socket_follow_the_game(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    alice = fake.add_user("alice")
    table = await practice(fake, bot, alice)
    path = live_path(bot, table.id)
    async with aiohttp.ClientSession() as client:
        status, html, response = await get(client, server, path)
        assert status == 200 and response.content_type == "text/html"
        assert_secure(response)
        assert "alice" in html and 'id="table"' in html
        await assert_versioned(client, server, html, ("tavern.css", "live.js"))
        assert "style=" not in html and "<script>" not in html  # nothing inline
        ws_path = re.search(r'data-ws="([^"]+)"', html)
        assert ws_path is not None and ws_path.group(1).startswith(path + "/ws")
        async with client.head(url(server, path)) as head:
            assert head.status == 200 and await head.read() == b""
            assert_secure(head)

        built = server.fanout.frames_built
        sockets = [
            await client.ws_connect(url(server, f"{path}/ws?lang={lang}"))
            for lang in ("en", "en", "it", "en")
        ]
        firsts = [await ws.receive_json(timeout=5) for ws in sockets]
        assert all(f["seq"] == table.seq and not f["over"] and isinstance(f["t"], float) for f in firsts)
        assert firsts[0]["html"] == firsts[1]["html"] != firsts[2]["html"]  # one frame per language
        assert server.fanout.viewers == 4 and server.fanout.frames_built == built + 2

        before, built = table.seq, server.fanout.frames_built
        await bhargage_move(fake, bot, table, alice)
        assert table.seq > before
        frames = [await frame_after(ws, before) for ws in sockets]
        assert {f["seq"] for f in frames} <= set(range(before + 1, table.seq + 1))
        told = server.fanout.frames_built - built
        assert told >= 2 and told % 2 == 0  # per telling: one frame in English, one in Italian, for 4 viewers

        await sockets[0].send_json({"ping": 7})
        while (answer := await sockets[0].receive_json(timeout=5)) and "pong" not in answer:
            pass
        assert answer == {"pong": 7}
        for ws in sockets:
            await ws.close()
    await asyncio.sleep(0.05)
    assert server.fanout.viewers == 0 and server.fanout.watched == 0


async def test_an_admin_ending_the_game_ends_it_on_the_page_without_a_stray_call(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """`/tavern-admin end` publishes nothing, yet the page's viewers see the game over (and its replay's
    link), with no call made up for it."""
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    alice, mod = fake.add_user("alice"), fake.add_user("mod")
    mod.permissions = MODERATOR
    table = await practice(fake, bot, alice)
    while table.state.phase != bh.Phase.PLAY:  # where an empty telling would still say whose turn it is
        await bhargage_move(fake, bot, table, alice)
    async with aiohttp.ClientSession() as client:
        async with client.ws_connect(url(server, live_path(bot, table.id) + "/ws")) as ws:
            first = await ws.receive_json(timeout=5)
            ended = await fake.slash(mod, fake.channel, "tavern-admin end")
            assert ended is not None
            last = await ws.receive_json(timeout=5)
        status, html, _ = await get(client, server, live_path(bot, table.id))
    assert not first["over"] and last["over"] and last["seq"] == first["seq"]
    said = first["html"].count('<li class="call')
    assert said and last["html"].count('<li class="call') == said  # none added
    assert status == 200 and 'href="/r/' in html  # the replay, now open


async def test_a_slow_viewer_skips_to_the_newest_frame_and_is_dropped(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """The fan-out's own sockets (what a bench attaches): a stuck one never delays the others."""
    fake = fake_discord
    bot, _ = await served(start_bot, settings)
    alice = fake.add_user("alice")
    table = await practice(fake, bot, alice)
    fanout = Fanout(bot.tables, send_seconds=0.3)
    remove = bot.tables.watch.listen(fanout.told)
    try:
        fast, stuck = Sink(), Sink(stuck=True)
        aborted: list[bool] = []
        quick = await fanout.join(table, "en", fast)
        slow = await fanout.join(table, "en", stuck, lambda: aborted.append(True))
        await asyncio.sleep(0.05)
        assert len(fast.sent) == 1 and stuck.started == 1
        for _ in range(3):
            await bhargage_move(fake, bot, table, alice)
        await asyncio.sleep(0.4)
        assert json.loads(fast.sent[-1])["seq"] == table.seq
        assert aborted == [True] and fanout.dropped == 1 and stuck.started == 1
        fanout.leave(slow)
        fanout.leave(quick)
        assert fanout.viewers == 0 and fanout.watched == 0
    finally:
        remove()


class Sink:
    """A socket for the fan-out: keeps what it is sent, or (``stuck``) never finishes sending."""

    def __init__(self, *, stuck: bool = False) -> None:
        self.stuck, self.sent, self.started = stuck, list[str](), 0
        self.closed = False

    async def send_frame(
        self, message: bytes, opcode: aiohttp.WSMsgType, compress: int | None = None
    ) -> None:
        self.started += 1
        if self.stuck:
            await asyncio.Event().wait()
        self.sent.append(message.decode())

    async def close(self, *, code: int = 1000, message: bytes = b"", drain: bool = True) -> bool:
        self.closed = True
        return True


# ------------------------------------------------------------------------------------------- replay


async def test_replay_and_record_of_a_finished_game(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    table = await practice(fake, bot, alice)
    other = await practice(fake, bot, bob, fake.add_channel("other"))
    async with aiohttp.ClientSession() as client:
        status, html, _ = await get(client, server, replay_path(bot, table.id))
        assert status == 404  # a live game has no replay (nor record): nothing of it leaks
        status, _, _ = await get(client, server, replay_path(bot, table.id) + "/record")
        assert status == 404
        assert "alice" not in html

        await finish(fake, bot, table, alice)
        stored = await bot.store.load_game(table.id)
        assert stored is not None and stored.status == "finished" and stored.result is not None

        status, html, _ = await get(client, server, live_path(bot, table.id))
        assert status == 200 and replay_path(bot, table.id) in html  # the ended table leads to its replay

        path = replay_path(bot, table.id)
        status, first, response = await get(client, server, path)
        await assert_versioned(client, server, first, ("tavern.css", "replay.js"))
        assert status == 200 and "alice" in first
        assert_secure(response)
        status, second, _ = await get(client, server, path + "?step=1")
        assert status == 200 and second != first
        status, body, response = await get(client, server, path + "/step/3")
        step = json.loads(body)
        assert status == 200 and response.content_type == "application/json"
        assert step["index"] == 3 and step["total"] > 3 and step["html"]
        status, body, _ = await get(client, server, path + "/step/999999")
        assert json.loads(body)["index"] == step["total"] - 1  # clamped to the last step
        assert (await get(client, server, path + "?step=x"))[0] == 400

        status, text, response = await get(client, server, path + "/record")
        assert status == 200 and response.content_type == "text/plain"
        assert (
            response.headers["Content-Disposition"]
            == f'attachment; filename="decktet-tavern-game-{table.id}.txt"'
        )
        record = record_reader.decode(text)
        assert record.game_id == table.id and record.status == "finished" and record.result is not None
        assert list(record.result.scores) == list(stored.result["scores"])
        assert list(record.result.winners) == list(stored.result["winners"])

        assert fake.channel.guild is not None
        await bot.server_settings.change(fake.channel.guild.id, {"browser": "off"})
        for shut in (path, path + "?step=1", path + "/step/1", path + "/record", live_path(bot, table.id)):
            assert (await get(client, server, shut))[0] == 404, shut  # the server shows none of its games
        assert other.status == "active"


# ------------------------------------------------------------------------------------------- server page


async def test_server_page_only_where_the_server_allows_it(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    alice = fake.add_user("alice")
    table = await practice(fake, bot, alice)
    assert fake.channel.guild is not None
    guild = fake.channel.guild.id
    assert bot.links is not None
    page = "/s/" + bot.links.token("s", guild, bot.clock())
    async with aiohttp.ClientSession() as client:
        assert (await get(client, server, page))[0] == 404  # "tables", the default: each game's own page only
        await bot.server_settings.change(guild, {"browser": "server"})
        status, html, response = await get(client, server, page)
        assert status == 200 and "alice" in html
        assert_secure(response)
        listed = re.findall(r'href="(/t/[^"]+)"', html)
        assert len(listed) == 1
        status, live, _ = await get(client, server, listed[0])
        assert status == 200 and "alice" in live

        await bot.server_settings.change(guild, {"browser": "off"})
        for path in (page, live_path(bot, table.id), f"{live_path(bot, table.id)}/ws"):
            assert (await get(client, server, path))[0] == 404, path


# ------------------------------------------------------------------------------------------- files and errors


async def test_cards_static_files_and_errors(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    _, server = await served(start_bot, settings)
    async with aiohttp.ClientSession() as client:
        async with client.get(url(server, "/c/en/d12.png")) as response:
            assert response.status == 200 and response.content_type == "image/png"
            assert (await response.read()).startswith(b"\x89PNG")
            assert_secure(response, "public, max-age=31536000, immutable")
        async with client.get(url(server, "/static/tavern.css")) as response:
            assert response.status == 200 and response.content_type == "text/css"
            assert_secure(response, "public, max-age=86400")
        for path in ("/c/en/zz.png", "/c/fr/d12.png", "/static/nope.css", "/static/../server.py", "/", "/t/"):
            status, html, response = await get(client, server, path)
            assert status == 404 and "<html" in html and "Traceback" not in html, path
            assert_secure(response)
        async with client.post(url(server, "/static/tavern.css"), data=b"x" * 10) as response:
            assert response.status == 405 and response.headers["Allow"] == "GET, HEAD"
            assert_secure(response)
        status, html, _ = await get(client, server, "/t/1.2.3", headers={"Accept-Language": "it-IT,it;q=0.9"})
        assert status == 404 and 'lang="it"' in html
        status, html, _ = await get(client, server, "/t/1.2.3?lang=en", headers={"Accept-Language": "it"})
        assert 'lang="en"' in html


async def test_no_server_without_a_port(start_bot: StartBot) -> None:
    bot = await start_bot()
    assert bot.settings.web_port is None and bot.web_server is None and bot.links is None


@pytest.mark.parametrize("web_url", ["https://tavern.example"])
async def test_links_without_a_local_server(start_bot: StartBot, settings: Settings, web_url: str) -> None:
    bot = await start_bot(dataclasses.replace(settings, web_url=web_url))
    assert bot.web_server is None and bot.links is not None and bot.links.base == web_url


async def test_closing_the_bot_says_goodbye_to_the_viewers(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    table = await practice(fake, bot, fake.add_user("alice"))
    async with aiohttp.ClientSession() as client:
        ws = await client.ws_connect(url(server, live_path(bot, table.id) + "/ws"))
        await ws.receive_json(timeout=5)
        began = time.monotonic()
        await bot.close()
        message = await ws.receive(timeout=5)
        assert message.type is aiohttp.WSMsgType.CLOSE and message.data == 1001  # going away: come back later
        assert time.monotonic() - began < 3 and bot.web_server is None
        with pytest.raises(aiohttp.ClientConnectionError):
            await get(client, server, live_path(bot, table.id))


# ------------------------------------------------------------------------------------------- a tournament

HOSTILE = "<script>alert(1)</script>"


async def stored_event(bot: TavernBot, fake: FakeDiscord, event: Event) -> int:
    """``event`` saved as the fake server's, as the service saves one: its id."""
    assert fake.channel.guild is not None
    row = await bot.store.create_tournament(
        fake.channel.guild.id, fake.channel.id, event.status, doc_of(event), bot.clock()
    )
    return row.id


def event_path(bot: TavernBot, tournament_id: int, now: float | None = None) -> str:
    assert bot.links is not None
    return "/e/" + bot.links.token("e", tournament_id, bot.clock() if now is None else now)


def entered(settings: EventSettings, names: list[str]) -> Event:
    event = Event(settings, 1)
    for n, name in enumerate(names):
        event.join(1000 + n, name, 1500.0 + n)
    return event


async def test_a_tournament_page_shows_its_standings_and_links_its_tables(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    alice = fake.add_user("alice")
    done = await practice(fake, bot, alice)
    await finish(fake, bot, done, alice)
    field = [HOSTILE, "bob", "carol", "dave"]
    event = entered(EventSettings("Spring Swiss", "bhargage", "swiss", {"target": 31}, rounds=2), field)
    first, second = event.start()
    event.record(first.key, GameDone(first.players, (12, 31), 31, first.players[1], game_id=done.id))
    second.game_id = 424242  # its table plays now
    tid = await stored_event(bot, fake, event)
    assert bot.links is not None
    async with aiohttp.ClientSession() as client:
        status, html, response = await get(client, server, event_path(bot, tid))
        assert status == 200
        assert_secure(response)
        assert "Spring Swiss" in html and "Bhargage" in html and "Swiss" in html and "under way" in html
        assert HOSTILE not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        names = {e.user_id: e.name for e in event.entrants}
        shown = re.findall(r'<tr><td class="num">(\d+)</td><th scope="row"><bdi>([^<]*)</bdi>', html)
        assert shown == [
            (str(n), html_escape(names[line.player])) for n, line in enumerate(event.lines(), start=1)
        ]
        assert shown[0][1] == html_escape(names[first.players[1]])  # the winner heads them
        assert f'href="{replay_path(bot, done.id)}"' in html  # the finished game's replay ...
        status, replay, _ = await get(client, server, replay_path(bot, done.id))
        assert status == 200 and "alice" in replay
        watching = re.findall(r'href="/t/([^"]+)"', html)  # ... and the playing match's live table
        assert [bot.links.read("t", token, bot.clock()) for token in watching] == [424242]
        status, italian, _ = await get(client, server, event_path(bot, tid) + "?lang=it")
        assert status == 200 and "Classifica" in italian and 'lang="it"' in italian

        assert fake.channel.guild is not None
        await bot.server_settings.change(fake.channel.guild.id, {"browser": "off"})
        assert (await get(client, server, event_path(bot, tid)))[0] == 404  # its server shows no page


async def test_a_tournament_link_is_read_strictly(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    tid = await stored_event(
        bot, fake, entered(EventSettings("Cup", "cribbage", "swiss", {"target": 61}), ["ann", "ben"])
    )
    assert bot.links is not None
    good = event_path(bot, tid)
    ident, expires, sig = good.removeprefix("/e/").split(".")
    flipped = sig[:-1] + ("A" if sig[-1] != "A" else "B")
    async with aiohttp.ClientSession() as client:
        status, html, _ = await get(client, server, good)
        assert status == 200 and "ann" in html and "sign-up open" in html
        for forged in (
            f"/e/{ident}.{expires}.{flipped}",  # a forged signature
            f"/e/{ident}.{int(expires) + 3600}.{sig}",  # a longer life
            f"/e/{tid + 1}.{expires}.{sig}",  # another event
            "/e/" + bot.links.token("t", tid, bot.clock()),  # another kind's link
            "/e/" + bot.links.token("s", tid, bot.clock()),
            event_path(bot, tid + 1),  # a genuine link to no event
            "/e/" + "9" * 70,
        ):
            status, html, response = await get(client, server, forged)
            assert status == 404 and "ann" not in html, forged
            assert_secure(response)
        status, html, _ = await get(client, server, event_path(bot, tid, bot.clock() - EVENT_SECONDS - 7200))
        assert status == 410 and "ann" not in html  # expired: it says so


async def test_a_knockout_page_shows_its_bracket(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    event = entered(
        EventSettings("Cup", "cribbage", "knockout", {"target": 61}), ["ann", HOSTILE, "cy", "di"]
    )
    semis = event.start()
    for m in semis:
        event.record(m.key, GameDone(m.players, (61, 40), 61, m.players[0], game_id=None))
    (final,) = event.current
    assert final.round == 2 and not final.decided
    tid = await stored_event(bot, fake, event)
    async with aiohttp.ClientSession() as client:
        status, html, _ = await get(client, server, event_path(bot, tid))
    assert status == 200 and "Bracket" in html and "knockout" in html
    assert HOSTILE not in html
    stages = re.findall(
        r'<li class="stage"><h3>([^<]*)</h3>(.*?)</ol></li>(?=<li class="stage">|</ol>)', html
    )
    assert [heading for heading, _ in stages] == ["Round 1 of 2", "Round 2 of 2"]
    names = {e.user_id: html_escape(e.name) for e in event.entrants}
    won = re.findall(r'<li class="won"><bdi>([^<]*)</bdi>', stages[0][1])
    out = re.findall(r'<li class="out"><bdi>([^<]*)</bdi>', stages[0][1])
    assert won == [names[m.players[0]] for m in semis] and out == [names[m.players[1]] for m in semis]
    playing = re.findall(r'<li class="on"><bdi>([^<]*)</bdi>', stages[1][1])
    assert playing == [names[p] for p in final.players]  # the final: both still in
