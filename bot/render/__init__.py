"""What the players see, built from engine events and views with no Discord objects (so it is easy to
test): message text, and the scenes :mod:`bot.pictures` draws beside it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import cache, partial

from bot import pictures
from bot.base.i18n import ENGLISH, current, speaking, t
from bot.base.panel import Picture
from bot.render import words
from bot.rules.decktet import ALL_CARDS, Card

_ARTICLE = re.compile(r"^(?:the|il|lo|la|i|gli|le)\s+|^l['’]\s*", re.IGNORECASE)


def strip_article(text: str) -> str:
    """A card's name without its article: "the Forest" → "Forest", "l'Autore" → "Autore"."""
    return _ARTICLE.sub("", text, count=1)


def face_name(card: Card) -> str:
    """The name written on a card's face in the language in force: its title without the article
    ("Forest", "Foresta", "Ace of Moons", "Asso di Lune")."""
    return words.capital(strip_article(words.title(card)))


def face_names() -> tuple[str, ...]:
    """Every face's name in deck order for a scene, in the language in force; empty in English (the faces
    then write the cards' own names, and the drawings cached for English stay shared)."""
    language = current()
    return () if language == ENGLISH else _face_names(language)


@cache
def _face_names(language: str) -> tuple[str, ...]:
    """Made once per language (every picture of every panel asks; the catalogs do not change)."""
    with speaking(language):
        return tuple(face_name(c) for c in ALL_CARDS)


def picture(filename: str, scene: pictures.Scene, alt: str) -> Picture:
    """A scene to draw when its message goes out, its cards' names in the language in force; the scene is
    the picture's key (the same scene is drawn once, and not uploaded again where it shows already)."""
    if not scene.names:
        scene = replace(scene, names=face_names())
    return Picture(filename, partial(pictures.draw, scene), alt, key=scene)


def picture_names(names: Sequence[str]) -> tuple[str, ...]:
    """Each seat's name as a picture writes it: whole, reading in its own direction inside any caption
    ("مريم's hand"), or "Player 2" when no shipped font has one of its characters (never a part of it)."""
    return tuple(
        pictures.isolate(n if pictures.drawable(n) else t("general.picture.player", number=i + 1))
        for i, n in enumerate(names)
    )
