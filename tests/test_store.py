"""The store's contract, on both backends (a SQLite file, and a database on a real PostgreSQL server started
by the tests): migrations, game logs, finishing, queries, lobbies; SQLite's durability settings."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.base import ratings as rt
from bot.store import (
    LATEST_VERSION,
    MIGRATIONS,
    ActionConflict,
    ChannelBusy,
    Finish,
    HostBusy,
    Listing,
    NewAction,
    NewGame,
    NewLobby,
    PlayerBusy,
    PostgresStore,
    Snapshot,
    SQLiteStore,
    StoreOpenError,
    VersionConflict,
    open_store,
    sqlite_conn,
)
from bot.store.schema import Migration

GUILD = 1
SYSTEMS: dict[str, rt.RatingSystem] = {"race": "elo", "raceN": "openskill"}
AnyStore = SQLiteStore | PostgresStore


async def meta_of(store: AnyStore, game_id: int) -> dict[str, Any]:
    """A game's table meta, as every reader gets it: with the game."""
    record = await store.load_game(game_id)
    assert record is not None
    return record.meta


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store lives: a SQLite file that does not exist yet, or a fresh empty PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "sub" / "tavern.db")
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
async def store(location: str) -> AsyncIterator[AnyStore]:
    s = await open_store(location, rating_systems=SYSTEMS)
    assert isinstance(s, SQLiteStore | PostgresStore)
    yield s
    await s.close()


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    s = await SQLiteStore.open(tmp_path / "sub" / "tavern.db", rating_systems=SYSTEMS)
    yield s
    await s.close()


async def raw(store: AnyStore, sql: str, *rows: tuple[Any, ...]) -> None:
    """Write as the code of an older version did, one statement per parameter row, in one transaction."""
    async with store._tx() as db:
        await db.executemany(sql, rows or [()])


async def old_action(store: AnyStore, game_id: int, seq: int, seat: int, text: str, at: float) -> None:
    """Log an action in a database of an older version, as the code of that version did."""
    await raw(
        store,
        "INSERT INTO actions (game_id, seq, seat, text, at) VALUES (?, ?, ?, ?, ?)",
        (game_id, seq, seat, text, at),
    )


async def tables_of(store: AnyStore) -> set[str]:
    if isinstance(store, SQLiteStore):
        rows = await store._all("SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        rows = await store._all(
            "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"
        )
    return {r["name"] for r in rows}


def test_migrations_are_numbered_in_order() -> None:
    versions = [m.version for m in MIGRATIONS]
    assert versions == list(range(1, len(versions) + 1))
    assert versions[-1] == LATEST_VERSION


async def test_open_creates_folder_wal_and_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "t.db"
    s = await SQLiteStore.open(path)
    try:
        assert path.exists()
        assert (await s.pragma("journal_mode")).lower() == "wal"
        assert await s.pragma("synchronous") == 1  # NORMAL: no loss on a process crash
        assert await s.schema_version() == LATEST_VERSION
    finally:
        await s.close()


