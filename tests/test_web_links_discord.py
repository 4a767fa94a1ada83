"""The table in a browser, as Discord shows it: the game's one message in the channel (its board, which
heads its thread where it has one; the summary of a rematch played in a thread) carries a link button to
watch it live — the replay's once it is over — where the bot links its pages (``TAVERN_WEB_URL``) and the
server's ``browser`` setting allows it; ``/tavern tables`` links each live table, and the server's page
when the setting says so. Every link reads back to what it opens, and a forged one reads as nothing."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bot.base.panel import Button
from bot.edge import delivery
from bot.edge.app import TavernBot
from bot.games import Table
from bot.services.links import LIVE_SECONDS, Links, key_from
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import Button as FakeButton
from tests.fakediscord import (
    DiscordError,
    FakeChannel,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    validate_message_payload,
)

BASE = "https://tavern.example"
WATCH, REPLAY = "Watch in the browser", "Replay in the browser"
PAGE = "Standings in the browser"


@pytest.fixture
def linked(settings: Settings) -> Settings:
    return dataclasses.replace(settings, web_url=BASE)


def links_of(message: FakeMessage) -> list[FakeButton]:
    return [b for b in message.buttons() if b.url is not None]


def link(message: FakeMessage, label: str) -> str:
    """The one link button's address; it must be a link button with that label (style 5, no custom id)."""
    found = links_of(message)
    assert len(found) == 1, f"expected one link button, found {found}"
    button = found[0]
    assert button.label == label and button.style == 5 and button.custom_id is None and button.url
    return button.url


def opens(bot: TavernBot, url: str, kind: Any) -> int | None:
    """What a link opens (None: not a link of this kind), as the web server reads it."""
    assert bot.links is not None
    prefix = f"{BASE}/{kind}/"
    assert url.startswith(prefix), url
    return bot.links.read(kind, url.removeprefix(prefix), bot.clock())


async def start_game(
    fake: FakeDiscord, a: FakeUser, b: FakeUser, channel: FakeChannel | None = None
) -> FakeMessage:
    """A Bhargage challenge accepted: the challenge message (now the game's board, heading its thread)."""
    posted = await fake.slash(a, channel or fake.channel, "bhargage challenge", opponent=b, target=31)
    await fake.click(b, posted.message, "Accept")
    await fake.settle()
    return posted.message


async def resign(fake: FakeDiscord, user: FakeUser, channel: FakeChannel) -> None:
    ask = await fake.slash(user, channel, "bhargage resign")
    await fake.click(user, ask.message, "Resign")
    await fake.settle()


async def table_in(bot: TavernBot, channel: FakeChannel) -> Table:
    table = await bot.tables.table_for_channel(channel.id)
    assert table is not None
    return table


async def test_the_board_heading_a_threads_game_links_its_live_page_then_its_replay(
    fake_discord: FakeDiscord, start_bot: StartBot, linked: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(linked, threads=True))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await start_game(fake, alice, bob)
    thread = fake.thread_of(board)
    assert thread is not None
    table = await table_in(bot, thread)
    # The channel's one message, the board heading the thread, carries the link; nothing in the thread does.
    assert table.meta.board_id == board.id and table.meta.summary is None
    assert fake.channel_messages(fake.channel) == [board]
    live = link(board, WATCH)
    assert opens(bot, live, "t") == table.id
    token, now = live.rsplit("/", 1)[1], bot.clock()
    assert bot.links is not None and bot.links.read("s", token, now) is None  # not a server page's
    assert bot.links.read("r", token, now) is None  # nor a replay's
    assert all(links_of(m) == [] for m in fake.channel_messages(thread))
    # It lasts a week from when it was signed, no longer.
    bot.clock.advance(LIVE_SECONDS + 3601)
    assert opens(bot, live, "t") is None
    edits = len(board.edits)

    await resign(fake, alice, thread)
    # The end of the game edits the board (once), and its link is now the replay's.
    assert len(board.edits) == edits + 1 and "Game over" in board.content
    assert opens(bot, link(board, REPLAY), "r") == table.id


