"""Computer players: Bhargage win rates between levels and baselines, and the hard player's decision speed.

Run from the repository root:

    python bench/bench_ai.py match hard greedy --games 4000 --jobs 2   # win rate of the first player, 95% CI
    python bench/bench_ai.py match hard random --games 2000
    python bench/bench_ai.py match hard previous --games 8000 --jobs 2 --seed 100000
    python bench/bench_ai.py match expert hard --games 4000 --jobs 1 --work 40
    python bench/bench_ai.py speed --games 100                          # hard decision times, single process
    python bench/bench_ai.py speed --games 100 --player expert          # expert decision times
    python bench/bench_ai.py deluxe ...                                 # runs bench/bench_ai_deluxe.py
    python bench/bench_ai.py cribbage ...                               # runs bench/bench_ai_cribbage.py

Players: random (uniform legal), greedy (the baseline below), easy, normal, hard, expert
(bot/ai/bhargage_expert.py, ``--work`` deals per decision near the end), and previous: the hard player as of
commit ea59b99 (before issue 33's stronger hard), rebuilt from git by bench/previous.py. Deals
are duplicate: each seed is played twice, A in seat 0 then in seat 1, so the luck of the cards is shared and a
run is reproducible.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing import Pool
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import previous
from bench.stats import quantile, wilson
from bot.ai import Level, bhargage_expert
from bot.ai import bhargage as ai
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import peg_points
from bot.rules.decktet import ALL_CARDS

Player = Callable[[bh.SeatView, random.Random], bh.Action]


# ---------------------------------------------------------------- the greedy baseline


def _greedy_discard(view: bh.SeatView) -> bh.Action:
    """Exact expected value of the kept hand over the up-cards (count − shortage), ± the two discards' own
    pairs and 11s as a rough stand-in for their part of the bhargage."""
    dealt = [*view.hand, *view.discard]
    taken = {c.index for c in dealt}
    u = ai.Unseen([i for i in range(len(ALL_CARDS)) if i not in taken])
    sign = 1 if view.dealer == view.seat else -1
    best: tuple[float, bh.Action] | None = None
    for a in view.legal:
        assert isinstance(a, bh.Discard)
        kept = [c.index for c in dealt if c not in a.cards]
        num, short = u.expected(kept, 1, friends=True, sequences=view.sequences)
        x, y = a.cards
        own = (2 if x.rank == y.rank else 0) + (2 if x.value + y.value == 11 else 0)
        value = (num - short) / u.n + sign * own
        if best is None or value > best[0]:
            best = (value, a)
    assert best is not None
    return best[1]


def _greedy_play(view: bh.SeatView) -> bh.Action:
    """Best immediate points minus a small risk: leaving a count an opponent card turns into 11 or 23, or
    offering a pair of a rank that is still out."""
    pile = [c for _, c in view.pile]
    seen = {c.index for c in (*view.hand, *view.discard, *pile)}
    if view.up is not None:
        seen.add(view.up.index)
    out_ranks: dict[int, int] = {}
    for c in ALL_CARDS:
        if c.index not in seen:
            out_ranks[c.rank] = out_ranks.get(c.rank, 0) + 1
    best: tuple[float, int, bh.Action] | None = None
    for a in view.legal:
        assert isinstance(a, bh.Play)
        pts = sum(it.points for it in peg_points([*pile, a.card], sequences=view.sequences))
        nc = view.count + a.card.value
        risk = 0.0
        if view.opponent_hand_size and not view.gone[1 - view.seat]:
            if 1 <= nc <= 10:
                risk += 0.4
            elif 13 <= nc <= 22:
                risk += 0.6
            if out_ranks.get(a.card.rank, 0):
                risk += 0.4
        key = (pts - risk, -a.card.value, a)
        if best is None or key[:2] > best[:2]:
            best = key
    assert best is not None
    return best[2]


def greedy(view: bh.SeatView, rng: random.Random) -> bh.Action:
    if len(view.legal) == 1:
        return view.legal[0]
    if view.phase is bh.Phase.DISCARD:
        return _greedy_discard(view)
    if view.phase is bh.Phase.PLAY:
        return _greedy_play(view)
    return view.legal[0]


def uniform(view: bh.SeatView, rng: random.Random) -> bh.Action:
    return rng.choice(view.legal)


def _level(name: Level) -> Player:
    def play(view: bh.SeatView, rng: random.Random) -> bh.Action:
        return ai.choose(view, rng, name)

    return play


# The expert's work per decision (``--work``), set in each worker from the match's arguments.
_expert_work = bhargage_expert.WORK


def expert(view: bh.SeatView, rng: random.Random) -> bh.Action:
    """The expert level at ``--work`` deals a decision (hard's choice where it does not weigh)."""
    return bhargage_expert.choose(view, rng, _expert_work) or ai.choose(view, rng, "hard")


# The previous hard player's modules, as of previous.COMMIT.
PREVIOUS_MODULES = ("bhargage", "bhargage_cards", "bhargage_discard", "bhargage_play")


def _previous_hard() -> ModuleType:
    """The previous hard player's entry module (rebuilt from git the first time)."""
    return previous.load(PREVIOUS_MODULES)["bhargage"]


def previous_hard(view: bh.SeatView, rng: random.Random) -> bh.Action:
    action: bh.Action = _previous_hard().choose(view, rng, "hard")
    return action


PLAYERS: dict[str, Player] = {
    "random": uniform,
    "greedy": greedy,
    "easy": _level("easy"),
    "normal": _level("normal"),
    "hard": _level("hard"),
    "previous": previous_hard,
    "expert": expert,
}


# ---------------------------------------------------------------- matches


def play_game(seed: int, players: Sequence[Player], options: bh.Options) -> int:
    """The winning seat of one game."""
    state, _ = bh.start(seed, 2, options)
    rngs = [random.Random(f"{seed}:ai:0"), random.Random(f"{seed}:ai:1")]
    while not bh.is_over(state):
        seat = bh.waiting_for(state)[0]
        action = players[seat](bh.view(state, seat), rngs[seat])
        state, _ = bh.apply(state, action)
    return state.winner


def _match_chunk(args: tuple[str, str, list[int], bool, int, int, int]) -> tuple[int, int]:
    """Games ``games`` of a against b: game g deals seed ``first_seed + g // 2`` with a in seat ``g % 2``,
    so every deal is played both ways (duplicate deals). (a's wins, games)."""
    global _expert_work
    a, b, games, sequences, target, first_seed, _expert_work = args
    options = bh.Options(target=target, sequences=sequences)
    wins = 0
    for game in games:
        a_seat = game % 2
        players = [PLAYERS[b], PLAYERS[b]]
        players[a_seat] = PLAYERS[a]
        if play_game(first_seed + game // 2, players, options) == a_seat:
            wins += 1
    return wins, len(games)


def match(
    a: str, b: str, games: int, jobs: int, sequences: bool, target: int, first_seed: int, work: int
) -> None:
    if "previous" in (a, b):
        try:
            _previous_hard()  # once here, so that a missing commit is one message and not one per worker
        except previous.PreviousUnavailable as err:
            sys.exit(str(err))
    games += games % 2  # whole deals: each played both ways
    numbers = list(range(games))
    chunks = [numbers[i : i + 26] for i in range(0, games, 26)]
    t = time.perf_counter()
    tasks = [(a, b, c, sequences, target, first_seed, work) for c in chunks]
    if jobs > 1:
        with Pool(jobs) as pool:
            results = pool.map(_match_chunk, tasks)
    else:
        results = [_match_chunk(w) for w in tasks]
    wins = sum(w for w, _ in results)
    lo, hi = wilson(wins, games)
    print(
        f"{a} vs {b}: {wins}/{games} = {wins / games:.1%}  95% CI [{lo:.1%}, {hi:.1%}]"
        f"  (target {target}, sequences {'on' if sequences else 'off'}, duplicate deals: seeds {first_seed}–"
        f"{first_seed + games // 2 - 1} each played both ways"
        f"{f', expert work {work}' if 'expert' in (a, b) else ''}, {time.perf_counter() - t:.0f} s)"
    )


# ---------------------------------------------------------------- speed


def speed(games: int, sequences: bool, player: str = "hard", work: int = bhargage_expert.WORK) -> None:
    """Time every decision of ``player`` (hard or expert) in whole games against itself, one process."""
    options = bh.Options(sequences=sequences)
    times: dict[str, list[float]] = {"discard": [], "cut": [], "play": []}
    for seed in range(games):
        state, _ = bh.start(seed, 2, options)
        rng = random.Random(seed)
        while not bh.is_over(state):
            seat = bh.waiting_for(state)[0]
            v = bh.view(state, seat)
            t = time.perf_counter()
            expert_move = player == "expert"
            weighed = bhargage_expert.choose(v, rng, work) if expert_move else None
            action = weighed or ai.choose(v, rng, "hard")
            times[v.phase.value].append(time.perf_counter() - t)
            state, _ = bh.apply(state, action)
    every = list(itertools.chain.from_iterable(times.values()))
    print(f"{player} decisions over {games} games (sequences {'on' if sequences else 'off'}):")
    for name, xs in (("all", every), *times.items()):
        if xs:
            p50, p99 = quantile(xs, 0.5) * 1e3, quantile(xs, 0.99) * 1e3
            print(
                f"  {name:8} n={len(xs):6}  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms"
                f"  max {max(xs) * 1e3:6.2f} ms  mean {statistics.fmean(xs) * 1e3:6.2f} ms"
            )


# ---------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "deluxe":
        from bench import bench_ai_deluxe  # the Deluxe figures live in their own script

        bench_ai_deluxe.main(argv[1:])
        return
    if argv and argv[0] == "cribbage":
        from bench import bench_ai_cribbage  # the Classic Cribbage figures live in their own script

        bench_ai_cribbage.main(argv[1:])
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("match", help="win rate of player A against player B")
    m.add_argument("a", choices=sorted(PLAYERS))
    m.add_argument("b", choices=sorted(PLAYERS))
    m.add_argument("--games", type=int, default=1000)
    m.add_argument("--jobs", type=int, default=2)
    m.add_argument("--target", type=int, default=121)
    m.add_argument("--seed", type=int, default=0, help="first game seed")
    m.add_argument("--sequences", action="store_true")
    m.add_argument("--work", type=int, default=bhargage_expert.WORK, help="the expert's deals per decision")
    s = sub.add_parser("speed", help="hard decision times (p50/p99), single process")
    s.add_argument("--games", type=int, default=100)
    s.add_argument("--sequences", action="store_true")
    s.add_argument("--player", choices=("hard", "expert"), default="hard")
    s.add_argument("--work", type=int, default=bhargage_expert.WORK)
    sub.add_parser("deluxe", help="run bench/bench_ai_deluxe.py with the remaining arguments")
    sub.add_parser("cribbage", help="run bench/bench_ai_cribbage.py with the remaining arguments")
    args = parser.parse_args(argv)
    if args.cmd == "match":
        match(args.a, args.b, args.games, args.jobs, args.sequences, args.target, args.seed, args.work)
    else:
        speed(args.games, args.sequences, args.player, args.work)


if __name__ == "__main__":
    main()
