"""What a game's hooks are asked about and answer besides panels: the :class:`Click` on one of its controls,
an :class:`Aside` for the clicker alone, and the :class:`Announcement` of a move for the channel.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.base.panel import Control, Panel, Pick, Picture
from bot.games.prefs import DEFAULT, Prefs


@dataclass(frozen=True)
class Click:
    """A parsed component interaction: what the custom id says, plus the values chosen in a select."""

    scope: str
    key: int
    token: str
    verb: str
    arg: str
    values: tuple[str, ...] = ()
    prefs: Prefs = DEFAULT  # the clicker's preferences (a quick discard needs no Confirm)


@dataclass(frozen=True)
class Consult:
    """The expert's weighing a hint would rather give: ``weigh(view, rng)`` — a module's function, so it
    goes to the thinking process by name — on the seat's ``view``, seeded by ``seed``; ``finish(weighing,
    seconds)`` is the hint that tells it (and how long the expert thought)."""

    weigh: Callable[[Any, random.Random], Any]
    view: Any
    seed: str
    finish: Callable[[Any, float], Aside]


@dataclass(frozen=True)
class Aside:
    """A private answer to a click that changes nothing (a hint): shown to the clicker only, while the
    clicked panel stays as it is. ``picks`` says which of its content's lines (by index) speak of an option
    of that panel, and which: the terminal gives those lines the option's numbers. ``consult``: the expert's
    weighing to ask for first (``bot.services.session.coached``); this aside is the hard player's, the
    answer when the expert has none within its budget."""

    panel: Panel
    picks: tuple[tuple[int, Pick], ...] = ()
    consult: Consult | None = None


@dataclass
class Announcement:
    """What the channel is told about some events: messages in order (each fits one Discord message), then
    the ``ping`` line calling ``ping_seats`` (appended to the last message), with ``controls`` on it; a
    ``picture`` goes with message ``picture_at`` (the show beside its text)."""

    messages: list[str] = field(default_factory=list)
    ping: str = ""
    ping_seats: tuple[int, ...] = ()
    controls: list[Control] = field(default_factory=list)
    picture: Picture | None = None
    picture_at: int = -1


def clip(lines: Sequence[str], limit: int) -> str:
    """Join lines, dropping the oldest when the message would be too long for Discord."""
    out = list(lines)
    while out and len("\n".join(out)) > limit:
        out.pop(0)
    return "\n".join(out)
