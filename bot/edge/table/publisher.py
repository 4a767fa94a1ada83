"""Telling a table what happened, on Discord: the session core's publish with Discord as its sink — the
panels, the calls (coalesced in the outbox, ``courier``, or posted at once), the board, the summary and
the record of what was told — and telling at least once what the store says is owed. A table that lives by
interactions has a sink of its own (``_Answered``): no outbox, no REST, everything through its players'
interactions (``bot.edge.table.answering``)."""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from bot.base.i18n import speaking, t
from bot.base.panel import Button, Control, Panel
from bot.edge import delivery
from bot.edge.table.courier import Courier
from bot.edge.table.host import Host
from bot.edge.table.outbox import Outbox
from bot.edge.table.panels import PrivatePanels, show_button
from bot.edge.table.places import Places
from bot.games import Announcement, Table
from bot.services import session

log = logging.getLogger("tavern.controller")


class Publisher:
    """Every table's telling: what this process told it up to, who is looking at it, and its outbox
    (``courier``: what waits there is told when it is due)."""

    def __init__(
        self, host: Host, places: Places, panels: PrivatePanels, *, wake: Callable[[Table], None]
    ) -> None:
        self.host = host
        self.places = places
        self.panels = panels
        self._wake = wake  # after every publish: the computer players move if it is their turn
        # After the publish that tells a game's end (or retells it): what else follows from it (its
        # tournament's next matches, ``bot.edge.tournament_desk``). It must not wait: it runs under the lock.
        self.on_over: Callable[[Table], None] | None = None
        # table id → the action count up to which this process told the table, or tried to: what the store
        # says is owed beyond it was committed by a process that could not tell it (``owes``)
        self._told_here: dict[int, int] = {}
        self._seen: dict[tuple[int, int], float] = {}  # (table, seat) → the seat's last click there
        self._turns: dict[int, int] = {}  # table id → its turn in the global budget (``turn``)
        self.courier = Courier(host, places, tell=self.tell_channel, seen=self._seen)

    def saw(self, table: Table, seat: int) -> None:
        """The seat clicked at the table just now (no ping for those looking: ``attend``)."""
        self._seen[(table.id, seat)] = self.host.clock()

    def turn(self, table: Table) -> contextlib.AbstractContextManager[None]:
        """The table's requests wait in the turn it opened in (``Governor.in_turn``): a table in play goes
        before the tables that opened after it, within one urgency."""
        turn = self._turns.get(table.id)
        if turn is None:
            turn = self._turns[table.id] = self.host.governor.new_turn()
        return self.host.governor.in_turn(turn)

    def untold_here(self, table: Table) -> None:
        """What this process tried to tell did not go out (no live interaction): the next taker tells it."""
        self._told_here.pop(table.id, None)

    def telling_now(self, table: Table) -> None:
        """This process tells the table as it is now (the opening, told by the caller at once)."""
        self._told_here[table.id] = table.seq

    # ---------------------------------------------------------------- told at least once

    def owes(self, table: Table) -> bool:
        """Whether the store says the table's last move was committed but never told by a process that
        could — a bot stopped between committing and telling, a commit whose answer was lost — or that
        calls were lost from an outbox (untold, and not told later on purpose: a Deluxe turn is told when it
        passes). Not what this process told, or tried to tell, at this action (a channel refusing posts is
        tried again with the next move), and not while its own outbox queues the table's calls."""
        if self._told_here.get(table.id) == table.seq:
            return False
        if table.status != "active":  # a game's end that was never told (see ``Timers.run``)
            return table.status == "finished" and table.meta.owed
        if self.courier.holds_calls(table):
            return False
        meta = table.meta
        lost = meta.untold_after is not None and bool(table.pending)
        return meta.owed or (lost and not table.adapter.tells_later(table, table.pending))

    async def _tell_owed(self, table: Table) -> None:
        """Tell what the store says is owed (see ``owes``): the calls, every person's panel, the board."""
        if not self.owes(table):
            return
        log.info("game %d: telling what was committed but not told (after action %d)", table.id, table.seq)
        told = table.meta.told(table.seq)
        await self.publish(table, list(table.pending), told_before=told, everyone=True)

    @asynccontextmanager
    async def taken(self, table_id: int) -> AsyncIterator[Table]:
        """The table under its lock, for a move: an announcement the store says is owed — a bot stopped
        between committing a move and telling it, or a commit whose answer was lost — is told first."""
        async with self.host.tables.locked(table_id) as table:
            await self._tell_owed(table)
            yield table

    async def retell(self, game_id: int) -> None:
        """Tell what the store says the table owes: taking the table (``taken``) does it."""
        async with self.taken(game_id):
            pass

    # ---------------------------------------------------------------- publishing

    async def publish(
        self,
        table: Table,
        events: Sequence[Any],
        *,
        told_before: int,
        answered: int | None = None,
        everyone: bool = False,
        board_shown: bool = False,
    ) -> None:
        """Everything a move (or the opening) makes visible; the caller holds the table's lock. The move is
        already committed, marked untold: a Discord failure here is logged and never undoes it.
        ``told_before`` is the action count up to which the table had been told before these events (-1 for
        the opening); the mark is cleared once the calls are out — at once, or when the outbox's window ends
        — and stays while the channel refuses them or the game tells them later (``tells_later``),
        across a restart too. ``answered`` is the seat whose live panel the click's own answer already
        redrew; ``everyone`` redraws every person's panel (a retelling: nobody knows which ones went out);
        ``board_shown`` says the click's own answer is the board, as the table is now (the opening)."""
        self._told_here[table.id] = table.seq
        channel = await self.host.languages.of_guild(table.guild_id)
        sink: session.Sink
        if table.meta.by_interaction:
            sink = _Answered(self, told_before=told_before)
        else:
            sink = _Telling(
                self,
                table,
                told_before=told_before,
                everyone=everyone,
                board_shown=board_shown,
                channel=channel,
            )
        told = session.news(
            table,
            events,
            channel=channel,
            language_of=lambda seat: self.language(table, seat, channel),
            answered=answered,
            everyone=everyone,
        )
        pending = list(table.pending)
        with self.turn(table):
            await session.publish(sink, table, told)
        if told.held or not table.pending:  # the calls are out (or queued to go), or the game holds them
            self.host.tables.watch.told(table, pending)  # (a Deluxe turn): watchers see them now
        self._wake(table)
        if self.on_over is not None and table.is_over():
            self.on_over(table)

    def language(self, table: Table, seat: int, channel: str) -> str:
        """The language of a seat's private text: its player's, else (never heard from) the channel's."""
        return self.host.languages.of_user(table.user_ids[seat], channel)

    def forget(self, table: Table, box: Outbox) -> None:
        """The game is over: nothing of it is kept (a flush still waiting is stopped)."""
        self.panels.forget(table)
        for seat in range(len(table.seats)):
            self._seen.pop((table.id, seat), None)
        self._told_here.pop(table.id, None)
        self._turns.pop(table.id, None)
        self.courier.forget(table, box)

    # ---------------------------------------------------------------- the channel

    def attend(self, table: Table, ann: Announcement, notified: frozenset[int] = frozenset()) -> Announcement:
        """No ping for players who are looking at the table (they clicked there within
        ``attention_seconds``): their panel already shows it is their turn; nor for those whose panel just
        came as a new DM (``notified``: the DM rang for it, as at the opening)."""
        attention = self.host.settings.attention_seconds
        if not ann.ping_seats:
            return ann
        now = self.host.clock()
        if all(
            s in notified or now - self._seen.get((table.id, s), -math.inf) < attention
            for s in ann.ping_seats
        ):
            # Show my hand went with the ping: the board and their own panel carry it.
            controls = [c for c in ann.controls if c.verb != "hand"]
            return replace(ann, ping="", ping_seats=(), controls=controls)
        return ann

    async def tell_channel(self, table: Table, ann: Announcement) -> bool:
        """Post the announcement (the ping on the last message); False if that last one didn't go out."""
        async with self.host.languages.channel(table.guild_id):
            return await self._tell_channel_now(table, ann)

    async def _tell_channel_now(self, table: Table, ann: Announcement) -> bool:
        texts = list(ann.messages)
        controls: list[Control] = list(ann.controls)
        if table.is_over():
            controls = [Button(t("tavern.rematch"), "rematch", style="primary")]
        elif ann.ping:
            joined = f"{texts[-1]}\n{ann.ping}" if texts else ann.ping
            # Never clip the ping away: when the last message is full it goes on a message of its own.
            texts = [*texts[:-1], joined] if len(joined) <= delivery.CONTENT_LIMIT else [*texts, ann.ping]
            if not any(c.verb == "hand" for c in controls):
                dms = (await self.host.server_settings.get(table.guild_id)).dms
                no_dm = (
                    table.meta.dm_closed if dms and not table.meta.by_interaction else range(len(table.seats))
                )
                controls += [
                    show_button(table, s) for s in ann.ping_seats if s in no_dm and not table.is_bot(s)
                ]
        if not texts:
            return True
        posted = True
        with_picture = ann.picture_at % len(ann.messages) if ann.messages else len(texts) - 1
        for i, text in enumerate(texts):
            panel = Panel(
                content=text,
                controls=tuple(controls) if i == len(texts) - 1 else (),
                picture=ann.picture if i == with_picture else None,
            )
            posted = await self.places.post(table, panel) is not None
        return posted


