"""Limits on what one member may do: cooldowns counted atomically, one open challenge or table per host, and
cooldowns on the board and the card gallery."""

from __future__ import annotations

import asyncio

import pytest

from bot.base.i18n import Msg
from bot.base.refusals import UserFacingError
from bot.services.cooldowns import Cooldown
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_bhargage_discord import challenge


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_use_is_taken_at_once_and_given_back_when_refused() -> None:
    clock = Clock()
    limit = Cooldown(2, 60, clock, Msg("general.cooldown.open-table"))
    limit.take(1)
    with pytest.raises(RuntimeError), limit.reserve(1):  # the command failed: its use is given back
        raise RuntimeError
    with limit.reserve(1):
        pass
    with pytest.raises(UserFacingError, match="again in 60 s"):
        limit.take(1)
    limit.take(2)  # per user
    clock.now += 30
    with pytest.raises(UserFacingError, match="again in 30 s"), limit.reserve(1):
        pass
    clock.now += 30
    limit.take(1)
    limit.take(1)
    limit.give_back(1, clock.now)
    limit.take(1)


async def test_simultaneous_opens_by_one_member_count_against_the_cooldown_and_the_cap(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """Eight `/deluxe create` from one member in eight channels at the same instant: three pass the cooldown
    (3 a minute) before any is written, one of those opens, and the other two find the member already
    hosting one (their uses given back). The limit was checked, awaited, then recorded: all eight opened."""
    fake = fake_discord
    bot = await start_bot()
    ann = fake.add_user("ann")
    channels = [fake.channel, *(fake.add_channel(f"c{i}") for i in range(7))]
    real = bot.store.create_lobby

    async def slow_create_lobby(*args: object, **kwargs: object) -> object:  # all in before one ends
        await asyncio.sleep(0.05)
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    bot.store.create_lobby = slow_create_lobby  # type: ignore[method-assign]
    answers = await asyncio.gather(*(fake.slash(ann, c, "deluxe create") for c in channels))
    opened = await bot.store.open_lobbies()
    assert len(opened) == 1
    refused = [a for a in answers if a.ephemeral]
    assert len(refused) == 7
    assert sum("Slow down" in a.text() for a in refused) == 5
    hosting = [a for a in refused if "You already have an open table" in a.text()]
    assert len(hosting) == 2 and all(f"<#{opened[0].channel_id}>" in a.text() for a in hosting)
    # The two refused by the cap gave their uses back: two more opens fit in this minute.
    await fake.click(ann, next(a for a in answers if not a.ephemeral).message, "Cancel")
    for channel in channels[1:3]:
        again = await fake.slash(ann, channel, "deluxe create")
        assert not again.ephemeral
        await fake.click(ann, again.message, "Cancel")
    slow = await fake.slash(ann, channels[3], "deluxe create")
    assert slow.ephemeral and "Slow down" in slow.text()


async def test_a_member_hosts_one_open_challenge_or_table_at_a_time_anywhere(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """One member could hold every channel of a server with open tables; now a host has one open challenge or
    table at a time, in any server (they can sit at one game only), and the refusal says where it is."""
    fake = fake_discord
    elsewhere = fake.add_channel("elsewhere", fake.add_guild("Another Tavern"))
    bot = await start_bot()
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    tables, games = fake.channel, fake.add_channel("games")
    lobby = await fake.slash(ann, tables, "deluxe create")
    for channel, command, options in (
        (games, "deluxe create", {}),
        (games, "bhargage challenge", {"opponent": bob}),
        (elsewhere, "deluxe create", {}),
    ):
        refused = await fake.slash(ann, channel, command, **options)
        assert refused.ephemeral and f"You already have an open table in <#{tables.id}>" in refused.text()
    assert [x.channel_id for x in await bot.store.open_lobbies()] == [tables.id]
    # Someone else's table is no hindrance: Bob hosts his own while sitting in hers.
    await fake.click(bob, lobby.message, "Join")
    assert not (await fake.slash(bob, games, "deluxe create")).ephemeral
    await fake.click(ann, lobby.message, "Cancel")
    # A challenge holds its host the same way, until it is answered or its host withdraws it.
    sent = await fake.slash(ann, tables, "bhargage challenge", opponent=fake.owner)
    refused = await fake.slash(ann, elsewhere, "deluxe create")
    assert f"You already have an open challenge in <#{tables.id}>" in refused.text()
    mine = await fake.click(bob, sent.message, "Decline")
    assert mine.ephemeral and "only they can answer" in mine.text()
    await fake.click(ann, sent.message, "Decline")
    assert "withdrawn" in sent.message.content and sent.message.buttons() == []
    assert not [x for x in await bot.store.open_lobbies() if x.host_id == ann.id]
    assert not (await fake.slash(ann, elsewhere, "deluxe create")).ephemeral


async def test_the_board_and_the_cards_have_cooldowns(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    """Anyone in a game's channel could post its board again and again, and anyone could have card after card
    drawn: both are limited per member now."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    await challenge(fake, alice, bob)
    for _ in range(3):
        posted = await fake.slash(carol, fake.channel, "bhargage board")
        assert not posted.ephemeral
    slow = await fake.slash(carol, fake.channel, "bhargage board")
    assert slow.ephemeral and "Slow down a little: you can post the board again" in slow.text()
    assert not (await fake.slash(alice, fake.channel, "bhargage board")).ephemeral  # per member
    nothing = fake.add_channel("quiet")
    for _ in range(5):  # asking where there is no game is refused, and costs nothing
        refused = await fake.slash(alice, nothing, "bhargage board")
        assert "There is no Bhargage game in this channel" in refused.text()
    assert not (await fake.slash(alice, fake.channel, "bhargage board")).ephemeral
    for card in ["the Forest", "the Sailor", "Ace of Moons", "the Bard", None] * 2:
        shown = await fake.slash(carol, fake.channel, "tavern cards", **({"card": card} if card else {}))
        assert "Slow down" not in shown.text()
    slow = await fake.slash(carol, fake.channel, "tavern cards", card="the Forest")
    assert "Slow down a little: you can look at the cards again" in slow.text()
    bot.clock.advance(61)
    assert "Slow down" not in (await fake.slash(carol, fake.channel, "tavern cards")).text()
