"""The one place that talks to the database: games, their action logs, results, ratings, lobbies and
per-table UI data.

``Store`` (``interface.py``) is what the rest of the bot uses. Two backends implement it, both built from
the ``games``, ``lobbies``, ``stats``, ``profiles``, ``config``, ``forget`` and ``tournaments`` mixins,
whose SQL is written once: ``SQLiteStore`` (``sqlite.py``) on one SQLite file for one process, and
``PostgresStore`` (``postgres.py``) on a PostgreSQL server that any number of bot processes share.
``open_store`` picks one from the location. The schema is ``schema.py``: one numbered list of migrations,
each in both dialects. The rating policy is pure functions in ``bot.base.ratings``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.settings import is_postgres_url
from bot.store.interface import Store
from bot.store.postgres import PostgresStore, redacted
from bot.store.records import (
    ActionConflict,
    ActionRecord,
    ActiveGame,
    BotRecord,
    ChannelBusy,
    Finish,
    GameProfile,
    GameRecord,
    GameStats,
    HistoryRow,
    HostBusy,
    LeaderRow,
    Listing,
    Lobby,
    NewAction,
    NewGame,
    NewLobby,
    Opponent,
    PlayerBusy,
    Profile,
    Rating,
    SeatRecord,
    Snapshot,
    StaleTournament,
    StoreOpenError,
    TournamentRow,
    VersionConflict,
    WaitingInLobby,
)
from bot.store.schema import LATEST_VERSION, MIGRATIONS
from bot.store.sqlite import SQLiteStore

__all__ = [
    "LATEST_VERSION",
    "MIGRATIONS",
    "ActionConflict",
    "ActionRecord",
    "ActiveGame",
    "BotRecord",
    "ChannelBusy",
    "Finish",
    "GameProfile",
    "GameRecord",
    "GameStats",
    "HistoryRow",
    "HostBusy",
    "LeaderRow",
    "Listing",
    "Lobby",
    "NewAction",
    "NewGame",
    "NewLobby",
    "Opponent",
    "PlayerBusy",
    "PostgresStore",
    "Profile",
    "Rating",
    "SQLiteStore",
    "SeatRecord",
    "Snapshot",
    "StaleTournament",
    "Store",
    "StoreOpenError",
    "TournamentRow",
    "VersionConflict",
    "WaitingInLobby",
    "open_store",
    "redacted",
    "version_at",
]


async def version_at(location: str | Path) -> int | None:
    """The schema version of the store at ``location``, without opening it for use or migrating it; None
    for a SQLite file not made yet."""
    if is_postgres_url(location):
        return await PostgresStore.version_at(str(location))
    return await SQLiteStore.version_at(location)


async def open_store(location: str | Path, *, pool_size: int = 10, **kw: Any) -> Store:
    """Open the store at ``location``: ``PostgresStore.open`` for a ``postgresql://`` (or ``postgres://``)
    URL, with a pool of ``pool_size`` connections; else ``SQLiteStore.open`` on that file path. ``kw``
    (``rating_systems``, ``migrate_to``) goes to either."""
    if is_postgres_url(location):
        return await PostgresStore.open(str(location), pool_size=pool_size, **kw)
    return await SQLiteStore.open(location, **kw)
