"""Messages the bot posts, edits and deletes (in channels, threads, DMs, and as interaction answers): who may
post where (closed DMs 50007, missing permissions 50013, archived or locked threads 50083 and 160005), every
body checked as Discord would (validate.py: 50035 Invalid Form Body, 50006 empty message), and the listeners
told of each change.
"""

from __future__ import annotations

import time
from typing import Any

from .errors import DiscordError
from .messages import FakeInteraction, FakeMessage
from .model import EPHEMERAL, LOADING, MANAGE_THREADS, FakeChannel, FilePart
from .state import FakeState
from .uploads import file_names
from .validate import validate_message_payload


class Posting(FakeState):
    """Creating, editing and deleting messages, wherever the route that asked for it."""

    def _check_post(self, channel: FakeChannel) -> None:
        if channel.is_dm:
            assert channel.recipient is not None
            if channel.recipient.dms_closed or channel.recipient.bot:
                raise DiscordError(403, 50007, "Cannot send messages to this user")
            if channel.recipient.dm_failures > 0:
                channel.recipient.dm_failures -= 1
                # 400, not 5xx: discord.py retries 5xx with sleeps, which would only slow the test down.
                raise DiscordError(400, 0, "fake passing failure")
            if not self.shares_a_server(channel.recipient):
                raise DiscordError(403, 50007, "Cannot send messages to this user")
        elif not channel.can_post():
            raise DiscordError(403, 50013, "Missing Permissions")
        elif channel.is_thread:
            self._check_thread_writable(channel, sending=True)

    def _check_thread_active(self, channel: FakeChannel) -> None:
        """Archived threads take no edits, reactions or deletes until unarchived (400 50083)."""
        if channel.is_thread and channel.archived:
            raise DiscordError(400, 50083, "Thread is archived")

    def _check_thread_writable(self, channel: FakeChannel, *, sending: bool) -> None:
        """Whether the bot may post (``sending``) or edit in a thread: an archived one only takes a new
        message (which unarchives it) unless it is locked; a locked one only from MANAGE_THREADS."""
        if not channel.is_thread:
            return
        moderator = channel.bot_has(MANAGE_THREADS)
        if channel.archived and (not sending or (channel.locked and not moderator)):
            raise DiscordError(400, 50083, "Thread is archived")
        if channel.locked and not moderator:
            raise DiscordError(403, 160005, "Thread is locked")

    async def _sent_in(self, channel: FakeChannel) -> None:
        """A message sent in an archived (unlocked, or by a moderator) thread unarchives it."""
        if channel.is_thread:
            channel.member_ids.add(self.bot_user.id)
            if channel.archived:
                channel.archived = False
                channel.archive_timestamp = time.time()
                await self._dispatch("THREAD_UPDATE", channel.payload())

    def _delete_message(self, msg: FakeMessage) -> None:
        msg.deleted = True
        if msg.channel.is_thread and not msg.ephemeral:
            msg.channel.message_count = max(0, msg.channel.message_count - 1)
        self._notify(msg)

    def _emoji_ids(self) -> set[int]:
        """Custom emoji ids the bot may put in components: its application's (the fake's guilds have none)."""
        return {e.id for e in self.application_emojis}

    def _new_message(
        self,
        channel: FakeChannel,
        source: str,
        body: dict[str, Any],
        files: dict[str, FilePart],
        interaction: FakeInteraction | None = None,
        *,
        loading: bool = False,
        prefix: tuple[str, ...] = (),
    ) -> FakeMessage:
        plan = [] if loading else self._plan_attachments(body, files, None, prefix)
        if not loading:
            validate_message_payload(
                body,
                prefix=prefix,
                attachments=len(plan),
                emoji_ids=self._emoji_ids(),
                files=file_names(plan),
            )
        content = str(body.get("content") or "")
        embeds = list(body.get("embeds") or [])
        components = list(body.get("components") or [])
        flags = int(body.get("flags") or 0)
        if loading:
            flags |= LOADING
        ref = body.get("message_reference") or {}
        attachments = self._store_attachments(plan, channel, ephemeral=bool(flags & EPHEMERAL))
        msg = FakeMessage(
            id=self.ids.next(),
            channel=channel,
            author=self.bot_user,
            source=source,
            content=content,
            embeds=embeds,
            components=components,
            flags=flags,
            attachments=attachments,
            files={a["filename"]: self.attachment_data[int(a["id"])] for a in attachments},
            interaction=interaction,
            reference_id=int(ref["message_id"]) if ref.get("message_id") else None,
            allowed_mentions=body.get("allowed_mentions"),
        )
        msg.shown_text()
        self.messages[msg.id] = msg
        self._in_channel.setdefault(channel.id, []).append(msg)
        if channel.is_thread and not msg.ephemeral:
            channel.message_count += 1
            channel.total_message_sent += 1
        self._notify(msg)
        return msg

    def _notify(self, msg: FakeMessage) -> None:
        for listener in self.listeners:
            listener(msg)

    def _edit(
        self,
        msg: FakeMessage,
        body: dict[str, Any],
        files: dict[str, FilePart],
        *,
        prefix: tuple[str, ...] = (),
    ) -> None:
        self._check_thread_writable(msg.channel, sending=False)
        plan = self._plan_attachments(body, files, msg, prefix)
        validate_message_payload(
            body,
            current=msg,
            prefix=prefix,
            attachments=len(plan),
            emoji_ids=self._emoji_ids(),
            files=file_names(plan),
        )
        msg.edits.append(msg.snapshot())
        msg.edited = time.time()
        if "content" in body:
            msg.content = str(body["content"] or "")
        if "embeds" in body:
            msg.embeds = list(body["embeds"] or [])
        if "components" in body:
            msg.components = list(body["components"] or [])
        if "flags" in body and body["flags"] is not None:
            msg.flags = (msg.flags & EPHEMERAL) | int(body["flags"])
        if body.get("allowed_mentions") is not None:
            msg.allowed_mentions = body["allowed_mentions"]
        msg.attachments = self._store_attachments(plan, msg.channel, ephemeral=msg.ephemeral)
        msg.files = {a["filename"]: self.attachment_data[int(a["id"])] for a in msg.attachments}
        msg.flags &= ~LOADING
        msg.shown_text()
        self._notify(msg)
