"""Engine-state snapshots, so a restart replays a few actions per table instead of whole logs.

A table keeps one snapshot in the store, replaced in the transaction of the move it follows (see
``TableService.apply_locked``): made when ``EVERY`` actions have passed since the last one and the channel has
been told everything (so the events still to be told all come after it). The action log stays the truth:
anything wrong with a snapshot means a full replay instead.

A snapshot is JSON, written and read by a :class:`Codec` made from the type hints of the engine's ``State``:
frozen dataclasses as objects of their fields, ints, bools, strings and None as themselves, enums and
Literals by value, tuples as arrays, unions told apart by their JSON type, decktet cards by their index into
``ALL_CARDS``. Reading builds those types and nothing else, so a snapshot row — whoever wrote it — can't run
code, and whatever is not exactly that shape raises :class:`SnapshotError`. Each snapshot carries its tag,
the format, the engine and the engine's ``STATE_VERSION`` (``json1:bhargage:1``), also kept beside it in the
store so that only snapshots of the running version are read: an engine edit that keeps ``STATE_VERSION``
keeps every snapshot usable; one that changes the State's shape or meaning bumps it, and the older snapshots
are left unread. An engine without ``STATE_VERSION`` gets no snapshots.

A row is believed only as far as it can be checked (:class:`Signer`): it is signed with a key the database
never holds (``key_from`` the bot's token), over its game, the action count it was made at and its bytes, so
a row written by hand — an edited score or hand, another seat count, another action count, another game's
snapshot — is refused before it is parsed; and what it says is checked against the game all the same (its
seed, options and seat count, the seat count within the game's bounds, an action logged after it). Short of
a replay nothing else could tell an edited hand or score: the State carries no action count, and the scores
come from counting hands the log never holds. The key's id is part of the tag, so the snapshots of another
key (the token was reset) are left unread like another version's.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import hmac
import json
import secrets
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any, Literal, NoReturn

from bot.rules.decktet import ALL_CARDS, Card
from bot.rules.engine import Engine

# Actions between snapshots: a restart replays at most EVERY - 1 actions of a table (plus those it has not
# told the channel yet). Hands do not bound that (a Bharg Deluxe hand runs to hundreds of actions), the count
# does. What a snapshot costs a move, and what it saves a restart, is printed by bench/bench_start.py.
EVERY = 2
FORMAT = "json1"
MAX_BYTES = 64 * 1024  # far above any real state; a row above it is refused unread

_HEADER = ("format", "engine", "version", "state")
_MAC_HEX = 64  # a signature's length: HMAC-SHA256 in hex, before the JSON
# What a service given no key signs with: a key of this process alone (its snapshots serve only it).
PROCESS_KEY = secrets.token_bytes(32)


class SnapshotError(Exception):
    """A snapshot this code can't use: not exactly what it writes for this engine and version (or a state it
    can't write). The caller replays the whole log instead."""


def due(seq: int, last: int) -> bool:
    """Whether the move that brings the table to ``seq`` should leave a snapshot (the last one is at
    ``last``; the caller also checks that the channel has been told everything)."""
    return seq - last >= EVERY


def key_from(token: str) -> bytes:
    """The key that signs snapshots, derived from the bot's token: every process of the bot holds it, the
    database never does (and it is not the token itself, nor the web links' key)."""
    return hmac.new(token.encode(), b"tavern-snapshots", hashlib.sha256).digest()


def codec(rules: Engine) -> Codec | None:
    """The engine's snapshot codec; None for an engine that declares no ``STATE_VERSION`` (no snapshots).
    TypeError when its State holds a type the format can't carry. (``STATE_VERSION`` and ``State`` are no
    part of every engine: they are read here, where they are used.)"""
    version = getattr(rules, "STATE_VERSION", None)
    if version is None:
        return None
    name, state = getattr(rules, "__name__", ""), getattr(rules, "State", None)
    if type(version) is not int or version < 1:
        raise TypeError(f"{name}.STATE_VERSION must be a positive int, not {version!r}")
    if not isinstance(state, type):
        raise TypeError(f"{name} declares a STATE_VERSION but no State class")
    return Codec(name.rpartition(".")[2], version, state)


