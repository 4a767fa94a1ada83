"""Pictures for Classic Cribbage: the 52 French faces, the card back, and the scenes a Cribbage game draws
(a hand with picks, the pile with its count, the starter, the crib face down then face up, the peg board to
121 or 61 with two or three lanes). Real PNGs decoded with Pillow: every face distinct, ♠♣ near-black and
♥♦ red, the four suit shapes apart in grey scale, the rank legible at 50 px, and the widths a phone needs."""

from __future__ import annotations

import io
import itertools
import math
from dataclasses import replace

import pytest
from PIL import Image, ImageChops, ImageStat

from bot.pictures import BACK, Lane, PictureError, Row, Scene, Track, back_png, card_png, draw, french, pegs
from bot.pictures import scene as scene_module
from bot.pictures.faces import height
from bot.pictures.faces import known as decktet_known
from bot.pictures.french import FRENCH_COLOURS, RED, face, pip
from bot.pictures.parts import PICK
from bot.rules.decktet import card as decktet_card
from bot.rules.pack52 import FULL_PACK, Card, Suit, cards
from tests.test_pictures_phone import PHONE, hole_runs, seen_holes

MAX_PNG = 150 * 1024
PAPER_L = 240  # grey level of the cream paper: darker than this is ink
HAND = cards("5H 5S JD TC QH AS")
PILE = cards("7D 8C 9H")


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


def on_white(im: Image.Image) -> Image.Image:
    base = Image.new("RGBA", im.size, (255, 255, 255, 255))
    base.alpha_composite(im)
    return base.convert("RGB")


def near(im: Image.Image, colour: tuple[int, int, int], limit: int = 12) -> int:
    """Pixels of an RGB image within ``limit`` of ``colour`` in every channel."""
    r, g, b = ImageChops.difference(im, Image.new("RGB", im.size, colour)).split()
    worst = ImageChops.lighter(ImageChops.lighter(r, g), b)
    return count(worst.point(lambda v: 0 if v > limit else 255))


def symbol_centre(width: int) -> tuple[int, int]:
    """The centre of a face's big suit symbol (the middle of the space under the rank)."""
    h = height(width)
    bottom = 0.86 if width >= french.CORNER_MIN_WIDTH else 0.96
    return width // 2, round(h * (0.36 + bottom) / 2)


