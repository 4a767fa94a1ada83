"""The click router: every component press, ours or forged, before or after a restart, parsed strictly
(``custom_ids.parse``, ``custom_ids.offered``) and handed to the lobby's or the table's door of the controller
(a press that belongs to no table, to its own module: ``OWN_MESSAGE``);
whatever goes wrong, the press gets an answer (``errors.reply_error``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.edge import (
    custom_ids,
    forget_me,
    history_book,
    leaderboard_book,
    me_panel,
    profile_card,
    replay_book,
    rules_book,
    settings_form,
    tournament_desk,
)
from bot.edge.client import Client
from bot.edge.errors import reply_error

Answer = Callable[[Client, discord.Interaction[Any]], Awaitable[None]]

# The presses that belong to no table, by the prefix of their custom id: each answers by updating the message
# it was pressed on, after parsing its id strictly (``custom_ids.pressed``).
OWN_MESSAGE: tuple[tuple[str, Answer], ...] = (
    (rules_book.PREFIX, rules_book.turn),  # a rules page
    (me_panel.PREFIX, me_panel.flip),  # a player's preference switch
    (history_book.PREFIX, history_book.turn),  # a page of a member's history
    (replay_book.PREFIX, replay_book.turn),  # a step of a game's replay
    (forget_me.PREFIX, forget_me.confirm),  # a member confirming they want to be forgotten
    (leaderboard_book.PREFIX, leaderboard_book.press),  # a board's page or menu, or closing a season
    (profile_card.PREFIX, profile_card.post),  # a profile card's Post in channel (a new public message)
    (settings_form.PREFIX, settings_form.press),  # an admin's choice on the server's settings form
    (tournament_desk.PREFIX, tournament_desk.press),  # Join or Leave on a tournament's sign-up
)


async def on_component(client: Client, interaction: discord.Interaction[Any]) -> None:
    """Route one press; the presser's language is heard first, for everything the press answers."""
    data: Any = interaction.data or {}
    try:
        async with client.drain.in_flight():  # a closing bot refuses new presses and waits for these
            await client.languages.heard(interaction)
            cid = data.get("custom_id")
            own = next(
                (a for prefix, a in OWN_MESSAGE if isinstance(cid, str) and cid.startswith(prefix)), None
            )
            if own is not None:  # no table, no lobby: the press updates its own message
                await own(client, interaction)
                return
            click = custom_ids.parse(data.get("custom_id"), data.get("values", ()))
            custom_ids.offered(interaction.message, data["custom_id"], click.values)
            if click.scope != "g" or click.verb == "rematch":
                # A game's own press loads its one table on demand (``TableService.get``) while the tables
                # are restored; a lobby or rematch press looks tables up by channel and user, so it waits
                # until every active game is listed (the first, short step of the restore).
                await client.tables.indexed()
            if click.scope == "l":
                await client.controller.lobby_click(interaction, click)
            else:
                await client.controller.table_click(interaction, click)
    except Exception as err:
        await reply_error(interaction, err)
