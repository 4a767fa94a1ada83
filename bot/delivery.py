"""Panels to Discord and clicks back: custom ids, the one dynamic item, and best-effort sending.

Every control the bot sends carries its own address: ``tv:<scope>:<key>:<token>:<verb>[:<arg>]`` where scope
``g`` is a game table (key = game id) and ``l`` a lobby (key = lobby id). One :class:`TavernItem` catches them
all, before or after a restart, parses them strictly into a :class:`~bot.games.Click` and hands it to the
table controller. Nothing here knows any game's rules.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Literal

import discord

from bot.errors import UserFacingError, reply_error
from bot.games import Click
from bot.panel import Button, Control, Embed, Panel

if TYPE_CHECKING:
    from bot.app import TavernBot

log = logging.getLogger("tavern.delivery")

TEMPLATE = (
    r"tv:(?P<scope>[gl]):(?P<key>[0-9]{1,20}):(?P<token>[0-9a-z\-]{0,24}):(?P<verb>[a-z_]{1,16})"
    r"(?::(?P<arg>[0-9a-z.\-]{0,48}))?"
)
_COMPILED = re.compile(TEMPLATE)
NO_LONGER = "That button is out of date."
CONTENT_LIMIT = 2000
STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}
DmResult = Literal["sent", "closed", "failed"]


def custom_id(scope: str, key: int, verb: str, *, token: str = "", arg: str = "") -> str:
    text = f"tv:{scope}:{key}:{token}:{verb}" + (f":{arg}" if arg else "")
    if len(text) > 100 or not _COMPILED.fullmatch(text):
        raise ValueError(f"bad custom id {text!r}")
    return text


def parse(cid: str, values: tuple[str, ...] = ()) -> Click:
    """A custom id the bot could have made, or a quiet refusal (anyone can send any custom id)."""
    match = _COMPILED.fullmatch(cid) if cid.isascii() else None
    if match is None:
        raise UserFacingError(NO_LONGER)
    return Click(
        scope=match["scope"],
        key=int(match["key"]),
        token=match["token"],
        verb=match["verb"],
        arg=match["arg"] or "",
        values=values,
    )


class TavernItem(discord.ui.DynamicItem[discord.ui.Item[Any]], template=TEMPLATE):
    """The one dynamic item: every ``tv:`` button or select lands here, before or after a restart."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TavernItem:
        return cls(item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = tuple(str(v) for v in self.item.values) if isinstance(self.item, discord.ui.Select) else ()
        bot: TavernBot = interaction.client
        try:
            async with bot.drain.hold():  # a closing bot refuses new presses and waits for these
                await bot.controller.on_click(interaction, parse(self.custom_id, values))
        except Exception as err:  # every click gets an answer, even a broken one
            await reply_error(interaction, err)


def _item(control: Control, scope: str, key: int) -> TavernItem:
    cid = custom_id(scope, key, control.verb, token=control.token, arg=control.arg)
    item: discord.ui.Item[Any]
    if isinstance(control, Button):
        item = discord.ui.Button(
            label=control.label[:80],
            style=STYLES[control.style],
            emoji=control.emoji,
            disabled=control.disabled,
            row=control.row,
            custom_id=cid,
        )
    else:
        item = discord.ui.Select(
            placeholder=control.placeholder[:150],
            options=[
                discord.SelectOption(
                    label=o.label[:100],
                    value=o.value,
                    description=o.description[:100] if o.description else None,
                    default=o.default,
                )
                for o in control.options[:25]
            ],
            min_values=control.min_values,
            max_values=control.max_values,
            disabled=control.disabled,
            row=control.row,
            custom_id=cid,
        )
    return TavernItem(item)


def view(controls: tuple[Control, ...] | list[Control], scope: str, key: int) -> discord.ui.View | None:
    """A view of self-addressed items (so nothing is kept in memory), or None for no controls."""
    if not controls:
        return None
    result = discord.ui.View(timeout=None)
    for control in controls:
        result.add_item(_item(control, scope, key))
    return result


def embed(spec: Embed) -> discord.Embed:
    return discord.Embed(title=spec.title, description=spec.description, colour=spec.colour)


def kwargs(panel: Panel, scope: str, key: int, *, new: bool = False) -> dict[str, Any]:
    """Send or edit arguments. Editing sets every part (an edit removes old controls); a new message
    leaves out what it does not have."""
    content = panel.content[:CONTENT_LIMIT] or None
    out: dict[str, Any] = {
        "content": content,
        "embeds": [embed(panel.embed)] if panel.embed else [],
        "view": view(panel.controls, scope, key),
    }
    if new:
        out = {k: v for k, v in out.items() if v not in (None, [])}
    return out


async def send_dm(bot: discord.Client, user_id: int, panel: Panel, key: int) -> DmResult:
    """DM a table panel without raising: "closed" when the user's DMs are closed to the bot (403), "failed"
    (logged) for any other Discord error, a passing fault that must not stop the rest of a move."""
    try:
        user = bot.get_user(user_id) or await bot.fetch_user(user_id)
        await user.send(**kwargs(panel, "g", key, new=True))
    except discord.Forbidden as err:
        log.info("DMs closed for user %s (code %s)", user_id, err.code)
        return "closed"
    except discord.HTTPException as err:
        log.warning("could not DM user %s: %s", user_id, err)
        return "failed"
    return "sent"


async def send_ephemeral(interaction: discord.Interaction[Any], panel: Panel, key: int) -> None:
    """Always a *fresh* ephemeral message: old ephemerals can't be edited after their token expires."""
    args = kwargs(panel, "g", key, new=True)
    if interaction.response.is_done():
        await interaction.followup.send(ephemeral=True, **args)
    else:
        await interaction.response.send_message(ephemeral=True, **args)
