"""A tournament through the real discord.py client and the fake Discord, driven as its players would: the
organiser's ``/tournament`` commands, the sign-up's Join, and every game played out by clicks on the match
threads' panels. The bot restarts in the middle of a round and loses nothing; the standings are checked
against a count of the stored games made here; and each match's requests to Discord are counted against a
normal game's."""

from __future__ import annotations

import dataclasses
import itertools
import json
from types import SimpleNamespace
from typing import Any

from bot.edge import tournament_posts as posts
from bot.edge.app import TavernBot
from bot.games import GAMES, Table
from bot.services.tournaments.event import MAX_ENTRANTS, Event
from bot.services.tournaments.event import Settings as EventSettings
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.fakediscord.model import SEND_MESSAGES, VIEW_CHANNEL
from tests.test_bhargage_discord import challenge, every_click_mine, play_out, step
from tests.test_cribbage_discord import Players as CribbagePlayers
from tests.test_pictures_standings import png
from tests.test_tournament_event import hand_count

EXTENSIONS = ["cogs.general", "cogs.bhargage", "cogs.stats", "cogs.tournament"]


async def boot(start_bot: StartBot) -> TavernBot:
    bot = await start_bot(extensions=EXTENSIONS)
    seeds = itertools.count(11)
    bot.tournaments.seed_source = lambda: next(seeds)
    return bot


def match_table(bot: TavernBot, thread: FakeChannel) -> Table:
    found = [t for t in bot.tables.active_tables() if t.channel_id == thread.id]
    assert len(found) == 1, f"one table in {thread.name}"
    return found[0]


async def settle(fake: FakeDiscord, bot: TavernBot) -> None:
    await bot.tournament_desk.settled()
    await fake.settle()


async def play_round(
    fake: FakeDiscord, bot: TavernBot, threads: list[FakeChannel], users: list[FakeUser]
) -> None:
    for thread in threads:
        table = match_table(bot, thread)
        players = [u for u in users if u.id in table.user_ids]
        assert await play_out(fake, thread, players) > 0
        await settle(fake, bot)


async def duel(
    fake: FakeDiscord, bot: TavernBot, ann: FakeUser, bob: FakeUser, **options: Any
) -> FakeChannel:
    """A Bhargage event to 31 of two, created by ``ann``, both signed up and started: its match's thread."""
    made = await fake.slash(ann, fake.channel, "tournament create", game="bhargage", target=31, **options)
    signup = made.message
    for u in (ann, bob):
        signup = (await fake.click(u, signup, "Join")).message
    await fake.slash(ann, fake.channel, "tournament start")
    await settle(fake, bot)
    [thread] = fake.threads(fake.channel)
    return thread


async def forget_me(fake: FakeDiscord, user: FakeUser) -> str:
    """``/tavern forget-me`` confirmed: the member's answer (the confirmation's message, or a refusal)."""
    asked = await fake.slash(user, fake.channel, "tavern forget-me")
    done = await fake.click(user, asked.message, "Forget me")
    return asked.message.text() if done.type == 7 else done.text()


def requests_in(fake: FakeDiscord, since: int, channel_id: int) -> int:
    """Requests of the global budget (not an interaction's) to the channel or thread since ``since``."""
    return sum(
        1
        for method, path, _ in fake.requests[since:]
        if f"/channels/{channel_id}/" in path and "/interactions/" not in path and "/webhooks/" not in path
    )


