"""``/tavern help`` and ``/tavern ping``: what the bot is, and whether it is alive."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import delivery
from bot.errors import UserFacingError
from bot.render import cards as gallery
from bot.rules import decktet
from bot.server_settings import MAX_CLAIM_MINUTES, MAX_NUDGE_MINUTES
from bot.text import RULES_DOCS, rules_link

if TYPE_CHECKING:
    from bot.app import TavernBot

ABOUT = (
    "I host **Decktet** card games right here in the channel.\n"
    "• **Bhargage** (2 players) — the Decktet's cribbage.\n"
    "• **Bharg Deluxe** (2–6 players) — draw, bind bharg sets and straights, discard.\n"
    "Each game gets its own thread, with a board kept up to date; your hand stays private."
)

START = (
    "• `/bhargage challenge @friend` — they press **Accept**; or `/bhargage practice` to play me at once.\n"
    "• `/deluxe create` — others press **Join**, the host presses **Start**; **Add a bot** fills a seat.\n"
    "• `/bhargage rules` · `/deluxe rules` — the rules in short."
)

PRIVATE_HAND = (
    "Your cards and buttons come by **DM**, so allow **direct messages from server members**: "
    'User Settings → Privacy & Safety, or this server\'s Privacy Settings → "Direct Messages".\n'
    "DMs closed? You still play: press **Show my hand** in the game — only you see it "
    "(`/bhargage hand` or `/deluxe hand` brings it back too)."
)

PERMISSIONS = (
    "In a game channel I need **View Channel**, **Send Messages**, **Embed Links**, "
    "**Read Message History**, **Create Public Threads** and **Send Messages in Threads**. "
    "Each game gets its own thread; without the thread permissions the game is played in the channel itself."
)


def rules_field(base: str | None) -> str:
    """Where the full rules are: the operator's published docs (``TAVERN_RULES_URL``) or the repository."""
    return "\n".join(
        f"{title}: {rules_link(RULES_DOCS[game], base)}"
        for game, title in (("bhargage", "Bhargage"), ("deluxe", "Bharg Deluxe"))
    )


def command_lines(tree: app_commands.CommandTree[discord.Client]) -> list[str]:
    """One line per invocable slash command, so new game cogs show up in help without edits here."""
    lines: list[str] = []

    def walk(cmd: app_commands.Command[Any, ..., Any] | app_commands.Group) -> None:
        if isinstance(cmd, app_commands.Group):
            for child in cmd.commands:
                walk(child)
        else:
            lines.append(f"`/{cmd.qualified_name}` — {cmd.description}")

    for top in tree.get_commands(type=discord.AppCommandType.chat_input):
        if isinstance(top, app_commands.Command | app_commands.Group):
            walk(top)
    return sorted(lines)


def command_fields(lines: list[str], limit: int = 1024) -> list[tuple[str, str]]:
    """Spread the lines over as many embed fields as needed (Discord caps a field at 1024 characters)."""
    fields: list[list[str]] = [[]]
    for line in lines:
        if fields[-1] and len("\n".join([*fields[-1], line])) > limit:
            fields.append([])
        fields[-1].append(line[:limit])
    return [("Commands" if i == 0 else "More commands", "\n".join(f) or "—") for i, f in enumerate(fields)]


class General(commands.Cog):
    """Bot-wide commands that belong to no game."""

    tavern = app_commands.Group(name="tavern", description="About the Decktet Tavern bot")

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot

    @tavern.command(name="help", description="What this bot does and its commands")
    async def help(self, interaction: discord.Interaction[TavernBot]) -> None:
        embed = discord.Embed(title="Decktet Tavern", description=ABOUT, colour=discord.Colour.dark_gold())
        embed.add_field(name="Start a game", value=START, inline=False)
        embed.add_field(name="Your hand is private", value=PRIVATE_HAND, inline=False)
        embed.add_field(name="What I need in a channel", value=PERMISSIONS, inline=False)
        embed.add_field(name="Full rules", value=rules_field(self.bot.settings.rules_url), inline=False)
        for name, value in command_fields(command_lines(self.bot.tree)):
            embed.add_field(name=name, value=value, inline=False)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @tavern.command(name="end", description="End the game or open table in this channel (admins)")
    @app_commands.default_permissions(manage_channels=True)
    async def end(self, interaction: discord.Interaction[TavernBot]) -> None:
        await self.bot.controller.end_here(interaction)

    @tavern.command(name="settings", description="Show or change this server's game settings (admins)")
    @app_commands.describe(
        nudge_minutes="Remind an idle player after this many minutes (0 = never)",
        claim_minutes="Let the others claim against an idle player after this many minutes (0 = never)",
        dms="Send private hands by DM (off: everyone plays with Show my hand in the channel)",
        threads="Give each game its own thread (off: games play in the channel)",
        game="The game whose usual target to change",
        target="The usual target for that game (when a player doesn't give one)",
        reset="Go back to the bot's defaults",
        language="The language of game text in channels (private text follows each player's Discord)",
    )
    @app_commands.choices(
        language=[
            app_commands.Choice(name="The server's Discord language", value="auto"),
            app_commands.Choice(name="English", value="en"),
            app_commands.Choice(name="Italiano", value="it"),
        ]
    )
    @app_commands.default_permissions(manage_guild=True)
    async def settings(
        self,
        interaction: discord.Interaction[TavernBot],
        nudge_minutes: app_commands.Range[int, 0, MAX_NUDGE_MINUTES] | None = None,
        claim_minutes: app_commands.Range[int, 0, MAX_CLAIM_MINUTES] | None = None,
        dms: bool | None = None,
        threads: bool | None = None,
        game: str | None = None,
        target: int | None = None,
        reset: bool = False,
        language: str | None = None,
    ) -> None:
        changes: dict[str, Any] = {
            "language": language,
            "nudge_minutes": nudge_minutes,
            "claim_minutes": claim_minutes,
            "dms": dms,
            "threads": threads,
        }
        if (game is None) != (target is None):
            raise UserFacingError("Give both a game and its target.")
        if game is not None:
            changes[f"{game}_target"] = target
        await self.bot.controller.server_settings_command(
            interaction, {k: v for k, v in changes.items() if v is not None}, reset=reset
        )

    @settings.autocomplete("game")
    async def settings_game(
        self, interaction: discord.Interaction[TavernBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=g.title, value=name)
            for name, g in self.bot.games.items()
            if g.targets is not None and current.lower() in g.title.lower()
        ][:25]

    @tavern.command(name="cards", description="The Decktet's 45 cards: suits, ranks and values")
    @app_commands.describe(card="One card to look at up close")
    async def cards(self, interaction: discord.Interaction[TavernBot], card: str | None = None) -> None:
        panel = gallery.gallery_panel() if card is None else gallery.card_panel(decktet.card(card))
        await delivery.send_ephemeral(interaction, panel, 0)

    @cards.autocomplete("card")
    async def cards_card(
        self, interaction: discord.Interaction[TavernBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=n, value=v) for n, v in gallery.card_names(current)]

    @tavern.command(name="ping", description="Check that the bot is awake")
    async def ping(self, interaction: discord.Interaction[TavernBot]) -> None:
        latency = self.bot.latency
        if math.isfinite(latency):
            text = f"Pong! Gateway latency {latency * 1000:.0f} ms."
        else:
            text = "Pong! (no gateway latency measured yet)"
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(General(bot))
