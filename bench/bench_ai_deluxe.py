"""Bharg Deluxe computer player figures: win rates of one seat (A) against the others (B), and decision speed.

Deals are duplicate: each deal is played once with A in every seat, so the luck of the cards is shared; a win
is A in ``final_result(state).winners``. Intervals are 95% Wilson.
Opponents: ``random`` (uniform over the legal actions), ``greedy`` (the baseline below), ``strong``
(a stronger baseline: net-after-binding draws with a holding cost, meld-potential discards), a bot level, or
``previous``: the hard player as of commit ea59b99 (before issue 33, item 2), rebuilt from git by
bench/previous.py. ``expert`` is the expert level at ``--work`` simulated actions a decision
(bot/ai/deluxe_expert.py); ``--times`` prints A's decision times (p50/p99/max) per line.

Run from the repo root: ``.venv/bin/python bench/bench_ai_deluxe.py [--games N] [--players 3,6] [--jobs J]``;
``bench/bench_ai.py deluxe ...`` calls ``main`` with the same arguments.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import previous
from bench.stats import quantile, wilson
from bot.ai import Level
from bot.ai import deluxe as ai
from bot.ai import deluxe_expert as expert
from bot.rules import deluxe as D
from bot.rules.decktet import Card, Rank, Suit, deluxe_deck, shuffled
from bot.rules.deluxe_melds import bharg_sets, complete_straights, positions
from bot.rules.deluxe_melds import suit_mask as _suit_mask

Player = Callable[[D.View, random.Random], D.Action]
_MASKS: dict[int, int] = {}


def suit_mask(c: Card) -> int:
    """The card's suit bits, remembered per card type (the baselines ask for them on every decision)."""
    m = _MASKS.get(c.index)
    if m is None:
        m = _MASKS[c.index] = _suit_mask(c)
    return m


# --- the baselines ------------------------------------------------------------------------------------------


def random_player(view: D.View, rng: random.Random) -> D.Action:
    """Uniform over the legal actions."""
    return rng.choice(view.legal)


def _bindable_points(view: D.View, hand: Sequence[Card]) -> int:
    """Points the hand binds if it binds greedily (biggest meld first, then whatever still fits)."""
    return _bind_greedy(view, hand)[0]


def greedy_player(view: D.View, rng: random.Random) -> D.Action:
    """The baseline: draws what lets it bind the most (the deck when nothing does), binds every meld it can
    (biggest first), and discards the card that fits fewest of its other cards."""
    hand = list(view.hand)
    if view.phase == D.Phase.DRAW:
        best: D.Action = next((a for a in view.legal if isinstance(a, D.Draw)), view.legal[0])
        best_score = 0.0
        for a in view.legal:
            if isinstance(a, D.TakeQueue) and a.n <= 8:
                new = hand + list(view.queue[-a.n :])
                score = _bindable_points(view, new) - 1.5 * a.n
                if score > best_score:
                    best, best_score = a, score
        return best

    def usefulness(c: Card) -> float:
        m = suit_mask(c)
        fit = sum(1 for d in hand if d is not c and not suit_mask(d) & m)
        suited = 2 if view.straight_suit is not None and view.straight_suit in c.suits else 0
        return fit + suited - 0.5 * len(c.suits) + rng.random() * 0.01

    return _bind_or_discard(view, lambda cards: min(cards, key=usefulness))


def _bind_or_discard(view: D.View, pick: Callable[[list[Card]], Card]) -> D.Action:
    """After the draw: the biggest meld while one can be bound, else the discard of the card ``pick`` chooses
    among those that may be discarded."""
    binds = [a for a in view.legal if isinstance(a, D.Bind)]
    if binds:
        return max(binds, key=lambda b: (sum(len(c.suits) for c in b.cards), len(b.cards)))
    discards = [a for a in view.legal if isinstance(a, D.Discard)]
    if not discards:
        return view.legal[0]
    card = pick([d.card for d in discards])
    return next(d for d in discards if d.card == card)


# The strong baseline (issue 33): the net points a draw lets it bind minus a holding cost on what it keeps,
# binds everything best first, and discards the card that least helps future melds.
HOLD = 0.75  # holding cost per point kept in hand (the D9 penalty, discounted: the hand may not end soon)
OUT_BONUS = 4.0  # at most one card left after binding: it goes out and ends the hand
DECK_SAMPLES = 6  # unseen cards tried to value a draw from the deck


