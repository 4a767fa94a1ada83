"""Game adapters: the one small object per game that the shared table code drives.

An adapter names its rules engine and says, for that game only: its options and how they read, how its lobby
works (a two-player challenge, or an open lobby of ``min_players``–``max_players``), what the board, a seat's
private panel and a move's announcement look like (as :mod:`bot.base.panel` values built from events and seat
views), and what a click on one of its own controls means. Everything else — locks, the store, delivery to
the channel and to DMs, closed-DMs fallback, timers, resign, claims and rematch — is shared code
(:mod:`bot.edge.controller`, :mod:`bot.services.lobbies`, :mod:`bot.services.tables`). Adapters hold no
state and import no Discord.

The registry imports adapters lazily, so one missing or broken game does not stop the bot.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from bot.ai import LEVELS, Level
from bot.base.i18n import Msg, named, t
from bot.base.panel import Button, Control, Option, Panel, Picture, Select
from bot.games.seats import is_bot
from bot.render.levels import level_name


def level_words(level: str) -> str:
    """What a bot level plays like, in the language in force: "Plays the obvious points"."""
    return named("level-about", level)


if TYPE_CHECKING:
    from bot.services.tables import Table
    from bot.store import Lobby


@dataclass(frozen=True)
class Click:
    """A parsed component interaction: what the custom id says, plus the values chosen in a select."""

    scope: str
    key: int
    token: str
    verb: str
    arg: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Move:
    """A click that asks for an engine action. ``token`` must still be the seat's freshness token when the
    table's lock is held (else the button is stale); ``done`` is what the clicked panel turns into."""

    action: Any
    token: str
    done: Callable[[Table, Sequence[Any]], Panel | None] | None = None


@dataclass(frozen=True)
class Aside:
    """A private answer to a click that changes nothing (a hint): shown to the clicker only, while the
    clicked panel stays as it is."""

    panel: Panel


@dataclass
class Announcement:
    """What the channel is told about some events: messages in order (each fits one Discord message), then
    the ``ping`` line calling ``ping_seats`` (appended to the last message), with ``controls`` on it; a
    ``picture`` goes with message ``picture_at`` (the show beside its text)."""

    messages: list[str] = field(default_factory=list)
    ping: str = ""
    ping_seats: tuple[int, ...] = ()
    controls: list[Control] = field(default_factory=list)
    picture: Picture | None = None
    picture_at: int = -1


def clip(lines: Sequence[str], limit: int) -> str:
    """Join lines, dropping the oldest when the message would be too long for Discord."""
    out = list(lines)
    while out and len("\n".join(out)) > limit:
        out.pop(0)
    return "\n".join(out)


