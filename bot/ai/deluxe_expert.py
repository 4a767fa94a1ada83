"""Bharg Deluxe expert player: the hard player's few best choices, re-weighed by play to the end of the hand.

The hard player values a hand by fixed weights: points, not wins. The expert takes hard's top choices at a
draw or a discard and plays each one out on the same sampled deals (common random numbers: the hidden hands
and the deck drawn once per sample, consistent with the view: the cards each seat took from the queue are
known to be in its hand), every seat then playing a cheap greedy policy until the hand ends. A finished hand
is scored as the game counts it: a game won is worth 1, one lost 0, and a hand that leaves the game open is
worth a smooth share of the lead (so a point matters more the nearer the target). The choice with the best
mean wins; hard's order breaks ties, and hard decides alone where there is nothing to weigh (binds, the D7
final bind, a single candidate).

The budget ``work`` counts simulated actions, never time, so a choice depends only on (view, rng, work).

Measured (bench/bench_ai_deluxe.py, duplicate deals, expert vs hard): a small gain at 3 seats, none at 6.
3 seats at work 400: 172/450 = 38.2% [33.9–42.8] over seeds 1–3 (share 33%); work 800 32.0% and searching
only near the target 36.0% (150 games each, seed 1). 6 seats: 16.7% [11.6–23.4] (share 16.7%).
The play-outs are too few and too crude to beat hard's tuned weighing by much; what would help next is a
stronger, cheaper play-out policy (or hard's own turn for the seat) and more samples.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence

from bot.ai.deluxe_hand import Advice, mask_of, points_of
from bot.rules import deluxe as D
from bot.rules.decktet import Card, deluxe_deck
from bot.rules.deluxe_melds import find_melds

WORK = 400  # simulated actions per decision (all candidates together)
TOP_K = 3  # hard's best choices re-weighed
MARGIN = 3.0  # a candidate more than this below hard's best (its own values) is not weighed
ROLLOUT_CAP = 60  # actions one play-out may take before it is scored as if the hand ended there
MIN_SAMPLES = 2  # samples per candidate the play-out length is cut to allow

# --- sampling the hidden cards ------------------------------------------------------------------------------


def _first_turn(view: D.View) -> bool:
    """D7's first turn of the hand's first player: no one has bound and every other hand is still whole."""
    if view.turn != view.first_seat or any(view.bound[s] for s in range(len(view.bound))):
        return False
    return all(view.hand_sizes[s] == D.HAND_SIZE for s in range(len(view.hand_sizes)) if s != view.seat)


def _unseen(view: D.View, taken: Sequence[Sequence[Card]]) -> list[Card]:
    """The cards the seat cannot place, in a fixed order (the deck's, by index) for the sample to shuffle:
    the game's deck less its hand, the queue, the ace pile, the bound melds and what the others took."""
    opts = view.options
    left: Counter[int] = Counter()
    types: dict[int, Card] = {}
    for c in deluxe_deck(pawns=opts.pawns, courts=opts.courts):
        left[c.index] += 1
        types[c.index] = c
    known = [*view.hand, *view.queue, *view.ace_pile, *(c for ms in view.bound for m in ms for c in m.cards)]
    for s in range(len(view.hand_sizes)):
        if s != view.seat:
            known += taken[s]
    for c in known:
        left[c.index] -= 1
    return [types[k] for k in sorted(left) for _ in range(max(0, left[k]))]


def sample_state(view: D.View, rng: random.Random, seed: str) -> D.State:
    """A full state consistent with the view: unseen cards dealt at random to the other hands (after the
    cards each is known to hold) and the deck."""
    opts = view.options
    n = len(view.hand_sizes)
    taken = view.taken or tuple(() for _ in range(n))
    pool = _unseen(view, taken)
    rng.shuffle(pool)
    hands: list[tuple[Card, ...]] = []
    for s in range(n):
        if s == view.seat:
            hands.append(tuple(view.hand))
            continue
        need = max(0, view.hand_sizes[s] - len(taken[s]))
        hands.append((*taken[s], *pool[:need]))
        del pool[:need]
    deck = tuple(pool[: view.deck_count])
    return D.State(
        seed=seed,
        players=n,
        options=opts,
        hand_no=view.hand_no,
        first_seat=view.first_seat,
        turn=view.turn,
        phase=view.phase,
        deck=deck,
        queue=view.queue,
        ace_pile=view.ace_pile,
        die_suit=view.die_suit,
        hands=tuple(hands),
        bound=view.bound,
        totals=view.scores,
        left=view.left,
        first_turn=_first_turn(view),
        reshuffles=1 if view.deck_rebuilt else 0,
        drawn=view.drawn,
        taken=taken,
        passed=view.passed or tuple(() for _ in range(n)),
    )


# --- the play-out policy ------------------------------------------------------------------------------------


def rollout_action(state: D.State, rng: random.Random) -> D.Action:
    """A cheap greedy turn for whoever is to move: take the queue's top card when it melds at once (else
    the deck), bind the biggest meld while there is one, discard the card with fewest bharg partners."""
    seat = state.turn
    hand = state.hands[seat]
    if state.phase == D.Phase.DRAW:
        if state.queue:
            top = state.queue[-1]
            suit = D.straight_suit(state)
            melds = find_melds((*hand, top), D.table_melds(state, seat), suit, state.options)
            if any(top in m.cards for m in melds):
                return D.TakeQueue(seat, 1)
        return D.Draw(seat)
    melds = D.bindable_melds(state, seat)
    if melds:
        best = max(melds, key=lambda m: (points_of(m.cards), len(m.cards)))
        return D.Bind(seat, best.cards)
    if state.phase == D.Phase.FINAL_BIND:
        return D.Done(seat)
    legal = [a for a in D.legal_actions(state, seat) if isinstance(a, D.Discard)]
    masks = [mask_of(c) for c in hand]

    def key(a: D.Discard) -> tuple[int, int, float]:
        m = mask_of(a.card)
        partners = sum(1 for k in masks if not k & m)
        return (partners, -len(a.card.suits), rng.random())

    return min(legal, key=key)


def _estimate(state: D.State) -> list[float]:
    """Each seat's total if the hand were scored now (D9): bound points in, held points out."""
    out: list[float] = []
    for s in range(state.players):
        bound = sum(points_of(m.cards) for m in state.bound[s])
        out.append(state.totals[s] + bound - points_of(state.hands[s]))
    return out


def utility(seat: int, totals: Sequence[float], left: Sequence[bool], target: int) -> float:
    """A smooth chance of winning from the totals: a softmax whose temperature shrinks as the leader nears
    the target (far from it a point is worth little; near it the lead is nearly the game)."""
    active = [s for s in range(len(totals)) if not left[s]]
    top = max(totals[s] for s in active)
    tau = 6.0 + 0.5 * max(0.0, target - top)
    weights = {s: math.exp((totals[s] - top) / tau) for s in active}
    return weights.get(seat, 0.0) / sum(weights.values())


def play_out(state: D.State, seat: int, rng: random.Random, cap: int) -> tuple[float, int]:
    """(utility for ``seat``, actions simulated) playing the hand out with the greedy policy."""
    hand_no = state.hand_no
    steps = 0
    while not D.is_over(state) and state.hand_no == hand_no and steps < cap:
        state, _ = D.apply(state, rollout_action(state, rng))
        steps += 1
    if D.is_over(state) and state.winners:
        return (1.0 if state.winners == (seat,) else 0.0), steps
    if state.hand_no != hand_no or D.is_over(state):
        return utility(seat, state.totals, state.left, state.options.target), steps
    return utility(seat, _estimate(state), state.left, state.options.target), steps


# --- the choice ---------------------------------------------------------------------------------------------


def candidates(view: D.View, advice: Sequence[Advice]) -> list[D.Action]:
    """Hard's choices worth re-weighing, best first (``advice``: hard's weighing, best first): none but
    hard's first outside a draw or a discard."""
    if view.phase == D.Phase.FINAL_BIND or isinstance(advice[0].action, D.Bind):
        return [advice[0].action]
    best = advice[0].value
    out: list[D.Action] = [
        a.action for a in advice if a.value >= best - MARGIN and not isinstance(a.action, D.Bind)
    ]
    return out[:TOP_K] or [advice[0].action]


def choose(view: D.View, rng: random.Random, advice: Sequence[Advice], work: int = WORK) -> D.Action:
    """The expert's action: hard's best few choices (``advice``), each played out on the same sampled deals;
    the best mean wins, hard's order breaking ties."""
    cands = candidates(view, advice)
    if len(cands) == 1 or work <= 0:
        return cands[0]
    per = max(1, min(ROLLOUT_CAP, work // (len(cands) * MIN_SAMPLES)))
    scores: list[list[float]] = [[] for _ in cands]
    used = 0
    base = rng.getrandbits(32)
    while used < work:
        seed = f"expert:{base}:{len(scores[0])}"
        deal = sample_state(view, random.Random(seed), seed)
        for i, a in enumerate(cands):
            state, _ = D.apply(deal, a)
            u, steps = play_out(state, view.seat, random.Random(seed), per)
            scores[i].append(u)
            used += steps + 1
    means = [sum(s) / len(s) for s in scores]
    return cands[max(range(len(cands)), key=lambda i: (means[i], -i))]