def _bind_greedy(view: D.View, hand: Sequence[Card]) -> tuple[int, list[Card]]:
    """(points, cards left in hand) when the hand binds greedily: biggest meld first, then whatever fits."""
    table = [(s, m) for s in range(len(view.bound)) for m in view.bound[s]]
    melds = sorted(
        D.find_melds(hand, table, view.straight_suit, view.options),
        key=lambda m: -sum(len(c.suits) for c in m.cards),
    )
    have = Counter(c.index for c in hand)
    pts = 0
    for m in melds:
        need = Counter(c.index for c in m.cards)
        if all(have[k] >= v for k, v in need.items()):
            have.subtract(need)
            pts += sum(len(c.suits) for c in m.cards)
    kept: list[Card] = []
    for c in hand:
        if have[c.index] > 0:
            have[c.index] -= 1
            kept.append(c)
    return pts, kept


def _straight_potential(view: D.View, hand: Sequence[Card], suit: Suit | None) -> float:
    """How much a hand could do with straights in ``suit``: suited cards next to another suited card (in hand
    or bound on the table) count."""
    if suit is None:
        return 0.0
    pos = positions(pawns=view.options.pawns, courts=view.options.courts)
    mine = {pos[c.rank] for c in hand if suit in c.suits and c.rank in pos}
    bound = [c for ms in view.bound for m in ms for c in m.cards]
    table = {pos[c.rank] for c in bound if suit in c.suits and c.rank in pos}
    return sum(1.0 + 0.5 * sum(1 for q in (p - 1, p + 1) if q in mine or q in table) for p in mine)


def _meld_value(view: D.View, c: Card, rest: Sequence[Card]) -> float:
    """How much ``c`` helps future melds with the rest of the hand (higher: keep it)."""
    m = suit_mask(c)
    # Bharg sets: the most suits disjoint hand cards with c can cover, and how many partners it has.
    reach = {m}
    for d in rest:
        dm = suit_mask(d)
        reach |= {r | dm for r in reach if not r & dm}
    cover = max(r.bit_count() for r in reach)
    partners = sum(1 for d in rest if not suit_mask(d) & m)
    value = cover + 0.25 * min(partners, 8) + (3.0 if cover == 6 else 0.0)
    # Straights: a card of the straight suit next to other suited cards (in hand or on the table).
    suit = view.straight_suit
    if suit is not None and suit in c.suits:
        pos = positions(pawns=view.options.pawns, courts=view.options.courts)
        p = pos.get(c.rank)
        if p is not None:
            near = [d for d in rest if suit in d.suits and pos.get(d.rank) in (p - 1, p + 1, p - 2, p + 2)]
            table = [
                d
                for ms in view.bound
                for mm in ms
                for d in mm.cards
                if suit in d.suits and pos.get(d.rank) in (p - 1, p + 1)
            ]
            value += 1.0 + len(near) + 0.5 * min(len(table), 2)
    if c.rank == Rank.ACE:
        # An Ace discarded sets the straight suit: worth it when the hand holds more of that suit's straights.
        gain = _straight_potential(view, rest, c.suits[0]) - _straight_potential(view, rest, suit)
        value -= max(gain, 0.0)
    return value


def _discard_choice(view: D.View, hand: Sequence[Card], allowed: Sequence[Card]) -> Card:
    def key(c: Card) -> tuple[float, int, int]:
        rest = list(hand)
        rest.remove(c)
        return (_meld_value(view, c, rest), -len(c.suits), c.index)

    return min(allowed, key=key)


def _net_after(view: D.View, hand: Sequence[Card]) -> float:
    """Points bound from ``hand`` minus the holding cost of what stays after binding and one discard."""
    pts, kept = _bind_greedy(view, hand)
    if len(kept) <= 1:
        return pts + OUT_BONUS
    drop = _discard_choice(view, kept, kept)
    return pts - HOLD * (sum(len(c.suits) for c in kept) - len(drop.suits))


def _unseen(view: D.View) -> list[Card]:
    left = Counter(c.index for c in deluxe_deck(pawns=view.options.pawns, courts=view.options.courts))
    seen = [*view.hand, *view.queue, *view.ace_pile, *(c for ms in view.bound for m in ms for c in m.cards)]
    for c in seen:
        left[c.index] -= 1
    by_index = {c.index: c for c in deluxe_deck(pawns=view.options.pawns, courts=view.options.courts)}
    return [by_index[k] for k in sorted(left) for _ in range(max(left[k], 0))]


