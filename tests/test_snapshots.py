"""Tables from snapshots: every table restored, loaded or read again from its snapshot and the actions after
it equals the table a full replay of its log gives (the log stays the truth); a snapshot that can't be used —
a hostile row above all — is refused and the whole log replayed; lookups find every game while the restore
runs. The format itself is tested in test_snapshot_codec.py; the bot-level side (connecting and answering
while restoring) in test_restart_snapshots_discord.py."""

from __future__ import annotations

import asyncio
import json
import logging
import pickle
import random
import sqlite3
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.games import GAMES, Table, TableMeta
from bot.rules import bhargage as bh
from bot.services import snapshots, tables
from bot.services.tables import TableService
from bot.services.tables.restore import Restore
from bot.store import Listing, NewAction, NewGame, Snapshot, SQLiteStore
from tests.test_snapshot_codec import Exploit

GUILD = 7
# The tags of the snapshots the services here write and read: format, engine, version, key (this process's).
TAGS = {
    name: snapshots.Signer(codec, snapshots.PROCESS_KEY).tag
    for name in ("bhargage", "deluxe")
    if (codec := snapshots.codec(GAMES[name].rules)) is not None
}
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
    """The table a full replay of the whole stored log gives (no snapshot read)."""
    record = await store.load_game(game_id)
    assert record is not None and record.snapshot is None
    return service(store)._loader.rebuild(record)


def snapshot_rows(store: SQLiteStore) -> dict[int, tuple[int, str]]:
    """{game id: (seq, tag)} as stored (the tag in the column fingerprint)."""
    with sqlite3.connect(store.path) as db:
        return {
            g: (seq, tag) for g, seq, tag in db.execute("SELECT game_id, seq, fingerprint FROM snapshots")
        }


def write(store: SQLiteStore, sql: str, *params: Any) -> None:
    """Write to the database with plain SQL, as anyone with access to it could."""
    with sqlite3.connect(store.path) as db:
        db.execute(sql, params)


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
        assert await second.table_for_channel(t.channel_id) is restored
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
    records = await store.active_games(Listing(snapshots=TAGS))
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
    while page := await store.active_games(Listing(after=after, limit=3, snapshots=TAGS)):
        paged.extend(page)
        after = page[-1].id
    assert paged == records


def swap_between_games(store: SQLiteStore) -> None:
    """Give each game's snapshot to the next game of the same engine (its tag still fits)."""
    with sqlite3.connect(store.path) as db:
        rows = db.execute(
            "SELECT s.game_id, g.game, s.data FROM snapshots s JOIN games g ON g.id = s.game_id ORDER BY 1"
        ).fetchall()
        for game in ("bhargage", "deluxe"):
            mine = [(gid, data) for gid, name, data in rows if name == game]
            for (gid, _), (_, data) in zip(mine, mine[1:] + mine[:1], strict=True):
                db.execute("UPDATE snapshots SET data = ? WHERE game_id = ?", (data, gid))


SPOILS: dict[str, Callable[[SQLiteStore], None]] = {
    # Another STATE_VERSION's: not even read.
    "another version": lambda s: write(s, "UPDATE snapshots SET fingerprint = fingerprint || '0'"),
    "not JSON": lambda s: write(s, "UPDATE snapshots SET data = X'00ff00'"),
    "a pickle": lambda s: write(s, "UPDATE snapshots SET data = X'80054b2a2e'"),  # of 42
    "another game's": swap_between_games,  # seed and options tell
}


@pytest.mark.parametrize("spoil", list(SPOILS))
async def test_a_snapshot_that_cannot_be_used_falls_back_to_full_replay(
    store: SQLiteStore, spoil: str, caplog: pytest.LogCaptureFixture
) -> None:
    svc = service(store)
    made = [t for t in await populate(svc, random.Random(4), 10) if t.status == "active"]
    assert sum(t.snapshot_seq > 0 for t in made) >= 4
    SPOILS[spoil](store)
    second = service(store)
    with caplog.at_level(logging.INFO, logger="bot.services.tables"):
        assert await second.restore() == len(made)
    for t in made:
        restored = await second.get(t.id)
        assert restored.snapshot_seq == 0  # rebuilt by replay
        assert_same(restored, await replayed(store, t.id))
        assert_same(restored, t)
    if spoil != "another version":
        refused = [r for r in caplog.records if "its snapshot was refused" in r.getMessage()]
        assert len(refused) == sum(t.snapshot_seq > 0 for t in made)
        assert all(r.levelno == logging.WARNING for r in refused)
    assert f"{len(made)} by replaying the whole log" in caplog.text


