"""The counting family's core: what Bhargage (RULES.md R1–R13, the count to 23) and Classic Cribbage (C1–C9,
the count to 31) do alike, for 2 to 4 seats; each engine keeps its deck, its scoring and its deviations.

- The cut for the first deal: every seat cuts, the lowest rank deals, those tied for the lowest cut again
  (R4, C2), from the game seed's own generator.
- The deal: a hand's shuffle from the seed and the hand number, dealt one card at a time from the dealer's
  left (R5, C2).
- The play's turn order and go (R7, C4): the turn passes to the first seat after the last to play that can
  play without passing the limit; every seat holding cards that cannot says "go", once per count; when
  nobody can play, the engine decides (Bhargage ends the play, Cribbage pegs the go and starts a new count).
- The show's order (R9, C5): each hand from the dealer's left, the dealer's last, then the dealer's extra
  count (the bhargage, the crib).
- The actions both engines take (``Cut``, ``Play``, ``Resign``) and the events they emit alike:
  ``CardPlayed``, ``WentGo``, ``PlayEnded`` (each engine re-exports them under these names), and the bases of
  those each names its own way (``LaidAway``, ``ExtraMade``, ``CardTurned``: Bhargage's discard and up-card,
  Cribbage's lay-away and starter).
- The contract's machinery: the working copy of a State (``Working``), ``apply`` (check, then the effect of
  the action's class), ``can``, ``replay``, and the log's text form of the shared actions and its cards.

Standard library only, like every engine: no state of its own, no randomness but seeded generators.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, ClassVar, Generic, Literal, Protocol, Self, TypeVar

from bot.rules.errors import BadActionText, RulesError, UnknownCard

__all__ = [
    "CardPlayed",
    "CardTurned",
    "Cut",
    "Effects",
    "ExtraMade",
    "LaidAway",
    "Play",
    "PlayEnded",
    "Refusals",
    "Resign",
    "WentGo",
    "Working",
    "apply",
    "can",
    "card_from_text",
    "checked",
    "cut_for_deal",
    "deal",
    "lay",
    "next_to_play",
    "replay",
    "shared_action",
    "shared_text",
    "show_order",
    "turn",
    "words",
]

C = TypeVar("C")
K = TypeVar("K", bound=str)
S = TypeVar("S")
A = TypeVar("A")


class _Ranked(Protocol):
    @property
    def rank(self) -> Any: ...


R = TypeVar("R", bound=_Ranked)
Rounds = tuple[tuple[tuple[int, R], ...], ...]  # the cut's rounds, each as (seat, card) for those who cut


# ---------------------------------------------------------------- actions both engines take


@dataclass(frozen=True, slots=True)
class Cut:
    """Cut the deck for the up-card (Bhargage) or the starter (Cribbage): the seat left of the dealer."""

    seat: int


@dataclass(frozen=True, slots=True)
class Play(Generic[C]):
    seat: int
    card: C


@dataclass(frozen=True, slots=True)
class Resign:
    seat: int
    how: Literal["resign", "forfeit"] = "resign"


# ---------------------------------------------------------------- events both engines emit


@dataclass(frozen=True, slots=True)
class CardPlayed(Generic[C]):
    seat: int
    card: C
    count: int  # the count after it


@dataclass(frozen=True, slots=True)
class WentGo:
    """The seat could not play without passing the limit (said once per count)."""

    seat: int


@dataclass(frozen=True, slots=True)
class PlayEnded:
    count: int


# Events both engines emit under names of their own (each subclasses these with its words and rulings).


@dataclass(frozen=True, slots=True)
class LaidAway:
    """A seat laid away (or replaced its choice): the cards stay secret."""

    seat: int
    replaced: bool = False


@dataclass(frozen=True, slots=True)
class ExtraMade:
    """Every seat has laid away: the dealer's extra count (the bhargage, the crib), of ``size`` cards."""

    dealer: int
    size: int


@dataclass(frozen=True, slots=True)
class CardTurned(Generic[C]):
    """The cut turned the card every hand counts with (the up-card, the starter)."""

    seat: int  # the seat that cut
    card: C


# ---------------------------------------------------------------- the cut and the deal


def cut_for_deal(seed: int, seats: int, deck: Sequence[R]) -> tuple[Rounds[R], int]:
    """R4, C2: every seat cuts a card from ``deck``; the lowest rank deals; those tied for the lowest cut
    again. Each round as (seat, card) for the seats that cut in it, and the dealer."""
    rng = random.Random(f"{seed}:cut")
    rounds: list[tuple[tuple[int, R], ...]] = []
    cutting = tuple(range(seats))
    while True:
        drawn = rng.sample(deck, len(cutting))
        rounds.append(tuple(zip(cutting, drawn, strict=True)))
        low = min(c.rank for c in drawn)
        cutting = tuple(s for s, c in zip(cutting, drawn, strict=True) if c.rank == low)
        if len(cutting) == 1:
            return tuple(rounds), cutting[0]


