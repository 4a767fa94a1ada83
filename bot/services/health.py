"""The heartbeat file behind the container's HEALTHCHECK.

A process can be alive while the bot is useless: the gateway lost for good, the database unreadable, the
event loop stuck. So the running bot writes a small JSON file every ``HEARTBEAT_SECONDS`` (when it wrote,
whether the gateway is connected, whether a trivial database query answered) and the health check — a
separate, short-lived process, ``python -m bot.cli.healthcheck`` (or ``python -m bot health``) — reads it:
healthy only if the file is fresh and both checks passed. A stuck loop stops writing, so staleness covers it
too. The file also says when a worker process — the drawing or the thinking one (``bot.services.workers``) —
was replaced lately (it hung or died): the bot healed itself and plays on, with pictures and experts again, so
that is said on the healthy line rather than making the bot unhealthy. Its key is still ``drawing``.

The health check runs every 30 s in every container, so this module imports only ``json``, ``os`` and
``time`` (no ``dataclasses``, ``typing`` or ``pathlib`` at run time): it is the reading side's whole cost.
"""

from __future__ import annotations

import json
import os
import time

TYPE_CHECKING = False  # not typing's: importing typing would cost the health check as much as the rest
if TYPE_CHECKING:
    from pathlib import Path

HEARTBEAT_SECONDS = 15.0
MAX_AGE = 60.0


class Beat:
    """One heartbeat: Unix time written, the two checks, why a check failed (never a secret), and what the
    worker processes went through lately ("" when nothing; the drawing one's first)."""

    __slots__ = ("at", "database", "detail", "drawing", "gateway")

    def __init__(self, at: float, gateway: bool, database: bool, detail: str = "", drawing: str = "") -> None:
        self.at = at
        self.gateway = gateway
        self.database = database
        self.detail = detail
        self.drawing = drawing

    def as_dict(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Beat) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        return f"Beat({', '.join(f'{k}={v!r}' for k, v in self.as_dict().items())})"


def write(path: Path, beat: Beat) -> None:
    """Replace the file atomically, so the health check never reads half a heartbeat."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(beat.as_dict(), sort_keys=True))
    os.replace(tmp, path)


def read(path: str | os.PathLike[str]) -> Beat:
    """The last heartbeat; raises ``OSError`` or ``ValueError`` (also for a malformed file)."""
    with open(path, encoding="utf-8") as file:
        data = json.load(file)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return Beat(
        at=float(data["at"]),
        gateway=data["gateway"] is True,
        database=data["database"] is True,
        detail=str(data.get("detail", "")),
        drawing=str(data.get("drawing", "")),
    )


def check(
    path: str | os.PathLike[str], *, now: float | None = None, max_age: float = MAX_AGE
) -> tuple[bool, str]:
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
    if not age <= max_age:  # also NaN: a file that says nothing about when
        return False, f"unhealthy: last heartbeat {age:.0f} s ago (the bot is stopped or stuck)"
    if not beat.gateway:
        return False, f"unhealthy: not connected to the Discord gateway{detail}{pictures}"
    if not beat.database:
        return False, f"unhealthy: the database check failed{detail}{pictures}"
    return True, f"ok: heartbeat {max(age, 0):.0f} s ago, gateway connected, database answering{pictures}"
