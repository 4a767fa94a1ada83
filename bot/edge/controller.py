"""The table controller: one path for every click and command of every game, and the one timer.

A move goes act → lock → check → apply → persist → render → deliver: the click is acknowledged at once, the
table's lock is taken, the control's freshness token and the engine's rules are checked, the action and the
meta it changes are committed in one transaction, and only then is anything announced — the clicked panel
through the interaction, the channel (one message, the ping on it, the board kept current) and the private
panels by DM, falling back to "Show my hand" where DMs are closed. What each game shows comes from its
adapter (:mod:`bot.games`); nothing here knows a game's rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import discord

from bot import ai
from bot.base import safe
from bot.base.i18n import Msg, speaking, t
from bot.base.panel import Button, Control, Panel
from bot.base.refusals import UserFacingError
from bot.edge import delivery
from bot.edge.errors import permissions
from bot.games import Announcement, Aside, Click, Move
from bot.games.seats import is_bot, level_of, shown
from bot.render import levels
from bot.services.cooldowns import ADMIN_PER_MINUTE, BOARDS_PER_MINUTE, CARDS_PER_MINUTE, Cooldown
from bot.services.lobbies import Player
from bot.services.server_settings import describe
from bot.services.tables import NotSeated, StaleAction, Table, TableClosed, TableError, TableMeta
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.edge.app import TavernBot
    from bot.store import Lobby

log = logging.getLogger("tavern.controller")

Interaction = discord.Interaction[Any]
# The latest press on a seat's live panel, when, and the DM message it reaches (None: an ephemeral panel).
Held = tuple[Interaction, float, int | None]
NEEDED_PERMISSIONS = ("view_channel", "send_messages", "embed_links")
THREAD_PERMISSIONS = ("create_public_threads", "send_messages_in_threads")
UNKNOWN_MESSAGE = 10008
THREAD_ARCHIVED = 50083
BOARD_EVERY = 3  # the board is edited at most once per this many coalescing windows
EPHEMERAL_LIFE = 14 * 60  # seconds an ephemeral panel stays editable (its interaction token lasts 15 min)


def _mention(user_id: int) -> str:
    return f"<@{user_id}>"


def _lobby_panel(adapter: Any, lobby: Lobby) -> Panel:
    """The lobby message, its bots named in the language in force."""
    names = {user: shown(user, name) for user, name in lobby.names.items()}
    return adapter.lobby_panel(replace(lobby, names=names))  # type: ignore[no-any-return]


def private(interaction: Interaction) -> bool:
    """Whether the pressed message is seen by the presser alone (a DM or an ephemeral message)."""
    message = interaction.message
    return message is None or interaction.guild_id is None or message.flags.ephemeral


@dataclass
class Outbox:
    """What a table's channel has not been shown yet (see ``Settings.coalesce_seconds``): calls that pinged
    nobody, waiting for their window to end or for the next call that pings someone, and whether the board
    message is behind. Kept in memory only: a crash loses at most one window of calls, never a move."""

    messages: list[Announcement] = field(default_factory=list)
    since: float = 0.0  # when the first waiting call came
    board_dirty: bool = False
    board_at: float = -math.inf  # when the board was last edited
    task: asyncio.Task[None] | None = None
    through: int = 0  # the action count the waiting calls tell the table up to

    def pending(self) -> bool:
        return bool(self.messages) or self.board_dirty

    def picture(self) -> bool:
        return any(a.picture is not None for a in self.messages)

    def board_due(self, window: float) -> float:
        """When the board's next edit may go: one per ``BOARD_EVERY`` coalescing windows."""
        return self.board_at + BOARD_EVERY * window

    def hold(self, ann: Announcement, now: float, through: int) -> None:
        if ann.messages:
            if not self.messages:
                self.since = now
            self.messages.append(ann)
        self.through = through

    def take(self, ann: Announcement) -> Announcement:
        """``ann`` with the waiting calls first, packed together into as few messages as fit."""
        if not self.messages:
            return ann
        waiting, self.messages = [*self.messages, ann], []
        texts: list[str] = []
        picture, picture_at = None, -1
        for a in waiting:
            for i, text in enumerate(a.messages):
                at = a.picture is not None and i == a.picture_at % len(a.messages)
                joined = f"{texts[-1]}\n{text}" if texts else text
                if texts and len(joined) <= delivery.CONTENT_LIMIT and not (at and picture is not None):
                    texts[-1] = joined
                else:
                    texts.append(text)
                if at:
                    picture, picture_at = a.picture, len(texts) - 1
        return replace(ann, messages=texts, picture=picture, picture_at=picture_at)


def player(user: discord.abc.User) -> Player:
    return Player(user.id, safe.name(user.display_name, user.name), user.bot)


