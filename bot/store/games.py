"""Games: creating them, their action logs, closing them, reading them back, and per-table UI data."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from bot.base import ratings as rt
from bot.games.seats import is_bot
from bot.store import stats
from bot.store._base import Conn, Params, Row, StoreBase
from bot.store.records import (
    EVERY_ACTIVE,
    ActionConflict,
    ActionRecord,
    ActiveGame,
    ChannelBusy,
    Finish,
    GameRecord,
    Listing,
    NewAction,
    NewGame,
    PlayerBusy,
    SeatRecord,
    Snapshot,
    VersionConflict,
)

# How an owed telling reads in a table meta's JSON (``json.dumps``'s separators): ``untold_endings`` finds it.
OWED = json.dumps({"owed": True})[1:-1]


class GamesMixin(StoreBase):
    async def create_game(self, new: NewGame) -> int:
        """Insert an active game, its seats and its first table meta; raises ``ChannelBusy`` if the channel
        has an active game and ``PlayerBusy`` if a player sits at one (checked in the same transaction, so
        two starts at once cannot both seat a player)."""
        channel_id, seats = new.channel_id, new.seats
        try:
            async with self._tx() as db:
                await self._serialize_seating(db)
                await _refuse_busy(db, channel_id, [uid for uid, _ in seats])
                row = await db.fetchrow(
                    "INSERT INTO games (game, guild_id, channel_id, seed, players, options, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (
                        new.game,
                        new.guild_id,
                        channel_id,
                        new.seed,
                        len(seats),
                        json.dumps(dict(new.options)),
                        new.created_at,
                    ),
                )
                assert row is not None
                game_id = int(row["id"])
                await db.executemany(
                    "INSERT INTO seats (game_id, seat, user_id, name) VALUES (?, ?, ?, ?)",
                    [(game_id, i, uid, name) for i, (uid, name) in enumerate(seats)],
                )
                if new.meta is not None:
                    await _write_meta(db, game_id, json.dumps(dict(new.meta)))
        except self._unique_errors as err:
            # The channel's one active game, inserted meanwhile; any other refusal is the backend's own error
            # (read once the transaction is rolled back: PostgreSQL takes no statement in a failed one).
            if await self.active_game_in(channel_id) is not None:
                raise ChannelBusy(channel_id) from err
            raise
        return game_id

    async def append_action(self, action: NewAction) -> int:
        """Commit one accepted action in one transaction; with ``finish`` it also closes the game, with
        ``meta`` it also replaces the table's UI data, and with ``snapshot`` (of the state at an earlier
        action: a move is logged untold, so the newest snapshot is of the last state told) it also replaces
        the game's snapshot. Returns the game's new version.

        ``seq`` is 1 for the first action. A duplicate (game_id, seq) raises ``ActionConflict``; a ``finish``
        for a game that is not active, or a snapshot not of an earlier action, raises ``ValueError``; any
        other refusal is the backend's own error. Whatever is raised, nothing is written.
        """
        game_id, seq, snapshot, finish = action.game_id, action.seq, action.snapshot, action.finish
        if snapshot is not None and not 0 < snapshot.seq < seq:
            raise ValueError(f"a snapshot of action {snapshot.seq} given with action {seq}")
        data = None if action.meta is None else json.dumps(dict(action.meta))
        refused: Exception | None = None  # the action's own insert, refused by a key or constraint
        try:
            async with self._tx() as db:
                try:
                    await db.execute(
                        "INSERT INTO actions (game_id, seq, seat, text, at) VALUES (?, ?, ?, ?, ?)",
                        (game_id, seq, action.seat, action.text, action.at),
                    )
                except self._unique_errors as err:
                    refused = err
                    raise
                if finish is not None:
                    await self._finish_in_tx(db, game_id, finish)
                if data is not None:
                    await _write_meta(db, game_id, data)
                if snapshot is not None:
                    await db.execute(
                        "INSERT INTO snapshots (game_id, seq, at, fingerprint, data) VALUES (?, ?, ?, ?, ?) "
                        "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, at = excluded.at, "
                        "fingerprint = excluded.fingerprint, data = excluded.data",
                        (game_id, snapshot.seq, snapshot.at, snapshot.tag, snapshot.data),
                    )
                return await _bump(db, game_id)
        except self._unique_errors as err:
            # Only the (game_id, seq) key means another writer moved first; any other refusal (a foreign key,
            # a constraint a newer schema added) is an ordinary failed write, not a move to tell players of.
            # Read once the transaction is rolled back: PostgreSQL takes no statement in a failed one.
            if err is refused and await self._one(
                "SELECT 1 FROM actions WHERE game_id = ? AND seq = ?", (game_id, seq)
            ):
                raise ActionConflict(game_id, seq) from err
            raise

    async def finish_game(self, game_id: int, finish: Finish) -> None:
        """Close a game whose last action is already logged (used when a restore finds a finished state)."""
        async with self._tx() as db:
            await self._finish_in_tx(db, game_id, finish)
            await _bump(db, game_id)

    async def abandon_game(self, game_id: int, at: float, reason: str) -> None:
        """Close an active game without results or rating changes; ``ValueError`` if it is not active."""
        async with self._tx() as db:
            changed = await db.execute(
                "UPDATE games SET status = 'abandoned', finished_at = ?, result = ?, version = version + 1 "
                "WHERE id = ? AND status = 'active'",
                (at, json.dumps({"abandoned": reason}), game_id),
            )
            if changed != 1:
                raise ValueError(f"game {game_id} is not active")

    async def load_game(
        self, game_id: int, *, snapshots: Mapping[str, str] | None = None
    ) -> GameRecord | None:
        """The game with its seats, actions and meta, whatever its status; ``None`` if there is none. With
        ``snapshots`` ({game name: tag}), as ``active_games`` reads them."""
        records = await self._records("g.id = ?", (game_id,), snapshots)
        return records[0] if records else None

    async def active_games(self, listing: Listing = EVERY_ACTIVE) -> list[GameRecord]:
        """The active games with an id above ``after`` (at most ``limit``), by id, with their seats, actions
        and meta. With ``snapshots`` ({game name: tag}), a game whose snapshot carries its game's tag comes
        with it and only the actions after it (the rest, the whole log). With ``shards`` (count, ids), only
        the games whose guild Discord puts on one of those shards."""
        after, limit, shards = listing.after, listing.limit, listing.shards
        params: list[Any] = [after]
        where = _active("g.", shards)
        if limit is not None:
            # A page by id, chosen inside each query: the read is one snapshot, so all pick the same games.
            where = f"g.id IN (SELECT id FROM games WHERE {_active('', shards)} ORDER BY id LIMIT ?)"
            params.append(limit)
        return await self._records(where, params, listing.snapshots)

    async def active_in_guild(self, guild_id: int) -> list[tuple[int, int]]:
        """The guild's active games as (game id, channel id), newest first: one indexed read of this guild's
        rows only (``games_active_in_guild``), whatever the number of games of other servers."""
        rows = await self._all(
            "SELECT id, channel_id FROM games WHERE guild_id = ? AND status = 'active' ORDER BY id DESC",
            (guild_id,),
        )
        return [(int(r["id"]), int(r["channel_id"])) for r in rows]

    async def active_index(self, *, shards: tuple[int, Sequence[int]] | None = None) -> list[ActiveGame]:
        """Every active game (of a guild on ``shards``, as ``active_games``), by id, with its seats and meta
        but no actions: three queries in one read."""
        where = _active("g.", shards)
        async with self._read() as db:
            games = await db.fetch(
                f"SELECT g.id, g.game, g.guild_id, g.channel_id FROM games g WHERE {where} ORDER BY g.id", [0]
            )
            seats = await db.fetch(
                "SELECT s.game_id, s.seat, s.user_id, s.name FROM seats s JOIN games g ON g.id = s.game_id "
                f"WHERE {where} ORDER BY s.game_id, s.seat",
                [0],
            )
            metas = await db.fetch(
                f"SELECT m.game_id, m.data FROM table_meta m JOIN games g ON g.id = m.game_id WHERE {where}",
                [0],
            )
        seats_of = _seats(seats)
        meta_of = {m["game_id"]: dict(json.loads(m["data"])) for m in metas}
        return [
            ActiveGame(
                id=r["id"],
                game=r["game"],
                guild_id=r["guild_id"],
                channel_id=r["channel_id"],
                seats=tuple(seats_of[r["id"]]),
                meta=meta_of.get(r["id"], {}),
            )
            for r in games
        ]

    async def active_game_in(self, channel_id: int) -> int | None:
        """The channel's active game, by the index that keeps it to one."""
        row = await self._one(
            "SELECT id FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
        )
        return int(row["id"]) if row is not None else None

    async def untold_endings(
        self, *, since: float, shards: tuple[int, Sequence[int]] | None = None
    ) -> list[int]:
        """The games finished at ``since`` or later (of guilds on ``shards``, if given), by id, whose table
        meta says their last move's telling was owed: a bot stopped between committing a game's end and
        telling it. The meta is the JSON ``set_meta`` writes, so its ``"owed": true`` is matched as text."""
        sql = (
            "SELECT g.id FROM games g JOIN table_meta m ON m.game_id = g.id "
            "WHERE g.status = 'finished' AND g.finished_at >= ? AND m.data LIKE ?"
        )
        if shards is not None:
            count, ids = shards
            sql += f" AND ((g.guild_id >> 22) % {int(count)}) IN ({', '.join(str(int(i)) for i in ids)})"
        rows = await self._all(sql + " ORDER BY g.id", (since, f"%{OWED}%"))
        return [int(r["id"]) for r in rows]

    async def actions(self, game_id: int) -> list[ActionRecord]:
        """The game's action log, by seq."""
        rows = await self._all(
            "SELECT seq, seat, text, at FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [_action(r) for r in rows]

    async def set_meta(self, game_id: int, data: Mapping[str, Any], *, version: int | None = None) -> int:
        """Replace the table's UI data with ``data`` (a JSON-able mapping); returns the game's new version.
        With ``version``, only if the game is still at that version (``VersionConflict`` otherwise, and
        nothing is written): the version check and the bump are one statement, so two writers never both
        pass it."""
        text = json.dumps(dict(data))
        async with self._tx() as db:
            if version is None:
                await _write_meta(db, game_id, text)
                return await _bump(db, game_id)
            bumped = await db.execute(
                "UPDATE games SET version = version + 1 WHERE id = ? AND version = ?", (game_id, version)
            )
            if bumped != 1:
                raise VersionConflict(game_id, version)
            await _write_meta(db, game_id, text)
            return version + 1

    async def _records(
        self, where: str, params: Params = (), snapshots: Mapping[str, str] | None = None
    ) -> list[GameRecord]:
        """Games matching ``where`` (alias ``g``, its ``?`` bound to ``params``) with their seats, actions
        and meta: four queries in all (a fifth for the snapshots wanted, which then cut the actions read
        short)."""
        # A snapshot is used only if it carries the tag its game's engine reads now.
        fits, fits_params = _fits(snapshots or {})
        async with self._read() as db:
            games = await db.fetch(f"SELECT g.* FROM games g WHERE {where} ORDER BY g.id", params)
            if not games:
                return []
            seats = await db.fetch(
                "SELECT s.game_id, s.seat, s.user_id, s.name FROM seats s JOIN games g ON g.id = s.game_id "
                f"WHERE {where} ORDER BY s.game_id, s.seat",
                params,
            )
            actions = await db.fetch(*_actions_query(where, params, fits, fits_params, snapshots is not None))
            snaps = (
                await db.fetch(
                    "SELECT sn.game_id, sn.seq, sn.at, sn.fingerprint, sn.data FROM games g "
                    f"JOIN snapshots sn ON {fits} WHERE {where}",
                    [*fits_params, *params],
                )
                if snapshots is not None
                else []
            )
            metas = await db.fetch(
                f"SELECT m.game_id, m.data FROM table_meta m JOIN games g ON g.id = m.game_id WHERE {where}",
                params,
            )
        return _game_records(games, seats, actions, snaps, metas)

    async def _finish_in_tx(self, db: Conn, game_id: int, f: Finish) -> None:
        g = await db.fetchrow("SELECT game, guild_id, status FROM games WHERE id = ?", (game_id,))
        if g is None or g["status"] != "active":
            raise ValueError(f"game {game_id} is not active")
        await db.execute(
            "UPDATE games SET status = 'finished', finished_at = ?, result = ? WHERE id = ?",
            (f.at, json.dumps(f.to_dict()), game_id),
        )
        system = rt.system_for(g["game"], self.rating_systems)
        await stats.record_finish(db, game_id, g["game"], g["guild_id"], f, system)


def _active(g: str, shards: tuple[int, Sequence[int]] | None) -> str:
    """The condition (alias prefix ``g``, one ``?`` for the id above which) of an active game, of a guild on
    one of ``shards`` (count, ids) when given."""
    text = f"{g}status = 'active' AND {g}id > ?"
    if shards is not None:
        count, ids = shards
        on = ", ".join(str(int(i)) for i in ids)
        text += f" AND (({g}guild_id >> 22) % {int(count)}) IN ({on})"
    return text


def _seats(rows: Sequence[Row]) -> dict[int, list[SeatRecord]]:
    """Seat rows (ordered by game and seat) by game id."""
    seats_of: dict[int, list[SeatRecord]] = defaultdict(list)
    for s in rows:
        seats_of[s["game_id"]].append(SeatRecord(s["seat"], s["user_id"], s["name"]))
    return seats_of


def _actions_query(
    where: str, params: Params, fits: str, fits_params: list[Any], after_snapshots: bool
) -> tuple[str, list[Any]]:
    """The query of the actions of the games matching ``where``: the whole logs, or (``after_snapshots``)
    only the actions after each game's usable snapshot (``fits``, see ``_fits``)."""
    if not after_snapshots:
        return (
            "SELECT a.game_id, a.seq, a.seat, a.text, a.at FROM actions a "
            f"JOIN games g ON g.id = a.game_id WHERE {where} ORDER BY a.game_id, a.seq"
        ), list(params)
    # Games first, then their snapshots, then the actions after each (a range of the actions' key).
    return (
        "SELECT a.game_id, a.seq, a.seat, a.text, a.at "
        f"FROM games g LEFT JOIN snapshots sn ON {fits} CROSS JOIN actions a "
        f"WHERE a.game_id = g.id AND a.seq > COALESCE(sn.seq, 0) AND {where} "
        "ORDER BY a.game_id, a.seq"
    ), [*fits_params, *params]


def _game_records(
    games: Sequence[Row],
    seats: Sequence[Row],
    actions: Sequence[Row],
    snaps: Sequence[Row],
    metas: Sequence[Row],
) -> list[GameRecord]:
    """The records of the games read by ``_records``, from its rows."""
    seats_of = _seats(seats)
    actions_of: dict[int, list[ActionRecord]] = defaultdict(list)
    for a in actions:
        actions_of[a["game_id"]].append(_action(a))
    meta_of = {m["game_id"]: dict(json.loads(m["data"])) for m in metas}
    snapshot_of = {
        s["game_id"]: Snapshot(s["seq"], s["at"], s["fingerprint"], bytes(s["data"])) for s in snaps
    }
    return [
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
            version=r["version"],
            seats=tuple(seats_of[r["id"]]),
            actions=tuple(actions_of[r["id"]]),
            meta=meta_of.get(r["id"], {}),
            snapshot=snapshot_of.get(r["id"]),
        )
        for r in games
    ]


