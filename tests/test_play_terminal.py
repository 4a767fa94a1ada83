"""``python -m bot play``: games driven through stdin to the end, reading what the terminal prints."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main as bot_main
from bot.base.i18n import ENGLISH, speaking, t
from bot.base.panel import Button, Panel
from bot.cli import play
from bot.games import GAMES, Aside
from bot.rules import bhargage as bh
from bot.rules import cribbage as C
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


def choose(terminal: play.Terminal) -> str:
    """A player in any language, who answers from the menu's meaning (not its words): confirm a discard,
    cut, draw or end the turn when offered, else lay away the first two cards or take the first choice."""
    verbs: dict[str, list[int]] = {}
    for n, choice in terminal.choices.items():
        verbs.setdefault(choice.control.verb, []).append(n)
    for verb in ("discard", "cut", "draw", "done"):
        if verb in verbs:
            return str(verbs[verb][0])
    if "pick" in verbs:
        return " ".join(str(n) for n in verbs["pick"][:2])
    return str(min(terminal.choices))


class Player(io.StringIO):
    """stdin that answers each prompt from the output so far: scripted answers first, then ``pick``."""

    def __init__(self, out: io.StringIO, script: Iterable[str] = (), limit: int = 2000) -> None:
        super().__init__()
        self.out, self.script, self.limit = out, list(script), limit
        self.answers: list[str] = []
        self.prompts: list[str] = []  # the output since the previous prompt, at each prompt
        self.states: list[Any] = []  # the game's state at each prompt
        self.pick: Callable[[str], str] = pick

    def readline(self, size: int | None = -1) -> str:
        text = self.out.getvalue()
        assert text.endswith("> "), "input was read without a prompt"
        chunk = text[:-2].rsplit("> ", 1)[-1]
        self.prompts.append(chunk)
        if len(self.answers) >= self.limit:
            return ""
        answer = self.script.pop(0) if self.script else self.pick(chunk)
        self.answers.append(answer)
        return answer + "\n"


def run(
    game: str,
    *,
    seed: int,
    target: int,
    script: Iterable[str] = (),
    bots: int = 1,
    language: str = ENGLISH,
) -> tuple[play.Terminal, Player, str, int]:
    """A game to its end through stdin; in another language than English the player answers by ``choose``."""
    with speaking(language):
        adapter = GAMES[game]
        options = adapter.options({"target": target})
        out = io.StringIO()
        player = Player(out, script)
        terminal = play.Terminal(game, options, bots, "normal", seed, player, out)
        if language != ENGLISH:
            player.pick = lambda _chunk: choose(terminal)
        first: list[Panel] = []
        readline = player.readline

        def remember(size: int | None = -1) -> str:
            # The panel the Discord seat panel shows for this state, built independently of what was printed.
            if not first and terminal.panel is not None:
                first.append(adapter.seat_panel(terminal.table, play.HUMAN))
            player.states.append(terminal.table.state)
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


def fresh_table(game: str, *, seed: int, target: int) -> Any:
    """The table a terminal game starts with (nobody has moved)."""
    options = GAMES[game].options({"target": target})
    return play.Terminal(game, options, 1, "normal", seed, io.StringIO(), io.StringIO()).table


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
    coach = terminal.adapter.hint(fresh_table("bhargage", seed=1, target=31), play.HUMAN).panel.content
    assert play.plain_text(coach, {}).split("\n")[0] in player.prompts[11]  # the coach, as on Discord
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
    content = play.plain_text(seat_panel(fresh_table("bhargage", seed=1, target=31), 0).content, {})
    assert "Lay away the two Crowns." in player.prompts[1]
    assert "Choose 2 cards to lay away" in player.prompts[2]  # "hand": the panel again
    assert content.split("\n")[0] in player.prompts[2]  # the whole panel
    hint = player.prompts[3]
    assert "Lay away the two Crowns." in hint  # pressing the button does the same
    assert hint.rstrip().endswith("7. Hint")  # then the choices again: the numbers are the menu's
    assert "Choose 2 cards to lay away (type 2 numbers):" in hint
    assert not any(line in hint for line in content.split("\n"))  # and the panel is kept as it was


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
        "• type 1: Bind 🔷 bharg set: Ace of Moons 🌙, Ace of Knots 🪢, the Savage 🍃🐉, "
        "the Discovery ☀️🌊 (+6)" in hint
    )
    assert "Then discard one of:" in hint


def test_resign_asks_first() -> None:
    terminal, player, text, code = run("bhargage", seed=1, target=31, script=["resign", "n", "resign", "y"])
    assert code == 0
    assert "Resign the game against Bot (normal)? It counts as a loss. (y/n)" in player.prompts[1]
    assert "Carry on, then." in player.prompts[2]
    assert bh.is_over(terminal.table.state)
    assert len(player.answers) == 4
    assert "Player resigned." in text  # the call, once (the pressed panel said it too, on Discord)


def test_quit_asks_first_and_end_of_input_ends_cleanly() -> None:
    """Nothing of a terminal game is kept: "quit" asks (a slip carries on), the end of the input does not."""
    terminal, player, text, code = run("deluxe", seed=3, target=10, bots=2, script=["quit", "n", "quit", "y"])
    assert code == 0 and not terminal.table.is_over()
    assert "Abandon this game? Nothing of it is kept. (y/n)" in player.prompts[1]
    assert "Carry on, then." in player.prompts[2] and len(player.answers) == 4
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


# ---------------------------------------------------------------- a compact terminal (issue 30, item 10)


def lines(chunk: str) -> list[str]:
    return [line for line in chunk.split("\n") if line.strip()]


def play_exchanges(player: Player) -> list[str]:
    """What was printed between the human's card and their next one in the same count of Bhargage's play:
    the card, the computer's reply and the panel redrawn (not a hand's end, whose show is longer)."""
    states = player.states
    return [
        player.prompts[i]
        for i in range(1, len(states))
        if states[i - 1].phase is bh.Phase.PLAY
        and states[i].phase is bh.Phase.PLAY
        and states[i].hand_no == states[i - 1].hand_no
    ]


@pytest.mark.parametrize("language", ["en", "it"])
def test_an_exchange_in_the_play_is_at_most_12_lines(language: str) -> None:
    """The player's card and the computer's reply: each call once, the panel's news, the choices (before
    this: ~45 lines, every call three times and the whole board each time)."""
    terminal, player, _text, code = run("bhargage", seed=4, target=121, language=language)
    assert code == 0 and terminal.table.is_over()
    exchanges = play_exchanges(player)
    assert len(exchanges) >= 5  # an only card plays itself (Play my only card is on): not every card asks
    assert max(len(lines(chunk)) for chunk in exchanges) <= 12, max(exchanges, key=lambda c: len(lines(c)))
    assert not any("┼" in chunk for chunk in exchanges)  # the board's pegs: only when asked for


@pytest.mark.parametrize(("game", "bots"), [("bhargage", 1), ("deluxe", 2)])
def test_no_line_is_printed_twice_between_two_prompts(game: str, bots: int) -> None:
    _terminal, player, _text, code = run(game, seed=4, target=31 if game == "bhargage" else 10, bots=bots)
    assert code == 0
    for chunk in player.prompts:
        said = lines(chunk)
        assert len(said) == len(set(said)), [line for line in said if said.count(line) > 1]


@pytest.mark.parametrize(
    ("language", "script"),
    [
        ("en", ["soldier light keeper", "confirm", "Huntress"]),
        ("it", ["soldato, il guardiano del faro", "6", "cacciatrice"]),
    ],
)
def test_cards_are_chosen_by_name(language: str, script: list[str]) -> None:
    terminal, player, _text, code = run("bhargage", seed=1, target=31, script=script, language=language)
    assert code == 0
    with speaking(language):
        soldier, keeper = (f"[x] {t(key)}" for key in ("card.soldier", "card.light-keeper"))
    assert soldier in player.prompts[1] and keeper in player.prompts[1]  # both laid away, to confirm
    mine = [e.card.name for e in terminal.history if isinstance(e, bh.CardPlayed) and e.seat == play.HUMAN]
    assert mine[0] == "Huntress"


def test_a_name_that_is_no_choice_is_refused_with_the_menu_again() -> None:
    script = ["the end and more", "solder", "excuse", "1 2", "6"]
    _terminal, player, _text, code = run("bhargage", seed=1, target=31, script=script)
    assert code == 0
    assert 'Type one of the numbers shown (or "help").' in player.prompts[1]
    assert "Did you mean the Soldier?" in player.prompts[2]
    assert "Not one of the choices now: the Excuse." in player.prompts[3]
    for refusal in player.prompts[1:4]:
        assert refusal.rstrip().endswith("6. Hint")
        assert "Choose 2 cards to lay away (type 2 numbers):" in refusal


def test_the_menu_comes_again_after_a_bad_answer_a_word_or_a_hint() -> None:
    script = ["banana", "99", "hint", "rules", "board", "help"]
    _terminal, player, _text, code = run("bhargage", seed=1, target=31, script=script)
    assert code == 0
    menu = lines(player.prompts[0])[-7:]
    assert menu[0] == "Choose 2 cards to lay away (type 2 numbers):" and menu[-1] == "   6. Hint"
    for answer, chunk in zip(script, player.prompts[1:7], strict=True):
        assert lines(chunk)[-7:] == menu, answer


class Interrupted(io.StringIO):
    """stdin that answers ``answers`` and then is interrupted (Ctrl-C)."""

    def __init__(self, *answers: str) -> None:
        super().__init__()
        self.answers = list(answers)

    def readline(self, size: int | None = -1) -> str:
        if not self.answers:
            raise KeyboardInterrupt
        return self.answers.pop(0) + "\n"


def test_ctrl_c_says_goodbye_in_one_line_with_code_130() -> None:
    out = io.StringIO()
    try:
        code = play.main(["bhargage", "--seed", "1"], Interrupted("1 2"), out)
    except KeyboardInterrupt:  # not let through: it would stop the test run
        pytest.fail("Ctrl-C came out of the terminal")
    assert code == 130
    after = out.getvalue().rsplit("> ", 1)[-1]
    assert lines(after) == ["Game abandoned. Bye!"]
    assert "Traceback" not in out.getvalue()


def interruptible() -> None:
    """In the command's process before it starts: SIGINT at its default, as a terminal's foreground job has
    it. A suite started in the background (``cmd &`` from a script) hands its processes SIGINT ignored, and
    an ignored SIGINT stays ignored in a Python child: the command then ran on to the end of its input."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_the_real_command() -> None:
    """The command interrupted at its prompt, as a terminal's Ctrl-C does (asyncio.run would only notice
    once a line was typed, and then print a traceback)."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    command = [sys.executable, "-m", "bot", "play", "bhargage", "--seed", "1"]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
        preexec_fn=interruptible,
    )
    assert proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + 60
    while not seen.endswith(b"> ") and time.monotonic() < deadline:
        seen += proc.stdout.read1(4096)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert lines(out.decode("utf-8")) == ["Game abandoned. Bye!"]
    assert b"Traceback" not in err


@pytest.mark.parametrize("language", ["en", "it"])
def test_no_discord_markup_in_the_terminal(language: str) -> None:
    texts = [
        run("bhargage", seed=2, target=31, language=language)[2],
        run("deluxe", seed=3, target=10, bots=2, language=language)[2],
    ]
    with speaking(language):
        closed = t("deluxe.panel.closed")  # "… (you'll be pinged)"
    for text in texts:
        assert "-#" not in text and "pinged" not in text and closed not in text
        assert "<@" not in text and "<#" not in text and "**" not in text and "```" not in text


# ---------------------------------------------------------------- Classic Cribbage (issue 34)


def crib_choose(terminal: play.Terminal) -> str:
    """A cribbage player who answers from the menu's meaning: confirm a lay-away or cut when offered, else
    pick as many cards as the lay-away takes, claim the true count (muggins), or play the first card."""
    verbs: dict[str, list[int]] = {}
    for n, choice in terminal.choices.items():
        verbs.setdefault(choice.control.verb, []).append(n)
    for verb in ("lay", "cut"):
        if verb in verbs:
            return str(verbs[verb][0])
    if "pick" in verbs:
        size = terminal.choices[verbs["pick"][0]].control.min_values
        return " ".join(str(n) for n in verbs["pick"][:size])
    state = terminal.table.state
    if state.phase is C.Phase.CLAIM:  # muggins: the true count, as a player who counts well claims it
        _owner, kind, cards = C.show_order(state)[state.show_step]
        true = C.show_total(cards, state.starter, kind == "crib")
        return next(str(n) for n, choice in terminal.choices.items() if choice.value == str(true))
    return str(min(n for n, choice in terminal.choices.items() if choice.control.verb != "hint"))


def run_cribbage(
    *,
    players: int,
    seed: int,
    options: dict[str, Any],
    script: Iterable[str] = (),
    language: str = ENGLISH,
    pick: Callable[[play.Terminal], str] = crib_choose,
) -> tuple[play.Terminal, Player, str, int]:
    """A cribbage game to its end through stdin, the human at seat 0 and computer players at the rest."""
    with speaking(language):
        adapter = GAMES["cribbage"]
        out = io.StringIO()
        player = Player(out, script)
        terminal = play.Terminal(
            "cribbage", adapter.options(options), players - 1, "normal", seed, player, out
        )
        player.pick = lambda _chunk: pick(terminal)
        readline = player.readline

        def remember(size: int | None = -1) -> str:
            player.states.append(terminal.table.state)
            return readline(size)

        player.readline = remember  # type: ignore[method-assign]
        code = terminal.run()
    return terminal, player, out.getvalue(), code


@pytest.mark.parametrize(
    ("players", "seed", "options"),
    [
        (2, 1, {"target": 61}),
        (3, 2, {"target": 61, "muggins": True}),
        (4, 3, {"target": 61, "double_lurch": True}),
    ],
)
def test_cribbage_played_to_the_end_through_stdin(players: int, seed: int, options: dict[str, Any]) -> None:
    terminal, player, text, code = run_cribbage(players=players, seed=seed, options=options)
    assert code == 0 and C.is_over(terminal.table.state)
    assert (
        terminal.table.names[:players]
        == ("Player", "Bot (normal)", "Bot 2 (normal)", "Bot 3 (normal)")[:players]
    )
    assert len([e for e in terminal.history if isinstance(e, C.GameWon)]) == 1
    assert max(terminal.table.state.scores) >= 61
    assert text.rstrip().endswith("The game is over.")
    assert "<@" not in text and "**" not in text and "```" not in text and "Traceback" not in text
    played = [e for e in terminal.history if isinstance(e, C.CardPlayed) and e.seat == play.HUMAN]
    assert played, "the human played no card"
    if options.get("muggins"):
        claims = [e for e in terminal.history if isinstance(e, C.ClaimMade) and e.seat == play.HUMAN]
        assert claims and not any(
            isinstance(e, C.MugginsTaken) and e.owner == play.HUMAN for e in terminal.history
        )
    assert len(player.answers) > 5


def test_a_muggins_claim_typed_by_its_label_is_taken_once_even_above_the_count() -> None:
    """C9 in the terminal: the claim menus number their lines 1–30 for 0–29 points, so a claim can be typed
    by its label ("6 points"); one above the count is taken, and the difference goes to the bot."""
    typed: list[tuple[int, int]] = []

    def over_claim(terminal: play.Terminal) -> str:
        state = terminal.table.state
        if state.phase is C.Phase.CLAIM and not typed and C.waiting_for(state) == (play.HUMAN,):
            _owner, kind, cards = C.show_order(state)[state.show_step]
            true = C.show_total(cards, state.starter, kind == "crib")
            typed.append((true, true + 2))
            return f"{true + 2} points"
        return crib_choose(terminal)

    terminal, _player, text, code = run_cribbage(
        players=2, seed=2, options={"target": 61, "muggins": True}, pick=over_claim
    )
    assert code == 0 and C.is_over(terminal.table.state) and typed
    true, claimed = typed[0]
    made = [e for e in terminal.history if isinstance(e, C.ClaimMade) and e.seat == play.HUMAN]
    assert made[0].points == claimed
    taken = next(e for e in terminal.history if isinstance(e, C.MugginsTaken))
    assert (taken.owner, taken.points, taken.over) == (play.HUMAN, 2, True)
    assert f"Player claims {claimed} (the count is {true})." in text
    assert f"Muggins! 2 for Bot (normal) ({taken.total_after}): Player claimed 2 too many." in text


HOSTILE_ANSWERS = [
    "",
    "banana",
    "99",
    "1 2 3 4 5",
    "0",
    "-1",
    "1 1",
    "\x00\x1b[2J\u202e",
    "१ २",  # digits, but not ASCII ones
    "9" * 5000,
    "x" * 5000,
    "5H TC",
    "five of nothing",
    "resign",
    "n",
]


def test_cribbage_refuses_hostile_input_and_plays_on() -> None:
    terminal, player, text, code = run_cribbage(
        players=2, seed=5, options={"target": 61}, script=HOSTILE_ANSWERS
    )
    assert code == 0 and C.is_over(terminal.table.state)
    assert "Traceback" not in text
    nothing_moved = player.states[: len(HOSTILE_ANSWERS)]  # the last answer's prompt is after "n"
    assert len(nothing_moved) == len(HOSTILE_ANSWERS)
    assert all(state is nothing_moved[0] for state in nothing_moved), "a hostile answer moved the game"
    refusals = player.prompts[1 : len(HOSTILE_ANSWERS) + 1]
    number = 'Type one of the numbers shown (or "help").'
    assert number in refusals[0] and number in refusals[1] and number in refusals[2]
    assert "Choose 2 of these options." in refusals[3]
    assert "Type each option once." in refusals[6]
    assert "Carry on, then." in refusals[14]
    for refusal in refusals:
        assert "x" * 200 not in refusal and "\x1b" not in refusal and "\u202e" not in refusal
    # Every refusal shows the choices again.
    assert "Resign" in refusals[13] and refusals[13].rstrip().endswith("(y/n)")  # the question, then "n"
    assert all(CHOICE.match(lines(chunk)[-1]) for chunk in refusals[:13] + refusals[14:])


def test_cribbage_cards_are_chosen_by_their_names() -> None:
    """A menu's options by their words ("five of hearts" for "5♥ five of hearts"), commas between."""
    from bot.render.cribbage_words import label, name

    options = GAMES["cribbage"].options({})
    table = play.Terminal("cribbage", options, 1, "normal", 7, io.StringIO(), io.StringIO()).table
    hand = table.state.hands[play.HUMAN]
    with speaking(ENGLISH):
        typed = f"{name(hand[0])}, {name(hand[1]).upper()}"
        marked = [f"[x] {label(c)}" for c in hand[:2]]
    terminal, player, _text, code = run_cribbage(players=2, seed=7, options={}, script=[typed, "quit", "y"])
    assert code == 0
    state = terminal.table.state
    assert state.laid[play.HUMAN] == () and state.phase is C.Phase.DISCARD  # picked, not yet confirmed
    assert all(line in player.prompts[1] for line in marked), player.prompts[1]
    assert player.prompts[1].count("[x] ") == 2


