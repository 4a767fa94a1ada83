"""Pictures of cards, hands, tables and peg boards, drawn in code with Pillow for Discord attachments.

Pure: Pillow and the card definitions only, no Discord. Everything a game adapter needs is here:
``draw(Scene(...))`` for a message picture, ``card_png`` and ``gallery`` for reference pictures, ``suit_icon``
for the application emojis. Any input the renderer cannot draw raises ``PictureError``; the caller then sends
text. Rank marks and face layout: see ``bot.pictures.faces``; suit symbols: ``bot.pictures.suits``. Rows may
hold cards of the 52-card pack too (Classic Cribbage: ``bot.pictures.french``) and ``BACK``, a card face down.
Names are drawn in any script the shipped fonts cover (Latin, Greek, Cyrillic, Hebrew, Arabic, Chinese,
Japanese, Korean, emoji: ``bot.pictures.text``); ``drawable`` says whether a name is drawn whole (else the
render code writes the seat's number), ``isolate`` sets a name apart in its own direction inside a caption.
"""

from __future__ import annotations

from bot.pictures import french
from bot.pictures.bidi import isolate
from bot.pictures.errors import PictureError
from bot.pictures.faces import RANK_MARKS, face_png, known
from bot.pictures.french import BACK, FaceDown
from bot.pictures.parts import GalleryWords, Lane, Row, Scene, Track, street_marks
from bot.pictures.scene import draw, gallery, warm
from bot.pictures.suits import SUIT_COLOURS, icon_png
from bot.pictures.text import drawable
from bot.rules import pack52
from bot.rules.decktet import Card, Suit

__all__ = [
    "BACK",
    "RANK_MARKS",
    "SUIT_COLOURS",
    "FaceDown",
    "GalleryWords",
    "Lane",
    "PictureError",
    "Row",
    "Scene",
    "Track",
    "back_png",
    "card_png",
    "draw",
    "drawable",
    "gallery",
    "isolate",
    "street_marks",
    "suit_icon",
    "warm",
]

CARD_PNG_WIDTH = 240


def card_png(card: Card | pack52.Card, name: str | None = None) -> bytes:
    """One large face (240 px wide, transparent corners), e.g. for "show me this card"; ``name`` is the name
    written on a Decktet card in the reader's language (``bot.render.face_name``); a French card has none."""
    if name is not None and not isinstance(name, str):
        raise PictureError(f"a card's name must be text, not {name!r}")
    if isinstance(card, pack52.Card):
        return french.face_png(card, CARD_PNG_WIDTH)
    return face_png(known(card), CARD_PNG_WIDTH, name)


def back_png() -> bytes:
    """A card face down, as large as ``card_png``'s faces."""
    return french.back_png(CARD_PNG_WIDTH)


def suit_icon(suit: Suit, size: int = 128) -> bytes:
    """The suit symbol alone on a transparent square, PNG: the source of a Discord application emoji."""
    if not isinstance(suit, Suit):
        raise PictureError(f"unknown suit {suit!r}")
    if not isinstance(size, int) or not 16 <= size <= 512:
        raise PictureError(f"icon size {size!r} is not a whole number from 16 to 512")
    return icon_png(suit, size)
