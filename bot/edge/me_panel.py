"""``/tavern me``: a player's preferences (:class:`bot.games.Prefs`) as a private panel of switches.

Each switch is a button carrying the value it sets, ``tv:me:<name>:<0|1>``; a press stores the change and
answers by redrawing the same message (one callback, no other request). Anyone can send any custom id: it is
parsed strictly (a known name, 0 or 1) and must be on the pressed message (``custom_ids.offered``); the change
is the presser's own, whoever's panel it was.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.base.i18n import t
from bot.edge import custom_ids, delivery
from bot.edge.client import Client
from bot.games import Prefs
from bot.games.prefs import label as _label

PREFIX = "tv:me:"  # i18n: not text
_ID = re.compile(r"tv:me:(?P<name>[a-z_]{1,20}):(?P<value>[01])", re.ASCII)  # i18n: not text
COLOUR = 0x5865F2

Interaction = discord.Interaction[Any]


def parse(cid: object) -> tuple[str, bool]:
    """The preference a switch sets and its new value, or ``custom_ids.Refused``."""
    match = _ID.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None or match["name"] not in Prefs.names():
        raise custom_ids.Refused(f"custom id {cid!r} is not a preference switch")
    return match["name"], match["value"] == "1"


def _about(name: str) -> str:
    if name == "auto_cut":
        return t("general.me.auto-cut.about")
    if name == "auto_play":
        return t("general.me.auto-play.about")
    return t("general.me.quick-discard.about")


def panel(prefs: Prefs) -> tuple[discord.Embed, discord.ui.View]:
    """The switches as they stand: one line each (on or off, and what it does) and a button that flips it."""
    lines, view = [], delivery.Controls()
    for name in Prefs.names():
        on = bool(getattr(prefs, name))
        state = t("general.me.on") if on else t("general.me.off")
        lines.append(t("general.me.line", label=_label(name), state=state, about=_about(name)))
        style = discord.ButtonStyle.success if on else discord.ButtonStyle.secondary
        label = f"{'✅' if on else '⬜'} {_label(name)}"[:80]
        view.add_item(discord.ui.Button(label=label, style=style, custom_id=f"{PREFIX}{name}:{int(not on)}"))
    lines.append(t("general.me.footer"))
    embed = discord.Embed(title=t("general.me.title"), description="\n".join(lines), colour=COLOUR)
    return embed, view


async def show(client: Client, interaction: Interaction) -> None:
    """Answer ``/tavern me``: the asker's switches, only for them."""
    embed, view = panel(client.preferences.of(interaction.user.id))
    await interaction.response.send_message(embed=embed, view=view, ephemeral=True)


async def flip(client: Client, interaction: Interaction) -> None:
    """A switch was pressed: store the presser's change, redraw the panel in the same message."""
    name, value = custom_ids.pressed(interaction, parse)
    prefs = await client.preferences.change(interaction.user.id, name, value)
    embed, view = panel(prefs)
    await interaction.response.edit_message(embed=embed, view=view)
