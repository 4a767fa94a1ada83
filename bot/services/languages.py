"""Who reads which language: each player their own (their Discord client's); a server's channels its setting.

Every interaction says the clicking player's client language (``interaction.locale``): the bot answers them in
it, and remembers it (in memory and in the store, written only when it changes), so a player's private panel
redrawn because someone else moved is still in their language — after a restart too. Channel text (the board,
the calls, results, lobbies) is in the server's language: what an admin chose with ``/tavern-admin
settings language``, else the server's own preferred locale as Discord reports it, else English. Languages the
bot has no catalog for fall back to English (:func:`bot.base.i18n.resolve`, which logs it once).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from bot.base import i18n
from bot.services.server_settings import ServerSettings
from bot.store import Store

log = logging.getLogger("tavern.languages")


class Languages:
    def __init__(
        self, store: Store, server_settings: ServerSettings, guild_locale: Callable[[int], object | None]
    ) -> None:
        self.store = store
        self.server_settings = server_settings
        self._guild_locale = guild_locale  # guild id → its preferred locale from the gateway cache, if known
        self._users: dict[int, str] = {}
        self._guilds: dict[int, str] = {}  # guild id → the locale its interactions last reported

    async def load(self) -> None:
        self._users = await self.store.user_languages()

    async def heard(self, interaction: Any) -> str:
        """An interaction arrived: its player's language is in force for the rest of its handling, and
        remembered for their panels."""
        language = i18n.resolve(getattr(interaction, "locale", None))
        i18n.use(language)
        guild_id, guild_locale = (
            getattr(interaction, "guild_id", None),
            getattr(interaction, "guild_locale", None),
        )
        if guild_id is not None and guild_locale is not None:
            self._guilds[guild_id] = str(getattr(guild_locale, "value", guild_locale))
        user = getattr(interaction, "user", None)
        if user is not None and self._users.get(user.id) != language:
            self._users[user.id] = language
            try:
                await self.store.set_user_language(user.id, language)
            except Exception:  # a player's language is a comfort: never fail their click over it
                log.exception("Could not store the language of user %s", user.id)
        return language

    def forget(self, user_id: int) -> None:
        """The player asked to be forgotten (their row is gone already); their next press is heard anew."""
        self._users.pop(user_id, None)

    def of_user(self, user_id: int, default: str = i18n.ENGLISH) -> str:
        """The player's language, or ``default`` (the table's channel language) for one never heard from."""
        return self._users.get(user_id, default)

    async def of_guild(self, guild_id: int) -> str:
        """The language of the server's channels."""
        chosen = (await self.server_settings.get(guild_id)).language
        if chosen:
            return chosen
        preferred = self._guild_locale(guild_id) or self._guilds.get(guild_id)
        return i18n.resolve(preferred) if preferred else i18n.ENGLISH

    @asynccontextmanager
    async def channel(self, guild_id: int) -> AsyncIterator[str]:
        """Text built inside is in the server's channel language."""
        language = await self.of_guild(guild_id)
        with i18n.speaking(language):
            yield language
