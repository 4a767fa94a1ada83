"""A consistent copy of a SQLite database while the bot writes to it: what ``python -m bot backup``, the
scheduled backups (``bot.services.backups``) and a migration to PostgreSQL all start from.

Copying the database file (and its ``-wal``) while the bot writes can catch a page mid-write or a log out of
step with the file: a copy that does not open, or that lost moves. SQLite's online backup API reads the
database as one snapshot, the bot's writes carrying on meanwhile (WAL mode lets a reader and a writer work at
once). The copy is one self-contained file (journal mode DELETE), checked with ``PRAGMA integrity_check``.
A backup is written beside its final path under a temporary name, checked, and only then renamed, so a
backup that stopped halfway never has its name; restoring it is copying it back while the bot is stopped.
Blocking (``sqlite3``): callers run it in a thread when an event loop is theirs.
"""

from __future__ import annotations

import calendar
import contextlib
import os
import re
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BUSY_SECONDS = 30.0  # how long to wait for the database when the bot holds it (a checkpoint)
PRIVATE = 0o600  # a copy's mode: its owner's alone
STAMP = "%Y%m%d-%H%M%S"  # a dated backup's time (UTC) in its name
_STAMPED = re.compile(r"\d{8}-\d{6}", re.ASCII)


@dataclass(frozen=True)
class Copied:
    """What a checked copy holds."""

    games: int
    active: int
    version: int  # the schema version


def snapshot(source: Path, target: Path) -> Copied:
    """The online backup of ``source`` into the new file ``target``, made one self-contained file, checked,
    and its counts read; ``sqlite3.Error`` when it cannot be made or fails its check. The copy is made
    readable by its owner alone (0600), from its first byte: it holds members' ids and names."""
    fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE)
    try:
        os.fchmod(fd, PRIVATE)  # whatever the umask
    finally:
        os.close(fd)
    src = sqlite3.connect(source, timeout=BUSY_SECONDS)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)  # every page in one step: one snapshot of the database, whatever the bot writes
            dst.execute("PRAGMA journal_mode=DELETE")  # no -wal beside the copy
            return check(dst)
        finally:
            dst.close()
    finally:
        src.close()


class BackupError(Exception):
    """The backup was not made; ``str(err)`` says why in a sentence, and nothing was left at the path."""


def dated_name(source: Path, at: float) -> str:
    """A backup's file name in a folder: the database's name and the UTC time it was taken, which is what
    the scheduled backups' retention reads (``tavern-20261129-030000.sqlite3``; :func:`dated_at`)."""
    return f"{source.stem}-{time.strftime(STAMP, time.gmtime(at))}{source.suffix or '.sqlite3'}"


def dated_at(source: Path, name: str) -> float | None:
    """When the backup of ``source`` named ``name`` was taken, as :func:`dated_name` wrote it; None for any
    other name."""
    head, tail = f"{source.stem}-", source.suffix or ".sqlite3"
    stamp = name[len(head) : -len(tail)] if name.startswith(head) and name.endswith(tail) else ""
    if _STAMPED.fullmatch(stamp) is None:
        return None
    try:
        return float(calendar.timegm(time.strptime(stamp, STAMP)))
    except ValueError:  # digits that are no date (a 13th month)
        return None


def backup(source: Path, target: Path, *, at: float | None = None) -> str:
    """Copy the SQLite database ``source`` to ``target`` (a new file, or a folder to put one named by
    :func:`dated_name` in, at ``at`` or now); one line saying what was written."""
    if not source.is_file():
        raise BackupError(f"there is no database at {source} (TAVERN_DB_PATH): nothing to back up.")
    if target.is_dir():
        target = target / dated_name(source, time.time() if at is None else at)
    if target.exists() or target.is_symlink():
        raise BackupError(f"{target} already exists: a backup never replaces a file; name a new one.")
    if not target.parent.is_dir():
        raise BackupError(f"the folder {target.parent} does not exist: create it, or name another one.")
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        copied = snapshot(source, partial)
        fsync(partial)
        os.replace(partial, target)
        fsync(target.parent)
    except (sqlite3.Error, OSError) as err:
        raise BackupError(f"could not copy {source}: {err}.") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    size = target.stat().st_size / 1_000_000
    counted = "1 game" if copied.games == 1 else f"{copied.games} games"
    return (
        f"Backed up {source} to {target}: {size:.1f} MB, schema version {copied.version}, {counted} "
        f"({copied.active} active), integrity checked."
    )


def scratch(near: Path) -> tempfile.TemporaryDirectory[str]:
    """A folder for a working copy of a database: beside ``near`` where it may be written (a container's
    /tmp is a small tmpfs; the database's own volume has room for it), else the system's temporary folder.
    Its name starts with a dot, so no backup listing ever takes it for a backup."""
    where = near if near.is_dir() and os.access(near, os.W_OK) else None
    return tempfile.TemporaryDirectory(prefix=".tavern-work-", dir=where)


def check(db: sqlite3.Connection) -> Copied:
    """``PRAGMA integrity_check`` passed, and the copy's counts; ``sqlite3.DatabaseError`` if it failed."""
    (verdict,) = db.execute("PRAGMA integrity_check").fetchone()
    if verdict != "ok":
        raise sqlite3.DatabaseError(f"the copy failed its integrity check ({verdict})")
    version = db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()[0]
    games, active = db.execute("SELECT COUNT(*), COALESCE(SUM(status = 'active'), 0) FROM games").fetchone()
    return Copied(int(games), int(active), int(version))


def fsync(path: Path) -> None:
    """The file (or folder entry) on the disk, not only in the operating system's cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
