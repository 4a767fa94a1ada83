"""The drain covers every kind of press and every slash command: a bot asked to close while one runs waits for
it to answer (and refuses a new one meanwhile), whatever its kind.

Each test holds one press (or command) in its handler, starts ``bot.close()``, sees the close wait and a new
press refused, lets the held one go, and sees it answered before the bot is closed. The kinds are every entry
of ``router.OWN_MESSAGE`` (rules pages, preference switches, history pages, replay steps, the forget-me
confirmation, the leaderboard's pages and the new-season confirmation, Post in channel), a lobby's button, a
table's button, and a slash command.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import discord
import pytest

from bot.base.i18n import t
from bot.edge import router
from bot.edge.app import TavernBot
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, InteractionResult
from tests.test_bhargage_discord import challenge


class Held:
    """A handler that waits for ``release`` before it does what it wraps."""

    def __init__(self, inner: Callable[..., Awaitable[Any]]) -> None:
        self.inner = inner
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def __call__(self, *args: Any) -> Any:
        self.entered.set()
        await self.release.wait()
        return await self.inner(*args)


async def close_waits_for(bot: TavernBot, fake: FakeDiscord, held: Held, sent: InteractionResult) -> None:
    """Close while ``held`` runs: the close waits, a new command is refused meanwhile, and the held one is
    answered before the close ends."""
    await asyncio.wait_for(held.entered.wait(), 10)
    closing = asyncio.create_task(bot.close())
    while not bot.drain.closing:  # close() sets it first, then waits
        await asyncio.sleep(0)
    refused = await fake.slash(fake.owner, fake.channel, "tavern ping", settle=False)
    assert refused.ephemeral and refused.content == t("tavern.restarting")
    assert not closing.done() and bot.drain.busy == 1, "the close did not wait for the held press"
    assert sent.interaction.callback_type is None
    held.release.set()
    await asyncio.wait_for(closing, 10)
    assert sent.interaction.callback_type is not None, "the held press was closed on, unanswered"


def own_message_kinds() -> list[str]:
    return [prefix for prefix, _ in router.OWN_MESSAGE]


@pytest.mark.parametrize("prefix", own_message_kinds())
async def test_a_press_on_a_message_of_its_own_is_waited_for(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch, prefix: str
) -> None:
    """The presses that belong to no table (their handler answers whatever id follows the prefix, or
    refuses it as out of date: either is an answer the close must wait for)."""
    fake = fake_discord
    bot = await start_bot()
    kinds = dict(router.OWN_MESSAGE)
    held = Held(kinds[prefix])
    monkeypatch.setattr(
        router, "OWN_MESSAGE", tuple((p, held if p == prefix else a) for p, a in kinds.items())
    )
    alice = fake.add_user("alice")
    shown = await fake.slash(alice, fake.channel, "tavern ping")
    data = {"custom_id": f"{prefix}x", "component_type": 2}
    sent = await fake.forge(3, alice, fake.channel, data, message=shown.message)
    await close_waits_for(bot, fake, held, sent)


async def test_a_lobby_press_is_waited_for(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    held = Held(bot.controller.lobby_click)
    monkeypatch.setattr(bot.controller, "lobby_click", held)
    sent = await fake.click(bob, posted.message, "Accept", expect_reply=False, settle=False)
    await close_waits_for(bot, fake, held, sent)


async def test_a_table_press_is_waited_for(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    held = Held(bot.controller.table_click)
    monkeypatch.setattr(bot.controller, "table_click", held)
    panel, button = next(
        (m, b)
        for m in reversed([*fake.dms(alice), *fake.channel_messages(fake.channel)])
        for b in m.buttons()
        if not b.disabled and (b.custom_id or "").startswith("tv:g:")
    )
    sent = await fake.click(alice, panel, button.custom_id or "", expect_reply=False, settle=False)
    await close_waits_for(bot, fake, held, sent)


async def test_a_running_slash_command_is_waited_for(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord

    async def answer(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("done", ephemeral=True)

    held = Held(answer)

    def add_slow(bot: TavernBot) -> None:
        @bot.tree.command(name="slow", description="Answers once let go")
        async def slow(interaction: discord.Interaction[Any]) -> None:
            await held(interaction)

    bot = await start_bot(setup=add_slow)
    sent = await fake.slash(fake.owner, fake.channel, "slow", expect_reply=False, settle=False)
    await close_waits_for(bot, fake, held, sent)
    assert sent.content == "done"