def _fits(snapshots: Mapping[str, str]) -> tuple[str, list[Any]]:
    """The join condition (aliases ``g`` and ``sn``) of a snapshot its game's engine reads now, given
    {game name: tag} (the tag is in the column ``fingerprint``), and its parameters: plain SQL both
    databases speak."""
    if not snapshots:
        return "sn.game_id = g.id AND 1 = 0", []
    whens = " ".join("WHEN ? THEN ?" for _ in snapshots)
    params = [x for pair in sorted(snapshots.items()) for x in pair]
    return f"sn.game_id = g.id AND sn.fingerprint = CASE g.game {whens} END", params


async def _bump(db: Conn, game_id: int) -> int:
    """Count one more write to the game; its new version."""
    # No RETURNING: a write statement whose rows were never read keeps SQLite from committing or rolling
    # back, and a fault can come between the two.
    await db.execute("UPDATE games SET version = version + 1 WHERE id = ?", (game_id,))
    row = await db.fetchrow("SELECT version FROM games WHERE id = ?", (game_id,))
    if row is None:
        raise ValueError(f"no game {game_id}")
    return int(row[0])


async def _refuse_busy(db: Conn, channel_id: int, user_ids: Sequence[int]) -> None:
    """``ChannelBusy`` if the channel has an active game, ``PlayerBusy`` for the first player seated at one
    (the bot plays anywhere); inside ``create_game``'s transaction, after ``_serialize_seating``."""
    if await db.fetchrow("SELECT 1 FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)):
        raise ChannelBusy(channel_id)
    await refuse_seated(db, user_ids)


async def refuse_seated(db: Conn, user_ids: Sequence[int]) -> None:
    """``PlayerBusy`` for the first of these players seated at an active game (the bot plays anywhere)."""
    people = [uid for uid in user_ids if not is_bot(uid)]
    if not people:
        return
    marks = ", ".join("?" for _ in people)
    busy = await db.fetchrow(
        "SELECT s.user_id, g.channel_id FROM seats s JOIN games g ON g.id = s.game_id "
        f"WHERE g.status = 'active' AND s.user_id IN ({marks}) ORDER BY g.id LIMIT 1",
        people,
    )
    if busy is not None:
        raise PlayerBusy(int(busy["user_id"]), int(busy["channel_id"]))


async def _write_meta(db: Conn, game_id: int, data: str) -> None:
    await db.execute(
        "INSERT INTO table_meta (game_id, data) VALUES (?, ?) "
        "ON CONFLICT (game_id) DO UPDATE SET data = excluded.data",
        (game_id, data),
    )


def _action(r: Row) -> ActionRecord:
    return ActionRecord(r["seq"], r["seat"], r["text"], r["at"])
