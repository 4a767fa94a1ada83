"""How every answer of the pages is dressed: the security headers (a CSP with no inline script or style,
no framing, nosniff, no referrer), what may be kept and for how long, the page's language, and the log
lines aiohttp writes of the connections themselves."""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from bot.edge.web import pages

CSP = (  # i18n: not text
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SECURITY = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Server": "tavern",  # not aiohttp's name and version
}
NO_STORE = "no-store"
CARD_CACHE = "public, max-age=31536000, immutable"  # i18n: not text (a card's picture never changes)
STATIC_CACHE = "public, max-age=86400"  # i18n: not text (the css and js change with the bot's version)


class HttpLog(logging.Logger):
    """aiohttp's own log for the pages' connections. A request that is not HTTP, or over the limits, never
    reaches the pages (aiohttp answers it 400 itself); the internet sends those all day, so each is a line at
    DEBUG rather than an ERROR with its traceback (a flood of them would flood the log). Anything else stays
    an error."""

    def __init__(self) -> None:
        super().__init__("tavern.web.http")
        self.parent = logging.getLogger("tavern.web")

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kw: Any) -> None:
        err = sys.exc_info()[1] if exc_info is True else exc_info
        if isinstance(err, HttpProcessingError):
            self.debug(str(msg) + " (%s)", *args, err.__class__.__name__, **kw)
        else:
            super().exception(msg, *args, exc_info=exc_info, **kw)


def route_of(request: web.Request) -> str:
    """What a log line may say of a request's path: its route, without the link's token."""
    return re.sub(r"^/([trs])/[^/]+", r"/\1/…", request.path[:100])  # i18n: not text


def language(request: web.Request) -> str:
    """The page's language: ``?lang=`` if it names one, else the browser's ``Accept-Language``."""
    asked = request.query.get("lang")
    return pages.language(request.headers.get("Accept-Language"), asked[:8] if asked else None)


def page(html: str | bytes) -> web.Response:
    """A page, never kept by the browser or a proxy."""
    body = html.encode() if isinstance(html, str) else html
    return web.Response(
        body=body, content_type="text/html", charset="utf-8", headers={"Cache-Control": NO_STORE}
    )


async def secure(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer's security headers (errors and WebSocket handshakes too); pages are not kept. An answer
    with a policy of its own keeps it, and may be framed as that policy says (the Activity's page alone:
    ``activity_page.csp``); every other answer is framed nowhere."""
    own = response.headers.get("Content-Security-Policy")
    response.headers.update(SECURITY)
    if own is not None:
        response.headers["Content-Security-Policy"] = own
        del response.headers["X-Frame-Options"]
    response.headers.setdefault("Cache-Control", NO_STORE)
