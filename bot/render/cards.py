"""``/tavern cards``: the deck for newcomers — every card's rank, suits and what it is worth in each game."""

from __future__ import annotations

import difflib
from functools import partial

from bot import pictures
from bot.base.i18n import ENGLISH, current, t, tn
from bot.base.panel import Panel, Picture
from bot.render import face_name, face_names, strip_article, suits, words
from bot.rules import decktet
from bot.rules.decktet import ALL_CARDS, Card, Rank, Suit
from bot.rules.deluxe_melds import card_points
from bot.rules.errors import UnknownCard


def gallery_words() -> pictures.GalleryWords:
    """Every word the gallery picture draws, in the language in force."""
    middle = [Rank(i) for i in range(2, 10)]
    return pictures.GalleryWords(
        title=t("general.gallery.picture.title"),
        aces=t("general.gallery.picture.aces"),
        middle=t("general.gallery.picture.middle"),
        middle_labels=tuple(
            t("general.gallery.picture.rank-value", mark=pictures.RANK_MARKS[r], value=int(r)) for r in middle
        ),
        pawns_courts=t("general.gallery.picture.pawns-courts"),
        pawns_courts_labels=(t("general.gallery.picture.pawns"), t("general.gallery.picture.courts")),
        crowns_excuse=t("general.gallery.picture.crowns-excuse"),
        suits=tuple(words.suit(s) for s in Suit),
        names=face_names(),
    )


def gallery_panel() -> Panel:
    names = gallery_words()
    return Panel(
        content=t(
            "general.gallery.text",
            legend=suits.legend(),
            command=f"{t('cmd.tavern.name')} {t('cmd.tavern.cards.name')}",
            option=t("cmd.tavern.cards.card"),
        ),
        picture=Picture(
            "decktet.png",
            partial(pictures.gallery, names),
            t("general.gallery.alt"),
            key=("gallery", names),
        ),
    )


def card_panel(c: Card) -> Panel:
    """One card up close, with every fact a player needs about it."""
    suit_words = suits.with_names(c.suits) if c.suits else t("general.card.no-suit")
    title = words.title(c)
    lines = [
        t("general.card.head", title=words.capital(title), rank=words.rank(c.rank), suits=suit_words),
        t("general.card.bhargage", value=c.value),
        (
            tn("general.card.deluxe-worth", card_points(c))
            if c.rank is not Rank.EXCUSE
            else t("general.card.deluxe-none")
        ),
    ]
    if c.personality:
        lines.append(t("general.card.personality"))
    name = face_name(c) if current() != ENGLISH else None
    return Panel(
        content="\n".join(lines),
        picture=Picture("card.png", partial(pictures.card_png, c, name), title, key=("card", c, name)),
    )


def _folded(text: str) -> str:
    return " ".join(text.strip().lower().split())


def _bare(title: str) -> str:
    """A card's name without its article: "the Forest" → "forest", "l'Autore" → "autore"."""
    return strip_article(_folded(title))


PREFIX_LEAST = 3  # the shortest start of a word read as the one card it begins ("sol" for the Soldier)
SEVERAL_MOST = 6  # a start shared by more cards than this (the six Aces) is no answer: the closest names are


def _starting(wanted: str, shown: dict[str, Card]) -> list[Card]:
    """The cards a word of whose name starts with ``wanted`` ("guardiano", "faro", "moons", "sol"): in the
    language in force or in English, from the first word or a later one; none for a start too short."""
    if len(wanted) < PREFIX_LEAST:
        return []
    names = [*shown.items(), *((c.name.lower(), c) for c in ALL_CARDS)]
    found: dict[Card, None] = {}
    for name, c in names:
        parts = name.split()
        if any(" ".join(parts[i:]).startswith(wanted) for i in range(len(parts))):
            found[c] = None
    return list(found)


def find_card(text: str) -> Card:
    """The card a player typed: its name in the language in force ("la Foresta", "foresta"), anything
    ``decktet.card`` reads (the English name, its slug), or the start of a word of one card's name only
    ("guardiano", "sol"); ``UnknownCard`` otherwise, with the cards a start could be or the closest names."""
    wanted = _bare(text)
    shown = {_bare(words.title(c)): c for c in ALL_CARDS}
    if wanted in shown:
        return shown[wanted]
    try:
        return decktet.card(text)
    except UnknownCard as err:  # suggest the names the player reads, the closest in their language first
        starting = _starting(wanted, shown)
        if len(starting) == 1:
            return starting[0]
        if 1 < len(starting) <= SEVERAL_MOST:
            raise UnknownCard(err.text, tuple(words.title(c) for c in starting), several=True) from None
        if current() == ENGLISH:
            raise
        english = {c.title: words.title(c) for c in ALL_CARDS}
        close = [
            words.title(shown[k]) for k in difflib.get_close_matches(wanted, list(shown), n=3, cutoff=0.6)
        ]
        hints = list(dict.fromkeys([*close, *(english.get(s, s) for s in err.suggestions)]))[:3]
        raise UnknownCard(err.text, tuple(hints)) from None


def card_names(current: str) -> list[tuple[str, str]]:
    """Autocomplete: (shown name, value) of the cards whose name — in the language in force, or in English —
    holds ``current``, best first, at most 25. The shown name is in the language in force."""
    needle = _folded(current)
    shown = {c: words.title(c) for c in ALL_CARDS}

    def names(c: Card) -> tuple[str, str]:
        return _bare(shown[c]), c.name.lower()

    found = [c for c in ALL_CARDS if any(needle in n for n in names(c))]
    found.sort(key=lambda c: (not any(n.startswith(needle) for n in names(c)), c.index))
    return [(shown[c], c.slug) for c in found[:25]]
