"""The card pictures of the web pages, one file per card (``/c/<lang>/<name>``), and the words beside them.

A page shows a scene's cards as ``<img>`` tags rather than one drawn picture: each face is fetched once and
cached by the browser, the cards wrap on a narrow phone, and every card carries its own alt text. A name is
parsed strictly, so only the finite set of faces can ever be drawn (a few hundred, cached here once each):

* ``d<index>.png`` a Decktet card (index into ``ALL_CARDS``) with Bhargage's count in its badge,
* ``s<index>.png`` the same face with Bharg Deluxe's points (one per suit) in its badge,
* ``f<code>.png`` a card of the French pack as the cribbage engine writes it (``5H``, ``TC``),
* ``back.png`` a card face down,
* ``u<index>.png`` a suit's symbol (index into ``Suit``), as the bot draws it on its cards and in Discord
  (a page never needs a colour-emoji font for the suits).

A Decktet face writes the card's name in the page's language (Italian or English); a French face, the
back and a suit have no words, so they are the same in every language.
"""

from __future__ import annotations

import io
import re
from functools import cache

from PIL import Image

from bot.base.i18n import ENGLISH, LANGUAGES, speaking, t
from bot.pictures import FaceDown, faces, french
from bot.pictures import suits as symbols
from bot.pictures.faces import Worth
from bot.render import cribbage_words as cw
from bot.render import face_name, face_names, words
from bot.render.lists import word_list
from bot.rules import pack52
from bot.rules.decktet import ALL_CARDS, Card, Rank, Suit

AnyCard = Card | pack52.Card | FaceDown

WIDTH = 128  # pixels: twice the 64 CSS px a large card is shown at, so a phone's screen draws it sharp
_NAME = re.compile(
    r"(?:(?P<kind>[ds])(?P<index>0|[1-9][0-9]?)|f(?P<code>[A2-9TJQK][SHDC])|u(?P<suit>[0-5])|back)\.png",
    re.ASCII,
)
SUITS = tuple(Suit)
SUIT_PX = 48  # pixels of a suit's symbol: twice the 24 CSS px it is shown at, at most
_BADGE: dict[str, Worth] = {"d": "count", "s": "suits"}  # i18n: not text
_CODES = {c.code: c for c in pack52.FULL_PACK}


def card_file(card: AnyCard, worth: Worth = "count") -> str:
    """The file name a page asks for to show ``card`` (``worth``: which game's value its badge shows)."""
    if isinstance(card, FaceDown):
        return "back.png"  # i18n: not text
    if isinstance(card, pack52.Card):
        return f"f{card.code}.png"
    return f"{'s' if worth == 'suits' else 'd'}{card.index}.png"


def suit_file(suit: Suit) -> str:
    """The file name a page asks for to show ``suit``'s symbol."""
    return f"u{SUITS.index(suit)}.png"


def card_words(card: AnyCard) -> str:
    """A card's alt text in the language in force: "Forest (5; Moons and Leaves)", "Five of hearts",
    "face down"."""
    if isinstance(card, FaceDown):
        return t("web.card.down")
    if isinstance(card, pack52.Card):
        return words.capital(cw.name(card))
    name = face_name(card)
    if card.rank in (Rank.ACE, Rank.EXCUSE):
        return name  # "Ace of Moons", "Excuse": the rank and suit are in the name
    suits = word_list([words.suit(s) for s in card.suits])
    return t("web.card.decktet", name=name, rank=words.rank(card.rank), suits=suits)


def card_png(name: str, lang: str) -> bytes | None:
    """The PNG for the path part after ``/c/<lang>/`` (``"d12.png"``, ``"f5H.png"``, ``"back.png"``); None
    for anything that is not exactly one of the cards, or a language the bot does not speak."""
    if not isinstance(name, str) or not isinstance(lang, str) or lang not in LANGUAGES or len(name) > 12:
        return None
    found = _NAME.fullmatch(name)
    if found is None:
        return None
    if found["kind"]:
        index = int(found["index"])
        if index >= len(ALL_CARDS):
            return None
        return _decktet(index, _BADGE[found["kind"]], lang)
    if found["code"]:
        return _french(found["code"])
    if found["suit"]:
        return _suit(int(found["suit"]))
    return _back()


# The faces are drawn by the pictures' own functions, past their caches of drawn images (``__wrapped__``):
# this module keeps each face once, as the small PNG it sends.


@cache
def _decktet(index: int, worth: Worth, lang: str) -> bytes:
    """One Decktet face with its name in ``lang`` (the English name is the card's own: no name given)."""
    card = ALL_CARDS[index]
    name: str | None = None
    if lang != ENGLISH:
        with speaking(lang):
            names = face_names()
        name = names[index] if index < len(names) else None
    return _png(faces.face.__wrapped__(card, WIDTH, worth, name))


@cache
def _french(code: str) -> bytes:
    return _png(french._face.__wrapped__(_CODES[code], WIDTH))


@cache
def _back() -> bytes:
    return _png(french.back.__wrapped__(WIDTH))  # alike for every card: it tells nothing


@cache
def _suit(index: int) -> bytes:
    """A suit's symbol with the cream halo of the bot's Discord emoji: it reads on the felt too."""
    return symbols.icon_png(SUITS[index], SUIT_PX)


def _png(image: Image.Image) -> bytes:
    """128 colours are plenty for a face (paper, ink, a few suit colours, their edges): about 3.5 KB a card
    where full RGBA is 16 KB, no difference to see."""
    buf = io.BytesIO()
    image.quantize(colors=128, method=Image.Quantize.FASTOCTREE).save(buf, "PNG", optimize=True)
    return buf.getvalue()
