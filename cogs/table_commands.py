"""The commands every game's group has — hand, board, resign, rules — made once for any game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.text import RULES_DOCS, rules_link

if TYPE_CHECKING:
    from bot.app import TavernBot

Interaction = discord.Interaction[Any]


def in_guild(interaction: Interaction) -> bool:
    """Subcommands can't be guild-only on Discord's side, so the ones that need a server check here."""
    if interaction.guild is None:
        raise app_commands.NoPrivateMessage()
    return True


def add_table_commands(group: app_commands.Group, bot: TavernBot, game: str) -> None:
    """Add ``hand``, ``board``, ``resign`` and ``rules`` (under the names the game's adapter gives them)."""
    adapter = bot.tables.adapter(game)
    title = adapter.title

    async def hand(interaction: Interaction) -> None:
        await bot.controller.show_hand(interaction, game)

    async def board(interaction: Interaction) -> None:
        await bot.controller.repost_board(interaction, game)

    async def resign(interaction: Interaction) -> None:
        await bot.controller.ask_resign(interaction, game)

    async def rules(interaction: Interaction) -> None:
        doc = RULES_DOCS.get(game)
        link = rules_link(doc, bot.settings.rules_url) if doc is not None else None
        embed = discord.Embed(title=title, description=adapter.rules_text(link), colour=adapter.colour)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    commands = (
        ("hand", f"Your {title} hand and controls, privately", hand),
        (
            adapter.board_command,
            f"Post the {title} {adapter.board_command} again (the one kept current)",
            board,
        ),
        (adapter.resign_command, f"{adapter.resign_label} — your {title} game", resign),
        ("rules", f"How {title} is played here", rules),
    )
    for name, description, callback in commands:
        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name=name, description=description[:100], callback=callback
        )
        if callback is not rules:
            command.add_check(in_guild)
        group.add_command(command)


class GameCog(commands.Cog):
    """A game's cog: its ``group`` gets the table commands; the subclass adds the command that opens it."""

    game: ClassVar[str]
    group: app_commands.Group

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot
        add_table_commands(self.group, bot, self.game)
