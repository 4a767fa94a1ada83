"""The message catalog: lookup, plurals, fallbacks, the catalog check, the synced commands' translations."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import pytest

from bot.base import i18n
from bot.base.i18n import Msg, both, either, resolve, speaking, t, tn
from bot.cli import i18n_check
from bot.render import words
from bot.rules.decktet import ALL_CARDS, Suit
from tests.fakediscord import DISCORD_LOCALES, FakeDiscord

ROOT = Path(__file__).resolve().parent.parent


def write_catalogs(folder: Path, english: str, italian: str) -> Path:
    header = 'msgid ""\nmsgstr ""\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
    for language, body in (("en", english), ("it", italian)):
        (folder / language).mkdir(parents=True)
        (folder / language / "test.po").write_text(header + body, encoding="utf-8")
    return folder


@pytest.fixture
def small_catalogs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lookup reads a small pair of catalogs with deliberate faults in the Italian one."""
    english = """
msgid "tavern.text-missing"
msgstr "(missing)"

msgid "x.call"
msgstr "{count} for {points}"

msgid "x.only-english"
msgstr "Only in English"

msgid "x.games"
msgid_plural "x.games"
msgstr[0] "{n} game"
msgstr[1] "{n} games"
"""
    italian = """
msgid "x.call"
msgstr "{count} e basta"

msgid "x.games"
msgid_plural "x.games"
msgstr[0] "una partita"
msgstr[1] "{n} partite"
"""
    monkeypatch.setattr(i18n, "LOCALES_DIR", write_catalogs(tmp_path / "locales", english, italian))
    monkeypatch.setattr(i18n, "_catalogs", {})
    monkeypatch.setattr(i18n, "_warned", set())


def test_english_and_italian_with_placeholders_and_plurals() -> None:
    assert t("tavern.lobby.full", most=6) == "This table is full (6 players)."
    with speaking("it"):
        assert t("tavern.lobby.full", most=6) == "Questo tavolo è al completo (6 giocatori)."
        assert i18n.current() == "it"
    assert i18n.current() == "en"
    # plurals pick the language's form: Italian, like English, has "one" only for 1 (0 is plural)
    forest = next(c for c in ALL_CARDS if c.slug == "forest")
    assert words.label(forest) == "the Forest (5) 🌙🍃"
    with speaking("it"):
        assert words.label(forest) == "la Foresta (5) 🌙🍃"
        assert words.suit(Suit.WYRMS) == "Serpi"
        assert str(Msg("tavern.table.stale")) == "Quel pulsante è di un turno precedente."
        assert f"{both(['A', 'B', 'C'])}" == "A, B e C" and f"{either(['A', 'B'])}" == "A o B"
    assert f"{both(['A', 'B', 'C'])}" == "A, B, and C" and f"{either(['A', 'B'])}" == "A or B"


