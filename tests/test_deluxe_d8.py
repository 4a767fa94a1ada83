"""D8 (amended): the deck is rebuilt once a hand, the next empty deck ends the hand; every draw path.

The unit tests pin each way into a draw step (a new turn, setup, fast start 1's restart, a seat leaving);
the property test at the end drives seeded games and checks the per-hand bound its docstring derives.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import pytest

from bot.render import deluxe as R
from bot.rules import deluxe as D
from bot.rules.decktet import Card, Rank, card, cards, deluxe_deck
from tests.test_deluxe_engine import kinds, zones


def at_bind(players: int = 3, options: D.Options | None = None, **changes: object) -> D.State:
    """Seat 0 has drawn and is to bind and discard, past the hand's first turn."""
    state, _ = D.start("d8", players, options or D.Options())
    return replace(state, turn=0, phase=D.Phase.BIND, first_turn=False, drawn=None, **changes)


# --- the first empty deck: rebuilt once, when the next draw step begins -------------------------------


def test_the_first_empty_deck_is_rebuilt_from_the_queue_except_its_top_card():
    queue = cards("author, desert, origin, journey, painter")
    state = at_bind(deck=(), queue=queue, hands=(cards("sea, end"), cards("forest"), cards("cave")))
    full = zones(state)
    after, events = D.apply(state, D.Discard(0, card("sea")))
    assert events == [D.CardDiscarded(0, card("sea"), "queue"), D.TurnStarted(1), D.DeckReshuffled(5)]
    assert after.queue == cards("sea") and Counter(after.deck) == Counter(queue)
    assert after.reshuffles == 1 and after.phase == D.Phase.DRAW and after.turn == 1
    assert zones(after) == full
    # the seat to draw chooses between the new deck and the one card left in the queue
    assert D.legal_actions(after, 1) == [D.Draw(1), D.TakeQueue(1, 1)]
    assert D.view(after, 1).deck_rebuilt and D.view(after, 1).deck_count == 5
    assert D.apply(state, D.Discard(0, card("sea"))) == (after, events)  # the shuffle is seeded
    drawn, more = D.apply(after, D.Draw(1))
    assert more == [D.CardDrawn(1)] and len(drawn.deck) == 4 and drawn.reshuffles == 1


# --- the second empty deck, or nothing to rebuild from: the hand ends at once and is scored ---------------


def test_the_second_empty_deck_ends_the_hand_scores_it_and_the_next_hand_starts_afresh():
    bound = (D.Meld(D.BHARG_SET, cards("painter, forest, cave")),)
    state = at_bind(
        deck=(),
        queue=cards("author, desert, origin, journey"),  # enough to rebuild, but the deck was rebuilt already
        reshuffles=1,
        hands=(cards("sea, end"), cards("mill, ace of moons"), cards("windfall")),
        bound=(bound, (), ()),
        totals=(5, 0, -2),
    )
    after, events = D.apply(state, D.Discard(0, card("sea")))
    assert kinds(events)[:5] == ["CardDiscarded", "TurnStarted", "DeckRanOut", "HandScored", "HandStarted"]
    assert events[2] == D.DeckRanOut(1, rebuilt=True)
    scored = events[3]
    assert isinstance(scored, D.HandScored) and scored.hand_no == 1
    # D9: bound points minus the points left in hand; the Sea was discarded, the End stays in hand
    assert [(r.bound_points, r.hand_penalty, r.hand_score, r.total) for r in scored.rows] == [
        (6, 1, 5, 10),
        (0, 3, -3, -3),
        (0, 1, -1, -3),
    ]
    assert after.hand_no == 2 and after.reshuffles == 0 and not D.view(after, 0).deck_rebuilt
    assert after.phase == D.Phase.DRAW and len(after.queue) == 1
    assert all(len(h) == 10 for h in after.hands) and after.bound == ((), (), ())
    assert not any(isinstance(e, D.DeckReshuffled) for e in events)


