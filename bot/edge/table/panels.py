"""Each seat's one live private panel: its DM panel, or (DMs closed, or off on the server) the newest
ephemeral Show my hand panel. A panel is redrawn through its reach — the seat's latest press on it, whose
interaction token lasts 15 minutes and whose endpoint is outside the bot's global REST budget — else by
editing the DM; a new DM (which notifies) goes only where no panel can be edited."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import NamedTuple

import discord

from bot.base.i18n import t
from bot.base.panel import Button, Panel
from bot.edge import delivery
from bot.edge.delivery import Messageable
from bot.edge.governor import Urgency, urgency
from bot.edge.table.host import Host, Interaction, mention, private
from bot.edge.table.places import Places
from bot.games import Table

log = logging.getLogger("tavern.controller")

EPHEMERAL_LIFE = 14 * 60  # seconds an ephemeral panel stays editable (its interaction token lasts 15 min)


class Reach(NamedTuple):
    """The latest press on a seat's live panel, when, and the DM message it reaches (None: an ephemeral
    panel): what the panel is redrawn through while the interaction lasts."""

    interaction: Interaction
    since: float
    message_id: int | None
    shown: int | None = None  # the ephemeral message it reaches, when known (to take its controls off)


def awaited(table: Table, seat: int) -> Urgency:
    """How soon a seat's panel must go when the global budget is short: the panel of a seat the game waits
    for, or the end of a game, before the other panels."""
    return Urgency.PLAYER if table.is_over() or seat in table.waiting_for() else Urgency.NORMAL


def show_button(table: Table, seat: int) -> Button:
    """Show my hand, for one seat (on a call or a closed-DM notice in the channel)."""
    return table.adapter.hand_button(t("tavern.show-hand-of", name=table.names[seat]), arg=str(seat))


class PrivatePanels:
    """The seats' live private panels, their reaches, and which press already redrew which panel."""

    def __init__(self, host: Host, places: Places) -> None:
        self.host = host
        self.places = places
        self._reach: dict[tuple[int, int], Reach] = {}  # (table, seat) → the reach of its live panel
        # (table, seat) → the action count at which a press of the seat last redrew its live panel
        self._answered: dict[tuple[int, int], int] = {}

    def answered_at(self, table: Table, seat: int) -> int | None:
        return self._answered.get((table.id, seat))

    def mark_answered(self, table: Table, seat: int) -> None:
        """A press of the seat redrew its live panel as the table is now."""
        self._answered[(table.id, seat)] = table.seq

    def forget(self, table: Table) -> None:
        """The game is over: nothing of its panels is kept."""
        for seat in range(len(table.seats)):
            self._reach.pop((table.id, seat), None)
            self._answered.pop((table.id, seat), None)

    def live(self, interaction: Interaction, table: Table, seat: int) -> bool:
        """Whether the pressed message is the seat's live private panel: its DM panel, or an ephemeral one
        where that is how the seat plays (no DM panel is reached instead)."""
        message = interaction.message
        if message is None or not private(interaction):
            return False
        if message.flags.ephemeral:
            reach = self._reach.get((table.id, seat))
            return reach is None or reach.message_id is None
        live = table.meta.panels.get(seat)
        return live is not None and live[1] == message.id

    async def _dms_closed(self, table: Table, seat: int) -> bool:
        if table.meta.by_interaction:
            return True  # no DM: the hand is the seat's ephemeral Your hand panel
        return seat in table.meta.dm_closed or not (await self.host.server_settings.get(table.guild_id)).dms

    async def show(
        self, table: Table, seat: int, panel: Panel, *, notify: bool = False, retire: bool = True
    ) -> bool:
        """Keep the seat's one live private panel current, in place: through its reach while that lasts,
        else by editing the DM. A new DM (which notifies) goes only where no panel can be edited, or with
        ``notify``; the old panel then loses its controls (unless ``retire`` is False: the click's own
        answer already did). Where DMs are closed, the newest Show my hand panel is redrawn instead. True
        when a new DM went out: it rang for the player."""
        if table.is_bot(seat):
            return False
        if await self._dms_closed(table, seat):
            await self._redraw_by_reach(table, seat, panel)
            return False
        where = table.meta.panels.get(seat)
        if where is not None and not notify:
            if await self._redraw_by_reach(table, seat, panel, where[1]):
                return False
            try:
                message = self.places.at(where[0]).get_partial_message(where[1])
                with urgency(awaited(table, seat)):
                    await delivery.deliver(message.edit, panel, "g", table.id, editing=where[1])
                return False
            except discord.HTTPException as err:
                log.info(
                    "game %d: seat %d's panel could not be edited (%s); sending a new one",
                    table.id,
                    seat,
                    err,
                )
        sent = await self.dm(table, seat, panel)
        if sent is None:
            return False
        if where is not None and retire:
            with contextlib.suppress(discord.HTTPException):
                await delivery.retire(self.places.at(where[0]).get_partial_message(where[1]).edit, where[1])
        self._reach.pop((table.id, seat), None)  # its message is no longer the live panel
        panels = {**table.meta.panels, seat: (sent.channel.id, sent.id)}
        await self.host.tables.save_meta(table, panels=panels)
        return True

    async def dm(
        self, table: Table, seat: int, panel: Panel, *, notice: bool = True
    ) -> discord.Message | None:
        """DM a seat; where DMs are closed (or a DM failed just now), the table says how to play instead."""
        if table.is_bot(seat) or await self._dms_closed(table, seat):
            return None  # this server plays from the channel: the ping carries a Show my hand button
        user = table.user_ids[seat]
        known = await self.host.tables.store.dm_channel(user)
        with urgency(awaited(table, seat)):
            result, sent = await delivery.send_dm(self._dm_channel(known), user, panel, table.id)
        if result == "sent" and known is None and sent is not None:
            await self.host.tables.store.set_dm_channel(user, sent.channel.id)
        elif result == "failed" and known is not None:  # maybe no longer the player's channel: open it anew
            await self.host.tables.store.set_dm_channel(user, None)
        if result == "sent" or not notice:
            return sent
        who = mention(table.user_ids[seat])
        if result != "failed":  # a passing Discord failure falls back for this move only; DMs are tried later
            await self.host.tables.save_meta(table, dm_closed=table.meta.dm_closed | {seat})
        async with self.host.languages.channel(table.guild_id):
            if result == "failed":
                text = t("tavern.dm-failed", player=who)
            else:
                text = t("tavern.dm-closed", player=who)
            panel = Panel(content=text, controls=(show_button(table, seat),))
        await self.places.post(table, panel)
        return None

    def _dm_channel(self, known: int | None) -> Callable[[discord.abc.Snowflake], Awaitable[Messageable]]:
        """How to reach a player's DMs: the channel the store remembers (no request), else by opening it."""
        if known is None:
            return self.host.create_dm

        async def remembered(user: discord.abc.Snowflake) -> Messageable:
            return self.host.get_partial_messageable(known, type=discord.ChannelType.private)

        return remembered

    async def take_reach(self, interaction: Interaction, table: Table, seat: int) -> None:
        """A press on the seat's live panel (its DM panel, or an ephemeral one) redrew it: that press is the
        panel's reach now. An ephemeral panel it takes over from loses its controls."""
        message = interaction.message
        live = table.meta.panels.get(seat)
        if message is None:
            return
        if message.flags.ephemeral:
            self._reach[(table.id, seat)] = Reach(interaction, self.host.clock(), None, message.id)
        elif live is not None and live[1] == message.id:
            old = self._reach.get((table.id, seat))
            self._reach[(table.id, seat)] = Reach(interaction, self.host.clock(), message.id)
            await self._retire(old)

    async def _retire(self, reach: Reach | None) -> None:
        """Take the controls off a replaced ephemeral panel while its interaction lasts (best effort); a
        replaced DM panel keeps its message, redrawn through the new press."""
        if reach is None or reach.message_id is not None or self.host.clock() - reach.since >= EPHEMERAL_LIFE:
            return
        with contextlib.suppress(discord.HTTPException):
            await delivery.retire(reach.interaction.edit_original_response, reach.shown)

    async def ephemeral(self, interaction: Interaction, table: Table, seat: int, panel: Panel) -> None:
        """A Show my hand panel: the seat's live panel from now on; an ephemeral one it replaces loses its
        controls."""
        old = self._reach.pop((table.id, seat), None)
        first = not interaction.response.is_done()
        shown = await delivery.send_ephemeral(interaction, panel, table.id)
        if first:
            self._reach[(table.id, seat)] = Reach(interaction, self.host.clock(), None, shown)
        await self._retire(old)

    async def _redraw_by_reach(
        self, table: Table, seat: int, panel: Panel, message_id: int | None = None
    ) -> bool:
        """Redraw the seat's live panel through its reach: the DM panel ``message_id``, or (None) an
        ephemeral panel. False if there is none, it ran out, or Discord refused."""
        reach = self._reach.get((table.id, seat))
        if reach is None or reach.message_id != message_id:
            return False
        if self.host.clock() - reach.since >= EPHEMERAL_LIFE:
            del self._reach[(table.id, seat)]
            return False
        try:
            await delivery.deliver(
                reach.interaction.edit_original_response, panel, "g", table.id, editing=message_id
            )
        except discord.HTTPException as err:
            log.info("game %d: seat %d's reached panel is gone (%s)", table.id, seat, err)
            self._reach.pop((table.id, seat), None)
            return False
        return True
