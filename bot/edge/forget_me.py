"""``/tavern forget-me``: a member asks the bot to forget them. After they confirm (a button only they can
use), their language, preferences and DM channel are deleted, and their name is replaced by "👤" in every
seat and rating they hold; results stay (as an anonymous player), so opponents' histories and ratings stay
as they were. Refused while they sit at a live game (leave or finish it first).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from bot.base.i18n import t
from bot.base.refusals import UserFacingError
from bot.edge import delivery
from bot.services.languages import Languages
from bot.services.preferences import Preferences
from bot.services.tables import TableService
from bot.store import Store

PREFIX = "tv:forget:"  # i18n: not text
_ID = re.compile(r"tv:forget:(?P<user>[0-9]{1,20})", re.ASCII)  # i18n: not text
ANONYMOUS = "👤"  # the name a forgotten player's seats and ratings keep: no words, so no language

Interaction = discord.Interaction[Any]


class Client(Protocol):
    @property
    def store(self) -> Store: ...
    @property
    def tables(self) -> TableService: ...
    @property
    def languages(self) -> Languages: ...
    @property
    def preferences(self) -> Preferences: ...


def parse(cid: object) -> int:
    match = _ID.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise delivery.Refused(f"custom id {cid!r} is not a forget-me confirmation")
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
    user_id = delivery.pressed(interaction, parse)
    if user_id != interaction.user.id:
        raise delivery.Refused("a forget-me confirmation pressed by someone else")
    if await client.tables.seated_at(user_id) is not None:
        raise UserFacingError("general.forget.seated")
    await client.store.forget_user(user_id, ANONYMOUS)
    client.languages.forget(user_id)
    client.preferences.forget(user_id)
    await interaction.response.edit_message(content=t("general.forget.done"), view=None)
