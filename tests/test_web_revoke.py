"""A live table's socket lasts no longer than what let it open (issue 45, item 8): it is closed when the link
it came with expires (4410) and when its server's admins turn the pages off (4404), while other sockets go
on; the page's script says why and does not come back (``tests/test_web_browser.py``)."""

from __future__ import annotations

import time

import aiohttp

from bot.edge.web.fanout import EXPIRED, TURNED_OFF
from bot.services.links import LIVE_SECONDS
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_web_server import get, live_path, practice, served, url

WAIT = 10.0  # seconds a socket may take to be closed (the fan-out looks every two)


async def closed_with(ws: aiohttp.ClientWebSocketResponse) -> int | None:
    """Read until the server closes the socket (frames may come first); its close code."""
    deadline = time.monotonic() + WAIT
    while True:
        left = deadline - time.monotonic()
        assert left > 0, "the socket was not closed"
        message = await ws.receive(timeout=left)
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
            return ws.close_code
        assert message.type is aiohttp.WSMsgType.TEXT, message


async def still_open(ws: aiohttp.ClientWebSocketResponse, number: int) -> None:
    """The socket answers a ping: it was left open."""
    await ws.send_json({"ping": number})
    while (found := await ws.receive_json(timeout=5)).get("pong") != number:
        assert "seq" in found, found


async def test_a_socket_is_closed_when_its_link_expires(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    table = await practice(fake, bot, fake.add_user("alice"))
    async with aiohttp.ClientSession() as client:
        old = await client.ws_connect(url(server, live_path(bot, table.id) + "/ws"))
        assert (await old.receive_json(timeout=5))["seq"] == table.seq
        bot.clock.advance(LIVE_SECONDS + 2 * 3600)  # a link lasts from the next whole hour
        assert (await get(client, server, live_path(bot, table.id)))[0] == 200  # a fresh link opens it
        fresh = await client.ws_connect(url(server, live_path(bot, table.id) + "/ws"))
        await fresh.receive_json(timeout=5)
        assert await closed_with(old) == EXPIRED
        await still_open(fresh, 1)
        await fresh.close()
    assert server.fanout.revoked == 1


async def test_sockets_are_closed_when_the_server_turns_the_pages_off(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """``/tavern-admin settings browser:off``: this server's sockets close (and its links answer 404);
    another server's go on."""
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    here = await practice(fake, bot, fake.add_user("alice"))
    far = fake.add_channel("far", fake.add_guild("Far Tavern"))
    there = await practice(fake, bot, fake.add_user("bob"), far)
    async with aiohttp.ClientSession() as client:
        watching = await client.ws_connect(url(server, live_path(bot, here.id) + "/ws"))
        elsewhere = await client.ws_connect(url(server, live_path(bot, there.id) + "/ws"))
        for ws in (watching, elsewhere):
            await ws.receive_json(timeout=5)
        off = await fake.slash(fake.owner, fake.channel, "tavern-admin settings", browser="off")
        assert off.ephemeral
        assert await closed_with(watching) == TURNED_OFF
        await still_open(elsewhere, 2)
        assert (await get(client, server, live_path(bot, here.id)))[0] == 404
        await elsewhere.close()
    assert server.fanout.revoked == 1
