"""``python -m bot play``: a game in a terminal, you against the computer, with no Discord token or server.

It exists so anyone can try the games (and developers can play-test the engines and the computer players)
in a minute. It is a thin client over what the bot already has: the game's adapter draws the same panels,
announcements and board the Discord layer shows (printed here as text: no second renderer), a typed answer
becomes the same :class:`bot.games.Click` a button press makes, and what a click comes to, how a move is
applied and what it makes visible are the session core's (``bot.services.session``), as on Discord.
The computer seats play through ``bot.ai.<game>.choose``. Nothing is stored.
"""

from __future__ import annotations

import asyncio
import io
import random
import secrets
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from bot.ai import Level
from bot.base.i18n import current, speaking, t, tn
from bot.base.panel import Button, Panel
from bot.base.refusals import UserFacingError
from bot.cli.play_args import PROG as PROG
from bot.cli.play_args import computer_seats as computer_seats
from bot.cli.play_args import how_to_turn_on, prefs_of
from bot.cli.play_args import language_of as language_of
from bot.cli.play_args import options_of as options_of
from bot.cli.play_args import parser as parser
from bot.cli.play_menu import (
    Choice,
    by_name,
    command_words,
    numbered,
    numbers_of,
    parse_numbers,
    plain_text,
    tidy,
    words_for,
)
from bot.games import GAMES, Announcement, Aside, Click, GameAdapter, Move, Seat, StaleAction, Table
from bot.games.prefs import DEFAULT as DEFAULT_PREFS
from bot.games.prefs import Prefs, turned_on_by
from bot.games.seats import next_bot
from bot.render.refusals import said
from bot.rules.errors import RulesError, UnknownCard
from bot.services import session
from bot.settings import EXPERT_SECONDS

HUMAN = 0  # the human's seat; the computer players take the seats after it
HUMAN_ID = 1  # a person's id (bot seats have negative ids, as on Discord)
HINT_VERBS = ("hint", "sug")  # Bhargage's Hint, Bharg Deluxe's "Suggest melds"


class Quit(Exception):
    """The player typed quit (and said yes), or the input ended."""


