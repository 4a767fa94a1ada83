"""The computer players' levels in the players' words: their names, and reading a level a player typed in
any language the bot speaks."""

from __future__ import annotations

from bot.ai import LEVELS, Level, checked
from bot.base.i18n import LANGUAGES, named, speaking


def level_name(level: Level | str) -> str:
    """A level's name in the language in force: "easy" ("facile")."""
    return named("level", level) if level in LEVELS else str(level)


def level(text: str) -> Level:
    """The level named by ``text`` (any case, its English value or its name in a language the bot speaks),
    or UnknownLevel with the sentence to show."""
    word = text.strip().lower()
    if word in LEVELS:
        return checked(word)
    for language in LANGUAGES:
        with speaking(language):
            for known in LEVELS:
                if level_name(known).lower() == word:
                    return known
    return checked(text)
