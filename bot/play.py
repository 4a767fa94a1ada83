"""``python -m bot play``: a game in a terminal, you against the computer, with no Discord token or server.

It exists so anyone can try the games (and developers can play-test the engines and the computer players)
in a minute. It is a thin client over what the bot already has: the game's adapter draws the same panels,
announcements and board the Discord layer shows (printed here as text: no second renderer), a typed answer
becomes the same :class:`bot.games.Click` a button press makes, and what a click comes to, how a move is
applied and what it makes visible are the session core's (``bot.services.session``), as on Discord.
The computer seats play through ``bot.ai.<game>.choose``. Nothing is stored.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import re
import secrets
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from bot.ai import DEFAULT_LEVEL, LEVELS, Level
from bot.base.i18n import ENGLISH, LANGUAGES, current, speaking, t, tn
from bot.base.panel import Button, Control, Panel, Select
from bot.base.refusals import UserFacingError
from bot.games import GAMES, Announcement, Aside, Click, GameAdapter, Move, Seat, StaleAction, Table
from bot.games.seats import next_bot
from bot.render.refusals import said
from bot.rules.errors import RulesError
from bot.services import session

HUMAN = 0  # the human's seat; the computer players take the seats after it
HUMAN_ID = 1  # a person's id (bot seats have negative ids, as on Discord)
HINT_VERBS = ("hint", "sug")  # Bhargage's Hint, Bharg Deluxe's "Suggest melds"


def words_for(english: str, local: str) -> tuple[str, ...]:
    """The words a player may type for one command: the English ones and those of the language in force."""
    return tuple(dict.fromkeys([*english.split(), *local.lower().split()]))


def plain_text(text: str, names: dict[int, str]) -> str:
    """Discord markup made readable in a terminal: mentions become names, emphasis and fences go."""
    someone, here, soon = t("general.play.someone"), t("general.play.this-table"), t("general.play.soon")
    text = re.sub(r"<@!?(\d+)>", lambda m: names.get(int(m.group(1)), someone), text)
    text = re.sub(r"<#\d+>", lambda m: here, text)
    text = re.sub(r"<a?(:\w+:)\d+>", r"\1", text)  # custom emoji
    text = re.sub(r"<t:(\d+)(?::\w)?>", lambda m: soon, text)
    text = text.replace("**", "").replace("__", "")
    text = re.sub(r"(?<![\w*])\*(\S(?:[^*\n]*\S)?)\*(?![\w*])", r"\1", text)  # *italics*
    lines = [line for line in text.split("\n") if not line.startswith("```")]
    return "\n".join(lines)


@dataclass(frozen=True)
class Choice:
    """A numbered line of the prompt: a button, or one option of a menu."""

    control: Control
    value: str | None = None  # the option's value (menus only)


def numbered(controls: Sequence[Control]) -> tuple[list[str], dict[int, Choice]]:
    """The controls as prompt lines, and what each number means. Disabled buttons are shown unnumbered."""
    lines: list[str] = []
    choices: dict[int, Choice] = {}
    for control in controls:
        if isinstance(control, Select):
            if control.disabled:
                continue
            low, high = control.min_values, control.max_values
            if high > 1 and low == high:
                how = tn("general.play.menu.type-n", low)
            elif high > 1 and low == 0:
                how = tn("general.play.menu.type-up-to", high)
            elif high > 1:
                how = t("general.play.menu.type-range", low=low, high=high)
            else:
                how = tn("general.play.menu.type-n", 1)
            lines.append(t("general.play.menu.head", menu=control.placeholder, how=how))
            for option in control.options:
                n = len(choices) + 1
                choices[n] = Choice(control, option.value)
                mark = "[x] " if option.default else ""
                extra = f" — {option.description}" if option.description else ""
                lines.append(f"  {n:>2}. {mark}{option.label}{extra}")
        elif control.disabled:
            lines.append(t("general.play.not-now", label=control.label))
        else:
            n = len(choices) + 1
            choices[n] = Choice(control)
            lines.append(f"  {n:>2}. {control.label}")
    return lines, choices


def parse_numbers(text: str) -> list[int] | None:
    words = [w for w in re.split(r"[\s,]+", text.strip()) if w]
    if not words or not all(w.isascii() and w.isdigit() and len(w) <= 3 for w in words):
        return None
    return [int(w) for w in words]


class Quit(Exception):
    """The player typed quit, or the input ended."""


class Terminal:
    """One game at a terminal: the human at seat 0, computer players at the other seats. Moves go through
    the session core (``bot.services.session``), applied in memory, and what they make visible is shown by
    :class:`Screen`, the terminal's sink."""

    def __init__(
        self,
        game: str,
        options: Any,
        bots: int,
        level: Level,
        seed: int,
        stdin: TextIO,
        stdout: TextIO,
        name: str | None = None,
    ) -> None:
        self.adapter: GameAdapter = GAMES[game]
        self.level = level
        self.rng = random.Random(seed)
        self.stdin, self.stdout = stdin, stdout
        people = [Seat(HUMAN_ID, name or t("general.play.default-name"))]
        for _ in range(bots):  # the same seat ids and names as a Discord table's bots
            people.append(Seat(*next_bot([s.user_id for s in people], level)))
        seats = tuple(people)
        state, events = self.adapter.rules.start(seed, len(seats), options)
        self.table = Table(
            id=0,
            game=game,
            adapter=self.adapter,
            guild_id=0,
            channel_id=0,
            seed=seed,
            options=options,
            seats=seats,
            state=state,
            seq=0,
            created_at=0.0,
            last_action_at=0.0,
            pending=list(events),
        )
        self.names = {s.user_id: s.name for s in seats}
        self.ledger = session.MemoryLedger()
        self.screen = Screen(self)
        self.panel: Panel | None = None  # the human's panel while a selection or a turn is under way
        self.opening = list(events)
        self.told = ""  # the last announcement
        self.history: list[Any] = list(events)  # every event so far

    # ---------------------------------------------------------------- output

    def say(self, text: str = "") -> None:
        print(plain_text(text, self.names), file=self.stdout)

    def show(self, panel: Panel, *, controls: bool = True) -> dict[int, Choice]:
        """Print a panel (content, embed) and its controls as numbered choices; returns the numbers."""
        if panel.content:
            self.say(panel.content)
        if panel.embed is not None:
            if panel.embed.title:
                self.say(f"== {panel.embed.title} ==")
            self.say(panel.embed.description)
        if not controls:
            return {}
        lines, choices = numbered([c for c in panel.controls if c.verb not in ("hand",)])
        for line in lines:
            self.say(line)
        return choices

    def show_board(self) -> None:
        self.say("")
        self.show(self.adapter.board(self.table), controls=False)

    # ---------------------------------------------------------------- the game

    async def play(self, seat: int, move: Move) -> session.Played:
        """A move through the session core, applied in memory; every event is kept (``history``)."""
        played = await session.play(self.ledger, self.table, seat, move)
        self.history += played.events
        return played

    async def publish(self, events: Sequence[Any]) -> None:
        """What the events make visible, decided by the session core, shown by the screen."""
        language = current()
        told = session.news(self.table, events, channel=language, language_of=lambda _seat: language)
        await session.publish(self.screen, self.table, told)

    def run(self) -> int:
        return asyncio.run(self._run())

    async def _run(self) -> int:
        table = self.table
        self.say(
            t(
                "general.play.start",
                game=self.adapter.title,
                options=self.adapter.options_text(table.options),
                name=table.names[HUMAN],
                others=", ".join(table.names[1:]),
                seed=table.seed,
            )
        )
        self.say(t("general.play.type-help"))
        await self.publish(self.opening)
        try:
            while not table.is_over():
                seat = self.adapter.bot_seat(table)  # the same rule as on Discord
                if seat is not None:
                    action = self.adapter.bot_action(table, seat, self.rng, self.level)
                    played = await self.play(seat, Move(action, ""))
                    self.panel = None
                    await self.publish(played.events)
                elif HUMAN in table.waiting_for():
                    await self.turn()
                else:  # nobody to wait for and not over: cannot happen with these engines
                    self.say(t("general.play.stuck"))
                    return 1
        except Quit:
            self.say(t("general.play.abandoned"))
            return 0
        self.say("")
        self.say(t("general.play.over"))
        board = self.adapter.board(table)
        if not board.content or board.content not in self.told:
            self.show_board()  # the controller's last board edit (Bhargage's final announcement has it)
        return 0

    def read(self) -> str:
        print("> ", end="", file=self.stdout, flush=True)
        line = self.stdin.readline()
        if not line:
            print(file=self.stdout)
            raise Quit()
        return line.strip()

    async def turn(self) -> None:
        """Show the human's panel and handle one answer."""
        panel = self.panel or self.adapter.seat_panel(self.table, HUMAN)
        self.panel = panel
        self.say("")
        choices = self.show(panel)
        quit_words = words_for("quit exit q", t("general.play.words.quit"))  # i18n: not text
        help_words = words_for("help ?", t("general.play.words.help"))  # i18n: not text
        board_words = words_for("board", t("general.play.words.board"))  # i18n: not text
        hand_words = words_for("hand panel", t("general.play.words.hand"))  # i18n: not text
        rules_words = words_for("rules", t("general.play.words.rules"))  # i18n: not text
        english_resign = f"resign leave {self.adapter.resign_command}"  # i18n: not text
        resign_words = words_for(english_resign, t("general.play.words.resign"))
        hint_words = words_for("hint", t("general.play.words.hint"))  # i18n: not text
        while True:
            answer = self.read()
            word = answer.lower()
            if word in quit_words:
                raise Quit()
            if word in help_words:
                self.say(t("general.play.help"))
            elif word in board_words:
                self.show_board()
            elif word in hand_words:
                self.say("")
                choices = self.show(panel)
            elif word in rules_words:
                self.say(self.adapter.rules_text())
            elif word in resign_words:
                if await self.resign():
                    return
            elif word in hint_words:
                hints = [c for c in panel.controls if c.verb in HINT_VERBS and not c.disabled]
                if not hints:
                    self.say(t("general.play.no-hint"))
                elif await self.press(Choice(hints[0]), ()):
                    return
            else:
                numbers = parse_numbers(answer)
                picked = [choices.get(n) for n in numbers] if numbers else []
                if not picked or any(c is None for c in picked):
                    self.say(t("general.play.type-a-number"))
                    continue
                if await self.answer([c for c in picked if c is not None]):
                    return

    async def answer(self, picked: list[Choice]) -> bool:
        """Press what the numbers name; True when the panel changed (redraw it)."""
        control = picked[0].control
        if any(c.control is not control for c in picked):
            self.say(t("general.play.one-menu"))
            return False
        if isinstance(control, Button):
            if len(picked) > 1:
                self.say(t("general.play.button-alone"))
                return False
            return await self.press(picked[0], ())
        values = tuple(c.value for c in picked if c.value is not None)
        if len(set(values)) != len(values):
            self.say(t("general.play.each-once"))
            return False
        if not control.min_values <= len(values) <= control.max_values:
            low, high = control.min_values, control.max_values
            if low == high:
                self.say(tn("general.play.choose-n", low))
            else:
                self.say(t("general.play.choose-range", low=low, high=high))
            return False
        return await self.press(picked[0], values)

    async def press(self, choice: Choice, values: tuple[str, ...]) -> bool:
        """A click on the human's panel, as the session core says it comes to; True when the panel changed.
        Resigning asks first (on Discord the question is its own message)."""
        control, table = choice.control, self.table
        if control.verb == "resign":
            return await self.resign()
        click = Click("g", table.id, control.token, control.verb, control.arg, values)
        try:
            outcome = session.outcome(table, HUMAN, click)
            if isinstance(outcome, session.ShowHand):
                return True
            if isinstance(outcome, Aside):
                self.say("")
                self.show(outcome.panel, controls=False)
                return False
            if isinstance(outcome, Panel):
                self.panel = outcome
                return True
            if session.stale(table, HUMAN, outcome):
                raise StaleAction()
            await self.move(outcome)
        except (UserFacingError, RulesError) as err:
            self.say(said(err))
            return False
        return True

    async def move(self, move: Move) -> None:
        played = await self.play(HUMAN, move)
        done = played.done
        self.panel = None
        if done is not None and done.controls and HUMAN in self.table.waiting_for():
            self.panel = done  # the rest of the turn (e.g. bind after drawing)
        elif done is not None and done.content:
            self.say(done.content)
        await self.publish(played.events)

    async def resign(self) -> bool:
        """Ask, then resign (or leave) through the adapter; True if the game moved on."""
        table, adapter = self.table, self.adapter
        try:
            move = session.resign_move(table, HUMAN)
        except (UserFacingError, RulesError) as err:
            self.say(said(err))
            return False
        self.say(t("general.play.confirm", question=adapter.resign_question(table, HUMAN)))
        if self.read().lower() not in words_for("y yes", t("general.play.words.yes")):  # i18n: not text
            self.say(t("general.play.carry-on"))
            return False
        await self.move(move)
        return True


