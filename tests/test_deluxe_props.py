"""Property tests: seeded random Bharg Deluxe games of 2–6 players with random legal play.

Checked on every step: cards are conserved, every bound meld is valid when bound (D5/D6), the action text
round-trips; per game: hands end, the game ends with a winner by the rules, and replay reproduces the state.
The step caps live in this driver only; the engine has none, and the tests assert they are never hit.
"""

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules import deluxe as D
from bot.rules.decktet import Card, deluxe_deck
from tests.test_deluxe_engine import zones

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
        seat = D.waiting_for(state)[0]
        action: D.Action
        meld: D.Meld | None = None
        if leave_rate and rng.random() < leave_rate:
            action = D.Leave(rng.choice([s for s in range(players) if not state.left[s]]))
        else:
            melds = D.bindable_melds(state, seat)
            if melds and rng.random() < bind_rate:
                meld = rng.choice(melds)
                action = D.Bind(seat, meld.cards)
            else:
                acts = D.legal_actions(state, seat)
                assert acts, "the seat to move always has a legal action"
                if state.phase == D.Phase.DRAW and len(acts) > 1 and rng.random() < 0.4:
                    action = rng.choice(acts[1:5])
                else:
                    action = acts[0] if state.phase == D.Phase.DRAW else rng.choice(acts)
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
