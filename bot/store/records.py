"""The immutable values the store hands out and takes in. No SQL here: any backend builds the same records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.base.ratings import Rating
from bot.games.lobby import Lobby

__all__ = [
    "ActionConflict",
    "ActionRecord",
    "ActiveGame",
    "ChannelBusy",
    "Finish",
    "GameProfile",
    "GameRecord",
    "GameStats",
    "HistoryRow",
    "LeaderPage",
    "LeaderRow",
    "Lobby",
    "Opponent",
    "PlayerBusy",
    "Profile",
    "Rating",
    "Season",
    "SeatRecord",
    "Snapshot",
    "StaleTournament",
    "StoreOpenError",
    "TournamentRow",
    "WaitingInLobby",
]


class StoreOpenError(Exception):
    """The database could not be opened (unreachable, refused the login, unknown database, bad address);
    ``str(err)`` is one sentence an operator can act on, never carrying a password."""


class ActionConflict(Exception):
    """The action's (game, seq) is already in the log: another writer (another process) moved first."""


class VersionConflict(Exception):
    """A write that expected the game at one version found another: someone else wrote it meanwhile."""


class ChannelBusy(Exception):
    """The channel already has an active game."""


class PlayerBusy(Exception):
    """A player to be seated already sits at an active game (anywhere: one seat per player)."""

    def __init__(self, user_id: int, channel_id: int) -> None:
        super().__init__(user_id, channel_id)
        self.user_id = user_id
        self.channel_id = channel_id


class HostBusy(Exception):
    """The host of a new lobby already hosts an open one (anywhere: one at a time); ``lobby`` is that one."""

    def __init__(self, lobby: Lobby) -> None:
        super().__init__(lobby.id, lobby.channel_id)
        self.lobby = lobby


class WaitingInLobby(Exception):
    """The member to forget hosts, is invited to or joined an open lobby (``lobby``): it would seat them."""

    def __init__(self, lobby: Lobby) -> None:
        super().__init__(lobby.id, lobby.channel_id)
        self.lobby = lobby


class StaleTournament(Exception):
    """A tournament was saved at a version it is no longer at: another organiser or process saved it first;
    ``found`` is its version now. Nothing was written: read it again and redo the change on that."""

    def __init__(self, tournament_id: int, expected: int, found: int) -> None:
        super().__init__(tournament_id, expected, found)
        self.tournament_id = tournament_id
        self.expected = expected
        self.found = found


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    user_id: int
    name: str


@dataclass(frozen=True)
class ActionRecord:
    seq: int
    seat: int | None
    text: str
    at: float


@dataclass(frozen=True)
class Snapshot:
    """A game's engine state as of action ``seq`` (committed at ``at``), in the form ``tag`` names (its
    format, engine and state version, e.g. ``json1:bhargage:1``); ``data`` is opaque to the store (see
    ``bot.services.snapshots``). The database column holding the tag is called ``fingerprint``."""

    seq: int
    at: float
    tag: str
    data: bytes


@dataclass(frozen=True)
class NewGame:
    """A game to insert (``Store.create_game``): active, with its seats in order and its first table meta."""

    game: str
    guild_id: int
    channel_id: int
    seed: int
    seats: Sequence[tuple[int, str]]  # (user id, name) per seat
    options: Mapping[str, Any]
    created_at: float
    meta: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class NewAction:
    """One accepted action to commit (``Store.append_action``), with what the same transaction also writes:
    the game's end (``finish``), the table's UI data (``meta``), the snapshot of an earlier state."""

    game_id: int
    seq: int  # 1 for the first action
    seat: int | None
    text: str
    at: float
    finish: Finish | None = None
    meta: Mapping[str, Any] | None = None
    snapshot: Snapshot | None = None


@dataclass(frozen=True)
class Listing:
    """Which active games ``Store.active_games`` lists: ids above ``after``, at most ``limit``; with
    ``snapshots`` ({game name: tag}) a game's snapshot of that tag and the actions after it; with ``shards``
    (shard count, shard ids) only the games whose guild is on those shards."""

    after: int = 0
    limit: int | None = None
    snapshots: Mapping[str, str] | None = None
    shards: tuple[int, Sequence[int]] | None = None


EVERY_ACTIVE = Listing()  # every active game, each with its whole log


@dataclass(frozen=True)
class NewLobby:
    """An open lobby to insert (``Store.create_lobby``), for any game name."""

    game: str
    guild_id: int
    channel_id: int
    host_id: int
    created_at: float
    expires_at: float | None = None
    invited_id: int | None = None
    options: Mapping[str, Any] | None = None
    names: Mapping[int, str] | None = None
    members: Sequence[int] = ()
    message_id: int | None = None


@dataclass(frozen=True)
class GameRecord:
    id: int
    game: str
    guild_id: int
    channel_id: int
    seed: int
    players: int
    options: dict[str, Any]
    status: str
    created_at: float
    finished_at: float | None
    result: dict[str, Any] | None
    seats: tuple[SeatRecord, ...]
    actions: tuple[ActionRecord, ...]
    meta: dict[str, Any] = field(default_factory=dict)  # the table's UI data (see Store.set_meta); {} if none
    # Bumped by one by every write to the game (an action, its meta, its end): a cached copy whose version
    # differs from the stored one is stale (another process wrote it).
    version: int = 0
    # Only when asked for (``snapshots=`` of ``Store.load_game`` / ``active_games``): then ``actions`` are
    # those after its seq.
    snapshot: Snapshot | None = None