async def test_the_log_is_checkpointed_off_the_loop_and_stops_growing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Statements run on the loop's thread, but no commit there checkpoints the log (that fsyncs): a
    checkpoint in aiosqlite's thread every ``CHECKPOINT_COMMITS`` commits folds it into the file, so the log
    is reused and stops growing. Without those checkpoints it grows with every move."""
    monkeypatch.setattr(sqlite_conn, "CHECKPOINT_COMMITS", 50)
    opened: list[int] = []
    real = sqlite_conn.aiosqlite.connect

    def connect(*args: Any, **kwargs: Any) -> Any:
        opened.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(sqlite_conn.aiosqlite, "connect", connect)
    path = tmp_path / "t.db"
    s = await SQLiteStore.open(path, rating_systems=SYSTEMS)
    wal = path.with_name(path.name + "-wal")
    try:
        assert await s.pragma("wal_autocheckpoint") == 0
        gid = await s.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
        sizes = []
        for seq in range(1, 601):
            await s.append_action(NewAction(gid, seq, 0, "0 add 1", float(seq), meta={"n": seq}))
            if seq % 200 == 0:
                if s.db._checkpoint is not None:  # the checkpoint under way ends (it never blocks a write)
                    await s.db._checkpoint
                sizes.append(wal.stat().st_size)
        assert opened, "no checkpoint ran"
        assert sizes[-1] <= sizes[0] * 1.2, sizes  # the log is reused, not grown, once checkpointed
    finally:
        await s.close()
    assert not wal.exists() or wal.stat().st_size == 0  # closing folds the rest in


async def test_old_database_is_migrated_and_keeps_its_data(location: str) -> None:
    old = await open_store(location, migrate_to=1)
    assert isinstance(old, SQLiteStore | PostgresStore)
    assert await old.schema_version() == 1
    gid = await old.create_game(
        NewGame("race", GUILD, 10, 42, [(100, "Ann"), (200, "Bob")], {"target": 5}, 1.0)
    )
    await old_action(old, gid, 1, 0, "0 add 2", 2.0)
    tables = await tables_of(old)
    assert "games" in tables and "ratings" not in tables and "lobbies" not in tables
    await old.close()

    new = await open_store(location)
    assert isinstance(new, SQLiteStore | PostgresStore)
    try:
        assert await new.schema_version() == LATEST_VERSION
        record = await new.load_game(gid)
        assert record is not None
        assert [a.text for a in record.actions] == ["0 add 2"]
        assert record.options == {"target": 5}
        await new.set_meta(gid, {"board": 5})  # a table from migration 3 works
        assert await meta_of(new, gid) == {"board": 5}
        rows = await new._all("SELECT version FROM schema_version ORDER BY version")
        assert [r["version"] for r in rows] == [m.version for m in MIGRATIONS]
    finally:
        await new.close()


async def test_a_failing_migration_rolls_back(location: str, monkeypatch: pytest.MonkeyPatch) -> None:
    s = await open_store(location, migrate_to=1)
    await s.close()
    broken = "CREATE TABLE half (x INTEGER); CREATE TABLE oops (;"
    bad = [*MIGRATIONS[:1], Migration(2, broken, broken)]
    monkeypatch.setattr("bot.store.schema.MIGRATIONS", bad)
    with pytest.raises((sqlite3.OperationalError, asyncpg.PostgresSyntaxError)):
        await open_store(location, migrate_to=2)
    monkeypatch.undo()
    s = await open_store(location, migrate_to=1)
    assert isinstance(s, SQLiteStore | PostgresStore)
    try:
        assert "half" not in await tables_of(s)
        assert await s.schema_version() == 1
    finally:
        await s.close()


async def test_a_database_newer_than_the_code_is_refused_untouched(location: str) -> None:
    """A database a newer version of the bot migrated is refused at open, in one sentence, before anything
    is written: this code would fail on it later, in front of the players."""
    s = await open_store(location)
    assert isinstance(s, SQLiteStore | PostgresStore)
    newer = LATEST_VERSION + 1
    await raw(s, "INSERT INTO schema_version (version) VALUES (?)", (newer,))
    before = await tables_of(s)
    await s.close()
    with pytest.raises(StoreOpenError) as refused:
        await open_store(location)
    said = str(refused.value)
    assert f"schema version {newer}, newer than this version of the bot knows ({LATEST_VERSION})" in said
    assert "run the newer version of the bot, or restore a backup" in said and "\n" not in said
    # Nothing was changed: read with the database's own driver, since the bot's store refuses it.
    version = "SELECT MAX(version) FROM schema_version"
    if location.startswith("postgresql://"):
        conn = await asyncpg.connect(location)
        try:
            assert await conn.fetchval(version) == newer
            found = await conn.fetch(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            )
        finally:
            await conn.close()
    else:
        with sqlite3.connect(location) as db:
            assert db.execute(version).fetchone() == (newer,)
            found = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    assert {row[0] for row in found} == before


async def test_one_active_game_per_channel(store: AnyStore) -> None:
    assert await store.active_game_in(10) is None
    gid = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    assert await store.active_game_in(10) == gid and await store.active_game_in(11) is None
    with pytest.raises(ChannelBusy):
        await store.create_game(NewGame("raceN", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    with pytest.raises(ChannelBusy):  # the refused game left nothing behind
        await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    assert [g.id for g in await store.active_games()] == [gid]
    await store.finish_game(gid, Finish((1, 0), (0,), False, "target", 1.0))  # a finished game frees it
    assert await store.active_game_in(10) is None
    again = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 2.0))
    assert [g.id for g in await store.active_games()] == [again]
    await store.abandon_game(again, 3.0, "ended by an admin")
    assert await store.active_game_in(10) is None


async def test_the_channels_game_is_found_by_its_index(store: AnyStore) -> None:
    """``/tavern-admin end`` in a channel asks for that channel's game alone: the query uses the index that
    keeps a channel to one active game, never a scan of the games."""
    await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    sql = "SELECT id FROM games WHERE channel_id = ? AND status = 'active'"
    if isinstance(store, SQLiteStore):
        plan = " ".join(str(r[-1]) for r in await store._all(f"EXPLAIN QUERY PLAN {sql}", (10,)))
        assert "games_one_active_per_channel" in plan, plan
    else:
        async with store._read() as db:
            await db.execute("SET LOCAL enable_seqscan = off")  # a table this small is scanned otherwise
            rows = await db.fetch(f"EXPLAIN {sql}", (10,))
        plan = " ".join(str(r[0]) for r in rows)
        assert "games_one_active_per_channel" in plan, plan


async def test_actions_are_committed_and_visible_to_another_connection(
    store: AnyStore, location: str
) -> None:
    gid = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    await store.append_action(NewAction(gid, 1, 0, "0 add 1", 1.0))
    await store.append_action(NewAction(gid, 2, 1, "1 add 3", 2.0))
    other = await open_store(location)
    try:
        rows = [(a.seq, a.seat, a.text) for a in await other.actions(gid)]
    finally:
        await other.close()
    assert rows == [(1, 0, "0 add 1"), (2, 1, "1 add 3")]
    with pytest.raises(ActionConflict):
        await store.append_action(NewAction(gid, 2, 0, "0 add 2", 3.0))
    assert [a.seq for a in await store.actions(gid)] == [1, 2]


async def _play_two(
    store: AnyStore, channel: int, winner: int, *, muggins: bool = False, at: float = 5.0
) -> int:
    gid = await store.create_game(
        NewGame("race", GUILD, channel, 1, [(100, "Ann"), (200, "Bob")], {}, at - 1)
    )
    scores = (10, 7) if winner == 0 else (7, 10)
    await store.append_action(
        NewAction(
            gid, 1, winner, f"{winner} add 3", at, finish=Finish(scores, (winner,), muggins, "target", at)
        )
    )
    return gid


async def test_finishing_writes_game_results_and_elo_in_one_transaction(store: AnyStore) -> None:
    gid = await _play_two(store, 10, 0, muggins=True)
    record = await store.load_game(gid)
    assert record is not None and record.status == "finished" and record.finished_at == 5.0
    assert record.result is not None and record.result["winners"] == [0] and record.result["muggins"]
    ann = await store.rating_of(GUILD, "race", 100)
    bob = await store.rating_of(GUILD, "race", 200)
    assert ann is not None and bob is not None
    assert ann["rating"] == 1516.0 and bob["rating"] == 1484.0
    assert (ann["games"], ann["wins"], ann["losses"], ann["muggins_wins"]) == (1, 1, 0, 1)
    assert (bob["games"], bob["wins"], bob["losses"], bob["muggins_wins"]) == (1, 0, 1, 0)
    # Finishing again is refused and changes nothing (the whole transaction rolls back).
    with pytest.raises(ValueError):
        await store.append_action(
            NewAction(gid, 2, 1, "1 add 1", 6.0, finish=Finish((1, 1), (1,), False, "x", 6.0))
        )
    assert [a.seq for a in await store.actions(gid)] == [1]
    assert (await store.rating_of(GUILD, "race", 100))["games"] == 1  # type: ignore[index]


async def test_leaderboard_and_stats_numbers(store: AnyStore) -> None:
    await _play_two(store, 10, 0, muggins=True, at=5)
    await _play_two(store, 10, 0, at=6)
    await _play_two(store, 10, 1, at=7)
    board = await store.leaderboard(GUILD, "race")
    assert [r.name for r in board] == ["Ann", "Bob"]
    ann, bob = board
    assert (ann.games, ann.wins, ann.losses, ann.muggins_wins) == (3, 2, 1, 1)
    assert ann.win_pct == pytest.approx(200 / 3)
    assert (bob.games, bob.wins, bob.losses, bob.muggins_wins) == (3, 1, 2, 0)
    r1 = rt.elo_update(1500, 1500, 1)
    r2 = rt.elo_update(*r1, 1)
    r3 = rt.elo_update(*r2, 0)
    assert (ann.rating, bob.rating) == (round(r3[0]), round(r3[1]))
    assert await store.leaderboard(GUILD, "race", limit=1) == [ann]
    assert await store.leaderboard(GUILD + 1, "race") == []

    stats = await store.stats(GUILD, 100, recent=2)
    s = stats["race"]
    assert (s.games, s.wins, s.losses, s.muggins_wins, s.rating) == (3, 2, 1, 1, ann.rating)
    assert [h.finished_at for h in s.recent] == [7, 6]
    assert [h.won for h in s.recent] == [False, True]
    assert s.recent[0].score == 7 and s.recent[0].rank == 2 and s.recent[0].players == 2
    assert s.hand_score_avg is None
    assert await store.stats(GUILD, 999) == {}


async def test_the_users_scopes_history_seen_by_no_channel_is_the_viewers_own_seats(store: AnyStore) -> None:
    """Outside servers (guild 0) no channel is seen: a member's history shows another only the games the
    other sat at too, and none of a server's."""
    seats = {"bob": [(100, "Ann"), (200, "Bob")], "cat": [(100, "Ann"), (300, "Cat")]}
    ids = {}
    for n, (who, players) in enumerate(seats.items()):
        ids[who] = await store.create_game(NewGame("race", 0, 10, 1, players, {}, 1.0 + n))
        finish = Finish((10, 7), (0,), False, "target", 2.0 + n)
        await store.append_action(NewAction(ids[who], 1, 0, "0 add 3", 2.0 + n, finish=finish))
    await _play_two(store, 10, 0, at=9)  # Ann and Bob in the server: never in the users' scope

    def shown(found: tuple[list[Any], int]) -> tuple[list[int], int]:
        return [g.game_id for g in found[0]], found[1]

    for viewer, games in (
        (100, [ids["cat"], ids["bob"]]),
        (200, [ids["bob"]]),
        (300, [ids["cat"]]),
        (400, []),
    ):
        found = await store.history(0, 100, None, offset=0, limit=10, seen_by=(viewer, frozenset()))
        assert shown(found) == (games, len(games))


