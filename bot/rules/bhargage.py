"""Bhargage for two players (RULES.md R1–R13): the state machine the bot drives.

A game is fully determined by (seed, options, action log): the first-deal cut and every hand's shuffle
come from ``random.Random`` objects seeded from the game seed and the hand number, so no generator state
lives in ``State``.
Passes ("go"), the end of the play, the show and the next deal happen inside ``apply`` without any action.

This module owns what is Bhargage's own: the 45-card deck and its values (scoring in
``bot.rules.bhargage_scoring``), both pegs starting at 10, the discards that make the dealer's bhargage,
"2 for the Chief" on a Personality up-card, one count to 23 with no new count and "1 for last" unless the
count ends at 11 or 23, the sixth Ace's "Game!", and the shortage claim after each count of the show (a
game won by one is "Muggins!"); its options, states, actions, events, views and text form.

From ``bot.rules.counting`` it takes the cut for the first deal, the deal, the turn order with go, the
show's order, the actions ``Cut``, ``Play`` and ``Resign`` and the events ``CardPlayed``, ``WentGo`` and
``PlayEnded`` (re-exported here under these names), the bases of the events it names its own way, and the
contract's machinery (the working copy, ``apply``'s dispatch, ``can``, ``replay``, the log's text).
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from bot.rules import counting
from bot.rules.bhargage_scoring import (
    GAME,
    HandCount,
    ScoreItem,
    card_value,
    count_hand,
    missing_suits,
    peg_points,
    shortage,
    shortage_for,
)
from bot.rules.counting import CardPlayed, Cut, Play, PlayEnded, Resign, WentGo
from bot.rules.decktet import Card, Suit, bhargage_deck, card, sort_key
from bot.rules.engine import StoredOptions
from bot.rules.errors import BadActionText, GameOver, IllegalAction, NotYourTurn, RulesError

__all__ = [
    "STATE_VERSION",
    "Action",
    "BadOptions",
    "BhargageMade",
    "CardPlayed",
    "Cut",
    "DealerCut",
    "Discard",
    "DiscardChosen",
    "Event",
    "GameWon",
    "HandCount",
    "HandCounted",
    "HandDealt",
    "Options",
    "Phase",
    "Play",
    "PlayEnded",
    "PointsScored",
    "Resign",
    "Result",
    "ScoreItem",
    "SeatView",
    "ShortageClaimed",
    "State",
    "UpCardTurned",
    "WentGo",
    "action_text",
    "apply",
    "can",
    "check",
    "count_hand",
    "final_result",
    "is_over",
    "legal_actions",
    "parse_action",
    "peg_points",
    "replay",
    "shortage",
    "start",
    "view",
    "waiting_for",
]

START_SCORE = 10  # R3: both pegs start at 10 on a cribbage board
LIMIT = 23  # R7: the count never exceeds 23
HAND_SIZE = 5
MIN_TARGET = 21
MAX_TARGET = 221
# The calls' English words name them in events and logs; the render layer words them for players.
CHIEF = "2 for the Chief"  # i18n: not text
LAST = "1 for last"  # i18n: not text


class BadOptions(RulesError, ValueError):
    """Table options the game cannot be played with."""


@dataclass(frozen=True, slots=True)
class Options(StoredOptions):
    """Table options: the board number that wins (R3, default 121) and the sequences variant (R12)."""

    target: int = 121
    sequences: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.target, bool) or not isinstance(self.target, int):
            raise BadOptions("bhargage.options.target-whole")
        if not MIN_TARGET <= self.target <= MAX_TARGET:
            raise BadOptions(
                "bhargage.options.target-range", low=MIN_TARGET, high=MAX_TARGET, start=START_SCORE
            )
        if not isinstance(self.sequences, bool):
            raise BadOptions("bhargage.options.sequences-bool")

    @classmethod
    def unknown(cls, names: str) -> BadOptions:
        return BadOptions("bhargage.options.unknown", names=names)


class Phase(enum.StrEnum):
    DISCARD = "discard"
    CUT = "cut"
    PLAY = "play"
    OVER = "over"


# ---------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    cards: tuple[Card, Card]


Action = Discard | Cut | Play[Card] | Resign  # Cut, Play and Resign are the counting family's
HowWon = Literal["target", "game", "muggins", "resign", "forfeit"]


# ---------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class DealerCut:
    """Each round of the cut for first deal as (seat 0's card, seat 1's card); the last round decided (R4)."""

    cuts: tuple[tuple[Card, Card], ...]
    dealer: int


@dataclass(frozen=True, slots=True)
class HandDealt:
    hand_no: int
    dealer: int


class DiscardChosen(counting.LaidAway):
    """A seat laid (or replaced) its discard; the cards stay secret (R5)."""

    __slots__ = ()


class BhargageMade(counting.ExtraMade):
    """Both discards are in and now form the dealer's bhargage."""

    __slots__ = ()


