"""Rebuild the fonts the pictures are drawn with (``bot/pictures/fonts/``) from Debian's font packages: DejaVu
Sans for Latin, Greek and Cyrillic, Noto Sans Hebrew and Arabic, Noto Sans CJK (Chinese, Japanese, Korean) and
Noto Color Emoji, each cut down to what names need (``bot/pictures/fonts/README.md`` says what is kept, what
is left out and why).

Run from the repository root, as root on a Debian machine (``apt-get download`` fetches the packages; or give
a folder where their .deb files already are):

    python -m bench.build_fonts                 # apt-get download into a temporary folder
    python -m bench.build_fonts --debs DIR      # the .deb files in DIR

It needs fontTools (the ``test`` extra) and Pillow. The output is the same for the same packages and tools.
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from fontTools import subset, ttLib
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bot" / "pictures" / "fonts"

PACKAGES = ("fonts-dejavu-core", "fonts-noto-core", "fonts-noto-cjk", "fonts-noto-color-emoji")

Ranges = tuple[tuple[int, int], ...]

# DejaVu: Latin (with Vietnamese and the combining accents), Greek, Cyrillic, punctuation, and the few marks
# the bot's own words use (arrows, minus, ★ ● ○).
DEJAVU: Ranges = (
    (0x0020, 0x007E),
    (0x00A0, 0x024F),  # Latin-1, Latin Extended-A and -B
    (0x02B0, 0x02FF),  # spacing modifier letters
    (0x0300, 0x036F),  # combining diacritical marks
    (0x0370, 0x03FF),  # Greek and Coptic
    (0x0400, 0x052F),  # Cyrillic and its supplement
    (0x1E00, 0x1EFF),  # Latin Extended Additional (Vietnamese)
    (0x2000, 0x206F),  # general punctuation
    (0x2070, 0x20CF),  # super- and subscripts, currency
    (0x2190, 0x2193),
    (0x2212, 0x2212),
    (0x25CB, 0x25CB),
    (0x25CF, 0x25CF),
    (0x2605, 0x2605),
)
HEBREW: Ranges = ((0x0590, 0x05FF), (0xFB1D, 0xFB4F), (0x20AA, 0x20AA))
# Arabic, Persian and Urdu letters; the presentation forms are left out (a name written in them is drawn from
# the letters they stand for: bot/pictures/text.py reads them as NFKC).
ARABIC: Ranges = ((0x0600, 0x06FF), (0x0750, 0x077F))
# CJK: symbols and punctuation, kana, Hangul compatibility jamo, the fullwidth forms; then the ideographs and
# Hangul syllables below.
CJK_BLOCKS: Ranges = ((0x3000, 0x30FF), (0x3130, 0x318F), (0x31F0, 0x31FF), (0xFF00, 0xFFEF))
# Emoji: every code point of the font but these (ASCII digits and signs, © ®, the joiners and keycap, the
# skin-tone modifiers and the tag characters, which the pictures drop: see bot/pictures/text.py).
EMOJI_SKIP: Ranges = (
    (0x0000, 0x00FF),
    (0x200D, 0x200D),
    (0x20E3, 0x20E3),
    (0xFE0F, 0xFE0F),
    (0x1F3FB, 0x1F3FF),
    (0xE0000, 0xE007F),
)
EMOJI_PPEM = 40  # the rebuilt strike's size: drawn scaled from it (the original's 109 px is ten times larger)
EMOJI_COLOURS = 32


def _codes(ranges: Ranges) -> set[int]:
    return {c for lo, hi in ranges for c in range(lo, hi + 1)}


def _decoded(codec: str, rows: range, cells: range = range(0xA1, 0xFF)) -> set[int]:
    """The characters of a two-byte national standard's rows, as Python's codec decodes them."""
    out = set()
    for row in rows:
        for cell in cells:
            try:
                text = bytes((row, cell)).decode(codec)
            except UnicodeDecodeError:
                continue
            if len(text) == 1:
                out.add(ord(text))
    return out


def cjk_codes() -> set[int]:
    """The ideographs of GB 2312 level 1 (the 3,755 most used in Chinese) and of JIS X 0208 level 1 (the
    2,965 most used in Japanese), the 2,350 Hangul syllables of KS X 1001, and the CJK blocks above."""
    gb_level1 = _decoded("gb2312", range(0xB0, 0xD8))
    jis_level1 = _decoded("euc_jp", range(0xB0, 0xD0))
    ks_hangul = _decoded("euc_kr", range(0xB0, 0xC9))
    return gb_level1 | jis_level1 | ks_hangul | _codes(CJK_BLOCKS)


def _subset(
    src: Path, out: Path, codes: set[int], *, layout: bool, hinting: bool = True, number: int = 0
) -> None:
    opts = subset.Options()
    opts.layout_features = ["*"] if layout else []
    opts.name_IDs = ["*"]
    opts.name_languages = ["*"]
    opts.notdef_outline = True
    opts.hinting = hinting
    font = ttLib.TTFont(src, fontNumber=number, recalcTimestamp=False)
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=sorted(codes))
    sub.subset(font)
    font.save(out)


def _smaller_strike(path: Path) -> None:
    """Noto Color Emoji's bitmaps redrawn at ``EMOJI_PPEM`` px on ``EMOJI_COLOURS`` colours, its metrics
    scaled to match: a tenth of the size, and still sharp at the sizes names are drawn."""
    font = ttLib.TTFont(path, recalcTimestamp=False)
    strike = font["CBLC"].strikes[0]
    sizes = strike.bitmapSizeTable
    k = EMOJI_PPEM / sizes.ppemY
    for glyph in font["CBDT"].strikeData[0].values():
        im = Image.open(io.BytesIO(glyph.imageData)).convert("RGBA")
        w, h = max(1, round(im.width * k)), max(1, round(im.height * k))
        small = im.resize((w, h), Image.Resampling.LANCZOS).quantize(
            EMOJI_COLOURS, method=Image.Quantize.FASTOCTREE
        )
        buf = io.BytesIO()
        small.save(buf, "PNG", optimize=True)
        glyph.imageData = buf.getvalue()
        m = glyph.metrics
        m.width, m.height = w, h
        m.BearingX, m.BearingY, m.Advance = round(m.BearingX * k), round(m.BearingY * k), round(m.Advance * k)
    sizes.ppemX = sizes.ppemY = EMOJI_PPEM
    for line in (sizes.hori, sizes.vert):
        for field in ("ascender", "descender", "widthMax", "maxBeforeBL", "minAfterBL"):
            setattr(line, field, round(getattr(line, field) * k))
        for field in ("minOriginSB", "minAdvanceSB"):
            setattr(line, field, round(getattr(line, field) * k))
    font.save(path)


def _download(into: Path) -> None:
    subprocess.run(["apt-get", "download", *PACKAGES], cwd=into, check=True)  # i18n: not text


def _extract(debs: Path, into: Path) -> dict[str, str]:
    """Every package's files under ``into``; their versions, by package."""
    versions = {}
    for package in PACKAGES:
        found = sorted(debs.glob(f"{package}_*.deb"))
        if not found:
            raise SystemExit(f"no {package}_*.deb in {debs}")
        deb = found[-1]
        subprocess.run(["dpkg-deb", "-x", str(deb), str(into)], check=True)
        versions[package] = subprocess.run(
            ["dpkg-deb", "-f", str(deb), "Version"], check=True, capture_output=True, text=True
        ).stdout.strip()
    return versions


