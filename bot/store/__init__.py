"""The store: one interface (``Store``) and its SQLite backend (``SQLiteStore``), split by concern —
``schema`` (numbered migrations), ``games`` (games, action logs, table meta), ``lobbies``, ``stats``
(results, ratings, leaderboards). Only the services use it; no cog does."""

from bot.store.interface import Store
from bot.store.records import (
    ActionRecord,
    ChannelBusy,
    Finish,
    GameRecord,
    GameStats,
    HistoryRow,
    LeaderRow,
    Lobby,
    Rating,
    SeatRecord,
)
from bot.store.schema import LATEST_VERSION, MIGRATIONS
from bot.store.sqlite import SQLiteStore

open_store = SQLiteStore.open

__all__ = [
    "LATEST_VERSION",
    "MIGRATIONS",
    "ActionRecord",
    "ChannelBusy",
    "Finish",
    "GameRecord",
    "GameStats",
    "HistoryRow",
    "LeaderRow",
    "Lobby",
    "Rating",
    "SQLiteStore",
    "SeatRecord",
    "Store",
    "open_store",
]
