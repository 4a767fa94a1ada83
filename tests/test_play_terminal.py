"""``python -m bot play``: games driven through stdin to the end, reading what the terminal prints."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot import play
from bot.__main__ import main as bot_main
from bot.base.panel import Button, Panel
from bot.games import GAMES, Aside
from bot.rules import bhargage as bh
from bot.rules import deluxe as D

ROOT = Path(__file__).resolve().parent.parent
CHOICE = re.compile(r"^\s+(\d+)\. (.*)$")


def pick(chunk: str) -> str:
    """A player who reads the prompt: finish a selection in progress, else take the first choice."""
    numbers = [(int(m[1]), m[2]) for line in chunk.split("\n") if (m := CHOICE.match(line))]
    if not numbers:
        return "hand"  # after a refusal: show the panel again
    for n, label in numbers:
        if label in ("Confirm", "Draw from deck", "Done", "Cut") or (
            label.startswith("Discard ") and "(pick" not in label
        ):
            return str(n)
    if "type 2 numbers" in chunk:
        return f"{numbers[0][0]} {numbers[1][0]}"
    return str(numbers[0][0])


class Player(io.StringIO):
    """stdin that answers each prompt from the output so far: scripted answers first, then ``pick``."""

    def __init__(self, out: io.StringIO, script: Iterable[str] = (), limit: int = 2000) -> None:
        super().__init__()
        self.out, self.script, self.limit = out, list(script), limit
        self.answers: list[str] = []
        self.prompts: list[str] = []  # the output since the previous prompt, at each prompt

    def readline(self, size: int | None = -1) -> str:
        text = self.out.getvalue()
        assert text.endswith("> "), "input was read without a prompt"
        chunk = text[:-2].rsplit("> ", 1)[-1]
        self.prompts.append(chunk)
        if len(self.answers) >= self.limit:
            return ""
        answer = self.script.pop(0) if self.script else pick(chunk)
        self.answers.append(answer)
        return answer + "\n"


def run(
    game: str, *, seed: int, target: int, script: Iterable[str] = (), bots: int = 1
) -> tuple[play.Terminal, Player, str, int]:
    adapter = GAMES[game]
    options = adapter.options({"target": target})
    out = io.StringIO()
    player = Player(out, script)
    terminal = play.Terminal(game, options, bots, "normal", seed, player, out)
    first: list[Panel] = []
    readline = player.readline

    def remember(size: int | None = -1) -> str:
        # The panel the Discord seat panel shows for this state, built independently of what was printed.
        if not first and terminal.panel is not None:
            first.append(adapter.seat_panel(terminal.table, play.HUMAN))
        return readline(size)

    player.readline = remember  # type: ignore[method-assign]
    code = terminal.run()
    text = out.getvalue()
    assert first, "the human was never asked"
    names = dict(enumerate(terminal.table.names, play.HUMAN_ID))
    assert play.plain_text(first[0].content, names) in text
    if first[0].embed is not None:
        assert play.plain_text(first[0].embed.description, names) in text
    return terminal, player, text, code


def result_line(terminal: play.Terminal, kind: type) -> str:
    won = [e for e in terminal.history if isinstance(e, kind)]
    assert len(won) == 1
    lines = terminal.adapter.result_lines(terminal.table, won)
    assert lines
    return play.plain_text(lines[0], dict(enumerate(terminal.table.names, play.HUMAN_ID)))


def test_bhargage_played_to_the_end_through_stdin() -> None:
    terminal, _player, text, code = run("bhargage", seed=1, target=31)
    assert code == 0
    assert bh.is_over(terminal.table.state)
    assert result_line(terminal, bh.GameWon) in text
    assert text.rstrip().endswith("The game is over.")
    assert "<@" not in text and "**" not in text and "```" not in text
    assert "Choose 2 cards to lay away (type 2 numbers):" in text
    assert "Traceback" not in text


def test_deluxe_with_two_bots_played_to_the_end_through_stdin() -> None:
    terminal, player, text, code = run("deluxe", seed=3, target=10, bots=2)
    assert code == 0
    assert D.is_over(terminal.table.state)
    assert terminal.table.names == ("Player", "Bot (normal)", "Bot 2 (normal)")
    assert result_line(terminal, D.GameWon) in text
    assert "Game over — reached the target of 10." in text
    assert "Draw from deck" in text and "Discard a card (ends your turn)… (type 1 number)" in text
    assert len(player.answers) > 10


def test_invalid_answers_are_refused_and_the_game_goes_on() -> None:
    script = ["", "banana", "99", "1 2 3", "1", "1 1", "0", "-1", "help", "board", "hint", "rules", "hand"]
    terminal, player, text, code = run("bhargage", seed=1, target=31, script=script)
    assert code == 0 and terminal.table.is_over()
    refusals = player.prompts[1:9]
    assert 'Type one of the numbers shown (or "help").' in refusals[0]  # empty
    assert 'Type one of the numbers shown (or "help").' in refusals[1]  # a word
    assert 'Type one of the numbers shown (or "help").' in refusals[2]  # no such number
    assert "Choose 2 of these options." in refusals[3]  # three cards
    assert "Choose 2 of these options." in refusals[4]  # one card
    assert "Type each option once." in refusals[5]
    assert 'Type one of the numbers shown (or "help").' in refusals[6]  # 0
    assert 'Type one of the numbers shown (or "help").' in refusals[7]  # -1
    assert "Words: hint" in player.prompts[9]
    assert "Waiting for Player" in player.prompts[10]  # the board
    assert "Discard hint" in player.prompts[11]  # the coach, as on Discord
    assert "Traceback" not in text


def test_a_hint_is_shown_and_the_panel_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """An adapter that answers a Hint button with an Aside (as Bhargage's will)."""
    adapter = GAMES["bhargage"]
    seat_panel, click = adapter.seat_panel, adapter.click

    def with_hint(table: Any, seat: int, note: str = "") -> Panel:
        panel = seat_panel(table, seat, note)
        return replace(
            panel, controls=(*panel.controls, Button("Hint", "hint", token=adapter.token(table, seat)))
        )

    def answering(table: Any, seat: int, c: Any) -> Any:
        if c.verb == "hint":
            return Aside(Panel(content="**Lay away** the two Crowns."))
        return click(table, seat, c)

    monkeypatch.setattr(adapter, "seat_panel", with_hint)
    monkeypatch.setattr(adapter, "click", answering)
    _terminal, player, _text, code = run("bhargage", seed=1, target=31, script=["hint", "hand", "6"])
    assert code == 0
    assert "Lay away the two Crowns." in player.prompts[1]
    assert "Choose 2 cards to lay away" in player.prompts[2]  # "hand": the panel again
    assert "Lay away the two Crowns." in player.prompts[3]  # pressing the button does the same
    assert "Choose 2 cards" not in player.prompts[3]  # and the panel is kept as it was


def test_deluxe_bind_step_lists_the_melds_best_first() -> None:
    script = ["1", "hint"]  # draw, then ask the coach
    _terminal, player, _text, code = run("deluxe", seed=3, target=10, bots=2, script=script)
    assert code == 0
    assert "Bind a meld… (type 1 number):" in player.prompts[1]
    assert (
        "   1. Ace of Moons 🌙, Ace of Knots 🪢, the Savage 🍃🐉, the Discovery ☀️🌊 — Bharg set of 4 · 6 pts"
        in (player.prompts[1])
    )
    assert "Build a meld by hand" in player.prompts[1]
    hint = player.prompts[2]  # the coach: the melds to bind, then the discards, the hard player's first
    assert "The rest of your turn, best first" in hint
    assert (
        "1. Bind 🔷 bharg set: Ace of Moons 🌙, Ace of Knots 🪢, the Savage 🍃🐉, the Discovery ☀️🌊 (+6)"
        in hint
    )
    assert "Then discard one of:" in hint


def test_resign_asks_first() -> None:
    terminal, player, text, code = run("bhargage", seed=1, target=31, script=["resign", "n", "resign", "y"])
    assert code == 0
    assert "Resign the game against Bot (normal)? It counts as a loss. (y/n)" in player.prompts[1]
    assert "Carry on, then." in player.prompts[2]
    assert bh.is_over(terminal.table.state)
    assert len(player.answers) == 4
    assert "You resigned." in text


def test_quit_and_end_of_input_end_cleanly() -> None:
    terminal, _player, text, code = run("deluxe", seed=3, target=10, bots=2, script=["quit"])
    assert code == 0 and not terminal.table.is_over()
    assert text.rstrip().endswith("Game abandoned. Bye!")
    out = io.StringIO()
    assert play.main(["bhargage", "--seed", "2"], io.StringIO(""), out) == 0
    assert out.getvalue().rstrip().endswith("Game abandoned. Bye!")


def test_command_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert bot_main(["play", "deluxe", "--bots", "3", "--seed", "5", "--pawns", "--level", "easy"]) == 0
    assert "Bot 3 (easy)" in capsys.readouterr().out
    out = io.StringIO()
    code = play.main(["deluxe", "--bots", "3", "--seed", "5", "--pawns"], io.StringIO("quit\n"), out)
    assert code == 0
    assert "against Bot (normal), Bot 2 (normal), Bot 3 (normal). Seed 5." in out.getvalue()
    assert play.main(["bhargage", "--target", "5"], io.StringIO(""), io.StringIO()) == 2
    assert "Can't play with those options" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        play.main(["deluxe", "--bots", "6"], io.StringIO(""), io.StringIO())


def test_plain_text() -> None:
    names = {7: "Ann"}
    text = "**Hi** <@7> and <@!9> in <#5>: __x__ <:moons:123> *10 cards*\n```\nboard\n```"
    assert play.plain_text(text, names) == "Hi Ann and someone in this table: x :moons: 10 cards\nboard"


def test_subprocess_game_from_a_script() -> None:
    """The real command, fed a script written beforehand; it prints what the in-process game printed."""
    _terminal, player, text, _code = run("bhargage", seed=1, target=31)
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "play", "bhargage", "--seed", "1", "--target", "31"],
        input="\n".join(player.answers) + "\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == text


def test_leaving_a_deluxe_table_ends_it_the_bots_do_not_play_on() -> None:
    terminal, player, text, code = run("deluxe", seed=3, target=100, script=["leave", "y"], bots=2)
    assert code == 0 and terminal.table.is_over()
    left = [e for e in terminal.history if isinstance(e, D.SeatLeft)]
    assert [e.seat for e in left] == [0, 1]  # the person, then one bot: one seat is left, the game ends
    assert len(player.answers) == 2 and "Leave this game?" in text
