"""``/bhargage …``: challenge someone, the hand calculator, and the table commands every game has.

Everything after the command — the challenge, the table, private hands, idle players — is the shared table
controller driving the Bhargage adapter (``bot.games.bhargage``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.ai import DEFAULT_LEVEL, LEVELS
from bot.games import LEVEL_WORDS
from bot.games.bhargage import COUNT_CARDS_LIMIT, COUNT_UP_LIMIT, count_answer, discard_answer
from bot.rules import bhargage as bh
from cogs.table_commands import GameCog, in_guild

if TYPE_CHECKING:
    from bot.app import TavernBot

GAME = "bhargage"
Interaction = discord.Interaction[Any]
COUNT_OPTIONS = {
    "cards": "The kept cards, separated by commas (3 for a hand, 4 for a bhargage)",
    "up": "The up-card",
    "bhargage": "Count them as the bhargage (4 cards, no Chief's Friends)",
    "sequences": "Also score runs (the sequences variant)",
}


class Bhargage(GameCog):
    """``/bhargage …``."""

    game = GAME
    group = app_commands.Group(name="bhargage", description="Bhargage, the Decktet's cribbage for two")

    @group.command(name="challenge", description="Challenge someone to Bhargage in this channel")
    @app_commands.describe(
        opponent="Who you want to play",
        target="Board number that wins (both start at 10; 121 is the full game; else the server's usual)",
        sequences="Also score runs (the sequences variant)",
    )
    @app_commands.check(in_guild)
    async def challenge(
        self,
        interaction: Interaction,
        opponent: discord.User,
        target: app_commands.Range[int, bh.MIN_TARGET, bh.MAX_TARGET] | None = None,
        sequences: bool = False,
    ) -> None:
        options = {"target": target, "sequences": sequences}
        await self.bot.controller.open_lobby(interaction, GAME, options, invited=opponent)

    @group.command(name="practice", description="Play Bhargage against the bot in this channel")
    @app_commands.describe(
        level="How strong the bot plays (normal if you leave it out)",
        target="Board number that wins (both start at 10; 121 is the full game; else the server's usual)",
        sequences="Also score runs (the sequences variant)",
    )
    @app_commands.choices(
        level=[app_commands.Choice(name=f"{lv} — {LEVEL_WORDS[lv].lower()}", value=lv) for lv in LEVELS]
    )
    @app_commands.check(in_guild)
    async def practice(
        self,
        interaction: Interaction,
        level: str = DEFAULT_LEVEL,
        target: app_commands.Range[int, bh.MIN_TARGET, bh.MAX_TARGET] | None = None,
        sequences: bool = False,
    ) -> None:
        options = {"target": target, "sequences": sequences}
        await self.bot.controller.practice(interaction, GAME, level, options)

    @group.command(name="discard", description="The coach: the expected points of every discard from 5 cards")
    @app_commands.describe(
        cards="Your 5 dealt cards, separated by commas",
        dealer="Are you the dealer (the bhargage is yours)?",
        sequences="Also score runs (the sequences variant)",
    )
    async def discard(
        self,
        interaction: Interaction,
        cards: app_commands.Range[str, 1, COUNT_CARDS_LIMIT],
        dealer: bool,
        sequences: bool = False,
    ) -> None:
        self.bot.controller.calculators.use(interaction.user.id)
        answer = discard_answer(cards, dealer=dealer, sequences=sequences)
        await interaction.response.send_message(answer, ephemeral=True)

    @group.command(name="count", description="Count a Bhargage hand or bhargage in the show")
    @app_commands.describe(**COUNT_OPTIONS)
    async def count(
        self,
        interaction: Interaction,
        cards: app_commands.Range[str, 1, COUNT_CARDS_LIMIT],
        up: app_commands.Range[str, 1, COUNT_UP_LIMIT],
        bhargage: bool = False,
        sequences: bool = False,
    ) -> None:
        self.bot.controller.calculators.use(interaction.user.id)
        answer = count_answer(cards, up, bhargage=bhargage, sequences=sequences)
        await interaction.response.send_message(answer, ephemeral=True)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Bhargage(bot))
