"""Classic Cribbage for 2 players, or 3 and 4 (partnerships) as table options (RULES.md C1–C9): the state
machine the bot drives, with the same contract as ``bot.rules.bhargage``.

A game is fully determined by (seed, players, options, action log): the cut for the first deal and every
hand's shuffle come from ``random.Random`` objects seeded from the game seed (and the hand number), so no
generator state lives in ``State``. Going "go", new counts, the end of the play, the show and the next deal
happen inside ``apply`` with no action; the only actions are laying away, cutting, playing a card, claiming
a count (only with the muggins option) and resigning.

Seats are 0..n-1 clockwise; the seat left of the dealer is ``(dealer + 1) % n``. Every score belongs to a
side: with four players seats 0 and 2 against 1 and 3, otherwise each seat is its own side (``side_of``).

Rulings where C1–C9 are silent:

- Three players: the crib's fifth card is dealt after the hands, face down, and nobody ever sees it.
- A player who resigns (or forfeits) loses with their side. With two sides the other side wins; with three
  players the leading other player wins (both, when they are level).
- Lurch (C6) is judged only when a side reaches the target (not on a resignation), against every losing side:
  at 121, under 91 is a lurch and, with ``double_lurch``, under 61 a double lurch; at 61, under 31 is a lurch
  and there is no double (``double_lurch`` changes nothing). ``Result.lurch`` is the worst among the losers.
- Muggins (C7, C9) applies to the show only (pegging and heels are always scored by the bot). The owner of
  each hand and of the crib claims in turn, once: any number from 0 to ``MAX_CLAIM`` (29, the most a count
  is worth), never refused, so that nothing offered or refused tells the count. The owner pegs the smaller of
  claim and count, and the seat left of the owner (an opponent, whatever the number of players) the
  difference either way; the owner pegs first, so an owner who reaches the target wins before it.
  ``Result.muggins`` is true when the game was won by such points, as Bhargage's is for a game won by a claim.
  Logs from before C9 replay unchanged: their claims were all at most the count, which C7 and C9 score alike.

This module owns what is Cribbage's own: the 52-card pack (scoring in ``bot.rules.cribbage_scoring``),
seats and sides (partnerships with four), the lay-away to the crib (and the third player's dealt crib
card), "his heels", the count to 31 with the go point and a new count (none after 31), the last card,
muggins claims in the show, lurches and resignations; its options, states, actions, events, views and
text form. From ``bot.rules.counting`` it takes the cut for the first deal, the deal, the turn order with
go, the show's order, the actions ``Cut``, ``Play`` and ``Resign`` and the events ``CardPlayed``,
``WentGo`` and ``PlayEnded`` (re-exported here under these names), the bases of the events it names its
own way, and the contract's machinery (the working copy, ``apply``'s dispatch, ``can``, ``replay``, the
log's text). It stays the longer of the two because it is one state machine with more of its own: sides,
the claim phase and lurches.
"""

from __future__ import annotations

import enum
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.rules import counting
from bot.rules.counting import CardPlayed, Cut, Play, PlayEnded, Resign, WentGo
from bot.rules.cribbage_scoring import (
    LIMIT,
    ScoreItem,
    ScoreKind,
    count_show,
    peg_items,
    play_points,
    show_points,
    show_total,
)
from bot.rules.engine import StoredOptions
from bot.rules.errors import BadActionText, GameOver, IllegalAction, NotYourTurn, RulesError
from bot.rules.pack52 import FULL_PACK, JACK, Card, card, sort_key

__all__ = [
    "MAX_CLAIM",
    "STATE_VERSION",
    "Action",
    "BadOptions",
    "CardPlayed",
    "Claim",
    "ClaimAwaited",
    "ClaimMade",
    "CountReset",
    "CribMade",
    "Cut",
    "DealerCut",
    "Event",
    "GameWon",
    "HandCounted",
    "HandDealt",
    "LaidAway",
    "LayAway",
    "Lurch",
    "MugginsTaken",
    "Options",
    "Phase",
    "Play",
    "PlayEnded",
    "PointsScored",
    "Resign",
    "Result",
    "ScoreItem",
    "SeatView",
    "ShowClaim",
    "StarterTurned",
    "State",
    "WentGo",
    "action_text",
    "apply",
    "can",
    "check",
    "count_show",
    "final_result",
    "is_over",
    "lay_away_size",
    "legal_actions",
    "lurch_of",
    "parse_action",
    "peg_items",
    "play_points",
    "replay",
    "show_order",
    "show_points",
    "show_total",
    "side_of",
    "sides_count",
    "start",
    "view",
    "waiting_for",
]

