"""``/tavern forget-me``: a member asks the bot to forget them. After they confirm (a button only they can
use), the store forgets them in one transaction (``Store.forget_user``): their language, preferences and DM
channel are deleted, and every seat, result, rating and lobby of theirs moves to a random pseudonym named
"👤", so nothing leads back to their account while their opponents' histories and ratings stay as they were.
A tournament's document that names them is rewritten in the same transaction (its entrant, their matches and
games: the pseudonym). Refused while they sit at a live game, wait in an open lobby, or are entered in a
tournament under way, as the store has it (whichever process runs that game). Then what this process keeps
of those games is dropped (``Watch.changed``: the web pages' replays and records); other processes hear of it
as news of the games, whose versions moved.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.base.i18n import t
from bot.base.refusals import UserFacingError
from bot.edge import custom_ids, delivery
from bot.edge.client import Client
from bot.services.tournaments import stored as tournament_doc
from bot.store import PlayerBusy, WaitingInLobby

PREFIX = "tv:forget:"  # i18n: not text
_ID = re.compile(r"tv:forget:(?P<user>[0-9]{1,20})", re.ASCII)  # i18n: not text
ANONYMOUS = "👤"  # the name a forgotten player's seats and ratings keep: no words, so no language

Interaction = discord.Interaction[Any]


def parse(cid: object) -> int:
    match = _ID.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a forget-me confirmation")
    return int(match["user"])


async def ask(interaction: Interaction) -> None:
    """Answer ``/tavern forget-me``: what is forgotten and what stays, and the one button that does it."""
    view = delivery.Controls()
    button: discord.ui.Button[Any] = discord.ui.Button(
        label=t("general.forget.button"),
        style=discord.ButtonStyle.danger,
        custom_id=f"{PREFIX}{interaction.user.id}",
    )
    view.add_item(button)
    await interaction.response.send_message(t("general.forget.ask"), view=view, ephemeral=True)


async def confirm(client: Client, interaction: Interaction) -> None:
    """The button: only its own member may press it; then everything personal goes, in one transaction."""
    user_id = custom_ids.pressed(interaction, parse)
    if user_id != interaction.user.id:
        raise custom_ids.Refused("a forget-me confirmation pressed by someone else")
    try:
        games = await client.store.forget_user(
            user_id, ANONYMOUS, at=client.tables.clock(), rename=tournament_doc.forgotten
        )
    except PlayerBusy:
        raise UserFacingError("general.forget.seated") from None
    except WaitingInLobby as waiting:
        raise UserFacingError("general.forget.waiting", channel=waiting.lobby.channel_id) from None
    client.languages.forget(user_id)
    client.preferences.forget(user_id)
    for game_id in games:  # nothing this process keeps of their games shows their name again
        client.tables.watch.changed(game_id)
    await interaction.response.edit_message(content=t("general.forget.done"), view=None)
