"""What the table controller needs of the Discord client, and the small helpers its parts share.

The controller is handed a :class:`Host` (the bot is one) rather than the bot itself: it sees the services,
the settings, the clock and the few client calls it makes (users, channels, DMs), nothing else, so it never
imports the module that builds the bot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import discord
from discord.http import HTTPClient

from bot.base import safe
from bot.base.panel import Panel
from bot.edge.governor import Governor
from bot.games.seats import TABLE_ACCENT, shown
from bot.services.languages import Languages
from bot.services.links import Links
from bot.services.lobbies import LobbyService, Player
from bot.services.preferences import Preferences
from bot.services.server_settings import ServerSettings
from bot.services.tables import TableService
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.store import Lobby

Interaction = discord.Interaction[Any]


class Host(Protocol):
    """The client as the controller uses it."""

    @property
    def settings(self) -> Settings: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def tables(self) -> TableService: ...
    @property
    def lobbies(self) -> LobbyService: ...
    @property
    def server_settings(self) -> ServerSettings: ...
    @property
    def languages(self) -> Languages: ...
    @property
    def preferences(self) -> Preferences: ...
    @property
    def user(self) -> discord.ClientUser | None: ...
    @property
    def http(self) -> HTTPClient: ...
    @property
    def governor(self) -> Governor: ...
    @property
    def links(self) -> Links | None: ...

    def get_user(self, id: int, /) -> discord.User | None: ...
    async def fetch_user(self, user_id: int, /) -> discord.User: ...
    def get_channel(self, id: int, /) -> Any: ...
    async def fetch_channel(self, channel_id: int, /) -> Any: ...
    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: discord.ChannelType | None = None
    ) -> discord.PartialMessageable: ...
    async def create_dm(self, user: discord.abc.Snowflake) -> discord.DMChannel: ...
    async def wait_until_ready(self) -> None: ...


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def player(user: discord.abc.User) -> Player:
    return Player(user.id, safe.name(user.display_name, user.name), user.bot)


USERS = 0  # the users' scope: where games played outside a server that added the bot are recorded


def scope_of(interaction: Interaction) -> int:
    """Whose records a game opened here counts in: the server's, where the server installed the app (the
    bot is in it), else the users' scope (``USERS``): a DM, a group DM, a server that never added the bot."""
    if interaction.guild_id is not None and interaction.is_guild_integration():
        return interaction.guild_id
    return USERS


def by_interaction(interaction: Interaction) -> bool:
    """Whether a table opened here lives by interactions only: the bot is not in the channel, so every
    channel or DM REST call would be refused (403 Missing Access)."""
    return scope_of(interaction) == USERS


def private(interaction: Interaction) -> bool:
    """Whether the pressed message is seen by the presser alone (the bot's DM or an ephemeral message; a
    group DM is seen by all its members)."""
    message = interaction.message
    if message is None or message.flags.ephemeral:
        return True
    return interaction.guild_id is None and not interaction.context.private_channel


def lobby_panel(adapter: Any, lobby: Lobby) -> Panel:
    """The lobby message, its bots named in the language in force."""
    names = {user: shown(user, name) for user, name in lobby.names.items()}
    panel: Panel = adapter.lobby_panel(replace(lobby, names=names))
    return panel.laid_out(TABLE_ACCENT)
