"""The operator's commands on the database, each one line out and an exit code: ``python -m bot backup PATH``
(a consistent copy while the bot runs, :mod:`bot.store.copies`), ``python -m bot migrate-to [URL]`` (the
SQLite tavern moved into an empty PostgreSQL database, :mod:`bot.store.transfer`) and ``python -m bot
restore-drill BACKUP`` (proof that a backup brings every game back, :mod:`bot.services.backups`). None needs
the token or Discord."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

from bot.games import GAMES
from bot.services import backups, health, snapshots
from bot.settings import (
    SettingsError,
    health_path_from_env,
    is_postgres_url,
    load_database,
    load_token,
)
from bot.store import StoreOpenError, redacted, transfer
from bot.store.copies import BackupError
from bot.store.copies import backup as backup_sqlite

PG_DUMP_HELP = (
    "TAVERN_DATABASE_URL is set: the games are in PostgreSQL, which this command does not copy. Back it up "
    'with pg_dump, e.g.: pg_dump --format=custom --file=tavern.dump "$TAVERN_DATABASE_URL" (where the '
    'password is in the file TAVERN_DATABASE_PASSWORD_FILE names, with PGPASSWORD="$(cat that-file)" before '
    "it). With Docker Compose, docker-compose.scale.yml's backup profile dumps it every day, or once: "
    "docker compose exec -T db pg_dump -U tavern --format=custom tavern > tavern.dump. "
    'The README\'s "Backing up" says how to restore it.'
)
MIGRATE_USAGE = (
    "migrate-to needs the PostgreSQL database to move into: python -m bot migrate-to "
    "postgresql://USER:PASSWORD@HOST:5432/DATABASE, or TAVERN_DATABASE_URL set to it "
    "(README, Running at scale)"
)
STILL_RUNNING = (
    "Note: the bot looks alive on {path} (a fresh heartbeat). The copy is taken as one snapshot now; "
    "moves made after it stay behind. Stop the bot first to move everything, and start the PostgreSQL "
    "bots after."
)


def backup(path: str) -> int:
    """``python -m bot backup PATH``: one line on stdout saying what was written (0), or on stderr why not
    (1; 2 for a configuration that has no SQLite file to copy). Needs no token."""
    try:
        db_path, database_url = load_database()
    except SettingsError as err:
        print(f"Configuration error: {err}", file=sys.stderr)
        return 2
    if database_url:
        print(PG_DUMP_HELP, file=sys.stderr)
        return 2
    try:
        print(backup_sqlite(db_path, Path(path).expanduser()))
    except (BackupError, OSError) as err:
        print(f"No backup was made: {err}", file=sys.stderr)
        return 1
    return 0


def migrate_to(url: str | None, source: str | None) -> int:
    """``python -m bot migrate-to [URL] [--from FILE]``: the SQLite database (TAVERN_DB_PATH, or FILE) moved
    into the empty PostgreSQL database at URL (TAVERN_DATABASE_URL when not given: a password on the command
    line shows in the process list) and verified; one line on stdout (0), or on stderr why not (1; 2 for a
    usage or configuration error). Needs no token."""
    try:
        db_path, database_url = load_database()
    except SettingsError as err:
        print(f"Configuration error: {err}", file=sys.stderr)
        return 2
    url = url or database_url
    if not is_postgres_url(url) or url is None:
        print(MIGRATE_USAGE, file=sys.stderr)
        return 2
    path = Path(source).expanduser() if source else db_path
    running, _ = health.check(health_path_from_env(os.environ))
    if running:
        print(STILL_RUNNING.format(path=path), file=sys.stderr)
    try:
        moved = asyncio.run(transfer.move(path, url))
    except transfer.TransferError as err:
        print(f"Nothing was moved: {err}", file=sys.stderr)
        return 1
    print(transfer.summary(path, url, moved))
    return 0


def restore_drill(location: str) -> int:
    """``python -m bot restore-drill BACKUP``: the backup (a SQLite file, or a PostgreSQL database a dump was
    restored into) opened on a copy, checked, and every active game rebuilt as a starting bot would; one line
    on stdout (0), or on stderr what failed (1; 2 for a usage or configuration error). Uses the bot's token,
    where set, to check the snapshots as the bot does; else every game replays its whole log."""
    try:
        token = load_token()
    except SettingsError as err:
        print(f"Configuration error: {err}", file=sys.stderr)
        return 2
    where: Path | str = location if is_postgres_url(location) else Path(location).expanduser()
    shown = redacted(location) if isinstance(where, str) else location
    key = snapshots.key_from(token) if token else snapshots.PROCESS_KEY
    logging.getLogger("bot").setLevel(logging.ERROR)  # one line, not a warning a refused snapshot
    try:
        drilled = asyncio.run(backups.drill(where, GAMES, key=key))
    except (BackupError, StoreOpenError) as err:
        print(f"Restore drill failed: {err}", file=sys.stderr)
        return 1
    games = "opens" if drilled.games is None else f"opens, integrity checked, {drilled.games:,} games"
    how = (
        f"{drilled.from_snapshots:,} from their snapshot"
        if token
        else "each from its whole log (no DISCORD_TOKEN to check snapshots with)"
    )
    told = (
        f"{shown}: {games}, schema version {drilled.version}, {drilled.active:,} active; {drilled.rebuilt:,} "
        f"rebuilt to a live table ({how}) in {drilled.seconds:.1f} s"
    )
    if not drilled.passed:
        failed = ", ".join(str(g) for g in drilled.failed[:20])
        print(f"Restore drill failed: {told}; these games could not be rebuilt: {failed}.", file=sys.stderr)
        return 1
    print(f"Restore drill passed: {told}.")
    return 0
