"""Yesterday's computer players for the benches, rebuilt from git instead of copied into the repository.

A copy of an old player would be a second source of every function it shares with today's (the duplicate-code
checker would flag them all, and fixes would have to be made twice). So the bench asks git for the player's
modules as of a fixed commit, writes them into a private package in a temporary directory, points their
imports of each other at that package, and imports it. Everything else they import (``bot.ai``'s levels,
``bot.rules``) is today's, so the old player plays by today's engine.

    from bench.previous import load
    old = load(["bhargage", "bhargage_cards", "bhargage_discard", "bhargage_play"])["bhargage"]
    old.choose(view, rng, "hard")
"""

from __future__ import annotations

import atexit
import importlib
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# The commit whose players are "previous" in the benches (issue 33: today's hard before item 3).
COMMIT = "ea59b99"
ROOT = Path(__file__).resolve().parent.parent
_PACKAGE = "bot.ai"


class PreviousUnavailable(RuntimeError):
    """git, or the commit of the previous players, is not there to rebuild them from."""


_loaded: dict[tuple[str, tuple[str, ...]], dict[str, ModuleType]] = {}


def _source(commit: str, module: str) -> str:
    """The text of ``bot/ai/<module>.py`` at ``commit``, asked of git."""
    path = f"{_PACKAGE.replace('.', '/')}/{module}.py"
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as err:
        raise PreviousUnavailable(
            f"The previous players are rebuilt from git, which cannot be run here ({err.strerror})."
        ) from None
    if done.returncode != 0:
        raise PreviousUnavailable(
            f"The previous players are rebuilt from git, and {path} at commit {commit} is not in this"
            f" repository ({done.stderr.strip() or 'git failed'})."
        )
    return done.stdout


def load(modules: Sequence[str], commit: str = COMMIT) -> dict[str, ModuleType]:
    """``bot.ai.<name>`` for each name in ``modules`` as it was at ``commit``, by name (loaded once).

    ``modules`` must hold every module of the player that the others import, so that the old modules
    import each other and not today's.
    """
    key = (commit, tuple(modules))
    found = _loaded.get(key)
    if found is not None:
        return found
    package = f"_previous_{re.sub(r'[^0-9A-Za-z]', '_', commit)}_{len(_loaded)}"
    home = Path(tempfile.mkdtemp(prefix="previous-players-"))
    atexit.register(shutil.rmtree, home, True)
    names = "|".join(re.escape(m) for m in sorted(modules, key=len, reverse=True))
    own = re.compile(rf"\b{re.escape(_PACKAGE)}\.({names})\b")
    (home / package).mkdir()
    (home / package / "__init__.py").write_text(f'"""bot.ai modules as of commit {commit}."""\n')
    for module in modules:
        text = own.sub(rf"{package}.\1", _source(commit, module))
        (home / package / f"{module}.py").write_text(text)
    sys.path.insert(0, str(home))
    importlib.invalidate_caches()
    out = {m: importlib.import_module(f"{package}.{m}") for m in modules}
    _loaded[key] = out
    return out
