"""The six suit symbols, drawn with Pillow shapes (no font glyph, so they look the same everywhere).

Each symbol is a distinct silhouette, so suits stay apart in grey scale or for colour-blind players: Moons a
crescent, Suns a disc with eight rays, Waves three wavy lines, Leaves a leaf with its midrib, Wyrms a serpent
in an S with a head, Knots an interlaced trefoil knot. Each has a dark outline so it stands on the cream
card; the emoji icons add a cream halo so they read on Discord's dark and light themes alike.
"""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType

from PIL import Image, ImageDraw

from bot.rules.decktet import Suit

RGB = tuple[int, int, int]

# Indigo, amber, sky blue, green, vermilion, brown: apart in hue and in lightness (Okabe–Ito leaning).
SUIT_COLOURS: Mapping[Suit, RGB] = MappingProxyType(
    {
        Suit.MOONS: (88, 64, 190),
        Suit.SUNS: (240, 168, 0),
        Suit.WAVES: (40, 150, 220),
        Suit.LEAVES: (40, 160, 70),
        Suit.WYRMS: (213, 40, 40),
        Suit.KNOTS: (125, 78, 38),
    }
)

INK: RGB = (38, 30, 24)
CREAM: RGB = (250, 244, 228)
_SS = 4  # supersampling factor of a symbol

Draw = ImageDraw.ImageDraw
Shape = Callable[[Draw, float, float], None]  # (mask, side, grow): paint 255 where the shape, grown, lies


def _stroke(d: Draw, pts: list[tuple[float, float]], width: float) -> None:
    """A thick polyline as discs along it: smooth edges and round ends (Pillow's wide ``line`` is ragged)."""
    r = width / 2
    step = max(1.0, r / 4)
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        n = max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / step))
        for i in range(n + 1):
            _disc(d, x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n, r)


def _disc(d: Draw, x: float, y: float, r: float, fill: int = 255) -> None:
    d.ellipse((x - r, y - r, x + r, y + r), fill=fill)


def _polygon(d: Draw, pts: list[tuple[float, float]], grow: float) -> None:
    d.polygon(pts, fill=255)
    if grow > 0:
        _stroke(d, [*pts, pts[0]], 2 * grow)


def _moon(d: Draw, s: float, g: float) -> None:
    _disc(d, s * 0.46, s * 0.5, s * 0.42 + g)
    _disc(d, s * 0.70, s * 0.36, s * 0.33 - g, fill=0)


def _sun(d: Draw, s: float, g: float) -> None:
    c = s / 2
    for k in range(8):
        a = k * math.pi / 4
        tip = s * 0.47
        base, half = s * 0.22, 0.24
        _polygon(
            d,
            [
                (c + base * math.cos(a - half), c + base * math.sin(a - half)),
                (c + tip * math.cos(a), c + tip * math.sin(a)),
                (c + base * math.cos(a + half), c + base * math.sin(a + half)),
            ],
            g,
        )
    _disc(d, c, c, s * 0.25 + g)


def _wave(s: float, y0: float) -> list[tuple[float, float]]:
    n = 40
    return [
        (s * (0.12 + 0.76 * i / n), y0 + s * 0.075 * math.sin(2 * math.pi * 1.5 * i / n + 0.6))
        for i in range(n + 1)
    ]


def _waves(d: Draw, s: float, g: float) -> None:
    for y0 in (0.24, 0.5, 0.76):
        _stroke(d, _wave(s, s * y0), s * 0.11 + 2 * g)


def _leaf_outline(s: float) -> list[tuple[float, float]]:
    """A pointed leaf along the diagonal from the stem (bottom left) to the tip (top right)."""
    n, length, half = 24, s * 0.78, s * 0.2
    top: list[tuple[float, float]] = []
    bottom: list[tuple[float, float]] = []
    for i in range(n + 1):
        t = i / n
        w = half * math.sin(math.pi * t) ** 0.75 * (1.1 - 0.3 * t)
        top.append((t * length, -w))
        bottom.append((t * length, w))
    local = top + bottom[::-1]
    a = -math.pi / 4
    x0, y0 = s * 0.22, s * 0.78
    return [
        (x0 + x * math.cos(a) - y * math.sin(a), y0 + x * math.sin(a) + y * math.cos(a)) for x, y in local
    ]


def _leaves(d: Draw, s: float, g: float) -> None:
    _polygon(d, _leaf_outline(s), g)
    _stroke(d, [(s * 0.14, s * 0.86), (s * 0.26, s * 0.74)], s * 0.06 + 2 * g)  # the stem


def _leaf_vein(d: Draw, s: float, width: float) -> None:
    _stroke(d, [(s * 0.25, s * 0.75), (s * 0.7, s * 0.3)], width)


def _wyrm_path(s: float) -> list[tuple[float, float, float]]:
    """(x, y, radius) along an S from the thin tail (bottom) to the neck (top)."""
    out: list[tuple[float, float, float]] = []
    n = 60
    for i in range(n + 1):
        t = i / n
        x = s * (0.5 - 0.26 * math.sin(2 * math.pi * t * 0.92))
        y = s * (0.9 - 0.66 * t)
        out.append((x, y, s * (0.03 + 0.065 * t)))
    return out