TARGETS = (121, 61)  # C6
PLAYERS = (2, 3, 4)
MAX_CLAIM = 29  # the most a hand or crib is worth: a muggins claim is any number from 0 to this (C9)


class BadOptions(RulesError, ValueError):
    """Table options the game cannot be played with."""


@dataclass(frozen=True, slots=True)
class Options(StoredOptions):
    """Table options: the winning score (C6: 121, or 61), muggins (C7) and the double lurch (C6)."""

    target: int = 121
    muggins: bool = False
    double_lurch: bool = False

    def __post_init__(self) -> None:
        if type(self.target) is not int or self.target not in TARGETS:
            raise BadOptions("cribbage.options.target", long=TARGETS[0], short=TARGETS[1])
        if type(self.muggins) is not bool:
            raise BadOptions("cribbage.options.muggins-bool")
        if type(self.double_lurch) is not bool:
            raise BadOptions("cribbage.options.double-lurch-bool")

    @classmethod
    def unknown(cls, names: str) -> BadOptions:
        return BadOptions("cribbage.options.unknown", names=names)


class Phase(enum.StrEnum):
    DISCARD = "discard"  # everyone lays away to the crib, in any order
    CUT = "cut"  # the seat left of the dealer cuts for the starter
    PLAY = "play"  # the play to 31
    CLAIM = "claim"  # muggins only: the owner of the count in the show claims it
    OVER = "over"


Lurch = Literal["none", "lurch", "double"]
# How a game won at the target with the losers lurched ends, as ``Result.how`` says it.
LURCH_HOW: dict[Lurch, str] = {"lurch": "lurch", "double": "double-lurch"}
HandKind = Literal["hand", "crib"]
HowWon = Literal["target", "resign", "forfeit"]


# ---------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class LayAway:
    """Lay cards away to the dealer's crib: 2 with two players, 1 with three or four. Again before everyone
    has laid away, it replaces the seat's earlier choice."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Claim:
    """Muggins: the owner of the hand or crib being shown claims this many points (0 to ``MAX_CLAIM``,
    whatever the count: C9)."""

    seat: int
    points: int


Action = LayAway | Cut | Play[Card] | Claim | Resign  # Cut, Play and Resign are the counting family's


# ---------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class DealerCut:
    """The cut for the first deal (C2): each round as (seat, card) for the seats that cut in it (the first
    round everyone, then those tied for the lowest); the lowest card of the last round deals."""

    rounds: tuple[tuple[tuple[int, Card], ...], ...]
    dealer: int


@dataclass(frozen=True, slots=True)
class HandDealt:
    hand_no: int
    dealer: int
    hand_size: int  # cards dealt to each seat


class LaidAway(counting.LaidAway):
    """A seat laid away (or replaced its lay-away); the cards stay secret."""

    __slots__ = ()


class CribMade(counting.ExtraMade):
    """Everyone has laid away: the crib is made (4 cards) and belongs to the dealer's side."""

    __slots__ = ()


class StarterTurned(counting.CardTurned[Card]):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class PointsScored:
    """Points pegged in the play or for heels: ``seat`` made them, ``side`` scores them."""

    side: int
    seat: int
    points: int
    reason: ScoreKind
    cards: tuple[Card, ...]
    total_after: int


@dataclass(frozen=True, slots=True)
class CountReset:
    """The count that ended (at 31, or when nobody could play) and starts again from 0."""

    count: int


@dataclass(frozen=True, slots=True)
class ClaimAwaited:
    """Muggins: the show reached this hand or crib; its cards are now public and its owner must claim."""

    seat: int
    kind: HandKind
    cards: tuple[Card, ...]
    starter: Card


@dataclass(frozen=True, slots=True)
class ClaimMade:
    seat: int
    kind: HandKind
    points: int


