"""``/leaderboard`` and ``/stats``: per server, for every game the store records (Bhargage, Deluxe)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.base import safe
from bot.base.i18n import t, tn
from bot.edge.translator import cmd
from bot.games import GAMES
from bot.render.levels import level_name
from bot.services.records import BotRecord, GameStats, LeaderRow

if TYPE_CHECKING:
    from bot.edge.app import TavernBot


# Ratings are shown on one friendly scale where a new player stands at START in both games. Display only:
# the store keeps Elo (Bhargage, newcomers at 1500) and 60·(mu − 3·sigma) (Deluxe openskill, newcomers at 0).
START = 1000
STORED_START = {"bhargage": 1500, "deluxe": 0}
PROVISIONAL_GAMES = 5  # fewer rated games than this: the number is marked provisional ("?")


def _title(game: str) -> str:
    """A game's name (its adapter's title), or its key for a game the bot no longer has."""
    return GAMES[game].title if game in GAMES else game


def rating_legend() -> str:
    """The leaderboard's line explaining the rating, in the language in force."""
    return t("general.leaderboard.rating-legend", start=START, games=PROVISIONAL_GAMES)


def __getattr__(name: str) -> str:
    """``RATING_LEGEND``: the legend in the language in force (it was a constant)."""
    if name == "RATING_LEGEND":
        return rating_legend()
    raise AttributeError(name)


def shown_rating(game: str, rating: int, games: int) -> str:
    """The stored rating on the shown scale (never below 0), with "?" while it rests on few games."""
    value = max(0, rating - STORED_START.get(game, 0) + START)
    return f"{value}?" if games < PROVISIONAL_GAMES else str(value)


def leaderboard_text(game: str, rows: list[LeaderRow]) -> str:
    """Bhargage shows muggins wins (they count double for stakes); Deluxe shows the average hand score."""
    title = t("general.leaderboard.title", game=_title(game))
    if not rows:
        return f"{title}\n{t('general.leaderboard.empty')}"
    by_hands = game == "deluxe"
    extra = t("general.leaderboard.column.avg") if by_hands else t("general.leaderboard.column.mug")
    player, won, lost = (
        t("general.leaderboard.column.player"),
        t("general.leaderboard.column.won"),
        t("general.leaderboard.column.lost"),
    )
    pct, rating = t("general.leaderboard.column.win-pct"), t("general.leaderboard.column.rating")
    head = f"{'#':>2} {player:<16} {won:>3} {lost:>3} {pct:>5} {extra:>5} {rating:>7}"
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
    extra_legend = t("general.leaderboard.avg-legend") if by_hands else t("general.leaderboard.mug-legend")
    legend = f"{extra_legend}\n{rating_legend()}"
    return f"{title}\n```\n" + "\n".join(lines) + f"\n```\n{legend}"


def _recent(won: bool, muggins: bool, score: int) -> str:
    if won:
        return (
            t("general.stats.recent.won-muggins", score=score)
            if muggins
            else t("general.stats.recent.won", score=score)
        )
    return (
        t("general.stats.recent.lost-muggins", score=score)
        if muggins
        else t("general.stats.recent.lost", score=score)
    )


def stats_lines(name: str, stats: dict[str, GameStats], against_bot: Sequence[BotRecord] = ()) -> str:
    if not stats and not against_bot:
        return t("general.stats.none", name=name)
    out = [f"**{name}**"]
    for game, s in stats.items():
        pct = 100.0 * s.wins / s.games if s.games else 0.0
        out.append(
            t(
                "general.stats.game-line",
                game=_title(game),
                games=tn("general.stats.games", s.games),
                wins=tn("general.stats.wins", s.wins),
                losses=tn("general.stats.losses", s.losses),
                pct=f"{pct:.0f}",
                muggins=tn("general.stats.muggins-wins", s.muggins_wins),
                rating=shown_rating(game, s.rating, s.games),
            )
        )
        if s.hand_score_avg is not None and game == "deluxe":
            out.append(t("general.stats.hand-average", average=f"{s.hand_score_avg:.1f}"))
        if s.recent:
            recent = ", ".join(_recent(h.won, h.muggins, h.score) for h in s.recent)
            out.append(t("general.stats.recent", games=recent))
    if against_bot:
        out.append(t("general.stats.against-bot"))
        for r in against_bot:
            out.append(
                t(
                    "general.stats.bot-line",
                    game=_title(r.game),
                    level=level_name(r.level),
                    games=tn("general.stats.games", r.games),
                    wins=tn("general.stats.wins", r.wins),
                )
            )
    return "\n".join(out)


class Stats(commands.Cog):
    """Leaderboards and player records; generic over the games the store knows."""

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot

    @app_commands.command(name=cmd("cmd.leaderboard.name"), description=cmd("cmd.leaderboard.description"))
    @app_commands.rename(game=cmd("cmd.leaderboard.game"))
    @app_commands.describe(game=cmd("cmd.leaderboard.game.description"))
    @app_commands.choices(
        game=[
            app_commands.Choice(name=cmd("cmd.leaderboard.game.bhargage"), value="bhargage"),
            app_commands.Choice(name=cmd("cmd.leaderboard.game.deluxe"), value="deluxe"),
        ]
    )
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction[Any], game: str = "bhargage") -> None:
        assert interaction.guild_id is not None
        rows = await self.bot.records.leaderboard(interaction.guild_id, game)
        await interaction.response.send_message(leaderboard_text(game, rows))

    @app_commands.command(name=cmd("cmd.stats.name"), description=cmd("cmd.stats.description"))
    @app_commands.rename(player=cmd("cmd.stats.player"))
    @app_commands.describe(player=cmd("cmd.stats.player.description"))
    @app_commands.guild_only()
    async def stats(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        assert interaction.guild_id is not None
        who = player or interaction.user
        found = await self.bot.records.stats(interaction.guild_id, who.id)
        practice = await self.bot.records.bot_records(interaction.guild_id, who.id)
        await interaction.response.send_message(
            stats_lines(safe.name(who.display_name, who.name), found, practice), ephemeral=True
        )


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Stats(bot))