class TableController:
    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot
        self.tables = bot.tables
        self.lobbies = bot.lobbies
        self.clock = bot.clock
        self.server_settings = bot.server_settings
        self.languages = bot.languages
        self._timer: asyncio.Task[None] | None = None
        self._bots: dict[int, asyncio.Task[None]] = {}  # table id → its computer players' task
        self._timer_lock = asyncio.Lock()
        # (table, seat) → the latest press on that seat's live panel (its DM, or its ephemeral Show my hand
        # panel), and when: the panel is redrawn through that interaction while its token lasts, which is an
        # interaction endpoint, outside the bot's global REST budget.
        self._held: dict[tuple[int, int], Held] = {}
        self._seen: dict[tuple[int, int], float] = {}  # (table, seat) → the seat's last click there
        self._outboxes: dict[int, Outbox] = {}  # table id → what its channel has not been shown yet
        # table id → the action count up to which this process told the table, or tried to: what the store
        # says is owed beyond it was committed by a process that could not tell it (``_owes``)
        self._told_here: dict[int, int] = {}
        # (table, seat) → the action count at which a press of the seat last redrew its live panel
        self._answered: dict[tuple[int, int], int] = {}
        self._endings_told = False  # the first timer pass tells the ends that were never told
        settings = bot.settings
        self.openings = Cooldown(
            settings.openings_per_minute, 60, bot.clock, Msg("general.cooldown.open-table")
        )
        self.calculators = Cooldown(
            settings.calculations_per_minute, 60, bot.clock, Msg("general.cooldown.calculator")
        )
        self.admin = Cooldown(ADMIN_PER_MINUTE, 60, bot.clock, Msg("general.cooldown.admin"))
        self.cards = Cooldown(CARDS_PER_MINUTE, 60, bot.clock, Msg("general.cooldown.cards"))
        self.boards = Cooldown(BOARDS_PER_MINUTE, 60, bot.clock, Msg("general.cooldown.board"))

    @property
    def settings(self) -> Settings:
        return self.bot.settings

    # ================================================================ commands

    def refuse_permissions(self, interaction: Interaction) -> None:
        perms = interaction.app_permissions
        missing = [p for p in NEEDED_PERMISSIONS if not getattr(perms, p)]
        if missing:
            raise UserFacingError("tavern.cannot-host", n=len(missing), perms=permissions(missing))

    async def open_lobby(
        self,
        interaction: Interaction,
        game: str,
        options: dict[str, Any],
        *,
        invited: discord.abc.User | None = None,
        members: Sequence[Player] = (),
    ) -> None:
        """``/<game> challenge`` or ``/<game> create``, and Rematch: the lobby is the interaction's answer."""
        if interaction.guild_id is None or interaction.channel_id is None:
            raise UserFacingError("tavern.error.server-only")
        if invited is not None and self.bot.user is not None and invited.id == self.bot.user.id:
            await self.practice(interaction, game, ai.DEFAULT_LEVEL, options)  # challenging the bot itself
            return
        self.refuse_permissions(interaction)
        with self.openings.reserve(interaction.user.id):  # given back if nothing opens
            adapter = self.tables.adapter(game)
            options = await self._usual_target(interaction.guild_id, adapter, options)
            lobby = await self.lobbies.open(
                adapter,
                interaction.guild_id,
                interaction.channel_id,
                player(interaction.user),
                invited=player(invited) if invited is not None else None,
                members=members,
                options=options,
            )
            try:
                async with self.languages.channel(interaction.guild_id):
                    panel = _lobby_panel(adapter, lobby)
                response = await delivery.deliver(
                    interaction.response.send_message, panel, "l", lobby.id, new=True
                )
            except BaseException:
                await self.lobbies.posted(lobby.id, None)
                raise
            await self.lobbies.posted(lobby.id, response.message_id)

    async def _usual_target(self, guild_id: int, adapter: Any, options: dict[str, Any]) -> dict[str, Any]:
        """The server's usual target where the command left it out."""
        if adapter.targets is not None and options.get("target") is None:
            config = await self.server_settings.get(guild_id)
            options = {**options, "target": config.targets.get(adapter.name, adapter.targets[1])}
        return options

    async def practice(
        self, interaction: Interaction, game: str, level: str, options: dict[str, Any]
    ) -> None:
        """A game against the bot, at once: no challenge to answer. It is recorded but never rated."""
        if interaction.guild_id is None or interaction.channel_id is None:
            raise UserFacingError("tavern.error.server-only")
        chosen = levels.level(level)
        self.refuse_permissions(interaction)
        with self.openings.reserve(interaction.user.id):  # given back if no table starts
            adapter = self.tables.adapter(game)
            options = await self._usual_target(interaction.guild_id, adapter, options)
            table, _ = await self.lobbies.practice(
                adapter,
                interaction.guild_id,
                interaction.channel_id,
                player(interaction.user),
                chosen,
                options,
            )  # a refusal (a busy channel, a player seated elsewhere) is still this command's private answer
            self._told_here[table.id] = table.seq  # the opening is told just below
        response = await interaction.response.defer()
        async with self.tables.locked(table.id) as table, self.languages.channel(table.guild_id):
            text = t(
                "tavern.practice.opening",
                player=table.mention(0),
                game=adapter.title,
                bot=table.names[1],
                options=adapter.options_text(table.options),
            )
            starter = response.message_id if response is not None else None
            answer = await self._opening(interaction, table, starter, Panel(content=text))
            await self._saved(interaction, table, table.pending, -1, answer)

    async def my_table(self, interaction: Interaction, game: str) -> tuple[Table, int]:
        """The caller's table of this game here, else elsewhere in this server (a channel that was deleted
        or that they, or the bot, can no longer reach must not leave them stuck), as stored: a copy another
        process has written since is read again."""
        table, seat = await self._my_table(interaction, game)
        return await self.tables.get(table.id), seat

    async def _my_table(self, interaction: Interaction, game: str) -> tuple[Table, int]:
        here = await self.tables.table_for_channel(interaction.channel_id or 0)
        if here is not None and here.game == game:
            seat = here.seat_of(interaction.user.id)
            if seat is not None:
                return here, seat
        for mine in await self.tables.tables_of_user(interaction.guild_id or 0, interaction.user.id):
            seat = mine.seat_of(interaction.user.id)
            if mine.game == game and seat is not None:
                return mine, seat
        if here is None or here.game != game:
            raise UserFacingError("tavern.no-game-here", game=self.tables.adapter(game).title)
        raise NotSeated()

    @staticmethod
    def elsewhere(interaction: Interaction, table: Table) -> bool:
        """A command used away from the table's channel names it, so nobody resigns the wrong game."""
        return interaction.channel_id != table.channel_id

    async def show_hand(self, interaction: Interaction, game: str) -> None:
        table, seat = await self.my_table(interaction, game)
        note = (
            t("tavern.your-game-in", channel=table.channel_id) if self.elsewhere(interaction, table) else ""
        )
        panel = table.adapter.seat_panel(table, seat, note)
        await self._ephemeral_panel(interaction, table, seat, panel)

    async def ask_resign(self, interaction: Interaction, game: str) -> None:
        table, seat = await self.my_table(interaction, game)
        adapter = table.adapter
        adapter.resign_action(table, seat)  # refuses at once if the seat can't resign (already left)
        question = adapter.resign_question(table, seat)
        if self.elsewhere(interaction, table):
            question = t("tavern.resign-elsewhere", question=question, channel=table.channel_id)
        panel = Panel(
            content=question,
            controls=(Button(adapter.resign_label_text(), "resign", style="danger"),),
        )
        await delivery.send_ephemeral(interaction, panel, table.id)

    async def repost_board(self, interaction: Interaction, game: str) -> None:
        """The board again, as this command's answer; that message is the one kept current from now on.
        Asked in the channel of a game played in a thread, it is shown privately with the thread's link.
        Anyone in the channel may ask, a few times a minute (each answer is a new message there)."""
        with self.boards.reserve(interaction.user.id):
            await self._repost_board(interaction, game)

    async def _repost_board(self, interaction: Interaction, game: str) -> None:
        table = await self.tables.table_for_channel(interaction.channel_id or 0)
        if table is None or table.game != game:
            raise UserFacingError("tavern.no-game-here", game=self.tables.adapter(game).title)
        table = await self.tables.get(table.id)  # as stored, if another process moved since
        place = self._place(table)
        if interaction.channel_id != place:  # the game plays in its thread: the board kept current is there
            board = table.adapter.board(table).with_note(t("tavern.board-in-thread", channel=place))
            await delivery.send_ephemeral(interaction, board, table.id)
            return
        async with self.languages.channel(table.guild_id):
            board = table.adapter.board(table)
        response = await delivery.deliver(interaction.response.send_message, board, "g", table.id, new=True)
        if response.message_id is not None:
            async with self.tables.locked(table.id) as table:
                await self.tables.save_meta(table, board_id=response.message_id)

    async def end_here(self, interaction: Interaction) -> None:
        """``/tavern-admin end``: an admin closes this channel's game (abandoned: no result, no rating change,
        the players told) or its open lobby."""
        perms = interaction.permissions
        if interaction.guild_id is None or interaction.channel_id is None:
            raise UserFacingError("tavern.error.server-only")
        if not (perms.manage_guild or perms.manage_channels):
            raise UserFacingError("tavern.end.admins-only")
        self.admin.take(interaction.user.id)  # counted when there is nothing to end too: that asks the store
        admin = safe.name(interaction.user.display_name, interaction.user.name)
        reason = f"ended by {admin}"  # i18n: not text (stored with the game, for the operator)
        table = await self.tables.table_for_channel(interaction.channel_id)
        if table is not None:
            async with self.tables.locked(table.id) as table:
                if table.status == "active":
                    await interaction.response.defer(ephemeral=True)
                    await self.tables.abandon(table, reason)
                    async with self.languages.channel(table.guild_id):
                        ended = t("tavern.end.ended-by", admin=admin, game=table.adapter.title)
                        await self._call_players(table, ended)
                    await interaction.followup.send(t("tavern.end.done"), ephemeral=True)
                    return
        closed = await self.lobbies.cancel_in(interaction.channel_id)
        if closed:
            await interaction.response.send_message(t("tavern.end.lobby-closed"), ephemeral=True)
            for lobby in closed:
                await self._edit_lobby_message(lobby)
            return
        if await self.tables.abandon_unplayable(interaction.channel_id, reason):
            await interaction.response.send_message(t("tavern.end.unplayable-closed"), ephemeral=True)
            return
        raise UserFacingError("tavern.end.nothing-here")

    async def server_settings_command(
        self, interaction: Interaction, changes: dict[str, Any], *, reset: bool = False
    ) -> None:
        """``/tavern-admin settings``: shown to, and changed by, members with Manage Server only."""
        if interaction.guild_id is None:
            raise UserFacingError("tavern.error.server-only")
        if not interaction.permissions.manage_guild:
            raise UserFacingError("tavern.settings.admins-only")
        self.admin.take(interaction.user.id)
        service = self.server_settings
        if reset:
            config = await service.reset(interaction.guild_id)
        elif changes:
            config = await service.change(interaction.guild_id, changes)
        else:
            config = await service.get(interaction.guild_id)
        head = t("tavern.settings.saved") if reset or changes else t("tavern.settings.these")
        text = describe(config, service.defaults, self.bot.games)
        await interaction.response.send_message(f"{head}\n{text}", ephemeral=True)

    # ================================================================ clicks

    async def on_click(self, interaction: Interaction, click: Click) -> None:
        if click.scope == "l":
            await self._lobby_click(interaction, click)
            return
        try:
            table = await self.tables.get(click.key)
        except TableError as err:
            raise UserFacingError("tavern.table.gone") from err
        if click.verb == "rematch":
            await self._rematch(interaction, table)
            return
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise NotSeated()
        if table.status != "active":
            raise TableClosed()
        self._seen[(table.id, seat)] = self.clock()
        adapter = table.adapter
        if click.verb == "hand":
            await self._ephemeral_panel(interaction, table, seat, adapter.seat_panel(table, seat))
        elif click.verb == "resign":
            move = Move(
                adapter.resign_action(table, seat), "", done=lambda _t, _e: Panel(adapter.resign_done_text())
            )
            await self._move(interaction, table, seat, move, fresh=False)
        elif click.verb == "claim":
            await self._claim(interaction, table, seat, click)
        else:
            try:
                outcome = adapter.click(table, seat, click)
            except StaleAction:
                await self._stale(interaction, table.id, seat)
                return
            if isinstance(outcome, Aside):
                await delivery.send_ephemeral(interaction, outcome.panel, table.id)
            elif isinstance(outcome, Panel) and not private(interaction):
                await delivery.send_ephemeral(interaction, outcome, table.id)  # never a hand in the channel
            elif isinstance(outcome, Panel):
                await delivery.deliver(interaction.response.edit_message, outcome, "g", table.id)
                await self._hold(interaction, table, seat)
            else:
                await self._move(interaction, table, seat, outcome)

    async def _move(
        self, interaction: Interaction, table: Table, seat: int, move: Move, *, fresh: bool = True
    ) -> None:
        """Acknowledge at once (the table may still be announcing the previous move), then play the move
        under the table's lock and answer through the interaction."""
        if not interaction.response.is_done():
            await interaction.response.defer()
        async with self._table(table.id) as table:
            if fresh and move.token != table.adapter.token(table, seat):
                await self._stale_locked(interaction, table, seat)
                return
            told = table.meta.told(table.seq)
            events = await self._apply(table, seat, move.action)
            done = move.done(table, events) if move.done is not None else None
            if done is not None and not private(interaction):
                # A private answer to a press on a public message goes privately; the message keeps its text.
                await delivery.send_ephemeral(interaction, done, table.id)
                done = None
            answered: int | None = None
            if done is not None:
                answered = seat  # the pressed panel is the seat's live panel, redrawn through the answer
                await self._hold(interaction, table, seat)
            await self._saved(interaction, table, events, told, done, answered=answered)

    async def _stale(self, interaction: Interaction, table_id: int, seat: int) -> None:
        """A press on a panel drawn before the table's last move (the panel was not redrawn yet, or the bot
        stopped before it could be): the seat gets its panel as the table is now, not a bare refusal, so no
        player is ever left holding buttons that only say no."""
        if not interaction.response.is_done():
            await interaction.response.defer()
        async with self._table(table_id) as table:
            if table.status != "active":
                raise TableClosed()
            await self._stale_locked(interaction, table, seat)

    async def _stale_locked(self, interaction: Interaction, table: Table, seat: int) -> None:
        """The pressed panel, if it is the seat's live one, becomes the seat's panel as the table is now; the
        caller holds the table's lock and has acknowledged the press. A second press on a panel a press of
        the seat already redrew (a double click), or a press on a panel that is not the live one, is refused
        as before: the player has the current table in front of them."""
        if self._answered.get((table.id, seat)) == table.seq or not self._live(interaction, table, seat):
            raise StaleAction()
        panel = table.adapter.seat_panel(table, seat, t("tavern.table.stale-redrawn"))
        await delivery.deliver(interaction.edit_original_response, panel, "g", table.id)
        self._answered[(table.id, seat)] = table.seq
        await self._hold(interaction, table, seat)

    def _live(self, interaction: Interaction, table: Table, seat: int) -> bool:
        """Whether the pressed message is the seat's live private panel: its DM panel, or an ephemeral one
        where that is how the seat plays (no DM panel is held instead)."""
        message = interaction.message
        if message is None or not private(interaction):
            return False
        if message.flags.ephemeral:
            held = self._held.get((table.id, seat))
            return held is None or held[2] is None
        live = table.meta.panels.get(seat)
        return live is not None and live[1] == message.id

    @asynccontextmanager
    async def _table(self, table_id: int) -> AsyncIterator[Table]:
        """The table under its lock, for a move: an announcement the store says is owed — a bot stopped
        between committing a move and telling it, or a commit whose answer was lost — is told first."""
        async with self.tables.locked(table_id) as table:
            await self._tell_owed(table)
            yield table

    def _owes(self, table: Table) -> bool:
        """Whether the store says the table's last move was committed but never told by a process that
        could — a bot stopped between committing and telling, a commit whose answer was lost — or that
        calls were lost from an outbox (untold, and not held back on purpose: a Deluxe turn is told when it
        passes). Not what this process told, or tried to tell, at this action (a channel refusing posts is
        tried again with the next move), and not while its own outbox holds the table's calls."""
        if self._told_here.get(table.id) == table.seq:
            return False
        if table.status != "active":  # a game's end that was never told (see ``run_timers``)
            return table.status == "finished" and table.meta.owed
        box = self._outboxes.get(table.id)
        if box is not None and box.messages:
            return False
        meta = table.meta
        lost = meta.untold_after is not None and bool(table.pending)
        return meta.owed or (lost and not table.adapter.hold(table, table.pending))

    async def _tell_owed(self, table: Table) -> None:
        """Tell what the store says is owed (see ``_owes``): the calls, every person's panel, the board."""
        if not self._owes(table):
            return
        log.info("game %d: telling what was committed but not told (after action %d)", table.id, table.seq)
        told = table.meta.told(table.seq)
        await self.publish(table, list(table.pending), told_before=told, everyone=True)

    async def _saved(
        self,
        interaction: Interaction,
        table: Table,
        events: Sequence[Any],
        told: int,
        answer: Panel | None,
        *,
        answered: int | None = None,
    ) -> None:
        """The move is committed: answer the click (``answer`` is what the pressed message becomes; None
        keeps its text and takes its controls off), then tell everyone. A failed answer (Discord refused the
        edit, the token ran out) is logged and never stops the announcement, the board or the next ping."""
        try:
            if answer is None:
                await interaction.edit_original_response(view=None)
            else:
                await delivery.deliver(interaction.edit_original_response, answer, "g", table.id)
        except discord.HTTPException as err:
            log.warning("game %d: move saved, but its reply failed (%s)", table.id, err)
            answered = None  # the pressed panel was not redrawn: redraw it like any other
        if answered is not None:
            self._answered[(table.id, answered)] = table.seq
        await self.publish(table, events, told_before=told, answered=answered)

    async def _apply(
        self, table: Table, seat: int, action: Any, *, expected_seq: int | None = None
    ) -> list[Any]:
        """Apply under the held lock; the move's meta (what the channel will have been told) is committed
        with it."""

        def meta_after(events: Sequence[Any], seq: int) -> TableMeta:
            # Committed as owed and untold: telling it clears them (``publish``; the calls, once out of the
            # outbox), so a bot stopped in between tells it when it is back (``_tell_owed``).
            return replace(table.meta, untold_after=table.meta.told(seq - 1), owed=True)

        result = await self.tables.apply_locked(
            table, seat, action, expected_seq=expected_seq, meta_after=meta_after
        )
        return result.events

    async def _claim(self, interaction: Interaction, table: Table, seat: int, click: Click) -> None:
        if not click.arg.isascii() or not click.arg.isdigit() or len(click.arg) > 2:
            raise UserFacingError("tavern.out-of-date")
        idle = int(click.arg)
        if idle == seat:
            raise UserFacingError("tavern.claim.yourself")
        if click.token != str(table.seq) or table.waiting_for() != (idle,):
            raise UserFacingError("tavern.claim.moved-on")
        claim = (await self.server_settings.get(table.guild_id)).claim_minutes * 60
        if not claim or self.clock() - table.last_action_at < claim:
            raise UserFacingError("tavern.claim.not-yet")
        await interaction.response.defer()
        async with self._table(table.id) as table:
            action = table.adapter.claim_action(table, idle)
            told = table.meta.told(table.seq)
            events = await self._apply(table, idle, action, expected_seq=int(click.token))
            async with self.languages.channel(table.guild_id):  # the claim offer is a channel message
                text = table.adapter.claimed_text(
                    table, idle, safe.name(interaction.user.display_name, interaction.user.name)
                )
            await self._saved(interaction, table, events, told, Panel(content=text))

    async def _rematch(self, interaction: Interaction, table: Table) -> None:
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise NotSeated()
        if table.status == "active":
            raise UserFacingError("tavern.rematch.still-going")
        adapter = table.adapter
        seats = [s for s in adapter.rematch_seats(table) if s != seat]
        options = table.options.to_dict()
        if adapter.challenge:
            other = table.user_ids[seats[0]] if seats else table.user_ids[1 - seat]
            if is_bot(other):
                await self.practice(interaction, adapter.name, level_of(other), options)
                return
            user = self.bot.get_user(other) or await self.bot.fetch_user(other)
            await self.open_lobby(interaction, adapter.name, options, invited=user)
        else:
            members = [Player(table.user_ids[s], table.names[s], is_bot(table.user_ids[s])) for s in seats]
            await self.open_lobby(interaction, adapter.name, options, members=members)

    async def _lobby_click(self, interaction: Interaction, click: Click) -> None:
        """A refusal is the click's own (ephemeral) answer; anything else updates the lobby message through
        the interaction. A click that opens a table is acknowledged first: that takes a moment."""
        user = player(interaction.user)
        arg = click.values[0] if click.values else ""
        self.lobbies.refuse(await self.lobbies.get(click.key), user, click.verb, arg)
        starts = click.verb in self.lobbies.STARTS
        if starts:
            await interaction.response.defer()
        outcome = await self.lobbies.click(click.key, user, click.verb, arg)
        adapter = self.tables.adapter(outcome.lobby.game)
        async with self.languages.channel(outcome.lobby.guild_id):  # the lobby message is the channel's
            answer = _lobby_panel(adapter, outcome.lobby)
        if outcome.started is not None:
            table, _ = outcome.started
            self._told_here[table.id] = table.seq  # the opening is told just below
            async with self.tables.locked(table.id) as table, self.languages.channel(table.guild_id):
                started = _lobby_panel(adapter, outcome.lobby)
                answer = await self._opening(interaction, table, outcome.lobby.message_id, started)
                await self._saved(interaction, table, table.pending, -1, answer)
            return
        if starts:
            await delivery.deliver(interaction.edit_original_response, answer, "l", outcome.lobby.id)
        else:
            await delivery.deliver(interaction.response.edit_message, answer, "l", outcome.lobby.id)
        if outcome.notice:
            await interaction.followup.send(outcome.notice, ephemeral=True)

    # ================================================================ telling everyone

    async def publish(
        self,
        table: Table,
        events: Sequence[Any],
        *,
        told_before: int,
        answered: int | None = None,
        everyone: bool = False,
    ) -> None:
        """Everything a move (or the opening) makes visible; the caller holds the table's lock. The move is
        already committed, marked untold: a Discord failure here is logged and never undoes it.
        ``told_before`` is the action count up to which the table had been told before these events (-1 for
        the opening); the mark is cleared once the calls are out — at once, or when the outbox's window ends
        — and stays while the channel refuses them or the game holds them back, so they are told later,
        across a restart too. ``answered`` is the seat whose live panel the click's own answer already
        redrew; ``everyone`` redraws every person's panel (a retelling: nobody knows which ones went out)."""
        adapter = table.adapter
        self._told_here[table.id] = table.seq
        changes: dict[str, Any] = {"owed": False}  # written at the end, once everything below is done
        held = adapter.hold(table, events)
        news = list(events) if held else list(table.pending)
        channel = await self.languages.of_guild(table.guild_id)
        # The panels first: when the ping arrives, the pinged player's panel is already current. Each is in
        # its player's language, with the note of what happened in it too.
        fresh = adapter.replaces(table, events)
        notes: dict[str, dict[int, str]] = {}
        with speaking(channel):
            dealt = adapter.deal(table, news)
        if table.is_over() or everyone:  # every panel: the end (without controls), or a retelling
            dealt = {s: dealt.get(s, "") for s in range(len(table.seats))}
        for seat in dealt:
            if table.is_bot(seat) or (seat == answered and not fresh):
                continue
            language = self._language(table, seat, channel)
            with speaking(language):
                if language not in notes:
                    notes[language] = adapter.deal(table, news)
                panel = adapter.seat_panel(table, seat, notes[language].get(seat, ""))
            await self._show_panel(table, seat, panel, retire=seat != answered)
        posted = True
        ann = Announcement()
        box = self._outboxes.setdefault(table.id, Outbox())
        if not held:
            with speaking(channel):
                ann = self._attend(table, adapter.announce(table, table.pending))
            if not everyone and self._can_wait(table, ann, box):
                box.hold(ann, self._now(), table.seq)
                # Told when the window ends (``_flush``); with nothing waiting there is nothing to tell.
                changes["untold_after"] = told_before if box.messages else None
            else:
                posted = await self._tell_channel(table, box.take(ann))
                changes["untold_after"] = None if posted else told_before
            if posted:
                table.pending = []
        if self._coalesce() and not table.is_over() and self._now() < box.board_due(self._coalesce()):
            box.board_dirty = True  # the board waits: several moves, one edit
        else:
            board_id = await self._refresh_board(table)
            box.board_at, box.board_dirty = self._now(), False
            if board_id is not None:
                changes["board_id"] = board_id
        if box.pending():
            self._flush_soon(table.id, box)
        if not posted:
            # The table's channel refused: whoever was called there gets their panel anyway (it pings as a
            # new message), and at the end everyone is told the result by DM.
            for seat in ann.ping_seats:
                if seat not in dealt and not table.is_bot(seat):
                    with speaking(self._language(table, seat, channel)):
                        panel = adapter.seat_panel(table, seat)
                    await self._show_panel(table, seat, panel, notify=True)
            if table.is_over():
                for seat in range(len(table.seats)):
                    with speaking(self._language(table, seat, channel)):
                        head = t("tavern.over-dm", game=adapter.title, channel=self._place(table))
                        result = Panel(content="\n".join([head, *adapter.result_lines(table, events)]))
                    await self._dm(table, seat, result, notice=False)
        if table.is_over() or adapter.milestone(table, events):
            await self._refresh_summary(table)
        await self.tables.save_meta(table, **changes)
        if table.is_over():
            for seat in range(len(table.seats)):
                self._held.pop((table.id, seat), None)
                self._seen.pop((table.id, seat), None)
                self._answered.pop((table.id, seat), None)
            self._outboxes.pop(table.id, None)
            self._told_here.pop(table.id, None)
            if box.task is not None and box.task is not asyncio.current_task():
                box.task.cancel()
        self.wake_bots(table)

    # ---------------------------------------------------------------- coalescing

    def _coalesce(self) -> float:
        return self.settings.coalesce_seconds

    @staticmethod
    def _now() -> float:
        """Real time, for the REST budget (game timers use the injectable clock)."""
        return asyncio.get_running_loop().time()

    def _attend(self, table: Table, ann: Announcement) -> Announcement:
        """No ping for players who are looking at the table (they clicked there within
        ``attention_seconds``): their panel already shows it is their turn."""
        attention = self.settings.attention_seconds
        if not ann.ping_seats or attention <= 0:
            return ann
        now = self.clock()
        if all(now - self._seen.get((table.id, s), -math.inf) < attention for s in ann.ping_seats):
            return replace(ann, ping="", ping_seats=())
        return ann

    def _can_wait(self, table: Table, ann: Announcement, box: Outbox) -> bool:
        """Calls that ping nobody and offer nothing may wait a moment, to go out with the next ones — where
        several processes share the store, only while everyone the table waits for has been pressing here:
        a next move played through another process must find the calls before it already posted."""
        return (
            self._coalesce() > 0
            and not ann.ping
            and not ann.controls
            and not table.is_over()
            and not (ann.picture is not None and box.picture())
            and (
                not self.tables.store.shared
                or all((table.id, s) in self._seen for s in table.people_waited_for())
            )
        )

    def _flush_soon(self, table_id: int, box: Outbox) -> None:
        if box.task is None or box.task.done():
            box.task = asyncio.create_task(self._flush_later(table_id, box), name=f"flush-{table_id}")

    async def _flush_later(self, table_id: int, box: Outbox) -> None:
        """Tell the channel what waited, when its window ends; the board when its next edit is due."""
        try:
            while box.pending() and self._outboxes.get(table_id) is box:
                due = box.since + self._coalesce() if box.messages else math.inf
                if box.board_dirty:
                    due = min(due, box.board_due(self._coalesce()))
                await asyncio.sleep(max(0.0, due - self._now()))
                async with self.tables.locked(table_id) as table:
                    await self._flush(table, box)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %d: could not tell the channel what waited", table_id)

    async def _flush(self, table: Table, box: Outbox, *, everything: bool = False) -> None:
        """Post the calls whose window is over, and edit the board if its edit is due; the caller holds the
        table's lock."""
        now = self._now()
        due = box.messages and (everything or now >= box.since + self._coalesce())
        if due:
            through = box.through
            if await self._tell_channel(table, box.take(Announcement())):
                # Told up to the calls' last action; events held back since (a Deluxe turn) stay untold.
                await self.tables.save_meta(table, untold_after=through if table.pending else None)
            else:
                log.warning("game %d: the channel refused calls that had waited; they are dropped", table.id)
        if box.board_dirty and (everything or now >= box.board_due(self._coalesce())):
            box.board_at, box.board_dirty = now, False
            board_id = await self._refresh_board(table)
            if board_id is not None:
                await self.tables.save_meta(table, board_id=board_id)

    async def flush_all(self) -> None:
        """Tell every channel what is waiting (a clean shutdown)."""
        for table_id, box in list(self._outboxes.items()):
            if box.task is not None:
                box.task.cancel()
            if box.pending():
                with contextlib.suppress(Exception):
                    async with self.tables.locked(table_id) as table:
                        await self._flush(table, box, everything=True)
        self._outboxes.clear()

    def _language(self, table: Table, seat: int, channel: str) -> str:
        """The language of a seat's private text: its player's, else (never heard from) the channel's."""
        return self.languages.of_user(table.user_ids[seat], channel)

    def _show_button(self, table: Table, seat: int) -> Button:
        return table.adapter.hand_button(t("tavern.show-hand-of", name=table.names[seat]), arg=str(seat))

    async def _tell_channel(self, table: Table, ann: Announcement) -> bool:
        """Post the announcement (the ping on the last message); False if that last one didn't go out."""
        async with self.languages.channel(table.guild_id):
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
                dms = (await self.server_settings.get(table.guild_id)).dms
                controls += [
                    self._show_button(table, s)
                    for s in ann.ping_seats
                    if (s in table.meta.dm_closed or not dms) and not table.is_bot(s)
                ]
        if not texts:
            return True
        sent: discord.Message | None = None
        with_picture = ann.picture_at % len(ann.messages) if ann.messages else len(texts) - 1
        for i, text in enumerate(texts):
            panel = Panel(
                content=text,
                controls=tuple(controls) if i == len(texts) - 1 else (),
                picture=ann.picture if i == with_picture else None,
            )
            sent = await self._post(table, panel)
        return sent is not None

    # ================================================================ where a table lives

    def _place(self, table: Table) -> int:
        """Where the table's messages go: its own thread, else its channel."""
        return table.meta.thread_id or table.channel_id

    def _at(self, channel_id: int, table: Table | None = None) -> discord.PartialMessageable:
        """A channel, thread or DM to send to or edit in, by id: no lookup and no REST call."""
        return self.bot.get_partial_messageable(channel_id, guild_id=table.guild_id if table else None)

    async def _opening(
        self, interaction: Interaction, table: Table, starter_id: int | None, started: Panel
    ) -> Panel:
        """Give a new table its home, and say what the opening message (``starter_id``, the challenge or
        lobby message the click or command answered) becomes. Where threads are allowed the game gets its
        own thread opened from that message, which becomes the game's one summary in the channel; a game
        opened inside a thread (a rematch) plays on there, with a new summary in the channel; elsewhere the
        game plays in the channel, and the opening message says so once."""
        parent = getattr(interaction.channel, "parent_id", None)
        if parent is not None:
            await self._new_summary(table, parent)
            return started
        config = await self.server_settings.get(table.guild_id)
        if not config.threads or starter_id is None:
            return started
        perms = interaction.app_permissions
        refused = t("tavern.threads-refused", perms=permissions(THREAD_PERMISSIONS))
        if not all(getattr(perms, p) for p in THREAD_PERMISSIONS):
            return started.with_note(refused)
        name = t("tavern.thread-name", game=table.adapter.title, players=" vs ".join(table.names))[:100]
        try:
            starter = self._at(table.channel_id, table).get_partial_message(starter_id)
            thread = await starter.create_thread(name=name, auto_archive_duration=1440)
        except (discord.HTTPException, ValueError) as err:
            log.warning("game %d: could not open a thread (%s)", table.id, err)
            return started.with_note(refused)
        await self.tables.save_meta(table, thread_id=thread.id, summary=(table.channel_id, starter_id))
        return table.adapter.summary(table, f"<#{thread.id}>")

    async def _new_summary(self, table: Table, channel_id: int) -> None:
        async with self.languages.channel(table.guild_id):
            panel = table.adapter.summary(table, f"<#{self._place(table)}>")
        try:
            sent = await delivery.deliver(self._at(channel_id, table).send, panel, "g", table.id, new=True)
        except discord.HTTPException as err:
            log.warning("game %d: could not post its summary in %s (%s)", table.id, channel_id, err)
            return
        await self.tables.save_meta(table, summary=(channel_id, sent.id))

    async def _refresh_summary(self, table: Table) -> None:
        """Keep the channel's summary of a game played in a thread current; post it again if deleted."""
        if table.meta.summary is None:
            return
        channel_id, message_id = table.meta.summary
        async with self.languages.channel(table.guild_id):
            panel = table.adapter.summary(table, f"<#{self._place(table)}>")
        try:
            message = self._at(channel_id, table).get_partial_message(message_id)
            await delivery.deliver(message.edit, panel, "g", table.id)
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
                await self.bot.http.edit_channel(thread_id, archived=False)
                return True
            except discord.HTTPException as refused:
                err = refused
        elif err.code != THREAD_ARCHIVED and not isinstance(err, discord.NotFound | discord.Forbidden):
            return False  # a passing fault: the thread is still the game's home
        log.warning(
            "game %d: its thread %s is unusable (%s); playing on in the channel", table.id, thread_id, err
        )
        await self.tables.save_meta(table, thread_id=None, board_id=None)
        async with self.languages.channel(table.guild_id):
            await self._call_players(table, t("tavern.thread-gone", game=table.adapter.title))
        return True

    async def _call_players(self, table: Table, text: str) -> None:
        """Tell the table something that changes where or whether it plays, pinging its people, and bring
        the channel's summary up to date."""
        players = " ".join(table.mention(s) for s in table.humans)
        await self._post(table, Panel(content=f"{text} {players}"))
        await self._refresh_summary(table)

    async def _post(self, table: Table, panel: Panel) -> discord.Message | None:
        """Post where the table lives; None (logged) if Discord refuses: one lost post never stops a game.
        It pings the table's people that it calls by mention (a turn, a nudge, a claim, a notice), nobody
        else: a name is never a mention (``bot.base.safe``)."""
        called = tuple(u for u in table.user_ids if not is_bot(u) and _mention(u) in panel.content)
        panel = replace(panel, pings=called)
        for attempt in range(3):
            place = self._place(table)
            try:
                return await delivery.deliver(self._at(place, table).send, panel, "g", table.id, new=True)
            except discord.HTTPException as err:
                if place == table.meta.thread_id and await self._thread_failed(table, err, again=attempt > 0):
                    continue
                log.warning("game %d: could not post in %s (%s)", table.id, place, err)
                return None
        return None

    async def _refresh_board(self, table: Table) -> int | None:
        """Edit the board message; post it again if it was deleted (or never went out). Returns the id of a
        newly posted board."""
        async with self.languages.channel(table.guild_id):
            board = table.adapter.board(table)
        for attempt in range(3):
            board_id, place = table.meta.board_id, self._place(table)
            if board_id is None:
                break
            try:
                message = self._at(place, table).get_partial_message(board_id)
                await delivery.deliver(message.edit, board, "g", table.id)
                return None
            except discord.HTTPException as err:
                if err.code == UNKNOWN_MESSAGE:
                    break  # deleted: post a new one, which becomes the kept one
                if place == table.meta.thread_id and await self._thread_failed(table, err, again=attempt > 0):
                    continue
                log.warning("game %d: could not update the board (%s)", table.id, err)
                return None
        sent = await self._post(table, board)
        return sent.id if sent is not None else None

    # ================================================================ private panels

    async def _show_panel(
        self, table: Table, seat: int, panel: Panel, *, notify: bool = False, retire: bool = True
    ) -> None:
        """Keep the seat's one live private panel current, in place: through the seat's latest press on it
        while that interaction lasts (no global REST request), else by editing the DM. A new DM (which
        notifies) goes only where no panel can be edited, or with ``notify``; the old panel then loses its
        controls (unless ``retire`` is False: the click's own answer already did). Where DMs are closed,
        the newest Show my hand panel is edited instead, while its interaction lasts."""
        if table.is_bot(seat):
            return
        if seat in table.meta.dm_closed or not (await self.server_settings.get(table.guild_id)).dms:
            await self._through_held(table, seat, panel)
            return
        where = table.meta.panels.get(seat)
        if where is not None and not notify:
            if await self._through_held(table, seat, panel, where[1]):
                return
            try:
                message = self._at(where[0]).get_partial_message(where[1])
                await delivery.deliver(message.edit, panel, "g", table.id)
                return
            except discord.HTTPException as err:
                log.info(
                    "game %d: seat %d's panel could not be edited (%s); sending a new one",
                    table.id,
                    seat,
                    err,
                )
        sent = await self._dm(table, seat, panel)
        if sent is None:
            return
        if where is not None and retire:
            with contextlib.suppress(discord.HTTPException):
                await self._at(where[0]).get_partial_message(where[1]).edit(view=None)
        self._held.pop((table.id, seat), None)  # its message is no longer the live panel
        panels = {**table.meta.panels, seat: (sent.channel.id, sent.id)}
        await self.tables.save_meta(table, panels=panels)

    async def _dm(
        self, table: Table, seat: int, panel: Panel, *, notice: bool = True
    ) -> discord.Message | None:
        """DM a seat; where DMs are closed (or a DM failed just now), the table says how to play instead."""
        if table.is_bot(seat):
            return None
        if seat in table.meta.dm_closed or not (await self.server_settings.get(table.guild_id)).dms:
            return None  # this server plays from the channel: the ping carries a Show my hand button
        result, sent = await delivery.send_dm(self.bot, table.user_ids[seat], panel, table.id)
        if result == "sent" or not notice:
            return sent
        mention = _mention(table.user_ids[seat])
        if result != "failed":  # a passing Discord failure falls back for this move only; DMs are tried later
            await self.tables.save_meta(table, dm_closed=table.meta.dm_closed | {seat})
        async with self.languages.channel(table.guild_id):
            if result == "failed":
                text = t("tavern.dm-failed", player=mention)
            else:
                text = t("tavern.dm-closed", player=mention)
            panel = Panel(content=text, controls=(self._show_button(table, seat),))
        await self._post(table, panel)
        return None

    async def _hold(self, interaction: Interaction, table: Table, seat: int) -> None:
        """A press on the seat's live panel (its DM panel, or an ephemeral one) redrew it: that interaction
        now reaches the panel. An ephemeral panel it takes over from loses its controls."""
        message = interaction.message
        live = table.meta.panels.get(seat)
        if message is None:
            return
        if message.flags.ephemeral:
            self._held[(table.id, seat)] = (interaction, self.clock(), None)
        elif live is not None and live[1] == message.id:
            old = self._held.get((table.id, seat))
            self._held[(table.id, seat)] = (interaction, self.clock(), message.id)
            await self._retire(old)

    async def _retire(self, held: Held | None) -> None:
        """Take the controls off a replaced ephemeral panel while its interaction lasts (best effort); a
        replaced DM panel keeps its message, redrawn through the new press."""
        if held is None or held[2] is not None or self.clock() - held[1] >= EPHEMERAL_LIFE:
            return
        with contextlib.suppress(discord.HTTPException):
            await held[0].edit_original_response(view=None)

    async def _ephemeral_panel(self, interaction: Interaction, table: Table, seat: int, panel: Panel) -> None:
        """A Show my hand panel: the seat's live panel from now on; an ephemeral one it replaces loses its
        controls."""
        old = self._held.pop((table.id, seat), None)
        first = not interaction.response.is_done()
        await delivery.send_ephemeral(interaction, panel, table.id)
        if first:
            self._held[(table.id, seat)] = (interaction, self.clock(), None)
        await self._retire(old)

    async def _through_held(
        self, table: Table, seat: int, panel: Panel, message_id: int | None = None
    ) -> bool:
        """Redraw the seat's live panel through its held interaction: the DM panel ``message_id``, or (None)
        an ephemeral panel. False if there is none, it ran out, or Discord refused."""
        held = self._held.get((table.id, seat))
        if held is None or held[2] != message_id:
            return False
        interaction, since, _ = held
        if self.clock() - since >= EPHEMERAL_LIFE:
            del self._held[(table.id, seat)]
            return False
        try:
            await delivery.deliver(interaction.edit_original_response, panel, "g", table.id)
        except discord.HTTPException as err:
            log.info("game %d: seat %d's held panel is gone (%s)", table.id, seat, err)
            self._held.pop((table.id, seat), None)
            return False
        return True

    # ================================================================ the timer

    def start_timer(self) -> None:
        if self._timer is None:
            self._timer = asyncio.create_task(self._timer_loop(), name="tavern-timers")

    async def stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._timer
            self._timer = None

    def _tick(self) -> float:
        s = self.settings
        spans = [
            m * 60 for m in (s.challenge_minutes, s.lobby_minutes, s.nudge_minutes, s.claim_minutes) if m > 0
        ]
        return max(0.05, min(30.0, min(spans) / 4)) if spans else 30.0

    async def _timer_loop(self) -> None:
        await self.bot.wait_until_ready()
        while True:
            try:
                await self.run_timers()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the timer pass failed")
            await asyncio.sleep(self._tick())

    async def run_timers(self) -> None:
        """One pass: close overdue lobbies, nudge the player to move once per turn, offer claims — for the
        guilds on this process's shards only, so each timer fires once however many processes run."""
        owns = self.settings.owns
        async with self._timer_lock:
            if not self._endings_told:  # once: games whose end a stopped process committed but never told
                self._endings_told = True
                for game_id in await self.tables.untold_endings(self.settings.shards):
                    try:
                        await self._retell(game_id)
                    except Exception:
                        log.exception("game %d: its end could not be told", game_id)
            for lobby in await self.lobbies.expire_due(owns):
                await self._edit_lobby_message(lobby)
            for table in self.tables.active_tables():
                if owns(table.guild_id):
                    self.wake_bots(table)
                    if self._owes(table):  # committed, never told (a restart): the first pass tells it
                        await self._retell(table.id)
                    await self._check_idle(table)

    async def _retell(self, game_id: int) -> None:
        """Tell what the store says the table owes: taking the table (``_table``) does it."""
        async with self._table(game_id):
            pass

    async def _edit_lobby_message(self, lobby: Lobby) -> None:
        if lobby.message_id is None:
            return
        async with self.languages.channel(lobby.guild_id):
            panel = _lobby_panel(self.tables.adapter(lobby.game), lobby)
        try:
            channel = self.bot.get_channel(lobby.channel_id) or await self.bot.fetch_channel(lobby.channel_id)
            message = channel.get_partial_message(lobby.message_id)  # type: ignore[union-attr]
            await delivery.deliver(message.edit, panel, "l", lobby.id)
        except (discord.HTTPException, AttributeError) as err:
            log.warning("could not mark lobby %d %s: %s", lobby.id, lobby.status, err)

    async def _check_idle(self, table: Table) -> None:
        config = await self.server_settings.get(table.guild_id)
        nudge, claim = config.nudge_minutes * 60, config.claim_minutes * 60
        due = [t for t in (nudge, claim) if t]
        idle_for = self.clock() - table.last_action_at
        waiting = table.people_waited_for()  # a bot is woken, not nudged
        if table.status != "active" or not waiting or not due or idle_for < min(due):
            return  # nothing to say yet: no lock, no database read, no channel lookup
        async with self._table(table.id) as table, self.languages.channel(table.guild_id):
            # As stored: someone may have moved since the look above, here or through another process.
            idle_for = self.clock() - table.last_action_at
            waiting = table.people_waited_for()
            if table.status != "active" or not waiting or idle_for < min(due):
                return
            adapter = table.adapter
            minutes = int(idle_for // 60)
            if claim and idle_for >= claim and len(waiting) == 1 and table.meta.claim_offered != table.seq:
                text, label = adapter.claim_offer(table, waiting[0], minutes)
                claim_button = Button(
                    label, "claim", token=str(table.seq), arg=str(waiting[0]), style="danger"
                )
                await self._post(table, Panel(content=text, controls=(claim_button, adapter.hand_button())))
                await self.tables.save_meta(table, claim_offered=table.seq, nudged=table.seq)
            elif nudge and idle_for >= nudge and table.meta.nudged != table.seq:
                who = " ".join(_mention(table.user_ids[s]) for s in waiting)
                what = adapter.waiting_text(table)
                text = t("tavern.nudge", players=who, minutes=minutes, what=what)
                await self._post(table, Panel(content=text, controls=(adapter.hand_button(),)))
                await self.tables.save_meta(table, nudged=table.seq)

    # ================================================================ computer players

    def wake_bots(self, table: Table) -> None:
        """Start the table's computer players if one of them has to act (and none is already moving), or
        make a person's forced move (the one possible answer) for them."""
        adapter = table.adapter
        if table.id not in self._bots and (adapter.bot_seat(table) is not None or adapter.forced(table)):
            self._bots[table.id] = asyncio.create_task(self._bot_turns(table.id), name=f"bots-{table.id}")

    async def bots_idle(self) -> None:
        """Wait until no computer player is moving (tests, and a clean shutdown)."""
        while self._bots:
            await asyncio.gather(*list(self._bots.values()), return_exceptions=True)

    async def stop_bots(self) -> None:
        tasks = list(self._bots.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._bots.clear()

    async def _bot_turns(self, table_id: int) -> None:
        """Move for the table's bots (and make people's forced moves), one action at a time through the same
        path as a click, until a person is waited for. A bot's decision runs in a worker thread so the event
        loop never waits on it."""
        mover: int | None = None
        try:
            table = await self.tables.get(table_id)
            while True:
                peek = table.adapter.bot_seat(
                    table
                )  # the table in hand: a finished game is never reloaded from the log
                if self.settings.bot_delay and peek is not None and peek != mover:
                    await asyncio.sleep(self.settings.bot_delay)  # a new turn: a natural pause first
                if peek is None and table.status != "active":
                    del self._bots[table_id]
                    return
                async with self._table(table_id) as table:
                    seat = table.adapter.bot_seat(table)
                    forced = table.adapter.forced(table) if seat is None else None
                    if seat is None and forced is None:
                        del self._bots[table_id]  # under the lock: the next move wakes a new task
                        return
                    if forced is not None:
                        seat, action = forced
                    else:
                        assert seat is not None
                        mover = seat
                        rng = random.Random(f"{table.seed}:{table.seq}:{seat}")
                        level = level_of(table.user_ids[seat])
                        action = await asyncio.to_thread(table.adapter.bot_action, table, seat, rng, level)
                    told = table.meta.told(table.seq)
                    events = await self._apply(table, seat, action)
                    await self.publish(table, events, told_before=told)
        except asyncio.CancelledError:
            self._bots.pop(table_id, None)
            raise
        except Exception:
            self._bots.pop(table_id, None)
            log.exception(
                "game %d: the computer player failed to move (the next timer pass tries again)", table_id
            )
