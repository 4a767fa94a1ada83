"""Classic Cribbage computer players: win rates between levels and baselines, and the hard player's speed.

Run from the repository root:

    python bench/bench_ai_cribbage.py match hard random --games 2000 --jobs 2
    python bench/bench_ai_cribbage.py match hard greedy --games 4000 --jobs 2 --players 2
    python bench/bench_ai_cribbage.py match hard greedy --games 2000 --players 4   # A's partnership vs B's
    python bench/bench_ai_cribbage.py speed --games 100                             # single process

Players: random (uniform legal), greedy (the issue's baseline below), schell (a strong reference written from
published strategy: Schell-style discard averages and the standard pegging habits), easy, normal, hard,
expert. Deals are
duplicate: each seed is played once with A in each seat (seat ``game % players``; with four, A holds seats
``game % 2`` and the one opposite), so a run is reproducible and the luck of the cards is shared. A win is
A's seat among ``final_result(state).winners``; intervals are 95% Wilson. With three players the equal share
is a third.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stats import quantile, wilson
from bot.ai import Level
from bot.ai import cribbage as ai
from bot.rules import cribbage as cr
from bot.rules.cribbage_scoring import peg_total, show_total
from bot.rules.pack52 import FULL_PACK

Player = Callable[[cr.SeatView, random.Random], cr.Action]


# ---------------------------------------------------------------- the baselines


def _greedy_lay_away(view: cr.SeatView) -> cr.Action:
    """The kept cards with the best show averaged over every starter not among the dealt cards, counted
    card by card with the engine (the crib is not looked at)."""
    dealt = (*view.hand, *view.laid_away)
    starters = [c for c in FULL_PACK if c not in dealt]
    best: tuple[int, cr.Action] | None = None
    for a in view.legal:
        assert isinstance(a, cr.LayAway)
        kept = [c for c in dealt if c not in a.cards]
        total = sum(show_total(kept, s) for s in starters)  # same divisor for every choice
        if best is None or total > best[0]:
            best = (total, a)
    assert best is not None
    return best[1]


def greedy(view: cr.SeatView, rng: random.Random) -> cr.Action:
    """The issue's greedy baseline: lay away by the hand's expectation over the starter, play the card that
    pegs most now (ties at random), claim the true count."""
    if len(view.legal) == 1:
        return view.legal[0]
    if view.phase is cr.Phase.DISCARD:
        return _greedy_lay_away(view)
    if view.phase is cr.Phase.PLAY:
        pile = [c for _, c in view.pile]
        scored = [(peg_total([*pile, a.card]), a) for a in view.legal if isinstance(a, cr.Play)]
        top = max(p for p, _ in scored)
        return rng.choice([a for p, a in scored if p == top])
    claim = view.claim  # the claim menu runs 0 to 29 whatever the count (C9): count the shown cards
    assert claim is not None
    return cr.Claim(view.seat, show_total(claim.cards, claim.starter, claim.kind == "crib"))


# ---------------------------------------------------------------- a reference from published strategy
#
# How strong players are taught to play (Schell's discard averages, the standard pegging habits), written
# from the rules alone: nothing of the bot's own players is used, so the reference can disagree with them.

_CRIB: dict[tuple[int, int], float] = {}


def crib_averages(samples: int = 300, seed: int = 7) -> dict[tuple[int, int], float]:
    """The average crib two thrown ranks make with two other random cards and a random starter: the static
    discard averages of the published tables (Schell's), measured with the engine's count of a crib, once per
    process. Suits are drawn too, so flushes and his nobs count as often as they come."""
    if not _CRIB:
        rng = random.Random(seed)
        for low in range(1, 14):
            for high in range(low, 14):
                total = 0
                for _ in range(samples):
                    pack = list(FULL_PACK)
                    rng.shuffle(pack)
                    a = next(c for c in pack if c.rank == low)
                    b = next(c for c in pack if c.rank == high and c != a)
                    rest = [c for c in pack if c not in (a, b)]
                    total += show_total([a, b, rest[0], rest[1]], rest[2], crib=True)
                _CRIB[low, high] = total / samples
    return _CRIB


def _schell_lay_away(view: cr.SeatView) -> cr.Action:
    """The lay-away of the best expected average: the kept cards' show over every starter, plus the thrown
    pair's crib average for the dealer, minus it for the pone."""
    dealt = (*view.hand, *view.laid_away)
    starters = [c for c in FULL_PACK if c not in dealt]
    table = crib_averages()
    sign = 1.0 if view.dealer == view.seat else -1.0
    best: tuple[float, cr.Action] | None = None
    for a in view.legal:
        assert isinstance(a, cr.LayAway)
        kept = [c for c in dealt if c not in a.cards]
        hand = sum(show_total(kept, s) for s in starters) / len(starters)
        low, high = sorted(c.rank for c in a.cards)
        value = hand + sign * table[low, high]
        if best is None or value > best[0]:
            best = (value, a)
    assert best is not None
    return best[1]


def _schell_play(view: cr.SeatView, plays: Sequence[cr.Play]) -> cr.Action:
    """The standard pegging habits: take the most points now; else leave no 5 or 21 (a ten-card makes 15
    or 31), no count a single card brings to 15, no pair to make a pair royal of; lead under five (nothing
    makes 15 on it), from a pair if there is one; keep the low cards for the go."""
    pile = [c for _, c in view.pile]
    ranks = [a.card.rank for a in plays]

    def key(a: cr.Play) -> tuple[float, float]:
        card = a.card
        after = view.count + card.value
        risk = 0.0
        if after in (5, 21):
            risk += 1.0
        if 5 <= 15 - after <= 10:
            risk += 0.3  # a card of that value makes 15 in reply
        if not pile:
            risk += 0.0 if card.rank < 5 else 0.6
            risk -= 0.2 if ranks.count(card.rank) > 1 else 0.0  # from a pair: a pair royal answers theirs
        elif pile[-1].rank == card.rank:
            risk += 0.4
        return (peg_total([*pile, card]), -risk + card.value / 100)

    return max(plays, key=key)


def schell(view: cr.SeatView, rng: random.Random) -> cr.Action:
    """The reference from published strategy: Schell-style lay-aways, the standard pegging habits, the true
    count claimed."""
    if len(view.legal) == 1:
        return view.legal[0]
    if view.phase is cr.Phase.DISCARD:
        return _schell_lay_away(view)
    if view.phase is cr.Phase.PLAY:
        return _schell_play(view, [a for a in view.legal if isinstance(a, cr.Play)])
    claim = view.claim
    assert claim is not None
    return cr.Claim(view.seat, show_total(claim.cards, claim.starter, claim.kind == "crib"))


def any_legal(view: cr.SeatView, rng: random.Random) -> cr.Action:
    """The random baseline: uniform over the legal actions."""
    return rng.choice(view.legal)


LEVELS: tuple[Level, ...] = ("easy", "normal", "hard", "expert")
PLAYERS: dict[str, Player] = {
    "random": any_legal,
    "greedy": greedy,
    "schell": schell,
    **{name: functools.partial(ai.choose, level=name) for name in LEVELS},
}


# ---------------------------------------------------------------- matches


def a_seats(game: int, players: int) -> tuple[int, ...]:
    """A's seats in game ``game``: one seat rotating, or with four a partnership alternating."""
    if players == 4:
        return (game % 2, game % 2 + 2)
    return (game % players,)


def play_game(seed: int, game: int, names: tuple[str, str], players: int, options: cr.Options) -> bool:
    """Whether A won game ``game`` (seed ``seed``)."""
    mine = a_seats(game, players)
    who = [PLAYERS[names[0] if s in mine else names[1]] for s in range(players)]
    state, _ = cr.start(seed, players, options)
    rngs = [random.Random(f"{seed}:ai:{s}") for s in range(players)]
    while not cr.is_over(state):
        seat = cr.waiting_for(state)[0]
        state, _ = cr.apply(state, who[seat](cr.view(state, seat), rngs[seat]))
    return any(s in mine for s in cr.final_result(state).winners)


def rotations(players: int) -> int:
    """How many games one deal is played: once with A in each seat it can hold (a partnership: twice)."""
    return 3 if players == 3 else 2


def _chunk(args: tuple[str, str, int, list[int], int, int]) -> int:
    a, b, players, games, target, first_seed = args
    options = cr.Options(target=target)
    turns = rotations(players)
    return sum(play_game(first_seed + g // turns, g, (a, b), players, options) for g in games)


def match(a: str, b: str, games: int, jobs: int, players: int, target: int, first_seed: int) -> None:
    """Duplicate deals: each seed is played once with A in each seat (``rotations``), so luck of the cards
    falls on both sides alike; ``games`` is rounded up to whole deals."""
    turns = rotations(players)
    games = -(-games // turns) * turns
    numbers = list(range(games))
    work = [(a, b, players, numbers[i : i + 20], target, first_seed) for i in range(0, games, 20)]
    t = time.perf_counter()
    if jobs > 1:
        with Pool(jobs) as pool:
            wins = sum(pool.map(_chunk, work))
    else:
        wins = sum(_chunk(w) for w in work)
    lo, hi = wilson(wins, games)
    share = 1 / 2 if players in (2, 4) else 1 / 3
    print(
        f"{a} vs {b}, {players} players: {wins}/{games} = {wins / games:.1%}  95% CI [{lo:.1%}, {hi:.1%}]"
        f"  (equal share {share:.0%}, target {target}, duplicate deals: seeds {first_seed}–"
        f"{first_seed + games // turns - 1} each played {turns} ways, {time.perf_counter() - t:.0f} s)",
        flush=True,
    )


# ---------------------------------------------------------------- speed


def speed(games: int, players: int, first_seed: int) -> None:
    """Every hard decision of whole hard-vs-hard games, one process: wall and CPU time by kind. The first
    game's decisions are left out: they fill the tables the later ones look up."""
    wall: dict[str, list[float]] = {"discard": [], "play": [], "play-forced": [], "claim": [], "cut": []}
    cpu: dict[str, list[float]] = {k: [] for k in wall}
    options = cr.Options(muggins=True)  # claims too
    for seed in range(first_seed - 1, first_seed + games):
        state, _ = cr.start(seed, players, options)
        rng = random.Random(seed)
        while not cr.is_over(state):
            seat = cr.waiting_for(state)[0]
            view = cr.view(state, seat)
            t, c = time.perf_counter(), time.process_time()
            action = ai.choose(view, rng, "hard")
            dt, dc = time.perf_counter() - t, time.process_time() - c
            if seed >= first_seed:
                kind = view.phase.value if len(view.legal) > 1 else f"{view.phase.value}-forced"
                kind = kind if kind in wall else view.phase.value
                wall[kind].append(dt)
                cpu[kind].append(dc)
            state, _ = cr.apply(state, action)
    print(f"hard decisions over {games} games of {players} players (wall ms | CPU ms):")
    every_wall = list(itertools.chain.from_iterable(wall.values()))
    every_cpu = list(itertools.chain.from_iterable(cpu.values()))
    for name, xs, cs in (("all", every_wall, every_cpu), *((k, wall[k], cpu[k]) for k in wall)):
        if xs:
            p50, p99 = quantile(xs, 0.5) * 1e3, quantile(xs, 0.99) * 1e3
            c50, c99 = quantile(cs, 0.5) * 1e3, quantile(cs, 0.99) * 1e3
            print(
                f"  {name:11} n={len(xs):6}  p50 {p50:6.2f} | {c50:6.2f}  p99 {p99:6.2f} | {c99:6.2f}"
                f"  max {max(xs) * 1e3:6.2f} | {max(cs) * 1e3:6.2f}  mean {statistics.fmean(xs) * 1e3:6.2f}"
            )
    show_speed()


def show_speed(deals: int = 2000, rounds: int = 5) -> float:
    """The plain show total the coach counts ~46 x 15 times per discard decision, once every rank pattern
    was met: seconds per count (about 1 µs on a quiet machine; the tests no longer time it). Printed and
    returned."""
    rng = random.Random(7)
    fives = [rng.sample(FULL_PACK, 5) for _ in range(deals)]
    for d in fives:  # meet every pattern once
        show_total(d[:4], d[4])
    began = time.perf_counter()
    for _ in range(rounds):
        for d in fives:
            show_total(d[:4], d[4])
    per = (time.perf_counter() - began) / (deals * rounds)
    print(f"show_total, every pattern met: {per * 1e6:.2f} µs per count (target: under 50 µs)")
    return per


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("match", help="win rate of player A against player B")
    m.add_argument("a", choices=sorted(PLAYERS))
    m.add_argument("b", choices=sorted(PLAYERS))
    m.add_argument("--games", type=int, default=1000)
    m.add_argument("--jobs", type=int, default=2)
    m.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    m.add_argument("--target", type=int, choices=(121, 61), default=121)
    m.add_argument("--seed", type=int, default=0, help="first game seed")
    s = sub.add_parser("speed", help="hard decision times (p50/p99/max by kind), single process")
    s.add_argument("--games", type=int, default=100)
    s.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    s.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.cmd == "match":
        match(args.a, args.b, args.games, args.jobs, args.players, args.target, args.seed)
    else:
        speed(args.games, args.players, args.seed)


if __name__ == "__main__":
    main()