async def test_multiplayer_finish_uses_openskill_and_hand_averages(store: AnyStore) -> None:
    seats = [(1, "A"), (2, "B"), (3, "C")]
    gid = await store.create_game(NewGame("raceN", GUILD, 20, 1, seats, {}, 0.0))
    await store.append_action(
        NewAction(
            gid,
            1,
            2,
            "2 add 1",
            1.0,
            finish=Finish((40, 100, 70), (1,), False, "target", 1.0, (4.0, 10.0, None)),
        )
    )
    rows = [await store.rating_of(GUILD, "raceN", u) for u, _ in seats]
    assert all(r is not None for r in rows)
    mus = [r["mu"] for r in rows]  # type: ignore[index]
    assert mus[1] > mus[2] > mus[0]
    assert [r.user_id for r in await store.leaderboard(GUILD, "raceN")] == [2, 3, 1]
    stats = await store.stats(GUILD, 2)
    assert stats["raceN"].hand_score_avg == 10.0
    assert stats["raceN"].recent[0].rank == 1
    assert (await store.stats(GUILD, 3))["raceN"].hand_score_avg is None


async def test_a_seat_that_left_ranks_last_in_results_and_ratings(store: AnyStore) -> None:
    seats = [(1, "A"), (2, "B"), (3, "C")]
    gid = await store.create_game(NewGame("raceN", GUILD, 21, 1, seats, {}, 0.0))
    finish = Finish((50, 90, 20), (0,), False, "target", 1.0, left=(False, True, False))
    await store.append_action(NewAction(gid, 1, 0, "0 add 1", 1.0, finish=finish))
    ranks = {u: (await store.stats(GUILD, u))["raceN"].recent[0].rank for u, _ in seats}
    assert ranks == {1: 1, 3: 2, 2: 3}
    assert [r.user_id for r in await store.leaderboard(GUILD, "raceN")] == [1, 3, 2]


