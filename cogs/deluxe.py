"""``/deluxe …``: open a Bharg Deluxe lobby, and the table commands every game has.

Everything after the command — the lobby, the table, private turn panels, idle players — is the shared table
controller driving the Bharg Deluxe adapter (``bot.games.deluxe``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.render import deluxe as R
from bot.rules import deluxe as D
from cogs.table_commands import GameCog

if TYPE_CHECKING:
    from bot.app import TavernBot

GAME = "deluxe"
FAST_START_CHOICES = [app_commands.Choice(name=R.FAST_START_NAMES[k][:100], value=k) for k in range(4)]


class Deluxe(GameCog):
    """``/deluxe …``."""

    game = GAME
    group = app_commands.Group(name="deluxe", description="Bharg Deluxe, 2–6 players", guild_only=True)

    @group.command(name="create", description="Open a Bharg Deluxe table in this channel (2–6 players)")
    @app_commands.describe(
        target="Score to reach: 100 is the usual game, 50 a quick one (the server's usual if left out)",
        pawns="Add the Pawns (both copies)",
        courts="Add the Courts (both copies)",
        fast_start="An optional fast start rule",
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
        await self.bot.controller.open_lobby(interaction, GAME, options)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Deluxe(bot))
