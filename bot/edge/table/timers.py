"""The one timer: overdue lobbies closed, idle players nudged once per turn, claims offered, computer players
woken, and what a stopped process committed but never told (owed tables, untold endings) retold."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from bot.base.i18n import t
from bot.base.panel import Button, Panel
from bot.edge.table.computer import ComputerPlayers
from bot.edge.table.host import Host, mention
from bot.edge.table.places import Places
from bot.edge.table.publisher import Publisher
from bot.games import Table

log = logging.getLogger("tavern.controller")


class Timers:
    """The timer task and its passes, for the guilds on this process's shards only."""

    def __init__(self, host: Host, places: Places, publisher: Publisher, computer: ComputerPlayers) -> None:
        self.host = host
        self.places = places
        self.publisher = publisher
        self.computer = computer
        self.task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._endings_told = False  # the first pass tells the ends that were never told
        # The end of every pass: what else is timed (a tournament's waiting matches and move limits).
        self.after_pass: Callable[[], Awaitable[None]] | None = None

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.create_task(self._loop(), name="tavern-timers")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None

    def _tick(self) -> float:
        s = self.host.settings
        spans = [
            m * 60 for m in (s.challenge_minutes, s.lobby_minutes, s.nudge_minutes, s.claim_minutes) if m > 0
        ]
        return max(0.05, min(30.0, min(spans) / 4)) if spans else 30.0

    async def _loop(self) -> None:
        await self.host.wait_until_ready()
        while True:
            try:
                await self.run()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the timer pass failed")
            await asyncio.sleep(self._tick())

    async def run(self) -> None:
        """One pass: close overdue lobbies, nudge the player to move once per turn, offer claims — for the
        guilds on this process's shards only, so each timer fires once however many processes run."""
        settings, tables = self.host.settings, self.host.tables
        async with self._lock:
            if not self._endings_told:  # once: games whose end a stopped process committed but never told
                self._endings_told = True
                for game_id in await tables.untold_endings(settings.shards):
                    try:
                        await self.publisher.retell(game_id)
                    except Exception:
                        log.exception("game %d: its end could not be told", game_id)
            for lobby in await self.host.lobbies.expire_due(settings.owns):
                await self.places.edit_lobby(lobby)
            for table in tables.active_tables():
                if not settings.owns(table.guild_id):
                    continue
                self.computer.wake(table)
                if table.meta.by_interaction:
                    continue  # no nudge, claim or retelling: only a press can say them
                if self.publisher.owes(table):  # committed, never told (a restart): told now
                    await self.publisher.retell(table.id)
                await self._check_idle(table)
            if self.after_pass is not None:
                try:
                    await self.after_pass()
                except Exception:
                    log.exception("the timer pass's tournaments failed")

    async def _check_idle(self, table: Table) -> None:
        config = await self.host.server_settings.get(table.guild_id)
        nudge, claim = config.nudge_minutes * 60, config.claim_minutes * 60
        due = [t for t in (nudge, claim) if t]
        idle_for = self.host.clock() - table.last_action_at
        waiting = table.people_waited_for()  # a bot is woken, not nudged
        if table.status != "active" or not waiting or not due or idle_for < min(due):
            return  # nothing to say yet: no lock, no database read, no channel lookup
        async with (
            self.publisher.taken(table.id) as table,
            self.host.languages.channel(table.guild_id),
        ):
            # As stored: someone may have moved since the look above, here or through another process.
            idle_for = self.host.clock() - table.last_action_at
            waiting = table.people_waited_for()
            if table.status != "active" or not waiting or idle_for < min(due):
                return
            await self._speak_up(table, waiting, idle_for, nudge=nudge, claim=claim)

    async def _speak_up(
        self, table: Table, waiting: tuple[int, ...], idle_for: float, *, nudge: float, claim: float
    ) -> None:
        """Offer a claim on the one idle seat, else nudge those waited for: once per turn each."""
        adapter = table.adapter
        minutes = int(idle_for // 60)
        if claim and idle_for >= claim and len(waiting) == 1 and table.meta.claim_offered != table.seq:
            text, label = adapter.claim_offer(table, waiting[0], minutes)
            claim_button = Button(label, "claim", token=str(table.seq), arg=str(waiting[0]), style="danger")
            await self.places.post(table, Panel(content=text, controls=(claim_button, adapter.hand_button())))
            await self.host.tables.save_meta(table, claim_offered=table.seq, nudged=table.seq)
        elif nudge and idle_for >= nudge and table.meta.nudged != table.seq:
            who = " ".join(mention(table.user_ids[s]) for s in waiting)
            what = adapter.waiting_text(table)
            text = t("tavern.nudge", players=who, minutes=minutes, what=what)
            await self.places.post(table, Panel(content=text, controls=(adapter.hand_button(),)))
            await self.host.tables.save_meta(table, nudged=table.seq)
