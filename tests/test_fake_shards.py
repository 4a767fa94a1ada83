"""The fake Discord routes gateway traffic by shard as Discord does, so bot processes that each run some
shards of one application can be tested together: checked here through real discord.py clients."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
import yarl
from discord.ext import commands

from tests.fakediscord import FAKE_TOKEN, FakeChannel, FakeDiscord, FakeGuild, FakeUser, shard_of

Seen = list[tuple[str, int | None]]  # (gateway event, its guild_id) in the order a client received them
World = tuple[FakeGuild, FakeChannel, FakeGuild, FakeChannel]  # a guild and channel on shard 0, then 1


class WhereView(discord.ui.View):
    """A persistent button that answers with the name of the client it reached."""

    def __init__(self, label: str) -> None:
        super().__init__(timeout=None)
        self.label = label

    @discord.ui.button(label="Where", custom_id="where:click")
    async def where(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.send_message(f"{self.label} clicked")


class Recording(commands.Bot):
    """A bot that records every gateway event reaching it and answers ``/where`` and the Where button with
    its label, so a test sees which process got what."""

    label = ""
    seen: Seen

    def _record_as(self, label: str) -> None:
        self.label = label
        self.seen = []

        @self.tree.command(name="where", description="Which process answers")
        async def where(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message(self.label, view=WhereView(self.label))

        _ = where

    async def setup_hook(self) -> None:
        self.add_view(WhereView(self.label))

    async def on_socket_raw_receive(self, raw: str) -> None:
        frame = json.loads(raw)
        if frame.get("t"):
            d = frame.get("d") or {}
            guild_id = d.get("id") if frame["t"] == "GUILD_CREATE" else d.get("guild_id")
            self.seen.append((frame["t"], int(guild_id) if guild_id else None))

    def got(self, event: str) -> list[int | None]:
        """The guild_id of every ``event`` this client received, in order."""
        return [guild_id for name, guild_id in self.seen if name == event]


BOT_OPTIONS: dict[str, Any] = {
    "command_prefix": commands.when_mentioned,
    "intents": discord.Intents(guilds=True),
    "guild_ready_timeout": 0.01,
    "enable_debug_events": True,  # for on_socket_raw_receive
}


class Client(Recording, commands.AutoShardedBot):
    """One bot process running ``shard_ids`` of ``shard_count`` (None: as GET /gateway/bot says)."""

    def __init__(
        self, label: str, *, shard_ids: list[int] | None = None, shard_count: int | None = None
    ) -> None:
        super().__init__(**{**BOT_OPTIONS, "shard_ids": shard_ids, "shard_count": shard_count})
        self._record_as(label)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """No 5 s pause between the shards of one process: the fake has no identify rate limit."""


class PlainClient(Recording):
    """The same bot unsharded: one connection that identifies without a ``shard``."""

    def __init__(self, label: str) -> None:
        super().__init__(**BOT_OPTIONS)
        self._record_as(label)


@contextlib.asynccontextmanager
async def running(*clients: commands.Bot) -> AsyncIterator[None]:
    """Start the clients one after the other (each ready before the next), close them all at the end."""
    tasks: list[asyncio.Task[None]] = []
    try:
        for client in clients:
            task = asyncio.create_task(client.start(FAKE_TOKEN))
            tasks.append(task)
            ready = asyncio.create_task(client.wait_until_ready())
            done, _ = await asyncio.wait({task, ready}, timeout=5, return_when=asyncio.FIRST_COMPLETED)
            if ready not in done:
                ready.cancel()
                if task in done:
                    task.result()
                raise AssertionError(f"client {getattr(client, 'label', client)} was not ready within 5 s")
        yield
    finally:
        for client in clients:
            await client.close()
        for task in tasks:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 5)


def guilds_on(fake: FakeDiscord, shard: int, shard_count: int = 2) -> set[int]:
    """The ids of the fake's guilds that Discord gives to ``shard``."""
    return {g.id for g in fake.guilds.values() if shard_of(g, shard_count) == shard}


@pytest.fixture
def world(fake_discord: FakeDiscord) -> World:
    """A guild with a channel on each of two shards (alice is in both)."""
    g0 = fake_discord.add_guild("zero", shard=0)
    g1 = fake_discord.add_guild("one", shard=1)
    c0 = fake_discord.add_channel("zero", g0)
    c1 = fake_discord.add_channel("one", g1)
    fake_discord.add_user("alice")
    return g0, c0, g1, c1


