"""The picture renderer: every card and picture kind draws, suits stay apart, bad input gives PictureError,
and pixel checks against stored references catch a changed look.

The references in ``tests/reference/`` are the sample pictures of ``bench/sample_sheet.py``. After a wanted
change of look, regenerate them (and look at them!) with:

    python -m bench.sample_sheet --update-references

The comparison allows small differences (another FreeType or zlib build antialiases text a little
differently) but fails on a wrong colour, a missing symbol or a moved layout.
"""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageStat

from bench import sample_sheet
from bot.pictures import (
    SUIT_COLOURS,
    Lane,
    PictureError,
    Row,
    Scene,
    Track,
    card_png,
    draw,
    gallery,
    pegs,
    suit_icon,
)
from bot.pictures import scene as scene_module
from bot.pictures import text as text_module
from bot.pictures.faces import RANK_MARKS, face
from bot.pictures.text import clean, font
from bot.pictures.writing import fit, length
from bot.rules.decktet import ALL_CARDS, Card, Rank, Suit, cards

REFERENCES = Path(__file__).parent / "reference"
MAX_PNG = 150 * 1024


def png(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def rgb(data: bytes) -> Image.Image:
    return png(data).convert("RGB")


def count(mask: Image.Image) -> int:
    """Pixels of an L image that are not 0."""
    return mask.width * mask.height - mask.histogram()[0]


def far(diff: Image.Image, limit: int) -> Image.Image:
    """Where any channel of an RGB difference is above ``limit`` (an L mask)."""
    r, g, b = (ch.point(lambda v: 255 if v > limit else 0) for ch in diff.split())
    return ImageChops.lighter(ImageChops.lighter(r, g), b)


# --------------------------------------------------------------------------------------------- faces


def test_every_card_has_a_face_and_no_two_faces_are_alike() -> None:
    seen: dict[bytes, Card] = {}
    for c in ALL_CARDS:
        im = png(card_png(c))
        assert im.mode == "RGBA" and im.size == (240, 336)
        assert im.getpixel((0, 0))[3] == 0, "rounded corners are transparent"  # type: ignore[index]
        assert im.getpixel((120, 168))[3] == 255
        pixels = im.tobytes()
        assert pixels not in seen, f"{c} looks like {seen.get(pixels)}"
        seen[pixels] = c
    for width in (scene_module.LARGE, scene_module.SMALL):
        sizes = {face(c, width).size for c in ALL_CARDS}
        assert sizes == {(width, round(width * 1.4))}
        small = {face(c, width).tobytes() for c in ALL_CARDS}
        assert len(small) == len(ALL_CARDS)


def test_rank_marks_cover_every_rank_and_are_short() -> None:
    assert set(RANK_MARKS) == set(Rank)
    assert len(set(RANK_MARKS.values())) == len(Rank)
    assert all(1 <= len(m) <= 2 for m in RANK_MARKS.values())


def test_a_face_shows_its_suit_colours() -> None:
    """Each suit's colour is on the faces of that suit's cards, and nowhere on the Excuse."""

    def has_colour(im: Image.Image, colour: tuple[int, int, int]) -> bool:
        solid = im.convert("RGB")
        diff = ImageChops.difference(solid, Image.new("RGB", solid.size, colour))
        near = solid.width * solid.height - count(far(diff, 12))
        return near > 20

    for c in ALL_CARDS:
        im = face(c, scene_module.LARGE)
        for suit, colour in SUIT_COLOURS.items():
            assert has_colour(im, colour) == (suit in c.suits), (c, suit)


# --------------------------------------------------------------------------------------------- suits


def test_suit_colours_differ_clearly() -> None:
    assert set(SUIT_COLOURS) == set(Suit)
    for (s1, c1), (s2, c2) in itertools.combinations(SUIT_COLOURS.items(), 2):
        assert math.dist(c1, c2) > 90, (s1, s2)


def test_suit_icons_are_small_transparent_and_distinct() -> None:
    shapes = []
    for suit in Suit:
        data = suit_icon(suit)
        assert len(data) <= 256 * 1024
        im = png(data)
        assert im.mode == "RGBA" and im.size == (128, 128)
        alpha = im.getchannel("A")
        corners = [alpha.getpixel(p) for p in ((0, 0), (127, 0), (0, 127), (127, 127))]
        assert corners == [0, 0, 0, 0]
        shape = alpha.point(lambda a: 255 if a > 128 else 0)
        assert 128 * 128 * 0.15 < count(shape) < 128 * 128 * 0.85
        shapes.append(shape)
        assert png(suit_icon(suit, 64)).size == (64, 64)
    for a, b in itertools.combinations(shapes, 2):  # the silhouettes alone tell suits apart (grey scale)
        assert count(ImageChops.difference(a, b)) > 128 * 128 * 0.12


def test_suit_icon_rejects_a_bad_size() -> None:
    with pytest.raises(PictureError, match="size"):
        suit_icon(Suit.MOONS, 5000)


# --------------------------------------------------------------------------------------------- scenes

HAND = cards("ace of moons, desert, journey, market, pact, watchman")
PILE = cards("castle, mill, ace of knots, lunatic")


def test_every_kind_of_picture_draws_within_budget() -> None:
    kinds: dict[str, bytes] = {
        "hand": draw(
            Scene((Row("Your hand", (HAND,), picked=((0, 1), (0, 4))), Row("Up-card", ((ALL_CARDS[30],),))))
        ),
        "pile": draw(Scene((Row("Pile · 21", (PILE,), small=True),))),
        "show": draw(sample_sheet.first_show(1)),
        "track 61": draw(Scene((Track((Lane("A", 30, 25, 5), Lane("B", 70, 58, 12)), 61),))),
        "track 121": draw(
            Scene((Track((Lane("A", 0), Lane("B", 121, 119, 2), Lane("C", 64, 60, 4)), 121),), title="t")
        ),
        "table": draw(sample_sheet.scene("deluxe table", __import__("random").Random(7))),
        "gallery": gallery(),
    }
    for name, data in kinds.items():
        im = png(data)
        assert im.mode in ("P", "RGB"), name
        assert len(data) <= MAX_PNG, (name, len(data))
        assert 160 <= im.width <= 1000, (name, im.size)
    assert png(kinds["hand"]).width > png(kinds["hand"]).height
    assert png(kinds["track 121"]).width > png(kinds["track 121"]).height


def test_rows_wrap_past_the_maximum_width() -> None:
    one = png(draw(Scene((Row("", (ALL_CARDS[:9],)),))))
    two = png(draw(Scene((Row("", (ALL_CARDS[:10],)),))))
    assert one.width <= 1000 and two.width <= 1000
    assert two.height > one.height + 100


def test_picked_cards_are_raised_and_outlined() -> None:
    plain = rgb(draw(Scene((Row("", (HAND,)),))))
    picked = rgb(draw(Scene((Row("", (HAND,), picked=((0, 2),)),))))
    assert picked.height > plain.height  # room for the raise
    yellow = count(far(ImageChops.difference(picked, Image.new("RGB", picked.size, scene_module.PICK)), 40))
    assert picked.width * picked.height - yellow > 300


def test_a_track_clamps_and_scales() -> None:
    for target in (31, 61, 121, 181):
        im = png(draw(Scene((Track((Lane("Ana", target + 40, target - 3, 43), Lane("Bo", 0)), target),))))
        assert im.width <= 1000 and im.width > im.height
    with pytest.raises(PictureError, match="target"):
        draw(Scene((Track((Lane("A", 1),), 2),)))


def test_a_peg_moves_with_the_score() -> None:
    def at(score: int) -> Image.Image:
        return rgb(draw(Scene((Track((Lane("A", score),), 121),))))

    base, moved, same = at(40), at(41), at(40)
    assert ImageChops.difference(base, same).getbbox() is None
    top = scene_module.MARGIN + pegs.NAME_H  # the names line is above it, the holes below
    holes = (0, top, base.width, base.height)
    box = ImageChops.difference(base.crop(holes), moved.crop(holes)).getbbox()
    board = pegs.Board(121, base.width - 2 * scene_module.MARGIN - pegs.PEG_COLUMN)
    assert box is not None and box[2] - box[0] < 3 * board.pitch  # only around the peg (41 is a hole on)
    score = (base.width - scene_module.MARGIN - 50, 0, base.width, top)
    assert ImageChops.difference(base.crop(score), moved.crop(score)).getbbox() is not None


def test_names_any_unicode_draw_clipped() -> None:
    names = ("🐉🔥 Dragon", "陈小明", "Zoë ﷽ " + "x" * 200, "a\u200db\u0301\u202e", "", "\x00\n", "𓀀 Ra")
    draw(Scene((Track(tuple(Lane(n, 3) for n in names[:6]), 61),)))
    draw(Scene((Track((Lane(names[6], 3),), 61),)))
    assert clean("Dee 🐉✨") == "Dee 🐉✨" and clean("陈小明") == "陈小明"  # every shipped font is used
    assert clean("Ana 𓀀 Bo") == "Ana Bo" and clean("𓀀Zoë") == "Zoë"  # no font has hieroglyphs: left out
    assert clean("e\u0301") == "é"  # combining accents kept by normalising
    assert (
        clean("𝓐𝓷𝓪 ｂｏ") == "Ana ｂｏ"
    )  # fancy letters as the plain ones (fullwidth: the CJK font has them)
    assert clean("👍🏽") == "👍" and clean("❤\ufe0f") == "❤"  # skin tones and selectors are silent
    assert font(15).getlength(fit("W" * 100, font(15), 120)) <= 120
    assert length(fit("陈" * 100, font(15), 120), font(15)) <= 120


def test_every_shipped_font_is_read_as_fonttools_reads_it() -> None:
    """The pictures choose a font by its own cmap (``bot.pictures.cmap``): the same characters fontTools
    finds, in every shipped file, and the files stay within the sizes fonts/README.md gives."""
    from fontTools import ttLib as ttlib

    from bot.pictures import cmap

    limits = {"NotoSansCJKsc-Regular.otf": 1500, "NotoColorEmoji.ttf": 1300}
    for name in text_module.FONT_FILES:
        path = Path(scene_module.__file__).parent / "fonts" / name
        assert path.stat().st_size < limits.get(name, 240) * 1024, name
        expected = {c for c, glyph in ttlib.TTFont(path).getBestCmap().items() if glyph != ".notdef"}
        assert cmap.characters(path.read_bytes()) == expected, name


# --------------------------------------------------------------------------------------------- caching


def test_the_same_scene_is_served_from_the_cache() -> None:
    sc = sample_sheet.scene("deluxe table", __import__("random").Random(11))
    scene_module.clear_cache()
    first = draw(sc)
    again = draw(sc)
    assert again is first  # the very picture, not drawn again (bench/bench_images.py times it: warm ≤ 1 ms)
    equal = sample_sheet.scene("deluxe table", __import__("random").Random(11))
    assert equal is not sc and draw(equal) is first
    scene_module.clear_cache()
    assert draw(sc) == first  # drawing is deterministic


# --------------------------------------------------------------------------------------------- bad input

BOGUS = Card(99, "Bogus", Rank.TWO, (Suit.MOONS,))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: draw(Scene((Row("", ((BOGUS,),)),))), "Bogus"),
        (lambda: draw(Scene((Row("", ((Card(3, "Ace of Moons", Rank.ACE, (Suit.MOONS,)),),)),))), "Ace of"),
        (lambda: card_png(BOGUS), "Bogus"),
        (lambda: draw(Scene(("hand",))), "neither a Row nor a Track"),  # type: ignore[arg-type]
        (lambda: draw(Scene((Row("", [HAND]),))), "tuple"),  # type: ignore[arg-type]
        (lambda: draw(Scene((Row("", (HAND,), picked=((0, 6),)),))), "picked"),
        (lambda: draw(Scene((Row("", (HAND,), labels=("a", "b")),))), "labels"),
        (lambda: draw(Scene((Row("", (("6",),)),))), "unknown card"),  # type: ignore[arg-type]
        (lambda: draw(Scene((Track((), 121),))), "lanes"),
        (lambda: draw(Scene((Track((Lane("A", -1),), 121),))), "scores"),
        (lambda: draw(Scene((Track((Lane("A", 1),), 121),), title=3)), "title"),  # type: ignore[arg-type]
        (lambda: draw(Scene(())), "empty"),
        (lambda: draw("scene"), "not a Scene"),  # type: ignore[arg-type]
    ],
)
def test_bad_input_raises_picture_error(make: Callable[[], object], message: str) -> None:
    with pytest.raises(PictureError, match=message):
        make()


