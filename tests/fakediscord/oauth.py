"""What the fake Discord answers for an Activity's sign-in: OAuth2 codes, their exchange for a bearer token,
``/oauth2/@me``, and the Activity instances a bot may look up.

The Discord client's part (the player agreeing in the ``authorize`` dialog, launching and joining an
Activity) is what a test calls: :meth:`FakeOAuth.authorize` hands out the code the SDK would get, and
:meth:`FakeOAuth.launch` / :meth:`FakeOAuth.join` / :meth:`FakeOAuth.end` make and change instances. The
server's part (what the bot's web server sends) is answered as Discord documents it:

- ``POST /oauth2/token`` (form: ``grant_type=authorization_code``, ``code``, ``client_id``,
  ``client_secret``, optional ``redirect_uri``): a code is good once and for ten minutes, for the application
  whose secret is given; 401 ``invalid_client`` for a wrong client, 400 ``invalid_grant`` for a bad code;
- ``GET /oauth2/@me`` with ``Authorization: Bearer <token>``: the application, the scopes, the expiry, and
  the user with the ``identify`` scope; 401 for any other token;
- ``GET /applications/{app}/activity-instances/{instance}`` with the bot token: the live instance (its
  location and its users), or 404 once every user has left.
"""

from __future__ import annotations

import itertools
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from .errors import DiscordError
from .model import FakeChannel, FakeUser
from .wire import json_answer

CODE_SECONDS = 600  # an authorization code's life
BEARER_SECONDS = 604_800  # an access token's life, as Discord gives it
CLIENT_SECRET = "fake-client-secret-" + "y" * 13


@dataclass(eq=False)
class FakeInstance:
    """One Activity instance: where it was launched, who is in it; ended once everyone left."""

    id: str
    launch_id: str
    channel: FakeChannel
    users: list[FakeUser] = field(default_factory=list)
    ended: bool = False

    def payload(self, app_id: int) -> dict[str, Any]:
        guild = self.channel.guild
        location: dict[str, Any] = {
            "id": f"gc-{guild.id}-{self.channel.id}" if guild else f"pc-{self.channel.id}"
        }
        if guild is not None:
            location |= {"kind": "gc", "channel_id": str(self.channel.id), "guild_id": str(guild.id)}
        else:
            location |= {"kind": "pc", "channel_id": str(self.channel.id)}
        return {
            "application_id": str(app_id),
            "instance_id": self.id,
            "launch_id": self.launch_id,
            "location": location,
            "users": [str(user.id) for user in self.users],
        }


@dataclass
class _Grant:
    user: FakeUser
    scopes: tuple[str, ...]
    expires: float


class FakeOAuth:
    """The OAuth2 and Activity-instance side of one fake Discord (``FakeDiscord.oauth``)."""

    def __init__(self, app_id: Callable[[], int], clock: Callable[[], float] = time.time) -> None:
        self.app_id, self.clock = app_id, clock
        self.client_secret = CLIENT_SECRET
        self.instances: dict[str, FakeInstance] = {}
        self.exchanges: list[tuple[str, int]] = []  # (the code's outcome, the status answered)
        self._codes: dict[str, _Grant] = {}
        self._bearers: dict[str, _Grant] = {}
        self._serial = itertools.count(1)

    # ------------------------------------------------------------------ the Discord client's part

    def authorize(self, user: FakeUser, scopes: tuple[str, ...] = ("identify",)) -> str:
        """The code the SDK's ``authorize`` hands the page once ``user`` agreed."""
        code = secrets.token_urlsafe(20)
        self._codes[code] = _Grant(user, scopes, self.clock() + CODE_SECONDS)
        return code

    def launch(self, channel: FakeChannel, *users: FakeUser) -> FakeInstance:
        """An Activity launched in ``channel`` with ``users`` in it (the first launched it)."""
        number = next(self._serial)
        instance = FakeInstance(
            f"i-{number}-{secrets.token_hex(4)}", f"{number}{secrets.randbits(40)}", channel
        )
        instance.users.extend(users)
        self.instances[instance.id] = instance
        return instance

    def join(self, instance: FakeInstance, user: FakeUser) -> None:
        if user not in instance.users:
            instance.users.append(user)

    def leave(self, instance: FakeInstance, user: FakeUser) -> None:
        """``user`` leaves; when the last one has, the instance ends and is never live again."""
        if user in instance.users:
            instance.users.remove(user)
        instance.ended = instance.ended or not instance.users

    # ------------------------------------------------------------------ the server's part

    async def token(self, request: web.Request) -> web.Response:
        form = await request.post()
        if form.get("client_id") != str(self.app_id()) or form.get("client_secret") != self.client_secret:
            self.exchanges.append(("invalid_client", 401))
            return json_answer({"error": "invalid_client"}, status=401)
        code = form.get("code")
        grant = self._codes.pop(code, None) if isinstance(code, str) else None  # good once
        if form.get("grant_type") != "authorization_code" or grant is None or grant.expires <= self.clock():
            self.exchanges.append(("invalid_grant", 400))
            return json_answer(
                {"error": "invalid_grant", "error_description": 'Invalid "code" in request.'}, status=400
            )
        bearer = secrets.token_urlsafe(24)
        self._bearers[bearer] = _Grant(grant.user, grant.scopes, self.clock() + BEARER_SECONDS)
        self.exchanges.append(("granted", 200))
        return json_answer(
            {
                "access_token": bearer,
                "token_type": "Bearer",
                "expires_in": BEARER_SECONDS,
                "refresh_token": secrets.token_urlsafe(24),
                "scope": " ".join(grant.scopes),
            }
        )

    def me(self, request: web.Request, application: dict[str, Any]) -> web.Response:
        kind, _, bearer = request.headers.get("Authorization", "").partition(" ")
        grant = self._bearers.get(bearer) if kind == "Bearer" else None
        if grant is None or grant.expires <= self.clock():
            raise DiscordError(401, 0, "401: Unauthorized")
        expires = datetime.fromtimestamp(grant.expires, UTC).isoformat()
        answer: dict[str, Any] = {
            "application": application,
            "scopes": list(grant.scopes),
            "expires": expires,
        }
        if "identify" in grant.scopes:
            answer["user"] = grant.user.payload()
        return json_answer(answer)

    def instance(self, app_id: str, instance_id: str) -> web.Response:
        found = self.instances.get(instance_id)
        if app_id != str(self.app_id()) or found is None or found.ended:
            raise DiscordError(404, 0, "404: Not Found")
        return json_answer(found.payload(self.app_id()))
