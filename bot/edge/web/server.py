"""The table in a browser: aiohttp's web server inside the bot process, when ``TAVERN_WEB_PORT`` is set.

Pages (``bot.edge.web.pages``: public information only, in the browser's language):

- ``/t/<token>`` a live table, kept current over ``/t/<token>/ws`` (``fanout``), then leading to its replay;
- ``/r/<token>`` a finished (or abandoned) game step by step, one step as JSON, its game record
  (``past_routes``);
- ``/s/<token>`` a server's live tables, where its admins chose ``browser: server``;
- ``/e/<token>`` a tournament's standings (a knockout's bracket) and matches (``event_routes``);
- ``/c/<lang>/<card>.png`` card pictures and ``/static/<name>`` the css and js.

Nothing of the store is reachable without a valid link (``bot.services.links``): a token is checked before
anything is read, a forged one answers 404 and an expired one 410, at the cost of one HMAC. A server whose
admins set ``browser: off`` has no page at all (its links answer 404 too); a live game has no replay or
record (the record's seed would deal every hidden hand).

Every answer, errors too, carries the security headers (a CSP with no inline script or style, nosniff, no
referrer, no framing) and, for pages, ``Cache-Control: no-store``. Only GET and HEAD are served (and, where
the Activity is on, ``POST /a/token``: its sign-in, a JSON body of at most 1 KiB, ``activity``), paths are
matched by strict patterns of bounded length, no other request has a body, and each address is held to the
``guard``'s limits: a refused request is answered with a 429 made once, before any routing work.

A page is built once and kept by what it shows (``built``; a finished game's off the event loop): a kept
page costs a lookup, one built costs its asker more. What is kept of a game is dropped when the stored game
changes (``Watch.changed``: another process wrote it, or a member who played it was forgotten).
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

import discord
from aiohttp import web

from bot.base.i18n import speaking
from bot.edge import visibility
from bot.edge.drain import Drain
from bot.edge.table import TableController
from bot.edge.web import activity_page, cards, pages
from bot.edge.web.activity_routes import ActivityRoutes, activity_parts
from bot.edge.web.answers import (
    CARD_CACHE,
    NO_STORE,
    STATIC_CACHE,
    HttpLog,
    language,
    page,
    route_of,
    secure,
)
from bot.edge.web.built import Built, Over, Refused, TooMany
from bot.edge.web.event_routes import EventRoutes, kept_events
from bot.edge.web.fanout import MAX_MESSAGE, Fanout
from bot.edge.web.guard import FILE_COST, Guard, Networks, forwarded_client, retry_after
from bot.edge.web.kept import Kept
from bot.edge.web.past_routes import PastRoutes
from bot.edge.web.sight import sight
from bot.games import GameAdapter, Table, TableError
from bot.services.links import Kind, Links
from bot.services.live_tables import live_tables
from bot.services.server_settings import BROWSER_OFF, BROWSER_SERVER, ServerSettings
from bot.services.tables import TableService
from bot.services.tournaments.service import TournamentService
from bot.settings import Settings
from bot.store import Store

log = logging.getLogger("tavern.web")

TOKEN = r"[0-9A-Za-z._-]{1,64}"
HEARTBEAT = 30.0  # seconds between the server's pings of a live table's socket
FULL_WAIT = 30.0  # seconds a browser is asked to wait when the process keeps all the browsers it takes
SERVER_SECONDS = 5.0  # how long a server page is reused
ERRORS = {
    400: "web.error.bad",
    404: "web.error.not-found",
    405: "web.error.bad",
    410: "web.error.expired",
    429: "web.error.busy",
}
ALLOW = "GET, HEAD"  # i18n: not text

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class WebServerError(Exception):
    """The pages could not listen where the settings say: the bot does not start (the operator relies on
    them)."""


class Served(Protocol):
    """What the pages read of the bot."""

    @property
    def settings(self) -> Settings: ...
    @property
    def store(self) -> Store: ...
    @property
    def tables(self) -> TableService: ...
    @property
    def tournaments(self) -> TournamentService: ...
    @property
    def games(self) -> Mapping[str, GameAdapter]: ...
    @property
    def server_settings(self) -> ServerSettings: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def links(self) -> Links | None: ...
    @property
    def http(self) -> discord.http.HTTPClient: ...
    @property
    def application_id(self) -> int | None: ...
    @property
    def controller(self) -> TableController: ...
    @property
    def drain(self) -> Drain: ...
    def get_guild(self, guild_id: int, /) -> discord.Guild | None: ...


class WebServer(ActivityRoutes, EventRoutes, PastRoutes):
    """The pages of one bot. ``fanout`` holds the live tables' viewers; ``guard`` the per-address limits."""

    def __init__(self, bot: Served, *, guard: Guard | None = None) -> None:
        self.bot = bot
        self.guard = guard or Guard()
        self.fanout = Fanout(bot.tables, clock=bot.clock, shown=self._shown)
        self.port: int | None = None  # the port it listens on (the one chosen, for port 0)
        self._runner: web.AppRunner | None = None
        self._unlisten: Callable[[], None] | None = None
        self._busy: dict[str, bytes] = {}  # the 429 page by language, made once
        self.built = Built(bot.store, bot.games, lambda: self.guard)
        self._servers: Kept[tuple[int, str], bytes] = Kept(256, SERVER_SECONDS)
        self._events = kept_events()
        self._proxies: Networks = tuple(ipaddress.ip_network(n) for n in bot.settings.web_proxies)
        self.sign_in, self.activity = activity_parts(bot, self.fanout)  # where the client secret is set

    # ------------------------------------------------------------------ start and stop

    def app(self) -> web.Application:
        """The routes, the guard and the headers."""
        app = web.Application(client_max_size=1024, middlewares=[self._front])
        app.on_response_prepare.append(secure)
        get = app.router.add_get
        get(f"/t/{{token:{TOKEN}}}", self._live)
        get(f"/t/{{token:{TOKEN}}}/ws", self._socket)
        get(f"/r/{{token:{TOKEN}}}", self._replay)
        get(f"/r/{{token:{TOKEN}}}/step/{{step:0|[1-9][0-9]{{0,5}}}}", self._step)
        get(f"/r/{{token:{TOKEN}}}/record", self._record)
        get(f"/s/{{token:{TOKEN}}}", self._server)
        get(f"/e/{{token:{TOKEN}}}", self._event)
        get(r"/c/{lang:en|it}/{name:[0-9A-Za-z_-]{1,24}\.png}", self._card)  # i18n: not text
        get(r"/static/{name:[0-9a-z_-]{1,32}(?:-[0-9]{1,4}(?:\.[0-9]{1,4}){0,2})?\.(?:css|js)}", self._static)
        if self.sign_in is not None:
            self.activity_routes(app)
        return app

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` and watch the tables; ``WebServerError`` when it can't listen."""
        runner = web.AppRunner(  # what aiohttp reads of a request is bounded (a body: 1 KiB, sign-ins only)
            self.app(),
            access_log=None,
            logger=HttpLog(),
            shutdown_timeout=2.0,
            keepalive_timeout=15.0,  # an idle connection (or one whose headers dribble in) goes soon
            max_line_size=4096,
            max_field_size=4096,
            max_headers=64,
        )
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
        except OSError as err:
            await runner.cleanup()
            raise WebServerError(
                f"Could not serve the pages on {host}:{port} (TAVERN_WEB_HOST, TAVERN_WEB_PORT): {err}"
            ) from err
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        watch = self.bot.tables.watch
        unlisten = [watch.listen(self.fanout.told, self._changed)]
        if self.activity is not None:  # after the fan-out's: a seat's panel follows its table's frame
            unlisten.append(watch.listen(self.activity.told))

        def stop_listening() -> None:
            for remove in unlisten:
                remove()

        self._unlisten = stop_listening
        log.info("Pages served on http://%s:%d", host, self.port)

    async def stop(self) -> None:
        """Stop watching, say goodbye to the viewers, stop listening (twice is harmless)."""
        unlisten, self._unlisten = self._unlisten, None
        if unlisten is not None:
            unlisten()
        runner, self._runner = self._runner, None
        if runner is not None:
            await self.fanout.close()
            await runner.cleanup()
        if self.sign_in is not None:
            await self.sign_in.close()

    def _changed(self, game_id: int | None) -> None:
        """A stored game written elsewhere (another process; a member forgotten): its pages are made anew."""
        self.built.changed(game_id)
        self.fanout.changed(game_id)

    # ------------------------------------------------------------------ every request

    @web.middleware
    async def _front(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """The guard first (a refusal costs no page), then the handler; every error is a short page."""
        cost = FILE_COST if request.path.startswith(("/c/", "/static/")) else 1.0  # i18n: not text
        wait = self.guard.allow(self.client(request), cost)
        if wait:
            return self._too_many(request, wait)
        try:
            return await handler(request)
        except Refused as refused:
            return self._message(request, refused.status)
        except TooMany as busy:
            return self._too_many(request, busy.wait)
        except web.HTTPException as err:
            if err.status < 400:
                raise
            response = self._message(request, err.status)
            if err.status == 405:
                response.headers["Allow"] = ALLOW
            return response
        except ConnectionError:  # the browser went away mid-answer: not the server's fault
            log.debug("a browser went away during %s", route_of(request))
            return self._message(request, 500)
        except Exception:
            log.exception("The page %s failed", route_of(request))  # never the token: it opens the page
            return self._message(request, 500)

    def client(self, request: web.Request) -> str | None:
        """The address a request counts against (``forwarded_client``)."""
        return forwarded_client(request.remote, request.headers.getall("X-Forwarded-For", ()), self._proxies)

    def _message(self, request: web.Request, status: int) -> web.Response:
        lang = language(request)
        body = pages.message_page(status, ERRORS.get(status, ""), lang=lang)
        return web.Response(
            text=body, status=status, content_type="text/html", headers={"Cache-Control": NO_STORE}
        )

    def _too_many(self, request: web.Request, wait: float) -> web.Response:
        lang = language(request)
        body = self._busy.get(lang)
        if body is None:
            body = self._busy[lang] = pages.message_page(429, ERRORS[429], lang=lang).encode()
        return web.Response(
            body=body,
            status=429,
            content_type="text/html",
            charset="utf-8",
            headers={"Retry-After": retry_after(wait), "Cache-Control": NO_STORE},
        )

    def _read(self, kind: Kind, token: str) -> int:
        """The id a link opens; 404 for anything not a link of ours, 410 for one whose time ran out."""
        links = self.bot.links
        now = self.bot.clock()
        ident = links.read(kind, token, now) if links is not None else None
        if ident is None:
            raise Refused(410 if links is not None and links.expired(kind, token, now) else 404)
        return ident

    async def _browser(self, guild_id: int) -> str:
        """What of this server's games a browser may see (``ServerConfig.browser``)."""
        return (await self.bot.server_settings.get(guild_id)).browser

    async def _over_of(self, request: web.Request, game_id: int) -> Over | None:
        """What serving a kept page of a game needs, if it is finished (None: it is live); 404 where its
        server shows no page."""
        over = self.built.over(game_id)
        if over is None:
            ended = await self.built.finished(self.client(request), game_id)
            if ended is None:
                return None
            over = ended.over
        if await self._browser(over.guild_id) == BROWSER_OFF:
            raise Refused(404)
        return over

    # ------------------------------------------------------------------ live tables

    async def _live(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        game_id = self._read("t", token)
        lang = language(request)
        links = self.bot.links  # the replay's link, shown once the game is over (live.js shows it then)
        replay = f"/r/{links.token('r', game_id, 0)}" if links is not None else None
        client = self.client(request)
        if not self.bot.tables.is_live(game_id) and await self._over_of(request, game_id) is not None:
            shows = await self.built.ended_show(client, game_id, lang)
        else:
            live = await self._table(game_id)
            shows = await self.built.live_show(client, live, lang, lambda: self.fanout.recent(live, lang))
        with speaking(lang):
            ws = f"/t/{token}/ws?lang={lang}"  # i18n: not text
            html = pages.live_page(
                shows.sight, (), lang=lang, ws_path=ws, replay_url=replay, inner=shows.inner
            )
        return page(html)

    async def _table(self, game_id: int) -> Table:
        """The live table of a live link, where its server shows its games in a browser."""
        try:
            table = await self.bot.tables.get(game_id)
        except TableError:
            raise Refused(404) from None
        if table.game not in self.bot.games or await self._browser(table.guild_id) == BROWSER_OFF:
            raise Refused(404)
        return table

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        """The live table's WebSocket: its frames out, pings in (``fanout``); closed when its link expires
        or its server stops showing its games. A finished game's socket gets its last frame and closes."""
        token = request.match_info["token"]
        game_id, lang = self._read("t", token), language(request)
        over = not self.bot.tables.is_live(game_id) and await self._over_of(request, game_id) is not None
        last = await self.built.ended_show(self.client(request), game_id, lang) if over else None
        table = None if over else await self._table(game_id)

        async def serve(socket: web.WebSocketResponse, abort: Callable[[], None]) -> None:
            if table is not None:
                await self._watch(request, table, socket, abort, _expires(token))
            elif last is not None:  # the game is over: its last frame, and goodbye
                end = {"seq": last.sight.seq, "html": last.inner, "over": True, "t": time.time()}
                await socket.send_json(end)
                await socket.close()

        return await self._opened(request, MAX_MESSAGE, serve)

    async def _opened(
        self,
        request: web.Request,
        largest: int,
        serve: Callable[[web.WebSocketResponse, Callable[[], None]], Awaitable[None]],
    ) -> web.StreamResponse:
        """A WebSocket within the guard's limits (its messages at most ``largest`` bytes), ``serve``d until
        it ends; a 429 where the process or the address has as many as it takes."""
        socket = web.WebSocketResponse(
            max_msg_size=largest, heartbeat=HEARTBEAT, autoping=True, compress=False, timeout=2.0
        )
        if not socket.can_prepare(request).ok:
            raise Refused(400)
        if self.fanout.full:
            return self._too_many(request, FULL_WAIT)
        peer = self.client(request)
        wait = self.guard.open(peer)
        if wait:
            return self._too_many(request, wait)
        try:
            await socket.prepare(request)
            transport = request.transport
            await serve(socket, transport.abort if transport is not None else (lambda: None))
        except ConnectionError:  # gone mid-handshake: nothing to say, nobody to say it to
            pass
        finally:
            self.guard.close(peer)
        return socket

    async def _watch(
        self,
        request: web.Request,
        table: Table,
        socket: web.WebSocketResponse,
        abort: Callable[[], None],
        until: float,
    ) -> None:
        try:
            viewer = await self.fanout.join(table, language(request), socket, abort, until)
        except Exception:
            log.exception("game %d: a browser could not be shown the table", table.id)
            await socket.close(code=1011)
            return
        try:
            with contextlib.suppress(ConnectionError):  # the browser went away mid-answer: nothing to say
                await self.fanout.listen(viewer, socket)
        finally:
            self.fanout.leave(viewer)

    async def _shown(self, guild_id: int) -> bool:
        """Whether a server still lets its games be watched (the fan-out asks, to close the sockets)."""
        return await self._browser(guild_id) != BROWSER_OFF

    # ------------------------------------------------------------------ a server's tables

    async def _server(self, request: web.Request) -> web.Response:
        """A server's live tables, each with a fresh live link, where its admins allow the page (built
        once every ``SERVER_SECONDS`` per language)."""
        guild_id = self._read("s", request.match_info["token"])
        links = self.bot.links
        if links is None or await self._browser(guild_id) != BROWSER_SERVER:
            raise Refused(404)
        lang = language(request)
        body = self._servers.get((guild_id, lang))
        if body is None:
            client = self.client(request)

            async def make() -> bytes:  # anyone with the link opens this page: only what @everyone may see
                sees = visibility.everyone_sees(self.bot.get_guild(guild_id))
                found = (await live_tables(self.bot.store, self.bot.tables, guild_id, sees)).tables
                began, now = self.built.cpu(), self.bot.clock()
                with speaking(lang):
                    entries = [(f"/t/{links.token('t', table.id, now)}", sight(table)) for table in found]
                    made = pages.server_page(entries, lang=lang).encode()
                self.built.bill(client, self.built.cpu() - began)
                self._servers.put((guild_id, lang), made)
                return made

            body = await self.built.once(client, ("server", guild_id, lang), make)
        return page(body)

    # ------------------------------------------------------------------ pictures, css and js

    async def _card(self, request: web.Request) -> web.Response:
        body = cards.card_png(request.match_info["name"], request.match_info["lang"])
        if body is None:
            raise Refused(404)
        return web.Response(body=body, content_type="image/png", headers={"Cache-Control": CARD_CACHE})

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        found = activity_page.static(name) or pages.static(name)
        if found is None:
            raise Refused(404)
        body, kind = found
        return web.Response(body=body, headers={"Content-Type": kind, "Cache-Control": STATIC_CACHE})


def _expires(token: str) -> float:
    """When a live link expires: its middle part (``<game>.<expires>.<sig>``, read by ``Links`` first)."""
    return float(token.split(".")[1])
