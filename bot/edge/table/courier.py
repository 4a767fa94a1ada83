"""Every table's outbox and its courier: what a table's channel has not been shown yet, and the task that
tells it when it is due — the calls when their coalescing window ends, the board and the summary when their
next edit may go. Apart from the publisher, which tells each move at least once and decides what may wait
here: the courier only keeps the pace (the window, the global budget), never what is told."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping

from bot.base.panel import Panel
from bot.edge import delivery
from bot.edge.governor import Urgency
from bot.edge.table.host import Host
from bot.edge.table.outbox import PER_WINDOW, Outbox
from bot.edge.table.places import Places
from bot.games import Announcement, Table

log = logging.getLogger("tavern.controller")
RECHECK = 1.0  # seconds a table's courier with calls waiting sleeps at most before it sees again what is due
WIDEST = 4.0  # the coalescing window widens at most this many times under the global budget's pressure


class Courier:
    """Every table's outbox, and the courier that empties it (``_flush_later``)."""

    def __init__(
        self,
        host: Host,
        places: Places,
        *,
        tell: Callable[[Table, Announcement], Awaitable[bool]],
        seen: Mapping[tuple[int, int], float],
    ) -> None:
        self.host = host
        self.places = places
        self._tell = tell  # the publisher's post to the table's channel: what waited goes out as a call would
        self._seen = seen  # the publisher's (table, seat) → the seat's last click there, read by ``can_wait``
        self._outboxes: dict[int, Outbox] = {}  # table id → what its channel has not been shown yet

    @staticmethod
    def now() -> float:
        """Real time, for the REST budget (game timers use the injectable clock)."""
        return asyncio.get_running_loop().time()

    def outbox(self, table: Table) -> Outbox:
        box = self._outboxes.get(table.id)
        if box is None:  # the summary, if any, was just posted or is current: its next edit waits its turn
            box = self._outboxes[table.id] = Outbox(summary_at=self.now())
        return box

    def holds_calls(self, table: Table) -> bool:
        """Whether calls of the table wait in its outbox (they are told when their window ends)."""
        box = self._outboxes.get(table.id)
        return box is not None and bool(box.messages)

    def forget(self, table: Table, box: Outbox) -> None:
        """The game is over: its outbox is dropped (a flush still waiting is stopped)."""
        self._outboxes.pop(table.id, None)
        if box.task is not None and box.task is not asyncio.current_task():
            box.task.cancel()

    def window(self) -> float:
        """The coalescing window, in seconds (0: every call goes out at once): the setting, or each table's
        fair share of the global budget when that is longer — every table this process tells, telling
        everything once a window (``PER_WINDOW`` requests), fits the budget — widened up to ``WIDEST``
        times more while requests wait for room (pings, panels and openings use the budget too)."""
        setting = self.host.settings.coalesce_seconds
        if setting <= 0:
            return 0.0
        governor = self.host.governor
        share = len(self._outboxes) * PER_WINDOW / governor.per_second
        return max(setting, share) * min(WIDEST, 1 + governor.backlog())

    def can_wait(self, table: Table, ann: Announcement, box: Outbox) -> bool:
        """Calls that ping nobody and offer nothing may wait a moment, to go out with the next ones — where
        several processes share the store, only while everyone the table waits for has been pressing here:
        a next move played through another process must find the calls before it already posted."""
        return (
            self.window() > 0
            and not ann.ping
            and not ann.controls
            and not table.is_over()
            and not (ann.picture is not None and box.picture())
            and (
                not self.host.tables.store.shared
                or all((table.id, s) in self._seen for s in table.people_waited_for())
            )
        )

    def flush_soon(self, table_id: int, box: Outbox) -> None:
        """Start the table's courier, or tell it something new waits (due sooner, maybe)."""
        if box.task is None or box.task.done():
            box.task = asyncio.create_task(self._flush_later(table_id, box), name=f"flush-{table_id}")
        else:
            box.nudged.set()

    async def _flush_later(self, table_id: int, box: Outbox) -> None:
        """The table's courier: tell the channel what waited when its window ends, and edit the board and
        the summary when their next edit is due — each waiting for room in the global budget before it takes
        the table's lock, so that a move never waits for the budget behind its own table's telling."""
        try:
            while box.pending() and self._outboxes.get(table_id) is box:
                due, part = box.due(self.window())
                if due > self.now():
                    box.nudged.clear()
                    wait = due - self.now()
                    if box.messages:  # calls wait for a window that narrows as the budget frees
                        wait = min(wait, RECHECK)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(box.nudged.wait(), wait)
                    continue  # due now, or something new came: see again what is due first
                board = await self._draw_ahead(table_id, box, part)
                later = Urgency.NORMAL if part == "calls" else Urgency.LATER
                async with (
                    self.host.governor.reserved(1, later),
                    self.host.tables.locked(table_id) as table,
                ):
                    await self._flush(table, box, part, board if board and board[0] == table.seq else None)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %d: could not tell the channel what waited", table_id)

    async def _draw_ahead(self, table_id: int, box: Outbox, part: str) -> tuple[int, Panel] | None:
        """Draw the pictures ``part`` will show before the courier takes the table's lock, so the lock is
        never held while the drawing process is busy; the board is returned with the action count it shows,
        to be used as it is if no move came meanwhile."""
        if part == "calls":
            for ann in list(box.messages):
                await delivery.draw_ahead(ann.picture)
            return None
        if part != "board":
            return None
        table = await self.host.tables.get(table_id)
        seq, board = table.seq, await self.places.board(table)
        await delivery.draw_ahead(board.picture)
        return seq, board

    async def _flush(
        self, table: Table, box: Outbox, part: str = "", board: tuple[int, Panel] | None = None
    ) -> None:
        """Tell ``part`` of what waited — the calls, the board (``board``: drawn already, as the table is)
        or the summary — or (``""``) all of it; the caller holds the table's lock."""
        if box.messages and part in ("", "calls"):
            through = box.through
            if await self._tell(table, box.take(Announcement())):
                # Told up to the calls' last action; events told later (a Deluxe turn) stay untold.
                await self.host.tables.save_meta(table, untold_after=through if table.pending else None)
            else:
                log.warning("game %d: the channel refused calls that had waited; they are dropped", table.id)
        if box.board_dirty and part in ("", "board"):
            box.board_at, box.board_dirty = self.now(), False
            board_id = await self.places.refresh_board(table, board[1] if board else None)
            if board_id is not None:
                await self.host.tables.save_meta(table, board_id=board_id)
        if box.summary_dirty and part in ("", "summary"):
            box.summary_at, box.summary_dirty = self.now(), False
            await self.places.refresh_summary(table)

    async def flush_all(self) -> None:
        """Tell every channel what is waiting (a clean shutdown)."""
        for table_id, box in list(self._outboxes.items()):
            if box.task is not None:
                box.task.cancel()
            if box.pending():
                with contextlib.suppress(Exception):
                    async with self.host.tables.locked(table_id) as table:
                        await self._flush(table, box)
        self._outboxes.clear()
