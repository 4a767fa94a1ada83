"""The commands every game's group has — hand, board, resign, rules — made once for any game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.base.i18n import ENGLISH, speaking, t
from bot.base.text import game_rules_link
from bot.edge import rules_book
from bot.edge.translator import cmd
from bot.render import rules_pages

if TYPE_CHECKING:
    from bot.edge.app import TavernBot

Interaction = discord.Interaction[Any]
Text = str | app_commands.locale_str


def _descriptions(game: str, title: str, board: str, resign: str) -> dict[str, Text]:
    """Each table command's description: the catalog's, translated for Discord, for the games the bot ships;
    for another game (a plugin), English only, built from its title."""
    if game == "bhargage":
        return {
            "hand": cmd("cmd.table.bhargage.hand.description"),
            "board": cmd("cmd.table.bhargage.board.description"),
            "resign": cmd("cmd.table.bhargage.resign.description"),
            "rules": cmd("cmd.table.bhargage.rules.description"),
        }
    if game == "deluxe":
        return {
            "hand": cmd("cmd.table.deluxe.hand.description"),
            "board": cmd("cmd.table.deluxe.board.description"),
            "resign": cmd("cmd.table.deluxe.resign.description"),
            "rules": cmd("cmd.table.deluxe.rules.description"),
        }
    if game == "cribbage":
        return {
            "hand": cmd("cmd.table.cribbage.hand.description"),
            "board": cmd("cmd.table.cribbage.board.description"),
            "resign": cmd("cmd.table.cribbage.resign.description"),
            "rules": cmd("cmd.table.cribbage.rules.description"),
        }
    with speaking(ENGLISH):
        return {
            "hand": t("cmd.table.other.hand.description", game=title),
            "board": t("cmd.table.other.board.description", game=title, board=board),
            "resign": t("cmd.table.other.resign.description", game=title, resign=resign),
            "rules": t("cmd.table.other.rules.description", game=title),
        }


def _names(board: str, resign: str) -> dict[str, Text]:
    """The commands' names: the catalog's (translated for Discord) unless the game renamed one."""
    return {
        "hand": cmd("cmd.table.hand.name"),
        "board": {"board": cmd("cmd.table.board.name"), "table": cmd("cmd.table.table.name")}.get(
            board, board
        ),
        "resign": {"resign": cmd("cmd.table.resign.name"), "leave": cmd("cmd.table.leave.name")}.get(
            resign, resign
        ),
        "rules": cmd("cmd.table.rules.name"),
    }


# Where a game command and the tavern's read-only commands may be installed and used: a server that added the
# bot (as ever), and a member's own account (user install), whose commands work in any DM, group DM and in
# servers without the bot. Where the bot is not in the channel, the table is driven by interactions only
# (``bot.edge.table.answering``).
ANYWHERE_INSTALLS = app_commands.AppInstallationType(guild=True, user=True)
ANYWHERE_CONTEXTS = app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=True)


def add_table_commands(group: app_commands.Group, bot: TavernBot, game: str) -> None:
    """Add ``hand``, ``board``, ``resign`` and ``rules`` (under the names the game's adapter gives them)."""
    adapter = bot.games[game]  # the registry: the commands are built before the services exist
    title = adapter.title

    async def hand(interaction: Interaction) -> None:
        await bot.controller.commands.show_hand(interaction, game)

    async def board(interaction: Interaction) -> None:
        await bot.controller.commands.repost_board(interaction, game)

    async def resign(interaction: Interaction) -> None:
        await bot.controller.commands.ask_resign(interaction, game)

    async def rules(interaction: Interaction) -> None:
        if game in rules_pages.GAMES:  # the full rules, a page at a time (``bot.edge.rules_book``)
            await rules_book.open_book(interaction, game, title, adapter.colour, bot.settings)
            return
        link = game_rules_link(game, bot.settings.rules_url)
        embed = discord.Embed(title=title, description=adapter.rules_text(link), colour=adapter.colour)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    with speaking(ENGLISH):
        resign_label = adapter.resign_label_text()
    descriptions = _descriptions(game, title, adapter.board_command, resign_label)
    names = _names(adapter.board_command, adapter.resign_command)
    callbacks = {"hand": hand, "board": board, "resign": resign, "rules": rules}
    for key, callback in callbacks.items():
        description = descriptions[key]
        if isinstance(description, str):
            description = description[:100]
        command: app_commands.Command[Any, ..., None] = app_commands.Command(
            name=names[key], description=description, callback=callback
        )
        group.add_command(command)


class GameCog(commands.Cog):
    """A game's cog: its ``group`` gets the table commands; the subclass adds the command that opens it."""

    game: ClassVar[str]
    group: app_commands.Group

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot
        add_table_commands(self.group, bot, self.game)