def test_plural_forms(small_catalogs: None) -> None:
    assert [tn("x.games", n) for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
    with speaking("it"):
        assert [tn("x.games", n) for n in (0, 1, 2)] == ["0 partite", "una partita", "2 partite"]


def test_a_locale_without_a_catalog_gets_english_and_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    i18n._warned.discard(("locale", "pt-BR"))
    with caplog.at_level(logging.WARNING, logger="tavern.i18n"):
        assert resolve("pt-BR") == "en"
        assert resolve("pt-BR") == "en"
    assert [r.getMessage() for r in caplog.records] == [
        "No catalog for locale 'pt-BR': English is used for it"
    ]
    assert resolve("it") == "it" and resolve("en-GB") == "en" and resolve(None) == "en"
    with speaking("pt-BR"):
        assert t("tavern.table.stale") == "That button is from an earlier turn."


def test_a_translation_missing_a_placeholder_falls_back_to_english(
    small_catalogs: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="tavern.i18n"), speaking("it"):
        assert t("x.call", count=15, points=2) == "15 for 2"
        assert t("x.only-english") == "Only in English"
    said = " | ".join(r.getMessage() for r in caplog.records)
    assert "'x.call' fills ['count'], not ['count', 'points'] as in English" in said
    assert "'x.only-english' has no it text" in said


def test_a_missing_id_or_parameter_never_shows_a_raw_id(
    small_catalogs: None, caplog: pytest.LogCaptureFixture, error_logs: object
) -> None:
    with caplog.at_level(logging.WARNING, logger="tavern.i18n"):
        assert t("x.nowhere") == "(missing)"
        assert t("x.call", count=1) == "(missing)"  # a placeholder the caller did not fill
    assert "x.nowhere" in caplog.text and "x.call" in caplog.text
    error_logs.take()  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------ the check


def test_the_repository_passes_the_catalog_check() -> None:
    assert i18n_check.check() == []


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The code and catalogs, copied, to break on purpose."""
    for part in ("bot", "cogs"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_check_finds_a_missing_id(copy: Path) -> None:
    _edit(
        copy / "bot/locales/it/tavern.po",
        'msgid "tavern.table.stale"\nmsgstr "Quel pulsante è di un turno precedente."\n',
        "",
    )
    problems = i18n_check.check(copy)
    assert len(problems) == 1 and problems[0].startswith(
        "it: 'tavern.table.stale' (used at bot/games/refusals.py:"
    )


def test_the_check_finds_an_unused_id_and_a_placeholder_mismatch(copy: Path) -> None:
    for language in ("en", "it"):
        with (copy / f"bot/locales/{language}/tavern.po").open("a", encoding="utf-8") as f:
            f.write('\nmsgid "tavern.nobody-uses-me"\nmsgstr "Hello"\n')
    _edit(copy / "bot/locales/it/tavern.po", "Non ho trovato {kind}.", "Non l'ho trovato.")
    problems = i18n_check.check(copy)
    assert any(p.startswith("en: 'tavern.nobody-uses-me'") and "not used" in p for p in problems)
    assert any(p.startswith("it: 'tavern.nobody-uses-me'") and "not used" in p for p in problems)
    assert any(p.startswith("it: 'tavern.error.not-found'") and "fills []" in p for p in problems)
    assert len(problems) == 3


def test_the_check_finds_english_written_inline(copy: Path) -> None:
    _edit(
        copy / "bot/edge/table/commands.py",
        'raise UserFacingError("tavern.rematch.still-going")',
        'raise UserFacingError("This game is still going.")',
    )
    problems = i18n_check.check(copy)
    assert any("'This game is still going.' is not a message id" in p for p in problems)
    assert any("English text inline, not in the catalog: 'This game is still going.'" in p for p in problems)
    assert any("'tavern.rematch.still-going'" in p and "not used" in p for p in problems)


def test_the_check_finds_a_label_and_a_plural_misuse(copy: Path) -> None:
    _edit(
        copy / "bot/edge/table/publisher.py", 'Button(t("tavern.rematch"),', 'Button(label="Rematch", verb='
    )
    _edit(
        copy / "bot/services/server_settings.py",
        't("tavern.settings.saved")',
        'tn("tavern.settings.saved", 2)',
    )
    problems = i18n_check.check(copy)
    assert any("English text inline, not in the catalog: 'Rematch'" in p for p in problems)
    assert any("'tavern.settings.saved' is singular in the catalog" in p for p in problems)


# ------------------------------------------------------------------------------------------ commands


def _walk(item: dict[str, object], at: str) -> list[tuple[str, dict[str, object]]]:
    out = [(at, item)]
    for option in item.get("options") or []:  # type: ignore[attr-defined]
        out += _walk(option, f"{at} {option['name']}")
        for choice in option.get("choices") or []:
            out.append((f"{at} {option['name']} = {choice['name']}", choice))
    return out


async def test_synced_commands_carry_italian_within_discords_limits(
    fake_discord: FakeDiscord, start_bot: object
) -> None:
    await start_bot()  # type: ignore[operator]
    commands = fake_discord.commands()
    assert commands
    missing: list[str] = []
    for command in commands:
        for at, item in _walk(command, f"/{command['name']}"):
            names = item.get("name_localizations") or {}
            assert set(names) <= DISCORD_LOCALES  # type: ignore[arg-type]
            if "it" not in names:
                missing.append(f"{at} name")
            for name in names.values():  # type: ignore[attr-defined]
                chat_name = bool(item.get("description"))  # a user command's name is any case, spaces too
                assert 1 <= len(name) <= (32 if chat_name else 100), (at, name)
                if chat_name:
                    assert name == name.lower() and all(c.isalnum() or c in "-_" for c in name), (at, name)
            if item.get("description"):
                descriptions = item.get("description_localizations") or {}
                if "it" not in descriptions:
                    missing.append(f"{at} description")
                for text in descriptions.values():  # type: ignore[attr-defined]
                    assert 1 <= len(text) <= 100, (at, text)
    assert missing == []


async def test_replies_follow_the_presser_and_an_unknown_locale_gets_english(
    fake_discord: FakeDiscord, start_bot: object, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await start_bot()  # type: ignore[operator]
    fake = fake_discord
    giulia, joao = fake.add_user("giulia"), fake.add_user("joao")
    giulia.locale, joao.locale = "it", "pt-BR"
    i18n._warned.discard(("locale", "pt-BR"))
    with caplog.at_level(logging.WARNING, logger="tavern.i18n"):
        italian = await fake.slash(giulia, fake.channel, "bhargage challenge", opponent=giulia)
        brazilian = await fake.slash(joao, fake.channel, "bhargage challenge", opponent=joao)
    assert italian.ephemeral and italian.content == "Non puoi sfidare te stesso: scegli un altro giocatore."
    assert brazilian.ephemeral and brazilian.content == "You can't challenge yourself — pick another player."
    assert "No catalog for locale 'pt-BR': English is used for it" in caplog.text
    assert bot.languages.of_user(giulia.id) == "it" and bot.languages.of_user(joao.id) == "en"
    assert await bot.store.user_languages() == {giulia.id: "it", joao.id: "en"}


def test_decimals_are_written_as_each_language_writes_them() -> None:
    """The coach's figures: a comma in Italian, a point in English, a true minus sign, a plus for a gain;
    the Bhargage discard hint in Italian has no English decimal in it."""
    from bot.ai import bhargage as bh_ai
    from bot.base.i18n import number, speaking
    from bot.render import bhargage_coach as render
    from bot.rules.decktet import cards

    with speaking("en"):
        assert (number(-0.614), number(0.25, signed=True), number(3, 2)) == ("−0.6", "+0.2", "3.00")
    with speaking("it"):
        assert (number(-0.614), number(0.25, signed=True), number(1234.5)) == ("−0,6", "+0,2", "1234,5")
        dealt = cards("forest, sailor, ace of moons, bard, savage")
        text = render.discard_hint_text(bh_ai.discard_table(dealt, True), dealt, dealer=True)
    assert re.findall(r"\d,\d", text) and not re.findall(r"\d\.\d", text)