@dataclass(frozen=True, slots=True)
class HandCounted:
    """A hand or the crib counted in the show (``cards`` are revealed here, if not at a claim). ``total`` is
    the true count, ``claimed`` the owner's claim when muggins is on; the owner's side pegged ``pegged``:
    the count, or the smaller of claim and count (C9)."""

    seat: int
    side: int
    kind: HandKind
    cards: tuple[Card, ...]
    starter: Card
    items: tuple[ScoreItem, ...]
    total: int
    pegged: int
    total_after: int
    claimed: int | None = None


@dataclass(frozen=True, slots=True)
class MugginsTaken:
    """Muggins! The difference between ``owner``'s claim and its count, scored by ``seat`` (left of the owner)
    for ``side``: what the claim overstated (``over``) or missed (C9)."""

    side: int
    seat: int
    owner: int
    points: int
    total_after: int
    over: bool


@dataclass(frozen=True, slots=True)
class GameWon:
    sides: tuple[int, ...]  # one side, except a three-player resignation that leaves two level
    seats: tuple[int, ...]
    how: HowWon
    scores: tuple[int, ...]  # per side
    lurch: Lurch


Event = (
    DealerCut
    | HandDealt
    | LaidAway
    | CribMade
    | StarterTurned
    | CardPlayed[Card]
    | PointsScored
    | WentGo
    | CountReset
    | PlayEnded
    | ClaimAwaited
    | ClaimMade
    | HandCounted
    | MugginsTaken
    | GameWon
)


# ---------------------------------------------------------------- state

# The version of State that snapshots store (bot/services/snapshots.py): bump it only when the State's shape
# or meaning changes, or that of what it holds (Options, Phase, cards).
STATE_VERSION = 1

Cards = tuple[Card, ...]
Pile = tuple[tuple[int, Card], ...]


@dataclass(frozen=True, slots=True)
class State:
    """Everything about a game in progress; small tuples only, cheap to copy.

    Per seat: ``hands`` (cards held), ``laid`` (its lay-away this hand), ``kept`` (its 4 cards for the show,
    from the cut on), ``gone``, ``best``. Per side: ``scores``. Card accounting: in DISCARD, ``hands`` +
    ``laid`` + ``crib`` (the dealt fifth card with three players) + ``deck`` are the 52 cards; from the cut
    on, ``laid`` is inside ``crib`` and ``hands`` + ``crib`` + ``starter`` + ``played`` + ``deck`` are.
    """

    seed: int
    options: Options
    players: int
    hand_no: int
    dealer: int
    phase: Phase
    scores: tuple[int, ...]
    hands: tuple[Cards, ...]
    laid: tuple[Cards, ...]
    kept: tuple[Cards, ...]
    crib: Cards = ()
    deck: Cards = ()
    starter: Card | None = None
    pile: Pile = ()  # this count's cards, with who played them
    played: Pile = ()  # every card played this hand
    count: int = 0
    to_move: int = -1
    gone: tuple[bool, ...] = ()
    show_step: int = -1  # in CLAIM: which count of ``show_order`` is claimed
    winners: tuple[int, ...] = ()  # sides
    how: str = ""
    muggins: bool = False  # won by points taken as "Muggins!"
    first_dealer: int = 0
    best: tuple[int, ...] = ()  # each seat's best show count (hand, or crib when it dealt); -1 before one


