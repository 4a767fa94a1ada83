"""Engine-state snapshots, so a restart replays a few actions per table instead of whole logs.

A table keeps one snapshot in the store, replaced in the transaction of the move it follows (see
``TableService.apply_locked``): made when ``EVERY`` actions have passed since the last one and the channel has
been told everything (so the events still to be told all come after it). The action log stays the truth: a
snapshot is used only when its fingerprint — a hash of the engine's source, of this file and of the Python
version — matches the running code, and anything wrong with it means a full replay instead.

The form is a pickle. Unpickling can run code, so this is safe only because the bytes come from the bot's own
database, written by the bot itself: anyone able to write that file can already change every game. Never load
a snapshot from anywhere else. Reading snapshots back is most of a restart's work, so two things are pickled
in a faster form: decktet cards as their index into ``ALL_CARDS`` (a quarter of the size, and several times
faster to read), and the engines' slotted dataclasses as their class and field values, set as pickle's own
``__setstate__`` sets them but without looking their fields up each time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import pickle
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from bot.rules.decktet import ALL_CARDS, Card

# Actions between snapshots: a restart replays at most EVERY - 1 actions of a table (plus those it has not
# told the channel yet). Hands do not bound that (a Bharg Deluxe hand runs to hundreds of actions), the count
# does. A snapshot is ~580 bytes made in ~0.06 ms, and adds ~0.15 ms to its move's commit (one fsync either
# way): every other move pays that, and 10,000 tables restore in about 1.5 s (bench/bench_start.py).
EVERY = 2
PROTOCOL = 5

_fields: dict[type, tuple[str, ...] | None] = {}


def due(seq: int, last: int) -> bool:
    """Whether the move that brings the table to ``seq`` should leave a snapshot (the last one is at
    ``last``; the caller also checks that the channel has been told everything)."""
    return seq - last >= EVERY


def fingerprint(rules: ModuleType) -> str:
    """A hash of the code a snapshot of this engine depends on: every Python file of the engine's package
    (its own module and what it imports beside it, e.g. the decktet), this file, and the Python version. It
    reads those files: ``TableService`` keeps the result per game."""
    name = rules.__name__
    if rules.__file__ is None:
        raise TypeError(f"the engine {name} has no source file")
    digest = hashlib.sha256(f"{name} {sys.version_info[:2]} {PROTOCOL}".encode())
    source = Path(rules.__file__)
    for path in [*sorted(source.parent.glob("*.py")), Path(__file__)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def card_at(index: int) -> Card:
    """The card a snapshot names by its index."""
    return ALL_CARDS[index]


def _field_names(cls: type) -> tuple[str, ...] | None:
    """The fields of a slotted dataclass, in order (None for any other class)."""
    if cls not in _fields:
        slotted = dataclasses.is_dataclass(cls) and "__slots__" in cls.__dict__
        _fields[cls] = tuple(f.name for f in dataclasses.fields(cls)) if slotted else None
    return _fields[cls]


def dataclass_of(cls: type, values: tuple[Any, ...]) -> Any:
    """The slotted dataclass a snapshot names by its class and field values."""
    obj: Any = object.__new__(cls)
    for name, value in zip(_field_names(cls) or (), values, strict=True):
        object.__setattr__(obj, name, value)
    return obj


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is Card and ALL_CARDS[obj.index] is obj:  # every card the engines use is one of these
            return card_at, (obj.index,)
        names = _field_names(kind)
        if names is not None:
            return dataclass_of, (kind, tuple(getattr(obj, n) for n in names))
        return NotImplemented


def dump(state: Any) -> bytes:
    """The engine state as snapshot bytes."""
    out = io.BytesIO()
    _Pickler(out, protocol=PROTOCOL).dump(state)
    return out.getvalue()


def load(data: bytes) -> Any:
    """The engine state from snapshot bytes the bot wrote itself (never from elsewhere: see above)."""
    return pickle.loads(data)  # only the bot's own database is ever read