def build(root: Path) -> None:
    """Write every font and its licence into ``OUT`` from the packages' files under ``root``."""
    dejavu = root / "usr/share/fonts/truetype/dejavu"
    noto = root / "usr/share/fonts/truetype/noto"
    cjk = root / "usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
    for weight in ("", "-Bold"):
        _subset(
            dejavu / f"DejaVuSans{weight}.ttf", OUT / f"DejaVuSans{weight}.ttf", _codes(DEJAVU), layout=True
        )
    for weight in ("Regular", "Bold"):
        name = f"NotoSansHebrew-{weight}.ttf"
        _subset(noto / name, OUT / name, _codes(HEBREW), layout=True)
        name = f"NotoSansArabic-{weight}.ttf"
        _subset(noto / name, OUT / name, _codes(ARABIC), layout=True)
    # Number 2 of the collection is Noto Sans CJK SC; no layout features (horizontal CJK needs none, and the
    # regional alternates they reach would double the file) and no hints (drawn antialiased, they add 20%).
    _subset(cjk, OUT / "NotoSansCJKsc-Regular.otf", cjk_codes(), layout=False, hinting=False, number=2)
    emoji = OUT / "NotoColorEmoji.ttf"
    source = ttLib.TTFont(noto / "NotoColorEmoji.ttf")
    codes = set(source.getBestCmap()) - _codes(EMOJI_SKIP)
    _subset(noto / "NotoColorEmoji.ttf", emoji, codes, layout=True)
    _smaller_strike(emoji)
    doc = root / "usr/share/doc"  # DejaVu's LICENSE is the font part of its package's copyright file
    for package in ("fonts-noto-core", "fonts-noto-cjk", "fonts-noto-color-emoji"):
        shutil.copy(doc / package / "copyright", OUT / f"LICENSE-{package}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--debs", type=Path, help="a folder with the packages' .deb files (else apt-get download)"
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        debs = args.debs or Path(tmp) / "debs"
        if args.debs is None:
            debs.mkdir()
            _download(debs)
        versions = _extract(debs, Path(tmp) / "root")
        build(Path(tmp) / "root")
    for package, version in versions.items():
        print(f"{package} {version}")
    for path in sorted(OUT.glob("*.[ot]tf")):
        print(f"{path.relative_to(ROOT)}  {path.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    sys.exit(main())
