"""Hostile input through the real client: forged option values are refused quietly and post nothing, a message
pings exactly whom it means, and hostile display names are shown as their plain characters."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import pytest

from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_bhargage_discord import act_with_panel, computers_idle, enabled
from tests.test_hardening import slash_raw

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


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


@pytest.mark.parametrize(
    ("command", "values", "forged"),
    [
        ("tavern replay", {"game": 1}, {"game": 2**64}),  # past 64 bits: the store can't even bind it
        ("tavern replay", {"game": 1}, {"game": 0}),
        ("tavern export", {"game": 1}, {"game": 2**53}),  # one past what Discord's client may send
        ("tavern export", {"game": 1}, {"game": -(2**63)}),
        ("deluxe create", {"target": 40}, {"target": 10**6}),
        ("tavern-admin settings", {"nudge_minutes": 5}, {"nudge_minutes": 10**9}),
        ("bhargage count", {"cards": "the sea", "up": "the sun"}, {"cards": "the sea " * 400}),
        ("leaderboard", {"game": "deluxe"}, {"season": 10**12}),
    ],
)
async def test_a_forged_value_outside_its_declared_range_is_refused_quietly_before_the_command(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    command: str,
    values: dict[str, object],
    forged: dict[str, object],
) -> None:
    """A declared ``Range`` is the client's menu too: discord.py passes any value through. A forged integer
    past it (``/tavern replay game:2**64`` logged an unhandled ERROR from the store) or a string past its
    length is refused privately before the command runs: no ERROR (the autouse guard), nothing posted,
    nothing stored, and the same command within its range still answers."""
    fake = fake_discord
    bot = await start_bot()
    mallory = fake.add_user("mallory")
    if "season" in forged:
        values = {**values, "season": 1}
    answer = await slash_raw(fake, mallory, fake.channel, command, values, **forged)
    assert answer.ephemeral, answer.text()
    assert "outside what this option takes: from " in answer.text()
    assert fake.channel_messages(fake.channel) == []
    assert await bot.store.open_lobbies() == [] and not bot.tables.active_tables()
    assert await bot.store.guild_settings(fake.guild.id) == {}
    within = await slash_raw(fake, mallory, fake.channel, command, values)
    assert "outside what this option takes" not in within.text()


async def test_a_challenge_pings_the_challenged_player_only(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """The bot pings nobody unless a message names whom: a challenge pings the player it challenges (it
    pinged its host too), a turn the player to move, a nudge the idle; an ephemeral answer nobody; the
    opening calls nobody whose hand just came as a new DM (the DM rang for them)."""
    fake = fake_discord
    await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    assert alice.mention in posted.message.content and bob.mention in posted.message.content
    assert posted.message.pinged_user_ids() == [bob.id]
    refused = await fake.click(alice, posted.message, "Accept")
    assert refused.ephemeral and bob.mention in refused.text() and refused.message.pinged_user_ids() == []
    await fake.click(bob, posted.message, "Accept")
    [opening] = [m for m in fake.channel_messages(fake.channel) if "lays 2 cards away" in m.content]
    assert opening.pinged_user_ids() == [] and not opening.pings_everyone
    for user in (alice, bob):  # both discards in: the next calls ask one player to move, the cut first
        await act_with_panel(fake, user, [m for m in fake.dms(user) if enabled(m)][-1])
    await computers_idle(fake)
    calls = [m for m in fake.channel_messages(fake.channel) if m.pinged_user_ids()]
    assert [m for m in calls if "cut for the up-card" in m.content] and len(calls) >= 2
    for m in calls:  # each pings exactly the one player it addresses
        [addressed] = [u for u in (alice, bob) if f"{u.mention}, " in m.content]
        assert m.pinged_user_ids() == [addressed.id] and not m.pings_everyone, m.content
    for m in fake.channel_messages(fake.channel):
        assert m.allowed_mentions is not None and not m.allowed_mentions.get("parse"), m.allowed_mentions


# ------------------------------------------------------------------------------------------ hostile names


def no_unescaped(pattern: str) -> Callable[[str], bool]:
    """The text has no ``pattern`` that no backslash escapes."""
    return lambda text: not re.search(r"(?<!\\)" + pattern, text)


def marks_capped(text: str) -> bool:
    run = 0
    for ch in text:
        run = run + 1 if unicodedata.category(ch) in ("Mn", "Me") else 0
        if run > 2:
            return False
    return True


# (display name, what must hold of every text the bot posts, the name shown when it is blank)
HOSTILE: dict[str, tuple[str, Callable[[str], bool], str | None]] = {
    "masked link": (
        "[Prize](https://evil.io/x)",
        lambda text: no_unescaped(r"\]\(")(text) and "https://evil.io" not in text,
        None,
    ),
    "heading": ("# Winner", lambda text: not re.search(r"(?m)^#{1,3} ", text), None),
    "bare heading mark": ("##", lambda text: not re.search(r"(?m)^#{1,3} ", text), None),
    "subtext": ("-# small print", lambda text: not re.search(r"(?m)^-# small", text), None),
    "list": ("- item", lambda text: not re.search(r"(?m)^- item", text), None),
    "numbered list": ("1. first", lambda text: not re.search(r"(?m)^1\. first", text), None),
    "quote": (">>> boss", lambda text: not re.search(r"(?m)^>", text), None),
    "bare url": ("https://evil.io/free", lambda text: "https://evil.io" not in text, None),
    "invite": ("discord.gg/evil", lambda text: "discord.gg/evil" not in text, None),
    "bidi override": ("\u202eevil\u202c ron", lambda text: not any(c in text for c in BIDI), None),
    "zero width only": ("\u200b\u200b\u200b", lambda text: "\u200b" not in text, "mallory"),
    "word joiners only": (
        "\u2060\ufeff\u2060",
        lambda text: "\u2060" not in text and "\ufeff" not in text,
        "mallory",
    ),
    "hangul filler": ("\u3164\u3164\u3164", lambda text: "\u3164" not in text, "mallory"),
    "braille blank": ("\u2800\u2800", lambda text: "\u2800" not in text, "mallory"),
    "channel": ("<#1234567890>", lambda text: "<#1234567890>" not in text, None),
    "timestamp": ("<t:1:R>", lambda text: "<t:1:R>" not in text, None),
    "emoji": ("<:pog:1234567890>", lambda text: "<:pog:1234567890>" not in text, None),
    "combining flood": ("Z" + "\u0301\u0302\u0303" * 30, marks_capped, None),
    "mention": (
        "<@{carol}> and @everyone",
        lambda text: "<@{carol}>" not in text and "@everyone" not in text,
        None,
    ),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
async def test_a_hostile_display_name_is_shown_as_plain_text(
    fake_discord: FakeDiscord, start_bot: StartBot, kind: str
) -> None:
    """A player with a hostile display name is challenged and accepts: the challenge becomes the board, which
    shows that name (who the table waits for), the opening calls and the other player's panel too. Every
    text is checked for the form the name tried to make; a name with nothing visible is shown as the
    member's username."""
    fake = fake_discord
    bot = await start_bot()
    raw, harmless, blank_as = HOSTILE[kind]
    bob, carol, mallory = fake.add_user("bob"), fake.add_user("carol"), fake.add_user("mallory")
    mallory.global_name = raw.replace("{carol}", str(carol.id))
    posted = await fake.slash(bob, fake.channel, "bhargage challenge", opponent=mallory)
    accepted = await fake.click(mallory, posted.message, "Accept")
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    shown = table.names[table.seat_of(mallory.id) or 0]
    if blank_as is not None:
        assert shown == blank_as
    board = accepted.message.content
    assert accepted.message is posted.message and board.startswith("**Bhargage** (")
    assert shown in board.split("```")[-1], (shown, board)  # its waiting line, outside the pegging picture
    messages = everything(fake, bob, mallory)
    assert any(shown in m.text() for m in messages if m is not accepted.message)
    for m in messages:
        assert harmless(m.text().replace(str(carol.id), "{carol}")), (kind, m.text())
        assert set(m.pinged_user_ids()) <= {bob.id, mallory.id} and not m.pings_everyone, m.content
    assert f"<@{carol.id}>" not in "".join(m.content for m in messages)
