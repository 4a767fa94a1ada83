"""Finished games as players see them: leaderboards and personal stats (read-only, from the store)."""

from __future__ import annotations

from bot.store import BotRecord, GameStats, LeaderRow, Store

__all__ = ["BotRecord", "GameStats", "LeaderRow", "Records"]


class Records:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderRow]:
        return await self.store.leaderboard(guild_id, game, limit)

    async def stats(self, guild_id: int, user_id: int) -> dict[str, GameStats]:
        return await self.store.stats(guild_id, user_id)

    async def bot_records(self, guild_id: int, user_id: int) -> list[BotRecord]:
        return await self.store.bot_records(guild_id, user_id)
