"""``/leaderboard`` and ``/stats`` through the real bot, over results the store recorded for both games."""

from __future__ import annotations

from bot.store import Finish, NewAction, NewGame
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord


async def test_leaderboard_and_stats_for_both_games(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    ann, ben, cat = fake.add_user("ann"), fake.add_user("ben"), fake.add_user("cat")
    empty = await fake.slash(ann, fake.channel, "leaderboard", board="all-time")
    assert "No finished games" in empty.content

    store, guild = bot.store, fake.guild.id
    other = fake.add_channel("other")
    g1 = await store.create_game(
        NewGame("bhargage", guild, 1, 1, [(ann.id, "ann"), (ben.id, "ben")], {}, 1.0)
    )
    await store.append_action(
        NewAction(g1, 1, 1, "1 resign", 2.0, finish=Finish((121, 90), (0,), True, "muggins", 2.0))
    )
    g2 = await store.create_game(
        NewGame("bhargage", guild, 2, 1, [(ann.id, "ann"), (ben.id, "ben")], {}, 3.0)
    )
    await store.append_action(
        NewAction(g2, 1, 0, "0 resign", 4.0, finish=Finish((60, 121), (1,), False, "target", 4.0))
    )
    g3 = await store.create_game(
        NewGame("bhargage", guild, 3, 1, [(ann.id, "ann"), (cat.id, "cat")], {}, 5.0)
    )
    await store.append_action(
        NewAction(g3, 1, 1, "1 resign", 6.0, finish=Finish((121, 50), (0,), False, "resign", 6.0))
    )
    g4 = await store.create_game(
        NewGame("deluxe", guild, 4, 1, [(ann.id, "ann"), (ben.id, "ben"), (cat.id, "cat")], {}, 7.0)
    )
    await store.append_action(
        NewAction(
            g4, 1, 0, "x", 8.0, finish=Finish((104, 80, 12), (0,), False, "target", 8.0, (11.5, 8.0, 1.0))
        )
    )

    board = await fake.slash(ben, other, "leaderboard", board="all-time")  # finished in 1970: past seasons
    assert not board.ephemeral and "Bhargage leaderboard" in board.content
    rows = [ln for ln in board.content.splitlines() if ln[:2].strip().isdigit()]
    assert [r.split()[1] for r in rows] == ["ann", "ben", "cat"]  # ordered by Elo rating
    ann_row = rows[0].split()
    assert ann_row[2:6] == ["2", "1", "67", "1"]  # wins, losses, win %, muggins wins
    assert ann_row[6].endswith("?") and int(ann_row[6][:-1]) > 1000  # shown from 1000; provisional: 3 games
    assert "rating: a new player starts at 1000" in board.content

    deluxe = await fake.slash(ben, other, "leaderboard", game="deluxe", board="all-time")
    assert "Bharg Deluxe leaderboard" in deluxe.content and "cat" in deluxe.content
    drows = {ln.split()[1]: ln.split() for ln in deluxe.content.splitlines() if ln[:2].strip().isdigit()}
    assert drows["ann"][2:6] == ["1", "0", "100", "11.5"]  # wins, losses, win %, average hand score
    assert drows["cat"][5] == "1.0" and "average hand score" in deluxe.content
    assert "muggins" not in deluxe.content

    mine = await fake.slash(ann, fake.channel, "stats")  # a profile card: tests/test_profile.py
    assert mine.ephemeral and [a["filename"] for a in mine.message.attachments] == ["profile.png"]
    assert "__Bhargage__ · rating 10" in mine.content and " over the last 3 games" in mine.content
    assert "3 games · 2 wins · 1 loss · 67% · 1 muggins win" in mine.content
    assert (
        "__Bharg Deluxe__ · rating " in mine.content
        and "1 game · 1 win · 0 losses · 100%" in mine.content
        and "average hand score 11.5" in mine.content
    )
    deluxe_rating = mine.content.split("__Bharg Deluxe__")[1].split("rating ")[1].split()[0]
    assert "-" not in deluxe_rating and "−" not in deluxe_rating
    theirs = await fake.slash(ann, fake.channel, "stats", player=cat)
    assert theirs.content.startswith("**cat**") and "0 wins · 1 loss" in theirs.content
    nobody = await fake.slash(ann, fake.channel, "stats", player=fake.add_user("dan"))
    assert "has not finished a game" in nobody.content

    in_dm = await fake.slash(ann, fake.dm_channel(ann), "stats")  # anywhere, since the user install
    assert in_dm.content == "ann has not finished a game outside the servers that added me yet."
