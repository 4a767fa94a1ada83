"""Start-up from snapshots: every table restored from its snapshot and the actions after it equals the table
a full replay of its log gives (the log stays the truth), and a snapshot that can't be used falls back to that
replay. The bot-level side (connecting while restoring) is in test_restart_snapshots_discord.py."""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot import snapshots, tables
from bot.games import GAMES
from bot.rules import bhargage as bh
from bot.store import Snapshot, SQLiteStore
from bot.tables import Table, TableMeta, TableService

GUILD = 7
AVOID = {"Resign", "Leave"}  # moves that end a game at once: most games here should stay live


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 1.5
        return self.now


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    s = await SQLiteStore.open(tmp_path / "tavern.db")
    yield s
    await s.close()


def service(store: SQLiteStore) -> TableService:
    return TableService(store, clock=Clock(), games=GAMES)


async def play(svc: TableService, table: Table, moves: int, rng: random.Random, hold: float = 0.3) -> None:
    """Random legal moves; like the controller, some moves' events are held back from the channel (a Deluxe
    turn in progress, a channel refusing posts) and told with a later move."""
    module = table.module
    for _ in range(moves):
        if table.status != "active":
            return
        seat = table.waiting_for()[0]
        options = [a for a in module.legal_actions(table.state, seat) if type(a).__name__ not in AVOID]
        held = rng.random() < hold

        def meta_after(events: Any, seq: int) -> TableMeta:
            return replace(table.meta, untold_after=table.meta.told(seq - 1))  # committed untold

        async with svc.locked(table.id):
            await svc.apply_locked(table, seat, rng.choice(options), meta_after=meta_after)
            if not held:  # told, as the controller does once the calls are out
                table.pending = []
                await svc.save_meta(table, untold_after=None)


async def populate(svc: TableService, rng: random.Random, games: int) -> list[Table]:
    """Games of both kinds played to random points (a few of them to their end)."""
    made = []
    for i in range(games):
        game = "bhargage" if i % 2 else "deluxe"
        players = 2 if game == "bhargage" else rng.choice((2, 3, 4))
        seats = [(1000 * (i + 1) + s, f"p{i}.{s}") for s in range(players)]
        table, _ = await svc.create(game, GUILD, 100 + i, seats, seed=rng.randrange(2**40))
        table.pending = []  # the opening was told, as the controller does once it is out
        await svc.save_meta(table, untold_after=None)
        await play(svc, table, rng.randrange(4) if rng.random() < 0.2 else rng.randrange(4, 130), rng)
        made.append(table)
    return made


def assert_same(restored: Table, truth: Table) -> None:
    """Everything a table is, besides where its snapshot stands."""
    assert restored.state == truth.state
    assert restored.seq == truth.seq
    assert restored.pending == truth.pending
    assert restored.meta == truth.meta
    assert restored.last_action_at == truth.last_action_at
    assert (restored.id, restored.game, restored.guild_id, restored.channel_id) == (
        truth.id,
        truth.game,
        truth.guild_id,
        truth.channel_id,
    )
    assert (restored.seed, restored.options, restored.seats, restored.created_at, restored.status) == (
        truth.seed,
        truth.options,
        truth.seats,
        truth.created_at,
        truth.status,
    )


async def replayed(store: SQLiteStore, game_id: int) -> Table:
    """The table a full replay of the stored log gives: a fresh service's ``get`` (no snapshot is read)."""
    return await service(store).get(game_id)