class Screen:
    """The terminal as the session core's sink: the calls printed (not the ping: the prompt calls the
    player here), then the board and the human's fresh panel when the game deals one — shown at once, or
    kept for the prompt when it is the human's turn. Nothing of the end but the calls (``run`` closes)."""

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.dealt: Panel | None = None  # the human's fresh panel, shown once the calls are out

    async def panel(self, table: Table, seat: int, panel: Panel, *, retire: bool) -> None:
        if seat == HUMAN:
            self.dealt = panel

    async def calls(self, table: Table, calls: Announcement) -> bool:
        terminal = self.terminal
        texts = list(calls.messages)
        if texts:
            terminal.say("")
        for text in texts:
            terminal.say(text.strip("\n"))
        terminal.told = "\n".join(texts)
        return True

    async def board(self, table: Table, news: session.News) -> None:
        if self.dealt is not None and not table.is_over():
            self.terminal.show_board()

    async def last(self, table: Table, news: session.News) -> None:
        terminal, dealt, self.dealt = self.terminal, self.dealt, None
        if dealt is None or table.is_over():
            return
        terminal.panel = None
        terminal.say("")
        if HUMAN in table.waiting_for():
            terminal.panel = dealt
        else:
            terminal.show(dealt, controls=False)


# ---------------------------------------------------------------- command line


