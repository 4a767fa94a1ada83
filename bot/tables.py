"""Live tables: the in-memory game states, one per channel, kept in step with the store's action logs.

A game is fully determined by (seed, players, options, action log), so the store keeps only those plus a
small typed :class:`TableMeta`; the log is the truth. A move runs under the table's lock (``locked``); it is
committed to the store, with the meta it changes and now and then a snapshot of the engine state
(:mod:`bot.snapshots`), in one transaction before its events are returned, so nothing the bot announces can be
lost. A restart rebuilds every active table from its snapshot and the few actions after it (or, without a
usable snapshot, by replaying its whole log) in the background, while the bot connects.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from bot import snapshots
from bot.errors import UserFacingError
from bot.i18n import t
from bot.locks import KeyedLocks
from bot.seats import is_bot, shown
from bot.store import (
    ActionConflict,
    ActionRecord,
    ChannelBusy,
    Finish,
    GameRecord,
    PlayerBusy,
    Snapshot,
    Store,
    VersionConflict,
)

if TYPE_CHECKING:
    from bot.games import GameAdapter

log = logging.getLogger(__name__)

PENDING_LIMIT = 400  # events kept for a channel that refuses posts (the oldest go first)
# Games read and rebuilt between two yields to the event loop at start-up: a few tens of milliseconds' work.
RESTORE_CHUNK = 250
ENDINGS_WINDOW = 24 * 3600.0  # an end committed but never told is told when the bot is back within a day


class TableError(UserFacingError):
    """A table-level refusal; ``str(err)`` is a sentence a player can read (shown by bot.errors)."""


class NotSeated(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.not-seated")


class StaleAction(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.stale")


class MoveNotSaved(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.not-saved")


class TableUnavailable(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.unavailable")


class TableClosed(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.closed")


class MoveConflict(TableError):
    """Another process logged a move at this seq first: this one was not played."""

    def __init__(self) -> None:
        super().__init__("tavern.table.conflict")


@dataclass(frozen=True)
class Seat:
    user_id: int
    name: str


@dataclass(frozen=True)
class TableMeta:
    """What the bot remembers about a table besides the game itself; never rendered text.

    ``untold_after`` is None while the channel has been told everything in the log; else the action count
    up to which it has been told (-1: not even the opening), the later events being re-derived from the log.
    ``owed`` says the last move was committed and its telling — the presser's answer, the panels, the calls
    or their place in the outbox — had not finished: a process that finds it so tells it again.
    ``nudged`` / ``claim_offered`` hold the action count at which the idle nudge / claim offer was made, so
    each comes once per turn. ``thread_id`` is the game's own thread (None: it plays in its channel),
    ``summary`` the (channel, message) kept current in the channel while it plays in a thread, and
    ``panels`` each seat's one live private panel, (DM channel, message). In the usual move nothing here
    changes, so nothing but the action is written.
    """

    board_id: int | None = None
    dm_closed: frozenset[int] = frozenset()
    nudged: int = -1
    claim_offered: int = -1
    untold_after: int | None = None
    owed: bool = False
    thread_id: int | None = None
    summary: tuple[int, int] | None = None
    panels: Mapping[int, tuple[int, int]] = field(default_factory=dict)

    def told(self, seq: int) -> int:
        """The action count up to which the channel has been told what happened."""
        return seq if self.untold_after is None else self.untold_after

    def to_dict(self) -> dict[str, Any]:
        return {
            "board_id": self.board_id,
            "dm_closed": sorted(self.dm_closed),
            "nudged": self.nudged,
            "claim_offered": self.claim_offered,
            "untold_after": self.untold_after,
            "owed": self.owed,
            "thread_id": self.thread_id,
            "summary": list(self.summary) if self.summary is not None else None,
            "panels": {str(s): list(p) for s, p in sorted(self.panels.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableMeta:
        """Reads today's meta and the untyped meta of older versions (their extra keys are ignored)."""
        board, untold, thread = data.get("board_id"), data.get("untold_after"), data.get("thread_id")
        summary = data.get("summary")
        return cls(
            board_id=int(board) if board is not None else None,
            dm_closed=frozenset(int(s) for s in data.get("dm_closed", ())),
            nudged=int(data.get("nudged", -1)),
            claim_offered=int(data.get("claim_offered", -1)),
            untold_after=int(untold) if untold is not None else None,
            owed=data.get("owed") is True,
            thread_id=int(thread) if thread is not None else None,
            summary=(int(summary[0]), int(summary[1])) if summary else None,
            panels={int(s): (int(p[0]), int(p[1])) for s, p in (data.get("panels") or {}).items()},
        )