def _wyrm_head(s: float) -> tuple[float, float, float]:
    x, y, _ = _wyrm_path(s)[-1]
    return x + s * 0.02, y - s * 0.04, s * 0.1


def _wyrms(d: Draw, s: float, g: float) -> None:
    for x, y, r in _wyrm_path(s):
        _disc(d, x, y, r + g)
    hx, hy, hr = _wyrm_head(s)
    d.ellipse((hx - hr - g, hy - hr * 0.85 - g, hx + hr * 1.6 + g, hy + hr * 0.85 + g), fill=255)
    # the forked tongue
    tongue = [(hx + hr * 1.5, hy + hr * 0.1), (hx + hr * 2.3, hy + hr * 0.1)]
    _stroke(d, tongue, s * 0.025 + 2 * g)
    for dy in (-0.35, 0.55):
        _stroke(d, [tongue[1], (hx + hr * 2.7, hy + hr * dy)], s * 0.022 + 2 * g)


def _trefoil(s: float, t0: float, t1: float, n: int) -> list[tuple[float, float]]:
    k = s * 0.41 / 3
    out = []
    for i in range(n + 1):
        t = t0 + (t1 - t0) * i / n
        out.append(
            (
                s / 2 + k * (math.sin(t) + 2 * math.sin(2 * t)),
                s * 0.53 + k * (math.cos(t) - 2 * math.cos(2 * t)),
            )
        )
    return out


# Where the strand passing over lies at each of the trefoil's three crossings (found numerically once).
_KNOT_OVER = (1.824, 1.824 + 2 * math.pi / 3, 1.824 + 4 * math.pi / 3)


def _knots(d: Draw, s: float, g: float) -> None:
    _stroke(d, _trefoil(s, 0, 2 * math.pi, 120), s * 0.085 + 2 * g)


def _knot_over(d: Draw, s: float, g: float) -> None:
    """The over strands again on top; the fill runs a little longer than the outline so no seam shows."""
    span = 0.32 if g > 0 else 0.42
    for t in _KNOT_OVER:
        pts = _trefoil(s, t - span, t + span, 16)
        if g > 0:  # the outline without round ends: they would cut across the strand
            d.line(pts, fill=255, width=round(s * 0.085 + 2 * g), joint="curve")
        else:
            _stroke(d, pts, s * 0.085)


_SHAPES: dict[Suit, Shape] = {
    Suit.MOONS: _moon,
    Suit.SUNS: _sun,
    Suit.WAVES: _waves,
    Suit.LEAVES: _leaves,
    Suit.WYRMS: _wyrms,
    Suit.KNOTS: _knots,
}


def _mask(shape: Shape, side: int, grow: float) -> Image.Image:
    m = Image.new("L", (side, side), 0)
    shape(ImageDraw.Draw(m), float(side), grow)
    return m


def _lay(out: Image.Image, colour: RGB, mask: Image.Image) -> None:
    """Composite a flat colour through ``mask`` (true alpha compositing: no dark fringe on transparency)."""
    layer = Image.new("RGBA", out.size, (*colour, 0))
    layer.putalpha(mask)
    out.alpha_composite(layer)


@lru_cache(maxsize=256)
def symbol(suit: Suit, px: int, halo: bool = False) -> Image.Image:
    """The suit symbol, ``px`` square, RGBA on transparent; cached per size (shared, do not draw on it)."""
    side = px * _SS
    s = float(side)
    outline = max(1.5 * _SS, s * 0.045)
    colour = SUIT_COLOURS[suit]
    out = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    shape = _SHAPES[suit]
    if halo:
        _lay(out, CREAM, _mask(shape, side, outline + s * 0.05))
    _lay(out, INK, _mask(shape, side, outline))
    _lay(out, colour, _mask(shape, side, 0))
    if suit is Suit.KNOTS:
        _lay(out, INK, _mask(_knot_over, side, outline))
        _lay(out, colour, _mask(_knot_over, side, 0))
    elif suit is Suit.LEAVES:
        vein = Image.new("L", (side, side), 0)
        _leaf_vein(ImageDraw.Draw(vein), s, outline * 0.8)
        _lay(out, INK, vein)
    elif suit is Suit.WYRMS:
        eye = Image.new("L", (side, side), 0)
        hx, hy, hr = _wyrm_head(s)
        _disc(ImageDraw.Draw(eye), hx + hr * 0.5, hy - hr * 0.25, hr * 0.25)
        _lay(out, INK, eye)
    return out.resize((px, px), Image.Resampling.LANCZOS)


def icon_png(suit: Suit, size: int) -> bytes:
    """The symbol with a cream halo on a transparent square, as PNG (Discord application emoji)."""
    buf = io.BytesIO()
    symbol(suit, size, halo=True).save(buf, "PNG", optimize=True)
    return buf.getvalue()
