"""Lobbies: challenges and open tables waiting to start."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from bot.store.base import SQLiteBase
from bot.store.records import Lobby

_LOBBY_FIELDS = frozenset(
    {"status", "members", "names", "message_id", "options", "invited_id", "expires_at", "game_id"}
)


class LobbiesPart(SQLiteBase):
    async def create_lobby(
        self,
        game: str,
        guild_id: int,
        channel_id: int,
        host_id: int,
        *,
        created_at: float,
        expires_at: float | None = None,
        invited_id: int | None = None,
        options: Mapping[str, Any] | None = None,
        names: Mapping[int, str] | None = None,
        members: Sequence[int] = (),
        message_id: int | None = None,
    ) -> Lobby:
        async with self._tx() as db:
            cur = await db.execute(
                "INSERT INTO lobbies (game, guild_id, channel_id, host_id, invited_id, options, names, "
                "members, message_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game,
                    guild_id,
                    channel_id,
                    host_id,
                    invited_id,
                    json.dumps(dict(options or {})),
                    _names_json(names or {}),
                    json.dumps(list(members)),
                    message_id,
                    created_at,
                    expires_at,
                ),
            )
            lobby_id = cur.lastrowid
        lobby = await self.get_lobby(int(lobby_id or 0))
        assert lobby is not None
        return lobby

    async def get_lobby(self, lobby_id: int) -> Lobby | None:
        row = await self._one("SELECT * FROM lobbies WHERE id = ?", (lobby_id,))
        return _lobby(row) if row else None

    async def update_lobby(self, lobby_id: int, **fields: Any) -> Lobby:
        """Set any of status, members, names, message_id, options, invited_id, expires_at, game_id."""
        bad = set(fields) - _LOBBY_FIELDS
        if bad:
            raise TypeError(f"unknown lobby fields: {sorted(bad)}")
        if fields:
            encode = {"members": lambda v: json.dumps(list(v)), "options": lambda v: json.dumps(dict(v))}
            encode["names"] = _names_json
            values = [encode[k](v) if k in encode else v for k, v in fields.items()]
            sets = ", ".join(f"{k} = ?" for k in fields)
            async with self._tx() as db:
                await db.execute(f"UPDATE lobbies SET {sets} WHERE id = ?", (*values, lobby_id))
        lobby = await self.get_lobby(lobby_id)
        if lobby is None:
            raise KeyError(lobby_id)
        return lobby

    async def open_lobbies(self, *, channel_id: int | None = None) -> list[Lobby]:
        if channel_id is None:
            rows = await self._all("SELECT * FROM lobbies WHERE status = 'open' ORDER BY id")
        else:
            rows = await self._all(
                "SELECT * FROM lobbies WHERE status = 'open' AND channel_id = ? ORDER BY id", (channel_id,)
            )
        return [_lobby(r) for r in rows]


def _names_json(names: Mapping[int, str]) -> str:
    return json.dumps({str(k): v for k, v in names.items()})


def _lobby(r: sqlite3.Row) -> Lobby:
    return Lobby(
        id=r["id"],
        game=r["game"],
        guild_id=r["guild_id"],
        channel_id=r["channel_id"],
        host_id=r["host_id"],
        invited_id=r["invited_id"],
        options=json.loads(r["options"]),
        names={int(k): str(v) for k, v in json.loads(r["names"]).items()},
        members=tuple(json.loads(r["members"])),
        message_id=r["message_id"],
        created_at=r["created_at"],
        expires_at=r["expires_at"],
        status=r["status"],
        game_id=r["game_id"],
    )
