"""Typed rules errors (refusals): each carries the id of a sentence a player can read, and what fills it, as
plain data.

Engines stay free of languages and of the bot: an error names its message
(``NotYourTurn("bhargage.rules.not-your-turn")``) and its values — numbers, text, cards, suits, ranks, or
the words below — and whoever shows it turns it into a sentence in the language in force there
(:func:`bot.render.refusals.said`). ``str(err)`` is for the log only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, init=False)
class Phrase:
    """A message named as data, inside a refusal's values: its id and what fills it (an integer ``n`` picks
    the plural form). The engine names it; it is looked up where the refusal is shown."""

    msgid: str
    values: tuple[tuple[str, object], ...]

    def __init__(self, msgid: str, /, **values: object) -> None:
        object.__setattr__(self, "msgid", msgid)
        object.__setattr__(self, "values", tuple(values.items()))


@dataclass(frozen=True)
class Names:
    """Things a sentence lists by name (cards, suits, phrases): "a, b and c", or "a, b or c"."""

    items: tuple[object, ...]
    last: Literal["and", "or"] = "and"


@dataclass(frozen=True)
class Typed:
    """Text a player typed, quoted back as harmless text of at most ``limit`` characters (the default quote
    length when ``None``); ``empty`` is shown instead when nothing visible is left."""

    text: str
    limit: int | None = None
    empty: Phrase | None = None


@dataclass(frozen=True)
class Guesses:
    """Names a player may have meant, shown in bold and joined by "or"."""

    names: tuple[str, ...]


class RulesError(Exception):
    """An action or input the rules do not allow: a refusal id and the values that fill its sentence."""

    def __init__(self, msgid: str, /, **values: object) -> None:
        super().__init__(msgid)
        self.msgid = msgid
        self.values = values

    def __str__(self) -> str:
        """For the log: the id and its values (a player reads the sentence, made where it is shown)."""
        return f"{self.msgid} {self.values}" if self.values else self.msgid


class NotYourTurn(RulesError):
    """The seat acted out of turn."""


class IllegalAction(RulesError):
    """The action is not legal in this state."""


class GameOver(RulesError):
    """The game has already ended."""


class BadActionText(RulesError):
    """An action's text form could not be parsed."""


class UnknownCard(RulesError):
    """A card name that does not exist, or (``several``) the start of more than one card's; carries the text
    typed and the closest names, or the cards it could be."""

    def __init__(self, text: str, suggestions: tuple[str, ...], *, several: bool = False) -> None:
        self.text = text
        self.suggestions = suggestions
        if several and suggestions:
            super().__init__("cards.several", name=Typed(text), hint=Guesses(suggestions))
        elif suggestions:
            super().__init__("cards.unknown-did-you-mean", name=Typed(text), hint=Guesses(suggestions))
        else:
            super().__init__("cards.unknown", name=Typed(text))
