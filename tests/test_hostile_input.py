"""Hostile input through the real client: forged option values are refused quietly and post nothing, and a
message pings exactly whom it means."""

from __future__ import annotations

import pytest

from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_hardening import slash_raw


def everything(fake: FakeDiscord, *users: FakeUser) -> list[FakeMessage]:
    """What the bot has posted in the channel, ephemeral answers included, and DMed to ``users``."""
    return [
        *fake.channel_messages(fake.channel, include_ephemeral=True),
        *(m for u in users for m in fake.dms(u)),
    ]


# ------------------------------------------------------------------------------------------ forged values


@pytest.mark.parametrize(
    ("command", "values", "forged"),
    [
        ("leaderboard", {"game": "deluxe"}, {"game": "<@{carol}> is the **champion** @everyone"}),
        ("leaderboard", {"game": "deluxe"}, {"game": 7}),
        ("bhargage practice", {"level": "easy"}, {"level": "<@{carol}>"}),
        ("deluxe create", {"fast_start": 1}, {"fast_start": 9}),
        ("deluxe create", {"pawns": True}, {"pawns": "<@{carol}>"}),
        ("tavern-admin settings", {"language": "it"}, {"language": "<@{carol}>"}),
        ("tavern-admin settings", {"nudge_minutes": 5}, {"nudge_minutes": 5.5}),
    ],
)
async def test_a_forged_option_value_is_refused_quietly_and_posts_nothing(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    command: str,
    values: dict[str, object],
    forged: dict[str, object],
) -> None:
    """Declared choices are the client's menu, not a check: a modified client sends anything. A value that is
    not among an option's choices, or not of its type, is refused privately, through the catalog, without
    repeating it; nothing is posted in the channel and nobody is pinged. (An unknown /leaderboard game was
    the public message's title and pinged whoever it named.)"""
    fake = fake_discord
    bot = await start_bot()
    mallory, carol = fake.add_user("mallory"), fake.add_user("carol")
    forged = {k: v.format(carol=carol.id) if isinstance(v, str) else v for k, v in forged.items()}
    answer = await slash_raw(fake, mallory, fake.channel, command, values, **forged)
    assert answer.ephemeral, answer.text()
    assert "That isn't one of this command's choices" in answer.text() or "couldn't read" in answer.text()
    assert str(carol.id) not in answer.text()
    assert fake.channel_messages(fake.channel) == []
    assert await bot.store.open_lobbies() == [] and not bot.tables.active_tables()
    assert await bot.store.guild_settings(fake.guild.id) == {}
    assert all(not m.pinged_user_ids() and not m.pings_everyone for m in everything(fake, mallory, carol))
    # The values the client offers still work.
    ok = await fake.slash(fake.owner, fake.channel, "leaderboard", game="deluxe")
    assert "Bharg Deluxe leaderboard" in ok.text() and not ok.message.pinged_user_ids()


async def test_a_challenge_pings_the_challenged_player_only(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """The bot pings nobody unless a message names whom: a challenge pings the player it challenges (it
    pinged its host too), a turn the player to move, a nudge the idle; an ephemeral answer nobody."""
    fake = fake_discord
    await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    assert alice.mention in posted.message.content and bob.mention in posted.message.content
    assert posted.message.pinged_user_ids() == [bob.id]
    refused = await fake.click(alice, posted.message, "Accept")
    assert refused.ephemeral and bob.mention in refused.text() and refused.message.pinged_user_ids() == []
    await fake.click(bob, posted.message, "Accept")
    calls = [m for m in fake.channel_messages(fake.channel) if ": lay 2 cards away" in m.content]
    assert calls and sorted(calls[-1].pinged_user_ids()) == sorted([alice.id, bob.id])
    for m in fake.channel_messages(fake.channel):
        assert m.allowed_mentions is not None and not m.allowed_mentions.get("parse"), m.allowed_mentions