@dataclass(eq=False)
class Table:
    """One game in play. ``seq`` counts the actions applied since ``start``; ``pending`` holds the events
    the channel has not been shown yet (see ``TableMeta.untold_after``); ``snapshot_seq`` is the seq of the
    store's snapshot of it (0: none known), from which the next one is counted. ``version`` is the stored
    game's version this copy matches (``GameRecord.version``); ``stale`` says another process has written
    the game since, so it is read again before use."""

    id: int
    game: str
    adapter: GameAdapter
    guild_id: int
    channel_id: int
    seed: int
    options: Any
    seats: tuple[Seat, ...]
    state: Any
    seq: int
    created_at: float
    last_action_at: float
    meta: TableMeta = field(default_factory=TableMeta)
    pending: list[Any] = field(default_factory=list)
    status: str = "active"
    snapshot_seq: int = 0
    version: int = 0
    stale: bool = False

    @property
    def module(self) -> Any:
        """The rules engine."""
        return self.adapter.rules

    def seat_of(self, user_id: int) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return i
        return None

    @property
    def user_ids(self) -> tuple[int, ...]:
        return tuple(s.user_id for s in self.seats)

    def is_bot(self, seat: int) -> bool:
        """Whether a computer player sits here (it is never pinged, DMed or nudged)."""
        return is_bot(self.seats[seat].user_id)

    def mention(self, seat: int) -> str:
        """How the channel calls a seat: a ping for a person, the bold name for a bot."""
        own = self.seats[seat]
        return f"**{shown(own.user_id, own.name)}**" if self.is_bot(seat) else f"<@{own.user_id}>"

    @property
    def humans(self) -> tuple[int, ...]:
        """The seats people play."""
        return tuple(s for s in range(len(self.seats)) if not self.is_bot(s))

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' names as players read them (a bot's in the language in force)."""
        return tuple(shown(s.user_id, s.name) for s in self.seats)

    def waiting_for(self) -> tuple[int, ...]:
        return tuple(self.module.waiting_for(self.state))

    def people_waited_for(self) -> tuple[int, ...]:
        """The seats of people the game waits for (a bot waited for is moving, never idle)."""
        return tuple(s for s in self.waiting_for() if not self.is_bot(s))

    def is_over(self) -> bool:
        return bool(self.module.is_over(self.state))

    def result(self) -> Any:
        """The engine's Result, or None while the game runs."""
        return self.module.final_result(self.state) if self.is_over() else None


@dataclass(frozen=True)
class ActResult:
    table: Table
    events: list[Any]
    seq: int
    finished: bool
    result: Any = None  # the engine's Result when this action ended the game


def _replay(
    module: Any, state: Any, actions: Sequence[ActionRecord], told: int, pending: list[Any]
) -> tuple[Any, list[Any]]:
    """Apply logged actions to ``state``; the events of those after ``told`` join ``pending`` (still to be
    told the channel)."""
    for action in actions:
        state, events = module.apply(state, module.parse_action(action.text))
        if action.seq > told:
            pending.extend(events)
    return state, pending


