"""The Activity's three routes, where ``TAVERN_CLIENT_SECRET`` is set (docs/ACTIVITY.md): ``/`` as Discord's
frame loads it (``activity_page``), ``POST /a/token`` (its sign-in, ``activity``) and ``/a/ws`` (its socket,
``activity_ws``), within the web server's limits. Mixed into ``server.WebServer``, whose guard, fan-out and
socket opening they share."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

import discord
from aiohttp import web

from bot.edge.web import activity_page
from bot.edge.web.activity import SignIn
from bot.edge.web.activity_ws import MAX_FRAME, ActivitySockets, Sessioned
from bot.edge.web.answers import language
from bot.edge.web.built import Refused
from bot.edge.web.fanout import Fanout
from bot.edge.web.guard import BUILD_COST, Guard
from bot.settings import Settings

SIGN_IN_COST = 3 * BUILD_COST  # an Activity's sign-in: three requests to Discord
Serve = Callable[[web.WebSocketResponse, Callable[[], None]], Awaitable[None]]


class Signing(Sessioned, Protocol):
    """What the Activity reads of the bot, beyond its sockets' needs."""

    @property
    def settings(self) -> Settings: ...
    @property
    def http(self) -> discord.http.HTTPClient: ...


class _Server(Protocol):
    """The web server as its Activity routes use it."""

    @property
    def sign_in(self) -> SignIn | None: ...
    @property
    def activity(self) -> ActivitySockets | None: ...
    @property
    def guard(self) -> Guard: ...
    @property
    def bot(self) -> Signing: ...
    def client(self, request: web.Request) -> str | None: ...
    def _too_many(self, request: web.Request, wait: float) -> web.Response: ...
    async def _opened(self, request: web.Request, largest: int, serve: Serve) -> web.StreamResponse: ...
    async def _activity_page(self, request: web.Request) -> web.Response: ...
    async def _activity_token(self, request: web.Request) -> web.Response: ...
    async def _activity_socket(self, request: web.Request) -> web.StreamResponse: ...


def activity_parts(bot: Signing, fanout: Fanout) -> tuple[SignIn | None, ActivitySockets | None]:
    """The sign-in and the sockets, where the client secret is set (else no Activity at all)."""
    if not bot.settings.client_secret:
        return None, None
    sign_in = SignIn(
        http=bot.http,
        app_id=lambda: bot.application_id,
        client_secret=bot.settings.client_secret,
        links=lambda: bot.links,
        clock=bot.clock,
    )
    return sign_in, ActivitySockets(bot, fanout, sign_in)


class ActivityRoutes:
    """The routes; ``WebServer`` adds them where its sign-in exists."""

    def activity_routes(self: _Server, app: web.Application) -> None:
        app.router.add_get("/", self._activity_page)
        app.router.add_post("/a/token", self._activity_token)
        app.router.add_get("/a/ws", self._activity_socket)

    async def _activity_page(self: _Server, request: web.Request) -> web.Response:
        """``/`` as Discord's frame loads it; anything else at ``/`` is not found."""
        found = activity_page.answer(dict(request.query), language(request), self.bot.application_id)
        if found is None:
            raise Refused(404)
        return found

    async def _activity_token(self: _Server, request: web.Request) -> web.Response:
        """``POST /a/token``: the sign-in. Its three requests to Discord cost the address ``SIGN_IN_COST``
        more, paid before any is sent."""
        assert self.sign_in is not None  # (the route exists only then)
        wait = self.guard.allow(self.client(request), SIGN_IN_COST)
        if wait:
            return self._too_many(request, wait)
        return await self.sign_in.answer(request)

    async def _activity_socket(self: _Server, request: web.Request) -> web.StreamResponse:
        """``/a/ws``: within the same limits as a live table's socket."""
        activity = self.activity
        assert activity is not None  # (the route exists only then)
        lang = language(request)
        return await self._opened(
            request, MAX_FRAME, lambda socket, abort: activity.serve(socket, lang, abort)
        )
