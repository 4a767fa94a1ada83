"""Seasons and paged boards in the store, on both backends (a SQLite file, and a database on a real
PostgreSQL server): a finish counts in its month's season (or the one season an admin closes), each season
rates everyone afresh, closing archives and never deletes, ranks are shared by equal ratings, and games
against the bot or abandoned ones rate nobody."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.base import ratings as rt
from bot.services.tournaments.stored import forgotten
from bot.store import Finish, NewAction, NewGame, PostgresStore, SQLiteStore, open_store
from bot.store.boards import month_start, next_month

GUILD = 1
SYSTEMS: dict[str, rt.RatingSystem] = {"race": "elo", "raceN": "openskill"}
AnyStore = SQLiteStore | PostgresStore
JAN = datetime(2025, 1, 10, 12, tzinfo=UTC).timestamp()
FEB = datetime(2025, 2, 3, 9, tzinfo=UTC).timestamp()
MAY = datetime(2025, 5, 20, tzinfo=UTC).timestamp()


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "tavern.db")
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
async def store(location: str) -> AsyncIterator[AnyStore]:
    s = await open_store(location, rating_systems=SYSTEMS)
    assert isinstance(s, SQLiteStore | PostgresStore)
    yield s
    await s.close()


async def play(
    store: AnyStore, seats: Sequence[tuple[int, str]], winner: int, at: float, *, channel: int = 10
) -> int:
    """A two-seat Race game that ``winner`` (a seat) wins at ``at``."""
    gid = await store.create_game(NewGame("race", GUILD, channel, 1, list(seats), {}, at - 1))
    scores = (10, 7) if winner == 0 else (7, 10)
    finish = Finish(scores, (winner,), False, "target", at)
    await store.append_action(NewAction(gid, 1, winner, f"{winner} add 3", at, finish=finish))
    return gid


def test_months_are_utc() -> None:
    assert datetime.fromtimestamp(month_start(JAN), UTC) == datetime(2025, 1, 1, tzinfo=UTC)
    assert datetime.fromtimestamp(next_month(JAN), UTC) == datetime(2025, 2, 1, tzinfo=UTC)
    december = datetime(2024, 12, 31, 23, 59, tzinfo=UTC).timestamp()
    assert datetime.fromtimestamp(next_month(december), UTC) == datetime(2025, 1, 1, tzinfo=UTC)


async def test_monthly_seasons_roll_over_and_rate_afresh(store: AnyStore) -> None:
    ann, bob, cat = (100, "Ann"), (200, "Bob"), (300, "Cat")
    assert [(s.number, s.ended_at) for s in await store.seasons(GUILD, JAN)] == [(1, None)]
    await play(store, [ann, bob], 0, JAN)
    await play(store, [ann, bob], 0, JAN + 60)
    [jan] = await store.seasons(GUILD, JAN + 120)
    assert (jan.number, jan.started_at, jan.ended_at, jan.monthly, jan.players) == (
        1,
        month_start(JAN),
        None,
        True,
        2,
    )
    # Seen in February, January is over, and the current season (2) has no game yet.
    now, before = await store.seasons(GUILD, FEB)
    assert (now.number, now.started_at, now.ended_at, now.players) == (2, month_start(FEB), None, 0)
    assert (before.number, before.ended_at) == (1, next_month(JAN))
    await play(store, [cat, ann], 0, FEB)
    feb = await store.leaderboard_page(GUILD, "race", 2, page=1, per_page=10, user_id=bob[0])
    assert [(r.name, r.rating, r.games, r.rank) for r in feb.rows] == [
        ("Cat", 1516, 1, 1),
        ("Ann", 1484, 1, 2),
    ]
    assert feb.me is None and feb.total == 2  # Bob played no game this season
    old = await store.leaderboard_page(GUILD, "race", 1, page=1, per_page=10, user_id=bob[0])
    assert [(r.name, r.games) for r in old.rows] == [("Ann", 2), ("Bob", 2)]
    assert old.me is not None and (old.me.rank, old.me.losses) == (2, 2)
    ever = await store.leaderboard_page(GUILD, "race", None, page=1, per_page=10)
    games = {r.name: (r.games, r.rating) for r in ever.rows}
    assert {name: n for name, (n, _) in games.items()} == {"Ann": 3, "Bob": 2, "Cat": 1}
    # Ann's season rating started afresh at 1500; her all-time one went on from two wins.
    assert games["Ann"][1] > 1500 > 1484
    listed = await store.seasons(GUILD, FEB)
    assert [(s.number, s.ended_at, s.players) for s in listed] == [(2, None, 2), (1, next_month(JAN), 2)]
    season_of = await store._all("SELECT DISTINCT season FROM results ORDER BY season")
    assert [r["season"] for r in season_of] == [1, 2]
    # A season's board names players as their all-time row does: a forgotten player is 👤 there too.
    await store.forget_user(cat[0], "👤", at=FEB, rename=forgotten)
    feb = await store.leaderboard_page(GUILD, "race", 2, page=1, per_page=10)
    assert [r.name for r in feb.rows] == ["👤", "Ann"]


async def test_one_season_runs_until_an_admin_closes_it_and_nothing_is_deleted(store: AnyStore) -> None:
    await store.set_guild_settings(GUILD, {"seasons": "none"})
    ann, bob = (100, "Ann"), (200, "Bob")
    assert await store.close_season(GUILD, 1, JAN) is None  # nothing to close yet
    await play(store, [ann, bob], 0, JAN)
    await play(store, [ann, bob], 1, MAY)  # months later: still season 1
    [one] = await store.seasons(GUILD, MAY + 1)
    assert (one.number, one.started_at, one.ended_at, one.monthly, one.players) == (1, JAN, None, False, 2)
    assert await store.close_season(GUILD, 2, MAY + 10) is None  # not the current season
    closed = await store.close_season(GUILD, 1, MAY + 10)
    assert closed is not None and (closed.number, closed.ended_at, closed.players) == (1, MAY + 10, 2)
    assert await store.close_season(GUILD, 1, MAY + 20) is None  # closed already
    assert await store.close_season(GUILD, 2, MAY + 20) is None  # season 2 has no game yet
    two, one = await store.seasons(GUILD, MAY + 30)
    assert (two.number, two.started_at, two.ended_at) == (2, MAY + 10, None)
    assert (one.number, one.ended_at) == (1, MAY + 10)
    archived = await store.leaderboard_page(GUILD, "race", 1, page=1, per_page=10)
    assert [r.games for r in archived.rows] == [2, 2]
    assert (await store.leaderboard_page(GUILD, "race", 2, page=1, per_page=10)).total == 0
    await play(store, [ann, bob], 1, MAY + 40)
    fresh = await store.leaderboard_page(GUILD, "race", 2, page=1, per_page=10)
    assert [(r.name, r.rating) for r in fresh.rows] == [("Bob", 1516), ("Ann", 1484)]
    # Back to monthly: a season closed by hand mid-month ends with the month of its newest result.
    await store.set_guild_settings(GUILD, {})
    june = datetime(2025, 6, 2, tzinfo=UTC).timestamp()
    three, two, _ = await store.seasons(GUILD, june)
    assert (three.number, three.started_at, two.ended_at) == (3, june - 86400, june - 86400)


async def test_pages_share_ranks_between_equal_ratings_and_find_the_asker(store: AnyStore) -> None:
    # Three winners at 1516 and three losers at 1484: ranks 1, 1, 1, 4, 4, 4.
    for i in range(3):
        winner, loser = (10 + i, f"w{i}"), (20 + i, f"l{i}")
        await play(store, [winner, loser], 0, JAN + i)
    first = await store.leaderboard_page(GUILD, "race", 1, page=1, per_page=2, user_id=22)
    assert [(r.user_id, r.rank) for r in first.rows] == [(10, 1), (11, 1)]
    assert (first.page, first.pages, first.total) == (1, 3, 6)
    assert first.me is not None and (first.me.user_id, first.me.rank, first.me.name) == (22, 4, "l2")
    second = await store.leaderboard_page(GUILD, "race", 1, page=2, per_page=2, user_id=10)
    assert [(r.user_id, r.rank) for r in second.rows] == [(12, 1), (20, 4)]
    assert second.me is not None and second.me.rank == 1
    last = await store.leaderboard_page(GUILD, "race", None, page=99, per_page=2, user_id=999)
    assert last.page == 3 and [r.rank for r in last.rows] == [4, 4] and last.me is None
    # Everyone at or below the floor shows alike (0 on the shown scale): one rank.
    floored = await store.leaderboard_page(GUILD, "race", 1, page=1, per_page=10, floor=1600)
    assert [r.rank for r in floored.rows] == [1] * 6
    empty = await store.leaderboard_page(GUILD + 1, "race", None, page=2, per_page=10, user_id=10)
    assert (empty.rows, empty.total, empty.page, empty.pages, empty.me) == ((), 0, 1, 1, None)


async def test_the_bot_and_abandoned_games_rate_nobody(store: AnyStore) -> None:
    await play(store, [(100, "Ann"), (-201, "Bot (normal)")], 0, JAN)
    gid = await store.create_game(NewGame("race", GUILD, 11, 1, [(100, "Ann"), (200, "Bob")], {}, JAN))
    await store.abandon_game(gid, JAN + 5, "admin")
    for season in (1, None):
        board = await store.leaderboard_page(GUILD, "race", season, page=1, per_page=10, user_id=100)
        assert board.total == 0 and board.me is None
    [current] = await store.seasons(GUILD, JAN + 10)
    assert current.players == 0 and await store.close_season(GUILD, current.number, JAN + 10) is None


async def test_two_finishes_opening_a_season_at_once_both_count(store: AnyStore) -> None:
    await play(store, [(100, "Ann"), (200, "Bob")], 0, JAN)
    games = [
        await store.create_game(
            NewGame("race", GUILD, 30 + i, 1, [(1 + 2 * i, "a"), (2 + 2 * i, "b")], {}, FEB)
        )
        for i in range(4)
    ]
    await asyncio.gather(
        *(
            store.append_action(
                NewAction(
                    gid, 1, 0, "0 add 3", FEB + i, finish=Finish((10, 7), (0,), False, "target", FEB + i)
                )
            )
            for i, gid in enumerate(games)
        )
    )
    listed = await store.seasons(GUILD, FEB + 10)
    assert [(s.number, s.players) for s in listed] == [(2, 8), (1, 2)]
    assert (await store.leaderboard_page(GUILD, "race", 2, page=1, per_page=10)).total == 8


async def test_two_admins_closing_one_season_at_once_close_it_once(store: AnyStore) -> None:
    await store.set_guild_settings(GUILD, {"seasons": "none"})
    await play(store, [(100, "Ann"), (200, "Bob")], 0, JAN)
    closed = await asyncio.gather(*(store.close_season(GUILD, 1, JAN + 10 + i) for i in range(3)))
    assert sum(c is not None for c in closed) == 1
    assert [(s.number, s.ended_at is None) for s in await store.seasons(GUILD, JAN + 20)] == [
        (2, True),
        (1, False),
    ]
