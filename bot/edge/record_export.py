"""``/tavern export game:<N>``: a finished (or abandoned) game of this server (outside servers: of the users'
scope, at the asker's own seat) as its record file (``bot.services.game_record``, ``docs/RECORD.md``), sent
only to the asker as a ``.txt`` attachment.

A record holds the seed, and the seed deals every card: a live game's record would show every hidden hand and
the deck to come, so a live game is refused to everyone (it can be exported once it ends). A game of another
server is refused exactly as an unknown number is, so a number tells nothing about other servers.

Writing a record reads the game's whole log and replays it (in a worker thread), so a member may export
``EXPORTS_PER_MINUTE`` games a minute (``bot.services.cooldowns``; a refused export counts for nothing).
"""

from __future__ import annotations

import asyncio
import io
from typing import Any

import discord

from bot.base.i18n import t
from bot.base.refusals import UserFacingError
from bot.edge import visibility
from bot.edge.client import Client
from bot.edge.table.host import scope_of
from bot.services import game_record
from bot.store.records import GameRecord

MAX_ATTACHMENT = 8 * 1024 * 1024  # under Discord's 10 MB for a bot's upload; a record is a few KB
MAX_GAME_ID = 2**63 - 1  # the store's ids are 64-bit

Interaction = discord.Interaction[Any]


def file_name(game_id: int) -> str:
    return f"decktet-tavern-game-{game_id}.txt"  # i18n: not text


async def exportable(
    client: Client, guild_id: int, user_id: int, game_id: int, sees: visibility.Sees
) -> GameRecord:
    """The stored game, if it may be exported here: a game of this scope (``host.scope_of``) that has
    ended, played in a channel the member can view or at their own seat (any other is answered as one that
    does not exist: a record carries the seed)."""
    record = await client.store.load_game(game_id) if 0 < game_id <= MAX_GAME_ID else None
    if record is None or record.guild_id != guild_id or record.game not in client.games:
        raise UserFacingError("record.unknown", id=game_id)
    if not sees(record.channel_id) and all(s.user_id != user_id for s in record.seats):
        raise UserFacingError("record.unknown", id=game_id)
    if record.status == "active":
        raise UserFacingError("record.live", id=game_id)
    return record


async def send(client: Client, interaction: Interaction, game_id: int) -> None:
    """Answer ``/tavern export``: the record as an attachment, only for the asker, its comments in their
    language. Written in a worker thread (it replays the game; the event loop serves the other tables)."""
    sees, scope = visibility.member_sees(interaction), scope_of(interaction)
    with client.limits.exports.reserve(interaction.user.id):  # given back when nothing is sent
        record = await exportable(client, scope, interaction.user.id, game_id, sees)
        text = await asyncio.to_thread(lambda: game_record.encode(game_record.record_of(record)))
        data = text.encode("utf-8")
        if len(data) > MAX_ATTACHMENT:
            raise UserFacingError("record.too-big", most=MAX_ATTACHMENT // 1024)
        title = client.games[record.game].title
        await interaction.response.send_message(
            t("record.sent", id=game_id, game=title),
            file=discord.File(io.BytesIO(data), filename=file_name(game_id)),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
