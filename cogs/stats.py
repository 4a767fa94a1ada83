"""``/leaderboard`` and ``/stats``: per server, for every game the store records (Bhargage, Deluxe)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import safe
from bot.records import BotRecord, GameStats, LeaderRow
from bot.text import plural

if TYPE_CHECKING:
    from bot.app import TavernBot

GAME_NAMES = {"bhargage": "Bhargage", "deluxe": "Bharg Deluxe"}

# Ratings are shown on one friendly scale where a new player stands at START in both games. Display only:
# the store keeps Elo (Bhargage, newcomers at 1500) and 60·(mu − 3·sigma) (Deluxe openskill, newcomers at 0).
START = 1000
STORED_START = {"bhargage": 1500, "deluxe": 0}
PROVISIONAL_GAMES = 5  # fewer rated games than this: the number is marked provisional ("?")
RATING_LEGEND = f"rating: a new player starts at {START}, higher is better; ? = provisional (under 5 games)"


def shown_rating(game: str, rating: int, games: int) -> str:
    """The stored rating on the shown scale (never below 0), with "?" while it rests on few games."""
    value = max(0, rating - STORED_START.get(game, 0) + START)
    return f"{value}?" if games < PROVISIONAL_GAMES else str(value)


def leaderboard_text(game: str, rows: list[LeaderRow]) -> str:
    """Bhargage shows muggins wins (they count double for stakes); Deluxe shows the average hand score."""
    title = f"**{GAME_NAMES.get(game, game)} leaderboard**"
    if not rows:
        return f"{title}\nNo finished games in this server yet."
    by_hands = game == "deluxe"
    extra = "avg" if by_hands else "mug"
    head = f"{'#':>2} {'player':<16} {'W':>3} {'L':>3} {'win%':>5} {extra:>5} {'rating':>7}"
    lines = [head]
    for i, r in enumerate(rows, 1):
        if by_hands:
            value = "—" if r.hand_score_avg is None else f"{r.hand_score_avg:.1f}"
        else:
            value = str(r.muggins_wins)
        lines.append(
            f"{i:>2} {r.name[:16]:<16} {r.wins:>3} {r.losses:>3} {r.win_pct:>5.0f} {value:>5} "
            f"{shown_rating(game, r.rating, r.games):>7}"
        )
    extra_legend = "avg = average hand score" if by_hands else "mug = muggins wins (won on a shortage claim)"
    legend = f"{extra_legend}\n{RATING_LEGEND}"
    return f"{title}\n```\n" + "\n".join(lines) + f"\n```\n{legend}"


def stats_lines(name: str, stats: dict[str, GameStats], against_bot: Sequence[BotRecord] = ()) -> str:
    if not stats and not against_bot:
        return f"{name} has not finished a game in this server yet."
    out = [f"**{name}**"]
    for game, s in stats.items():
        pct = 100.0 * s.wins / s.games if s.games else 0.0
        out.append(
            f"__{GAME_NAMES.get(game, game)}__: {plural(s.games, 'game')} · {plural(s.wins, 'win')} · "
            f"{plural(s.losses, 'loss', 'losses')} · {pct:.0f}% · {plural(s.muggins_wins, 'muggins win')} · "
            f"rating {shown_rating(game, s.rating, s.games)}"
        )
        if s.hand_score_avg is not None and game == "deluxe":
            out.append(f"average hand score {s.hand_score_avg:.1f}")
        if s.recent:
            recent = ", ".join(
                ("won" if h.won else "lost") + (" (muggins)" if h.muggins else "") + f" {h.score}"
                for h in s.recent
            )
            out.append(f"last games: {recent}")
    if against_bot:
        out.append("__Against the bot__ (practice: not rated, not on the leaderboard)")
        for r in against_bot:
            record = f"{plural(r.games, 'game')} · {plural(r.wins, 'win')}"
            out.append(f"{GAME_NAMES.get(r.game, r.game)}, {r.level}: {record}")
    return "\n".join(out)


class Stats(commands.Cog):
    """Leaderboards and player records; generic over the games the store knows."""

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard", description="This server's best players")
    @app_commands.describe(game="Which game (Bhargage by default)")
    @app_commands.choices(game=[app_commands.Choice(name=v, value=k) for k, v in GAME_NAMES.items()])
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction[Any], game: str = "bhargage") -> None:
        assert interaction.guild_id is not None
        rows = await self.bot.records.leaderboard(interaction.guild_id, game)
        await interaction.response.send_message(leaderboard_text(game, rows))

    @app_commands.command(name="stats", description="A player's record in this server")
    @app_commands.describe(player="Whose record (yours by default)")
    @app_commands.guild_only()
    async def stats(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        assert interaction.guild_id is not None
        who = player or interaction.user
        found = await self.bot.records.stats(interaction.guild_id, who.id)
        practice = await self.bot.records.bot_records(interaction.guild_id, who.id)
        await interaction.response.send_message(
            stats_lines(safe.name(who.display_name), found, practice), ephemeral=True
        )


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Stats(bot))
