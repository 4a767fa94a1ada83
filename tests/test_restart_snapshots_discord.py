"""A restart through the real bot and the fake Discord: the game resumes from its snapshot, the bot connects
before its tables are restored, a press on a game's own panel is answered meanwhile (loading that one table),
and a command waits for the restore and then finds the right table."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.store import SQLiteStore
from bot.tables import TableService
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_bhargage_discord import SEED, act_with_panel, challenge, enabled, play_out, step, waiting_line


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables get the known seed of the Bhargage tests."""
    monkeypatch.setattr("bot.tables.secrets.randbits", lambda bits: SEED)


async def test_a_game_resumes_from_its_snapshot_after_a_restart(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    first = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    for _ in range(7):
        assert await step(fake, fake.channel, [alice, bob]) is not None
    before = first.tables.table_for_channel(fake.channel.id)
    assert before is not None and before.snapshot_seq > 0
    await first.close()

    second = await start_bot()
    table = second.tables.table_for_channel(fake.channel.id)
    assert table is not None and table is not before
    assert table.snapshot_seq == before.snapshot_seq and table.seq == 7
    truth = await TableService(second.store, clock=second.clock, games=second.games).get(table.id)
    assert table.state == truth.state == before.state and table.pending == truth.pending
    assert await play_out(fake, fake.channel, [alice, bob]) > 0
    assert table.status == "finished"


async def test_presses_are_answered_while_the_tables_are_restored(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    first = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    carol, dan = fake.add_user("carol"), fake.add_user("dan")
    other = fake.add_channel("other")
    await challenge(fake, alice, bob)
    await challenge(fake, carol, dan, channel=other)
    for _ in range(6):
        assert await step(fake, fake.channel, [alice, bob]) is not None
        assert await step(fake, other, [carol, dan]) is not None
    await first.close()

    # The next start-up's restore reads nothing until the test lets it.
    gate = asyncio.Event()
    active_games = SQLiteStore.active_games

    async def slow(self: SQLiteStore, **kw: Any) -> Any:
        await gate.wait()
        return await active_games(self, **kw)

    monkeypatch.setattr(SQLiteStore, "active_games", slow)
    waiting = asyncio.Event()
    restored = TableService.restored

    async def watched(self: TableService) -> None:
        if not gate.is_set():
            waiting.set()
        await restored(self)

    monkeypatch.setattr(TableService, "restored", watched)
    second = await start_bot(restored=False)
    assert second.is_ready() and second.tables.active_tables() == []

    # A press on the game's own panel carries the game id: it is played now, loading that one table.
    line = waiting_line(fake, fake.channel)
    mover = alice if "alice" in line else bob
    panel = [m for m in fake.dms(mover) if enabled(m)][-1]
    await act_with_panel(fake, mover, panel)
    [loaded] = second.tables.active_tables()
    # Loaded by replaying its log; its move left a snapshot, of the state before it (the last one told).
    assert (loaded.seq, loaded.snapshot_seq) == (7, 6)

    # A command looks tables up by channel: it waits for the restore (the other game is not live yet).
    board = asyncio.create_task(fake.slash(dan, other, "bhargage board"))
    await waiting.wait()
    assert not board.done() and second.tables.table_for_channel(other.id) is None
    gate.set()
    answer = await board
    assert not answer.ephemeral and answer.message.content.startswith("**Bhargage** (")
    assert "carol" in answer.message.content and answer.message.channel is other
    await second.tables.restored()
    assert second.tables.table_for_channel(fake.channel.id) is loaded  # the press's table, not a second one
    assert len(second.tables.active_tables()) == 2
    timer = second.controller._timer
    assert timer is not None and not timer.done()  # the timer starts once the tables are restored
    await play_out(fake, fake.channel, [alice, bob])
    assert loaded.status == "finished"
    assert await step(fake, other, [carol, dan]) is not None
