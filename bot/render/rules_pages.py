"""The full rules as pages a phone can read, for ``/<game> rules`` (no Discord here).

Each game's rules are a few pages, each one embed's description: page 1 is the short overview (Bhargage's
and Deluxe's the same text as their short rules, ``bhargage.rules.summary`` and ``deluxe.rules-help``;
Classic Cribbage's ``rules.cribbage.overview``), then the rules in detail, the worked examples of
docs/rules-*.md (from the original rule texts) and a glossary. The pages are complete by themselves: where
the operator publishes docs/ (``TAVERN_RULES_URL``) a last small line links it, and without it nothing
points outside Discord. The text is in the catalogs (``bot/locales/*/rules.po`` and ``cribbage_rules.po``),
looked up when shown, in the reader's language; ``bot.edge.rules_book`` puts the pages in a message with
buttons that turn them.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.base.i18n import Msg, t
from bot.render import deluxe as dx_render

PAGE_LIMIT = 4096  # an embed description's most characters
PHONE_PAGE = 1800  # what a page aims at, so it reads on a phone without endless scrolling


def _deluxe_overview() -> str:
    """Bharg Deluxe's short rules as one line per paragraph (the catalog text is wrapped for a terminal)."""
    body = dx_render.rules_body().strip()
    return "\n".join(p.replace("\n", " ") for p in body.split("\n\n"))


# Each game's page 1: its overview.
_OVERVIEWS: dict[str, Callable[[], str]] = {
    "bhargage": lambda: t("bhargage.rules.summary"),
    "deluxe": _deluxe_overview,
    "cribbage": lambda: t("rules.cribbage.overview"),
}

# Page 2 onwards of each game; page 1 is its overview (above).
_PAGES: dict[str, tuple[Msg, ...]] = {
    "bhargage": (
        Msg("rules.bhargage.play"),
        Msg("rules.bhargage.show"),
        Msg("rules.bhargage.examples-play"),
        Msg("rules.bhargage.examples-chief"),
        Msg("rules.bhargage.glossary"),
    ),
    "deluxe": (
        Msg("rules.deluxe.cards"),
        Msg("rules.deluxe.turn"),
        Msg("rules.deluxe.end"),
        Msg("rules.deluxe.examples"),
        Msg("rules.deluxe.glossary"),
    ),
    "cribbage": (
        Msg("rules.cribbage.hand"),
        Msg("rules.cribbage.play"),
        Msg("rules.cribbage.show"),
        Msg("rules.cribbage.examples"),
        Msg("rules.cribbage.tables"),
        Msg("rules.cribbage.glossary"),
    ),
}

GAMES = tuple(_PAGES)  # the games that have rules pages (a plugin game keeps its short rules)


def count(game: str) -> int:
    """How many pages ``game``'s rules have (0 for a game without pages)."""
    return len(_PAGES[game]) + 1 if game in _PAGES else 0


def glossary_page(game: str) -> int:
    """The number of ``game``'s glossary page: its last."""
    return count(game)


def body(game: str, page: int) -> str:
    """Page ``page`` (1-based) of ``game``'s rules, without any link; ``ValueError`` for a page it lacks."""
    if not 1 <= page <= count(game):
        raise ValueError(f"{game!r} has no rules page {page}")
    if page == 1:
        return _OVERVIEWS[game]()
    return str(_PAGES[game][page - 2])


def page_text(game: str, page: int, link: str | None = None) -> str:
    """What page ``page`` shows: its text, and a last small line with ``link`` (the published full rules)
    when the operator set one. Never longer than an embed's description."""
    text = body(game, page)
    if link:
        text += "\n" + t("rules.full-link", link=link)
    return text[:PAGE_LIMIT]


def title(game_title: str, page: int, pages: int) -> str:
    """The page's title: the game's name and where the reader is ("Bhargage · page 2/6")."""
    return t("rules.page-title", game=game_title, page=page, pages=pages)
