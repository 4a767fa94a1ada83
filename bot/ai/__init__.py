"""Computer players: pure, seeded functions from a seat's view to one of its legal actions.

One module per game, each with one entry point every caller uses (the table controller, the terminal
client, the benchmarks): ``bot.ai.bhargage.choose(view, rng, level)`` and ``bot.ai.deluxe.choose(...)``.
A player decides from what its seat may see (the engine's seat view) and never from the full state.
No Discord, asyncio, database or catalog imports here: levels are data, named for players in
:mod:`bot.render.levels`.
"""

from __future__ import annotations

from typing import Literal

from bot.rules.errors import Phrase, RulesError, Typed

Level = Literal["easy", "normal", "hard", "expert"]
# Appended only: a bot seat's id carries its level's place here (bot.games.seats), in stored games too.
LEVELS: tuple[Level, ...] = ("easy", "normal", "hard", "expert")
DEFAULT_LEVEL: Level = "normal"
NAME_QUOTE = 20  # the most of an unknown level's text quoted back


class UnknownLevel(RulesError, ValueError):
    """A level name the bot does not have; the refusal quotes what was typed."""


def _unknown(text: str) -> UnknownLevel:
    """The refusal of ``text`` as a level."""
    return UnknownLevel(
        "general.level.unknown", name=Typed(text, NAME_QUOTE, empty=Phrase("general.level.nothing"))
    )


def checked(text: str) -> Level:
    """The level whose value ``text`` is (any case), or UnknownLevel; names in a language the bot speaks are
    read by :func:`bot.render.levels.level`."""
    word = text.strip().lower()
    for known in LEVELS:
        if known == word:
            return known
    raise _unknown(text)
