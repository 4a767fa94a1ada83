"""Which build is running: the package's version and the commit it was built from, for ``--version``, the
start-up log, the ``tavern_build_info`` metric and ``/tavern help``'s footer, so an operator can say which
build misbehaved.

The version is the installed package's (``pyproject.toml``, bumped with each entry of CHANGELOG.md). The
commit is ``TAVERN_COMMIT`` where the image was built with it (the Dockerfile's build argument), else the
checkout's own (``git rev-parse``, for a bot run from a clone), else "unknown".
"""

from __future__ import annotations

import functools
import os
import subprocess
from importlib import metadata
from pathlib import Path

PACKAGE = "decktet-tavern"
ROOT = Path(__file__).resolve().parents[2]  # the checkout, when the bot runs from one
UNKNOWN = "unknown"


@functools.cache
def version() -> str:
    """The package's version, as installed."""
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:  # run from a copy of the source that was never installed
        return UNKNOWN


@functools.cache
def commit() -> str:
    """The commit this build came from: 12 hexadecimal digits, or "unknown"."""
    given = os.environ.get("TAVERN_COMMIT", "").strip().lower()
    if given:
        return given[:12] if _is_hex(given) else UNKNOWN
    if not (ROOT / ".git").exists():
        return UNKNOWN
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return UNKNOWN
    return out if _is_hex(out) else UNKNOWN


def _is_hex(text: str) -> bool:
    return 7 <= len(text) <= 40 and all(c in "0123456789abcdef" for c in text)


def describe() -> str:
    """One line: "Decktet Tavern 1.0.0 (commit 0123456789ab)"."""
    return f"Decktet Tavern {version()} (commit {commit()})"  # i18n: not text (for operators)