def strong_player(view: D.View, rng: random.Random) -> D.Action:
    """The stronger baseline: draws what maximizes net points after binding (holding cost on kept cards; the
    deck valued on a few sampled unseen cards), binds everything best first, discards the least meld-helpful
    card (Aces valued by the straight suit they would set; ties: the costliest card)."""
    hand = list(view.hand)
    if view.phase == D.Phase.DRAW:
        deck_draw = next((a for a in view.legal if isinstance(a, D.Draw)), None)
        best: D.Action = deck_draw or view.legal[0]
        best_score = float("-inf")
        if deck_draw is not None:
            pool = _unseen(view)
            sample = rng.sample(pool, min(DECK_SAMPLES, len(pool))) if pool else []
            best_score = statistics.mean(_net_after(view, [*hand, c]) for c in sample) if sample else 0.0
        for a in view.legal:
            if isinstance(a, D.TakeQueue) and a.n <= 10:
                score = _net_after(view, hand + list(view.queue[-a.n :]))
                if score > best_score:
                    best, best_score = a, score
        return best
    return _bind_or_discard(view, lambda cards: _discard_choice(view, hand, cards))


# The previous hard player's modules, as of previous.COMMIT (issue 33: today's hard before item 2).
PREVIOUS_MODULES = ["deluxe_hand", "deluxe"]


def previous_hard(view: D.View, rng: random.Random) -> D.Action:
    """The hard player as of ``previous.COMMIT``, rebuilt from git (loaded once per process)."""
    action: D.Action = previous.load(PREVIOUS_MODULES)["deluxe"].choose(view, rng, "hard")
    return action


def level_player(level: Level) -> Player:
    def play(view: D.View, rng: random.Random) -> D.Action:
        return ai.choose(view, rng, level)

    return play


EXPERT: dict[str, float] = {"work": expert.WORK}  # --work: the expert's budget, simulated actions a decision


def expert_player(view: D.View, rng: random.Random) -> D.Action:
    """The expert level (bot/ai/deluxe_expert.py) at the budget ``--work`` gives."""
    if EXPERT["work"] == expert.WORK:
        return ai.choose(view, rng, "expert")  # the level itself, as the bot plays it
    return expert.choose(view, rng, ai.advise(view, explain=False), int(EXPERT["work"]))


PLAYERS: dict[str, Player] = {
    "random": random_player,
    "greedy": greedy_player,
    "strong": strong_player,
    "easy": level_player("easy"),
    "normal": level_player("normal"),
    "hard": level_player("hard"),
    "previous": previous_hard,
    "expert": expert_player,
}


# --- games --------------------------------------------------------------------------------------------------


def option_for(game: int, target: int) -> D.Options:
    """Options cycle over games so every line covers them all: pawns/courts and fast start 0–3."""
    i = game % 16
    return D.Options(target=target, pawns=bool(i & 1), courts=bool(i & 2), fast_start=(i >> 2) & 3)


def play_game(args: tuple[str, str, int, int, int, int, dict[str, float]]) -> tuple[bool, int, list[float]]:
    """One game: A at seat ``game % players`` of deal ``game // players`` (each deal is played once with A in
    every seat: duplicate deals); returns (A won, actions, A's decision times in ms)."""
    a_name, b_name, players, game, seed, target, settings = args
    EXPERT.update(settings)  # a worker process does not see main's setting
    a_seat = game % players
    deal = game // players
    state, _ = D.start(f"bench:{seed}:{deal}", players, option_for(deal, target))
    rngs = [random.Random(f"{seed}:{deal}:{s}") for s in range(players)]
    times: list[float] = []
    steps = 0
    while not D.is_over(state):
        seat = D.waiting_for(state)[0]
        view = D.view(state, seat)
        who = PLAYERS[a_name if seat == a_seat else b_name]
        t0 = time.perf_counter()
        action = who(view, rngs[seat])
        if seat == a_seat:
            times.append((time.perf_counter() - t0) * 1000)
        state, _ = D.apply(state, action)
        steps += 1
    return a_seat in D.final_result(state).winners, steps, times


