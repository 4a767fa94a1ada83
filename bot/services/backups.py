"""Backups the bot takes itself, on a schedule, with a retention an operator can reason about at 3 a.m.; and
the restore drill that proves a backup would bring the tavern back.

``TAVERN_BACKUP_DIR`` turns them on for the SQLite database: every ``TAVERN_BACKUP_EVERY`` the online copy of
``bot.store.copies`` (checked, 0600, written under a temporary name and renamed) is made in a worker thread,
so the event loop never waits on it, and named by its UTC time. After each backup the folder is pruned by
``TAVERN_BACKUP_KEEP``, read as restic's ``--keep-*`` are: "7d,4w" keeps the newest backup of each of the 7
newest days that have one, and of each of the 4 newest ISO weeks; the newest backup is always kept, and a
file whose name is not a backup's is never touched. The schedule follows the backups on disk: after a
restart the next one is due ``every`` after the newest, not at once.

The drill (``python -m bot restore-drill``) opens a backup the way a restore would use it, on a copy, never
the file itself: integrity checked, migrated to this code's schema, and every active game rebuilt by the
same restore a starting bot runs.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.base import metrics
from bot.games import GameAdapter
from bot.services.snapshots import PROCESS_KEY
from bot.services.tables import TableService
from bot.store import SQLiteStore, Store, StoreOpenError, open_store
from bot.store.copies import BackupError, Copied, backup, dated_at, dated_name, scratch, snapshot

log = logging.getLogger(__name__)

RETRY_SECONDS = 600.0  # after a failed backup, the next try (or sooner, when ``every`` is shorter)


@dataclass(frozen=True)
class Found:
    """A backup in the folder, and when it was taken (from its name)."""

    path: Path
    at: float


def listed(folder: Path, source: Path) -> list[Found]:
    """The folder's backups of ``source``, newest first: files named as :func:`dated_name` names them."""
    found = [
        Found(path, at)
        for path in folder.iterdir()
        if path.is_file() and (at := dated_at(source, path.name)) is not None
    ]
    return sorted(found, key=lambda f: (f.at, f.path.name), reverse=True)


def bucket(at: float, unit: str) -> tuple[int, ...]:
    """The hour, day, ISO week or month (UTC) a backup falls in."""
    day = datetime.fromtimestamp(at, UTC)
    if unit == "h":
        return (day.year, day.month, day.day, day.hour)
    if unit == "d":
        return (day.year, day.month, day.day)
    if unit == "w":
        year, week, _ = day.isocalendar()
        return (year, week)
    return (day.year, day.month)


def kept(backups: Sequence[Found], keep: Sequence[tuple[str, int]]) -> set[Path]:
    """Which of ``backups`` (newest first) the rules keep: for each (unit, n), the newest backup of each of
    the n newest units that have one; and the newest backup, whatever the rules."""
    keeping = {backups[0].path} if backups else set()
    for unit, count in keep:
        last: tuple[int, ...] | None = None
        taken = 0
        for found in backups:
            if taken >= count:
                break
            key = bucket(found.at, unit)
            if key != last:
                keeping.add(found.path)
                last = key
                taken += 1
    return keeping


