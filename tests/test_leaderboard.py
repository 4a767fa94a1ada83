"""``/leaderboard`` through the fake Discord: boards paged with ◀ ▶ in the same message, the presser's own
rank line under any page, shared ranks for equal ratings, monthly seasons rolling over on the bot's clock
(the old season still viewable), an admin closing a season (archived, never deleted) after a confirmation,
the bot's and abandoned games rating nobody, forged presses refused, and the Italian text."""

from __future__ import annotations

import dataclasses
import re

import discord

from bot.settings import Settings
from bot.store.boards import next_month
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_bhargage_discord import challenge

MEMBER = discord.Permissions(view_channel=True, send_messages=True, read_message_history=True).value
MODERATOR = MEMBER | discord.Permissions(manage_channels=True).value
PICK = "tv:lb:bhargage:pick"


async def win(fake: FakeDiscord, winner: FakeUser, loser: FakeUser) -> None:
    """A rated Bhargage game that ``loser`` resigns."""
    await challenge(fake, winner, loser)
    ask = await fake.slash(loser, fake.channel, "bhargage resign")
    await fake.click(loser, ask.message, "Resign")
    await fake.settle()


def rows(message: FakeMessage) -> list[tuple[int, str]]:
    """The board's table: (rank, name) per line."""
    table = message.content.split("```")[1]
    return [(int(m[1]), m[2]) for m in re.finditer(r"^ *(\d+) (\S+)", table, re.MULTILINE)]


def last_line(message: FakeMessage) -> str:
    return message.content.splitlines()[-1]


async def forged(fake: FakeDiscord, user: FakeUser, message: FakeMessage, data: dict[str, object]) -> str:
    """What the bot answers a press no client of ours would send, on ``message``."""
    answer = await fake._interact(3, user, message.channel, dict(data), "forged", message=message)
    assert answer.ephemeral
    return answer.content


async def test_pages_rank_ties_together_and_show_the_pressers_line_wherever_they_stand(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, openings_per_minute=100))
    winners = [fake.add_user(f"win{i}") for i in range(6)]
    losers = [fake.add_user(f"lose{i}") for i in range(5)] + [fake.add_user("@everyone")]
    for w, loser in zip(winners, losers, strict=True):
        await win(fake, w, loser)
    # Games against the bot and abandoned ones rate nobody: neither puts anyone on the board.
    practiser, left = fake.add_user("practiser"), fake.add_user("left")
    await fake.slash(practiser, fake.channel, "bhargage practice", level="easy")
    ask = await fake.slash(practiser, fake.channel, "bhargage resign")
    await fake.click(practiser, ask.message, "Resign")
    await challenge(fake, left, practiser)
    ended = await fake.slash(fake.owner, fake.channel, "tavern-admin end")
    assert "The game is ended" in ended.text()
    await fake.settle()

    last = losers[-1]  # the last of the six at 984: page 2
    board = await fake.slash(last, fake.channel, "leaderboard")
    message = board.message
    assert not board.ephemeral and "Bhargage leaderboard** · Season 1 · " in message.content
    assert rows(message) == [(1, f"win{i}") for i in range(6)] + [(7, f"lose{i}") for i in range(4)]
    assert "Page 1/2 · 12 players" in message.content
    assert last_line(message) == "**@\u200beveryone**: #7 · rating 984? · 1 game"
    assert message.pinged_user_ids() == [] and not message.pings_everyone
    assert [b.label for b in message.buttons()] == ["◀", "▶"] and message.button("◀").disabled
    menu = message.select(PICK)
    assert [(o.value, o.default) for o in menu.options] == [("1", True), ("all", False)]
    assert menu.options[0].label.startswith("This season: Season 1 · ")

    turned = await fake.click(winners[2], message, "▶")  # anyone may turn it: the line is theirs
    assert turned.type == 7 and rows(message) == [(7, "lose4"), (7, "@\u200beveryone")]
    assert last_line(message) == "**win2**: #1 · rating 1016? · 1 game"
    outsider = fake.add_user("outsider")
    await fake.click(outsider, message, "◀")
    assert rows(message)[0] == (1, "win0")
    assert last_line(message) == "**outsider**: no rated game on this board yet."
    ever = await fake.slash(practiser, fake.channel, "leaderboard", board="all-time")
    assert "· All time" in ever.message.content and "Page 1/2 · 12 players" in ever.message.content
    assert rows(ever.message) == rows(board.message)
    assert last_line(ever.message) == "**practiser**: no rated game on this board yet."
    rated = {r.user_id for r in await bot.store.leaderboard(fake.guild.id, "bhargage", limit=20)}
    assert rated == {u.id for u in winners + losers}  # no bot seat, no abandoned game's players