@pytest.mark.parametrize(
    ("queue", "discard"),
    [((), "author"), (cards("author"), "ace of moons")],
    ids=["queue of the discard only", "one card, an Ace discarded"],
)
def test_a_first_rebuild_that_would_leave_nothing_to_draw_ends_the_hand_at_once(
    queue: tuple[Card, ...], discard: str
):
    state = at_bind(deck=(), queue=queue, hands=(cards(f"{discard}, sea"), cards("end"), cards("mill")))
    after, events = D.apply(state, D.Discard(0, card(discard)))
    assert kinds(events)[:4] == ["CardDiscarded", "TurnStarted", "DeckRanOut", "HandScored"]
    assert events[2] == D.DeckRanOut(1, rebuilt=False)
    assert after.hand_no == 2 and after.reshuffles == 0


# --- the other draw paths --------------------------------------------------------------------------------


@pytest.mark.parametrize("rebuilt", [False, True])
def test_fast_start_1_restart_on_an_empty_deck_rebuilds_it_or_ends_the_hand(rebuilt: bool):
    state, _ = D.start("d8", 2, D.Options(fast_start=1))
    seat = state.turn
    state = replace(
        state,
        ace_pile=(),
        deck=cards("ace of waves"),
        queue=cards("author, desert, origin"),
        reshuffles=int(rebuilt),
    )
    after, events = D.apply(state, D.Draw(seat))
    assert events[0] == D.AceDrawnToPile(seat, card("ace of waves"))
    if rebuilt:
        assert events[1] == D.DeckRanOut(seat, rebuilt=True)
        assert isinstance(events[2], D.HandScored) and after.hand_no == 2
    else:
        assert events[1:] == [D.DeckReshuffled(2)]
        assert after.phase == D.Phase.DRAW and after.turn == seat and after.queue == cards("origin")


def test_a_seat_leaving_hands_the_draw_to_the_next_seat_who_meets_the_empty_deck():
    state = at_bind(deck=(), queue=cards("author, desert"), reshuffles=1)
    after, events = D.apply(state, D.Leave(0))
    assert kinds(events)[:4] == ["SeatLeft", "TurnStarted", "DeckRanOut", "HandScored"]
    assert events[2] == D.DeckRanOut(1, rebuilt=True) and after.hand_no == 2


def test_a_deck_that_runs_out_while_turning_cards_at_setup_ends_the_hand_at_once(
    monkeypatch: pytest.MonkeyPatch,
):
    """Six players leave 12 cards to turn; if all are Aces the queue never starts and there is no deck."""
    real = D.shuffled
    basic = deluxe_deck()

    def aces_last_to_turn(cs: tuple[Card, ...], rng: random.Random) -> tuple[Card, ...]:
        if len(cs) != len(basic):
            return real(cs, rng)
        monkeypatch.setattr(D, "shuffled", real)  # only hand 1's deal is arranged
        aces = [c for c in cs if c.rank == Rank.ACE]
        return (*aces, *(c for c in cs if c.rank != Rank.ACE))  # dealing pops from the end

    monkeypatch.setattr(D, "shuffled", aces_last_to_turn)
    state, events = D.start("d8", 6, D.Options())
    first = events[0]
    assert isinstance(first, D.HandStarted) and first.queue == () and first.hand_no == 1
    at = kinds(events).index("DeckRanOut")
    assert kinds(events)[at - 1 : at + 3] == ["TurnStarted", "DeckRanOut", "HandScored", "HandStarted"]
    assert events[at] == D.DeckRanOut(first.first_seat, rebuilt=False)
    assert state.hand_no == 2 and len(state.deck) > 0


