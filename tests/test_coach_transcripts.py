"""The must-show transcripts of issue 46: a seeded terminal game of each game with ``hint`` at every decision,
in English and Italian, committed under ``docs/transcripts/`` by ``python -m bench.transcripts``.

They must be what the code prints now; every hint in them names a reason; typing the numbers a hint gives
for its first option makes the hard computer player's move (the hint speaks in the menu's numbers); and an
exchange in the play stays within 12 lines at the 90th percentile with the hints in it."""

from __future__ import annotations

import re
from functools import cache
from statistics import quantiles

import pytest

from bench import transcripts
from bot.base.i18n import catalog

GAMES = tuple(transcripts.GAMES_PLAYED)


@cache
def game(name: str, language: str) -> transcripts.Played:
    return transcripts.played(name, language)


@pytest.mark.parametrize("language", transcripts.LANGUAGES)
@pytest.mark.parametrize("name", GAMES)
def test_the_committed_transcript_is_current(name: str, language: str) -> None:
    path = transcripts.path_of(name, language)
    assert path.read_text(encoding="utf-8") == game(name, language).text, (
        f"{path} is not what the terminal prints now: run python -m bench.transcripts"
    )


def reason_fragments(language: str) -> list[str]:
    """The fixed words of every message that gives a reason (``*.why.*``, a discard's way to the Ace Pile or
    a straight), in ``language``: the longest piece of each between its placeholders."""
    fragments = []
    for msgid, entry in catalog(language).entries.items():
        if ".why." in msgid or msgid in ("deluxe.hint.gift-ace", "deluxe.hint.gift-straight"):
            for text in entry.forms:
                pieces = [p.strip(" .:;,()—") for p in re.split(r"\{[^}]*\}", text)]
                longest = max(pieces, key=len)
                if len(longest) >= 8:
                    fragments.append(longest)
    return fragments


@pytest.mark.parametrize("language", transcripts.LANGUAGES)
@pytest.mark.parametrize("name", GAMES)
def test_every_hint_names_a_reason(name: str, language: str) -> None:
    """Not only an order and numbers: each hint says why, in the player's language."""
    fragments = reason_fragments(language)
    played = game(name, language)
    assert len(played.hints) >= 10
    for hint in played.hints:
        assert any(f in hint for f in fragments), hint
        assert not any(line[:1].isdigit() for line in hint.split("\n")), hint  # no "1.": the menu's numbers


@pytest.mark.parametrize("name", GAMES)
def test_typing_a_hints_numbers_makes_its_first_option(name: str) -> None:
    """Item 3: the numbers a hint gives its first option are the menu's: typing them makes the move the hint
    names first, the hard computer player's."""
    played = game(name, "en")
    assert len(played.followed) >= 10
    assert all(made == advised for made, advised in played.followed), played.followed


@pytest.mark.parametrize("name", ["bhargage", "cribbage"])
def test_an_exchange_in_the_play_is_at_most_12_lines_at_the_90th_percentile(name: str) -> None:
    """What the terminal prints between two prompts in the play — a card and the replies, or a hint and
    the menu again — with the longer hints: a hint and the menu again within 12 lines at the 90th
    percentile, and every exchange of the play, moves and hints together, too (Cribbage's printed 13 until
    its panel said the cards kept for the show on the line of the cards in hand). The
    figures of every exchange: ``python -m bench.transcripts --lines``."""
    hints, moves = [], []
    for language in transcripts.LANGUAGES:
        for chunk, in_play in game(name, language).exchanges:
            if in_play:
                (hints if transcripts.is_hint(chunk) else moves).append(transcripts.lines_of(chunk))
    assert len(hints) >= 10 and len(moves) >= 5

    def p90(counts: list[int]) -> float:
        return quantiles(counts, n=10, method="inclusive")[-1]

    assert p90(hints) <= 12, hints
    assert p90(hints + moves) <= 12, (hints, moves)
