"""What a game engine module offers the code that hosts it: :class:`Engine`, a Protocol that the modules
``bot.rules.bhargage`` and ``bot.rules.deluxe`` satisfy (mypy checks it where an adapter names its ``rules``).

States, actions, events and views are each engine's own frozen dataclasses, so the protocol passes them as
``Any``: the host only stores, replays and hands them back. Two more things an engine may declare, read where
they are used: ``STATE_VERSION`` with its ``State`` class (snapshots, ``bot.services.snapshots``) and
``hand_scores(state)`` (the per-hand scores of the stats, when its ``Result`` carries none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any, Protocol, Self

from bot.rules.errors import RulesError


class Options(Protocol):
    """A table's options, as the engine reads them."""

    def to_dict(self) -> dict[str, Any]:
        """The options as stored (``Options.from_dict`` reads them back)."""
        ...


class StoredOptions:
    """The stored form every engine's ``Options`` (a frozen dataclass) shares: its fields by name, and back,
    the defaults standing for those missing; any other name is refused with the engine's ``unknown``."""

    __slots__ = ()

    @classmethod
    def unknown(cls, names: str) -> RulesError:
        """The engine's refusal of the option names it does not know (sorted, comma-separated)."""
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> Self:
        d = dict(d or {})
        unknown = set(d) - {f.name for f in fields(cls)}  # type: ignore[arg-type]
        if unknown:
            raise cls.unknown(", ".join(sorted(map(str, unknown))))
        return cls(**d)


class OptionsClass(Protocol):
    """The engine's ``Options`` class: its defaults, and its reading of stored options."""

    def __call__(self) -> Options: ...

    def from_dict(self, d: Mapping[str, Any], /) -> Options:
        """The options stored as ``d``; a ``RulesError`` for options the game can't be played with."""
        ...


class Result(Protocol):
    """How a finished game ended: per-seat scores, the winning seats, a muggins win, and how it ended."""

    @property
    def scores(self) -> Sequence[int]: ...

    @property
    def winners(self) -> Sequence[int]: ...

    @property
    def muggins(self) -> bool: ...

    @property
    def how(self) -> str: ...


class Engine(Protocol):
    """A game's rules as a state machine: a game is fully determined by (seed, players, options, action log).

    Every refusal is a ``RulesError`` whose text a player can read; ``check`` raises exactly what ``apply``
    would, without changing anything, and ``can`` says whether it would pass."""

    @property
    def Options(self) -> OptionsClass:
        """The engine's ``Options`` class."""
        ...

    def start(self, seed: int, players: int, options: Any, /) -> tuple[Any, list[Any]]:
        """A new game's state and its opening events."""
        ...

    def legal_actions(self, state: Any, seat: int, /) -> list[Any]:
        """What the seat may do now (empty when it is not its move)."""
        ...

    def check(self, state: Any, action: Any, /) -> None: ...

    def can(self, state: Any, action: Any, /) -> bool: ...

    def apply(self, state: Any, action: Any, /) -> tuple[Any, list[Any]]:
        """The state after the action, and the events it made (named in the past tense)."""
        ...

    def parse_action(self, text: str, /) -> Any:
        """An action from its text in the log (``action_text`` writes it: the two round-trip)."""
        ...

    def action_text(self, action: Any, /) -> str: ...

    def waiting_for(self, state: Any, /) -> tuple[int, ...]:
        """The seats whose move the game waits for."""
        ...

    def is_over(self, state: Any, /) -> bool: ...

    def final_result(self, state: Any, /) -> Result:
        """How the game ended; only once it is over."""
        ...

    def view(self, state: Any, seat: int, /) -> Any:
        """What the seat may see (-1: what everyone sees)."""
        ...

    def replay(self, seed: int, players: int, options: Any, texts: Sequence[str], /) -> Any:
        """The state the logged actions lead to from the start."""
        ...