async def test_a_month_rolls_the_season_over_and_the_old_one_stays_viewable(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, openings_per_minute=100))
    ann, bob, cat, dan = (fake.add_user(n) for n in ("ann", "bob", "cat", "dan"))
    await win(fake, ann, bob)
    await win(fake, cat, dan)
    first = await fake.slash(ann, fake.channel, "leaderboard")
    assert rows(first.message) == [(1, "ann"), (1, "cat"), (3, "bob"), (3, "dan")]
    bot.clock.advance(next_month(bot.clock()) - bot.clock() + 3600)  # an hour into next month (UTC)

    fresh = await fake.slash(ann, fake.channel, "leaderboard")
    assert (
        "Season 2 · " in fresh.message.content and "No rated game this season yet." in fresh.message.content
    )
    assert [o.value for o in fresh.message.select(PICK).options] == ["2", "all", "1"]
    await win(fake, bob, ann)
    now = await fake.slash(dan, fake.channel, "leaderboard")
    assert rows(now.message) == [(1, "bob"), (2, "ann")]  # only this month's game
    assert last_line(now.message) == "**dan**: no rated game on this board yet."
    past = await fake.select(dan, now.message, PICK, ["1"])
    assert past.type == 7 and "Season 1 · " in now.message.content
    assert rows(now.message) == [(1, "ann"), (1, "cat"), (3, "bob"), (3, "dan")]
    assert last_line(now.message) == "**dan**: #3 · rating 984? · 1 game"
    assert [(o.value, o.default) for o in now.message.select(PICK).options][2] == ("1", True)
    await fake.select(dan, now.message, PICK, ["all"])
    assert rows(now.message)[:2] == [(1, "cat"), (2, "bob")] and "· All time" in now.message.content
    by_number = await fake.slash(cat, fake.channel, "leaderboard", season=1)
    assert rows(by_number.message) == rows(first.message)
    for options, said in (
        ({"season": 3}, "There is no season 3 here: the current one is season 2."),
        ({"season": 1, "board": "all-time"}, "Choose a season or the all-time board, not both."),
    ):
        refused = await fake.slash(cat, fake.channel, "leaderboard", **options)
        assert refused.ephemeral and said in refused.text()


