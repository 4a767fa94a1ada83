"""Stopping and deploying safely: SIGTERM drains the moves in flight, and commands sync only when they
changed."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot import __main__ as main_mod
from bot.app import TavernBot, create_bot
from bot.drain import RESTARTING
from bot.games import GAMES
from bot.settings import Settings
from bot.store import SQLiteStore
from bot.tables import TableService
from tests import fakegame
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_plugin_game import live_panel, plug_in_race

REPO = Path(__file__).resolve().parents[1]
RACE_GAMES = {**GAMES, "race": fakegame.ADAPTER}
T = TypeVar("T")


async def poll(check: Callable[[], T], *, timeout: float = 5.0, what: str = "") -> T:
    """Poll without waiting for the whole bot to go quiet (it never is during a burst)."""
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what or check}"
        await asyncio.sleep(0.002)
    return result


# ---------------------------------------------------------------------------------------------- draining


@dataclasses.dataclass
class Tally:
    """What one game's presses got back: success answers, refusals, and presses the bot never answered."""

    added: int = 0
    refused: int = 0
    unanswered: int = 0


async def open_race(fake: FakeDiscord, bot: TavernBot, channel: Any, a: FakeUser, b: FakeUser) -> int:
    lobby = (await fake.slash(a, channel, "race", target=1000)).message
    await fake.click(b, lobby, "Join")
    await fake.click(a, lobby, "Start")
    await fake.settle()
    table = bot.tables.table_for_channel(channel.id)
    assert table is not None
    return table.id


async def test_sigterm_mid_burst_finishes_moves_in_flight_and_refuses_new_ones(
    fake_discord: FakeDiscord, settings: Settings
) -> None:
    """Several games are played as fast as the bot answers; the stop event (what SIGTERM sets) comes while one
    move is inside its write, holding its table's lock. That move completes and is answered; presses after
    the signal are refused with the restart message; every success answer is in the stored log, nothing is
    half-applied (every game replays), the store closes, and run() returns 0 well within 10 s."""
    fake = fake_discord
    channels = [fake.channel, *(fake.add_channel(f"tavern-{i}") for i in range(3))]
    players = [(fake.add_user(f"a{i}"), fake.add_user(f"b{i}")) for i in range(len(channels))]
    bot = create_bot(settings, guild_ready_timeout=0.01)
    plug_in_race(bot)
    stop = asyncio.Event()
    runner = asyncio.create_task(main_mod.run(settings, bot=bot, stop=stop))
    await poll(bot.is_ready, what="the bot to be ready")
    games = [await open_race(fake, bot, ch, a, b) for ch, (a, b) in zip(channels, players, strict=True)]
    users = dict(zip(games, players, strict=True))
    held, *burst, spare = games

    # The held game's third write waits for the test: a move caught mid-write when the signal comes.
    entered, release = asyncio.Event(), asyncio.Event()
    writes = {"n": 0}
    append = bot.store.append_action

    async def held_append(game_id: int, *args: Any, **kwargs: Any) -> None:
        if game_id == held:
            writes["n"] += 1
            if writes["n"] == 3:
                entered.set()
                await release.wait()
        await append(game_id, *args, **kwargs)

    bot.store.append_action = held_append  # type: ignore[method-assign]

    tallies = {game: Tally() for game in games}

    async def play(game: int, limit: int = 10**6) -> None:
        """Press "Add 1" for whoever moves, as soon as their panel is there, until refused (or ``limit``)."""
        table = await bot.tables.get(game)
        tally = tallies[game]
        a, b = users[game]
        while not runner.done() and tally.added < limit:
            mover = a if table.seat_of(a.id) == table.waiting_for()[0] else b
            panel = await poll(lambda m=mover: live_panel(fake, m) or runner.done(), what="a live panel")
            if not isinstance(panel, FakeMessage):
                return
            try:
                pressed = await fake.click(mover, panel, "Add 1", expect_reply=False, settle=False)
            except (AssertionError, ConnectionError):
                return  # the bot is gone
            it = pressed.interaction

            def outcome(p: FakeMessage = panel, i: Any = it) -> str | None:
                if p.content == "Added.":
                    return "added"
                if any(
                    RESTARTING in m.content for m in [*([i.response] if i.response else []), *i.followups]
                ):
                    return "refused"
                return "unanswered" if runner.done() else None

            result = await poll(outcome, timeout=10, what="the press's answer")
            if result == "added":
                tally.added += 1
            elif result == "refused":
                tally.refused += 1
                return
            else:
                tally.unanswered += 1
                return

    # The held game stops after its held move: a press sent while the bot disconnects would only be lost.
    loops = [asyncio.create_task(play(held, limit=3)), *(asyncio.create_task(play(game)) for game in burst)]
    await asyncio.wait_for(entered.wait(), 10)
    answered_before = {game: tallies[game].added for game in games}
    signalled = time.monotonic()
    stop.set()
    await poll(lambda: bot.drain.closing, what="closing to start")

    # A press now is refused at once, through the usual ephemeral reply, while the held move still runs.
    a, b = users[spare]
    spare_table = await bot.tables.get(spare)
    mover = a if spare_table.seat_of(a.id) == spare_table.waiting_for()[0] else b
    spare_panel = live_panel(fake, mover)
    assert spare_panel is not None
    refused = await fake.click(mover, spare_panel, "Add 1", settle=False)
    assert refused.ephemeral and refused.content == RESTARTING
    await asyncio.sleep(0.2)
    assert not runner.done() and bot.drain.busy >= 1  # waiting for the held move
    release.set()

    assert await asyncio.wait_for(runner, 10) == 0
    took = time.monotonic() - signalled
    assert took < 10, f"run() took {took:.1f} s to return after the signal"
    await asyncio.gather(*loops)
    assert bot.is_closed()
    with pytest.raises(ValueError):
        await bot.store.db.execute("SELECT 1")

    store = await SQLiteStore.open(settings.db_path)
    try:
        tables = TableService(store, clock=time.time, games=RACE_GAMES)
        assert await tables.restore() == len(games)  # every game replays to a valid, live state
        for game in games:
            table = await tables.get(game)
            texts = [a.text for a in await store.actions(game)]
            assert table.seq == len(texts)
            assert table.state == fakegame.replay(table.seed, len(table.seats), table.options, texts)
            tally = tallies[game]
            # Every move answered with success — before the signal or while draining — is stored, and no
            # stored move went unanswered.
            assert answered_before[game] <= tally.added == len(texts), (game, tally, len(texts))
            assert tally.unanswered == 0, (game, tally)
        assert tallies[held].added >= 3  # the move caught mid-write finished
        assert [a.text for a in await store.actions(spare)] == []  # the refused press changed nothing
    finally:
        await store.close()
    assert sum(t.added for t in tallies.values()) > len(burst) * 2
    assert tallies[held].added == 3 and all(tallies[game].refused == 1 for game in burst)


