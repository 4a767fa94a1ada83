"""Classic Cribbage's words in the language in force: the 52 cards, the calls of the play and the show, the
sides (a partnership is "Ann & Cy"), the scores.

Card names are as players say them: "five of hearts", "queen of diamonds" ("cinque di cuori", "donna di
quadri"); short forms are the marks printed on the faces with the suit's symbol ("5♥", "10♣", "Q♦"), the
same in every language. Calls follow RULES.md C8: "15 for 2", "31 for 2", "a pair for 2", "pair royal for 6",
"double pair royal for 12", "a run of 3", "1 for the go", "2 for his heels", "1 for his nob", "flush for 4",
"19 — nothing", "Game!", "Lurched!".

A card typed by a player is read as they would write it (:func:`read_card`): "4♠", "4s", "4S", "four of
spades", "quattro di picche", or the start of a name only one card has.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from functools import cache

from bot.base.i18n import ENGLISH, Msg, current, say, speaking, t
from bot.render import strip_article
from bot.render.lists import word_list
from bot.rules.cribbage_scoring import ScoreItem
from bot.rules.errors import UnknownCard
from bot.rules.pack52 import FULL_PACK, RANK_CHARS, Card, Suit

SUIT_MARKS: dict[Suit, str] = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
RANK_MARKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

_RANKS: tuple[Msg, ...] = (
    Msg("cribbage.rank.ace"),
    Msg("cribbage.rank.two"),
    Msg("cribbage.rank.three"),
    Msg("cribbage.rank.four"),
    Msg("cribbage.rank.five"),
    Msg("cribbage.rank.six"),
    Msg("cribbage.rank.seven"),
    Msg("cribbage.rank.eight"),
    Msg("cribbage.rank.nine"),
    Msg("cribbage.rank.ten"),
    Msg("cribbage.rank.jack"),
    Msg("cribbage.rank.queen"),
    Msg("cribbage.rank.king"),
)
_SUITS: dict[Suit, Msg] = {
    Suit.SPADES: Msg("cribbage.suit.spades"),
    Suit.HEARTS: Msg("cribbage.suit.hearts"),
    Suit.DIAMONDS: Msg("cribbage.suit.diamonds"),
    Suit.CLUBS: Msg("cribbage.suit.clubs"),
}


# ---------------------------------------------------------------- cards


def short(c: Card) -> str:
    """The card as its face is marked: "5♥", "10♣", "Q♦", "A♠"."""
    return f"{RANK_MARKS[c.rank - 1]}{SUIT_MARKS[c.suit]}"


def name(c: Card) -> str:
    """The card as a player says it: "five of hearts" ("cinque di cuori")."""
    return t("cribbage.card.name", rank=str(_RANKS[c.rank - 1]), suit=str(_SUITS[c.suit]))


def rank_name(rank: int) -> str:
    """A rank as players say it: "five", "king" ("cinque", "re")."""
    return str(_RANKS[rank - 1])


def label(c: Card) -> str:
    """Both: "5♥ five of hearts" (a menu option, a line that names one card)."""
    return f"{short(c)} {name(c)}"


def cards_short(cards: Iterable[Card]) -> str:
    """Cards side by side: "5♥ 5♠ J♦ Q♣" (— for none)."""
    return " ".join(short(c) for c in cards) or "—"


# ---------------------------------------------------------------- cards as players type them

_SUIT_LETTERS = {"♠": "s", "♤": "s", "♥": "h", "♡": "h", "♦": "d", "♢": "d", "♣": "c", "♧": "c"}
_CODE = re.compile(r"(10|[2-9atjqk])([shdc])")  # a mark or a code, folded: "4s", "10h", "qd", "tc"
PREFIX_LEAST = 3  # the shortest start of a name read as the one card it begins ("fou" may not, "four of s")


def _folded(text: str) -> str:
    """Lower case, one space between words, no emoji variation mark, no article ("the", "il", "l'")."""
    return " ".join(strip_article(text.replace("\ufe0f", "").strip().lower()).split())


@cache
def _said(language: str) -> dict[str, Card]:
    """Every card's names, folded, in English and in ``language``: "four of spades", "4 of spades"."""
    out: dict[str, Card] = {}
    for lang in dict.fromkeys((ENGLISH, language)):
        with speaking(lang):
            for c in FULL_PACK:
                out[_folded(name(c))] = c
                if 2 <= c.rank <= 10:
                    digits = t("cribbage.card.name", rank=str(c.rank), suit=str(_SUITS[c.suit]))
                    out[_folded(digits)] = c
    return out


