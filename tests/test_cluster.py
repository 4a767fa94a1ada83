"""Two bot processes, each its own shard set and its own store connection, one real PostgreSQL, one fake
Discord that routes as Discord does (a guild's events to its shard, every DM to shard 0).

The games' guild lives on shard 1 while every DM button lands on shard 0, so the process that plays the moves
is not the one that owns the guild: whole games of both kinds, the same press at the same instant on both
processes, and a process killed mid-game with the other carrying on.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bench.bot_process import BotChild
from bot.edge.app import TavernBot
from bot.games import Table
from tests.conftest import StartBot, make_settings
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.transcripts import act, live_panel, verb

SHARDS = 2


def far_channel(fake: FakeDiscord) -> FakeChannel:
    """A channel in a guild that Discord puts on shard 1."""
    guild = fake.add_guild("Far Tavern", shard=1, shard_count=SHARDS)
    return fake.add_channel("far", guild)


def cluster_settings(tmp_path: Path, pg_url: str, shard: int, **overrides: Any) -> Any:
    return make_settings(
        tmp_path / f"shard{shard}",
        database_url=pg_url,
        shard_count=SHARDS,
        shard_ids=(shard,),
        **overrides,
    )


async def cluster(start_bot: StartBot, tmp_path: Path, pg_url: str) -> tuple[TavernBot, TavernBot]:
    """Process A runs shard 0 (every DM), process B shard 1 (the far guild)."""
    a = await start_bot(cluster_settings(tmp_path, pg_url, 0))
    b = await start_bot(cluster_settings(tmp_path, pg_url, 1))
    return a, b


async def fresh(bot: TavernBot, table_id: int) -> Table:
    """The table as stored (the lock checks the process's copy against the database)."""
    async with bot.tables.locked(table_id) as table:
        return table


async def play_out(
    fake: FakeDiscord,
    reader: TavernBot,
    table_id: int,
    players: list[FakeUser],
    *,
    until: Callable[[Table], bool] = lambda table: table.status != "active",
    panel_of: Callable[[FakeUser], Awaitable[FakeMessage | None]] | None = None,
) -> list[int | None]:
    """Play the table by its controls' verbs until ``until``; returns the shard each press landed on
    (``panel_of`` finds where a player presses; by default their live private panel)."""
    by_id = {u.id: u for u in players}
    shards: list[int | None] = []
    for _ in range(800):
        table = await fresh(reader, table_id)
        if until(table):
            return shards
        waiting = table.people_waited_for()
        if not waiting:  # a forced move is being made for someone (perhaps by the other process)
            await asyncio.sleep(0.01)
            continue
        user = by_id[table.user_ids[waiting[0]]]
        before = len(fake.interactions)
        panel = await panel_of(user) if panel_of is not None else live_panel(fake, user)
        assert panel is not None, f"{user.name} has no panel"
        await act(fake, user, panel)
        shards += [it.shard for it in fake.interactions[before:]]
    raise AssertionError("the game did not end")


def button(message: FakeMessage, name: str) -> str:
    return str(next(b.custom_id for b in message.buttons() if verb(b.custom_id) == name))


async def bhargage_between(
    fake: FakeDiscord,
    channel: FakeChannel,
    alice: FakeUser,
    bob: FakeUser,
    *,
    shard: int = 1,
    target: int = 31,
) -> None:
    """Alice challenges Bob in the channel (to ``target``: 31 ends soon) and Bob accepts: both presses reach
    the guild's shard."""
    posted = await fake.slash(alice, channel, "bhargage challenge", opponent=bob, target=target)
    assert fake.interactions[-1].shard == shard
    await fake.click(bob, posted.message, button(posted.message, "accept"))
    assert fake.interactions[-1].shard == shard


async def table_in(bot: TavernBot, channel: FakeChannel) -> Table:
    table = await bot.tables.table_for_channel(channel.id)
    assert table is not None, "the owning process has no table in the channel"
    return table


async def bhargage_in_a_far_guild(
    fake: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str
) -> tuple[TavernBot, TavernBot, FakeChannel, tuple[FakeUser, FakeUser], Table]:
    """Both processes up, and Alice and Bob at a Bhargage table in a guild on shard 1 (B's)."""
    channel = far_channel(fake)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    a, b = await cluster(start_bot, tmp_path, pg_url)
    await bhargage_between(fake, channel, alice, bob)
    return a, b, channel, (alice, bob), await table_in(b, channel)


async def test_a_whole_bhargage_game_in_a_guild_on_shard_1_played_by_dm_on_shard_0(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str
) -> None:
    fake = fake_discord
    a, b, channel, (alice, bob), table = await bhargage_in_a_far_guild(fake, start_bot, tmp_path, pg_url)
    assert await a.tables.table_for_channel(channel.id) is None  # not A's guild: A has not even loaded it

    shards = await play_out(fake, a, table.id, [alice, bob])
    assert shards and set(shards) == {0}, "every DM button lands on shard 0"

    record = await b.store.load_game(table.id)
    assert record is not None and record.status == "finished" and record.result is not None
    assert [x.seq for x in record.actions] == list(range(1, len(record.actions) + 1))
    # The guild's own process heard that the game ended elsewhere: its channel is free at once.
    await fake.wait_for(
        lambda: all(t.channel_id != channel.id for t in b.tables.active_tables()), what="B to hear of the end"
    )
    # The end was told in the guild's channel (by A, over REST), with a Rematch that B serves.
    last = fake.last_message(channel)
    await fake.click(alice, last, button(last, "rematch"))
    assert fake.interactions[-1].shard == 1
    lobby = fake.last_message(channel)
    assert any(verb(x.custom_id) == "accept" for x in lobby.buttons()), "the rematch challenge is open"
    for bot in (a, b):
        assert (await bot.store.rating_of(channel.guild.id, "bhargage", alice.id)) is not None


async def test_a_whole_deluxe_game_in_a_guild_on_shard_1_played_by_dm_on_shard_0(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str
) -> None:
    fake = fake_discord
    channel = far_channel(fake)
    players = [fake.add_user(name) for name in ("ann", "ben", "cat")]
    a, b = await cluster(start_bot, tmp_path, pg_url)
    created = await fake.slash(players[0], channel, "deluxe create", target=20)
    lobby = created.message
    for user in players[1:]:
        await fake.click(user, lobby, button(lobby, "join"))
    await fake.click(players[0], lobby, button(lobby, "start"))
    assert {it.shard for it in fake.interactions} == {1}
    table = await table_in(b, channel)

    shards = await play_out(fake, a, table.id, players)
    assert shards and set(shards) == {0}

    record = await a.store.load_game(table.id)
    assert record is not None and record.status == "finished"
    await fake.wait_for(
        lambda: all(t.channel_id != channel.id for t in b.tables.active_tables()), what="B to hear of the end"
    )
    assert any(verb(x.custom_id) == "rematch" for x in fake.last_message(channel).buttons())


async def test_the_same_press_at_the_same_instant_on_two_processes_applies_once(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str
) -> None:
    """Alice has her DM panel (shard 0, process A) and a private Show my hand panel in the guild (shard 1,
    process B); she presses the same card on both at once."""
    fake = fake_discord
    a, b, channel, (alice, bob), table = await bhargage_in_a_far_guild(fake, start_bot, tmp_path, pg_url)
    for process in (a, b):  # none of Alice's moves is made for her: each of hers in the log is a press
        await process.preferences.change(alice.id, "auto_play", False)

    def alice_plays(t: Table) -> bool:
        dm = live_panel(fake, alice)
        return (
            t.people_waited_for() == (t.seat_of(alice.id),)
            and dm is not None
            and any(verb(x.custom_id) == "play" and not x.disabled for x in dm.buttons())
        )

    await play_out(fake, a, table.id, [alice, bob], until=alice_plays)
    dm = live_panel(fake, alice)
    assert dm is not None
    card = next(x for x in dm.buttons() if verb(x.custom_id) == "play" and not x.disabled)
    await fake.slash(alice, channel, "bhargage hand")
    assert fake.interactions[-1].shard == 1
    private = fake.ephemerals(alice)[-1]
    twin = next(x for x in private.buttons() if x.custom_id == card.custom_id)
    before = (await fresh(a, table.id)).seq
    start = len(fake.interactions)

    presses: list[Awaitable[Any]] = [
        fake.click(alice, dm, str(card.custom_id), settle=False),
        fake.click(alice, private, str(twin.custom_id), settle=False),
    ]
    await asyncio.gather(*presses)
    await fake.settle()

    pressed = fake.interactions[start:]
    assert sorted(it.shard or 0 for it in pressed) == [0, 1]
    for _ in range(300):  # a forced reply for Bob (the other process may be making it) has landed
        if (await fresh(a, table.id)).people_waited_for():
            break
        await asyncio.sleep(0.01)
    actions = await a.store.actions(table.id)
    seat = table.seat_of(alice.id)
    # Bob's reply may follow at once when it is forced (one card he can play): count Alice's moves only,
    # which are all her presses (her only card is not played for her).
    assert [x.seat for x in actions[before:]].count(seat) == 1, "applied once"
    assert actions[before].seat == seat
    assert (await fresh(a, table.id)).seq == (await fresh(b, table.id)).seq == len(actions)
    # The later press hears of it: a refusal, or its panel redrawn as the table now is (the live panel on a
    # process that did not answer the first press).
    told = [dm, *(m for m in fake.ephemerals(alice) if m.id >= private.id)]
    refusals = [m for m in told if "earlier turn" in m.content]
    assert len(refusals) == 1, [m.content for m in told]


async def test_killing_a_process_mid_game_loses_nothing_and_the_other_carries_on(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str
) -> None:
    """B (shard 1, the guild) is a real process: the challenge and Alice's first moves go through it (her
    /bhargage hand panel in the guild). It is SIGKILLed mid-game; A (shard 0) plays the rest by DM."""
    fake = fake_discord
    channel = far_channel(fake)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    a = await start_bot(cluster_settings(tmp_path, pg_url, 0))
    (tmp_path / "b").mkdir()
    b = await BotChild.start(
        fake.api_base,
        fake.gateway_url,
        tmp_path / "b" / "t.sqlite3",
        token=fake.token,
        database_url=pg_url,
        shards=(SHARDS, (1,)),
    )
    try:
        # to 61: a game to 31 may end in its first hand, before the kill this test is about
        await bhargage_between(fake, channel, alice, bob, target=61)
        async with asyncio.timeout(10):  # B is another process: its start of the game lands a moment later
            while not (games := await a.store.active_games()):
                await asyncio.sleep(0.01)
        [game] = games

        async def alice_in_the_guild(user: FakeUser) -> FakeMessage | None:
            """Alice plays through /bhargage hand in the guild (shard 1, process B); Bob by DM."""
            if user is not alice:
                return live_panel(fake, user)
            return (await fake.slash(alice, channel, "bhargage hand")).message

        moved = await play_out(
            fake,
            a,
            game.id,
            [alice, bob],
            # Stop on Bob's turn: his move (by DM, on A) redraws Alice's DM panel, which her own moves
            # through the guild left as it was.
            until=lambda t: t.seq >= 6 and t.people_waited_for() == (t.seat_of(bob.id),),
            panel_of=alice_in_the_guild,
        )
        assert 1 in moved and 0 in moved, "moves went through both processes"
        acknowledged = (await fresh(a, game.id)).seq
    finally:
        await b.kill()
    assert b.errors == []

    async def by_dm(user: FakeUser) -> FakeMessage | None:
        """The newest DM with controls (Alice's private panel in the guild is B's, and B is gone)."""
        live = [m for m in fake.dms(user) if any(not x.disabled for x in [*m.buttons(), *m.selects()])]
        return live[-1] if live else None

    shards = await play_out(fake, a, game.id, [alice, bob], panel_of=by_dm)
    assert set(shards) == {0}
    record = await a.store.load_game(game.id)
    assert record is not None and record.status == "finished"
    assert len(record.actions) > acknowledged
    assert [x.seq for x in record.actions] == list(range(1, len(record.actions) + 1))
    # B opened the game in a thread (its settings have threads on) from its board, which stands in the
    # channel; A told the end there, and on that board.
    [thread] = fake.threads(channel)
    assert any(verb(x.custom_id) == "rematch" for x in fake.last_message(thread).buttons())
    [board] = fake.channel_messages(channel)
    assert fake.thread_of(board) is thread and "Game over" in board.content and "won." in board.content


@pytest.mark.parametrize("shard", [0, 1])
async def test_timers_run_once_in_the_process_that_owns_the_guild(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str, shard: int
) -> None:
    """A nudge is posted once, by the guild's own process, whichever process played the last move."""
    fake = fake_discord
    guild = fake.add_guild("Somewhere", shard=shard, shard_count=SHARDS)
    channel = fake.add_channel("here", guild)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    a, b = await cluster(start_bot, tmp_path, pg_url)
    await bhargage_between(fake, channel, alice, bob, shard=shard)
    [game] = await a.store.active_games()
    await play_out(fake, a, game.id, [alice, bob], until=lambda t: t.seq >= 2)
    for bot in (a, b):
        bot.clock.advance(11 * 60)  # past the default 10 nudge minutes
        await bot.controller.timers.run()
    await fake.settle()
    nudges = [m for m in fake.channel_messages(channel) if "the table is waiting for you" in m.content]
    assert len(nudges) == 1, [m.content for m in fake.channel_messages(channel)]


async def test_a_live_page_served_by_one_process_follows_moves_made_through_the_other(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str
) -> None:
    """The pages run in B (the guild's process) while every move comes by DM through A: B hears of each
    write from the store and its viewers get the table as it stands, the calls of A's moves included."""
    fake = fake_discord
    channel = far_channel(fake)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    a = await start_bot(cluster_settings(tmp_path, pg_url, 0))
    b = await start_bot(cluster_settings(tmp_path, pg_url, 1, web_port=0))
    await bhargage_between(fake, channel, alice, bob)
    table = await table_in(b, channel)
    assert b.links is not None and b.web_server is not None
    url = b.links.live(table.id, b.clock()).replace("http://", "ws://", 1) + "/ws"
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        first = json.loads((await ws.receive(timeout=5)).data)
        shards = await play_out(fake, a, table.id, [alice, bob], until=lambda t: t.seq >= 3)
        assert set(shards) == {0}, "the moves went through A"
        moved = await fresh(a, table.id)
        frame = first
        while frame["seq"] < moved.seq:
            frame = json.loads((await ws.receive(timeout=5)).data)
    assert frame["seq"] == moved.seq and "Ann" not in frame["html"]
    assert "cut" in frame["html"].lower() or "taglia" in frame["html"].lower()  # A's calls are on the page