def deal(
    seed: int, hand_no: int, deck: Iterable[C], seats: int, dealer: int, size: int
) -> tuple[list[list[C]], list[C]]:
    """The hand's shuffle (its own generator, from the seed and the hand number), ``size`` cards to each seat
    one at a time from the dealer's left; the seats' cards (in the order dealt) and the rest of the deck."""
    cards = list(deck)
    random.Random(f"{seed}:{hand_no}").shuffle(cards)
    hands: list[list[C]] = [[] for _ in range(seats)]
    dealt = seats * size
    for i in range(dealt):
        hands[(dealer + 1 + i) % seats].append(cards[i])
    return hands, cards[dealt:]


# ---------------------------------------------------------------- the play


class _Events(Protocol):
    def append(self, event: WentGo, /) -> None: ...


def next_to_play(
    hands: Sequence[Sequence[C]],
    gone: list[bool],
    last: int,
    count: int,
    can_play: Callable[[Sequence[C], int], bool],
    ev: _Events,
) -> int:
    """R7, C4: the seat to play after ``last``: the first from its left (``last`` itself at the end) that
    ``can_play`` on ``count``. Each seat before it that holds cards and cannot play says "go" (a ``WentGo``
    in ``ev``, marked in ``gone``), once per count. -1 when nobody can play: the engine ends the play (or
    the count)."""
    n = len(hands)
    for k in range(1, n + 1):
        t = (last + k) % n
        if can_play(hands[t], count):
            return t
        if t != last and hands[t] and not gone[t]:
            gone[t] = True
            ev.append(WentGo(t))
    return -1


def lay(w: Any, seat: int, card: C, value: int, ev: list[Any]) -> None:
    """R7, C4: ``seat`` plays ``card`` (worth ``value`` to the count) from its hand onto this count's pile,
    and says the count it makes (a ``CardPlayed``); the engine then scores it."""
    w.hands[seat] = tuple(c for c in w.hands[seat] if c != card)
    w.pile = (*w.pile, (seat, card))
    w.count += value
    ev.append(CardPlayed(seat, card, w.count))


def turn(w: Any, seat: int, turned: Callable[[int, C], CardTurned[C]], ev: list[Any]) -> C:
    """R6, C3: ``seat``'s cut turns the top card of the rest of the deck, which every hand counts with
    (``turned``: the engine's event for it, the up-card or the starter)."""
    card: C = w.deck[0]
    w.deck = w.deck[1:]
    ev.append(turned(seat, card))
    return card


# ---------------------------------------------------------------- the show


def show_order(
    kept: Sequence[tuple[C, ...]], dealer: int, extra: tuple[C, ...], hand: K, kind: K
) -> tuple[tuple[int, K, tuple[C, ...]], ...]:
    """R9, C5: each seat's ``kept`` hand from the dealer's left, the dealer's last, then the dealer's
    ``extra`` (the bhargage, the crib): (owner, ``hand`` or ``kind``, cards) in the order they count."""
    n = len(kept)
    order = [((dealer + k) % n, hand, kept[(dealer + k) % n]) for k in range(1, n + 1)]
    order.append((dealer, kind, extra))
    return tuple(order)


# ---------------------------------------------------------------- the working copy


class Working(Generic[S]):
    """A mutable copy of an engine's frozen ``State`` for one ``apply``: one freeze at the end instead of many
    replaces. A subclass is a ``dataclass(slots=True)`` with the State's fields in the State's order, names
    the State (``STATE``) and the fields copied as lists (``LISTS``, frozen back into tuples). Both ways
    every field is read at once and passed by position: this runs on every move."""

    __slots__ = ()
    STATE: ClassVar[Callable[..., Any]]
    LISTS: ClassVar[frozenset[str]]
    _READ: ClassVar[Callable[[Any], tuple[Any, ...]]]
    _LIST_AT: ClassVar[tuple[int, ...]]

    def __init_subclass__(cls) -> None:
        names = tuple(f.name for f in fields(cls.STATE))  # type: ignore[arg-type]
        if tuple(cls.__annotations__) != names:
            raise TypeError(f"{cls.__name__} must declare the fields of {cls.STATE}, in its order")
        cls._READ = attrgetter(*names)
        cls._LIST_AT = tuple(i for i, n in enumerate(names) if n in cls.LISTS)

    @classmethod
    def of(cls, state: S) -> Self:
        values = list(cls._READ(state))
        for i in cls._LIST_AT:
            values[i] = list(values[i])
        return cls(*values)

    def freeze(self) -> S:
        kind = type(self)
        values = list(kind._READ(self))
        for i in kind._LIST_AT:
            values[i] = tuple(values[i])
        state: S = kind.STATE(*values)
        return state