def snapshot_rows(store: SQLiteStore) -> dict[int, tuple[int, str]]:
    with sqlite3.connect(store.path) as db:
        return {g: (seq, fp) for g, seq, fp in db.execute("SELECT game_id, seq, fingerprint FROM snapshots")}


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_restored_from_snapshots_equals_full_replay(store: SQLiteStore, seed: int) -> None:
    rng = random.Random(seed)
    first = service(store)
    made = await populate(first, rng, 24)
    live = [t for t in made if t.status == "active"]
    assert len(live) >= 16
    rows = snapshot_rows(store)
    finished = [t for t in made if t.status != "active"]
    assert all(t.id not in rows for t in finished)  # closing a game deletes its snapshot
    for t in live:  # the snapshot on disk is the one the table counts from
        assert rows.get(t.id, (0, ""))[0] == t.snapshot_seq
        assert t.snapshot_seq <= t.meta.told(t.seq)  # never past what the channel was told
    assert sum(t.snapshot_seq > 0 for t in live if t.seq > 2 * snapshots.EVERY) >= len(live) // 2

    second = service(store)
    assert await second.restore() == len(live)
    from_snapshot = 0
    for t in live:
        restored = await second.get(t.id)
        assert second.table_for_channel(t.channel_id) is restored
        truth = await replayed(store, t.id)
        assert_same(restored, truth)
        assert_same(restored, t)  # and equal to the table as it was live before the "restart"
        from_snapshot += restored.snapshot_seq > 0
    # The snapshots were really used: every table that had one came back from it.
    assert from_snapshot == sum(t.snapshot_seq > 0 for t in live) >= len(live) // 2
    assert {t.id for t in second.active_tables()} == {t.id for t in live}


async def test_only_the_actions_after_a_snapshot_are_read(store: SQLiteStore) -> None:
    svc = service(store)
    made = await populate(svc, random.Random(9), 8)
    fingerprints = {name: snapshots.fingerprint(GAMES[name].rules) for name in ("bhargage", "deluxe")}
    records = await store.active_games(snapshots=fingerprints)
    by_id = {t.id: t for t in made}
    used = 0
    for record in records:
        table = by_id[record.id]
        if record.snapshot is None:
            assert len(record.actions) == table.seq
        else:
            used += 1
            assert record.snapshot.seq == table.snapshot_seq
            assert [a.seq for a in record.actions] == list(range(table.snapshot_seq + 1, table.seq + 1))
    assert used
    # Paged reads give the same games, in order.
    paged = []
    after = 0
    while page := await store.active_games(after=after, limit=3, snapshots=fingerprints):
        paged.extend(page)
        after = page[-1].id
    assert paged == records


@pytest.mark.parametrize(
    "spoil",
    [
        "UPDATE snapshots SET fingerprint = 'made-by-older-code'",
        "UPDATE snapshots SET data = X'00ff00'",  # not a pickle
        "UPDATE snapshots SET data = X'80054b2a2e'",  # a pickle, of 42: the replay after it fails
    ],
)
async def test_a_snapshot_that_cannot_be_used_falls_back_to_full_replay(
    store: SQLiteStore, spoil: str, caplog: pytest.LogCaptureFixture
) -> None:
    svc = service(store)
    made = [t for t in await populate(svc, random.Random(4), 10) if t.status == "active"]
    assert any(t.snapshot_seq for t in made)
    with sqlite3.connect(store.path) as db:
        db.execute(spoil)
    second = service(store)
    with caplog.at_level(logging.INFO, logger="bot.tables"):
        assert await second.restore() == len(made)
    for t in made:
        restored = await second.get(t.id)
        assert restored.snapshot_seq == 0  # rebuilt by replay
        assert_same(restored, await replayed(store, t.id))
        assert_same(restored, t)
    if "fingerprint" not in spoil:
        assert "replaying its log" in caplog.text
    assert f"{len(made)} by replaying the whole log" in caplog.text


async def test_events_untold_since_before_the_snapshot_come_from_a_full_replay(store: SQLiteStore) -> None:
    svc = service(store)
    table, _ = await svc.create("bhargage", GUILD, 1, [(1, "a"), (2, "b")], seed=11)
    await play(svc, table, 9, random.Random(0))
    assert table.snapshot_seq >= 2
    # The channel refused the posts since action 1 (the controller saves this after a failed post).
    await svc.save_meta(table, untold_after=1)
    truth = await replayed(store, table.id)
    assert len(truth.pending) > 0
    second = service(store)
    assert await second.restore() == 1
    restored = await second.get(table.id)
    assert restored.snapshot_seq == 0 and restored.pending == truth.pending
    assert_same(restored, truth)


