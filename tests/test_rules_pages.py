"""The full rules inside Discord: ``/bhargage rules``, ``/deluxe rules`` and ``/cribbage rules`` answer with
page 1 of a few pages (overview, the rules in detail, worked examples, a glossary) and ◀ / ▶ buttons that
turn the pages by updating the same message; forged page buttons are refused quietly."""

from __future__ import annotations

import dataclasses
import re

import pytest

from bot.base.i18n import speaking
from bot.edge import rules_book
from bot.edge.custom_ids import Refused
from bot.render import rules_pages as pages
from bot.settings import Settings
from tests.conftest import ErrorLogGuard, StartBot
from tests.fakediscord import FakeDiscord, FakeMessage

LANGUAGES = ("en", "it")
OUT_OF_DATE = "That button is out of date."

# Each game's glossary defines these terms, once each, as "**term**" at the start of a line.
GLOSSARY = {
    ("bhargage", "en"): [
        "Bhargage",
        "bhargage",
        "bharg",
        "Bharg",
        "Bharg Deluxe",
        "up-card",
        "go",
        "shortage",
        "Chief's Friend",
        "the Chief",
        "count",
        "Muggins!",
    ],
    ("bhargage", "it"): [
        "Bhargage",
        "bhargage",
        "bharg",
        "Bharg",
        "Bharg Deluxe",
        "carta scoperta",
        "passo",
        "mancanza",
        "Amico del Capo",
        "il Capo",
        "conteggio",
        "Muggins!",
    ],
    ("deluxe", "en"): [
        "Bharg Deluxe",
        "Bharg",
        "bharg",
        "bharg set",
        "Bhargage",
        "meld",
        "bind",
        "straight suit",
        "complete straight",
        "partial straight",
        "Ace Pile",
        "Discard Queue",
        "going out",
    ],
    ("deluxe", "it"): [
        "Bharg Deluxe",
        "Bharg",
        "bharg",
        "set di semi",
        "Bhargage",
        "combinazione",
        "calare",
        "seme delle scale",
        "scala completa",
        "scala parziale",
        "pila degli Assi",
        "pila degli scarti comuni",
        "restare senza carte",
    ],
    ("cribbage", "en"): [
        "Cribbage",
        "crib",
        "starter",
        "count",
        "go",
        "fifteen",
        "pair royal",
        "double pair royal",
        "run",
        "flush",
        "his nob",
        "his heels",
        "nineteen",
        "lurch",
        "Muggins!",
    ],
    ("cribbage", "it"): [
        "Cribbage",
        "crib",
        "carta scoperta",
        "conteggio",
        "passo",
        "quindici",
        "tris",
        "poker",
        "scala",
        "colore",
        "nob",
        "fante scoperto",
        "diciannove",
        "cappotto",
        "Muggins!",
    ],
}
SHORTAGE = {
    "en": r"^• {missing} suits? missing → \*\*{points}\*\* points?(?: \(.*\))?$",
    "it": r"^• manc(?:a|ano) {missing} sem[ei] → \*\*{points}\*\* punt[io](?: \(.*\))?$",
}


def every_page() -> list[tuple[str, str, int]]:
    return [(g, lang, p) for g in pages.GAMES for lang in LANGUAGES for p in range(1, pages.count(g) + 1)]


# ---------------------------------------------------------------- the pages as text


@pytest.mark.parametrize("game, language, page", every_page())
def test_every_page_fits_a_phone_and_never_points_at_the_repository(
    game: str, language: str, page: int
) -> None:
    with speaking(language):
        text = pages.page_text(game, page)
        linked = pages.page_text(game, page, "https://example.org/docs/rules-x.md")
    assert 200 <= len(text) <= pages.PHONE_PAGE, len(text)
    assert len(linked) <= pages.PHONE_PAGE + 100 <= pages.PAGE_LIMIT
    assert linked.startswith(text) and linked.endswith("https://example.org/docs/rules-x.md")
    assert "repositor" not in text.lower() and "archivio" not in text and "docs/" not in text
    assert "http" not in text and "repositor" not in linked.lower()
    assert not re.search(r"\b[RDC]\d+\b", text) and "{" not in text
    if language == "it":
        with speaking("en"):
            assert text != pages.page_text(game, page), "the Italian page is the English one"


@pytest.mark.parametrize("game", pages.GAMES)
def test_each_game_has_an_overview_rules_examples_and_a_glossary(game: str) -> None:
    assert 5 <= pages.count(game) <= 9
    with speaking("en"):
        texts = [pages.body(game, p) for p in range(1, pages.count(game) + 1)]
    assert len(set(texts)) == len(texts)
    assert sum("**Worked examples" in text for text in texts) >= 1
    assert texts[pages.glossary_page(game) - 1].startswith("**Glossary**")
    for bad in (0, pages.count(game) + 1):
        with pytest.raises(ValueError):
            pages.body(game, bad)


