"""Typed rules errors: each carries the id of a sentence a player can read, and what fills it.

The engines stay free of languages: an error names its message (``IllegalAction("rules.not-your-turn")``)
and the layer that shows it looks the sentence up in the player's language (``str(err)`` does, in the
language in force, see :mod:`bot.i18n`).
"""

from __future__ import annotations

from typing import Any


class RulesError(Exception):
    """An action or input the rules do not allow; ``str(err)`` is a sentence a player can read."""

    def __init__(self, msgid: str, /, **params: Any) -> None:
        super().__init__(msgid)
        self.msgid = msgid
        self.params = params

    def __str__(self) -> str:
        from bot.i18n import say  # the engines do not load catalogs unless a message is shown

        return say(self.msgid, **self.params)


class NotYourTurn(RulesError):
    """The seat acted out of turn."""


class IllegalAction(RulesError):
    """The action is not legal in this state."""


class GameOver(RulesError):
    """The game has already ended."""


class BadActionText(RulesError):
    """An action's text form could not be parsed."""


class UnknownCard(RulesError):
    """A card name that does not exist; carries the closest names."""

    def __init__(self, text: str, suggestions: tuple[str, ...]) -> None:
        from bot.i18n import either
        from bot.safe import plain

        self.text = text
        self.suggestions = suggestions
        if suggestions:
            hint = either(f"**{s}**" for s in suggestions)
            super().__init__("cards.unknown-did-you-mean", name=plain(text), hint=hint)
        else:
            super().__init__("cards.unknown", name=plain(text))
