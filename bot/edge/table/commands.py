"""The table commands and the lobby's presses: opening a lobby or a practice game, the table commands
(Show my hand, resign, the board again), an admin ending a game, a lobby's buttons and Rematch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot import ai
from bot.base import safe
from bot.base.i18n import t
from bot.base.panel import Button, Panel
from bot.base.refusals import UserFacingError
from bot.edge import delivery
from bot.edge.errors import permissions
from bot.edge.table.host import Host, Interaction, by_interaction, lobby_panel, player, scope_of
from bot.edge.table.panels import PrivatePanels
from bot.edge.table.places import Places
from bot.edge.table.presses import Presses
from bot.edge.table.publisher import Publisher
from bot.games import INTERACTIONS, Click, NotSeated, Table
from bot.games.seats import TABLE_ACCENT, is_bot, is_forgotten, level_of
from bot.render import levels
from bot.services.cooldowns import Limits
from bot.services.lobbies import Player

if TYPE_CHECKING:
    from bot.store import Lobby

NEEDED_PERMISSIONS = ("view_channel", "send_messages", "embed_links")


class Commands:
    """What the slash commands and the lobby's buttons ask of the tables."""

    def __init__(
        self,
        host: Host,
        limits: Limits,
        places: Places,
        panels: PrivatePanels,
        publisher: Publisher,
        presses: Presses,
    ) -> None:
        self.host = host
        self.limits = limits
        self.places = places
        self.panels = panels
        self.publisher = publisher
        self.presses = presses

    @staticmethod
    def refuse_permissions(interaction: Interaction) -> None:
        """Refuse to open a table where the bot lacks what it needs to host it (not where it lives by
        interactions: it posts nothing there)."""
        if by_interaction(interaction):
            return
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
        invited: Player | None = None,
        members: Sequence[Player] = (),
    ) -> None:
        """``/<game> challenge`` or ``/<game> create``, a right-click challenge, and Rematch: the lobby is the
        interaction's answer. Where the bot is not in the channel (a user install), the lobby and its table
        are in the users' scope and live by interactions."""
        if interaction.channel_id is None:
            raise UserFacingError("tavern.error.server-only")
        if invited is not None and self.host.user is not None and invited.id == self.host.user.id:
            await self.practice(interaction, game, ai.DEFAULT_LEVEL, options)  # challenging the bot itself
            return
        if interaction.context.dm_channel:  # the bot's own DM: no one else can see it, or join
            raise UserFacingError("tavern.error.not-in-bot-dm")
        scope = scope_of(interaction)
        self.refuse_permissions(interaction)
        lobbies = self.host.lobbies
        with self.limits.openings.reserve(interaction.user.id):  # given back if nothing opens
            adapter = self.host.tables.adapter(game)
            options = await self._usual_target(scope, adapter, options)
            lobby = await lobbies.open(
                adapter,
                scope,
                interaction.channel_id,
                player(interaction.user),
                invited=invited,
                members=members,
                options=options,
            )
            try:
                async with self.host.languages.channel(scope):
                    panel = lobby_panel(adapter, lobby)
                response = await delivery.deliver(
                    interaction.response.send_message, panel, "l", lobby.id, new=True
                )
            except BaseException:
                await lobbies.posted(lobby.id, None)
                raise
            await lobbies.posted(lobby.id, response.message_id)

    async def _usual_target(self, guild_id: int, adapter: Any, options: dict[str, Any]) -> dict[str, Any]:
        """The server's usual target where the command left it out."""
        if adapter.targets is not None and options.get("target") is None:
            config = await self.host.server_settings.get(guild_id)
            options = {**options, "target": config.targets.get(adapter.name, adapter.targets[1])}
        return options

    async def practice(
        self, interaction: Interaction, game: str, level: str, options: dict[str, Any]
    ) -> None:
        """A game against the bot, at once: no challenge to answer. It is recorded but never rated."""
        if interaction.channel_id is None:
            raise UserFacingError("tavern.error.server-only")
        chosen = levels.level(level)
        scope = scope_of(interaction)
        self.refuse_permissions(interaction)
        with self.limits.openings.reserve(interaction.user.id):  # given back if no table starts
            adapter = self.host.tables.adapter(game)
            options = await self._usual_target(scope, adapter, options)
            table, _ = await self.host.lobbies.practice(
                adapter,
                scope,
                interaction.channel_id,
                player(interaction.user),
                chosen,
                options,
            )  # a refusal (a busy channel, a player seated elsewhere) is still this command's private answer
            self.publisher.telling_now(table)  # the opening is told just below
        response = await interaction.response.defer()
        async with self.host.tables.locked(table.id) as table, self.host.languages.channel(table.guild_id):
            text = t(
                "tavern.practice.opening",
                player=table.mention(0),
                game=adapter.title,
                bot=table.names[1],
                options=adapter.options_text(table.options),
            )
            starter = response.message_id if response is not None else None
            await self._opened(interaction, table, starter, Panel(content=text))

    async def _opened(
        self, interaction: Interaction, table: Table, starter: int | None, started: Panel
    ) -> None:
        """A new table (its lock held): its home opened, the opening message answered, everyone told — as
        the table's turn of the global budget begins (``Publisher.turn``). Opened where the bot is not in
        the channel, the table lives by interactions from its first word."""
        if by_interaction(interaction):
            await self.host.tables.save_meta(table, home=INTERACTIONS)
        with self.publisher.turn(table):
            answer = await self.places.opening(interaction, table, starter, started)
            shown = table.meta.board_id is not None and not table.meta.by_interaction
            await self.presses.saved(interaction, table, table.pending, -1, answer, board_shown=shown)

    async def my_table(self, interaction: Interaction, game: str) -> tuple[Table, int]:
        """The caller's table of this game here, else elsewhere in this server (a channel that was deleted
        or that they, or the bot, can no longer reach must not leave them stuck), as stored: a copy another
        process has written since is read again."""
        table, seat = await self._my_table(interaction, game)
        return await self.host.tables.get(table.id), seat

    async def _my_table(self, interaction: Interaction, game: str) -> tuple[Table, int]:
        tables = self.host.tables
        here = await tables.table_for_channel(interaction.channel_id or 0)
        if here is not None and here.game == game:
            seat = here.seat_of(interaction.user.id)
            if seat is not None:
                return here, seat
        for mine in await tables.tables_of_user(scope_of(interaction), interaction.user.id):
            seat = mine.seat_of(interaction.user.id)
            if mine.game == game and seat is not None:
                return mine, seat
        if here is None or here.game != game:
            raise UserFacingError("tavern.no-game-here", game=tables.adapter(game).title)
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
        panel = table.adapter.private_panel(table, seat, note)
        await self.panels.ephemeral(interaction, table, seat, panel)

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
        with self.limits.boards.reserve(interaction.user.id):
            await self._repost_board(interaction, game)

    async def _repost_board(self, interaction: Interaction, game: str) -> None:
        tables = self.host.tables
        table = await tables.table_for_channel(interaction.channel_id or 0)
        if table is None or table.game != game:
            raise UserFacingError("tavern.no-game-here", game=tables.adapter(game).title)
        table = await tables.get(table.id)  # as stored, if another process moved since
        place = self.places.home(table)
        if interaction.channel_id != place:  # the game plays in its thread: the board kept current is there
            board = (
                table.adapter.board(table)
                .with_note(t("tavern.board-in-thread", channel=place))
                .laid_out(TABLE_ACCENT)
            )
            await delivery.send_ephemeral(interaction, board, table.id)
            return
        board = await self.places.board(table)  # in the channel's language, with the browser's link
        response = await delivery.deliver(interaction.response.send_message, board, "g", table.id, new=True)
        if table.meta.by_interaction:  # this answer is the board now, edited through this interaction
            self.places.answering.opened(table, interaction)
        elif response.message_id is not None:
            async with tables.locked(table.id) as table:
                await tables.save_meta(table, board_id=response.message_id)

    async def end_here(self, interaction: Interaction) -> None:
        """``/tavern-admin end``: an admin closes this channel's game (abandoned: no result, no rating change,
        the players told) or its open lobby."""
        perms = interaction.permissions
        if interaction.guild_id is None or interaction.channel_id is None:
            raise UserFacingError("tavern.error.server-only")
        if not (perms.manage_guild or perms.manage_channels):
            raise UserFacingError("tavern.end.admins-only")
        self.limits.admin.take(
            interaction.user.id
        )  # counted when there is nothing to end too: that asks the store
        admin = safe.name(interaction.user.display_name, interaction.user.name)
        reason = (
            "ended by an admin"  # i18n: not text (stored with the game; never a name: names are forgotten)
        )
        tables = self.host.tables
        table = await tables.table_for_channel(interaction.channel_id)
        if table is not None:
            async with tables.locked(table.id) as table:
                if table.status == "active":
                    await interaction.response.defer(ephemeral=True)
                    await tables.abandon(table, reason)
                    async with self.host.languages.channel(table.guild_id):
                        ended = t("tavern.end.ended-by", admin=admin, game=table.adapter.title)
                        await self.places.call_players(table, ended)
                    await interaction.followup.send(t("tavern.end.done"), ephemeral=True)
                    return
        closed = await self.host.lobbies.cancel_in(interaction.channel_id)
        if closed:
            await interaction.response.send_message(t("tavern.end.lobby-closed"), ephemeral=True)
            for lobby in closed:
                await self.places.edit_lobby(lobby)
            return
        if await tables.abandon_unplayable(interaction.channel_id, reason):
            await interaction.response.send_message(t("tavern.end.unplayable-closed"), ephemeral=True)
            return
        raise UserFacingError("tavern.end.nothing-here")

    # ---------------------------------------------------------------- presses that open tables

    async def rematch(self, interaction: Interaction, table: Table) -> None:
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise NotSeated()
        if table.status == "active":
            raise UserFacingError("tavern.rematch.still-going")
        adapter = table.adapter
        # a forgotten member's seat (its pseudonym answers to nobody) is not offered the rematch
        seats = [s for s in adapter.rematch_seats(table) if s != seat and not is_forgotten(table.user_ids[s])]
        options = table.options.to_dict()
        if adapter.challenge and len(table.seats) == 2:
            other = table.user_ids[seats[0]] if seats else table.user_ids[1 - seat]
            if is_forgotten(other):
                raise UserFacingError("tavern.rematch.forgotten")
            if is_bot(other):
                await self.practice(interaction, adapter.name, level_of(other), options)
                return
            # The opponent as the table knows them: no lookup of the global budget before the answer is due.
            invited = Player(other, table.names[table.user_ids.index(other)])
            await self.open_lobby(interaction, adapter.name, options, invited=invited)
        else:
            members = [Player(table.user_ids[s], table.names[s], is_bot(table.user_ids[s])) for s in seats]
            await self.open_lobby(interaction, adapter.name, options, members=members)

    async def _board_again(self, interaction: Interaction, lobby: Lobby, *, deferred: bool) -> None:
        """A player's press on their started lobby's message draws the table's board there, through the
        press's own interaction: a bot stopped between opening the table and drawing its board left the
        message showing the lobby, and this heals it at once instead of after the restart's retelling. The
        message becomes the board if the table has none yet (what the opening would have made of it). Anyone
        else's press (a late Join) is only told: the board is not theirs to redraw."""
        message = interaction.message
        if lobby.game_id is None or message is None or message.id != lobby.message_id:
            return
        tables = self.host.tables
        async with tables.locked(lobby.game_id) as table:
            if table.seat_of(interaction.user.id) is None or table.meta.by_interaction:
                return
            if table.meta.board_id not in (None, message.id):
                return
            if table.meta.board_id is None:
                await tables.save_meta(table, board_id=message.id)
            board = await self.places.board(table)
        edit = interaction.edit_original_response if deferred else interaction.response.edit_message
        await delivery.deliver(edit, board, "g", table.id, editing=message.id)

    async def lobby_press(self, interaction: Interaction, click: Click) -> None:
        """A refusal is the click's own (ephemeral) answer; anything else updates the lobby message through
        the interaction. A click that opens a table is acknowledged first: that takes a moment."""
        lobbies = self.host.lobbies
        user = player(interaction.user)
        arg = click.values[0] if click.values else ""
        lobbies.refuse(await lobbies.get(click.key), user, click.verb, arg)
        starts = click.verb in lobbies.STARTS
        if starts:
            await interaction.response.defer()
        outcome = await lobbies.click(click.key, user, click.verb, arg)
        adapter = self.host.tables.adapter(outcome.lobby.game)
        async with self.host.languages.channel(outcome.lobby.guild_id):  # the lobby message is the channel's
            answer = lobby_panel(adapter, outcome.lobby)
        if outcome.started is not None:
            table, _ = outcome.started
            self.publisher.telling_now(table)  # the opening is told just below
            async with (
                self.host.tables.locked(table.id) as table,
                self.host.languages.channel(table.guild_id),
            ):
                started = lobby_panel(adapter, outcome.lobby)
                await self._opened(interaction, table, outcome.lobby.message_id, started)
            return
        if outcome.lobby.status == "started":  # another press opened the table: its message is the board now
            await self._board_again(interaction, outcome.lobby, deferred=starts)
            if interaction.response.is_done():
                await interaction.followup.send(outcome.notice, ephemeral=True)
            else:
                await interaction.response.send_message(outcome.notice, ephemeral=True)
            return
        if starts:
            await delivery.deliver(interaction.edit_original_response, answer, "l", outcome.lobby.id)
        else:
            await delivery.deliver(interaction.response.edit_message, answer, "l", outcome.lobby.id)
        if outcome.notice:
            await interaction.followup.send(outcome.notice, ephemeral=True)
