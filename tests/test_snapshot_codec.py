"""The snapshot format: every state of many seeded random games of both engines reads back equal to itself,
and anything that is not exactly what the codec writes — whatever the bytes — raises SnapshotError and
nothing else. The service side (restore, fallback to replay, the hostile row) is in test_snapshots.py."""

from __future__ import annotations

import enum
import json
import pickle
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, Literal

import pytest

from bot.rules import bhargage as bh
from bot.rules import deluxe as dx
from bot.rules.decktet import ALL_CARDS, Card, Suit
from bot.services import snapshots
from bot.services.snapshots import MAX_BYTES, SnapshotError
from tests import fakegame

BH = snapshots.codec(bh)
DX = snapshots.codec(dx)
assert BH is not None and DX is not None


def states_of(rules: ModuleType, seed: int) -> Iterator[Any]:
    """Every state of one seeded random game, to its end or 400 actions, on random options; in a third of
    them the players leave (resign) one by one from a random point, so that finished states come too."""
    rng = random.Random(seed)
    if rules is bh:
        players, options = 2, bh.Options(target=rng.choice((31, 61, 121)), sequences=rng.random() < 0.5)
    else:
        players = rng.randint(2, 6)
        options = dx.Options(
            target=rng.choice((10, 30, 100)),
            pawns=rng.random() < 0.5,
            courts=rng.random() < 0.5,
            fast_start=rng.choice((0, 1, 2, 3)),
        )
    state, _ = rules.start(rng.randrange(2**63), players, options)
    yield state
    leave_from = rng.randrange(400) if rng.random() < 0.33 else 400
    for step in range(400):
        if rules.is_over(state):
            return
        seat = rules.waiting_for(state)[0]
        if step >= leave_from:
            action = bh.Resign(seat) if rules is bh else dx.Leave(seat)
        elif rules is dx:  # binds (melds on the table) more often than not, when there are any
            moves = dx.legal_moves(state, seat)
            binds = [m for m in moves if isinstance(m, dx.Bind)]
            action = rng.choice(binds if binds and rng.random() < 0.7 else moves)
        else:
            action = rng.choice(bh.legal_actions(state, seat))
        state, _ = rules.apply(state, action)
        yield state


def load(codec: snapshots.Codec, data: Any, like: Any) -> Any:
    return codec.load(data, seed=like.seed, options=like.options)


@pytest.mark.parametrize(("rules", "codec"), [(bh, BH), (dx, DX)], ids=["bhargage", "deluxe"])
def test_every_state_of_random_games_reads_back_equal(rules: ModuleType, codec: snapshots.Codec) -> None:
    seen = over = 0
    kinds: set[str] = set()
    for seed in range(30):
        for state in states_of(rules, seed):
            data = codec.dump(state)
            back = load(codec, data, state)
            assert back == state and type(back) is type(state)
            assert codec.dump(back) == data  # one form per state
            seen += 1
            if rules is dx:
                kinds.update(m.kind for melds in state.bound for m in melds)
        over += rules.is_over(state)
    assert seen > 1000 and over > 0  # finished games too
    if rules is dx:
        assert len(kinds) >= 2  # melds of several kinds went through the Literal
    # Cards come back as the engine's own values, not copies.
    state = next(s for s in states_of(rules, 1) if s.deck)
    assert load(codec, codec.dump(state), state).deck[0] is ALL_CARDS[state.deck[0].index]


def test_tags_name_the_format_the_engine_and_its_state_version() -> None:
    assert (BH.tag, DX.tag) == (f"json1:bhargage:{bh.STATE_VERSION}", f"json1:deluxe:{dx.STATE_VERSION}")
    assert snapshots.codec(fakegame) is None  # the Race engine declares no STATE_VERSION: no snapshots


# ---------------------------------------------------------------- hostile bytes


def bh_state() -> bh.State:
    """A Bhargage state with every kind of field filled in: cards up and on the pile, pegs moved."""
    return next(s for s in states_of(bh, 3) if s.pile and s.up is not None and s.backs[0] is not None)


def dx_state() -> dx.State:
    """A Deluxe state with melds bound, so the Literal of their kind is in it."""
    for seed in range(50):
        for s in states_of(dx, seed):
            if any(s.bound) and s.die_suit is not None:
                return s
    raise AssertionError("no random game bound a meld under a die suit")


def body(codec: snapshots.Codec, state: Any) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(codec.dump(state))
    return parsed


