"""Live tables: the in-memory game states, one per channel, kept in step with the store's action logs.

A game is fully determined by (seed, players, options, action log), so the store keeps only those plus a
small typed :class:`TableMeta`; the log is the truth. A move runs under the table's lock (``locked``); it is
committed to the store, with the meta it changes and now and then a snapshot of the engine state
(:mod:`bot.services.snapshots`), in one transaction before its events are returned, so nothing the bot
announces can be lost. A restart lists every active game at once (where it plays, who sits there: what
lookups need), then rebuilds each table from its snapshot and the few actions after it (or, without a
usable snapshot, by replaying its whole log) in the background, while the bot connects; a table looked
up before its turn is rebuilt then. A table read again (another process wrote it) is rebuilt from its
snapshot too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

from bot.base.i18n import t
from bot.base.locks import KeyedLocks
from bot.games import (
    GameAdapter,
    MoveConflict,
    MoveNotSaved,
    NotSeated,
    Seat,
    StaleAction,
    Table,
    TableClosed,
    TableError,
    TableMeta,
    TableUnavailable,
)
from bot.games.seats import is_bot
from bot.rules.engine import Engine, Result
from bot.services import snapshots
from bot.store import (
    ActionConflict,
    ActionRecord,
    ActiveGame,
    ChannelBusy,
    Finish,
    GameRecord,
    PlayerBusy,
    Snapshot,
    Store,
    VersionConflict,
)

log = logging.getLogger(__name__)

PENDING_LIMIT = 400  # events kept for a channel that refuses posts (the oldest go first)
# Games read and rebuilt between two yields to the event loop at start-up: a few tens of milliseconds' work.
RESTORE_CHUNK = 250
ENDINGS_WINDOW = 24 * 3600.0  # an end committed but never told is told when the bot is back within a day


@dataclass(frozen=True)
class _Listed:
    """An active game as the lookups find it, whether its table is live or not rebuilt yet: where it plays
    and the people seated at it (the bot is never looked up by seat)."""

    id: int
    channel_id: int
    thread_id: int | None
    people: tuple[int, ...]

    @classmethod
    def of(cls, game: ActiveGame) -> _Listed:
        try:
            thread = TableMeta.from_dict(game.meta).thread_id
        except Exception as err:  # its rebuild will say what is wrong; it is still found by channel
            log.warning("game %d: its table meta can't be read (%r)", game.id, err)
            thread = None
        people = tuple(s.user_id for s in game.seats if not is_bot(s.user_id))
        return cls(game.id, game.channel_id, thread, people)


@dataclass(frozen=True)
class ActResult:
    table: Table
    events: list[Any]
    seq: int
    finished: bool
    result: Any = None  # the engine's Result when this action ended the game


def _replay(
    module: Engine, state: Any, actions: Sequence[ActionRecord], told: int, pending: list[Any]
) -> tuple[Any, list[Any]]:
    """Apply logged actions to ``state``; the events of those after ``told`` join ``pending`` (still to be
    told the channel)."""
    for action in actions:
        state, events = module.apply(state, module.parse_action(action.text))
        if action.seq > told:
            pending.extend(events)
    return state, pending


def _finish_from(result: Result, at: float, module: Engine | None = None, state: Any = None) -> Finish:
    """Flatten the engine's Result. Per-hand scores (for the "average hand score" stat) come from
    ``Result.hand_scores`` or, failing that, an optional ``module.hand_scores(state)``; both are per seat."""
    hands = getattr(result, "hand_scores", None)
    if hands is None and module is not None and hasattr(module, "hand_scores"):
        hands = module.hand_scores(state)
    avgs: tuple[float | None, ...] = ()
    if hands is not None:
        avgs = tuple((sum(h) / len(h)) if len(h) else None for h in hands)
    return Finish(
        scores=tuple(int(s) for s in result.scores),
        winners=tuple(int(w) for w in result.winners),
        muggins=bool(result.muggins),
        how=str(result.how),
        at=at,
        hand_score_avg=avgs,
        left=tuple(bool(x) for x in getattr(result, "left", ())),
    )


class TableService:
    """Creates, restores and drives tables. Nothing else calls the store's game methods."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float],
        games: Mapping[str, GameAdapter],
    ) -> None:
        self.store = store
        self.clock = clock
        self.games = games
        self._by_id: dict[int, Table] = {}  # the live tables
        # Every active game the lookups know: the live tables, and at start-up those the restore has listed
        # but not rebuilt yet (``_Listed``), by id and by channel, thread and seated person.
        self._listed: dict[int, _Listed] = {}
        self._channels: dict[int, int] = {}
        self._threads: dict[int, int] = {}
        self._seated: dict[int, set[int]] = {}
        self._create_lock = asyncio.Lock()
        self._locks = KeyedLocks()
        self._codecs: dict[str, snapshots.Codec | None] = {}
        self._indexed = asyncio.Event()
        self._restored = asyncio.Event()
        # While restoring: the ids of the games it must leave as they are, made live, closed or found
        # unplayable meanwhile.
        self._restoring: set[int] | None = None

    # ---------------------------------------------------------------- lookup

    async def table_for_channel(self, channel_id: int) -> Table | None:
        """The active table in this channel, or in this game thread (rebuilt now if the start-up restore
        has not come to it yet)."""
        game_id = self._channels.get(channel_id)
        if game_id is None:
            game_id = self._threads.get(channel_id)
        return None if game_id is None else await self._live(game_id)

    def active_tables(self) -> list[Table]:
        """The live tables: every active game once :meth:`restored` returns."""
        return list(self._by_id.values())

    async def seated_at(self, user_id: int) -> Table | None:
        """The active table where the user sits, in any server (a player takes one seat at a time; the bot
        plays at any number of tables)."""
        for table in await self._tables_of(user_id):
            return table
        return None

    async def tables_of_user(self, guild_id: int, user_id: int) -> list[Table]:
        """The active tables of this server where the user sits."""
        return [t for t in await self._tables_of(user_id) if t.guild_id == guild_id]

    async def _tables_of(self, user_id: int) -> list[Table]:
        found = []
        for game_id in sorted(self._seated.get(user_id, ())):  # a copy: rebuilding one changes the index
            table = await self._live(game_id)
            if table is not None and table.seat_of(user_id) is not None:
                found.append(table)
        return found

    async def _live(self, game_id: int) -> Table | None:
        """The live table of a listed game, rebuilt now if the restore has not come to it yet; None if it is
        no longer active or can't be rebuilt (then logged, and left for ``abandon_unplayable``)."""
        table = self._by_id.get(game_id)
        if table is not None:
            return table
        try:
            table = await self.get(game_id)
        except TableUnavailable:
            raise
        except Exception:
            log.exception("could not rebuild game %d", game_id)
            self._forget(game_id)
            return None
        return table if table.status == "active" else None

    async def indexed(self) -> None:
        """Return once the restore's first step has listed every active game (at once afterwards): from then
        on the lookups by channel, thread and user find every one, rebuilding a table the restore has not
        come to yet. That step reads a few rows per game and takes a fraction of the whole restore."""
        await self._indexed.wait()

    async def get(self, game_id: int) -> Table:
        """The live table, or the game rebuilt from the store (finished ones too) from its snapshot and the
        actions after it; unknown id → TableError. A table another process has written since it was read is
        read again."""
        table = self._by_id.get(game_id)
        if table is not None:
            return table if not table.stale else await self._reload(table)
        table = await self._load(game_id)
        existing = self._by_id.get(game_id)  # another caller may have loaded it while we awaited
        if existing is not None:
            return existing
        if table.status == "active":
            self._register(table)
        else:
            self._forget(game_id)
        return table

    async def _reload(self, table: Table) -> Table:
        """Read a game again after another process wrote it: the store's copy replaces ours (a finished
        game is returned but no longer live)."""
        fresh = await self._load(table.id)
        self._unregister(table)
        if fresh.status == "active":
            self._register(fresh)
        return fresh

    def changed_elsewhere(self, game_id: int | None, closed: bool) -> None:
        """News from the store: another process wrote this game (None: any game may have been written).
        Our copy is read again before it is next used; a game closed elsewhere stops being live here at
        once, so lookups by channel and player see it gone. The news counts as activity for the idle
        timers until the copy is read again (the game was just played)."""
        if closed and game_id is not None and game_id not in self._by_id:
            self._forget(game_id)  # listed, not rebuilt yet
        tables = list(self._by_id.values()) if game_id is None else [self._by_id.get(game_id)]
        for table in tables:
            if table is None:
                continue
            table.stale = True
            if closed:
                self._unregister(table)
            elif game_id is not None:
                table.last_action_at = max(table.last_action_at, self.clock())

    def adapter(self, game: str) -> GameAdapter:
        try:
            return self.games[game]
        except KeyError:
            raise TableError("tavern.table.no-such-game", game=game) from None

    def _register(self, table: Table) -> None:
        if self._restoring is not None:
            self._restoring.add(table.id)
        self._by_id[table.id] = table
        people = tuple(uid for uid in table.user_ids if not is_bot(uid))
        self._list(_Listed(table.id, table.channel_id, table.meta.thread_id, people))

    def _unregister(self, table: Table) -> None:
        self._by_id.pop(table.id, None)
        self._forget(table.id)

    def _list(self, entry: _Listed) -> None:
        """Make an active game found by its channel, thread and seated people."""
        self._delist(entry.id)
        self._listed[entry.id] = entry
        self._channels[entry.channel_id] = entry.id
        if entry.thread_id is not None:
            self._threads[entry.thread_id] = entry.id
        for user_id in entry.people:
            self._seated.setdefault(user_id, set()).add(entry.id)

    def _delist(self, game_id: int) -> None:
        entry = self._listed.pop(game_id, None)
        if entry is None:
            return
        if self._channels.get(entry.channel_id) == game_id:
            del self._channels[entry.channel_id]
        if entry.thread_id is not None and self._threads.get(entry.thread_id) == game_id:
            del self._threads[entry.thread_id]
        for user_id in entry.people:
            games = self._seated.get(user_id)
            if games is not None:
                games.discard(game_id)
                if not games:
                    del self._seated[user_id]

    def _forget(self, game_id: int) -> None:
        """The game is no longer live here (closed, or it can't be rebuilt): out of the lookups, and left
        alone by a restore under way."""
        self._delist(game_id)
        if self._restoring is not None:
            self._restoring.add(game_id)

    async def _read(self, game_id: int, snapshots: Mapping[str, str] | None = None) -> GameRecord:
        try:
            record = await self.store.load_game(game_id, snapshots=snapshots)
        except Exception as err:
            log.warning("game %d could not be read (%s)", game_id, err)
            raise TableUnavailable() from err
        if record is None:
            raise TableError("tavern.table.not-found")
        return record

    async def _load(self, game_id: int) -> Table:
        """The stored game as a table, from its snapshot and the actions after it where it has one."""
        return await self._build(await self._read(game_id, self._tags()))

    async def _build(self, record: GameRecord) -> Table:
        """The table of a game read with its snapshot: resumed from it, else (none, or one that can't be
        used) by replaying the whole log, read again if the record holds only the actions after it."""
        if record.snapshot is not None:
            table = self._resume(record, record.snapshot)
            if table is not None:
                return table
            record = await self._read(record.id)
        return self._rebuild(record)

    def _rebuild(self, record: GameRecord) -> Table:
        """Replay the whole log; the events after what the channel was told are kept to be told next."""
        module = self.adapter(record.game).rules
        options = module.Options.from_dict(record.options)
        meta = TableMeta.from_dict(record.meta)
        told = meta.told(len(record.actions))
        state, events = module.start(record.seed, record.players, options)
        state, pending = _replay(module, state, record.actions, told, list(events) if told < 0 else [])
        last_at = record.actions[-1].at if record.actions else record.created_at
        return self._table(record, options, meta, state, len(record.actions), last_at, pending)

    def _resume(self, record: GameRecord, snapshot: Snapshot) -> Table | None:
        """The table from its snapshot and the actions after it (all the record holds), exactly as
        :meth:`_rebuild` would make it; None when the snapshot can't be used, for the caller to replay the
        whole log: it is refused (see ``bot.services.snapshots``), the actions after it do not apply to it,
        or the channel was not told everything up to it."""
        module = self.adapter(record.game).rules
        seq = snapshot.seq + len(record.actions)
        meta = TableMeta.from_dict(record.meta)
        told = meta.told(seq)
        if told < snapshot.seq:
            log.info("game %d: told up to action %d, before its snapshot: replaying its log", record.id, told)
            return None
        if [a.seq for a in record.actions] != list(range(snapshot.seq + 1, seq + 1)):
            log.warning("game %d: the actions read do not follow its snapshot: replaying its log", record.id)
            return None
        codec = self._codec(record.game)
        if codec is None or snapshot.tag != codec.tag:
            log.warning(
                "game %d: a snapshot tagged %r is not read here: replaying its log", record.id, snapshot.tag
            )
            return None
        options = module.Options.from_dict(record.options)
        try:
            state = codec.load(snapshot.data, seed=record.seed, options=options)
        except snapshots.SnapshotError as err:
            log.warning("game %d: its snapshot was refused (%s): replaying its whole log", record.id, err)
            return None
        try:
            state, pending = _replay(module, state, record.actions, told, [])
        except Exception as err:
            log.warning(
                "game %d: the actions after its snapshot do not apply to it (%r): replaying its whole log",
                record.id,
                err,
            )
            return None
        last_at = record.actions[-1].at if record.actions else snapshot.at
        return self._table(record, options, meta, state, seq, last_at, pending, snapshot_seq=snapshot.seq)

    def _table(
        self,
        record: GameRecord,
        options: Any,
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

    def _codec(self, game: str) -> snapshots.Codec | None:
        """The snapshot codec of the game's engine (None: it declares no STATE_VERSION, or its State can't
        be carried, so it gets no snapshots)."""
        if game not in self._codecs:
            try:
                self._codecs[game] = snapshots.codec(self.adapter(game).rules)
            except TypeError as err:
                log.error("game %s: no snapshots (%s)", game, err)
                self._codecs[game] = None
        return self._codecs[game]

    def _tags(self) -> dict[str, str]:
        """{game name: the tag of the snapshots its engine reads}, for the store to pick usable snapshots."""
        return {name: codec.tag for name in self.games if (codec := self._codec(name)) is not None}

    def _snapshot(self, table: Table) -> Snapshot | None:
        """The snapshot a move leaves, if one is due: of the state before it, and only if the channel was
        told everything up to there (events still to tell must come after a snapshot: they are re-derived
        from the actions after it, and a move is committed untold)."""
        seq, state, at = table.seq, table.state, table.last_action_at
        if table.meta.told(seq) != seq or not snapshots.due(seq, table.snapshot_seq):
            return None
        codec = self._codec(table.game)
        if codec is None:
            return None
        try:
            data = codec.dump(state)
        except snapshots.SnapshotError as err:  # the log is the truth: no snapshot only costs start-up time
            log.warning("game %d: no snapshot at action %d (%s)", table.id, seq, err)
            return None
        return Snapshot(seq, at, codec.tag, data)

    # ---------------------------------------------------------------- lifecycle

    async def restore(self, shards: tuple[int, Sequence[int]] | None = None) -> int:
        """Bring back every active game; returns how many tables it made live.

        First every active game is listed (its channel, thread and seated people, a few rows per game), so
        the lookups by channel and user find them all as soon as :meth:`indexed` returns: a table not
        rebuilt yet is rebuilt when looked up. Then the games are read and rebuilt ``RESTORE_CHUNK`` at a
        time, yielding to the event loop in between, so the bot connects and answers meanwhile: a game with
        a usable snapshot from it and the actions after it (only those are read), any other by replaying its
        log. A table made live meanwhile (looked up, pressed, created) is kept, never rebuilt a second
        time; :meth:`restored` returns once every game is live. With ``shards`` (count, ids), only the
        games of guilds on those shards: the games of other shards' guilds are their processes' (a DM press
        still loads one here on demand)."""
        tags = self._tags()
        self._restoring = set(self._by_id)
        restored = resumed = 0
        after = 0
        try:
            for game in await self.store.active_index(shards=shards):
                if game.id not in self._restoring:
                    self._list(_Listed.of(game))
            self._indexed.set()
            while records := await self.store.active_games(
                after=after, limit=RESTORE_CHUNK, snapshots=tags, shards=shards
            ):
                after = records[-1].id
                for record in records:
                    if record.id in self._restoring:
                        continue  # made live (or closed) meanwhile: that stays
                    table = await self._restore_one(record)
                    if table is None or table.id in self._restoring:
                        continue
                    self._register(table)
                    restored += 1
                    resumed += table.snapshot_seq > 0
                await asyncio.sleep(0)
        finally:
            self._restoring = None
            self._indexed.set()
            self._restored.set()
        log.info(
            "restored %d active table(s): %d from snapshots, %d by replaying the whole log",
            restored,
            resumed,
            restored - resumed,
        )
        return restored

    async def _restore_one(self, record: GameRecord) -> Table | None:
        """The game's live table, or None if it must not be live: closed meanwhile, over (closed now), or
        impossible to rebuild (logged; ``abandon_unplayable`` can close it)."""
        assert self._restoring is not None
        try:
            table = await self._build(record)
            if table.status != "active" or table.id in self._restoring:
                return None
            result = table.result()
            if result is not None:
                # The log ends in a finished state that was never closed: close it now.
                finish = _finish_from(result, self.clock(), table.module, table.state)
                await self.store.finish_game(table.id, finish)
                table.status = "finished"
                self._forget(table.id)
                return None
        except Exception:
            log.exception("could not restore game %d (%s)", record.id, record.game)
            self._forget(record.id)
            return None
        return table

    async def untold_endings(self, shards: tuple[int, Sequence[int]] | None = None) -> list[int]:
        """Games that ended within ``ENDINGS_WINDOW`` whose end was committed and never told (the bot
        stopped in between): a restore does not bring back a finished game, so whoever tells it asks."""
        return await self.store.untold_endings(since=self.clock() - ENDINGS_WINDOW, shards=shards)

    async def restored(self) -> None:
        """Return once :meth:`restore` has run (at once afterwards): what waits here — the timer — finds
        every active game among the live tables."""
        await self._restored.wait()

    async def create(
        self,
        game: str,
        guild_id: int,
        channel_id: int,
        players: Sequence[tuple[int, str]],
        options: Any = None,
        seed: int | None = None,
    ) -> tuple[Table, list[Any]]:
        """Open a table in a channel. ``options`` is the module's Options, a dict, or None for defaults.

        The opening events are returned and also kept in ``table.pending`` until they are announced."""
        adapter = self.adapter(game)
        module = adapter.rules
        if options is None:
            options = module.Options()
        elif isinstance(options, Mapping):
            options = module.Options.from_dict(dict(options))
        user_ids = [uid for uid, _ in players]
        if len(set(user_ids)) != len(user_ids):
            raise TableError("tavern.table.one-seat")
        if seed is None:
            seed = secrets.randbits(63)
        async with self._create_lock:
            if channel_id in self._channels:
                raise TableError("tavern.table.busy")
            # Start first: a rules refusal (e.g. wrong player count) must not leave a row behind.
            state, events = module.start(seed, len(players), options)
            now = self.clock()
            meta = TableMeta(untold_after=-1, owed=True)  # until the opening is out
            try:
                game_id = await self.store.create_game(
                    game,
                    guild_id,
                    channel_id,
                    seed,
                    list(players),
                    options.to_dict(),
                    now,
                    meta=meta.to_dict(),
                )
            except ChannelBusy:
                raise TableError("tavern.table.busy") from None
            except PlayerBusy as busy:
                name = dict(players).get(busy.user_id) or t("tavern.table.a-player")
                raise TableError("tavern.lobby.other-seated", name=name, channel=busy.channel_id) from None
            table = Table(
                id=game_id,
                game=game,
                adapter=adapter,
                guild_id=guild_id,
                channel_id=channel_id,
                seed=seed,
                options=options,
                seats=tuple(Seat(uid, name) for uid, name in players),
                state=state,
                seq=0,
                created_at=now,
                last_action_at=now,
                meta=meta,
                pending=list(events),
            )
            self._register(table)
        return table, list(events)

    @asynccontextmanager
    async def locked(self, game_id: int) -> AsyncIterator[Table]:
        """Hold the table's lock: one move at a time, from its check to its last announcement — in this
        process, and in every process sharing the store (``Store.table_lock``). The table yielded is the
        stored game as of the lock: a copy another process has written since is read again first."""
        async with self._locks(game_id), contextlib.AsyncExitStack() as held:
            try:
                stored = await held.enter_async_context(self.store.table_lock(game_id))
            except Exception as err:
                log.warning("game %d: its lock could not be taken (%s)", game_id, err)
                raise TableUnavailable() from err
            table = await self.get(game_id)
            if stored is not None and stored != table.version:
                table = await self._reload(table)
            yield table

    async def act(
        self,
        game_id: int,
        user_id: int,
        action: Any,
        *,
        expected_seq: int | None = None,
    ) -> ActResult:
        """Take the table's lock and apply a seated player's action (see :meth:`apply_locked`)."""
        async with self.locked(game_id) as table:
            seat = table.seat_of(user_id)
            if seat is None:
                raise NotSeated()
            return await self.apply_locked(table, seat, action, expected_seq=expected_seq)

    async def apply_locked(
        self,
        table: Table,
        seat: int,
        action: Any,
        *,
        expected_seq: int | None = None,
        meta_after: Callable[[Sequence[Any], int], TableMeta] | None = None,
    ) -> ActResult:
        """Check and apply ``action`` (an engine Action, or its text without the seat prefix) for ``seat``
        (a player's move, or the system's for an idle seat); the caller holds the table's lock.

        ``expected_seq`` is the table's ``seq`` when the button was drawn (a mismatch raises
        ``StaleAction``). ``meta_after(events, seq)``, if given, says what the table's meta becomes with this
        move; if it changed, it is stored in the same transaction as the action. A RulesError from the engine
        passes through unchanged, and nothing changes."""
        if table.status != "active":
            raise TableClosed()
        if not 0 <= seat < len(table.seats):
            raise TableError("tavern.table.no-such-seat")
        if expected_seq is not None and expected_seq != table.seq:
            raise StaleAction()
        module = table.module
        if isinstance(action, str):
            action = module.parse_action(f"{seat} {action.strip()}")
        if getattr(action, "seat", seat) != seat:
            raise TableError("tavern.table.not-your-move")
        new_state, events = module.apply(table.state, action)
        text = module.action_text(action)
        seq = table.seq + 1
        now = self.clock()
        result = module.final_result(new_state) if module.is_over(new_state) else None
        finish = _finish_from(result, now, module, new_state) if result is not None else None
        new_meta = meta_after(events, seq) if meta_after is not None else table.meta
        snapshot = self._snapshot(table) if finish is None else None

        async def commit() -> None:
            changed = new_meta.to_dict() if new_meta != table.meta else None
            try:
                table.version = await self.store.append_action(
                    table.id, seq, seat, text, now, finish=finish, meta=changed, snapshot=snapshot
                )
            except ActionConflict as err:
                # Another process logged this seq first (it held the game while ours did not see it):
                # never ours, whatever its text. What the store has becomes the table.
                log.warning("game %d: action %d was logged by another process first", table.id, seq)
                with contextlib.suppress(TableError):
                    await self._reload(table)
                raise MoveConflict() from err
            except Exception as err:
                if not await self._saved_anyway(table, seq, text):
                    log.warning("game %d: action %d was not saved (%s)", table.id, seq, err)
                    raise MoveNotSaved() from err
                log.warning("game %d: action %d was saved, though the write reported %r", table.id, seq, err)
            table.state, table.seq, table.last_action_at, table.meta = new_state, seq, now, new_meta
            if snapshot is not None:
                table.snapshot_seq = snapshot.seq
            table.pending = [*table.pending, *events][-PENDING_LIMIT:]
            if finish is not None:
                table.status = "finished"
                self._unregister(table)

        # Shielded so a cancelled caller cannot leave the log and the in-memory state out of step.
        task = asyncio.ensure_future(commit())
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            await asyncio.wait([task])
            raise
        return ActResult(
            table=table, events=list(events), seq=seq, finished=finish is not None, result=result
        )

    async def abandon(self, table: Table, reason: str) -> None:
        """Close the game with no result and no rating change (an admin ended it); the caller holds the
        table's lock."""
        if table.status != "active":
            raise TableClosed()
        await self.store.abandon_game(table.id, self.clock(), reason)
        table.status = "abandoned"
        self._unregister(table)

    async def abandon_unplayable(self, channel_id: int, reason: str) -> bool:
        """Close an active game of this channel that could not be rebuilt at start-up (so it has no live
        table, yet holds the channel); False if there is none. One indexed lookup: an admin's command in an
        empty channel costs the store next to nothing."""
        game_id = await self.store.active_game_in(channel_id)
        if game_id is None or game_id in self._by_id:
            return False
        await self.store.abandon_game(game_id, self.clock(), reason)
        return True

    async def _saved_anyway(self, table: Table, seq: int, text: str) -> bool:
        """After a failed write, believe the store, not the error: True if the action is in the log after
        all (a commit that reached the disk and then reported a fault). Otherwise the live table is rebuilt
        from what the store has — or, if the store can't be read, dropped until the next ``get`` can."""
        self._unregister(table)
        try:
            record = await self.store.load_game(table.id)
        except Exception as err:
            log.warning("game %d could not be re-read (%s); it is loaded again when next used", table.id, err)
            return False
        if record is None:
            return False
        if len(record.actions) >= seq and record.actions[seq - 1].text == text:
            table.version = record.version
            if record.status == "active":
                self._register(table)
            return True
        if record.status == "active":
            self._register(self._rebuild(record))
        return False

    async def save_meta(self, table: Table, **changes: Any) -> None:
        """Change the table's meta outside a move (a board message posted, DMs found closed, a nudge), if
        the stored game is still the version this copy was read at. If not — another process wrote it
        without its lock, or the copy missed a write — the store is believed: the changes go onto the
        stored meta, and the copy is read again before its next use."""
        new = replace(table.meta, **changes)
        if new != table.meta:
            try:
                table.version = await self.store.set_meta(table.id, new.to_dict(), version=table.version)
            except VersionConflict:
                record = await self.store.load_game(table.id)
                if record is None:
                    raise TableError("tavern.table.not-found") from None
                log.warning(
                    "game %d: its meta was written elsewhere (version %d, not %d); changing the stored one",
                    table.id,
                    record.version,
                    table.version,
                )
                new = replace(TableMeta.from_dict(record.meta), **changes)
                table.version = await self.store.set_meta(table.id, new.to_dict(), version=record.version)
                table.stale = table.status == "active"
            moved = new.thread_id != table.meta.thread_id and table.status == "active"
            if moved:
                self._unregister(table)  # indexed under its old thread
            table.meta = new
            if moved:
                self._register(table)
