"""Bharg Deluxe (Cristyn Magnus), 2–6 players, as RULES.md D1–D10 play it.

The state machine of one game: hands of draw → bind → discard turns, scored until someone reaches the target.
Meld checks and the bindable-meld search live in ``deluxe_melds`` and are re-exported here.

Choices the texts leave open, decided here:
- D8 (amended): "a player must draw" is the draw step of a turn (D4: deck or queue), so the deck is checked
  each time a draw step begins — the hand's first turn after setup, every later turn, and a turn that starts
  over after fast start 1. An empty deck there is rebuilt once per hand from the Discard Queue except its top
  card; the second empty deck of the hand, or a rebuild that would leave the deck empty (queue of 0 or 1
  card), ends the hand at once and it is scored, even if the queue could still be taken. The player never
  faces an empty deck, so no hand can stall on it: the deck is drawn through at most twice.
- D10 option 3: the die suit is the straight suit only while the Ace Pile is empty (an Ace turned at setup
  is a real Ace and wins).
- D7: during the final-bind window a player who binds their last card is done automatically.
- ``Leave`` is always allowed for a seat still playing and is not listed by ``legal_actions``. A seat that
  leaves keeps its hand and bound cards until the hand is scored (bound minus hand), then gets no more hands
  and can't win. If fewer than two seats remain the game ends at once (the unfinished hand is not scored).
- Only seats still playing count for reaching the target and for winning (D9).
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from bot.rules.decktet import Card, Rank, Suit, cards, deluxe_deck, shuffled, sort_key
from bot.rules.deluxe_melds import (
    BHARG_SET,
    COMPLETE,
    PARTIAL,
    Meld,
    MeldKind,
    TableUse,
    card_points,
    find_melds,
    find_partial,
    is_bharg_set,
    is_complete_straight,
    refusal,
    straight_order,
)
from bot.rules.engine import StoredOptions
from bot.rules.errors import BadActionText, GameOver, IllegalAction, Names, NotYourTurn, Phrase, RulesError

__all__ = [
    "BHARG_SET",
    "COMPLETE",
    "PARTIAL",
    "STATE_VERSION",
    "AceDrawnToPile",
    "AceTurned",
    "Action",
    "BadOptions",
    "Bind",
    "CardDiscarded",
    "CardDrawn",
    "DeckRanOut",
    "DeckReshuffled",
    "DieRolled",
    "Discard",
    "Done",
    "Draw",
    "Event",
    "FinalBindOffered",
    "GameWon",
    "HandScored",
    "HandStarted",
    "Leave",
    "Meld",
    "MeldBound",
    "Options",
    "Phase",
    "PlayerWentOut",
    "QueueTaken",
    "Result",
    "ScoreRow",
    "SeatLeft",
    "State",
    "TakeQueue",
    "TiePlayedOn",
    "TurnStarted",
    "View",
    "action_text",
    "apply",
    "bindable_melds",
    "can",
    "card_points",
    "check",
    "classify",
    "final_result",
    "find_melds",
    "hand_scores",
    "is_bharg_set",
    "is_complete_straight",
    "is_over",
    "legal_actions",
    "legal_moves",
    "parse_action",
    "replay",
    "start",
    "straight_order",
    "straight_suit",
    "table_melds",
    "view",
    "waiting_for",
]

HAND_SIZE = 10
MIN_PLAYERS, MAX_PLAYERS = 2, 6


class BadOptions(RulesError, ValueError):
    """Table options that do not describe a playable Bharg Deluxe game."""


MIN_TARGET = 10
MAX_TARGET = 1000


@dataclass(frozen=True, slots=True)
class Options(StoredOptions):
    """Table options: target score (D9), Pawns/Courts (D1), fast start 0 none or 1/2/3 (D10, at most one)."""

    target: int = 100
    pawns: bool = False
    courts: bool = False
    fast_start: int = 0

    def __post_init__(self) -> None:
        if (
            isinstance(self.target, bool)
            or not isinstance(self.target, int)
            or not MIN_TARGET <= self.target <= MAX_TARGET
        ):
            raise BadOptions("deluxe.options.target-range", low=MIN_TARGET, high=MAX_TARGET)
        for name in ("pawns", "courts"):
            if not isinstance(getattr(self, name), bool):
                raise BadOptions("deluxe.options.on-off", name=name)
        if isinstance(self.fast_start, bool) or self.fast_start not in (0, 1, 2, 3):
            raise BadOptions("deluxe.options.fast-start")

    @classmethod
    def unknown(cls, names: str) -> BadOptions:
        return BadOptions("deluxe.options.unknown", names=names)


# --- actions ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Draw:
    seat: int


@dataclass(frozen=True, slots=True)
class TakeQueue:
    seat: int
    n: int


@dataclass(frozen=True, slots=True)
class Bind:
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Done:
    seat: int


@dataclass(frozen=True, slots=True)
class Leave:
    seat: int


Action = Draw | TakeQueue | Bind | Discard | Done | Leave


# --- events -----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandStarted:
    hand_no: int
    first_seat: int
    ace_pile_top: Card | None
    queue: tuple[Card, ...]
    straight_suit: Suit | None


@dataclass(frozen=True, slots=True)
class AceTurned:
    """An Ace turned while setting up went onto the Ace Pile (D3)."""

    card: Card


@dataclass(frozen=True, slots=True)
class DieRolled:
    """Fast start 3: the die that picked the initial straight suit (D10)."""

    face: int
    suit: Suit


@dataclass(frozen=True, slots=True)
class TurnStarted:
    seat: int


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """The seat drew the top of the deck; which card is secret."""

    seat: int


@dataclass(frozen=True, slots=True)
class AceDrawnToPile:
    """Fast start 1: an Ace drawn onto an empty Ace Pile went there at once; the turn starts over (D10)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class QueueTaken:
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class MeldBound:
    seat: int
    kind: MeldKind
    cards: tuple[Card, ...]
    used: TableUse


