"""Bharg Deluxe figures: random full games per second (2 and 6 players) and the meld-listing time on a
30-card hand with a crowded table. Run: ``.venv/bin/python bench/bench_deluxe.py``."""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.rules import deluxe as D
from bot.rules.decktet import Card, Suit, card, deluxe_deck, shuffled
from bot.rules.deluxe_melds import bharg_sets, complete_straights


def random_game(seed: int, players: int, options: D.Options) -> int:
    """One full game with random legal play that binds most of the time; returns the number of actions."""
    rng = random.Random(f"bench:{seed}")
    state, _ = D.start(seed, players, options)
    steps = 0
    while not D.is_over(state):
        seat = D.waiting_for(state)[0]
        melds = D.bindable_melds(state, seat)
        if melds and rng.random() < 0.9:
            action: D.Action = D.Bind(seat, rng.choice(melds).cards)
        else:
            acts = D.legal_actions(state, seat)
            if state.phase == D.Phase.DRAW and len(acts) > 1 and rng.random() < 0.4:
                action = rng.choice(acts[1:5])
            else:
                action = acts[0] if state.phase == D.Phase.DRAW else rng.choice(acts)
        state, _ = D.apply(state, action)
        steps += 1
    return steps


def games_per_second(players: int, seconds: float = 3.0) -> tuple[float, float]:
    options = D.Options(pawns=True, courts=True)
    start = time.perf_counter()
    games = steps = 0
    while time.perf_counter() - start < seconds:
        steps += random_game(games, players, options)
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, steps / games


def crowded_table(rng: random.Random, pool: list[Card]) -> list[tuple[int, D.Meld]]:
    """Six seats' worth of melds: bharg sets, complete straights in every suit, and loose partials."""
    table: list[tuple[int, D.Meld]] = []
    seat = 0
    for suit in Suit:
        for cs in complete_straights(pool, suit, pawns=True, courts=True)[::7][:2]:
            table.append((seat % 6, D.Meld("complete straight", cs)))
            seat += 1
    for cs in bharg_sets(pool)[::37][:14]:
        table.append((seat % 6, D.Meld("bharg set", cs)))
        seat += 1
    for c in rng.sample(pool, 8):
        table.append((seat % 6, D.Meld("partial straight", (c,))))
        seat += 1
    return table


def meld_listing_ms(rounds: int = 200) -> tuple[float, float, float, int, int]:
    options = D.Options(pawns=True, courts=True)
    times: list[float] = []
    counts: list[int] = []
    tables: list[int] = []
    for i in range(rounds):
        rng = random.Random(f"melds:{i}")
        deck = list(shuffled(deluxe_deck(pawns=True, courts=True), rng))
        hand, pool = deck[:30], deck[30:]
        table = crowded_table(rng, pool)
        suit = list(Suit)[i % 6]
        t0 = time.perf_counter()
        melds = D.find_melds(hand, table, suit, options)
        times.append((time.perf_counter() - t0) * 1000)
        counts.append(len(melds))
        tables.append(sum(len(m.cards) for _, m in table))
    return (
        statistics.median(times),
        max(times),
        statistics.mean(counts),
        max(counts),
        int(statistics.mean(tables)),
    )


def worst_hand_ms() -> tuple[float, int]:
    """Every card type of the extended deck in hand (44 distinct): the bharg-set cover count peaks."""
    hand = list(deluxe_deck(pawns=True, courts=True))
    table = [(1, D.Meld("bharg set", (card("sea"), card("end"), card("calamity"))))]
    t0 = time.perf_counter()
    melds = D.find_melds(hand, table, Suit.MOONS, D.Options(pawns=True, courts=True))
    return (time.perf_counter() - t0) * 1000, len(melds)


def main() -> None:
    for players in (2, 6):
        rate, steps = games_per_second(players)
        print(
            f"{players} players: {rate:.1f} random full games/s "
            f"(Pawns+Courts, target 100, {steps:.0f} actions/game)"
        )
    med, mx, mean_n, max_n, table_cards = meld_listing_ms()
    print(
        f"find_melds, 30-card hand, crowded table (~{table_cards} bound cards): median {med:.2f} ms, "
        f"max {mx:.2f} ms ({mean_n:.0f} melds on average, at most {max_n})"
    )
    ms, n = worst_hand_ms()
    print(f"find_melds, all 88 extended cards in hand: {ms:.1f} ms ({n} melds)")


if __name__ == "__main__":
    main()