def test_a_real_hand_of_players_who_never_bind_rebuilds_once_then_ends():
    """Before the amendment this hand went on for ever; now the deck is drawn through at most twice."""
    state, _ = D.start(11, 6, D.Options())
    rng = random.Random(11)
    seen: list[D.Event] = []
    while state.hand_no == 1:
        seat = state.turn
        action = D.Draw(seat) if state.phase == D.Phase.DRAW else rng.choice(D.legal_actions(state, seat))
        state, events = D.apply(state, action)
        seen += events
    d8 = [e for e in seen if isinstance(e, D.DeckReshuffled | D.DeckRanOut)]
    assert len(d8) == 2 and isinstance(d8[0], D.DeckReshuffled) and d8[1] == D.DeckRanOut(d8[1].seat, True)
    assert state.reshuffles == 0
    lines = R.event_lines(d8, ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"])
    assert "shuffled into a new deck" in lines[0] and "if the deck runs out again" in lines[0]
    assert "ran out a second time" in lines[1] and "The hand ends and is scored." in lines[1]


# --- the bound, seeded property test ---------------------------------------------------------------------

Policy = Callable[[D.State, int, random.Random], D.Action]


def _binds(state: D.State, seat: int) -> list[D.Action]:
    return [D.Bind(seat, m.cards) for m in D.bindable_melds(state, seat)]


def never_bind(state: D.State, seat: int, rng: random.Random) -> D.Action:
    """Draws from the deck and discards at random: the player who made hands endless before D8's limit."""
    if state.phase == D.Phase.DRAW:
        return D.Draw(seat)
    return rng.choice(D.legal_actions(state, seat))


def never_queue(state: D.State, seat: int, rng: random.Random) -> D.Action:
    """Uniform over the legal actions and binds, except taking from the Discard Queue."""
    acts = [a for a in D.legal_actions(state, seat) if not isinstance(a, D.TakeQueue)]
    return rng.choice([*acts, *_binds(state, seat)])


def at_random(state: D.State, seat: int, rng: random.Random) -> D.Action:
    """Uniform over the engine's legal actions and bindable melds (Leave aside)."""
    return rng.choice([*D.legal_actions(state, seat), *_binds(state, seat)])


POLICIES: dict[str, Policy] = {"never_bind": never_bind, "never_queue": never_queue, "random": at_random}
OPTIONS = [
    D.Options(target=target, pawns=pawns, courts=courts, fast_start=fast)
    for target in (10, 100)
    for pawns in (False, True)
    for courts in (False, True)
    for fast in (0, 1, 2, 3)
]
HANDS_PER_GAME = 3
SEEDS = int(os.environ.get("DELUXE_D8_SEEDS", "1"))  # games per (seats, policy, options); CI runs 1
SAFETY_CAP = 100_000  # a hand this long fails the test instead of hanging it


def draw_bound(cards_in_game: int, seats: int) -> int:
    return 2 * cards_in_game - 11 * seats - 2


def action_bound(cards_in_game: int, seats: int) -> int:
    return 5 * cards_in_game - 21 * seats - 5


@dataclass
class HandTally:
    seats: int
    actions: int = 0
    draws: int = 0
    takes: int = 0
    rebuilds: int = 0


@dataclass
class Figures:
    games: int = 0
    hands: int = 0
    d8_ends: int = 0
    max_actions: int = 0
    worst_ratio: float = 0.0  # actions over the bound of the hand (with 2·takes added for queue takers)
    max_takes: int = 0


def play_hands(seed: int, seats: int, options: D.Options, policy: Policy, figures: Figures) -> None:
    """Up to HANDS_PER_GAME hands of one game, checking every hand against the bound."""
    rng = random.Random(f"d8:{seed}")
    c = len(deluxe_deck(pawns=options.pawns, courts=options.courts))
    state, _ = D.start(seed, seats, options)
    hand = HandTally(seats)
    done: list[HandTally] = []

    def close(tally: HandTally) -> None:
        assert tally.rebuilds <= 1, "D8: the deck is rebuilt at most once a hand"
        assert tally.draws <= draw_bound(c, tally.seats), tally
        bound = action_bound(c, tally.seats) + 2 * tally.takes
        assert tally.actions <= bound, (tally, bound)
        if policy is not at_random:
            assert tally.takes == 0 and tally.actions <= action_bound(c, tally.seats)
        figures.max_actions = max(figures.max_actions, tally.actions)
        figures.worst_ratio = max(figures.worst_ratio, tally.actions / bound)
        figures.max_takes = max(figures.max_takes, tally.takes)
        done.append(tally)

    while not D.is_over(state) and len(done) < HANDS_PER_GAME:
        assert hand.actions < SAFETY_CAP, "a hand did not end"
        seat = D.waiting_for(state)[0]
        action = policy(state, seat, rng)
        state, events = D.apply(state, action)
        hand.actions += 1
        hand.draws += isinstance(action, D.Draw)
        hand.takes += isinstance(action, D.TakeQueue)
        for e in events:
            if isinstance(e, D.DeckReshuffled):
                hand.rebuilds += 1
            elif isinstance(e, D.DeckRanOut):
                figures.d8_ends += 1
                assert e.rebuilt == (hand.rebuilds == 1)
            elif isinstance(e, D.HandScored):
                close(hand)
            elif isinstance(e, D.HandStarted):
                hand = HandTally(sum(not gone for gone in state.left))
        if not D.is_over(state):
            # nobody is ever asked to draw from an empty deck, and the counter is the hand's
            assert state.phase != D.Phase.DRAW or state.deck
            assert state.reshuffles == hand.rebuilds <= 1
    figures.games += 1
    figures.hands += len(done)


def run_all(seats: int, name: str) -> Figures:
    figures = Figures()
    for i, options in enumerate(OPTIONS):
        for k in range(SEEDS):
            seed = 1000 * k + 100 * seats + i
            play_hands(seed, seats, options, POLICIES[name], figures)
    return figures


def cases() -> Iterator[tuple[int, str]]:
    for seats in range(D.MIN_PLAYERS, D.MAX_PLAYERS + 1):
        for name in POLICIES:
            yield seats, name


@pytest.mark.parametrize(("seats", "policy"), list(cases()))
def test_every_hand_ends_within_the_bound(seats: int, policy: str) -> None:
    """Every hand ends, and within a bound that follows from D8.

    Let C be the cards in the game (72, +8 with Pawns, +8 with Courts) and p the seats dealt in.
    - Deck draws. Play never reaches a draw step with an empty deck (D8 is applied as the step begins, and the
      driver asserts it), so every Draw takes one card off the deck — fast start 1's Ace included. Cards enter
      the deck twice at most: at the deal, C − 10p − 1 or fewer (10 each dealt, at least one card turned);
      at the one rebuild, the queue minus its top while every seat still holds a card (a seat with none has
      ended the hand, D7): C − p − 1 or fewer. So Draws ≤ 2C − 11p − 2.
    - Each turn has one draw step ending in a Draw or a TakeQueue, and at most one Discard:
      Discards ≤ Draws + Takes.
    - Each Bind moves at least one card from a hand to the table for the rest of the hand: Binds ≤ C.
    - Done only closes a D7 final bind, one per other seat: Dones ≤ p − 1.
    Actions per hand ≤ 2(2C − 11p − 2) + 2·Takes + C + p − 1 = 5C − 21p − 5 + 2·Takes.
    Players who never take from the queue (never_bind, never_queue) are held to 5C − 21p − 5: 393 at most
    (2 seats, 88 cards), 229 for six seats with the basic 72. Nothing in the rules bounds Takes (taking one
    card and discarding it again is always legal, as in the printed game); random players, who take at
    random, still end every hand, since each draw step is a Draw with chance at least 1/(C + 1).
    """
    t0 = time.perf_counter()
    figures = run_all(seats, policy)
    assert figures.hands >= figures.games  # every game reached the end of at least one hand
    if os.environ.get("DELUXE_D8_REPORT"):
        print(f"\n{seats} seats {policy}: {figures} in {time.perf_counter() - t0:.1f}s")
