"""The SQLite store on real files: migrations, durability settings, game logs, meta, finishing, queries,
lobbies."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bot import ratings as rt
from bot.store import LATEST_VERSION, MIGRATIONS, ChannelBusy, Finish
from bot.store import SQLiteStore as Store

GUILD = 1


@pytest.fixture
async def store(tmp_path: Path) -> Store:
    s = await Store.open(tmp_path / "sub" / "tavern.db", rating_systems={"race": "elo", "raceN": "openskill"})
    yield s
    await s.close()


def test_migrations_are_numbered_in_order() -> None:
    versions = [v for v, _ in MIGRATIONS]
    assert versions == list(range(1, len(versions) + 1))
    assert versions[-1] == LATEST_VERSION


async def test_open_creates_folder_wal_and_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "t.db"
    s = await Store.open(path)
    try:
        assert path.exists()
        assert (await s.pragma("journal_mode")).lower() == "wal"
        assert await s.pragma("synchronous") == 2  # FULL
        assert await s.schema_version() == LATEST_VERSION
    finally:
        await s.close()


async def test_old_database_is_migrated_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = await Store.open(path, migrate_to=1)
    assert await old.schema_version() == 1
    gid = await old.create_game("race", GUILD, 10, 42, [(100, "Ann"), (200, "Bob")], {"target": 5}, 1.0)
    await old.append_action(gid, 1, 0, "0 add 2", 2.0)
    await old.close()
    with sqlite3.connect(path) as raw:
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "games" in tables and "ratings" not in tables and "lobbies" not in tables

    new = await Store.open(path)
    try:
        assert await new.schema_version() == LATEST_VERSION
        record = await new.load_game(gid)
        assert record is not None
        assert [a.text for a in record.actions] == ["0 add 2"]
        assert record.options == {"target": 5}
        await new.set_meta(gid, {"board": 5})  # a table from migration 3 works
        assert await new.get_meta(gid) == {"board": 5}
    finally:
        await new.close()
    with sqlite3.connect(path) as raw:
        assert [r[0] for r in raw.execute("SELECT version FROM schema_version ORDER BY version")] == [
            v for v, _ in MIGRATIONS
        ]


async def test_a_failing_migration_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bad.db"
    s = await Store.open(path, migrate_to=1)
    await s.close()
    bad = [*MIGRATIONS[:1], (2, "CREATE TABLE half (x INTEGER); CREATE TABLE oops (;")]
    monkeypatch.setattr("bot.store.schema.MIGRATIONS", bad)
    with pytest.raises(sqlite3.OperationalError):
        await Store.open(path, migrate_to=2)
    with sqlite3.connect(path) as raw:
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "half" not in tables
        assert raw.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == 1


async def test_one_active_game_per_channel(store: Store) -> None:
    gid = await store.create_game("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0)
    with pytest.raises(ChannelBusy):
        await store.create_game("raceN", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0)
    await store.append_action(gid, 1, 0, "0 add 3", 1.0, finish=Finish((3, 0), (0,), False, "target", 1.0))
    await store.create_game("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0)  # the channel is free again
    assert len(await store.active_games()) == 1


async def test_actions_are_committed_and_visible_to_another_connection(store: Store) -> None:
    gid = await store.create_game("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0)
    await store.append_action(gid, 1, 0, "0 add 1", 1.0)
    await store.append_action(gid, 2, 1, "1 add 3", 2.0)
    with sqlite3.connect(store.path) as other:
        rows = other.execute(
            "SELECT seq, seat, text FROM actions WHERE game_id = ? ORDER BY seq", (gid,)
        ).fetchall()
    assert rows == [(1, 0, "0 add 1"), (2, 1, "1 add 3")]
    with pytest.raises(sqlite3.IntegrityError):
        await store.append_action(gid, 2, 0, "0 add 2", 3.0)
    assert [a.seq for a in await store.actions(gid)] == [1, 2]


async def _play_two(
    store: Store, channel: int, winner: int, *, muggins: bool = False, at: float = 5.0
) -> int:
    gid = await store.create_game("race", GUILD, channel, 1, [(100, "Ann"), (200, "Bob")], {}, at - 1)
    scores = (10, 7) if winner == 0 else (7, 10)
    await store.append_action(
        gid, 1, winner, f"{winner} add 3", at, finish=Finish(scores, (winner,), muggins, "target", at)
    )
    return gid


async def test_finishing_writes_game_results_and_elo_in_one_transaction(store: Store) -> None:
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
        await store.append_action(gid, 2, 1, "1 add 1", 6.0, finish=Finish((1, 1), (1,), False, "x", 6.0))
    assert [a.seq for a in await store.actions(gid)] == [1]
    assert (await store.rating_of(GUILD, "race", 100))["games"] == 1  # type: ignore[index]


async def test_leaderboard_and_stats_numbers(store: Store) -> None:
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


async def test_multiplayer_finish_uses_openskill_and_hand_averages(store: Store) -> None:
    seats = [(1, "A"), (2, "B"), (3, "C")]
    gid = await store.create_game("raceN", GUILD, 20, 1, seats, {}, 0.0)
    await store.append_action(
        gid, 1, 2, "2 add 1", 1.0, finish=Finish((40, 100, 70), (1,), False, "target", 1.0, (4.0, 10.0, None))
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


async def test_a_seat_that_left_ranks_last_in_results_and_ratings(store: Store) -> None:
    seats = [(1, "A"), (2, "B"), (3, "C")]
    gid = await store.create_game("raceN", GUILD, 21, 1, seats, {}, 0.0)
    finish = Finish((50, 90, 20), (0,), False, "target", 1.0, left=(False, True, False))
    await store.append_action(gid, 1, 0, "0 add 1", 1.0, finish=finish)
    ranks = {u: (await store.stats(GUILD, u))["raceN"].recent[0].rank for u, _ in seats}
    assert ranks == {1: 1, 3: 2, 2: 3}
    assert [r.user_id for r in await store.leaderboard(GUILD, "raceN")] == [1, 3, 2]


async def test_meta_is_replaced_with_its_move_and_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    s = await Store.open(path)
    gid = await s.create_game("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0)
    assert await s.get_meta(gid) == {}
    await s.set_meta(gid, {"board_id": 123, "dm_closed": [1]})
    await s.append_action(gid, 1, 0, "0 add 1", 1.0, meta={"board_id": 124, "announced": 1})
    # A move that fails (a duplicate seq) leaves the meta as it was: one transaction.
    with pytest.raises(sqlite3.IntegrityError):
        await s.append_action(gid, 1, 0, "0 add 2", 2.0, meta={"board_id": 999})
    await s.close()
    s = await Store.open(path)
    try:
        assert await s.get_meta(gid) == {"board_id": 124, "announced": 1}
        record = await s.load_game(gid)
        assert record is not None and record.meta == {"board_id": 124, "announced": 1}
        assert [a.text for a in record.actions] == ["0 add 1"]
        (active,) = await s.active_games()
        assert active.meta == record.meta
    finally:
        await s.close()


async def test_lobbies(store: Store) -> None:
    lobby = await store.create_lobby(
        "bhargage", GUILD, 10, 100, invited_id=200, options={"target": 61}, created_at=1.0, expires_at=11.0
    )
    assert lobby.status == "open" and lobby.options == {"target": 61} and lobby.members == ()
    other = await store.create_lobby(
        "deluxe", GUILD, 11, 100, members=[100], names={100: "ann"}, created_at=1.0, expires_at=50.0
    )
    assert other.names == {100: "ann"}
    lobby = await store.update_lobby(lobby.id, message_id=77, members=[100, 200], names={200: "bob"})
    assert lobby.message_id == 77 and lobby.members == (100, 200) and lobby.names == {200: "bob"}
    assert [x.id for x in await store.open_lobbies(channel_id=10)] == [lobby.id]
    expired = await store.update_lobby(lobby.id, status="expired")
    assert expired.status == "expired"
    assert [x.id for x in await store.open_lobbies()] == [other.id]
    gid = await store.create_game("race", GUILD, 11, 1, [(100, "a"), (200, "b")], {}, 0.0)
    done = await store.update_lobby(other.id, status="started", game_id=gid)
    assert done.status == "started" and done.game_id == gid
    new_game = await store.create_lobby("race", GUILD, 12, 100, created_at=1.0)  # any game now
    assert new_game.game == "race"
    with pytest.raises(TypeError):
        await store.update_lobby(other.id, host_id=5)
    with pytest.raises(sqlite3.IntegrityError):
        await store.update_lobby(other.id, status="bogus")


async def test_version_3_lobbies_are_migrated_without_loss(tmp_path: Path) -> None:
    """A database written by the schema of version 3 (lobby kinds in a CHECK, Deluxe names inside the
    options) opens at the latest version with every row kept, in the new shape."""
    path = tmp_path / "v3.db"
    old = await Store.open(path, migrate_to=3)
    gid = await old.create_game("deluxe", GUILD, 11, 9, [(100, "ann"), (200, "bob")], {"target": 50}, 1.0)
    await old.close()
    with sqlite3.connect(path) as raw:
        raw.execute(
            "INSERT INTO lobbies (kind, guild_id, channel_id, host_id, invited_id, options, members, "
            "message_id, created_at, expires_at, status) "
            "VALUES ('challenge', 1, 10, 100, 200, ?, '[100]', 55, 1.0, 601.0, 'open')",
            (json.dumps({"target": 61, "sequences": True}),),
        )
        deluxe_options = {"game": {"target": 50, "pawns": True}, "names": {"100": "ann", "200": "bob"}}
        raw.execute(
            "INSERT INTO lobbies (kind, guild_id, channel_id, host_id, options, members, created_at, "
            "expires_at, status, game_id) VALUES ('deluxe', 1, 11, 100, ?, '[100, 200]', 2.0, 900.0, "
            "'started', ?)",
            (json.dumps(deluxe_options), gid),
        )
        meta = json.dumps({"board_id": 7})
        raw.execute("INSERT INTO table_meta (game_id, data) VALUES (?, ?)", (gid, meta))
        with pytest.raises(sqlite3.IntegrityError):  # version 3 knew only two kinds of lobby
            raw.execute(
                "INSERT INTO lobbies (kind, guild_id, channel_id, host_id, options, members, created_at) "
                "VALUES ('race', 1, 12, 100, '{}', '[]', 3.0)"
            )
    new = await Store.open(path)
    try:
        assert await new.schema_version() == LATEST_VERSION
        challenge, table = await new.get_lobby(1), await new.get_lobby(2)
        assert challenge is not None and table is not None
        assert (challenge.game, challenge.options, challenge.names) == (
            "bhargage",
            {"target": 61, "sequences": True},
            {},
        )
        assert (challenge.invited_id, challenge.members, challenge.message_id) == (200, (100,), 55)
        assert (challenge.created_at, challenge.expires_at, challenge.status) == (1.0, 601.0, "open")
        assert (table.game, table.options, table.names) == (
            "deluxe",
            {"target": 50, "pawns": True},
            {100: "ann", 200: "bob"},
        )
        assert (table.status, table.game_id, table.members) == ("started", gid, (100, 200))
        assert [x.id for x in await new.open_lobbies(channel_id=10)] == [1]
        record = await new.load_game(gid)
        assert record is not None and record.meta == {"board_id": 7} and record.options == {"target": 50}
        race = await new.create_lobby("race", GUILD, 12, 100, created_at=3.0)
        assert race.id == 3 and race.game == "race"
    finally:
        await new.close()
