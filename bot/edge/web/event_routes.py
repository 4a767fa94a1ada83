"""A tournament's page, ``/e/<token>`` (``event_page``): read through the ``TournamentService`` as the bot
reads an event, shown where its server lets its games be seen in a browser (``browser`` not ``off``), and
built once every ``EVENT_SECONDS`` per event and language, as the server page is: a reload within them
costs a lookup. Mixed into ``server.WebServer``, whose link reading, guard and builder it shares."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from aiohttp import web

from bot.base.i18n import speaking
from bot.edge.web.answers import language, page
from bot.edge.web.built import Built, Refused
from bot.edge.web.event_page import event_page
from bot.edge.web.kept import Kept
from bot.games import GameAdapter
from bot.services.links import Kind, Links
from bot.services.server_settings import BROWSER_OFF
from bot.services.tournaments.service import TournamentService

EVENT_SECONDS = 5.0  # how long a tournament's page is reused (its standings move with a game's end)


class Shows(Protocol):
    """What the page reads of the bot."""

    @property
    def tournaments(self) -> TournamentService: ...
    @property
    def links(self) -> Links | None: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def games(self) -> Mapping[str, GameAdapter]: ...


class _Server(Protocol):
    """The web server as its tournament route uses it."""

    @property
    def bot(self) -> Shows: ...
    @property
    def built(self) -> Built: ...
    @property
    def _events(self) -> Kept[tuple[int, str], tuple[int, bytes]]: ...
    def client(self, request: web.Request) -> str | None: ...
    def _read(self, kind: Kind, token: str) -> int: ...
    async def _browser(self, guild_id: int) -> str: ...


def kept_events() -> Kept[tuple[int, str], tuple[int, bytes]]:
    """The pages built: (event, language) → (its server, the page)."""
    return Kept(256, EVENT_SECONDS)


class EventRoutes:
    """The route's handler; ``WebServer`` adds the route."""

    async def _event(self: _Server, request: web.Request) -> web.Response:
        """A tournament's page; 404 for no such event, or where its server shows no page (checked at every
        ask: a kept page is not shown once its admins say ``off``)."""
        tournament_id = self._read("e", request.match_info["token"])
        links = self.bot.links
        if links is None:
            raise Refused(404)
        lang = language(request)
        kept = self._events.get((tournament_id, lang))
        if kept is None:
            client = self.client(request)

            async def make() -> tuple[int, bytes]:
                found = await self.bot.tournaments.found(tournament_id)
                if found is None:
                    raise Refused(404)
                row, event = found
                began, now = self.built.cpu(), self.bot.clock()
                adapter = self.bot.games.get(event.settings.game)
                with speaking(lang):
                    made = event_page(
                        event,
                        adapter.title if adapter is not None else event.settings.game,
                        lang=lang,
                        live=lambda game_id: f"/t/{links.token('t', game_id, now)}",
                        replay=lambda game_id: f"/r/{links.token('r', game_id, 0)}",
                    ).encode()
                self.built.bill(client, self.built.cpu() - began)
                self._events.put((tournament_id, lang), (row.guild_id, made))
                return row.guild_id, made

            kept = await self.built.once(client, ("event", tournament_id, lang), make)
        guild_id, body = kept
        if await self._browser(guild_id) == BROWSER_OFF:
            raise Refused(404)
        return page(body)
