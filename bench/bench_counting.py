"""Engine moves of the counting games (Bhargage; Classic Cribbage with 2, 3 and 4 seats): the seeded random
games of ``tests/test_counting_streams.py`` are recorded once, then their actions applied again from the
start; the best of 7 rounds, in CPU seconds, per configuration.

Run: ``python bench/bench_counting.py [GAMES] [ROOT]``. ROOT (default: this checkout) is a tree whose ``bot``
package is timed, so that two versions can be run in turn on one machine and compared, e.g. an older commit
unpacked with ``git archive <commit> bot | tar -x -C /tmp/old``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

GAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 200
ROOT = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.rules import bhargage, cribbage  # noqa: E402


def _options(rules: ModuleType, seed: int) -> Any:
    """The options the digest test gives each seed."""
    if rules is bhargage:
        return bhargage.Options(target=(61, 31, 121, 41)[seed % 4], sequences=seed % 3 == 1)
    target = 121 if seed % 4 == 0 else 61
    return cribbage.Options(target=target, muggins=seed % 2 == 1, double_lurch=seed % 5 < 2)


def _games(rules: ModuleType, players: int) -> list[tuple[int, Any, list[Any]]]:
    games = []
    for seed in range(GAMES):
        rng = random.Random(seed)
        options = _options(rules, seed)
        state, _ = rules.start(seed, players, options)
        actions = []
        while not rules.is_over(state):
            action = rng.choice(rules.legal_actions(state, rules.waiting_for(state)[0]))
            actions.append(action)
            state, _ = rules.apply(state, action)
        games.append((seed, options, actions))
    return games


def main() -> None:
    assert bhargage.__file__ is not None and bhargage.__file__.startswith(str(ROOT)), bhargage.__file__
    for rules, players in ((bhargage, 2), (cribbage, 2), (cribbage, 3), (cribbage, 4)):
        games = _games(rules, players)
        moves = sum(len(actions) for _, _, actions in games)
        best = float("inf")
        for _ in range(7):
            t = time.process_time()
            for seed, options, actions in games:
                state, _ = rules.start(seed, players, options)
                for action in actions:
                    state, _ = rules.apply(state, action)
            best = min(best, time.process_time() - t)
        name = rules.__name__.rsplit(".", 1)[-1]
        print(f"{name} {players} seats: {GAMES} games, {moves} moves, best {best:.3f} s CPU")


if __name__ == "__main__":
    main()