async def test_meta_is_replaced_whole_and_survives_reopen(location: str) -> None:
    path = location
    s = await open_store(path)
    gid = await s.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    assert await meta_of(s, gid) == {}
    await s.set_meta(gid, {"board_message_id": 123, "dms": {"0": [5, 6]}, "nudged": True})
    await s.set_meta(gid, {"board_message_id": 124, "dms": {"0": [5, 6]}})  # replaces: "nudged" is gone
    got = await meta_of(s, gid)
    got["board_message_id"] = 0  # a fresh dict: changing it changes nothing stored
    await s.close()
    s = await open_store(path)
    try:
        assert await meta_of(s, gid) == {"board_message_id": 124, "dms": {"0": [5, 6]}}
        record = await s.load_game(gid)
        assert record is not None and record.meta == {"board_message_id": 124, "dms": {"0": [5, 6]}}
        await s.set_meta(gid, {})
        assert await meta_of(s, gid) == {}
    finally:
        await s.close()


async def test_set_meta_at_a_version_refuses_a_game_written_since(store: AnyStore) -> None:
    """Two writers that read the game at one version: the first meta write wins, the second is refused
    whole (another process wrote the game since it read it) instead of silently replacing the first."""
    gid = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    read_at = (await store.load_game(gid)).version  # type: ignore[union-attr]
    first = await store.set_meta(gid, {"board": 1}, version=read_at)
    assert first == read_at + 1
    with pytest.raises(VersionConflict):
        await store.set_meta(gid, {"board": 2}, version=read_at)
    record = await store.load_game(gid)
    assert record is not None and record.meta == {"board": 1} and record.version == first
    await store.append_action(NewAction(gid, 1, 0, "0 add 1", 1.0))  # any write moves the version on
    with pytest.raises(VersionConflict):
        await store.set_meta(gid, {"board": 3}, version=first)
    assert await store.set_meta(gid, {"board": 3}, version=first + 1) == first + 2
    assert await meta_of(store, gid) == {"board": 3}


async def test_append_action_with_meta_writes_both_in_one_transaction(sqlite_store: SQLiteStore) -> None:
    store = sqlite_store
    gid = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    await store.set_meta(gid, {"board": 1, "nudged": 0})
    statements: list[str] = []
    await store.db.set_trace_callback(statements.append)
    await store.append_action(NewAction(gid, 1, 0, "0 add 1", 1.0, meta={"board": 2}))
    await store.db.set_trace_callback(None)
    writes = [s.split()[0].upper() for s in statements]
    assert writes[0] == "BEGIN" and writes[-1] == "COMMIT"
    assert writes.count("BEGIN") == 1 and writes.count("COMMIT") == 1
    assert any("INTO actions" in s for s in statements) and any("INTO table_meta" in s for s in statements)
    with sqlite3.connect(store.path) as other:  # both are committed, and the meta was replaced whole
        assert other.execute("SELECT text FROM actions WHERE game_id = ?", (gid,)).fetchall() == [
            ("0 add 1",)
        ]
        (data,) = other.execute("SELECT data FROM table_meta WHERE game_id = ?", (gid,)).fetchone()
    assert json.loads(data) == {"board": 2}
    record = await store.load_game(gid)
    assert record is not None and record.meta == {"board": 2} and [a.seq for a in record.actions] == [1]


async def test_a_failing_append_does_not_change_the_meta(store: AnyStore) -> None:
    gid = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    await store.append_action(NewAction(gid, 1, 0, "0 add 1", 1.0, meta={"board": 1}))
    with pytest.raises(ActionConflict):  # duplicate seq
        await store.append_action(NewAction(gid, 1, 1, "1 add 1", 2.0, meta={"board": 2}))
    assert await meta_of(store, gid) == {"board": 1}
    assert [a.text for a in await store.actions(gid)] == ["0 add 1"]
    await store.finish_game(gid, Finish((1, 0), (0,), False, "target", 2.0))
    with pytest.raises(ValueError):  # finishing a game that is not active: the action and meta roll back too
        await store.append_action(
            NewAction(
                gid, 2, 1, "1 add 1", 3.0, finish=Finish((1, 1), (1,), False, "x", 3.0), meta={"board": 3}
            )
        )
    assert await meta_of(store, gid) == {"board": 1}
    assert [a.seq for a in await store.actions(gid)] == [1]
    # With a finish, the meta is written in the transaction that closes the game.
    other = await store.create_game(NewGame("race", GUILD, 11, 1, [(100, "Ann"), (200, "Bob")], {}, 4.0))
    await store.append_action(
        NewAction(
            other,
            1,
            0,
            "0 add 3",
            5.0,
            finish=Finish((10, 7), (0,), False, "target", 5.0),
            meta={"done": True},
        )
    )
    record = await store.load_game(other)
    assert record is not None and record.status == "finished" and record.meta == {"done": True}


