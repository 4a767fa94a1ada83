"""Where a table lives on Discord: its thread (else its channel), the summary in the channel of a game played
in a thread, the board message, and every post there — with the fall back to the channel when the thread is
gone or closed to the bot. Owns no state of its own: where a table lives is in its meta (the store).

Where the bot links its web pages (``bot.services.links``) and the server allows it (its ``browser``
setting), the game's one message in the channel carries a link button to watch it in a browser — the
replay's once it is over: the summary of a game played in a thread, else the board (the message a player
looks at to see the table). The link rides on edits made anyway, signed afresh each time: no request more.

A table that lives by interactions (``TableMeta.home``) has no thread, summary or channel REST: its posts
and its board go through its players' interactions (``bot.edge.table.answering``)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

import discord

from bot.base.i18n import t
from bot.base.panel import Button, Panel
from bot.edge import delivery
from bot.edge.errors import permissions
from bot.edge.governor import Urgency, urgency
from bot.edge.table.answering import Answering, with_hand
from bot.edge.table.host import USERS, Host, Interaction, lobby_panel, mention
from bot.games import Table
from bot.games.seats import TABLE_ACCENT, is_bot
from bot.services.server_settings import BROWSER_OFF

if TYPE_CHECKING:
    from bot.store import Lobby

log = logging.getLogger("tavern.controller")

THREAD_PERMISSIONS = ("create_public_threads", "send_messages_in_threads")
UNKNOWN_MESSAGE = 10008
THREAD_ARCHIVED = 50083
ACTIVITY = "activity"  # the verb of a board's "Open the table" button: answered with LAUNCH_ACTIVITY


class Places:
    """A table's home, summary and board on Discord."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.answering = Answering(host)

    def home(self, table: Table) -> int:
        """Where the table's messages go: its own thread, else its channel."""
        return table.meta.thread_id or table.channel_id

    def at(self, channel_id: int, table: Table | None = None) -> discord.PartialMessageable:
        """A channel, thread or DM to send to or edit in, by id: no lookup and no REST call."""
        return self.host.get_partial_messageable(channel_id, guild_id=table.guild_id if table else None)

    async def opening(
        self, interaction: Interaction, table: Table, starter_id: int | None, started: Panel
    ) -> Panel:
        """Give a new table its home, and say what the opening message (``starter_id``, the challenge or
        lobby message the click or command answered) becomes: the table's board, drawn through that
        interaction, so the opening spends none of the global budget on it. Where threads are allowed the
        game gets its own thread opened from that message: the board heads the thread and stands in the
        channel as the game's one message there. A game opened inside a thread (a rematch) plays on there,
        with a summary in the channel; elsewhere the game plays in the channel, and its board says so once.
        A table that lives by interactions gets none of that: the opening message becomes its board."""
        if table.meta.by_interaction:
            self.answering.opened(table, interaction)
            return await self.board(table)
        if starter_id is None:
            return started  # no message to become the board: it is posted with the first calls
        note = ""
        parent = getattr(interaction.channel, "parent_id", None)
        if parent is not None:
            await self._new_summary(table, parent)
            await self.host.tables.save_meta(table, board_id=starter_id)
        else:
            thread_id, note = await self._thread(interaction, table, starter_id)
            await self.host.tables.save_meta(table, board_id=starter_id, thread_id=thread_id)
        return (await self.board(table)).with_note(note)

    async def _thread(
        self, interaction: Interaction, table: Table, starter_id: int
    ) -> tuple[int | None, str]:
        """The game's own thread, opened from its opening message where the server wants threads and the
        bot may open them; else None, and what the board says once about it."""
        config = await self.host.server_settings.get(table.guild_id)
        if not config.threads:
            return None, ""
        perms = interaction.app_permissions
        refused = t("tavern.threads-refused", perms=permissions(THREAD_PERMISSIONS))
        if not all(getattr(perms, p) for p in THREAD_PERMISSIONS):
            return None, refused
        players = t("general.summary.versus").join(table.names)  # "Ann vs Bob", "Ann contro Bob"
        name = t("tavern.thread-name", game=table.adapter.title, players=players)[:100]
        try:
            starter = self.at(table.channel_id, table).get_partial_message(starter_id)
            with urgency(Urgency.PLAYER):  # the players wait for it: their panels and the answer come after
                thread = await starter.create_thread(name=name, auto_archive_duration=1440)
        except (discord.HTTPException, ValueError) as err:
            log.warning("game %d: could not open a thread (%s)", table.id, err)
            return None, refused
        return thread.id, ""

    def board_place(self, table: Table) -> int:
        """Where the board message is: in the channel when it heads the game's thread (a thread opened from
        a message takes that message's id), else where the table lives."""
        meta = table.meta
        heads = meta.board_id is not None and meta.board_id == meta.thread_id
        return table.channel_id if heads else self.home(table)

    async def linked(self, table: Table, panel: Panel) -> Panel:
        """``panel`` with the link to watch the table in a browser (its replay once over) last among its
        controls, where the bot links its pages and the table's server allows it; else ``panel`` as it is.
        Where the Activity is on, a live table's panel also opens it in Discord (``ACTIVITY``). Its words in
        the language in force."""
        links = self.host.links
        if links is None or (await self.host.server_settings.get(table.guild_id)).browser == BROWSER_OFF:
            return panel
        if table.status == "active":
            link = Button(t("general.summary.watch"), "", url=links.live(table.id, self.host.clock()))
        else:
            link = Button(t("general.summary.replay"), "", url=links.replay(table.id))
        if table.status == "active" and self.host.settings.client_secret:  # Activities on: open it here
            opened = Button(t("web.activity.open"), ACTIVITY, style="primary")
            return replace(panel, controls=(*panel.controls, opened, link))
        return replace(panel, controls=(*panel.controls, link))

    async def _new_summary(self, table: Table, channel_id: int) -> None:
        async with self.host.languages.channel(table.guild_id):
            panel = await self.linked(table, self.summary(table))
        try:
            sent = await delivery.deliver(self.at(channel_id, table).send, panel, "g", table.id, new=True)
        except discord.HTTPException as err:
            log.warning("game %d: could not post its summary in %s (%s)", table.id, channel_id, err)
            return
        await self.host.tables.save_meta(table, summary=(channel_id, sent.id))

    def summary(self, table: Table) -> Panel:
        """The channel's message of a game played in a thread, as one container in the table's colour."""
        return table.adapter.summary(table, f"<#{self.home(table)}>").laid_out(TABLE_ACCENT)

    async def refresh_summary(self, table: Table) -> None:
        """Keep the channel's summary of a game played in a thread current; post it again if deleted."""
        if table.meta.summary is None:
            return
        channel_id, message_id = table.meta.summary
        async with self.host.languages.channel(table.guild_id):
            panel = await self.linked(table, self.summary(table))
        try:
            message = self.at(channel_id, table).get_partial_message(message_id)
            with urgency(Urgency.LATER):  # the thread and the panels say the same sooner
                await delivery.deliver(message.edit, panel, "g", table.id, editing=message_id)
        except discord.NotFound:
            await self._new_summary(table, channel_id)
        except discord.HTTPException as err:
            log.warning("game %d: could not update its summary (%s)", table.id, err)

    async def _thread_failed(self, table: Table, err: discord.HTTPException, *, again: bool = False) -> bool:
        """The game's thread refused a post or an edit. An archived thread is reopened (once: ``again`` says
        it was just tried); a thread that is gone or closed to the bot is left, and the game goes on in its
        channel (the players are told there). True when the caller should try again."""
        thread_id = table.meta.thread_id
        if thread_id is None:
            return False
        if err.code == THREAD_ARCHIVED and not again:
            try:
                await self.host.http.edit_channel(thread_id, archived=False)
                return True
            except discord.HTTPException as refused:
                err = refused
        elif err.code != THREAD_ARCHIVED and not isinstance(err, discord.NotFound | discord.Forbidden):
            return False  # a passing fault: the thread is still the game's home
        log.warning(
            "game %d: its thread %s is unusable (%s); playing on in the channel", table.id, thread_id, err
        )
        heads = self.board_place(table) == table.channel_id  # the board stays where it is, in the channel
        await self.host.tables.save_meta(
            table, thread_id=None, board_id=table.meta.board_id if heads else None
        )
        async with self.host.languages.channel(table.guild_id):
            await self.call_players(table, t("tavern.thread-gone", game=table.adapter.title))
        return True

    async def call_players(self, table: Table, text: str) -> None:
        """Tell the table something that changes where or whether it plays, pinging its people, and bring
        the channel's summary up to date."""
        players = " ".join(table.mention(s) for s in table.humans)
        await self.post(table, Panel(content=f"{text} {players}"))
        await self.refresh_summary(table)

    async def post(self, table: Table, panel: Panel) -> discord.Message | None:
        """Post where the table lives; None (logged) if Discord refuses: one lost post never stops a game.
        It pings the table's people that it calls by mention (a turn, a nudge, a claim, a notice), nobody
        else: a name is never a mention (``bot.base.safe``)."""
        called = tuple(u for u in table.user_ids if not is_bot(u) and mention(u) in panel.content)
        panel = replace(panel, pings=called)
        if table.meta.by_interaction:
            return await self.answering.post(table, panel)
        for attempt in range(3):
            place = self.home(table)
            try:
                with urgency(Urgency.PLAYER if called or table.is_over() else Urgency.NORMAL):  # waited for
                    return await delivery.deliver(self.at(place, table).send, panel, "g", table.id, new=True)
            except discord.HTTPException as err:
                if place == table.meta.thread_id and await self._thread_failed(table, err, again=attempt > 0):
                    continue
                log.warning("game %d: could not post in %s (%s)", table.id, place, err)
                return None
        return None

    async def board(self, table: Table) -> Panel:
        """The table's board message, in its channel's language; with the browser's link when the game has
        no summary in the channel (it plays there: the board is its message to look at)."""
        async with self.host.languages.channel(table.guild_id):
            board = table.adapter.board(table).laid_out(TABLE_ACCENT)
            if table.meta.by_interaction:
                return with_hand(table, board)
            return board if table.meta.summary is not None else await self.linked(table, board)

    async def refresh_board(self, table: Table, board: Panel | None = None) -> int | None:
        """Edit the board message (``board``: drawn already for the table as it is); post it again if it
        was deleted (or never went out). Returns the id of a newly posted board."""
        if board is None:
            board = await self.board(table)
        if table.meta.by_interaction:
            await self.answering.board(table, board)
            return None
        for attempt in range(3):
            board_id, place = table.meta.board_id, self.board_place(table)
            if board_id is None:
                break
            try:
                message = self.at(place, table).get_partial_message(board_id)
                with urgency(Urgency.LATER):  # the players' own panels say the same sooner
                    await delivery.deliver(message.edit, board, "g", table.id, editing=board_id)
                return None
            except discord.HTTPException as err:
                if err.code == UNKNOWN_MESSAGE:
                    break  # deleted: post a new one, which becomes the kept one
                if place == table.meta.thread_id and await self._thread_failed(table, err, again=attempt > 0):
                    continue
                log.warning("game %d: could not update the board (%s)", table.id, err)
                return None
        sent = await self.post(table, board)
        return sent.id if sent is not None else None

    async def edit_lobby(self, lobby: Lobby) -> None:
        """Bring a lobby's message up to date (closed, expired, cancelled); a message gone is logged."""
        if lobby.message_id is None or lobby.guild_id == USERS:
            return  # no message, or one only its own interactions reach: its buttons say it is closed
        host = self.host
        async with host.languages.channel(lobby.guild_id):
            panel = lobby_panel(host.tables.adapter(lobby.game), lobby)
        try:
            channel = host.get_channel(lobby.channel_id) or await host.fetch_channel(lobby.channel_id)
            message = channel.get_partial_message(lobby.message_id)
            await delivery.deliver(message.edit, panel, "l", lobby.id)
        except (discord.HTTPException, AttributeError) as err:
            log.warning("could not mark lobby %d %s: %s", lobby.id, lobby.status, err)
