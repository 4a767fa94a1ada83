"""Typed rules errors: each carries the id of a sentence a player can read, and what fills it.

Engines stay free of languages: an error names its message (``NotYourTurn("bhargage.rules.not-your-turn")``),
and ``str(err)`` looks it up in the language in force where it is shown (:class:`bot.base.i18n.Said`).
"""

from __future__ import annotations

from bot.base.i18n import Said


class RulesError(Said):
    """An action or input the rules do not allow; ``str(err)`` is a sentence a player can read."""


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
        from bot.base.i18n import either
        from bot.base.safe import plain

        self.text = text
        self.suggestions = suggestions
        if suggestions:
            hint = either(f"**{s}**" for s in suggestions)
            super().__init__("cards.unknown-did-you-mean", name=plain(text), hint=hint)
        else:
            super().__init__("cards.unknown", name=plain(text))
