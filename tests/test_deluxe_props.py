"""Property tests: seeded random Bharg Deluxe games of 2–6 players with random legal play.

Checked on every step: cards are conserved, every bound meld is valid when bound (D5/D6), the action text
round-trips; per game: hands end, the game ends with a winner by the rules, and replay reproduces the state.
The step caps live in this driver only; the engine has none, and the tests assert they are never hit.
"""

import copy
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules import deluxe as D
from bot.rules.decktet import Card, deluxe_deck
from bot.rules.errors import GameOver, IllegalAction, NotYourTurn
from tests.test_deluxe_engine import zones
from tests.test_rules_review import check_agrees, check_odd_actions

MAX_STEPS_PER_HAND = 5_000
MAX_HANDS = 300


def check_meld(before: D.State, event: D.MeldBound) -> None:
    """The bound meld is what D5/D6 allow, judged on the state it was bound in."""
    opts = before.options
    suit = D.straight_suit(before)
    assert not Counter(event.cards) - Counter(before.hands[event.seat])
    if event.kind == "bharg set":
        assert D.is_bharg_set(event.cards)
        return
    assert suit is not None
    if event.kind == "complete straight":
        assert D.is_complete_straight(event.cards, suit, pawns=opts.pawns, courts=opts.courts)
        return
    assert event.kind == "partial straight" and 1 <= len(event.cards) <= 2 and event.used
    used: list[Card] = []
    for owner, cs in event.used:
        # the owner's used cards = some whole complete straights + loose cards of their other melds
        owned = before.bound[owner]
        loose = Counter(c for m in owned if m.kind != "complete straight" for c in m.cards)
        blocks = [Counter(m.cards) for m in owned if m.kind == "complete straight"]
        want = Counter(cs)
        ok = False
        for mask in range(1 << len(blocks)):
            whole: Counter[Card] = Counter()
            for i, b in enumerate(blocks):
                if mask >> i & 1:
                    whole += b
            if whole <= want and want - whole <= loose:
                ok = True
                break
        assert ok, f"seat {owner}'s table cards {cs} are not loose cards plus whole complete straights"
        used += cs
    assert D.is_complete_straight((*event.cards, *used), suit, pawns=opts.pawns, courts=opts.courts)


def random_action(
    state: D.State, rng: random.Random, bind_rate: float, leave_rate: float
) -> tuple[D.Action, D.Meld | None]:
    """A random legal action for the seat to move (or a random Leave), and the meld when it binds one."""
    seat = D.waiting_for(state)[0]
    if leave_rate and rng.random() < leave_rate:
        return D.Leave(rng.choice([s for s in range(state.players) if not state.left[s]])), None
    melds = D.bindable_melds(state, seat)
    if melds and rng.random() < bind_rate:
        meld = rng.choice(melds)
        return D.Bind(seat, meld.cards), meld
    acts = D.legal_actions(state, seat)
    assert acts, "the seat to move always has a legal action"
    if state.phase == D.Phase.DRAW and len(acts) > 1 and rng.random() < 0.4:
        return rng.choice(acts[1:5]), None
    return (acts[0] if state.phase == D.Phase.DRAW else rng.choice(acts)), None


def play(
    seed: int, players: int, options: D.Options, bind_rate: float = 0.85, leave_rate: float = 0.0
) -> None:
    rng = random.Random(f"driver:{seed}")
    state, _ = D.start(seed, players, options)
    full = Counter(deluxe_deck(pawns=options.pawns, courts=options.courts))
    texts: list[str] = []
    steps_this_hand = 0
    while not D.is_over(state):
        assert state.hand_no <= MAX_HANDS, "driver cap on hands hit"
        assert steps_this_hand < MAX_STEPS_PER_HAND, "driver cap on steps in a hand hit"
        action, meld = random_action(state, rng, bind_rate, leave_rate)
        text = D.action_text(action)
        assert D.parse_action(text) == action
        texts.append(text)
        before = state
        state, events = D.apply(state, action)
        steps_this_hand = 0 if state.hand_no != before.hand_no else steps_this_hand + 1
        for e in events:
            if isinstance(e, D.MeldBound):
                check_meld(before, e)
                if meld is not None:
                    assert (e.kind, e.cards, e.used) == (meld.kind, meld.cards, meld.used)
        assert zones(state) == full
        assert all(
            len(state.hands[s]) == 0
            for s in range(players)
            if state.left[s] and state.hand_no != before.hand_no
        )
    result = D.final_result(state)
    active = [s for s in range(players) if not state.left[s]]
    assert result.winners and set(result.winners) <= set(active)
    if len(active) >= 2:
        top = max(state.totals[s] for s in active)
        assert top >= options.target and result.winners == tuple(s for s in active if state.totals[s] == top)
        assert len(result.winners) == 1
    assert D.replay(seed, players, options, texts) == state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**9),
    players=st.integers(2, 6),
    fast_start=st.integers(0, 3),
    pawns=st.booleans(),
    courts=st.booleans(),
    target=st.sampled_from([30, 50, 100]),
)
def test_random_games_hold_the_invariants(seed, players, fast_start, pawns, courts, target):
    options = D.Options(target=target, pawns=pawns, courts=courts, fast_start=fast_start)
    play(seed, players, options)


