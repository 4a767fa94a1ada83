"""Picture speed and size: a Bhargage hand, a Bhargage board, a full six-player Bharg Deluxe table.

Run from the repository root: ``python -m bench.bench_images [--runs 200]``.

For each kind: the first draw ever (no card face cached), then cold draws (the scene cache cleared before
each, card faces cached; a different scene every time), then warm draws (the same scene again, from the
cache), and the PNG size. Targets: cold p99 ≤ 30 ms, warm ≤ 1 ms, PNG ≤ 150 KB.

Then the encodings the bot could send (Discord shows PNG and WebP alike), on the same composed scenes:
encode time (median, ms) and size (median, KB) per kind, so the choice in ``bot.pictures.scene.encode``
stays a measured one. ``--encodings-only`` skips the drawing figures.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image

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


def _save(fmt: str, palette: bool, **options: object) -> Callable[[Image.Image], bytes]:
    """An encoder: the composed RGB picture, on the shared palette or not, saved as ``fmt``."""

    def encode(im: Image.Image) -> bytes:
        if palette:
            im = im.quantize(palette=scene_module.palette(), dither=Image.Dither.NONE)
        buf = io.BytesIO()
        im.save(buf, fmt, **options)
        return buf.getvalue()

    return encode


ENCODINGS: dict[str, Callable[[Image.Image], bytes]] = {
    "PNG pal level 1": _save("PNG", True, compress_level=1),
    "PNG pal level 3 (bot)": scene_module.encode,
    "PNG pal level 6": _save("PNG", True, compress_level=6),
    "PNG pal level 9": _save("PNG", True, compress_level=9),
    "PNG pal optimize": _save("PNG", True, optimize=True),
    "PNG RGB level 3": _save("PNG", False, compress_level=3),
    "WebP lossless m0": _save("WEBP", False, lossless=True, method=0, quality=0),
    "WebP lossless m1": _save("WEBP", False, lossless=True, method=1, quality=25),
    "WebP lossless m4": _save("WEBP", False, lossless=True, method=4, quality=75),
    "WebP pal lossless m0": _save("WEBP", True, lossless=True, method=0, quality=0),
    "WebP pal lossless m2": _save("WEBP", True, lossless=True, method=2, quality=50),
    "WebP pal lossless m4": _save("WEBP", True, lossless=True, method=4, quality=75),
}


def encodings(runs: int) -> None:
    """Encode time and size of each encoding, for each kind of picture (``runs`` different scenes)."""
    scene_module.warm()
    pictures = {
        kind: [scene_module.compose(scene(kind, random.Random(i))) for i in range(runs)] for kind in KINDS
    }
    print(f"\n{'encoding':<24}" + "".join(f"{k + ' ms':>16}{'KB':>6}" for k in KINDS))
    for name, encode in ENCODINGS.items():
        cells = []
        for kind in KINDS:
            times, sizes = [], []
            for im in pictures[kind]:
                t = time.perf_counter()
                sizes.append(len(encode(im)))
                times.append((time.perf_counter() - t) * 1000)
            cells.append(f"{statistics.median(times):>16.2f}{statistics.median(sizes) / 1024:>6.0f}")
        print(f"{name:<24}" + "".join(cells))
    print("(median over the scenes; ms: encoding only, the picture composed already)")


def main() -> None:
    ap = argparse.ArgumentParser(description="picture speed and size")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--encodings-only", action="store_true")
    args = ap.parse_args()
    if args.encodings_only:
        encodings(min(args.runs, 30))
        return

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
    encodings(min(args.runs, 30))


if __name__ == "__main__":
    main()