@dataclass(frozen=True)
class ActiveGame:
    """An active game as lookups by channel, thread and player need it: no actions (``Store.active_index``).
    ``meta`` is the table's UI data, as in ``GameRecord``."""

    id: int
    game: str
    guild_id: int
    channel_id: int
    seats: tuple[SeatRecord, ...]
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Finish:
    """What the store needs to close a game: the engine's Result flattened, plus the time."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    muggins: bool
    how: str
    at: float
    hand_score_avg: tuple[float | None, ...] = ()
    left: tuple[bool, ...] = ()  # seats that left before the end (games that allow leaving)
    # per seat, the most points it scored for one hand (None: no hand scored; () where nothing says)
    best_hand: tuple[int | None, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "winners": list(self.winners),
            "muggins": self.muggins,
            "how": self.how,
            "hand_score_avg": list(self.hand_score_avg),
            "left": list(self.left),
            "best_hand": list(self.best_hand),
        }


@dataclass(frozen=True)
class LeaderRow:
    user_id: int
    name: str
    games: int
    wins: int
    losses: int
    win_pct: float  # 0–100
    muggins_wins: int
    rating: int
    hand_score_avg: float | None = None  # games that score by hands (Deluxe)
    rank: int = 0  # on a paged board: standard competition rank (1, 2, 2, 4); 0 where none was given


@dataclass(frozen=True)
class LeaderPage:
    """One page of a board (``Store.leaderboard_page``): its rows, ranked, and the asker's row wherever it
    is (None: no rated game on this board)."""

    rows: tuple[LeaderRow, ...]
    total: int  # players on the board
    page: int  # the page shown (the one asked for, or the last there is)
    pages: int
    me: LeaderRow | None


@dataclass(frozen=True)
class Season:
    """One of a server's seasons (``Store.seasons``): the periods its results fall into, each with its own
    ratings. The current one has no end; it may have no result yet (and no row in the store)."""

    number: int  # 1, 2, … per server
    started_at: float
    ended_at: float | None  # None: the current season
    monthly: bool  # the server's seasons end with each UTC month (else when an admin closes one)
    players: int  # players with a rating in it, in any game


@dataclass(frozen=True)
class HistoryRow:
    game_id: int
    game: str
    finished_at: float
    seat: int
    score: int
    rank: int
    players: int
    won: bool
    muggins: bool
    how: str


@dataclass(frozen=True)
class PastSeat:
    """One seat of a finished game, as a history line names it."""

    user_id: int
    name: str
    score: int | None  # None: no result row (a seat that left before the end)


@dataclass(frozen=True)
class PastGame:
    """A finished game as one player's history lists it (``Store.history``)."""

    game_id: int
    game: str
    finished_at: float
    won: bool
    score: int
    rank: int
    how: str
    channel_id: int
    thread_id: int | None
    seats: tuple[PastSeat, ...]
    # the player's rating before and after, on the stored scale; None when the game moved no rating
    rating_before: float | None = None
    rating_after: float | None = None


@dataclass(frozen=True)
class GameStats:
    game: str
    games: int
    wins: int
    losses: int
    muggins_wins: int
    rating: int
    hand_score_avg: float | None
    recent: tuple[HistoryRow, ...]


@dataclass(frozen=True)
class BotRecord:
    """A player's games against the bot at one level, kept apart from ratings and leaderboards."""

    game: str
    level: str
    games: int
    wins: int


@dataclass(frozen=True)
class GameProfile:
    """One game on a player's profile (``Store.profile``): their games against people (rated), their
    rating and its recent course, and their best hand in any finished game of it."""

    game: str
    games: int  # rated games: against people only
    wins: int
    losses: int
    muggins_wins: int
    rating: int | None  # stored scale, rounded; None before a rated game
    # their rating before their oldest of the latest rated games, then after each one, oldest first
    # (stored scale); empty when no result keeps it
    trend: tuple[float, ...]
    best_hand: int | None  # the most points they scored for one hand, against people or the bot
    hand_score_avg: float | None


@dataclass(frozen=True)
class Opponent:
    """The person a player finished most games against in one server, and how those games went."""

    user_id: int
    name: str
    games: int
    wins: int  # the player's wins in those games


@dataclass(frozen=True)
class Profile:
    """A player's record in one server, read at once: per game (by name), the person they met most, and
    their games against the bot (never rated)."""

    user_id: int
    name: str  # the name they last played under here; "" if they never finished a game here
    games: tuple[GameProfile, ...]
    favourite: Opponent | None
    against_bot: tuple[BotRecord, ...]

    @property
    def empty(self) -> bool:
        """Whether they have finished no game here."""
        return not self.games and not self.against_bot


@dataclass(frozen=True)
class TournamentRow:
    """One tournament as stored: ``doc`` is the whole event, opaque to the store (the service's JSON), and
    ``version`` the count of its saves, which the next save must name (``Store.save_tournament``)."""

    id: int
    guild_id: int
    channel_id: int
    status: str
    doc: dict[str, Any]
    version: int
    created_at: float
    updated_at: float
