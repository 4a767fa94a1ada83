"""The peg board of a scene: one lane per player on a cribbage-style board of holes in groups of five.

Drawn for a phone, which shows a picture about 360 px wide: one street of 30 holes a row (so a 121 board is
four rows and the finish hole, each street's rows of every lane side by side), the street marks numbered,
the names and scores on lines of their own in type that stays readable scaled down. The board fills the
picture's width, so its holes keep their size on a phone however wide the cards under it make the picture
(``tests/test_pictures_phone.py`` measures it).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from bot.pictures.parts import LIGHT, PEG_COLOURS, RGB, SOFT, STREET, Lane, Track, street_marks
from bot.pictures.text import font
from bot.pictures.writing import fit, write

TRACK_WIDTH = 640  # the least width of a board; it widens with the picture
PER_ROW = STREET  # a row of holes is one street: four rows and the finish hole on a 121 board
# The type at the least width; a wider board (a picture widened by its cards) scales it up, so a phone, which
# shrinks the whole picture to about 360 px, still shows the numbers over the streets at 9 px or more.
NAME_SIZE, SCORE_SIZE, GAIN_SIZE, NAME_H, NUMBER_SIZE = 20, 22, 16, 30, 18
HOLE_ROW = 22  # one lane's row of holes
PEG_COLUMN = 20  # the lane's colour dot before each of its rows
HOLE = 0.5  # a hole's width, as a share of the hole pitch
PEG = 0.84  # a peg's width, as a share of the hole pitch
MAX_PITCH = 18.0
HOLE_COLOUR: RGB = (14, 44, 29)
STRIP: RGB = (40, 100, 68)
MARK_LINE: RGB = (96, 156, 116)


@dataclass(frozen=True, slots=True)
class Board:
    """Where the holes of a board for ``target`` are when its rows of holes are ``width`` px long: x in px
    from the start of a row. Holes come in groups of five, a row holds ``per_row`` of them (a street), and
    the last row ends with the finish hole; a score of 0 sits before the first hole."""

    target: int
    width: int

    @property
    def per_row(self) -> int:
        return min(PER_ROW, -(-(self.target - 1) // 5) * 5)

    @property
    def rows(self) -> int:
        return -(-(self.target - 1) // self.per_row)

    @property
    def pitch(self) -> float:
        units = 1.4 + self.per_row + 0.8 * (self.per_row // 5 - 1) + 2.0
        return min(MAX_PITCH, self.width / units)

    @property
    def hole(self) -> float:
        """A hole's width in px."""
        return HOLE * self.pitch

    def x(self, i: int) -> float:
        """The centre of the ``i``-th hole of a row."""
        return self.pitch * (1.9 + i + 0.8 * (i // 5))

    def end(self) -> float:
        """Just after a row's last hole."""
        return self.x(self.per_row - 1) + 0.5 * self.pitch

    def at(self, n: int) -> tuple[int, float]:
        """(row, x) of hole ``n``: 0 is before the first hole, ``target`` and past it the finish hole."""
        if n <= 0:
            return 0, 0.7 * self.pitch
        if n >= self.target:
            return self.rows - 1, self.end() + self.pitch
        row, i = divmod(n - 1, self.per_row)
        return row, self.x(i)

    def mark(self, m: int) -> tuple[int, float]:
        """(row, x) of the line after hole ``m``."""
        row, i = divmod(m - 1, self.per_row)
        return row, self.end() if i == self.per_row - 1 else (self.x(i) + self.x(i + 1)) / 2


def _board(track: Track, width: int) -> Board:
    return Board(track.target, width - PEG_COLUMN)


@dataclass(frozen=True, slots=True)
class Type:
    """The sizes of a board's words at one width: names, scores, last points, the numbers over the streets,
    and the height of a line of names and of the band the numbers sit in."""

    name: int
    score: int
    gain: int
    number: int
    name_h: int
    band_head: int


def type_for(width: int) -> Type:
    k = max(1.0, width / TRACK_WIDTH)
    number = round(NUMBER_SIZE * k)
    sizes = (round(NAME_SIZE * k), round(SCORE_SIZE * k), round(GAIN_SIZE * k), number, round(NAME_H * k))
    return Type(*sizes, band_head=number + 5)


def _name_lines(track: Track) -> int:
    return -(-len(track.lanes) // 2)


def track_size(track: Track, width: int = TRACK_WIDTH) -> tuple[int, int]:
    """The board's size when it fills ``width``."""
    rows, kind = _board(track, width).rows, type_for(width)
    return width, _name_lines(track) * kind.name_h + rows * (kind.band_head + HOLE_ROW * len(track.lanes))


@lru_cache(maxsize=64)
def _dot(radius: float, colour: RGB, ring: float = 0.0) -> Image.Image:
    """A smooth disc (or a ring ``ring`` px thick), drawn 4× and scaled down: ImageDraw does not antialias."""
    k = 4
    side = int(2 * radius + 3)
    big = Image.new("RGBA", (side * k, side * k), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    c = side * k / 2
    r = radius * k
    if ring:
        d.ellipse((c - r, c - r, c + r, c + r), outline=(*colour, 255), width=round(ring * k))
    else:
        d.ellipse((c - r, c - r, c + r, c + r), fill=(*colour, 255), outline=(15, 30, 20, 255), width=k)
    return big.resize((side, side), Image.Resampling.LANCZOS)


def _half(radius: float) -> float:
    """A radius rounded to half a pixel: few sizes of disc to cache."""
    return round(radius * 2) / 2


def _paste_centered(im: Image.Image, sprite: Image.Image, x: float, y: float) -> None:
    im.paste(sprite, (round(x - sprite.width / 2), round(y - sprite.height / 2)), sprite)


@lru_cache(maxsize=16)
def _holes(board: Board, row: int) -> Image.Image:
    """One lane's row of holes (the same for every lane: drawn once per board and row), with the street
    marks and, on the last row, the finish hole."""
    t, per_row, p = board.target, board.per_row, board.pitch
    width, height = round(board.end() + 2 * p), HOLE_ROW - 4
    strip = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    d = ImageDraw.Draw(strip)
    d.rounded_rectangle((0, 0, width - 1, height - 1), radius=height // 2, fill=(*STRIP, 255))
    for m in street_marks(t):
        on, x = board.mark(m)
        if on == row:
            d.line((round(x), 1, round(x), height - 2), fill=(*MARK_LINE, 255), width=2)
    hole = _dot(_half(board.hole / 2), HOLE_COLOUR)
    first = row * per_row + 1
    for n in range(first, min(first + per_row, t)):  # no start hole: a score of 0 sits before hole 1
        _paste_centered(strip, hole, board.at(n)[1], height / 2)
    if row == board.rows - 1:
        finish = _dot(_half(0.38 * p), (230, 190, 70), ring=2.0)
        _paste_centered(strip, finish, board.at(t)[1], height / 2)
    return strip


def _draw_names(im: Image.Image, track: Track, x0: int, y0: int, width: int) -> None:
    """Each lane's colour, name, last points and score, two lanes a line."""
    d = ImageDraw.Draw(im)
    cols = 1 if len(track.lanes) == 1 else 2
    step = width // cols
    kind = type_for(width)
    name_font, score_font, gain_font = font(kind.name), font(kind.score, True), font(kind.gain, True)
    for i, lane in enumerate(track.lanes):
        x, mid = x0 + (i % cols) * step, y0 + (i // cols) * kind.name_h + kind.name_h / 2
        colour = PEG_COLOURS[i]
        _paste_centered(im, _dot(6.0, colour), x + 8, mid)
        right = x + step - 12
        d.text((right, mid), str(lane.front), font=score_font, fill=LIGHT, anchor="rm")
        right -= round(score_font.getlength(str(lane.front))) + 10
        if lane.gained is not None:
            gain = f"{lane.gained:+d}"
            d.text((right, mid), gain, font=gain_font, fill=colour, anchor="rm")
            right -= round(gain_font.getlength(gain)) + 10
        name = fit(lane.name, name_font, right - x - 20)
        write(im, (x + 20, mid), name, name_font, LIGHT, "lm")


def draw_track(
    im: Image.Image, d: ImageDraw.ImageDraw, track: Track, x0: int, y0: int, width: int = TRACK_WIDTH
) -> None:
    board, kind = _board(track, width), type_for(width)
    _draw_names(im, track, x0, y0, width)
    hx = x0 + PEG_COLUMN
    y = y0 + _name_lines(track) * kind.name_h
    marks, tiny = street_marks(track.target), font(kind.number, True)
    for row in range(board.rows):
        first = 1 + row * board.per_row
        d.text((hx + board.x(0), y + kind.band_head - 3), str(first), font=tiny, fill=SOFT, anchor="ms")
        for m in marks:
            on, x = board.mark(m)
            if on == row:
                d.text((hx + x, y + kind.band_head - 3), str(m), font=tiny, fill=SOFT, anchor="ms")
        if row == board.rows - 1:
            fx = hx + board.at(track.target)[1]
            d.text(
                (fx, y + kind.band_head - 3), str(track.target), font=tiny, fill=(240, 200, 90), anchor="ms"
            )
        y += kind.band_head
        strip = _holes(board, row)
        for i, lane in enumerate(track.lanes):
            mid = y + i * HOLE_ROW + HOLE_ROW / 2
            _draw_lane_row(im, board, strip, lane, PEG_COLOURS[i], (x0, hx, mid), row)
        y += HOLE_ROW * len(track.lanes)


def _draw_lane_row(
    im: Image.Image,
    board: Board,
    strip: Image.Image,
    lane: Lane,
    colour: RGB,
    where: tuple[int, int, float],
    row: int,
) -> None:
    """One lane's row of holes: its colour dot, the holes, and its pegs where they are in this row."""
    x0, hx, mid = where
    _paste_centered(im, _dot(4.5, colour), x0 + 8, mid)
    im.paste(strip, (hx, round(mid - strip.height / 2)), strip)
    if lane.back is not None:
        on, x = board.at(lane.back)
        if on == row:
            _paste_centered(im, _dot(_half(0.36 * board.pitch), colour, ring=2.5), hx + x, mid)
    on, x = board.at(lane.front)
    if on == row:
        _paste_centered(im, _dot(_half(PEG * board.pitch / 2), colour), hx + x, mid)
