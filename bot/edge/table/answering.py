"""A table that lives by interactions only: where the bot is not in the channel (a DM between players, a
group DM, a server that never added it, reached through a user install), every channel or DM REST call is
refused, so everything the table says rides on its players' own interactions.

- The table's **press** is its newest interaction (a move, Your hand, the press that opened it): its
  follow-ups carry the calls (at most ``FOLLOWUPS`` each, as Discord allows a user-installed app there;
  past them, a call is added to the last one by an edit, which Discord does not count, while it fits:
  the bots' turns after one press, or a game's last calls, need no next press to be told).
- The **board** is a message an interaction created (the challenge's answer, or a follow-up): edited through
  that interaction's token while it lives, else posted anew as a follow-up of the current press.
- Each player's hand is an ephemeral panel (the board's Your hand button), redrawn through that player's
  own latest press on it: ``PrivatePanels``' reach.

No token older than ``LIFE`` is used (Discord's last 15 minutes are never reached). What is kept here is in
memory: after a restart (or an idle quarter of an hour) the next press posts a fresh board, and tells what
the store says is owed first (``Publisher.taken``)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import Any, NamedTuple

import discord

from bot.base.panel import Panel
from bot.edge import delivery
from bot.edge.table.host import Host, Interaction
from bot.games import Table

log = logging.getLogger("tavern.controller")

LIFE = 14 * 60  # seconds an interaction's token is used for (Discord's last 15 minutes)
FOLLOWUPS = 5  # follow-ups a user-installed app may send per interaction where it is not a member


class Press(NamedTuple):
    """An interaction at the table, when it came, and how many follow-ups it sent."""

    interaction: Interaction
    since: float


class Sent(NamedTuple):
    """What an interaction sent as follow-ups: how many, and the last one with what it shows now."""

    number: int
    message: discord.Message
    panel: Panel


class Board(NamedTuple):
    """The board message: the interaction whose token made it, its id (None: that interaction's original
    answer), when, and the action count it shows."""

    interaction: Interaction
    message_id: int | None
    since: float
    seq: int


class Answering:
    """The presses and boards of the tables that live by interactions."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._press: dict[int, list[Press]] = {}  # table id → its newest interactions (two at most)
        self._boards: dict[int, Board] = {}  # table id → its board message
        self._sent: dict[int, Sent] = {}  # interaction id → the follow-ups it sent

    def pressed(self, table: Table, interaction: Interaction) -> None:
        """A player pressed at the table (or opened it): their interaction carries what it says next, once
        it is acknowledged (until then, the one before it: a computer player's move may be told meanwhile)."""
        if table.meta.by_interaction:
            before = self._press.get(table.id, [])
            kept = [p for p in before if p.interaction.response.is_done()][-1:]
            for dropped in before:
                if dropped not in kept:
                    self._sent.pop(dropped.interaction.id, None)
            self._press[table.id] = [*kept, Press(interaction, self.host.clock())]

    def press(self, table: Table) -> Interaction | None:
        """The table's newest acknowledged interaction, while its token may still be used."""
        now = self.host.clock()
        for press in reversed(self._press.get(table.id, ())):
            if press.interaction.response.is_done() and now - press.since < LIFE:
                return press.interaction
        return None

    def opened(self, table: Table, interaction: Interaction) -> None:
        """The opening's answer is the board: the message the challenge's (or lobby's) interaction made."""
        self.pressed(table, interaction)
        self._boards[table.id] = Board(interaction, None, self.host.clock(), table.seq)

    def forget(self, table: Table) -> None:
        for press in self._press.pop(table.id, ()):
            self._sent.pop(press.interaction.id, None)
        self._boards.pop(table.id, None)

    async def post(self, table: Table, panel: Panel) -> discord.Message | None:
        """A public message as a follow-up of the table's newest interaction; None (logged) when there is
        none alive, or it sent all it may."""
        interaction = self.press(table)
        if interaction is None:
            log.info(
                "game %d: no live interaction to tell the table through; the next press tells it", table.id
            )
            return None
        sent = self._sent.get(interaction.id)
        if sent is not None and sent.number >= FOLLOWUPS:
            return await self._added(table, interaction, sent, panel)
        send = partial(interaction.followup.send, wait=True)
        try:
            message = await delivery.deliver(send, panel, "g", table.id, new=True)
        except discord.HTTPException as err:
            log.warning("game %d: a follow-up was refused (%s)", table.id, err)
            return None
        self._sent[interaction.id] = Sent((sent.number if sent is not None else 0) + 1, message, panel)
        return message

    async def _added(
        self, table: Table, interaction: Interaction, sent: Sent, panel: Panel
    ) -> discord.Message | None:
        """The press sent all the follow-ups it may: the call is added to its last one by an edit, where
        the two can be one message (``joined_calls``); else None (the next press tells it)."""
        joined = joined_calls(sent.panel, panel)
        if joined is None:
            log.info("game %d: the press sent all the follow-ups it may", table.id)
            return None
        message = sent.message
        edit = partial(interaction.followup.edit_message, message.id)
        try:
            await delivery.deliver(edit, joined, "g", table.id, editing=message.id)
        except discord.HTTPException as err:
            log.warning("game %d: a follow-up's edit was refused (%s)", table.id, err)
            return None
        self._sent[interaction.id] = sent._replace(panel=joined)
        return message

    async def board(self, table: Table, board: Panel) -> None:
        """Bring the board up to date: an edit through the token that made it while that lives, else a new
        board posted as a follow-up of the current press (the old one stays as it was)."""
        kept = self._boards.get(table.id)
        if kept is not None and kept.seq == table.seq:
            return  # drawn as the table is (the opening's answer)
        now = self.host.clock()
        if kept is not None and now - kept.since < LIFE:
            try:
                edit: Callable[..., Awaitable[Any]] = kept.interaction.edit_original_response
                if kept.message_id is not None:
                    edit = partial(kept.interaction.followup.edit_message, kept.message_id)
                await delivery.deliver(edit, board, "g", table.id, editing=kept.message_id)
                self._boards[table.id] = kept._replace(seq=table.seq)
                return
            except discord.HTTPException as err:
                log.info("game %d: the board could not be edited (%s); posting it anew", table.id, err)
        sent = await self.post(table, board)
        interaction = self.press(table)
        if sent is not None and interaction is not None:
            self._boards[table.id] = Board(interaction, sent.id, now, table.seq)


def joined_calls(first: Panel, then: Panel) -> Panel | None:
    """Two calls as one message, ``then`` below ``first`` with its picture and controls (a game's last call
    carries Rematch): ``first`` text alone, neither an embed, in one format, within one message's length;
    None where they can't be one."""
    plain = first.picture is None and not first.controls and first.embed is None and then.embed is None
    content = f"{first.content}\n\n{then.content}"
    if not plain or first.layout != then.layout or len(content) > delivery.CONTENT_LIMIT:
        return None
    pings = tuple(dict.fromkeys((*first.pings, *then.pings)))
    return replace(first, content=content, controls=then.controls, picture=then.picture, pings=pings)


def with_hand(table: Table, board: Panel) -> Panel:
    """The board of a table that lives by interactions carries Your hand: each player's private panel is
    that button's ephemeral answer (a board that has one already keeps its own)."""
    if any(c.verb == "hand" for c in board.controls):
        return board
    return replace(board, controls=(*board.controls, table.adapter.hand_button()))