@dataclass(frozen=True, slots=True)
class CardDiscarded:
    seat: int
    card: Card
    to: Literal["ace pile", "queue"]  # i18n: not text


@dataclass(frozen=True, slots=True)
class DeckReshuffled:
    """The deck was empty at a draw: the Discard Queue except its top card, n cards, became the new deck.
    This happens at most once a hand (D8)."""

    n: int


@dataclass(frozen=True, slots=True)
class DeckRanOut:
    """The deck was empty when ``seat`` had to draw, so the hand ended at once and is scored (D8).

    ``rebuilt``: the deck had already been rebuilt this hand (it ran out a second time); otherwise the
    Discard Queue held too few cards to rebuild it."""

    seat: int
    rebuilt: bool


@dataclass(frozen=True, slots=True)
class PlayerWentOut:
    """The seat has no cards left: the hand ends (D7)."""

    seat: int


@dataclass(frozen=True, slots=True)
class FinalBindOffered:
    """D7 exception: the first player went out on their first turn; this seat may still bind."""

    seat: int


@dataclass(frozen=True, slots=True)
class ScoreRow:
    seat: int
    bound_points: int
    hand_penalty: int
    hand_score: int
    total: int


@dataclass(frozen=True, slots=True)
class HandScored:
    hand_no: int
    rows: tuple[ScoreRow, ...]


@dataclass(frozen=True, slots=True)
class TiePlayedOn:
    """The target was reached but the top is tied: another hand is played (D9)."""

    seats: tuple[int, ...]
    total: int


@dataclass(frozen=True, slots=True)
class SeatLeft:
    seat: int


@dataclass(frozen=True, slots=True)
class GameWon:
    winners: tuple[int, ...]
    scores: tuple[int, ...]


Event = (
    HandStarted
    | AceTurned
    | DieRolled
    | TurnStarted
    | CardDrawn
    | AceDrawnToPile
    | QueueTaken
    | MeldBound
    | CardDiscarded
    | DeckReshuffled
    | DeckRanOut
    | PlayerWentOut
    | FinalBindOffered
    | HandScored
    | TiePlayedOn
    | SeatLeft
    | GameWon
)


# --- state ------------------------------------------------------------------------------------------------


# The version of State that snapshots store (bot/services/snapshots.py): bump it only when the State's
# shape or meaning changes, or that of what it holds (Options, Phase, Meld, ScoreRow, Suit, cards);
# snapshots of other versions are left unread.
STATE_VERSION = 2  # 2: State.taken, State.passed


class Phase(enum.Enum):
    DRAW = "draw"
    BIND = "bind"  # bind any number of melds, then discard
    FINAL_BIND = "final bind"  # i18n: not text. D7 exception window: bind, then done
    OVER = "over"


