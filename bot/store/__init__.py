"""The one place that talks to the database: games, their action logs, results, ratings, lobbies and
per-table UI data.

``Store`` (``interface.py``) is what the rest of the bot uses; ``SQLiteStore`` (``sqlite.py``, built from the
``games``, ``lobbies`` and ``stats`` mixins) implements it on one SQLite file whose schema is ``schema.py``.
The rating policy is pure functions in ``bot.ratings``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.store.interface import Store
from bot.store.records import (
    ActionConflict,
    ActionRecord,
    BotRecord,
    ChannelBusy,
    Finish,
    GameRecord,
    GameStats,
    HistoryRow,
    LeaderRow,
    Lobby,
    PlayerBusy,
    Rating,
    SeatRecord,
    Snapshot,
    StoreOpenError,
)
from bot.store.schema import LATEST_VERSION, MIGRATIONS
from bot.store.sqlite import SQLiteStore

__all__ = [
    "LATEST_VERSION",
    "MIGRATIONS",
    "ActionConflict",
    "ActionRecord",
    "BotRecord",
    "ChannelBusy",
    "Finish",
    "GameRecord",
    "GameStats",
    "HistoryRow",
    "LeaderRow",
    "Lobby",
    "PlayerBusy",
    "Rating",
    "SQLiteStore",
    "SeatRecord",
    "Snapshot",
    "Store",
    "StoreOpenError",
    "open_store",
]


async def open_store(location: str | Path, *, pool_size: int = 10, **kw: Any) -> SQLiteStore:
    """Open the SQLite store at ``location``: the same as ``SQLiteStore.open(location, **kw)``."""
    return await SQLiteStore.open(location, **kw)
