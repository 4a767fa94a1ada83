"""Sample pictures a person can open: the deck, a hand, a board, a show and a Bharg Deluxe table, each drawn
from the scene the bot itself builds for a state of a seeded game.

Run from the repository root:

    python -m bench.sample_sheet                        # writes docs/pictures/*.png and prints the paths
    python -m bench.sample_sheet --update-references    # also rewrites tests/reference/*.png (pixel tests)

It also writes docs/pictures/names/: a board and a show of each game with names in Chinese, Arabic, Hebrew,
Greek, Cyrillic and emoji, each at full size and as a phone shows it (360 px wide, ``*-360.png``).

The same scenes (and ``scene(kind, rng)`` for varied ones) feed ``bench/bench_images.py`` and the tests.
"""

from __future__ import annotations

import argparse
import random
import sys
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import io

from PIL import Image

from bot.ai import bhargage as bhargage_ai
from bot.ai import cribbage as cribbage_ai
from bot.ai import deluxe as deluxe_ai
from bot.base.i18n import ENGLISH, speaking
from bot.pictures import Scene, draw, gallery
from bot.render import bhargage_scenes as rb
from bot.render import cribbage_scenes as rc
from bot.render import deluxe_scenes as rd
from bot.rules import bhargage as bh
from bot.rules import cribbage as C
from bot.rules import deluxe as D

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "pictures"
REFERENCES = ROOT / "tests" / "reference"

NAMES = ("Ana", "Bértrand le Magnifique", "Chen 陈", "Dee 🐉✨", "Eilidh", "Fitz")
# Names in the scripts of issue 46 (Chinese, Arabic, Hebrew, Greek, emoji) and Cyrillic: docs/pictures/names/.
WORLD = ("陈伟", "مريم", "נועה כהן", "Γιώργος", "🐉✨", "Дмитрий")
PHONE = 360  # a phone shows a picture about this wide


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


def cribbage_game(seed: int, players: int = 3) -> list[tuple[C.State, list[C.Event]]]:
    """Every state of one seeded Classic Cribbage game between hard computer players, with its events."""
    state, events = C.start(seed, players)
    rng = random.Random(seed)
    out = [(state, events)]
    while not C.is_over(state):
        seat = C.waiting_for(state)[0]
        state, events = C.apply(state, cribbage_ai.choose(C.view(state, seat), rng))
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


def name_scenes() -> dict[str, Scene]:
    """A board and a show of each game with the ``WORLD`` names, in English (docs/pictures/names/)."""
    bhargage = _game(0)
    cribbage = cribbage_game(1)
    with speaking(ENGLISH):
        board = next(
            s for s, _ in bhargage if s.phase is bh.Phase.PLAY and len(s.pile) >= 3 and s.hand_no > 2
        )
        crib_board = next(
            s for s, _ in cribbage if s.phase is C.Phase.PLAY and len(s.pile) >= 3 and s.hand_no > 2
        )
        crib_show = next(sc for _, ev in cribbage if (sc := rc.show_scene(ev, WORLD[2:5])) is not None)
        return {
            "bhargage-board": rb.board_scene(board, WORLD[:2]),
            "bhargage-show": next(
                sc for _, ev in bhargage if (sc := rb.show_scene(ev, WORLD[:2])) is not None
            ),
            "cribbage-board": rc.board_scene(crib_board, WORLD[2:5]),
            "cribbage-show": crib_show,
            "deluxe-table": rd.table_scene(_tables(0)[-1], WORLD),
        }


def on_phone(png: bytes) -> bytes:
    """A picture scaled to a phone's width, as Discord shows it there."""
    im = Image.open(io.BytesIO(png)).convert("RGB")
    small = im.resize((PHONE, round(im.height * PHONE / im.width)), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    small.quantize(256, method=Image.Quantize.FASTOCTREE).save(buf, "PNG", optimize=True)
    return buf.getvalue()


def write_names() -> None:
    out = DOCS / "names"
    out.mkdir(parents=True, exist_ok=True)
    for name, sc in name_scenes().items():
        png = draw(sc)
        for path, data in ((out / f"{name}.png", png), (out / f"{name}-360.png", on_phone(png))):
            path.write_bytes(data)
            print(f"{path.relative_to(ROOT)}  {len(data) / 1024:.0f} KB")


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
    write_names()


if __name__ == "__main__":
    main()
