"""A restart through the real bot and the fake Discord: the game resumes from its snapshot; a hostile snapshot
row (a pickle that would write a file) is refused and the game replayed from its log; the bot connects
before its tables are restored, and while they are, a press on a game's own panel and slash commands that
look tables up by channel or player are answered with the right table (rebuilt on demand)."""

from __future__ import annotations

import asyncio
import logging
import pickle
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.edge.app import TavernBot
from bot.edge.custom_ids import parse
from bot.games import Table
from bot.services import snapshots
from bot.services.tables import TableService
from bot.services.tables.restore import Restore
from tests.conftest import StartBot
from tests.fakediscord import FAKE_TOKEN, FakeDiscord, FakeUser
from tests.test_bhargage_discord import (
    act_with_panel,
    challenge,
    enabled,
    every_click_mine,
    play_out,
    step,
    waiting_line,
)
from tests.test_snapshot_codec import BH as BH_CODEC
from tests.test_snapshot_codec import Exploit


async def replayed(service: TableService, game_id: int) -> Table:
    """The table a full replay of the whole stored log gives (no snapshot read)."""
    record = await service.store.load_game(game_id)
    assert record is not None
    return service._loader.rebuild(record)


async def seven_moves_then_stop(
    fake: FakeDiscord, start_bot: StartBot
) -> tuple[FakeUser, FakeUser, Table, TavernBot]:
    """Alice and Bob play seven moves of Bhargage, and the bot stops: the players, and their table as it
    stood (it left a snapshot), and the stopped bot."""
    first = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await every_click_mine(fake, [alice, bob])  # seven presses are seven moves
    await challenge(fake, alice, bob)
    for _ in range(7):
        assert await step(fake, fake.channel, [alice, bob]) is not None
    before = await first.tables.table_for_channel(fake.channel.id)
    assert before is not None and before.snapshot_seq > 0
    await first.close()
    return alice, bob, before, first


async def test_a_game_resumes_from_its_snapshot_after_a_restart(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    alice, bob, before, _ = await seven_moves_then_stop(fake, start_bot)

    second = await start_bot()
    table = await second.tables.table_for_channel(fake.channel.id)
    assert table is not None and table is not before
    assert table.snapshot_seq == before.snapshot_seq and table.seq == 7
    truth = await replayed(second.tables, table.id)
    assert table.state == truth.state == before.state and table.pending == truth.pending
    assert await play_out(fake, fake.channel, [alice, bob]) > 0
    assert table.status == "finished"


async def test_a_hostile_snapshot_row_is_refused_at_start_and_the_game_replayed(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    seeded: None,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Someone with access to the database writes, with plain SQL, a pickle that creates a file when
    unpickled as a game's snapshot, under the tag the bot reads. The bot starts: nothing is created, a
    warning says the snapshot was refused, and the game is its replayed log and plays on to its end."""
    fake = fake_discord
    alice, bob, before, first = await seven_moves_then_stop(fake, start_bot)
    owned = tmp_path / "owned"
    with sqlite3.connect(first.settings.db_path) as db:
        tag = db.execute("SELECT fingerprint FROM snapshots WHERE game_id = ?", (before.id,)).fetchone()[0]
        assert tag == snapshots.Signer(BH_CODEC, snapshots.key_from(FAKE_TOKEN)).tag  # the token's key
        db.execute(
            "UPDATE snapshots SET data = ? WHERE game_id = ?", (pickle.dumps(Exploit(owned)), before.id)
        )

    with caplog.at_level(logging.WARNING, logger="bot.services.tables"):
        second = await start_bot()
    assert not owned.exists()
    assert f"game {before.id}: its snapshot was refused" in caplog.text
    table = await second.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.snapshot_seq == 0 and table.seq == 7
    truth = await replayed(second.tables, table.id)
    assert table.state == truth.state == before.state and table.pending == truth.pending == []
    assert await play_out(fake, fake.channel, [alice, bob]) > 0
    assert table.status == "finished" and not owned.exists()


async def test_presses_and_commands_are_answered_while_the_tables_are_restored(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    first = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    carol, dan = fake.add_user("carol"), fake.add_user("dan")
    other = fake.add_channel("other")
    await every_click_mine(fake, [alice, bob, carol, dan])  # six presses are six moves
    await challenge(fake, alice, bob)
    await challenge(fake, carol, dan, channel=other)
    for _ in range(6):
        assert await step(fake, fake.channel, [alice, bob]) is not None
        assert await step(fake, other, [carol, dan]) is not None
    theirs = await first.tables.table_for_channel(other.id)
    assert theirs is not None
    await first.close()

    # The next start-up rebuilds no table until the test lets it: the restore is as slow as can be.
    gate = asyncio.Event()
    restore_one = Restore.restore_one

    async def slow(self: Restore, record: Any) -> Any:
        await gate.wait()
        return await restore_one(self, record)

    monkeypatch.setattr(Restore, "restore_one", slow)
    second = await start_bot(restored=False)
    restoring = second._restoring
    assert second.is_ready() and second.tables.active_tables() == []
    assert restoring is not None and not restoring.done()

    # A press on the game's own panel carries the game id: it is played now, loading that one table.
    line = waiting_line(fake, fake.channel)
    mover = alice if "alice" in line else bob
    panel = [m for m in fake.dms(mover) if enabled(m)][-1]
    await act_with_panel(fake, mover, panel)
    [loaded] = second.tables.active_tables()
    # Its move left a snapshot, of the state before it (the last one told).
    assert (loaded.seq, loaded.snapshot_seq) == (7, 6)

    # Commands look tables up by channel and player: answered now, with the right table, rebuilt for them.
    hand = await fake.slash(carol, other, "bhargage hand")
    assert hand.ephemeral and hand.message.selects() + hand.message.buttons()
    ids = [c.custom_id for c in (*hand.message.selects(), *hand.message.buttons()) if c.custom_id]
    assert ids and {parse(cid, ()).key for cid in ids} == {theirs.id}
    board = await fake.slash(dan, other, "bhargage board")
    assert not board.ephemeral and board.message.content.startswith("**Bhargage** (")
    assert "carol" in board.message.content and board.message.channel is other
    rebuilt = await second.tables.table_for_channel(other.id)
    assert rebuilt is not None and rebuilt.seq == theirs.seq == 6 and rebuilt.state == theirs.state
    assert not restoring.done()  # all of this before a single table was rebuilt by the restore

    gate.set()
    await second.tables.restored()
    await restoring
    assert await second.tables.table_for_channel(fake.channel.id) is loaded  # not a second one
    assert await second.tables.table_for_channel(other.id) is rebuilt
    assert len(second.tables.active_tables()) == 2
    timer = second.controller.timers.task
    assert timer is not None and not timer.done()  # the timer starts once the tables are restored
    await play_out(fake, fake.channel, [alice, bob])
    assert loaded.status == "finished"
    assert await step(fake, other, [carol, dan]) is not None
