"""One tournament as data, and every step it takes: sign-up, the rounds, each match's games, the organiser's
actions and the end. Pure (no store, no clock, no Discord): a step takes the event and returns what the
host must do next (the matches to open, the tables to close), so a restart or a second process that reads
the stored event carries on exactly where it was.

- **Formats**: Swiss (``rounds`` rounds; pairing by ``pairing.swiss``), round robin (the circle method, every
  round fixed at the start), single and double knockout (seeded by rating; out after one lost match, or
  two: ``pairing.double_knockout``) and, for Bharg Deluxe, rounds of tables of ``least``–``most`` seats
  balanced by the standings (``pairing.tables``).
- **Matches**: one game, or the best of three (two wins) for the two-player games; a Deluxe table plays
  one game. Every game finished counts in the standings (``standings``); a match's winner decides the
  knockout.
- **A round ends when its matches do**; the next one is paired then (not while the event is paused).
- **Byes** are matches of one player, decided at once: a win in the standings (``standings.BYE``), a place
  in the next knockout round. A dropped player is paired no more; their undecided two-player match is
  awarded to the opponent (a Deluxe table plays on: the move limit speaks for an absent player).
- **Awarded results** (the organiser's, or a drop's) count as a win by no margin: spread 0 either way.

The event is stored as JSON (``bot.services.tournaments.stored``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.base.refusals import UserFacingError
from bot.services.tournaments import pairing, standings

Status = Literal["signup", "running", "paused", "finished", "cancelled"]
STATUSES: tuple[Status, ...] = ("signup", "running", "paused", "finished", "cancelled")
LIVE: tuple[Status, ...] = ("signup", "running", "paused")
Format = Literal["swiss", "round_robin", "knockout", "double_knockout"]
FORMATS: tuple[Format, ...] = ("swiss", "round_robin", "knockout", "double_knockout")
KNOCKOUTS = ("knockout", "double_knockout")
PAIR_GAMES = ("bhargage", "cribbage")  # two players a match; Deluxe plays at tables
GAMES = (*PAIR_GAMES, "deluxe")
How = Literal["played", "forfeit", "awarded"]
MAX_ENTRANTS = 64
MAX_ROUNDS = 12
NAME_LENGTH = 60
# A Cribbage loser below this score in a game to the target is lurched (C6); None where a target has none.
LURCH_LINES = {121: 91, 61: 31}


class TournamentError(UserFacingError):
    """A refusal of a tournament step, said to whoever asked."""


def format_named(value: str) -> Format:
    """A format by its stored name (a command's choice is still checked: anyone can send any value)."""
    for known in FORMATS:
        if known == value:
            return known
    raise TournamentError("tournament.refuse.format")


@dataclass(frozen=True)
class Settings:
    """What the organiser chose: the event's name, the game and its options, the format, the rounds (Swiss
    and Deluxe; the others follow from the field), the match length, Deluxe's table sizes and the minutes a
    player has for a move (0: no limit)."""

    name: str
    game: str
    format: Format
    options: Mapping[str, Any] = field(default_factory=dict)
    rounds: int = 0  # 0: as many as the field needs (Swiss: ⌈log2 n⌉; Deluxe: 3)
    best_of: int = 1
    least: int = 3
    most: int = 4
    move_minutes: int = 0

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise TournamentError("tournament.refuse.game")
        if self.format not in FORMATS or (self.game == "deluxe" and self.format != "swiss"):
            raise TournamentError("tournament.refuse.format")
        if self.best_of not in (1, 3) or (self.game == "deluxe" and self.best_of != 1):
            raise TournamentError("tournament.refuse.best-of")
        if not 0 <= self.rounds <= MAX_ROUNDS:
            raise TournamentError("tournament.refuse.rounds", most=MAX_ROUNDS)
        if not 3 <= self.least <= self.most <= 6:
            raise TournamentError("tournament.refuse.table-size")
        if not 1 <= len(self.name) <= NAME_LENGTH:
            raise TournamentError("tournament.refuse.name", most=NAME_LENGTH)


@dataclass
class Entrant:
    user_id: int
    name: str
    rating: float = 0.0
    dropped: bool = False


@dataclass(frozen=True)
class GameDone:
    """One finished game of a match: the seats' players and scores, the target, the winner, the lurch line
    (Cribbage) and how it ended; ``game_id`` is its table (None when awarded without one)."""

    players: tuple[int, ...]
    scores: tuple[int, ...]
    target: int
    winner: int
    how: How = "played"
    lurch_line: int | None = None
    game_id: int | None = None

    def scored(self) -> standings.Game:
        """The game as the standings count it: an awarded one as a win by no margin."""
        if self.how == "awarded":
            flat = tuple(
                self.target if len(self.players) == 2 else int(p == self.winner) for p in self.players
            )
            return standings.Game(self.players, flat, self.target, self.winner)
        return standings.Game(self.players, self.scores, self.target, self.winner, self.lurch_line)


@dataclass
class Match:
    """A pairing (or a Deluxe table) of one round: its players in seat order, the games it has played,
    the table now open for it (``game_id``) and, once decided, its winner."""

    round: int
    number: int
    players: tuple[int, ...]
    games: list[GameDone] = field(default_factory=list)
    game_id: int | None = None
    winner: int | None = None

    @property
    def key(self) -> str:
        return f"{self.round}.{self.number}"

    @property
    def decided(self) -> bool:
        return self.winner is not None

    def loses(self, player: int) -> bool:
        return self.winner is not None and player != self.winner

    def wins(self, player: int) -> int:
        return sum(1 for g in self.games if g.winner == player)


@dataclass
class Event:
    """The whole event: its settings, organiser, status, entrants (in sign-up order) and rounds of matches
    (in bracket order for a knockout)."""

    settings: Settings
    organiser_id: int
    status: Status = "signup"
    entrants: list[Entrant] = field(default_factory=list)
    rounds: list[list[Match]] = field(default_factory=list)

    # ------------------------------------------------------------ reading

    def entrant(self, user_id: int) -> Entrant | None:
        return next((e for e in self.entrants if e.user_id == user_id), None)

    @property
    def active(self) -> list[int]:
        return [e.user_id for e in self.entrants if not e.dropped]

    @property
    def current(self) -> list[Match]:
        return self.rounds[-1] if self.rounds else []

    def match(self, key: str) -> Match:
        for matches in self.rounds:
            for m in matches:
                if m.key == key:
                    return m
        raise TournamentError("tournament.refuse.no-match", match=key)

    def match_of_game(self, game_id: int) -> Match | None:
        return next((m for m in self.current if m.game_id == game_id), None)

    def playing(self, user_id: int) -> Match | None:
        """The undecided match this player sits in (one at a time)."""
        return next((m for m in self.current if not m.decided and user_id in m.players), None)

    def games(self) -> list[GameDone]:
        return [g for matches in self.rounds for m in matches for g in m.games]

    def byes(self) -> list[int]:
        """Everyone given a bye, once a bye."""
        return [m.players[0] for matches in self.rounds for m in matches if len(m.players) == 1]

    def total_rounds(self) -> int:
        """How many rounds the event plays (a knockout: until one is left)."""
        n = len(self.entrants)
        if self.settings.format == "round_robin":
            return n - 1 if n % 2 == 0 else n
        if self.settings.format in KNOCKOUTS:
            levels = max(1, math.ceil(math.log2(max(n, 2))))
            return levels if self.settings.format == "knockout" else 2 * levels + 1  # at most, with the reset
        if self.settings.rounds:
            return self.settings.rounds
        return 3 if self.settings.game == "deluxe" else max(1, math.ceil(math.log2(max(n, 2))))

    def lines(self) -> list[standings.Line]:
        """The standings: every entrant (dropped ones too), ordered as ``standings`` says."""
        ratings = {e.user_id: e.rating for e in self.entrants}
        games = [g.scored() for g in self.games()]
        return standings.standings([e.user_id for e in self.entrants], games, self.byes(), ratings)

    def places(self) -> list[tuple[int, int]]:
        """Each entrant's final place, 1 first: in a knockout by the round each went out in (the final's
        loser 2nd, both semi-finals' 3rd, the quarter-finals' 5th …, everyone still in 1st; in a double
        knockout a player goes out with their second lost match); otherwise the standings' order."""
        if self.settings.format not in KNOCKOUTS:
            return [(line.player, i + 1) for i, line in enumerate(self.lines())]
        lives = 1 if self.settings.format == "knockout" else 2
        out_in: dict[int, int] = {}
        lost: dict[int, int] = {}
        for r, ms in enumerate(self.rounds):
            for m in ms:
                for p in m.players:
                    if m.loses(p):
                        lost[p] = lost.get(p, 0) + 1
                        if lost[p] == lives:
                            out_in[p] = r
        places = [(p, 1 + sum(1 for q in out_in.values() if q > r) + 1) for p, r in out_in.items()]
        places += [(e.user_id, 1) for e in self.entrants if e.user_id not in out_in]
        return sorted(places, key=lambda pp: (pp[1], pp[0]))

    # ------------------------------------------------------------ sign-up

    def join(self, user_id: int, name: str, rating: float) -> None:
        if self.status != "signup":
            raise TournamentError("tournament.refuse.signup-closed")
        if self.entrant(user_id) is not None:
            raise TournamentError("tournament.refuse.joined")
        if len(self.entrants) >= MAX_ENTRANTS:
            raise TournamentError("tournament.refuse.full", most=MAX_ENTRANTS)
        self.entrants.append(Entrant(user_id, name, rating))

    def leave(self, user_id: int) -> tuple[list[Match], list[int]]:
        """Leave before the start (gone from the list), or drop out after it (see :meth:`drop`)."""
        if self.entrant(user_id) is None:
            raise TournamentError("tournament.refuse.not-entered")
        if self.status not in LIVE:
            raise TournamentError("tournament.refuse.over")
        if self.status == "signup":
            self.entrants = [e for e in self.entrants if e.user_id != user_id]
            return [], []
        return self.drop(user_id)

    def least_field(self) -> int:
        return self.settings.least if self.settings.game == "deluxe" else 2

    def start(self) -> list[Match]:
        """Close the sign-up and pair the first round: the matches to open."""
        if self.status != "signup":
            raise TournamentError("tournament.refuse.started")
        if len(self.entrants) < self.least_field():
            raise TournamentError("tournament.refuse.too-few", least=self.least_field())
        self.status = "running"
        return self._next_round()

    # ------------------------------------------------------------ results

    def record(self, key: str, game: GameDone) -> list[Match]:
        """A game of match ``key`` ended: the matches to open now (the match's next game, or the next round's
        matches) — none when the event waits for others, is paused or is over."""
        if self.status not in ("running", "paused"):
            raise TournamentError("tournament.refuse.not-running")
        m = self.match(key)
        if m.decided:
            raise TournamentError("tournament.refuse.decided", match=key)
        if sorted(game.players) != sorted(m.players) or game.winner not in m.players:
            raise TournamentError("tournament.refuse.not-this-match", match=key)
        m.games.append(game)
        m.game_id = None
        need = self.settings.best_of // 2 + 1 if len(m.players) == 2 else 1
        if m.wins(game.winner) >= need:
            m.winner = game.winner
            return self._after_decision()
        return [m] if self.status == "running" else []

    def award(self, key: str, winner: int) -> tuple[list[Match], int | None]:
        """The organiser's result for an undecided match: the matches to open, and the table to close
        (the match's open table, if any)."""
        if self.status not in ("running", "paused"):
            raise TournamentError("tournament.refuse.not-running")
        m = self.match(key)
        if m.decided:
            raise TournamentError("tournament.refuse.decided", match=key)
        if winner not in m.players:
            raise TournamentError("tournament.refuse.not-in-match", match=key)
        closing = self._awarded(m, winner)
        return self._after_decision(), closing[0] if closing else None

    def drop(self, user_id: int) -> tuple[list[Match], list[int]]:
        """Drop a player: paired no more; their undecided two-player match goes to the opponent (a Deluxe
        table plays on). The matches to open, and the table to close (the awarded match's)."""
        e = self.entrant(user_id)
        if e is None:
            raise TournamentError("tournament.refuse.not-entered")
        if e.dropped:
            raise TournamentError("tournament.refuse.dropped")
        e.dropped = True
        m = self.playing(user_id) if self.status in ("running", "paused") else None
        if m is None or len(m.players) != 2:
            return [], []
        closing = self._awarded(m, m.players[1] if m.players[0] == user_id else m.players[0])
        return self._after_decision(), closing

    def repair(self) -> tuple[list[Match], list[int]]:
        """Pair the current round again (after a drop, say), while none of its games has finished: the
        matches to open and the tables to close."""
        if self.status not in ("running", "paused") or not self.rounds:
            raise TournamentError("tournament.refuse.not-running")
        if self.settings.format != "swiss" or any(m.games for m in self.current):
            raise TournamentError("tournament.refuse.repair")
        closing = [m.game_id for m in self.current if m.game_id is not None]
        self.rounds.pop()
        return self._next_round(), closing

    def pause(self) -> None:
        if self.status != "running":
            raise TournamentError("tournament.refuse.not-running")
        self.status = "paused"

    def resume(self) -> list[Match]:
        if self.status != "paused":
            raise TournamentError("tournament.refuse.not-paused")
        self.status = "running"
        if self.current and all(m.decided for m in self.current):
            return self._after_decision()
        return [m for m in self.current if not m.decided and m.game_id is None]

    def end(self) -> list[int]:
        """End the event now (the organiser): the open tables to close."""
        if self.status not in LIVE:
            raise TournamentError("tournament.refuse.over")
        closing = [m.game_id for m in self.current if m.game_id is not None]
        for m in self.current:
            m.game_id = None
        self.status = "finished" if self.rounds else "cancelled"
        return closing

    # ------------------------------------------------------------ rounds

    def _target(self) -> int:
        target = self.settings.options.get("target")
        return target if isinstance(target, int) else 121 if self.settings.game != "deluxe" else 100

    def _awarded(self, m: Match, winner: int) -> list[int]:
        """Decide ``m`` for ``winner`` without a game played (counted as a win by no margin); the table it
        had open, to close."""
        closing = [m.game_id] if m.game_id is not None else []
        m.games.append(GameDone(m.players, (0,) * len(m.players), self._target(), winner, "awarded"))
        m.game_id = None
        m.winner = winner
        return closing

    def _after_decision(self) -> list[Match]:
        if not all(m.decided for m in self.current) or self.status != "running":
            return []
        return self._next_round()

    def _double_knockout(self) -> list[Match]:
        """The next double-knockout round (``pairing.double_knockout``); the end when one player is left."""
        lost: dict[int, int] = {}
        for ms in self.rounds:
            for m in ms:
                for p in m.players:
                    lost[p] = lost.get(p, 0) + m.loses(p)
        alive = [p for p in self.active if lost.get(p, 0) < 2]
        if len(alive) <= 1:
            self.status = "finished"
            return []
        upper, survivors, dropped = [], [], []
        for m in self.current:
            for p in m.players:
                if p not in alive:
                    continue
                if lost.get(p, 0) == 0:
                    upper.append(p)
                elif m.loses(p):  # their one loss, this round: they drop to the lower bracket
                    dropped.append(p)
                else:
                    survivors.append(p)
        return self._open_round(pairing.double_knockout(upper, survivors, dropped))

    def _next_round(self) -> list[Match]:
        """Pair the next round (or finish the event): the matches to open."""
        fmt, n = self.settings.format, len(self.rounds)
        if fmt == "double_knockout" and self.rounds:
            return self._double_knockout()
        if fmt in KNOCKOUTS:
            if not self.rounds:
                ratings = {e.user_id: e.rating for e in self.entrants}
                slots = pairing.knockout(ratings, self.active)
            else:
                winners = [m.winner for m in self.current if m.winner is not None]
                if len(winners) <= 1:
                    self.status = "finished"
                    return []
                slots = pairing.next_knockout(winners)
            return self._open_round([(a,) if b is None else (a, b) for a, b in slots])
        if n >= self.total_rounds() or len(self.active) < self.least_field():
            self.status = "finished"
            return []
        if fmt == "round_robin":
            r = pairing.round_robin([e.user_id for e in self.entrants])[n]
            return self._open_round([*r.pairs, *([(r.bye,)] if r.bye is not None else [])])
        order = [p for p in standings.order(self.lines()) if p in self.active]
        if self.settings.game == "deluxe":
            return self._open_round(pairing.tables(order, self.settings.least, self.settings.most))
        history = [(m.players[0], m.players[1]) for ms in self.rounds for m in ms if len(m.players) == 2]
        r = pairing.swiss(order, history, self.byes())
        return self._open_round([*r.pairs, *([(r.bye,)] if r.bye is not None else [])])

    def _open_round(self, groups: Sequence[tuple[int, ...]]) -> list[Match]:
        """Make the round's matches: a lone player (a bye) wins at once, as does the one player left of a
        match whose opponent has dropped. The matches to open."""
        number = len(self.rounds) + 1
        matches: list[Match] = []
        for group in groups:
            m = Match(number, len(matches) + 1, group)
            live = [p for p in group if p in self.active]
            if len(group) == 1:
                m.winner = group[0]
            elif len(group) == 2 and len(live) < 2:
                self._awarded(m, live[0] if live else group[0])
            matches.append(m)
        self.rounds.append(matches)
        if all(m.decided for m in matches):
            return self._next_round()
        return [m for m in matches if not m.decided]
