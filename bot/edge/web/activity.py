"""The Activity's sign-in (docs/ACTIVITY.md, "The handshake and sign-in"): nothing the Discord client says is
trusted, so the server asks Discord.

The page posts ``{"code", "instance_id"}`` to ``POST /a/token``: the code the SDK's ``authorize`` gave it
(scope ``identify``). The server exchanges the code at Discord's ``/oauth2/token`` with the application's
client secret (which never leaves the server), asks ``/oauth2/@me`` with the bearer token it got (the
application must be this bot's; the user is whoever signed in), then asks, with the bot's token, for the
Activity instance (``/applications/{app}/activity-instances/{id}``): it must be live and list that user. Its
location is the one the server believes. The page is answered the bearer token (once, for the SDK's
``authenticate``) and a session token of our own (``Links.session``), which its socket sends first; the
server keeps neither Discord token.

A code is good once (Discord's rule), so a replayed request is refused by Discord itself; any refusal here is
a 401 or 403 with no detail for the page, and a line for the operator.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
from aiohttp import web

from bot.services.links import INSTANCE, Links

log = logging.getLogger("tavern.web.activity")

CODE = re.compile(r"[A-Za-z0-9._~-]{1,128}", re.ASCII)  # an OAuth2 code as this side takes one
TIMEOUT = aiohttp.ClientTimeout(total=10.0)


class SignInRefused(Exception):
    """The sign-in failed: ``status`` is what the page is answered (400 a malformed request, 401 Discord did
    not take the code, 403 the user is not in that instance, 502 Discord did not answer)."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status


@dataclass(frozen=True)
class SignedIn:
    """Who signed in, where (as Discord says, not the client), and the two tokens the page is answered."""

    user_id: int
    instance_id: str
    guild_id: int | None
    channel_id: int | None
    session: str = field(repr=False)
    access_token: str = field(repr=False)


def parse_request(body: Any) -> tuple[str, str]:
    """The code and instance of a sign-in request, strictly: a JSON object with exactly those two strings."""
    if not isinstance(body, dict) or set(body) != {"code", "instance_id"}:
        raise SignInRefused(400, "not a sign-in request")
    code, instance = body["code"], body["instance_id"]
    if not isinstance(code, str) or not CODE.fullmatch(code):
        raise SignInRefused(400, "not an OAuth2 code")
    if not isinstance(instance, str) or not INSTANCE.fullmatch(instance):
        raise SignInRefused(400, "not an instance id")
    return code, instance


class SignIn:
    """Signs players of the Activity in, with Discord's word for who and where they are."""

    def __init__(
        self,
        *,
        http: discord.http.HTTPClient,
        app_id: Callable[[], int | None],
        client_secret: str,
        links: Callable[[], Links | None],
        clock: Callable[[], float],
        api: Callable[[], str] = lambda: discord.http.Route.BASE,
    ) -> None:
        self.http, self.app_id, self.links, self.clock, self.api = http, app_id, links, clock, api
        self._secret = client_secret
        self._session: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=TIMEOUT)
        return self._session

    async def answer(self, request: web.Request) -> web.Response:
        """``POST /a/token``'s answer: the two tokens, or a bare status (the operator's log says why)."""
        try:
            if request.content_type != "application/json":
                raise SignInRefused(400, "not JSON")
            try:
                body = json.loads(await request.read())
            except ValueError:
                raise SignInRefused(400, "not JSON") from None
            signed = await self.sign_in(*parse_request(body))
        except SignInRefused as refused:
            log.info("An Activity sign-in was refused (%d): %s", refused.status, refused)
            return web.json_response({"error": refused.status}, status=refused.status)
        log.info("An Activity sign-in: user %d, instance %s", signed.user_id, signed.instance_id)
        return web.json_response({"access_token": signed.access_token, "session": signed.session})

    async def sign_in(self, code: str, instance_id: str) -> SignedIn:
        app_id = self.app_id()
        if app_id is None:
            raise SignInRefused(502, "the bot has not logged in yet")
        bearer = await self._exchange(app_id, code)
        user_id = await self._who(app_id, bearer)
        guild_id, channel_id = await self.where(app_id, instance_id, user_id)
        links = self.links()
        if links is None:
            raise SignInRefused(502, "the pages have no key to sign a session with")
        session = links.session(user_id, instance_id, self.clock())
        return SignedIn(user_id, instance_id, guild_id, channel_id, session, bearer)

    async def _exchange(self, app_id: int, code: str) -> str:
        """The bearer token for ``code`` (Discord takes a code once)."""
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": str(app_id),
            "client_secret": self._secret,
        }
        answer = await self._call("POST", "/oauth2/token", data=form)
        token = answer.get("access_token")
        if answer.get("token_type") != "Bearer" or not isinstance(token, str) or not token:
            raise SignInRefused(401, "Discord did not take the code")
        if "identify" not in str(answer.get("scope", "")).split():
            raise SignInRefused(401, "the code was not granted the identify scope")
        return token

    async def _who(self, app_id: int, bearer: str) -> int:
        """The user the bearer token is for, where it was given to this application."""
        answer = await self._call("GET", "/oauth2/@me", headers={"Authorization": f"Bearer {bearer}"})
        application, user = answer.get("application"), answer.get("user")
        if not isinstance(application, dict) or str(application.get("id")) != str(app_id):
            raise SignInRefused(401, "the token is another application's")
        if not isinstance(user, dict) or not str(user.get("id", "")).isdecimal():
            raise SignInRefused(401, "the token names no user")
        return int(user["id"])

    async def where(self, app_id: int, instance_id: str, user_id: int) -> tuple[int | None, int | None]:
        """The live instance's guild and channel, where it lists ``user_id`` (asked with the bot's token,
        through discord.py: the request counts against the bot's budget)."""
        route = discord.http.Route(
            "GET",
            "/applications/{application_id}/activity-instances/{instance_id}",
            application_id=app_id,
            instance_id=instance_id,
        )
        try:
            found: Any = await self.http.request(route)
        except discord.NotFound:
            raise SignInRefused(403, "no such live instance") from None
        except discord.HTTPException as err:
            raise SignInRefused(502, f"Discord answered {err.status} for the instance") from None
        users = found.get("users") if isinstance(found, dict) else None
        if not isinstance(users, list) or str(user_id) not in users:
            raise SignInRefused(403, "the user is not in that instance")
        location = found.get("location") or {}
        return _snowflake(location.get("guild_id")), _snowflake(location.get("channel_id"))

    async def _call(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        """One OAuth2 request with the player's credentials (not the bot's): an answer's JSON object, or a
        refusal."""
        try:
            async with self._client().request(method, self.api() + path, **kw) as response:
                answer = await response.json(content_type=None)
                status = response.status
        except (aiohttp.ClientError, TimeoutError, ValueError) as err:
            raise SignInRefused(502, f"{method} {path}: {err.__class__.__name__}") from None
        if status == 401 or status == 400:
            raise SignInRefused(401, f"{method} {path} answered {status}")
        if status != 200 or not isinstance(answer, dict):
            raise SignInRefused(502, f"{method} {path} answered {status}")
        return answer


def _snowflake(value: object) -> int | None:
    return int(value) if isinstance(value, str) and value.isdecimal() else None
