"""Card faces drawn in code, readable at about 50 px wide (a phone showing a hand of six).

A face, in order of weight:

* the rank, big, at the top left: "A" for an Ace, "2" to "9", "P" for a Pawn, "Ct" for a Court, "Cr" for a
  Crown, "X" for the Excuse;
* one large symbol per suit in the middle (one, two side by side, or three in a triangle); the Excuse has
  none and shows a dark lozenge with a cross instead;
* a value in a dark badge at the top right: in Bhargage the count value (0 for Pawns, Courts and the Excuse;
  10 for a Crown), so a player can add up counts at a glance; in Bharg Deluxe the card's points (its number of
  suits);
* a small bust under the badge on Personality cards;
* the card's name along the bottom, only on faces wide enough for the text to be legible.

Faces are drawn at twice their size and scaled down (antialiasing), and cached per card and width.
"""

from __future__ import annotations

import io
from functools import lru_cache
from typing import Literal

from PIL import Image, ImageDraw

from bot.pictures.errors import PictureError
from bot.pictures.suits import INK, symbol
from bot.pictures.text import clean, font
from bot.pictures.writing import fitted_font, write
from bot.rules.decktet import ALL_CARDS, Card, Rank

Worth = Literal["count", "suits"]
RATIO = 1.4  # height / width, close to a real Decktet card
PAPER = (250, 244, 228)
BADGE = (64, 48, 38)
NAME_INK = (84, 70, 58)
NAME_MIN_WIDTH = 80  # narrower faces leave the name out: it would be a smudge

RANK_MARKS: dict[Rank, str] = {
    Rank.ACE: "A",
    **{r: str(int(r)) for r in Rank if Rank.TWO <= r <= Rank.NINE},
    Rank.PAWN: "P",
    Rank.COURT: "Ct",
    Rank.CROWN: "Cr",
    Rank.EXCUSE: "X",
}


def height(width: int) -> int:
    return round(width * RATIO)


def known(card: object) -> Card:
    """``card`` itself if it is one of the 45 Decktet cards, else ``PictureError`` naming it."""
    if isinstance(card, Card) and 0 <= card.index < len(ALL_CARDS) and ALL_CARDS[card.index] == card:
        return card
    if isinstance(card, Card):
        suits = "/".join(s.value for s in card.suits) if isinstance(card.suits, tuple) else card.suits
        what = f"{card.name!r} (index {card.index}, rank {card.rank!r}, suits {suits})"
    else:
        what = repr(card)
    raise PictureError(f"unknown card {what}: not one of the 45 Decktet cards")


def _bust(d: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """The Personality mark: a head and shoulders, with a thin paper gap so it reads at small sizes."""
    head = size * 0.22
    d.ellipse((cx - head, cy - size * 0.5, cx + head, cy - size * 0.5 + 2 * head), fill=BADGE)
    d.pieslice((cx - size * 0.48, cy - size * 0.02, cx + size * 0.48, cy + size * 0.94), 180, 360, fill=BADGE)


def _excuse(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, line: float) -> None:
    lozenge = [(cx, cy - r), (cx + r * 0.8, cy), (cx, cy + r), (cx - r * 0.8, cy)]
    d.polygon(lozenge, fill=(120, 106, 128), outline=INK, width=max(1, round(line)))
    k = r * 0.32
    for a, b in (((cx - k, cy - k), (cx + k, cy + k)), ((cx - k, cy + k), (cx + k, cy - k))):
        d.line([a, b], fill=PAPER, width=max(1, round(line * 2.2)))


def worth_of(card: Card, worth: Worth) -> int:
    """The number in the badge: the Bhargage count (``"count"``) or the Bharg Deluxe points, one per suit
    (``"suits"``)."""
    return card.value if worth == "count" else len(card.suits)


@lru_cache(maxsize=512)
def face(card: Card, width: int, worth: Worth = "count", name: str | None = None) -> Image.Image:
    """The face of ``card``, ``width`` pixels wide, RGBA with rounded corners (cached: do not draw on it);
    ``worth`` says which game's value the badge shows; ``name`` is the name written at the bottom, in the
    reader's language (given by the render code; the card's English name without it)."""
    known(card)
    f = 2  # supersampling
    w, h = width * f, height(width) * f
    im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    border = max(3, round(w * 0.028))
    d.rounded_rectangle((0, 0, w - 1, h - 1), radius=round(w * 0.08), fill=PAPER, outline=INK, width=border)

    mark = RANK_MARKS[card.rank]
    rank_font = font(round(w * (0.44 if len(mark) == 1 else 0.36)), bold=True)
    d.text((w * 0.09, h * 0.035), mark, font=rank_font, fill=INK)

    badge_r = w * 0.135
    bx, by = w - w * 0.19, w * 0.19
    d.ellipse((bx - badge_r, by - badge_r, bx + badge_r, by + badge_r), fill=BADGE)
    d.text(
        (bx, by), str(worth_of(card, worth)), font=font(round(w * 0.17), bold=True), fill=PAPER, anchor="mm"
    )
    if card.personality:
        _bust(d, bx, by + badge_r + w * 0.1, w * 0.17)

    show_name = width >= NAME_MIN_WIDTH
    top, bottom = h * 0.36, h * (0.86 if show_name else 0.96)
    _suits(im, d, card, top, bottom, border)

    if show_name:
        room = w * 0.86
        written = clean(card.name if name is None else name)
        name_font = fitted_font(written, round(w * 0.115), room)
        write(im, (w / 2, h * 0.925), written, name_font, NAME_INK, "mm")
    return im.resize((width, height(width)), Image.Resampling.LANCZOS)


def _suits(
    im: Image.Image, d: ImageDraw.ImageDraw, card: Card, top: float, bottom: float, border: int
) -> None:
    """The card's suit symbols, laid out for one, two or three, in the band from ``top`` to ``bottom`` (the
    Excuse, which has none, draws its own mark there)."""
    w = im.width
    mid = (top + bottom) / 2
    n = len(card.suits)
    if n == 0:
        _excuse(d, w / 2, mid, (bottom - top) * 0.42, border)
        return
    size = {1: 0.62, 2: 0.44, 3: 0.36}[n] * w
    if n == 1:
        spots = [(w / 2, mid)]
    elif n == 2:
        spots = [(w * 0.28, mid), (w * 0.72, mid)]
    else:
        dy = size * 0.47
        spots = [(w * 0.29, mid - dy), (w * 0.71, mid - dy), (w / 2, mid + dy)]
    px = round(size)
    for suit, (cx, cy) in zip(card.suits, spots, strict=True):
        im.alpha_composite(symbol(suit, px), (round(cx - px / 2), round(cy - px / 2)))


@lru_cache(maxsize=512)
def face_on(
    card: Card, width: int, background: tuple[int, int, int], worth: Worth = "count", name: str | None = None
) -> Image.Image:
    """The face flattened onto an opaque background (RGB): pasting it needs no alpha blending, which keeps
    a crowded table fast to draw."""
    base = Image.new("RGBA", (width, height(width)), (*background, 255))
    base.alpha_composite(face(card, width, worth, name))
    return base.convert("RGB")


def face_png(card: Card, width: int = 240, name: str | None = None) -> bytes:
    buf = io.BytesIO()
    face(known(card), width, name=name).save(buf, "PNG", optimize=True)
    return buf.getvalue()
