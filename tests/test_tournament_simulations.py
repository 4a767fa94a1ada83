"""Whole tournaments through the real discord.py client and the fake Discord, every seat a player whose
clicks follow a fixed policy (the first cards offered, the first card that may be played; Deluxe's turn
panel as its tests play it): a 12-player Swiss of Bhargage over 4 rounds, an 8-player knockout of Cribbage
at the best of three, and a 10-player Bharg Deluxe event at tables of 3 and 4. Each runs to its end; its
standings are checked against a count made here from the stored games, and every match against the
event's rules (no rematch, one table at a time, two wins a match, every player at a table each round)."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from typing import Any

from bot.edge.app import TavernBot
from bot.games import Table
from bot.services.tournaments.event import Event
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.test_bhargage_discord import play_out
from tests.test_cribbage_discord import Players as CribbagePlayers
from tests.test_deluxe_discord import BOARD_HEAD, MOVER, live_panel, play_turn
from tests.test_tournament_event import hand_count

Play = Callable[[FakeDiscord, TavernBot, Table, FakeChannel, list[FakeUser]], Awaitable[None]]


async def settle(fake: FakeDiscord, bot: TavernBot) -> None:
    await bot.tournament_desk.settled()
    await fake.settle()


async def run_event(
    fake: FakeDiscord, bot: TavernBot, users: list[FakeUser], play: Play, **create: Any
) -> Event:
    """Sign everyone up, start, and play every match's tables one at a time until the event ends."""
    made = await fake.slash(users[0], fake.channel, "tournament create", **create)
    signup = made.message
    for u in users:
        signup = (await fake.click(u, signup, "Join")).message
    await fake.slash(users[0], fake.channel, "tournament start")
    for _ in range(200):
        await settle(fake, bot)
        event = await bot.tournaments.get(1)
        assert event is not None
        if event.status == "finished":
            return event
        open_ids = [m.game_id for m in event.current if m.game_id is not None]
        assert open_ids, "a running event waits on a table"
        table = await bot.tables.get(open_ids[0])
        [thread] = [t for t in fake.threads(fake.channel) if t.id == table.channel_id]
        seated = [next(u for u in users if u.id == uid) for uid in table.user_ids]
        await play(fake, bot, table, thread, seated)
    raise AssertionError("the event did not end")


async def check_stored(bot: TavernBot, event: Event) -> None:
    """Every game the event counted is a finished game in the store, with the scores it counted."""
    counted = hand_count(event)
    assert {ln.player: (ln.points, ln.buchholz, ln.spread) for ln in event.lines()} == counted
    for game in event.games():
        assert game.how == "played" and game.game_id is not None
        record = await bot.store.load_game(game.game_id)
        assert record is not None and record.status == "finished" and record.result is not None
        assert record.result["scores"] == list(game.scores)
        assert [s.user_id for s in record.seats] == list(game.players)


async def boot(start_bot: StartBot, extensions: list[str], first_seed: int) -> TavernBot:
    bot = await start_bot(extensions=["cogs.general", *extensions, "cogs.tournament"])
    seeds = itertools.count(first_seed)
    bot.tournaments.seed_source = lambda: next(seeds)
    return bot


async def bhargage(
    fake: FakeDiscord, bot: TavernBot, table: Table, thread: FakeChannel, seated: list[FakeUser]
) -> None:
    assert await play_out(fake, thread, seated) > 0


async def cribbage(
    fake: FakeDiscord, bot: TavernBot, table: Table, thread: FakeChannel, seated: list[FakeUser]
) -> None:
    await CribbagePlayers(fake, bot, table, seated).play_out()


def mover(fake: FakeDiscord, seated: list[FakeUser], thread: FakeChannel) -> FakeUser:
    """Whom the newest board marks to move (a match's first board carries its pairing line on top)."""
    boards = [m for m in fake.channel_messages(thread) if BOARD_HEAD in m.content]
    [line] = [ln for ln in boards[-1].content.split("\n") if ln.startswith(MOVER)]
    [user] = [u for u in seated if line.startswith(f"{MOVER}{u.name}**")]
    return user


async def deluxe(
    fake: FakeDiscord, bot: TavernBot, table: Table, thread: FakeChannel, seated: list[FakeUser]
) -> None:
    for _ in range(400):
        if (await bot.tables.get(table.id)).status != "active":
            return
        user = mover(fake, seated, thread)
        try:
            await play_turn(fake, user, live_panel(fake, user))
        except (
            AssertionError
        ):  # its check of the answer assumes the game goes on: a bind that ends it is fine
            if (await bot.tables.get(table.id)).status == "active":
                raise
        await settle(fake, bot)
    raise AssertionError("the table did not end")


async def test_a_twelve_player_bhargage_swiss_of_four_rounds(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, ["cogs.bhargage"], 101)
    users = [fake.add_user(f"p{n:02d}") for n in range(12)]
    event = await run_event(
        fake, bot, users, bhargage, name="Spring Swiss", game="bhargage", rounds=4, target=21
    )
    assert [len(r) for r in event.rounds] == [6, 6, 6, 6]
    pairs = [frozenset(m.players) for r in event.rounds for m in r]
    assert len(pairs) == len(set(pairs)) == 24, "no rematch"
    await check_stored(bot, event)
    assert len(fake.threads(fake.channel)) == 24


async def test_an_eight_player_cribbage_knockout_at_the_best_of_three(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, ["cogs.cribbage"], 201)
    users = [fake.add_user(f"p{n}") for n in range(8)]
    event = await run_event(
        fake, bot, users, cribbage, name="Cup", game="cribbage", format="knockout", match=3, target=61
    )
    assert [len(r) for r in event.rounds] == [4, 2, 1]
    for m in (m for r in event.rounds for m in r):
        assert m.winner is not None and m.wins(m.winner) == 2 and len(m.games) in (2, 3)
    await check_stored(bot, event)
    places = dict(event.places())
    assert sorted(places.values()) == [1, 2, 3, 3, 5, 5, 5, 5]
    assert places[event.rounds[-1][0].winner or 0] == 1


async def test_a_ten_player_deluxe_event_at_tables_of_three_and_four(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, ["cogs.deluxe"], 301)
    users = [fake.add_user(f"p{n}") for n in range(10)]
    event = await run_event(fake, bot, users, deluxe, name="Deluxe night", game="deluxe", rounds=2, target=10)
    assert [sorted(len(m.players) for m in r) for r in event.rounds] == [[3, 3, 4], [3, 3, 4]]
    for r in event.rounds:
        assert sorted(p for m in r for p in m.players) == sorted(u.id for u in users)
    await check_stored(bot, event)
