"""Tables made from stored games: from a game's snapshot and the few actions after it, or, without a usable
snapshot, by replaying its whole log (a game is fully determined by its seed, players, options and actions);
and the snapshots a move leaves, signed (:mod:`bot.services.snapshots`). A snapshot is believed only when
it checks out against its game and its log; any other is thrown away with a warning, and the log replayed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from bot.games import GameAdapter, Seat, Table, TableError, TableMeta, TableUnavailable
from bot.rules.engine import Engine, Options
from bot.services import snapshots
from bot.services.tables.moves import PENDING_LIMIT
from bot.store import ActionRecord, GameRecord, Snapshot, Store

log = logging.getLogger(__name__)


def replay(
    module: Engine, state: Any, actions: Sequence[ActionRecord], told: int, pending: list[Any]
) -> tuple[Any, list[Any]]:
    """Apply logged actions to ``state``; the events of those after ``told`` join ``pending`` (still to be
    told the channel)."""
    for action in actions:
        state, events = module.apply(state, module.parse_action(action.text))
        if action.seq > told:
            pending.extend(events)
    return state, pending


class TableLoader:
    """Reads stored games and makes their tables; keeps each engine's snapshot signer (under ``key``)."""

    def __init__(self, store: Store, games: Mapping[str, GameAdapter], key: bytes) -> None:
        self.store = store
        self.games = games
        self._key = key
        self._codecs: dict[str, snapshots.Signer | None] = {}

    def adapter(self, game: str) -> GameAdapter:
        """The game's adapter; a TableError for a game this bot does not host."""
        try:
            return self.games[game]
        except KeyError:
            raise TableError("tavern.table.no-such-game", game=game) from None

    async def read(self, game_id: int, snapshots: Mapping[str, str] | None = None) -> GameRecord:
        """The stored game (with its snapshot and the actions after it, for ``snapshots`` {game: tag});
        TableUnavailable when the store can't be read, TableError when there is no such game."""
        try:
            record = await self.store.load_game(game_id, snapshots=snapshots)
        except Exception as err:
            log.warning("game %d could not be read (%s)", game_id, err)
            raise TableUnavailable() from err
        if record is None:
            raise TableError("tavern.table.not-found")
        return record

    async def load(self, game_id: int) -> Table:
        """The stored game as a table, from its snapshot and the actions after it where it has one."""
        return await self.build(await self.read(game_id, self.tags()))

    async def build(self, record: GameRecord) -> Table:
        """The table of a game read with its snapshot: resumed from it, else (none, or one that can't be
        used) by replaying the whole log, read again if the record holds only the actions after it."""
        if record.snapshot is not None:
            table = self.resume(record, record.snapshot)
            if table is not None:
                return table
            record = await self.read(record.id)
        return self.rebuild(record)

    def rebuild(self, record: GameRecord) -> Table:
        """Replay the whole log; the events after what the channel was told are kept to be told next."""
        module = self.adapter(record.game).rules
        options = module.Options.from_dict(record.options)
        meta = TableMeta.from_dict(record.meta)
        told = meta.told(len(record.actions))
        state, events = module.start(record.seed, record.players, options)
        state, pending = replay(module, state, record.actions, told, list(events) if told < 0 else [])
        last_at = record.actions[-1].at if record.actions else record.created_at
        return self._table(record, options, meta, state, len(record.actions), last_at, pending)

    def resume(self, record: GameRecord, snapshot: Snapshot) -> Table | None:
        """The table from its snapshot and the actions after it (all the record holds), exactly as
        :meth:`rebuild` would make it; None when the snapshot can't be used, for the caller to replay the
        whole log: the channel was not told everything up to it, or it is refused — another tag, not
        signed by this bot for this game at this action count, not what the codec reads back (see
        ``bot.services.snapshots``), the game's seats not within its bounds, no action logged after it (a
        move's snapshot is of the state before it, committed with it), or actions after it that do not apply.
        """
        module = self.adapter(record.game).rules
        seq = snapshot.seq + len(record.actions)
        meta = TableMeta.from_dict(record.meta)
        told = meta.told(seq)
        if told < snapshot.seq:
            log.info("game %d: told up to action %d, before its snapshot: replaying its log", record.id, told)
            return None
        codec = self.codec(record.game)
        if codec is None or snapshot.tag != codec.tag:
            log.warning(
                "game %d: a snapshot tagged %r is not read here: replaying its log", record.id, snapshot.tag
            )
            return None
        options = module.Options.from_dict(record.options)
        try:
            self._claims(record, snapshot)
            state = codec.load(
                snapshot.data,
                game=record.id,
                seq=snapshot.seq,
                seed=record.seed,
                options=options,
                players=record.players,
            )
            state, pending = replay(module, state, record.actions, told, [])
        except Exception as err:  # SnapshotError, or an action after it that does not apply to it
            log.warning("game %d: its snapshot was refused (%s): replaying its whole log", record.id, err)
            return None
        last_at = record.actions[-1].at  # there is one: see _claims
        return self._table(record, options, meta, state, seq, last_at, pending, snapshot_seq=snapshot.seq)

    def _claims(self, record: GameRecord, snapshot: Snapshot) -> None:
        """What a snapshot's row says besides its state, checked against its game: seats within the game's
        bounds, and the action count it was made at followed by the log's next actions."""
        adapter = self.adapter(record.game)
        players = len(record.seats)
        if record.players != players or not adapter.min_players <= players <= adapter.max_players:
            raise snapshots.SnapshotError(f"a game of {record.players} players with {players} seats")
        after = [a.seq for a in record.actions]
        if after != list(range(snapshot.seq + 1, snapshot.seq + 1 + len(after))) or not after:
            raise snapshots.SnapshotError(
                f"made at action {snapshot.seq}, but the log goes on with {after[:3] or 'nothing'}"
            )

    def _table(
        self,
        record: GameRecord,
        options: Options,
        meta: TableMeta,
        state: Any,
        seq: int,
        last_action_at: float,
        pending: list[Any],
        *,
        snapshot_seq: int = 0,
    ) -> Table:
        return Table(
            id=record.id,
            game=record.game,
            adapter=self.adapter(record.game),
            guild_id=record.guild_id,
            channel_id=record.channel_id,
            seed=record.seed,
            options=options,
            seats=tuple(Seat(s.user_id, s.name) for s in record.seats),
            state=state,
            seq=seq,
            created_at=record.created_at,
            last_action_at=last_action_at,
            meta=meta,
            pending=pending[-PENDING_LIMIT:],
            status=record.status,
            snapshot_seq=snapshot_seq,
            version=record.version,
        )

    def codec(self, game: str) -> snapshots.Signer | None:
        """The snapshot signer of the game's engine (None: it declares no STATE_VERSION, or its State can't
        be carried, so it gets no snapshots)."""
        if game not in self._codecs:
            try:
                codec = snapshots.codec(self.adapter(game).rules)
            except TypeError as err:
                log.error("game %s: no snapshots (%s)", game, err)
                codec = None
            self._codecs[game] = None if codec is None else snapshots.Signer(codec, self._key)
        return self._codecs[game]

    def tags(self) -> dict[str, str]:
        """{game name: the tag of the snapshots its engine reads}, for the store to pick usable snapshots."""
        return {name: codec.tag for name in self.games if (codec := self.codec(name)) is not None}

    def snapshot(self, table: Table) -> Snapshot | None:
        """The snapshot a move leaves, if one is due: of the state before it, and only if the channel was
        told everything up to there (events still to tell must come after a snapshot: they are re-derived
        from the actions after it, and a move is committed untold)."""
        seq, state, at = table.seq, table.state, table.last_action_at
        if table.meta.told(seq) != seq or not snapshots.due(seq, table.snapshot_seq):
            return None
        codec = self.codec(table.game)
        if codec is None:
            return None
        try:
            data = codec.dump(state, game=table.id, seq=seq)
        except snapshots.SnapshotError as err:  # the log is the truth: no snapshot only costs start-up time
            log.warning("game %d: no snapshot at action %d (%s)", table.id, seq, err)
            return None
        return Snapshot(seq, at, codec.tag, data)
