"""``/deluxe``: Bharg Deluxe for 2–6 players — the lobby, the private turn panels, the channel's table.

Where the issue leaves room, this cog decides:
- The lobby: the host joins on create and cannot leave (they Cancel instead); 2–6 seats; Start/Cancel are the
  host's; it expires after ``settings.lobby_minutes`` (background loop, and checked at every click).
- One table or open lobby (of any game) per channel, so nobody can sit at two tables in one channel.
- A turn is played in the player's DM: a new message each time their turn starts (so Discord notifies them);
  "Show my hand" (and ``/deluxe hand``) gives the same controls as a fresh ephemeral panel (closed DMs).
- Binding: pick cards in the menus (one menu per 25 cards of the sorted hand); the panel says what they make
  (or why not); "Bind picked cards" binds, "Suggest melds" lists what binds now with one-click bind buttons.
  Discarding: pick exactly one card and press "Discard …".
- The channel: one table message kept current (its id in the table's meta; ``/deluxe table`` re-posts it) and
  one ping per turn carrying the public events since the previous ping; a score sheet after each hand.
- Idle players: after ``nudge_minutes`` the player to move is pinged once per turn; after ``claim_minutes``
  the others get a "Remove …" button, which makes the idle seat leave (the engine's Leave: its hand is still
  scored, the game goes on while two players remain).
- Rematch: any player of the finished game may press it; it opens a new lobby, hosted by whoever pressed it,
  with every player who did not leave already seated (anyone can still Leave it before the start).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import SERVER_ONLY, UserFacingError
from bot.render import deluxe as R
from bot.rules import deluxe as D
from bot.store import Lobby
from bot.tables import NotSeated, StaleAction, Table
from cogs import deluxe_views as V
from cogs import ui

if TYPE_CHECKING:
    from bot.app import TavernBot

log = logging.getLogger("tavern.deluxe")

GAME = "deluxe"
MESSAGE_LIMIT = 1900

FAST_START_CHOICES = [app_commands.Choice(name=R.FAST_START_NAMES[k][:100], value=k) for k in range(4)]


def _need_guild(interaction: discord.Interaction[Any]) -> tuple[int, int]:
    if interaction.guild_id is None or interaction.channel_id is None:
        raise UserFacingError(SERVER_ONLY)
    return interaction.guild_id, interaction.channel_id


def _clip(lines: Sequence[str], limit: int = MESSAGE_LIMIT) -> str:
    """Join lines, dropping the oldest when the message would be too long for Discord."""
    out = list(lines)
    while out and len("\n".join(out)) > limit:
        out.pop(0)
    return "\n".join(out)


class Deluxe(commands.Cog):
    """Bharg Deluxe tables: commands, the component handlers, and the lobby/idle timers."""

    deluxe = app_commands.Group(name="deluxe", description="Bharg Deluxe, 2–6 players", guild_only=True)

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot
        self.seed_source: Callable[[], int | None] = lambda: None  # tests pin seeds here
        self._locks = ui.KeyedLocks()
        self._lobby_locks = ui.KeyedLocks()
        self._loop_task: asyncio.Task[None] | None = None
        registry = ui.handlers(bot)
        registry.tables[GAME] = self.on_table_click
        registry.lobbies[GAME] = self.on_lobby_click

    async def cog_load(self) -> None:
        self._loop_task = asyncio.create_task(self._timers(), name="deluxe-timers")

    async def cog_unload(self) -> None:
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task

    def _lock(self, game_id: int) -> AbstractAsyncContextManager[None]:
        return self._locks(game_id)

    def _lobby_lock(self, lobby_id: int) -> AbstractAsyncContextManager[None]:
        """Lobby clicks are read-modify-write of the member list: two Joins at once must both count."""
        return self._lobby_locks(lobby_id)

    def _channel_lock(self, channel_id: int) -> AbstractAsyncContextManager[None]:
        """Checking a channel is free and opening a lobby there happen as one step."""
        return ui.channel_lock(self.bot, channel_id)

    # ------------------------------------------------------------------------------------ commands

    @deluxe.command(name="create", description="Open a Bharg Deluxe table in this channel (2–6 players)")
    @app_commands.describe(
        target="Score to reach: 100 is the usual game, 50 a quick one",
        pawns="Add the Pawns (both copies)",
        courts="Add the Courts (both copies)",
        fast_start="An optional fast start rule",
    )
    @app_commands.choices(fast_start=FAST_START_CHOICES)
    async def create(
        self,
        interaction: discord.Interaction[Any],
        target: app_commands.Range[int, 10, 1000] = 100,
        pawns: bool = False,
        courts: bool = False,
        fast_start: int = 0,
    ) -> None:
        guild_id, channel_id = _need_guild(interaction)
        options = D.Options(target=target, pawns=pawns, courts=courts, fast_start=fast_start)
        user = interaction.user
        async with self._channel_lock(channel_id):
            await self._check_channel_free(channel_id)
            lobby = await self._open_lobby(
                guild_id, channel_id, user.id, {str(user.id): user.display_name}, [user.id], options
            )
        await ui.answer_with_lobby(
            interaction, self.bot.store, lobby.id, **V.lobby_kwargs(lobby, lobby.options["names"])
        )

    @deluxe.command(name="hand", description="Your Bharg Deluxe hand and controls, privately")
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        _, channel_id = _need_guild(interaction)
        table = self._table_here(channel_id)
        await self._show_hand(interaction, table)

    @deluxe.command(
        name="table", description="Post the Bharg Deluxe table again (at the bottom of the channel)"
    )
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        _, channel_id = _need_guild(interaction)
        table = self._table_here(channel_id)
        response = await interaction.response.send_message(**V.board_kwargs(table))
        if response.message_id is not None:
            await self.bot.store.set_meta(table.id, board_id=response.message_id)

    @deluxe.command(name="leave", description="Leave the Bharg Deluxe game in this channel")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        _, channel_id = _need_guild(interaction)
        table = self._table_here(channel_id)
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise NotSeated()
        if table.state.left[seat]:
            raise UserFacingError("You have already left this game.")
        view = ui.view_of(
            ui.button("Leave the game", "g", table.id, "leave", style=discord.ButtonStyle.danger)
        )
        await interaction.response.send_message(
            "Leave this game? Your hand is still scored at the end of this hand, then you get no more hands. "
            "The game goes on while two players remain.",
            view=view,
            ephemeral=True,
        )

    @deluxe.command(name="rules", description="How Bharg Deluxe is played here")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        embed = discord.Embed(title="Bharg Deluxe", description=R.rules_text(), colour=V.COLOUR)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    # ------------------------------------------------------------------------------------ lobby

    async def _check_channel_free(self, channel_id: int) -> None:
        if self.bot.tables.table_for_channel(channel_id) is not None:
            raise UserFacingError(
                "There is already a game in this channel. Finish it or use another channel."
            )
        await self._expire_due(channel_id)
        now = time.time()
        for lobby in await self.bot.store.open_lobbies(channel_id=channel_id):
            if lobby.expires_at is None or lobby.expires_at > now:  # (another game's may be overdue)
                raise UserFacingError("There is already an open table or challenge in this channel.")

    async def _open_lobby(
        self,
        guild_id: int,
        channel_id: int,
        host_id: int,
        names: dict[str, str],
        members: Sequence[int],
        options: D.Options,
    ) -> Lobby:
        now = time.time()
        return await self.bot.store.create_lobby(
            GAME,
            guild_id,
            channel_id,
            host_id,
            created_at=now,
            expires_at=now + self.bot.settings.lobby_minutes * 60,
            options={"game": options.to_dict(), "names": names},
            members=list(members),
        )

    async def on_lobby_click(
        self, interaction: discord.Interaction[Any], click: ui.Click, lobby: Lobby
    ) -> None:
        async with self._lobby_lock(lobby.id):
            lobby = await self.bot.store.get_lobby(lobby.id) or lobby  # as the previous click left it
            started = await self._lobby_click(interaction, click, lobby)
        if started is not None:
            table, events = started
            async with self._lock(table.id):
                await self.bot.store.set_meta(table.id, log=[])
                await self._update_board(table, await self._channel(table))
                await self._announce(table, events, deal_dms=True)

    async def _lobby_click(
        self, interaction: discord.Interaction[Any], click: ui.Click, lobby: Lobby
    ) -> tuple[Table, list[D.Event]] | None:
        """One lobby click under the lobby's lock; a Start returns the new table and its opening events."""
        user = interaction.user
        if lobby.status == "open" and lobby.expires_at is not None and lobby.expires_at <= time.time():
            lobby = await self.bot.store.update_lobby(lobby.id, status="expired")
        names: dict[str, str] = dict(lobby.options.get("names", {}))
        if lobby.status != "open":
            what = {"started": "has already started", "expired": "has expired", "cancelled": "was cancelled"}
            await interaction.response.edit_message(**V.lobby_kwargs(lobby, names))
            await interaction.followup.send(
                f"This table {what.get(lobby.status, 'is closed')}.", ephemeral=True
            )
            return None
        members = list(lobby.members)
        verb = click.verb
        if verb == "join":
            if user.id in members:
                raise UserFacingError("You are already at this table.")
            if len(members) >= D.MAX_PLAYERS:
                raise UserFacingError("This table is full (6 players).")
            members.append(user.id)
            names[str(user.id)] = user.display_name
            options = {**lobby.options, "names": names}
            lobby = await self.bot.store.update_lobby(lobby.id, members=members, options=options)
        elif verb == "leave":
            if user.id not in members:
                raise UserFacingError("You are not at this table.")
            if user.id == lobby.host_id:
                raise UserFacingError("You are the host: press Cancel to close the table.")
            members.remove(user.id)
            lobby = await self.bot.store.update_lobby(lobby.id, members=members)
        elif verb in ("start", "cancel"):
            if user.id != lobby.host_id:
                raise UserFacingError(f"Only the host can {verb} this table.")
            if verb == "cancel":
                lobby = await self.bot.store.update_lobby(lobby.id, status="cancelled")
            else:
                return await self._start(interaction, lobby, names)
        else:
            raise UserFacingError(ui.NO_LONGER)
        await interaction.response.edit_message(**V.lobby_kwargs(lobby, names))
        return None

    async def _start(
        self, interaction: discord.Interaction[Any], lobby: Lobby, names: dict[str, str]
    ) -> tuple[Table, list[D.Event]]:
        if len(lobby.members) < D.MIN_PLAYERS:
            raise UserFacingError("Bharg Deluxe needs at least 2 players: wait for someone to join.")
        players = [(uid, names.get(str(uid), str(uid))) for uid in lobby.members]
        options = D.Options.from_dict(lobby.options.get("game", {}))
        table, events = await self.bot.tables.create(
            GAME, lobby.guild_id, lobby.channel_id, players, options, seed=self.seed_source()
        )
        lobby = await self.bot.store.update_lobby(lobby.id, status="started", game_id=table.id)
        await interaction.response.edit_message(**V.lobby_kwargs(lobby, names))
        return table, list(events)

    async def _expire_due(self, channel_id: int | None = None) -> None:
        """Close overdue Deluxe lobbies: every channel's (the timer) or one channel's (before opening)."""
        now = time.time()
        for lobby in await self.bot.store.open_lobbies(channel_id=channel_id):
            if lobby.kind != GAME or lobby.expires_at is None or lobby.expires_at > now:
                continue
            # Under the lobby's lock (taken after the channel's, never before): a Start clicked at the
            # same moment either wins and the lobby is no longer open here, or finds it expired.
            async with self._lobby_lock(lobby.id):
                current = await self.bot.store.get_lobby(lobby.id)
                if current is None or current.status != "open":
                    continue
                lobby = await self.bot.store.update_lobby(lobby.id, status="expired")
            if lobby.message_id is not None:
                channel = self.bot.get_channel(lobby.channel_id)
                if isinstance(channel, discord.TextChannel | discord.Thread):
                    with contextlib.suppress(discord.HTTPException):
                        message = channel.get_partial_message(lobby.message_id)
                        await message.edit(**V.lobby_kwargs(lobby, dict(lobby.options.get("names", {}))))

    # ------------------------------------------------------------------------------------ table clicks

    def _table_here(self, channel_id: int) -> Table:
        table = self.bot.tables.table_for_channel(channel_id)
        if table is None or table.game != GAME:
            raise UserFacingError(
                "There is no Bharg Deluxe game in this channel. Start one with /deluxe create."
            )
        return table

    async def _show_hand(self, interaction: discord.Interaction[Any], table: Table) -> None:
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise NotSeated()
        await ui.send_ephemeral_panel(interaction, V.turn_panel(table, seat))

    async def on_table_click(
        self, interaction: discord.Interaction[Any], click: ui.Click, table: Table
    ) -> None:
        verb = click.verb
        if verb == "rematch":
            await self._rematch(interaction, table)
            return
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise NotSeated()
        if verb == "hand":
            if table.status != "active":
                raise UserFacingError("This game has already ended.")
            await self._show_hand(interaction, table)
            return
        if verb == "leave":
            await self._act(interaction, table, seat, D.Leave(seat), None, by_other=True)
            return
        if verb == "claim":
            await self._claim(interaction, table, seat, click)
            return
        if table.status != "active":
            raise UserFacingError("This game has already ended.")
        token = int(click.token) if click.token.isdigit() else -1
        if token != table.seq:
            raise StaleAction()
        state: D.State = table.state
        hand = D.view(state, seat).hand
        if state.turn != seat or state.left[seat]:
            raise UserFacingError("It's not your turn.")
        if verb == "pick":
            chunk, _, old = click.arg.partition(".")
            mask = V.parse_mask(old)
            k = int(chunk) if chunk.isdigit() else 0
            for i in range(k * V.CHUNK, (k + 1) * V.CHUNK):
                mask &= ~(1 << i)
            for value in click.values:
                if value.isdigit() and int(value) < len(hand):
                    mask |= 1 << int(value)
            await interaction.response.edit_message(**V.turn_panel(table, seat, mask=mask).kwargs())
        elif verb == "clr":
            await interaction.response.edit_message(**V.turn_panel(table, seat).kwargs())
        elif verb == "sug":
            await interaction.response.edit_message(**V.turn_panel(table, seat, suggest=True).kwargs())
        elif verb == "draw":
            await self._act(interaction, table, seat, D.Draw(seat), token)
        elif verb == "take":
            n = int(click.values[0]) if click.values and click.values[0].isdigit() else 0
            await self._act(interaction, table, seat, D.TakeQueue(seat, n), token)
        elif verb == "bind":
            cards = V.chosen(hand, V.parse_mask(click.arg))
            await self._act(interaction, table, seat, D.Bind(seat, tuple(cards)), token)
        elif verb == "disc":
            cards = V.chosen(hand, V.parse_mask(click.arg))
            if len(cards) != 1:
                raise UserFacingError("Pick exactly one card to discard.")
            await self._act(interaction, table, seat, D.Discard(seat, cards[0]), token)
        elif verb == "done":
            await self._act(interaction, table, seat, D.Done(seat), token)
        else:
            raise UserFacingError(ui.NO_LONGER)

    async def _act(
        self,
        interaction: discord.Interaction[Any],
        table: Table,
        seat: int,
        action: D.Action,
        token: int | None,
        *,
        by_other: bool = False,
    ) -> None:
        """Apply one move, update the clicked panel, then tell the channel and the next player.

        The click is acknowledged first (a deferred update), so Discord hears back at once even while the
        previous move is still being announced; the panel is then edited through the interaction's token.
        """
        if not interaction.response.is_done():
            await interaction.response.defer()
        async with self._lock(table.id):
            result = await self.bot.tables.act(table.id, interaction.user.id, action, expected_seq=token)
            lines = R.event_lines(result.events, table.names)
            if by_other:
                await interaction.edit_original_response(content="You left the game.", embeds=[], view=None)
            elif not D.is_over(table.state) and table.state.turn == seat:
                note = ""
                if any(isinstance(e, D.CardDrawn) for e in result.events):
                    drawn = D.view(table.state, seat).drawn
                    note = f"You drew **{R.card_text(drawn)}**." if drawn is not None else ""
                for e in result.events:
                    if isinstance(e, D.AceDrawnToPile):  # D10 option 1: the turn starts over
                        note = (
                            f"You drew **{R.card_text(e.card)}**: it went onto the empty Ace Pile "
                            "(fast start 1). Your turn starts over: draw or take again."
                        )
                await interaction.edit_original_response(**V.turn_panel(table, seat, note=note).kwargs())
            else:
                await interaction.edit_original_response(**V.closed_panel(table, seat, lines).kwargs())
            await self._announce(table, result.events, flush=by_other)

    async def _claim(
        self, interaction: discord.Interaction[Any], table: Table, seat: int, click: ui.Click
    ) -> None:
        idle = int(click.arg) if click.arg.isdigit() else -1
        token = int(click.token) if click.token.isdigit() else -1
        if table.status != "active" or token != table.seq or idle not in table.waiting_for():
            raise UserFacingError("They have moved since: nothing to claim.")
        if idle == seat:
            raise UserFacingError("You can't remove yourself this way; use /deluxe leave.")
        claim = self.bot.settings.claim_after
        if claim is None or time.time() - table.last_action_at < claim.total_seconds():
            raise UserFacingError("Not yet: they have not been idle long enough to be removed.")
        await interaction.response.defer()  # answer Discord now: the table may be busy announcing a move
        async with self._lock(table.id):
            result = await self.bot.tables.act_as_seat(table.id, idle, D.Leave(idle), expected_seq=token)
            await interaction.edit_original_response(
                content=f"{table.names[idle]} was removed for being idle (by {table.names[seat]}).", view=None
            )
            await self._announce(table, result.events, flush=True)

    async def _rematch(self, interaction: discord.Interaction[Any], table: Table) -> None:
        if table.seat_of(interaction.user.id) is None:
            raise NotSeated()
        if table.status == "active":
            raise UserFacingError("This game is still being played.")
        state: D.State = table.state
        host = interaction.user
        members = [host.id] + [
            s.user_id for i, s in enumerate(table.seats) if not state.left[i] and s.user_id != host.id
        ]
        names = {str(s.user_id): s.name for s in table.seats}
        names[str(host.id)] = host.display_name
        async with self._channel_lock(table.channel_id):
            await self._check_channel_free(table.channel_id)
            lobby = await self._open_lobby(
                table.guild_id, table.channel_id, host.id, names, members, table.options
            )
        await ui.answer_with_lobby(interaction, self.bot.store, lobby.id, **V.lobby_kwargs(lobby, names))

    # ------------------------------------------------------------------------------------ announcing

    async def _channel(self, table: Table) -> discord.TextChannel | discord.Thread | None:
        """The game's channel, or None when the bot can no longer see it (deleted, access lost)."""
        try:
            channel = self.bot.get_channel(table.channel_id) or await self.bot.fetch_channel(table.channel_id)
        except discord.HTTPException as err:
            log.warning("Bharg Deluxe table %s: channel %s unreachable (%s)", table.id, table.channel_id, err)
            return None
        return channel if isinstance(channel, discord.TextChannel | discord.Thread) else None

    async def _post(
        self, table: Table, channel: discord.TextChannel | discord.Thread | None, text: str, **kwargs: Any
    ) -> discord.Message | None:
        """Post in the game's channel; None if that failed. The game never waits on the channel: moves are
        already committed, and the players' DMs must still go out (what was not posted goes with the next
        message that can be)."""
        if channel is None:
            return None
        try:
            return await channel.send(text, **kwargs)
        except discord.HTTPException as err:
            log.warning("Bharg Deluxe table %s: could not post in the channel (%s)", table.id, err)
            return None

    async def _update_board(self, table: Table, channel: discord.TextChannel | discord.Thread | None) -> None:
        if channel is None:
            return
        meta = await self.bot.store.get_meta(table.id)
        await ui.refresh_kept_message(
            self.bot, table.id, channel, meta.get("board_id"), **V.board_kwargs(table)
        )

    async def _announce(
        self, table: Table, events: Sequence[D.Event], *, flush: bool = False, deal_dms: bool = False
    ) -> None:
        """Post what happened: score sheets, the result, and one ping for the player whose move it is now."""
        channel = await self._channel(table)
        meta = await self.bot.store.get_meta(table.id)
        pending: list[str] = list(meta.get("log", []))
        names = table.names
        state: D.State = table.state
        turn_event: D.TurnStarted | D.FinalBindOffered | None = None
        dealt = deal_dms
        for e in events:
            if isinstance(e, D.HandScored):
                sheet = R.score_table(e.hand_no, e.rows, names, state.left)
                pending += ["", sheet]
                if await self._post(table, channel, _clip(pending)):
                    pending = []
            elif isinstance(e, D.GameWon):
                pending += R.event_lines([e], names)
                text = _clip([*pending, "", R.final_text(D.final_result(state), names)])
                view = ui.view_of(
                    ui.button("Rematch", "g", table.id, "rematch", style=discord.ButtonStyle.primary)
                )
                await self._post(table, channel, text, view=view)
                pending = []
            elif isinstance(e, D.TurnStarted | D.FinalBindOffered):
                pending += R.event_lines([e], names)
                turn_event = e
            else:
                if isinstance(e, D.HandStarted):
                    dealt = True
                pending += R.event_lines([e], names)
        waiting = table.waiting_for()
        if turn_event is not None and waiting and waiting[0] == turn_event.seat:
            seat = turn_event.seat
            final = isinstance(turn_event, D.FinalBindOffered)
            if dealt:
                await self._deal_dms(table, skip=seat)
            delivery = await ui.deliver_dm(self.bot, table.seats[seat].user_id, V.turn_panel(table, seat))
            head = f"<@{table.seats[seat].user_id}>, " + (
                "you may bind once more before scoring." if final else "your turn!"
            )
            if delivery == "closed":
                head += " (Your DMs are closed: press **Show my hand** for your cards and controls.)"
            elif delivery == "failed":
                head += (
                    " (Discord didn't deliver your DM just now: press **Show my hand** for your cards "
                    "and controls.)"
                )
            else:
                head += " Your controls are in your DMs."
            view = ui.view_of(V.hand_button(table.id))
            if await self._post(table, channel, _clip([*pending, "", head]), view=view):
                pending = []
        elif flush and pending and await self._post(table, channel, _clip(pending)):
            pending = []
        await self._update_board(table, channel)
        await self.bot.store.set_meta(table.id, log=pending[-60:])

    async def _deal_dms(self, table: Table, *, skip: int) -> None:
        """A new hand: every other player gets their cards in DMs (the player to move gets the controls)."""
        state: D.State = table.state
        for seat, s in enumerate(table.seats):
            if seat == skip or state.left[seat]:
                continue
            await ui.deliver_dm(
                self.bot, s.user_id, V.turn_panel(table, seat, note=f"New hand {state.hand_no}.")
            )

    # ------------------------------------------------------------------------------------ timers

    def _tick(self) -> float:
        s = self.bot.settings
        spans = [m * 60 for m in (s.lobby_minutes, s.nudge_minutes, s.claim_minutes) if m > 0]
        return max(0.05, min(30.0, min(spans) / 4)) if spans else 30.0

    async def _timers(self) -> None:
        await self.bot.wait_until_ready()
        while True:
            try:
                await self._expire_due()
                await self._check_idle()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("Bharg Deluxe timer pass failed")
            await asyncio.sleep(self._tick())

    async def _check_idle(self) -> None:
        nudge = self.bot.settings.nudge_after
        claim = self.bot.settings.claim_after
        due = [t.total_seconds() for t in (nudge, claim) if t is not None]
        if not due:
            return
        now = time.time()
        for table in self.bot.tables.active_tables():
            if table.game != GAME or table.status != "active":
                continue
            waiting = table.waiting_for()
            idle_for = now - table.last_action_at
            if not waiting or idle_for < min(due):
                continue  # nothing to say yet: no lock, no database read, no channel lookup
            seat = waiting[0]
            async with self._lock(table.id):
                meta = await self.bot.store.get_meta(table.id)
                channel = await self._channel(table)
                mention = f"<@{table.seats[seat].user_id}>"
                minutes = int(idle_for // 60)
                if (
                    claim is not None
                    and idle_for >= claim.total_seconds()
                    and meta.get("claim_offered") != table.seq
                ):
                    name = table.names[seat]
                    view = ui.view_of(
                        ui.button(
                            f"Remove {name}"[:80],
                            "g",
                            table.id,
                            "claim",
                            token=table.seq,
                            arg=str(seat),
                            style=discord.ButtonStyle.danger,
                        ),
                        V.hand_button(table.id),
                    )
                    await self._post(
                        table,
                        channel,
                        f"{mention} has not moved for {minutes} min. Any other player may remove them: "
                        "they leave the game (their hand is still scored) and play goes on.",
                        view=view,
                    )
                    await self.bot.store.set_meta(table.id, claim_offered=table.seq, nudged=table.seq)
                elif (
                    nudge is not None
                    and idle_for >= nudge.total_seconds()
                    and meta.get("nudged") != table.seq
                ):
                    await self._post(
                        table,
                        channel,
                        f"{mention}, the table is waiting for you (idle {minutes} min).",
                        view=ui.view_of(V.hand_button(table.id)),
                    )
                    await self.bot.store.set_meta(table.id, nudged=table.seq)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Deluxe(bot))
