"""Picture speed and size: a Bhargage hand, a Bhargage board, a full six-player Bharg Deluxe table.

Run from the repository root: ``python -m bench.bench_images [--runs 200]``.

For each kind: the first draw ever (no card face cached), then cold draws (the scene cache cleared before
each, card faces cached; a different scene every time), then warm draws (the same scene again, from the
cache), and the PNG size. Targets: cold p99 ≤ 30 ms, warm ≤ 1 ms, PNG ≤ 150 KB.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.sample_sheet import scene
from bot.pictures import draw, faces, suits
from bot.pictures import scene as scene_module
from bot.rules.decktet import ALL_CARDS

KINDS = ("hand", "board", "deluxe table")


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]


def _forget_faces() -> None:
    faces.face.cache_clear()
    faces.face_on.cache_clear()
    suits.symbol.cache_clear()
    scene_module.clear_cache()
    scene_module.palette.cache_clear()


def main() -> None:
    ap = argparse.ArgumentParser(description="picture speed and size")
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()

    _forget_faces()
    t = time.perf_counter()
    for c in ALL_CARDS:
        faces.face(c, scene_module.LARGE)
    print(f"all 45 large faces, none cached: {(time.perf_counter() - t) * 1000:.0f} ms")
    t = time.perf_counter()
    for c in ALL_CARDS:
        faces.face(c, scene_module.SMALL)
    print(f"all 45 small faces:              {(time.perf_counter() - t) * 1000:.0f} ms")
    t = time.perf_counter()
    scene_module.warm()
    print(f"the shared palette:              {(time.perf_counter() - t) * 1000:.0f} ms")

    heads = ("first", "cold p50", "cold p99", "warm p50", "warm p99")
    print(f"\n{'kind':<14}" + "".join(f"{h:>10}" for h in heads) + f"{'PNG KB':>9}")
    for kind in KINDS:
        _forget_faces()
        t = time.perf_counter()
        png = draw(scene(kind, random.Random(0)))
        first = (time.perf_counter() - t) * 1000
        scene_module.warm()  # every face cached, as in a running bot
        rng = random.Random(1)
        cold: list[float] = []
        sizes: list[int] = [len(png)]
        for _ in range(args.runs):
            sc = scene(kind, rng)
            scene_module.clear_cache()
            t = time.perf_counter()
            sizes.append(len(draw(sc)))
            cold.append((time.perf_counter() - t) * 1000)
        warm: list[float] = []
        for _ in range(args.runs):
            t = time.perf_counter()
            draw(sc)
            warm.append((time.perf_counter() - t) * 1000)
        print(
            f"{kind:<14}{first:>8.1f}ms{statistics.median(cold):>8.1f}ms{_pct(cold, 99):>8.1f}ms"
            f"{statistics.median(warm):>8.3f}ms{_pct(warm, 99):>8.3f}ms"
            f"{statistics.median(sizes) / 1024:>6.0f}/{max(sizes) / 1024:.0f}"
        )
    print("\n(PNG KB: median/largest over the runs)")


if __name__ == "__main__":
    main()
