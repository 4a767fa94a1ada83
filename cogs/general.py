"""``/tavern help``, ``/tavern cards`` and ``/tavern ping``: what the bot is and whether it is alive,
in the reader's language; and ``/tavern-admin end`` and ``/tavern-admin settings`` for a server's admins."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where
from discord.ext import commands

from bot.base.i18n import current, t
from bot.base.refusals import UserFacingError
from bot.base.text import RULES_DOCS, rules_link
from bot.base.version import commit, version
from bot.edge import (
    delivery,
    forget_me,
    history_book,
    leaderboard_book,
    me_panel,
    record_export,
    replay_book,
    settings_form,
    visibility,
)
from bot.edge.contract.limits import INTEGER_MAX
from bot.edge.translator import cmd, localized
from bot.games import GAMES
from bot.render import cards as gallery
from bot.services.live_tables import live_tables, tables_text
from bot.services.server_settings import BROWSER_OFF, BROWSER_SERVER, MAX_CLAIM_MINUTES, MAX_NUDGE_MINUTES
from cogs.stats import game_choices
from cogs.table_commands import ANYWHERE_CONTEXTS, ANYWHERE_INSTALLS

# A game's number, as a slash option: the largest integer Discord's API carries bounds it (a bound past it has
# the whole command registration refused).
MAX_GAME_ID = INTEGER_MAX

if TYPE_CHECKING:
    from bot.edge.app import TavernBot


def rules_field(base: str | None) -> str:
    """Where the full rules are: the operator's published docs (``TAVERN_RULES_URL``) or the repository."""
    return "\n".join(
        t("general.help.rules-line", game=GAMES[game].title, link=rules_link(doc, base))
        for game, doc in RULES_DOCS.items()
    )


def shown(text: str | app_commands.locale_str, where: Where) -> str:
    """A command's name or description as the reader's Discord shows it: the catalog's text in the language
    in force when the command carries an id (and the text fits Discord's rules), else the text itself."""
    return localized(text, current(), where) or str(text)


