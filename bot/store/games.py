"""Games, their action logs and their table meta."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bot.store.base import SQLiteBase
from bot.store.records import ActionRecord, ChannelBusy, Finish, GameRecord, SeatRecord
from bot.store.stats import StatsPart


class GamesPart(StatsPart, SQLiteBase):
    async def create_game(
        self,
        game: str,
        guild_id: int,
        channel_id: int,
        seed: int,
        seats: Sequence[tuple[int, str]],
        options: Mapping[str, Any],
        created_at: float,
    ) -> int:
        """Insert an active game and its seats; raises ``ChannelBusy`` if the channel has an active game."""
        try:
            async with self._tx() as db:
                cur = await db.execute(
                    "INSERT INTO games (game, guild_id, channel_id, seed, players, options, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game, guild_id, channel_id, seed, len(seats), json.dumps(dict(options)), created_at),
                )
                game_id = cur.lastrowid
                assert game_id is not None
                await db.executemany(
                    "INSERT INTO seats (game_id, seat, user_id, name) VALUES (?, ?, ?, ?)",
                    [(game_id, i, uid, name) for i, (uid, name) in enumerate(seats)],
                )
        except sqlite3.IntegrityError as err:
            if "games.channel_id" in str(err) or "UNIQUE" in str(err):
                raise ChannelBusy(channel_id) from err
            raise
        return int(game_id)

    async def append_action(
        self,
        game_id: int,
        seq: int,
        seat: int | None,
        text: str,
        at: float,
        *,
        finish: Finish | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        """Commit one accepted action; in the same transaction ``meta`` (if given) replaces the table's meta
        and ``finish`` (if given) closes the game with its results and ratings.

        ``seq`` is 1 for the first action. A duplicate (game_id, seq) raises ``sqlite3.IntegrityError``.
        """
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO actions (game_id, seq, seat, text, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, seat, text, at),
            )
            if meta is not None:
                await self._write_meta(db, game_id, meta)
            if finish is not None:
                await self._finish_in_tx(db, game_id, finish)

    async def finish_game(self, game_id: int, finish: Finish) -> None:
        """Close a game whose last action is already logged (used when a restore finds a finished state)."""
        async with self._tx() as db:
            await self._finish_in_tx(db, game_id, finish)

    async def load_game(self, game_id: int) -> GameRecord | None:
        rows = await self._all(
            "SELECT g.*, m.data AS meta FROM games g LEFT JOIN table_meta m ON m.game_id = g.id "
            "WHERE g.id = ?",
            (game_id,),
        )
        if not rows:
            return None
        return (await self._records(rows))[0]

    async def active_games(self) -> list[GameRecord]:
        rows = await self._all(
            "SELECT g.*, m.data AS meta FROM games g LEFT JOIN table_meta m ON m.game_id = g.id "
            "WHERE g.status = 'active' ORDER BY g.id"
        )
        return await self._records(rows)

    async def actions(self, game_id: int) -> list[ActionRecord]:
        rows = await self._all(
            "SELECT seq, seat, text, at FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [ActionRecord(r["seq"], r["seat"], r["text"], r["at"]) for r in rows]

    async def _records(self, rows: Iterable[sqlite3.Row]) -> list[GameRecord]:
        out = []
        for r in rows:
            seats = await self._all(
                "SELECT seat, user_id, name FROM seats WHERE game_id = ? ORDER BY seat", (r["id"],)
            )
            out.append(
                GameRecord(
                    id=r["id"],
                    game=r["game"],
                    guild_id=r["guild_id"],
                    channel_id=r["channel_id"],
                    seed=r["seed"],
                    players=r["players"],
                    options=json.loads(r["options"]),
                    status=r["status"],
                    created_at=r["created_at"],
                    finished_at=r["finished_at"],
                    result=json.loads(r["result"]) if r["result"] else None,
                    seats=tuple(SeatRecord(s["seat"], s["user_id"], s["name"]) for s in seats),
                    actions=tuple(await self.actions(r["id"])),
                    meta=json.loads(r["meta"]) if r["meta"] else {},
                )
            )
        return out

    async def get_meta(self, game_id: int) -> dict[str, Any]:
        row = await self._one("SELECT data FROM table_meta WHERE game_id = ?", (game_id,))
        return dict(json.loads(row["data"])) if row else {}

    async def set_meta(self, game_id: int, data: Mapping[str, Any]) -> None:
        """Replace the table's meta (a change that belongs to no move: a message posted, DMs found closed)."""
        async with self._tx() as db:
            await self._write_meta(db, game_id, data)

    @staticmethod
    async def _write_meta(db: Any, game_id: int, data: Mapping[str, Any]) -> None:
        await db.execute(
            "INSERT INTO table_meta (game_id, data) VALUES (?, ?) "
            "ON CONFLICT (game_id) DO UPDATE SET data = excluded.data",
            (game_id, json.dumps(dict(data))),
        )
