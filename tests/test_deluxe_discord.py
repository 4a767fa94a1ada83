"""Bharg Deluxe through the real discord.py client against the fake Discord: lobby to result by clicks only."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest

from bot.app import TavernBot
from bot.rules import deluxe as D
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionResult

EXTENSIONS = ["cogs.general", "cogs.deluxe"]


async def boot(start_bot: StartBot, settings: Settings | None = None, seed: int | None = 5) -> TavernBot:
    bot = await start_bot(settings, extensions=EXTENSIONS)
    cog: Any = bot.get_cog("Deluxe")
    cog.seed_source = lambda: seed
    return bot


async def open_table(
    fake: FakeDiscord, users: list[FakeUser], channel: FakeChannel | None = None, **options: Any
) -> FakeMessage:
    """Create a lobby as the first user, the others join, the host starts; returns the lobby message."""
    channel = channel or fake.channel
    created = await fake.slash(users[0], channel, "deluxe create", **options)
    lobby = created.message
    assert not created.ephemeral and "Join" in [b.label for b in lobby.buttons()]
    for u in users[1:]:
        joined = await fake.click(u, lobby, "Join")
        assert u.name in joined.message.content
    started = await fake.click(users[0], lobby, "Start")
    assert "has started" in started.message.content and lobby.buttons() == []
    return lobby


def pings(fake: FakeDiscord, channel: FakeChannel | None = None) -> list[FakeMessage]:
    return [m for m in fake.channel_messages(channel or fake.channel) if "your turn" in m.content or "bind once more" in m.content]


def live_panel(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    """The user's newest DM that still has controls."""
    for m in reversed(fake.dms(user)):
        if m.buttons() or m.selects():
            return m
    raise AssertionError(f"{user.name} has no DM panel with controls")


def to_move(fake: FakeDiscord, users: list[FakeUser], channel: FakeChannel | None = None) -> FakeUser:
    last = pings(fake, channel)[-1]
    found = [u for u in users if last.content.count(u.mention)]
    assert len(found) == 1, last.content
    return found[0]


def labels(msg: FakeMessage) -> list[str | None]:
    return [b.label for b in msg.buttons()]


async def play_turn(fake: FakeDiscord, user: FakeUser, panel: FakeMessage) -> dict[str, int]:
    """Draw from the deck, bind every suggested meld (first one each time), discard the first card."""
    did = {"binds": 0}
    if "Draw from deck" in labels(panel):
        res = await fake.click(user, panel, "Draw from deck")
        panel = res.message
    while True:
        names = labels(panel)
        if "Suggest melds" not in names:
            return did  # the hand ended (went out) or the move passed
        res = await fake.click(user, panel, "Suggest melds")
        panel = res.message
        if "Bind 1" in labels(panel):
            res = await fake.click(user, panel, "Bind 1")
            panel = res.message
            did["binds"] += 1
            continue
        panel = (await fake.click(user, panel, "Back to my cards")).message
        if "Done" in labels(panel):
            await fake.click(user, panel, "Done")
            return did
        first = panel.selects()[0]
        panel = (await fake.select(user, panel, first.custom_id, [first.options[0].value])).message
        discard = [b for b in panel.buttons() if b.label and b.label.startswith("Discard ")]
        assert len(discard) == 1 and not discard[0].disabled, labels(panel)
        await fake.click(user, panel, discard[0].label or "")
        return did


async def test_whole_three_player_game_by_clicks(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    users = [fake.add_user(n) for n in ("ann", "bob", "cat")]
    await open_table(fake, users, target=30)
    table = bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.game == "deluxe"
    board_id = (await bot.store.get_meta(table.id))["board"]
    turns = 0
    while not any("Rematch" in labels(m) for m in fake.channel_messages(fake.channel)):
        user = to_move(fake, users)
        panel = live_panel(fake, user)
        await play_turn(fake, user, panel)
        turns += 1
        assert turns < 400
    msgs = fake.channel_messages(fake.channel)
    final = [m for m in msgs if "Rematch" in labels(m)][0]
    assert "Game over" in final.content
    print(turns, time.time())
