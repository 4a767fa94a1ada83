"""The deck's words in the language in force: card names, suits and ranks (catalog ``cards.po``).

The engines name cards in English for their logs and text actions; everything a player reads names them
through here, so an Italian table reads "la Foresta (5) 🌙🍃" and "Asso di Lune".
"""

from __future__ import annotations

from bot.base.i18n import named
from bot.rules.decktet import Card, Rank, Suit


def title(card: Card) -> str:
    """The card's name as the rules write it: "the Forest", "Ace of Moons" ("la Foresta", "Asso di Lune")."""
    return named("card", card.slug)


def capital(text: str) -> str:
    """``text`` starting a sentence: "The Forest", "La Foresta"."""
    return text[:1].upper() + text[1:]


def suit(s: Suit) -> str:
    """A suit's name: "Moons" ("Lune")."""
    return named("suit", s.name.lower())


def rank(r: Rank) -> str:
    """A rank as players say it: "Ace", "5", "Crown" ("Asso", "5", "Corona")."""
    if Rank.TWO <= r <= Rank.NINE:
        return str(int(r))
    return named("rank", r.name.lower())


def label(card: Card) -> str:
    """A card with its rank and suit symbols: "the Forest (5) 🌙🍃", "Ace of Moons 🌙"."""
    if card.rank in (Rank.ACE, Rank.EXCUSE):
        return f"{title(card)} {card.suit_emoji}".rstrip()
    return f"{title(card)} ({rank(card.rank)}) {card.suit_emoji}"