def test_cribbage_command_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    argv = ["play", "cribbage", "--players", "4", "--seed", "5", "--muggins", "--target", "61"]
    assert bot_main([*argv, "--level", "easy"]) == 0
    out = capsys.readouterr().out
    assert (
        "you are Player (seat 1), partnered with Bot 2 (easy), against Bot (easy), Bot 3 (easy). Seed 5."
        in out
    )
    args = play.parser().parse_args(["cribbage", "--players", "3", "--double-lurch", "--target", "61"])
    assert play.options_of(args) == {"muggins": False, "double_lurch": True, "target": 61}
    assert play.computer_seats(args) == 2
    assert play.main(["cribbage", "--target", "100"], io.StringIO(""), io.StringIO()) == 2
    assert "Can't play with those options" in capsys.readouterr().err
    for bad in (["--players", "5"], ["--players", "1"], ["--bots", "2"], ["--sequences"]):
        with pytest.raises(SystemExit):
            play.main(["cribbage", *bad], io.StringIO(""), io.StringIO())
    with speaking(ENGLISH):
        helped = play.parser().format_help()
    assert "cribbage" in helped and "bhargage" in helped and "deluxe" in helped


@pytest.mark.parametrize("seed", [2, 5, 11])
def test_the_deluxe_draw_step_shows_the_hand_with_the_draw_menu(seed: int) -> None:
    """Issue 46, item 6: every time the human's turn comes round, the draw menu comes with the hand it is
    played from (before: only when the hand had changed since a panel last showed it, so after a turn that
    drew and discarded the same card the bots' turns were followed by the menu alone)."""
    _terminal, player, _text, code = run("deluxe", seed=seed, target=40, bots=2)
    assert code == 0
    draws = [
        chunk
        for chunk, state in zip(player.prompts, player.states, strict=True)
        if state.phase is D.Phase.DRAW and state.turn == play.HUMAN
    ]
    assert len(draws) > 5
    assert all("Your hand" in chunk for chunk in draws), next(c for c in draws if "Your hand" not in c)


