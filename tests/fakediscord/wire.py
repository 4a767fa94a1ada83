"""What the REST modules of the fake share: answers in Discord's shape, and what the middleware leaves on a
request for the route that handles it."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# where the middleware keeps the parsed JSON body, for Rejection.body
BODY_KEY = web.RequestKey("fakediscord.body", dict)
# a multipart request, read once by the middleware: (payload, file parts by part name)
FORM_KEY = web.RequestKey("fakediscord.form", tuple)
# the DM channel a DM-open request asked for, for RequestRecord.channel_id
DM_KEY = web.RequestKey("fakediscord.dm", int)


def json_answer(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """JSON as Discord sends it: discord.py only decodes content-type exactly "application/json" (no
    charset)."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


def no_content() -> web.Response:
    return web.Response(status=204)