class UpCardTurned(counting.CardTurned[Card]):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class PointsScored:
    seat: int
    points: int
    reason: str
    cards: tuple[Card, ...]
    total_after: int


@dataclass(frozen=True, slots=True)
class HandCounted:
    """A hand or the bhargage counted in the show; ``cards`` are revealed here for the first time."""

    seat: int
    kind: Literal["hand", "bhargage"]
    cards: tuple[Card, ...]
    up: Card
    items: tuple[ScoreItem, ...]
    total: int
    total_after: int


@dataclass(frozen=True, slots=True)
class ShortageClaimed:
    claimant: int
    owner: int
    kind: Literal["hand", "bhargage"]
    missing: tuple[Suit, ...]
    points: int
    total_after: int


@dataclass(frozen=True, slots=True)
class GameWon:
    seat: int
    how: HowWon
    scores: tuple[int, int]


Event = (
    DealerCut
    | HandDealt
    | DiscardChosen
    | BhargageMade
    | UpCardTurned
    | CardPlayed[Card]
    | PointsScored
    | WentGo
    | PlayEnded
    | HandCounted
    | ShortageClaimed
    | GameWon
)


# ---------------------------------------------------------------- state

# The version of State that snapshots store (bot/services/snapshots.py): bump it only when the State's
# shape or meaning changes, or that of what it holds (Options, Phase, cards);
# snapshots of other versions are left unread.
STATE_VERSION = 2  # 2: State.best

Hands = tuple[tuple[Card, ...], tuple[Card, ...]]
_NO_HANDS: Hands = ((), ())


@dataclass(frozen=True, slots=True)
class State:
    """Everything about a game in progress; small tuples only, cheap to copy.

    Card accounting: ``hands`` (cards still held) + ``discards`` (pending, before both are in) +
    ``bhargage`` + ``up`` + ``pile`` + ``deck`` are always the 45 cards.
    ``kept`` remembers the 3 kept cards for the show; ``bhargage`` is the non-dealer's two discards, then
    the dealer's two (so each seat can still be shown its own).
    """

    seed: int
    options: Options
    hand_no: int
    dealer: int
    phase: Phase
    scores: tuple[int, int]
    hands: Hands
    discards: Hands = _NO_HANDS
    kept: Hands = _NO_HANDS
    bhargage: tuple[Card, ...] = ()
    deck: tuple[Card, ...] = ()
    up: Card | None = None
    pile: tuple[tuple[int, Card], ...] = ()
    count: int = 0
    to_move: int = -1
    gone: tuple[bool, bool] = (False, False)
    winner: int = -1
    how: str = ""
    muggins: bool = False
    first_dealer: int = 0
    # Each seat's back peg: its score before its most recent scoring of 1 or more points (None until then).
    backs: tuple[int | None, int | None] = (None, None)
    # Each seat's best count in a show so far (its hand, or its bhargage when it dealt); -1 before its first.
    best: tuple[int, int] = (-1, -1)

    @property
    def non_dealer(self) -> int:
        return 1 - self.dealer


