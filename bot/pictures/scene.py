"""Scenes: rows of cards and peg boards stacked on a felt table, drawn to PNG for one Discord message.

The felt is opaque and dark green so a picture reads the same in Discord's dark and light themes; cards are
cream with a dark outline, captions light on the felt. A row wraps onto more lines past ``MAX_WIDTH`` (nine
large cards), so pictures stay under 1000 px wide and wider than tall for the usual hands and boards; a row of
small cards (a Deluxe table's melds) wraps past ``SMALL_MAX_WIDTH`` (nine small cards), so a table stays
narrow enough for its cards to read on a phone, which shows a picture about 360 px wide.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from bot.pictures import faces, french
from bot.pictures.errors import PictureError
from bot.pictures.faces import Worth
from bot.pictures.parts import (
    ENGLISH_GALLERY,
    FELT,
    FELT_EDGE,
    FELT_LINE,
    LIGHT,
    PEG_COLOURS,
    PICK,
    SOFT,
    GalleryWords,
    Lane,
    Legend,
    Row,
    Scene,
    Track,
    check,
)
from bot.pictures.pegs import TRACK_WIDTH, draw_track, track_size
from bot.pictures.suits import symbol
from bot.pictures.text import font
from bot.pictures.writing import fit, length, wrap, write
from bot.rules.decktet import ALL_CARDS, Card, Rank, Suit

LARGE, SMALL = 96, 58  # card widths
MARGIN = 20
MAX_WIDTH = 936  # content width: nine large cards, or a few groups
SMALL_MAX_WIDTH = 9 * SMALL + 8 * 4  # a line of small cards: nine of them
GROUP_GAP = 18
ROW_GAP = 14
LINE_GAP = 8
CAPTION_SIZE, CAPTION_H = 17, 26
LABEL_SIZE, LABEL_H = 13, 19
TITLE_SIZE, TITLE_H = 22, 36
ICON = 22  # suit symbols after a caption
LABEL_MAX = 320  # a label wider than its group widens the group's slot up to this
CAPTION_MIN = 460  # a caption wraps at its picture's width, or this when the picture is narrower
CAPTION_LINES = 3  # and goes on at most this many lines, the last one clipped with "…"


# --------------------------------------------------------------------------------------------- rows


@dataclass(frozen=True, slots=True)
class _Slot:
    """A run of one group's cards on one line (a group wider than a line is cut into several)."""

    group: int
    first: int  # position in the group of the first card here
    cards: tuple[french.AnyCard, ...]
    label: str  # on the group's last slot only
    width: int


def _card_gap(small: bool) -> int:
    return 4 if small else 5


def _cards_width(n: int, small: bool) -> int:
    w = SMALL if small else LARGE
    return max(1, n) * w + max(0, n - 1) * _card_gap(small)


def _line_width(row: Row) -> int:
    if row.per_line:
        return _cards_width(row.per_line, row.small)
    return SMALL_MAX_WIDTH if row.small else MAX_WIDTH


