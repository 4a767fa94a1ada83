"""What only a shared store does, on a real PostgreSQL server: two ``PostgresStore``s on one database stand
for two bot processes. The table lock excludes the other process (and dies with its session), a move logged
twice applies once, a player is seated once, news of the other's writes arrives (and a lost listener says
news may have been missed), opening errors are one sentence without the password, and a restarted server
loses nothing committed."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.store import (
    LATEST_VERSION,
    ActionConflict,
    NewAction,
    NewGame,
    PlayerBusy,
    PostgresStore,
    StoreOpenError,
    open_store,
    redacted,
)
from bot.store.postgres import to_dollar
from tests.pgserver import PostgresServer, free_port

GUILD = 1


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    a = await PostgresStore.open(pg_url)
    b = await PostgresStore.open(pg_url)
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


async def eventually(check: object, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(check) and check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the condition never held")


def test_placeholders_become_numbered_outside_quotes() -> None:
    sql = "SELECT '?' AS q, \"a?b\" FROM t WHERE x = ? AND y IN (?, ?) AND z = 'it''s ?'"
    assert (
        to_dollar(sql) == "SELECT '?' AS q, \"a?b\" FROM t WHERE x = $1 AND y IN ($2, $3) AND z = 'it''s ?'"
    )


def test_redacted_hides_the_password() -> None:
    assert redacted("postgresql://tavern:s3cret@db:5432/tavern") == "postgresql://tavern:***@db:5432/tavern"
    assert "s3cret" not in redacted("postgres://u@h/db?password=s3cret&sslmode=require")
    assert redacted("postgresql://u@h/db") == "postgresql://u@h/db"


async def test_open_store_picks_postgres_for_its_urls(pg_url: str) -> None:
    store = await open_store(pg_url, pool_size=2)
    try:
        assert isinstance(store, PostgresStore) and store.shared and store.pool.get_max_size() == 2
    finally:
        await store.close()
        await store.close()  # twice is harmless


async def test_the_table_lock_excludes_the_other_process_until_released(
    two: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = two
    gid = await a.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    await a.append_action(NewAction(gid, 1, 0, "0 add 1", 1.0))
    order: list[str] = []
    async with a.table_lock(gid) as version:
        assert version == 1

        async def other() -> None:
            async with b.table_lock(gid) as seen:
                order.append(f"b got it at version {seen}")

        waiting = asyncio.create_task(other())
        await asyncio.sleep(0.3)
        assert order == []  # b waits while a holds it
        await a.append_action(NewAction(gid, 2, 1, "1 add 1", 2.0))
        order.append("a wrote")
    await asyncio.wait_for(waiting, 5)
    assert order == ["a wrote", "b got it at version 2"]
    async with b.table_lock(gid + 1000) as unknown:
        assert unknown is None


async def test_a_lock_whose_connection_dies_is_freed(two: tuple[PostgresStore, PostgresStore]) -> None:
    a, b = two
    gid = await a.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    entered = asyncio.Event()
    hold = asyncio.Event()

    async def holder() -> None:
        async with a.table_lock(gid):
            entered.set()
            await hold.wait()

    task = asyncio.create_task(holder())
    await entered.wait()
    await b._all(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND classid = 1 AND objid = ?",
        (gid,),
    )
    async with asyncio.timeout(5), b.table_lock(gid) as version:
        assert version == 0
    hold.set()
    await asyncio.wait_for(task, 5)  # leaving a lock whose session is gone does not raise
    assert await a.load_game(gid) is not None  # and a's pool still serves


async def test_held_table_locks_tie_up_no_pool_connection(pg_url: str) -> None:
    """Moves in flight hold their tables' locks while they announce: with a pool of one connection, three
    tables locked at once still read and write."""
    store = await PostgresStore.open(pg_url, pool_size=1)
    try:
        games = [
            await store.create_game(
                NewGame("race", GUILD, 10 + i, 1, [(i * 2 + 1, "a"), (i * 2 + 2, "b")], {}, 0.0)
            )
            for i in range(3)
        ]
        async with asyncio.timeout(5), contextlib.AsyncExitStack() as held:
            for gid in games:
                assert await held.enter_async_context(store.table_lock(gid)) == 0
            for gid in games:
                assert await store.set_meta(gid, {"x": gid}) == 1
        for gid in games:
            assert (await store.load_game(gid)).meta == {"x": gid}  # type: ignore[union-attr]
    finally:
        await store.close()


async def test_the_same_move_from_both_processes_applies_once(
    two: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = two
    gid = await a.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    for seq in range(1, 6):
        results = await asyncio.gather(
            a.append_action(NewAction(gid, seq, 0, f"a {seq}", float(seq))),
            b.append_action(NewAction(gid, seq, 0, f"b {seq}", float(seq))),
            return_exceptions=True,
        )
        assert sum(isinstance(r, ActionConflict) for r in results) == 1, results
        assert [r for r in results if isinstance(r, int)] == [seq]  # the version, bumped once
    assert [x.seq for x in await b.actions(gid)] == [1, 2, 3, 4, 5]


async def test_one_player_is_seated_once_by_two_processes(two: tuple[PostgresStore, PostgresStore]) -> None:
    a, b = two
    for round_ in range(5):
        player = 100 + round_
        results = await asyncio.gather(
            a.create_game(
                NewGame("race", GUILD, 1000 + 2 * round_, 1, [(player, "p"), (7000 + round_, "x")], {}, 0.0)
            ),
            b.create_game(
                NewGame("race", GUILD, 1001 + 2 * round_, 1, [(8000 + round_, "y"), (player, "p")], {}, 0.0)
            ),
            return_exceptions=True,
        )
        assert sum(isinstance(r, PlayerBusy) for r in results) == 1, results
        assert sum(isinstance(r, int) for r in results) == 1, results


async def test_watch_tells_of_the_other_process_writes_only(two: tuple[PostgresStore, PostgresStore]) -> None:
    a, b = two
    news: list[tuple[int | None, bool]] = []
    await a.watch(lambda game, closed: news.append((game, closed)))
    mine = await a.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    await a.append_action(NewAction(mine, 1, 0, "0 add 1", 1.0))
    theirs = await b.create_game(NewGame("race", GUILD, 11, 1, [(3, "c"), (4, "d")], {}, 0.0))
    await b.set_meta(theirs, {"x": 1})
    await b.abandon_game(theirs, 2.0, "test")
    await eventually(lambda: (theirs, True) in news)
    assert all(game == theirs for game, _ in news), news  # never its own
    assert (theirs, False) in news


async def test_a_lost_listener_reconnects_and_says_news_may_be_missed(
    two: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = two
    news: list[tuple[int | None, bool]] = []
    await a.watch(lambda game, closed: news.append((game, closed)))
    await b._all(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?",
        ("decktet-tavern-listener",),
    )
    await eventually(lambda: (None, False) in news)
    gid = await b.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
    await eventually(lambda: (gid, False) in news)  # listening again


@pytest.mark.parametrize("what", ["password", "port", "database"])
async def test_opening_errors_are_one_sentence_without_the_password(
    postgres_server: PostgresServer, what: str
) -> None:
    secret = "hunter2-never-shown"
    if what == "password":
        url, needle = postgres_server.url(password=secret), f"user '{postgres_server.user}'"
    elif what == "port":
        port = free_port()
        url, needle = f"postgresql://tavern:{secret}@127.0.0.1:{port}/x", f"127.0.0.1:{port}"
    else:  # the right password, an unknown database
        secret = postgres_server.password
        url, needle = postgres_server.url("no_such_db"), "'no_such_db'"
    with pytest.raises(StoreOpenError) as err:
        await PostgresStore.open(url)
    text = str(err.value)
    assert needle in text and secret not in text and "TAVERN_DATABASE_URL" in text, text
    assert text.count(". ") == 0 and text.endswith("."), text  # one sentence


async def test_a_malformed_url_is_refused_plainly() -> None:
    with pytest.raises(StoreOpenError) as err:
        await PostgresStore.open("postgresql://tavern:s3cret@host:notaport/db")
    assert "s3cret" not in str(err.value) and "TAVERN_DATABASE_URL" in str(err.value)


async def test_a_restarted_server_loses_nothing_committed(
    postgres_server: PostgresServer, pg_url: str
) -> None:
    store = await PostgresStore.open(pg_url)
    try:
        news: list[tuple[int | None, bool]] = []
        await store.watch(lambda game, closed: news.append((game, closed)))
        gid = await store.create_game(NewGame("race", GUILD, 10, 1, [(1, "a"), (2, "b")], {}, 0.0))
        await store.append_action(NewAction(gid, 1, 0, "0 add 1", 1.0, meta={"m": 1}))
        postgres_server.restart()
        try:
            await store.append_action(NewAction(gid, 2, 1, "1 add 1", 2.0))
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
            await store.append_action(
                NewAction(gid, 2, 1, "1 add 1", 2.0)
            )  # the first call may fail; the next works
        record = await store.load_game(gid)
        assert record is not None and [a.seq for a in record.actions] == [1, 2] and record.meta == {"m": 1}
        await eventually(lambda: (None, False) in news, timeout=10)  # the listener is back and says so
    finally:
        await store.close()


async def test_two_processes_starting_at_once_migrate_once(pg_url: str) -> None:
    stores = await asyncio.gather(*(PostgresStore.open(pg_url) for _ in range(3)))
    try:
        rows = await stores[0]._all("SELECT version FROM schema_version ORDER BY version")
        assert [r["version"] for r in rows] == list(range(1, LATEST_VERSION + 1))
    finally:
        for s in stores:
            await s.close()
