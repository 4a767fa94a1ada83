"""A player's profile card (``/stats``): their name, then per game their rating with a small line of its
recent course, their record and best hand, then the person they met most and their games against the bot.

Drawn on the tables' felt, 900 px wide in large type, so that a phone — which shows a picture about 360 px
wide — still reads it. Every word comes in the card, in the reader's language (``bot.edge.profile_card``
builds it): the picture looks nothing up. Names go through ``text.fit``: what no shipped font has is left
out, never drawn as "?", and a long name ends in "…".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from bot.pictures.errors import PictureError
from bot.pictures.parts import FELT_LINE, LIGHT, PEG_COLOURS, PICK, RGB, SOFT, felt_card
from bot.pictures.scene import png
from bot.pictures.text import Font, font
from bot.pictures.writing import fit, length, wrap, write

WIDTH = 900
MARGIN = 34
INNER = WIDTH - 2 * MARGIN
NAME_SIZE, NAME_H = 50, 64
SUBTITLE_SIZE, SUBTITLE_H = 25, 38
TITLE_SIZE, TITLE_H = 34, 48
RATING_SIZE, CHANGE_SIZE, RATING_H = 60, 30, 76
LINE_SIZE, LINE_H = 27, 38
GAP = 22  # above and below each divider
SPARK_W, SPARK_H = 300, 86  # the trend line's box, right of the game's title and rating
SPAN_SIZE = 21  # what the line spans ("last 12 games"), under it
SPARK_LINE = 5
UP: RGB = PEG_COLOURS[4]  # green
DOWN: RGB = PEG_COLOURS[0]  # coral
MAX_GAMES = 6
MAX_LINES = 12
MAX_POINTS = 100
WRAP = 2  # a line too long for the card goes on at most this many, the last one ending in "…"
INDENT = 28  # where a line goes on, under its beginning


@dataclass(frozen=True, slots=True)
class GameCard:
    """One game on the card: its title, the rating as shown ("1032", "1016?", or a dash), its change over the
    trend ("+32", "−12", or ""), which way it went (1 up, -1 down, 0 flat), the trend's points (shown scale,
    oldest first; fewer than two draw no line) and what they span ("last 12 games"), and the lines under it
    (record, best hand)."""

    title: str
    rating: str
    change: str = ""
    direction: int = 0
    trend: tuple[int, ...] = ()
    span: str = ""
    lines: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ProfileCard:
    """Everything the card shows, top to bottom; hashable, so drawing is cached on it."""

    name: str
    subtitle: str = ""
    games: tuple[GameCard, ...] = ()
    lines: tuple[str, ...] = ()  # under the games: the favourite opponent, the games against the bot


def _is_text(*values: object) -> bool:
    return all(isinstance(v, str) for v in values)


def check(card: object) -> ProfileCard:
    """The card itself if it can be drawn; ``PictureError`` saying what is wrong otherwise."""
    if not isinstance(card, ProfileCard) or not _is_text(card.name, card.subtitle):
        raise PictureError(f"not a ProfileCard with a text name: {card!r}")
    if not isinstance(card.games, tuple) or len(card.games) > MAX_GAMES:
        raise PictureError(f"a card shows a tuple of at most {MAX_GAMES} games, not {card.games!r}")
    if not isinstance(card.lines, tuple) or len(card.lines) > MAX_LINES or not _is_text(*card.lines):
        raise PictureError(f"a card's lines are a tuple of at most {MAX_LINES} texts, not {card.lines!r}")
    for g in card.games:
        if not isinstance(g, GameCard) or not _is_text(g.title, g.rating, g.change, g.span, *g.lines):
            raise PictureError(f"not a GameCard of texts: {g!r}")
        if g.direction not in (-1, 0, 1) or len(g.lines) > MAX_LINES:
            raise PictureError(f"a game's direction is -1, 0 or 1 and it has few lines: {g!r}")
        points = g.trend
        if not isinstance(points, tuple) or len(points) > MAX_POINTS:
            raise PictureError(f"a trend is a tuple of at most {MAX_POINTS} points, not {points!r}")
        if not all(isinstance(p, int) and not isinstance(p, bool) for p in points):
            raise PictureError(f"a trend's points are whole numbers: {points!r}")
    return card


@lru_cache(maxsize=512)
def _wrap(text: str) -> tuple[str, ...]:
    """A line as the card draws it: cut between words where it is too wide, on at most ``WRAP`` lines (those
    after the first indented by ``INDENT``)."""
    return wrap(text, font(LINE_SIZE), INNER, WRAP, INDENT)


def _lines_height(lines: tuple[str, ...]) -> int:
    return LINE_H * sum(len(_wrap(x)) for x in lines)


def _game_height(g: GameCard) -> int:
    return TITLE_H + RATING_H + _lines_height(g.lines)


def _height(card: ProfileCard) -> int:
    h = MARGIN + NAME_H + (SUBTITLE_H if card.subtitle else 0)
    for g in card.games:
        h += 2 * GAP + _game_height(g)
    if card.lines:
        h += 2 * GAP + _lines_height(card.lines)
    return h + MARGIN - 8


def _divider(d: ImageDraw.ImageDraw, y: int) -> None:
    d.line((MARGIN, y, WIDTH - MARGIN, y), fill=FELT_LINE, width=2)


def _arrow(d: ImageDraw.ImageDraw, x: int, mid: int, direction: int, colour: RGB) -> int:
    """A small triangle pointing up or down (drawn, not a glyph: the subset font has none); its width."""
    s = 11
    if direction > 0:
        d.polygon(((x, mid + s), (x + 2 * s, mid + s), (x + s, mid - s)), fill=colour)
    else:
        d.polygon(((x, mid - s), (x + 2 * s, mid - s), (x + s, mid + s)), fill=colour)
    return 2 * s


Box = tuple[int, int, int, int]


def _spark(d: ImageDraw.ImageDraw, points: tuple[int, ...], box: Box, colour: RGB) -> None:
    """The trend: the points joined left to right, scaled to the box (a flat course sits in the middle),
    the latest one marked."""
    x0, y0, x1, y1 = box
    d.rounded_rectangle(box, radius=10, outline=FELT_LINE, width=2)
    lo, hi = min(points), max(points)
    pad = 14
    span_x = (x1 - x0 - 2 * pad) / (len(points) - 1)

    def y_of(p: int) -> float:
        if hi == lo:
            return (y0 + y1) / 2
        return y1 - pad - (p - lo) * (y1 - y0 - 2 * pad) / (hi - lo)

    xy = [(x0 + pad + i * span_x, y_of(p)) for i, p in enumerate(points)]
    d.line(xy, fill=colour, width=SPARK_LINE, joint="curve")
    lx, ly = xy[-1]
    r = 7
    d.ellipse((lx - r, ly - r, lx + r, ly + r), fill=colour, outline=LIGHT, width=2)


def _rating(im: Image.Image, g: GameCard, y: int, width: int) -> None:
    """The rating in large type, then which way it went and by how much."""
    d = ImageDraw.Draw(im)
    big: Font = font(RATING_SIZE, bold=True)
    value = fit(g.rating, big, width)
    write(im, (MARGIN, y + RATING_H - 12), value, big, LIGHT, "ls")
    x = MARGIN + round(length(value, big)) + 18
    if not g.change:
        return
    colour = UP if g.direction > 0 else DOWN if g.direction < 0 else SOFT
    mid = y + RATING_H // 2 + 2
    if g.direction:
        x += _arrow(d, x, mid, g.direction, colour) + 10
    small = font(CHANGE_SIZE, bold=True)
    write(im, (x, mid), fit(g.change, small, max(0, MARGIN + width - x)), small, colour, "lm")


def _game(im: Image.Image, g: GameCard, y: int) -> None:
    d = ImageDraw.Draw(im)
    spark = len(g.trend) >= 2
    left = INNER - (SPARK_W + 24 if spark else 0)
    title = font(TITLE_SIZE, bold=True)
    write(im, (MARGIN, y + TITLE_H - 12), fit(g.title, title, left), title, PICK, "ls")
    _rating(im, g, y + TITLE_H, left)
    if spark:
        colour = UP if g.direction > 0 else DOWN if g.direction < 0 else LIGHT
        box = (WIDTH - MARGIN - SPARK_W, y + 4, WIDTH - MARGIN, y + 4 + SPARK_H)
        _spark(d, g.trend, box, colour)
        span = font(SPAN_SIZE)
        where = ((box[0] + box[2]) // 2, box[3] + 6)
        write(im, where, fit(g.span, span, SPARK_W), span, SOFT, "mt")
    _lines(im, g.lines, y + TITLE_H + RATING_H)


def _lines(im: Image.Image, lines: tuple[str, ...], y: int) -> None:
    f = font(LINE_SIZE)
    drawn = [(MARGIN + (INDENT if k else 0), part) for text in lines for k, part in enumerate(_wrap(text))]
    for i, (x, part) in enumerate(drawn):
        write(im, (x, y + (i + 1) * LINE_H - 10), part, f, SOFT, "ls")


def compose(card: ProfileCard) -> Image.Image:
    """The card as an RGB image (checked first: ``PictureError`` on bad input)."""
    check(card)
    height = _height(card)
    im, d = felt_card(WIDTH, height)
    y = MARGIN
    name = font(NAME_SIZE, bold=True)
    write(im, (MARGIN, y + NAME_H - 14), fit(card.name, name, INNER), name, LIGHT, "ls")
    y += NAME_H
    if card.subtitle:
        sub = font(SUBTITLE_SIZE)
        where = (MARGIN, y + SUBTITLE_H - 12)
        write(im, where, fit(card.subtitle, sub, INNER), sub, SOFT, "ls")
        y += SUBTITLE_H
    for g in card.games:
        _divider(d, y + GAP // 2)
        y += GAP
        _game(im, g, y)
        y += _game_height(g) + GAP
    if card.lines:
        _divider(d, y + GAP // 2)
        y += GAP
        _lines(im, card.lines, y)
    return im


def draw(card: ProfileCard) -> bytes:
    """The card as PNG bytes (on the pictures' shared palette); the same card again comes from a cache."""
    return png(compose, card, "profile card")  # i18n: not text
