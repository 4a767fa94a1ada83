"""Computer players: pure, seeded functions from a seat's view to one of its legal actions.

One module per game, each with one entry point every caller uses (the table controller, the terminal
client, the benchmarks): ``bot.ai.bhargage.choose(view, rng, level)`` and ``bot.ai.deluxe.choose(...)``.
A player decides from what its seat may see (the engine's seat view) and never from the full state.
No Discord, asyncio or database imports here.
"""

from __future__ import annotations

from typing import Literal

from bot.base.i18n import LANGUAGES, Msg, named, speaking
from bot.base.safe import plain
from bot.rules.errors import RulesError

Level = Literal["easy", "normal", "hard"]
LEVELS: tuple[Level, ...] = ("easy", "normal", "hard")
DEFAULT_LEVEL: Level = "normal"


def level_name(level: Level | str) -> str:
    """A level's name in the language in force: "easy" ("facile")."""
    return named("level", level) if level in LEVELS else str(level)


class UnknownLevel(RulesError, ValueError):
    """A level name the bot does not have; the message is for the player."""


def level(text: str) -> Level:
    """The level named by ``text`` (any case, its English value or its name in a language the bot speaks),
    or UnknownLevel with the sentence to show."""
    word = text.strip().lower()
    for known in LEVELS:
        if known == word:
            return known
    for language in LANGUAGES:
        with speaking(language):
            for known in LEVELS:
                if level_name(known).lower() == word:
                    return known
    shown = plain(text, 20)  # whatever a client sent, shown as harmless text
    raise UnknownLevel("general.level.unknown", name=shown or Msg("general.level.nothing"))
