"""The Decktet: 45 cards as small immutable values, name parsing, and seeded decks (RULES.md, R1/R2, D1)."""

from __future__ import annotations

import difflib
import enum
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.rules.errors import UnknownCard


class Suit(enum.Enum):
    MOONS = "Moons"
    SUNS = "Suns"
    WAVES = "Waves"
    LEAVES = "Leaves"
    WYRMS = "Wyrms"
    KNOTS = "Knots"

    @property
    def emoji(self) -> str:
        return _SUIT_EMOJI[self]

    @property
    def die(self) -> int:
        """The face of a six-sided die that names this suit (D10 option 3)."""
        return list(Suit).index(self) + 1


_SUIT_EMOJI = {
    Suit.MOONS: "🌙",
    Suit.SUNS: "☀️",
    Suit.WAVES: "🌊",
    Suit.LEAVES: "🍃",
    Suit.WYRMS: "🐉",
    Suit.KNOTS: "🪢",
}

ALL_SUITS: frozenset[Suit] = frozenset(Suit)


class Rank(enum.IntEnum):
    """Bhargage rank order R1, low to high. Deluxe straights use the same order without the Excuse (D6)."""

    EXCUSE = 0
    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    PAWN = 10
    COURT = 11
    CROWN = 12

    @property
    def label(self) -> str:
        if Rank.TWO <= self <= Rank.NINE:
            return str(int(self))
        return self.name.capitalize()


@dataclass(frozen=True, slots=True)
class Card:
    """One Decktet card. In a double deck both copies are the same value: equal cards are interchangeable."""

    index: int
    name: str  # "Ace of Moons", "Author", "Light Keeper" (shown with "the" by ``title``)
    rank: Rank
    suits: tuple[Suit, ...]
    personality: bool = False

    @property
    def value(self) -> int:
        """Count value R2: Ace 1, 2–9 face, Crown 10, Pawn/Court/Excuse 0."""
        if self.rank == Rank.CROWN:
            return 10
        if Rank.ACE <= self.rank <= Rank.NINE:
            return int(self.rank)
        return 0

    @property
    def title(self) -> str:
        """The name as written in the rules: "the Author", "Ace of Moons", "the Excuse"."""
        return self.name if self.rank == Rank.ACE else f"the {self.name}"

    @property
    def slug(self) -> str:
        """Short, stable text form for action logs: "author", "light-keeper", "ace-moons"."""
        return _slug(self.name)

    @property
    def suit_emoji(self) -> str:
        return "".join(s.emoji for s in self.suits)

    @property
    def label(self) -> str:
        """Display form with rank and suit emoji: "the Forest (5) 🌙🍃", "Ace of Moons 🌙"."""
        if self.rank in (Rank.ACE, Rank.EXCUSE):
            return f"{self.title} {self.suit_emoji}".rstrip()
        return f"{self.title} ({self.rank.label}) {self.suit_emoji}"

    def has(self, suit: Suit) -> bool:
        return suit in self.suits

    def __str__(self) -> str:
        return self.title

    def __repr__(self) -> str:
        return f"card({self.slug!r})"


def _slug(name: str) -> str:
    words = [w for w in name.lower().split() if w not in ("of", "the")]
    return "-".join(words)


M, S, W, L, Y, K = Suit.MOONS, Suit.SUNS, Suit.WAVES, Suit.LEAVES, Suit.WYRMS, Suit.KNOTS

