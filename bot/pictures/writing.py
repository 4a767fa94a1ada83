"""One line of text drawn in the shipped fonts: cut into pieces of one font and one direction, put in the
order they are read (``bidi``), each drawn in its font on one baseline, emoji pasted in colour. Text all in
DejaVu Sans, left to right (every word the bot itself writes) is drawn exactly as Pillow draws it alone."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from bot.pictures import bidi, text
from bot.pictures.text import ELLIPSIS, Face, Font, clean, face_font, face_of

Ink = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of one line in one font and one direction, its characters in reading order."""

    text: str
    face: Face
    rtl: bool
    width: float


def _piece_width(run: str, face: Face, rtl: bool, size: int, bold: bool) -> float:
    if face is Face.EMOJI:
        return face_font(face, size).getlength(run) * _emoji_scale(size)
    f = face_font(face, size, bold)
    return f.getlength(run, direction="rtl") if rtl else f.getlength(run)


def _emoji_scale(size: int) -> float:
    return size * text.EMOJI_EM / text.EMOJI_PPEM


@lru_cache(maxsize=4096)
def layout(line: str, size: int, bold: bool = False) -> tuple[Piece, ...]:
    """``line`` (cleaned first) as pieces from left to right."""
    line = clean(line)
    levels = bidi.levels(line)
    faces = _faces(line)
    shown = [i for i in bidi.visual(levels) if line[i] not in bidi.CONTROLS]
    pieces: list[Piece] = []
    run: list[int] = []

    def close() -> None:
        if run:
            face = faces[run[0]]
            rtl = levels[run[0]] % 2 == 1 and face is not Face.EMOJI  # emoji are pasted as they are seen
            chars = "".join(line[i] for i in (reversed(run) if rtl else run))
            pieces.append(Piece(chars, face, rtl, _piece_width(chars, face, rtl, size, bold)))
            run.clear()

    for i in shown:
        if run and (levels[i] != levels[run[-1]] or faces[i] != faces[run[-1]]):
            close()
        run.append(i)
    close()
    return tuple(pieces)


def _faces(line: str) -> list[Face]:
    """The font of each character: the first that has it; a mark or joiner goes with the letter before it."""
    out: list[Face] = []
    before = Face.LATIN
    for ch in line:
        if not text.attached(ch) and ch not in bidi.CONTROLS:
            before = face_of(ch) or Face.LATIN
        out.append(before)
    return out


def _simple(pieces: tuple[Piece, ...]) -> str | None:
    """The line as one string when it is all DejaVu Sans, left to right (drawn as Pillow draws it alone)."""
    if all(p.face is Face.LATIN and not p.rtl for p in pieces):
        return "".join(p.text for p in pieces)
    return None


def length(line: str, fnt: Font) -> float:
    """How wide ``line`` is drawn with ``fnt`` (and the fonts it falls back on)."""
    pieces = layout(line, fnt.size, fnt.bold)
    simple = _simple(pieces)
    return sum(p.width for p in pieces) if simple is None else fnt.getlength(simple)


def fit(line: str, fnt: Font, width: float) -> str:
    """``line`` cleaned and clipped with "…" so it is at most ``width`` pixels wide."""
    line = clean(line)
    if length(line, fnt) <= width:
        return line
    lo, hi = 0, len(line)
    while lo < hi:  # the longest beginning that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if length(_clipped(line, mid), fnt) <= width:
            lo = mid
        else:
            hi = mid - 1
    return _clipped(line, lo) if lo else ""


def _clipped(line: str, n: int) -> str:
    """The first ``n`` characters, every isolate they open closed, then "…"."""
    head = line[:n].rstrip()
    depth = sum(1 for ch in head if ch in bidi.OPENERS) - head.count(bidi.PDI)
    return head + bidi.PDI * max(0, depth) + ELLIPSIS


def fitted_font(line: str, size: int, width: float, bold: bool = False, smallest: int = 6) -> Font:
    """The largest font up to ``size`` in which ``line`` fits ``width`` (card names on a narrow face)."""
    while size > smallest and length(line, text.font(size, bold)) > width:
        size -= 1
    return text.font(size, bold)