class Codec:
    """Snapshots of one engine's State at one ``STATE_VERSION``: ``dump`` and a strict, total ``load``."""

    def __init__(self, engine: str, version: int, state: type) -> None:
        self.engine = engine
        self.version = version
        self.tag = f"{FORMAT}:{engine}:{version}"
        self._codec = _compile(state)
        names = {f.name for f in dataclasses.fields(state)}
        self._seed = "seed" in names
        self._options = "options" in names
        self._players = "players" in names

    def dump(self, state: Any) -> bytes:
        """The state as snapshot bytes; SnapshotError if it is not of its declared shape, or too large."""
        try:
            body = {"format": FORMAT, "engine": self.engine, "version": self.version}
            body["state"] = self._codec.encode(state)
            data = json.dumps(body, separators=(",", ":"), allow_nan=False).encode()
        except SnapshotError:
            raise
        except Exception as err:
            raise SnapshotError(f"the state can't be written ({err!r})") from err
        if len(data) > MAX_BYTES:
            raise SnapshotError(f"the state takes {len(data)} bytes, above {MAX_BYTES}")
        return data

    def load(self, data: bytes, *, seed: int, options: Any, players: int | None = None) -> Any:
        """The state a snapshot holds, checked against its game's ``seed``, ``options`` and seat count
        (``players``, when given) where the State has them; anything else — whatever the bytes — raises
        SnapshotError and nothing else."""
        try:
            if type(data) is not bytes:
                raise SnapshotError(f"a snapshot of {type(data).__name__}, not bytes")
            if len(data) > MAX_BYTES:
                raise SnapshotError(f"{len(data)} bytes, above {MAX_BYTES}")
            body = json.loads(data.decode(), parse_constant=_no_constant, object_pairs_hook=_object)
            if type(body) is not dict or tuple(body) != _HEADER:
                raise SnapshotError("not a snapshot")
            if body["format"] != FORMAT:
                raise SnapshotError(f"a snapshot in format {_shown(body['format'])}, not {FORMAT}")
            if body["engine"] != self.engine:
                raise SnapshotError(f"a snapshot of {_shown(body['engine'])}, not {self.engine}")
            version = body["version"]
            if type(version) is not int or version != self.version:
                raise SnapshotError(f"a snapshot of STATE_VERSION {_shown(version)}, not {self.version}")
            state = self._codec.decode(body["state"])
            if self._seed and state.seed != seed:
                raise SnapshotError("a snapshot of a game with another seed")
            if self._options and state.options != options:
                raise SnapshotError("a snapshot of a game with other options")
            if self._players and players is not None and state.players != players:
                raise SnapshotError(f"a snapshot of {_shown(state.players)} seats, not {players}")
            return state
        except SnapshotError:
            raise
        except Exception as err:  # not UTF-8, not JSON, too deep, a huge number, options the engine refuses
            raise SnapshotError(
                f"not a snapshot of this state ({type(err).__name__}: {str(err)[:100]})"
            ) from err


class Signer:
    """One engine's snapshots as this bot writes them: the codec's JSON after an HMAC-SHA256 (in hex) of the
    game, the action count and the JSON, under ``key``. ``load`` reads only what this key signed for that
    game at that action count, then checks it as the codec does."""

    def __init__(self, codec: Codec, key: bytes) -> None:
        self.codec = codec
        self._key = key
        self.tag = f"{codec.tag}:{hashlib.sha256(b'tavern-snapshot-key:' + key).hexdigest()[:8]}"

    def _mac(self, game: int, seq: int, body: bytes) -> bytes:
        head = f"{self.tag}\0{game}\0{seq}\0".encode()
        return hmac.new(self._key, head + body, hashlib.sha256).hexdigest().encode()

    def dump(self, state: Any, *, game: int, seq: int) -> bytes:
        """The snapshot of game ``game`` at action ``seq``; SnapshotError as ``Codec.dump``."""
        body = self.codec.dump(state)
        return self._mac(game, seq, body) + body

    def load(self, data: bytes, *, game: int, seq: int, seed: int, options: Any, players: int) -> Any:
        """The state, if this key signed these bytes for this game at this action count and the codec
        reads them back for its seed, options and seat count; else SnapshotError, whatever the bytes."""
        if type(data) is not bytes or len(data) > _MAC_HEX + MAX_BYTES:
            raise SnapshotError("not a snapshot this bot signed")
        mac, body = data[:_MAC_HEX], data[_MAC_HEX:]
        if not hmac.compare_digest(mac, self._mac(game, seq, body)):
            raise SnapshotError(f"not signed by this bot for game {game} at action {seq}: written by hand?")
        return self.codec.load(body, seed=seed, options=options, players=players)