class _Answered:
    """One publish of a table that lives by interactions, as the session core's sink: the panels through
    their players' reach, the calls as follow-ups of the newest press, the board through the token that
    made it. Nothing waits in an outbox; what no live interaction could carry stays owed, for the next
    press to tell (``Publisher.taken``)."""

    def __init__(self, publisher: Publisher, *, told_before: int) -> None:
        self.publisher, self.told_before = publisher, told_before
        self.posted = True

    async def panel(self, table: Table, seat: int, panel: Panel, *, retire: bool) -> None:
        await self.publisher.panels.show(table, seat, panel, retire=retire)

    async def calls(self, table: Table, calls: Announcement) -> bool:
        publisher = self.publisher
        self.posted = await publisher.tell_channel(table, publisher.attend(table, calls))
        return self.posted

    async def board(self, table: Table, news: session.News) -> None:
        await self.publisher.places.refresh_board(table)

    async def last(self, table: Table, news: session.News) -> None:
        publisher = self.publisher
        untold = None if self.posted else self.told_before
        await publisher.host.tables.save_meta(table, owed=not self.posted, untold_after=untold)
        if not self.posted:
            publisher.untold_here(table)
        if table.is_over():
            publisher.places.answering.forget(table)
            publisher.forget(table, publisher.courier.outbox(table))