def run_line(
    a: str,
    b: str,
    players: int,
    games: int,
    jobs: int,
    seed: int,
    target: int,
    settings: dict[str, float] | None = None,
) -> list[float]:
    t0 = time.perf_counter()
    games = -(-games // players) * players  # whole deals, each played with A in every seat
    tasks = [(a, b, players, g, seed, target, settings or dict(EXPERT)) for g in range(games)]
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(play_game, tasks, chunksize=4)
    else:
        results = [play_game(t) for t in tasks]
    wins = sum(1 for won, _, _ in results if won)
    lo, hi = wilson(wins, games)
    steps = statistics.mean(s for _, s, _ in results)
    times = [t for _, _, ts in results for t in ts]
    print(
        f"{a} vs {players - 1}×{b}, {players} players: {a} won {wins}/{games} = {wins / games:.1%} "
        f"[95% {lo:.1%}–{hi:.1%}] (equal share {1 / players:.0%}, {games // players} duplicate deals from "
        f"seed {seed}, {steps:.0f} actions/game, "
        f"wall {time.perf_counter() - t0:.1f} s)",
        flush=True,
    )
    return times


def crowded_view(i: int) -> D.View:
    """A 6-seat view with a 30-card hand to bind and discard from and a crowded table."""
    rng = random.Random(f"big:{i}")
    opts = D.Options(pawns=True, courts=True)
    state, _ = D.start(f"big:{i}", 6, opts)
    deck = list(shuffled(deluxe_deck(pawns=True, courts=True), rng))
    hand, pool = tuple(deck[:30]), deck[30:]
    bound: list[list[D.Meld]] = [[] for _ in range(6)]
    suit = list(Suit)[i % 6]
    for k, cs in enumerate(complete_straights(pool, suit, pawns=True, courts=True)[:2]):
        bound[k % 6].append(D.Meld("complete straight", cs))
    for k, cs in enumerate(bharg_sets(pool)[::37][:10]):
        bound[(k + 2) % 6].append(D.Meld("bharg set", cs))
    from dataclasses import replace

    aces = tuple(c for c in deluxe_deck() if c.rank == 1 and c.suits[0] == suit)[:1]
    state = replace(
        state,
        hands=(hand, *state.hands[1:]),
        bound=tuple(tuple(b) for b in bound),
        ace_pile=aces,
        turn=0,
        phase=D.Phase.BIND if i % 2 == 0 else D.Phase.DRAW,
        queue=tuple(pool[-12:]),
    )
    return D.view(state, 0)


def speed(games: int, jobs: int, seed: int, target: int) -> None:
    t0 = time.perf_counter()
    times = run_line("hard", "hard", 6, games, jobs, seed, target)
    print(
        f"hard decisions over whole 6-player games: n={len(times)} p50 {quantile(times, 0.5):.2f} ms, "
        f"p99 {quantile(times, 0.99):.2f} ms, max {max(times):.1f} ms "
        f"(wall {time.perf_counter() - t0:.1f} s)"
    )
    big: list[float] = []
    for i in range(200):
        view = crowded_view(i)
        t1 = time.perf_counter()
        action = ai.choose(view, random.Random(i), "hard")
        big.append((time.perf_counter() - t1) * 1000)
        assert action in view.legal
    print(
        f"hard decisions on constructed 30-card hands (6 seats, crowded table): n={len(big)} "
        f"p50 {quantile(big, 0.5):.2f} ms, p99 {quantile(big, 0.99):.2f} ms, max {max(big):.1f} ms"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--games", type=int, default=600, help="games per line (default 600)")
    p.add_argument("--players", default="3,6", help="comma-separated seat counts (default 3,6)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--target", type=int, default=100)
    p.add_argument(
        "--lines",
        default="hard:random,hard:greedy,hard:normal",
        help="A:B pairs to play, comma-separated (random, greedy, strong, easy, normal, hard, previous, "
        "expert)",
    )
    p.add_argument("--speed-games", type=int, default=20, help="6-player hard games timed (0: skip)")
    p.add_argument("--work", type=int, default=expert.WORK, help="the expert's budget per decision")
    p.add_argument("--times", action="store_true", help="print A's decision times per line")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    for pair in args.lines.split(","):
        if not pair:
            continue
        a, b = pair.split(":")
        for players in (int(x) for x in args.players.split(",")):
            settings: dict[str, float] = {"work": args.work}
            times = run_line(a, b, players, args.games, args.jobs, args.seed, args.target, settings)
            if args.times and times:
                print(
                    f"  {a} decisions (work {args.work}): n={len(times)} "
                    f"mean {statistics.mean(times):.2f} ms, "
                    f"p50 {quantile(times, 0.5):.2f} ms, p99 {quantile(times, 0.99):.2f} ms, "
                    f"max {max(times):.1f} ms",
                    flush=True,
                )
    if args.speed_games > 0:
        speed(args.speed_games, args.jobs, args.seed, args.target)
    print(f"total wall {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