@dataclass(frozen=True, slots=True)
class Result:
    """How the game ended (``bot.rules.engine.Result``): per-seat ``scores`` (each seat its side's), winning
    seats, ``muggins`` (won by muggins points), ``how`` ("target", or "lurch" / "double-lurch" when it was
    reached with a side lurched; "resign", "forfeit"); plus the lurch and each seat's best show."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    muggins: bool
    how: str
    lurch: Lurch = "none"
    best_hands: tuple[int | None, ...] = ()
    side_scores: tuple[int, ...] = ()
    lurched: tuple[Lurch, ...] = ()  # per seat: its own side's lurch ("none" for the winners)


@dataclass(frozen=True, slots=True)
class ShowClaim:
    """In CLAIM: the count awaiting its owner's claim (public: the cards are shown)."""

    seat: int
    kind: HandKind
    cards: tuple[Card, ...]
    starter: Card


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may see (seat -1: what everyone sees): never another seat's hand or lay-away (a
    partner's neither), the crib or the deck.

    In CLAIM the claimant's ``legal`` claims run from 0 to ``MAX_CLAIM`` whatever the count (C9): the view
    holds the shown cards (public), never their count."""

    seat: int
    players: int
    phase: Phase
    hand_no: int
    dealer: int
    sides: tuple[int, ...]  # the side of each seat
    scores: tuple[int, ...]  # per side
    target: int
    muggins: bool
    double_lurch: bool
    hand: Cards  # held now
    kept: Cards  # the 4 cards kept for the show (from the cut on)
    laid_away: Cards
    hand_sizes: tuple[int, ...]
    laid: tuple[bool, ...]  # who has laid away (in DISCARD)
    crib_size: int
    starter: Card | None
    pile: Pile
    played: Pile
    count: int
    to_move: int | None
    gone: tuple[bool, ...]
    legal: tuple[Action, ...] = ()
    winners: tuple[int, ...] = ()  # sides
    claim: ShowClaim | None = None


# ---------------------------------------------------------------- seats and sides


def side_of(state_or_players: State | int, seat: int) -> int:
    """The side a seat scores for: with four players seats 0 and 2 are side 0, 1 and 3 side 1; otherwise
    each seat is its own side."""
    n = state_or_players if isinstance(state_or_players, int) else state_or_players.players
    return seat % 2 if n == 4 else seat


def sides_count(players: int) -> int:
    return 2 if players == 4 else players


def _side_seats(players: int, side: int) -> tuple[int, ...]:
    return tuple(s for s in range(players) if side_of(players, s) == side)


def lay_away_size(players: int) -> int:
    """Cards each seat lays away (C2): 2 with two players, 1 with three or four."""
    return 2 if players == 2 else 1


def _hand_size(players: int) -> int:
    return 6 if players == 2 else 5


def show_order(state: State | _Work) -> tuple[tuple[int, HandKind, Cards], ...]:
    """The show's counts in order (C5): each hand from the dealer's left, the dealer's last, then the crib."""
    return counting.show_order(state.kept, state.dealer, state.crib, "hand", "crib")


def lurch_of(score: int, options: Options) -> Lurch:
    """C6 for a losing side's score: at 121, under 91 a lurch, under 61 a double one (``double_lurch``);
    at 61, under 31 a lurch (no double)."""
    if options.target == 121:
        if options.double_lurch and score < 61:
            return "double"
        return "lurch" if score < 91 else "none"
    return "lurch" if score < 31 else "none"


def _lurch_rank(lurch: Lurch) -> int:
    return ("none", "lurch", "double").index(lurch)


# ---------------------------------------------------------------- working copy


@dataclass(slots=True)
class _Work(counting.Working[State]):
    """A mutable copy of ``State`` for one ``apply`` (``counting.Working``)."""

    STATE = State
    LISTS = frozenset(("best", "gone", "hands", "laid", "scores"))
    seed: int
    options: Options
    players: int
    hand_no: int
    dealer: int
    phase: Phase
    scores: list[int]
    hands: list[Cards]
    laid: list[Cards]
    kept: tuple[Cards, ...]
    crib: Cards
    deck: Cards
    starter: Card | None
    pile: Pile
    played: Pile
    count: int
    to_move: int
    gone: list[bool]
    show_step: int
    winners: tuple[int, ...]
    how: str
    muggins: bool
    first_dealer: int
    best: list[int]

    def side(self, seat: int) -> int:
        return side_of(self.players, seat)

    def score(self, seat: int, points: int) -> bool:
        """Add points to the seat's side; True when that reaches the target (C6: the game ends then)."""
        side = self.side(seat)
        self.scores[side] += points
        return self.scores[side] >= self.options.target

    def peg(self, seat: int, item: ScoreItem, ev: list[Event]) -> bool:
        won = self.score(seat, item.points)
        side = self.side(seat)
        ev.append(PointsScored(side, seat, item.points, item.kind, item.cards, self.scores[side]))
        return won

    def win(self, sides: tuple[int, ...], how: HowWon, ev: list[Event], *, muggins: bool = False) -> None:
        self.phase = Phase.OVER
        self.winners = sides
        self.how = how
        self.muggins = muggins
        self.to_move = -1
        self.show_step = -1
        seats = tuple(s for s in range(self.players) if self.side(s) in sides)
        ev.append(GameWon(sides, seats, how, tuple(self.scores), _lurch(self.freeze())))


