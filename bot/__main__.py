"""``python -m bot``: load settings, run until SIGINT/SIGTERM, exit with a readable message on failure.

``python -m bot sync`` forces a slash-command sync and exits (a normal start syncs only when the commands
changed); ``python -m bot health`` reads the running bot's heartbeat file and exits 0 if it is healthy (the
container's HEALTHCHECK, ``python -m bot.cli.healthcheck``, is the same check without this module's heavy
imports); ``python -m bot backup PATH``, ``migrate-to [URL]`` and ``restore-drill BACKUP`` work on the
database (:mod:`bot.cli.operations`). ``python -m bot check`` checks the set-up before a start,
offline (:mod:`bot.cli.check`). ``python -m bot --version`` names the build.
``python -m bot play bhargage`` (or ``play deluxe``, ``play cribbage``: every game of
``bot.games.ADAPTER_PATHS``) plays a game in the terminal
against the computer, with no token and no Discord (:mod:`bot.cli.play`). ``python -m bot export GAME_ID
[--out FILE]`` writes a game's record from the database and ``python -m bot replay FILE`` replays one in the
terminal (:mod:`bot.cli.record_cli`, ``docs/RECORD.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import signal
import sys
from collections.abc import Iterator

import aiohttp
import discord

from bot.base.version import describe
from bot.cli import healthcheck, operations
from bot.edge.app import TavernBot, create_bot
from bot.edge.metrics_server import MetricsServerError
from bot.edge.web import WebServerError
from bot.games import ADAPTER_PATHS
from bot.logging_setup import setup_logging
from bot.settings import (
    MissingTokenError,
    Settings,
    SettingsError,
    load_settings,
)
from bot.store import StoreOpenError

log = logging.getLogger("tavern.main")

BAD_TOKEN = (
    "Discord rejected the bot token (login failed).\n"
    "Reset it in the Discord Developer Portal (Applications -> your application -> Bot -> Reset Token)\n"
    "and put the new one in .env as DISCORD_TOKEN=..., or in the file DISCORD_TOKEN_FILE names\n"
    "(with Docker Compose: secrets/discord_token)."
)
NO_NETWORK = "Could not reach Discord: check this machine's internet connection and try again"
INTENTS_HELP = (
    "Discord refused a privileged intent. This bot needs none; if you changed the intents, undo that or "
    "enable them in the Developer Portal (Applications -> Bot -> Privileged Gateway Intents)."
)


YOUNG_COLLECTIONS = 10_000  # net allocations between two collections of the youngest generation (Python: 700)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """The cyclic garbage collector's youngest generation collected every ``YOUNG_COLLECTIONS`` net
    allocations, not every 700, while the bot runs (the thresholds as they were afterwards). Every pass
    stops the event loop, and the objects a busy bot keeps alive (its tables, pending tasks, panels) made
    the passes frequent: at 500 busy tables the collector took 28% of the loop's CPU, with a full pass
    (0.3-0.45 s) every 3 s; with this, 11%, a full pass every few minutes (0.7 s: it finds more to free),
    and a quarter more presses served (``bench.bench_load``'s garbage collection figures). Since handled
    interactions are freed without the collector (``bot.edge.cycles``), that pass takes 0.15-0.35 s."""
    before = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTIONS, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


async def run(settings: Settings, *, bot: TavernBot | None = None, stop: asyncio.Event | None = None) -> int:
    """Run the bot until it stops or ``stop`` is set (SIGINT/SIGTERM set it); returns the exit code."""
    with fewer_collections():
        return await _run(settings, bot, stop)


async def _run(settings: Settings, bot: TavernBot | None, stop: asyncio.Event | None) -> int:
    log.info("%s starting", describe())
    bot = bot or create_bot(settings)
    try:
        await bot.open_store()
    except Exception as err:
        return _failed(err)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    runner = asyncio.create_task(bot.start(settings.token), name="tavern-bot")
    stopper = asyncio.create_task(stop.wait(), name="tavern-stop")
    try:
        done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if runner not in done:
            log.info("Shutting down")
            await bot.close()
        try:
            await runner
        except Exception as err:
            return _failed(err)
        return 0
    finally:
        stopper.cancel()
        for sig in installed:
            loop.remove_signal_handler(sig)
        await bot.close()


async def sync(settings: Settings, *, bot: TavernBot | None = None) -> int:
    """Log in, sync the slash commands whatever the stored hash says, and close; returns the exit code."""
    bot = bot or create_bot(settings)
    bot.sync_only = True
    try:
        await bot.login(settings.token)  # runs setup_hook, which syncs
    except Exception as err:
        return _failed(err)
    finally:
        await bot.close()
    return 0


def _failed(err: Exception) -> int:
    """Explain why the bot could not run (a sentence for what the operator can fix); the exit code: 3 when
    the database can't be opened, else 1."""
    if isinstance(err, StoreOpenError):
        print(f"Could not open the database: {err}", file=sys.stderr)
        return 3
    if isinstance(err, MetricsServerError | WebServerError):
        print(err, file=sys.stderr)
    elif isinstance(err, discord.LoginFailure):
        print(BAD_TOKEN, file=sys.stderr)
    elif isinstance(err, discord.PrivilegedIntentsRequired):
        print(INTENTS_HELP, file=sys.stderr)
    elif isinstance(err, aiohttp.ClientConnectionError | OSError):
        print(f"{NO_NETWORK} ({err.__class__.__name__}: {err})", file=sys.stderr)
    else:
        log.error("The bot stopped because of an error", exc_info=err)
    return 1


def check_health() -> int:
    """``python -m bot health``: one line on stdout; 0 if the heartbeat is fresh and says all is well (what
    ``python -m bot.cli.healthcheck``, the image's HEALTHCHECK, answers without this module's imports)."""
    return healthcheck.main([])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="Decktet Tavern, a Discord bot. "
        f"`python -m bot play {'|'.join(ADAPTER_PATHS)} [...]` plays a game in this terminal instead; "
        "`python -m bot export GAME_ID` writes a game's record, `python -m bot replay FILE` replays one.",
    )
    parser.add_argument(
        "command",
        nargs="?",
        default="run",
        choices=("run", "sync", "health", "backup", "check", "migrate-to", "restore-drill"),
        help="run the bot (default); force a slash-command sync and exit; check the running bot's health; "
        "copy the SQLite database to PATH (safe while the bot runs); check the set-up before a start "
        "(offline); move the SQLite database into an empty PostgreSQL one (URL, else TAVERN_DATABASE_URL); "
        "prove a backup (a file, or a PostgreSQL URL) opens and rebuilds every live game",
    )
    parser.add_argument("--version", action="version", version=describe())
    parser.add_argument(
        "path",
        nargs="?",
        help="backup: the new file (or a folder) to write the copy to; migrate-to: the PostgreSQL URL; "
        "restore-drill: the backup",
    )
    parser.add_argument(
        "--from", dest="source", help="migrate-to: the SQLite file to move (default: TAVERN_DB_PATH)"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["play"]:
        from bot.cli import play  # no settings, no token, no Discord

        return play.main(args[1:])
    if args[:1] == ["export"] or args[:1] == ["replay"]:
        from bot.cli import record_cli  # no token, no Discord

        return (record_cli.export_main if args[0] == "export" else record_cli.replay_main)(args[1:])
    parser = _parser()
    parsed = parser.parse_args(args)
    command = parsed.command
    if command == "migrate-to":
        return operations.migrate_to(parsed.path, parsed.source)
    if parsed.source is not None:
        parser.error("only migrate-to takes --from")
    if command in ("backup", "restore-drill"):
        if parsed.path is None:
            parser.error(f"{command} takes one PATH: the backup to write, or to drill")
        return (operations.backup if command == "backup" else operations.restore_drill)(parsed.path)
    if parsed.path is not None:
        parser.error("only backup, migrate-to and restore-drill take a PATH")
    if command == "health":
        return check_health()
    if command == "check":
        from bot.cli import check  # offline: no token is used, no Discord

        return check.main()
    try:
        settings = load_settings()
    except MissingTokenError as err:
        print(err, file=sys.stderr)
        return 2
    except SettingsError as err:
        print(f"Configuration error: {err}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level, secrets=settings.secrets, log_format=settings.log_format)
    try:
        return asyncio.run(sync(settings) if command == "sync" else run(settings))
    except KeyboardInterrupt:  # a second Ctrl-C while closing
        return 130


if __name__ == "__main__":
    sys.exit(main())
