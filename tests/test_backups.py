"""The bot's own backups (``TAVERN_BACKUP_DIR``): a fortnight of them on the injectable clock with the
retention pruning after each, a failure retried, a restart that follows the folder, files 0600 and foreign
files untouched, the metrics, the bot taking its first one at start; the settings; and the restore drill
(``python -m bot restore-drill``) passing on a sound backup and naming what fails on a broken one."""

from __future__ import annotations

import dataclasses
import math
import re
import sqlite3
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.bench_migrate import build
from bot.base import metrics
from bot.base.clock import Clock
from bot.games import GAMES
from bot.services import backups, snapshots
from bot.services.backups import BackupSchedule
from bot.settings import Settings, SettingsError, settings_from_env
from tests.conftest import ErrorLogGuard, StartBot
from tests.fakediscord import FAKE_TOKEN, FakeDiscord
from tests.test_deploy import bot_command
from tests.test_metrics import scrape, value

HOUR = 3600.0
MONDAY = datetime(2026, 11, 2, tzinfo=UTC).timestamp()  # 00:00 UTC, the first day of ISO week 45


def fake_clock(at: float) -> Clock:
    return Clock(lambda: at)


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
async def tavern(tmp_path: Path) -> Path:
    """A SQLite tavern with finished and live games of every kind (snapshots signed with the fake's token)."""
    path = tmp_path / "data" / "tavern.sqlite3"
    path.parent.mkdir()
    await build(path, finished=6, active=6, seed=3)
    return path


async def test_a_fortnight_of_backups_every_six_hours_keeps_three_dailies_and_two_weeklies(
    tavern: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "backups"
    (folder).mkdir()
    (folder / "notes.txt").write_text("the operator's own file")
    (folder / "tavern-by-hand.sqlite3").write_text("not one of the schedule's")
    clock = fake_clock(MONDAY)
    schedule = BackupSchedule(tavern, folder, every=6 * HOUR, keep=(("d", 3), ("w", 2)), clock=clock)
    assert math.isnan(schedule.age())
    taken = 0
    while clock() < MONDAY + 14 * 24 * HOUR:
        wait = await schedule.step()
        taken += 1
        ours = backups.listed(folder, tavern)
        assert ours[0].at == clock() and schedule.last_success == clock()  # the newest is the one just taken
        assert value(await _samples(), "tavern_backup_last_success_timestamp_seconds") == clock()
        assert len(ours) <= 1 + 3 + 2  # pruned after every backup
        assert wait == 6 * HOUR
        clock.advance(wait)
    assert taken == 56
    # Sunday 15 November 18:00 is the newest; the dailies are the newest of the 15th, 14th and 13th; the
    # weeklies the newest of ISO week 46 (the 15th) and of week 45 (Sunday the 8th).
    assert names(folder) == [
        "notes.txt",
        "tavern-20261108-180000.sqlite3",
        "tavern-20261113-180000.sqlite3",
        "tavern-20261114-180000.sqlite3",
        "tavern-20261115-180000.sqlite3",
        "tavern-by-hand.sqlite3",
    ]
    for found in backups.listed(folder, tavern):
        assert stat.S_IMODE(found.path.stat().st_mode) == 0o600
        with sqlite3.connect(found.path) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (12,)
    assert not [p for p in folder.iterdir() if p.name.endswith(".partial")]

    # A restart follows the folder: the next backup is due six hours after the newest, not at once.
    clock.advance(-5 * HOUR)
    again = BackupSchedule(tavern, folder, every=6 * HOUR, keep=(("d", 3), ("w", 2)), clock=clock)
    assert again.age() == HOUR
    assert await again.step() == 5 * HOUR
    assert len(backups.listed(folder, tavern)) == 4


async def _samples() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The registry's samples, as the metrics endpoint serves them."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in metrics.REGISTRY.collect()
        for s in family.samples
    }


async def test_a_failed_backup_is_counted_logged_and_retried_within_ten_minutes(
    tmp_path: Path, error_logs: ErrorLogGuard
) -> None:
    clock = fake_clock(MONDAY)
    gone = tmp_path / "gone.sqlite3"
    schedule = BackupSchedule(gone, tmp_path / "b", every=24 * HOUR, keep=(("d", 7),), clock=clock)
    before = metrics.BACKUPS_FAILED._value.get()
    assert await schedule.step() == 600
    assert metrics.BACKUPS_FAILED._value.get() == before + 1
    assert error_logs.take("The scheduled backup failed: there is no database at")
    assert schedule.last_success is None and not list((tmp_path / "b").iterdir())


