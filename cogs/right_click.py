"""The right-click challenge: user context-menu commands on a member or a DM partner — "Challenge to
Bhargage", "Challenge to Cribbage", "Invite to Bharg Deluxe" — installable both ways and usable anywhere.
Each opens the same challenge or lobby as its slash command (``Commands.open_lobby``): a challenge of the
right-clicked player, or a Deluxe lobby with them seated (they may leave it)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.edge.table.host import player
from bot.edge.translator import cmd
from cogs.table_commands import ANYWHERE_CONTEXTS, ANYWHERE_INSTALLS

if TYPE_CHECKING:
    from bot.edge.app import TavernBot

Interaction = discord.Interaction[Any]
Menu = Callable[[Interaction, discord.User], Coroutine[Any, Any, None]]

# (catalog id of the menu's name, game, the slash command's defaults, a challenge (else a lobby invite))
MENUS: tuple[tuple[app_commands.locale_str, str, dict[str, Any], bool], ...] = (
    (cmd("cmd.menu.bhargage"), "bhargage", {"target": None, "sequences": False}, True),
    (cmd("cmd.menu.cribbage"), "cribbage", {"target": 121, "muggins": False, "double_lurch": False}, True),
    (
        cmd("cmd.menu.deluxe"),
        "deluxe",
        {"target": None, "pawns": False, "courts": False, "fast_start": 0},
        False,
    ),
)


class RightClick(commands.Cog):
    """The three user commands; a context menu can't live in a cog's class body, so the cog adds them."""

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot
        self.menus = [
            app_commands.ContextMenu(
                name=name,
                callback=self._opener(game, options, challenge),
                type=discord.AppCommandType.user,
                allowed_installs=ANYWHERE_INSTALLS,
                allowed_contexts=ANYWHERE_CONTEXTS,
            )
            for name, game, options, challenge in MENUS
        ]

    def _opener(self, game: str, options: dict[str, Any], challenge: bool) -> Menu:
        async def opened(interaction: discord.Interaction[Any], user: discord.User) -> None:
            commands_ = self.bot.controller.commands
            if challenge:
                await commands_.open_lobby(interaction, game, dict(options), invited=player(user))
            else:
                await commands_.open_lobby(interaction, game, dict(options), members=[player(user)])

        return opened

    async def cog_load(self) -> None:
        for menu in self.menus:
            self.bot.tree.add_command(menu)

    async def cog_unload(self) -> None:
        for menu in self.menus:
            self.bot.tree.remove_command(menu.name, type=menu.type)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(RightClick(bot))