def read_card(text: str) -> Card:
    """A card as a player types it: its mark or code in any case ("4♠", "4s", "4S", "10♣", "TC"), its name
    in the language in force or in English ("four of spades", "4 of spades", "quattro di picche"), or the
    start of a name only one card has ("four of sp"). ``UnknownCard`` otherwise, with the cards a start
    could be or the closest names."""
    folded = _folded(text)
    code = _CODE.fullmatch("".join(_SUIT_LETTERS.get(ch, ch) for ch in folded.replace(" ", "")))
    if code is not None:
        rank = RANK_CHARS.index(code[1].upper().replace("10", "T")) + 1
        return Card(rank, Suit(code[2].upper()))
    said = _said(current())
    if folded in said:
        return said[folded]
    starting = list(dict.fromkeys(c for key, c in said.items() if key.startswith(folded)))
    if len(folded) >= PREFIX_LEAST and len(starting) == 1:
        return starting[0]
    if len(folded) >= PREFIX_LEAST and 1 < len(starting) <= 4:  # "ace", "four of": which one?
        raise UnknownCard(text.strip(), tuple(label(c) for c in starting), several=True)
    close = difflib.get_close_matches(folded, list(said), n=3, cutoff=0.6)
    raise UnknownCard(text.strip(), tuple(label(c) for c in dict.fromkeys(said[key] for key in close)))


# ---------------------------------------------------------------- sides and scores


def side_name(names: Sequence[str], players: int, side: int) -> str:
    """Who scores for a side: the player, or a partnership "Ann & Cy" (seats 0 and 2, 1 and 3)."""
    if players != 4:
        return names[side]
    return t("cribbage.side.pair", first=names[side], second=names[side + 2])


def side_names(names: Sequence[str], players: int) -> list[str]:
    return [side_name(names, players, s) for s in range(2 if players == 4 else players)]


def score_line(names: Sequence[str], players: int, scores: Sequence[int]) -> str:
    """Every side's score: "Ann & Cy 87 — Bo & Dee 64"."""
    return " — ".join(f"{who} {score}" for who, score in zip(side_names(names, players), scores, strict=True))


def scored(names: Sequence[str], players: int, side: int, total: int) -> str:
    """A side and its new total, after a call: "Ann & Cy (47)"."""
    return f"{side_name(names, players, side)} ({total})"


# ---------------------------------------------------------------- calls


# The calls of the play (and of one combination alone), by what scored; a run and a flush say their length.
_CALLS: dict[str, Msg] = {
    "fifteen": Msg("cribbage.call.fifteen"),
    "thirty-one": Msg("cribbage.call.thirty-one"),
    "pair": Msg("cribbage.call.pair"),
    "pair-royal": Msg("cribbage.call.pair-royal"),
    "double-pair-royal": Msg("cribbage.call.double-pair-royal"),
    "go": Msg("cribbage.call.go"),
    "last": Msg("cribbage.call.last"),
    "heels": Msg("cribbage.call.heels"),
    "nobs": Msg("cribbage.call.nobs"),
}
# The show's count said aloud, the total running ("15 for 4", "a run of 3 for 9").
_COUNTED: dict[str, Msg] = {
    "fifteen": Msg("cribbage.count.fifteen"),
    "pair": Msg("cribbage.count.pair"),
    "pair-royal": Msg("cribbage.count.pair-royal"),
    "double-pair-royal": Msg("cribbage.count.double-pair-royal"),
    "run": Msg("cribbage.count.run"),
    "flush": Msg("cribbage.count.flush"),
    "nobs": Msg("cribbage.count.nobs"),
}


def call_text(item: ScoreItem) -> str:
    """One scoring combination as it is called in the play, or alone: "15 for 2", "a run of 3"."""
    if item.kind == "run":
        return t("cribbage.call.run", length=item.points)
    if item.kind == "flush":
        return t("cribbage.call.flush", points=item.points)
    return str(_CALLS[item.kind])


def _counted(item: ScoreItem, total: int, first: bool) -> str:
    """One item of a show's count with the running total: "15 for 4", "a run of 3 for 9"; his nob first
    is "1 for his nob", later "1 for his nob makes 10"."""
    if first and item.kind == "nobs":
        return str(_CALLS["nobs"])
    return say(_COUNTED[item.kind].msgid, total=total, length=len(item.cards))


def show_count(items: Sequence[ScoreItem]) -> str:
    """A show's count as it is said aloud, the total running: "15 for 2, 15 for 4, a pair for 6 and a run of
    3 for 9"; a hand worth nothing is "19 — nothing"."""
    if not items:
        return t("cribbage.count.nineteen")
    said: list[str] = []
    total = 0
    for item in items:
        total += item.points
        said.append(_counted(item, total, not said))
    return word_list(said)
