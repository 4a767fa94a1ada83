"""The packaged fonts, and text made safe for them: no system font is ever used, so pictures look the same
on every host. Characters outside the subset (emoji, CJK, Arabic, Cyrillic in display names) are left out,
never drawn as "?" or as tofu boxes: "Chen 陈" is drawn "Chen", "Dee 🐉✨" "Dee". A name with nothing
drawable left is "" here; the render code then writes something in its place (``drawable`` tells it)."""

from __future__ import annotations

import io
import re
import unicodedata
from functools import lru_cache
from importlib import resources

from PIL import ImageFont

Font = ImageFont.FreeTypeFont

# The code points kept by the subsetting command in fonts/README.md; keep the two in step.
SUPPORTED: tuple[tuple[int, int], ...] = (
    (0x0020, 0x007E),
    (0x00A0, 0x00FF),
    (0x0100, 0x017F),
    (0x2000, 0x206F),
    (0x2190, 0x2193),
    (0x2212, 0x2212),
    (0x2605, 0x2605),
    (0x25CF, 0x25CF),
    (0x25CB, 0x25CB),
)

ELLIPSIS = "…"


FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}  # by boldness; i18n: not text


@lru_cache(maxsize=2)
def _font_bytes(bold: bool) -> bytes:
    """Read once: a font object per size is cheap when the file is already in memory."""
    return resources.files("bot.pictures").joinpath("fonts", FONT_FILES[bold]).read_bytes()


@lru_cache(maxsize=128)
def font(size: int, bold: bool = False) -> Font:
    """The packaged DejaVu Sans at ``size`` pixels (cached: FreeType loads are slow next to drawing)."""
    return ImageFont.truetype(io.BytesIO(_font_bytes(bold)), max(1, size))


def supported(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in SUPPORTED)


_DROPPED = "\x00"  # where a character was left out, until the spaces around it are tidied
_GAP = re.compile("[ \x00]*\x00[ \x00]*")


def _tidy(gap: re.Match[str]) -> str:
    """A run of left-out characters and spaces: one space between words, nothing at either end."""
    inside = gap.start() > 0 and gap.end() < len(gap.string)
    return " " if inside and " " in gap.group() else ""


@lru_cache(maxsize=1024)
def clean(text: str) -> str:
    """Text the subset font can draw: invisible format characters dropped, and every character no shipped
    font has left out, with the spaces around it tidied ("Ana 🐉 Bo" → "Ana Bo", "Chen 陈" → "Chen")."""
    out: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        cat = unicodedata.category(ch)
        if cat in ("Cf", "Mn", "Me"):
            continue  # joiners, variation selectors, stray combining marks: part of the previous character
        if ch in "\t\n\r":
            ch = " "
        elif cat in ("Cc", "Cs", "Co", "Cn") or not supported(ch):
            ch = _DROPPED
        out.append(ch)
    cleaned = "".join(out)
    return _GAP.sub(_tidy, cleaned) if _DROPPED in cleaned else cleaned


def left_out(text: str) -> str:
    """The visible characters of ``text`` that pictures leave out (no shipped font has them), in order: for
    an honest note, and for tests."""
    silent = ("Cf", "Mn", "Me", "Cc")
    return "".join(
        ch
        for ch in unicodedata.normalize("NFC", text)
        if unicodedata.category(ch) not in silent and not supported(ch)
    )


def drawable(text: str) -> bool:
    """Whether any visible part of ``text`` is drawn (a name in a script no shipped font has is not)."""
    return bool(clean(text).strip())


def fit(text: str, fnt: Font, width: float) -> str:
    """``text`` cleaned and clipped with "…" so it is at most ``width`` pixels wide."""
    text = clean(text)
    if fnt.getlength(text) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits with the ellipsis
        mid = (lo + hi + 1) // 2
        if fnt.getlength(text[:mid].rstrip() + ELLIPSIS) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS if lo else ""


def fitted_font(text: str, size: int, width: float, bold: bool = False, smallest: int = 6) -> Font:
    """The largest font up to ``size`` in which ``text`` fits ``width`` (card names on a narrow face)."""
    while size > smallest and font(size, bold).getlength(text) > width:
        size -= 1
    return font(size, bold)