@pytest.mark.parametrize("game, language", list(GLOSSARY))
def test_the_glossary_defines_each_term_once(game: str, language: str) -> None:
    with speaking(language):
        glossary = pages.body(game, pages.glossary_page(game))
    defined = re.findall(r"^\*\*(.+?)\*\*", glossary, re.M)[1:]  # the first is the page's heading
    assert len(defined) == len(set(defined)), "a term is defined twice"
    for term in GLOSSARY[game, language]:
        assert defined.count(term) == 1, (term, defined)
        line = next(ln for ln in glossary.splitlines() if ln.startswith(f"**{term}**"))
        assert len(line) > len(term) + 25, f"{term!r} is not defined: {line!r}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_shortage_table_says_what_each_number_is_for(language: str) -> None:
    with speaking(language):
        text = "\n".join(pages.body("bhargage", p) for p in range(2, pages.count("bhargage") + 1))
        overview = pages.body("bhargage", 1)
    for missing, points in ((1, 1), (2, 3), (3, 6), (4, 10)):
        row = SHORTAGE[language].format(missing=missing, points=points)
        assert re.search(row, text, re.M), row
    assert re.search(r"1 [^,→]*→ 1, 2 → 3, 3 → 6, 4 → 10", overview)
    assert ("missing suits" if language == "en" else "semi che mancano") in overview


def test_the_full_rules_cover_go_the_23_limit_the_chief_and_deluxe_play() -> None:
    with speaking("en"):
        bh = "\n".join(pages.body("bhargage", p) for p in range(1, pages.count("bhargage") + 1))
        dx = "\n".join(pages.body("deluxe", p) for p in range(1, pages.count("deluxe") + 1))
        overview = pages.body("bhargage", 1)
    for words in (
        "**go**",
        "never go above 23",
        "2 for the Chief",
        "1 for the Chief's Friend",
        "never in the bhargage",
        "Muggins!",
        "4 × 2 = **8**",  # the seed's Crown-Crown-Ace example
        "Hand: **18**",  # three 5s: set and bharg
        "2 × 6 = **12**",  # the Excuse doubles a bharg
    ):
        assert words in bh, words
    for words in (
        "**go**",
        "Chief's Friend",
        "dealer's **bhargage** (the crib)",
        "Bharg Deluxe is another game",
    ):
        assert words in overview, words
    for words in (
        "from the top down",
        "only as a whole",
        "stays bound",
        "straight suit",
        "Maire",
        "Shar",
        "8 − 2 = **6**",
        "another hand is played",
        "can score below zero",
    ):
        assert words in dx, words


def test_every_game_with_an_adapter_has_rules_pages() -> None:
    """The registry's games are the games with pages: a new game that forgets its pages fails here."""
    from bot.games import ADAPTER_PATHS

    assert set(pages.GAMES) == set(ADAPTER_PATHS)


def test_the_cribbage_pages_cover_the_play_the_show_the_options_and_the_tables() -> None:
    with speaking("en"):
        text = "\n".join(pages.body("cribbage", p) for p in range(1, pages.count("cribbage") + 1))
    for words in (
        "never past 31",
        "**go**",
        "15 for 2",
        "31 for 2",
        "pair royal",
        "double pair royal",
        "6, 7, 7, 8",  # the paired card breaks the run (the rules' own example)
        "**5**",  # Annie's run of five
        "his heels",
        "his nob",
        "only with all 5",  # the crib's flush
        "**29**",
        "**19**",
        "**121**",
        "**61**",
        "**lurched**",
        "double lurch",
        "Muggins!",
        "partners sit opposite",
        "one card from the pack goes face down to the crib",
        "**Hint**",
    ):
        assert words in text, words
    with speaking("it"):
        italian = "\n".join(pages.body("cribbage", p) for p in range(1, pages.count("cribbage") + 1))
    for words in ("picche", "cuori", "quadri", "fiori", "asso", "fante, donna e re", "cappotto", "Muggins!"):
        assert words in italian, words
    for english in ("spades", "hearts", "Jack", "Queen", "King", "lurch"):
        assert english not in italian, english


# ---------------------------------------------------------------- the buttons' ids


def test_page_ids_are_made_and_read_strictly() -> None:
    for game in pages.GAMES:
        for page in range(1, pages.count(game) + 1):
            assert rules_book.parse(rules_book.custom_id(game, page)) == (game, page)
    bad = [
        None,
        7,
        "",
        "tv:rules:",
        "tv:rules:bhargage:0",
        f"tv:rules:bhargage:{pages.count('bhargage') + 1}",
        "tv:rules:bhargage:99",
        "tv:rules:bhargage:-1",
        "tv:rules:bhargage:01",
        "tv:rules:bhargage:2:x",
        "tv:rules:chess:2",
        "tv:rules:Bhargage:2",
        "tv:rules:bhargage:２",
        "tv:rules:bhargage:2" + "0" * 200,
    ]
    for cid in bad:
        with pytest.raises(Refused):
            rules_book.parse(cid)
    for game, page in (
        ("chess", 1),
        ("bhargage", 0),
        ("deluxe", 99),
        ("cribbage", pages.count("cribbage") + 1),
    ):
        with pytest.raises(ValueError):
            rules_book.custom_id(game, page)


