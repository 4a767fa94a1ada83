"""``/bhargage …``: challenge someone, the hand calculator, and the table commands every game has.

Everything after the command — the challenge, the table, private hands, idle players — is the shared table
controller driving the Bhargage adapter (``bot.games.bhargage``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.ai import DEFAULT_LEVEL, LEVELS
from bot.edge.table.host import player
from bot.edge.translator import cmd
from bot.games.bhargage import COUNT_CARDS_LIMIT, COUNT_UP_LIMIT, count_answer, discard_answer
from bot.rules import bhargage as bh
from cogs.table_commands import ANYWHERE_CONTEXTS, ANYWHERE_INSTALLS, GameCog

if TYPE_CHECKING:
    from bot.edge.app import TavernBot

GAME = "bhargage"
Interaction = discord.Interaction[Any]
LEVEL_CHOICES = {
    "easy": cmd("cmd.bhargage.practice.level.easy"),
    "normal": cmd("cmd.bhargage.practice.level.normal"),
    "hard": cmd("cmd.bhargage.practice.level.hard"),
    "expert": cmd("cmd.bhargage.practice.level.expert"),
}


class Bhargage(GameCog):
    """``/bhargage …``."""

    game = GAME
    group = app_commands.Group(
        name=cmd("cmd.bhargage.name"),
        description=cmd("cmd.bhargage.description"),
        allowed_installs=ANYWHERE_INSTALLS,
        allowed_contexts=ANYWHERE_CONTEXTS,
    )

    @group.command(
        name=cmd("cmd.bhargage.challenge.name"), description=cmd("cmd.bhargage.challenge.description")
    )
    @app_commands.rename(
        opponent=cmd("cmd.bhargage.challenge.opponent"),
        target=cmd("cmd.bhargage.challenge.target"),
        sequences=cmd("cmd.bhargage.challenge.sequences"),
    )
    @app_commands.describe(
        opponent=cmd("cmd.bhargage.challenge.opponent.description"),
        target=cmd("cmd.bhargage.challenge.target.description"),
        sequences=cmd("cmd.bhargage.challenge.sequences.description"),
    )
    async def challenge(
        self,
        interaction: Interaction,
        opponent: discord.User,
        target: app_commands.Range[int, bh.MIN_TARGET, bh.MAX_TARGET] | None = None,
        sequences: bool = False,
    ) -> None:
        options = {"target": target, "sequences": sequences}
        await self.bot.controller.commands.open_lobby(interaction, GAME, options, invited=player(opponent))

    @group.command(
        name=cmd("cmd.bhargage.practice.name"), description=cmd("cmd.bhargage.practice.description")
    )
    @app_commands.rename(
        level=cmd("cmd.bhargage.practice.level"),
        target=cmd("cmd.bhargage.practice.target"),
        sequences=cmd("cmd.bhargage.practice.sequences"),
    )
    @app_commands.describe(
        level=cmd("cmd.bhargage.practice.level.description"),
        target=cmd("cmd.bhargage.practice.target.description"),
        sequences=cmd("cmd.bhargage.practice.sequences.description"),
    )
    @app_commands.choices(level=[app_commands.Choice(name=LEVEL_CHOICES[lv], value=lv) for lv in LEVELS])
    async def practice(
        self,
        interaction: Interaction,
        level: str = DEFAULT_LEVEL,
        target: app_commands.Range[int, bh.MIN_TARGET, bh.MAX_TARGET] | None = None,
        sequences: bool = False,
    ) -> None:
        options = {"target": target, "sequences": sequences}
        await self.bot.controller.commands.practice(interaction, GAME, level, options)

    @group.command(name=cmd("cmd.bhargage.discard.name"), description=cmd("cmd.bhargage.discard.description"))
    @app_commands.rename(
        cards=cmd("cmd.bhargage.discard.cards"),
        dealer=cmd("cmd.bhargage.discard.dealer"),
        sequences=cmd("cmd.bhargage.discard.sequences"),
    )
    @app_commands.describe(
        cards=cmd("cmd.bhargage.discard.cards.description"),
        dealer=cmd("cmd.bhargage.discard.dealer.description"),
        sequences=cmd("cmd.bhargage.discard.sequences.description"),
    )
    async def discard(
        self,
        interaction: Interaction,
        cards: app_commands.Range[str, 1, COUNT_CARDS_LIMIT],
        dealer: bool,
        sequences: bool = False,
    ) -> None:
        self.bot.limits.calculators.take(interaction.user.id)
        answer = discard_answer(cards, dealer=dealer, sequences=sequences)
        await interaction.response.send_message(answer, ephemeral=True)

    @group.command(name=cmd("cmd.bhargage.count.name"), description=cmd("cmd.bhargage.count.description"))
    @app_commands.rename(
        cards=cmd("cmd.bhargage.count.cards"),
        up=cmd("cmd.bhargage.count.up"),
        bhargage=cmd("cmd.bhargage.count.bhargage"),
        sequences=cmd("cmd.bhargage.count.sequences"),
    )
    @app_commands.describe(
        cards=cmd("cmd.bhargage.count.cards.description"),
        up=cmd("cmd.bhargage.count.up.description"),
        bhargage=cmd("cmd.bhargage.count.bhargage.description"),
        sequences=cmd("cmd.bhargage.count.sequences.description"),
    )
    async def count(
        self,
        interaction: Interaction,
        cards: app_commands.Range[str, 1, COUNT_CARDS_LIMIT],
        up: app_commands.Range[str, 1, COUNT_UP_LIMIT],
        bhargage: bool = False,
        sequences: bool = False,
    ) -> None:
        self.bot.limits.calculators.take(interaction.user.id)
        answer = count_answer(cards, up, bhargage=bhargage, sequences=sequences)
        await interaction.response.send_message(answer, ephemeral=True)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Bhargage(bot))
