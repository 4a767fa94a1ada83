"""The admin commands: a top-level group Discord hides from members without the permissions, the runtime
checks behind it, and what `/tavern-admin end` costs."""

from __future__ import annotations

import discord
import pytest

from bot.settings import Settings
from bot.store import NewAction, NewGame, SQLiteStore
from tests.conftest import ErrorLogGuard, StartBot
from tests.fakediscord import FakeDiscord

MEMBER = discord.Permissions(view_channel=True, send_messages=True, read_message_history=True).value
MODERATOR = MEMBER | discord.Permissions(manage_channels=True).value


async def test_the_admin_commands_are_a_top_level_group_that_discord_hides(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """Discord reads ``default_member_permissions`` on top-level commands only: the admin commands are a
    group of their own that carries it, and none is left under ``/tavern``."""
    fake = fake_discord
    await start_bot()
    synced = {c["name"]: c for c in fake.commands()}
    admin = synced["tavern-admin"]
    assert int(admin["default_member_permissions"]) == discord.Permissions(manage_channels=True).value
    assert admin["name_localizations"]["it"] == "taverna-admin"
    assert admin["dm_permission"] is False  # servers only
    assert sorted(o["name"] for o in admin["options"]) == ["end", "new-season", "settings"]
    assert all("default_member_permissions" not in o for o in admin["options"])
    tavern = synced["tavern"]
    names = sorted(o["name"] for o in tavern["options"])
    assert names == ["cards", "export", "forget-me", "help", "history", "me", "ping", "replay", "tables"]
    assert tavern.get("default_member_permissions") is None
    # A member is not offered the group, and help lists it only to those who are.
    member, mod = fake.add_user("member"), fake.add_user("mod")
    member.permissions, mod.permissions = MEMBER, MODERATOR
    with pytest.raises(AssertionError, match="not offered"):
        await fake.slash(member, fake.channel, "tavern-admin end")
    shown = await fake.slash(member, fake.channel, "tavern help")
    assert "/tavern help" in shown.text() and "tavern-admin" not in shown.text()
    shown = await fake.slash(mod, fake.channel, "tavern help")
    assert "/tavern-admin end" in shown.text() and "/tavern-admin settings" in shown.text()
    assert "/tavern-admin new-season" in shown.text()
    # Settings wants Manage Server, which the group's default does not ask: checked when it runs.
    refused = await fake.slash(mod, fake.channel, "tavern-admin settings")
    assert refused.ephemeral and "Manage Server" in refused.text()


async def test_ending_in_an_empty_channel_reads_one_row_and_admins_have_a_cooldown(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/tavern-admin end` where there is nothing to end asks the store for that channel's game alone (it
    read every active game of every server, with their logs, holding the store); and an admin's commands
    are limited per member, refused ones there included."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob, mod = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("mod")
    mod.permissions = MODERATOR
    busy = fake.add_channel("busy")
    await fake.slash(alice, busy, "bhargage challenge", opponent=bob)
    await fake.click(bob, fake.last_message(busy), "Accept")

    async def every_game(*args: object, **kwargs: object) -> list[object]:
        raise AssertionError("/tavern-admin end read every active game")

    monkeypatch.setattr(bot.store, "active_games", every_game)
    for _ in range(10):
        nothing = await fake.slash(mod, fake.channel, "tavern-admin end")
        assert nothing.ephemeral and "no game or open table" in nothing.text()
    slow = await fake.slash(mod, fake.channel, "tavern-admin end")
    assert slow.ephemeral and "Slow down" in slow.text()
    settings = await fake.slash(fake.owner, fake.channel, "tavern-admin settings")
    assert "Slow down" not in settings.text()  # per member
    bot.clock.advance(61)
    ended = await fake.slash(mod, busy, "tavern-admin end")
    assert "The game is ended" in ended.text()
    assert await bot.tables.table_for_channel(busy.id) is None


async def test_a_game_that_cannot_be_restored_is_closed_by_end(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, error_logs: ErrorLogGuard
) -> None:
    """A stored game whose log no longer replays has no live table yet holds its channel: ending it there
    closes it (found by the channel's one indexed lookup) and frees the channel."""
    fake = fake_discord
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    store = await SQLiteStore.open(settings.db_path)
    seats = [(alice.id, "alice"), (bob.id, "bob")]
    game_id = await store.create_game(NewGame("bhargage", fake.guild.id, fake.channel.id, 7, seats, {}, 0.0))
    await store.append_action(NewAction(game_id, 1, 0, "not an action", 1.0))
    await store.close()
    bot = await start_bot()
    assert error_logs.take(f"could not restore game {game_id}")
    assert await bot.tables.table_for_channel(fake.channel.id) is None
    closed = await fake.slash(fake.owner, fake.channel, "tavern-admin end")
    assert closed.ephemeral and "could not be restored" in closed.text()
    record = await bot.store.load_game(game_id)
    assert record is not None and record.status == "abandoned"
    await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    assert (await bot.store.open_lobbies(channel_id=fake.channel.id))[0].host_id == alice.id