# (name, rank, suits, personality) in deck order; the index is the position here.
# The names are English, for parsing and logs; players read them through bot.render.words.
_TABLE: list[tuple[str, Rank, tuple[Suit, ...], bool]] = [
    *[(f"Ace of {s.value}", Rank.ACE, (s,), False) for s in Suit],  # i18n: not text
    ("Author", Rank.TWO, (M, K), True),
    ("Desert", Rank.TWO, (S, Y), False),
    ("Origin", Rank.TWO, (W, L), False),
    ("Journey", Rank.THREE, (M, W), False),
    ("Painter", Rank.THREE, (S, K), True),
    ("Savage", Rank.THREE, (L, Y), True),
    ("Mountain", Rank.FOUR, (M, S), False),
    ("Sailor", Rank.FOUR, (W, L), True),
    ("Battle", Rank.FOUR, (Y, K), False),
    ("Forest", Rank.FIVE, (M, L), False),
    ("Discovery", Rank.FIVE, (S, W), False),
    ("Soldier", Rank.FIVE, (Y, K), True),
    ("Lunatic", Rank.SIX, (M, W), True),
    ("Penitent", Rank.SIX, (S, Y), True),
    ("Market", Rank.SIX, (L, K), False),
    ("Chance Meeting", Rank.SEVEN, (M, L), False),  # i18n: not text
    ("Castle", Rank.SEVEN, (S, K), False),
    ("Cave", Rank.SEVEN, (W, Y), False),
    ("Diplomat", Rank.EIGHT, (M, S), True),
    ("Mill", Rank.EIGHT, (W, L), False),
    ("Betrayal", Rank.EIGHT, (Y, K), False),
    ("Pact", Rank.NINE, (M, S), False),
    ("Darkness", Rank.NINE, (W, Y), False),
    ("Merchant", Rank.NINE, (L, K), True),
    ("Huntress", Rank.CROWN, (M,), True),
    ("Bard", Rank.CROWN, (S,), True),
    ("Sea", Rank.CROWN, (W,), False),
    ("End", Rank.CROWN, (L,), False),
    ("Calamity", Rank.CROWN, (Y,), False),
    ("Windfall", Rank.CROWN, (K,), False),
    ("Watchman", Rank.PAWN, (M, Y, K), True),
    ("Light Keeper", Rank.PAWN, (S, W, K), True),  # i18n: not text
    ("Borderland", Rank.PAWN, (W, L, Y), False),
    ("Harvest", Rank.PAWN, (M, S, L), False),
    ("Consul", Rank.COURT, (M, W, K), True),
    ("Island", Rank.COURT, (S, W, Y), False),
    ("Rite", Rank.COURT, (M, L, Y), False),
    ("Window", Rank.COURT, (S, L, K), False),
    ("Excuse", Rank.EXCUSE, (), False),
]

ALL_CARDS: tuple[Card, ...] = tuple(
    Card(i, name, rank, suits, pers) for i, (name, rank, suits, pers) in enumerate(_TABLE)
)
BASIC_CARDS: tuple[Card, ...] = tuple(
    c for c in ALL_CARDS if c.rank not in (Rank.PAWN, Rank.COURT, Rank.EXCUSE)
)
PAWNS: tuple[Card, ...] = tuple(c for c in ALL_CARDS if c.rank == Rank.PAWN)
COURTS: tuple[Card, ...] = tuple(c for c in ALL_CARDS if c.rank == Rank.COURT)
EXCUSE: Card = ALL_CARDS[-1]

_BY_KEY: dict[str, Card] = {}
for _c in ALL_CARDS:
    _BY_KEY[_c.slug.replace("-", " ")] = _c
    _BY_KEY[_c.name.lower()] = _c
    if _c.rank == Rank.ACE:
        suit = _c.suits[0].value.lower()
        for key in (f"{suit} ace", f"ace {suit}", f"ace of {suit}", f"ace of the {suit}"):  # i18n: not text
            _BY_KEY[key] = _c


def _normalize(text: str) -> str:
    text = re.sub(r"[\s_\-]+", " ", text.strip().lower())
    text = re.sub(r"^the ", "", text)
    return text.strip()


def card(name: str) -> Card:
    """The card a player typed: any case, with or without "the"; a typo raises ``UnknownCard`` with hints."""
    key = _normalize(name)
    found = _BY_KEY.get(key)
    if found is not None:
        return found
    if key.isascii() and key.isdigit() and int(key) < len(ALL_CARDS):
        return ALL_CARDS[int(key)]
    close = difflib.get_close_matches(key, list(_BY_KEY), n=6, cutoff=0.6)
    names: list[str] = []
    for k in close:
        title = _BY_KEY[k].title
        if title not in names:
            names.append(title)
    raise UnknownCard(name.strip(), tuple(names[:3]))


def cards(names: str | Iterable[str]) -> tuple[Card, ...]:
    """Several cards: an iterable of names, or one string split on commas."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    return tuple(card(n) for n in names)


def bhargage_deck() -> tuple[Card, ...]:
    """All 45 cards (R1)."""
    return ALL_CARDS


def deluxe_deck(*, pawns: bool = False, courts: bool = False) -> tuple[Card, ...]:
    """Two basic Decktets (72 cards), plus both copies of the Pawns and/or Courts (D1). Never the Excuse."""
    one = list(BASIC_CARDS)
    if pawns:
        one += PAWNS
    if courts:
        one += COURTS
    return tuple(one + one)


def shuffled(deck: Sequence[Card], rng: random.Random) -> tuple[Card, ...]:
    """A shuffled copy; randomness only from the seeded generator handed in."""
    out = list(deck)
    rng.shuffle(out)
    return tuple(out)


def sort_key(c: Card) -> tuple[int, int]:
    return (int(c.rank), c.index)