def wrap(line: str, fnt: Font, width: float, most: int, indent: float = 0) -> tuple[str, ...]:
    """``line`` cut between words into lines at most ``width`` wide (those after the first ``indent`` less),
    at most ``most`` of them (the last one clipped with "…" when more would be needed)."""
    out: list[str] = []
    current = ""
    for word in clean(line).split(" "):
        longer = f"{current} {word}" if current else word
        if current and length(longer, fnt) > width - (indent if out else 0):
            out.append(current)
            current = word
        else:
            current = longer
    out.append(current)
    if len(out) > most:
        out[most - 1 :] = [" ".join(out[most - 1 :])]
    return tuple(fit(x, fnt, width - (indent if i else 0)) for i, x in enumerate(out))


@lru_cache(maxsize=256)
def _emoji(run: str, size: int) -> tuple[Image.Image, float]:
    """A run of emoji in colour at ``size``, and how far above its bottom edge the baseline is."""
    f = face_font(Face.EMOJI, size)
    ascent, descent = f.getmetrics()
    big = Image.new("RGBA", (max(1, math.ceil(f.getlength(run))), ascent + descent), (0, 0, 0, 0))
    ImageDraw.Draw(big).text((0, ascent), run, font=f, anchor="ls", embedded_color=True)
    k = _emoji_scale(size)
    small = big.resize(
        (max(1, round(big.width * k)), max(1, round(big.height * k))), Image.Resampling.LANCZOS
    )
    return small, ascent * k


def _baseline(y: float, v: str, pieces: tuple[Piece, ...], fnt: Font) -> float:
    """The baseline's y for a vertical anchor (Pillow's: ascender, top, middle, baseline, bottom, descender),
    taken from DejaVu Sans at this size, so mixed lines sit where a Latin one would."""
    if v in "amsd":
        return y + fnt.getbbox("A", anchor="l" + v)[1] - fnt.getbbox("A", anchor="ls")[1]
    tops, bottoms = [], []
    for p in pieces:
        if p.face is Face.EMOJI:
            sprite, above = _emoji(p.text, fnt.size)
            tops.append(-above)
            bottoms.append(sprite.height - above)
        else:
            box = face_font(p.face, fnt.size, fnt.bold).getbbox(p.text, anchor="ls")
            tops.append(box[1])
            bottoms.append(box[3])
    return y - min(tops) if v == "t" else y - max(bottoms)


def write(
    im: Image.Image, xy: tuple[float, float], line: str, fnt: Font, fill: Ink, anchor: str = "la"
) -> None:
    """Draw ``line`` on ``im`` at ``xy`` like ``ImageDraw.text`` with ``anchor``, in every shipped font."""
    d = ImageDraw.Draw(im)
    pieces = layout(line, fnt.size, fnt.bold)
    simple = _simple(pieces)
    if simple is not None:
        if simple:
            d.text(xy, simple, font=fnt, fill=fill, anchor=anchor)
        return
    total = sum(p.width for p in pieces)
    x = xy[0] - {"l": 0.0, "m": total / 2, "r": total}[anchor[0]]
    y = _baseline(xy[1], anchor[1], pieces, fnt)
    for p in pieces:
        if p.face is Face.EMOJI:
            sprite, above = _emoji(p.text, fnt.size)
            im.paste(sprite, (round(x), round(y - above)), sprite)
        else:
            f = face_font(p.face, fnt.size, fnt.bold)
            heavy = fnt.bold and not f.bold
            d.text(
                (x, y),
                p.text,
                font=f,
                fill=fill,
                anchor="ls",
                direction="rtl" if p.rtl else None,
                stroke_width=text.CJK_BOLD * fnt.size if heavy else 0,
                stroke_fill=fill if heavy else None,
            )
        x += p.width


def forget() -> None:
    """Forget every cached font and layout (tests that turn shaping off)."""
    text.forget()
    layout.cache_clear()
    _emoji.cache_clear()