async def test_a_game_in_the_channel_has_the_link_on_its_board(
    fake_discord: FakeDiscord, start_bot: StartBot, linked: Settings
) -> None:
    """Without a thread there is no summary: the board, the message a player looks at for the table and the
    one kept current, carries the link (the opening message is the board); the calls after it do not."""
    fake = fake_discord
    bot = await start_bot(linked)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    opening = await start_game(fake, alice, bob)
    table = await table_in(bot, fake.channel)
    assert table.meta.thread_id is None and table.meta.summary is None
    assert table.meta.board_id == opening.id
    board = fake.messages[table.meta.board_id]
    assert opens(bot, link(board, WATCH), "t") == table.id
    others = [m for m in fake.channel_messages(fake.channel) if m is not board]
    assert others and all(links_of(m) == [] for m in others)
    # The board asked for again is the one kept current from now on: it carries the link.
    again = await fake.slash(alice, fake.channel, "bhargage board")
    table = await table_in(bot, fake.channel)
    assert table.meta.board_id == again.message.id and opens(bot, link(again.message, WATCH), "t") == table.id

    await resign(fake, bob, fake.channel)
    board = fake.messages[table.meta.board_id]
    assert opens(bot, link(board, REPLAY), "r") == table.id


async def test_no_link_where_the_bot_links_no_pages(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, threads=True))
    assert bot.links is None
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    summary = await start_game(fake, alice, bob)
    thread = fake.thread_of(summary)
    assert thread is not None and summary.buttons() == []
    assert all(links_of(m) == [] for m in fake.channel_messages(thread))
    tables = await fake.slash(alice, fake.channel, "tavern tables")
    assert "Bhargage" in tables.text() and "](" not in tables.text() and links_of(tables.message) == []


async def test_admins_choose_what_a_browser_may_show(
    fake_discord: FakeDiscord, start_bot: StartBot, linked: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(linked, threads=True))
    alice, bob, carol, dan = (fake.add_user(n) for n in ("alice", "bob", "carol", "dan"))
    shown = await fake.slash(fake.owner, fake.channel, "tavern-admin settings")
    assert "**Browser**: each game's live page and replay" in shown.text()
    assert "changed here" not in shown.text()

    # Off: no link on a new game's summary, none in /tavern tables.
    off = await fake.slash(fake.owner, fake.channel, "tavern-admin settings", browser="off")
    assert (
        "Settings saved" in off.text() and "**Browser**: off" in off.text() and "changed here" in off.text()
    )
    assert await bot.store.guild_settings(fake.guild.id) == {"browser": "off"}
    assert (await bot.server_settings.get(fake.guild.id)).browser == "off"
    summary = await start_game(fake, alice, bob)
    assert summary.buttons() == []
    listed = (await fake.slash(dan, fake.channel, "tavern tables")).message.text()
    assert "**Bhargage** in " in listed and "](" not in listed

    # Server: each table's line links its live page, and the server's page is linked last.
    server = await fake.slash(fake.owner, fake.channel, "tavern-admin settings", browser="server")
    assert "a page of the server's live tables" in server.text()
    other = fake.add_channel("other")
    second = await start_game(fake, carol, dan, other)
    second_thread = fake.thread_of(second)
    assert second_thread is not None
    second_table = await table_in(bot, second_thread)
    assert opens(bot, link(second, WATCH), "t") == second_table.id
    answer = await fake.slash(dan, fake.channel, "tavern tables")
    lines = answer.message.text().split("\n")
    watched = [line for line in lines if line.startswith("**Bhargage** in ")]
    assert len(watched) == 2 and all(" · [watch](" + BASE + "/t/" in line for line in watched)
    first_thread = fake.thread_of(summary)
    assert first_thread is not None
    first_table = await table_in(bot, first_thread)
    assert [opens(bot, line.split("](")[1].rstrip(")"), "t") for line in watched] == [
        second_table.id,
        first_table.id,
    ]  # newest first
    assert lines[-1].startswith("🌐 [All of this server's live tables in the browser](")
    page = lines[-1].split("](")[1].rstrip(")")
    assert opens(bot, page, "s") == fake.guild.id
    assert bot.links is not None and bot.links.read("t", page.rsplit("/", 1)[1], bot.clock()) is None

    # Tables (the default) again: the lines keep their links, the server's page goes.
    await fake.slash(fake.owner, fake.channel, "tavern-admin settings", browser="tables")
    assert await bot.store.guild_settings(fake.guild.id) == {}
    again = (await fake.slash(dan, fake.channel, "tavern tables")).message.text()
    assert again.count("[watch](") == 2 and "🌐" not in again


