"""``/tavern cards``: the deck for newcomers — every card's rank, suits and what it is worth in each game."""

from __future__ import annotations

from functools import partial

from bot import pictures
from bot.panel import Panel, Picture
from bot.render import suits
from bot.rules.decktet import ALL_CARDS, Card, Rank
from bot.rules.deluxe_melds import card_points
from bot.text import plural

RANK_WORDS = {
    Rank.ACE: "Ace",
    Rank.PAWN: "Pawn",
    Rank.COURT: "Court",
    Rank.CROWN: "Crown",
    Rank.EXCUSE: "the Excuse",
}

GALLERY = """\
**The Decktet** — 45 cards in six suits: {legend}.
• **Aces** (one suit each) and **Crowns** (one suit each) sit at either end of the ranks; **2–9** have two \
suits each, three cards per rank. **Pawns** and **Courts** have three suits each; **the Excuse** has none.
• A card with a bust in its corner is a **Personality** (it has no effect in these games).
• **Bhargage** counts a card by the number in its corner: Ace 1, 2–9 as numbered, Crown 10; Pawns, Courts \
and the Excuse 0.
• **Bharg Deluxe** scores a card by its number of suits: Ace and Crown 1, 2–9 two, Pawn and Court 3 \
(two Decktets, no Excuse).
`/tavern cards card:<name>` shows one card up close."""


def gallery_panel() -> Panel:
    alt = "The 45 Decktet cards grouped by rank, each with its suits and Bhargage value"
    return Panel(
        content=GALLERY.format(legend=suits.legend()), picture=Picture("decktet.png", pictures.gallery, alt)
    )


def card_panel(c: Card) -> Panel:
    """One card up close, with every fact a player needs about it."""
    rank = RANK_WORDS.get(c.rank, c.rank.label)
    suit_words = suits.named(c.suits) if c.suits else "no suit"
    lines = [
        f"**{c.title[0].upper()}{c.title[1:]}** — rank {rank}, {suit_words}.",
        f"Bhargage: counts **{c.value}**.",
        (
            f"Bharg Deluxe: worth **{plural(card_points(c), 'point')}**."
            if c.rank is not Rank.EXCUSE
            else "Bharg Deluxe: not in the deck."
        ),
    ]
    if c.personality:
        lines.append("A Personality.")
    return Panel(
        content="\n".join(lines), picture=Picture("card.png", partial(pictures.card_png, c), c.title)
    )


def card_names(current: str) -> list[tuple[str, str]]:
    """Autocomplete: (shown name, value) of the cards whose name holds ``current``, best first, at most 25."""
    needle = current.strip().lower()
    found = [c for c in ALL_CARDS if needle in c.name.lower()]
    found.sort(key=lambda c: (not c.name.lower().startswith(needle), c.index))
    return [(c.title, c.slug) for c in found[:25]]