def _slots(row: Row) -> Iterator[_Slot]:
    w = SMALL if row.small else LARGE
    per_line = max(1, (_line_width(row) + _card_gap(row.small)) // (w + _card_gap(row.small)))
    label_font = font(LABEL_SIZE)
    for g, group in enumerate(row.groups):
        label = row.labels[g] if g < len(row.labels) else ""
        chunks = [group[i : i + per_line] for i in range(0, len(group), per_line)] or [()]
        for k, chunk in enumerate(chunks):
            last = k == len(chunks) - 1
            text = fit(label, label_font, LABEL_MAX) if last and label else ""
            width = max(_cards_width(len(chunk), row.small), round(length(text, label_font)))
            yield _Slot(g, k * per_line, chunk, text, min(width, _line_width(row)))


@lru_cache(maxsize=256)
def _lines(row: Row) -> tuple[tuple[_Slot, ...], ...]:
    """The row's slots cut into lines (cached: sizing and drawing both need them)."""
    return tuple(tuple(line) for line in _cut(row))


def _cut(row: Row) -> list[list[_Slot]]:
    lines: list[list[_Slot]] = [[]]
    x = 0
    for slot in _slots(row):
        if lines[-1] and x + GROUP_GAP + slot.width > _line_width(row):
            lines.append([])
            x = 0
        x += (GROUP_GAP if lines[-1] else 0) + slot.width
        lines[-1].append(slot)
    return lines if lines[-1] else []


def _raise(row: Row) -> int:
    return (8 if row.small else 12) if row.picked else 0


def _line_height(row: Row) -> int:
    h = faces.height(SMALL if row.small else LARGE) + _raise(row)
    return h + (LABEL_H if any(row.labels) else 0)


@lru_cache(maxsize=256)
def caption_lines(row: Row, width: int) -> tuple[str, ...]:
    """The caption's lines, cut between words at ``width`` (room kept for the suit symbols after it)."""
    if not row.caption:
        return ()
    icons = len(row.suits) * (ICON + 4) + (8 if row.suits else 0)
    return wrap(row.caption, font(CAPTION_SIZE, True), width - icons, CAPTION_LINES)


def _head(row: Row, width: int) -> int:
    return CAPTION_H * max(1, len(caption_lines(row, width))) if row.caption or row.suits else 0


def _body_width(row: Row) -> int:
    """The width of the row's cards and labels, its caption aside."""
    return max((sum(s.width for s in line) + GROUP_GAP * (len(line) - 1) for line in _lines(row)), default=0)


def _row_size(row: Row, wrap_at: int) -> tuple[int, int]:
    """The row's size when its caption wraps at ``wrap_at``."""
    lines = _lines(row)
    width = _body_width(row)
    if row.caption or row.suits:
        words = caption_lines(row, wrap_at)
        cap = font(CAPTION_SIZE, bold=True)
        widest = max((round(length(x, cap)) for x in words), default=0)
        last = round(length(words[-1], cap)) if words else 0
        width = max(width, widest, last + len(row.suits) * (ICON + 4) + (8 if row.suits else 0))
    body = len(lines) * _line_height(row) + max(0, len(lines) - 1) * LINE_GAP
    return width, _head(row, wrap_at) + body


def _empty_slot(d: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int) -> None:
    """An empty pile: the outline of a card, so the row keeps its place."""
    d.rounded_rectangle((x, y, x + w - 1, y + h - 1), radius=round(w * 0.08), outline=FELT_LINE, width=2)


def _draw_row(
    im: Image.Image,
    d: ImageDraw.ImageDraw,
    row: Row,
    x0: int,
    y: int,
    worth: Worth,
    names: tuple[str, ...] = (),
    wrap_at: int = MAX_WIDTH,
) -> None:
    cap_font = font(CAPTION_SIZE, bold=True)
    if row.caption or row.suits:
        words = caption_lines(row, wrap_at) or ("",)
        for i, text in enumerate(words):
            write(im, (x0, y + CAPTION_H * (i + 1) - 6), text, cap_font, LIGHT, "ls")
        ix = x0 + round(length(words[-1], cap_font)) + (8 if words[-1] else 0)
        for suit in row.suits:
            sym = symbol(suit, ICON, halo=True)
            im.paste(sym, (ix, y + CAPTION_H * (len(words) - 1) + 1), sym)
            ix += ICON + 4
        y += _head(row, wrap_at)
    w = SMALL if row.small else LARGE
    h = faces.height(w)
    lift = _raise(row)
    picked = set(row.picked)
    label_font = font(LABEL_SIZE)
    for line in _lines(row):
        x = x0
        for slot in line:
            cx = x + (slot.width - _cards_width(len(slot.cards), row.small)) // 2
            if not slot.cards:
                _empty_slot(d, cx, y + lift, w, h)
            for i, c in enumerate(slot.cards):
                up = (slot.group, slot.first + i) in picked
                top = y + (0 if up else lift)
                im.paste(french.face_on_any(c, w, FELT, worth, names), (cx, top))
                if up:
                    d.rounded_rectangle(
                        (cx - 3, top - 3, cx + w + 2, top + h + 2),
                        radius=round(w * 0.1),
                        outline=PICK,
                        width=3,
                    )
                cx += w + _card_gap(row.small)
            if slot.label:
                write(im, (x + slot.width / 2, y + lift + h + 4), slot.label, label_font, SOFT, "mt")
            x += slot.width + GROUP_GAP
        y += _line_height(row) + LINE_GAP


# --------------------------------------------------------------------------------------------- legend

LEGEND_H = 34


def _legend_size() -> tuple[int, int]:
    return MAX_WIDTH, LEGEND_H


def _draw_legend(im: Image.Image, d: ImageDraw.ImageDraw, legend: Legend, x0: int, y: int) -> None:
    step = MAX_WIDTH // len(Suit)
    f = font(16, bold=True)
    for i, (suit, name) in enumerate(zip(Suit, legend.names, strict=False)):
        sym = symbol(suit, 30, halo=True)
        x = x0 + i * step
        im.paste(sym, (x, y), sym)
        write(im, (x + 36, y + 15), fit(name, f, step - 40), f, LIGHT, "lm")


# --------------------------------------------------------------------------------------------- the scene


def _body(part: Row | Track | Legend) -> int:
    """A part's least width: a board's, a legend's, a row's cards (captions then wrap to the picture)."""
    if isinstance(part, Row):
        return _body_width(part)
    return TRACK_WIDTH if isinstance(part, Track) else MAX_WIDTH


def wrap_width(parts: Sequence[Row | Track | Legend]) -> int:
    """Where captions wrap: at the widest part's cards or board, or ``CAPTION_MIN`` (a phone-sized picture
    is not widened by a long caption)."""
    return max([_body(p) for p in parts] + [CAPTION_MIN])


def _sizes(parts: Sequence[Row | Track | Legend], title: str) -> tuple[int, list[tuple[int, int]]]:
    """The content's width and every part's size: rows first (their captions wrap at ``wrap_width``), then
    the boards, whose type grows with the width they fill."""
    wrap_at = wrap_width(parts)
    sizes = [_row_size(p, wrap_at) if isinstance(p, Row) else (_body(p), 0) for p in parts]
    title_width = round(length(title, font(TITLE_SIZE, True)))
    width = max([w for w, _ in sizes] + [title_width, 160])
    for i, p in enumerate(parts):
        if isinstance(p, Track):
            sizes[i] = (width, track_size(p, width)[1])
        elif isinstance(p, Legend):
            sizes[i] = _legend_size()
    return width, sizes


def compose(scene: Scene) -> Image.Image:
    """The scene as an RGB image (checked first: ``PictureError`` on bad input)."""
    check(scene)
    return _compose(scene.parts, scene.title, scene.worth, scene.names)


def _compose(
    parts: Sequence[Row | Track | Legend], title: str, worth: Worth = "count", names: tuple[str, ...] = ()
) -> Image.Image:
    title = fit(title, font(TITLE_SIZE, True), MAX_WIDTH)
    inner, sizes = _sizes(parts, title)
    width = inner + 2 * MARGIN
    height = 2 * MARGIN - 4 + (TITLE_H if title else 0) + sum(h for _, h in sizes)
    height += ROW_GAP * max(0, len(sizes) - 1)
    im = Image.new("RGB", (width, height), FELT)
    d = ImageDraw.Draw(im)
    d.rectangle((0, 0, width - 1, height - 1), outline=FELT_EDGE, width=3)
    d.rounded_rectangle((6, 6, width - 7, height - 7), radius=10, outline=FELT_LINE, width=1)
    y = MARGIN - 2
    if title:
        write(im, (MARGIN, y + TITLE_H - 10), title, font(TITLE_SIZE, True), LIGHT, "ls")
        y += TITLE_H
    wrap_at = wrap_width(parts)
    for part, (_, h) in zip(parts, sizes, strict=True):
        if isinstance(part, Row):
            _draw_row(im, d, part, MARGIN, y, worth, names, wrap_at)
        elif isinstance(part, Track):
            draw_track(im, d, part, MARGIN, y, inner)
        else:
            _draw_legend(im, d, part, MARGIN, y)
        y += h + ROW_GAP
    return im


@lru_cache(maxsize=1)
def palette() -> Image.Image:
    """One 256-colour palette for every picture, taken once from a sheet of all the renderer draws (every
    face at both sizes, a highlight, a full peg board, the suit legend, text, a few emoji): mapping a
    picture onto a fixed palette costs 2 ms where building one per picture costs 10."""
    emoji = ("🐉✨", "😀🔥", "❤️🌸", "🇮🇹🍀", "👑🌊", "🎲🐱")  # names may carry them: their colours too
    lanes = tuple(
        Lane(f"Player {i} · ąéß {emoji[i]}", 10 * i + 5, 10 * i, i + 1) for i in range(len(PEG_COLOURS))
    )
    words = ENGLISH_GALLERY
    sheet = _compose(
        (
            *_rank_groups(words),
            Row("Caption", (ALL_CARDS[:23], ALL_CARDS[23:]), picked=((0, 0),), labels=("a", "b"), small=True),
            Track(lanes, 121),
            Legend(words.suits),
        ),
        "Title",  # the palette sheet is never shown: any text gives the text colours
    )
    return sheet.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


def encode(im: Image.Image) -> bytes:
    """PNG on the shared palette with zlib level 3: a full table is 85–95 KB in about 8 ms, where RGB at
    level 6 is 250 KB in 44 ms and a palette of its own per picture adds 10 ms. Lossless WebP (Discord shows
    it too) saves bytes only at a cost in time a move can't afford: on the palette, a hand 16 KB → 12 KB but
    1 ms → 11 ms, a Deluxe table 64 → 33 KB but 6 → 35 ms; its quick method is no smaller than this PNG and
    slower (``python -m bench.bench_images``)."""
    pal = im.quantize(palette=palette(), dither=Image.Dither.NONE)
    buf = io.BytesIO()
    pal.save(buf, "PNG", compress_level=3)
    return buf.getvalue()


@lru_cache(maxsize=96)
def _png(compose: Callable[[Any], Image.Image], value: Hashable, what: str) -> bytes:
    try:
        return encode(compose(value))
    except PictureError:
        raise
    except Exception as e:  # a Pillow or font failure: the caller still gets the one error type
        raise PictureError(f"could not draw the {what}: {e!r}") from e


def png(compose: Callable[[Any], Image.Image], value: object, what: str) -> bytes:
    """``compose(value)`` as PNG bytes on the shared palette; the same value again is served from one
    cache shared by every kind of picture (so every field must be hashable)."""
    try:
        hash(value)
    except TypeError as e:
        raise PictureError(f"a {what} must be made of tuples, not lists or dicts: {e}") from None
    return _png(compose, value, what)


def draw(scene: Scene) -> bytes:
    """The scene as PNG bytes (see :func:`png`)."""
    return png(compose, scene, "scene")


def warm() -> None:
    """Draw every face and the shared palette now (about half a second), so the first picture of a game is
    as quick as the rest: call it once at start-up."""
    palette()


def clear_cache() -> None:
    """Forget drawn scenes (benchmarks measure a cold draw with faces still cached)."""
    _png.cache_clear()


def _rank_groups(words: GalleryWords) -> Sequence[Row]:
    def of(*ranks: Rank) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(c for c in ALL_CARDS if c.rank == r) for r in ranks)

    mid = [Rank(i) for i in range(2, 10)]
    labels = words.middle_labels
    return (
        Row(words.aces, of(Rank.ACE)),
        Row(words.middle, of(*mid[:3]), labels=labels[:3]),
        Row("", of(*mid[3:6]), labels=labels[3:6]),
        Row("", of(*mid[6:]), labels=labels[6:]),
        Row(words.pawns_courts, of(Rank.PAWN, Rank.COURT), labels=words.pawns_courts_labels),
        Row(words.crowns_excuse, of(Rank.CROWN, Rank.EXCUSE)),
    )


@lru_cache(maxsize=4)
def gallery(words: GalleryWords = ENGLISH_GALLERY) -> bytes:
    """The whole deck by rank, with each card's value, and the six suit symbols named: a reference card.
    ``words`` come from ``bot.render.cards.gallery_words()`` (in the language in force there); without
    them, in English."""
    rows = _rank_groups(words)
    check(Scene(tuple(rows)))
    return encode(_compose((*rows, Legend(words.suits)), words.title, names=words.names))
