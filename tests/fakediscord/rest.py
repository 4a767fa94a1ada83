"""The HTTP side: the middleware every REST request goes through (body read once, the referee, hangs,
injected failures, the global rate limit, upload checks, then the route; Discord's error shape for every
refusal, and the records tests read), and the dispatch of ``/api/v10`` paths to the modules that model them.
"""

from __future__ import annotations

import json
import time
import traceback
from typing import Any

from aiohttp import web

from .errors import DiscordError
from .model import FakeChannel, FakeUser, FilePart, Rejection, RequestRecord, UploadRecord
from .state import API, FakeState
from .wire import BODY_KEY, DM_KEY, FORM_KEY, Handler, json_answer


class Rest(FakeState):
    """The middleware and the routes that belong to no resource of their own."""

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path.startswith("/gateway"):
            return await handler(request)
        self._inflight += 1
        self._touch()
        arrived = time.perf_counter()
        parts: dict[str, FilePart] = {}
        try:
            try:
                refused: DiscordError | None = None
                if request.content_type.startswith("multipart/"):
                    body, parts = await self._read_form(request)
                    request[FORM_KEY] = (body, parts)
                    request[BODY_KEY] = body
                    refused = self._referee(request, body, parts)
                else:
                    body = await self._json_body(request)
                    if isinstance(body, dict):
                        request[BODY_KEY] = body
                    refused = self._referee(request, body, {})
                await self._hung(request)
                self._injected_failure(request)
                self._global_rate(request)
                if parts:
                    self._check_uploads(parts)
                if refused is not None:
                    raise refused
                response = await handler(request)
            except DiscordError as err:
                self.rejected.append(
                    Rejection(
                        request.method,
                        request.path,
                        err.status,
                        err.code,
                        err.message,
                        errors=err.errors,
                        body=request.get(BODY_KEY),
                    )
                )
                response = json_answer(err.body(), err.status, headers=err.headers)
            except ConnectionResetError:
                # The client went away while its request was being read (a bot process killed mid-upload):
                # no answer can reach it, and nothing is wrong with the fake.
                self.dropped_requests += 1
                response = json_answer({"code": 0, "message": "the client went away"}, 400)
            except Exception:
                self.errors.append(f"{request.method} {request.path}\n{traceback.format_exc()}")
                # 400, not 500: discord.py retries 5xx with sleeps, which would only slow the failure down.
                response = json_answer({"code": 0, "message": "fake Discord crashed; see fake.errors"}, 400)
            self.requests.append((request.method, request.path, response.status))
            self.request_log.append(self._record(request, arrived, response.status))
            if parts:
                self.uploads.append(
                    UploadRecord(
                        request.method,
                        request.path.removeprefix(API),
                        tuple(part.filename for part in parts.values()),
                        tuple(len(part.data) for part in parts.values()),
                        response.status,
                    )
                )
            return response
        finally:
            self._inflight -= 1
            self._touch()

    @staticmethod
    async def _json_body(request: web.Request) -> Any:
        """A request's JSON body, or None (no body, or not JSON: the route's handler answers that)."""
        if not request.body_exists or request.content_type != "application/json":
            return None
        try:
            return json.loads(await request.read())
        except ValueError:
            return None

    @staticmethod
    def _record(request: web.Request, arrived: float, status: int) -> RequestRecord:
        path = request.path.removeprefix(API)
        p = path.strip("/").split("/")
        channel_id: int | None = request.get(DM_KEY)
        token: str | None = None
        if p[0] == "channels" and len(p) >= 2 and p[1].isdigit():
            channel_id = int(p[1])
        elif p[0] in ("interactions", "webhooks") and len(p) >= 3:
            token = p[2]
        return RequestRecord(arrived, request.method, path, status, channel_id, token)

    async def _dispatch_rest(self, request: web.Request) -> web.StreamResponse:
        parts = request.match_info["tail"].strip("/").split("/")
        method = request.method
        p = parts
        n = len(p)
        # Interaction endpoints authenticate with the interaction token, not the bot token.
        if p[0] == "interactions" and n == 4 and p[3] == "callback" and method == "POST":
            return await self._callback(request, int(p[1]), p[2])
        if p[0] == "webhooks" and n >= 3:
            return await self._webhook(request, p[2], p[3:])
        if p == ["oauth2", "token"] and method == "POST":  # (the client's secret, not the bot's token)
            return await self.oauth.token(request)
        if p == ["oauth2", "@me"] and method == "GET":  # (a player's bearer token)
            return self.oauth.me(request, self._application())
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordError(401, 0, "401: Unauthorized")
        if p[0] == "applications" and n == 4 and p[2] == "activity-instances" and method == "GET":
            return self.oauth.instance(p[1], p[3])
        if p == ["users", "@me"] and method == "GET":
            return json_answer(self.bot_user.payload())
        if p == ["gateway", "bot"] and method == "GET":
            return json_answer(self._gateway_bot())
        if p == ["oauth2", "applications", "@me"] and method == "GET":
            return json_answer(self._application())
        if p[0] == "applications" and n in (3, 4) and p[2] == "emojis":
            return await self._emojis(request, p)
        if p[0] == "applications" and p[-1] == "commands":
            guild_id = int(p[3]) if n == 5 and p[2] == "guilds" else None
            return await self._commands(request, guild_id)
        if p == ["users", "@me", "channels"] and method == "POST":
            body = await request.json()
            user = self._user(int(body["recipient_id"]))
            dm = self.dm_channel(user)
            request[DM_KEY] = dm.id
            return json_answer(dm.payload())
        if p[0] == "users" and n == 2 and method == "GET":
            return json_answer(self._user(int(p[1])).payload())
        if p[0] == "guilds" and n >= 2:
            return self._guild_route(method, p)
        if p[0] == "channels" and n >= 2:
            return await self._channel_route(request, p)
        self.unhandled.append(f"{method} {request.path}")
        raise DiscordError(404, 0, f"fake Discord does not model {method} {request.path}")

    def _application(self) -> dict[str, Any]:
        return {
            "id": str(self.app_id),
            "name": self.bot_user.name,
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.owner.payload(),
            "verify_key": "0" * 64,
            "flags": 0,
            "team": None,
        }

    def _user(self, user_id: int) -> FakeUser:
        user = self.users.get(user_id)
        if user is None:
            raise DiscordError(404, 10013, "Unknown User")
        return user

    def _channel(self, channel_id: int) -> FakeChannel:
        channel = self.channels.get(channel_id)
        if channel is None or channel.deleted:
            raise DiscordError(404, 10003, "Unknown Channel")
        return channel