async def test_only_the_actions_own_key_is_a_conflict(store: AnyStore) -> None:
    """``ActionConflict`` tells players that someone moved at the same moment: only the (game_id, seq) key
    means that. Any other refusal of the insert — here a unique index such as a newer schema might add, and
    an unknown game — is the backend's own error (an ordinary failed write), and nothing is written."""
    gid = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    await store.append_action(NewAction(gid, 1, 0, "0 add 1", 1.0, meta={"board": 1}))
    async with store._tx() as db:
        await db.execute("CREATE UNIQUE INDEX actions_one_text_per_game ON actions (game_id, text)")
    refusals = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)
    with pytest.raises(refusals) as refused:
        await store.append_action(NewAction(gid, 2, 1, "0 add 1", 2.0, meta={"board": 2}))
    assert not isinstance(refused.value, ActionConflict)
    with pytest.raises(refusals) as refused:
        await store.append_action(NewAction(gid + 1000, 1, 0, "0 add 1", 2.0))  # no such game
    assert not isinstance(refused.value, ActionConflict)
    assert [a.text for a in await store.actions(gid)] == ["0 add 1"]
    assert await meta_of(store, gid) == {"board": 1}
    with pytest.raises(ActionConflict):  # the seq already logged still is one
        await store.append_action(NewAction(gid, 1, 1, "1 add 2", 3.0))
    await store.append_action(NewAction(gid, 2, 1, "1 add 2", 3.0))
    assert [a.text for a in await store.actions(gid)] == ["0 add 1", "1 add 2"]


async def test_only_the_channels_own_game_is_a_busy_channel(store: AnyStore) -> None:
    """``ChannelBusy`` tells players the channel has a game: only the channel's one active game means that.
    Another refusal of the insert (here a unique index such as a newer schema might add) is the backend's own
    error, and nothing of the game is written."""
    await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    async with store._tx() as db:
        await db.execute("CREATE UNIQUE INDEX games_one_seed_per_guild ON games (guild_id, seed)")
    refusals = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)
    with pytest.raises(refusals) as refused:
        await store.create_game(NewGame("race", GUILD, 11, 1, [(3, "c"), (4, "d")], {}, 0.0))
    assert not isinstance(refused.value, ChannelBusy)
    assert await store.active_game_in(11) is None
    with pytest.raises(ChannelBusy):
        await store.create_game(NewGame("race", GUILD, 10, 2, [(5, "e"), (6, "f")], {}, 0.0))


async def test_lobbies(store: AnyStore) -> None:
    lobby = await store.create_lobby(
        NewLobby(
            "bhargage",
            GUILD,
            10,
            100,
            invited_id=200,
            options={"target": 61},
            created_at=1.0,
            expires_at=11.0,
        )
    )
    assert lobby.status == "open" and lobby.options == {"target": 61} and lobby.members == ()
    assert lobby.game == "bhargage" and lobby.names == {} and lobby.invited_id == 200
    other = await store.create_lobby(
        NewLobby("deluxe", GUILD, 11, 101, members=[101], names={101: "Ann"}, created_at=1.0, expires_at=50.0)
    )
    assert other.names == {101: "Ann"} and other.options == {} and other.members == (101,)
    lobby = await store.update_lobby(lobby.id, message_id=77, members=[100, 200])
    assert lobby.message_id == 77 and lobby.members == (100, 200)
    assert [x.id for x in await store.open_lobbies(channel_id=10)] == [lobby.id]
    expired = await store.update_lobby(lobby.id, status="expired")
    assert expired.id == lobby.id and expired.status == "expired"
    assert await store.get_lobby(lobby.id) == expired
    assert [x.id for x in await store.open_lobbies()] == [other.id]
    other = await store.update_lobby(
        other.id, members=[101, 300], names={101: "Ann", 300: "Cy"}, options={"fast_start": 2}
    )
    assert other.members == (101, 300) and other.names == {101: "Ann", 300: "Cy"}
    assert other.options == {"fast_start": 2}
    assert await store.get_lobby(other.id) == other
    assert await store.get_lobby(other.id + 100) is None
    with pytest.raises(KeyError):
        await store.update_lobby(other.id + 100, status="cancelled")
    gid = await store.create_game(NewGame("race", GUILD, 11, 1, [(100, "a"), (200, "b")], {}, 0.0))
    done = await store.update_lobby(other.id, status="started", game_id=gid)
    assert done.status == "started" and done.game_id == gid
    with pytest.raises(TypeError):
        await store.update_lobby(other.id, host_id=5)
    with pytest.raises(ValueError):
        await store.update_lobby(other.id, status="bogus")


