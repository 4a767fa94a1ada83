"""``python -m bot migrate-to``: a SQLite tavern moved into an empty PostgreSQL database on the real server
the tests start, then played on by a bot on PostgreSQL: the game under way resumes from its old panels, the
finished one's ratings and the players' preferences are there, new games get new ids. A non-empty target is
refused; a copy that lost a row is refused and leaves nothing behind."""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import pytest

from bot.games.table import Table
from bot.settings import Settings
from bot.store import Finish, NewAction, NewGame, SQLiteStore, transfer
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_bhargage_discord import act_with_panel, challenge, enabled, every_click_mine, play_out, step
from tests.test_deploy import bot_command


def counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            n: int(db.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0])
            for n in names
            if n not in transfer.SKIPPED
        }


async def pg_counts(url: str) -> dict[str, int]:
    conn = await asyncpg.connect(url)
    try:
        names = [
            r["tablename"]
            for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        ]
        return {
            n: int(await conn.fetchval(f'SELECT COUNT(*) FROM "{n}"')) for n in names if n != "schema_version"
        }
    finally:
        await conn.close()


async def test_a_sqlite_tavern_moves_to_postgresql_and_plays_on(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, tmp_path: Path, pg_url: str
) -> None:
    fake = fake_discord
    first = await start_bot(settings)
    alice, bob, cat, dan = (fake.add_user(n) for n in ("alice", "bob", "cat", "dan"))
    await challenge(fake, alice, bob)  # a finished game: results, ratings, a season
    await play_out(fake, fake.channel, [alice, bob])
    second_room = fake.add_channel("second")
    await every_click_mine(fake, [cat, dan])  # preferences kept
    await challenge(fake, cat, dan, second_room)  # a game under way
    for _ in range(6):  # both discards, the cut and a few cards
        assert await step(fake, second_room, [cat, dan]) is not None
    under_way = await first.tables.table_for_channel(second_room.id)
    assert under_way is not None
    seq, game_id = under_way.seq, under_way.id
    live_panels = {m.id for u in (cat, dan) for m in fake.dms(u) if enabled(m)}
    await first.close()
    before = counts(settings.db_path)
    assert before["games"] == 2 and before["results"] == 2 and before["user_prefs"] == 2

    password = urlsplit(pg_url).password
    assert password
    env = {"TAVERN_DB_PATH": str(settings.db_path), "TAVERN_DATABASE_URL": pg_url}
    done = await bot_command(tmp_path, "migrate-to", **env)  # the address from the environment: not in ps
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    assert line.startswith(f"Moved {settings.db_path} to postgresql://") and ":***@" in line
    assert "2 games (1 active)" in line and line.endswith("every table's row count and digest equal in both.")
    assert password not in done.stdout + done.stderr
    assert await pg_counts(pg_url) == before

    # The PostgreSQL bot carries on: the game under way from an old panel, then to its end.
    on_pg = await start_bot(dataclasses.replace(settings, database_url=pg_url))
    table = await on_pg.tables.table_for_channel(second_room.id)
    assert table is not None and (table.id, table.seq) == (game_id, seq)
    mover = next(u for u in (cat, dan) if table.seat_of(u.id) in table.people_waited_for())
    panel = [m for m in fake.dms(mover) if enabled(m)][-1]
    assert panel.id in live_panels
    await act_with_panel(fake, mover, panel)
    assert table.seq == seq + 1
    await play_out(fake, second_room, [cat, dan])
    assert table.status == "finished"
    for user in (alice, bob, cat, dan):
        rating = await on_pg.store.rating_of(fake.guild.id, "bhargage", user.id)
        assert rating is not None and rating["games"] == 1
    assert not on_pg.preferences.of(cat.id).auto_cut  # cat's /tavern me choice came along
    # A new game takes a new id: the sequence was set past the copied ones.
    await challenge(fake, alice, bob)
    newest: Table | None = await on_pg.tables.table_for_channel(fake.channel.id)
    assert newest is not None and newest.id == game_id + 1

    # Once there is anything in it, the target is refused, and left as it is.
    now = await pg_counts(pg_url)
    again = await bot_command(tmp_path, "migrate-to", pg_url, **{"TAVERN_DB_PATH": str(settings.db_path)})
    assert again.returncode == 1 and "is not empty (3 games; " in again.stderr, again.stderr
    assert "Nothing was moved" in again.stderr and password not in again.stderr + again.stdout
    assert await pg_counts(pg_url) == now


async def small_tavern(path: Path) -> None:
    """Two games through the store: one finished (results, ratings), one under way."""
    store = await SQLiteStore.open(path)
    try:
        for n in (1, 2):
            game = await store.create_game(
                NewGame("bhargage", 7, 100 + n, n, [(10 + n, f"a{n}"), (20 + n, f"b{n}")], {}, time.time())
            )
            for seq in range(1, 4):
                await store.append_action(
                    NewAction(game, seq, seq % 2, f"{seq % 2} play castle", time.time())
                )
        await store.finish_game(1, Finish((31, 12), (0,), False, "points", time.time()))
    finally:
        await store.close()


async def test_a_copy_that_lost_a_row_is_refused_and_leaves_the_target_empty(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "t.sqlite3"
    await small_tavern(source)
    real_copy = asyncpg.Connection.copy_records_to_table

    async def losing_one(self: asyncpg.Connection, table: str, *, records: list[Any], **kw: Any) -> Any:
        return await real_copy(self, table, records=records[:-1] if table == "actions" else records, **kw)

    monkeypatch.setattr(asyncpg.Connection, "copy_records_to_table", losing_one)
    with pytest.raises(transfer.TransferError, match=r"actions differs after the copy \(6 rows in SQLite, 5"):
        await transfer.move(source, pg_url)
    assert not any((await pg_counts(pg_url)).values())  # rolled back: every table empty

    monkeypatch.undo()
    moved = await transfer.move(source, pg_url)  # and the same target is still empty enough to take it
    assert (moved.games, moved.active, moved.count("actions"), moved.count("results")) == (2, 1, 6, 2)
    assert await pg_counts(pg_url) == counts(source)


async def test_what_migrate_to_refuses_before_it_starts(tmp_path: Path, pg_url: str) -> None:
    """No address; an address that is no PostgreSQL one; no database file: each a sentence, nothing
    written."""
    missing = await bot_command(tmp_path, "migrate-to", TAVERN_DB_PATH=str(tmp_path / "t.sqlite3"))
    assert missing.returncode == 2 and "migrate-to needs the PostgreSQL database" in missing.stderr
    wrong = await bot_command(
        tmp_path, "migrate-to", "mysql://x@y/z", TAVERN_DB_PATH=str(tmp_path / "t.sqlite3")
    )
    assert wrong.returncode == 2
    nothing = await bot_command(tmp_path, "migrate-to", pg_url, "--from", str(tmp_path / "none.sqlite3"))
    assert nothing.returncode == 1 and "there is no database at" in nothing.stderr
    assert not (tmp_path / "none.sqlite3").exists()
    assert not await pg_counts(pg_url)  # not even the schema


async def test_a_target_a_newer_bot_migrated_is_refused(tmp_path: Path, pg_url: str) -> None:
    source = tmp_path / "t.sqlite3"
    await small_tavern(source)
    conn = await asyncpg.connect(pg_url)
    try:
        await conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY)")
        await conn.execute("INSERT INTO schema_version VALUES (999)")
    finally:
        await conn.close()
    with pytest.raises(transfer.TransferError, match="at schema version 999, newer than this version"):
        await transfer.move(source, pg_url)
    assert not await pg_counts(pg_url)