def command_name(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> str:
    """A command's full name as the reader types it: "tavern cards" ("taverna carte")."""
    where = Where.group_name if isinstance(command, app_commands.Group) else Where.command_name
    own = shown(command._locale_name or command.name, where)
    return own if command.parent is None else f"{command_name(command.parent)} {own}"


def command_path(tree: app_commands.CommandTree[Any], *english: str) -> str:
    """The reader's name of the command at the English path ``english`` (``"bhargage", "challenge"``); the
    English path if the tree lacks it."""
    found: Any = tree.get_command(english[0]) if english else None
    for part in english[1:]:
        found = found.get_command(part) if isinstance(found, app_commands.Group) else None
    if isinstance(found, app_commands.Command | app_commands.Group):
        return command_name(found)
    return " ".join(english)


def every_game(tree: app_commands.CommandTree[Any], command: str) -> str:
    """One table command of every game (``rules``, ``hand``), as the reader types each: "`/bhargage rules`
    · `/deluxe rules` · …", in the registry's order."""
    groups = [GAMES[game].command.lstrip("/") for game in GAMES]
    return " · ".join(f"`/{command_path(tree, group, command)}`" for group in groups)


def start_words(tree: app_commands.CommandTree[Any]) -> dict[str, str]:
    """The commands the help's first steps name, as the reader types them (placeholders of its text): two
    ways to start a game, as examples, then every game's rules and hand commands."""
    return {
        "challenge": command_path(tree, "bhargage", "challenge"),
        "practice": command_path(tree, "bhargage", "practice"),
        "create": command_path(tree, "deluxe", "create"),
        "rules": every_game(tree, "rules"),
        "hands": every_game(tree, "hand"),
    }


def offered(
    command: app_commands.Command[Any, ..., Any] | app_commands.Group, perms: discord.Permissions
) -> bool:
    """Whether Discord shows the reader this top-level command by default: one that asks for permissions
    (the admin group) only to members who have them here."""
    needed = command.default_permissions
    return needed is None or perms.administrator or perms >= needed


def command_lines(
    tree: app_commands.CommandTree[discord.Client], perms: discord.Permissions | None = None
) -> list[str]:
    """One line per invocable slash command the reader is offered (``perms``, theirs where they ask; None:
    every command), so new game cogs show up in help without edits here."""
    lines: list[str] = []

    def walk(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> None:
        if isinstance(command, app_commands.Group):
            for child in command.commands:
                walk(child)
        else:
            about = shown(command._locale_description or command.description, Where.command_description)
            lines.append(f"`/{command_name(command)}` — {about}")

    for top in tree.get_commands(type=discord.AppCommandType.chat_input):
        if not isinstance(top, app_commands.Command | app_commands.Group):
            continue
        if perms is None or offered(top, perms):
            walk(top)
    return sorted(lines)


def command_fields(lines: list[str], limit: int = 1024) -> list[tuple[str, str]]:
    """Spread the lines over as many embed fields as needed (Discord caps a field at 1024 characters)."""
    fields: list[list[str]] = [[]]
    for line in lines:
        if fields[-1] and len("\n".join([*fields[-1], line])) > limit:
            fields.append([])
        fields[-1].append(line[:limit])
    return [
        (t("general.help.commands") if i == 0 else t("general.help.more-commands"), "\n".join(f) or "—")
        for i, f in enumerate(fields)
    ]


class General(commands.Cog):
    """Bot-wide commands that belong to no game."""

    tavern = app_commands.Group(
        name=cmd("cmd.tavern.name"),
        description=cmd("cmd.tavern.description"),
        allowed_installs=ANYWHERE_INSTALLS,
        allowed_contexts=ANYWHERE_CONTEXTS,
    )
    # A top-level group of its own: Discord applies default permissions to top-level commands only, so only
    # members who may manage channels see it (a server can change that under Integrations). The commands
    # still check who calls them: end wants Manage Server or Manage Channels, settings Manage Server.
    admin = app_commands.Group(
        name=cmd("cmd.admin.name"),
        description=cmd("cmd.admin.description"),
        guild_only=True,
        allowed_installs=app_commands.AppInstallationType(guild=True),  # a server's own: never a user's
        default_permissions=discord.Permissions(manage_channels=True),
    )

    def __init__(self, bot: TavernBot) -> None:
        self.bot = bot

    @tavern.command(name=cmd("cmd.tavern.help.name"), description=cmd("cmd.tavern.help.description"))
    async def help(self, interaction: discord.Interaction[TavernBot]) -> None:
        embed = discord.Embed(
            title=t("general.help.title"),
            description=t("general.help.about"),
            colour=discord.Colour.dark_gold(),
        )
        steps = start_words(self.bot.tree)
        embed.add_field(
            name=t("general.help.start.title"), value=t("general.help.start", **steps), inline=False
        )
        embed.add_field(
            name=t("general.help.private.title"), value=t("general.help.private", **steps), inline=False
        )
        embed.add_field(
            name=t("general.help.permissions.title"), value=t("general.help.permissions"), inline=False
        )
        embed.add_field(
            name=t("general.help.rules.title"), value=rules_field(self.bot.settings.rules_url), inline=False
        )
        for name, value in command_fields(command_lines(self.bot.tree, interaction.permissions)):
            embed.add_field(name=name, value=value, inline=False)
        embed.set_footer(text=t("general.help.footer", version=version(), commit=commit()))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @admin.command(name=cmd("cmd.admin.end.name"), description=cmd("cmd.admin.end.description"))
    async def end(self, interaction: discord.Interaction[TavernBot]) -> None:
        await self.bot.controller.commands.end_here(interaction)

    @admin.command(name=cmd("cmd.admin.settings.name"), description=cmd("cmd.admin.settings.description"))
    @app_commands.rename(
        nudge_minutes=cmd("cmd.admin.settings.nudge-minutes"),
        claim_minutes=cmd("cmd.admin.settings.claim-minutes"),
        dms=cmd("cmd.admin.settings.dms"),
        threads=cmd("cmd.admin.settings.threads"),
        game=cmd("cmd.admin.settings.game"),
        target=cmd("cmd.admin.settings.target"),
        reset=cmd("cmd.admin.settings.reset"),
        language=cmd("cmd.admin.settings.language"),
        seasons=cmd("cmd.admin.settings.seasons"),
        browser=cmd("cmd.admin.settings.browser"),
    )
    @app_commands.describe(
        nudge_minutes=cmd("cmd.admin.settings.nudge-minutes.description"),
        claim_minutes=cmd("cmd.admin.settings.claim-minutes.description"),
        dms=cmd("cmd.admin.settings.dms.description"),
        threads=cmd("cmd.admin.settings.threads.description"),
        game=cmd("cmd.admin.settings.game.description"),
        target=cmd("cmd.admin.settings.target.description"),
        reset=cmd("cmd.admin.settings.reset.description"),
        language=cmd("cmd.admin.settings.language.description"),
        seasons=cmd("cmd.admin.settings.seasons.description"),
        browser=cmd("cmd.admin.settings.browser.description"),
    )
    @app_commands.choices(
        language=[
            app_commands.Choice(name=cmd("cmd.admin.settings.language.auto"), value="auto"),
            app_commands.Choice(name=cmd("cmd.admin.settings.language.en"), value="en"),
            app_commands.Choice(name=cmd("cmd.admin.settings.language.it"), value="it"),
        ],
        seasons=[
            app_commands.Choice(name=cmd("cmd.admin.settings.seasons.monthly"), value="monthly"),
            app_commands.Choice(name=cmd("cmd.admin.settings.seasons.none"), value="none"),
        ],
        browser=[
            app_commands.Choice(name=cmd("cmd.admin.settings.browser.off"), value="off"),
            app_commands.Choice(name=cmd("cmd.admin.settings.browser.tables"), value="tables"),
            app_commands.Choice(name=cmd("cmd.admin.settings.browser.server"), value="server"),
        ],
    )
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
        seasons: str | None = None,
        browser: str | None = None,
    ) -> None:
        changes: dict[str, Any] = {
            "language": language,
            "seasons": seasons,
            "nudge_minutes": nudge_minutes,
            "claim_minutes": claim_minutes,
            "dms": dms,
            "threads": threads,
            "browser": browser,
        }
        if (game is None) != (target is None):
            raise UserFacingError("general.settings.game-and-target")
        if game is not None:
            changes[f"{game}_target"] = target
        if interaction.guild_id is None:
            raise UserFacingError("tavern.error.server-only")
        if not interaction.permissions.manage_guild:
            raise UserFacingError("tavern.settings.admins-only")
        self.bot.limits.admin.take(interaction.user.id)
        asked = {k: v for k, v in changes.items() if v is not None}
        if not asked and not reset:  # no option: the form, which saves each choice as it is made
            await settings_form.show(self.bot, interaction, interaction.guild_id)
            return
        text = await self.bot.server_settings.answer(interaction.guild_id, asked, reset=reset)
        await interaction.response.send_message(text, ephemeral=True)

    @admin.command(name=cmd("cmd.admin.new-season.name"), description=cmd("cmd.admin.new-season.description"))
    async def new_season(self, interaction: discord.Interaction[TavernBot]) -> None:
        """Close the leaderboard's current season, after a confirmation (``bot.edge.leaderboard_book``)."""
        if interaction.guild_id is None:
            raise UserFacingError("tavern.error.server-only")
        if not interaction.permissions.manage_guild:
            raise UserFacingError("leaderboard.close.admins-only")
        self.bot.limits.admin.take(interaction.user.id)
        await leaderboard_book.ask_close(self.bot, interaction)

    @settings.autocomplete("game")
    async def settings_game(
        self, interaction: discord.Interaction[TavernBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=g.title, value=name)
            for name, g in self.bot.games.items()
            if g.targets is not None and current.lower() in g.title.lower()
        ][:25]

    @tavern.command(name=cmd("cmd.tavern.cards.name"), description=cmd("cmd.tavern.cards.description"))
    @app_commands.rename(card=cmd("cmd.tavern.cards.card"))
    @app_commands.describe(card=cmd("cmd.tavern.cards.card.description"))
    async def cards(self, interaction: discord.Interaction[TavernBot], card: str | None = None) -> None:
        self.bot.limits.cards.take(interaction.user.id)
        panel = gallery.gallery_panel() if card is None else gallery.card_panel(gallery.find_card(card))
        await delivery.send_ephemeral(interaction, panel, 0)

    @cards.autocomplete("card")
    async def cards_card(
        self, interaction: discord.Interaction[TavernBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=n, value=v) for n, v in gallery.card_names(current)]

    @tavern.command(name=cmd("cmd.tavern.tables.name"), description=cmd("cmd.tavern.tables.description"))
    async def tables(self, interaction: discord.Interaction[TavernBot]) -> None:
        if interaction.guild_id is None:
            raise UserFacingError("tavern.error.server-only")
        self.bot.limits.tables.take(interaction.user.id)
        sees = visibility.member_sees(interaction)
        found = await live_tables(
            self.bot.store, self.bot.tables, interaction.guild_id, sees, interaction.user.id
        )
        links, now = self.bot.links, self.bot.clock()
        browser = (await self.bot.server_settings.get(interaction.guild_id)).browser
        if links is None or browser == BROWSER_OFF:
            text = tables_text(found)
        else:  # each page's link signed afresh: it lasts links.LIVE_SECONDS from now
            server = links.server(interaction.guild_id, now) if browser == BROWSER_SERVER else None
            text = tables_text(found, lambda table: links.live(table.id, now), server)
        embed = discord.Embed(
            title=t("general.tables.title"), description=text, colour=discord.Colour.dark_gold()
        )
        await interaction.response.send_message(
            embed=embed, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )

    @tavern.command(name=cmd("cmd.tavern.history.name"), description=cmd("cmd.tavern.history.description"))
    @app_commands.rename(player=cmd("cmd.stats.player"), game=cmd("cmd.leaderboard.game"))
    @app_commands.describe(
        player=cmd("cmd.tavern.history.player.description"), game=cmd("cmd.tavern.history.game.description")
    )
    @app_commands.choices(game=game_choices())
    async def history(
        self,
        interaction: discord.Interaction[TavernBot],
        player: discord.User | None = None,
        game: str | None = None,
    ) -> None:
        await history_book.show(self.bot, interaction, player or interaction.user, game)

    @tavern.command(name=cmd("cmd.tavern.replay.name"), description=cmd("cmd.tavern.replay.description"))
    @app_commands.rename(game=cmd("cmd.tavern.replay.game"))
    @app_commands.describe(game=cmd("cmd.tavern.replay.game.description"))
    async def replay(
        self, interaction: discord.Interaction[TavernBot], game: app_commands.Range[int, 1, MAX_GAME_ID]
    ) -> None:
        await replay_book.show(self.bot, interaction, game)

    @tavern.command(name=cmd("cmd.tavern.export.name"), description=cmd("cmd.tavern.export.description"))
    @app_commands.rename(game=cmd("cmd.tavern.export.game"))
    @app_commands.describe(game=cmd("cmd.tavern.export.game.description"))
    async def export(
        self, interaction: discord.Interaction[TavernBot], game: app_commands.Range[int, 1, MAX_GAME_ID]
    ) -> None:
        """The game's record as a text file, for the asker alone (``bot.edge.record_export``)."""
        await record_export.send(self.bot, interaction, game)

    @tavern.command(
        name=cmd("cmd.tavern.forget-me.name"), description=cmd("cmd.tavern.forget-me.description")
    )
    async def forget(self, interaction: discord.Interaction[TavernBot]) -> None:
        await forget_me.ask(interaction)

    @tavern.command(name=cmd("cmd.tavern.me.name"), description=cmd("cmd.tavern.me.description"))
    async def me(self, interaction: discord.Interaction[TavernBot]) -> None:
        await me_panel.show(self.bot, interaction)

    @tavern.command(name=cmd("cmd.tavern.ping.name"), description=cmd("cmd.tavern.ping.description"))
    async def ping(self, interaction: discord.Interaction[TavernBot]) -> None:
        latency = self.bot.latency
        if math.isfinite(latency):
            text = t("general.ping.latency", ms=f"{latency * 1000:.0f}")
        else:
            text = t("general.ping.unmeasured")
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: TavernBot) -> None:
    await bot.add_cog(General(bot))
