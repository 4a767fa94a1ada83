"""What the fake Discord knows of the world: users, guilds, channels (DMs, group DMs, threads), their
permissions, and the records of requests, uploads and refusals. What the bot sent is in messages.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

import discord

DISCORD_EPOCH_MS = 1420070400000
EPHEMERAL = 64
LOADING = 128
COMPONENTS_V2 = 1 << 15

ALL_PERMISSIONS = discord.Permissions.all().value
VIEW_CHANNEL = discord.Permissions(view_channel=True).value
SEND_MESSAGES = discord.Permissions(send_messages=True).value
ADMINISTRATOR = discord.Permissions(administrator=True).value
CREATE_PUBLIC_THREADS = discord.Permissions(create_public_threads=True).value
SEND_MESSAGES_IN_THREADS = discord.Permissions(send_messages_in_threads=True).value
MANAGE_THREADS = discord.Permissions(manage_threads=True).value
MANAGE_CHANNELS = discord.Permissions(manage_channels=True).value
HAS_THREAD = 1 << 5  # message flag: a thread was started from this message
PUBLIC_THREAD = 11
AUTO_ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)


class Snowflakes:
    """Monotonic ids whose embedded timestamp is real, so ``created_at`` makes sense in the bot."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        now = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last = max(self._last + 1, now)
        return self._last

    def next_on_shard(self, shard: int, shard_count: int) -> int:
        """The next id whose ``(id >> 22) % shard_count`` is ``shard``, so a guild lands on a chosen shard.

        Each ``1 << 22`` step is one millisecond later and one shard further; the ids after it continue from
        there, so they stay monotonic."""
        assert 0 <= shard < shard_count, f"no shard {shard} among {shard_count}"
        first = self.next()
        self._last = first + (((shard - (first >> 22)) % shard_count) << 22)
        return self._last


def shard_of(guild: FakeGuild | int, shard_count: int) -> int:
    """The shard that gets a guild's gateway events, by Discord's rule ``(guild_id >> 22) % shard_count``."""
    guild_id = guild if isinstance(guild, int) else guild.id
    return (guild_id >> 22) % shard_count


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).isoformat()


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    bot: bool = False
    dms_closed: bool = False
    global_name: str | None = None
    dm_failures: int = 0  # the next N DMs to this user fail with a non-403 error (a passing Discord fault)
    permissions: int = ALL_PERMISSIONS  # the member's permissions in a channel, sent with each interaction
    locale: str = "en-US"  # the user's client language, sent with each interaction (``locale``)

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.global_name or self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} {self.id}>"


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, a DM channel, or a public thread (``parent`` set, type 11).

    A thread has no permissions of its own: what the bot may do there is its parent's ``bot_permissions``.
    """

    id: int
    name: str
    guild: FakeGuild | None = None
    recipient: FakeUser | None = None  # DM channels only
    # A group DM (type 3): its members. The bot is never one of them: a user-installed app reaches a group DM
    # only through the interactions its members send (REST to the channel: 403 50001 Missing Access).
    recipients: tuple[FakeUser, ...] | None = None
    bot_permissions: int = ALL_PERMISSIONS
    bot_user_id: int = 0
    deleted: bool = False
    # A private channel: @everyone may not view it, only these members (and the bot); None: every member.
    viewers: frozenset[int] | None = None
    # threads only
    parent: FakeChannel | None = None
    owner_id: int = 0
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    archive_timestamp: float = field(default_factory=time.time)
    created: float = field(default_factory=time.time)
    message_count: int = 0
    total_message_sent: int = 0
    member_ids: set[int] = field(default_factory=set)

    @property
    def is_dm(self) -> bool:
        """The bot's DM with one user (a group DM is not one: the bot is not in it)."""
        return self.guild is None and self.recipients is None

    @property
    def is_thread(self) -> bool:
        return self.parent is not None

    @property
    def is_group(self) -> bool:
        """A group DM: the bot is not a member, so only interactions reach it."""
        return self.recipients is not None

    @property
    def bot_absent(self) -> bool:
        """Whether the bot is not a member of the channel (a group DM): REST there is refused."""
        return self.is_group

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def permissions(self) -> int:
        """The bot's permissions here: a thread's are its parent's."""
        return self.parent.bot_permissions if self.parent is not None else self.bot_permissions

    def can_view(self, user_id: int) -> bool:
        """Whether a member may view this channel (a thread: its parent; a group DM: its members)."""
        if self.recipients is not None:
            return any(u.id == user_id for u in self.recipients)
        if self.parent is not None:
            return self.parent.can_view(user_id)
        return self.viewers is None or user_id in self.viewers

    def bot_has(self, permission: int) -> bool:
        """Whether the bot holds every bit of ``permission`` here (administrator holds them all)."""
        perms = self.permissions
        return perms & ADMINISTRATOR != 0 or perms & permission == permission

    def can_post(self) -> bool:
        send = SEND_MESSAGES_IN_THREADS if self.is_thread else SEND_MESSAGES
        return self.bot_has(VIEW_CHANNEL | send)

    def thread_payload(self) -> dict[str, Any]:
        assert self.parent is not None and self.guild is not None
        return {
            "id": str(self.id),
            "type": PUBLIC_THREAD,
            "guild_id": str(self.guild.id),
            "parent_id": str(self.parent.id),
            "owner_id": str(self.owner_id),
            "name": self.name,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
            "message_count": self.message_count,
            "total_message_sent": self.total_message_sent,
            "member_count": min(len(self.member_ids), 50),
            "thread_metadata": {
                "archived": self.archived,
                "auto_archive_duration": self.auto_archive_duration,
                "archive_timestamp": iso(self.archive_timestamp),
                "locked": self.locked,
                "create_timestamp": iso(self.created),
            },
        }

    def payload(self) -> dict[str, Any]:
        if self.parent is not None:
            return self.thread_payload()
        if self.recipients is not None:
            return {
                "id": str(self.id),
                "type": 3,
                "name": self.name,
                "icon": None,
                "owner_id": str(self.owner_id),
                "recipients": [u.payload() for u in self.recipients],
                "last_message_id": None,
            }
        if self.guild is None:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": 1,
                "recipients": [self.recipient.payload()],
                "last_message_id": None,
            }
        overwrites = []
        bot_allow = 0 if self.viewers is None else VIEW_CHANNEL
        bot_deny = ALL_PERMISSIONS & ~self.bot_permissions & ~ADMINISTRATOR
        if bot_allow or bot_deny:
            overwrites.append(
                {"id": str(self.bot_user_id), "type": 1, "allow": str(bot_allow), "deny": str(bot_deny)}
            )
        if self.viewers is not None:
            overwrites.append({"id": str(self.guild.id), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)})
            overwrites += [
                {"id": str(uid), "type": 1, "allow": str(VIEW_CHANNEL), "deny": "0"}
                for uid in sorted(self.viewers)
            ]
        return {
            "id": str(self.id),
            "type": 0,
            "guild_id": str(self.guild.id),
            "name": self.name,
            "position": 0,
            "permission_overwrites": overwrites,
            "topic": None,
            "nsfw": False,
            "parent_id": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "default_auto_archive_duration": 1440,
        }

    def __repr__(self) -> str:
        if self.recipients is not None:
            where = "group DM " + ", ".join(u.name for u in self.recipients)
        elif self.recipient is not None:
            where = "DM " + self.recipient.name
        elif self.parent is not None:
            where = f"thread {self.name!r} in #{self.parent.name}"
        else:
            where = "#" + self.name
        return f"<FakeChannel {where} {self.id}{' deleted' if self.deleted else ''}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    channels: list[FakeChannel] = field(default_factory=list)
    members: list[FakeUser] = field(default_factory=list)
    threads: list[FakeChannel] = field(default_factory=list)  # every thread ever started, deleted ones too
    preferred_locale: str = "en-US"  # the server's language (Community servers set it), in GUILD_CREATE

    def member_payload(self, user: FakeUser, *, with_user: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [],
            "joined_at": iso(time.time()),
            "deaf": False,
            "mute": False,
            "flags": 0,
            "nick": None,
            "avatar": None,
            "pending": False,
        }
        if with_user:
            data["user"] = user.payload()
        return data

    def payload(self) -> dict[str, Any]:
        everyone = {
            "id": str(self.id),
            "name": "@everyone",
            "permissions": str(ALL_PERMISSIONS & ~ADMINISTRATOR),
            "position": 0,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "owner_id": str(self.owner_id),
            "roles": [everyone],
            "emojis": [],
            "stickers": [],
            "features": [],
            "channels": [c.payload() for c in self.channels if not c.deleted],
            "members": [self.member_payload(u) for u in self.members],
            "member_count": len(self.members),
            "presences": [],
            "voice_states": [],
            # the active threads, as Discord syncs them on connect
            "threads": [t.payload() for t in self.threads if not t.deleted and not t.archived],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "large": False,
            "unavailable": False,
            "premium_tier": 0,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "system_channel_flags": 0,
            "preferred_locale": self.preferred_locale,
            "description": None,
            "joined_at": iso(time.time()),
        }

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} {self.id}>"


