"""Seeded terminal games of each game with the coach's hint at every decision, in English and Italian: the
transcripts committed under ``docs/transcripts/`` (issue 46), and the lines per exchange they print.

``python -m bench.transcripts`` writes them again; ``--check`` exits 1 when a committed one is not what the
code prints now (``tests/test_coach_transcripts.py`` runs the same check); ``--lines`` prints the lines per
exchange (what the terminal prints between two prompts) at the median, the 90th percentile and the worst,
for every exchange and for those of the play.

The player types ``hint`` at every decision, then the numbers the hint's first option gives (the hard
computer player's choice): so the transcripts also show that a hint's numbers are the menu's. It confirms a
lay-away, cuts, and answers anything without a hint with the menu's first choice.
"""

from __future__ import annotations

import argparse
import io
import random
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import median, quantiles
from typing import Any

from bot.base.i18n import number, speaking
from bot.cli import play
from bot.cli.play_menu import numbers_of
from bot.games import GAMES, Aside, Move
from bot.settings import EXPERT_SECONDS

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "docs" / "transcripts"
LANGUAGES = ("en", "it")
# name: (game, options, computer players, seed)
GAMES_PLAYED: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "bhargage": ("bhargage", {"target": 61}, 1, 2),
    "cribbage": ("cribbage", {"target": 61}, 1, 5),
    "deluxe": ("deluxe", {"target": 20}, 2, 7),
}
ANSWERS = 3000  # a game that asks more than this has gone wrong
THOUGHT = "-# 🧠"  # how the line of a hint from the expert's weighing starts (``bot.render.hints``)
SECONDS = re.compile(r"\d+[.,]\d s")  # the seconds it thought, as the line writes them
PLAY_PHASES = {"play"}  # what Bhargage and Cribbage call the play, by their engines' phase values


@dataclass
class Played:
    """One game as the terminal printed it (the typed answers after each prompt), the hints it showed,
    what was printed between two prompts (each exchange) with whether it was in the play (as
    ``tests/test_play_terminal.py`` counts it: both prompts in the same hand's play), and each move the
    player made by typing a hint's numbers with the hard computer player's choice there."""

    text: str
    hints: list[str] = field(default_factory=list)
    exchanges: list[tuple[str, bool]] = field(default_factory=list)
    followed: list[tuple[Any, Any]] = field(default_factory=list)


class Coached(play.Terminal):
    """The terminal, remembering each hint, what its first option's numbers are, and the move typing them
    made beside the coach's choice: the expert's where the hint is its weighing, else the hard player's.
    The expert is always waited for, and the seconds it thought are written as its budget's: a transcript
    is the same on any machine."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.expert_seconds = 60.0
        self.hints: list[str] = []
        self.advised: list[int] | None = None
        self.expected: Any = None
        self.followed: list[tuple[Any, Any]] = []

    def show_aside(self, aside: Aside) -> None:
        *lines, last = aside.panel.content.split("\n")
        expert = last.startswith(THOUGHT)
        if expert:
            last = SECONDS.sub(number(EXPERT_SECONDS, 1) + " s", last)
            aside = replace(aside, panel=replace(aside.panel, content="\n".join([*lines, last])))
        super().show_aside(aside)
        self.hints.append(aside.panel.content)
        first = next(iter(aside.picks), None)
        self.advised = numbers_of(first[1], self.choices) if first else None
        view = self.adapter.rules.view(self.table.state, play.HUMAN)
        rng = random.Random(self.adapter.coach_seed(self.table, play.HUMAN) if expert else 0)
        ai = self.adapter.ai
        self.expected = ai.choose(view, rng, "expert" if expert else "hard") if ai else None

    async def move(self, move: Move) -> None:
        if self.expected is not None:
            self.followed.append((move.action, self.expected))
            self.expected = None
        await super().move(move)


class Typist(io.StringIO):
    """stdin for a :class:`Coached` terminal: ``hint`` at each decision, then the hint's first option."""

    def __init__(self, out: io.StringIO) -> None:
        super().__init__()
        self.out = out
        self.terminal: Coached | None = None
        self.asked = False  # the hint was asked for at this decision
        self.count = 0
        self.start = 0
        self.exchanges: list[tuple[str, bool]] = []
        self.at: tuple[str, int] = ("", -1)  # the phase and hand at the last prompt

    def readline(self, size: int | None = -1) -> str:
        terminal = self.terminal
        assert terminal is not None
        text = self.out.getvalue()
        state = terminal.table.state
        at = (getattr(state.phase, "value", ""), getattr(state, "hand_no", 0))
        # In the play: this prompt and the one before both in one hand's play (not the deal, nor the show).
        self.exchanges.append((text[self.start :], at == self.at and at[0] in PLAY_PHASES))
        self.at = at
        self.count += 1
        answer = "" if self.count > ANSWERS else self.answer(terminal)
        self.out.write(answer + "\n")  # the answer shows after its prompt, as typed
        self.start = len(self.out.getvalue())
        return answer + "\n" if answer else ""

    def answer(self, terminal: Coached) -> str:
        verbs = {choice.control.verb: n for n, choice in sorted(terminal.choices.items(), reverse=True)}
        for verb in ("discard", "lay", "cut"):  # a lay-away's Confirm, the cut: nothing to hint at
            if verb in verbs:
                self.asked = False
                return str(verbs[verb])
        if "hint" in verbs and not self.asked:
            self.asked = True
            terminal.advised = None
            return "hint"
        self.asked = False
        if terminal.advised:
            numbers, terminal.advised = terminal.advised, None
            return " ".join(map(str, numbers))
        return str(min(terminal.choices)) if terminal.choices else "hand"


