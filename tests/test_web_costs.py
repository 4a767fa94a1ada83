"""What a page costs the bot, and what its asker is charged (issue 45, item 1): a finished game's pages (its
live link, its replay's steps, its record) are built once, in a worker thread, never on the event loop,
and kept by what they show, however many games are asked for; the guard charges a page that has to be built
more than one found kept; ``/tavern replay`` and ``/tavern export`` have per-member limits, and the replay's
walk of the log runs off the event loop too. What is kept of a game goes when the stored game changes."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest

from bot.edge.app import TavernBot
from bot.edge.web import built as web_built
from bot.edge.web import past_routes
from bot.edge.web.guard import BUILD_COST, Guard
from bot.games import GAMES
from bot.services import game_record
from bot.services import replay as rp
from bot.services.cooldowns import EXPORTS_PER_MINUTE, REPLAYS_PER_MINUTE
from bot.services.tables.loading import TableLoader
from bot.services.tables.moves import finish_from
from bot.settings import Settings
from bot.store.records import NewAction, NewGame
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeUser
from tests.stored_games import store_finished
from tests.test_web_server import get, live_path, replay_path, served, url

Calls = dict[str, list[bool]]  # by what was called: whether each call ran on the event loop's thread


def spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, calls: Calls) -> None:
    """Record each call of ``owner.name`` and whether it ran on this thread (the event loop's)."""
    real = getattr(owner, name)
    loop_thread = threading.get_ident()
    seen = calls.setdefault(name, [])

    def spied(*args: Any, **kw: Any) -> Any:
        seen.append(threading.get_ident() == loop_thread)
        return real(*args, **kw)

    monkeypatch.setattr(owner, name, spied)


def work_spies(monkeypatch: pytest.MonkeyPatch) -> Calls:
    """Spies on what building a finished game's page costs: walking its log, rebuilding its table, seeing
    a table, a replay's step, writing a record."""
    calls: Calls = {}
    spy(monkeypatch, rp, "walk", calls)
    spy(monkeypatch, TableLoader, "rebuild", calls)
    spy(monkeypatch, web_built, "sight", calls)
    spy(monkeypatch, past_routes, "replay_step", calls)
    spy(monkeypatch, game_record, "encode", calls)
    return calls


async def copies(bot: TavernBot, game_id: int, count: int) -> list[int]:
    """``count`` more finished games with the log of ``game_id`` (each a record of its own to write)."""
    record = await bot.store.load_game(game_id)
    assert record is not None
    rules = GAMES[record.game].rules
    state, _ = rules.start(record.seed, len(record.seats), rules.Options.from_dict(record.options))
    for action in record.actions:
        state, _ = rules.apply(state, rules.parse_action(action.text))
    seats = [(s.user_id, s.name) for s in record.seats]
    made = []
    for _ in range(count):
        new = NewGame(
            record.game, record.guild_id, record.channel_id, record.seed, seats, record.options, 1.0
        )
        copy = await bot.store.create_game(new)
        for action in record.actions:
            last = action is record.actions[-1]
            end = finish_from(rules.final_result(state), 2.0, rules, state) if last else None
            await bot.store.append_action(
                NewAction(copy, action.seq, action.seat, action.text, action.at, end)
            )
        made.append(copy)
    return made


async def finished(fake: FakeDiscord, bot: TavernBot, players: int = 2, game: str = "bhargage") -> int:
    """A finished game played in the fake's channel (which every member of its server views)."""
    people: list[FakeUser] = [fake.add_user(f"p{n}") for n in range(players)]
    return await store_finished(bot, game, people, 5, fake.guild.id, fake.channel.id)


async def statuses(client: aiohttp.ClientSession, base: Callable[[str], str], paths: list[str]) -> list[int]:
    found = []
    for path in paths:
        async with client.get(base(path)) as response:
            await response.read()
            found.append(response.status)
    return found


# ------------------------------------------------------------------------------------------- built once


async def test_a_finished_games_pages_are_built_once_in_a_worker_thread(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its live link (valid a week), its replay's steps (pages and fragments, in two languages) and its
    record, each asked for five times: the game is read and walked once, each page built once, and none of
    it on the event loop (before, the live link rebuilt the game on the loop at every request, and every
    step was drawn there at every request)."""
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    game_id = await finished(fake, bot)
    server.guard = Guard(rate=1000, burst=10_000)  # what is charged is another test's
    calls = work_spies(monkeypatch)
    replay = replay_path(bot, game_id)
    asked = [
        live_path(bot, game_id),
        live_path(bot, game_id) + "?lang=it",
        replay,
        replay + "?step=3",
        replay + "?step=3&lang=it",
        replay + "/step/3",
        replay + "/step/4",
        replay + "/record",
    ]
    async with aiohttp.ClientSession() as client:
        for _ in range(5):
            for path in asked:
                status, _, _ = await get(client, server, path)
                assert status == 200, path
    on_loop = {name: sum(seen) for name, seen in calls.items() if any(seen)}
    assert on_loop == {}, f"built on the event loop: {on_loop}"
    built = {name: len(seen) for name, seen in calls.items()}
    # one walk of the log (the record is replayed by its own module, once); one table rebuilt; one sight of
    # the finished table per language; each distinct step once
    assert built == {"walk": 1, "rebuild": 1, "sight": 2, "replay_step": 5, "encode": 1}, built


async def test_pages_are_kept_by_what_they_show_for_more_than_32_games(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 finished games' records, and their first steps, asked for twice in turn: the second round
    builds nothing (before, a cache of 32 games let every one of them be written again)."""
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    games = await copies(bot, await finished(fake, bot), 40)
    server.guard = Guard(rate=1000, burst=10_000)  # this test asks for many pages quickly on purpose
    calls = work_spies(monkeypatch)
    paths = [replay_path(bot, g) + tail for g in games for tail in ("/record", "")]
    async with aiohttp.ClientSession() as client:
        assert set(await statuses(client, lambda p: url(server, p), paths)) == {200}
        first = {name: len(seen) for name, seen in calls.items()}
        assert first["encode"] == 40 and first["walk"] == 40
        assert set(await statuses(client, lambda p: url(server, p), paths)) == {200}
    assert {name: len(seen) for name, seen in calls.items()} == first


# ------------------------------------------------------------------------------------------- charged


async def test_the_guard_charges_a_page_by_what_it_costs(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """An address with twenty units may see twenty kept pages, but far fewer pages that have to be built
    (each costs ``BUILD_COST`` more before it is built, and its CPU after); one that can't pay is refused
    before anything is built. Before, each cost one, whatever it cost."""
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    game_id = await finished(fake, bot)
    steps = [f"{replay_path(bot, game_id)}?step={n}" for n in range(20)]
    base = lambda p: url(server, p)  # noqa: E731
    server.guard = Guard(rate=0.001, burst=20)
    async with aiohttp.ClientSession() as client:
        building = await statuses(client, base, steps)
        served_built = building.count(200)
        assert 1 <= served_built <= 20 // (1 + BUILD_COST), building
        assert building == [200] * served_built + [429] * (20 - served_built)
        assert server.built.built == 1 + served_built  # the game's walk, and each page served: no more
        assert set(await statuses(client, base, steps[served_built:])) == {429}  # nothing more is built
        assert server.built.built == 1 + served_built
        server.guard = Guard(rate=0.001, burst=20)  # as much again, for what is kept now
        kept = await statuses(client, base, (steps[:served_built] * 22)[:22])
        assert kept == [200] * 20 + [429] * 2, kept


def test_a_charge_is_owed_and_waited_for() -> None:
    now = [0.0]
    guard = Guard(rate=10, burst=20, clock=lambda: now[0])
    assert guard.allow("192.0.2.1") == 0
    guard.charge("192.0.2.1", 29)  # a page that took 29 units of CPU to build: 10 owed
    assert guard.allow("192.0.2.1") == pytest.approx(1.1)  # (10 owed + the request's 1) at 10 a second
    guard.charge("192.0.2.1", 1000)  # never more than a burst owed
    now[0] += 4.0
    assert guard.allow("192.0.2.1") == 0
    assert guard.allow("192.0.2.2", 20) == 0  # another address: its own


# ------------------------------------------------------------------------------------------- in Discord


async def test_replay_and_export_are_limited_per_member(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """``/tavern replay`` and ``/tavern export`` each read and walk a game's whole log: a member may use
    each a few times a minute (another member has their own), then again once the minute has passed."""
    fake = fake_discord
    bot = await start_bot()
    game_id = await finished(fake, bot)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    for command, most in (("tavern replay", REPLAYS_PER_MINUTE), ("tavern export", EXPORTS_PER_MINUTE)):
        for _ in range(most):
            answer = await fake.slash(ann, fake.channel, command, game=game_id)
            assert "Slow down" not in answer.text(), command
        refused = await fake.slash(ann, fake.channel, command, game=game_id)
        assert refused.ephemeral and "Slow down" in refused.text(), command
        assert "Slow down" not in (await fake.slash(bob, fake.channel, command, game=game_id)).text()
    bot.clock.advance(60)
    for command in ("tavern replay", "tavern export"):
        assert "Slow down" not in (await fake.slash(ann, fake.channel, command, game=game_id)).text()


async def test_the_replays_walk_runs_off_the_event_loop(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    bot = await start_bot()
    game_id = await finished(fake, bot, 4, "cribbage")
    calls: Calls = {}
    spy(monkeypatch, rp, "walk", calls)
    answer = await fake.slash(fake.add_user("ann"), fake.channel, "tavern replay", game=game_id)
    assert answer.ephemeral and answer.message.embeds
    assert calls["walk"] == [False]


# ------------------------------------------------------------------------------------------- changed


async def test_what_is_kept_of_a_game_goes_when_the_stored_game_changes(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """News that a stored game changed (``Watch.changed``: another process wrote it, or a member who played
    it was forgotten) drops what is kept of it: its pages are built again from the store; other games' stay
    kept; news of any game drops them all."""
    fake = fake_discord
    bot, server = await served(start_bot, settings)
    ann, bob, cy, di = (fake.add_user(n) for n in ("ann", "bob", "cy", "di"))
    theirs = await store_finished(bot, "bhargage", [ann, bob], 5, fake.guild.id)
    others = await store_finished(bot, "bhargage", [cy, di], 6, fake.guild.id)
    server.guard = Guard(rate=1000, burst=10_000)  # what is charged is another test's
    calls = work_spies(monkeypatch)
    paths = [p for g in (theirs, others) for p in (replay_path(bot, g), live_path(bot, g))]
    async with aiohttp.ClientSession() as client:

        async def ask() -> Counter[str]:
            before = Counter({name: len(seen) for name, seen in calls.items()})
            assert set(await statuses(client, lambda p: url(server, p), paths)) == {200}
            return Counter({name: len(seen) for name, seen in calls.items()}) - before

        assert (await ask())["walk"] == 2
        assert not await ask()
        bot.tables.watch.changed(theirs)
        assert (await ask())["walk"] == 1  # that game only
        bot.tables.watch.changed(None)
        assert (await ask())["walk"] == 2