def edited(edit: Callable[[dict[str, Any]], None], codec: snapshots.Codec = BH) -> bytes:
    """A Bhargage (or Deluxe) snapshot changed by ``edit`` on its parsed JSON."""
    b = body(codec, bh_state() if codec is BH else dx_state())
    edit(b)
    return json.dumps(b).encode()


def set_state(name: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda b: b["state"].__setitem__(name, value)


def raw_state(name: str, text: bytes) -> bytes:
    """A Bhargage snapshot whose field ``name`` is the JSON text ``text``, as written."""
    return edited(set_state(name, "@@")).replace(b'"@@"', text)


def a_meld(edit: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    return lambda b: edit(next(m for melds in b["state"]["bound"] for m in melds))


class Exploit:
    """Unpickling this calls ``open(path, "w")``: the file appears."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.path), "w"))


def valid() -> bytes:
    return BH.dump(bh_state())


# (what is wrong, the engine it claims, its bytes given a folder it must not write in)
HOSTILE: list[tuple[str, str, Callable[[Path], bytes]]] = [
    ("empty", "bh", lambda _: b""),
    ("not UTF-8", "bh", lambda _: b'{"format":"json1\xff"}'),
    ("UTF-16 JSON", "bh", lambda _: valid().decode().encode("utf-16")),
    ("not JSON", "bh", lambda _: valid()[:-1]),
    ("JSON, not an object", "bh", lambda _: b"[1, 2]"),
    ("a pickle that writes a file", "bh", lambda p: pickle.dumps(Exploit(p / "owned"))),
    ("the state pickled", "bh", lambda _: pickle.dumps(bh_state())),
    ("another format", "bh", lambda _: edited(lambda b: b.__setitem__("format", "json2"))),
    ("another engine", "bh", lambda _: edited(lambda b: b.__setitem__("engine", "deluxe"))),
    (
        "another STATE_VERSION",
        "bh",
        lambda _: edited(lambda b: b.__setitem__("version", bh.STATE_VERSION + 1)),
    ),
    ("a bool for the version", "bh", lambda _: edited(lambda b: b.__setitem__("version", True))),
    ("a header key more", "bh", lambda _: edited(lambda b: b.__setitem__("note", 1))),
    ("the header out of order", "bh", lambda _: edited(lambda b: b.update(format=b.pop("format")))),
    ("a bool where an int is wanted", "bh", lambda _: edited(set_state("hand_no", True))),
    ("an int where a bool is wanted", "bh", lambda _: edited(set_state("muggins", 0))),
    ("a float where an int is wanted", "bh", lambda _: edited(set_state("count", 3.0))),
    ("a string where an int is wanted", "bh", lambda _: edited(set_state("count", "3"))),
    ("an unknown field", "bh", lambda _: edited(set_state("extra", 1))),
    ("a missing field", "bh", lambda _: edited(lambda b: b["state"].pop("count"))),
    ("a card index out of range", "bh", lambda _: edited(set_state("up", len(ALL_CARDS)))),
    ("a negative card index", "bh", lambda _: edited(set_state("up", -1))),
    ("a bool for a card", "bh", lambda _: edited(set_state("up", True))),
    ("a card given as an object", "bh", lambda _: edited(set_state("up", {"index": 3}))),
    ("a bad enum value", "bh", lambda _: edited(set_state("phase", "dance"))),
    ("an enum by name", "bh", lambda _: edited(set_state("phase", "PLAY"))),
    ("a fixed tuple too short", "bh", lambda _: edited(set_state("scores", [10]))),
    ("a fixed tuple too long", "bh", lambda _: edited(set_state("scores", [10, 10, 10]))),
    ("an object for a tuple", "bh", lambda _: edited(set_state("deck", {"0": 1}))),
    ("a string for a tuple", "bh", lambda _: edited(set_state("deck", "abc"))),
    ("null where None is not allowed", "bh", lambda _: edited(set_state("dealer", None))),
    (
        "options out of range",
        "bh",
        lambda _: edited(lambda b: b["state"]["options"].__setitem__("target", 5)),
    ),
    (
        "options with a field more",
        "bh",
        lambda _: edited(lambda b: b["state"]["options"].__setitem__("x", 1)),
    ),
    ("a huge int", "bh", lambda _: raw_state("count", b"9" * 5000)),
    ("NaN", "bh", lambda _: raw_state("count", b"NaN")),
    ("Infinity", "bh", lambda _: raw_state("count", b"-Infinity")),
    ("a key given twice", "bh", lambda _: valid().replace(b'"count":', b'"count":0,"count":')),
    ("too large", "bh", lambda _: valid()[:-1] + b" " * MAX_BYTES + b"}"),
    ("too deep", "bh", lambda _: b"[" * 30_000 + b"]" * 30_000),
    ("deep where a card is wanted", "bh", lambda _: raw_state("up", b"[" * 500 + b"]" * 500)),
    (
        "a Literal value it does not allow",
        "dx",
        lambda _: edited(a_meld(lambda m: m.update(kind="flush")), DX),
    ),
    ("a Literal value of another type", "dx", lambda _: edited(a_meld(lambda m: m.update(kind=1)), DX)),
    ("a value of no member's type", "dx", lambda _: edited(set_state("seed", 1.5), DX)),
    ("a suit of no Suit", "dx", lambda _: edited(set_state("die_suit", "Stars"), DX)),
]


@pytest.mark.parametrize(("engine", "make"), [(e, m) for _, e, m in HOSTILE], ids=[k for k, _, _ in HOSTILE])
def test_a_snapshot_not_exactly_of_the_shape_is_refused(
    engine: str, make: Callable[[Path], bytes], tmp_path: Path
) -> None:
    data = make(tmp_path)
    codec, like = (BH, bh_state()) if engine == "bh" else (DX, dx_state())
    with pytest.raises(SnapshotError):
        load(codec, data, like)
    assert not (tmp_path / "owned").exists()


def test_the_pickle_payload_is_real(tmp_path: Path) -> None:
    """What the codec refuses above does write the file when unpickled (so the refusal is what saves it)."""
    pickle.loads(pickle.dumps(Exploit(tmp_path / "control"))).close()
    assert (tmp_path / "control").exists()


def test_a_snapshot_of_another_game_is_refused() -> None:
    """Cheap checks against the game's own seed and options tell a snapshot of another game."""
    state = bh_state()
    data = BH.dump(state)
    with pytest.raises(SnapshotError, match="seed"):
        BH.load(data, seed=state.seed + 1, options=state.options)
    with pytest.raises(SnapshotError, match="options"):
        BH.load(data, seed=state.seed, options=replace(state.options, sequences=not state.options.sequences))
    with pytest.raises(SnapshotError, match="deluxe"):
        DX.load(data, seed=state.seed, options=state.options)
    with pytest.raises(SnapshotError):
        BH.load(data.decode(), seed=state.seed, options=state.options)  # type: ignore[arg-type]


def test_a_signed_snapshot_reads_back_only_for_its_game_action_and_key() -> None:
    """The bot's snapshots are signed over their game, their action count and their bytes: any byte
    changed, another game, another action count or another key, and nothing is parsed."""
    state, key = bh_state(), snapshots.key_from("token")
    signer = snapshots.Signer(BH, key)
    assert signer.tag.startswith(f"{BH.tag}:") and signer.tag != snapshots.Signer(BH, b"other").tag
    data = signer.dump(state, game=4, seq=10)
    like = {"seed": state.seed, "options": state.options, "players": 2}
    assert signer.load(data, game=4, seq=10, **like) == state
    for where in (0, 63, 64, len(data) // 2, len(data) - 1):
        for flip in (1, 2):
            damaged = data[:where] + bytes([data[where] ^ flip]) + data[where + 1 :]
            with pytest.raises(SnapshotError, match="not signed"):
                signer.load(damaged, game=4, seq=10, **like)
    for game, seq in ((5, 10), (4, 9), (4, 11)):
        with pytest.raises(SnapshotError, match="not signed"):
            signer.load(data, game=game, seq=seq, **like)
    with pytest.raises(SnapshotError, match="not signed"):
        snapshots.Signer(BH, snapshots.key_from("another token")).load(data, game=4, seq=10, **like)
    with pytest.raises(SnapshotError, match="not signed"):  # the JSON alone, as the codec writes it
        signer.load(BH.dump(state), game=4, seq=10, **like)
    for hostile in (b"", b"0" * 64, pickle.dumps(bh_state()), "text", b"0" * (64 + MAX_BYTES + 1)):
        with pytest.raises(SnapshotError):
            signer.load(hostile, game=4, seq=10, **like)  # type: ignore[arg-type]


def test_a_signed_snapshot_is_checked_against_its_games_seats() -> None:
    """Even signed, a state of another seat count than its game's is refused (a State that has one)."""
    state = dx_state()
    signer = snapshots.Signer(DX, b"k" * 32)
    like = {"seed": state.seed, "options": state.options}
    data = signer.dump(state, game=1, seq=3)
    assert signer.load(data, game=1, seq=3, players=state.players, **like) == state
    with pytest.raises(SnapshotError, match="seats"):
        signer.load(data, game=1, seq=3, players=state.players + 1, **like)
    wide = signer.dump(replace(state, players=3_000_000), game=1, seq=3)
    with pytest.raises(SnapshotError, match="3000000 seats"):
        signer.load(wide, game=1, seq=3, players=state.players, **like)


def test_random_damage_is_refused_or_still_a_state_of_the_shape() -> None:
    """Bytes flipped, dropped or added anywhere in real snapshots: the load refuses them with SnapshotError,
    or (a digit changed into another valid one) gives a state of the State's exact shape."""
    rng = random.Random(7)
    samples = [s for seed in range(3) for s in states_of(dx, seed)][::25] + list(states_of(bh, 2))[::10]
    refused = 0
    for i in range(3000):
        state = samples[i % len(samples)]
        codec = DX if isinstance(state, dx.State) else BH
        data = bytearray(codec.dump(state))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data))
            match rng.randrange(3):
                case 0:
                    data[at] = rng.randrange(256)
                case 1:
                    del data[at]
                case _:
                    data.insert(at, rng.choice(b'0123456789[]{},:"-eE. tfn\\'))
        try:
            back = load(codec, bytes(data), state)
        except SnapshotError:
            refused += 1
            continue
        assert type(back) is type(state)
        assert codec.load(codec.dump(back), seed=state.seed, options=state.options) == back
    assert refused > 2000


def test_a_state_that_is_not_of_its_shape_is_not_written() -> None:
    state = bh_state()
    with pytest.raises(SnapshotError):
        BH.dump(replace(state, hand_no=True))
    with pytest.raises(SnapshotError):
        BH.dump(replace(state, deck=list(state.deck)))  # type: ignore[arg-type]
    forged = Card(3, "Forged", ALL_CARDS[3].rank, (Suit.MOONS,))
    with pytest.raises(SnapshotError):
        BH.dump(replace(state, up=forged))
    with pytest.raises(SnapshotError):
        DX.dump(state)


# ---------------------------------------------------------------- what the format carries


class Weight(enum.Enum):
    LIGHT = 0.5


@dataclass(frozen=True)
class Weighed:
    w: Weight


@dataclass(frozen=True)
class Floaty:
    x: float


@dataclass
class Mutable:
    x: int


@dataclass(frozen=True)
class Ambiguous:
    x: int | Card


@dataclass(frozen=True)
class Listy:
    x: list[int]


@dataclass(frozen=True)
class Fine:
    """Every kind the format carries, in one State."""

    a: int
    b: bool
    c: str
    d: None
    e: Suit | None
    f: Literal["x", 2, True]
    g: tuple[Card, ...]
    h: tuple[int, str | None]
    i: int | str | tuple[int, ...]
    j: tuple[tuple[int | None, ...], ...]


def engine(state: type, version: Any = 1) -> Any:
    return SimpleNamespace(__name__=f"tests.{state.__name__.lower()}", STATE_VERSION=version, State=state)


@pytest.mark.parametrize("state", [Floaty, Mutable, Ambiguous, Listy, Weighed])
def test_a_state_the_format_cannot_carry_has_no_codec(state: type) -> None:
    with pytest.raises(TypeError):
        snapshots.codec(engine(state))


@pytest.mark.parametrize("version", [0, True, "1", 1.0])
def test_state_version_is_a_positive_int(version: Any) -> None:
    with pytest.raises(TypeError, match="STATE_VERSION"):
        snapshots.codec(engine(Fine, version))


def test_every_kind_the_format_carries_round_trips() -> None:
    codec = snapshots.codec(engine(Fine))
    assert codec is not None and codec.tag == "json1:fine:1"
    value = Fine(1, False, "é", None, Suit.WYRMS, True, ALL_CARDS[:3], (4, None), (5, 6), ((1, None), ()))
    back = codec.load(codec.dump(value), seed=0, options=None)
    assert back == value and back.f is True and back.i == (5, 6)
    for other in ("x", 2):
        assert codec.load(codec.dump(replace(value, f=other)), seed=0, options=None).f == other
    assert codec.load(codec.dump(replace(value, i="s")), seed=0, options=None).i == "s"
    with pytest.raises(SnapshotError):
        codec.dump(replace(value, f=1))  # 1 is not True here