async def test_an_admin_closes_a_season_after_confirming_and_nothing_is_deleted(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, openings_per_minute=100))
    ann, bob, member, mod = (fake.add_user(n) for n in ("ann", "bob", "member", "mod"))
    member.permissions, mod.permissions = MEMBER, MODERATOR
    chosen = await fake.slash(fake.owner, fake.channel, "tavern-admin settings", seasons="none")
    assert "one season, until an admin starts a new one *(changed here)*" in chosen.text()
    assert await bot.store.guild_settings(fake.guild.id) == {"seasons": "none"}
    nothing = await fake.slash(fake.owner, fake.channel, "tavern-admin new-season")
    assert nothing.ephemeral and "has no rated game yet: there is nothing to close" in nothing.text()
    await win(fake, ann, bob)
    refused = await fake.slash(member, fake.channel, "tavern-admin new-season", force=True)
    assert refused.ephemeral and "Manage Server permission can close a season" in refused.text()
    refused = await fake.slash(mod, fake.channel, "tavern-admin new-season")
    assert "Manage Server permission" in refused.text()

    ask = await fake.slash(fake.owner, fake.channel, "tavern-admin new-season")
    assert ask.ephemeral and "Close **Season 1 · since " in ask.text() and "Nothing is deleted" in ask.text()
    # Only a member with Manage Server may confirm: a forged press of the button is refused quietly.
    assert "out of date" in await forged(
        fake, member, ask.message, {"custom_id": "tv:lb:close:1", "component_type": 2}
    )
    assert (await bot.store.seasons(fake.guild.id, bot.clock()))[0].number == 1
    done = await fake.click(fake.owner, ask.message, "Close season 1")
    assert done.type == 7 and "is closed and season 2 has begun" in ask.message.content
    assert ask.message.buttons() == []
    bot.clock.advance(40 * 86400)  # one season, whatever the month: no rollover
    board = await fake.slash(ann, fake.channel, "leaderboard")
    assert "Season 2 · since " in board.message.content and "No rated game this season yet." in board.text()
    await fake.select(ann, board.message, PICK, ["1"])
    assert rows(board.message) == [(1, "ann"), (2, "bob")]  # archived as it was
    assert re.search(r"Season 1 · .+ – .+", board.message.content)
    ever = await fake.slash(ann, fake.channel, "leaderboard", board="all-time")
    assert rows(ever.message) == [(1, "ann"), (2, "bob")]
    again = await fake.slash(fake.owner, fake.channel, "tavern-admin new-season")
    assert "Season 2 · since" in again.text() and "nothing to close" in again.text()


async def test_forged_board_presses_are_refused_quietly(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    await start_bot(dataclasses.replace(settings, openings_per_minute=100))
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    await win(fake, ann, bob)
    board = await fake.slash(ann, fake.channel, "leaderboard")
    before = board.message.content
    for cid in (
        "tv:lb:bhargage:1:1",  # a page no button of this message offers
        "tv:lb:bhargage:0:1",
        "tv:lb:bhargage:all:0",
        "tv:lb:chess:all:1",
        "tv:lb:bhargage:1:1:2",
        "tv:lb:close:0",
        "tv:lb:close:1",  # not on this message
    ):
        said = await forged(fake, bob, board.message, {"custom_id": cid, "component_type": 2})
        assert "out of date" in said
    for values in (["2"], ["1", "all"], ["all; 1"], [], [3]):
        data = {"custom_id": PICK, "component_type": 3, "values": values}
        assert "out of date" in await forged(fake, bob, board.message, data)
    other = await fake.slash(bob, fake.channel, "leaderboard", game="deluxe")
    data = {"custom_id": "tv:lb:deluxe:pick", "component_type": 3, "values": ["all"]}
    assert "out of date" in await forged(fake, bob, board.message, data)  # another message's menu
    assert board.message.content == before and "No rated game" in other.message.content


async def test_the_board_speaks_italian(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    await start_bot(dataclasses.replace(settings, openings_per_minute=100))
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    await win(fake, ann, bob)
    giulia = fake.add_user("giulia")
    giulia.locale = "it"
    board = await fake.slash(giulia, fake.channel, "leaderboard")
    text = board.message.content
    assert "**Classifica di Bhargage** · Stagione 1 · " in text and "Pagina 1/1 · 2 giocatori" in text
    assert last_line(board.message) == "**giulia**: ancora nessuna partita valutata in questa classifica."
    assert board.message.select(PICK).options[0].label.startswith("Stagione in corso: Stagione 1 · ")
    ann.locale = "it"
    mine = await fake.slash(ann, fake.channel, "leaderboard", board="all-time")
    assert "Di tutti i tempi" in mine.message.content
    assert last_line(mine.message) == "**ann**: 1º posto · valutazione 1016? · 1 partita"
    giulia.permissions = MEMBER
    refused = await fake.slash(giulia, fake.channel, "tavern-admin new-season", force=True)
    assert "Solo chi ha il permesso Gestisci server può chiudere una stagione." in refused.text()
