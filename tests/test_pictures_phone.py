"""The pictures as a phone shows them: Discord scales a picture to the screen's width, about 360 px. Real
PNGs of the Bhargage board and the Bharg Deluxe table (2 and 6 players) are scaled to 360 px wide and
measured: holes and pegs big enough to see, cards and names big enough to read, every player's name on
the table. Names in scripts no shipped font has (CJK, Arabic, emoji) are left out, never drawn as "?"."""

from __future__ import annotations

import io
import statistics

import pytest
from PIL import Image, ImageChops

from bench import sample_sheet
from bot.base.i18n import ENGLISH, speaking
from bot.pictures import Lane, Scene, Track, card_png, draw, pegs, street_marks
from bot.pictures import scene as scene_module
from bot.pictures.parts import PEG_COLOURS
from bot.pictures.text import clean, left_out, supported
from bot.render import bhargage_scenes as rb
from bot.render import deluxe as rd
from bot.render.board import MARK, _column, draw_board
from bot.render.board import Lane as TextLane
from bot.rules import bhargage as bh
from bot.rules import deluxe as D
from bot.rules.decktet import card

PHONE = 360
HOLE_DARK = 72  # green below this is a hole: between the hole's (44) and the strip's (100)
NAMES = ("Ana", "Bértrand le Magnifique", "Chen", "Dee", "Eilidh", "Fitz")