def _lurch(state: State) -> Lurch:
    if state.how != "target":
        return "none"
    worst: Lurch = "none"
    for side, score in enumerate(state.scores):
        if side not in state.winners:
            lurch = lurch_of(score, state.options)
            if _lurch_rank(lurch) > _lurch_rank(worst):
                worst = lurch
    return worst


# ---------------------------------------------------------------- start and dealing


def _cut_for_deal(seed: int, players: int) -> tuple[tuple[tuple[tuple[int, Card], ...], ...], int]:
    """C2: every seat cuts a card; the lowest deals (Ace low); those tied for the lowest cut again."""
    return counting.cut_for_deal(seed, players, FULL_PACK)


def _deal(w: _Work, ev: list[Event]) -> None:
    """Shuffle for hand ``w.hand_no`` from its own seed and deal one at a time from the dealer's left (C2)."""
    n, size = w.players, _hand_size(w.players)
    hands, rest = counting.deal(w.seed, w.hand_no, FULL_PACK, n, w.dealer, size)
    extra = 1 if n == 3 else 0  # C2: with three, one card face down to the crib
    w.hands = [tuple(sorted(h, key=sort_key)) for h in hands]
    w.crib = tuple(rest[:extra])
    w.deck = tuple(rest[extra:])
    w.laid = [() for _ in range(n)]
    w.kept = tuple(() for _ in range(n))
    w.starter = None
    w.pile = w.played = ()
    w.count = 0
    w.gone = [False] * n
    w.to_move = -1
    w.show_step = -1
    w.phase = Phase.DISCARD
    ev.append(HandDealt(w.hand_no, w.dealer, size))


def start(seed: int, players: int = 2, options: Options | None = None) -> tuple[State, list[Event]]:
    """A new game: cut for the first deal, then deal hand 1."""
    if type(players) is not int or players not in PLAYERS:
        raise BadOptions("cribbage.options.players", low=PLAYERS[0], high=PLAYERS[-1])
    options = options or Options()
    rounds, dealer = _cut_for_deal(seed, players)
    ev: list[Event] = [DealerCut(rounds, dealer)]
    base = State(
        seed=seed,
        options=options,
        players=players,
        hand_no=1,
        dealer=dealer,
        phase=Phase.DISCARD,
        scores=(0,) * sides_count(players),
        hands=((),) * players,
        laid=((),) * players,
        kept=((),) * players,
        gone=(False,) * players,
        first_dealer=dealer,
        best=(-1,) * players,
    )
    w = _Work.of(base)
    _deal(w, ev)
    return w.freeze(), ev


# ---------------------------------------------------------------- queries


def _can_play(hand: Iterable[Card], count: int) -> bool:
    room = LIMIT - count
    return any(c.value <= room for c in hand)


def _claimed_count(state: State) -> tuple[int, HandKind, Cards]:
    return show_order(state)[state.show_step]


def waiting_for(state: State) -> tuple[int, ...]:
    if state.phase is Phase.DISCARD:
        return tuple(s for s in range(state.players) if not state.laid[s])
    if state.phase is Phase.CUT:
        return ((state.dealer + 1) % state.players,)
    if state.phase is Phase.PLAY:
        return (state.to_move,)
    if state.phase is Phase.CLAIM:
        return (_claimed_count(state)[0],)
    return ()


def is_over(state: State) -> bool:
    return state.phase is Phase.OVER


def final_result(state: State) -> Result:
    if state.phase is not Phase.OVER:
        raise IllegalAction("cribbage.rules.not-over")
    n = state.players
    lurch = _lurch(state)
    lurched = tuple(
        "none"
        if side_of(n, s) in state.winners or state.how != "target"
        else lurch_of(state.scores[side_of(n, s)], state.options)
        for s in range(n)
    )
    # The stored result keeps the lurch in ``how`` (the store, the history and the record keep one word).
    how = state.how if lurch == "none" else LURCH_HOW[lurch]
    return Result(
        scores=tuple(state.scores[side_of(n, s)] for s in range(n)),
        winners=tuple(s for s in range(n) if side_of(n, s) in state.winners),
        muggins=state.muggins,
        how=how,
        lurch=lurch,
        best_hands=tuple(b if b >= 0 else None for b in state.best),
        side_scores=state.scores,
        lurched=lurched,
    )