def test_a_pillow_failure_becomes_a_picture_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object, **__: object) -> None:
        raise OSError("encoder broke")

    monkeypatch.setattr(scene_module, "encode", broken)
    scene_module.clear_cache()
    with pytest.raises(PictureError, match="encoder broke"):
        draw(Scene((Row("x", (HAND[:1],)),)))


# --------------------------------------------------------------------------------------------- references


def differs(a: Image.Image, b: Image.Image) -> str:
    """Why two pictures differ beyond rendering noise, or "" if they match."""
    if a.size != b.size:
        return f"size {a.size} != {b.size}"
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    mean = max(ImageStat.Stat(diff).mean)
    share = count(far(diff, 80)) / (a.width * a.height)
    if mean > 1.5 or share > 0.002:
        return f"mean difference {mean:.2f} per channel, {share:.3%} of pixels far off"
    return ""


@pytest.fixture(scope="module")
def samples() -> dict[str, bytes]:
    return sample_sheet.samples()


@pytest.mark.parametrize(
    "name", ["cards", "hand", "hand-discard", "board", "show", "deluxe-table", "deluxe-hand"]
)
def test_pictures_match_their_references(samples: dict[str, bytes], name: str) -> None:
    ref = REFERENCES / f"{name}.png"
    assert ref.exists(), "run: python -m bench.sample_sheet --update-references"
    problem = differs(rgb(samples[name]), rgb(ref.read_bytes()))
    assert not problem, f"{name}: {problem} (a wanted change? regenerate the references, see the docstring)"


