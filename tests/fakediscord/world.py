"""The world tests set up and read: users, guilds, channels, DMs and group DMs, permissions, members leaving,
archived threads; and what the bot left in it (messages, DMs, ephemerals, threads, rejections).

Group DMs (``add_group_dm``, type 3) are where a user-installed app lives without being a member: their
interactions carry ``context`` 2 and ``authorizing_integration_owners`` ``{"1": user_id}``, every channel REST
route there answers 403 50001 Missing Access (kept in ``absent_refusals``), and each interaction may send at
most 5 follow-ups (400 40094). ``remove_member`` makes a user leave a server; the bot cannot DM someone it
shares no server with (403 50007).
"""

from __future__ import annotations

import time

from .gateway import GUILD_MEMBERS_INTENT
from .messages import FakeMessage
from .model import ALL_PERMISSIONS, FakeChannel, FakeGuild, FakeUser, Rejection
from .state import FakeState


class World(FakeState):
    """Setting up the world and reading what the bot did in it."""

    def add_user(self, name: str, *, bot: bool = False, dms_closed: bool = False) -> FakeUser:
        """A user, member of every existing guild."""
        user = FakeUser(self.ids.next(), name, bot=bot, dms_closed=dms_closed)
        self.users[user.id] = user
        for guild in self.guilds.values():
            guild.members.append(user)
        return user

    def add_guild(self, name: str, *, shard: int | None = None, shard_count: int = 2) -> FakeGuild:
        """A guild with the bot and every known human user as members (visible to bots started later).

        ``shard``: its id is picked so that the guild belongs to that shard of ``shard_count`` (``shard_of``),
        for tests of bots that run as several shards."""
        gid = self.ids.next() if shard is None else self.ids.next_on_shard(shard, shard_count)
        guild = FakeGuild(gid, name, owner_id=getattr(self, "owner", self.bot_user).id)
        guild.members.extend(self.users.values())
        self.guilds[guild.id] = guild
        return guild

    def add_channel(
        self, name: str, guild: FakeGuild | None = None, *, bot_permissions: int = ALL_PERMISSIONS
    ) -> FakeChannel:
        guild = guild or self.guild
        channel = FakeChannel(
            self.ids.next(), name, guild=guild, bot_permissions=bot_permissions, bot_user_id=self.bot_user.id
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    async def set_bot_permissions(self, channel: FakeChannel, permissions: int) -> None:
        """Change what the bot may do in ``channel`` (an int or ``discord.Permissions(...).value``); a
        thread's permissions are its parent's, so set those."""
        assert not channel.is_thread, f"{channel!r} takes its permissions from its parent"
        channel.bot_permissions = int(permissions)
        await self._dispatch("CHANNEL_UPDATE", channel.payload())

    async def make_private(self, channel: FakeChannel, *viewers: FakeUser) -> None:
        """``channel`` becomes private: @everyone may not view it, only ``viewers`` (and the bot), as a
        permission overwrite denying VIEW_CHANNEL to @everyone and allowing it to each. Dispatches the whole
        channel as CHANNEL_CREATE (discord.py adds it, or replaces the one it has)."""
        assert not channel.is_thread and not channel.is_dm, f"{channel!r}: a thread is its parent's"
        channel.viewers = frozenset(u.id for u in viewers)
        # A channel added after the bot connected is news to it (Discord sends CHANNEL_CREATE as it is
        # made); an update of one it knows is CHANNEL_UPDATE. Both carry the whole channel.
        await self._dispatch("CHANNEL_CREATE", channel.payload())

    async def archive(self, thread: FakeChannel, *, locked: bool = False) -> None:
        """Archive ``thread`` (as Discord does after its inactivity time, or a moderator), locked too if
        asked: then only MANAGE_THREADS can unarchive it or post in it. Dispatches THREAD_UPDATE."""
        assert thread.is_thread and not thread.deleted, f"{thread!r} is not a live thread"
        thread.archived = True
        thread.locked = thread.locked or locked
        thread.archive_timestamp = time.time()
        await self._dispatch("THREAD_UPDATE", thread.payload())

    async def remove_member(self, guild: FakeGuild, user: FakeUser) -> None:
        """``user`` leaves ``guild``: GUILD_MEMBER_REMOVE (only with the GUILD_MEMBERS intent, as Discord),
        no more interactions from them there, and no DMs from the bot once they share no server with it."""
        assert user is not self.bot_user, "the bot leaving a server is not modelled"
        assert user in guild.members, f"{user!r} is not a member of {guild!r}"
        guild.members.remove(user)
        payload = {"guild_id": str(guild.id), "user": user.payload()}
        await self._dispatch("GUILD_MEMBER_REMOVE", payload, intent=GUILD_MEMBERS_INTENT)

    def shares_a_server(self, user: FakeUser) -> bool:
        """Whether ``user`` and the bot are both members of some guild (else the bot cannot DM them)."""
        return any(user in g.members and self.bot_user in g.members for g in self.guilds.values())

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use, as Discord does)."""
        if user.id not in self._dms:
            channel = FakeChannel(
                self.ids.next(), f"dm-{user.name}", recipient=user, bot_user_id=self.bot_user.id
            )
            self._dms[user.id] = channel
            self.channels[channel.id] = channel
        return self._dms[user.id]

    def add_group_dm(self, *users: FakeUser, name: str = "friends") -> FakeChannel:
        """A group DM of ``users`` (the first owns it); the bot is not a member."""
        channel = FakeChannel(
            self.ids.next(),
            name,
            recipients=tuple(users),
            owner_id=users[0].id,
            bot_user_id=self.bot_user.id,
            bot_permissions=0,
        )
        self.channels[channel.id] = channel
        return channel

    def expire_tokens(self) -> None:
        """Every interaction token issued so far dies, as after Discord's 15 minutes."""
        for it in self.interactions:
            it.expired = True

    def channel_messages(self, channel: FakeChannel, *, include_ephemeral: bool = False) -> list[FakeMessage]:
        """Live (not deleted) bot messages in a channel, oldest first; ephemerals only on request."""
        return [
            m
            for m in self._in_channel.get(channel.id, ())
            if not m.deleted and (include_ephemeral or not m.ephemeral)
        ]

    def threads(self, channel: FakeChannel) -> list[FakeChannel]:
        """Live (not deleted) threads started in ``channel``, archived ones included, oldest first."""
        assert channel.guild is not None, f"{channel!r} has no threads"
        return [t for t in channel.guild.threads if t.parent is channel and not t.deleted]

    def thread_of(self, message: FakeMessage) -> FakeChannel | None:
        """The live thread started from ``message``, if any."""
        thread = message.thread
        return thread if thread is not None and not thread.deleted else None

    def last_message(self, channel: FakeChannel) -> FakeMessage:
        msgs = self.channel_messages(channel)
        if not msgs:
            raise AssertionError(f"the bot has posted nothing in {channel!r}")
        return msgs[-1]

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Live messages the bot sent to ``user`` in DMs (empty if it never opened the DM)."""
        channel = self._dms.get(user.id)
        return [] if channel is None else self.channel_messages(channel)

    def ephemerals(self, user: FakeUser) -> list[FakeMessage]:
        """Live ephemeral messages only ``user`` can see, oldest first."""
        return [m for m in self.messages.values() if m.ephemeral and not m.deleted and m.viewer is user]

    def rejections(self, code: int | None = None) -> list[Rejection]:
        return [r for r in self.rejected if code is None or r.code == code]