def legal_actions(state: State, seat: int) -> list[Action]:
    """What ``seat`` may do now (resigning, always possible in a live game, is not listed)."""
    if not 0 <= seat < state.players:
        return []
    if state.phase is Phase.DISCARD:
        dealt = sorted((*state.hands[seat], *state.laid[seat]), key=sort_key)
        size = lay_away_size(state.players)
        return [LayAway(seat, combo) for combo in itertools.combinations(dealt, size)]
    if state.phase is Phase.CUT:
        return [Cut(seat)] if seat == (state.dealer + 1) % state.players else []
    if state.phase is Phase.PLAY:
        if seat != state.to_move:
            return []
        room = LIMIT - state.count
        return [Play(seat, c) for c in state.hands[seat] if c.value <= room]
    if state.phase is Phase.CLAIM:
        if seat != _claimed_count(state)[0]:
            return []
        return [Claim(seat, p) for p in range(MAX_CLAIM + 1)]
    return []


def view(state: State, seat: int) -> SeatView:
    if not -1 <= seat < state.players:
        raise IllegalAction("cribbage.rules.no-such-seat")
    n = state.players
    mine = seat >= 0
    claim = None
    if state.phase is Phase.CLAIM:
        assert state.starter is not None
        owner, kind, cards = _claimed_count(state)
        claim = ShowClaim(owner, kind, cards, state.starter)
    return SeatView(
        seat=seat,
        players=n,
        phase=state.phase,
        hand_no=state.hand_no,
        dealer=state.dealer,
        sides=tuple(side_of(n, s) for s in range(n)),
        scores=state.scores,
        target=state.options.target,
        muggins=state.options.muggins,
        double_lurch=state.options.double_lurch,
        hand=state.hands[seat] if mine else (),
        kept=state.kept[seat] if mine else (),
        laid_away=state.laid[seat] if mine else (),
        hand_sizes=tuple(len(h) for h in state.hands),
        laid=tuple(bool(x) for x in state.laid),
        crib_size=len(state.crib) + sum(len(x) for x in state.laid if state.phase is Phase.DISCARD),
        starter=state.starter,
        pile=state.pile,
        played=state.played,
        count=state.count,
        to_move=state.to_move if state.phase is Phase.PLAY else None,
        gone=state.gone,
        legal=tuple(legal_actions(state, seat)) if mine else (),
        winners=state.winners,
        claim=claim,
    )


# ---------------------------------------------------------------- check and apply


def check(state: State, action: Action) -> None:
    """Raise the ``RulesError`` that ``apply`` would raise for this action; return None when it would succeed.

    This is the only validation: ``apply`` calls it first, so the two never disagree."""
    if counting.checked(state, action, state.players, _value, LIMIT, _REFUSALS):
        return
    seat = action.seat
    if isinstance(action, LayAway):
        if state.phase is not Phase.DISCARD:
            raise _phase_error(state.phase)
        size = lay_away_size(state.players)
        if len(action.cards) != size or len(set(action.cards)) != size:
            raise IllegalAction("cribbage.rules.lay-away-count", n=size)
        dealt = (*state.hands[seat], *state.laid[seat])
        if any(c not in dealt for c in action.cards):
            raise IllegalAction("cribbage.rules.not-held")
    elif isinstance(action, Claim):
        if state.phase is not Phase.CLAIM:
            raise _phase_error(state.phase)
        if seat != _claimed_count(state)[0]:
            raise NotYourTurn("cribbage.rules.not-your-turn")
        if type(action.points) is not int or not 0 <= action.points <= MAX_CLAIM:  # whatever the count (C9)
            raise IllegalAction("cribbage.rules.claim-range", most=MAX_CLAIM)
    else:  # pragma: no cover - the Action union is closed
        raise IllegalAction("cribbage.rules.not-an-action")


def _value(card: Card) -> int:
    return card.value


def can(state: State, action: Action) -> bool:
    """Whether ``apply`` would accept this action (``check`` without the reason)."""
    return counting.can(check, state, action)


