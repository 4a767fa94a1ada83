"""``python -m bot.cli.healthcheck``: the container's HEALTHCHECK, as light as a check every 30 s must be.

It reads the heartbeat file the running bot rewrites every 15 s (:mod:`bot.services.health`), prints one line
saying why the bot is healthy or not, and exits 0 (healthy) or 1 (unhealthy), as Docker expects; 2 for a
usage error. ``python -m bot health`` answers the same.

Docker runs it in a new process each time, so it imports only the standard library's ``json``, ``os``,
``sys`` and ``time`` — not discord.py, aiohttp, Pillow or the settings module, which ``python -m bot`` needs
and which cost the old check over half a second of CPU and 60 MB per probe. ``bot/__init__.py`` imports
nothing, and neither does ``bot/services/__init__.py``; ``tests/test_docker_files.py`` keeps it so.

Where the file is: ``TAVERN_HEALTH_PATH``, else ``health.json`` beside ``TAVERN_DB_PATH`` (default
``data/tavern.sqlite3``), exactly as :func:`bot.settings.health_path_from_env` says (a test holds the two
together). A ``.env`` in the current folder is read as the bot reads it (the environment wins); the image
has none, so python-dotenv is imported only where there is one.
"""

from __future__ import annotations

import os
import sys

from bot.services import health

TYPE_CHECKING = False  # not typing's, which would cost this check a third of its time
if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_DB_PATH = "data/tavern.sqlite3"  # bot.settings.DEFAULT_DB_PATH; i18n: not text
HEALTH_FILE = "health.json"  # bot.settings.HEALTH_FILE


def health_path(env: Mapping[str, str]) -> str:
    """The heartbeat file's path, from the environment alone."""
    raw = env.get("TAVERN_HEALTH_PATH", "").strip()
    if raw:
        return os.path.expanduser(raw)
    db = os.path.expanduser(env.get("TAVERN_DB_PATH", "").strip() or DEFAULT_DB_PATH)
    folder = os.path.dirname(db.rstrip("/") or db)
    return os.path.join(folder, HEALTH_FILE)


def load_dotenv_here() -> None:
    """Read ``./.env`` into the environment without overriding it, as ``bot.settings`` does; only where there
    is one, so the container's check never imports python-dotenv."""
    path = os.path.join(os.getcwd(), ".env")
    if os.path.isfile(path):
        from dotenv import load_dotenv

        load_dotenv(dotenv_path=path, override=False)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args:
        # i18n: not text
        usage = "usage: python -m bot.cli.healthcheck  (no arguments: TAVERN_HEALTH_PATH says where)"
        print(usage, file=sys.stderr)
        return 2
    load_dotenv_here()
    healthy, reason = health.check(health_path(os.environ))
    print(reason)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