async def test_a_setting_outside_the_choices_is_refused(
    fake_discord: FakeDiscord, start_bot: StartBot, linked: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(linked)
    with pytest.raises(Exception, match="browser"):
        await bot.server_settings.change(fake.guild.id, {"browser": "everyone"})
    assert (await bot.server_settings.get(fake.guild.id)).browser == "tables"


# ---------------------------------------------------------------------------------- without Discord


def test_a_forged_or_altered_link_does_not_read() -> None:
    links = Links(BASE, key_from("", "the-token"))
    now = 1_767_225_600.0
    token = links.token("t", 41, now)
    assert links.read("t", token, now) == 41
    ident, expires, sig = token.split(".")
    flipped = sig[:-1] + ("A" if sig[-1] != "A" else "B")
    forged = [
        f"{ident}.{expires}.{flipped}",  # one character of the signature changed
        f"42.{expires}.{sig}",  # another game under this game's signature
        f"{ident}.{int(expires) + 3600}.{sig}",  # a longer life under the same signature
        Links(BASE, key_from("another secret", "the-token")).token("t", 41, now),  # another key's
        f"{ident}.{expires}.{sig}=",
        f"0{ident}.{expires}.{sig}",
        f"{ident}.{sig}",
        "41",
    ]
    assert [links.read("t", f, now) for f in forged] == [None] * len(forged)
    assert links.read("s", token, now) is None and links.read("r", token, now) is None  # another kind
    assert links.read("t", token, now + LIVE_SECONDS + 3600) is None and links.expired(
        "t", token, now + LIVE_SECONDS + 3600
    )
    assert not links.expired("t", f"{ident}.{expires}.{flipped}", now + LIVE_SECONDS + 3600)


def test_a_link_button_is_sent_as_discord_takes_it() -> None:
    """Style 5 with its url and no custom id (the fake refuses anything else); an address Discord would
    refuse is left off rather than losing the whole message."""
    view = delivery.view((Button("Watch", "", url=f"{BASE}/t/1.2.x"), Button("Hand", "hand")), "g", 7)
    assert view is not None
    sent = view.to_components()
    validate_message_payload({"content": "x", "components": sent}, attachments=0)
    first, second = sent[0]["components"]
    assert first == {"type": 2, "style": 5, "label": "Watch", "url": f"{BASE}/t/1.2.x", "disabled": False}
    assert second["custom_id"] == "tv:g:7::hand"
    for bad in (f"{BASE}/{'x' * 512}", "javascript:alert(1)"):
        kept = delivery.view((Button("Watch", "", url=bad),), "g", 7)
        assert kept is not None and kept.children == []


@pytest.mark.parametrize(
    "url",
    [f"{BASE}/{'x' * 512}", "javascript:alert(1)", "tavern.example/t/1", None],
    ids=["over 512", "not a web address", "no scheme", "missing"],
)
def test_the_fake_refuses_a_link_button_discord_would(url: str | None) -> None:
    button: dict[str, Any] = {"type": 2, "style": 5, "label": "Watch"}
    if url is not None:
        button["url"] = url
    with pytest.raises(DiscordError) as refused:
        validate_message_payload({"components": [{"type": 1, "components": [button]}]}, attachments=0)
    assert "components.0.components.0.url" in str(refused.value)
    validate_message_payload(
        {"components": [{"type": 1, "components": [{**button, "url": f"{BASE}/{'x' * 488}"}]}]}, attachments=0
    )


async def test_a_tournament_s_posts_link_its_page_where_the_server_allows_it(
    fake_discord: FakeDiscord, start_bot: StartBot, linked: Settings
) -> None:
    """The round's post, ``/tournament status`` and the final results carry the event page's link (a URL
    button, nothing to press), the sign-up does not; with ``browser: off`` nothing links it."""
    fake = fake_discord
    bot = await start_bot(linked, extensions=["cogs.general", "cogs.bhargage", "cogs.tournament"])
    ann, bob, cat = fake.add_user("ann"), fake.add_user("bob"), fake.add_user("cat")
    made = await fake.slash(ann, fake.channel, "tournament create", name="Duel", game="bhargage", target=31)
    signup = made.message
    for u in (ann, bob, cat):
        signup = (await fake.click(u, signup, "Join")).message
    assert not links_of(signup)
    started = await fake.slash(ann, fake.channel, "tournament start")
    assert "Round 1" in started.text() and opens(bot, link(started.message, PAGE), "e") == 1
    await bot.tournament_desk.settled()
    await fake.settle()
    status = await fake.slash(bob, fake.channel, "tournament status")
    assert status.ephemeral and opens(bot, link(status.message, PAGE), "e") == 1
    assert fake.channel.guild is not None
    await bot.server_settings.change(fake.channel.guild.id, {"browser": "off"})
    ended = await fake.slash(ann, fake.channel, "tournament end")
    assert "Final results" in ended.text() and not links_of(ended.message)