def full(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    assert im.format == "PNG"
    return im.convert("RGB")


def on_phone(im: Image.Image) -> Image.Image:
    """The picture as a 360-px-wide phone screen shows it."""
    return im.resize((PHONE, round(im.height * PHONE / im.width)), Image.Resampling.LANCZOS)


def runs(values: list[int], below: int) -> list[int]:
    """The lengths of the runs of values under ``below``."""
    out, current = [], 0
    for v in values:
        if v < below:
            current += 1
        elif current:
            out.append(current)
            current = 0
    return [*out, current] if current else out


def hole_runs(data: bytes, track: Track, top: int, lane: int, row: int) -> list[int]:
    """The dark runs (holes) across one row of one lane of a board drawn at ``top``, on a phone."""
    im = full(data)
    scale = PHONE / im.width
    board = pegs.Board(track.target, im.width - 2 * scene_module.MARGIN - pegs.PEG_COLUMN)
    band = pegs.BAND_HEAD + pegs.HOLE_ROW * len(track.lanes)
    y = top + pegs.NAME_H * ((len(track.lanes) + 1) // 2) + row * band + pegs.BAND_HEAD
    y += lane * pegs.HOLE_ROW + pegs.HOLE_ROW / 2
    left = scene_module.MARGIN + pegs.PEG_COLUMN
    phone = on_phone(im)
    line = [phone.getpixel((x, round(y * scale)))[1] for x in range(PHONE)]  # type: ignore[index]
    assert board.end() > 0
    return runs(line[round(left * scale) : round((left + board.end()) * scale)], HOLE_DARK)


def seen_holes(found: list[int]) -> bool:
    """A street's 30 holes, each told apart from the next and at least 2 px dark on a phone."""
    return len(found) == 30 and min(found) >= 2


def board_state() -> bh.State:
    game = sample_sheet.bhargage_game(0)
    return [s for s, _ in game if s.phase is bh.Phase.PLAY and max(s.scores) < 90][-1]


# --------------------------------------------------------------------------------------------- the board


def test_board_holes_and_pegs_are_big_enough_on_a_phone() -> None:
    state = board_state()
    scene = rb.board_scene(state, NAMES[:2])
    track = scene.parts[0]
    assert isinstance(track, Track) and track.target == 121
    data = draw(scene)
    width = full(data).width
    scale = PHONE / width
    board = pegs.Board(121, width - 2 * scene_module.MARGIN - pegs.PEG_COLUMN)
    assert board.hole * scale >= 3.0, f"holes {board.hole * scale:.1f} px on a phone"
    assert pegs.PEG * board.pitch * scale >= 5.0, "pegs"
    assert pegs.NAME_SIZE * scale >= 9.5 and pegs.SCORE_SIZE * scale >= 10.5, "names and scores"
    top = scene_module.MARGIN - 2 + scene_module.TITLE_H
    last = board.rows - 1  # 91–120: no peg there yet, every hole shows
    for lane in (0, 1):
        found = hole_runs(data, track, top, lane, last)
        assert seen_holes(found), found


def test_the_hole_measure_catches_holes_too_small(monkeypatch: pytest.MonkeyPatch) -> None:
    track = Track((Lane("Ana", 10), Lane("Bo", 12)), 121)
    normal, sizes = pegs.HOLE, {}
    for share in (normal, 0.2):
        monkeypatch.setattr(pegs, "HOLE", share)
        pegs._holes.cache_clear()
        scene_module.clear_cache()
        found = hole_runs(draw(Scene((track,))), track, scene_module.MARGIN - 2, 1, 2)
        sizes[share] = seen_holes(found)
    pegs._holes.cache_clear()
    scene_module.clear_cache()
    assert sizes == {normal: True, 0.2: False}


def test_every_board_target_keeps_its_holes_on_a_phone() -> None:
    for target in (31, 61, 121, 181, 250):
        data = draw(Scene((Track((Lane("A", 0), Lane("B", target)), target),)))
        width = full(data).width
        board = pegs.Board(target, width - 2 * scene_module.MARGIN - pegs.PEG_COLUMN)
        assert board.hole * PHONE / width >= 3.0, target
        assert board.rows == -(-(target - 1) // 30)


def test_the_text_board_and_the_picture_mark_the_same_holes() -> None:
    """Rules R3: Bhargage is won at 121 on a cribbage board, four streets of 30 and the game hole; both
    boards mark the ends of the streets, 30, 60 and 90 (not quarters of 10→121, which were 37, 65, 93)."""
    assert street_marks(121) == (30, 60, 90)
    assert street_marks(61) == (30,)
    text = draw_board([TextLane("Ann", 10), TextLane("Ben", 12)], bh.START_SCORE, 121)
    lane = text.splitlines()[2].removeprefix("Ben ")
    columns = {i for i, ch in enumerate(lane) if ch == MARK}
    assert columns == {_column(m, bh.START_SCORE, 121, 31) for m in (30, 60, 90)}
    quarters = {_column(m, bh.START_SCORE, 121, 31) for m in (37, 65, 93)}  # the old marks
    assert columns != quarters
    board = pegs.Board(121, 600)
    assert [board.mark(m) for m in street_marks(121)] == [(r, board.end()) for r in (0, 1, 2)]


# --------------------------------------------------------------------------------------------- the table


def table(players: int, names: tuple[str, ...]) -> tuple[D.View, bytes]:
    view = sample_sheet.fullest(sample_sheet.deluxe_tables(0, players))[-1]
    with speaking(ENGLISH):
        return view, draw(rd.table_scene(view, names[:players]))


def caption_tops(scene: Scene) -> list[int]:
    """The top of each row's caption, in the picture's pixels."""
    y = scene_module.MARGIN - 2 + scene_module.TITLE_H
    tops = []
    for part in scene.parts:
        tops.append(y)
        y += scene_module._size(part)[1] + scene_module.ROW_GAP
    return tops


def light_columns(phone: Image.Image, box: tuple[int, int, int, int]) -> int:
    """Columns of ``box`` with caption-coloured (light) pixels in them."""
    part = phone.crop(box).convert("L").point(lambda v: 255 if v > 170 else 0)
    bbox_cols = [x for x in range(part.width) if part.crop((x, 0, x + 1, part.height)).getbbox()]
    return len(bbox_cols)


@pytest.mark.parametrize("players", [2, 6])
def test_the_table_reads_on_a_phone_with_every_name(players: int) -> None:
    view, data = table(players, NAMES)
    im = full(data)
    scale = PHONE / im.width
    assert scene_module.SMALL * scale >= 34, f"cards {scene_module.SMALL * scale:.0f} px wide on a phone"
    assert scene_module.CAPTION_SIZE * scale >= 9.5, "captions"
    phone = on_phone(im)
    _, swapped = table(players, tuple(reversed(NAMES[:players])))
    other = on_phone(full(swapped))
    with speaking(ENGLISH):
        scene = rd.table_scene(view, NAMES[:players])
    caption_font = scene_module.font(scene_module.CAPTION_SIZE, True)
    for seat, top in enumerate(caption_tops(scene)[:players]):
        start = scene_module.MARGIN + (caption_font.getlength("» ") if view.turn == seat else 0)
        name_w = caption_font.getlength(NAMES[seat])
        box = (
            round(start * scale),
            round(top * scale),
            round((start + name_w) * scale),
            round((top + scene_module.CAPTION_H) * scale),
        )
        assert light_columns(phone, box) >= 0.6 * (box[2] - box[0]), f"no name for seat {seat}"
        # the name itself is there: another name in the seat draws other pixels in that place
        assert ImageChops.difference(phone.crop(box), other.crop(box)).getbbox() is not None, seat


# --------------------------------------------------------------------------------------------- any script


@pytest.mark.parametrize(
    ("name", "drawn"), [("陈伟", ""), ("مريم", ""), ("Chen 🐉", "Chen"), ("Zoë 陈", "Zoë")]
)
def test_names_in_any_script_draw_without_question_marks(name: str, drawn: str) -> None:
    assert clean(name) == drawn and "?" not in clean(name)
    assert all(supported(ch) for ch in clean(name)) and left_out(name)

    def lane(n: str) -> bytes:
        return draw(Scene((Track((Lane(n, 30, 25, 5), Lane("Bo", 40)), 121),)))

    assert lane(name) == lane(drawn), "something more than the drawable part is drawn"
    assert lane(drawn + "?") != lane(drawn), "the comparison would not see a '?'"


def test_the_table_and_the_board_write_the_drawable_part_of_each_name() -> None:
    view = sample_sheet.fullest(sample_sheet.deluxe_tables(0, 3))[-1]
    with speaking(ENGLISH):
        odd = draw(rd.table_scene(view, ("陈伟", "مريم", "Chen 🐉")))
        plain = draw(rd.table_scene(view, ("Player 1", "Player 2", "Chen")))
    assert odd == plain  # a name with nothing drawable is the seat's number, never "?" or blank
    state = board_state()
    with speaking(ENGLISH):
        assert draw(rb.board_scene(state, ("陈伟", "Dee 🐉✨"))) == draw(rb.board_scene(state, ("", "Dee")))
    forest = card("forest")
    assert card_png(forest, "Forest 森林") == card_png(forest, "Forest")
    assert len(PEG_COLOURS) >= 2


def test_run_widths_on_a_phone_are_reported() -> None:
    """The numbers behind the phone checks, in one place (shown with ``pytest -rP``)."""
    _, data6 = table(6, NAMES)
    _, data2 = table(2, NAMES)
    board = draw(rb.board_scene(board_state(), NAMES[:2]))
    for what, data in (("board", board), ("table 6", data6), ("table 2", data2)):
        im = full(data)
        print(what, im.size, "→", on_phone(im).size, f"scale {PHONE / im.width:.2f}")
    track = Track((Lane("Ana", 10), Lane("Bo", 12)), 121)
    found = hole_runs(draw(Scene((track,))), track, scene_module.MARGIN - 2, 0, 3)
    print("holes on a phone (dark px):", statistics.median(found))
    assert found
