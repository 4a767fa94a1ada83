"""A table in play and the adapter contract of the game played there.

:class:`Table` is what the shared table code hands a game: its seats, the engine state, what it remembers.
:class:`GameAdapter` is what a game answers about a table, hook by hook. Each refers to the other (a table
plays its adapter's rules; every hook is asked about a table), so the two share this module.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, Protocol

from bot.ai import LEVELS, Level
from bot.base.i18n import Msg, named, t
from bot.base.panel import Button, Control, Option, Panel, Select
from bot.games.answers import Announcement, Aside, Click
from bot.games.lobby import Lobby
from bot.games.meta import TableMeta
from bot.games.prefs import Prefs
from bot.games.seats import accent, is_bot, shown
from bot.render.levels import level_name
from bot.rules.engine import Engine, Result


@dataclass(frozen=True)
class Seat:
    user_id: int
    name: str


@dataclass(eq=False)
class Table:
    """One game in play. ``seq`` counts the actions applied since ``start``; ``pending`` holds the events
    the channel has not been shown yet (see ``TableMeta.untold_after``); ``snapshot_seq`` is the seq of the
    store's snapshot of it (0: none known), from which the next one is counted. ``version`` is the stored
    game's version this copy matches (``GameRecord.version``); ``stale`` says another process has written
    the game since, so it is read again before use."""

    id: int
    game: str
    adapter: GameAdapter
    guild_id: int
    channel_id: int
    seed: int
    options: Any  # the engine's Options
    seats: tuple[Seat, ...]
    state: Any  # the engine's State
    seq: int
    created_at: float
    last_action_at: float
    meta: TableMeta = field(default_factory=TableMeta)
    pending: list[Any] = field(default_factory=list)
    status: str = "active"
    snapshot_seq: int = 0
    version: int = 0
    stale: bool = False

    @property
    def module(self) -> Engine:
        """The rules engine."""
        return self.adapter.rules

    def seat_of(self, user_id: int) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return i
        return None

    @property
    def user_ids(self) -> tuple[int, ...]:
        return tuple(s.user_id for s in self.seats)

    def is_bot(self, seat: int) -> bool:
        """Whether a computer player sits here (it is never pinged, DMed or nudged)."""
        return is_bot(self.seats[seat].user_id)

    def mention(self, seat: int) -> str:
        """How the channel calls a seat: a ping for a person, the bold name for a bot."""
        own = self.seats[seat]
        return f"**{shown(own.user_id, own.name)}**" if self.is_bot(seat) else f"<@{own.user_id}>"

    @property
    def humans(self) -> tuple[int, ...]:
        """The seats people play."""
        return tuple(s for s in range(len(self.seats)) if not self.is_bot(s))

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' names as players read them (a bot's in the language in force)."""
        return tuple(shown(s.user_id, s.name) for s in self.seats)

    def waiting_for(self) -> tuple[int, ...]:
        return tuple(self.module.waiting_for(self.state))

    def people_waited_for(self) -> tuple[int, ...]:
        """The seats of people the game waits for (a bot waited for is moving, never idle)."""
        return tuple(s for s in self.waiting_for() if not self.is_bot(s))

    def is_over(self) -> bool:
        return bool(self.module.is_over(self.state))

    def result(self) -> Result | None:
        """The engine's Result, or None while the game runs."""
        return self.module.final_result(self.state) if self.is_over() else None


@dataclass(frozen=True)
class Move:
    """A click that asks for an engine action. ``token`` must still be the seat's freshness token when the
    table's lock is held (else the button is stale); ``done`` is what the clicked panel turns into."""

    action: Any
    token: str
    done: Callable[[Table, Sequence[Any]], Panel | None] | None = None


class ComputerPlayer(Protocol):
    """A game's computer player (``bot.ai.bhargage``, ``bot.ai.deluxe``): an action from a seat's view."""

    def choose(self, view: Any, rng: random.Random, level: Level = ...) -> Any: ...


