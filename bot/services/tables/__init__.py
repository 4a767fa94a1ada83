"""Live tables: the in-memory game states, one per channel, kept in step with the store's action logs.

A game is fully determined by (seed, players, options, action log), so the store keeps only those plus a
small typed :class:`TableMeta`; the log is the truth. A move runs under the table's lock (``locked``); it is
worked out first (:mod:`.moves`), then committed to the store (:mod:`.commits`), with the meta it changes
and now and then a snapshot of the engine state (:mod:`bot.services.snapshots`), in one transaction before
its events are returned, so nothing the bot announces can be lost. A restart lists every active game at once
(where it plays, who sits there: what lookups need, :mod:`.index`), then rebuilds each table from its
snapshot and the few actions after it (or, without a usable snapshot, by replaying its whole log:
:mod:`.loading`) in the background, while the bot connects; a table looked up before its turn is rebuilt
then. A table read again (another process wrote it) is rebuilt from its snapshot too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from bot.base.i18n import t
from bot.base.locks import KeyedLocks
from bot.games import (
    GameAdapter,
    NotSeated,
    Seat,
    Table,
    TableClosed,
    TableError,
    TableMeta,
    TableUnavailable,
)
from bot.rules.engine import Options, Result
from bot.services import snapshots
from bot.services.tables.commits import Commits
from bot.services.tables.index import TableIndex
from bot.services.tables.loading import TableLoader
from bot.services.tables.moves import MetaAfter, work_out
from bot.services.tables.restore import Restore
from bot.services.watch import Watch
from bot.store import ChannelBusy, NewGame, PlayerBusy, Store

log = logging.getLogger(__name__)

# Games read and rebuilt between two yields to the event loop at start-up: a few tens of milliseconds' work.
RESTORE_CHUNK = 250
ENDINGS_WINDOW = 24 * 3600.0  # an end committed but never told is told when the bot is back within a day


@dataclass(frozen=True)
class ActResult:
    table: Table
    events: list[Any]
    seq: int
    finished: bool
    result: Result | None = None  # the engine's Result when this action ended the game


class TableService:
    """Creates, restores and drives tables. Nothing else calls the store's game methods."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float],
        games: Mapping[str, GameAdapter],
        key: bytes = snapshots.PROCESS_KEY,  # signs the snapshots (the bot's: key_from its token)
    ) -> None:
        self.store = store
        self.clock = clock
        self.games = games
        self._index = TableIndex()
        self._loader = TableLoader(store, games, key)
        self._commits = Commits(store, self._index, self._loader)
        self._create_lock = asyncio.Lock()
        self._locks = KeyedLocks()
        self._indexed = asyncio.Event()
        self._restored = asyncio.Event()
        self.watch = Watch()  # who watches what the tables tell (the web pages)

    # ---------------------------------------------------------------- lookup

    async def table_for_channel(self, channel_id: int) -> Table | None:
        """The active table in this channel, or in this game thread (rebuilt now if the start-up restore
        has not come to it yet)."""
        game_id = self._index.game_in(channel_id)
        return None if game_id is None else await self._live(game_id)

    def active_tables(self) -> list[Table]:
        """The live tables: every active game once :meth:`restored` returns."""
        return self._index.tables()

    async def seated_at(self, user_id: int) -> Table | None:
        """The active table where the user sits, in any server (a player takes one seat at a time; the bot
        plays at any number of tables)."""
        return next(iter(await self._tables_of(user_id)), None)

    async def tables_of_user(self, guild_id: int, user_id: int) -> list[Table]:
        """The active tables of this server where the user sits."""
        return [t for t in await self._tables_of(user_id) if t.guild_id == guild_id]

    async def _tables_of(self, user_id: int) -> list[Table]:
        found = []
        for game_id in self._index.games_of(user_id):
            table = await self._live(game_id)
            if table is not None and table.seat_of(user_id) is not None:
                found.append(table)
        return found

    async def _live(self, game_id: int) -> Table | None:
        """The live table of a listed game, rebuilt now if the restore has not come to it yet; None if it is
        no longer active or can't be rebuilt (then logged, and left for ``abandon_unplayable``)."""
        table = self._index.live(game_id)
        if table is not None:
            return table
        try:
            table = await self.get(game_id)
        except TableUnavailable:
            raise
        except Exception:
            log.exception("could not rebuild game %d", game_id)
            self._index.forget(game_id)
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
        table = self._index.live(game_id)
        if table is not None:
            return table if not table.stale else await self._reload(table)
        table = await self._loader.load(game_id)
        existing = self._index.live(game_id)  # another caller may have loaded it while we awaited
        if existing is not None:
            return existing
        if table.status == "active":
            self._index.register(table)
        else:
            self._index.forget(game_id)
        return table

    async def _reload(self, table: Table) -> Table:
        return await self._commits.reload(table)

    def changed_elsewhere(self, game_id: int | None, closed: bool) -> None:
        """News from the store: another process wrote this game (None: any game may have been written).
        Our copy is read again before it is next used; a game closed elsewhere stops being live here at
        once, so lookups by channel and player see it gone. The news counts as activity for the idle
        timers until the copy is read again (the game was just played)."""
        self._index.changed_elsewhere(game_id, closed, self.clock)
        self.watch.changed(game_id)

    def adapter(self, game: str) -> GameAdapter:
        """The game's adapter; a TableError for a game this bot does not host."""
        return self._loader.adapter(game)

    # ---------------------------------------------------------------- lifecycle

    async def restore(self, shards: tuple[int, Sequence[int]] | None = None) -> int:
        """Bring back every active game; returns how many tables it made live. First every active game is
        listed (its channel, thread and seated people, a few rows per game), so the lookups by channel and
        user find them all as soon as :meth:`indexed` returns: a table not rebuilt yet is rebuilt when looked
        up. Then the games are read and rebuilt ``RESTORE_CHUNK`` at a time, yielding to the event loop in
        between, so the bot connects and answers meanwhile: a game with a snapshot that checks out from it
        and the actions after it (only those are read), any other by replaying its log. A table made live
        meanwhile (looked up, pressed, created) is kept, never rebuilt a second time; :meth:`restored`
        returns once every game is live. With ``shards`` (count, ids), only the games of guilds on those
        shards: the games of other shards' guilds are their processes' (a DM press still loads one here on
        demand)."""
        try:
            return await Restore(self.store, self._index, self._loader, self.clock).run(
                shards, chunk=RESTORE_CHUNK, indexed=self._indexed
            )
        finally:
            self._indexed.set()
            self._restored.set()

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
        options: Options | Mapping[str, Any] | None = None,
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
            if self._index.in_channel(channel_id) is not None:
                raise TableError("tavern.table.busy")
            # Start first: a rules refusal (e.g. wrong player count) must not leave a row behind.
            state, events = module.start(seed, len(players), options)
            now = self.clock()
            meta = TableMeta(untold_after=-1, owed=True)  # until the opening is out
            game_id = await self._insert(game, guild_id, channel_id, seed, players, options, now, meta)
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
            self._index.register(table)
        return table, list(events)

    async def _insert(
        self,
        game: str,
        guild_id: int,
        channel_id: int,
        seed: int,
        players: Sequence[tuple[int, str]],
        options: Options,
        now: float,
        meta: TableMeta,
    ) -> int:
        """The new game's row; a TableError when the channel has a game or a player sits at one."""
        try:
            return await self.store.create_game(
                NewGame(
                    game,
                    guild_id,
                    channel_id,
                    seed,
                    list(players),
                    options.to_dict(),
                    now,
                    meta=meta.to_dict(),
                )
            )
        except ChannelBusy:
            raise TableError("tavern.table.busy") from None
        except PlayerBusy as busy:
            name = dict(players).get(busy.user_id) or t("tavern.table.a-player")
            raise TableError("tavern.lobby.other-seated", name=name, channel=busy.channel_id) from None

    # ---------------------------------------------------------------- moves

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
        meta_after: MetaAfter | None = None,
    ) -> ActResult:
        """Check and apply ``action`` (an engine Action, or its text without the seat prefix) for ``seat``
        (a player's move, or the system's for an idle seat); the caller holds the table's lock.

        ``expected_seq`` is the table's ``seq`` when the button was drawn (a mismatch raises
        ``StaleAction``). ``meta_after(events, seq)``, if given, says what the table's meta becomes with this
        move; if it changed, it is stored in the same transaction as the action. A RulesError from the engine
        passes through unchanged, and nothing changes."""
        step = work_out(
            table,
            seat,
            action,
            expected_seq=expected_seq,
            meta_after=meta_after,
            clock=self.clock,
            snapshot=self._loader.snapshot,
        )
        # Shielded so a cancelled caller cannot leave the log and the in-memory state out of step.
        task = asyncio.ensure_future(self._commits.commit(table, step))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            await asyncio.wait([task])
            raise
        done = step.finish is not None
        return ActResult(
            table=table, events=list(step.events), seq=step.seq, finished=done, result=step.result
        )

    async def abandon(self, table: Table, reason: str) -> None:
        """Close the game with no result and no rating change (an admin ended it); the caller holds the
        table's lock."""
        if table.status != "active":
            raise TableClosed()
        await self.store.abandon_game(table.id, self.clock(), reason)
        table.status = "abandoned"
        self._index.unregister(table)
        self.watch.told(table, [])  # its watchers see it end (nothing more is published for it)

    async def abandon_unplayable(self, channel_id: int, reason: str) -> bool:
        """Close an active game of this channel that could not be rebuilt at start-up (so it has no live
        table, yet holds the channel); False if there is none. One indexed lookup: an admin's command in an
        empty channel costs the store next to nothing."""
        game_id = await self.store.active_game_in(channel_id)
        if game_id is None or self._index.live(game_id) is not None:
            return False
        await self.store.abandon_game(game_id, self.clock(), reason)
        return True

    async def save_meta(self, table: Table, **changes: Any) -> None:
        """Change the table's meta outside a move (a board message posted, DMs found closed, a nudge); see
        :meth:`.commits.Commits.save_meta`."""
        await self._commits.save_meta(table, **changes)

    def is_live(self, game_id: int) -> bool:
        """Whether the game's table is live in this process now; nothing is read (False for a game not
        rebuilt yet, or live in another process, as for a finished one)."""
        return self._index.live(game_id) is not None