# ---------------------------------------------------------------- the contract's shared parts


@dataclass(frozen=True)
class Refusals:
    """An engine's words for the refusals the family shares: each makes the engine's own error (its
    message id in its catalog), ``past`` from the count, ``phase`` from the phase the game is in."""

    over: Callable[[], RulesError]
    no_seat: Callable[[], RulesError]
    how: Callable[[], RulesError]
    turn: Callable[[], RulesError]
    held: Callable[[], RulesError]
    past: Callable[[int], RulesError]
    phase: Callable[[Any], RulesError]


def checked(
    state: Any, action: Any, seats: int, value: Callable[[Any], int], limit: int, words: Refusals
) -> bool:
    """The checks every counting game makes alike (R7, C4): the game is not over and the seat is one of
    ``seats``; a resignation says resign or forfeit; the cut is the seat left of the dealer's, in the cut;
    a play is the turn's seat's, a card it holds, not past ``limit``. True when ``action`` is one of the
    shared actions and passed; False when it is the engine's own to check (after the first two checks)."""
    if state.phase == "over":
        raise words.over()
    seat = action.seat
    if type(seat) is not int or not 0 <= seat < seats:
        raise words.no_seat()
    if isinstance(action, Resign):
        if action.how not in ("resign", "forfeit"):
            raise words.how()
        return True
    if isinstance(action, Cut):
        if state.phase != "cut":
            raise words.phase(state.phase)
        if seat != (state.dealer + 1) % seats:
            raise words.turn()
        return True
    if isinstance(action, Play):
        if state.phase != "play":
            raise words.phase(state.phase)
        if seat != state.to_move:
            raise words.turn()
        if action.card not in state.hands[seat]:
            raise words.held()
        if state.count + value(action.card) > limit:
            raise words.past(state.count)
        return True
    return False


# An engine's effect of each action class on its working copy (after ``check`` accepted the action).
Effects = Mapping[type, Callable[[Any, Any, list[Any]], None]]


def apply(
    check: Callable[[S, A], None],
    work: Callable[[S], Working[S]],
    effects: Effects,
    state: S,
    action: A,
) -> tuple[S, list[Any]]:
    """``check`` the action (the only validation, so ``check`` and ``apply`` never disagree), then its
    effect (by the action's class) on a working copy: the new state and the events."""
    check(state, action)
    ev: list[Any] = []
    w = work(state)
    effects[type(action)](w, action, ev)
    return w.freeze(), ev


def can(check: Callable[[S, A], None], state: S, action: A) -> bool:
    """Whether ``apply`` would accept this action (``check`` without the reason)."""
    try:
        check(state, action)
    except RulesError:
        return False
    return True


def replay(
    start: Callable[[int, int, Any], tuple[S, Any]],
    apply: Callable[[S, A], tuple[S, Any]],
    parse_action: Callable[[str], A],
    seed: int,
    players: int,
    options: Any,
    texts: Sequence[str],
) -> S:
    """The state the logged actions lead to from the start."""
    state, _ = start(seed, players, options)
    for text in texts:
        state, _ = apply(state, parse_action(text))
    return state


def shared_text(action: Cut | Play[C] | Resign, code: Callable[[C], str]) -> str:
    """The log's text of the shared actions: ``1 cut``, ``0 play <card>``, ``1 resign``, ``1 forfeit``."""
    if isinstance(action, Cut):
        return f"{action.seat} cut"
    if isinstance(action, Play):
        return f"{action.seat} play {code(action.card)}"
    return f"{action.seat} {action.how}"


def words(text: str, seats: int) -> tuple[int, str, list[str]] | None:
    """A logged action's seat (one of ``seats``), verb (lowercased) and the words after; None when the text
    does not start with a seat and a verb."""
    parts = text.split()
    if len(parts) < 2 or parts[0] not in _SEAT_WORDS[:seats]:
        return None
    return int(parts[0]), parts[1].lower(), parts[2:]


_SEAT_WORDS = ("0", "1", "2", "3")


def shared_action(
    seat: int, verb: str, rest: Sequence[str], card: Callable[[str], C]
) -> Cut | Play[C] | Resign | None:
    """The shared actions from a logged verb and its words; None when they are none of them."""
    if verb == "play" and len(rest) == 1:
        return Play(seat, card_from_text(card, rest[0]))
    if verb == "cut" and not rest:
        return Cut(seat)
    if verb == "resign" and not rest:
        return Resign(seat, "resign")
    if verb == "forfeit" and not rest:
        return Resign(seat, "forfeit")
    return None


def card_from_text(card: Callable[[str], C], word: str) -> C:
    """A card of the log's text form; a ``BadActionText`` (the unknown card's refusal) when it is none."""
    try:
        return card(word)
    except UnknownCard as err:
        raise BadActionText(err.msgid, **err.values) from err