# ---------------------------------------------------------------- through the fake Discord


def description(message: FakeMessage) -> str:
    return str(message.embeds[0].get("description", ""))


async def test_pages_turn_forward_and_back_in_the_same_message(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    await start_bot()
    for game in pages.GAMES:
        n = pages.count(game)
        opened = await fake.slash(fake.owner, fake.channel, f"{game} rules")
        assert opened.type == 4 and opened.ephemeral
        message = opened.message
        with speaking("en"):
            expected = [pages.page_text(game, p) for p in range(1, n + 1)]
        assert description(message) == expected[0]
        assert message.embeds[0]["title"].endswith(f"page 1/{n}")
        assert [b.label for b in message.buttons()] == ["◀", "▶"]
        shown = []
        for _ in range(n):  # forward all the way round
            before = len(fake.requests)
            pressed = await fake.click(fake.owner, message, "▶")
            assert pressed.type == 7, "a page turns by updating the message, not with a new one"
            assert pressed.message is message and not pressed.followups
            assert [m for _, m, _ in fake.requests[before:] if "/callback" not in m] == []
            shown.append(description(message))
        assert shown == [*expected[1:], expected[0]]
        pressed = await fake.click(fake.owner, message, "◀")  # back from page 1: the glossary
        assert pressed.type == 7 and description(message) == expected[-1]
        assert message.embeds[0]["title"].endswith(f"page {n}/{n}")
        await fake.click(fake.owner, message, "◀")
        assert description(message) == expected[-2]
        assert len(fake.ephemerals(fake.owner)) == pages.GAMES.index(game) + 1


async def test_an_italian_reader_turns_italian_pages(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await start_bot()
    giulia = fake.add_user("giulia")
    giulia.locale = "it"
    opened = await fake.slash(giulia, fake.channel, "deluxe rules")
    with speaking("it"):
        assert description(opened.message) == pages.page_text("deluxe", 1)
        second = pages.page_text("deluxe", 2)
    assert "pagina 1/" in opened.message.embeds[0]["title"]
    await fake.click(giulia, opened.message, "▶")
    assert description(opened.message) == second and "pila degli Assi" in second


async def test_the_published_rules_are_a_last_small_line(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    await start_bot(dataclasses.replace(settings, rules_url="https://example.org/tavern/docs"))
    opened = await fake.slash(fake.owner, fake.channel, "bhargage rules")
    assert description(opened.message).endswith("https://example.org/tavern/docs/rules-bhargage.md")
    await fake.click(fake.owner, opened.message, "▶")
    assert description(opened.message).endswith("https://example.org/tavern/docs/rules-bhargage.md")


async def test_without_a_url_no_page_points_outside(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await start_bot()
    opened = await fake.slash(fake.owner, fake.channel, "bhargage rules")
    for _ in range(pages.count("bhargage")):
        text = description(opened.message)
        assert "repository" not in text and "docs/" not in text and "http" not in text
        await fake.click(fake.owner, opened.message, "▶")


@pytest.mark.parametrize(
    "cid",
    [
        "tv:rules:bhargage:99",
        "tv:rules:bhargage:0",
        "tv:rules:chess:2",
        "tv:rules:deluxe:2:extra",
        "tv:rules:" + "x" * 95,
    ],
)
async def test_a_forged_page_button_is_refused_quietly(
    fake_discord: FakeDiscord, start_bot: StartBot, error_logs: ErrorLogGuard, cid: str
) -> None:
    fake = fake_discord
    await start_bot()
    opened = await fake.slash(fake.owner, fake.channel, "bhargage rules")
    message = opened.message
    before = description(message)
    # as a modified client could send it: on a message that seems to carry that very button
    forged_button = {"type": 2, "style": 2, "label": "▶", "custom_id": cid}
    shown = dataclasses.replace(message, components=[{"type": 1, "components": [forged_button]}], edits=[])
    data = {"custom_id": cid, "component_type": 2}
    result = await fake.forge(3, fake.owner, fake.channel, data, message=shown)
    await fake.settle()
    assert result.type == 4 and result.ephemeral and result.content == OUT_OF_DATE
    assert description(message) == before and not message.edits
    assert not error_logs.records


async def test_a_real_page_id_not_on_the_message_is_refused(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    await start_bot()
    opened = await fake.slash(fake.owner, fake.channel, "bhargage rules")
    data = {"custom_id": rules_book.custom_id("bhargage", 4), "component_type": 2}  # page 1 offers 2 and 6
    result = await fake.forge(3, fake.owner, fake.channel, data, message=opened.message)
    await fake.settle()
    assert result.type == 4 and result.content == OUT_OF_DATE and not opened.message.edits