class _Telling:
    """One publish on Discord, as the session core's sink: what it has told so far, and the meta changes it
    writes once everything is done (``owed`` cleared first of all)."""

    def __init__(
        self,
        publisher: Publisher,
        table: Table,
        *,
        told_before: int,
        everyone: bool,
        board_shown: bool,
        channel: str,
    ) -> None:
        self.publisher = publisher
        self.told_before, self.everyone, self.channel = told_before, everyone, channel
        self.board_shown = board_shown
        self.notified: set[int] = set()  # seats whose panel went as a new DM: it rang for them
        self.changes: dict[str, Any] = {"owed": False}
        self.posted = True
        self.ann = Announcement()
        self.box = publisher.courier.outbox(table)

    async def panel(self, table: Table, seat: int, panel: Panel, *, retire: bool) -> None:
        if await self.publisher.panels.show(table, seat, panel, retire=retire):
            self.notified.add(seat)

    async def calls(self, table: Table, calls: Announcement) -> bool:
        publisher, courier, box = self.publisher, self.publisher.courier, self.box
        self.ann = ann = publisher.attend(table, calls, frozenset(self.notified))
        if not self.everyone and courier.can_wait(table, ann, box):
            box.queue(ann, courier.now(), table.seq)
            # Told when the window ends (``_flush``); with nothing waiting there is nothing to tell.
            self.changes["untold_after"] = self.told_before if box.messages else None
        else:
            self.posted = await publisher.tell_channel(table, box.take(ann))
            self.changes["untold_after"] = None if self.posted else self.told_before
        return self.posted

    async def board(self, table: Table, news: session.News) -> None:
        publisher, courier, box = self.publisher, self.publisher.courier, self.box
        if self.board_shown:  # the click's answer drew it
            box.board_at, box.board_dirty = courier.now(), False
            return
        if courier.window() and not table.is_over():
            box.board_dirty = True  # the courier edits it when due: several moves, one edit
            return
        board_id = await publisher.places.refresh_board(table)
        box.board_at, box.board_dirty = courier.now(), False
        if board_id is not None:
            self.changes["board_id"] = board_id

    async def last(self, table: Table, news: session.News) -> None:
        publisher, courier, box = self.publisher, self.publisher.courier, self.box
        if not self.posted:
            await self._refused(table, news)
        if table.is_over() or not courier.window():
            if table.is_over() or table.adapter.milestone(table, news.events):
                await publisher.places.refresh_summary(table)
        elif table.adapter.milestone(table, news.events):
            box.summary_dirty = True  # the courier edits it when due
        if box.pending():
            courier.flush_soon(table.id, box)
        await publisher.host.tables.save_meta(table, **self.changes)
        if table.is_over():
            publisher.forget(table, box)

    async def _refused(self, table: Table, news: session.News) -> None:
        """The table's channel refused: whoever was called there gets their panel anyway (it pings as a new
        message), and at the end everyone is told the result by DM."""
        publisher, adapter = self.publisher, table.adapter
        for seat in self.ann.ping_seats:
            if seat not in news.dealt and not table.is_bot(seat):
                with speaking(publisher.language(table, seat, self.channel)):
                    panel = adapter.private_panel(table, seat)
                await publisher.panels.show(table, seat, panel, notify=True)
        if table.is_over():
            for seat in range(len(table.seats)):
                with speaking(publisher.language(table, seat, self.channel)):
                    head = t("tavern.over-dm", game=adapter.title, channel=publisher.places.home(table))
                    result = Panel(content="\n".join([head, *adapter.result_lines(table, news.events)]))
                await publisher.panels.dm(table, seat, result, notice=False)