def _finish_from(result: Any, at: float, module: Any = None, state: Any = None) -> Finish:
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
        self._by_id: dict[int, Table] = {}
        self._by_channel: dict[int, Table] = {}
        self._by_thread: dict[int, Table] = {}
        self._create_lock = asyncio.Lock()
        self._locks = KeyedLocks()
        self._fingerprints: dict[str, str | None] = {}
        self._restored = asyncio.Event()
        self._restoring: set[int] | None = None  # while restoring: every game id registered meanwhile

    # ---------------------------------------------------------------- lookup

    def table_for_channel(self, channel_id: int) -> Table | None:
        """The active table in this channel, or in this game thread."""
        table = self._by_channel.get(channel_id)
        if table is None:
            table = self._by_thread.get(channel_id)
        return table

    def active_tables(self) -> list[Table]:
        return list(self._by_channel.values())

    def seated_at(self, user_id: int) -> Table | None:
        """The active table where the user sits, in any server (a player takes one seat at a time; the bot
        plays at any number of tables)."""
        if is_bot(user_id):
            return None
        for table in self._by_channel.values():
            if table.seat_of(user_id) is not None:
                return table
        return None

    def tables_of_user(self, guild_id: int, user_id: int) -> list[Table]:
        return [
            t for t in self._by_channel.values() if t.guild_id == guild_id and t.seat_of(user_id) is not None
        ]

    async def get(self, game_id: int) -> Table:
        """The live table, or the game rebuilt from the store (finished ones too); unknown id → TableError.
        A table another process has written since it was read is read again."""
        table = self._by_id.get(game_id)
        if table is not None:
            return table if not table.stale else await self._reload(table)
        try:
            record = await self.store.load_game(game_id)
        except Exception as err:
            log.warning("game %d could not be read (%s)", game_id, err)
            raise TableUnavailable() from err
        if record is None:
            raise TableError("tavern.table.not-found")
        table = self._rebuild(record)
        existing = self._by_id.get(game_id)  # another caller may have loaded it while we awaited
        if existing is not None:
            return existing
        if table.status == "active":
            self._register(table)
        return table

    async def _reload(self, table: Table) -> Table:
        """Read a game again after another process wrote it: the store's copy replaces ours (a finished
        game is returned but no longer live)."""
        try:
            record = await self.store.load_game(table.id)
        except Exception as err:
            log.warning("game %d could not be read again (%s)", table.id, err)
            raise TableUnavailable() from err
        if record is None:
            raise TableError("tavern.table.not-found")
        fresh = self._rebuild(record)
        self._unregister(table)
        if fresh.status == "active":
            self._register(fresh)
        return fresh

    def changed_elsewhere(self, game_id: int | None, closed: bool) -> None:
        """News from the store: another process wrote this game (None: any game may have been written).
        Our copy is read again before it is next used; a game closed elsewhere stops being live here at
        once, so lookups by channel and player see it gone. The news counts as activity for the idle
        timers until the copy is read again (the game was just played)."""
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
        self._by_channel[table.channel_id] = table
        if table.meta.thread_id is not None:
            self._by_thread[table.meta.thread_id] = table

    def _unregister(self, table: Table) -> None:
        self._by_id.pop(table.id, None)
        if self._by_channel.get(table.channel_id) is table:
            del self._by_channel[table.channel_id]
        if table.meta.thread_id is not None and self._by_thread.get(table.meta.thread_id) is table:
            del self._by_thread[table.meta.thread_id]

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
        whole log: it can't be read, or the channel was not told everything up to it."""
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
        try:
            state = snapshots.load(snapshot.data)
            kind = getattr(module, "State", None)
            if kind is not None and not isinstance(state, kind):
                raise TypeError(f"a snapshot of a {type(state).__name__}")
            state, pending = _replay(module, state, record.actions, told, [])
        except Exception as err:
            log.warning("game %d: its snapshot can't be used (%r): replaying its log", record.id, err)
            return None
        options = module.Options.from_dict(record.options)
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

    def _fingerprint(self, game: str) -> str | None:
        """The fingerprint of the game's engine code (None: it has none, so it gets no snapshots)."""
        if game not in self._fingerprints:
            try:
                self._fingerprints[game] = snapshots.fingerprint(self.adapter(game).rules)
            except (OSError, TypeError, TableError) as err:
                log.warning("game %s: no snapshots (its engine's source can't be read: %r)", game, err)
                self._fingerprints[game] = None
        return self._fingerprints[game]

    def _snapshot(self, table: Table) -> Snapshot | None:
        """The snapshot a move leaves, if one is due: of the state before it, and only if the channel was
        told everything up to there (events still to tell must come after a snapshot: they are re-derived
        from the actions after it, and a move is committed untold)."""
        seq, state, at = table.seq, table.state, table.last_action_at
        if table.meta.told(seq) != seq or not snapshots.due(seq, table.snapshot_seq):
            return None
        fingerprint = self._fingerprint(table.game)
        if fingerprint is None:
            return None
        try:
            data = snapshots.dump(state)
        except Exception as err:  # the log is the truth: a state that won't pickle only costs start-up time
            log.warning("game %d: no snapshot at action %d (%r)", table.id, seq, err)
            return None
        return Snapshot(seq, at, fingerprint, data)

    # ---------------------------------------------------------------- lifecycle

    async def restore(self, shards: tuple[int, Sequence[int]] | None = None) -> int:
        """Bring back every active game; returns how many tables it made live. A game with a usable snapshot
        is rebuilt from it and the actions after it (only those are read), any other by replaying its log.

        Games are read and rebuilt ``RESTORE_CHUNK`` at a time, yielding to the event loop in between, so
        the bot connects and answers meanwhile: a click loads its own table through :meth:`get`, and a table
        made live that way (or created) is kept, never rebuilt a second time. Lookups by channel or user
        are complete only once :meth:`restored` returns. With ``shards`` (count, ids), only the games of
        guilds on those shards: the games of other shards' guilds are their processes' (a DM press still
        loads one here on demand)."""
        fingerprints = {name: fp for name in self.games if (fp := self._fingerprint(name)) is not None}
        self._restoring = set(self._by_id)
        restored = resumed = 0
        after = 0
        try:
            while records := await self.store.active_games(
                after=after, limit=RESTORE_CHUNK, snapshots=fingerprints, shards=shards
            ):
                after = records[-1].id
                for record in records:
                    table = await self._restore_one(record)
                    if table is None or table.id in self._restoring:
                        continue  # closed, unplayable, or made live meanwhile (that table stays)
                    self._register(table)
                    restored += 1
                    resumed += table.snapshot_seq > 0
                await asyncio.sleep(0)
        finally:
            self._restoring = None
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
            table = None
            if record.snapshot is not None:
                table = self._resume(record, record.snapshot)
                if table is None:
                    full = await self.store.load_game(record.id)
                    if full is None or full.status != "active" or record.id in self._restoring:
                        return None
                    record = full
            if table is None:
                table = self._rebuild(record)
            if table.is_over() and table.id not in self._restoring:
                # The log ends in a finished state that was never closed: close it now.
                finish = _finish_from(table.result(), self.clock(), table.module, table.state)
                await self.store.finish_game(table.id, finish)
                table.status = "finished"
                return None
        except Exception:
            log.exception("could not restore game %d (%s)", record.id, record.game)
            return None
        return table

    async def untold_endings(self, shards: tuple[int, Sequence[int]] | None = None) -> list[int]:
        """Games that ended within ``ENDINGS_WINDOW`` whose end was committed and never told (the bot
        stopped in between): a restore does not bring back a finished game, so whoever tells it asks."""
        return await self.store.untold_endings(since=self.clock() - ENDINGS_WINDOW, shards=shards)

    async def restored(self) -> None:
        """Return once :meth:`restore` has run (at once afterwards): what waits here — commands, the timer —
        sees every live table in the lookups by channel and user."""
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
            if channel_id in self._by_channel:
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
        table, yet holds the channel); False if there is none."""
        for record in await self.store.active_games():
            if record.channel_id == channel_id and record.id not in self._by_id:
                await self.store.abandon_game(record.id, self.clock(), reason)
                return True
        return False

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