@dataclass(frozen=True, slots=True)
class Result:
    scores: tuple[int, int]
    winners: tuple[int, ...]
    muggins: bool
    how: str
    best_hands: tuple[int | None, ...] = ()  # each seat's best show count (None: never counted)


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may see: never the other hand, the bhargage or the deck."""

    seat: int
    phase: Phase
    hand_no: int
    dealer: int
    scores: tuple[int, int]
    target: int
    sequences: bool
    hand: tuple[Card, ...]
    discard: tuple[Card, ...]
    opponent_hand_size: int
    discarded: tuple[bool, bool]
    bhargage_size: int
    up: Card | None
    pile: tuple[tuple[int, Card], ...]
    count: int
    to_move: int | None
    gone: tuple[bool, bool]
    legal: tuple[Action, ...] = field(default=())
    winner: int | None = None


# ---------------------------------------------------------------- working copy


@dataclass(slots=True)
class _Work(counting.Working[State]):
    """A mutable copy of ``State`` for one ``apply`` (``counting.Working``)."""

    STATE = State
    LISTS = frozenset(("backs", "best", "discards", "gone", "hands", "scores"))
    seed: int
    options: Options
    hand_no: int
    dealer: int
    phase: Phase
    scores: list[int]
    hands: list[tuple[Card, ...]]
    discards: list[tuple[Card, ...]]
    kept: Hands
    bhargage: tuple[Card, ...]
    deck: tuple[Card, ...]
    up: Card | None
    pile: tuple[tuple[int, Card], ...]
    count: int
    to_move: int
    gone: list[bool]
    winner: int
    how: str
    muggins: bool
    first_dealer: int
    backs: list[int | None]
    best: list[int]

    def score(self, seat: int, points: int) -> bool:
        """Add points; True when that reaches the target (R11: the game ends at that moment).

        A scoring of 1 or more moves the back peg to the score before it; 0 points move no peg.
        """
        if points > 0:
            self.backs[seat] = self.scores[seat]
        self.scores[seat] += points
        return self.scores[seat] >= self.options.target

    def win(self, seat: int, how: HowWon, ev: list[Event]) -> None:
        self.phase = Phase.OVER
        self.winner = seat
        self.how = how
        self.muggins = how == "muggins"
        self.to_move = -1
        ev.append(GameWon(seat, how, (self.scores[0], self.scores[1])))


# ---------------------------------------------------------------- start and dealing


def _cut_for_deal(seed: int) -> tuple[tuple[tuple[Card, Card], ...], int]:
    """R4: each seat cuts a card; the lower rank deals; equal ranks cut again (``counting.cut_for_deal``)."""
    rounds, dealer = counting.cut_for_deal(seed, 2, bhargage_deck())
    return tuple((a, b) for (_, a), (_, b) in rounds), dealer


def _deal(w: _Work, ev: list[Event]) -> None:
    """Shuffle for hand ``w.hand_no`` from its own seed and deal 5 each, non-dealer first (R5)."""
    hands, rest = counting.deal(w.seed, w.hand_no, bhargage_deck(), 2, w.dealer, HAND_SIZE)
    w.hands = [tuple(sorted(h, key=sort_key)) for h in hands]
    w.deck = tuple(rest)
    w.discards = [(), ()]
    w.kept = _NO_HANDS
    w.bhargage = ()
    w.up = None
    w.pile = ()
    w.count = 0
    w.gone = [False, False]
    w.to_move = -1
    w.phase = Phase.DISCARD
    ev.append(HandDealt(w.hand_no, w.dealer))


def start(seed: int, players: int = 2, options: Options | None = None) -> tuple[State, list[Event]]:
    """A new game: cut for the first deal, then deal hand 1."""
    if players != 2:
        raise BadOptions("bhargage.options.two-players")
    options = options or Options()
    cuts, dealer = _cut_for_deal(seed)
    ev: list[Event] = [DealerCut(cuts, dealer)]
    base = State(
        seed=seed,
        options=options,
        hand_no=1,
        dealer=dealer,
        phase=Phase.DISCARD,
        scores=(START_SCORE, START_SCORE),
        hands=_NO_HANDS,
        first_dealer=dealer,
    )
    w = _Work.of(base)
    _deal(w, ev)
    return w.freeze(), ev


# ---------------------------------------------------------------- queries


def _can_play(hand: Iterable[Card], count: int) -> bool:
    room = LIMIT - count
    return any(card_value(c) <= room for c in hand)


def waiting_for(state: State) -> tuple[int, ...]:
    if state.phase is Phase.DISCARD:
        return tuple(s for s in (0, 1) if not state.discards[s])
    if state.phase is Phase.CUT:
        return (state.non_dealer,)
    if state.phase is Phase.PLAY:
        return (state.to_move,)
    return ()


def is_over(state: State) -> bool:
    return state.phase is Phase.OVER


def final_result(state: State) -> Result:
    if state.phase is not Phase.OVER:
        raise IllegalAction("bhargage.rules.not-over")
    best = tuple(b if b >= 0 else None for b in state.best)
    return Result(state.scores, (state.winner,), state.muggins, state.how, best)


def legal_actions(state: State, seat: int) -> list[Action]:
    """What ``seat`` may do now (resigning, always possible in a live game, is not listed)."""
    if state.phase is Phase.DISCARD:
        if state.discards[0] and state.discards[1]:
            return []
        dealt = sorted((*state.hands[seat], *state.discards[seat]), key=sort_key)
        return [Discard(seat, (a, b)) for a, b in itertools.combinations(dealt, 2)]
    if state.phase is Phase.CUT:
        return [Cut(seat)] if seat == state.non_dealer else []
    if state.phase is Phase.PLAY:
        if seat != state.to_move:
            return []
        room = LIMIT - state.count
        return [Play(seat, c) for c in state.hands[seat] if card_value(c) <= room]
    return []


def _own_discard(state: State, seat: int) -> tuple[Card, ...]:
    if state.discards[seat] or len(state.bhargage) != 2 * 2:
        return state.discards[seat]
    return state.bhargage[2:] if seat == state.dealer else state.bhargage[:2]


def view(state: State, seat: int) -> SeatView:
    if seat not in (0, 1):
        raise IllegalAction("bhargage.rules.no-such-seat")
    over = state.phase is Phase.OVER
    return SeatView(
        seat=seat,
        phase=state.phase,
        hand_no=state.hand_no,
        dealer=state.dealer,
        scores=state.scores,
        target=state.options.target,
        sequences=state.options.sequences,
        hand=tuple(sorted(state.hands[seat], key=sort_key)),
        discard=_own_discard(state, seat),
        opponent_hand_size=len(state.hands[1 - seat]),
        discarded=(bool(state.discards[0]), bool(state.discards[1])),
        bhargage_size=len(state.bhargage) + len(state.discards[0]) + len(state.discards[1]),
        up=state.up,
        pile=state.pile,
        count=state.count,
        to_move=state.to_move if state.phase is Phase.PLAY else None,
        gone=state.gone,
        legal=tuple(legal_actions(state, seat)),
        winner=state.winner if over else None,
    )


# ---------------------------------------------------------------- apply


def check(state: State, action: Action) -> None:
    """Raise the ``RulesError`` that ``apply`` would raise for this action; return None when it would succeed.

    This is the only validation: ``apply`` calls it first, so the two never disagree. It never changes the
    state and only looks at a few small tuples, so it is cheap enough to run on every click.
    """
    if counting.checked(state, action, 2, card_value, LIMIT, _REFUSALS):
        return
    if isinstance(action, Discard):
        if state.phase is not Phase.DISCARD:
            raise _phase_error(state.phase)
        if len(action.cards) != 2 or action.cards[0] == action.cards[1]:
            raise IllegalAction("bhargage.rules.discard-two")
        dealt = (*state.hands[action.seat], *state.discards[action.seat])
        if any(c not in dealt for c in action.cards):
            raise IllegalAction("bhargage.rules.not-held")
    else:  # pragma: no cover - the Action union is closed
        raise IllegalAction("bhargage.rules.not-an-action")


def can(state: State, action: Action) -> bool:
    """Whether ``apply`` would accept this action (``check`` without the reason)."""
    return counting.can(check, state, action)


def apply(state: State, action: Action) -> tuple[State, list[Event]]:
    """Apply one action; raises a ``RulesError`` with a sentence for the player when it is not allowed."""
    return counting.apply(check, _Work.of, _EFFECTS, state, action)


def _phase_error(phase: Phase) -> IllegalAction:
    if phase is Phase.DISCARD:
        return IllegalAction("bhargage.rules.time-to-discard")
    if phase is Phase.CUT:
        return IllegalAction("bhargage.rules.time-to-cut")
    return IllegalAction("bhargage.rules.time-to-play")


_REFUSALS = counting.Refusals(
    over=lambda: GameOver("bhargage.rules.game-over"),
    no_seat=lambda: IllegalAction("bhargage.rules.no-such-seat"),
    how=lambda: IllegalAction("bhargage.rules.resign-or-forfeit"),
    turn=lambda: NotYourTurn("bhargage.rules.not-your-turn"),
    held=lambda: IllegalAction("bhargage.rules.not-held"),
    past=lambda count: IllegalAction("bhargage.rules.past-23"),
    phase=_phase_error,
)


# The effects below run only after ``check`` accepted the action.


def _resign(w: _Work, a: Resign, ev: list[Event]) -> None:
    w.win(1 - a.seat, a.how, ev)


def _discard(w: _Work, a: Discard, ev: list[Event]) -> None:
    seat = a.seat
    dealt = (*w.hands[seat], *w.discards[seat])
    replaced = bool(w.discards[seat])
    w.discards[seat] = tuple(a.cards)
    w.hands[seat] = tuple(c for c in sorted(dealt, key=sort_key) if c not in a.cards)
    ev.append(DiscardChosen(seat, replaced))
    if w.discards[0] and w.discards[1]:
        nd = 1 - w.dealer
        w.bhargage = (*w.discards[nd], *w.discards[w.dealer])
        w.discards = [(), ()]
        w.phase = Phase.CUT
        ev.append(BhargageMade(w.dealer, len(w.bhargage)))


def _cut(w: _Work, a: Cut, ev: list[Event]) -> None:
    up = w.up = counting.turn(w, a.seat, UpCardTurned, ev)
    if up.personality:  # R6: a Character up-card is "2 for the Chief"
        won = w.score(w.dealer, 2)
        ev.append(PointsScored(w.dealer, 2, CHIEF, (up,), w.scores[w.dealer]))
        if won:
            w.win(w.dealer, "target", ev)
            return
    w.kept = (w.hands[0], w.hands[1])
    w.phase = Phase.PLAY
    w.count = 0
    w.to_move = 1 - w.dealer  # R7: non-dealer leads
    if not _can_play(w.hands[w.to_move], 0):  # pragma: no cover - every card fits under 23 at count 0
        _next_mover(w, w.dealer, ev)


def _play(w: _Work, a: Play[Card], ev: list[Event]) -> None:
    seat = a.seat
    counting.lay(w, seat, a.card, card_value(a.card), ev)
    # Every combination the card makes is scored ("All combinations are scored"), then R11 decides.
    won = game = False
    for item in peg_points([c for _, c in w.pile], sequences=w.options.sequences):
        if item.reason == GAME:  # R8: the sixth Ace wins at once
            game = True
            ev.append(PointsScored(seat, 0, GAME, item.cards, w.scores[seat]))
            continue
        won = w.score(seat, item.points) or won
        ev.append(PointsScored(seat, item.points, item.reason, item.cards, w.scores[seat]))
    if game or won:
        w.win(seat, "game" if game else "target", ev)
        return
    _next_mover(w, seat, ev)


_EFFECTS: counting.Effects = {Resign: _resign, Discard: _discard, Cut: _cut, Play: _play}


def _next_mover(w: _Work, last: int, ev: list[Event]) -> None:
    """Alternate turns; a seat that cannot play says "go" once and the other plays on alone (R7); when
    neither can, the play ends: no new count (``counting.next_to_play``)."""
    w.to_move = counting.next_to_play(w.hands, w.gone, last, w.count, _can_play, ev)
    if w.to_move < 0:
        _end_play(w, last, ev)


def _end_play(w: _Work, last: int, ev: list[Event]) -> None:
    if w.pile and w.count not in (11, LIMIT):  # R8: 11 and 23 were already scored
        won = w.score(last, 1)
        ev.append(PointsScored(last, 1, LAST, (w.pile[-1][1],), w.scores[last]))
        if won:
            ev.append(PlayEnded(w.count))
            w.win(last, "target", ev)
            return
    ev.append(PlayEnded(w.count))
    w.to_move = -1
    if _show(w, ev):
        return
    w.hand_no += 1
    w.dealer = 1 - w.dealer
    _deal(w, ev)


def _show(w: _Work, ev: list[Event]) -> bool:
    """R9/R10/R11: count each hand then the bhargage, each followed by the opponent's shortage claim.

    Returns True when the game ended; the counts after the winning one are not made.
    """
    up = w.up
    assert up is not None
    seq = w.options.sequences
    counts: tuple[tuple[int, Literal["hand", "bhargage"], tuple[Card, ...]], ...] = counting.show_order(
        w.kept, w.dealer, w.bhargage, "hand", "bhargage"
    )
    for owner, kind, cards in counts:
        hc = count_hand(cards, up, bhargage=kind == "bhargage", sequences=seq)
        won = w.score(owner, hc.total)
        w.best[owner] = max(w.best[owner], hc.total)
        ev.append(HandCounted(owner, kind, cards, up, hc.items, hc.total, w.scores[owner]))
        if won:
            w.win(owner, "target", ev)
            return True
        claimant = 1 - owner
        missing = missing_suits((*cards, up))
        points = shortage_for(len(missing))
        won = w.score(claimant, points)
        ev.append(ShortageClaimed(claimant, owner, kind, missing, points, w.scores[claimant]))
        if won:
            w.win(claimant, "muggins", ev)
            return True
    return False


# ---------------------------------------------------------------- text form


def action_text(action: Action) -> str:
    """The log's text form: ``0 discard author ace-moons``, ``1 cut``, ``0 play forest``, ``1 resign``."""
    if isinstance(action, Discard):
        return f"{action.seat} discard {action.cards[0].slug} {action.cards[1].slug}"
    return counting.shared_text(action, lambda c: c.slug)


def parse_action(text: str) -> Action:
    said = counting.words(text, 2)
    if said is not None:
        seat, verb, rest = said
        if verb == "discard" and len(rest) == 2:
            a, b = (counting.card_from_text(card, x) for x in rest)
            return Discard(seat, (a, b))
        action = counting.shared_action(seat, verb, rest, card)
        if action is not None:
            return action
    raise BadActionText("bhargage.rules.bad-action-text", text=text.strip())


def replay(seed: int, players: int, options: Options | None, texts: Sequence[str]) -> State:
    return counting.replay(start, apply, parse_action, seed, players, options, texts)
