"""``/tavern history [player] [game]``: a member's finished games in this server (outside servers: in the
users' scope, only those the asker sat at), newest first, ten to a page, only for the asker; ◀ ▶ turn the
pages by updating that same message (one callback, no other request).

A page button carries its own address, ``tv:hist:<user id>:<game or all>:<page>``, parsed strictly (anyone can
send any custom id) and checked to be on the pressed message; the server is always the press's own, so a
forged id can only show what ``/tavern history`` would show its presser there.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

import discord
from babel.dates import format_date

from bot.base import safe
from bot.base.i18n import Msg, current, t
from bot.base.refusals import UserFacingError
from bot.edge import custom_ids, delivery, visibility
from bot.edge.client import Client
from bot.edge.table.host import scope_of
from bot.games import GameAdapter
from bot.games.seats import is_bot
from bot.store.records import PastGame

PREFIX = "tv:hist:"  # i18n: not text
_ID = re.compile(r"tv:hist:(?P<user>-?[0-9]{1,20}):(?P<game>[a-z]{1,16}):(?P<page>[1-9][0-9]{0,3})", re.ASCII)
# A game won with the losers lurched (Classic Cribbage's double game), as its result says it.
LURCHED = {"lurch": Msg("general.history.lurch"), "double-lurch": Msg("general.history.double-lurch")}
PAGE = 10  # games per page: ten short lines read on a phone
ALL = "all"  # i18n: not text
COLOUR = 0x2B7A78

Interaction = discord.Interaction[Any]


def parse(cid: object) -> tuple[int, str, int]:
    match = _ID.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a history page")
    return int(match["user"]), match["game"], int(match["page"])


def line(past: PastGame, user_id: int, games: Any) -> str:
    """One game: its number, date, game, the result and everyone else's score, and where it was played."""
    adapter: GameAdapter | None = games.get(past.game)
    when = format_date(datetime.fromtimestamp(past.finished_at, UTC), format="medium", locale=current())
    others = ", ".join(
        f"{'🤖 ' if is_bot(s.user_id) else ''}{s.name} {s.score if s.score is not None else '—'}"
        for s in past.seats
        if s.user_id != user_id
    )
    result = (
        t("general.history.won", score=past.score)
        if past.won
        else t("general.history.lost", score=past.score)
    )
    if past.how in LURCHED:
        result += " · " + str(LURCHED[past.how])
    if past.rating_before is not None and past.rating_after is not None:
        change = round(past.rating_after) - round(past.rating_before)
        result += " · " + t("general.history.rating", change=f"{change:+d}")
    return t(
        "general.history.line",
        id=past.game_id,
        date=when,
        game=adapter.title if adapter is not None else past.game,
        result=result,
        others=others,
        where=f"<#{past.thread_id or past.channel_id}>",
    )


async def page(
    client: Client,
    interaction: Interaction,
    guild_id: int,
    user_id: int,
    game: str,
    number: int,
    name: str = "",
) -> tuple[discord.Embed, discord.ui.View]:
    """Page ``number`` of the member's history (of ``game``, or ``ALL``), titled with the name they played
    under (``name`` where the page has no game to take it from). Only the games the one asking may see: in
    the channels they can view, or at their own seat (``bot.edge.visibility``)."""
    seen_by = (interaction.user.id, visibility.channels_seen(interaction))
    games, total = await client.store.history(
        guild_id,
        user_id,
        None if game == ALL else game,
        offset=(number - 1) * PAGE,
        limit=PAGE,
        seen_by=seen_by,
    )
    pages = max(1, math.ceil(total / PAGE))
    name = next((s.name for g in games for s in g.seats if s.user_id == user_id), name)
    text = "\n".join(line(g, user_id, client.games) for g in games) or t("general.history.none")
    title = t("general.history.title", name=name, page=min(number, pages), pages=pages)
    embed = discord.Embed(title=title[: delivery.EMBED_TITLE_LIMIT], description=text, colour=COLOUR)
    view = delivery.Controls()
    if pages > 1:  # newer ◀ ▶ older, off at either end (their ids differ: the pages either side)
        for label, to in (("◀", max(1, number - 1)), ("▶", min(pages, number + 1))):
            cid = f"{PREFIX}{user_id}:{game}:{to}"
            style = discord.ButtonStyle.secondary
            view.add_item(discord.ui.Button(label=label, style=style, custom_id=cid, disabled=to == number))
    return embed, view


async def show(client: Client, interaction: Interaction, who: discord.abc.User, game: str | None) -> None:
    """Answer ``/tavern history``: page 1, only for the asker."""
    if game is not None and game not in client.games:
        raise UserFacingError("general.history.unknown-game")
    name = safe.name(getattr(who, "display_name", who.name), who.name)
    scope = scope_of(interaction)
    embed, view = await page(client, interaction, scope, who.id, game or ALL, 1, name)
    await interaction.response.send_message(
        embed=embed, view=view, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
    )


async def turn(client: Client, interaction: Interaction) -> None:
    """A page button: that page, in the same message."""
    user_id, game, number = custom_ids.pressed(interaction, parse)
    if game != ALL and game not in client.games:
        raise custom_ids.Refused("a history page of no game")
    embed, view = await page(client, interaction, scope_of(interaction), user_id, game, number)
    await interaction.response.edit_message(embed=embed, view=view)