class BackupSchedule:
    """The bot's own backups of its SQLite file (see the module's docstring). ``clock`` is the bot's, which
    tests move: :meth:`step` takes what is due at its time and says how long until the next."""

    def __init__(
        self,
        source: Path,
        folder: Path,
        *,
        every: float,
        keep: Sequence[tuple[str, int]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.source = source
        self.folder = folder
        self.every = every
        self.keep = tuple(keep)
        self.clock = clock
        self.last_success: float | None = None  # by the clock
        self.failed_at: float | None = None
        newest = listed(folder, source) if folder.is_dir() else []
        if newest:
            self.last_success = newest[0].at
            metrics.BACKUP_LAST_SUCCESS.set(newest[0].at)
        metrics.BACKUP_AGE.set_function(self.age)

    def age(self) -> float:
        """Seconds since the last backup that succeeded (or is on disk); NaN when there is none."""
        return float("nan") if self.last_success is None else max(0.0, self.clock() - self.last_success)

    def due(self) -> float:
        """When the next backup is due, by the clock."""
        if self.failed_at is not None:
            return self.failed_at + min(self.every, RETRY_SECONDS)
        return self.clock() if self.last_success is None else self.last_success + self.every

    async def step(self) -> float:
        """Take the backup if it is due (in a worker thread), prune the folder; seconds until the next."""
        now = self.clock()
        if now >= self.due():
            await self.take(now)
        return max(0.0, self.due() - self.clock())

    async def take(self, now: float) -> None:
        """One backup at ``now`` (to the second, as its name says it) and the pruning after it; a failure is
        logged and counted, never raised."""
        now = float(int(now))
        started = time.perf_counter()
        try:
            said = await asyncio.to_thread(self._backup_and_prune, now)
        except (BackupError, OSError) as err:
            self.failed_at = now
            metrics.BACKUPS_FAILED.inc()
            log.error(
                "The scheduled backup failed: %s (next try in %.0f s)", err, min(self.every, RETRY_SECONDS)
            )
            return
        self.failed_at = None
        self.last_success = now
        metrics.BACKUP_LAST_SUCCESS.set(now)
        log.info("%s (%.1f s)", said, time.perf_counter() - started)

    def _backup_and_prune(self, now: float) -> str:
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.folder / dated_name(self.source, now)
        said = backup(self.source, target)
        found = listed(self.folder, self.source)
        keeping = kept(found, self.keep)
        pruned = [f.path for f in found if f.path not in keeping]
        for path in pruned:
            path.unlink(missing_ok=True)
        return f"{said} Kept {len(keeping)} backup(s), removed {len(pruned)}."

    async def run(self) -> None:
        """Back up on schedule until cancelled (the bot's close)."""
        while True:
            await asyncio.sleep(await self.step())


# ------------------------------------------------------------------------------------------- the drill


@dataclass(frozen=True)
class Drilled:
    """What a restore drill found: the backup's schema, its games, and the active ones rebuilt."""

    version: int
    games: int | None  # all of them, where the backup is a SQLite file
    active: int
    rebuilt: int
    from_snapshots: int
    failed: tuple[int, ...]
    seconds: float

    @property
    def passed(self) -> bool:
        return not self.failed and self.rebuilt == self.active


async def drill(
    location: Path | str, games: Mapping[str, GameAdapter], *, key: bytes = PROCESS_KEY
) -> Drilled:
    """Open the backup at ``location`` (a SQLite file, read through a checked copy; or a PostgreSQL
    database a dump was restored into) and rebuild every active game; ``BackupError`` when it does not
    open or fails its integrity check. ``key`` is the bot's snapshot key: with another one, snapshots are
    refused and every game replays its whole log."""
    started = time.perf_counter()
    if isinstance(location, str):
        return await _drill(await open_store(location), None, games, key, started)
    if not location.is_file():
        raise BackupError(f"there is no file at {location}.")
    with scratch(location.parent) as folder:
        copy = Path(folder) / location.name
        try:
            copied = await asyncio.to_thread(snapshot, location, copy)
            store = await SQLiteStore.open(copy)
        except (sqlite3.Error, OSError, StoreOpenError) as err:
            raise BackupError(f"{location} does not open as a sound SQLite database ({err}).") from None
        return await _drill(store, copied, games, key, started)


async def _drill(
    store: Store, copied: Copied | None, games: Mapping[str, GameAdapter], key: bytes, started: float
) -> Drilled:
    """The drill on the opened store; ``copied`` says what the SQLite backup held before it was migrated."""
    try:
        version = copied.version if copied is not None else await store.schema_version()
        active = [game.id for game in await store.active_index()]
        tables = TableService(store, clock=time.time, games=games, key=key)
        await tables.restore()
        live = {t.id: t for t in tables.active_tables()}
        failed = tuple([g for g in active if g not in live and await _still_active(store, g)])
        return Drilled(
            version=version,
            games=None if copied is None else copied.games,
            active=len(active),
            rebuilt=len(live),
            from_snapshots=sum(t.snapshot_seq > 0 for t in live.values()),
            failed=failed,
            seconds=time.perf_counter() - started,
        )
    finally:
        await store.close()


async def _still_active(store: Store, game_id: int) -> bool:
    """A game the restore did not make live that it did not close either (a log that ended in a finished
    state is closed by the restore: that is no failure)."""
    record = await store.load_game(game_id)
    return record is not None and record.status == "active"