async def test_a_hostile_pickle_row_is_refused_and_the_log_replayed(
    store: SQLiteStore, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A pickle that creates a file when unpickled, written with plain SQL as the game's snapshot under the
    tag the running code reads: the restore and a cold load both refuse it with a warning, nothing runs, and
    the table is its replayed log, which plays on."""
    svc = service(store)
    table, _ = await svc.create("bhargage", GUILD, 1, [(1, "a"), (2, "b")], seed=21)
    await play(svc, table, 9, random.Random(3), hold=0.0)
    assert snapshot_rows(store)[table.id] == (table.snapshot_seq, TAGS["bhargage"])
    owned = tmp_path / "owned"
    write(store, "UPDATE snapshots SET data = ? WHERE game_id = ?", pickle.dumps(Exploit(owned)), table.id)
    assert snapshot_rows(store)[table.id] == (table.snapshot_seq, TAGS["bhargage"])  # found by its tag

    second = service(store)
    with caplog.at_level(logging.WARNING, logger="bot.services.tables"):
        assert await second.restore() == 1
        cold = await service(store).get(table.id)
    assert not owned.exists()
    refusals = [r.getMessage() for r in caplog.records if "its snapshot was refused" in r.getMessage()]
    assert len(refusals) == 2 and all(f"game {table.id}:" in m for m in refusals)
    restored = await second.table_for_channel(1)
    assert restored is not None and restored.snapshot_seq == 0 == cold.snapshot_seq
    assert_same(restored, await replayed(store, table.id))
    assert_same(restored, table)
    assert_same(cold, table)
    # It plays on, and its next snapshot is one the code writes again, and reads.
    await play(second, restored, 2, random.Random(4), hold=0.0)
    assert restored.seq == table.seq + 2 and restored.snapshot_seq >= table.seq  # of the state before a move
    assert snapshot_rows(store)[table.id] == (restored.snapshot_seq, TAGS["bhargage"])
    third = service(store)
    assert await third.restore() == 1
    again = await third.table_for_channel(1)
    assert again is not None and again.snapshot_seq == restored.snapshot_seq
    assert_same(again, restored)
    assert not owned.exists()


def craft(store: SQLiteStore, game_id: int, edit: Callable[[dict[str, Any]], None]) -> None:
    """Edit a game's snapshot with plain SQL, as anyone with write access to the database could: the state
    in its JSON changed by ``edit``, whatever came before the JSON kept as it was."""
    with sqlite3.connect(store.path) as db:
        (data,) = db.execute("SELECT data FROM snapshots WHERE game_id = ?", (game_id,)).fetchone()
        start = data.index(b"{")
        body = json.loads(data[start:])
        edit(body["state"])
        text = json.dumps(body, separators=(",", ":")).encode()
        db.execute("UPDATE snapshots SET data = ? WHERE game_id = ?", (data[:start] + text, game_id))


def more_points(state: dict[str, Any]) -> None:
    state["scores"][0] += 20


def three_million_seats(state: dict[str, Any]) -> None:
    state["players"] = 3_000_000


def at_the_end_of_the_log(store: SQLiteStore, game_id: int) -> None:
    """The row says it was made at the log's last action; its state is of an earlier one."""
    write(
        store,
        "UPDATE snapshots SET seq = (SELECT max(seq) FROM actions WHERE game_id = ?) WHERE game_id = ?",
        game_id,
        game_id,
    )


CRAFTED: dict[str, tuple[str, Callable[[SQLiteStore, int], None]]] = {
    "an edited score": ("bhargage", lambda s, g: craft(s, g, more_points)),
    "three million seats": ("deluxe", lambda s, g: craft(s, g, three_million_seats)),
    "a wrong action count": ("deluxe", at_the_end_of_the_log),
}


@pytest.mark.parametrize("crafted", list(CRAFTED))
async def test_a_crafted_snapshot_is_thrown_away_and_the_table_is_its_log(
    store: SQLiteStore, crafted: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A snapshot row edited by hand, still shaped as the codec writes it and tagged as the running code
    reads: the restore and a cold load each throw it away with a warning (no ERROR), the table is its
    replayed log, and it plays on."""
    game, spoil = CRAFTED[crafted]
    svc = service(store)
    players = [(1, "a"), (2, "b")] if game == "bhargage" else [(1, "a"), (2, "b"), (3, "c")]
    table, _ = await svc.create(game, GUILD, 1, players, seed=31)
    await play(svc, table, 40, random.Random(5), hold=0.0)
    assert table.status == "active" and 0 < table.snapshot_seq < table.seq
    if game == "bhargage":
        assert table.state.scores[0] > 0
    spoil(store, table.id)
    second = service(store)
    with caplog.at_level(logging.INFO, logger="bot.services.tables"):
        assert await second.restore() == 1
        cold = await service(store).get(table.id)
    restored = await second.get(table.id)
    truth = await replayed(store, table.id)
    for made in (restored, cold):
        assert_same(made, truth)
        assert_same(made, table)
    assert restored.snapshot_seq == 0 == cold.snapshot_seq
    refused = [r for r in caplog.records if "its snapshot was refused" in r.getMessage()]
    assert len(refused) == 2 and all(r.levelno == logging.WARNING for r in refused)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    await play(second, restored, 3, random.Random(6), hold=0.0)
    assert_same(restored, await replayed(store, table.id))


def sign(store: SQLiteStore, table: Table, state: Any, seq: int) -> None:
    """Write ``state`` as the table's snapshot at action ``seq``, signed with the services' key: a
    snapshot the bot could have written, had it a fault."""
    codec = snapshots.codec(table.module)
    assert codec is not None
    data = snapshots.Signer(codec, snapshots.PROCESS_KEY).dump(state, game=table.id, seq=seq)
    write(store, "UPDATE snapshots SET seq = ?, data = ? WHERE game_id = ?", seq, data, table.id)


@pytest.mark.parametrize("fault", ["three million seats", "made at the log's last action"])
async def test_even_a_signed_snapshot_is_checked_against_its_game_and_its_log(
    store: SQLiteStore, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The signature is not all: a snapshot whose State's seat count is not its game's, or with no action
    logged after it (a move's snapshot is of the state before it, committed with it), is refused too."""
    svc = service(store)
    table, _ = await svc.create("deluxe", GUILD, 1, [(1, "a"), (2, "b"), (3, "c")], seed=17)
    await play(svc, table, 12, random.Random(2), hold=0.0)
    codec = snapshots.codec(table.module)
    assert codec is not None and 0 < table.snapshot_seq < table.seq
    if fault == "three million seats":
        (data,) = [d for g, d in snapshot_data(store) if g == table.id]
        state = codec.load(data[64:], seed=table.seed, options=table.options)
        sign(store, table, replace(state, players=3_000_000), table.snapshot_seq)
    else:
        sign(store, table, table.state, table.seq)  # even the state it names: no action after it
    second = service(store)
    with caplog.at_level(logging.WARNING, logger="bot.services.tables"):
        assert await second.restore() == 1
    restored = await second.get(table.id)
    assert restored.snapshot_seq == 0
    assert_same(restored, table)
    (refused,) = [r.getMessage() for r in caplog.records if "its snapshot was refused" in r.getMessage()]
    assert ("3000000 seats" if fault == "three million seats" else "goes on with nothing") in refused


def snapshot_data(store: SQLiteStore) -> list[tuple[int, bytes]]:
    with sqlite3.connect(store.path) as db:
        return list(db.execute("SELECT game_id, data FROM snapshots"))


async def test_snapshots_signed_with_another_key_are_left_unread(
    store: SQLiteStore, caplog: pytest.LogCaptureFixture
) -> None:
    """After the key changes (the bot's token was reset), the snapshots signed with the old one are not even
    read, like another version's: every table is its replayed log, no warning each; and the next snapshots
    carry the new key."""
    made = [t for t in await populate(service(store), random.Random(4), 8) if t.status == "active"]
    assert sum(t.snapshot_seq > 0 for t in made) >= 3
    key = snapshots.key_from("a new token")
    second = TableService(store, clock=Clock(), games=GAMES, key=key)
    with caplog.at_level(logging.INFO, logger="bot.services.tables"):
        assert await second.restore() == len(made)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert f"{len(made)} by replaying the whole log" in caplog.text
    for t in made:
        restored = await second.get(t.id)
        assert restored.snapshot_seq == 0
        assert_same(restored, t)
    table = await second.get(made[0].id)
    await play(second, table, 3, random.Random(1), hold=0.0)
    codec = snapshots.codec(table.module)
    assert codec is not None
    assert snapshot_rows(store)[table.id] == (table.snapshot_seq, snapshots.Signer(codec, key).tag)


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

    async def slow(self: SQLiteStore, *args: Any) -> Any:
        nonlocal reads
        reads += 1
        await gate.wait()  # the restore reads nothing until the test opens the gate
        return await active_games(self, *args)

    monkeypatch.setattr(SQLiteStore, "active_games", slow)
    monkeypatch.setattr(tables, "RESTORE_CHUNK", 2)
    second = service(store)
    restoring = asyncio.create_task(second.restore())
    while reads == 0:
        await asyncio.sleep(0)
    # A click during the restore loads its own table, and may play on it.
    loaded = await second.get(clicked.id)
    assert await second.table_for_channel(clicked.channel_id) is loaded and not restoring.done()
    await play(second, loaded, 2, random.Random(1))
    gate.set()
    assert await restoring == len(made) - 1  # the loaded table was not rebuilt again
    await second.restored()
    assert await second.table_for_channel(clicked.channel_id) is loaded
    assert await second.get(clicked.id) is loaded
    assert len(second.active_tables()) == len(made)
    assert_same(loaded, await replayed(store, clicked.id))
    assert_same(await second.get(other.id), other)


class Reads:
    """What ``load_game`` returned, call by call (wraps the store's own)."""

    def __init__(self, store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
        self.records: list[Any] = []
        real = store.load_game

        async def load_game(game_id: int, **kw: Any) -> Any:
            record = await real(game_id, **kw)
            self.records.append(record)
            return record

        monkeypatch.setattr(store, "load_game", load_game)


async def test_a_table_loaded_cold_comes_from_its_snapshot_and_the_actions_after_it(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = [t for t in await populate(service(store), random.Random(12), 8) if t.status == "active"]
    reads = Reads(store, monkeypatch)
    for t in made:
        loaded = await service(store).get(t.id)  # no restore: loaded on demand, as a press does
        record = reads.records[-1]
        assert_same(loaded, t)
        assert_same(loaded, await replayed(store, t.id))
        if t.snapshot_seq:
            assert record.snapshot is not None and loaded.snapshot_seq == t.snapshot_seq
            assert [a.seq for a in record.actions] == list(range(t.snapshot_seq + 1, t.seq + 1))
        else:
            assert record.snapshot is None and len(record.actions) == t.seq
    assert sum(t.snapshot_seq > 0 for t in made) >= len(made) // 2


async def test_a_table_read_again_after_another_process_wrote_it_comes_from_its_snapshot(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two services on one store, as two processes: the one whose copy went stale reads the game again from
    the snapshot the other's moves left, not by replaying the whole log."""
    mine, theirs = service(store), service(store)
    table, _ = await mine.create("deluxe", GUILD, 1, [(1, "a"), (2, "b"), (3, "c")], seed=5)
    await play(mine, table, 10, random.Random(1), hold=0.0)
    there = await theirs.get(table.id)
    await play(theirs, there, 30, random.Random(2), hold=0.0)
    assert there.snapshot_seq > table.seq
    reads = Reads(store, monkeypatch)
    mine.changed_elsewhere(table.id, closed=False)  # the store's news
    again = await mine.get(table.id)
    assert again is not table and again.snapshot_seq == there.snapshot_seq
    assert len(reads.records[-1].actions) == there.seq - there.snapshot_seq <= snapshots.EVERY
    assert_same(again, there)
    assert_same(again, await replayed(store, table.id))
    assert await mine.table_for_channel(1) is again


async def test_every_game_is_found_by_channel_thread_and_player_before_it_is_rebuilt(
    store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The restore lists every game first; with each rebuild then held up, lookups find every one (a table
    not rebuilt yet is rebuilt then), the restore keeps those tables, and a game closed elsewhere meanwhile
    is gone from the lookups at once."""
    svc = service(store)
    made = [t for t in await populate(svc, random.Random(8), 8) if t.status == "active"]
    threaded = made[1]
    await svc.save_meta(threaded, thread_id=9_000)
    gate = asyncio.Event()
    restore_one = Restore.restore_one

    async def slow(self: Restore, record: Any) -> Any:
        await gate.wait()
        return await restore_one(self, record)

    monkeypatch.setattr(Restore, "restore_one", slow)
    second = service(store)
    restoring = asyncio.create_task(second.restore())
    await second.indexed()
    assert second.active_tables() == []
    by_channel = await second.table_for_channel(made[0].channel_id)
    by_thread = await second.table_for_channel(9_000)
    person = made[2].seats[-1].user_id
    by_player = await second.seated_at(person)
    in_guild = await second.tables_of_user(GUILD, made[3].seats[0].user_id)
    assert await second.tables_of_user(GUILD + 1, made[3].seats[0].user_id) == []
    assert by_channel is not None and by_thread is not None and by_player is not None
    assert [t.id for t in (by_channel, by_thread, by_player, *in_guild)] == [t.id for t in made[:4]]
    for found, truth in zip((by_channel, by_thread, by_player, *in_guild), made[:4], strict=True):
        assert_same(found, truth)
    # Another process closes a game the restore has not come to: no lookup finds it from then on.
    closed = made[4]
    await store.abandon_game(closed.id, 5000.0, "ended elsewhere")
    second.changed_elsewhere(closed.id, closed=True)
    assert await second.table_for_channel(closed.channel_id) is None
    assert await second.seated_at(closed.seats[0].user_id) is None
    assert not restoring.done()
    gate.set()
    assert await restoring == len(made) - 5  # neither those looked up nor the closed one are rebuilt again
    assert await second.table_for_channel(made[0].channel_id) is by_channel
    assert await second.table_for_channel(9_000) is by_thread
    assert await second.seated_at(person) is by_player
    assert {t.id for t in second.active_tables()} == {t.id for t in made} - {closed.id}
    assert await second.table_for_channel(closed.channel_id) is None


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
    assert snapshot_rows(store)[table.id][1].startswith(f"json1:bhargage:{bh.STATE_VERSION}:")
    assert snapshot_rows(store)[table.id][1] == TAGS["bhargage"]
    # Closing the game deletes its snapshot, in the same transaction.
    async with svc.locked(table.id):
        result = await svc.apply_locked(table, 0, bh.Resign(0))
    assert result.finished and table.id not in snapshot_rows(store)


async def test_a_snapshot_must_be_of_an_action_before_the_one_it_is_written_with(store: SQLiteStore) -> None:
    game = await store.create_game(NewGame("bhargage", GUILD, 1, 5, [(1, "a"), (2, "b")], {}, 0.0))
    for seq in (1, 2):
        with pytest.raises(ValueError, match="snapshot"):
            await store.append_action(
                NewAction(game, 1, 0, "0 cut", 1.0, snapshot=Snapshot(seq, 1.0, "f", b""))
            )
    assert await store.actions(game) == []


async def test_an_abandoned_game_loses_its_snapshot(store: SQLiteStore) -> None:
    svc = service(store)
    table, _ = await svc.create("deluxe", GUILD, 1, [(1, "a"), (2, "b"), (3, "c")], seed=8)
    await play(svc, table, 6, random.Random(2), hold=0.0)
    assert snapshot_rows(store)[table.id][0] == table.snapshot_seq == 4
    async with svc.locked(table.id):
        await svc.abandon(table, "ended by an admin")
    assert table.id not in snapshot_rows(store)