def alice(fake: FakeDiscord) -> FakeUser:
    return next(u for u in fake.users.values() if u.name == "alice")


def test_guild_ids_are_picked_on_the_asked_shard() -> None:
    fake = FakeDiscord()
    ids = [fake.add_guild(f"g{i}", shard=i % 3, shard_count=3).id for i in range(7)]
    assert [shard_of(i, 3) for i in ids] == [i % 3 for i in range(7)]
    assert ids == sorted(ids) and len(set(ids)) == 7
    assert fake.ids.next() > ids[-1]  # later ids continue after the skipped-ahead ones
    assert shard_of(fake.guilds[ids[4]], 3) == 1


async def test_each_shard_gets_only_its_guilds(fake_discord: FakeDiscord, world: World) -> None:
    g0, _, g1, _ = world
    a = Client("A", shard_ids=[0], shard_count=2)
    b = Client("B", shard_ids=[1], shard_count=2)
    async with running(a, b):
        assert {g.id for g in a.guilds} == guilds_on(fake_discord, 0) and g0.id in guilds_on(fake_discord, 0)
        assert {g.id for g in b.guilds} == guilds_on(fake_discord, 1) and g1.id in guilds_on(fake_discord, 1)
        assert a.got("GUILD_CREATE") == [g.id for g in fake_discord.guilds.values() if shard_of(g, 2) == 0]
        assert b.got("GUILD_CREATE") == [g.id for g in fake_discord.guilds.values() if shard_of(g, 2) == 1]
        assert a.shard_count == b.shard_count == 2
        assert a.get_shard(0) is not None and b.get_shard(1) is not None
        assert fake_discord.live_shards() == [(0, 2), (1, 2)]


async def test_interactions_reach_only_the_guilds_shard_and_dms_shard_0(
    fake_discord: FakeDiscord, world: World
) -> None:
    g0, c0, g1, c1 = world
    user = alice(fake_discord)
    dm = fake_discord.dm_channel(user)
    a = Client("A", shard_ids=[0], shard_count=2)
    b = Client("B", shard_ids=[1], shard_count=2)
    async with running(a, b):
        await a.tree.sync()
        on_one = await fake_discord.slash(user, c1, "where")
        assert on_one.content == "B" and on_one.interaction.shard == 1
        clicked = await fake_discord.click(user, on_one.message, "Where")
        assert clicked.content == "B clicked" and clicked.interaction.shard == 1

        in_dm = await fake_discord.slash(user, dm, "where")
        assert in_dm.content == "A" and in_dm.interaction.shard == 0
        clicked = await fake_discord.click(user, in_dm.message, "Where")
        assert clicked.content == "A clicked" and clicked.interaction.shard == 0

        on_zero = await fake_discord.slash(user, c0, "where")
        assert on_zero.content == "A" and on_zero.interaction.shard == 0

        assert a.got("INTERACTION_CREATE") == [None, None, g0.id]
        assert b.got("INTERACTION_CREATE") == [g1.id, g1.id]
        assert [it.shard for it in fake_discord.interactions] == [1, 1, 0, 0, 0]


async def test_guild_events_reach_only_the_guilds_shard(fake_discord: FakeDiscord, world: World) -> None:
    g0, c0, g1, c1 = world
    a = Client("A", shard_ids=[0], shard_count=2)
    b = Client("B", shard_ids=[1], shard_count=2)
    async with running(a, b):
        await fake_discord.set_bot_permissions(c1, discord.Permissions(view_channel=True).value)
        await fake_discord.delete_channel(c0)
        await fake_discord.wait_for(lambda: b.got("CHANNEL_UPDATE") and a.got("CHANNEL_DELETE"))
        assert b.got("CHANNEL_UPDATE") == [g1.id] and a.got("CHANNEL_UPDATE") == []
        assert a.got("CHANNEL_DELETE") == [g0.id] and b.got("CHANNEL_DELETE") == []