async def test_migration_4_turns_lobby_kinds_into_game_names_and_keeps_everything(location: str) -> None:
    path = location
    old = await open_store(path, migrate_to=3)
    assert isinstance(old, SQLiteStore | PostgresStore)
    assert await old.schema_version() == 3
    active = await old.create_game(
        NewGame("deluxe", GUILD, 30, 7, [(1, "A"), (2, "B"), (3, "C")], {"fast": 1}, 1.0)
    )
    await old_action(old, active, 1, 0, "0 draw", 2.0)
    await old_action(old, active, 2, 1, "1 draw", 3.0)
    await raw(
        old,
        "INSERT INTO table_meta (game_id, data) VALUES (?, ?)",
        (active, json.dumps({"board_id": 9, "log": []})),
    )
    # A finished game as the code of that version wrote it: closed, its results and its players' ratings.
    done = await old.create_game(
        NewGame("bhargage", GUILD, 31, 8, [(100, "Ann"), (200, "Bob")], {"target": 61}, 4.0)
    )
    await old_action(old, done, 1, 0, "0 play", 5.0)
    result = Finish((61, 40), (0,), True, "target", 5.0).to_dict()
    await raw(
        old,
        "UPDATE games SET status = 'finished', finished_at = 5.0, result = ? WHERE id = ?",
        (json.dumps(result), done),
    )
    await raw(
        old,
        "INSERT INTO results (game_id, guild_id, game, user_id, seat, score, rank, won, muggins, how, "
        "hand_score_avg, players, finished_at) "
        "VALUES (?, ?, 'bhargage', ?, ?, ?, ?, ?, ?, 'target', NULL, 2, 5.0)",
        (done, GUILD, 100, 0, 61, 1, 1, 1),
        (done, GUILD, 200, 1, 40, 2, 0, 0),
    )
    await raw(
        old,
        "INSERT INTO ratings (guild_id, game, user_id, name, rating, mu, sigma, games, wins, losses, "
        "muggins_wins, updated_at) VALUES (?, 'bhargage', ?, ?, ?, NULL, NULL, 1, ?, ?, ?, 5.0)",
        (GUILD, 100, "Ann", 1516.0, 1, 0, 1),
        (GUILD, 200, "Bob", 1484.0, 0, 1, 0),
    )
    lobby_sql = (
        "INSERT INTO lobbies (kind, guild_id, channel_id, host_id, invited_id, options, members, message_id, "
        "created_at, expires_at, status, game_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    # A challenge (options are Bhargage's own), an open Deluxe lobby with names, a started Deluxe lobby.
    deluxe_options = {"game": {"fast_start": 2, "target": 500}, "names": {"1": "A", "2": "B"}}
    started_options = {"game": {}, "names": {}}
    rows = [
        ("challenge", GUILD, 31, 100, 200, json.dumps({"target": 61}), "[]", 55, 1.0, 11.0, "open", None),
        ("deluxe", GUILD, 30, 1, None, json.dumps(deluxe_options), "[1, 2]", 56, 2.0, 600.0, "open", None),
        ("deluxe", GUILD, 30, 1, None, json.dumps(started_options), "[1]", None, 0.5, 9.0, "started", active),
        ("challenge", GUILD, 32, 1, 2, "{}", "[]", None, 3.0, 4.0, "declined", None),
    ]
    await raw(old, lobby_sql, *rows)
    await raw(old, "DELETE FROM lobbies WHERE id = 4")  # its id must never be handed out again
    await old.close()

    new = await open_store(path)
    try:
        assert await new.schema_version() == LATEST_VERSION
        challenge, deluxe, started = [await new.get_lobby(i) for i in (1, 2, 3)]
        assert challenge is not None and deluxe is not None and started is not None
        assert (challenge.game, challenge.options, challenge.names) == ("bhargage", {"target": 61}, {})
        assert (challenge.guild_id, challenge.channel_id, challenge.host_id, challenge.invited_id) == (
            GUILD,
            31,
            100,
            200,
        )
        assert (challenge.members, challenge.message_id, challenge.created_at, challenge.expires_at) == (
            (),
            55,
            1.0,
            11.0,
        )
        assert (challenge.status, challenge.game_id) == ("open", None)
        assert deluxe.game == "deluxe" and deluxe.options == {"fast_start": 2, "target": 500}
        assert deluxe.names == {1: "A", 2: "B"} and deluxe.members == (1, 2) and deluxe.message_id == 56
        assert (deluxe.invited_id, deluxe.created_at, deluxe.expires_at, deluxe.status) == (
            None,
            2.0,
            600.0,
            "open",
        )
        assert (started.game, started.options, started.names, started.members) == ("deluxe", {}, {}, (1,))
        assert (started.status, started.game_id, started.message_id) == ("started", active, None)
        assert await new.get_lobby(4) is None
        assert [x.id for x in await new.open_lobbies()] == [1, 2]
        assert [x.id for x in await new.open_lobbies(channel_id=30)] == [2]

        # Games, action logs, table meta, results and ratings are untouched.
        [record] = await new.active_games()
        assert record.id == active and record.game == "deluxe" and record.options == {"fast": 1}
        assert [(a.seq, a.seat, a.text, a.at) for a in record.actions] == [
            (1, 0, "0 draw", 2.0),
            (2, 1, "1 draw", 3.0),
        ]
        assert [(s.seat, s.user_id, s.name) for s in record.seats] == [(0, 1, "A"), (1, 2, "B"), (2, 3, "C")]
        assert record.meta == {"board_id": 9, "log": []} == await meta_of(new, active)
        finished = await new.load_game(done)
        assert finished is not None and finished.status == "finished" and finished.meta == {}
        assert (
            finished.result is not None and finished.result["winners"] == [0] and finished.result["muggins"]
        )
        ann = await new.rating_of(GUILD, "bhargage", 100)
        assert ann is not None and (ann["rating"], ann["games"], ann["wins"], ann["muggins_wins"]) == (
            1516.0,
            1,
            1,
            1,
        )
        assert [r.user_id for r in await new.leaderboard(GUILD, "bhargage")] == [100, 200]
        assert (await new.stats(GUILD, 200))["bhargage"].recent[0].score == 40

        # Any game name can have a lobby now, and a new lobby never reuses an id.
        race = await new.create_lobby(
            NewLobby("race", GUILD, 40, 7, names={7: "Gil"}, members=[7], created_at=10.0)
        )
        assert race.id == 5 and race.game == "race" and race.names == {7: "Gil"} and race.status == "open"
        assert [x.id for x in await new.open_lobbies()] == [1, 2, 5]
        with pytest.raises(ValueError):
            await new.update_lobby(race.id, status="bogus")
        assert isinstance(new, SQLiteStore | PostgresStore)
        with pytest.raises((sqlite3.IntegrityError, asyncpg.CheckViolationError)):  # the check survived
            await raw(new, "UPDATE lobbies SET status = 'bogus' WHERE id = ?", (race.id,))
    finally:
        await new.close()
    if not path.startswith("postgres"):
        check_sqlite_file(path)


def check_sqlite_file(path: str) -> None:
    with sqlite3.connect(path) as raw:
        columns = [r[1] for r in raw.execute("PRAGMA table_info(lobbies)")]
        assert "kind" not in columns and {"game", "names"} <= set(columns)
        indexes = {r[1] for r in raw.execute("PRAGMA index_list(lobbies)")}
        assert "lobbies_open" in indexes
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)