def test_a_hint_gives_its_options_the_menus_numbers() -> None:
    """Issue 46, item 3: a hint's option reads with the numbers the menu printed ("type 2 4: …"), never as
    "1. …", which typed would be the menu's first choice; typing them picks what the hint names."""
    _terminal, player, _text, code = run("bhargage", seed=1, target=31, script=["hint"])
    assert code == 0
    lines = player.prompts[1].split("\n")
    options = [line for line in lines if line.startswith("• ")]
    assert len(options) == 4 and all(line.startswith("• type ") for line in options)
    assert not any(re.match(r"^\d+\. ", line) for line in lines)  # only the menu's own lines are numbered
    first = re.match(r"^• type (\d) (\d): (.+?) \+ (.+?) — keep ", options[0])
    assert first is not None
    menu = {m[1]: m[2] for line in lines if (m := CHOICE.match(line))}
    assert {menu[first[1]], menu[first[2]]} == {first[3], first[4]}  # the menu's own labels, by number
    picked = run("bhargage", seed=1, target=31, script=["hint", f"{first[1]} {first[2]}"])[1].prompts[2]
    note = next(line for line in picked.split("\n") if line.startswith("Lay away "))
    titles = [
        re.sub(r"[\s\u2600-\u27bf\ufe0f\U0001f300-\U0001faff]+$", "", label.split(" (")[0])
        for label in (first[3], first[4])
    ]
    assert all(title in note for title in titles), (titles, note)
