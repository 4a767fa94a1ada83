"""``/tavern replay game:<N>``: a game step by step, only for the asker — the board picture and the calls
the table told at each step (everyone's cards once they were shown: the shows are calls), turned with
⏮ ⏪ ◀ ▶ ⏩ ⏭ (first, previous hand, previous, next, next hand, last) by updating that same message.

What a step shows is what the game's channel showed everyone at that point (``bot.services.replay``), never
a hidden hand. A finished (or abandoned) game of the asker's server is open to anyone there who can view its
channel; a live game only to its own players, up to what its table has told — anyone else is told to watch its
thread instead. Outside servers (a DM, a group DM) only the users' scope's games the asker sat at are open.

A button carries its own address, ``tv:replay:<game id>:<step>:<which>``, parsed strictly (anyone can send
any custom id) and checked to be on the pressed message; each press checks again who may see the game, so a
forged id shows nothing its presser could not open with the command.

The command reads a game's whole log and walks it, so a member may use it ``REPLAYS_PER_MINUTE`` times a
minute (``bot.services.cooldowns``; a refused one counts for nothing); the walk runs in a worker thread,
and is kept (``REPLAYS``), so the buttons that step through it walk nothing again.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Protocol

import discord

from bot.base.i18n import t
from bot.base.refusals import UserFacingError
from bot.edge import custom_ids, delivery, visibility
from bot.edge.table.host import scope_of
from bot.games import Table, clip
from bot.services import replay as rp
from bot.services.cooldowns import Limits
from bot.store import Store

PREFIX = "tv:replay:"  # i18n: not text
_STEP = r"(?P<game>[1-9][0-9]{0,18}):(?P<step>0|[1-9][0-9]{0,5})"  # i18n: not text
_ID = re.compile(  # i18n: not text
    rf"tv:replay:{_STEP}:(?P<which>first|hand-|prev|next|hand\+|last)", re.ASCII
)
COLOUR = 0x2B7A78
PICTURE_WAIT = 1.5  # seconds a step waits for its picture before it goes as text (the answer is due in 3)
REPLAYS = rp.Replays()  # this process's recent replays

Interaction = discord.Interaction[Any]


class Reader(Protocol):
    """What a replay's reading needs of the bot (a stepper's press)."""

    @property
    def store(self) -> Store: ...
    @property
    def games(self) -> Any: ...


class Client(Reader, Protocol):
    """What the command needs: the reading, and the members' limits."""

    @property
    def limits(self) -> Limits: ...


def parse(cid: object) -> tuple[int, int]:
    """(game id, step) of a stepper button; ``Refused`` for anything else."""
    match = _ID.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a replay step")
    return int(match["game"]), int(match["step"])


async def replay_for(
    client: Reader, guild_id: int, user_id: int, game_id: int, sees: visibility.Sees
) -> rp.Replay:
    """The game's replay, if this member may see it here: a game of this scope (``host.scope_of``) played
    in a channel they can view (or at their own seat), finished, or live with them at its table (a live game
    is told only as far as its table told it). A game they may not see is answered as one that does not
    exist."""
    record = await client.store.load_game(game_id)
    if record is None or record.guild_id != guild_id or record.game not in client.games:
        raise UserFacingError("replay.unknown", id=game_id)
    if not sees(record.channel_id) and all(s.user_id != user_id for s in record.seats):
        raise UserFacingError("replay.unknown", id=game_id)
    if record.status == "active" and all(s.user_id != user_id for s in record.seats):
        raise UserFacingError("replay.live", id=game_id)
    found = REPLAYS.get(record.id, record.version)
    if found is None:  # walked beside the event loop, which serves the other tables meanwhile
        found = await asyncio.to_thread(rp.of_record, client.games[record.game], record)
        REPLAYS.put(record.id, record.version, found)
    return found


BUTTONS = (("first", "⏮"), ("hand-", "⏪"), ("prev", "◀"), ("next", "▶"), ("hand+", "⏩"), ("last", "⏭"))


def controls(replay: rp.Replay, index: int) -> discord.ui.View:
    """The six steppers (two rows: back, forward); those that would not move are off."""
    view = delivery.Controls()
    game_id = replay.table.id
    for n, (which, emoji) in enumerate(BUTTONS):
        to = replay.targets(index)[which]
        label = t("replay.hand") if which in ("hand-", "hand+") else None  # the hand jumps say so
        view.add_item(
            discord.ui.Button(
                label=label,
                emoji=emoji,
                style=discord.ButtonStyle.secondary,
                custom_id=f"{PREFIX}{game_id}:{to}:{which}",
                disabled=to == index,
                row=n // 3,
            )
        )
    return view


def step_message(replay: rp.Replay, index: int) -> tuple[discord.Embed, discord.ui.View, Any]:
    """Step ``index`` (clamped) as an embed with its buttons, and the picture to show in it (or None)."""
    index = max(0, min(index, len(replay.steps) - 1))
    step = replay.steps[index]
    table: Table = replay.at(index)
    adapter = table.adapter
    calls = adapter.announce(table, step.events)
    board = adapter.board(table)
    picture = calls.picture or board.picture
    hands = replay.steps[-1].hand
    title = t(
        "replay.title",
        id=table.id,
        game=adapter.title,
        step=index + 1,
        steps=len(replay.steps),
        hand=step.hand,
        hands=hands,
    )
    tail = [adapter.score_line(table)]
    if index == len(replay.steps) - 1 and not replay.finished:
        tail.append(t("replay.live-end"))
    room = delivery.EMBED_DESCRIPTION_LIMIT - len("\n\n".join(tail)) - 2
    said = "\n".join(m for m in calls.messages if m) or t("replay.quiet")
    text = clip(said.split("\n"), room) + "\n\n" + "\n\n".join(tail)
    embed = discord.Embed(title=title[: delivery.EMBED_TITLE_LIMIT], description=text, colour=COLOUR)
    if picture is not None:
        embed.set_image(url=f"attachment://{picture.filename}")
    return embed, controls(replay, index), picture


async def _answer(interaction: Interaction, replay: rp.Replay, index: int, *, edit: bool) -> None:
    embed, view, picture = step_message(replay, index)
    files = await delivery.draw(picture, PICTURE_WAIT)
    if picture is not None and not files:
        embed.set_image(url=None)  # not drawn in time: the text carries the step
    none = discord.AllowedMentions.none()
    if edit:
        await interaction.response.edit_message(embed=embed, view=view, attachments=files)
    else:
        await interaction.response.send_message(
            embed=embed, view=view, files=files, ephemeral=True, allowed_mentions=none
        )


async def show(client: Client, interaction: Interaction, game_id: int) -> None:
    """Answer ``/tavern replay``: the game's first step, only for the asker."""
    sees, scope = visibility.member_sees(interaction), scope_of(interaction)
    with client.limits.replays.reserve(interaction.user.id):  # given back when nothing is shown
        replay = await replay_for(client, scope, interaction.user.id, game_id, sees)
        await _answer(interaction, replay, 0, edit=False)


async def turn(client: Reader, interaction: Interaction) -> None:
    """A stepper button: that step, in the same message (who may see the game is checked again)."""
    game_id, index = custom_ids.pressed(interaction, parse)
    sees, scope = visibility.member_sees(interaction), scope_of(interaction)
    replay = await replay_for(client, scope, interaction.user.id, game_id, sees)
    await _answer(interaction, replay, index, edit=True)
