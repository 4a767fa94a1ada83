"""The pages under abuse: forged, tampered and expired links refused before anything is read; WebSocket
messages too big, malformed or binary closing only their own socket; ten thousand requests from one address
refused cheaply while another address is served at once; the guard's memory bounded."""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from multidict import CIMultiDict

from bot.base.i18n import speaking, t
from bot.edge.app import TavernBot
from bot.edge.web import WebServer
from bot.edge.web.guard import FILE_COST, Guard, address_key, forwarded_client
from bot.services.links import LIVE_SECONDS, Links
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_web_server import get, live_path, practice, served, url

Client = aiohttp.ClientSession


def count_reads(monkeypatch: pytest.MonkeyPatch, bot: TavernBot) -> list[str]:
    """Every read of the store or the tables a request makes, by name."""
    reads: list[str] = []
    for owner, name in ((bot.store, "load_game"), (bot.tables, "get"), (bot.server_settings, "get")):
        real = getattr(owner, name)

        async def counted(*args: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
            reads.append(_name)
            return await _real(*args, **kw)

        monkeypatch.setattr(owner, name, counted)
    return reads


# ------------------------------------------------------------------------------------------- links


async def test_forged_tampered_and_expired_links_read_nothing(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    table = await practice(fake, bot, fake.add_user("alice"))
    assert bot.links is not None
    now = bot.clock()
    ident, expires, sig = bot.links.token("t", table.id, now).split(".")
    flipped = sig[:-1] + ("A" if sig[-1] != "A" else "B")
    stranger = Links(bot.links.base, b"another bot's key")
    forged = [
        f"/t/{ident}.{expires}.{flipped}",  # a wrong signature
        f"/t/{int(ident) + 1}.{expires}.{sig}",  # another game under this signature
        f"/t/{ident}.{int(expires) + 3600}.{sig}",  # a longer life under this signature
        "/t/" + bot.links.token("s", table.id, now),  # a server page's token as a table's
        "/t/" + bot.links.token("r", table.id, now),  # a replay's token as a table's
        "/r/" + bot.links.token("t", table.id, now),  # and the other way round
        "/t/" + stranger.token("t", table.id, now),  # signed by another key
        f"/t/{ident}.{expires}.{sig}x",
        f"/t/{ident}",
        "/t/" + "9" * 64,
        "/t/" + "9" * 65,
        "/t/..%2F..%2Fetc",
        f"/t/{ident}.{expires}.{flipped}/ws",
        f"/s/{ident}.{expires}.{sig}",
    ]
    reads = count_reads(monkeypatch, bot)
    async with aiohttp.ClientSession() as client:
        for path in forged:
            status, html, response = await get(client, server, path)
            assert status == 404 and "<html" in html, path
            assert response.headers["Content-Security-Policy"]
        assert reads == []  # nothing of the store (nor of the tables) was looked at

        good = live_path(bot, table.id)
        assert (await get(client, server, good))[0] == 200 and reads
        reads.clear()
        bot.clock.advance(LIVE_SECONDS + 2 * 3600)  # a link lasts from the next whole hour
        for path in (good, good + "/ws"):
            status, html, _ = await get(client, server, path)
            with speaking("en"):
                assert status == 410 and t("web.error.expired") in html, path
        assert reads == []
        assert (await get(client, server, live_path(bot, table.id)))[0] == 200  # a fresh link opens it


async def raw(port: int, data: bytes) -> bytes:
    """What the server answers ``data`` sent as is on a new connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(65536), 5)
    finally:
        writer.close()


async def test_malformed_requests_are_refused_quietly(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """Not HTTP, or over the limits: aiohttp answers 400 itself, logged at DEBUG (the autouse guard fails
    the test on an ERROR line); methods other than GET and HEAD get 405; the pages go on."""
    _, server = await served(start_bot, settings)
    assert server.port is not None
    host = b"Host: x\r\n"
    for data in (
        b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\n" + host + b"\r\n",  # a line too long
        b"GET /static/tavern.css HTTP/1.1\r\n" + host + b"X-A: b\r\n" * 100 + b"\r\n",  # too many headers
        b"GET /static/tavern.css HTTP/1.1\r\n" + host + b"X-A: " + b"b" * 5000 + b"\r\n\r\n",
        b"GET /static/tavern.css?lang=\xff HTTP/1.1\r\n" + host + b"\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",  # TLS on the plain port
    ):
        assert (await raw(server.port, data)).startswith(b"HTTP/1.0 400 "), data[:40]
    for method in (b"TRACE", b"PUT", b"DELETE", b"OPTIONS"):
        answer = await raw(server.port, method + b" /static/tavern.css HTTP/1.1\r\n" + host + b"\r\n")
        assert answer.startswith(b"HTTP/1.1 405 ") and b"Content-Security-Policy" in answer, method
    async with aiohttp.ClientSession() as client:
        assert (await get(client, server, "/static/tavern.css"))[0] == 200


# ------------------------------------------------------------------------------------------- sockets


async def closed_with(ws: aiohttp.ClientWebSocketResponse) -> int | None:
    """Read until the server closes the socket; its close code."""
    while True:
        message = await ws.receive(timeout=5)
        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
            return ws.close_code
        assert message.type is aiohttp.WSMsgType.TEXT


async def test_bad_socket_messages_close_only_their_socket(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    server.guard = Guard(opens=1000, open_burst=1000)  # this test opens sockets quickly on purpose
    table = await practice(fake, bot, fake.add_user("alice"))
    socket = url(server, live_path(bot, table.id) + "/ws")
    async with aiohttp.ClientSession() as client:
        calm = await client.ws_connect(socket)
        assert (await calm.receive_json(timeout=5))["seq"] == table.seq
        cases: list[tuple[str | bytes, int]] = [
            ("x" * 1_000_000, 1009),
            ('{"ping": 1, "pad": "' + "y" * 600 + '"}', 1009),
            ("not json", 1008),
            (b"\x00\x01", 1008),
            ('{"ping": "1"}', 1008),
            ('{"ping": 1, "more": 2}', 1008),
            ("[1]", 1008),
            ('{"ping": true}', 1008),
        ]
        for sent, code in cases:
            ws = await client.ws_connect(socket)
            await ws.receive_json(timeout=5)
            await (ws.send_bytes(sent) if isinstance(sent, bytes) else ws.send_str(sent))
            assert await closed_with(ws) == code, sent[:40]
            await ws.close()
        flood = await client.ws_connect(socket)
        await flood.receive_json(timeout=5)
        for n in range(20):  # pings beyond a few a second
            await flood.send_json({"ping": n})
        assert await closed_with(flood) == 1008

        await calm.send_json({"ping": 3})
        assert await calm.receive_json(timeout=5) == {"pong": 3}  # the others never noticed
        assert (await get(client, server, live_path(bot, table.id)))[0] == 200
        await calm.close()
    await asyncio.sleep(0.05)
    assert server.fanout.viewers == 0 and server.guard.refused == 0


async def test_sockets_per_address_are_limited(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    table = await practice(fake, bot, fake.add_user("alice"))
    socket = url(server, live_path(bot, table.id) + "/ws")
    async with aiohttp.ClientSession() as client:
        opened = [await client.ws_connect(socket) for _ in range(4)]  # the burst of openings
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(socket)  # opening faster than 2 a second
        assert refused.value.status == 429 and refused.value.headers is not None
        assert int(refused.value.headers["Retry-After"]) >= 1
        for ws in opened:
            await ws.close()
        server.guard = Guard(opens=1000, open_burst=1000)  # openings not limited: the open sockets are
        opened = [await client.ws_connect(socket) for _ in range(8)]
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(socket)
        assert refused.value.status == 429
        await opened.pop().close()
        await asyncio.sleep(0.05)
        opened.append(await client.ws_connect(socket))  # one closed: one may open
        await opened.pop().close()
        await asyncio.sleep(0.05)
        server.fanout.most = server.fanout.viewers  # the process keeps as many browsers as it takes
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(socket)
        assert refused.value.status == 429
        for ws in opened:
            await ws.close()


async def test_behind_a_trusted_proxy_each_client_has_its_own_limits(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """With TAVERN_WEB_PROXIES naming the proxy (127.0.0.1 here), a request counts against the client the
    proxy names last in X-Forwarded-For; what a client wrote before that, and the header from anyone who is
    not a trusted proxy, is not believed."""
    fake = fake_discord
    bot, server = await served(start_bot, dataclasses.replace(settings, web_proxies=("127.0.0.1/32",)))
    table = await practice(fake, bot, fake.add_user("alice"))
    page = url(server, live_path(bot, table.id))
    async with aiohttp.ClientSession() as first, first.get(page) as response:
        assert response.status == 200  # the page is built (and kept): each request below costs one
    server.guard = Guard(rate=0.001, burst=2)  # two requests per address, then 429

    async def status(client: Client, forwarded: str | None) -> int:
        headers = {"X-Forwarded-For": forwarded} if forwarded is not None else {}
        async with client.get(page, headers=headers) as response:
            return response.status

    async with aiohttp.ClientSession() as proxy:
        for client_ip in ("198.51.100.7", "198.51.100.8", "2001:db8::1"):  # three people, two pages each
            assert [await status(proxy, f"203.0.113.9, {client_ip}") for _ in range(3)] == [200, 200, 429]
        spoofed = [await status(proxy, f"198.51.100.{n}, 192.0.2.50") for n in range(3)]
        assert spoofed == [200, 200, 429]  # the client's own left-hand entries change nothing
        assert [await status(proxy, None) for _ in range(3)] == [200, 200, 429]  # the proxy itself
    elsewhere = aiohttp.TCPConnector(
        local_addr=("127.0.0.2", 0)
    )  # not a trusted proxy: its header is not read
    async with aiohttp.ClientSession(connector=elsewhere) as stranger:
        said = [await status(stranger, f"198.51.100.{n}") for n in range(10, 13)]
    assert said == [200, 200, 429]
    assert "198.51.100.10" not in server.guard._seen


async def proxied(
    start_bot: StartBot, settings: Settings, fake: FakeDiscord
) -> tuple[Callable[[list[tuple[str, str]]], Any], WebServer]:
    """The bot behind a trusted proxy (127.0.0.1), its live page built, and two requests per address; what
    asks for the page with the headers given (each a line of its own), answering its status."""
    bot, server = await served(start_bot, dataclasses.replace(settings, web_proxies=("127.0.0.1/32",)))
    table = await practice(fake, bot, fake.add_user("alice"))
    page = url(server, live_path(bot, table.id))
    async with aiohttp.ClientSession() as first, first.get(page) as response:
        assert response.status == 200  # built (and kept): each request below costs one
    server.guard = Guard(rate=0.001, burst=2)

    async def status(lines: list[tuple[str, str]]) -> int:
        async with aiohttp.ClientSession() as proxy, proxy.get(page, headers=CIMultiDict(lines)) as response:
            return response.status

    return status, server


async def test_every_forwarded_line_is_read(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """A proxy that adds a header line of its own (HAProxy's ``option forwardfor``) rather than extend the
    client's: the client is what the proxy wrote, the last line's nearest untrusted address. What a client
    writes in its own line neither chooses the address it is limited as nor spends another's allowance
    (before, only the first line was read: the client's own)."""
    status, server = await proxied(start_bot, settings, fake_discord)
    xff = "X-Forwarded-For"
    spoofing = [await status([(xff, f"198.51.100.{n}"), (xff, "192.0.2.50")]) for n in range(3)]
    assert spoofing == [200, 200, 429]  # three made-up addresses, one real client: its two requests
    victim = "192.0.2.77"
    for _ in range(3):  # another client writes the victim's address in its own line
        await status([(xff, victim), (xff, "192.0.2.51")])
    assert [await status([(xff, victim)]) for _ in range(3)] == [200, 200, 429]  # its allowance, whole
    chained = [(xff, "203.0.113.1, 127.0.0.1"), (xff, "192.0.2.60, 127.0.0.1")]  # trusted hops, then it
    assert [await status(chained) for _ in range(3)] == [200, 200, 429]
    assert {"192.0.2.50", "192.0.2.51", victim, "192.0.2.60"} <= set(server.guard._seen)
    assert not {"198.51.100.0", "198.51.100.1", "203.0.113.1"} & set(server.guard._seen)


async def test_forwarded_addresses_with_ports_are_their_clients(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """A proxy that writes ``IP:port`` (or ``[IPv6]:port``): each client is its address, whatever its port
    (before, such an entry was not read as an address, and every client counted as the proxy)."""
    status, _ = await proxied(start_bot, settings, fake_discord)
    xff = "X-Forwarded-For"
    for client, other in (
        ("192.0.2.10:41000", "192.0.2.10:41001"),
        ("[2001:db8::1]:443", "[2001:db8::2]:8443"),  # one /64 network: one client
        ("192.0.2.11:5000", "192.0.2.11"),
    ):
        got = [await status([(xff, hop)]) for hop in (client, other, client)]
        assert got == [200, 200, 429], (client, got)
    assert await status([(xff, "[2001:db8:1::1]:443")]) == 200  # another network
    assert await status([]) == 200 and await status([(xff, "unknown")]) == 200  # the proxy's own two


@pytest.mark.parametrize(
    ("lines", "client"),
    [
        ([], "10.0.0.1"),
        (["192.0.2.1"], "192.0.2.1"),
        (["192.0.2.1:8080"], "192.0.2.1"),
        (['"192.0.2.1:8080"'], "192.0.2.1"),
        (["[2001:db8::5]:443"], "2001:db8::5"),
        (["[2001:db8::5]"], "2001:db8::5"),
        (["2001:db8::5"], "2001:db8::5"),
        (["::ffff:192.0.2.9"], "::ffff:c000:209"),
        (["fe80::1%eth0"], "fe80::1"),
        (["198.51.100.1, 192.0.2.1"], "192.0.2.1"),
        (["198.51.100.1", "192.0.2.1, 10.0.0.2"], "192.0.2.1"),  # 10.0.0.2: a trusted proxy
        (["198.51.100.1", "10.0.0.3", "10.0.0.2"], "198.51.100.1"),
        (["10.0.0.3, 10.0.0.2"], "10.0.0.1"),  # only proxies: the peer
        (["198.51.100.1, unknown"], "10.0.0.1"),  # what the proxy wrote can't be read: the proxy
        (["198.51.100.1, 192.0.2.1:99999"], "10.0.0.1"),
        (["198.51.100.1, [::1"], "10.0.0.1"),
        (["192.0.2.1, " + ", ".join(["10.0.0.2"] * 40)], "10.0.0.1"),  # past the hops read
        (["192.0.2.7", *["10.0.0.2"] * 40], "10.0.0.1"),
    ],
)
def test_the_client_behind_trusted_proxies(lines: list[str], client: str) -> None:
    proxies = (ipaddress.ip_network("10.0.0.0/8"),)
    assert forwarded_client("10.0.0.1", lines, proxies) == client
    assert forwarded_client("192.0.2.200", lines, proxies) == "192.0.2.200"  # not a proxy: not read
    assert forwarded_client("10.0.0.1", lines, ()) == "10.0.0.1"  # no proxy trusted: not read


# ------------------------------------------------------------------------------------------- a flood


async def test_ten_thousand_requests_from_one_address(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """One address sends 10,000 requests, 50 at a time: nearly all are refused (429) at once, while
    another address (127.0.0.2) is served meanwhile without waiting behind them."""
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    table = await practice(fake, bot, fake.add_user("alice"))
    page = url(server, live_path(bot, table.id))
    statuses: dict[int, int] = {}
    answered: list[bool] = []  # for each of the other address's requests: answered while the flood went on
    flooding = True

    async def flood(client: Client, share: range) -> None:
        for _ in share:
            async with client.get(page) as response:
                await response.read()
                statuses[response.status] = statuses.get(response.status, 0) + 1

    async def probe() -> None:
        connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        async with aiohttp.ClientSession(connector=connector) as other:
            while flooding or len(answered) < 5:
                async with other.get(page) as response:
                    assert response.status == 200 and "alice" in await response.text()
                answered.append(flooding)
                await asyncio.sleep(0.02)

    began = time.perf_counter()
    prober = asyncio.create_task(probe())
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=50)) as client:
        await asyncio.gather(*(flood(client, range(200)) for _ in range(50)))
    took = time.perf_counter() - began
    flooding = False
    await prober

    assert sum(statuses.values()) == 10_000 and set(statuses) <= {200, 429}, statuses
    assert statuses.get(200, 0) <= 60 + 20 * took + 5, (statuses, took)  # the burst, then 20 a second
    assert server.guard.refused >= 10_000 - statuses.get(200, 0)
    # Not held back: the other address is answered while the flood goes on, not after it (how fast, beside
    # how fast alone, is bench/bench_web_flood.py's to judge: timings are no test's).
    assert any(answered), (answered, took)
    assert len(server.guard) <= 3  # two addresses (and nothing else) remembered
    print(
        f"\n10,000 requests in {took:.2f} s ({statuses}); the other address: {len(answered)} requests, "
        f"{sum(answered)} answered during the flood"
    )


# ------------------------------------------------------------------------------------------- the guard itself


def test_the_guards_memory_is_bounded_and_idle_addresses_go() -> None:
    now = [0.0]
    guard = Guard(most=1000, clock=lambda: now[0])
    for n in range(100_000):
        assert guard.allow(f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}") == 0
    assert len(guard) <= 1000
    now[0] += 3600  # every address idle: each new one lets a few old ones go
    for n in range(300):
        guard.allow(f"192.168.0.{n % 250}")
    assert len(guard) <= 1000 - 2 * 250

    guard = Guard(rate=1, burst=2, clock=lambda: now[0])
    assert [guard.allow("2001:db8::1") == 0, guard.allow("2001:db8::ffff") == 0] == [True, True]
    assert guard.allow("2001:db8:0:0:1::1") > 0  # one /64 network counts as one address
    assert guard.allow("2001:db8:0:1::1") == 0  # the next network is another
    now[0] += 1.0
    assert guard.allow("2001:db8::2") == 0 and guard.allow("2001:db8::2") > 0
    assert address_key("::ffff:10.0.0.1") == "10.0.0.1" and address_key(None) == "-"


def test_sockets_of_an_address_are_counted_and_kept_in_memory() -> None:
    now = [0.0]
    guard = Guard(sockets=2, opens=100, open_burst=100, most=10, clock=lambda: now[0])
    assert guard.open("1.1.1.1") == 0 and guard.open("1.1.1.1") == 0
    assert guard.open("1.1.1.1") > 0
    for n in range(50):  # a crowd of other addresses: the watching one is not forgotten
        guard.allow(f"2.2.2.{n}")
    assert guard.open("1.1.1.1") > 0
    guard.close("1.1.1.1")
    assert guard.open("1.1.1.1") == 0


def test_files_sent_from_memory_cost_a_fraction_of_a_page() -> None:
    """A live page of many cards loads whole: its pictures count a fifth of a page each."""
    now = [0.0]
    guard = Guard(rate=20, burst=60, clock=lambda: now[0])
    assert all(guard.allow("192.0.2.1", FILE_COST) == 0 for _ in range(300))  # 300 pictures at once
    assert guard.allow("192.0.2.1", FILE_COST) > 0 and guard.allow("192.0.2.1") > 0
    assert all(guard.allow("192.0.2.2") == 0 for _ in range(60)) and guard.allow("192.0.2.2") > 0
