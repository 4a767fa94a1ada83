"""Lobbies: tables being gathered in a channel before their game exists."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from bot.store._base import Conn, Row, StoreBase
from bot.store.interface import LOBBY_FIELDS, LOBBY_STATUSES
from bot.store.records import HostBusy, Lobby, NewLobby


class LobbiesMixin(StoreBase):
    async def create_lobby(self, new: NewLobby) -> Lobby:
        """Insert an open lobby and return it as stored; ``HostBusy`` if the host already hosts an open lobby
        that has not run out by ``created_at`` (checked in the insert's transaction, so two at once from one
        host, in two channels or two processes, cannot both open)."""
        async with self._tx() as db:
            await self._serialize_seating(db)
            hosted = await db.fetchrow(
                "SELECT * FROM lobbies WHERE status = 'open' AND host_id = ? "
                "AND (expires_at IS NULL OR expires_at > ?) ORDER BY id LIMIT 1",
                (new.host_id, new.created_at),
            )
            if hosted is not None:
                raise HostBusy(_lobby(hosted))
            row = await db.fetchrow(
                "INSERT INTO lobbies (game, guild_id, channel_id, host_id, invited_id, options, names, "
                "members, message_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "RETURNING id",
                (
                    new.game,
                    new.guild_id,
                    new.channel_id,
                    new.host_id,
                    new.invited_id,
                    _options_json(new.options or {}),
                    _names_json(new.names or {}),
                    _members_json(new.members),
                    new.message_id,
                    new.created_at,
                    new.expires_at,
                ),
            )
            assert row is not None
            lobby = await _select(db, int(row["id"]))
        assert lobby is not None
        return lobby

    async def get_lobby(self, lobby_id: int) -> Lobby | None:
        """The lobby, whatever its status; ``None`` if there is no such lobby."""
        row = await self._one("SELECT * FROM lobbies WHERE id = ?", (lobby_id,))
        return _lobby(row) if row else None

    async def update_lobby(self, lobby_id: int, **fields: Any) -> Lobby:
        """Set any of status, members, names, message_id, options, invited_id, expires_at, game_id."""
        bad = set(fields) - LOBBY_FIELDS
        if bad:
            raise TypeError(f"unknown lobby fields: {sorted(bad)}")
        if "status" in fields and fields["status"] not in LOBBY_STATUSES:
            raise ValueError(f"not a lobby status: {fields['status']!r}")
        values = [_encode(k, v) for k, v in fields.items()]
        async with self._tx() as db:
            if fields:
                sets = ", ".join(f"{k} = ?" for k in fields)
                await db.execute(f"UPDATE lobbies SET {sets} WHERE id = ?", (*values, lobby_id))
            lobby = await _select(db, lobby_id)
        if lobby is None:
            raise KeyError(lobby_id)
        return lobby

    async def open_lobbies(self, *, channel_id: int | None = None) -> list[Lobby]:
        """Open lobbies by id, in every channel or in one."""
        if channel_id is None:
            rows = await self._all("SELECT * FROM lobbies WHERE status = 'open' ORDER BY id")
        else:
            rows = await self._all(
                "SELECT * FROM lobbies WHERE status = 'open' AND channel_id = ? ORDER BY id", (channel_id,)
            )
        return [_lobby(r) for r in rows]


async def of_member(db: Conn, user_id: int) -> list[Lobby]:
    """Inside the caller's transaction: every lobby, whatever its status, that the member hosts, is invited
    to, has joined or is named in (their id is matched as text in the JSON columns, then read exactly)."""
    like = f"%{int(user_id)}%"
    rows = await db.fetch(
        "SELECT * FROM lobbies WHERE host_id = ? OR invited_id = ? OR members LIKE ? OR names LIKE ? "
        "ORDER BY id",
        (user_id, user_id, like, like),
    )
    found = [_lobby(r) for r in rows]
    return [
        lobby
        for lobby in found
        if user_id in (lobby.host_id, lobby.invited_id) or user_id in lobby.members or user_id in lobby.names
    ]


async def rename_member(db: Conn, lobbies: Sequence[Lobby], user_id: int, pseudonym: int, name: str) -> None:
    """Inside the caller's transaction: ``user_id`` becomes ``pseudonym``, named ``name``, in ``lobbies``."""

    def swap(uid: int) -> int:
        return pseudonym if uid == user_id else uid

    await db.executemany(
        "UPDATE lobbies SET host_id = ?, invited_id = ?, members = ?, names = ? WHERE id = ?",
        [
            (
                swap(lobby.host_id),
                None if lobby.invited_id is None else swap(lobby.invited_id),
                _members_json([swap(m) for m in lobby.members]),
                _names_json({swap(u): name if u == user_id else n for u, n in lobby.names.items()}),
                lobby.id,
            )
            for lobby in lobbies
        ],
    )


def _encode(name: str, value: Any) -> Any:
    if name == "members":
        return _members_json(value)
    if name == "names":
        return _names_json(value)
    if name == "options":
        return _options_json(value)
    return value


def _options_json(options: Mapping[str, Any]) -> str:
    return json.dumps(dict(options))


def _names_json(names: Mapping[int, str]) -> str:
    return json.dumps({str(int(uid)): name for uid, name in names.items()})


def _members_json(members: Sequence[int]) -> str:
    return json.dumps(list(members))


async def _select(db: Conn, lobby_id: int) -> Lobby | None:
    row = await db.fetchrow("SELECT * FROM lobbies WHERE id = ?", (lobby_id,))
    return _lobby(row) if row else None


def _lobby(r: Row) -> Lobby:
    return Lobby(
        id=r["id"],
        game=r["game"],
        guild_id=r["guild_id"],
        channel_id=r["channel_id"],
        host_id=r["host_id"],
        invited_id=r["invited_id"],
        options=json.loads(r["options"]),
        names={int(uid): name for uid, name in json.loads(r["names"]).items()},
        members=tuple(json.loads(r["members"])),
        message_id=r["message_id"],
        created_at=r["created_at"],
        expires_at=r["expires_at"],
        status=r["status"],
        game_id=r["game_id"],
    )