@dataclass(frozen=True, slots=True)
class State:
    """One game. Piles are tuples with the top card LAST (deck, Discard Queue, Ace Pile)."""

    seed: int | str
    players: int
    options: Options
    hand_no: int
    first_seat: int
    turn: int
    phase: Phase
    deck: tuple[Card, ...]
    queue: tuple[Card, ...]
    ace_pile: tuple[Card, ...]
    die_suit: Suit | None
    hands: tuple[tuple[Card, ...], ...]
    bound: tuple[tuple[Meld, ...], ...]
    totals: tuple[int, ...]
    left: tuple[bool, ...]
    first_turn: bool = True  # the hand's first player is still on their first turn (D7)
    final_binders: tuple[int, ...] = ()  # seats still waiting for their D7 window after the current one
    reshuffles: int = 0  # times the deck was rebuilt this hand: 0 or 1, the next empty deck ends it (D8)
    last_rows: tuple[ScoreRow, ...] = ()
    winners: tuple[int, ...] = ()
    how: str = ""
    # Per scored hand, each seat's hand score, or None for a seat that was not dealt in (it had left).
    history: tuple[tuple[int | None, ...], ...] = ()
    drawn: Card | None = None  # the card the seat to move drew from the deck this turn (secret to it)
    # What the whole table saw of each seat's hand this hand: the cards it took from the Discard Queue and
    # still holds, and the queue's top card when it last drew from the deck instead (the card it passed).
    taken: tuple[tuple[Card, ...], ...] = ()
    passed: tuple[tuple[Card, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Result:
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    muggins: bool = False
    how: str = ""
    left: tuple[bool, ...] = ()  # seats that left the game: they rank below everyone who played on


@dataclass(frozen=True, slots=True)
class View:
    """What one seat may see: its own hand, and everything public."""

    seat: int
    hand: tuple[Card, ...]
    bound: tuple[tuple[Meld, ...], ...]
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    left: tuple[bool, ...]
    queue: tuple[Card, ...]  # bottom first, top last
    ace_pile_top: Card | None
    die_suit: Suit | None
    straight_suit: Suit | None
    deck_count: int
    phase: Phase
    turn: int
    first_seat: int
    hand_no: int
    target: int
    last_rows: tuple[ScoreRow, ...] = field(default=())
    winners: tuple[int, ...] = field(default=())
    drawn: Card | None = None  # this seat's draw from the deck this turn, while it binds and discards
    deck_rebuilt: bool = False  # the deck was rebuilt this hand: when it runs out again, the hand ends (D8)
    # What this seat may do now, binds included (one Bind per distinct bindable meld); Leave is not listed.
    legal: tuple[Action, ...] = field(default=())
    options: Options = field(default_factory=Options)  # the table's options: every player knows them
    ace_pile: tuple[Card, ...] = field(default=())  # every Ace on the pile, bottom first (all face up)
    # What everyone saw, per seat: the cards it took from the Discard Queue this hand and still holds, and the
    # card it passed over (the queue's top when it last drew from the deck instead).
    taken: tuple[tuple[Card, ...], ...] = field(default=())
    passed: tuple[tuple[Card, ...], ...] = field(default=())


# --- helpers ----------------------------------------------------------------------------------------------


def straight_suit(state: State) -> Suit | None:
    """D6: the suit of the Ace Pile's top; with fast start 3 the die's suit until a real Ace is there."""
    if state.ace_pile:
        return state.ace_pile[-1].suits[0]
    return state.die_suit


def _active(state: State) -> list[int]:
    return [s for s in range(state.players) if not state.left[s]]


def _next_active(state: State, seat: int) -> int:
    for i in range(1, state.players + 1):
        s = (seat + i) % state.players
        if not state.left[s]:
            return s
    raise AssertionError("no seat left to play")


def _set(t: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*t[:i], value, *t[i + 1 :])


def _remove(hand: tuple[Card, ...], taken: Iterable[Card]) -> tuple[Card, ...] | None:
    """The hand without the taken cards (multiset), or None if it doesn't hold them all."""
    out = list(hand)
    for c in taken:
        try:
            out.remove(c)
        except ValueError:
            return None
    return tuple(out)


def _seen(state: State, seat: int, *, add: Sequence[Card] = (), gone: Sequence[Card] = ()) -> State:
    """The seat's publicly known cards once it took ``add`` from the queue or played ``gone`` from hand."""
    taken = state.taken or tuple(() for _ in range(state.players))
    left = list(taken[seat])
    for c in gone:
        if c in left:
            left.remove(c)
    return replace(state, taken=_set(taken, seat, (*left, *add)))


def _passed(state: State, seat: int, cards: tuple[Card, ...]) -> State:
    """The card the seat passed over at its draw (none when it took from the queue or the queue was empty)."""
    passed = state.passed or tuple(() for _ in range(state.players))
    return replace(state, passed=_set(passed, seat, cards))


def table_melds(state: State, seat: int) -> list[tuple[int, Meld]]:
    """Everyone's bound melds, the binder's own first, then in seat order after them."""
    order = [(seat + i) % state.players for i in range(state.players)]
    return [(s, m) for s in order for m in state.bound[s]]


def _rng(state_seed: int | str, hand_no: int, purpose: str) -> random.Random:
    return random.Random(f"{state_seed}:{hand_no}:{purpose}")


def _deal(state: State, hand_no: int, first_seat: int, events: list[Event]) -> State:
    """D1/D3 (+ D10 option 3): a fresh shuffled double deck, 10 cards each, turned cards, die."""
    opts = state.options
    deck = list(
        shuffled(deluxe_deck(pawns=opts.pawns, courts=opts.courts), _rng(state.seed, hand_no, "deal"))
    )
    hands: list[list[Card]] = [[] for _ in range(state.players)]
    active = [s for s in range(state.players) if not state.left[s]]
    for _ in range(HAND_SIZE):
        for s in active:
            hands[s].append(deck.pop())
    aces: list[Card] = []
    queue: tuple[Card, ...] = ()
    while deck:
        c = deck.pop()
        if c.rank == Rank.ACE:
            aces.append(c)
        else:
            queue = (c,)
            break
    die_suit: Suit | None = None
    face = 0
    if opts.fast_start == 3:
        face = _rng(state.seed, hand_no, "die").randint(1, 6)
        die_suit = list(Suit)[face - 1]
    new = replace(
        state,
        hand_no=hand_no,
        first_seat=first_seat,
        turn=first_seat,
        phase=Phase.DRAW,
        deck=tuple(deck),
        queue=queue,
        ace_pile=tuple(aces),
        die_suit=die_suit,
        hands=tuple(tuple(h) for h in hands),
        bound=tuple(() for _ in range(state.players)),
        first_turn=True,
        final_binders=(),
        reshuffles=0,
        taken=tuple(() for _ in range(state.players)),
        passed=tuple(() for _ in range(state.players)),
    )
    events.append(HandStarted(hand_no, first_seat, aces[-1] if aces else None, queue, straight_suit(new)))
    events.extend(AceTurned(a) for a in aces)
    if die_suit is not None:
        events.append(DieRolled(face, die_suit))
    events.append(TurnStarted(first_seat))
    return _ready_to_draw(new, events)


def _ready_to_draw(state: State, events: list[Event]) -> State:
    """D8 at every draw step (setup, a new turn, fast start 1's restart): an empty deck is rebuilt, or the
    hand ends. Checked here, not when someone picks Draw, so no one faces an empty deck and taking from the
    queue can't put off the end of the hand."""
    if state.phase != Phase.DRAW or state.deck:
        return state
    rebuilt = _rebuilt(state, events)
    return _end_hand(state, events) if rebuilt is None else rebuilt


def _rebuilt(state: State, events: list[Event]) -> State | None:
    """D8 with the deck empty: the first time in the hand, the Discard Queue except its top card, shuffled, is
    the new deck. None when the hand must end instead: the deck was already rebuilt, or the rebuild would
    leave it empty."""
    if state.reshuffles == 0 and len(state.queue) >= 2:
        rng = _rng(state.seed, state.hand_no, "reshuffle:0")  # the stream the first rebuild always used
        new_deck = shuffled(state.queue[:-1], rng)
        events.append(DeckReshuffled(len(new_deck)))
        return replace(state, deck=new_deck, queue=state.queue[-1:], reshuffles=state.reshuffles + 1)
    events.append(DeckRanOut(state.turn, rebuilt=state.reshuffles > 0))
    return None


def _begin_turn(state: State, seat: int, events: list[Event]) -> State:
    state = replace(state, turn=seat, phase=Phase.DRAW, first_turn=False)
    events.append(TurnStarted(seat))
    return _ready_to_draw(state, events)


def _end_hand(state: State, events: list[Event]) -> State:
    """D9: bound points minus hand points per seat; then a winner, a tie played on, or the next hand."""
    rows: list[ScoreRow] = []
    totals = list(state.totals)
    played: list[int | None] = []
    for s in range(state.players):
        bound = sum(card_points(c) for m in state.bound[s] for c in m.cards)
        penalty = sum(card_points(c) for c in state.hands[s])
        totals[s] += bound - penalty
        rows.append(ScoreRow(s, bound, penalty, bound - penalty, totals[s]))
        # A seat that left before this deal holds nothing: its row is not a hand it played.
        dealt_in = not state.left[s] or bool(state.hands[s]) or bool(state.bound[s])
        played.append(bound - penalty if dealt_in else None)
    events.append(HandScored(state.hand_no, tuple(rows)))
    state = replace(
        state,
        totals=tuple(totals),
        last_rows=tuple(rows),
        phase=Phase.OVER,
        final_binders=(),
        history=(*state.history, tuple(played)),
    )
    active = _active(state)
    if any(totals[s] >= state.options.target for s in active):
        top = max(totals[s] for s in active)
        leaders = tuple(s for s in active if totals[s] == top)
        if len(leaders) == 1:
            events.append(GameWon(leaders, state.totals))
            how = f"reached the target of {state.options.target}"  # i18n: not text (the record's wording)
            return replace(state, winners=leaders, how=how)
        events.append(TiePlayedOn(leaders, top))
    return _deal(state, state.hand_no + 1, _next_active(state, state.first_seat), events)


def _went_out(state: State, seat: int, events: list[Event]) -> State:
    """D7: the hand ends; if the first player went out on their first turn, the others may bind first."""
    events.append(PlayerWentOut(seat))
    if state.first_turn and seat == state.first_seat:
        binders: list[int] = []
        other = _next_active(state, seat)
        while other != seat:
            binders.append(other)
            other = _next_active(state, other)
        if binders:
            events.append(FinalBindOffered(binders[0]))
            return replace(
                state,
                phase=Phase.FINAL_BIND,
                turn=binders[0],
                final_binders=tuple(binders[1:]),
                first_turn=False,
            )
    return _end_hand(state, events)


def _next_final_binder(state: State, events: list[Event]) -> State:
    rest = [s for s in state.final_binders if not state.left[s]]
    if rest:
        events.append(FinalBindOffered(rest[0]))
        return replace(state, turn=rest[0], final_binders=tuple(rest[1:]))
    return _end_hand(state, events)


# --- the public shape -------------------------------------------------------------------------------------


def start(seed: int | str, players: int, options: Options | None = None) -> tuple[State, list[Event]]:
    """A new game: hand 1 dealt, its first player drawn at random from the seed (D3)."""
    options = options or Options()
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise BadOptions("deluxe.options.players", low=MIN_PLAYERS, high=MAX_PLAYERS)
    first = _rng(seed, 1, "first").randrange(players)
    blank = State(
        seed=seed,
        players=players,
        options=options,
        hand_no=0,
        first_seat=first,
        turn=first,
        phase=Phase.DRAW,
        deck=(),
        queue=(),
        ace_pile=(),
        die_suit=None,
        hands=tuple(() for _ in range(players)),
        bound=tuple(() for _ in range(players)),
        totals=tuple(0 for _ in range(players)),
        left=tuple(False for _ in range(players)),
    )
    events: list[Event] = []
    state = _deal(blank, 1, first, events)
    return state, events


def is_over(state: State) -> bool:
    return state.phase == Phase.OVER


def waiting_for(state: State) -> tuple[int, ...]:
    return () if is_over(state) else (state.turn,)


def final_result(state: State) -> Result:
    if not is_over(state):
        raise IllegalAction("deluxe.rules.not-over")
    return Result(state.totals, state.winners, False, state.how, tuple(state.left))


def hand_scores(state: State) -> tuple[tuple[int, ...], ...]:
    """Per seat, the scores of the hands it played (scored hands only): the "average hand score" stat."""
    return tuple(tuple(v for h in state.history if (v := h[s]) is not None) for s in range(state.players))


def _must_discard_ace(state: State, hand: Sequence[Card]) -> bool:
    """D10 option 2: with an empty Ace Pile a player holding an Ace must discard one."""
    return state.options.fast_start == 2 and not state.ace_pile and any(c.rank == Rank.ACE for c in hand)


def legal_actions(state: State, seat: int) -> list[Action]:
    """Draws, discards and Done for the seat to move. Binds are listed by ``bindable_melds``; Leave is always
    allowed for a seat still playing and is not listed."""
    if is_over(state) or seat != state.turn or state.left[seat]:
        return []
    if state.phase == Phase.DRAW:
        return [Draw(seat), *(TakeQueue(seat, n) for n in range(1, len(state.queue) + 1))]
    if state.phase == Phase.FINAL_BIND:
        return [Done(seat)]
    hand = state.hands[seat]
    ace_only = _must_discard_ace(state, hand)
    seen: dict[int, Card] = {}
    for c in sorted(hand, key=sort_key):
        if not ace_only or c.rank == Rank.ACE:
            seen.setdefault(c.index, c)
    return [Discard(seat, c) for c in seen.values()]


def bindable_melds(state: State, seat: int) -> list[Meld]:
    """The distinct melds the seat could bind right now (empty when it may not bind)."""
    if is_over(state) or seat != state.turn or state.phase not in (Phase.BIND, Phase.FINAL_BIND):
        return []
    return find_melds(state.hands[seat], table_melds(state, seat), straight_suit(state), state.options)


def classify(state: State, seat: int, cs: Sequence[Card]) -> Meld:
    """What binding these cards makes (D5/D6), or IllegalAction with the reason."""
    suit = straight_suit(state)
    opts = state.options
    cs = tuple(sorted(cs, key=sort_key))
    if len(cs) >= 3:
        if is_bharg_set(cs):
            return Meld(BHARG_SET, cs)
        if suit is not None and is_complete_straight(cs, suit, pawns=opts.pawns, courts=opts.courts):
            return Meld(COMPLETE, cs)
    elif suit is not None:
        used = find_partial(cs, table_melds(state, seat), suit, pawns=opts.pawns, courts=opts.courts)
        if used is not None:
            return Meld(PARTIAL, cs, used)
    why = refusal(cs, table_melds(state, seat), suit, pawns=opts.pawns, courts=opts.courts)
    raise IllegalAction(why.msgid, **dict(why.values))


def check(state: State, action: Action) -> None:
    """Raise the ``RulesError`` that ``apply`` would raise for this action; return None when it would succeed.

    ``apply`` validates through the same code (``_validate``), so the two never disagree. It never changes the
    state; the only work beyond a few comparisons is classifying the cards of a Bind.
    """
    _validate(state, action)


def can(state: State, action: Action) -> bool:
    """Whether ``apply`` would accept this action (``check`` without the reason)."""
    try:
        _validate(state, action)
    except RulesError:
        return False
    return True


def _validate(state: State, action: Action) -> Meld | None:
    """The rules check for one action; for a Bind, the meld it makes (so ``apply`` doesn't classify twice)."""
    if is_over(state):
        raise GameOver("deluxe.rules.over")
    seat = action.seat
    if not 0 <= seat < state.players:
        raise IllegalAction("deluxe.rules.no-seat")
    if state.left[seat]:
        raise IllegalAction("deluxe.rules.you-left")
    if isinstance(action, Leave):
        return None
    if seat != state.turn:
        raise NotYourTurn("deluxe.rules.not-your-turn")
    if isinstance(action, Draw):
        _need_phase(state, Phase.DRAW, "draw")
    elif isinstance(action, TakeQueue):
        _check_take(state, action.n)
    elif isinstance(action, Bind):
        return _check_bind(state, seat, action.cards)
    elif isinstance(action, Discard):
        _check_discard(state, seat, action.card)
    elif isinstance(action, Done):
        if state.phase != Phase.FINAL_BIND:
            raise IllegalAction("deluxe.rules.done-not-final")
    else:
        raise IllegalAction("deluxe.rules.not-an-action")
    return None


def apply(state: State, action: Action) -> tuple[State, list[Event]]:
    """One action; raises a RulesError subclass with a sentence for the player when it isn't allowed."""
    meld = _validate(state, action)
    seat = action.seat
    events: list[Event] = []
    if isinstance(action, Leave):
        return _leave(state, seat, events), events
    if isinstance(action, Draw):
        return _draw(state, seat, events), events
    if isinstance(action, TakeQueue):
        return _take(state, seat, action.n, events), events
    if isinstance(action, Bind):
        assert meld is not None
        return _bind(state, seat, meld, events), events
    if isinstance(action, Discard):
        return _discard(state, seat, action.card, events), events
    return _next_final_binder(state, events), events  # Done


def _need_phase(state: State, phase: Phase, what: str) -> None:
    """``what``: "draw", "take", "bind" or "discard" (the step the player tried)."""
    if state.phase != phase:
        if state.phase == Phase.DRAW:
            hint = Phrase("deluxe.rules.hint-draw")
        elif state.phase == Phase.BIND:
            hint = Phrase("deluxe.rules.hint-bind")
        else:
            hint = Phrase("deluxe.rules.hint-final")
        if what == "draw":
            raise IllegalAction("deluxe.rules.cant-draw", hint=hint)
        if what == "take":
            raise IllegalAction("deluxe.rules.cant-take", hint=hint)
        if what == "bind":
            raise IllegalAction("deluxe.rules.cant-bind", hint=hint)
        raise IllegalAction("deluxe.rules.cant-discard", hint=hint)


def _check_take(state: State, n: int) -> None:
    _need_phase(state, Phase.DRAW, "take")
    if n < 1:
        raise IllegalAction("deluxe.rules.take-none")
    if n > len(state.queue):
        held = len(state.queue)
        if held:
            raise IllegalAction("deluxe.rules.queue-holds", cards=Phrase("deluxe.cards", n=held))
        raise IllegalAction("deluxe.rules.queue-empty")


def _check_bind(state: State, seat: int, cs: tuple[Card, ...]) -> Meld:
    if state.phase not in (Phase.BIND, Phase.FINAL_BIND):
        _need_phase(state, Phase.BIND, "bind")
    if not cs:
        raise IllegalAction("deluxe.rules.bind-none")
    have = Counter(state.hands[seat])
    missing = tuple(_copies(c, k) if have[c] else c for c, k in Counter(cs).items() if have[c] < k)
    if missing:
        raise IllegalAction("deluxe.rules.not-held", cards=Names(missing, "or"))
    return classify(state, seat, cs)


def _copies(c: Card, k: int) -> Phrase:
    """Two copies of a card ("2 copies of the Forest"), named when shown."""
    return Phrase("deluxe.rules.copies", n=k, card=c)


def _check_discard(state: State, seat: int, c: Card) -> None:
    _need_phase(state, Phase.BIND, "discard")
    hand = state.hands[seat]
    if c not in hand:
        raise IllegalAction("deluxe.rules.not-held", cards=c)
    if c.rank != Rank.ACE and _must_discard_ace(state, hand):
        raise IllegalAction("deluxe.rules.must-discard-ace")


# The effects below run only after ``_validate`` accepted the action.


def _draw(state: State, seat: int, events: list[Event]) -> State:
    if not state.deck:  # only a state built by hand: play rebuilds the deck when the draw step begins (D8)
        rebuilt = _rebuilt(state, events)
        if rebuilt is None:
            return _end_hand(state, events)
        state = rebuilt
    top = state.deck[-1]
    state = _passed(replace(state, deck=state.deck[:-1]), seat, state.queue[-1:])
    if state.options.fast_start == 1 and not state.ace_pile and top.rank == Rank.ACE:
        events.append(AceDrawnToPile(seat, top))
        return _ready_to_draw(replace(state, ace_pile=(top,)), events)
    events.append(CardDrawn(seat))
    return replace(
        state, hands=_set(state.hands, seat, (*state.hands[seat], top)), phase=Phase.BIND, drawn=top
    )


def _take(state: State, seat: int, n: int, events: list[Event]) -> State:
    taken = tuple(reversed(state.queue[-n:]))
    events.append(QueueTaken(seat, taken))
    state = _passed(_seen(state, seat, add=taken), seat, ())
    return replace(
        state,
        queue=state.queue[:-n],
        hands=_set(state.hands, seat, (*state.hands[seat], *taken)),
        phase=Phase.BIND,
        drawn=None,
    )


def _bind(state: State, seat: int, meld: Meld, events: list[Event]) -> State:
    rest = _remove(state.hands[seat], meld.cards)
    assert rest is not None
    events.append(MeldBound(seat, meld.kind, meld.cards, meld.used))
    state = replace(
        _seen(state, seat, gone=meld.cards),
        hands=_set(state.hands, seat, rest),
        bound=_set(state.bound, seat, (*state.bound[seat], meld)),
    )
    if rest:
        return state
    if state.phase == Phase.FINAL_BIND:
        return _next_final_binder(state, events)
    return _went_out(state, seat, events)


def _discard(state: State, seat: int, c: Card, events: list[Event]) -> State:
    rest = _remove(state.hands[seat], (c,))
    assert rest is not None
    state = _seen(state, seat, gone=(c,))
    if c.rank == Rank.ACE:
        state = replace(state, ace_pile=(*state.ace_pile, c))
        events.append(CardDiscarded(seat, c, "ace pile"))  # i18n: not text
    else:
        state = replace(state, queue=(*state.queue, c))
        events.append(CardDiscarded(seat, c, "queue"))
    state = replace(state, hands=_set(state.hands, seat, rest))
    if not rest:
        return _went_out(state, seat, events)
    return _begin_turn(state, _next_active(state, seat), events)


def _leave(state: State, seat: int, events: list[Event]) -> State:
    state = replace(state, left=_set(state.left, seat, True))
    events.append(SeatLeft(seat))
    active = _active(state)
    if len(active) < 2:
        events.append(GameWon(tuple(active), state.totals))
        how = "the other players left"  # i18n: not text (the record's wording)
        return replace(state, phase=Phase.OVER, winners=tuple(active), how=how)
    if state.phase == Phase.FINAL_BIND:
        if state.turn == seat:
            return _next_final_binder(state, events)
        return replace(state, final_binders=tuple(s for s in state.final_binders if s != seat))
    if state.turn == seat:
        return _begin_turn(state, _next_active(state, seat), events)
    return state


# --- text form --------------------------------------------------------------------------------------------


def action_text(action: Action) -> str:
    match action:
        case Draw(seat):
            return f"{seat} draw"
        case TakeQueue(seat, n):
            return f"{seat} take {n}"
        case Bind(seat, cs):
            return f"{seat} bind {','.join(c.slug for c in cs)}"
        case Discard(seat, c):
            return f"{seat} discard {c.slug}"
        case Done(seat):
            return f"{seat} done"
        case Leave(seat):
            return f"{seat} leave"
    raise BadActionText("deluxe.action.unknown", action=repr(action))


def parse_action(text: str) -> Action:
    """The log's text form: ``2 draw``, ``2 take 3``, ``2 bind sea,end,calamity``, ``2 discard forest``,
    ``2 done``, ``2 leave``."""
    parts = text.strip().split(None, 2)
    if len(parts) < 2 or not parts[0].isdigit():
        raise BadActionText("deluxe.action.no-verb", text=text.strip())
    seat, verb = int(parts[0]), parts[1].lower()
    rest = parts[2].strip() if len(parts) > 2 else ""
    if verb == "draw" and not rest:
        return Draw(seat)
    if verb == "done" and not rest:
        return Done(seat)
    if verb == "leave" and not rest:
        return Leave(seat)
    if verb == "take" and rest.isdigit():
        return TakeQueue(seat, int(rest))
    if verb == "bind" and rest:
        return Bind(seat, cards(rest))
    if verb == "discard" and rest and "," not in rest:
        return Discard(seat, cards(rest)[0])
    raise BadActionText("deluxe.action.bad-verb", text=text.strip())


def replay(seed: int | str, players: int, options: Options | None, texts: Iterable[str]) -> State:
    state, _ = start(seed, players, options)
    for text in texts:
        state, _ = apply(state, parse_action(text))
    return state


def view(state: State, seat: int) -> View:
    top = state.ace_pile[-1] if state.ace_pile else None
    return View(
        seat=seat,
        hand=tuple(sorted(state.hands[seat], key=sort_key)) if 0 <= seat < state.players else (),
        bound=state.bound,
        hand_sizes=tuple(len(h) for h in state.hands),
        scores=state.totals,
        left=state.left,
        queue=state.queue,
        ace_pile_top=top,
        die_suit=state.die_suit,
        straight_suit=straight_suit(state),
        deck_count=len(state.deck),
        phase=state.phase,
        turn=state.turn,
        first_seat=state.first_seat,
        hand_no=state.hand_no,
        target=state.options.target,
        last_rows=state.last_rows,
        winners=state.winners,
        drawn=state.drawn if seat == state.turn and state.phase == Phase.BIND else None,
        deck_rebuilt=state.reshuffles > 0,
        legal=legal_moves(state, seat),
        options=state.options,
        ace_pile=state.ace_pile,
        taken=state.taken,
        passed=state.passed,
    )


def legal_moves(state: State, seat: int) -> tuple[Action, ...]:
    """Every action ``seat`` may take now: ``legal_actions`` and a Bind per meld ``bindable_melds`` lists.

    Binds come first, so a caller that takes the first legal action in the bind step binds before discarding.
    """
    binds = [Bind(seat, m.cards) for m in bindable_melds(state, seat)]
    return (*binds, *legal_actions(state, seat))