def _table(game: str, options: Any, seed: int, seats: tuple[Seat, ...]) -> Table:
    """The terminal's one table, dealt: no server, no channel, no store (its ids are 0)."""
    adapter = GAMES[game]
    state, events = adapter.rules.start(seed, len(seats), options)
    return Table(
        id=0,
        game=game,
        adapter=adapter,
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


class Terminal:
    """One game at a terminal: the human at seat 0, computer players at the other seats. Moves go through
    the session core (``bot.services.session``), applied in memory, and what they make visible is shown by
    :class:`Screen`, the terminal's sink.

    Each event is printed once (the calls); at the prompt the human's panel shows only the lines it has not
    shown before, then its choices, which come again after a refusal, a hint or a word's answer. The whole
    panel ("hand") and the board ("board") are shown when asked for."""

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
        prefs: Prefs = DEFAULT_PREFS,
    ) -> None:
        self.adapter: GameAdapter = GAMES[game]
        self.expert_seconds = EXPERT_SECONDS  # the most a hint waits for the expert's weighing
        self.prefs = prefs  # the flags: which clicks that decide nothing are made for the player
        self.level = level
        self.rng = random.Random(seed)
        self.stdin, self.stdout = stdin, stdout
        people = [Seat(HUMAN_ID, name or t("general.play.default-name"))]
        for _ in range(bots):  # the same seat ids and names as a Discord table's bots
            people.append(Seat(*next_bot([s.user_id for s in people], level)))
        self.table = _table(game, options, seed, tuple(people))
        events = list(self.table.pending)
        self.names = {s.user_id: s.name for s in people}
        self.ledger = session.MemoryLedger()
        self.screen = Screen(self)
        self.panel: Panel | None = None  # the human's panel while a selection or a turn is under way
        self.opening = list(events)
        self.told = ""  # the last announcement
        self.history: list[Any] = list(events)  # every event so far
        self.menu: list[str] = []  # the panel's choices as printed, and what their numbers mean
        self.choices: dict[int, Choice] = {}
        self.seen: set[str] = set()  # every line a panel has shown: a panel is redrawn with the rest
        self.exchange: set[str] = set()  # every line printed since the last prompt
        self.others_moved = False  # another seat moved since the last prompt: the human's turn comes round
        self.words = command_words(self.adapter.resign_command)

    # ---------------------------------------------------------------- output

    def say(self, text: str = "") -> None:
        text = plain_text(text, self.names)
        print(text, file=self.stdout)
        self.exchange.update(text.split("\n"))

    def lines_of(self, panel: Panel) -> list[str]:
        """A panel's text (content, embed) as terminal lines."""
        texts = [panel.content]
        if panel.embed is not None:
            texts += [f"== {panel.embed.title} ==" if panel.embed.title else "", panel.embed.description]
        return plain_text("\n".join(text for text in texts if text), self.names).split("\n")

    def show(self, panel: Panel, *, full: bool = True) -> None:
        """Print a human's panel and its choices. Not ``full``: only the lines no panel has shown yet and
        nothing printed since the prompt has said (what changed), then the choices; when the others have
        moved since, the panel's later paragraphs whole (the hand the turn is played from)."""
        lines = self.lines_of(panel)
        shown = lines if full else self.news_of(lines, whole=self.others_moved)
        self.seen.update(lines)
        if tidy(shown):
            self.say("\n".join(tidy(shown)))
        self.menu, self.choices = numbered([c for c in panel.controls if c.verb not in ("hand",)])
        self.show_menu()

    def news_of(self, lines: list[str], *, whole: bool = False) -> list[str]:
        """What a panel says that is new: in its first paragraph (where the game stands) the lines not shown
        before; a later paragraph (a hand, a list) whole if any of it changed, or if ``whole``. Never what was
        just said."""
        out: list[str] = []
        for i, block in enumerate("\n".join(lines).split("\n\n")):
            rows = [row for row in block.split("\n") if row.strip() and row not in self.exchange]
            new = [row for row in rows if row not in self.seen]
            out += new if i == 0 else ["", *rows] if new or (whole and rows) else []
        return out

    def show_menu(self) -> None:
        if self.menu:
            self.say("\n".join(self.menu))

    def show_text(self, panel: Panel) -> None:
        """A panel shown whole, without controls (the board, a hint)."""
        self.say("")
        self.say("\n".join(tidy(self.lines_of(panel))))

    def show_aside(self, aside: Aside) -> None:
        """A hint: each line that speaks of an option of the panel says it by the numbers the menu printed."""
        lines = aside.panel.content.split("\n")
        for i, pick in aside.picks:
            numbers = numbers_of(pick, self.choices)
            if numbers and 0 <= i < len(lines):
                lead = next((mark for mark in ("• ", "💡 ") if lines[i].startswith(mark)), "")
                said = t(
                    "general.play.hint-pick", numbers=" ".join(map(str, numbers)), line=lines[i][len(lead) :]
                )
                lines[i] = lead + said
        self.say("")
        self.say("\n".join(tidy(plain_text("\n".join(lines), self.names).split("\n"))))

    def show_board(self) -> None:
        self.show_text(self.adapter.board(self.table))

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
        """The game to its end (0), or until Ctrl-C (130): then one line says goodbye, no traceback."""
        loop = asyncio.new_event_loop()  # not asyncio.run: its Ctrl-C handler would wait for the input
        try:
            with turned_on_by(how_to_turn_on):  # the panels' tips name the flags, not `/tavern me`
                return loop.run_until_complete(self._run())
        except KeyboardInterrupt:
            print(file=self.stdout)
            self.say(t("general.play.abandoned"))
            return 130
        finally:
            loop.close()

    async def _run(self) -> int:
        table = self.table
        partners = self.adapter.partners(table, HUMAN)
        others = ", ".join(n for s, n in enumerate(table.names) if s != HUMAN and s not in partners)
        intro = dict(
            game=self.adapter.title,
            options=self.adapter.options_text(table.options),
            name=table.names[HUMAN],
            others=others,
            seed=table.seed,
        )
        if partners:  # your partner is no opponent
            partner = ", ".join(table.names[s] for s in partners)
            self.say(t("general.play.start-partners", partner=partner, **intro))
        else:
            self.say(t("general.play.start", **intro))
        self.say(t("general.play.type-help"))
        await self.publish(self.opening)
        try:
            while not table.is_over():
                move = self.computer_move()  # the same rules as on Discord
                if move is not None:
                    seat, action = move
                    self.others_moved = self.others_moved or seat != HUMAN
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

    def computer_move(self) -> tuple[int, Any] | None:
        """(seat, action) the computer makes now: a bot's move, or a person's only possible answer."""
        seat = self.adapter.bot_seat(self.table)
        if seat is not None:
            return seat, self.adapter.bot_action(self.table, seat, self.rng, self.level)
        return self.adapter.forced(self.table, lambda _: self.prefs)

    def read(self) -> str:
        print("> ", end="", file=self.stdout, flush=True)
        self.exchange = set()
        self.others_moved = False
        line = self.stdin.readline()
        if not line:
            print(file=self.stdout)
            raise Quit()
        return line.strip()

    async def turn(self) -> None:
        """Show what is new in the human's panel, with its choices; handle answers until one moves the game
        on or changes the panel."""
        panel = self.panel or self.adapter.seat_panel(self.table, HUMAN)
        self.panel = panel
        self.say("")
        self.show(panel, full=False)
        while not await self.heard(self.read(), panel):
            pass

    async def heard(self, answer: str, panel: Panel) -> bool:
        """One typed answer: a word, numbers or names; True when the panel changed or the game moved on.
        Otherwise the choices come again (a hint's or the rules' lines may have pushed them away)."""
        word, said_words = answer.lower(), self.words
        if word in said_words["hand"]:
            self.say("")
            self.show(panel)
            return False
        if word in said_words["quit"]:
            if self.asked(t("general.play.quit-question")):  # nothing is kept: a slip must not end the game
                raise Quit()
        elif word in said_words["help"]:
            self.say(t("general.play.help"))
        elif word in said_words["board"]:
            self.show_board()
        elif word in said_words["rules"]:
            self.say(self.adapter.rules_text())
        elif word in said_words["resign"]:
            if await self.resign():
                return True
        elif word in said_words["hint"]:
            hints = [c for c in panel.controls if c.verb in HINT_VERBS and not c.disabled]
            if not hints:
                self.say(t("general.play.no-hint"))
            elif await self.press(Choice(hints[0]), ()):
                return True
        elif await self.chosen(answer):
            return True
        self.show_menu()
        return False

    async def chosen(self, answer: str) -> bool:
        """Choices typed by number, by a button's label or by cards' names; True when the panel changed."""
        numbers = parse_numbers(answer)
        if numbers is None and any(ch.isalpha() for ch in answer):
            try:
                numbers = by_name(answer, self.choices)
            except UnknownCard as err:
                if err.suggestions:  # a card's name misspelt: say which were meant
                    self.say(said(err))
                    return False
            except RulesError as err:
                self.say(said(err))
                return False
        picked = [self.choices.get(n) for n in numbers or ()]
        if not picked or any(c is None for c in picked):
            self.say(t("general.play.type-a-number"))
            return False
        return await self.answer([c for c in picked if c is not None])

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
        click = Click("g", table.id, control.token, control.verb, control.arg, values, self.prefs)
        try:
            outcome = session.outcome(table, HUMAN, click)
            if isinstance(outcome, session.ShowHand):
                return True
            if isinstance(outcome, Aside):
                self.show_aside(await session.coached(outcome, self.expert_seconds, hurry=False))
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
        """The human's move; the pressed panel stays for the rest of the turn (e.g. bind after drawing).
        What it says otherwise the calls tell (and "you'll be pinged" is Discord's)."""
        played = await self.play(HUMAN, move)
        done = played.done
        self.panel = None
        if done is not None and done.controls and HUMAN in self.table.waiting_for():
            self.panel = done
        await self.publish(played.events)

    async def resign(self) -> bool:
        """Ask, then resign (or leave) through the adapter; True if the game moved on."""
        table, adapter = self.table, self.adapter
        try:
            move = session.resign_move(table, HUMAN)
        except (UserFacingError, RulesError) as err:
            self.say(said(err))
            return False
        if not self.asked(adapter.resign_question(table, HUMAN)):
            return False
        await self.move(move)
        return True

    def asked(self, question: str) -> bool:
        """A yes-or-no question answered yes; anything else carries on (and says so)."""
        self.say(t("general.play.confirm", question=question))
        if self.read().lower() in words_for("y yes", t("general.play.words.yes")):  # i18n: not text
            return True
        self.say(t("general.play.carry-on"))
        return False


class Screen:
    """The terminal as the session core's sink: the calls printed, each event once (not the ping: the
    prompt calls the player here); the human's fresh panel kept for the prompt, which shows what is new in
    it. The board only when asked for ("board"), or at the end (``run`` closes)."""

    def __init__(self, terminal: Terminal) -> None:
        self.terminal = terminal
        self.dealt: Panel | None = None  # the human's fresh panel, for the prompt

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
        """Nothing: the calls said what changed, and the prompt shows the human's panel."""

    async def last(self, table: Table, news: session.News) -> None:
        terminal, dealt, self.dealt = self.terminal, self.dealt, None
        if dealt is not None and not table.is_over():
            terminal.panel = dealt if HUMAN in table.waiting_for() else None


# ---------------------------------------------------------------- command line


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
        bots = computer_seats(args)
        name = " ".join((args.name or "").split())[:32] or None
        prefs = prefs_of(args)
        return Terminal(args.game, options, bots, args.level, seed, stdin, stdout, name, prefs).run()
