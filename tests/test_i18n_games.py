"""Whole games in two languages: an Italian and an English player at an Italian server's table.

Each player's private text must be in their own language and the channel's in Italian. A leak is a word that
only the English catalog uses (it appears in some English message and in no Italian one) showing up in Italian
text, or the reverse; card names and players' names are not words of either catalog, so they never count.
"""

from __future__ import annotations

import dataclasses
import logging
import re

import pytest

from bot.base.i18n import LANGUAGES, catalog
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.transcripts import EXTENSIONS, SEEDS, Transcript, people, play, transcript

WORD = re.compile(r"[^\W\d_]{3,}")
RAW_ID = re.compile(r"\b[a-z0-9-]+\.[a-z0-9-]+\.[a-z0-9.-]+\b")


def vocabulary(language: str) -> set[str]:
    out: set[str] = set()
    for entry in catalog(language).entries.values():
        for form in entry.forms:
            out.update(w.lower() for w in WORD.findall(re.sub(r"\{[^}]*\}|<[^>]*>", " ", form)))
    return out


def only_in(language: str) -> set[str]:
    others = set().union(*(vocabulary(other) for other in LANGUAGES if other != language))
    return vocabulary(language) - others


def leaks(lines: list[str], foreign: set[str]) -> list[tuple[str, list[str]]]:
    found = []
    for line in lines:
        bad = sorted({w for w in WORD.findall(line) if w.lower() in foreign})
        if bad:
            found.append((line, bad))
    return found


@pytest.mark.parametrize("game", sorted(SEEDS))
async def test_each_reader_sees_their_own_language(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    settings: Settings,
    game: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot = await start_bot(dataclasses.replace(settings, threads=True), extensions=EXTENSIONS)
    bot.lobbies.seed_source = lambda: SEEDS[game]
    giulia, oliver = people(fake_discord)
    with caplog.at_level(logging.WARNING, logger="tavern.i18n"):
        await play(fake_discord, bot, game, [giulia, oliver])
        await bot.controller.computer.idle()
    seen: Transcript = transcript(fake_discord, [giulia, oliver])
    english_only, italian_only = only_in("en"), only_in("it")
    assert len(seen.channel) > 50 and len(seen.private["giulia"]) > 20 and len(seen.private["oliver"]) > 20
    assert leaks(seen.channel, english_only) == []
    assert leaks(seen.private["giulia"], english_only) == []
    assert leaks(seen.private["oliver"], italian_only) == []
    # the Italian is really there (not an empty or English-free shell), and no raw message id is shown
    assert leaks(seen.channel, italian_only) and leaks(seen.private["giulia"], italian_only)
    everything = [*seen.channel, *seen.private["giulia"], *seen.private["oliver"]]
    assert [line for line in everything if RAW_ID.search(line)] == []
    assert "tavern.i18n" not in {r.name for r in caplog.records}  # no fallback was needed
    # the game's thread is named in the server's language too: "… giulia contro oliver"
    [thread] = fake_discord.threads(fake_discord.channel)
    assert "giulia contro oliver" in thread.name and " vs " not in thread.name
