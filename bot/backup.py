"""``python -m bot backup PATH``: a consistent copy of the SQLite database, safe while the bot runs.

Copying the database file (and its ``-wal``) while the bot writes can catch a page mid-write or a log out of
step with the file: a copy that does not open, or that lost moves. SQLite's online backup API reads the
database as one snapshot, the bot's writes carrying on meanwhile (WAL mode lets a reader and a writer work at
once). The copy is written beside ``PATH`` under a temporary name, checked (``PRAGMA integrity_check``) and
only then renamed to ``PATH``, so a backup that stopped halfway never has its name; it is one file (its
journal mode DELETE), and restoring it is copying it back while the bot is stopped. A PostgreSQL database is
not copied here: ``pg_dump`` does that, and the command says how.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path

from bot.store.copies import fsync, snapshot

PG_DUMP_HELP = (
    "TAVERN_DATABASE_URL is set: the games are in PostgreSQL, which this command does not copy. Back it up "
    'with pg_dump, e.g.: pg_dump --format=custom --file=tavern.dump "$TAVERN_DATABASE_URL" (where the '
    'password is in the file TAVERN_DATABASE_PASSWORD_FILE names, with PGPASSWORD="$(cat that-file)" before '
    "it). With Docker Compose, docker-compose.scale.yml's backup profile dumps it every day, or once: "
    "docker compose exec -T db pg_dump -U tavern --format=custom tavern > tavern.dump. "
    'The README\'s "Backing up" says how to restore it.'
)


class BackupError(Exception):
    """The backup was not made; ``str(err)`` says why in a sentence, and nothing was left at the path."""


def backup_sqlite(source: Path, target: Path) -> str:
    """Copy the SQLite database ``source`` to ``target`` (a new file, or a folder to put a dated one in);
    one line saying what was written."""
    if not source.is_file():
        raise BackupError(f"there is no database at {source} (TAVERN_DB_PATH): nothing to back up.")
    if target.is_dir():
        target = target / f"{source.stem}-{time.strftime('%Y%m%d-%H%M%S')}{source.suffix or '.sqlite3'}"
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
    except sqlite3.Error as err:
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
