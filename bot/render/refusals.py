"""A refusal of the rules as a sentence: the one place that turns a rules error's id and values (plain data,
:mod:`bot.rules.errors`) into text, in the language in force where it is shown."""

from __future__ import annotations

from bot.base.i18n import either, say
from bot.base.safe import QUOTE_LIMIT, plain
from bot.render import words
from bot.render.lists import word_list
from bot.rules.decktet import Card, Rank, Suit
from bot.rules.deluxe_melds import Run
from bot.rules.errors import Guesses, Names, Phrase, RulesError, Typed


def said(refusal: BaseException | Phrase) -> str:
    """The sentence a player reads for a refusal: a rules error (or a phrase inside one) through the catalog;
    any other refusal (a service's, already a sentence) as it says itself."""
    if isinstance(refusal, RulesError):
        values = refusal.values
    elif isinstance(refusal, Phrase):
        values = dict(refusal.values)
    else:
        return str(refusal)
    return say(refusal.msgid, **{key: word(value) for key, value in values.items()})


def word(value: object) -> object:
    """One value of a refusal as it fills a sentence: cards, suits and ranks by name, phrases looked up,
    lists joined, typed text made harmless; numbers and text as they are."""
    if isinstance(value, Phrase):
        return said(value)
    if isinstance(value, Names):
        return word_list([str(word(item)) for item in value.items], value.last)
    if isinstance(value, Run):
        return "–".join(words.rank(r) for r in value.ranks)
    if isinstance(value, Typed):
        shown = plain(value.text, value.limit or QUOTE_LIMIT)
        return shown or (said(value.empty) if value.empty else "")
    if isinstance(value, Guesses):
        return either(f"**{name}**" for name in value.names)
    if isinstance(value, Card):
        return words.title(value)
    if isinstance(value, Suit):
        return words.suit(value)
    if isinstance(value, Rank):
        return words.rank(value)
    return value
