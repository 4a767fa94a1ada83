"""``/cribbage …``: challenge someone, open a table for 3 or 4, practise against the bot, the count and
lay-away calculators, and the table commands every game has.

Everything after the command — the challenge or lobby, the table, private hands, idle players — is the
shared table controller driving the Cribbage adapter (``bot.games.cribbage``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.ai import DEFAULT_LEVEL, LEVELS
from bot.edge.table.host import player
from bot.edge.translator import cmd
from bot.games.cribbage import CARD_TEXT_LIMIT, CARDS_TEXT_LIMIT, count_answer, discard_answer
from cogs.table_commands import ANYWHERE_CONTEXTS, ANYWHERE_INSTALLS, GameCog

if TYPE_CHECKING:
    from bot.edge.app import TavernBot

GAME = "cribbage"
Interaction = discord.Interaction[Any]
CardsText = app_commands.Range[str, 1, CARDS_TEXT_LIMIT]
CardText = app_commands.Range[str, 1, CARD_TEXT_LIMIT]
TARGETS = [
    app_commands.Choice(name=cmd("cmd.cribbage.target.121"), value=121),
    app_commands.Choice(name=cmd("cmd.cribbage.target.61"), value=61),
]
LEVEL_CHOICES = {
    "easy": cmd("cmd.cribbage.practice.level.easy"),
    "normal": cmd("cmd.cribbage.practice.level.normal"),
    "hard": cmd("cmd.cribbage.practice.level.hard"),
    "expert": cmd("cmd.cribbage.practice.level.expert"),
}
PLAYER_CHOICES = [
    app_commands.Choice(name=cmd("cmd.cribbage.discard.players.2"), value=2),
    app_commands.Choice(name=cmd("cmd.cribbage.discard.players.3"), value=3),
    app_commands.Choice(name=cmd("cmd.cribbage.discard.players.4"), value=4),
]
OPTION_NAMES = {
    "target": cmd("cmd.cribbage.option.target"),
    "muggins": cmd("cmd.cribbage.option.muggins"),
    "double_lurch": cmd("cmd.cribbage.option.double-lurch"),
}
OPTION_TEXTS = {
    "target": cmd("cmd.cribbage.option.target.description"),
    "muggins": cmd("cmd.cribbage.option.muggins.description"),
    "double_lurch": cmd("cmd.cribbage.option.double-lurch.description"),
}


COUNT_NAMES = {
    "cards": cmd("cmd.cribbage.count.cards"),
    "starter": cmd("cmd.cribbage.count.starter"),
    "crib": cmd("cmd.cribbage.count.crib"),
}
COUNT_TEXTS = {
    "cards": cmd("cmd.cribbage.count.cards.description"),
    "starter": cmd("cmd.cribbage.count.starter.description"),
    "crib": cmd("cmd.cribbage.count.crib.description"),
}
DISCARD_NAMES = {
    "cards": cmd("cmd.cribbage.discard.cards"),
    "dealer": cmd("cmd.cribbage.discard.dealer"),
    "players": cmd("cmd.cribbage.discard.players"),
}
DISCARD_TEXTS = {
    "cards": cmd("cmd.cribbage.discard.cards.description"),
    "dealer": cmd("cmd.cribbage.discard.dealer.description"),
    "players": cmd("cmd.cribbage.discard.players.description"),
}


def options(target: int, muggins: bool, double_lurch: bool) -> dict[str, Any]:
    return {"target": target, "muggins": muggins, "double_lurch": double_lurch}


class Cribbage(GameCog):
    """``/cribbage …``."""

    game = GAME
    group = app_commands.Group(
        name=cmd("cmd.cribbage.name"),
        description=cmd("cmd.cribbage.description"),
        allowed_installs=ANYWHERE_INSTALLS,
        allowed_contexts=ANYWHERE_CONTEXTS,
    )

    @group.command(
        name=cmd("cmd.cribbage.challenge.name"), description=cmd("cmd.cribbage.challenge.description")
    )
    @app_commands.rename(opponent=cmd("cmd.cribbage.challenge.opponent"), **OPTION_NAMES)
    @app_commands.describe(opponent=cmd("cmd.cribbage.challenge.opponent.description"), **OPTION_TEXTS)
    @app_commands.choices(target=TARGETS)
    async def challenge(
        self,
        interaction: Interaction,
        opponent: discord.User,
        target: int = 121,
        muggins: bool = False,
        double_lurch: bool = False,
    ) -> None:
        chosen = options(target, muggins, double_lurch)
        await self.bot.controller.commands.open_lobby(interaction, GAME, chosen, invited=player(opponent))

    @group.command(name=cmd("cmd.cribbage.create.name"), description=cmd("cmd.cribbage.create.description"))
    @app_commands.rename(**OPTION_NAMES)
    @app_commands.describe(**OPTION_TEXTS)
    @app_commands.choices(target=TARGETS)
    async def create(
        self, interaction: Interaction, target: int = 121, muggins: bool = False, double_lurch: bool = False
    ) -> None:
        chosen = options(target, muggins, double_lurch)
        await self.bot.controller.commands.open_lobby(interaction, GAME, chosen)

    @group.command(
        name=cmd("cmd.cribbage.practice.name"), description=cmd("cmd.cribbage.practice.description")
    )
    @app_commands.rename(level=cmd("cmd.cribbage.practice.level"), **OPTION_NAMES)
    @app_commands.describe(level=cmd("cmd.cribbage.practice.level.description"), **OPTION_TEXTS)
    @app_commands.choices(level=[app_commands.Choice(name=LEVEL_CHOICES[lv], value=lv) for lv in LEVELS])
    @app_commands.choices(target=TARGETS)
    async def practice(
        self,
        interaction: Interaction,
        level: str = DEFAULT_LEVEL,
        target: int = 121,
        muggins: bool = False,
        double_lurch: bool = False,
    ) -> None:
        chosen = options(target, muggins, double_lurch)
        await self.bot.controller.commands.practice(interaction, GAME, level, chosen)

    @group.command(name=cmd("cmd.cribbage.count.name"), description=cmd("cmd.cribbage.count.description"))
    @app_commands.rename(**COUNT_NAMES)
    @app_commands.describe(**COUNT_TEXTS)
    async def count(
        self,
        interaction: Interaction,
        cards: CardsText,
        starter: CardText,
        crib: bool = False,
    ) -> None:
        await self._calculate(interaction, lambda: count_answer(cards, starter, crib=crib))

    @group.command(name=cmd("cmd.cribbage.discard.name"), description=cmd("cmd.cribbage.discard.description"))
    @app_commands.rename(**DISCARD_NAMES)
    @app_commands.describe(**DISCARD_TEXTS)
    @app_commands.choices(players=PLAYER_CHOICES)
    async def discard(
        self,
        interaction: Interaction,
        cards: CardsText,
        dealer: bool,
        players: int = 2,
    ) -> None:
        await self._calculate(interaction, lambda: discard_answer(cards, players=players, dealer=dealer))

    async def _calculate(self, interaction: Interaction, answer: Callable[[], str]) -> None:
        """A calculator's answer, privately, within the member's calculator uses a minute."""
        self.bot.limits.calculators.take(interaction.user.id)
        await interaction.response.send_message(answer(), ephemeral=True)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Cribbage(bot))
