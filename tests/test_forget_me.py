"""``/tavern forget-me``: after the member's own confirmation, nothing the bot keeps leads back to them — no
row of any table holds their id, their name or their DM channel (lobbies and table meta included), ``/stats``
and ``/tavern history`` of them show no game, and the replays and web pages this process keeps show 👤 —
while their opponent's record is unchanged and still shows the games, against 👤. Refused while seated at a
live game or waiting in an open challenge; the button works for its own member only. An admin's name is not
kept with a game they end. (The store's side, on both backends: tests/test_forget_store.py; across two
processes: tests/test_forget_me_cluster.py.)"""

from __future__ import annotations

import dataclasses

import aiohttp

from bot.edge.app import TavernBot
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_admin_commands import MODERATOR
from tests.test_bhargage_discord import challenge
from tests.test_forget_store import traces
from tests.test_web_server import finish, get, live_path, practice, replay_path, served


async def forget(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    """``/tavern forget-me`` and its button pressed: the answer's message."""
    asked = await fake.slash(user, fake.channel, "tavern forget-me")
    assert asked.ephemeral and "can't be undone" in asked.message.text()
    done = await fake.click(user, asked.message, "Forget me")
    assert done.type == 7
    return asked.message


async def resign(fake: FakeDiscord, user: FakeUser) -> None:
    ask = await fake.slash(user, fake.channel, "bhargage resign")
    await fake.click(user, ask.message, "Resign")
    await fake.settle()


async def test_forget_me_leaves_no_trace_and_keeps_the_opponents_record(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    shown = await fake.slash(alice, fake.channel, "tavern me")
    await fake.click(
        alice, shown.message, next(b.custom_id for b in shown.message.buttons() if "Cut" in b.label)
    )
    await challenge(fake, alice, bob)
    assert fake.dms(alice)  # her panel is in her DMs: the table meta names that channel
    dm = fake.dm_channel(alice).id

    seated = await fake.slash(alice, fake.channel, "tavern forget-me")
    refused = await fake.click(alice, seated.message, "Forget me")
    assert refused.ephemeral and "finish it or leave it first" in refused.message.text()

    await resign(fake, bob)
    table = (await bot.store.history(fake.guild.id, bob.id, None, offset=0, limit=1))[0][0]
    before_bob = await bot.store.stats(fake.guild.id, bob.id)
    theirs = await fake.slash(bob, fake.channel, "stats", player=alice)
    assert "1 game · 1 win" in theirs.content
    assert (
        "alice" in (await fake.slash(bob, fake.channel, "tavern replay", game=table.game_id)).message.text()
    )
    assert len(await traces(bot.store, alice.id, "alice", dm)) > 5

    asked = await fake.slash(alice, fake.channel, "tavern forget-me")
    assert asked.ephemeral and "can't be undone" in asked.message.text()
    # someone else pressing it (the message is alice's; a forged press in another's name) changes nothing
    data = {"custom_id": f"tv:forget:{alice.id}", "component_type": 2}
    other = await fake._interact(3, bob, fake.channel, data, "forged", message=asked.message)
    assert other.ephemeral and "out of date" in other.content
    assert await bot.store.user_prefs() == {alice.id: {"auto_cut": False}}  # she turned it off

    done = await fake.click(alice, asked.message, "Forget me")
    assert done.type == 7 and "has forgotten you" in asked.message.text() and not asked.message.buttons()
    assert await traces(bot.store, alice.id, "alice", dm) == []  # seats, results, ratings, lobby, meta…
    assert bot.preferences.of(alice.id).auto_cut is True  # the default again: her choice is gone
    # her own record is empty, wherever it is asked for
    nobody = await fake.slash(bob, fake.channel, "stats", player=alice)
    assert "has not finished a game" in nobody.content
    none = await fake.slash(bob, fake.channel, "tavern history", player=alice)
    assert "No finished game" in none.message.text()
    # her opponent's is unchanged, against 👤 (the history, the board, the replay)
    assert await bot.store.stats(fake.guild.id, bob.id) == before_bob
    history = (await fake.slash(bob, fake.channel, "tavern history")).message.text()
    assert "👤" in history and "alice" not in history
    board = await fake.slash(bob, fake.channel, "leaderboard", board="all-time")
    assert "👤" in board.content and "alice" not in board.content
    replay = (await fake.slash(bob, fake.channel, "tavern replay", game=table.game_id)).message.text()
    assert "👤" in replay and "alice" not in replay
    # and a rematch can't invite somebody nobody answers to
    final = next(
        m for m in fake.channel_messages(fake.channel) if "Rematch" in [b.label for b in m.buttons()]
    )
    again = await fake.click(bob, final, "Rematch")
    assert again.ephemeral and "asked the tavern to forget them" in again.content

    # she may play again: as somebody new
    await challenge(fake, alice, bob)
    await resign(fake, alice)
    mine = await fake.slash(alice, fake.channel, "stats")
    assert "1 game · 0 wins · 1 loss" in mine.content


async def test_refused_while_waiting_in_an_open_challenge(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    posted = await fake.slash(bob, fake.channel, "bhargage challenge", opponent=alice)
    asked = await fake.slash(alice, fake.channel, "tavern forget-me")
    refused = await fake.click(alice, asked.message, "Forget me")
    assert refused.ephemeral and "open challenge or table" in refused.message.text()
    assert f"<#{fake.channel.id}>" in refused.message.text()
    assert await traces(bot.store, alice.id)  # nothing was forgotten
    await fake.click(alice, posted.message, "Decline")
    await forget(fake, alice)
    assert await traces(bot.store, alice.id, "alice") == []


async def test_an_admin_who_ends_a_game_leaves_no_name_with_it(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob, dora = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("dora")
    dora.permissions = MODERATOR
    await challenge(fake, alice, bob)
    ended = await fake.slash(dora, fake.channel, "tavern-admin end")
    assert ended.ephemeral
    await fake.settle()
    assert "dora" in "\n".join(m.content for m in fake.channel_messages(fake.channel))  # the table is told
    assert await traces(bot.store, "dora") == []  # but the store keeps no name of hers
    await forget(fake, dora)
    assert await traces(bot.store, dora.id, "dora") == []


async def pages(bot: TavernBot, client: aiohttp.ClientSession, game_id: int) -> str:
    """A finished game's replay, a later step, its record and its ended live page, as a browser gets them."""
    assert bot.web_server is not None
    server, path = bot.web_server, replay_path(bot, game_id)
    texts = []
    for page in (path, f"{path}?step=3", f"{path}/record", live_path(bot, game_id)):
        status, text, _ = await get(client, server, page)
        assert status == 200, page
        texts.append(text)
    return "\n".join(texts)


async def test_the_web_pages_a_process_keeps_show_a_forgotten_member_as_nobody(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, _ = await served(start_bot, dataclasses.replace(settings, bot_delay=0.0))
    alice = fake.add_user("alice")
    table = await practice(fake, bot, alice)
    await finish(fake, bot, table, alice)
    async with aiohttp.ClientSession() as client:
        kept = await pages(bot, client, table.id)  # the replay walked, the record written, the calls walked
        assert "alice" in kept
        await forget(fake, alice)
        shown = await pages(bot, client, table.id)
    assert "alice" not in shown and "👤" in shown