def test_the_reference_check_catches_a_regression(samples: dict[str, bytes]) -> None:
    ref = rgb((REFERENCES / "hand.png").read_bytes())
    assert not differs(ref, ref.copy())
    # a wrong colour: the Moons symbol of the first card turned red
    recoloured = ref.copy()
    box = (20, 120, 120, 210)
    part = recoloured.crop(box)
    part = Image.merge("RGB", (part.getchannel("B"), part.getchannel("G"), part.getchannel("R")))
    recoloured.paste(part, box[:2])
    assert differs(recoloured, ref)
    # a missing symbol: painted over with the card's paper colour
    blank = ref.copy()
    ImageDraw.Draw(blank).rectangle((40, 140, 100, 200), fill=(250, 244, 228))
    assert differs(blank, ref)
    # a moved layout: the whole picture shifted by three pixels
    moved = ImageChops.offset(ref, 3, 0)
    assert differs(moved, ref)
    # a different card in the hand
    hand = sample_sheet.sample_scenes()["hand"]
    row = hand.parts[0]
    assert isinstance(row, Row)
    swapped = next(c for c in ALL_CARDS if c not in row.groups[0])
    other = replace(hand, parts=(replace(row, groups=((swapped, *row.groups[0][1:]),)), *hand.parts[1:]))
    assert differs(rgb(draw(other)), ref)


def test_the_pictures_english_gallery_words_are_the_catalogs() -> None:
    """The pictures look no text up: their English gallery words (the default gallery, the palette sheet) are
    the words the render code makes in English."""
    from bot.base.i18n import ENGLISH, speaking
    from bot.pictures.parts import ENGLISH_GALLERY
    from bot.render.cards import gallery_words

    with speaking(ENGLISH):
        assert gallery_words() == ENGLISH_GALLERY