class GameAdapter:
    """What the shared table code asks a game, in five groups of hooks: who the game is and its options;
    the panels it draws; what a move tells; its seats and computer players; resigning and claims.

    A new game sets ``name``, ``title``, ``rules`` and ``command`` and answers the hooks that raise
    NotImplementedError (its options and rules in words, its lobby, board, private panel and clicks, its
    announcement, score line and waiting text, its resign action and the resign and claim texts). The other
    hooks have defaults that fit a turn-based game with one freshness token (the table's action count),
    where every seat plays to the end, the panels redrawn after a move are those of the seats the game
    then waits for, and a claim against an idle seat resigns it (``tests/fakegame.py`` is such a game)."""

    # ---------------------------------------------------------------- who the game is, and its options

    name: ClassVar[str]
    title: ClassVar[str]
    rules: Engine
    ai: ComputerPlayer | None = None  # None: the bot can't play it
    command: ClassVar[str]  # the slash command group, for help texts ("/bhargage")
    board_command: ClassVar[str] = "board"  # what the game's table commands are called
    resign_command: ClassVar[str] = "resign"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    # How a game is gathered: a game of two may be a challenge (one invited player: Accept/Decline) and/or
    # an open lobby (Join/Start, ``min_players``–``max_players``). A game offers at least one of them.
    challenge: ClassVar[bool] = True
    gathers: ClassVar[bool] = False
    # (lowest, usual, highest) target when the game has a "target" option; a server may change the usual.
    targets: ClassVar[tuple[int, int, int] | None] = None
    colour: ClassVar[int] = 0xC27C0E
    message_limit: ClassVar[int] = 1900

    def options(self, raw: Mapping[str, Any]) -> Any:
        """The engine's Options read from their stored form (a RulesError if the game can't be played so)."""
        return self.rules.Options.from_dict(dict(raw))

    def options_text(self, options: Any) -> str:
        raise NotImplementedError

    def rules_text(self, link: str | None = None) -> str:
        """The short rules for players, ending with where the full rules are (``link``)."""
        raise NotImplementedError

    def lobby_panel(self, lobby: Lobby) -> Panel:
        """The challenge or lobby message for its current status (controls only while it is open)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- the panels the game draws

    def board(self, table: Table) -> Panel:
        """The one channel message kept current for the table."""
        raise NotImplementedError

    def seat_panel(self, table: Table, seat: int, note: str = "") -> Panel:
        """The seat's private panel: its hand and what it may do now."""
        raise NotImplementedError

    def private_panel(self, table: Table, seat: int, note: str = "") -> Panel:
        """The seat's panel as Discord shows it: one container in the seat's colour (``seat_panel`` is what
        every reader shares)."""
        return self.seat_panel(table, seat, note).laid_out(accent(seat))

    def token(self, table: Table, seat: int) -> str:
        """What the seat's controls carry to prove they are current."""
        return str(table.seq)

    def click(self, table: Table, seat: int, click: Click) -> Move | Panel | Aside:
        """One of the game's own controls: a move to make, the clicked panel redrawn (a selection), or a
        private answer that changes nothing (a hint)."""
        raise NotImplementedError

    @staticmethod
    def hand_button(label: str | None = None, arg: str = "") -> Button:
        """The "Show my hand" button (``label`` replaces the words)."""
        text = t("general.hand.button") if label is None else label
        return Button(text[:80], "hand", arg=arg, emoji="🃏")

    def score_line(self, table: Table) -> str:
        """The game's standing in one line for the channel's summary: the scores, or who won and how."""
        raise NotImplementedError

    def summary(self, table: Table, where: str) -> Panel:
        """The one message the channel keeps for a game played in a thread: players, options, the
        standing, and where to follow it (``where``, a thread mention)."""
        names = t("general.summary.versus").join(f"**{n}**" for n in table.names)
        over = table.status != "active"
        follow = (
            t("general.summary.played-in", where=where) if over else t("general.summary.follow", where=where)
        )
        options = self.options_text(table.options)
        head = t("general.summary.head", game=self.title, options=options, players=names)
        return Panel(content="\n".join([head, self.score_line(table), follow]))

    def waiting_text(self, table: Table) -> str:
        """Whom the game waits for, and for what (the idle nudge)."""
        raise NotImplementedError

    def result_lines(self, table: Table, events: Sequence[Any]) -> list[str]:
        """The end of the game in a few lines, for players told by DM when the channel refused it."""
        return []

    # ---------------------------------------------------------------- what a move tells

    def announce(self, table: Table, events: Sequence[Any]) -> Announcement:
        """What the channel is told about ``events`` (everything since it was last told)."""
        raise NotImplementedError

    def tells_later(self, table: Table, events: Sequence[Any]) -> bool:
        """True when this move's events are not told the channel yet: they wait, with the calls they make,
        to be told with a later move's (the end of the turn). Events that end the game are always told."""
        return False

    def redraws(self, table: Table, events: Sequence[Any]) -> dict[int, str]:
        """The seats whose private panel is redrawn after these events (everything the channel was just
        told), with a note for each saying what happened. The panel is edited in place; see ``replaces``.
        By default the seats the game now waits for, with no note."""
        return {seat: "" for seat in table.waiting_for()}

    def replaces(self, table: Table, events: Sequence[Any]) -> bool:
        """True when these events deal a new hand: every redrawn panel is then a new message (it notifies),
        and the old one keeps its text but loses its controls."""
        return False

    def milestone(self, table: Table, events: Sequence[Any]) -> bool:
        """True when the channel's summary of the game changes (a hand ended); the end of the game always
        does."""
        return False

    # ---------------------------------------------------------------- seats and computer players

    def playing(self, table: Table) -> list[int]:
        """Seats still in the game (a game where players may leave and play on says who has not)."""
        return list(range(len(table.seats)))

    def partners(self, table: Table, seat: int) -> tuple[int, ...]:
        """The seats playing on ``seat``'s side besides it (a partnership); none by default."""
        return ()

    def rematch_seats(self, table: Table) -> list[int]:
        """Seats invited back (a challenge invites the other seat of these)."""
        return self.playing(table)

    def people_gone(self, table: Table) -> bool:
        """No person plays on: every seat still in the game is a bot's."""
        return not set(self.playing(table)) & set(table.humans)

    def bot_seat(self, table: Table) -> int | None:
        """The bot seat that acts now: one the engine waits for — or, once no person plays on, any bot still
        seated (it leaves, so bots alone never play on)."""
        if table.status != "active":
            return None
        if self.people_gone(table):
            return next((s for s in self.playing(table) if table.is_bot(s)), None)
        return next((s for s in table.waiting_for() if table.is_bot(s)), None)

    def bot_action(self, table: Table, seat: int, rng: random.Random, level: Level) -> Any:
        """What the bot at ``seat`` does: its player's choice from the seat's view, or leaving when no person
        plays on. Pure work on the state; the controller runs it in a worker thread."""
        if self.people_gone(table):
            return self.resign_action(table, seat)
        if self.ai is None:
            raise TypeError(f"{self.name} has no computer player")
        return self.ai.choose(self.rules.view(table.state, seat), rng, level)

    @staticmethod
    def coach_seed(table: Table, seat: int) -> str:
        """The seed of the expert's weighing for the coach at this decision (the same each time)."""
        return f"{table.seed}:{table.seq}:{seat}:coach"

    def thinker(self, table: Table, seat: int, level: Level) -> tuple[Callable[..., Any], Any] | None:
        """``(choose, view)`` when the bot at ``seat`` thinks in the thinking process (an expert, while a
        person plays on; ``bot.services.thinking``): ``choose(view, rng)`` is the expert's, a module's
        function bound to its level, so it goes to the process by name; the view is the seat's, a copy.
        None: :meth:`bot_action` decides."""
        if level != "expert" or self.ai is None or self.people_gone(table):
            return None
        return partial(self.ai.choose, level="expert"), self.rules.view(table.state, seat)

    def forced(self, table: Table, prefs: Callable[[int], Prefs]) -> tuple[int, Any] | None:
        """(seat, action) when the person the game waits for has one possible answer: it is made for them at
        once, with no click — always where it is no choice at all, or where the seat's preferences (``prefs``:
        seat → that player's :class:`Prefs`) say to skip it. None by default."""
        return None

    def bot_controls(self, lobby: Lobby) -> tuple[Control, ...]:
        """An open lobby's "Add a bot" menu (while a seat is free) and "Remove a bot" (while one sits)."""
        if self.ai is None or lobby.status != "open":
            return ()
        out: list[Control] = []
        if len(lobby.members) < self.max_players:
            levels = tuple(
                Option(t("general.bots.add-level", level=level_name(lv)), lv, description=level_words(lv))
                for lv in LEVELS
            )
            out.append(Select(t("general.bots.add-placeholder"), "addbot", levels))
        if any(is_bot(m) for m in lobby.members):
            out.append(Button(t("general.bots.remove"), "dropbot"))
        return tuple(out)

    # ---------------------------------------------------------------- resigning and claims

    # the resign button and what its panel turns into, as messages looked up when shown (a game whose players
    # leave instead overrides them: ``resign_label_msg = Msg("deluxe.resign.label")``)
    resign_label_msg: ClassVar[Msg] = Msg("general.resign.label")
    resign_done_msg: ClassVar[Msg] = Msg("general.resign.done")

    def resign_label_text(self) -> str:
        """The resign button's label in the language in force ("Resign")."""
        return str(self.resign_label_msg)

    def resign_done_text(self) -> str:
        """What the resign panel says once done, in the language in force ("You resigned.")."""
        return str(self.resign_done_msg)

    def resign_action(self, table: Table, seat: int) -> Any:
        """The engine action of a seat that resigns (or leaves); a refusal if it can't."""
        raise NotImplementedError

    def resign_question(self, table: Table, seat: int) -> str:
        """The confirmation the resign button asks first."""
        raise NotImplementedError

    def claim_action(self, table: Table, seat: int) -> Any:
        """What happens to a seat the others claim against after it idled too long: by default, it
        resigns."""
        return self.resign_action(table, seat)

    def claim_offer(self, table: Table, idle: int, minutes: int) -> tuple[str, str]:
        """(message, button label) offering the claim."""
        raise NotImplementedError

    def claimed_text(self, table: Table, idle: int, by: str) -> str:
        """What the channel is told once the claim is made (``by``: who made it)."""
        raise NotImplementedError


def level_words(level: str) -> str:
    """What a bot level plays like, in the language in force: "Plays the obvious points"."""
    return named("level-about", level)
