"""A game plugs in with an adapter alone: "Race" (tests/fakegame.py) plays through the real controller, lobby
service, delivery and timer, against the fake Discord, with nothing added to bot/ or cogs/ for it."""

from __future__ import annotations

import dataclasses
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.edge.app import TavernBot
from bot.edge.table.presses import Presses
from bot.games import GAMES
from bot.settings import Settings
from tests import fakegame
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser


def plug_in_race(bot: TavernBot) -> None:
    """What a new game brings: its adapter in the registry and one command that opens its lobby."""
    bot.games = {**{name: GAMES[name] for name in GAMES}, "race": fakegame.ADAPTER}

    @app_commands.command(name="race", description="Open a race")
    async def race(interaction: discord.Interaction[Any], target: int = 6) -> None:
        await bot.controller.commands.open_lobby(interaction, "race", {"target": target})

    bot.tree.add_command(race)


def live_panel(fake: FakeDiscord, user: FakeUser) -> FakeMessage | None:
    for m in reversed(fake.dms(user)):
        if any(not b.disabled for b in m.buttons()):
            return m
    return None


async def test_a_race_from_lobby_to_rematch(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot(setup=plug_in_race)
    ann, bob, cat = fake.add_user("ann"), fake.add_user("bob"), fake.add_user("cat")
    opened = await fake.slash(ann, fake.channel, "race", target=6)
    lobby = opened.message
    assert "**Race** to 6" in lobby.content and [b.label for b in lobby.buttons()] == ["Join", "Start"]
    await fake.click(bob, lobby, "Join")
    await fake.click(cat, lobby, "Join")
    started = await fake.click(ann, lobby, "Start")
    # The lobby becomes the table's board, through the Start press; no board is posted apart.
    assert started.message is lobby and lobby.content.startswith("**Race board**") and lobby.buttons() == []
    await fake.settle()
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.game == "race" and table.names == ("ann", "bob", "cat")
    boards = [m for m in fake.channel_messages(fake.channel) if m.content.startswith("**Race board**")]
    assert boards == [lobby] and table.meta.board_id == lobby.id

    users = [ann, bob, cat]
    moves = 0
    while table.status == "active":
        mover = users[table.waiting_for()[0]]
        panel = live_panel(fake, mover)
        assert panel is not None, f"{mover.name} has no live panel"
        done = await fake.click(mover, panel, "Add 3")
        assert done.message.content == "Added." and done.message.buttons() == []
        await fake.settle()
        moves += 1
        assert moves < 10
    assert table.state.over and boards[0].edits
    assert "Race over." in boards[0].content
    last = fake.last_message(fake.channel)
    assert "adds 3" in last.content and [b.label for b in last.buttons()] == ["Rematch"]
    record = await bot.store.load_game(table.id)
    assert record is not None and record.status == "finished" and len(record.actions) == moves

    again = await fake.click(bob, last, "Rematch")
    assert not again.ephemeral and "**Race** to 6" in again.content
    assert all(name in again.content for name in ("ann", "bob", "cat"))


async def test_a_race_is_nudged_then_claimed_on_the_shared_timer(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    timed = dataclasses.replace(settings, nudge_minutes=1, claim_minutes=3)
    bot = await start_bot(timed, setup=plug_in_race)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    lobby = (await fake.slash(ann, fake.channel, "race")).message
    await fake.click(bob, lobby, "Join")
    await fake.click(ann, lobby, "Start")
    await fake.settle()
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    idle, other = ([ann, bob][s] for s in (table.waiting_for()[0], 1 - table.waiting_for()[0]))

    bot.clock.advance(30)
    await bot.controller.timers.run()
    await fake.settle()
    assert not [m for m in fake.channel_messages(fake.channel) if "waiting for you" in m.content]
    bot.clock.advance(60)
    await bot.controller.timers.run()
    await bot.controller.timers.run()
    await fake.settle()
    nudges = [m for m in fake.channel_messages(fake.channel) if "waiting for you" in m.content]
    assert len(nudges) == 1 and idle.mention in nudges[0].content

    bot.clock.advance(3 * 60)
    await bot.controller.timers.run()
    await fake.settle()
    (offer,) = [m for m in fake.channel_messages(fake.channel) if "claim the race" in m.content]
    refused = await fake.click(idle, offer, "Claim the race")
    assert refused.ephemeral and "waiting for you" in refused.content
    claimed = await fake.click(other, offer, "Claim the race")
    assert f"{other.name} claimed the race" in claimed.message.content
    assert table.status == "finished" and table.state.winners == (table.seat_of(other.id),)

    # Lobby expiry runs on the same timer and clock.
    lobby = (await fake.slash(ann, fake.channel, "race")).message
    bot.clock.advance(bot.settings.lobby_minutes * 60 + 1)
    await bot.controller.timers.run()
    await fake.settle()
    assert "(expired)" in lobby.content and lobby.buttons() == []


async def race_between(fake: FakeDiscord, bot: TavernBot, ann: FakeUser, bob: FakeUser, target: int) -> Any:
    """Ann opens a race, Bob joins, Ann starts it: the table."""
    lobby = (await fake.slash(ann, fake.channel, "race", target=target)).message
    await fake.click(bob, lobby, "Join")
    await fake.click(ann, lobby, "Start")
    await fake.settle()
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    return table


async def test_what_the_channel_missed_is_told_with_the_next_post_even_after_a_restart(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """The channel refuses a post: that move's lines wait (the table's meta says from where), survive a
    restart (re-derived from the log, not stored as text), and are told by the restarted bot, before the
    next move's."""
    fake = fake_discord
    bot = await start_bot(setup=plug_in_race)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    table = await race_between(fake, bot, ann, bob, target=20)
    users = {table.seat_of(u.id): u for u in (ann, bob)}
    first = users[table.waiting_for()[0]]
    allowed = fake.channel.bot_permissions
    await fake.set_bot_permissions(fake.channel, discord.Permissions(view_channel=True).value)
    panel = live_panel(fake, first)
    assert panel is not None
    await fake.click(first, panel, "Add 2")
    await fake.settle()
    assert not any("adds 2" in m.content for m in fake.channel_messages(fake.channel))
    assert table.meta.untold_after == 0
    await bot.close()

    await fake.set_bot_permissions(fake.channel, allowed)
    posted = len(fake.channel_messages(fake.channel))
    again = await start_bot(setup=plug_in_race)
    restored = await again.tables.table_for_channel(fake.channel.id)
    assert restored is not None  # its untold move is told by its first timer pass, or by the next press
    second = users[restored.waiting_for()[0]]
    panel = live_panel(fake, second)
    assert panel is not None
    await fake.click(second, panel, "Add 1")
    await fake.settle()
    told = "\n".join(m.content for m in fake.channel_messages(fake.channel)[posted:])
    assert 0 <= told.index(f"{first.name} adds 2 → 2") < told.index(f"{second.name} adds 1 → 1")
    assert told.count(f"{first.name} adds 2 → 2") == 1
    assert restored.meta.untold_after is None and restored.pending == []


async def test_an_end_committed_but_never_told_is_told_when_the_bot_is_back(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops right after committing the move that ends the game: the game is closed in the store,
    so no restore brings it back, yet its end (the calls, the Rematch, the summary) is told once it is up."""
    fake = fake_discord
    bot = await start_bot(setup=plug_in_race)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    table = await race_between(fake, bot, ann, bob, target=6)
    users = [ann, bob]
    saved = Presses.saved

    async def stops_at_the_end(self: Presses, interaction: Any, table: Any, *a: Any, **k: Any) -> None:
        if table.status == "active":
            await saved(self, interaction, table, *a, **k)

    monkeypatch.setattr(Presses, "saved", stops_at_the_end)
    while table.status == "active":
        panel = live_panel(fake, users[table.waiting_for()[0]])
        assert panel is not None
        await fake.click(users[table.waiting_for()[0]], panel, "Add 3")
        await fake.settle()
    assert not any(b.label == "Rematch" for m in fake.channel_messages(fake.channel) for b in m.buttons())
    await bot.close()
    monkeypatch.setattr(Presses, "saved", saved)

    again = await start_bot(setup=plug_in_race)
    await again.controller.timers.run()
    await fake.settle()
    last = fake.last_message(fake.channel)
    assert "adds 3" in last.content and [b.label for b in last.buttons()] == ["Rematch"]
    assert await again.tables.untold_endings() == []  # told once: the next start finds nothing owed
    await again.controller.timers.run()
    await fake.settle()
    assert fake.last_message(fake.channel) is last