def test_random_games_plain_loop_with_leavers_and_timid_binders():
    for i in range(24):
        players = 2 + i % 5
        options = D.Options(target=50, fast_start=i % 4, pawns=i % 3 == 0, courts=i % 2 == 0)
        play(i, players, options, bind_rate=0.6 if i % 2 else 0.95, leave_rate=0.004 if i % 3 == 0 else 0.0)


# --- check() and can() --------------------------------------------------------------------------------------


def odd_actions(state: D.State, rng: random.Random) -> list[tuple[D.Action, bool]]:
    """Actions to try on a state, each with whether it is certainly illegal.

    Other seats, a seat that does not exist, cards not held, binds of random cards (mostly no meld), drawing
    or taking after the draw, taking 0 or too many, Done outside a final bind, every discard from the hand.
    """
    n = state.players
    turn = state.turn
    hand = state.hands[turn]
    full = deluxe_deck(pawns=state.options.pawns, courts=state.options.courts)
    stranger = rng.choice([c for c in full if c not in hand])
    out: list[tuple[D.Action, bool]] = [
        (D.Draw(n), True),
        (D.Leave(-1), True),
        (D.Draw(turn), False),
        (D.TakeQueue(turn, 0), True),
        (D.TakeQueue(turn, len(state.queue) + 1), True),
        (D.Done(turn), False),
        (D.Discard(turn, stranger), True),
        (D.Bind(turn, ()), True),
        (D.Bind(turn, (stranger,)), True),
    ]
    out += [(D.Discard(turn, c), False) for c in dict.fromkeys(hand)]
    out += [(D.Draw(s), True) for s in range(n) if s != turn]
    out += [(D.Discard(s, state.hands[s][0]), True) for s in range(n) if s != turn and state.hands[s]]
    if hand:
        once = [c for c, k in Counter(hand).items() if k == 1]
        if once:
            out.append((D.Bind(turn, (once[0], once[0])), True))
        for _ in range(3):
            out.append((D.Bind(turn, tuple(rng.sample(hand, rng.randint(1, min(4, len(hand)))))), False))
    return out


def test_check_agrees_with_apply_on_every_state_of_random_games() -> None:
    """Legal actions and bindable melds pass ``check``; odd ones raise what ``apply`` raises; the state is
    never changed by ``check``."""
    seen: Counter[str] = Counter()
    for i in range(10):
        players = 2 + i % 5
        options = D.Options(target=30, fast_start=i % 4, pawns=i % 3 == 0, courts=i % 2 == 0)
        rng = random.Random(f"check:{i}")
        state, _ = D.start(i, players, options)
        while True:
            snapshot = copy.deepcopy(state)
            over = D.is_over(state)
            for seat in range(players):
                legal = [
                    *D.legal_actions(state, seat),
                    *(D.Bind(seat, m.cards) for m in D.bindable_melds(state, seat)),
                ]
                if not over and not state.left[seat]:
                    legal.append(D.Leave(seat))
                for action in legal:
                    assert D.check(state, action) is None and D.can(state, action)
                if state.left[seat]:
                    err = check_agrees(D, state, D.Leave(seat))
                    assert err is not None
                    seen[f"{type(err).__name__}: {err}"] += 1
            check_odd_actions(D, state, odd_actions(state, rng), seen)
            assert state == snapshot
            if over:
                break
            state, _ = D.apply(state, random_action(state, rng, 0.8, 0.002 if i % 3 == 0 else 0.0)[0])
    messages = "\n".join(seen)
    assert f"{NotYourTurn.__name__}: It's not your turn." in seen
    assert f"{GameOver.__name__}: The game is over." in seen
    for part in (
        "You can't draw now. You have already drawn this turn",
        "You can't discard now. You have to draw first",
        "“Done” only ends a final bind",
        "Take at least one card",
        "Those cards make no meld",
        "copies of",
        "You don't hold",
        "There is no such seat at this table.",
        f"{IllegalAction.__name__}: The Discard Queue holds only",
    ):
        assert part in messages, part
