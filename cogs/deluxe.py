"""``/deluxe …``: open a Bharg Deluxe lobby, and the table commands every game has.

Everything after the command — the lobby, the table, private turn panels, idle players — is the shared table
controller driving the Bharg Deluxe adapter (``bot.games.deluxe``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.edge.translator import cmd
from bot.rules import deluxe as D
from cogs.table_commands import ANYWHERE_CONTEXTS, ANYWHERE_INSTALLS, GameCog

if TYPE_CHECKING:
    from bot.edge.app import TavernBot

GAME = "deluxe"
FAST_START_CHOICES = [
    app_commands.Choice(name=cmd("cmd.deluxe.create.fast-start.none"), value=0),
    app_commands.Choice(name=cmd("cmd.deluxe.create.fast-start.one"), value=1),
    app_commands.Choice(name=cmd("cmd.deluxe.create.fast-start.two"), value=2),
    app_commands.Choice(name=cmd("cmd.deluxe.create.fast-start.three"), value=3),
]


class Deluxe(GameCog):
    """``/deluxe …``."""

    game = GAME
    group = app_commands.Group(
        name=cmd("cmd.deluxe.name"),
        description=cmd("cmd.deluxe.description"),
        allowed_installs=ANYWHERE_INSTALLS,
        allowed_contexts=ANYWHERE_CONTEXTS,
    )

    @group.command(name=cmd("cmd.deluxe.create.name"), description=cmd("cmd.deluxe.create.description"))
    @app_commands.rename(
        target=cmd("cmd.deluxe.create.target"),
        pawns=cmd("cmd.deluxe.create.pawns"),
        courts=cmd("cmd.deluxe.create.courts"),
        fast_start=cmd("cmd.deluxe.create.fast-start"),
    )
    @app_commands.describe(
        target=cmd("cmd.deluxe.create.target.description"),
        pawns=cmd("cmd.deluxe.create.pawns.description"),
        courts=cmd("cmd.deluxe.create.courts.description"),
        fast_start=cmd("cmd.deluxe.create.fast-start.description"),
    )
    @app_commands.choices(fast_start=FAST_START_CHOICES)
    async def create(
        self,
        interaction: discord.Interaction[Any],
        target: app_commands.Range[int, D.MIN_TARGET, D.MAX_TARGET] | None = None,
        pawns: bool = False,
        courts: bool = False,
        fast_start: int = 0,
    ) -> None:
        options = {"target": target, "pawns": pawns, "courts": courts, "fast_start": fast_start}
        await self.bot.controller.commands.open_lobby(interaction, GAME, options)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Deluxe(bot))
