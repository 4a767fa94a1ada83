"""The packaged fonts, and text laid out in them: no system font is ever used, so pictures look the same on
every host. DejaVu Sans draws Latin, Greek and Cyrillic; a character it lacks is drawn in the first of Noto
Sans Hebrew, Noto Sans Arabic, Noto Sans CJK and Noto Color Emoji that has it (``fonts/README.md`` says what
each keeps). Arabic and Hebrew are shaped and read right to left (libraqm, through Pillow; ``bidi`` orders
a line). A character no shipped font has is never drawn as "?" or a box: ``clean`` leaves it out of free
text, and ``drawable`` says a name is not drawn whole, so the render code writes "Player 2" in its place."""

from __future__ import annotations

import io
import re
import unicodedata
from enum import Enum
from functools import lru_cache
from importlib import resources

from PIL import ImageFont, features

from bot.pictures import bidi, cmap

ELLIPSIS = "…"

# Whether Pillow shapes text (libraqm with FriBiDi): without it Arabic can't be joined, nor a line ordered,
# so Arabic and Hebrew count as missing (a name in them is written "Player 2", and ``python -m bot check``
# says why). Pillow's wheels carry libraqm and load FriBiDi from the system (Debian's libfribidi0).
SHAPING = features.check_feature("raqm")


class Face(Enum):
    """The shipped fonts, in the order a character is looked for."""

    LATIN = "DejaVuSans"
    HEBREW = "NotoSansHebrew"
    ARABIC = "NotoSansArabic"
    CJK = "NotoSansCJKsc"
    EMOJI = "NotoColorEmoji"


RIGHT_TO_LEFT = (Face.HEBREW, Face.ARABIC)
# The file of each face, regular and bold; CJK has no bold (a bold CJK file would double its megabytes: it is
# drawn a little heavier instead) and emoji have none.
FILES: dict[tuple[Face, bool], str] = {  # i18n: not text
    (Face.LATIN, False): "DejaVuSans.ttf",  # i18n: not text
    (Face.LATIN, True): "DejaVuSans-Bold.ttf",  # i18n: not text
    (Face.HEBREW, False): "NotoSansHebrew-Regular.ttf",  # i18n: not text
    (Face.HEBREW, True): "NotoSansHebrew-Bold.ttf",  # i18n: not text
    (Face.ARABIC, False): "NotoSansArabic-Regular.ttf",  # i18n: not text
    (Face.ARABIC, True): "NotoSansArabic-Bold.ttf",  # i18n: not text
    (Face.CJK, False): "NotoSansCJKsc-Regular.otf",  # i18n: not text
    (Face.EMOJI, False): "NotoColorEmoji.ttf",  # i18n: not text
}
# Every shipped font with a word it must draw: ``python -m bot check`` draws each.
FONT_FILES: dict[str, str] = {  # i18n: not text
    "DejaVuSans.ttf": "Ag Ωж",  # i18n: not text
    "DejaVuSans-Bold.ttf": "Ag Ωж",  # i18n: not text
    "NotoSansHebrew-Regular.ttf": "מרים",  # i18n: not text
    "NotoSansHebrew-Bold.ttf": "מרים",  # i18n: not text
    "NotoSansArabic-Regular.ttf": "مريم",  # i18n: not text
    "NotoSansArabic-Bold.ttf": "مريم",  # i18n: not text
    "NotoSansCJKsc-Regular.otf": "陈ひ한",  # i18n: not text
    "NotoColorEmoji.ttf": "🐉",  # i18n: not text
}
EMOJI_PPEM = 40  # the size of the emoji font's one bitmap strike (bench/build_fonts.py)
EMOJI_EM = 1.15  # an emoji's width as a share of the text size around it (as chat apps draw them)
CJK_BOLD = 0.03  # the stroke, as a share of the size, that draws CJK heavier in bold text
_SILENT = frozenset(range(0x1F3FB, 0x1F400)) | frozenset(range(0xFE00, 0xFE10))  # skin tones, selectors


class Font(ImageFont.FreeTypeFont):
    """A packaged DejaVu Sans at one size, knowing its boldness (so the fonts a line falls back on match)."""

    def __init__(self, data: bytes, size: int, bold: bool) -> None:
        engine = ImageFont.Layout.RAQM if SHAPING else ImageFont.Layout.BASIC
        super().__init__(io.BytesIO(data), size, layout_engine=engine)
        self.bold = bold


@lru_cache(maxsize=16)
def font_bytes(name: str) -> bytes:
    """A shipped font file, read once: a font object per size is cheap when the file is already in memory."""
    return resources.files("bot.pictures").joinpath("fonts", name).read_bytes()