async def test_a_table_loaded_on_demand_during_the_restore_is_the_only_one(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = service(store)
    made = [t for t in await populate(svc, random.Random(6), 6) if t.status == "active"]
    clicked, other = made[0], made[-1]
    gate = asyncio.Event()
    reads = 0
    active_games = SQLiteStore.active_games

    async def slow(self: SQLiteStore, **kw: Any) -> Any:
        nonlocal reads
        reads += 1
        await gate.wait()  # the restore reads nothing until the test opens the gate
        return await active_games(self, **kw)

    monkeypatch.setattr(SQLiteStore, "active_games", slow)
    monkeypatch.setattr(tables, "RESTORE_CHUNK", 2)
    second = service(store)
    restoring = asyncio.create_task(second.restore())
    while reads == 0:
        await asyncio.sleep(0)
    # A click during the restore loads its own table, and may play on it.
    loaded = await second.get(clicked.id)
    assert second.table_for_channel(clicked.channel_id) is loaded and not restoring.done()
    await play(second, loaded, 2, random.Random(1))
    gate.set()
    assert await restoring == len(made) - 1  # the loaded table was not rebuilt again
    await second.restored()
    assert second.table_for_channel(clicked.channel_id) is loaded
    assert await second.get(clicked.id) is loaded
    assert len(second.active_tables()) == len(made)
    assert_same(loaded, await replayed(store, clicked.id))
    assert_same(await second.get(other.id), other)


async def test_a_snapshot_every_few_moves_once_everything_is_told(store: SQLiteStore) -> None:
    svc = service(store)
    table, _ = await svc.create("bhargage", GUILD, 1, [(1, "a"), (2, "b")], seed=3)
    rng = random.Random(0)
    seqs = []
    for _ in range(8):
        await play(svc, table, 1, rng, hold=0.0)
        seqs.append(snapshot_rows(store).get(table.id, (0, ""))[0])
    assert seqs == [s - s % snapshots.EVERY for s in range(8)]  # of the state before the move
    assert table.snapshot_seq == 6
    # Moves whose events are held back from the channel leave none past the last state told (the first
    # of them leaves that one, 8); nor does the move that tells them; the next move does.
    await play(svc, table, snapshots.EVERY, rng, hold=1.0)
    assert snapshot_rows(store)[table.id][0] == 8 == table.snapshot_seq
    await play(svc, table, 1, rng, hold=0.0)
    assert snapshot_rows(store)[table.id][0] == 8 == table.snapshot_seq
    await play(svc, table, 1, rng, hold=0.0)
    assert snapshot_rows(store)[table.id][0] == table.seq - 1 == table.snapshot_seq
    fingerprint = snapshots.fingerprint(GAMES["bhargage"].rules)
    assert snapshot_rows(store)[table.id][1] == fingerprint != snapshots.fingerprint(GAMES["deluxe"].rules)
    # Closing the game deletes its snapshot, in the same transaction.
    async with svc.locked(table.id):
        result = await svc.apply_locked(table, 0, bh.Resign(0))
    assert result.finished and table.id not in snapshot_rows(store)


async def test_a_snapshot_must_be_of_an_action_before_the_one_it_is_written_with(store: SQLiteStore) -> None:
    game = await store.create_game("bhargage", GUILD, 1, 5, [(1, "a"), (2, "b")], {}, 0.0)
    for seq in (1, 2):
        with pytest.raises(ValueError, match="snapshot"):
            await store.append_action(game, 1, 0, "0 cut", 1.0, snapshot=Snapshot(seq, 1.0, "f", b""))
    assert await store.actions(game) == []


async def test_an_abandoned_game_loses_its_snapshot(store: SQLiteStore) -> None:
    svc = service(store)
    table, _ = await svc.create("deluxe", GUILD, 1, [(1, "a"), (2, "b"), (3, "c")], seed=8)
    await play(svc, table, 6, random.Random(2), hold=0.0)
    assert snapshot_rows(store)[table.id][0] == table.snapshot_seq == 4
    async with svc.locked(table.id):
        await svc.abandon(table, "ended by an admin")
    assert table.id not in snapshot_rows(store)