async def test_a_swiss_through_discord_survives_a_restart(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    users = [fake.add_user(n) for n in ("ann", "bob", "cat", "dan")]
    await every_click_mine(fake, users)
    made = await fake.slash(
        users[0],
        fake.channel,
        "tournament create",
        name="Spring Swiss 2026",
        game="bhargage",
        rounds=2,
        target=31,
    )
    assert not made.ephemeral and "Spring Swiss 2026" in made.message.content
    signup = made.message
    for u in users:
        signup = (await fake.click(u, signup, "Join")).message
    assert "4 players signed up" in signup.content and "dan" in signup.content
    again = await fake.click(users[1], signup, "Join")
    assert again.ephemeral and "already joined" in again.text()

    eve = fake.add_user("eve")
    eve.permissions = SEND_MESSAGES | VIEW_CHANNEL
    refused = await fake.slash(eve, fake.channel, "tournament start")
    assert refused.ephemeral and "organiser" in refused.text()

    before_start = len(fake.requests)
    started = await fake.slash(users[0], fake.channel, "tournament start")
    await settle(fake, bot)
    assert "Round 1 of 2" in started.message.content
    threads = fake.threads(fake.channel)
    assert len(threads) == 2
    for thread in threads:
        table = match_table(bot, thread)
        first = fake.channel_messages(thread)[0]
        assert sorted(first.pinged_user_ids()) == sorted(table.user_ids), "pings exactly its players"
    opening = {t.id: requests_in(fake, before_start, t.id) for t in threads}

    # round 1 is played out; round 2 is paired and opened
    mark = len(fake.requests)
    await play_round(fake, bot, threads, users)
    played = {t.id: requests_in(fake, mark, t.id) for t in threads}
    round_two = [t for t in fake.threads(fake.channel) if t not in threads]
    assert len(round_two) == 2
    assert any("Round 2 of 2" in m.content for m in fake.channel_messages(fake.channel))

    # the bot stops in the middle of round 2, after a move of its first match; a new one carries on
    first_two = match_table(bot, round_two[0])
    two_players = [u for u in users if u.id in first_two.user_ids]
    assert await step(fake, round_two[0], two_players) is not None
    moved = first_two.seq
    await bot.close()
    bot = await boot(start_bot)
    await settle(fake, bot)
    resumed = match_table(bot, round_two[0])
    assert resumed.id == first_two.id and resumed.seq == moved >= 1
    await play_round(fake, bot, round_two, users)

    event = await bot.tournaments.get(1)
    assert event is not None and event.status == "finished"
    final = fake.channel_messages(fake.channel)[-1]
    assert "Final results" in final.content and "🥇" in final.content
    [att] = final.attachments  # the standings as a picture, its text beside it
    assert att["filename"] == "standings.png" and "Buchholz" in att.get("description", "")
    assert png(fake.attachment_bytes(att)).width == 900
    counted = hand_count(event)
    assert {ln.player: (ln.points, ln.buchholz, ln.spread) for ln in event.lines()} == counted
    for game in event.games():
        assert game.game_id is not None
        record = await bot.store.load_game(game.game_id)
        assert record is not None and record.status == "finished"
        assert record.result is not None and record.result["scores"] == list(game.scores)
    places = dict(event.places())
    for u in users:
        assert [(r[0], r[1]) for r in await bot.store.places_of(u.id)] == [(1, places[u.id])]
    champion = next(u for u in users if places[u.id] == 1)
    card = await fake.slash(champion, fake.channel, "stats")
    assert "🥇 Spring Swiss 2026: place 1 of 4" in card.text()

    # the same game as round 1's first match (its seed, its seats, the same clicks) as a normal challenge,
    # in a thread of its own as a server with threads on plays it
    match = threads[0]
    table = await bot.tables.get(next(g.game_id for g in event.rounds[0][0].games if g.game_id is not None))
    seated = [next(u for u in users if u.id == uid) for uid in table.user_ids]
    await bot.server_settings.change(fake.guild.id, {"threads": True})
    normal_channel = fake.add_channel("normal")
    bot.lobbies.seed_source = lambda: table.seed
    mark = len(fake.requests)
    await challenge(fake, seated[0], seated[1], normal_channel)
    [normal_thread] = fake.threads(normal_channel)
    await play_out(fake, normal_channel, seated)  # its board heads the thread, in the channel
    normal = requests_in(fake, mark, normal_channel.id) + requests_in(fake, mark, normal_thread.id)
    made_thread = 1  # POST /channels/<the event's channel>/threads: counted under the channel, not the thread
    tournament = opening[match.id] + played[match.id] + made_thread
    print(f"requests of the global budget: a normal game {normal}, the same game as a match {tournament}")
    assert tournament <= normal + 1, "a match costs a normal game and its pairing post"


async def test_bad_input_gets_clear_answers(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await boot(start_bot)
    ann = fake.add_user("ann")
    nothing = await fake.slash(ann, fake.channel, "tournament status")
    assert nothing.ephemeral and "no tournament" in nothing.text()
    made = await fake.slash(ann, fake.channel, "tournament create", name="Solo", game="cribbage", target=61)
    second = await fake.slash(ann, fake.channel, "tournament create", name="Twice", game="cribbage")
    assert second.ephemeral and "already has a tournament" in second.text()
    other = fake.add_channel("other")
    wrong = await fake.slash(ann, other, "tournament create", name="Seq", game="cribbage", sequences=True)
    assert wrong.ephemeral and "Bhargage option" in wrong.text()
    mug = await fake.slash(
        ann, other, "tournament create", name="Mug", game="cribbage", target=61, muggins=True
    )
    assert not mug.ephemeral and "muggins" in mug.message.content.lower() and "61" in mug.message.content
    await fake.click(ann, made.message, "Join")
    alone = await fake.slash(ann, fake.channel, "tournament start")
    assert alone.ephemeral and "at least 2 players" in alone.text()
    early = await fake.slash(ann, fake.channel, "tournament award", match="9.9", winner=ann)
    assert early.ephemeral and "not under way" in early.text()
    ended = await fake.slash(ann, fake.channel, "tournament end")
    assert not ended.ephemeral
    after = await fake.slash(ann, fake.channel, "tournament status")
    assert after.ephemeral and "no tournament" in after.text()


async def test_a_cribbage_knockout_best_of_three_plays_each_match_in_one_thread(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot(extensions=["cogs.general", "cogs.cribbage", "cogs.tournament"])
    seeds = itertools.count(5)
    bot.tournaments.seed_source = lambda: next(seeds)
    users = [fake.add_user(n) for n in ("ann", "bob", "cat", "dan")]
    made = await fake.slash(
        users[0],
        fake.channel,
        "tournament create",
        name="Cup",
        game="cribbage",
        format="knockout",
        match=3,
        target=61,
    )
    signup = made.message
    for u in users:
        signup = (await fake.click(u, signup, "Join")).message
    await fake.slash(users[0], fake.channel, "tournament start")
    games = 0
    while True:
        await settle(fake, bot)
        event = await bot.tournaments.get(1)
        assert event is not None
        if event.status == "finished":
            break
        open_ids = [m.game_id for m in event.current if m.game_id is not None]
        assert open_ids, "a running event waits on a table"
        table = await bot.tables.get(open_ids[0])
        await CribbagePlayers(fake, bot, table, [u for u in users if u.id in table.user_ids]).play_out()
        games += 1
        assert games <= 9
    assert [len(r) for r in event.rounds] == [2, 1]
    for m in (m for r in event.rounds for m in r):
        assert m.winner is not None and m.wins(m.winner) == 2
        homes = {(await bot.tables.get(g.game_id)).channel_id for g in m.games if g.game_id is not None}
        assert len(homes) == 1, "a best of three plays on in its match's thread"
    assert len(fake.threads(fake.channel)) == 3
    final = event.rounds[1][0]
    assert {w for w in (m.winner for m in event.rounds[0])} == set(final.players)
    places = dict(event.places())
    assert places[final.winner] == 1 and sorted(places.values()) == [1, 2, 3, 3]
    last = fake.channel_messages(fake.channel)[-1].content
    assert "Final results" in last and "Round 2" in last


async def test_a_deluxe_table_opens_for_three_and_an_award_closes_it(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot(extensions=["cogs.general", "cogs.deluxe", "cogs.tournament"])
    users = [fake.add_user(n) for n in ("ann", "bob", "cat")]
    made = await fake.slash(
        users[0], fake.channel, "tournament create", name="Deluxe night", game="deluxe", rounds=1
    )
    signup = made.message
    for u in users:
        signup = (await fake.click(u, signup, "Join")).message
    await fake.slash(users[0], fake.channel, "tournament start")
    await settle(fake, bot)
    [thread] = fake.threads(fake.channel)
    table = match_table(bot, thread)
    assert sorted(table.user_ids) == sorted(u.id for u in users)
    first = fake.channel_messages(thread)[0]
    assert sorted(first.pinged_user_ids()) == sorted(table.user_ids)
    awarded = await fake.slash(users[0], fake.channel, "tournament award", match="1.1", winner=users[2])
    assert not awarded.ephemeral and "Final results" in awarded.text()
    await settle(fake, bot)
    closed = await bot.tables.get(table.id)
    assert closed.status == "abandoned", "the awarded match's table is closed, unrated"
    assert "settled this match" in fake.channel_messages(thread)[-1].content, "its players are told, there"
    event = await bot.tournaments.get(1)
    assert event is not None and event.status == "finished"
    assert dict(event.places())[users[2].id] == 1


async def test_a_dropped_player_s_table_closes_and_the_match_goes_to_the_opponent(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    table = match_table(bot, await duel(fake, bot, ann, bob, name="Duel"))
    dropped = await fake.slash(ann, fake.channel, "tournament drop", player=bob)
    assert not dropped.ephemeral and "Final results" in dropped.text()
    await settle(fake, bot)
    assert (await bot.tables.get(table.id)).status == "abandoned"
    event = await bot.tournaments.get(1)
    assert event is not None and dict(event.places()) == {ann.id: 1, bob.id: 2}

    # the organiser asks to be forgotten: the event's document keeps nothing of them
    forgot = await forget_me(fake, ann)
    assert "forgotten you" in forgot
    row = await bot.store.get_tournament(1)
    assert row is not None and str(ann.id) not in json.dumps(row.doc) and "ann" not in json.dumps(row.doc)
    event = await bot.tournaments.get(1)
    assert event is not None and [e.name for e in event.entrants] == ["👤", "bob"]
    assert sorted(dict(event.places()).values()) == [1, 2] and dict(event.places())[bob.id] == 2


async def test_a_member_in_an_event_under_way_is_not_forgotten(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    await boot(start_bot)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    made = await fake.slash(ann, fake.channel, "tournament create", name="Duel", game="bhargage", target=31)
    await fake.click(bob, made.message, "Join")
    refused = await forget_me(fake, bob)
    assert "You are entered in the tournament “Duel”" in refused
    left = await fake.click(bob, made.message, "Leave")
    assert not left.ephemeral
    assert "forgotten you" in await forget_me(fake, bob)


def test_a_full_sign_up_fits_one_message() -> None:
    event = Event(EventSettings("Big", "bhargage", "swiss", {"target": 61}), organiser_id=1)
    for n in range(MAX_ENTRANTS):
        event.join(1000 + n, f"{'W' * 28}{n:04d}", 1500.0)
    text = posts.signup_text(SimpleNamespace(games=GAMES), event)  # type: ignore[arg-type]
    assert len(text) <= 2000 and "64 players signed up" in text and "more" in text
    assert text.endswith("`/tournament start`."), "the how-to line is never cut off"


async def test_a_player_past_the_move_limit_is_warned_even_after_a_nudge_then_forfeits(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(
        dataclasses.replace(settings, nudge_minutes=1, claim_minutes=0), extensions=EXTENSIONS
    )
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    thread = await duel(fake, bot, ann, bob, name="Clock", **{"move-minutes": 4})
    table = match_table(bot, thread)
    while len(table.people_waited_for()) != 1:  # both lay away; the cut is made for its player
        assert await step(fake, thread, [ann, bob]) is not None
        table = match_table(bot, thread)
    [seat] = table.people_waited_for()
    late = next(u for u in (ann, bob) if u.id == table.seats[seat].user_id)

    async def tick(seconds: float) -> list[str]:
        mark = len(fake.channel_messages(thread))
        bot.clock.advance(seconds)
        await bot.controller.timers.run()
        await settle(fake, bot)
        return [m.content for m in fake.channel_messages(thread)[mark:]]

    nudged = await tick(90)  # the server's nudge (after 1 min) comes first: it is not the event's warning
    assert any("waiting for you" in c for c in nudged) and not any("forfeit" in c for c in nudged)
    [warning] = [c for c in await tick(40) if "forfeit" in c]  # half the limit: warned once, by name
    assert late.mention in warning and "in 2 min" in warning
    assert not [c for c in await tick(60) if "forfeit this game" in c], "warned once a turn"
    await tick(60)  # past the limit: the game is forfeited through the session core, the match decided
    ended = await bot.tables.get(table.id)
    assert ended.status == "finished"
    event = await bot.tournaments.get(1)
    assert event is not None and event.status == "finished"
    winner = ann if late is bob else bob
    assert dict(event.places()) == {winner.id: 1, late.id: 2}
