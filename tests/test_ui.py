"""Shared plumbing: keyed locks, strict custom ids, and a lobby whose message never went out."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.base.clock import Clock
from bot.base.locks import KeyedLocks
from bot.base.refusals import UserFacingError
from bot.edge.custom_ids import custom_id, parse
from bot.edge.table import TableController
from bot.games import GAMES
from bot.services.cooldowns import Limits
from bot.services.languages import Languages
from bot.services.lobbies import LobbyService
from bot.services.server_settings import ServerSettings
from bot.services.tables import TableService
from bot.store import SQLiteStore
from tests.conftest import make_settings


async def test_same_key_waits_other_keys_do_not() -> None:
    locks = KeyedLocks()
    order: list[str] = []
    release = asyncio.Event()

    async def hold(key: int, name: str) -> None:
        async with locks(key):
            order.append(f"{name} in")
            if name == "first":
                await release.wait()
            order.append(f"{name} out")

    first = asyncio.create_task(hold(1, "first"))
    await asyncio.sleep(0)
    second = asyncio.create_task(hold(1, "second"))
    other = asyncio.create_task(hold(2, "other"))
    await asyncio.sleep(0.01)
    assert order == ["first in", "other in", "other out"]
    assert len(locks) == 1  # key 2 is already forgotten; key 1 is held and waited for
    release.set()
    await asyncio.gather(first, second, other)
    assert order[3:] == ["first out", "second in", "second out"]
    assert len(locks) == 0


async def test_a_failing_holder_frees_its_key() -> None:
    locks = KeyedLocks()
    try:
        async with locks(7):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert len(locks) == 0
    async with locks(7):
        assert len(locks) == 1


def test_custom_ids_round_trip_and_forgeries_are_refused() -> None:
    cid = custom_id("g", 12, "play", token="7", arg="31")
    click = parse(cid, ("1",))
    assert (click.scope, click.key, click.token, click.verb, click.arg, click.values) == (
        "g",
        12,
        "7",
        "play",
        "31",
        ("1",),
    )
    for forged in (
        "tv:g:1²:7:play",
        "tv:x:1:7:play",
        "tv:g:" + "9" * 21 + ":7:play",
        "tv:g:1:7:PLAY",
        "nope",
    ):
        with pytest.raises(UserFacingError, match="out of date"):
            parse(forged)
    with pytest.raises(ValueError):
        custom_id("g", 1, "play", arg="x" * 100)


class _Response:
    def __init__(self, fail: bool) -> None:
        self.fail = fail

    async def send_message(self, **kwargs: Any) -> Any:
        if self.fail:
            raise discord.HTTPException(SimpleNamespace(status=500, reason="boom"), "boom")
        return SimpleNamespace(message_id=4242)


@pytest.mark.parametrize("fail", [False, True])
async def test_a_lobby_whose_message_failed_is_cancelled(tmp_path: Path, fail: bool) -> None:
    store = await SQLiteStore.open(tmp_path / "t.sqlite3")
    try:
        clock = Clock()
        tables = TableService(store, clock=clock, games=GAMES)
        settings = make_settings(tmp_path)
        lobbies = LobbyService(store, tables, settings, clock=clock, locks=KeyedLocks())
        server_settings = ServerSettings(store, settings, GAMES)
        languages = Languages(store, server_settings, lambda guild_id: None)
        bot: Any = SimpleNamespace(
            tables=tables,
            lobbies=lobbies,
            clock=clock,
            settings=settings,
            server_settings=server_settings,
            languages=languages,
        )
        limits = Limits(settings.openings_per_minute, settings.calculations_per_minute, clock)
        controller = TableController(bot, limits)
        user = SimpleNamespace(id=3, name="ann", display_name="ann", bot=False)
        interaction: Any = SimpleNamespace(
            guild_id=1,
            channel_id=2,
            is_guild_integration=lambda: True,  # the server added the bot
            context=discord.app_commands.AppCommandContext(guild=True),  # in a server's channel
            user=user,
            app_permissions=discord.Permissions.all(),
            response=_Response(fail),
        )
        if fail:
            with pytest.raises(discord.HTTPException):
                await controller.commands.open_lobby(interaction, "deluxe", {})
        else:
            await controller.commands.open_lobby(interaction, "deluxe", {})
        (lobby,) = [x for x in [await store.get_lobby(1)] if x is not None]
        assert (lobby.status, lobby.message_id) == (("cancelled", None) if fail else ("open", 4242))
        assert [x.id for x in await store.open_lobbies(channel_id=2)] == ([] if fail else [lobby.id])
    finally:
        await store.close()