@dataclass
class Rejection:
    """A request the fake refused the way Discord would (403 closed DMs, 404 unknown webhook...)."""

    method: str
    path: str
    status: int
    code: int
    message: str
    errors: dict[str, Any] = field(default_factory=dict)  # Discord's nested field errors (code 50035)
    body: dict[str, Any] | None = None  # the JSON body of a refused message, to see what was sent


# ------------------------------------------------------------------------------------------- uploads, emojis


@dataclass(frozen=True)
class FilePart:
    """One ``files[n]`` part of a multipart request: its part name, the filename it carried, its bytes."""

    name: str
    filename: str
    data: bytes = field(repr=False)

    @property
    def index(self) -> str:
        """The ``n`` of ``files[n]``: what an ``attachments`` entry's ``id`` names for a new upload."""
        return self.name[len("files[") : -1]


class RequestRecord(NamedTuple):
    """One REST request of the bot with what ties it to a table, for load figures that follow a move to its
    last request (``FakeDiscord.request_log``)."""

    at: float  # time.perf_counter() when the request arrived
    method: str
    path: str  # without /api/v10
    status: int  # what the fake answered
    channel_id: int | None  # the channel in the path, or the DM channel a DM-open request asked for
    token: str | None  # the interaction token of a callback or webhook request


class UploadRecord(NamedTuple):
    """One request that carried file parts, as it reached the fake (injected failures included)."""

    method: str
    path: str  # without /api/v10
    filenames: tuple[str, ...]
    sizes: tuple[int, ...]
    status: int  # what the fake answered


@dataclass(eq=False)
class FakeEmoji:
    """A custom emoji owned by the application (uploaded through the API by the bot, or in the portal)."""

    id: int
    name: str
    user: FakeUser
    animated: bool = False
    image: bytes = field(default=b"", repr=False)

    @property
    def mention(self) -> str:
        """How message content shows it: ``<:name:id>``, ``<a:name:id>`` if animated."""
        return f"<{'a' if self.animated else ''}:{self.name}:{self.id}>"

    def partial(self) -> dict[str, Any]:
        """The partial emoji a component carries."""
        return {"id": str(self.id), "name": self.name, "animated": self.animated}

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "roles": [],
            "user": self.user.payload(),
            "require_colons": True,
            "managed": False,
            "animated": self.animated,
            "available": True,
        }