PROG = "python -m bot play"  # i18n: not text


def language_of(argv: Sequence[str] | None) -> str:
    """The ``--language`` given (English if none): read first, so the help itself is in that language."""
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--language", choices=LANGUAGES, default=ENGLISH)
    known, _ = first.parse_known_args(argv)
    language: str = known.language
    return language


def parser() -> argparse.ArgumentParser:
    """The command line, its help in the language in force."""
    top = argparse.ArgumentParser(prog=PROG, description=t("general.play.args.description"))
    top.add_argument("--language", choices=LANGUAGES, default=ENGLISH, help=t("general.play.args.language"))
    games = top.add_subparsers(dest="game", required=True, metavar=t("general.play.args.game-metavar"))

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(  # also after the game's name (it is read before the rest: ``language_of``)
            "--language", choices=LANGUAGES, default=argparse.SUPPRESS, help=t("general.play.args.language")
        )
        p.add_argument("--level", choices=LEVELS, default=DEFAULT_LEVEL, help=t("general.play.args.level"))
        p.add_argument("--seed", type=int, help=t("general.play.args.seed"))
        p.add_argument("--target", type=int, help=t("general.play.args.target"))
        p.add_argument("--name", help=t("general.play.args.name"))

    bh = games.add_parser("bhargage", help=t("general.play.args.bhargage"))
    common(bh)
    bh.add_argument("--sequences", action="store_true", help=t("general.play.args.sequences"))
    dx = games.add_parser("deluxe", help=t("general.play.args.deluxe"))
    common(dx)
    dx.add_argument(
        "--bots",
        type=int,
        default=2,
        choices=range(1, 6),
        metavar="1-5",
        help=tn("general.play.args.default", 2),
    )
    dx.add_argument("--pawns", action="store_true", help=t("general.play.args.pawns"))
    dx.add_argument("--courts", action="store_true", help=t("general.play.args.courts"))
    dx.add_argument(
        "--fast-start",
        type=int,
        default=0,
        choices=range(4),
        metavar="0-3",
        help=tn("general.play.args.default", 0),
    )
    return top


def options_of(args: argparse.Namespace) -> dict[str, Any]:
    raw: dict[str, Any] = {}
    if args.target is not None:
        raw["target"] = args.target
    if args.game == "bhargage":
        raw["sequences"] = args.sequences
    else:
        raw.update(pawns=args.pawns, courts=args.courts, fast_start=args.fast_start)
    return raw


def main(
    argv: Sequence[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """``python -m bot play …``; returns the exit code (2 for options the game refuses). ``--language it``
    plays the game in Italian."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(errors="replace")  # a terminal that can't show the suit emoji gets "?"
    with speaking(language_of(argv)):
        args = parser().parse_args(argv)
        adapter = GAMES[args.game]
        try:
            options = adapter.options(options_of(args))
        except (RulesError, ValueError) as err:
            print(t("general.play.bad-options", reason=said(err)), file=sys.stderr)
            return 2
        seed = args.seed if args.seed is not None else secrets.randbits(31)
        bots = getattr(args, "bots", 1)
        name = " ".join((args.name or "").split())[:32] or None
        return Terminal(args.game, options, bots, args.level, seed, stdin, stdout, name).run()