def played(name: str, language: str) -> Played:
    """One of the transcripts' games, to its end."""
    game, raw, bots, seed = GAMES_PLAYED[name]
    with speaking(language):
        options = GAMES[game].options(raw)
        out = io.StringIO()
        typist = Typist(out)
        terminal = Coached(game, options, bots, "hard", seed, typist, out)
        typist.terminal = terminal
        code = terminal.run()
        if code != 0 or not terminal.table.is_over():
            raise RuntimeError(f"{name} ({language}) did not play to its end")
        return Played(out.getvalue(), terminal.hints, typist.exchanges[1:], terminal.followed)


def path_of(name: str, language: str) -> Path:
    return FOLDER / f"{name}.{language}.txt"


def lines_of(chunk: str) -> int:
    """Lines an exchange prints (blank ones aside), as the terminal's own check counts them."""
    return sum(1 for line in chunk.split("\n") if line.strip())


def is_hint(chunk: str) -> bool:
    """Whether an exchange is a hint and the menu again (what ``hint`` printed), not a move and replies."""
    return chunk.lstrip().startswith("💡")


def figures(counts: Sequence[int]) -> str:
    p90 = quantiles(counts, n=10, method="inclusive")[-1] if len(counts) > 1 else counts[0]
    return f"median {median(counts):g}, p90 {p90:g}, max {max(counts)} ({len(counts)} exchanges)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.transcripts", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare with the committed transcripts")
    parser.add_argument("--lines", action="store_true", help="print the lines per exchange")
    args = parser.parse_args(argv)
    stale = []
    for name in GAMES_PLAYED:
        for language in LANGUAGES:
            game = played(name, language)
            path = path_of(name, language)
            if args.lines:
                every = [lines_of(chunk) for chunk, _ in game.exchanges]
                play_only = [lines_of(chunk) for chunk, in_play in game.exchanges if in_play]
                hinted = [lines_of(chunk) for chunk, in_play in game.exchanges if in_play and is_hint(chunk)]
                print(f"{name} {language}: all: {figures(every)}")
                if play_only:
                    print(f"{name} {language}: the play: {figures(play_only)}")
                    print(f"{name} {language}: the play, a hint and the menu again: {figures(hinted)}")
            if args.check:
                if not path.exists() or path.read_text(encoding="utf-8") != game.text:
                    stale.append(path.relative_to(ROOT))
            elif not args.lines:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(game.text, encoding="utf-8")
                print(f"wrote {path.relative_to(ROOT)} ({game.text.count(chr(10))} lines)")
    if stale:
        print("not current (run python -m bench.transcripts):", *stale, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