def apply(state: State, action: Action) -> tuple[State, list[Event]]:
    """Apply one action; raises a ``RulesError`` (an id and values) when it is not allowed."""
    return counting.apply(check, _Work.of, _EFFECTS, state, action)


def _phase_error(phase: Phase) -> IllegalAction:
    if phase is Phase.DISCARD:
        return IllegalAction("cribbage.rules.time-to-lay-away")
    if phase is Phase.CUT:
        return IllegalAction("cribbage.rules.time-to-cut")
    if phase is Phase.PLAY:
        return IllegalAction("cribbage.rules.time-to-play")
    return IllegalAction("cribbage.rules.time-to-claim")


_REFUSALS = counting.Refusals(
    over=lambda: GameOver("cribbage.rules.game-over"),
    no_seat=lambda: IllegalAction("cribbage.rules.no-such-seat"),
    how=lambda: IllegalAction("cribbage.rules.resign-or-forfeit"),
    turn=lambda: NotYourTurn("cribbage.rules.not-your-turn"),
    held=lambda: IllegalAction("cribbage.rules.not-held"),
    past=lambda count: IllegalAction("cribbage.rules.past-31", count=count),
    phase=_phase_error,
)


# The effects below run only after ``check`` accepted the action.


def _resign(w: _Work, a: Resign, ev: list[Event]) -> None:
    loser = w.side(a.seat)
    others = [s for s in range(len(w.scores)) if s != loser]
    top = max(w.scores[s] for s in others)
    w.win(tuple(s for s in others if w.scores[s] == top), a.how, ev)


def _lay_away(w: _Work, a: LayAway, ev: list[Event]) -> None:
    seat = a.seat
    dealt = (*w.hands[seat], *w.laid[seat])
    replaced = bool(w.laid[seat])
    w.laid[seat] = tuple(sorted(a.cards, key=sort_key))
    w.hands[seat] = tuple(c for c in sorted(dealt, key=sort_key) if c not in a.cards)
    ev.append(LaidAway(seat, replaced))
    if all(w.laid):
        n = w.players
        w.crib = (*w.crib, *(c for k in range(1, n + 1) for c in w.laid[(w.dealer + k) % n]))
        w.phase = Phase.CUT
        ev.append(CribMade(w.dealer, len(w.crib)))


def _cut(w: _Work, a: Cut, ev: list[Event]) -> None:
    starter = w.starter = counting.turn(w, a.seat, StarterTurned, ev)
    w.kept = tuple(w.hands)
    if starter.rank == JACK and w.peg(w.dealer, ScoreItem("heels", 2, (starter,)), ev):  # C3
        w.win((w.side(w.dealer),), "target", ev)
        return
    w.phase = Phase.PLAY
    w.count = 0
    w.to_move = (w.dealer + 1) % w.players  # C4: the play starts left of the dealer


def _play(w: _Work, a: Play[Card], ev: list[Event]) -> None:
    seat = a.seat
    w.played = (*w.played, (seat, a.card))
    counting.lay(w, seat, a.card, a.card.value, ev)
    won = False
    for item in peg_items([c for _, c in w.pile]):  # every combination of the card is pegged, then C6
        won = w.peg(seat, item, ev) or won
    if won:
        w.win((w.side(seat),), "target", ev)
        return
    _after_play(w, seat, ev)


def _after_play(w: _Work, last: int, ev: list[Event]) -> None:
    """C4: the turn passes left to the first seat that can play; those holding cards that cannot say "go"
    (once per count); when nobody can, the last to play pegs the go (none after 31) or the last card."""
    if w.count == LIMIT:
        _new_count(w, last, ev)
        return
    t = counting.next_to_play(w.hands, w.gone, last, w.count, _can_play, ev)
    if t >= 0:
        w.to_move = t
        return
    cards = (w.pile[-1][1],)
    if any(w.hands):
        if w.peg(last, ScoreItem("go", 1, cards), ev):
            w.win((w.side(last),), "target", ev)
            return
        _new_count(w, last, ev)
        return
    if w.peg(last, ScoreItem("last", 1, cards), ev):
        w.win((w.side(last),), "target", ev)
        return
    _end_play(w, ev)


