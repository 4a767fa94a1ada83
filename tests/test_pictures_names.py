"""Names in every script, in every picture that shows one (issue 46, item 4): a board's lane and a show's or
a table's caption with a name in Chinese, Arabic, Hebrew, Greek, Cyrillic, Japanese, Korean or emoji, or a
mix, draws every glyph of it — not a box ("tofu"), not left out, not a part of it.

Each glyph is checked twice: the font that draws it has it in its cmap as fontTools reads the file, and it
draws something other than that font's .notdef box. Then each picture is checked where the name goes: the
picture's pixels there are those of the name drawn alone at that place (in its fonts, its direction, its
shaping), and that ink is as wide as the name, at full size and as a 360-px phone shows it. A name with a
character no shipped font has is written "Player N" whole, never in part."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from fontTools import ttLib
from PIL import Image, ImageChops, ImageDraw, ImageStat

from bench import sample_sheet
from bot.base.i18n import ENGLISH, speaking
from bot.pictures import Scene, draw, isolate, pegs, text
from bot.pictures import scene as scene_module
from bot.pictures.parts import FELT, LIGHT, Row, Track
from bot.pictures.text import FILES, Face, face_font, face_of, font
from bot.pictures.writing import forget, length, write
from bot.render import bhargage_scenes as rb
from bot.render import cribbage_scenes as rc
from bot.render import deluxe_scenes as rs
from bot.render import picture_names
from bot.rules import bhargage as bh
from bot.rules import cribbage as C

PHONE = 360
NAMES = {
    "chinese": "陈伟",
    "arabic": "مريم",
    "hebrew": "נועה כהן",
    "greek": "Γιώργος",
    "emoji": "🐉✨",
    "cyrillic": "Дмитрий",
    "japanese": "さくら",
    "korean": "김민준",
    "mixed-cjk": "Chen 陈",
    "mixed-emoji": "Ana 🐉",
    "mixed-arabic": "Ana مريم",
}


def rgb(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    return im.convert("RGB")


# --------------------------------------------------------------------------------------------- glyphs


@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES.keys())
def test_every_glyph_of_a_name_is_in_its_font_and_is_no_box(name: str) -> None:
    for ch in name.replace(" ", ""):
        face = face_of(ch)
        assert face is not None, f"no shipped font for {ch!r}"
        path = f"{text.__file__.rsplit('/', 1)[0]}/fonts/{FILES[(face, False)]}"
        assert ord(ch) in ttLib.TTFont(path).getBestCmap(), f"{ch!r} is not in {path}"
        f = face_font(face, 40)
        mode = "RGBA" if face is Face.EMOJI else "L"
        glyph = f.getmask(ch, mode=mode)
        assert glyph.getbbox() is not None, f"{ch!r} draws nothing"
        if face is not Face.EMOJI:  # a bitmap font has no outline box to draw
            tofu = f.getmask("\U000f0000", mode=mode)  # a private-use character: no font has it
            assert bytes(glyph) != bytes(tofu), f"{ch!r} is drawn as the .notdef box"


# --------------------------------------------------------------------------------------------- pictures

Where = tuple[float, float, str, int, bool, int]  # x, y, anchor, size, bold, the band's bottom


def alone(size: tuple[int, int], line: str, where: Where) -> Image.Image:
    """``line`` drawn alone on the felt, where and as the picture draws it, on the pictures' palette."""
    x, y, anchor, px, bold, _ = where
    im = Image.new("RGB", size, FELT)
    write(im, (x, y), line, font(px, bold), LIGHT, anchor)
    return rgb(scene_module.encode(im))


def ink_box(im: Image.Image, where: Where) -> tuple[int, int, int, int]:
    box = ImageChops.difference(im, alone(im.size, "", where)).getbbox()
    assert box is not None, "nothing drawn"
    return box[0], box[1], box[2], min(box[3], where[5])  # a deep descender may touch the cards under it


