"""Sample pictures a person can open: the deck, a hand, a board, a show and a Bharg Deluxe table, each drawn
from the scene the bot itself builds for a state of a seeded game.

Run from the repository root:

    python -m bench.sample_sheet                        # writes docs/pictures/*.png and prints the paths
    python -m bench.sample_sheet --update-references    # also rewrites tests/reference/*.png (pixel tests)

The same scenes (and ``scene(kind, rng)`` for varied ones) feed ``bench/bench_images.py`` and the tests.
"""

from __future__ import annotations

import argparse
import random
import sys
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.ai import bhargage as bhargage_ai
from bot.ai import deluxe as deluxe_ai
from bot.pictures import Scene, draw, gallery
from bot.render import bhargage_scenes as rb
from bot.render import deluxe as rd
from bot.rules import bhargage as bh
from bot.rules import deluxe as D

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "pictures"
REFERENCES = ROOT / "tests" / "reference"

NAMES = ("Ana", "Bértrand le Magnifique", "Chen 陈", "Dee 🐉✨", "Eilidh", "Fitz")


def bhargage_game(seed: int) -> list[tuple[bh.State, list[bh.Event]]]:
    """Every state of one seeded Bhargage game between two hard computer players, with its events."""
    state, events = bh.start(seed, 2)
    rng = random.Random(seed)
    out = [(state, events)]
    while state.phase is not bh.Phase.OVER:
        seat = bh.waiting_for(state)[0]
        state, events = bh.apply(state, bhargage_ai.choose(bh.view(state, seat), rng))
        out.append((state, events))
    return out


def deluxe_tables(seed: int, players: int = 6) -> list[D.View]:
    """The public view of a seeded six-player Bharg Deluxe game after every action of its first hand."""
    state, _ = D.start(seed, players)
    rng = random.Random(seed)
    out = []
    while not D.is_over(state) and state.hand_no == 1:
        seat = D.waiting_for(state)[0]
        state, _ = D.apply(state, deluxe_ai.choose(D.view(state, seat), rng))
        out.append(D.view(state, -1))
    return out


def fullest(views: list[D.View]) -> list[D.View]:
    """The busiest tables: the most cards bound (where pictures are largest)."""
    bound = [sum(len(m.cards) for melds in v.bound for m in melds) for v in views]
    most = max(bound)
    return [v for v, n in zip(views, bound, strict=True) if n >= most * 3 // 4]


def hand_scene(state: bh.State, seat: int = 0) -> Scene:
    return rb.panel_scene(bh.view(state, seat))


def scene(kind: str, rng: random.Random) -> Scene:
    """A varied scene of one kind ("hand", "board", "deluxe table") for benchmarks: the bot's own scenes of
    states from seeded games, each built as the bot builds it."""
    if kind in ("hand", "board"):
        game = _game(rng.randrange(4))
        state = rng.choice([s for s, _ in game if s.phase in (bh.Phase.DISCARD, bh.Phase.PLAY)])
        return hand_scene(state, rng.randrange(2)) if kind == "hand" else rb.board_scene(state, NAMES[:2])
    if kind == "deluxe table":
        return rd.table_scene(rng.choice(_tables(rng.randrange(2))), NAMES)
    raise ValueError(kind)


@cache
def _game(seed: int) -> list[tuple[bh.State, list[bh.Event]]]:
    return bhargage_game(seed)


@cache
def _tables(seed: int) -> list[D.View]:
    return fullest(deluxe_tables(seed))


def sample_scenes() -> dict[str, Scene]:
    """The documented scenes, from fixed seeds (so their pictures double as pixel references)."""
    game = _game(0)
    playing = [s for s, _ in game if s.phase is bh.Phase.PLAY and len(s.pile) >= 3]
    discarding = next(s for s, _ in game if s.phase is bh.Phase.DISCARD)
    return {
        "hand": hand_scene(playing[0]),
        "hand-discard": hand_scene(discarding),
        "board": rb.board_scene(playing[len(playing) // 2], NAMES[:2]),
        "show": first_show(0),
        "deluxe-table": rd.table_scene(_tables(0)[-1], NAMES),
        "deluxe-hand": rd.hand_scene(D.view(D.start(0, 6)[0], 0).hand),
    }


def first_show(seed: int) -> Scene:
    return next(sc for _, events in _game(seed) if (sc := rb.show_scene(events, NAMES[:2])) is not None)


def samples() -> dict[str, bytes]:
    return {"cards": gallery(), **{name: draw(sc) for name, sc in sample_scenes().items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--update-references", action="store_true", help="also rewrite tests/reference/*.png")
    args = ap.parse_args()
    DOCS.mkdir(parents=True, exist_ok=True)
    for name, png in samples().items():
        out = DOCS / f"{name}.png"
        out.write_bytes(png)
        print(f"{out.relative_to(ROOT)}  {len(png) / 1024:.0f} KB")
        if args.update_references:
            REFERENCES.mkdir(parents=True, exist_ok=True)
            ref = REFERENCES / f"{name}.png"
            ref.write_bytes(png)
            print(f"{ref.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