class GameAdapter:
    """The base every game's adapter extends; the defaults fit a turn-based game with one freshness token
    (the table's action count)."""

    name: ClassVar[str]
    title: ClassVar[str]
    rules: Any  # the rules engine module
    ai: Any = None  # the computer player's module (``choose(view, rng, level)``), None if the bot can't play
    command: ClassVar[str]  # the slash command group, for help texts ("/bhargage")
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    challenge: ClassVar[bool] = True  # a two-player challenge (Accept/Decline), else an open lobby
    # the resign button and what its panel turns into, as messages looked up when shown (a game whose players
    # leave instead overrides them: ``resign_label_msg = Msg("deluxe.resign.label")``)
    resign_label_msg: ClassVar[Msg] = Msg("general.resign.label")
    resign_done_msg: ClassVar[Msg] = Msg("general.resign.done")
    board_command: ClassVar[str] = "board"  # what the game's table commands are called
    resign_command: ClassVar[str] = "resign"
    colour: ClassVar[int] = 0xC27C0E
    message_limit: ClassVar[int] = 1900
    # (lowest, usual, highest) target when the game has a "target" option; a server may change the usual.
    targets: ClassVar[tuple[int, int, int] | None] = None

    def resign_label_text(self) -> str:
        """The resign button's label in the language in force ("Resign")."""
        return str(self.resign_label_msg)

    def resign_done_text(self) -> str:
        """What the resign panel says once done, in the language in force ("You resigned.")."""
        return str(self.resign_done_msg)

    # ---------------------------------------------------------------- options and lobby

    def options(self, raw: Mapping[str, Any]) -> Any:
        return self.rules.Options.from_dict(dict(raw))

    def options_text(self, options: Any) -> str:
        raise NotImplementedError

    def rules_text(self, link: str | None = None) -> str:
        """The short rules for players, ending with where the full rules are (``link``)."""
        raise NotImplementedError

    def lobby_panel(self, lobby: Lobby) -> Panel:
        """The challenge or lobby message for its current status (controls only while it is open)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- the table

    def token(self, table: Table, seat: int) -> str:
        """What the seat's controls carry to prove they are current."""
        return str(table.seq)

    def board(self, table: Table) -> Panel:
        """The one channel message kept current for the table."""
        raise NotImplementedError

    def seat_panel(self, table: Table, seat: int, note: str = "") -> Panel:
        """The seat's private panel: its hand and what it may do now."""
        raise NotImplementedError

    def click(self, table: Table, seat: int, click: Click) -> Move | Panel | Aside:
        """One of the game's own controls: a move to make, the clicked panel redrawn (a selection), or a
        private answer that changes nothing (a hint)."""
        raise NotImplementedError

    def hold(self, table: Table, events: Sequence[Any]) -> bool:
        """True to tell the channel later (the move's events wait for the end of the turn). Events that end
        the game are never held."""
        return False

    def announce(self, table: Table, events: Sequence[Any]) -> Announcement:
        """What the channel is told about ``events`` (everything since it was last told)."""
        raise NotImplementedError

    def deal(self, table: Table, events: Sequence[Any]) -> dict[int, str]:
        """Seats whose private panel is redrawn after these events (everything the channel was just told),
        with a note for each saying what happened. The panel is edited in place; see ``replaces``."""
        raise NotImplementedError

    def replaces(self, table: Table, events: Sequence[Any]) -> bool:
        """True when these events deal a new hand: every redrawn panel is then a new message (it notifies),
        and the old one keeps its text but loses its controls."""
        return False

    def milestone(self, table: Table, events: Sequence[Any]) -> bool:
        """True when the channel's summary of the game changes (a hand ended); the end of the game always
        does."""
        return False

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
        lines = [
            t(
                "general.summary.head",
                game=self.title,
                options=self.options_text(table.options),
                players=names,
            ),
            self.score_line(table),
            follow,
        ]
        return Panel(content="\n".join(lines))

    def result_lines(self, table: Table, events: Sequence[Any]) -> list[str]:
        """The end of the game in a few lines, for players told by DM when the channel refused it."""
        return []

    def waiting_text(self, table: Table) -> str:
        raise NotImplementedError

    # ---------------------------------------------------------------- leaving and idle seats

    def resign_action(self, table: Table, seat: int) -> Any:
        raise NotImplementedError

    def resign_question(self, table: Table, seat: int) -> str:
        raise NotImplementedError

    def claim_action(self, table: Table, seat: int) -> Any:
        """What happens to a seat the others claim against after it idled too long."""
        raise NotImplementedError

    def claim_offer(self, table: Table, idle: int, minutes: int) -> tuple[str, str]:
        """(message, button label) offering the claim."""
        raise NotImplementedError

    def claimed_text(self, table: Table, idle: int, by: str) -> str:
        raise NotImplementedError

    def rematch_seats(self, table: Table) -> list[int]:
        """Seats invited back (a challenge invites the other seat of these)."""
        return self.playing(table)

    def playing(self, table: Table) -> list[int]:
        """Seats still in the game (a game where players may leave and play on says who has not)."""
        return list(range(len(table.seats)))

    # ---------------------------------------------------------------- computer players

    def bot_seat(self, table: Table) -> int | None:
        """The bot seat that acts now: one the engine waits for — or, once no person plays on, any bot still
        seated (it leaves, so bots alone never play on)."""
        if table.status != "active":
            return None
        if self.people_gone(table):
            return next((s for s in self.playing(table) if table.is_bot(s)), None)
        return next((s for s in table.waiting_for() if table.is_bot(s)), None)

    def people_gone(self, table: Table) -> bool:
        """No person plays on: every seat still in the game is a bot's."""
        return not set(self.playing(table)) & set(table.humans)

    def bot_action(self, table: Table, seat: int, rng: random.Random, level: Level) -> Any:
        """What the bot at ``seat`` does: its player's choice from the seat's view, or leaving when no person
        plays on. Pure work on the state; the controller runs it in a worker thread."""
        if self.people_gone(table):
            return self.resign_action(table, seat)
        return self.ai.choose(self.rules.view(table.state, seat), rng, level)

    def forced(self, table: Table) -> tuple[int, Any] | None:
        """(seat, action) when the person the game waits for has exactly one possible answer that is no
        ritual: it is made for them at once, with no click. None by default."""
        return None

    # ---------------------------------------------------------------- shared helpers

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

    @staticmethod
    def hand_button(label: str | None = None, arg: str = "") -> Button:
        """The "Show my hand" button (``label`` replaces the words)."""
        text = t("general.hand.button") if label is None else label
        return Button(text[:80], "hand", arg=arg, emoji="🃏")


ADAPTER_PATHS: dict[str, str] = {"bhargage": "bot.games.bhargage", "deluxe": "bot.games.deluxe"}


class LazyGames(Mapping[str, GameAdapter]):
    """``GAMES["bhargage"]`` imports ``bot.games.bhargage`` on first use and returns its ``ADAPTER``;
    a missing module is a KeyError."""

    def __init__(self, paths: Mapping[str, str]) -> None:
        self._paths = dict(paths)
        self._loaded: dict[str, GameAdapter] = {}

    def __getitem__(self, name: str) -> GameAdapter:
        if name in self._loaded:
            return self._loaded[name]
        path = self._paths[name]
        try:
            module = importlib.import_module(path)
        except ModuleNotFoundError as err:
            if err.name != path:
                raise
            raise KeyError(name) from err
        adapter: GameAdapter = module.ADAPTER
        self._loaded[name] = adapter
        return adapter

    def __iter__(self) -> Iterator[str]:
        """Only the games whose module imports."""
        for name in self._paths:
            try:
                self[name]
            except KeyError:
                continue
            yield name

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or name not in self._paths:
            return False
        try:
            self[name]
        except KeyError:
            return False
        return True


GAMES: Mapping[str, GameAdapter] = LazyGames(ADAPTER_PATHS)
