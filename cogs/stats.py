"""``/leaderboard`` and ``/stats``: per server, for every game the store records (every adapter's game)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.edge import leaderboard_book, profile_card
from bot.edge.leaderboard_book import leaderboard_text as leaderboard_text
from bot.edge.leaderboard_book import rating_legend
from bot.edge.translator import cmd
from bot.games import GAMES
from bot.render.ratings import shown_rating as shown_rating

if TYPE_CHECKING:
    from bot.edge.app import TavernBot


# A game's name in the game menus of ``/leaderboard`` and ``/tavern history``, translated (each catalog id is
# written out, for ``bot.cli.i18n_check``); a game not named here is offered by its adapter's title.
GAME_NAMES: dict[str, app_commands.locale_str] = {
    "bhargage": cmd("cmd.leaderboard.game.bhargage"),
    "deluxe": cmd("cmd.leaderboard.game.deluxe"),
    "cribbage": cmd("cmd.leaderboard.game.cribbage"),
}


def game_choices() -> list[app_commands.Choice[str]]:
    """A game menu: every game of the registry (``bot.games.GAMES``, whose adapters import), in its order."""
    return [app_commands.Choice(name=GAME_NAMES.get(game) or GAMES[game].title, value=game) for game in GAMES]


def __getattr__(name: str) -> str:
    """``RATING_LEGEND``: the legend in the language in force (it was a constant)."""
    if name == "RATING_LEGEND":
        return rating_legend()
    raise AttributeError(name)


class Stats(commands.Cog):
    """Leaderboards and player records; generic over the games the store knows."""

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot

    @app_commands.command(name=cmd("cmd.leaderboard.name"), description=cmd("cmd.leaderboard.description"))
    @app_commands.rename(
        game=cmd("cmd.leaderboard.game"),
        board=cmd("cmd.leaderboard.board"),
        season=cmd("cmd.leaderboard.season"),
    )
    @app_commands.describe(
        game=cmd("cmd.leaderboard.game.description"),
        board=cmd("cmd.leaderboard.board.description"),
        season=cmd("cmd.leaderboard.season.description"),
    )
    @app_commands.choices(
        game=game_choices(),
        board=[
            app_commands.Choice(name=cmd("cmd.leaderboard.board.season"), value="season"),
            app_commands.Choice(name=cmd("cmd.leaderboard.board.all-time"), value=leaderboard_book.ALL_TIME),
        ],
    )
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True)  # a server's boards: games outside servers are on none
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        game: str = "bhargage",
        board: str = "season",
        season: app_commands.Range[int, 1, leaderboard_book.MAX_SEASON] | None = None,
    ) -> None:
        """A board, paged, with the asker's own line (``bot.edge.leaderboard_book``)."""
        await leaderboard_book.show(self.bot, interaction, game, board, season)

    @app_commands.command(name=cmd("cmd.stats.name"), description=cmd("cmd.stats.description"))
    @app_commands.rename(player=cmd("cmd.stats.player"))
    @app_commands.describe(player=cmd("cmd.stats.player.description"))
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def stats(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        """The member's profile card, only for the asker (``bot.edge.profile_card``)."""
        await profile_card.show(self.bot, interaction, player or interaction.user)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Stats(bot))
