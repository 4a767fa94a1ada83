"""A tournament's standings picture: a real PNG a phone reads (900 px wide, a row a player), hostile and
long names fitted rather than drawn as boxes or spilling into the numbers, a knockout's rounds as lines, and
whatever is not a card refused."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.pictures import standings as pic
from bot.pictures.errors import PictureError

HEAD = ("#", "Player", "Points", "Buchholz", "Spread")


def png(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    assert im.format == "PNG"
    rgb = im.convert("RGB")
    assert len(rgb.getcolors(1 << 16) or ()) > 8, "a blank picture"
    return rgb


def rows(n: int) -> tuple[pic.Row, ...]:
    return tuple(
        (str(i), f"player {i}", str(20 - i), str(40 - i), f"{30 - 3 * i:+d}") for i in range(1, n + 1)
    )


def test_a_row_a_player_in_a_picture_a_phone_reads() -> None:
    small = png(
        pic.draw(pic.StandingsCard("Spring Swiss 2026", "Bhargage · Swiss · round 4 of 4", HEAD, rows(4)))
    )
    large = png(pic.draw(pic.StandingsCard("Spring Swiss 2026", "Bhargage · Swiss", HEAD, rows(12))))
    assert small.width == large.width == pic.WIDTH
    assert large.height - small.height == 8 * pic.ROW_H, "each player's row as tall as the others"


def test_names_are_fitted_and_numbers_keep_their_column() -> None:
    hostile = "<@&1> ‮evil‭ " + "W" * 80 + " 🂡 \u200b"
    card = pic.StandingsCard("Cup", "", HEAD, (("1", hostile, "6", "12", "+45"),))
    im = png(pic.draw(card))
    plain = png(pic.draw(pic.StandingsCard("Cup", "", HEAD, (("1", "", "6", "12", "+45"),))))
    numbers = (pic.NAME_END + 4, pic.MARGIN + pic.TITLE_H, pic.WIDTH, im.height)
    assert im.crop(numbers).tobytes() == plain.crop(numbers).tobytes(), (
        "the long name stops before the numbers"
    )


def test_a_knockout_draws_its_rounds_as_lines() -> None:
    card = pic.StandingsCard(
        "Cup", "Cribbage · knockout", HEAD, (), ("Round 1: ann – bob: ann", "Round 2: …")
    )
    im = png(pic.draw(card))
    assert im.height == pic._height(card)


@pytest.mark.parametrize(
    "bad",
    [
        "not a card",
        pic.StandingsCard("Cup", "", HEAD, (("1", "ann", "6", "12"),)),  # type: ignore[arg-type]
        pic.StandingsCard("Cup", "", HEAD, rows(pic.MAX_ROWS + 1)),
        pic.StandingsCard("Cup", "", HEAD, (), tuple("x" for _ in range(pic.MAX_LINES + 1))),
        pic.StandingsCard("Cup", "", HEAD, (("1", "ann", 6, "12", "+1"),)),  # type: ignore[arg-type]
    ],
)
def test_what_is_no_card_is_refused(bad: object) -> None:
    with pytest.raises(PictureError):
        pic.check(bad)
