"""Who may see a game: a game is listed, replayed, exported or linked only to members who can view the channel
it was played in (its thread is a public thread of that channel, so the channel decides), and to its own
players, who sat at it whatever the channel's permissions are now. The web's server page, which anyone with
its link opens, lists only the games of channels ``@everyone`` can view.

Permissions are worked out from the bot's cache of the guild (its channels, roles and overwrites, kept by the
guilds intent) and the member of the interaction (its roles come with it). A channel the cache does not hold
(deleted, or a guild of another process's shards) is seen by nobody: nothing private leaks from a gap.

Outside servers that added the bot (a DM, a group DM, a server where only users installed it) the games
asked for are the users' scope's (``host.scope_of``, the rule that scoped them when they were played), and no
channel is seen there (the bot holds no guild to view it in): only the games the asker sat at are theirs to
see, so a group DM's member never sees another's DM games.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

Sees = Callable[[int], bool]  # channel id -> whether the one asking may see its games


def member_sees(interaction: discord.Interaction[Any]) -> Sees:
    """What the member behind ``interaction`` may see, channel by channel (each worked out once)."""
    guild, member = interaction.guild, interaction.user
    known: dict[int, bool] = {}

    def sees(channel_id: int) -> bool:
        if channel_id not in known:
            known[channel_id] = _can_view(guild, member, channel_id)
        return known[channel_id]

    return sees


def channels_seen(interaction: discord.Interaction[Any]) -> frozenset[int]:
    """Every channel of the interaction's server its member may view (for a query that must leave the
    others out, such as a history's pages)."""
    guild, member = interaction.guild, interaction.user
    if guild is None:
        return frozenset()
    return frozenset(c.id for c in guild.channels if _can_view(guild, member, c.id))


def everyone_sees(guild: discord.Guild | None) -> Sees:
    """What ``@everyone`` of ``guild`` may see (the server page's rule), channel by channel."""
    known: dict[int, bool] = {}

    def sees(channel_id: int) -> bool:
        if channel_id not in known:
            known[channel_id] = guild is not None and _can_view(guild, guild.default_role, channel_id)
        return known[channel_id]

    return sees


def _can_view(guild: discord.Guild | None, who: Any, channel_id: int) -> bool:
    if guild is None or not isinstance(who, discord.Member | discord.Role):
        return False
    channel = guild.get_channel_or_thread(channel_id)
    if channel is None:
        return False
    return bool(channel.permissions_for(who).view_channel)