async def test_a_closing_bot_refuses_slash_commands_too(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await start_bot()
    bot.drain.closing = True  # what close() sets first
    result = await fake_discord.slash(fake_discord.owner, fake_discord.channel, "tavern ping")
    assert result.ephemeral and result.content == RESTARTING
    bot.drain.closing = False
    assert (
        "Pong!" in (await fake_discord.slash(fake_discord.owner, fake_discord.channel, "tavern ping")).content
    )


async def test_drain_waits_a_bounded_time() -> None:
    from bot.drain import Drain, Restarting

    drain = Drain()
    entered = asyncio.Event()

    async def stuck() -> None:
        async with drain.hold():
            entered.set()
            await asyncio.sleep(10)

    task = asyncio.create_task(stuck())
    await entered.wait()
    started = time.monotonic()
    assert await drain.close(0.05) is False
    assert time.monotonic() - started < 1
    with pytest.raises(Restarting):
        async with drain.hold():
            pass
    task.cancel()
    assert await Drain().close(0.05) is True


# ------------------------------------------------------------------------------------------ command sync


async def test_commands_sync_only_when_the_tree_or_target_changes(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    await (await start_bot()).close()
    assert fake.command_syncs() == 1 and fake.commands()
    await (await start_bot()).close()
    assert fake.command_syncs() == 1  # same commands, same target: no sync
    bot = await start_bot(setup=plug_in_race)
    assert fake.command_syncs() == 2 and "race" in {c["name"] for c in fake.commands()}
    await bot.close()
    bot = await start_bot(setup=plug_in_race)
    assert fake.command_syncs() == 2
    assert "Pong!" in (await fake.slash(fake.owner, fake.channel, "tavern ping")).content
    await bot.close()
    dev = dataclasses.replace(settings, dev_guild_id=fake.guild.id)
    bot = await start_bot(dev, setup=plug_in_race)
    assert fake.command_syncs() == 3 and fake.commands(fake.guild)  # a new target syncs
    await bot.close()


async def test_python_m_bot_sync_forces_a_sync(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    await (await start_bot()).close()
    assert fake.command_syncs() == 1
    assert await main_mod.sync(settings) == 0
    assert fake.command_syncs() == 2  # forced, although nothing changed
    bot = await start_bot()
    assert fake.command_syncs() == 2
    assert "Pong!" in (await fake.slash(fake.owner, fake.channel, "tavern ping")).content
    await bot.close()
    assert fake.identify_count == 2  # the sync logged in over REST only: no gateway session


async def test_sync_with_a_wrong_token_says_so(
    fake_discord: FakeDiscord, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await main_mod.sync(dataclasses.replace(settings, token="wrong")) == 1
    assert "rejected the bot token" in capsys.readouterr().err
    assert fake_discord.command_syncs() == 0


def test_command_hash_is_stable_and_names_the_target(settings: Settings) -> None:
    import discord

    one, two = create_bot(settings), create_bot(settings)
    assert one.command_hash(None) == two.command_hash(None)
    plug_in_race(two)
    assert one.command_hash(None) != two.command_hash(None)
    assert one.command_hash(None) != one.command_hash(discord.Object(id=123))


def test_unknown_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main_mod.main(["deploy"])
    assert info.value.code == 2 and "invalid choice" in capsys.readouterr().err