def _no_constant(name: str) -> NoReturn:
    raise SnapshotError(f"{name} is not JSON")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it names a key twice (JSON would keep the last)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise SnapshotError("a key given twice")
    return obj


# ---------------------------------------------------------------- the codec of each type


@dataclasses.dataclass(frozen=True)
class _Part:
    """How one type is written and read: ``encode`` takes a value of the type (else raises), ``decode``
    takes parsed JSON (else raises); ``reads`` are the JSON value types it reads, ``takes`` the Python types
    it writes, so a union picks its member by the value's type both ways."""

    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]
    reads: frozenset[type]
    takes: frozenset[type]


def _bad(what: str, value: Any) -> NoReturn:
    raise SnapshotError(f"{what} expected, found {_shown(value)}")


def _shown(value: Any) -> str:
    """A value read from a snapshot, as an error names it: short, one line (the row may be anyone's)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


_compiled: dict[Any, _Part] = {}


def _compile(tp: Any) -> _Part:
    """The part for a type hint, made once per type (TypeError for a type the format does not carry)."""
    part = _compiled.get(tp)
    if part is None:
        part = _compiled[tp] = _make(tp)
    return part


def _make(tp: Any) -> _Part:
    origin = typing.get_origin(tp)
    if tp in (int, bool, str, type(None)):
        return _exact(tp)
    if tp is Card:
        return _card()
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum(tp)
    if origin is Literal:
        return _literal(typing.get_args(tp))
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return _variadic(_compile(args[0]))
        if args and Ellipsis not in args:
            return _fixed(tuple(_compile(a) for a in args))
    if origin in (typing.Union, types.UnionType):
        return _union(repr(tp), tuple(_compile(a) for a in typing.get_args(tp)))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    raise TypeError(f"snapshots can't carry {tp!r}")


def _exact(kind: type) -> _Part:
    """int, bool, str or None, as themselves (a bool is no int here, whatever Python says)."""
    name = kind.__name__

    def check(value: Any) -> Any:
        if type(value) is not kind:
            _bad(name, value)
        return value

    return _Part(check, check, frozenset({kind}), frozenset({kind}))


def _card() -> _Part:
    """A decktet card, by its index into ALL_CARDS."""
    cards = ALL_CARDS
    count = len(cards)

    def encode(card: Any) -> int:
        if type(card) is not Card or not 0 <= card.index < count or cards[card.index] != card:
            _bad("a card of ALL_CARDS", card)
        return card.index

    def decode(raw: Any) -> Card:
        if type(raw) is not int or not 0 <= raw < count:
            raise SnapshotError(f"no card {_shown(raw)}")
        return cards[raw]

    return _Part(encode, decode, frozenset({int}), frozenset({Card}))


def _values(kind: str, values: Iterable[Any]) -> tuple[dict[tuple[type, Any], Any], frozenset[type]]:
    """Values written as themselves (an enum's, a Literal's), keyed by (type, value) so that True is not 1."""
    table: dict[tuple[type, Any], Any] = {}
    for value in values:
        raw = value.value if isinstance(value, enum.Enum) else value
        if type(raw) not in (int, str, bool):
            raise TypeError(f"snapshots can't carry the {kind} value {raw!r}")
        table[type(raw), raw] = value
    return table, frozenset(t for t, _ in table)


def _enum(cls: type[enum.Enum]) -> _Part:
    """An enum member, by its value."""
    table, reads = _values(cls.__name__, cls)

    def encode(member: Any) -> Any:
        if type(member) is not cls:
            _bad(cls.__name__, member)
        return member.value

    def decode(raw: Any) -> Any:
        if type(raw) not in reads:
            _bad(cls.__name__, raw)
        member = table.get((type(raw), raw))
        if member is None:
            raise SnapshotError(f"no {cls.__name__} {_shown(raw)}")
        return member

    return _Part(encode, decode, reads, frozenset({cls}))


def _literal(allowed: tuple[Any, ...]) -> _Part:
    """One of a Literal's values."""
    table, reads = _values("Literal", allowed)

    def check(value: Any) -> Any:
        if type(value) not in reads or (type(value), value) not in table:
            raise SnapshotError(f"{_shown(value)} is none of {allowed!r}")
        return value

    return _Part(check, check, reads, reads)


