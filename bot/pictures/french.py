"""The 52 cards of a French pack (Classic Cribbage) and a card back, drawn in the style of the Decktet faces.

A face, in order of weight, readable at about 50 px wide:

* the rank, big, at the top left, in the suit's colour: "A", "2" to "10", "J", "Q", "K";
* one large suit symbol in the middle;
* the cribbage count value in the dark badge at the top right (A 1, 2–10 their number, J Q K 10), as the
  Decktet badge, so a player adds up the count at a glance; a small bust under it on a Jack, Queen or King;
* on faces wide enough, the rank and suit again in the bottom corner, upside down, as on a real card.

Two colours as on a real pack, ♠♣ near-black and ♥♦ red, and four silhouettes that differ: the suits stay
apart in grey scale or for colour-blind players. The colours are ones the shared palette has (the Decktet
ink and the Wyrms vermilion), so scenes keep the palette and every older picture stays byte for byte.

Rows of a scene may hold these cards, Decktet cards and ``BACK`` (a card face down): ``known_any`` checks any
of them and ``face_on_any`` draws any of them, so the scene code does not care which pack a card is from.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TypeAlias

from PIL import Image, ImageChops, ImageDraw

from bot.pictures import faces
from bot.pictures.errors import PictureError
from bot.pictures.faces import BADGE, PAPER, Worth, height
from bot.pictures.suits import INK, RGB, SUIT_COLOURS, Draw, Shape, _disc, _lay, _mask, _polygon
from bot.pictures.text import Font, font
from bot.rules.decktet import Card, Suit
from bot.rules.pack52 import FULL_PACK
from bot.rules.pack52 import Card as FrenchCard
from bot.rules.pack52 import Suit as FrenchSuit


@dataclass(frozen=True, slots=True)
class FaceDown:
    """A card lying face down (the crib before the show, a hidden hand): drawn as a card back."""


BACK = FaceDown()

AnyCard: TypeAlias = Card | FrenchCard | FaceDown

RANK_MARKS: Mapping[int, str] = MappingProxyType(
    {1: "A", **{r: str(r) for r in range(2, 11)}, 11: "J", 12: "Q", 13: "K"}
)
RED: RGB = SUIT_COLOURS[Suit.WYRMS]  # the Decktet vermilion: in the shared palette
BLACK: RGB = INK
FRENCH_COLOURS: Mapping[FrenchSuit, RGB] = MappingProxyType(
    {FrenchSuit.SPADES: BLACK, FrenchSuit.CLUBS: BLACK, FrenchSuit.HEARTS: RED, FrenchSuit.DIAMONDS: RED}
)
BACK_FILL: RGB = BADGE
BACK_LINE: RGB = SUIT_COLOURS[Suit.KNOTS]
CORNER_MIN_WIDTH = faces.NAME_MIN_WIDTH  # narrower faces leave the bottom corner out: it would be a smudge
_SS = 4  # supersampling factor of a symbol


# --------------------------------------------------------------------------------------------- symbols


def _heart(d: Draw, s: float, g: float) -> None:
    for cx in (0.295, 0.705):
        _disc(d, s * cx, s * 0.34, s * 0.215 + g)
    _polygon(d, [(s * 0.09, s * 0.40), (s * 0.5, s * 0.93), (s * 0.91, s * 0.40), (s * 0.5, s * 0.30)], g)


def _diamond(d: Draw, s: float, g: float) -> None:
    _polygon(d, [(s * 0.5, s * 0.04), (s * 0.85, s * 0.5), (s * 0.5, s * 0.96), (s * 0.15, s * 0.5)], g)


def _foot(d: Draw, s: float, g: float) -> None:
    """The stem of a spade or a club: a narrow flared triangle."""
    _polygon(d, [(s * 0.5, s * 0.52), (s * 0.33, s * 0.95), (s * 0.67, s * 0.95)], g)


def _spade(d: Draw, s: float, g: float) -> None:
    """A tall point over two low lobes: its pointed top is what tells it from a club in grey."""
    for cx in (0.3, 0.7):
        _disc(d, s * cx, s * 0.58, s * 0.2 + g)
    _polygon(d, [(s * 0.5, s * 0.05), (s * 0.105, s * 0.55), (s * 0.5, s * 0.7), (s * 0.895, s * 0.55)], g)
    _foot(d, s, g)


def _club(d: Draw, s: float, g: float) -> None:
    """Three round lobes with deep notches between them (and a round top, where a spade is pointed)."""
    r = s * 0.2
    for cx, cy in ((0.5, 0.24), (0.255, 0.57), (0.745, 0.57)):
        _disc(d, s * cx, s * cy, r + g)
    _disc(d, s * 0.5, s * 0.5, s * 0.1 + g)
    _foot(d, s, g)


_SHAPES: Mapping[FrenchSuit, Shape] = MappingProxyType(
    {
        FrenchSuit.SPADES: _spade,
        FrenchSuit.HEARTS: _heart,
        FrenchSuit.DIAMONDS: _diamond,
        FrenchSuit.CLUBS: _club,
    }
)


@lru_cache(maxsize=128)
def pip(suit: FrenchSuit, px: int) -> Image.Image:
    """The suit symbol, ``px`` square, RGBA on transparent, with a dark outline like the Decktet symbols;
    cached per size (shared, do not draw on it)."""
    side = px * _SS
    s = float(side)
    outline = max(1.5 * _SS, s * 0.04)
    out = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    _lay(out, INK, _mask(_SHAPES[suit], side, outline))
    _lay(out, FRENCH_COLOURS[suit], _mask(_SHAPES[suit], side, 0))
    return out.resize((px, px), Image.Resampling.LANCZOS)


# --------------------------------------------------------------------------------------------- checking


_PACK = frozenset(FULL_PACK)


def known_french(card: object) -> FrenchCard:
    """``card`` itself if it is one of the 52 cards of the pack, else ``PictureError`` naming it."""
    try:
        if isinstance(card, FrenchCard) and card in _PACK:
            return card
    except TypeError:  # a card with an unhashable field slipped into it: not one of the pack
        pass
    raise PictureError(f"unknown card {card!r}: not one of the 52 cards of a French pack")


def known_any(card: object) -> object:
    """``card`` itself if a scene can draw it (a Decktet card, a French card, ``BACK``), else
    ``PictureError`` naming it."""
    if isinstance(card, FaceDown):
        return card
    if isinstance(card, FrenchCard):
        return known_french(card)
    return faces.known(card)  # the Decktet's own check, and its message for anything else


# --------------------------------------------------------------------------------------------- faces


def _mark_font(mark: str, w: float) -> Font:
    return font(round(w * (0.44 if len(mark) == 1 else 0.36)), bold=True)


def _corner(mark: str, suit: FrenchSuit, w: int) -> Image.Image:
    """The bottom corner's index: the rank over a small symbol, upside down."""
    size = round(w * 0.2)
    mark_font = font(size, bold=True)
    box_w = max(round(mark_font.getlength(mark)), size) + 2
    small = round(w * 0.16)
    im = Image.new("RGBA", (box_w, size + small + 4), (0, 0, 0, 0))
    ImageDraw.Draw(im).text((box_w / 2, 0), mark, font=mark_font, fill=FRENCH_COLOURS[suit], anchor="mt")
    sym = pip(suit, small)
    im.alpha_composite(sym, ((box_w - small) // 2, size + 3))
    return im.rotate(180)


@lru_cache(maxsize=512)
def _face(card: FrenchCard, width: int) -> Image.Image:
    rank, suit = card.rank, card.suit
    f = 2  # supersampling, as the Decktet faces
    w, h = width * f, height(width) * f
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    border = max(3, round(w * 0.028))
    d.rounded_rectangle((0, 0, w - 1, h - 1), radius=round(w * 0.08), fill=PAPER, outline=INK, width=border)

    mark = RANK_MARKS[rank]
    d.text((w * 0.09, h * 0.035), mark, font=_mark_font(mark, w), fill=FRENCH_COLOURS[suit])

    badge_r = w * 0.135
    bx, by = w - w * 0.19, w * 0.19
    d.ellipse((bx - badge_r, by - badge_r, bx + badge_r, by + badge_r), fill=BADGE)
    d.text((bx, by), str(min(rank, 10)), font=font(round(w * 0.17), bold=True), fill=PAPER, anchor="mm")
    if rank > 10:
        faces._bust(d, bx, by + badge_r + w * 0.1, w * 0.17)

    corner = width >= CORNER_MIN_WIDTH
    top, bottom = h * 0.36, h * (0.86 if corner else 0.96)
    px = round(w * 0.62)
    im.alpha_composite(pip(suit, px), (round(w / 2 - px / 2), round((top + bottom) / 2 - px / 2)))
    if corner:
        index = _corner(mark, suit, w)
        im.alpha_composite(index, (round(w * 0.93) - index.width, round(h * 0.975) - index.height))
    return im.resize((width, height(width)), Image.Resampling.LANCZOS)


def face(card: object, width: int) -> Image.Image:
    """The face of a French ``card``, ``width`` px wide, RGBA with rounded corners; cached per card and
    width (do not draw on it)."""
    return _face(known_french(card), width)


@lru_cache(maxsize=16)
def back(width: int) -> Image.Image:
    """A card face down, ``width`` px wide, RGBA: a dark panel with a lattice inside a cream border, in
    colours of the shared palette; alike for every card, so it tells nothing."""
    f = 2
    w, h = width * f, height(width) * f
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    border = max(3, round(w * 0.028))
    d.rounded_rectangle((0, 0, w - 1, h - 1), radius=round(w * 0.08), fill=PAPER, outline=INK, width=border)
    inset = round(w * 0.09)
    panel = (inset, inset, w - 1 - inset, h - 1 - inset)
    d.rounded_rectangle(panel, radius=round(w * 0.05), fill=BACK_FILL)
    lattice = Image.new("L", (w, h), 0)
    ld = ImageDraw.Draw(lattice)
    step, line = w * 0.16, max(2, round(w * 0.025))
    k = float(-h)
    while k < w + h:
        ld.line((k, 0, k + h, h), fill=255, width=line)
        ld.line((k + h, 0, k, h), fill=255, width=line)
        k += step
    clip = Image.new("L", (w, h), 0)
    ImageDraw.Draw(clip).rounded_rectangle(panel, radius=round(w * 0.05), fill=255)
    _lay(im, BACK_LINE, ImageChops.multiply(lattice, clip))
    cx, cy, r = w / 2, h / 2, w * 0.19  # a ring, not a lozenge: a back must not look like a diamond
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=PAPER, outline=INK, width=border)
    d.ellipse((cx - r * 0.45, cy - r * 0.45, cx + r * 0.45, cy + r * 0.45), fill=BACK_FILL)
    return im.resize((width, height(width)), Image.Resampling.LANCZOS)


@lru_cache(maxsize=256)
def _flat(card: FrenchCard | None, width: int, background: RGB) -> Image.Image:
    base = Image.new("RGBA", (width, height(width)), (*background, 255))
    base.alpha_composite(back(width) if card is None else _face(card, width))
    return base.convert("RGB")


def face_on_any(
    card: AnyCard, width: int, background: RGB, worth: Worth = "count", names: tuple[str, ...] = ()
) -> Image.Image:
    """Any card a row holds, flattened onto ``background`` (RGB): a Decktet face exactly as before (with
    its name from ``names`` and its ``worth`` badge), a French face, or a back."""
    if isinstance(card, Card):
        name = names[card.index] if card.index < len(names) else None
        return faces.face_on(card, width, background, worth, name)
    if isinstance(card, FaceDown):
        return _flat(None, width, background)
    return _flat(known_french(card), width, background)


def _png(im: Image.Image) -> bytes:
    buf = io.BytesIO()
    im.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def face_png(card: object, width: int = 240) -> bytes:
    """One French face as PNG (transparent corners), e.g. for "show me this card"."""
    if not isinstance(width, int) or isinstance(width, bool) or not 24 <= width <= 480:
        raise PictureError(f"a face's width {width!r} is not a whole number from 24 to 480")
    return _png(face(card, width))


def back_png(width: int = 240) -> bytes:
    """A card back as PNG (transparent corners)."""
    if not isinstance(width, int) or isinstance(width, bool) or not 24 <= width <= 480:
        raise PictureError(f"a back's width {width!r} is not a whole number from 24 to 480")
    return _png(back(width))