def on_phone(im: Image.Image) -> Image.Image:
    return im.resize((PHONE, round(im.height * PHONE / im.width)), Image.Resampling.LANCZOS)


def inked_columns(im: Image.Image, background: Image.Image) -> int:
    """Columns of ``im`` where something stands out from ``background`` (text or emoji)."""
    diff = ImageChops.difference(im, background).convert("L").point(lambda v: 255 if v > 40 else 0)
    return sum(1 for x in range(diff.width) if diff.crop((x, 0, x + 1, diff.height)).getbbox())


def assert_drawn(picture: bytes, line: str, where: Where) -> None:
    """The picture shows ``line`` at ``where`` exactly as it is drawn alone, as wide as it is, and still
    there on a phone (scaled down, the cards beside it blur into its edges: there the check is the mean)."""
    im = rgb(picture)
    expected, empty = alone(im.size, line, where), alone(im.size, "", where)
    box = ink_box(expected, where)
    wanted = length(line, font(where[3], where[4]))
    assert box[2] - box[0] >= 0.8 * wanted, f"the line alone is {box[2] - box[0]} px of ink for {wanted:.0f}"
    seen, made = im.crop(box), expected.crop(box)
    assert ImageChops.difference(seen, made).getbbox() is None, "the picture draws something else there"
    scale = PHONE / im.width
    phone_box = tuple(round(v * scale) for v in box)
    small, small_made = on_phone(im).crop(phone_box), on_phone(expected).crop(phone_box)
    off = ImageStat.Stat(ImageChops.difference(small, small_made)).mean
    assert max(off) < 6, f"on a phone the place differs from the name by {off}"
    inked = inked_columns(small, on_phone(empty).crop(phone_box))
    assert inked >= 0.6 * (phone_box[2] - phone_box[0]), "the name fades on a phone"


