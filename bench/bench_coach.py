"""How honest and how well calibrated the Bharg Deluxe coach's discard risks are (issue 46), and what a hint
costs: ``python -m bench.bench_coach [--discards N]``.

Over seeded games of hard players (3 to 5 seats) it takes every discard a bind step's advice weighs and
compares what the coach says with the next player's actual hand: how often it calls a discard safe and
whether that ever was wrong, and for the discards it gives a chance, the mean chance said against how often
the next player could in fact bind the card at once.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence

from bot.ai import deluxe as ai
from bot.ai import deluxe_why as why
from bot.rules import deluxe as D
from bot.rules.decktet import Rank
from bot.rules.deluxe_melds import find_melds


def binds_at_once(state: D.State, seat: int, c: D.Card) -> bool:
    table = [(s, m) for s in range(state.players) for m in state.bound[s]]
    melds = find_melds([*state.hands[seat], *state.queue, c], table, D.straight_suit(state), state.options)
    return any(c in m.cards for m in melds)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_coach", description=__doc__)
    parser.add_argument("--discards", type=int, default=2000)
    args = parser.parse_args(argv)
    kinds: Counter[str] = Counter()
    wrong = 0
    said: list[float] = []
    bound: list[bool] = []
    spent: list[float] = []
    seed = checked = 0
    while checked < args.discards:
        players = 3 + seed % 3
        state, _ = D.start(f"safety:{seed}", players, D.Options(target=30))
        rng = random.Random(seed)
        while not D.is_over(state) and checked < args.discards:
            seat = D.waiting_for(state)[0]
            view = D.view(state, seat)
            advice = ai.advise(view)
            if view.phase == D.Phase.BIND and not any(isinstance(a.action, D.Bind) for a in advice):
                began = time.perf_counter()
                explained = why.explain(view, advice)
                spent.append(time.perf_counter() - began)
                nxt = why.next_seat(view)
                for a in advice:
                    if not isinstance(a.action, D.Discard) or a.action.card.rank == Rank.ACE or not a.kept:
                        continue
                    safety = explained.safety[a.action.card.index]
                    real = binds_at_once(state, nxt, a.action.card)
                    kinds[safety.kind] += 1
                    checked += 1
                    wrong += safety.kind == "none" and real
                    if safety.kind == "chance":
                        said.append(safety.chance)
                        bound.append(real)
            state, _ = D.apply(state, ai.choose(view, rng, "hard"))
        seed += 1
    print(f"{checked} discards in {seed} games: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    print(f"called safe and wrong: {wrong}")
    if said:
        print(
            f"chance said {sum(said) / len(said):.3f} on average; the next player could bind "
            f"{sum(bound) / len(bound):.3f} of them ({len(said)} discards)"
        )
    spent.sort()
    median, worst = spent[len(spent) // 2] * 1000, spent[-1] * 1000
    print(f"explaining a discard step: median {median:.1f} ms, worst {worst:.1f} ms")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
