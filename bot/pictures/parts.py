"""What a picture is made of: the parts of a scene (rows of cards, peg boards), the gallery's words, and the
checks every scene passes before it is drawn. Plain values only — drawing them is :mod:`bot.pictures.scene`'s
work — so the render code builds them, and hands the pictures every word they draw, with no Pillow in sight.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.pictures import french
from bot.pictures.errors import PictureError
from bot.pictures.faces import RANK_MARKS, Worth
from bot.pictures.french import AnyCard
from bot.rules.decktet import Rank, Suit

RGB = tuple[int, int, int]

# The felt is opaque and dark green, so a picture reads the same in Discord's dark and light themes.
FELT: RGB = (30, 82, 55)
FELT_EDGE: RGB = (18, 56, 37)
FELT_LINE: RGB = (60, 122, 86)
LIGHT: RGB = (240, 234, 214)
SOFT: RGB = (206, 222, 200)
PICK: RGB = (255, 212, 60)

# One colour per lane of a peg board, so a board has at most six lanes.
PEG_COLOURS: tuple[RGB, ...] = (
    (255, 122, 92),
    (110, 190, 255),
    (255, 220, 80),
    (205, 150, 255),
    (140, 235, 150),
    (255, 160, 215),
)


@dataclass(frozen=True, slots=True)
class Row:
    """One line of a scene: a caption, then groups of cards side by side (a hand; a pile; one player's melds,
    each a group). A card is a Decktet card, a French one (Cribbage) or ``french.BACK`` (face down)."""

    caption: str = ""
    groups: tuple[tuple[AnyCard, ...], ...] = ()
    picked: tuple[tuple[int, int], ...] = ()  # (group, position) of cards raised and outlined
    labels: tuple[str, ...] = ()  # small text under each group, in the order of groups
    suits: tuple[Suit, ...] = ()  # suit symbols drawn right after the caption
    small: bool = False  # smaller cards (melds on a table, the pile)
    per_line: int = 0  # at most this many cards a line (a hand drawn for a phone); 0: as many as fit


@dataclass(frozen=True, slots=True)
class Lane:
    """One player's line on a peg board."""

    name: str
    front: int  # the score (front peg)
    back: int | None = None  # the back peg (score before the last scoring), None if not yet
    gained: int | None = None  # points of the last peg, shown as "+4" near the front peg


@dataclass(frozen=True, slots=True)
class Track:
    """A cribbage-style peg board: one lane per player, holes in groups of five from 0 to target, a finish
    hole."""

    lanes: tuple[Lane, ...]
    target: int


STREET = 30  # holes in one street of a cribbage board: a 121 board is four streets of 30 and the game hole


