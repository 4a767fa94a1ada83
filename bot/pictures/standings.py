"""A tournament's standings as a picture: its title, what it is, then one row a player — place, name, match
points, Buchholz, spread — or, for a knockout, its rounds line by line.

Drawn on the tables' felt, 900 px wide in large type like the profile card, so that a phone still reads it.
Every word comes in the card, in the reader's language (``bot.edge.tournament_desk`` builds it); names go
through ``writing.fit``: what no shipped font has is left out and a long name ends in "…".
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from bot.pictures.errors import PictureError
from bot.pictures.parts import FELT_EDGE, FELT_LINE, LIGHT, PICK, SOFT, felt_card
from bot.pictures.scene import png
from bot.pictures.text import font
from bot.pictures.writing import fit, write

WIDTH = 900
MARGIN = 34
INNER = WIDTH - 2 * MARGIN
TITLE_SIZE, TITLE_H = 40, 54
SUBTITLE_SIZE, SUBTITLE_H = 25, 38
ROW_SIZE, ROW_H = 28, 44
MAX_ROWS = 24
MAX_LINES = 12
# Right edges of the three number columns, and where the name's column begins and ends.
NAME_X, NAME_END = MARGIN + 70, 490
NUMBER_EDGES = (610, 750, WIDTH - MARGIN)
Row = tuple[str, str, str, str, str]  # place, name, points, Buchholz, spread


@dataclass(frozen=True, slots=True)
class StandingsCard:
    """Everything the picture shows, top to bottom; hashable, so drawing is cached on it. ``head`` names
    the columns; ``lines`` follow the rows (a knockout's rounds, "…and 3 more")."""

    title: str
    subtitle: str = ""
    head: Row = ("", "", "", "", "")
    rows: tuple[Row, ...] = ()
    lines: tuple[str, ...] = ()


def check(card: object) -> StandingsCard:
    """The card itself if it can be drawn; ``PictureError`` saying what is wrong otherwise."""
    if (
        not isinstance(card, StandingsCard)
        or not isinstance(card.title, str)
        or not isinstance(card.subtitle, str)
    ):
        raise PictureError(f"not a StandingsCard with a text title: {card!r}")
    rows = (card.head, *card.rows) if isinstance(card.rows, tuple) else None
    if rows is None or len(card.rows) > MAX_ROWS:
        raise PictureError(f"a card shows a tuple of at most {MAX_ROWS} rows, not {card.rows!r}")
    for row in rows:
        if not isinstance(row, tuple) or len(row) != 5 or not all(isinstance(x, str) for x in row):
            raise PictureError(f"a row is five texts, not {row!r}")
    lines = card.lines
    if not isinstance(lines, tuple) or len(lines) > MAX_LINES or not all(isinstance(x, str) for x in lines):
        raise PictureError(f"a card's lines are a tuple of at most {MAX_LINES} texts, not {lines!r}")
    return card


def _height(card: StandingsCard) -> int:
    rows = (1 + len(card.rows)) if card.rows else 0
    return 2 * MARGIN + TITLE_H + (SUBTITLE_H if card.subtitle else 0) + ROW_H * (rows + len(card.lines)) + 12


def _row(im: Image.Image, row: Row, y: int, *, head: bool) -> None:
    f = font(ROW_SIZE - 4 if head else ROW_SIZE, bold=not head)
    colour = SOFT if head else LIGHT
    base = y + ROW_H - 14
    place, name, *numbers = row
    write(im, (MARGIN, base), fit(place, f, NAME_X - MARGIN - 8), f, PICK if not head else SOFT, "ls")
    write(im, (NAME_X, base), fit(name, f, NAME_END - NAME_X), f, colour, "ls")
    left = NAME_END
    for text, edge in zip(numbers, NUMBER_EDGES, strict=True):
        write(im, (edge, base), fit(text, f, edge - left - 12), f, colour, "rs")
        left = edge


def compose(card: StandingsCard) -> Image.Image:
    """The card as an RGB image (checked first: ``PictureError`` on bad input)."""
    check(card)
    height = _height(card)
    im, d = felt_card(WIDTH, height)
    y = MARGIN
    title = font(TITLE_SIZE, bold=True)
    write(im, (MARGIN, y + TITLE_H - 14), fit(card.title, title, INNER), title, LIGHT, "ls")
    y += TITLE_H
    if card.subtitle:
        sub = font(SUBTITLE_SIZE)
        write(im, (MARGIN, y + SUBTITLE_H - 12), fit(card.subtitle, sub, INNER), sub, SOFT, "ls")
        y += SUBTITLE_H
    if card.rows:
        _row(im, card.head, y, head=True)
        y += ROW_H
        d.line((MARGIN, y, WIDTH - MARGIN, y), fill=FELT_LINE, width=2)
        for i, row in enumerate(card.rows):
            if i % 2:
                d.rectangle((MARGIN - 8, y + 2, WIDTH - MARGIN + 8, y + ROW_H - 2), fill=FELT_EDGE)
            _row(im, row, y, head=False)
            y += ROW_H
    line = font(ROW_SIZE - 2)
    for text in card.lines:
        write(im, (MARGIN, y + ROW_H - 14), fit(text, line, INNER), line, SOFT, "ls")
        y += ROW_H
    return im


def draw(card: StandingsCard) -> bytes:
    """The card as PNG bytes (on the pictures' shared palette); the same card again comes from a cache."""
    return png(compose, card, "standings")  # i18n: not text
