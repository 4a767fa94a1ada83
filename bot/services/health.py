"""The heartbeat file behind the container's HEALTHCHECK.

A process can be alive while the bot is useless: the gateway lost for good, the database unreadable, the
event loop stuck. So the running bot writes a small JSON file every ``HEARTBEAT_SECONDS`` (when it wrote,
whether the gateway is connected, whether a trivial database query answered) and ``python -m bot health`` — a
separate, short-lived process — reads it: healthy only if the file is fresh and both checks passed. A stuck
loop stops writing, so staleness covers it too. The file also says when the drawing process was replaced
lately (it hung or died; ``bot.services.drawing``): the bot healed itself and plays on, with pictures
again, so that is said on the healthy line rather than making the bot unhealthy.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

HEARTBEAT_SECONDS = 15.0
MAX_AGE = 60.0


@dataclass(frozen=True)
class Beat:
    """One heartbeat: Unix time written, the two checks, why a check failed (never a secret), and what the
    drawing process went through lately ("" when nothing)."""

    at: float
    gateway: bool
    database: bool
    detail: str = ""
    drawing: str = ""


def write(path: Path, beat: Beat) -> None:
    """Replace the file atomically, so the health check never reads half a heartbeat."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(asdict(beat), sort_keys=True))
    os.replace(tmp, path)


def read(path: Path) -> Beat:
    """The last heartbeat; raises ``OSError`` or ``ValueError`` (also for a malformed file)."""
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return Beat(
        at=float(data["at"]),
        gateway=data["gateway"] is True,
        database=data["database"] is True,
        detail=str(data.get("detail", "")),
        drawing=str(data.get("drawing", "")),
    )


def check(path: Path, *, now: float | None = None, max_age: float = MAX_AGE) -> tuple[bool, str]:
    """(healthy, one line saying why) for the heartbeat file at ``path``."""
    try:
        beat = read(path)
    except FileNotFoundError:
        return False, f"unhealthy: no heartbeat file at {path} (the bot has not started, or writes elsewhere)"
    except (OSError, ValueError, KeyError, TypeError) as err:
        return False, f"unhealthy: unreadable heartbeat file {path} ({err.__class__.__name__})"
    age = (time.time() if now is None else now) - beat.at
    detail = f": {beat.detail}" if beat.detail else ""
    pictures = f"; {beat.drawing}" if beat.drawing else ""
    if age > max_age:
        return False, f"unhealthy: last heartbeat {age:.0f} s ago (the bot is stopped or stuck)"
    if not beat.gateway:
        return False, f"unhealthy: not connected to the Discord gateway{detail}{pictures}"
    if not beat.database:
        return False, f"unhealthy: the database check failed{detail}{pictures}"
    return True, f"ok: heartbeat {max(age, 0):.0f} s ago, gateway connected, database answering{pictures}"