def street_marks(target: int) -> tuple[int, ...]:
    """The holes that end a street before the last one, where a board is marked: 30, 60 and 90 on the 121
    board Bhargage is played on (rules R3: "won at 121 on a cribbage board"), 30 on a 61 board. The picture's
    board and the text board (``bot.render.board``) both mark these."""
    return tuple(range(STREET, target - 1, STREET))


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything in one picture, top to bottom; hashable, so drawing is cached on it."""

    parts: tuple[Row | Track, ...]
    title: str = ""
    worth: Worth = "count"  # the badge: Bhargage's count value, or Bharg Deluxe's points ("suits")
    # the names written on the faces, one per card in deck order, in the reader's language (filled by
    # ``bot.render.picture``); empty: each card's English name
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Legend:
    """The six suit symbols with their names (the gallery's last line), in suit order."""

    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GalleryWords:
    """Every word the gallery draws, built by the render code in the reader's language
    (``bot.render.cards.gallery_words``): the pictures never look text up themselves."""

    title: str  # "The Decktet · 45 cards"
    aces: str  # "Aces · value 1"
    middle: str  # "Ranks 2 to 9 · value = rank"
    middle_labels: tuple[str, ...]  # one per rank 2–9: "2 · value 2"
    pawns_courts: str  # "Pawns (P) and Courts (Ct) · value 0"
    pawns_courts_labels: tuple[str, str]  # ("Pawns", "Courts")
    crowns_excuse: str  # "Crowns (Cr) · value 10   ·   the Excuse (X) · value 0"
    suits: tuple[str, ...]  # the six suit names, in suit order
    names: tuple[str, ...] = ()  # the names on the faces, as ``Scene.names``


# The gallery's words in English, as ``bot.render.cards.gallery_words`` makes them (a test keeps the two
# equal): the gallery drawn when no words are given (the reference pictures), and the text of the sheet whose
# colours make the palette every picture is mapped onto (``scene.palette``).
ENGLISH_GALLERY = GalleryWords(
    title="The Decktet · 45 cards",  # i18n: not text
    aces="Aces · value 1",
    middle="Ranks 2 to 9 · value = rank",
    middle_labels=tuple(f"{RANK_MARKS[Rank(i)]} · value {i}" for i in range(2, 10)),
    pawns_courts="Pawns (P) and Courts (Ct) · value 0",  # i18n: not text
    pawns_courts_labels=("Pawns", "Courts"),
    crowns_excuse="Crowns (Cr) · value 10   ·   the Excuse (X) · value 0",  # i18n: not text
    suits=("Moons", "Suns", "Waves", "Leaves", "Wyrms", "Knots"),
)


# --------------------------------------------------------------------------------------------- checking


def _check_row(row: Row, where: str) -> None:
    if not isinstance(row.caption, str):
        raise PictureError(f"{where}: caption {row.caption!r} is not text")
    if not isinstance(row.groups, tuple) or not all(isinstance(g, tuple) for g in row.groups):
        raise PictureError(f"{where}: groups must be a tuple of tuples of cards, not {row.groups!r}")
    for g, group in enumerate(row.groups):
        for c in group:
            try:
                french.known_any(c)
            except PictureError as e:
                raise PictureError(f"{where}, group {g}: {e}") from None
    for pick in row.picked:
        ok = isinstance(pick, tuple) and len(pick) == 2 and all(isinstance(i, int) for i in pick)
        if not ok or not (0 <= pick[0] < len(row.groups) and 0 <= pick[1] < len(row.groups[pick[0]])):
            raise PictureError(f"{where}: picked {pick!r} is not a (group, position) of a card in the row")
    if len(row.labels) > len(row.groups) or not all(isinstance(s, str) for s in row.labels):
        raise PictureError(f"{where}: labels {row.labels!r} must be text, at most one per group")
    if not all(isinstance(s, Suit) for s in row.suits):
        raise PictureError(f"{where}: suits {row.suits!r} must be Suit values")
    if not _is_count(row.per_line) or row.per_line > 12:
        raise PictureError(f"{where}: per_line {row.per_line!r} is not a whole number from 0 to 12")


def _is_count(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= 0


def _check_track(track: Track, where: str) -> None:
    if not isinstance(track.target, int) or not 5 <= track.target <= 250:
        raise PictureError(f"{where}: target {track.target!r} is not a whole number from 5 to 250")
    if not isinstance(track.lanes, tuple) or not 1 <= len(track.lanes) <= len(PEG_COLOURS):
        raise PictureError(f"{where}: a Track needs 1 to {len(PEG_COLOURS)} lanes, got {track.lanes!r}")
    for i, lane in enumerate(track.lanes):
        if not isinstance(lane, Lane) or not isinstance(lane.name, str):
            raise PictureError(f"{where}, lane {i}: {lane!r} is not a Lane with a name")
        if not _is_count(lane.front) or not (lane.back is None or _is_count(lane.back)):
            raise PictureError(f"{where}, lane {i}: scores must be whole numbers ≥ 0 ({lane!r})")
        if lane.gained is not None and (not isinstance(lane.gained, int) or isinstance(lane.gained, bool)):
            raise PictureError(f"{where}, lane {i}: gained {lane.gained!r} is not a whole number")


def check(scene: object) -> Scene:
    """The scene itself if every part of it can be drawn; ``PictureError`` saying what is wrong otherwise."""
    if not isinstance(scene, Scene) or not isinstance(scene.parts, tuple) or not isinstance(scene.title, str):
        raise PictureError(f"not a Scene with a tuple of parts and a text title: {scene!r}")
    if not scene.parts and not scene.title:
        raise PictureError("an empty scene: no parts and no title")
    if scene.worth not in ("count", "suits"):
        raise PictureError(f"a card's worth is shown as 'count' or 'suits', not {scene.worth!r}")
    if not isinstance(scene.names, tuple) or not all(isinstance(n, str) for n in scene.names):
        raise PictureError(f"a scene's card names must be a tuple of text, not {scene.names!r}")
    for i, part in enumerate(scene.parts):
        if isinstance(part, Row):
            _check_row(part, f"part {i} (Row {part.caption!r})")
        elif isinstance(part, Track):
            _check_track(part, f"part {i} (Track)")
        else:
            raise PictureError(f"part {i} is neither a Row nor a Track: {part!r}")
    return scene


def felt_card(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A card's ground (the profile's, the standings'): the tables' felt, its edge and a line inside it."""
    im = Image.new("RGB", (width, height), FELT)
    d = ImageDraw.Draw(im)
    d.rectangle((0, 0, width - 1, height - 1), outline=FELT_EDGE, width=3)
    d.rounded_rectangle((6, 6, width - 7, height - 7), radius=10, outline=FELT_LINE, width=1)
    return im, d
