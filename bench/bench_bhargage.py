"""Throughput of the Bhargage core on one core: show counts per second and random full games per second.

Run: ``python bench/bench_bhargage.py`` (targets: ≥ 50,000 counts/s, ≥ 300 games/s).
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.rules import bhargage as bh
from bot.rules.decktet import ALL_CARDS, Card


def _samples(n: int, size: int, rng: random.Random) -> list[tuple[tuple[Card, ...], Card]]:
    out = []
    for _ in range(n):
        cs = rng.sample(ALL_CARDS, size)
        out.append((tuple(cs[:-1]), cs[-1]))
    return out


def bench_counts(size: int, bhargage: bool, n: int = 100_000) -> float:
    samples = _samples(n, size, random.Random(size))
    count_hand = bh.count_hand
    t = time.perf_counter()
    for hand, up in samples:
        count_hand(hand, up, bhargage=bhargage)
    return n / (time.perf_counter() - t)


def bench_games(n: int = 1000, sequences: bool = False) -> tuple[float, float]:
    rng = random.Random(12345)
    options = bh.Options(sequences=sequences)
    hands = 0
    t = time.perf_counter()
    for seed in range(n):
        state, _ = bh.start(seed, 2, options)
        while not bh.is_over(state):
            seat = bh.waiting_for(state)[0]
            state, _ = bh.apply(state, rng.choice(bh.legal_actions(state, seat)))
        hands += state.hand_no
    return n / (time.perf_counter() - t), hands / n


def main() -> None:
    print(f"count_hand, bhargage 4+1 cards: {bench_counts(5, True):>10,.0f} counts/s")
    print(f"count_hand, hand 3+1 cards:     {bench_counts(4, False):>10,.0f} counts/s")
    games, hands = bench_games()
    print(f"random full games:              {games:>10,.0f} games/s  ({hands:.1f} hands per game)")
    games, hands = bench_games(sequences=True)
    print(f"random full games, sequences:   {games:>10,.0f} games/s  ({hands:.1f} hands per game)")


if __name__ == "__main__":
    main()
