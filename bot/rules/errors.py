"""Typed rules errors: every message is written to be shown to a player as it is."""

from __future__ import annotations

from bot.safe import plain


class RulesError(Exception):
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
        self.text = text
        self.suggestions = suggestions
        shown = plain(text)
        if suggestions:
            hint = " or ".join(f"**{s}**" for s in suggestions)
            message = f"There is no card called “{shown}”. Did you mean {hint}?"
        else:
            message = f"There is no card called “{shown}”."
        super().__init__(message)
