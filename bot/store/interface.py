"""``Store``: what the bot needs from its database, so the bot never learns which backend it talks to.

``SQLiteStore`` (one file, one process) and ``PostgresStore`` (one server, any number of bot processes)
implement it; both honour every contract stated here, and ``tests/test_store.py`` runs against both.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from bot.store import records

# What ``update_lobby`` may set; a lobby's status is one of LOBBY_STATUSES (anything else is refused).
LOBBY_FIELDS = frozenset(
    {"status", "members", "names", "message_id", "options", "invited_id", "expires_at", "game_id"}
)
LOBBY_STATUSES = ("open", "started", "declined", "expired", "cancelled")
# A tournament's status is one of TOURNAMENT_STATUSES; the live ones are those a restarted process resumes.
TOURNAMENT_STATUSES = ("signup", "running", "paused", "finished", "cancelled")
LIVE_TOURNAMENT_STATUSES = ("signup", "running", "paused")
# A tournament's document with a forgotten member renamed (document, member, pseudonym, name → the new
# document, or None where it does not name them): the tournament service's, since the store reads none.
Rename = Callable[[dict[str, Any], int, int, str], dict[str, Any] | None]


class Store(Protocol):
    """Async storage of games, action logs, table meta, lobbies, results and ratings.

    Rules for every method: each write is one transaction (every later read sees all of it or, when it
    raises, none of it); a read never sees half a transaction, and a method that returns several rows reads
    them from one consistent snapshot; records are the immutable values of ``records.py``, and the dicts in
    them are fresh copies. Times are Unix seconds; JSON-able mappings come back as plain dicts. Ids are
    never reused. Finishing a game (``append_action(finish=...)`` or ``finish_game``) closes it, writes one
    results row per seat and updates each seat's rating with ``bot.base.ratings.rate_game`` (the system from
    ``bot.base.ratings.system_for``) and the games/wins/losses/muggins_wins counters, all in that transaction.

    Several bot processes may share one store (PostgreSQL). Each game then has a ``version`` that every
    write to it (``append_action``, ``set_meta``, ``finish_game``, ``abandon_game``) bumps by exactly one, a
    lock that holds across processes (``table_lock``), and news of other processes' writes (``watch``).
    """

    # Whether other processes may write this store too (then cached games must be checked before use).
    shared: bool

    async def close(self) -> None:
        """Release the connection(s); closing twice is harmless, and nothing else may be called afterwards."""
        ...

    async def schema_version(self) -> int:
        """The highest schema migration applied to the database (``LATEST_VERSION`` once open)."""
        ...

    # ---------------------------------------------------------------- games

    async def create_game(self, new: records.NewGame) -> int:
        """Insert an active game, its seats and (``meta``) its table meta, return its new id; ``ChannelBusy``
        if the channel has one, ``PlayerBusy`` if a player is seated at an active game: decided atomically
        with the insert."""
        ...

    async def append_action(self, action: records.NewAction) -> int:
        """One transaction: log it, close per finish, replace meta, replace the game's one snapshot (of an
        action from 1 to ``seq`` - 1, else ``ValueError``); returns the game's new version. A (game_id, seq)
        already logged raises ``ActionConflict`` (another writer moved first) and writes nothing. Closing a
        game (here, ``finish_game`` or ``abandon_game``) deletes its snapshot."""
        ...

    async def finish_game(self, game_id: int, finish: records.Finish) -> None:
        """Close an active game (results, ratings) without logging an action; ``ValueError`` if not active."""
        ...

    async def abandon_game(self, game_id: int, at: float, reason: str) -> None:
        """Close an active game as abandoned (no results, no rating change); ``ValueError`` if not active."""
        ...

    async def load_game(
        self, game_id: int, *, snapshots: Mapping[str, str] | None = None
    ) -> records.GameRecord | None:
        """The game in any status with seats, actions by seq and meta (``{}`` if none); None if unknown.
        With ``snapshots``, its snapshot and only the actions after it, as ``active_games`` gives them."""
        ...

    async def active_games(self, listing: records.Listing = records.EVERY_ACTIVE) -> list[records.GameRecord]:
        """The active games with an id above ``after``, by id, at most ``limit`` (one consistent read), each
        as ``load_game`` gives it, without one query per game. With ``snapshots`` ({game name: tag}), a
        game whose snapshot has its game's tag (``Snapshot.tag``) comes with it (``GameRecord.snapshot``) and
        only the actions after the snapshot's seq; any other game comes with its whole log. With ``shards``
        (shard_count, shard ids), only games whose guild is on one of those shards, as Discord assigns
        them: ``(guild_id >> 22) % shard_count``."""
        ...

    async def active_in_guild(self, guild_id: int) -> list[tuple[int, int]]:
        """The guild's active games as (game id, channel id), newest first, read from this guild's rows
        alone."""
        ...

    async def active_index(
        self, *, shards: tuple[int, Sequence[int]] | None = None
    ) -> list[records.ActiveGame]:
        """Every active game (only those on ``shards``, as ``active_games``), by id, with its seats and meta
        and no actions, in one consistent read of a few queries whatever the number of games."""
        ...

    async def active_game_in(self, channel_id: int) -> int | None:
        """The id of the channel's active game (a channel has at most one), or None: one indexed lookup."""
        ...

    async def untold_endings(
        self, *, since: float, shards: tuple[int, Sequence[int]] | None = None
    ) -> list[int]:
        """The ids of games finished at ``since`` or later whose table meta (as ``set_meta`` or
        ``append_action`` wrote it) has ``"owed": true``: their end was committed and never told. With
        ``shards``, only games whose guild is on one of those shards."""
        ...

    async def actions(self, game_id: int) -> list[records.ActionRecord]:
        """The game's committed action log by seq (empty for an unknown game)."""
        ...

    async def set_meta(self, game_id: int, data: Mapping[str, Any], *, version: int | None = None) -> int:
        """Replace the game's whole table meta with ``data`` (keys are not merged with the old ones); returns
        the game's new version. With ``version``, only if the game is at that version when written, else
        ``VersionConflict`` and nothing is written (another process wrote it meanwhile)."""
        ...

    def table_lock(self, game_id: int) -> AbstractAsyncContextManager[int | None]:
        """Hold the game's lock, across every process sharing the store, for one whole move (``async with``);
        it yields the game's stored version read once the lock is held (None for an unknown game). A store
        that only one process uses yields None at once: the caller's in-process lock is all there is, and
        its cached games are the truth. Raises the backend's error when the database can't be reached."""
        ...

    async def watch(self, changed: Callable[[int | None, bool], None]) -> None:
        """From now on, call ``changed(game_id, closed)`` soon after another process commits a write to a
        game (``closed``: the game is no longer active), and ``changed(None, False)`` when such news may have
        been missed (the listening connection was lost and is back): every cached game is then suspect. A
        store that only one process uses never calls it."""
        ...

    # ---------------------------------------------------------------- lobbies

    async def create_lobby(self, new: records.NewLobby) -> records.Lobby:
        """Insert an open lobby for any game name (none is refused) and return it as stored. A member hosts
        one open lobby at a time, anywhere: ``HostBusy`` (carrying it) if ``host_id`` already hosts an open
        lobby that has not run out by ``created_at``, decided atomically with the insert."""
        ...

    async def get_lobby(self, lobby_id: int) -> records.Lobby | None:
        """The lobby in any status; ``None`` if the id is unknown."""
        ...

    async def update_lobby(self, lobby_id: int, **fields: Any) -> records.Lobby:
        """Set any of ``LOBBY_FIELDS`` (else TypeError; KeyError if no lobby) and return it as stored."""
        ...

    async def open_lobbies(self, *, channel_id: int | None = None) -> list[records.Lobby]:
        """Lobbies whose status is 'open', by id: all of them, or those of one channel."""
        ...

    # ---------------------------------------------------------------- tournaments

    async def create_tournament(
        self, guild_id: int, channel_id: int, status: str, doc: Mapping[str, Any], now: float
    ) -> records.TournamentRow:
        """Insert an event (``status`` one of ``TOURNAMENT_STATUSES``, else ValueError) at version 0, created
        and updated at ``now``, and return it as stored. ``doc`` is any JSON object (no NaN or infinity):
        the store keeps it whole and never reads it; it comes back as JSON gives it (string keys, lists)."""
        ...

    async def get_tournament(self, tournament_id: int) -> records.TournamentRow | None:
        """The event in any status; None if the id is unknown."""
        ...

    async def tournaments_in(
        self, guild_id: int, statuses: Sequence[str] | None = None, limit: int = 25
    ) -> list[records.TournamentRow]:
        """The server's events whose status is in ``statuses`` (all when None; none when empty), newest
        first, at most ``limit``."""
        ...

    async def live_tournaments(self) -> list[records.TournamentRow]:
        """Every server's events in a status of ``LIVE_TOURNAMENT_STATUSES``, by id: what a process that
        starts resumes."""
        ...

    async def save_tournament(
        self, tournament_id: int, doc: Mapping[str, Any], status: str, version: int, now: float
    ) -> records.TournamentRow:
        """Replace the event's whole document and status, updated at ``now``, only if it is at ``version``
        when written; it then is at ``version`` + 1 and comes back as stored. Else ``StaleTournament`` (it
        moved on: of several saves from one version, across every process, exactly one is written) or
        ``KeyError`` (no such event), and nothing is written."""
        ...

    async def link_tournament_game(self, tournament_id: int, game_id: int) -> None:
        """Record that the game is played for the event (again for the same event: nothing changes);
        ``ValueError`` if it is another event's, ``KeyError`` if the event or the game is unknown."""
        ...

    async def tournament_of_game(self, game_id: int) -> int | None:
        """The id of the event the game is played for, or None."""
        ...

    async def record_places(self, tournament_id: int, places: Sequence[tuple[int, int]]) -> None:
        """Replace the event's final places with ``places``, (user id, place) each, in one transaction;
        ``ValueError`` if a user comes twice, ``KeyError`` if there is no such event (nothing written)."""
        ...

    async def places_of(
        self, user_id: int, limit: int = 10, *, guild_id: int | None = None
    ) -> list[tuple[int, int, dict[str, Any], float]]:
        """The member's places, at most ``limit``, newest first (by the event's ``updated_at``), each as
        (tournament id, place, the event's document, its ``updated_at``); only one server's with
        ``guild_id``."""
        ...

    # ---------------------------------------------------------------- results and ratings

    async def rating_of(self, guild_id: int, game: str, user_id: int) -> dict[str, Any] | None:
        """The player's ratings row for this guild and game as a dict; ``None`` before a finished game."""
        ...

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[records.LeaderRow]:
        """Up to ``limit`` players with a finished game: rating, wins, games desc, then user id."""
        ...

    async def leaderboard_page(
        self,
        guild_id: int,
        game: str,
        season: int | None,
        *,
        page: int,
        per_page: int,
        user_id: int | None = None,
        floor: int | None = None,
    ) -> records.LeaderPage:
        """Page ``page`` (from 1; past the last: the last) of ``per_page`` players of a board — season
        ``season``'s ratings, or the all-time ones when None — in ``leaderboard``'s order, each with their
        standard competition rank (1, 2, 2, 4): ratings that round alike are equal, and so are all those that
        round to ``floor`` or below; with ``user_id``'s row and rank wherever it is. One consistent read."""
        ...

    async def seasons(self, guild_id: int, now: float) -> list[records.Season]:
        """Every season of the server, newest first; the first is the current one, the season a game
        finishing at ``now`` would count in (its number one past the stored ones when that game would open
        it). A finish counts in the season its ``Finish.at`` falls in, decided in its transaction from the
        server's setting ``seasons`` in ``guild_settings`` (``monthly``, the default: a season ends at the
        first UTC month start after its newest result; ``none``: it runs until ``close_season``), and moves
        that season's ratings (everyone starts afresh) with the all-time ones; a game against the bot moves
        neither. Nothing of a season is ever deleted."""
        ...

    async def close_season(self, guild_id: int, season: int, at: float) -> records.Season | None:
        """Close season ``season`` at ``at`` and open the next one, in one transaction, if it is the current
        season (as ``seasons`` sees it at ``at``) and someone has a rating in it: return it, closed. Else
        None, and nothing is written."""
        ...

    async def stats(self, guild_id: int, user_id: int, *, recent: int = 5) -> dict[str, records.GameStats]:
        """Per game the user finished in this guild: totals, rating, hand average, newest results."""
        ...

    async def history(
        self,
        guild_id: int,
        user_id: int,
        game: str | None,
        *,
        offset: int,
        limit: int,
        seen_by: tuple[int, Collection[int]] | None = None,
    ) -> tuple[list[records.PastGame], int]:
        """The user's finished games in this guild (of ``game``, or all), newest first: ``limit`` from
        ``offset``, each with every seat's name and score; and how many there are in all. ``seen_by``
        (viewer, channel ids): only the games played in those channels, or at the viewer's own seat."""
        ...

    async def bot_records(self, guild_id: int, user_id: int) -> list[records.BotRecord]:
        """The user's finished games against the bot, per game and level (never rated)."""
        ...

    async def profile(self, guild_id: int, user_id: int, *, trend: int = 20) -> records.Profile:
        """The user's profile in this guild, in one consistent read of a few queries: per game they finished
        here, their rated totals and rating (None before a rated game), the rating before their oldest of the
        latest ``trend`` rated games and after each, their best hand (any finished game, the bot's too) and
        hand average; the person they finished most games against (games with a bot seat don't count; ties:
        the one met last); and their games against the bot, as ``bot_records``."""
        ...

    # ---------------------------------------------------------------- bot state and server settings

    async def get_state(self, key: str) -> str | None:
        """The bot-wide value stored under ``key`` (e.g. the last command sync's hash); ``None`` if none."""
        ...

    async def set_state(self, key: str, value: str) -> None:
        """Store a bot-wide ``value`` under ``key``, replacing what was there."""
        ...

    async def guild_settings(self, guild_id: int) -> dict[str, Any]:
        """What the server's admins set (JSON-able values by name); ``{}`` when they set nothing."""
        ...

    async def set_guild_settings(self, guild_id: int, data: Mapping[str, Any]) -> None:
        """Replace the server's settings with ``data``; an empty mapping clears them."""
        ...

    async def dm_channel(self, user_id: int) -> int | None:
        """The player's DM channel with the bot (``set_dm_channel``), or None if not known."""
        ...

    async def set_dm_channel(self, user_id: int, channel_id: int | None) -> None:
        """Remember the player's DM channel with the bot, replacing what was there (None: forget it)."""
        ...

    async def user_prefs(self) -> dict[int, dict[str, Any]]:
        """Every player's stored preferences (user id → each switch they chose, with its value)."""
        ...

    async def set_user_prefs(self, user_id: int, data: Mapping[str, Any]) -> None:
        """Replace a player's stored preferences with ``data``; an empty mapping clears them."""
        ...

    async def forget_user(
        self,
        user_id: int,
        anonymous: str,
        *,
        at: float,
        rename: Rename,
    ) -> list[int]:
        """Forget a member, in one transaction: delete their language, preferences, DM channel and
        tournament places, and move every row that keys on them (seats, results, all-time and season
        ratings, lobbies) to one fresh random pseudonym of ``bot.games.seats.FORGOTTEN``, named
        ``anonymous``, so their opponents' records join and read as before and nothing leads back to
        ``user_id``; rewrite each tournament's document that names them with ``rename`` (the tournament
        service's: the store never reads a document); drop their seats' live panels from those games'
        table meta; bump each of those games' version (news to other processes). Return those games' ids.
        ``PlayerBusy`` if they sit at an active game, ``WaitingInLobby`` if they are in a lobby still open
        at ``at``, or what ``rename`` raises: then nothing is written."""
        ...

    async def user_languages(self) -> dict[int, str]:
        """Every player's remembered language (user id → a language code such as ``"it"``)."""
        ...

    async def set_user_language(self, user_id: int, language: str) -> None:
        """Remember the language a player's client uses, replacing what was there."""
        ...
