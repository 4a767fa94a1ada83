"""The click router: every component press, ours or forged, before or after a restart, parsed strictly
(``delivery.parse``, ``delivery.offered``) and handed to the lobby's or the table's door of the controller
(a rules page's to ``rules_book``);
whatever goes wrong, the press gets an answer (``errors.reply_error``)."""

from __future__ import annotations

from typing import Any, Protocol

import discord

from bot.edge import delivery, forget_me, history_book, me_panel, rules_book
from bot.edge.drain import Drain
from bot.edge.errors import reply_error
from bot.edge.table import TableController
from bot.services.languages import Languages
from bot.services.preferences import Preferences
from bot.services.tables import TableService
from bot.settings import Settings
from bot.store import Store


class Client(Protocol):
    """What routing a press needs of the bot."""

    @property
    def languages(self) -> Languages: ...
    @property
    def tables(self) -> TableService: ...
    @property
    def drain(self) -> Drain: ...
    @property
    def controller(self) -> TableController: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def preferences(self) -> Preferences: ...
    @property
    def store(self) -> Store: ...
    @property
    def games(self) -> Any: ...


async def on_component(client: Client, interaction: discord.Interaction[Any]) -> None:
    """Route one press; the presser's language is heard first, for everything the press answers."""
    data: Any = interaction.data or {}
    try:
        await client.languages.heard(interaction)
        if rules_book.ours(data.get("custom_id")):  # a rules page: no table, no lobby
            await rules_book.turn(client, interaction)
            return
        if me_panel.ours(data.get("custom_id")):  # a player's preference switch
            await me_panel.flip(client, interaction)
            return
        if history_book.ours(data.get("custom_id")):  # a page of a member's history
            await history_book.turn(client, interaction)
            return
        if forget_me.ours(data.get("custom_id")):  # a member confirming they want to be forgotten
            await forget_me.confirm(client, interaction)
            return
        click = delivery.parse(data.get("custom_id"), data.get("values", ()))
        delivery.offered(interaction.message, data["custom_id"], click.values)
        if click.scope != "g" or click.verb == "rematch":
            # A game's own press loads its one table on demand (``TableService.get``) while the tables are
            # restored; a lobby or rematch press looks tables up by channel and user, so it waits until
            # every active game is listed (the first, short step of the restore).
            await client.tables.indexed()
        async with client.drain.in_flight():  # a closing bot refuses new presses and waits for these
            if click.scope == "l":
                await client.controller.lobby_click(interaction, click)
            else:
                await client.controller.table_click(interaction, click)
    except Exception as err:
        await reply_error(interaction, err)
