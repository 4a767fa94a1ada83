"""Live tables: the in-memory game states, one per channel, kept in step with the store's action logs.

A game is fully determined by (seed, players, options, action log), so the store keeps only those and a
restart rebuilds every active table with the rules module's ``replay``. Each table has its own lock:
actions on one table are applied one at a time, and an action is committed to the store before its events
are returned, so nothing the bot announces can be lost.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.errors import UserFacingError
from bot.store import ChannelBusy, Finish, GameRecord, Store

log = logging.getLogger(__name__)


Guard = Callable[["Table", int], None]


class TableError(UserFacingError):
    """A table-level refusal; ``str(err)`` is a sentence a player can read (shown by bot.errors)."""


class NotSeated(TableError):
    def __init__(self) -> None:
        super().__init__("You are not playing at this table.")


class StaleAction(TableError):
    def __init__(self) -> None:
        super().__init__("That button is from an earlier turn.")


class TableClosed(TableError):
    def __init__(self) -> None:
        super().__init__("This game has already ended.")


@dataclass(frozen=True)
class Seat:
    user_id: int
    name: str


@dataclass(eq=False)
class Table:
    """One game in play. ``seq`` counts the actions applied since ``start``."""

    id: int
    game: str
    module: Any
    guild_id: int
    channel_id: int
    seed: int
    options: Any
    seats: tuple[Seat, ...]
    state: Any
    seq: int
    created_at: float
    last_action_at: float
    status: str = "active"
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    def seat_of(self, user_id: int) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return i
        return None

    @property
    def user_ids(self) -> tuple[int, ...]:
        return tuple(s.user_id for s in self.seats)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats)

    def waiting_for(self) -> tuple[int, ...]:
        return tuple(self.module.waiting_for(self.state))

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


def _players_arg(seats: Sequence[Any]) -> int:
    """What ``start``/``replay`` receive as ``players``: the number of seats."""
    return len(seats)


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


def _table_from(record: GameRecord, *, module: Any, options: Any, state: Any, status: str) -> Table:
    """A Table for a stored game: its seats, times and action count come from the record."""
    return Table(
        id=record.id,
        game=record.game,
        module=module,
        guild_id=record.guild_id,
        channel_id=record.channel_id,
        seed=record.seed,
        options=options,
        seats=tuple(Seat(s.user_id, s.name) for s in record.seats),
        state=state,
        seq=len(record.actions),
        created_at=record.created_at,
        last_action_at=record.actions[-1].at if record.actions else record.created_at,
        status=status,
    )


class TableService:
    """Creates, restores and drives tables. The cogs call this, never the store's game methods directly."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        games: Mapping[str, Any] | None = None,
    ) -> None:
        if games is None:
            from bot.games import GAMES

            games = GAMES
        self.store = store
        self.clock = clock
        self.games = games
        self._by_id: dict[int, Table] = {}
        self._by_channel: dict[int, Table] = {}
        self._create_lock = asyncio.Lock()

    # ---------------------------------------------------------------- lookup

    def table_for_channel(self, channel_id: int) -> Table | None:
        return self._by_channel.get(channel_id)

    def active_tables(self) -> list[Table]:
        return list(self._by_channel.values())

    def tables_of_user(self, guild_id: int, user_id: int) -> list[Table]:
        return [
            t for t in self._by_channel.values() if t.guild_id == guild_id and t.seat_of(user_id) is not None
        ]

    async def get(self, game_id: int) -> Table:
        """The live table, or the game rebuilt from the store (finished ones too); unknown id → TableError."""
        table = self._by_id.get(game_id)
        if table is not None:
            return table
        record = await self.store.load_game(game_id)
        if record is None:
            raise TableError("I can't find that game.")
        table = self._rebuild(record)
        existing = self._by_id.get(game_id)  # another caller may have loaded it while we awaited
        if existing is not None:
            return existing
        if table.status == "active":
            self._register(table)
        return table

    def _module(self, game: str) -> Any:
        try:
            return self.games[game]
        except KeyError:
            raise TableError(f"The game “{game}” is not available.") from None

    def _register(self, table: Table) -> None:
        self._by_id[table.id] = table
        self._by_channel[table.channel_id] = table

    def _unregister(self, table: Table) -> None:
        self._by_id.pop(table.id, None)
        if self._by_channel.get(table.channel_id) is table:
            del self._by_channel[table.channel_id]

    def _rebuild(self, record: GameRecord) -> Table:
        module = self._module(record.game)
        options = module.Options.from_dict(record.options)
        state = module.replay(record.seed, record.players, options, [a.text for a in record.actions])
        return _table_from(record, module=module, options=options, state=state, status=record.status)

    # ---------------------------------------------------------------- lifecycle

    async def restore(self) -> int:
        """Rebuild every active game from its log; returns how many tables are live afterwards."""
        restored = 0
        for record in await self.store.active_games():
            try:
                table = self._rebuild(record)
            except Exception:
                log.exception("could not restore game %d (%s)", record.id, record.game)
                continue
            if table.is_over():
                # The log ends in a finished state that was never closed: close it now.
                finish = _finish_from(table.result(), self.clock(), table.module, table.state)
                await self.store.finish_game(table.id, finish)
                table.status = "finished"
                continue
            self._register(table)
            restored += 1
        log.info("restored %d active table(s) by replay", restored)
        return restored

    async def create(
        self,
        game: str,
        guild_id: int,
        channel_id: int,
        players: Sequence[tuple[int, str]],
        options: Any = None,
        seed: int | None = None,
    ) -> tuple[Table, list[Any]]:
        """Open a table in a channel. ``options`` is the module's Options, a dict, or None for defaults."""
        module = self._module(game)
        if options is None:
            options = module.Options()
        elif isinstance(options, Mapping):
            options = module.Options.from_dict(dict(options))
        user_ids = [uid for uid, _ in players]
        if len(set(user_ids)) != len(user_ids):
            raise TableError("A player can take only one seat at a table.")
        if seed is None:
            seed = secrets.randbits(63)
        async with self._create_lock:
            if channel_id in self._by_channel:
                raise TableError(
                    "There is already a game at this table. Finish it or start one in another channel."
                )
            # Start first: a rules refusal (e.g. wrong player count) must not leave a row behind.
            state, events = module.start(seed, _players_arg(players), options)
            now = self.clock()
            try:
                game_id = await self.store.create_game(
                    game, guild_id, channel_id, seed, list(players), options.to_dict(), now
                )
            except ChannelBusy:
                raise TableError(
                    "There is already a game at this table. Finish it or start one in another channel."
                ) from None
            table = Table(
                id=game_id,
                game=game,
                module=module,
                guild_id=guild_id,
                channel_id=channel_id,
                seed=seed,
                options=options,
                seats=tuple(Seat(uid, name) for uid, name in players),
                state=state,
                seq=0,
                created_at=now,
                last_action_at=now,
            )
            self._register(table)
        return table, list(events)

    async def act(
        self,
        game_id: int,
        user_id: int,
        action: Any,
        *,
        expected_seq: int | None = None,
        guard: Guard | None = None,
    ) -> ActResult:
        """Apply a player's action. ``action`` is an engine Action or its text *without* the seat prefix.

        ``expected_seq`` is the table's ``seq`` when the button was drawn; a mismatch raises ``StaleAction``.
        ``guard(table, seat)`` runs under the lock before anything is applied and raises to refuse: for
        buttons whose freshness is not the global ``seq`` (both players discard at once, so each seat's
        discard button must stay valid while the other seat acts, yet a double click must apply once).
        RulesError from the engine passes through unchanged.
        """
        table = await self.get(game_id)
        async with table.lock:
            seat = table.seat_of(user_id)
            if seat is None:
                raise NotSeated()
            if guard is not None and table.status == "active":
                guard(table, seat)
            return await self._apply_locked(table, seat, action, expected_seq)

    async def act_as_seat(
        self, game_id: int, seat: int, action: Any, *, expected_seq: int | None = None
    ) -> ActResult:
        """Apply an action for a seat on the system's behalf (timeouts, forfeits)."""
        table = await self.get(game_id)
        async with table.lock:
            if not 0 <= seat < len(table.seats):
                raise TableError("There is no such seat at this table.")
            return await self._apply_locked(table, seat, action, expected_seq)

    async def _apply_locked(
        self, table: Table, seat: int, action: Any, expected_seq: int | None
    ) -> ActResult:
        if table.status != "active":
            raise TableClosed()
        if expected_seq is not None and expected_seq != table.seq:
            raise StaleAction()
        module = table.module
        if isinstance(action, str):
            action = module.parse_action(f"{seat} {action.strip()}")
        action_seat = getattr(action, "seat", seat)
        if action_seat != seat:
            raise TableError("That move belongs to another player.")
        new_state, events = module.apply(table.state, action)
        text = module.action_text(action)
        seq = table.seq + 1
        now = self.clock()
        result = module.final_result(new_state) if module.is_over(new_state) else None
        finish = _finish_from(result, now, module, new_state) if result is not None else None

        async def commit() -> None:
            await self.store.append_action(table.id, seq, seat, text, now, finish=finish)
            table.state, table.seq, table.last_action_at = new_state, seq, now
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

    async def abandon(self, game_id: int) -> Table:
        """Cancel a table: no results, no rating changes; the channel is free again.

        Works even for a game whose rules module can no longer rebuild it (so a broken game never blocks
        its channel); then the returned Table has ``state=None``.
        """
        try:
            table = await self.get(game_id)
        except TableError:
            record = await self.store.load_game(game_id)
            if record is None or record.status != "active":
                raise
            await self.store.abandon_game(game_id, self.clock())
            return _table_from(record, module=None, options=record.options, state=None, status="abandoned")
        async with table.lock:
            if table.status != "active":
                raise TableClosed()
            await self.store.abandon_game(game_id, self.clock())
            table.status = "abandoned"
            self._unregister(table)
        return table