def _variadic(item: _Part) -> _Part:
    """tuple[X, ...], as an array of any length."""
    encode_item, decode_item = item.encode, item.decode

    def encode(value: Any) -> list[Any]:
        if type(value) is not tuple:
            _bad("a tuple", value)
        return [encode_item(v) for v in value]

    def decode(raw: Any) -> tuple[Any, ...]:
        if type(raw) is not list:
            _bad("an array", raw)
        return tuple([decode_item(r) for r in raw])

    return _Part(encode, decode, frozenset({list}), frozenset({tuple}))


def _fixed(items: tuple[_Part, ...]) -> _Part:
    """tuple[X, Y, ...] of a fixed length, as an array of that length."""
    encoders = tuple(i.encode for i in items)
    decoders = tuple(i.decode for i in items)
    size = len(items)

    def encode(value: Any) -> list[Any]:
        if type(value) is not tuple or len(value) != size:
            _bad(f"a tuple of {size}", value)
        return [e(v) for e, v in zip(encoders, value, strict=True)]

    def decode(raw: Any) -> tuple[Any, ...]:
        if type(raw) is not list or len(raw) != size:
            _bad(f"an array of {size} items", raw)
        return tuple([d(r) for d, r in zip(decoders, raw, strict=True)])

    return _Part(encode, decode, frozenset({list}), frozenset({tuple}))


def _union(name: str, members: tuple[_Part, ...]) -> _Part:
    """X | Y | ...: the member is the one that reads the JSON value's type (writes the value's type), so
    members must differ in both (``int | Card`` is refused: both are JSON ints)."""
    by_read: dict[type, Callable[[Any], Any]] = {}
    by_take: dict[type, Callable[[Any], Any]] = {}
    for member in members:
        for kind in member.reads:
            if by_read.setdefault(kind, member.decode) is not member.decode:
                raise TypeError("snapshots can't tell apart the members of a union read from one JSON type")
        for kind in member.takes:
            if by_take.setdefault(kind, member.encode) is not member.encode:
                raise TypeError("snapshots can't tell apart the members of a union of one Python type")

    def encode(value: Any) -> Any:
        member = by_take.get(type(value))
        if member is None:
            _bad(name, value)
        return member(value)

    def decode(raw: Any) -> Any:
        member = by_read.get(type(raw))
        if member is None:
            _bad(name, raw)
        return member(raw)

    return _Part(encode, decode, frozenset(by_read), frozenset(by_take))


def _dataclass(cls: type) -> _Part:
    """A frozen dataclass, as an object of every field by name (none missing, none more), rebuilt through
    its constructor (so its own checks run)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"snapshots carry frozen dataclasses only, not {cls.__name__}")
    fields = dataclasses.fields(cls)
    if any(not f.init or f.kw_only for f in fields):
        raise TypeError(f"{cls.__name__} has a field its constructor does not take in order")
    hints = typing.get_type_hints(cls)
    parts = tuple((f.name, _compile(hints[f.name])) for f in fields)
    encoders = tuple((name, part.encode) for name, part in parts)
    decoders = tuple((name, part.decode) for name, part in parts)
    names = frozenset(name for name, _ in parts)

    def encode(value: Any) -> dict[str, Any]:
        if type(value) is not cls:
            _bad(cls.__name__, value)
        return {name: e(getattr(value, name)) for name, e in encoders}

    def decode(raw: Any) -> Any:
        if type(raw) is not dict:
            _bad(f"an object of {cls.__name__}", raw)
        if len(raw) != len(names) or not names.issuperset(raw):
            missing, unknown = sorted(names.difference(raw)), sorted(set(raw) - names)
            raise SnapshotError(f"{cls.__name__} without {missing} or with {_shown(unknown)}")
        return cls(*[d(raw[name]) for name, d in decoders])

    return _Part(encode, decode, frozenset({dict}), frozenset({cls}))