def _new_count(w: _Work, last: int, ev: list[Event]) -> None:
    """The count starts again from 0 with the next seat after the last to play that holds cards."""
    if not any(w.hands):  # the last card made 31: no point for last on top (C4)
        _end_play(w, ev)
        return
    ev.append(CountReset(w.count))
    w.count = 0
    w.pile = ()
    w.gone = [False] * w.players
    n = w.players
    w.to_move = next((last + k) % n for k in range(1, n + 1) if w.hands[(last + k) % n])


def _end_play(w: _Work, ev: list[Event]) -> None:
    ev.append(PlayEnded(w.count))
    w.to_move = -1
    w.pile = ()
    w.count = 0
    _show(w, 0, ev)


def _show(w: _Work, step: int, ev: list[Event]) -> None:
    """C5/C6: the counts of the show from ``step`` on, until one wins; with muggins, stop at the next count
    for its owner's claim. When the show is over, the next hand is dealt (C2: the deal passes left)."""
    order = show_order(w)
    starter = w.starter
    assert starter is not None
    for i in range(step, len(order)):
        owner, kind, cards = order[i]
        if w.options.muggins:
            w.phase = Phase.CLAIM
            w.show_step = i
            ev.append(ClaimAwaited(owner, kind, cards, starter))
            return
        items = count_show(cards, starter, kind == "crib")
        total = sum(it.points for it in items)
        w.best[owner] = max(w.best[owner], total)
        won = w.score(owner, total)
        side = w.side(owner)
        ev.append(HandCounted(owner, side, kind, cards, starter, items, total, total, w.scores[side]))
        if won:
            w.win((side,), "target", ev)
            return
    w.hand_no += 1
    w.dealer = (w.dealer + 1) % w.players
    _deal(w, ev)


def _claim(w: _Work, a: Claim, ev: list[Event]) -> None:
    """C9: the owner pegs the smaller of claim and count, then the seat on its left the difference."""
    starter = w.starter
    assert starter is not None
    owner, kind, cards = show_order(w)[w.show_step]
    ev.append(ClaimMade(owner, kind, a.points))
    items = count_show(cards, starter, kind == "crib")
    total = sum(it.points for it in items)
    w.best[owner] = max(w.best[owner], total)
    pegged = min(a.points, total)
    won = w.score(owner, pegged)
    side = w.side(owner)
    ev.append(HandCounted(owner, side, kind, cards, starter, items, total, pegged, w.scores[side], a.points))
    if won:
        w.win((side,), "target", ev)
        return
    rest = abs(a.points - total)
    if rest:
        taker = (owner + 1) % w.players  # an opponent with 2, 3 or 4 players
        won = w.score(taker, rest)
        tside = w.side(taker)
        ev.append(MugginsTaken(tside, taker, owner, rest, w.scores[tside], over=a.points > total))
        if won:
            w.win((tside,), "target", ev, muggins=True)
            return
    _show(w, w.show_step + 1, ev)


_EFFECTS: counting.Effects = {Resign: _resign, LayAway: _lay_away, Cut: _cut, Play: _play, Claim: _claim}


# ---------------------------------------------------------------- text form


def action_text(action: Action) -> str:
    """The log's text form: ``0 lay 5H TC``, ``1 cut``, ``0 play 5H``, ``2 claim 12``, ``1 resign``."""
    if isinstance(action, LayAway):
        return f"{action.seat} lay {' '.join(c.code for c in action.cards)}"
    if isinstance(action, Claim):
        return f"{action.seat} claim {action.points}"
    return counting.shared_text(action, lambda c: c.code)


_NUMBER = re.compile(r"0|[1-9][0-9]{0,2}")


def parse_action(text: str) -> Action:
    said = counting.words(text, 4)
    if said is not None:
        seat, verb, rest = said
        if verb == "lay" and 1 <= len(rest) <= 2:
            return LayAway(seat, tuple(counting.card_from_text(card, x) for x in rest))
        if verb == "claim" and len(rest) == 1 and _NUMBER.fullmatch(rest[0]):
            return Claim(seat, int(rest[0]))
        action = counting.shared_action(seat, verb, rest, card)
        if action is not None:
            return action
    raise BadActionText("cribbage.rules.bad-action-text", text=text.strip())


def replay(seed: int, players: int, options: Options | None, texts: Sequence[str]) -> State:
    return counting.replay(start, apply, parse_action, seed, players, options, texts)
