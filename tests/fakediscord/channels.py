"""The channel and guild routes: messages in a channel, typing, reactions, deleting channels, and public
threads (type 11), which follow Discord's threads topic: the bot's permissions there are its parent's
(CREATE_PUBLIC_THREADS to start one, SEND_MESSAGES_IN_THREADS to talk), a thread shares its starter message's
id and a message starts at most one (400 160004), archived threads take no edit or delete (400 50083) while a
new message unarchives them unless they are locked (then 50083, or 403 160005 when locked but active) for
anyone without MANAGE_THREADS. Deleted channels and threads answer 404 10003.
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from .errors import DiscordError, FormErrors
from .messages import FakeMessage
from .model import (
    AUTO_ARCHIVE_DURATIONS,
    CREATE_PUBLIC_THREADS,
    MANAGE_CHANNELS,
    MANAGE_THREADS,
    PUBLIC_THREAD,
    VIEW_CHANNEL,
    FakeChannel,
)
from .state import API, FakeState
from .wire import json_answer, no_content


def _thread_form(body: dict[str, Any], errors: FormErrors) -> None:
    """A thread's name (1–100 characters) and auto-archive minutes, where the body gives them."""
    if "name" in body:
        name = body["name"]
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            errors.add(("name",), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
    duration = body.get("auto_archive_duration")
    if duration is not None and duration not in AUTO_ARCHIVE_DURATIONS:
        errors.add(
            ("auto_archive_duration",), "BASE_TYPE_CHOICES", f"Value must be one of {AUTO_ARCHIVE_DURATIONS}."
        )


class Channels(FakeState):
    """The routes under ``/channels`` and ``/guilds``, and channels and threads deleted, started, changed."""

    def _guild_route(self, method: str, p: list[str]) -> web.Response:
        guild = self.guilds.get(int(p[1]))
        if guild is None:
            raise DiscordError(404, 10004, "Unknown Guild")
        if len(p) == 2 and method == "GET":
            return json_answer(guild.payload())
        if len(p) == 3 and p[2] == "channels" and method == "GET":
            return json_answer([c.payload() for c in guild.channels if not c.deleted])
        if len(p) == 4 and p[2] == "members" and method == "GET":
            user = self._user(int(p[3]))
            if user not in guild.members:
                raise DiscordError(404, 10007, "Unknown Member")
            return json_answer(guild.member_payload(user))
        self.unhandled.append(f"{method} /guilds/{'/'.join(p[1:])}")
        raise DiscordError(404, 0, "fake Discord does not model this guild route")

    async def _channel_route(self, request: web.Request, p: list[str]) -> web.StreamResponse:
        method = request.method
        channel = self._channel(int(p[1]))
        if channel.bot_absent:
            self.absent_refusals.append((method, request.path.removeprefix(API)))
            raise DiscordError(403, 50001, "Missing Access")
        n = len(p)
        if n == 2 and method == "GET":
            return json_answer(channel.payload())
        if n == 2 and method == "PATCH" and channel.is_thread:
            return await self._modify_thread(request, channel)
        if n == 2 and method == "DELETE" and not channel.is_dm:
            need = MANAGE_THREADS if channel.is_thread else MANAGE_CHANNELS
            if not channel.bot_has(VIEW_CHANNEL | need):
                raise DiscordError(403, 50013, "Missing Permissions")
            payload = channel.payload()
            await self._delete_channel(channel)
            return json_answer(payload)
        if n == 3 and p[2] == "threads" and method == "POST":
            return await self._start_thread(request, channel, None)
        if n == 3 and p[2] == "typing" and method == "POST":
            return no_content()
        if n == 3 and p[2] == "messages" and method == "POST":
            self._check_post(channel)
            body, files = await self._read_body(request)
            msg = self._new_message(channel, "channel", body, files)
            await self._sent_in(channel)
            return json_answer(msg.payload())
        if n == 3 and p[2] == "messages" and method == "GET":
            limit = int(request.query.get("limit", "50"))
            msgs = [m for m in self.channel_messages(channel)][::-1][:limit]
            return json_answer([m.payload() for m in msgs])
        if n >= 4 and p[2] == "messages":
            msg = self.messages.get(int(p[3]))
            if msg is None or msg.channel is not channel or msg.deleted or msg.ephemeral:
                raise DiscordError(404, 10008, "Unknown Message")
            if n == 4 and method == "GET":
                return json_answer(msg.payload())
            if n == 4 and method == "PATCH":
                body, files = await self._read_body(request)
                self._edit(msg, body, files)
                return json_answer(msg.payload())
            if n == 4 and method == "DELETE":
                self._check_thread_active(channel)
                self._delete_message(msg)
                return no_content()
            if n == 5 and p[4] == "threads" and method == "POST":
                return await self._start_thread(request, channel, msg)
            if n >= 6 and p[4] == "reactions" and method in ("PUT", "DELETE"):
                return no_content()
        self.unhandled.append(f"{method} {request.path}")
        raise DiscordError(404, 0, "fake Discord does not model this channel route")

    async def delete_channel(self, channel: FakeChannel) -> None:
        """Delete a channel or thread (a channel takes its threads with it): every route then answers 404
        10003 Unknown Channel and its messages are gone. Dispatches THREAD_DELETE or CHANNEL_DELETE."""
        await self._delete_channel(channel)

    async def _delete_channel(self, channel: FakeChannel) -> None:
        assert not channel.is_dm and not channel.deleted, f"{channel!r} cannot be deleted"
        if channel.guild is not None and not channel.is_thread:
            for thread in channel.guild.threads:
                if thread.parent is channel and not thread.deleted:
                    await self._delete_channel(thread)
        channel.deleted = True
        for msg in self._in_channel.get(channel.id, ()):
            msg.deleted = True
        starter = self.messages.get(channel.id)  # a thread started from a message takes that message's id
        if starter is not None and starter.thread is channel:
            starter.thread = None
        if channel.is_thread:
            assert channel.guild is not None and channel.parent is not None
            gone = {
                "id": str(channel.id),
                "guild_id": str(channel.guild.id),
                "parent_id": str(channel.parent.id),
                "type": PUBLIC_THREAD,
            }
            await self._dispatch("THREAD_DELETE", gone)
        else:
            await self._dispatch("CHANNEL_DELETE", channel.payload())

    async def _start_thread(
        self, request: web.Request, parent: FakeChannel, message: FakeMessage | None
    ) -> web.Response:
        """Start Thread from Message (``message``) or without one (public threads only)."""
        if parent.is_dm or parent.is_thread:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        if not parent.bot_has(VIEW_CHANNEL | CREATE_PUBLIC_THREADS):
            raise DiscordError(403, 50013, "Missing Permissions")
        body, _ = await self._read_body(request)
        errors = FormErrors()
        name = body.get("name")
        if errors.required(("name",), name) and not isinstance(name, str):
            errors.add(("name",), "BASE_TYPE_STRING", "Must be a string.")
        _thread_form({k: v for k, v in body.items() if k != "name" or (isinstance(v, str) and v)}, errors)
        duration = body.get("auto_archive_duration")
        if message is None and body.get("type", 12) != PUBLIC_THREAD:
            self.unhandled.append(f"{request.method} {request.path} type={body.get('type')} (private thread)")
            raise DiscordError(400, 0, "fake Discord models only public threads (type 11)")
        errors.raise_if_any()
        if message is not None and message.thread is not None:
            raise DiscordError(400, 160004, "A thread has already been created for this message")
        assert parent.guild is not None
        thread = FakeChannel(
            message.id if message is not None else self.ids.next(),
            str(name),
            guild=parent.guild,
            bot_user_id=self.bot_user.id,
            parent=parent,
            owner_id=self.bot_user.id,
            auto_archive_duration=int(duration or 1440),
            member_ids={self.bot_user.id},
        )
        parent.guild.threads.append(thread)
        self.channels[thread.id] = thread
        if message is not None:
            message.thread = thread
            self._notify(message)
        await self._dispatch("THREAD_CREATE", {**thread.payload(), "newly_created": True})
        return json_answer(thread.payload(), 201)

    async def _modify_thread(self, request: web.Request, thread: FakeChannel) -> web.Response:
        """PATCH a thread: ``archived``, ``locked``, ``name``, ``auto_archive_duration``."""
        body, _ = await self._read_body(request)
        moderator = thread.bot_has(MANAGE_THREADS)
        owner = thread.owner_id == self.bot_user.id
        unarchive = body.get("archived") is False
        if thread.archived and not unarchive:
            raise DiscordError(400, 50083, "Thread is archived")
        if unarchive and thread.locked and not moderator:
            raise DiscordError(403, 50013, "Missing Permissions")
        if "locked" in body and bool(body["locked"]) != thread.locked and not moderator:
            raise DiscordError(403, 50013, "Missing Permissions")
        if any(k in body for k in ("name", "auto_archive_duration")) and not (moderator or owner):
            raise DiscordError(403, 50013, "Missing Permissions")
        errors = FormErrors()
        _thread_form(body, errors)
        errors.raise_if_any()
        duration = body.get("auto_archive_duration")
        if "name" in body:
            thread.name = str(body["name"])
        if duration is not None:
            thread.auto_archive_duration = int(duration)
            thread.archive_timestamp = time.time()
        if "locked" in body:
            thread.locked = bool(body["locked"])
        if "archived" in body and bool(body["archived"]) != thread.archived:
            thread.archived = bool(body["archived"])
            thread.archive_timestamp = time.time()
        await self._dispatch("THREAD_UPDATE", thread.payload())
        return json_answer(thread.payload())