def lane_where(data: bytes, track: Track, lane: int) -> Where:
    width = rgb(data).width - 2 * scene_module.MARGIN
    kind = pegs.type_for(width)
    cols = 1 if len(track.lanes) == 1 else 2
    x = scene_module.MARGIN + (lane % cols) * (width // cols) + 20
    mid = scene_module.MARGIN - 2 + scene_module.TITLE_H + (lane // cols) * kind.name_h + kind.name_h / 2
    return x, mid, "lm", kind.name, False, round(mid + kind.name_h / 2)


def first_caption(scene: Scene) -> tuple[str, Where]:
    """The first line of the first row's caption, and where it is drawn (the first part is that row)."""
    row = scene.parts[0]
    assert isinstance(row, Row)
    line = scene_module.caption_lines(row, scene_module.wrap_width(scene.parts))[0]
    top = scene_module.MARGIN - 2 + scene_module.TITLE_H
    y = top + scene_module.CAPTION_H - 6
    return line, (scene_module.MARGIN, y, "ls", scene_module.CAPTION_SIZE, True, top + scene_module.CAPTION_H)


def bhargage_state() -> bh.State:
    return next(s for s, _ in sample_sheet.bhargage_game(0) if s.phase is bh.Phase.PLAY and len(s.pile) >= 2)


def cribbage_state() -> C.State:
    return next(s for s, _ in sample_sheet.cribbage_game(1) if s.phase is C.Phase.PLAY and len(s.pile) >= 2)


def board_of(scene: Scene, lane: int) -> tuple[bytes, str, Where]:
    track = scene.parts[0]
    assert isinstance(track, Track)
    data = draw(scene)
    return data, track.lanes[lane].name, lane_where(data, track, lane)


def show_of(scene: Scene | None) -> tuple[bytes, str, Where]:
    assert scene is not None
    line, where = first_caption(scene)
    return draw(scene), line, where


def bhargage_show(names: tuple[str, ...]) -> Scene | None:
    return next(sc for _, ev in sample_sheet.bhargage_game(0) if (sc := rb.show_scene(ev, names)) is not None)


def cribbage_show(names: tuple[str, ...]) -> Scene | None:
    return next(sc for _, ev in sample_sheet.cribbage_game(1) if (sc := rc.show_scene(ev, names)) is not None)


PICTURES: dict[str, Callable[[str], tuple[bytes, str, Where]]] = {
    "bhargage board": lambda n: board_of(rb.board_scene(bhargage_state(), (n, "Bo")), 0),
    "bhargage show": lambda n: show_of(bhargage_show((n, n))),
    "cribbage board": lambda n: board_of(rc.board_scene(cribbage_state(), ("Bo", "Cy", n)), 2),
    "cribbage show": lambda n: show_of(cribbage_show((n, n, n))),
    "deluxe table": lambda n: show_of(
        rs.table_scene(sample_sheet.fullest(sample_sheet.deluxe_tables(0, 3))[-1], (n, "Bo", "Cy"))
    ),
}


@pytest.mark.parametrize("picture", PICTURES)
@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES.keys())
def test_a_picture_draws_the_whole_name(picture: str, name: str) -> None:
    with speaking(ENGLISH):
        data, line, where = PICTURES[picture](name)
    assert isolate(name) in line, f"the picture writes {line!r}, not the name"
    assert_drawn(data, line, where)


def test_the_check_sees_a_name_left_out_or_cut() -> None:
    """On the code before issue 46 a Chinese name left its lane blank and "Chen 陈" was drawn "Chen": the
    same picture with the name's place blank, or with part of it, fails the check."""
    with speaking(ENGLISH):
        state = bhargage_state()
        full, line, where = board_of(rb.board_scene(state, ("陈伟", "Bo")), 0)
        assert_drawn(full, line, where)
        for drawn in ("", "Chen"):
            data, _, _ = board_of(rb.board_scene(state, (drawn or "Bo", "Bo")), 0)
            blank = rgb(data)
            ImageDraw.Draw(blank).rectangle(
                (where[0] - 2, where[1] - 14, where[0] + 60, where[1] + 14), fill=FELT
            )
            if drawn:
                write(blank, where[:2], drawn, font(where[3]), LIGHT, "lm")
            buf = io.BytesIO()
            blank.save(buf, "PNG")
            with pytest.raises(AssertionError):
                assert_drawn(buf.getvalue(), isolate("陈伟"), where)


def test_a_name_with_a_character_no_font_has_is_the_seat_number_whole() -> None:
    with speaking(ENGLISH):
        names = picture_names(("𓀀𓀁", "Ana 𓀀", "Chen 陈", "", "\u200b"))
        assert names == tuple(map(isolate, ("Player 1", "Player 2", "Chen 陈", "Player 4", "Player 5")))
        state = bhargage_state()
        odd = draw(rb.board_scene(state, ("Ana 𓀀", "Bo")))
        assert odd == draw(rb.board_scene(state, ("Player 1", "Bo")))


def test_without_shaping_arabic_and_hebrew_names_are_the_seat_number(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where Pillow's libraqm can't load FriBiDi (a slim image without libfribidi0) Arabic can't be joined
    nor a line ordered: such a name is "Player N", a Chinese one still itself; ``python -m bot check`` says
    so (its fonts line)."""
    from bot.cli.check import check_fonts

    monkeypatch.setattr(text, "SHAPING", False)
    forget()
    scene_module.clear_cache()
    try:
        with speaking(ENGLISH):
            names = picture_names(("مريم", "נועה", "陈伟", "🇮🇹"))
        assert names == tuple(map(isolate, ("Player 1", "Player 2", "陈伟", "Player 4")))
        item = check_fonts()
        assert item.ok and "libfribidi0" in item.text
        data = draw(rb.board_scene(bhargage_state(), ("陈伟", "Bo")))
        track = rb.board_scene(bhargage_state(), ("陈伟", "Bo")).parts[0]
        assert isinstance(track, Track)
        assert_drawn(data, isolate("陈伟"), lane_where(data, track, 0))
    finally:
        monkeypatch.undo()
        forget()
        scene_module.clear_cache()
    assert "libfribidi0" not in check_fonts().text
