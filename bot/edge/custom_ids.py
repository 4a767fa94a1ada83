"""The bot's custom ids: every control it sends carries its own address, ``tv:<scope>:<key>:<token>:<verb>
[:<arg>]``, where scope ``g`` is a game table (key = game id) and ``l`` a lobby (key = lobby id); a link
button carries none. Anyone can send any custom id and any values, so :func:`parse` is total over whatever
arrives — a :class:`~bot.games.Click`, or ``Refused``, quietly — and :func:`offered` checks that the control
was on the pressed message, with values it offered."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import discord

from bot.base.refusals import UserFacingError
from bot.games import Click

ID_PREFIX = "tv:"
_ID = re.compile(
    r"tv:(?P<scope>[gl]):(?P<key>[1-9][0-9]{0,18}):(?P<token>[0-9a-z\-]{0,24}):(?P<verb>[a-z_]{1,16})"
    r"(?::(?P<arg>[0-9a-z.\-]{1,48}))?",
    re.ASCII,
)
_VALUE = re.compile(r"[0-9a-z.\-]{1,100}", re.ASCII)
MAX_KEY = 2**63 - 1  # ids are SQLite integers
MAX_VALUES = 25  # Discord's most options in one select
T = TypeVar("T")


class Refused(UserFacingError):
    """A component the bot could not have sent, or values it never offered: refused quietly."""

    def __init__(self, why: str) -> None:
        super().__init__("tavern.out-of-date")
        self.why = why


def custom_id(scope: str, key: int, verb: str, *, token: str = "", arg: str = "") -> str:
    text = f"tv:{scope}:{key}:{token}:{verb}" + (f":{arg}" if arg else "")
    if len(text) > 100 or not _ID.fullmatch(text):
        raise ValueError(f"bad custom id {text!r}")
    return text


def parse(cid: object, values: object = ()) -> Click:
    """A custom id the bot could have made and the values a select of it could hold, or ``Refused``:
    anyone can send any custom id and any values, so this is total over whatever arrives."""
    if not isinstance(cid, str) or len(cid) > 100:
        raise Refused("custom id is not a short string")
    match = _ID.fullmatch(cid)
    if match is None or int(match["key"]) > MAX_KEY:
        raise Refused(f"custom id {cid!r} is not one of ours")
    if not isinstance(values, list | tuple) or len(values) > MAX_VALUES:
        raise Refused("select values are not a short list")
    if not all(isinstance(v, str) and _VALUE.fullmatch(v) for v in values):
        raise Refused("a select value is not one the bot offers")
    if len(set(values)) != len(values):
        raise Refused("a select value is repeated")
    return Click(
        scope=match["scope"],
        key=int(match["key"]),
        token=match["token"],
        verb=match["verb"],
        arg=match["arg"] or "",
        values=tuple(values),
    )


def pressed(interaction: discord.Interaction[Any], parse: Callable[[object], T]) -> T:
    """A button of the bot's own that belongs to no table (a rules page, a preference switch): its id read by
    ``parse`` (which refuses what it cannot read), sent without values, and on the pressed message."""
    data: Any = interaction.data or {}
    cid = data.get("custom_id")
    parsed = parse(cid)
    if data.get("values"):
        raise Refused(f"a button {cid!r} sent values")
    offered(interaction.message, str(cid), ())
    return parsed


def offered(message: discord.Message | None, cid: str, values: tuple[str, ...]) -> None:
    """The pressed control is on the message it was pressed on, and the chosen values are among that select's
    options, as many as it allows (Discord sends the message as the bot last left it)."""
    for child in _components(message.components if message is not None else ()):
        if getattr(child, "custom_id", None) != cid:
            continue
        if isinstance(child, discord.SelectMenu):
            choices = {o.value for o in child.options}
            if not set(values) <= choices or not child.min_values <= len(values) <= child.max_values:
                raise Refused(f"values {values!r} were not offered by {cid!r}")
        elif values:
            raise Refused(f"a button {cid!r} sent values")
        return
    raise Refused(f"{cid!r} is not on the message it was pressed on")


def _components(components: Sequence[Any]) -> Iterator[Any]:
    """Every component of a message, nested ones too: a layout's container, its sections' accessories and
    its rows, or a classic message's rows."""
    for component in components:
        yield component
        yield from _components(getattr(component, "children", ()))
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            yield accessory