async def test_bot_state_and_guild_settings_survive_reopen(location: str) -> None:
    path = location
    s = await open_store(path)
    try:
        assert await s.get_state("sync") is None and await s.guild_settings(7) == {}
        await s.set_state("sync", "abc")
        await s.set_state("sync", "def")
        await s.set_guild_settings(7, {"nudge_minutes": 5})
        await s.set_guild_settings(8, {"claim_minutes": 0})
        await s.set_guild_settings(8, {})
    finally:
        await s.close()
    s = await open_store(path)
    try:
        assert await s.get_state("sync") == "def"
        assert await s.guild_settings(7) == {"nudge_minutes": 5}
        assert await s.guild_settings(8) == {}
    finally:
        await s.close()


async def test_one_seat_per_player_across_channels(store: AnyStore) -> None:
    gid = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    with pytest.raises(PlayerBusy) as busy:
        await store.create_game(NewGame("race", GUILD + 1, 11, 1, [(3, "c"), (2, "b")], {}, 0.0))
    assert (busy.value.user_id, busy.value.channel_id) == (2, 10)
    assert [g.id for g in await store.active_games()] == [gid]  # nothing of the refused game was written
    await store.finish_game(gid, Finish((1, 0), (0,), False, "target", 1.0))
    again = await store.create_game(NewGame("race", GUILD, 11, 1, [(3, "c"), (2, "b")], {}, 2.0))
    assert [g.id for g in await store.active_games()] == [again]


async def test_a_game_is_read_with_its_snapshot_when_its_tag_is_asked_for(store: AnyStore) -> None:
    gid = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    other = await store.create_game(NewGame("raceN", GUILD, 11, 1, [(3, "c"), (4, "d")], {}, 0.0))
    for seq in range(1, 6):
        # A snapshot is of the state before the action it is written with.
        snap = (
            Snapshot(seq - 1, seq - 1.0, "json1:race:1", b"state %d" % (seq - 1)) if seq in (3, 4) else None
        )
        await store.append_action(NewAction(gid, seq, seq % 2, f"{seq % 2} add 1", float(seq), snapshot=snap))
    await store.append_action(NewAction(other, 1, 0, "0 add 1", 1.0))
    tags = {"race": "json1:race:1", "raceN": "json1:raceN:1"}

    record = await store.load_game(gid, snapshots=tags)
    assert record is not None and record.snapshot == Snapshot(3, 3.0, "json1:race:1", b"state 3")
    assert [a.seq for a in record.actions] == [4, 5] and record.seats[1].user_id == 2
    [listed] = [g for g in await store.active_games(Listing(snapshots=tags)) if g.id == gid]
    assert listed == record
    for without in (None, {"race": "json1:race:2"}, {"raceN": "json1:race:1"}):  # no tag asked fits
        whole = await store.load_game(gid, snapshots=without)
        assert (
            whole is not None and whole.snapshot is None and [a.seq for a in whole.actions] == [1, 2, 3, 4, 5]
        )
    alone = await store.load_game(other, snapshots=tags)
    assert alone is not None and alone.snapshot is None and len(alone.actions) == 1
    assert await store.load_game(999, snapshots=tags) is None


