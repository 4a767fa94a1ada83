"""Both games share one rule: one table or open challenge/lobby per channel, even when asked at once."""

from __future__ import annotations

import asyncio
import time

from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord


async def test_a_challenge_and_a_lobby_asked_at_the_same_moment(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    ann, ben, cat = fake.add_user("ann"), fake.add_user("ben"), fake.add_user("cat")
    real = bot.store.create_lobby

    async def slow_create_lobby(*args: object, **kwargs: object) -> object:  # widen check-then-open
        await asyncio.sleep(0.05)
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    bot.store.create_lobby = slow_create_lobby  # type: ignore[method-assign]
    for _ in range(3):
        challenge, lobby = await asyncio.gather(
            fake.slash(ann, fake.channel, "bhargage challenge", opponent=ben),
            fake.slash(cat, fake.channel, "deluxe create"),
        )
        opened = await bot.store.open_lobbies(channel_id=fake.channel.id)
        assert len(opened) == 1, [lob.game for lob in opened]
        refused = [r for r in (challenge, lobby) if r.ephemeral]
        assert len(refused) == 1 and "already" in refused[0].content
        kept = opened[0]
        # clear the channel for the next round: the host cancels / the challenge is declined
        if kept.game == "bhargage":
            await fake.click(ben, challenge.message, "Decline")
        else:
            await fake.click(cat, lobby.message, "Cancel")
        assert await bot.store.open_lobbies(channel_id=fake.channel.id) == []


async def test_an_overdue_challenge_does_not_block_a_new_lobby(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """A challenge past its time, not yet closed by the timer, no longer holds the channel."""
    fake = fake_discord
    bot = await start_bot()
    ann, ben, cat = fake.add_user("ann"), fake.add_user("ben"), fake.add_user("cat")
    await fake.slash(ann, fake.channel, "bhargage challenge", opponent=ben)
    (challenge,) = await bot.store.open_lobbies(channel_id=fake.channel.id)
    busy = await fake.slash(cat, fake.channel, "deluxe create")
    assert busy.ephemeral and "already" in busy.content
    await bot.store.update_lobby(challenge.id, expires_at=time.time() - 1)
    opened = await fake.slash(cat, fake.channel, "deluxe create")
    assert not opened.ephemeral and "Join" in [b.label for b in opened.message.buttons()]
