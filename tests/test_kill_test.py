"""The kill test's core on a tiny load, so ``bench/kill_test.py`` can't rot — and proof that its checks
catch what they are there for: a database that lost an answered move, and a table no seat can move on; while
a table that only waits for the bot's budget is not called stuck."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bench_load import TableDriver
from bench.bot_process import BUDGET_ENV
from bench.kill_test import KillConfig, drop_last_action, run_kill_test, run_recovery
from tests.fakediscord import FakeDiscord


async def test_killed_bot_keeps_every_answered_move(tmp_path: Path) -> None:
    config = KillConfig(
        kills=3, tables=2, deluxe_tables=0, think=0.05, min_gap=1.5, max_gap=3.0, db_dir=tmp_path
    )
    report = await run_kill_test(config)
    assert report.kills == 3
    assert report.moves_answered > 0 and report.checks > 3, report.summary()
    assert report.violations == [], report.summary()
    assert report.errors == [], report.summary()
    assert report.drain_seconds is not None and report.stuck == {}, report.summary()


async def test_a_lost_action_is_a_violation(tmp_path: Path) -> None:
    config = KillConfig(
        kills=1, tables=2, deluxe_tables=0, think=0.05, min_gap=3.0, max_gap=3.0, db_dir=tmp_path
    )
    report = await run_kill_test(config, tamper=drop_last_action)
    assert any("the database keeps" in v for v in report.violations), report.summary()


async def test_tables_waiting_for_the_budget_are_not_stuck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot allowed 2 global requests a second under 4 busy tables: their panels queue, so when the players
    stop most tables have had nothing to press for seconds (what the kill test used to call stuck). Once
    the bot has told what it owes, every table can be moved on: none is stuck."""
    monkeypatch.setenv(BUDGET_ENV, "2")
    config = KillConfig(
        kills=1, tables=3, deluxe_tables=1, think=0.05, min_gap=4.0, max_gap=4.0, db_dir=tmp_path
    )
    report = await run_kill_test(config)
    assert report.waiting_at_stop > 0, report.summary()
    assert report.drain_seconds is not None, report.summary()
    assert report.stuck == {} and not report.failed, report.summary()
    assert report.violations == [] and report.errors == [], report.summary()


def hide_the_first_table(fake: FakeDiscord, drivers: list[TableDriver]) -> None:
    """Everything the first table's players could press goes: its messages, its thread's, their DMs'."""
    first = drivers[0]
    places = [first.channel, *fake.threads(first.channel), *first.dm_channels]
    for place in places:
        for message in fake.channel_messages(place):
            message.deleted = True


async def test_a_table_no_seat_can_move_on_is_stuck(tmp_path: Path) -> None:
    config = KillConfig(
        kills=1, tables=2, deluxe_tables=0, think=0.05, min_gap=2.0, max_gap=2.0, db_dir=tmp_path
    )
    report = await run_kill_test(config, before_judging=hide_the_first_table)
    assert report.stuck_tables == 1 and report.failed, report.summary()
    assert "nothing to press" in next(iter(report.stuck.values())), report.summary()


async def test_the_recovery_is_timed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One kill under load (a budget of 3 a second keeps tables owing): the restarted bot tells every owed
    game, and a player pressing at READY is answered."""
    monkeypatch.setenv(BUDGET_ENV, "3")
    config = KillConfig(tables=3, deluxe_tables=1, think=0.05, db_dir=tmp_path, warmup=3.0, probes=1)
    report = await run_recovery(config, limit=120.0)
    assert report.owed > 0 and report.still_owed == 0 and report.quiet is not None, report.summary()
    assert len(report.told) + len(report.probes) >= 1, report.summary()
    assert [p for p in report.probes if p[1] is not None], report.summary()
    assert "every owed game told after" in report.summary()
