"""What the edge's modules read of the bot, declared once: ``TavernBot`` has it all; a module names the
bot it is handed as a ``Client`` and reads only what it needs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import discord

if TYPE_CHECKING:
    from bot.edge.drain import Drain
    from bot.edge.table import TableController
    from bot.services.cooldowns import Limits
    from bot.services.languages import Languages
    from bot.services.links import Links
    from bot.services.preferences import Preferences
    from bot.services.server_settings import ServerSettings
    from bot.services.tables import TableService
    from bot.services.tournaments.service import TournamentService
    from bot.settings import Settings
    from bot.store import Store


class Client(Protocol):
    """The bot as the edge's modules see it."""

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
    @property
    def server_settings(self) -> ServerSettings: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def tournaments(self) -> TournamentService: ...
    @property
    def links(self) -> Links | None: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    def get_channel(self, id: int, /) -> Any: ...
    async def fetch_channel(self, channel_id: int, /) -> Any: ...
    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: discord.ChannelType | None = None
    ) -> discord.PartialMessageable: ...