def dist(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    return math.dist(a[:3], b[:3])


# --------------------------------------------------------------------------------------------- faces


def test_every_card_has_a_face_and_no_two_faces_are_alike() -> None:
    seen: dict[bytes, Card] = {}
    for c in FULL_PACK:
        im = png(card_png(c))
        assert im.mode == "RGBA" and im.size == (240, 336)
        assert im.getpixel((0, 0))[3] == 0, "rounded corners are transparent"  # type: ignore[index]
        assert im.getpixel((120, 168))[3] == 255  # type: ignore[index]
        assert im.tobytes() not in seen, f"{c} looks like {seen.get(im.tobytes())}"
        seen[im.tobytes()] = c
    for width in (scene_module.LARGE, scene_module.SMALL, 50):
        assert {face(c, width).size for c in FULL_PACK} == {(width, height(width))}
        assert len({face(c, width).tobytes() for c in FULL_PACK}) == 52, width
    assert face(FULL_PACK[0], 96) is face(FULL_PACK[0], 96), "cached per card and width"


def test_the_back_tells_nothing_and_is_no_face() -> None:
    back = png(back_png())
    assert back.size == (240, 336) and back.getpixel((0, 0))[3] == 0  # type: ignore[index]
    assert all(back.tobytes() != png(card_png(c)).tobytes() for c in FULL_PACK[:13])
    assert near(on_white(back), RED) == 0, "no red: a back must not look like a heart or a diamond"
    a = rgb(draw(Scene((Row("Crib", ((BACK,) * 4,)),))))
    shown = rgb(draw(Scene((Row("Crib", (cards("2C 3D KH KS"),)),))))
    assert a.size == shown.size and ImageChops.difference(a, shown).getbbox() is not None


def test_black_suits_are_ink_and_red_suits_red() -> None:
    """♠♣ in the Decktet ink, ♥♦ in its vermilion: the classic two colours, both in the shared palette."""
    assert dist(FRENCH_COLOURS[Suit.SPADES], FRENCH_COLOURS[Suit.HEARTS]) > 150
    assert FRENCH_COLOURS[Suit.SPADES] == FRENCH_COLOURS[Suit.CLUBS]
    assert FRENCH_COLOURS[Suit.HEARTS] == FRENCH_COLOURS[Suit.DIAMONDS]
    x, y = symbol_centre(240)
    for c in FULL_PACK:
        im = on_white(face(c, 240))
        red = c.suit in (Suit.HEARTS, Suit.DIAMONDS)
        assert dist(im.getpixel((x, y)), FRENCH_COLOURS[c.suit]) < 10, c  # type: ignore[arg-type]
        assert (near(im, RED) > 200) == red, c
    # and through a scene's palette: each card's symbol keeps its colour
    hand = rgb(draw(Scene((Row("", (HAND,)),))))
    cx, cy = symbol_centre(scene_module.LARGE)
    for i, c in enumerate(HAND):
        at = (scene_module.MARGIN + i * (scene_module.LARGE + 5) + cx, scene_module.MARGIN - 2 + cy)
        assert dist(hand.getpixel(at), FRENCH_COLOURS[c.suit]) < 16, c  # type: ignore[arg-type]


def grey_symbols(width: int, rank: int) -> dict[Suit, Image.Image]:
    """The symbol part (under the rank and badge) of one rank's four faces, in grey."""
    h = height(width)
    box = (0, round(h * 0.34), width, h)
    return {s: on_white(face(Card(rank, s), width)).convert("L").crop(box) for s in Suit}


def apart(a: Image.Image, b: Image.Image) -> bool:
    """Two grey pictures clearly differ: a mean difference of 4 levels and 40 pixels 60 levels apart."""
    diff = ImageChops.difference(a, b)
    return ImageStat.Stat(diff).mean[0] > 4 and count(diff.point(lambda v: 255 if v > 60 else 0)) >= 40


def test_the_four_suits_differ_in_grey() -> None:
    """Colour-blind players and grey screens: the silhouettes alone tell suits apart (♠ and ♣ share a
    colour, so their shapes must), and so do the symbols of faces 50 px wide seen in grey."""
    shapes = {s: pip(s, 96).getchannel("A").point(lambda a: 255 if a > 128 else 0) for s in Suit}
    for s, shape in shapes.items():
        assert 96 * 96 * 0.3 < count(shape) < 96 * 96 * 0.7, s
    for a, b in itertools.combinations(Suit, 2):
        assert count(ImageChops.difference(shapes[a], shapes[b])) > 96 * 96 * 0.06, (a, b)
    for rank in (1, 7, 10, 13):
        grey = grey_symbols(50, rank)
        for a, b in itertools.combinations(Suit, 2):
            assert apart(grey[a], grey[b]), (rank, a, b)
    # the measure sees no difference where there is none: one suit's symbol on two ranks
    assert not apart(grey_symbols(50, 7)[Suit.CLUBS], grey_symbols(50, 8)[Suit.CLUBS])


def test_the_rank_reads_at_50_px() -> None:
    """The rank mark, top left, is there and differs from every other rank's, at 50 px wide (a phone
    showing a hand of six)."""
    box = (0, 0, 30, 24)
    for suit in Suit:
        marks = []
        for c in (Card(r, suit) for r in range(1, 14)):
            region = on_white(face(c, 50)).convert("L").crop(box)
            ink = count(region.point(lambda v: 255 if v < PAPER_L - 60 else 0))
            assert ink >= 25, (c, ink)
            marks.append(region)
        for (i, a), (j, b) in itertools.combinations(enumerate(marks), 2):
            diff = ImageChops.difference(a, b).point(lambda v: 255 if v > 60 else 0)
            assert count(diff) >= 8, (suit, i + 1, j + 1)


def test_the_badge_shows_the_count_value() -> None:
    """A=1 … 10, and 10 for J, Q and K: the badge of a King is the badge of a Ten, an Ace's is its own."""
    badge = (172, 0, 240, 68)

    def of(code: str) -> Image.Image:
        return on_white(face(cards(code)[0], 240)).crop(badge)

    assert ImageChops.difference(of("KH"), of("TH")).getbbox() is None
    assert ImageChops.difference(of("AH"), of("TH")).getbbox() is not None
    assert [c.value for c in cards("AS 5S TS JS QS KS")] == [1, 5, 10, 10, 10, 10]


# --------------------------------------------------------------------------------------------- scenes


def board(*lanes: Lane, target: int = 121) -> Track:
    return Track(tuple(lanes), target)


def hand_scene(picked: tuple[tuple[int, int], ...] = ((0, 2), (0, 5))) -> Scene:
    """A seat's panel while laying away: six cards, two raised for the crib; the starter and the pile."""
    return Scene(
        (
            Row("Your hand", (HAND,), picked=picked),
            Row("", ((cards("4C")[0],), PILE), labels=("Starter", "Count 24")),
        )
    )


def board_scene(pile: tuple[Card, ...] = PILE, crib: tuple[Card, ...] | None = None) -> Scene:
    crib_row = Row("Crib", (crib or (BACK,) * 4,), small=True)
    return Scene(
        (
            board(Lane("Ann & Cy", 47, 41, 6), Lane("Bo & Dee", 33, 31, 2)),
            Row("Count 24", ((cards("4C")[0],), pile), labels=("Starter", "")),
            crib_row,
        ),
        title="Cribbage · hand 3",
    )


def test_the_scenes_draw_within_budget_and_read_on_a_phone() -> None:
    """A hand of six and a board with the starter and a pile of five stay narrow enough that a large card
    is 50 px wide on a phone; a pile of eight widens the picture but cards stay as readable as the Deluxe
    table's (34 px)."""
    for name, scene in (
        ("hand", hand_scene()),
        ("board", board_scene(cards("7D 8C 9H AH 2S"))),
        ("show", board_scene(crib=cards("2C 3D KH KS"))),
    ):
        data = draw(scene)
        im = png(data)
        assert im.mode in ("P", "RGB") and len(data) <= MAX_PNG, name
        assert im.width <= 700 and im.width > im.height * 0.9, (name, im.size)
        assert scene_module.LARGE * PHONE / im.width >= 49, (name, im.width)
    widest = png(draw(board_scene(cards("AH AS AD AC 2H 2S 2D 2C"))))
    assert widest.width <= 1000 and scene_module.LARGE * PHONE / widest.width >= 34


def test_picked_cards_are_raised_and_outlined() -> None:
    plain = rgb(draw(hand_scene(())))
    picked = rgb(draw(hand_scene()))
    assert picked.height > plain.height
    assert near(picked, PICK, 30) > 300 and near(plain, PICK, 30) == 0


def test_the_crib_shows_face_down_then_face_up() -> None:
    down = rgb(draw(board_scene()))
    up = rgb(draw(board_scene(crib=cards("2C 3D KH KS"))))
    assert down.size == up.size
    box = ImageChops.difference(down, up).getbbox()
    assert box is not None and box[1] > down.height * 0.6, "only the crib's row changes"


def test_decktet_and_french_cards_share_a_row() -> None:
    """A row may mix the packs (the scene code does not care): the Decktet card looks as it does alone."""
    forest = decktet_card("forest")
    mixed = rgb(draw(Scene((Row("", ((forest, cards("5H")[0]),)),))))
    alone = rgb(draw(Scene((Row("", ((forest,),)),))))
    w, h = scene_module.LARGE, height(scene_module.LARGE)
    cell = (
        scene_module.MARGIN,
        scene_module.MARGIN - 2,
        scene_module.MARGIN + w,
        scene_module.MARGIN - 2 + h,
    )
    assert ImageChops.difference(mixed.crop(cell), alone.crop(cell)).getbbox() is None
    assert decktet_known(forest) is forest


# --------------------------------------------------------------------------------------------- the board


@pytest.mark.parametrize(
    ("lanes", "target"),
    [
        ((Lane("Ann", 0), Lane("Bo", 17, 12, 5)), 121),
        ((Lane("Ann", 100, 95, 5), Lane("Bo", 121, 110, 11), Lane("Cy", 61, 58, 3)), 121),
        ((Lane("Ann & Cy", 45, 40, 5), Lane("Bo & Dee", 12)), 61),
    ],
)
def test_a_cribbage_board_keeps_its_holes_on_a_phone(lanes: tuple[Lane, ...], target: int) -> None:
    track = board(*lanes, target=target)
    data = draw(Scene((track,)))
    im = rgb(data)
    assert im.width <= 1000 and im.width > im.height
    b = pegs.Board(target, im.width - 2 * scene_module.MARGIN - pegs.PEG_COLUMN)
    assert b.rows == (4 if target == 121 else 2)
    assert b.hole * PHONE / im.width >= 3.0
    for lane in range(len(lanes)):  # the first street: every hole but where a peg stands shows
        found = hole_runs(data, track, scene_module.MARGIN - 2, lane, b.rows - 1 if target == 61 else 1)
        assert seen_holes(found) or len(found) >= 28, (lane, found)


def test_a_side_is_named_on_its_lane() -> None:
    """Partnerships: one lane per side, named for both partners ("Ann & Cy")."""
    side = rgb(draw(Scene((board(Lane("Ann & Cy", 30), Lane("Bo & Dee", 20)),))))
    one = rgb(draw(Scene((board(Lane("Ann", 30), Lane("Bo & Dee", 20)),))))
    names = (0, 0, side.width // 2, scene_module.MARGIN + pegs.NAME_H)
    assert ImageChops.difference(side.crop(names), one.crop(names)).getbbox() is not None


HOSTILE = (
    "x" * 300,
    "مريم الحسيني",  # right to left: no shipped font has it
    "\u202eevil\u202c",
    "🐉🔥 Dragon & 👑",
    "Zoë ﷽ " + "W" * 80,
    "a\u200db\u0301\x00\n",
    "",
)


@pytest.mark.parametrize("target", [121, 61])
def test_hostile_names_on_lanes_draw(target: int) -> None:
    for a, b, c in itertools.combinations(HOSTILE, 3):
        im = png(draw(Scene((board(Lane(a, 5), Lane(b, 9, 3, 6), Lane(c, target), target=target),))))
        assert im.width <= 1000
    rtl = draw(Scene((board(Lane("مريم", 5), Lane("Bo", 9), target=target),)))
    assert rtl != draw(Scene((board(Lane("", 5), Lane("Bo", 9), target=target),)))  # drawn, shaped


# --------------------------------------------------------------------------------------------- bad input


def test_a_card_not_of_the_pack_raises_picture_error() -> None:
    forged = replace(FULL_PACK[0])
    object.__setattr__(forged, "rank", 14)
    unhashable = replace(FULL_PACK[1])
    object.__setattr__(unhashable, "suit", ["S"])
    with pytest.raises(PictureError, match="52 cards"):
        draw(Scene((Row("", ((forged,),)),)))
    with pytest.raises(PictureError, match="tuples"):  # the scene's own check: it must hash
        draw(Scene((Row("", ((unhashable,),)),)))
    for bad in (forged, unhashable):
        with pytest.raises(PictureError, match="52 cards"):
            card_png(bad)
    with pytest.raises(PictureError, match="unknown card"):
        draw(Scene((Row("", (("5H",),)),)))  # type: ignore[arg-type]
    with pytest.raises(PictureError, match="width"):
        french.face_png(FULL_PACK[0], 5000)