def test_the_backup_settings() -> None:
    base = {"DISCORD_TOKEN": FAKE_TOKEN, "TAVERN_DB_PATH": "/tmp/tavern-settings-test/t.sqlite3"}
    plain = settings_from_env(base)
    assert plain.backup_dir is None and plain.backup_every == 24 * HOUR
    assert plain.backup_keep == (("d", 7), ("w", 4))
    chosen = settings_from_env(
        base
        | {"TAVERN_BACKUP_DIR": "/tmp/b", "TAVERN_BACKUP_EVERY": "6h", "TAVERN_BACKUP_KEEP": "24h, 7d,4w,12m"}
    )
    assert (chosen.backup_dir, chosen.backup_every) == (Path("/tmp/b"), 6 * HOUR)
    assert chosen.backup_keep == (("h", 24), ("d", 7), ("w", 4), ("m", 12))
    for name, raw, said in [
        ("TAVERN_BACKUP_EVERY", "5m", "from 15m to 7d"),
        ("TAVERN_BACKUP_EVERY", "6", "minutes, hours or days"),
        ("TAVERN_BACKUP_KEEP", "7x", "hourly (h), daily (d)"),
        ("TAVERN_BACKUP_KEEP", "7d,2d", "at most once"),
        ("TAVERN_BACKUP_KEEP", "0d", "1 to 1000"),
    ]:
        with pytest.raises(SettingsError, match=f"{name} .*{re.escape(said)}"):
            settings_from_env(base | {"TAVERN_BACKUP_DIR": "/tmp/b", name: raw})
    with pytest.raises(SettingsError, match="TAVERN_BACKUP_DIR backs up the SQLite file"):
        settings_from_env(base | {"TAVERN_BACKUP_DIR": "/tmp/b", "TAVERN_DATABASE_URL": "postgresql://u@h/d"})


async def test_the_bot_takes_its_first_backup_at_start_off_the_loop(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, tmp_path: Path
) -> None:
    folder = tmp_path / "backups"
    bot = await start_bot(dataclasses.replace(settings, backup_dir=folder, metrics_port=0))
    schedule = bot.backups
    assert schedule is not None

    def taken() -> list[backups.Found]:
        # the file is on disk before its pruning ends; the schedule counts it a success after both
        return backups.listed(folder, settings.db_path) if schedule.last_success is not None else []

    found = await fake_discord.wait_for(taken)
    assert len(found) == 1
    samples = await scrape(bot)
    assert 0 <= value(samples, "tavern_backup_age_seconds") < 60
    assert value(samples, "tavern_backup_last_success_timestamp_seconds") == found[0].at


async def test_the_restore_drill_passes_a_sound_backup_and_names_a_game_that_does_not_rebuild(
    tavern: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "backup.sqlite3"
    done = await bot_command(tmp_path, "backup", str(copy), TAVERN_DB_PATH=str(tavern))
    assert done.returncode == 0, done.stderr
    drilled = await backups.drill(copy, GAMES, key=snapshots.key_from(FAKE_TOKEN))
    assert drilled.passed and (drilled.games, drilled.active, drilled.rebuilt) == (12, 6, 6)
    assert drilled.from_snapshots == 6
    passed = await bot_command(tmp_path, "restore-drill", str(copy), DISCORD_TOKEN=FAKE_TOKEN)
    assert passed.returncode == 0, passed.stderr
    assert passed.stdout.startswith(f"Restore drill passed: {copy}: opens, integrity checked, 12 games, ")
    assert "6 active; 6 rebuilt to a live table (6 from their snapshot)" in passed.stdout
    untokened = await bot_command(tmp_path, "restore-drill", str(copy))
    assert "6 rebuilt to a live table (each from its whole log" in untokened.stdout, untokened.stderr

    # A live game whose log goes wrong (its last move is none the engine allows) and has no snapshot to
    # start from: named, and the drill fails. The backup itself is never changed by a drill.
    with sqlite3.connect(copy) as db:
        game = db.execute("SELECT id FROM games WHERE status = 'active' ORDER BY id LIMIT 1").fetchone()[0]
        db.execute("DELETE FROM snapshots WHERE game_id = ?", (game,))
        db.execute(
            "UPDATE actions SET text = '0 play no-such-card' WHERE game_id = ? AND seq = "
            "(SELECT MAX(seq) FROM actions WHERE game_id = ?)",
            (game, game),
        )
    before = copy.read_bytes()
    failed = await bot_command(tmp_path, "restore-drill", str(copy), DISCORD_TOKEN=FAKE_TOKEN)
    assert failed.returncode == 1
    assert "Restore drill failed: " in failed.stderr and f"could not be rebuilt: {game}." in failed.stderr
    assert copy.read_bytes() == before

    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"not a database" * 100)
    refused = await bot_command(tmp_path, "restore-drill", str(garbage))
    assert refused.returncode == 1 and "does not open as a sound SQLite database" in refused.stderr