@lru_cache(maxsize=128)
def font(size: int, bold: bool = False) -> Font:
    """The packaged DejaVu Sans at ``size`` pixels (cached: FreeType loads are slow next to drawing)."""
    return Font(font_bytes(FILES[(Face.LATIN, bold)]), max(1, size), bold)


@lru_cache(maxsize=256)
def face_font(face: Face, size: int, bold: bool = False) -> Font:
    """``face`` at ``size`` pixels (emoji always at their strike's size: they are scaled when drawn)."""
    bold = bold and (face, True) in FILES
    return Font(font_bytes(FILES[(face, bold)]), EMOJI_PPEM if face is Face.EMOJI else max(1, size), bold)


@lru_cache(maxsize=8)
def _covers(face: Face) -> frozenset[int]:
    return cmap.characters(font_bytes(FILES[(face, False)]))


@lru_cache(maxsize=8192)
def face_of(ch: str) -> Face | None:
    """The first shipped font with a glyph for ``ch``; None when none has it (or it is Arabic or Hebrew and
    nothing here can shape it, or a flag, which needs shaping to join its two letters)."""
    cp = ord(ch)
    for face in Face:
        if cp in _covers(face):
            if not SHAPING and (face in RIGHT_TO_LEFT or 0x1F1E6 <= cp <= 0x1F1FF):
                return None
            return face
    return None


def attached(ch: str) -> bool:
    """A mark or joiner drawn with the character before it, never alone."""
    return unicodedata.category(ch) in ("Mn", "Me") or ch in "\u200c\u200d"


def _chars(text: str) -> list[str | None]:
    """Each character of ``text`` as drawn (NFC): itself, its compatibility form where only that has a glyph
    ("𝓐" → "A"), "" where it is silent (format characters, stray marks, skin tones) or None where no
    shipped font has it; the isolates ``bidi`` reads are kept."""
    out: list[str | None] = []
    before: Face | None = None
    for ch in unicodedata.normalize("NFC", text):
        cat = unicodedata.category(ch)
        if ch in bidi.CONTROLS:
            out.append(ch)
        elif attached(ch):
            out.append(ch if before is not None and ord(ch) in _covers(before) else "")
        elif ch in "\t\n\r":
            out.append(" ")
            before = Face.LATIN
        elif cat in ("Cf", "Cc") or ord(ch) in _SILENT:
            out.append("")
        elif cat in ("Cs", "Co", "Cn"):
            out.append(None)
        elif (before := face_of(ch)) is not None:
            out.append(ch)
        else:
            compat = unicodedata.normalize("NFKC", ch)
            faces = [face_of(c) for c in compat]
            ok = compat != ch and all(faces) and not any(attached(c) for c in compat[:1])
            out.append(compat if ok else None)
            before = faces[-1] if ok else None
    return out


_DROPPED = "\x00"  # where a character was left out, until the spaces around it are tidied
_GAP = re.compile("[ \x00]*\x00[ \x00]*")


def _tidy(gap: re.Match[str]) -> str:
    """A run of left-out characters and spaces: one space between words, nothing at either end."""
    inside = gap.start() > 0 and gap.end() < len(gap.string)
    return " " if inside and " " in gap.group() else ""


@lru_cache(maxsize=2048)
def clean(text: str) -> str:
    """Text the shipped fonts can draw: invisible format characters dropped, and every character no shipped
    font has left out, with the spaces around it tidied ("Ana 𓀀 Bo" → "Ana Bo")."""
    cleaned = "".join(_DROPPED if c is None else c for c in _chars(text))
    return _GAP.sub(_tidy, cleaned) if _DROPPED in cleaned else cleaned


def left_out(text: str) -> str:
    """The visible characters of ``text`` that no shipped font has, in order: for an honest note, and for
    tests."""
    return "".join(ch for ch, c in zip(_visible(text), _chars(text), strict=True) if c is None)


def _visible(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def drawable(text: str) -> bool:
    """Whether ``text`` is drawn whole and shows something: every visible character in a shipped font (a
    name that is not gets the seat's number in its place, never drawn in part)."""
    return bool(clean(text).strip(" " + "".join(bidi.CONTROLS))) and not left_out(text)


def proof(name: str, sample: str) -> bool:
    """Whether the shipped font file ``name`` loads, has a glyph for every letter of ``sample`` and draws it
    with ink (``python -m bot check``)."""
    emoji = name == FILES[(Face.EMOJI, False)]
    f = Font(font_bytes(name), EMOJI_PPEM if emoji else 24, False)
    has = cmap.characters(font_bytes(name))
    ink = f.getmask(sample, mode="RGBA" if emoji else "L").getbbox()
    return ink is not None and all(ord(ch) in has for ch in sample if ch != " ")


def forget() -> None:
    """Forget every cached font and layout (tests that turn shaping off, or swap a font file)."""
    for cached in (font_bytes, font, face_font, _covers, face_of, clean):
        cached.cache_clear()
