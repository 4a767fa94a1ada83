"""The computer players: one task per table whose engine waits for a bot (or a person's forced move), moving
through the same apply → publish path as a click."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import Any

from bot.ai import Level
from bot.edge.table.host import Host
from bot.edge.table.publisher import Publisher
from bot.games import Move, Prefs, Table
from bot.games.seats import level_of
from bot.services import session
from bot.services.thinking import THINKING

log = logging.getLogger("tavern.controller")


class ComputerPlayers:
    """The tables' computer players, one task per table while one of them has to act."""

    def __init__(self, host: Host, publisher: Publisher, ledger: session.Ledger) -> None:
        self.host = host
        self.publisher = publisher
        self.ledger = ledger
        self._tasks: dict[int, asyncio.Task[None]] = {}  # table id → its computer players' task

    def wake(self, table: Table) -> None:
        """Start the table's computer players if one of them has to act (and none is already moving), or
        make a person's forced move (the one possible answer) for them."""
        adapter = table.adapter
        if table.id not in self._tasks and (
            adapter.bot_seat(table) is not None or adapter.forced(table, self.prefs_of(table))
        ):
            self._tasks[table.id] = asyncio.create_task(self._turns(table.id), name=f"bots-{table.id}")

    def prefs_of(self, table: Table) -> Callable[[int], Prefs]:
        """Seat → its player's preferences (a bot's are the defaults: it never waits for a forced move)."""
        return lambda seat: self.host.preferences.of(table.user_ids[seat])

    async def idle(self) -> None:
        """Wait until no computer player is moving (tests, and a clean shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def stop(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks.clear()

    async def _turns(self, table_id: int) -> None:
        """Move for the table's bots (and make people's forced moves), one action at a time through the same
        path as a click, until a person is waited for."""
        try:
            await self._play_out(table_id)
        except asyncio.CancelledError:
            self._tasks.pop(table_id, None)
            raise
        except Exception:
            self._tasks.pop(table_id, None)
            log.exception(
                "game %d: the computer player failed to move (the next timer pass tries again)", table_id
            )

    async def _play_out(self, table_id: int) -> None:
        """The table's bots move one at a time, each after a natural pause; the event loop never waits on a
        decision (``_decide``)."""
        mover: int | None = None
        table = await self.host.tables.get(table_id)
        while True:
            peek = table.adapter.bot_seat(table)  # the table in hand: a finished game is never reloaded
            delay = self.host.settings.bot_delay
            if delay and peek is not None and peek != mover:
                await asyncio.sleep(delay)  # a new turn: a natural pause first
            if peek is None and table.status != "active":
                del self._tasks[table_id]
                return
            async with self.publisher.taken(table_id) as table:
                seat = table.adapter.bot_seat(table)
                forced = table.adapter.forced(table, self.prefs_of(table)) if seat is None else None
                if seat is None and forced is None:
                    del self._tasks[table_id]  # under the lock: the next move wakes a new task
                    return
                if forced is not None:
                    seat, action = forced
                else:
                    assert seat is not None
                    mover = seat
                    action = await self._decide(table, seat, level_of(table.user_ids[seat]))
                played = await session.play(self.ledger, table, seat, Move(action, ""))
                await self.publisher.publish(table, played.events, told_before=played.told)

    async def _decide(self, table: Table, seat: int, level: Level) -> Any:
        """The bot's action, decided off the event loop: an expert's in the thinking process within
        ``expert_seconds`` (the hard player's choice when it has no answer by then), any other level's in a
        worker thread. Seeded by the table's seed and move number, so a game replays alike."""
        seed = f"{table.seed}:{table.seq}:{seat}"
        adapter = table.adapter
        asked = adapter.thinker(table, seat, level)
        if asked is not None:
            choose, view = asked
            thought = await THINKING.decide(choose, view, seed, self.host.settings.expert_seconds)
            if thought.action is not None and thought.action in view.legal:
                return thought.action
            level = "hard"
        return await asyncio.to_thread(adapter.bot_action, table, seat, random.Random(seed), level)
