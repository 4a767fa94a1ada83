"""``/tournament …``: a server's events. ``create`` posts a sign-up (Join and Leave, a live count); ``status``
shows the channel's event; the organiser (whoever created it, or anyone with Manage Server) starts it, pauses
and resumes it, drops a player, awards a match, pairs the round again and ends it. Everything after — the
matches in threads, the results, the standings — is ``bot.edge.tournament_desk`` over
``bot.services.tournaments``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.base.refusals import UserFacingError
from bot.edge import delivery
from bot.edge import tournament_desk as desk
from bot.edge import tournament_posts as posts
from bot.edge.translator import cmd
from bot.services.tournaments.event import MAX_ROUNDS, NAME_LENGTH, Settings, format_named

if TYPE_CHECKING:
    from bot.edge.app import TavernBot

Interaction = discord.Interaction[Any]
MOST_MINUTES = 24 * 60


class Tournament(commands.Cog):
    """``/tournament …``: in a server's channel only (its matches open in threads there)."""

    group = app_commands.Group(
        name=cmd("cmd.tournament.name"),
        description=cmd("cmd.tournament.description"),
        allowed_installs=app_commands.AppInstallationType(guild=True),
        allowed_contexts=app_commands.AppCommandContext(guild=True),
    )

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot

    @group.command(
        name=cmd("cmd.tournament.create.name"), description=cmd("cmd.tournament.create.description")
    )
    @app_commands.rename(
        name=cmd("cmd.tournament.create.event"),
        game=cmd("cmd.tournament.create.game"),
        format=cmd("cmd.tournament.create.format"),
        rounds=cmd("cmd.tournament.create.rounds"),
        best_of=cmd("cmd.tournament.create.best-of"),
        target=cmd("cmd.tournament.create.target"),
        move_minutes=cmd("cmd.tournament.create.move-minutes"),
        muggins=cmd("cmd.tournament.create.muggins"),
        sequences=cmd("cmd.tournament.create.sequences"),
    )
    @app_commands.describe(
        name=cmd("cmd.tournament.create.event.description"),
        game=cmd("cmd.tournament.create.game.description"),
        format=cmd("cmd.tournament.create.format.description"),
        rounds=cmd("cmd.tournament.create.rounds.description"),
        best_of=cmd("cmd.tournament.create.best-of.description"),
        target=cmd("cmd.tournament.create.target.description"),
        move_minutes=cmd("cmd.tournament.create.move-minutes.description"),
        muggins=cmd("cmd.tournament.create.muggins.description"),
        sequences=cmd("cmd.tournament.create.sequences.description"),
    )
    @app_commands.choices(
        game=[
            app_commands.Choice(name=cmd("cmd.leaderboard.game.bhargage"), value="bhargage"),
            app_commands.Choice(name=cmd("cmd.leaderboard.game.cribbage"), value="cribbage"),
            app_commands.Choice(name=cmd("cmd.leaderboard.game.deluxe"), value="deluxe"),
        ],
        format=[
            app_commands.Choice(name=cmd("cmd.tournament.format.swiss"), value="swiss"),
            app_commands.Choice(name=cmd("cmd.tournament.format.round-robin"), value="round_robin"),
            app_commands.Choice(name=cmd("cmd.tournament.format.knockout"), value="knockout"),
            app_commands.Choice(name=cmd("cmd.tournament.format.double-knockout"), value="double_knockout"),
        ],
    )
    @app_commands.choices(
        best_of=[
            app_commands.Choice(name=cmd("cmd.tournament.best-of.one"), value=1),
            app_commands.Choice(name=cmd("cmd.tournament.best-of.three"), value=3),
        ],
    )
    async def create(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, NAME_LENGTH],
        game: str,
        format: str = "swiss",
        rounds: app_commands.Range[int, 0, MAX_ROUNDS] = 0,
        best_of: int = 1,
        target: app_commands.Range[int, 10, 1000] | None = None,
        move_minutes: app_commands.Range[int, 0, MOST_MINUTES] = 0,
        muggins: bool | None = None,
        sequences: bool | None = None,
    ) -> None:
        """Post the event's sign-up here: its matches will open in threads of this channel."""
        if interaction.guild_id is None or interaction.channel_id is None:
            raise UserFacingError("tavern.error.server-only")
        perms = interaction.permissions
        if not perms.manage_guild:
            raise UserFacingError("tournament.refuse.organiser")
        bot_may = interaction.app_permissions
        if not (bot_may.create_public_threads and bot_may.send_messages_in_threads):
            raise UserFacingError("tournament.refuse.threads")  # each match plays in a thread of its own
        if await self.bot.tournaments.here(interaction.guild_id, interaction.channel_id) is not None:
            raise UserFacingError("tournament.refuse.one-here")
        adapter = self.bot.games.get(game)
        if adapter is None:
            raise UserFacingError("tournament.refuse.game")
        config = await self.bot.server_settings.get(interaction.guild_id)
        chosen = target if target is not None else config.targets.get(game, (adapter.targets or (0, 121))[1])
        raw: dict[str, object] = {"target": chosen}
        if muggins is not None:
            if game != "cribbage":
                raise UserFacingError("tournament.refuse.muggins")
            raw["muggins"] = muggins
        if sequences is not None:
            if game != "bhargage":
                raise UserFacingError("tournament.refuse.sequences")
            raw["sequences"] = sequences
        options = adapter.rules.Options.from_dict(raw).to_dict()  # the game's own refusal
        settings = Settings(
            name.strip(),
            game,
            format_named(format),
            options,
            rounds=rounds,
            best_of=best_of,
            move_minutes=move_minutes,
        )
        made = await self.bot.tournaments.create(
            interaction.guild_id, interaction.channel_id, interaction.user.id, settings
        )
        await interaction.response.send_message(
            posts.signup_text(self.bot, made.event),
            view=posts.signup_view(made.id),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @group.command(
        name=cmd("cmd.tournament.status.name"), description=cmd("cmd.tournament.status.description")
    )
    async def status(self, interaction: Interaction) -> None:
        """The channel's event: its sign-up, or its standings (a knockout: its bracket) with their picture and
        its page's link; only for the asker."""
        row, event = await desk.here(self.bot, interaction)
        if event.status == "signup":
            await interaction.response.send_message(posts.signup_text(self.bot, event), ephemeral=True)
            return
        files = await delivery.draw(posts.standings_picture(self.bot, event))
        view = await posts.page_view(self.bot, row.guild_id, row.id)
        await interaction.response.send_message(
            posts.standings_text(self.bot, event),
            files=files,
            ephemeral=True,
            view=view if view is not None else discord.utils.MISSING,
        )

    @group.command(name=cmd("cmd.tournament.start.name"), description=cmd("cmd.tournament.start.description"))
    async def start(self, interaction: Interaction) -> None:
        await desk.step(self.bot, interaction, "start")

    @group.command(name=cmd("cmd.tournament.pause.name"), description=cmd("cmd.tournament.pause.description"))
    async def pause(self, interaction: Interaction) -> None:
        await desk.step(self.bot, interaction, "pause")

    @group.command(
        name=cmd("cmd.tournament.resume.name"), description=cmd("cmd.tournament.resume.description")
    )
    async def resume(self, interaction: Interaction) -> None:
        await desk.step(self.bot, interaction, "resume")

    @group.command(name=cmd("cmd.tournament.drop.name"), description=cmd("cmd.tournament.drop.description"))
    @app_commands.rename(player=cmd("cmd.tournament.player"))
    @app_commands.describe(player=cmd("cmd.tournament.player.description"))
    async def drop(self, interaction: Interaction, player: discord.User) -> None:
        await desk.step(self.bot, interaction, "drop", player=player.id)

    @group.command(name=cmd("cmd.tournament.award.name"), description=cmd("cmd.tournament.award.description"))
    @app_commands.rename(match=cmd("cmd.tournament.match"), player=cmd("cmd.tournament.winner"))
    @app_commands.describe(
        match=cmd("cmd.tournament.match.description"), player=cmd("cmd.tournament.winner.description")
    )
    async def award(
        self, interaction: Interaction, match: app_commands.Range[str, 3, 9], player: discord.User
    ) -> None:
        await desk.step(self.bot, interaction, "award", player=player.id, match=match.strip())

    @group.command(
        name=cmd("cmd.tournament.repair.name"), description=cmd("cmd.tournament.repair.description")
    )
    async def repair(self, interaction: Interaction) -> None:
        await desk.step(self.bot, interaction, "repair")

    @group.command(name=cmd("cmd.tournament.end.name"), description=cmd("cmd.tournament.end.description"))
    async def end(self, interaction: Interaction) -> None:
        await desk.step(self.bot, interaction, "end")


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(Tournament(bot))
