"""The kill test's core on a tiny load, so ``bench/kill_test.py`` can't rot — and proof that its check
catches a database that lost an answered move."""

from __future__ import annotations

from pathlib import Path

from bench.kill_test import KillConfig, drop_last_action, run_kill_test


async def test_killed_bot_keeps_every_answered_move(tmp_path: Path) -> None:
    config = KillConfig(
        kills=3, tables=2, deluxe_tables=0, think=0.05, min_gap=1.5, max_gap=3.0, db_dir=tmp_path
    )
    report = await run_kill_test(config)
    assert report.kills == 3
    assert report.moves_answered > 0 and report.checks > 3, report.summary()
    assert report.violations == [], report.summary()
    assert report.errors == [], report.summary()


async def test_a_lost_action_is_a_violation(tmp_path: Path) -> None:
    config = KillConfig(
        kills=1, tables=2, deluxe_tables=0, think=0.05, min_gap=3.0, max_gap=3.0, db_dir=tmp_path
    )
    report = await run_kill_test(config, tamper=drop_last_action)
    assert any("the database keeps" in v for v in report.violations), report.summary()
