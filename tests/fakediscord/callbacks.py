"""The bot's answers to interactions: the callback (``/interactions/{id}/{token}/callback``), follow-ups and
edits of ``@original`` through the interaction's webhook. Discord's refusals are modelled: expired tokens
(10015 Unknown Webhook), double acknowledgement (40060), late callbacks (10062). Interaction tokens die
``token_life`` (15 minutes) after they were issued, on the fake's ``clock`` (``time.monotonic`` unless a test
shares the bot's injectable clock); ``token_ages`` keeps how old each token was whenever the bot used it.
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from .errors import DiscordError
from .messages import FakeInteraction, FakeMessage
from .model import MANAGE_THREADS
from .state import ENTRY_POINT, FakeState
from .validate import validate_modal_payload
from .wire import json_answer, no_content


class Callbacks(FakeState):
    """Interaction callbacks and the interaction webhook's routes."""

    def _interaction(self, iid: int, token: str) -> FakeInteraction:
        it = self._by_tok.get(token)
        if it is None or it.id != iid:
            raise DiscordError(404, 10062, "Unknown interaction")
        self._aged(it)
        return it

    def _by_token(self, token: str) -> FakeInteraction:
        it = self._by_tok.get(token)
        if it is None or it.expired:
            raise DiscordError(404, 10015, "Unknown Webhook")
        self._aged(it)
        if it.expired:
            raise DiscordError(404, 10015, "Unknown Webhook")
        return it

    def _aged(self, it: FakeInteraction) -> None:
        """The token is used now: its age is kept, and past ``token_life`` it is dead, as on Discord."""
        age = self.clock() - it.born
        self.token_ages.append(age)
        if age >= self.token_life:
            it.expired = True

    async def _callback(self, request: web.Request, iid: int, token: str) -> web.Response:
        arrived = time.perf_counter()
        it = self._interaction(iid, token)
        if it.expired or time.monotonic() - it.created > self.callback_deadline:
            raise DiscordError(404, 10062, "Unknown interaction")
        if it.callback_type is not None:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        body, files = await self._read_body(request)
        ctype = int(body.get("type", 0))
        data = body.get("data") or {}
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}[it.type]
        if it.type == 5 and it.message is None:
            allowed = {4, 5}
        if it.type != 4 and any(c.get("type") == ENTRY_POINT for c in self.global_commands):
            allowed = allowed | {12}  # LAUNCH_ACTIVITY, for an app with Activities on
        if ctype not in allowed:
            choices = ", ".join(str(c) for c in sorted(allowed))
            raise DiscordError(
                400,
                50035,
                "Invalid Form Body",
                {
                    "type": {
                        "_errors": [
                            {"code": "BASE_TYPE_CHOICES", "message": f"Value must be one of ({choices})."}
                        ]
                    }
                },
            )
        msg: FakeMessage | None = None
        if ctype in (4, 5):
            self._check_interaction_post(it)
        if ctype == 4:
            msg = self._new_message(it.channel, "response", data, files, it, prefix=("data",))
            it.response = msg
        elif ctype == 5:
            msg = self._new_message(
                it.channel, "response", {"flags": data.get("flags", 0)}, {}, it, loading=True
            )
            it.response = msg
        elif ctype == 7:
            assert it.message is not None
            self._edit(it.message, data, files, prefix=("data",))
            msg = it.message
        elif ctype == 9:
            validate_modal_payload(data)
        launched = self.oauth.launch(it.channel, it.user) if ctype == 12 else None
        it.callback_type, it.callback_data = ctype, data
        if ctype in (4, 5):
            await self._sent_in(it.channel)
        it.callback_at = arrived
        it.answered.set()
        reply: dict[str, Any] = {
            "interaction": {
                "id": str(it.id),
                "type": it.type,
                "activity_instance_id": launched.id if launched else None,
                "response_message_id": str(msg.id) if msg else None,
                "response_message_loading": ctype == 5,
                "response_message_ephemeral": bool(msg and msg.ephemeral),
            },
            "resource": {"type": ctype, **({"message": msg.payload()} if msg else {})},
        }
        return json_answer(reply)

    async def _webhook(self, request: web.Request, token: str, rest: list[str]) -> web.StreamResponse:
        it = self._by_token(token)
        method = request.method
        if method in ("POST", "PATCH"):
            it.replied_at = time.perf_counter()
            if it.first_reply_at is None:
                it.first_reply_at = it.replied_at
        if not rest and method == "POST":
            if it.callback_type is None:
                raise DiscordError(404, 10015, "Unknown Webhook")
            self._check_interaction_post(it)
            if it.channel.bot_absent and len(it.followups) >= self.followups_max:
                raise DiscordError(400, 40094, "Maximum number of follow-up messages for this interaction")
            body, files = await self._read_body(request)
            msg = self._new_message(it.channel, "followup", body, files, it)
            it.followups.append(msg)
            await self._sent_in(it.channel)
            if request.query.get("wait") in ("1", "true", "True"):
                return json_answer(msg.payload())
            return no_content()
        if len(rest) == 2 and rest[0] == "messages":
            msg = self._webhook_message(it, rest[1])
            if method == "GET":
                return json_answer(msg.payload())
            if method == "PATCH":
                body, files = await self._read_body(request)
                self._edit(msg, body, files)
                return json_answer(msg.payload())
            if method == "DELETE":
                self._check_thread_active(msg.channel)
                self._delete_message(msg)
                return no_content()
        self.unhandled.append(f"{method} {request.path}")
        raise DiscordError(404, 0, "fake Discord does not model this webhook route")

    def _check_interaction_post(self, it: FakeInteraction) -> None:
        """An interaction reply needs no permission, but a deleted channel is gone and an archived, locked
        thread takes no message (Discord answers 50083 even to the callback)."""
        channel = it.channel
        if channel.deleted:
            raise DiscordError(404, 10003, "Unknown Channel")
        if channel.is_thread and channel.archived and channel.locked and not channel.bot_has(MANAGE_THREADS):
            raise DiscordError(400, 50083, "Thread is archived")

    def _webhook_message(self, it: FakeInteraction, mid: str) -> FakeMessage:
        if mid == "@original":
            if it.response is not None:
                msg = it.response
            elif it.callback_type in (6, 7) and it.message is not None:
                msg = it.message
            else:
                raise DiscordError(404, 10008, "Unknown Message")
        else:
            found = [m for m in it.followups if m.id == int(mid)]
            if not found and it.response is not None and it.response.id == int(mid):
                found = [it.response]
            if not found:
                raise DiscordError(404, 10008, "Unknown Message")
            msg = found[0]
        if msg.deleted:
            raise DiscordError(404, 10008, "Unknown Message")
        return msg
