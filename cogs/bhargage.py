"""Bhargage on Discord: challenges, the table in the channel, private hands, idle tables.

The channel gets one board message that is edited as the game goes, plus one new message per move (the card,
its calls and a ping for whoever moves next; edits don't notify). Private hands go to DMs, or, when a player's
DMs are closed, to fresh ephemeral messages behind a "Show my hand" button. Every button and select is a
``cogs.ui`` address, so clicks keep working across restarts.

Freshness: play, cut and claim buttons carry the table's action count (``seq``); discard controls carry
"<hand>-<0|1 already discarded>" because both players discard at once (checked by a ``guard`` under the
table lock, so a double click is applied once).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.errors import UserFacingError
from bot.render import bhargage as render
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import missing_suits, shortage_for
from bot.rules.decktet import ALL_CARDS, Card, card, cards
from bot.rules.errors import IllegalAction, NotYourTurn
from bot.store import Lobby
from bot.tables import NotSeated, StaleAction, Table, TableClosed
from cogs import ui

if TYPE_CHECKING:
    from bot.app import TavernBot

log = logging.getLogger("tavern.bhargage")

GAME = "bhargage"
KIND = "challenge"
NEEDED_PERMISSIONS = ("view_channel", "send_messages", "embed_links")
Interaction = discord.Interaction[Any]


def _mention(user_id: int) -> str:
    return f"<@{user_id}>"


def _in_guild(interaction: Interaction) -> bool:
    """Subcommands can't be guild-only on Discord's side, so the ones that need a server check here."""
    if interaction.guild is None:
        raise app_commands.NoPrivateMessage()
    return True


def _discard_token(state: bh.State, seat: int) -> str:
    return f"{state.hand_no}-{int(bool(state.discards[seat]))}"


def _card_at(arg: str) -> Card:
    try:
        return ALL_CARDS[int(arg)]
    except (ValueError, IndexError):
        raise UserFacingError(ui.NO_LONGER) from None


class Bhargage(commands.Cog):
    """``/bhargage …`` and every Bhargage button."""

    group = app_commands.Group(name="bhargage", description="Bhargage, the Decktet's cribbage for two")

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot
        self.clock: Callable[[], float] = time.time  # tests replace it to jump time
        self._tick_lock = asyncio.Lock()
        self._table_locks = ui.KeyedLocks()

    async def cog_load(self) -> None:
        registry = ui.handlers(self.bot)
        registry.tables[GAME] = self.on_table_click
        registry.lobbies[KIND] = self.on_lobby_click
        self.idle_loop.start()

    async def cog_unload(self) -> None:
        self.idle_loop.cancel()

    def _lobby_lock(self, channel_id: int) -> AbstractAsyncContextManager[None]:
        """Serialises challenges per channel (one open challenge, one table); channels never wait on
        each other."""
        return ui.channel_lock(self.bot, channel_id)

    def _lock(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """Serialises a table's whole move (apply, then announce) so messages come out in order."""
        return self._table_locks(game_id)

    # ================================================================ slash commands

    @group.command(name="challenge", description="Challenge someone to Bhargage in this channel")
    @app_commands.describe(
        opponent="Who you want to play",
        target="Board number that wins (both start at 10; 121 is the full game)",
        sequences="Also score runs (the sequences variant)",
    )
    @app_commands.check(_in_guild)
    async def challenge(
        self,
        interaction: Interaction,
        opponent: discord.User,
        target: app_commands.Range[int, bh.MIN_TARGET, bh.MAX_TARGET] = 121,
        sequences: bool = False,
    ) -> None:
        options = bh.Options(target=target, sequences=sequences).to_dict()
        await self._issue_challenge(interaction, interaction.user, opponent, options)

    @group.command(name="hand", description="Show me my Bhargage hand (privately)")
    @app_commands.check(_in_guild)
    async def hand(self, interaction: Interaction) -> None:
        table, seat = self._my_table(interaction)
        where = self._where(interaction, table)
        await ui.send_ephemeral_panel(
            interaction, self._panel(table, seat, f"Your game{where}:" if where else "")
        )

    @group.command(name="board", description="Post the board again (it becomes the one kept up to date)")
    @app_commands.check(_in_guild)
    async def board(self, interaction: Interaction) -> None:
        table = self.bot.tables.table_for_channel(interaction.channel_id or 0)
        if table is None or table.game != GAME:
            raise UserFacingError("There is no Bhargage game in this channel.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        meta = await self.bot.store.get_meta(table.id)
        msg = await self._send(table.channel_id, self._board(table, meta))
        if msg is None:
            raise UserFacingError("I can't post in this channel.")
        await self.bot.store.set_meta(table.id, board_id=msg.id)
        await interaction.followup.send("Here is the board; I'll keep that one up to date.", ephemeral=True)

    @group.command(name="resign", description="Resign your Bhargage game in this channel")
    @app_commands.check(_in_guild)
    async def resign(self, interaction: Interaction) -> None:
        table, seat = self._my_table(interaction)
        other = table.names[1 - seat]
        button = ui.button("Resign", "g", table.id, "resign", style=discord.ButtonStyle.danger)
        await interaction.response.send_message(
            f"Resign the game against {other}{self._where(interaction, table)}? It counts as a loss.",
            view=ui.view_of(button),
            ephemeral=True,
        )

    @group.command(name="rules", description="How Bhargage is played here")
    async def rules(self, interaction: Interaction) -> None:
        embed = discord.Embed(description=render.rules_text(), colour=discord.Colour.dark_gold())
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @group.command(name="count", description="Count a Bhargage hand or bhargage in the show")
    @app_commands.describe(
        cards="The kept cards, separated by commas (3 for a hand, 4 for a bhargage)",
        up="The up-card",
        bhargage="Count them as the bhargage (4 cards, no Chief's Friends)",
        sequences="Also score runs (the sequences variant)",
    )
    async def count(
        self,
        interaction: Interaction,
        cards: str,
        up: str,
        bhargage: bool = False,
        sequences: bool = False,
    ) -> None:
        await interaction.response.send_message(
            count_answer(cards, up, bhargage=bhargage, sequences=sequences), ephemeral=True
        )

    def _my_table(self, interaction: Interaction) -> tuple[Table, int]:
        """The caller's table here, else their Bhargage table elsewhere in this server: a channel that
        was deleted or that they (or the bot) can no longer reach must not leave them stuck."""
        table = self.bot.tables.table_for_channel(interaction.channel_id or 0)
        if table is not None and table.game == GAME:
            seat = table.seat_of(interaction.user.id)
            if seat is not None:
                return table, seat
        for mine in self.bot.tables.tables_of_user(interaction.guild_id or 0, interaction.user.id):
            seat = mine.seat_of(interaction.user.id)
            if mine.game == GAME and seat is not None:
                return mine, seat
        if table is None or table.game != GAME:
            raise UserFacingError("There is no Bhargage game in this channel.")
        raise NotSeated()

    @staticmethod
    def _where(interaction: Interaction, table: Table) -> str:
        """Names the table's channel when a command is used elsewhere, so nobody resigns the wrong game."""
        return "" if interaction.channel_id == table.channel_id else f" in <#{table.channel_id}>"

    # ================================================================ challenges

    def _refuse_start(
        self, guild_id: int, channel_id: int, host: discord.abc.User, other: discord.abc.User
    ) -> None:
        if other.id == host.id:
            raise UserFacingError("You can't challenge yourself — pick another player.")
        if other.bot:
            raise UserFacingError("Bots don't play Bhargage here; challenge a person.")
        if self.bot.tables.table_for_channel(channel_id) is not None:
            raise UserFacingError("This channel already has a game. Finish it, or play in another channel.")
        for user in (host, other):
            seated = self.bot.tables.tables_of_user(guild_id, user.id)
            if seated:
                where = f"<#{seated[0].channel_id}>"
                hint = ""
                if user.id == host.id and seated[0].game == GAME:
                    hint = " Finish it, or end it from any channel with `/bhargage resign`."
                raise UserFacingError(f"{user.display_name} is already playing in {where}.{hint}")

    @staticmethod
    def _refuse_permissions(interaction: Interaction) -> None:
        perms = interaction.app_permissions
        missing = [p for p in NEEDED_PERMISSIONS if not getattr(perms, p)]
        if missing:
            words = ", ".join(p.replace("_", " ") for p in missing)
            raise UserFacingError(f"I can't host a game here: I need the {words} permission in this channel.")

    async def _open_challenge(self, channel_id: int, now: float) -> Lobby | None:
        for lobby in await self.bot.store.open_lobbies(channel_id=channel_id):
            if lobby.expires_at is None or lobby.expires_at > now:
                return lobby
        return None

    async def _issue_challenge(
        self,
        interaction: Interaction,
        host: discord.abc.User,
        other: discord.abc.User,
        options: dict[str, Any],
    ) -> None:
        """Post a challenge with Accept / Decline (the answer to ``interaction``); used by Rematch too."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        self._refuse_permissions(interaction)
        self._refuse_start(interaction.guild_id, interaction.channel_id, host, other)
        now = self.clock()
        async with self._lobby_lock(interaction.channel_id):
            if await self._open_challenge(interaction.channel_id, now) is not None:
                raise UserFacingError("There is already an open challenge or lobby in this channel.")
            expires = now + self.bot.settings.challenge_minutes * 60
            lobby = await self.bot.store.create_lobby(
                KIND,
                interaction.guild_id,
                interaction.channel_id,
                host.id,
                created_at=now,
                expires_at=expires,
                invited_id=other.id,
                options=options,
                members=[host.id],
            )
        accept = ui.button("Accept", "l", lobby.id, "accept", style=discord.ButtonStyle.success)
        decline = ui.button("Decline", "l", lobby.id, "decline", style=discord.ButtonStyle.danger)
        text = (
            f"{other.mention}, {host.mention} challenges you to **Bhargage** ({_options_text(options)}).\n"
            f"The challenge expires <t:{int(expires)}:R>."
        )
        await ui.answer_with_lobby(
            interaction, self.bot.store, lobby.id, content=text, view=ui.view_of(accept, decline)
        )

    async def on_lobby_click(self, interaction: Interaction, click: ui.Click, lobby: Lobby) -> None:
        if click.verb not in ("accept", "decline"):
            raise UserFacingError(ui.NO_LONGER)
        if interaction.user.id != lobby.invited_id:
            raise UserFacingError(f"This challenge is for <@{lobby.invited_id}>; only they can answer it.")
        await interaction.response.defer()  # answer Discord at once; the rest edits the challenge message
        async with self._lobby_lock(lobby.channel_id):
            current = await self.bot.store.get_lobby(lobby.id)
            assert current is not None
            self._refuse_closed_lobby(current)
            if current.expires_at is not None and current.expires_at <= self.clock():
                await self.bot.store.update_lobby(lobby.id, status="expired")
                await interaction.edit_original_response(content=_expired_text(current), view=None)
                await interaction.followup.send("This challenge has expired.", ephemeral=True)
                return
            if click.verb == "decline":
                await self.bot.store.update_lobby(lobby.id, status="declined")
                await interaction.edit_original_response(
                    content=f"{interaction.user.display_name} declined the Bhargage challenge from "
                    f"<@{lobby.host_id}>.",
                    view=None,
                )
                return
            host = await self._user(lobby.host_id)
            self._refuse_start(lobby.guild_id, lobby.channel_id, host, interaction.user)
            players = [(host.id, host.display_name), (interaction.user.id, interaction.user.display_name)]
            table, events = await self.bot.tables.create(
                GAME, lobby.guild_id, lobby.channel_id, players, options=dict(lobby.options)
            )
            await self.bot.store.update_lobby(lobby.id, status="started", game_id=table.id)
        await interaction.edit_original_response(
            content=f"{interaction.user.display_name} accepted {host.display_name}'s challenge: "
            f"**Bhargage** ({_options_text(lobby.options)}) is on!",
            view=None,
        )
        async with self._lock(table.id):
            await self._start(table, events)

    @staticmethod
    def _refuse_closed_lobby(lobby: Lobby) -> None:
        words = {
            "expired": "This challenge has expired.",
            "declined": "This challenge was declined.",
            "started": "This challenge was already accepted.",
            "cancelled": "This challenge was withdrawn.",
        }
        if lobby.status != "open":
            raise UserFacingError(words.get(lobby.status, ui.NO_LONGER))

    async def _user(self, user_id: int) -> discord.abc.User:
        return self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)

    # ================================================================ the table in the channel

    async def _channel(self, channel_id: int) -> discord.abc.Messageable:
        channel = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
        assert isinstance(channel, discord.abc.Messageable)
        return channel

    async def _send(
        self, channel_id: int, content: str, items: Sequence[discord.ui.Item[Any]] = ()
    ) -> discord.Message | None:
        """Post in the table's channel; None (logged) if Discord refuses: one lost post never stops a game."""
        try:
            channel = await self._channel(channel_id)
            if items:
                return await channel.send(content, view=ui.view_of(*items))
            return await channel.send(content)
        except discord.HTTPException as err:
            log.warning("could not post in channel %s: %s", channel_id, err)
            return None

    def _board(self, table: Table, meta: dict[str, Any]) -> str:
        return render.board_text(table.state, table.names, _backs(meta), game_id=table.id)

    async def _refresh_board(self, table: Table, meta: dict[str, Any]) -> None:
        try:
            channel = await self._channel(table.channel_id)
        except discord.HTTPException as err:
            log.warning("could not reach the channel of game %d: %s", table.id, err)
            return
        board_id = meta.get("board_id")
        await ui.refresh_kept_message(
            self.bot, table.id, channel, int(board_id) if board_id else None, content=self._board(table, meta)
        )

    def _show_button(self, table: Table, seat: int) -> discord.ui.Item[Any]:
        return ui.button(f"Show my hand ({table.names[seat]})"[:80], "g", table.id, "show", arg=str(seat))

    def _ping(self, table: Table, events: Sequence[bh.Event], meta: dict[str, Any]) -> tuple[str, list[Any]]:
        """Who moves next, as a line with mentions, and the buttons that go with it."""
        state: bh.State = table.state
        closed = set(meta.get("dm_closed", []))
        items: list[discord.ui.Item[Any]] = []
        line = ""
        seats: tuple[int, ...] = ()
        if state.phase is bh.Phase.DISCARD and any(isinstance(e, bh.HandDealt) for e in events):
            seats = (0, 1)
            line = (
                f"{_mention(table.user_ids[0])} {_mention(table.user_ids[1])}: lay 2 cards away — "
                "your hand is in your DMs."
            )
        elif state.phase is bh.Phase.CUT:
            seats = (state.non_dealer,)
            line = f"{_mention(table.user_ids[state.non_dealer])}, cut for the up-card."
            items.append(
                ui.button("Cut", "g", table.id, "cut", token=table.seq, style=discord.ButtonStyle.primary)
            )
        elif state.phase is bh.Phase.PLAY:
            seats = (state.to_move,)
            line = f"{_mention(table.user_ids[state.to_move])}, your turn — count **{state.count}**."
        items.extend(self._show_button(table, s) for s in seats if s in closed)
        return line, items

    async def _start(self, table: Table, events: Sequence[bh.Event]) -> None:
        """Opening: the cut for deal and the first hand, the board, then the hands by DM."""
        names = table.names
        meta = await self.bot.store.set_meta(table.id, backs={})
        head = f"**Bhargage** — {names[0]} vs {names[1]} ({_options_text(table.options.to_dict())})"
        texts = render.chunk([head, *render.event_lines(events, names)])
        await self._post_all(table, texts, meta, events)
        board = await self._send(table.channel_id, self._board(table, meta))
        if board is not None:
            meta = await self.bot.store.set_meta(table.id, board_id=board.id)
        await self._send_panels(table, events, meta)

    async def _post_all(
        self, table: Table, texts: list[str], meta: dict[str, Any], events: Sequence[bh.Event]
    ) -> bool:
        """Post a move's messages, the ping (or Rematch) on the last; False if that last one didn't go out."""
        ping, items = self._ping(table, events, meta)
        if table.is_over():
            items = [ui.button("Rematch", "g", table.id, "rematch", style=discord.ButtonStyle.primary)]
            final = self._board(table, meta)
            if texts and len(texts[-1]) + len(final) < render.MESSAGE_LIMIT:
                texts = [*texts[:-1], f"{texts[-1]}\n{final}"]
            else:
                texts = [*texts, final]
        elif ping:
            texts = [*texts[:-1], f"{texts[-1]}\n{ping}"] if texts else [ping]
        sent: discord.Message | None = None
        for i, text in enumerate(texts):
            sent = await self._send(table.channel_id, text, items if i == len(texts) - 1 else ())
        return sent is not None

    async def _publish(self, table: Table, events: Sequence[bh.Event]) -> None:
        """Everything a move makes visible: one message (more only for a long show), board, next hand."""
        meta = await self.bot.store.get_meta(table.id)
        backs = dict(meta.get("backs", {}))
        for ev in events:
            if isinstance(ev, bh.PointsScored) and ev.points:
                backs[str(ev.seat)] = ev.total_after - ev.points
            elif isinstance(ev, bh.HandCounted) and ev.total:
                backs[str(ev.seat)] = ev.total_after - ev.total
            elif isinstance(ev, bh.ShortageClaimed) and ev.points:
                backs[str(ev.claimant)] = ev.total_after - ev.points
        if backs != meta.get("backs"):
            meta = await self.bot.store.set_meta(table.id, backs=backs)
        # The show closes with the pegs (unless the game ended: the final board follows anyway).
        pegs = "" if table.is_over() else render.pegs_text(table.state, table.names, _backs(meta))
        texts = render.messages(events, table.names, after_show=pegs)
        posted = True
        if texts or table.is_over():
            posted = await self._post_all(table, texts, meta, events)
        await self._refresh_board(table, meta)
        await self._send_panels(table, events, meta, channel_ok=posted)
        if table.is_over() and not posted:
            await self._dm_result(table, events, meta)

    # ================================================================ private panels

    def _panel(self, table: Table, seat: int, note: str = "") -> ui.Panel:
        """The seat's hand with whatever it may do now (same controls in a DM and an ephemeral)."""
        state: bh.State = table.state
        view = bh.view(state, seat)
        content = render.hand_text(view, table.names)
        if note:
            content = f"{note}\n{content}"
        items: list[discord.ui.Item[Any]] = []
        if table.status != "active":
            return ui.Panel(content=content)
        if state.phase is bh.Phase.DISCARD:
            dealt = sorted((*view.hand, *view.discard), key=lambda c: (int(c.rank), c.index))
            options = [discord.SelectOption(label=c.label[:100], value=str(c.index)) for c in dealt]
            placeholder = "Change your 2 discards" if view.discarded[seat] else "Choose 2 cards to lay away"
            items.append(
                ui.select(
                    placeholder,
                    "g",
                    table.id,
                    "pick",
                    options,
                    token=_discard_token(state, seat),
                    min_values=2,
                    max_values=2,
                )
            )
        elif state.phase is bh.Phase.CUT and seat == state.non_dealer:
            items.append(
                ui.button("Cut", "g", table.id, "cut", token=table.seq, style=discord.ButtonStyle.primary)
            )
        elif state.phase is bh.Phase.PLAY and state.to_move == seat:
            legal = {a.card for a in view.legal if isinstance(a, bh.Play)}
            for c in view.hand:
                items.append(
                    ui.button(
                        c.label,
                        "g",
                        table.id,
                        "play",
                        token=table.seq,
                        arg=str(c.index),
                        style=discord.ButtonStyle.primary,
                        disabled=c not in legal,
                    )
                )
        return ui.Panel(content=content, items=items)

    async def _send_panels(
        self, table: Table, events: Sequence[bh.Event], meta: dict[str, Any], *, channel_ok: bool = True
    ) -> None:
        """DM the hands at a deal, and the player to move whenever a new turn starts in the play.

        The cut is normally a channel button; when the channel refused the post (the bot lost its
        permission there), the cutter gets it by DM so the table can't get stuck."""
        state: bh.State = table.state
        if table.status != "active":
            return
        seats: tuple[int, ...] = ()
        if state.phase is bh.Phase.DISCARD and any(isinstance(e, bh.HandDealt) for e in events):
            seats = (0, 1)
        elif state.phase is bh.Phase.PLAY and any(
            isinstance(e, bh.CardPlayed | bh.UpCardTurned) for e in events
        ):
            seats = (state.to_move,)
        elif state.phase is bh.Phase.CUT and not channel_ok:
            seats = (state.non_dealer,)
        for seat in seats:
            await self._dm(table, seat, meta)

    async def _dm_result(self, table: Table, events: Sequence[bh.Event], meta: dict[str, Any]) -> None:
        """The channel refused the result: tell both players by DM (those whose DMs are open)."""
        won = [e for e in events if isinstance(e, bh.GameWon)]
        if not won:
            return
        head = f"Your Bhargage game in <#{table.channel_id}> is over."
        lines = [head, *render.event_lines(won, table.names)]
        closed = set(meta.get("dm_closed", []))
        for seat, user_id in enumerate(table.user_ids):
            if seat not in closed:
                await ui.deliver_dm(self.bot, user_id, ui.Panel(content="\n".join(lines)))

    async def _dm(self, table: Table, seat: int, meta: dict[str, Any]) -> None:
        closed = list(meta.get("dm_closed", []))
        if seat in closed:
            return
        delivery = await ui.deliver_dm(self.bot, table.user_ids[seat], self._panel(table, seat))
        if delivery == "failed":
            # A passing Discord failure: fall back for this move only, and keep trying DMs later.
            await self._send(
                table.channel_id,
                f"{_mention(table.user_ids[seat])}, Discord didn't deliver your hand just now; press "
                "**Show my hand** to see it — only you will.",
                [self._show_button(table, seat)],
            )
            return
        if delivery == "sent":
            return
        closed.append(seat)
        meta.update(await self.bot.store.set_meta(table.id, dm_closed=closed))
        await self._send(
            table.channel_id,
            f"{_mention(table.user_ids[seat])}, I can't send you direct messages (your DMs are closed "
            "to me, or we no longer share a server), so you'll play from here: press **Show my hand** "
            "whenever it's your move — only you will see it.",
            [self._show_button(table, seat)],
        )

    # ================================================================ clicks on a table

    async def on_table_click(self, interaction: Interaction, click: ui.Click, table: Table) -> None:
        handler = {
            "show": self._click_show,
            "pick": self._click_pick,
            "discard": self._click_discard,
            "cut": self._click_cut,
            "play": self._click_play,
            "resign": self._click_resign,
            "claim": self._click_claim,
            "rematch": self._click_rematch,
        }.get(click.verb)
        if handler is None:
            raise UserFacingError(ui.NO_LONGER)
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise NotSeated()
        await handler(interaction, click, table, seat)

    async def _click_show(self, interaction: Interaction, click: ui.Click, table: Table, seat: int) -> None:
        if table.status != "active":
            raise TableClosed()
        await ui.send_ephemeral_panel(interaction, self._panel(table, seat))

    def _discard_guard(self, token: str) -> Callable[[Table, int], None]:
        def guard(table: Table, seat: int) -> None:
            state: bh.State = table.state
            if state.phase is not bh.Phase.DISCARD or _discard_token(state, seat) != token:
                raise StaleAction()

        return guard

    async def _click_pick(self, interaction: Interaction, click: ui.Click, table: Table, seat: int) -> None:
        if table.status != "active":
            raise TableClosed()
        self._discard_guard(click.token)(table, seat)
        chosen = [_card_at(v) for v in click.values]
        view = bh.view(table.state, seat)
        dealt = (*view.hand, *view.discard)
        if len(chosen) != 2 or len(set(chosen)) != 2 or any(c not in dealt for c in chosen):
            raise IllegalAction("Choose exactly two of your cards.")
        panel = self._panel(
            table,
            seat,
            note=f"Lay away **{chosen[0].title}** and **{chosen[1].title}**? "
            "Press Confirm (or choose again).",
        )
        chosen_ids = {str(c.index) for c in chosen}
        wrapper = panel.items[0]
        assert isinstance(wrapper, ui.TavernItem)
        select_item = wrapper.item
        assert isinstance(select_item, discord.ui.Select)
        for option in select_item.options:
            option.default = option.value in chosen_ids
        confirm = ui.button(
            "Confirm",
            "g",
            table.id,
            "discard",
            token=click.token,
            arg=f"{chosen[0].index}-{chosen[1].index}",
            style=discord.ButtonStyle.success,
        )
        await interaction.response.edit_message(content=panel.content, view=ui.view_of(*panel.items, confirm))

    async def _click_discard(
        self, interaction: Interaction, click: ui.Click, table: Table, seat: int
    ) -> None:
        try:
            a, b = (_card_at(x) for x in click.arg.split("-"))
        except ValueError:
            raise UserFacingError(ui.NO_LONGER) from None
        await interaction.response.defer()
        async with self._lock(table.id):
            result = await self.bot.tables.act(
                table.id,
                interaction.user.id,
                bh.Discard(seat, (a, b)),
                guard=self._discard_guard(click.token),
            )
            await interaction.edit_original_response(
                content=f"You laid away **{a.title}** and **{b.title}**. "
                + (
                    "Both discards are in."
                    if table.state.phase is not bh.Phase.DISCARD
                    else f"Waiting for {table.names[1 - seat]}."
                ),
                view=None,
            )
            await self._publish(result.table, result.events)

    async def _click_cut(self, interaction: Interaction, click: ui.Click, table: Table, seat: int) -> None:
        state: bh.State = table.state
        if table.status == "active" and state.phase is bh.Phase.CUT and seat != state.non_dealer:
            raise NotYourTurn(f"It's not your turn: {table.names[state.non_dealer]} cuts.")
        await self._act_click(interaction, click, table, seat, bh.Cut(seat))

    async def _click_play(self, interaction: Interaction, click: ui.Click, table: Table, seat: int) -> None:
        c = _card_at(click.arg)
        await self._act_click(
            interaction, click, table, seat, bh.Play(seat, c), note=f"You played **{c.title}**."
        )

    async def _act_click(
        self,
        interaction: Interaction,
        click: ui.Click,
        table: Table,
        seat: int,
        action: bh.Action,
        note: str = "",
    ) -> None:
        """A seq-fresh move from a button: acknowledge at once, apply, retire the button, announce."""
        try:
            expected = int(click.token)
        except ValueError:
            raise StaleAction() from None
        await interaction.response.defer()
        async with self._lock(table.id):
            result = await self.bot.tables.act(table.id, interaction.user.id, action, expected_seq=expected)
            if note:
                await interaction.edit_original_response(content=note, view=None)
            else:
                await interaction.edit_original_response(view=None)
            await self._publish(result.table, result.events)

    async def _click_resign(self, interaction: Interaction, click: ui.Click, table: Table, seat: int) -> None:
        await interaction.response.defer()
        async with self._lock(table.id):
            result = await self.bot.tables.act(table.id, interaction.user.id, bh.Resign(seat))
            await interaction.edit_original_response(content="You resigned.", view=None)
            await self._publish(result.table, result.events)

    async def _click_claim(self, interaction: Interaction, click: ui.Click, table: Table, seat: int) -> None:
        idle = int(click.arg or -1)
        if seat == idle:
            raise UserFacingError("You can't claim a game that is waiting for you — make your move!")
        claim = self.bot.settings.claim_minutes * 60
        if table.status != "active":
            raise TableClosed()
        if str(table.seq) != click.token or idle not in table.waiting_for():
            raise UserFacingError("The game has moved on since; there is nothing to claim.")
        if not claim or self.clock() - table.last_action_at < claim:
            raise UserFacingError("Not yet: the table has not been idle long enough to claim the game.")
        await interaction.response.defer()
        async with self._lock(table.id):
            result = await self.bot.tables.act_as_seat(
                table.id, idle, "forfeit", expected_seq=int(click.token)
            )
            await interaction.edit_original_response(
                content=f"{interaction.user.display_name} claimed the game: {table.names[idle]} forfeits.",
                view=None,
            )
            await self._publish(result.table, result.events)

    async def _click_rematch(
        self, interaction: Interaction, click: ui.Click, table: Table, seat: int
    ) -> None:
        if table.status == "active":
            raise UserFacingError("This game is still going.")
        other = await self._user(table.user_ids[1 - seat])
        await self._issue_challenge(interaction, interaction.user, other, table.options.to_dict())

    # ================================================================ idle tables and old challenges

    @tasks.loop(seconds=30)
    async def idle_loop(self) -> None:
        try:
            await self.tick()
        except Exception:
            log.exception("the Bhargage idle check failed")

    @idle_loop.before_loop
    async def _before_idle(self) -> None:
        await self.bot.wait_until_ready()

    async def tick(self) -> None:
        """One pass: expire challenges, nudge waiting players once per turn, offer claims on idle tables."""
        if not self.bot.is_ready():
            return
        async with self._tick_lock:
            now = self.clock()
            await self._expire_challenges(now)
            for table in self.bot.tables.active_tables():
                if table.game == GAME and table.status == "active":
                    await self._check_idle(table, now)

    async def _expire_challenges(self, now: float) -> None:
        # Only this cog's kind: store.expire_lobbies would also take other games' lobbies.
        for lobby in await self.bot.store.open_lobbies():
            if lobby.kind != KIND or lobby.expires_at is None or lobby.expires_at > now:
                continue
            async with self._lobby_lock(lobby.channel_id):
                current = await self.bot.store.get_lobby(lobby.id)
                if current is None or current.status != "open":
                    continue
                await self.bot.store.update_lobby(lobby.id, status="expired")
            if lobby.message_id is not None:
                try:
                    channel = await self._channel(lobby.channel_id)
                    await channel.get_partial_message(lobby.message_id).edit(  # type: ignore[attr-defined]
                        content=_expired_text(lobby), view=None
                    )
                except discord.HTTPException as err:
                    log.warning("could not mark challenge %d expired: %s", lobby.id, err)

    async def _check_idle(self, table: Table, now: float) -> None:
        settings = self.bot.settings
        idle = now - table.last_action_at
        waiting = table.waiting_for()
        due = [m * 60 for m in (settings.nudge_minutes, settings.claim_minutes) if m]
        if not waiting or not due or idle < min(due):
            return  # nothing to say yet: spare the database a read per table every pass
        meta = await self.bot.store.get_meta(table.id)
        closed = set(meta.get("dm_closed", []))
        if settings.nudge_minutes and idle >= settings.nudge_minutes * 60 and meta.get("nudged") != table.seq:
            meta = await self.bot.store.set_meta(table.id, nudged=table.seq)
            who = " ".join(_mention(table.user_ids[s]) for s in waiting)
            what = render.waiting_text(table.state, table.names)
            await self._send(
                table.channel_id,
                f"{who} — the table is waiting for you. ({what})",
                [self._show_button(table, s) for s in waiting if s in closed],
            )
        if (
            settings.claim_minutes
            and idle >= settings.claim_minutes * 60
            and len(waiting) == 1
            and meta.get("claim_offered") != table.seq
        ):
            await self.bot.store.set_meta(table.id, claim_offered=table.seq)
            idle_seat = waiting[0]
            claimer = 1 - idle_seat
            button = ui.button(
                "Claim the game",
                "g",
                table.id,
                "claim",
                token=table.seq,
                arg=str(idle_seat),
                style=discord.ButtonStyle.danger,
            )
            await self._send(
                table.channel_id,
                f"{_mention(table.user_ids[claimer])}, {table.names[idle_seat]} has not moved for "
                f"{int(idle // 60)} minutes. You may claim the game (it counts as their forfeit).",
                [button],
            )


# ==================================================================== helpers


def _backs(meta: dict[str, Any]) -> dict[int, int]:
    """The back pegs kept in the table's meta (JSON keys are strings)."""
    return {int(k): int(v) for k, v in meta.get("backs", {}).items()}


def _options_text(options: dict[str, Any]) -> str:
    text = f"to {options.get('target', 121)}"
    if options.get("sequences"):
        text += ", with sequences"
    return text


def _expired_text(lobby: Lobby) -> str:
    return f"The Bhargage challenge from <@{lobby.host_id}> to <@{lobby.invited_id}> expired unanswered."


def count_answer(cards_text: str, up_text: str, *, bhargage: bool, sequences: bool) -> str:
    """``/bhargage count``: the itemised show count of 3 cards (or a 4-card bhargage) and the up-card."""
    kept = cards(cards_text)
    up = card(up_text)
    need = 4 if bhargage else 3
    if len(kept) != need:
        kind = "a bhargage" if bhargage else "a hand"
        raise UserFacingError(
            f"Give {need} cards for {kind} (you gave {len(kept)}), separated by commas, plus the up-card."
        )
    everything = (*kept, up)
    if len(set(everything)) != len(everything):
        raise UserFacingError(
            "Each card is in the deck once: list different cards (and a different up-card)."
        )
    hc = bh.count_hand(kept, up, bhargage=bhargage, sequences=sequences)
    missing = missing_suits(everything)
    return render.count_text(
        kept,
        up,
        hc,
        bhargage=bhargage,
        sequences=sequences,
        missing=missing,
        shortage_points=shortage_for(len(missing)),
    )


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Bhargage(bot))