async def test_newest_connection_of_a_shard_wins_and_a_missing_shard_gets_nothing(
    fake_discord: FakeDiscord, world: World
) -> None:
    _, _, _, c1 = world
    user = alice(fake_discord)
    a = Client("A", shard_ids=[0], shard_count=2)
    old = Client("old B", shard_ids=[1], shard_count=2)
    new = Client("new B", shard_ids=[1], shard_count=2)
    async with running(a, old, new):
        await a.tree.sync()
        assert (await fake_discord.slash(user, c1, "where")).content == "new B"
        assert old.got("INTERACTION_CREATE") == []

        await new.close()
        await fake_discord.wait_for(lambda: fake_discord.live_shards() == [(0, 2), (1, 2)])
        assert (await fake_discord.slash(user, c1, "where")).content == "old B"

        await old.close()
        await fake_discord.wait_for(lambda: fake_discord.live_shards() == [(0, 2)])
        fake_discord.reply_timeout = 0.2
        with pytest.raises(AssertionError, match="not delivered"):
            await fake_discord.slash(user, c1, "where")
        assert fake_discord.interactions[-1].shard is None
        assert a.got("INTERACTION_CREATE") == []
        dm = await fake_discord.slash(user, fake_discord.dm_channel(user), "where")
        assert dm.content == "A" and dm.interaction.shard == 0


async def gateway_identify(fake: FakeDiscord, shard: list[int] | None) -> aiohttp.WSMessage:
    """IDENTIFY over a raw websocket and return the next frame: READY, or the close."""
    d: dict[str, Any] = {"token": FAKE_TOKEN, "intents": 1, "properties": {}}
    if shard is not None:
        d["shard"] = shard
    async with aiohttp.ClientSession() as session, session.ws_connect(fake.gateway_url) as ws:
        assert (await ws.receive_json(timeout=2))["op"] == 10
        await ws.send_json({"op": 2, "d": d})
        return await ws.receive(timeout=2)


@pytest.mark.parametrize("shard", [[2, 2], [0, 0], [-1, 2], [5, 3]])
async def test_an_invalid_shard_is_closed_with_4010(fake_discord: FakeDiscord, shard: list[int]) -> None:
    msg = await gateway_identify(fake_discord, shard)
    assert (msg.type, msg.data, msg.extra) == (aiohttp.WSMsgType.CLOSE, 4010, "Invalid shard.")
    assert fake_discord.identify_count == 0


@pytest.mark.parametrize(("shard", "echo"), [([1, 2], [1, 2]), (None, [0, 1])])
async def test_ready_lists_the_shards_guilds_and_echoes_it(
    fake_discord: FakeDiscord, world: World, shard: list[int] | None, echo: list[int]
) -> None:
    msg = await gateway_identify(fake_discord, shard)
    assert msg.type == aiohttp.WSMsgType.TEXT
    ready = json.loads(msg.data)
    assert ready["t"] == "READY" and ready["d"]["shard"] == echo
    listed = {int(g["id"]) for g in ready["d"]["guilds"]}
    assert listed == guilds_on(fake_discord, echo[0], echo[1])


async def test_a_single_client_sees_every_guild_and_interaction(
    fake_discord: FakeDiscord, world: World
) -> None:
    g0, c0, g1, c1 = world
    user = alice(fake_discord)
    bot = PlainClient("solo")
    async with running(bot):
        assert {g.id for g in bot.guilds} == set(fake_discord.guilds)
        assert bot.got("GUILD_CREATE") == list(fake_discord.guilds)
        await bot.tree.sync()
        for channel in (c0, c1, fake_discord.dm_channel(user)):
            result = await fake_discord.slash(user, channel, "where")
            assert result.content == "solo" and result.interaction.shard == 0
        await fake_discord.set_bot_permissions(c1, discord.Permissions(view_channel=True).value)
        await fake_discord.wait_for(lambda: bot.got("CHANNEL_UPDATE"))
        assert bot.got("INTERACTION_CREATE") == [g0.id, g1.id, None]
        assert bot.got("CHANNEL_UPDATE") == [g1.id]
        assert fake_discord.live_shards() == [(0, 1)]


@pytest.mark.parametrize("recommended", [1, 2])
async def test_without_a_shard_count_the_client_asks_gateway_bot(
    fake_discord: FakeDiscord, world: World, monkeypatch: pytest.MonkeyPatch, recommended: int
) -> None:
    # Only /gateway/bot's url leads to the fake: DEFAULT_GATEWAY is unused when discord.py asks for it.
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL("ws://127.0.0.1:9/"))
    fake_discord.recommended_shards = recommended
    client = Client("auto")
    async with running(client):
        assert ("GET", "/api/v10/gateway/bot", 200) in fake_discord.requests
        assert client.shard_count == recommended
        assert fake_discord.live_shards() == [(i, recommended) for i in range(recommended)]
        assert {g.id for g in client.guilds} == set(fake_discord.guilds)