async def test_the_active_index_lists_every_active_game_without_its_actions(store: AnyStore) -> None:
    first = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (-101, "Bot")], {}, 0.0))
    await store.append_action(NewAction(first, 1, 0, "0 add 1", 1.0, meta={"thread_id": 77}))
    far_guild = (5 << 22) | 9  # on shard 1 of 2
    second = await store.create_game(
        NewGame("raceN", far_guild, 11, 1, [(3, "c"), (4, "d"), (5, "e")], {}, 0.0)
    )
    done = await _play_two(store, 12, 0)
    index = await store.active_index()
    assert [g.id for g in index] == [first, second]
    assert [g.id for g in index] == [g.id for g in await store.active_games()]
    assert done not in [g.id for g in index]
    a, b = index
    assert (a.game, a.guild_id, a.channel_id, a.meta) == ("race", GUILD, 10, {"thread_id": 77})
    assert [(s.seat, s.user_id, s.name) for s in a.seats] == [(0, 1, "a"), (1, -101, "Bot")]
    assert (b.game, b.guild_id, b.channel_id, b.meta) == ("raceN", far_guild, 11, {})
    assert [s.user_id for s in b.seats] == [3, 4, 5]
    assert [g.id for g in await store.active_index(shards=(2, [1]))] == [second]
    assert [g.id for g in await store.active_index(shards=(2, [0]))] == [first]


async def test_migration_9_deletes_every_snapshot_written_before(location: str) -> None:
    old = await open_store(location, migrate_to=8)
    assert isinstance(old, SQLiteStore | PostgresStore)
    gid = await old.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    await old.append_action(NewAction(gid, 1, 0, "0 add 1", 1.0))
    await old.append_action(
        NewAction(gid, 2, 1, "1 add 1", 2.0, snapshot=Snapshot(1, 1.0, "0123abcd", b"\x80\x05K*."))
    )
    [before] = await old.active_games(Listing(snapshots={"race": "0123abcd"}))
    assert before.snapshot is not None and [a.seq for a in before.actions] == [2]
    await old.close()
    new = await open_store(location)
    assert isinstance(new, SQLiteStore | PostgresStore)
    try:
        assert await new.schema_version() == LATEST_VERSION >= 9
        assert await new._all("SELECT game_id FROM snapshots") == []
        [after] = await new.active_games(Listing(snapshots={"race": "0123abcd"}))
        assert after.id == gid and after.snapshot is None and len(after.actions) == 2
    finally:
        await new.close()


async def test_one_open_lobby_per_host_anywhere(store: AnyStore) -> None:
    """A member hosts one open lobby or challenge at a time, in any channel of any server: the store refuses
    a second in the insert's transaction and names the open one; a closed or overdue one no longer counts."""
    first = await store.create_lobby(NewLobby("deluxe", GUILD, 10, 100, created_at=1.0, expires_at=11.0))
    for guild, channel in ((GUILD, 11), (GUILD + 1, 12)):
        with pytest.raises(HostBusy) as busy:
            await store.create_lobby(
                NewLobby("bhargage", guild, channel, 100, invited_id=200, created_at=2.0)
            )
        assert busy.value.lobby == first
    assert [x.id for x in await store.open_lobbies()] == [first.id]  # nothing of the refused one was written
    invited = await store.create_lobby(NewLobby("bhargage", GUILD, 11, 200, invited_id=100, created_at=2.0))
    assert invited.host_id == 200  # being invited, or seated in someone else's lobby, is not hosting
    overdue = await store.create_lobby(NewLobby("deluxe", GUILD, 12, 100, created_at=11.0, expires_at=20.0))
    await store.update_lobby(overdue.id, status="cancelled")
    again = await store.create_lobby(NewLobby("deluxe", GUILD, 12, 100, created_at=12.0))  # never runs out
    with pytest.raises(HostBusy):
        await store.create_lobby(NewLobby("deluxe", GUILD, 13, 100, created_at=10_000.0))
    await store.update_lobby(again.id, status="started")
    await store.create_lobby(NewLobby("deluxe", GUILD, 13, 100, created_at=10_001.0))


async def test_untold_endings_are_the_finished_games_whose_meta_says_owed(store: AnyStore) -> None:
    """A game whose end was committed but never told is found (its meta says so), by when it finished and
    by shard; one that was told, or that is still active, is not."""
    f = Finish(scores=(10, 3), winners=(0,), muggins=False, how="target", at=50.0)
    games = [
        await store.create_game(
            NewGame("race", GUILD, 20 + i, 1, [(10 + 2 * i, "a"), (11 + 2 * i, "b")], {}, 0.0)
        )
        for i in range(4)
    ]
    owed, told, early, live = games
    for gid in (owed, told, early, live):
        await store.set_meta(gid, {"untold_after": 0, "owed": gid != told})
    await store.append_action(NewAction(owed, 1, 0, "0 add 10", 50.0, finish=f))
    await store.append_action(NewAction(told, 1, 0, "0 add 10", 50.0, finish=f))
    await store.append_action(NewAction(early, 1, 0, "0 add 10", 5.0, finish=dataclasses.replace(f, at=5.0)))
    assert await store.untold_endings(since=40.0) == [owed]
    assert await store.untold_endings(since=0.0) == [owed, early]
    shard = (GUILD >> 22) % 2
    assert await store.untold_endings(since=0.0, shards=(2, (1 - shard,))) == []


async def test_dm_channels_are_remembered_and_forgotten(store: AnyStore) -> None:
    assert await store.dm_channel(7) is None
    await store.set_dm_channel(7, 2**60 + 3)
    await store.set_dm_channel(8, 5)
    await store.set_dm_channel(7, 2**60 + 4)
    assert (await store.dm_channel(7), await store.dm_channel(8)) == (2**60 + 4, 5)
    await store.set_dm_channel(8, None)
    assert await store.dm_channel(8) is None
