"""The pictures as a phone shows them: Discord scales a picture to the screen's width, about 360 px. Real
PNGs of the Bhargage board and the Bharg Deluxe table (2 and 6 players) are scaled to 360 px wide and
measured: holes and pegs big enough to see, cards and names big enough to read, every player's name on
the table. A name with a character no shipped font has is the seat's number, never drawn as "?"; the Deluxe
hand five cards a line, the numbers over the board's streets, the Cribbage show's caption wrapped and the
Bhargage show's shortages are measured too (issue 46, item 8)."""

from __future__ import annotations

import io
import statistics

import pytest
from PIL import Image, ImageChops

from bench import sample_sheet
from bot.base.i18n import ENGLISH, speaking
from bot.pictures import Lane, Scene, Track, card_png, draw, pegs, street_marks
from bot.pictures import scene as scene_module
from bot.pictures.parts import PEG_COLOURS, Row
from bot.pictures.text import ELLIPSIS, clean, drawable, left_out
from bot.render import bhargage_scenes as rb
from bot.render import cribbage_scenes as rc
from bot.render import deluxe_scenes as rs
from bot.render.board import MARK, _column, draw_board
from bot.render.board import Lane as TextLane
from bot.rules import bhargage as bh
from bot.rules import deluxe as D
from bot.rules.decktet import ALL_CARDS, card

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
    kind = pegs.type_for(im.width - 2 * scene_module.MARGIN)
    band = kind.band_head + pegs.HOLE_ROW * len(track.lanes)
    y = top + kind.name_h * ((len(track.lanes) + 1) // 2) + row * band + kind.band_head
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
    kind = pegs.type_for(width - 2 * scene_module.MARGIN)
    assert kind.name * scale >= 9.5 and kind.score * scale >= 10.5, "names and scores"
    assert kind.number * scale >= 9.0, f"the numbers over the streets are {kind.number * scale:.1f} px"
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
        return view, draw(rs.table_scene(view, names[:players]))


def caption_tops(scene: Scene) -> list[int]:
    """The top of each row's caption, in the picture's pixels."""
    y = scene_module.MARGIN - 2 + scene_module.TITLE_H
    tops = []
    for _, height in scene_module._sizes(scene.parts, scene.title)[1]:
        tops.append(y)
        y += height + scene_module.ROW_GAP
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
        scene = rs.table_scene(view, NAMES[:players])
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


# --------------------------------------------------------------------------------------------- phone-first


def test_the_numbers_over_the_streets_read_on_a_phone_however_wide_the_board() -> None:
    """Issue 46, item 8: the numbers over each street were 13 px, about 5 px on a phone once cards widened the
    picture. They grow with the board: 9 px or more on a phone, measured as drawn (the ink of "30")."""
    for pile in (0, 8):
        scene = Scene((Track((Lane("Ana", 10), Lane("Bo", 12)), 121), rb_row(pile)))
        im = full(draw(scene))
        kind = pegs.type_for(im.width - 2 * scene_module.MARGIN)
        assert kind.number * PHONE / im.width >= 9.0, (pile, im.width, kind.number)
        digits = pegs.font(kind.number, True).getbbox("30")
        assert (digits[3] - digits[1]) * PHONE / im.width >= 6.5, "the digits' height on a phone"


def rb_row(n: int) -> Row:
    """The up-card and a pile of ``n`` cards: what widens a Bhargage board."""
    cards = ALL_CARDS[: n + 1]
    return Row(
        "", ((cards[0],), cards[1:]) if n else ((cards[0],),), labels=("Up-card", "Count 23")[: 2 if n else 1]
    )


def test_a_deluxe_hand_is_five_cards_a_line_for_a_phone() -> None:
    """Issue 46, item 8: nine cards a line made each about 36 px wide on a phone; five a line, 64 px."""
    hand = D.view(D.start(0, 6)[0], 0).hand
    assert len(hand) == 10
    with speaking(ENGLISH):
        im = full(draw(rs.hand_scene(hand)))
    card_on_phone = scene_module.LARGE * PHONE / im.width
    assert card_on_phone >= 60, f"cards {card_on_phone:.0f} px wide on a phone"
    assert im.height > im.width / 2, "two lines of five"


def test_a_long_cribbage_show_caption_wraps_whole() -> None:
    """Issue 46, item 8: the caption was cut ("…a run of 3 for 12 and a ru…"); now it wraps, every word of
    it drawn, within the picture's width."""
    longest = ("", None)
    for _, events in sample_sheet.cribbage_game(1):
        with speaking(ENGLISH):
            sc = rc.show_scene(events, ("Ana", "Bértrand le Magnifique", "Cy"))
        for part in sc.parts if sc else ():
            if isinstance(part, Row) and len(part.caption) > len(longest[0]):
                longest = (part.caption, sc)
    caption, scene = longest
    assert scene is not None and len(caption) > 60, caption
    lines = scene_module.caption_lines(
        next(p for p in scene.parts if isinstance(p, Row) and p.caption == caption),
        scene_module.wrap_width(scene.parts),
    )
    assert " ".join(lines) == caption and ELLIPSIS not in "".join(lines)
    im = full(draw(scene))
    assert all(
        scene_module.length(x, scene_module.font(scene_module.CAPTION_SIZE, True))
        <= im.width - 2 * scene_module.MARGIN
        for x in lines
    )
    assert scene_module.CAPTION_SIZE * PHONE / im.width >= 9.0, "captions on a phone"


def test_the_bhargage_show_picture_draws_the_shortages() -> None:
    """Issue 46, item 8: the text gave "Shortage in Ben's hand: 3 for Ann (25) — missing ☀ 🌊"; the picture
    now has a line for each shortage claimed, with the missing suits' symbols."""
    shown = 0
    for _, events in sample_sheet.bhargage_game(0):
        claims = [e for e in events if isinstance(e, bh.ShortageClaimed) and e.points]
        with speaking(ENGLISH):
            sc = rb.show_scene(events, ("Ana", "Bo"))
        if sc is None:
            continue
        rows = [p for p in sc.parts if isinstance(p, Row) and p.caption.startswith("Shortage")]
        assert [r.suits for r in rows] == [c.missing for c in claims]
        for r, c in zip(rows, claims, strict=True):
            assert f"{c.points} for" in r.caption and f"({c.total_after})" in r.caption
        shown += len(rows)
        draw(sc)
    assert shown > 5


# --------------------------------------------------------------------------------------------- any script


def test_a_name_no_font_can_draw_is_the_seat_number_never_a_question_mark() -> None:
    name = "𓀀𓀁"  # Egyptian hieroglyphs: no shipped font has them
    assert clean(name) == "" and left_out(name) == name and not drawable(name)
    with speaking(ENGLISH):
        odd = draw(rb.board_scene(board_state(), (name, "Bo")))
        assert odd == draw(rb.board_scene(board_state(), ("Player 1", "Bo")))


def test_the_table_and_the_board_write_every_script() -> None:
    view = sample_sheet.fullest(sample_sheet.deluxe_tables(0, 3))[-1]
    with speaking(ENGLISH):
        odd = draw(rs.table_scene(view, ("陈伟", "مريم", "Ana 𓀀")))
        plain = draw(rs.table_scene(view, ("Player 1", "Player 2", "Player 3")))
    assert odd != plain  # Chinese and Arabic are drawn; the name with a hieroglyph is "Player 3"
    forest = card("forest")
    assert card_png(forest, "Forest 森林") != card_png(forest, "Forest")
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
