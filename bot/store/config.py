"""Small bot-wide values, per-server settings and players' languages: a key-value table each."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from bot.store._base import StoreBase


class ConfigMixin(StoreBase):
    async def get_state(self, key: str) -> str | None:
        """The bot-wide value stored under ``key``; ``None`` if there is none."""
        row = await self._one("SELECT value FROM bot_state WHERE key = ?", (key,))
        return str(row["value"]) if row else None

    async def set_state(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``, replacing what was there."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO bot_state (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    async def guild_settings(self, guild_id: int) -> dict[str, Any]:
        """The server's stored settings (only what an admin set); ``{}`` if none."""
        row = await self._one("SELECT data FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if row is None:
            return {}
        data = json.loads(row["data"])
        return dict(data) if isinstance(data, dict) else {}

    async def set_guild_settings(self, guild_id: int, data: Mapping[str, Any]) -> None:
        """Replace the server's stored settings with ``data`` (an empty mapping clears them)."""
        await self._put_json("guild_settings", "guild_id", guild_id, data)

    async def _put_json(
        self, table: Literal["guild_settings", "user_prefs"], key: str, id_: int, data: Mapping[str, Any]
    ) -> None:
        """A row of JSON by id replaced with ``data``, or deleted when empty (nothing kept for defaults)."""
        async with self._tx() as db:
            if data:
                await db.execute(
                    f"INSERT INTO {table} ({key}, data) VALUES (?, ?) "
                    f"ON CONFLICT({key}) DO UPDATE SET data = excluded.data",
                    (id_, json.dumps(dict(data), sort_keys=True)),
                )
            else:
                await db.execute(f"DELETE FROM {table} WHERE {key} = ?", (id_,))

    async def dm_channel(self, user_id: int) -> int | None:
        """The player's DM channel with the bot, if known."""
        row = await self._one("SELECT channel_id FROM dm_channels WHERE user_id = ?", (user_id,))
        return int(row["channel_id"]) if row else None

    async def set_dm_channel(self, user_id: int, channel_id: int | None) -> None:
        """Remember the player's DM channel (None: forget it)."""
        async with self._tx() as db:
            if channel_id is None:
                await db.execute("DELETE FROM dm_channels WHERE user_id = ?", (user_id,))
            else:
                await db.execute(
                    "INSERT INTO dm_channels (user_id, channel_id) VALUES (?, ?) "
                    "ON CONFLICT(user_id) DO UPDATE SET channel_id = excluded.channel_id",
                    (user_id, channel_id),
                )

    async def user_prefs(self) -> dict[int, dict[str, Any]]:
        """Every player's stored preferences (each switch they chose, with its value)."""
        rows = await self._all("SELECT user_id, data FROM user_prefs")
        out: dict[int, dict[str, Any]] = {}
        for row in rows:
            data = json.loads(row["data"])
            out[int(row["user_id"])] = dict(data) if isinstance(data, dict) else {}
        return out

    async def set_user_prefs(self, user_id: int, data: Mapping[str, Any]) -> None:
        """Replace a player's stored preferences with ``data`` (an empty mapping clears them)."""
        await self._put_json("user_prefs", "user_id", user_id, data)

    async def user_languages(self) -> dict[int, str]:
        """Every player's remembered language."""
        rows = await self._all("SELECT user_id, language FROM user_languages")
        return {int(row["user_id"]): str(row["language"]) for row in rows}

    async def set_user_language(self, user_id: int, language: str) -> None:
        """Remember a player's language, replacing what was there."""
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO user_languages (user_id, language) VALUES (?, ?) "
                "ON CONFLICT(user_id) DO UPDATE SET language = excluded.language",
                (user_id, language),
            )
