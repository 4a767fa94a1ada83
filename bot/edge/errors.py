"""The one place where errors become replies.

Expected refusals (a rules violation, a service saying "no") become a short ephemeral reply with the
error's own sentence. Anything else is a bug: it is logged once, with context, and the user gets an apology.
Slash commands reach this through :class:`TavernTree`; every component press through
``bot.edge.router.on_component``, which calls :func:`reply_error` itself.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, cast

import discord
from discord import app_commands

from bot.base.i18n import both, named, t, tn
from bot.base.refusals import UserFacingError
from bot.base.safe import plain
from bot.edge import cycles
from bot.edge.contract.limits import INTEGER_MAX
from bot.render.refusals import said
from bot.rules.errors import RulesError

log = logging.getLogger("tavern.errors")

# Discord permissions the bot may name to a player, by their names in discord.py (catalog family "perm").
PERMISSIONS = (
    "view_channel",
    "send_messages",
    "embed_links",
    "attach_files",
    "read_message_history",
    "add_reactions",
    "use_external_emojis",
    "create_public_threads",
    "send_messages_in_threads",
    "manage_guild",
    "manage_channels",
    "manage_messages",
)


def permissions(names: Iterable[str]) -> Any:
    """Permissions as Discord's client names them in the player's language ("Send Messages and Embed
    Links"), for a placeholder."""
    return both(named("perm", p) if p in PERMISSIONS else p.replace("_", " ") for p in names)


def user_message(error: BaseException) -> str | None:
    """The sentence to show for an expected error, or ``None`` when the error is a bug."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError) and isinstance(
        error.__cause__, RulesError | UserFacingError
    ):
        error = error.__cause__
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, RulesError | UserFacingError):
        return said(error)
    if isinstance(error, app_commands.CommandOnCooldown):
        return t("tavern.error.cooldown", seconds=f"{error.retry_after:.0f}")
    if isinstance(error, app_commands.BotMissingPermissions):
        missing = error.missing_permissions
        return tn("tavern.error.bot-needs", len(missing), perms=permissions(missing))
    if isinstance(error, app_commands.MissingPermissions):
        missing = error.missing_permissions
        return tn("tavern.error.you-need", len(missing), perms=permissions(missing))
    if isinstance(error, app_commands.CheckFailure):  # includes NoPrivateMessage
        return t("tavern.error.server-only")
    if isinstance(error, app_commands.TransformerError):
        return t("tavern.error.bad-option-value", value=plain(str(error.value)))
    return None


def _context(interaction: discord.Interaction[Any]) -> str:
    what: str
    data = cast(dict[str, Any], interaction.data or {})
    if interaction.command is not None:
        what = f"/{interaction.command.qualified_name}"
    elif "custom_id" in data:
        what = f"component {data['custom_id']!r}"
    else:
        what = f"interaction type {interaction.type.name}"  # i18n: not text
    return (  # i18n: not text
        f"{what} by user {interaction.user.id if interaction.user else '?'} "
        f"in guild {interaction.guild_id} channel {interaction.channel_id}"
    )


async def send_ephemeral(interaction: discord.Interaction[Any], text: str) -> None:
    """Answer ephemerally whether or not the interaction was already acknowledged; never raises."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as err:
        log.warning("Could not deliver an error reply (%s): %s", _context(interaction), err)


async def reply_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Turn any exception raised while handling ``interaction`` into the right ephemeral reply."""
    text = user_message(error)
    if text is not None:
        log.debug("Refused %s: %s", _context(interaction), getattr(error, "why", text))
    else:
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        log.error("Unhandled error in %s", _context(interaction), exc_info=original)
        text = t("tavern.error.apology")
    await send_ephemeral(interaction, text)


class BadOption(UserFacingError, app_commands.CheckFailure):
    """A command option no Discord client would send (an id that isn't one, a user Discord didn't resolve).
    A ``CheckFailure`` too, so ``interaction_check`` can raise it and it reaches the tree's error handler."""


SNOWFLAKE_TYPES = {6: "user", 7: "channel", 8: "role", 9: "mentionable"}  # the option types that hold ids
MAX_SNOWFLAKE = 2**63 - 1


def check_options(data: Any) -> None:
    """Refuse ids that discord.py would choke on (it parses them before any command runs): every user,
    channel, role or mentionable option is ASCII digits within 64 bits, and resolved by Discord."""
    resolved = data.get("resolved") or {}
    known: set[str] = set()
    for part in ("users", "members", "channels", "roles"):
        known.update(str(k) for k in (resolved.get(part) or {}))
    stack = list(data.get("options") or [])
    while stack:
        option = stack.pop()
        if not isinstance(option, dict):
            raise BadOption("tavern.error.unreadable-command")
        stack.extend(option.get("options") or [])
        kind = SNOWFLAKE_TYPES.get(option.get("type", 0))
        if kind is None or option.get("focused"):
            continue
        value = option.get("value")
        ok = isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 19
        if not ok or int(str(value)) > MAX_SNOWFLAKE or str(value) not in known:
            raise BadOption("tavern.error.not-found", kind=named("option-kind", kind))


# What an option of each type may hold: string, integer, boolean, number (bool is no integer here).
VALUE_TYPES: dict[int, tuple[type, ...]] = {3: (str,), 4: (int,), 5: (bool,), 10: (int, float)}


def check_values(interaction: discord.Interaction[Any]) -> None:
    """Refuse what no client would send for this command: a value of another type than its option's, one
    that is not among the option's declared choices, or one outside its declared range (the choices and the
    range are the client's menu, not a check: anyone can send any value). Refused quietly, without repeating
    the value."""
    data: Any = interaction.data or {}
    command = interaction.command
    if interaction.type is not discord.InteractionType.application_command or not isinstance(
        command, app_commands.Command
    ):
        return
    options = list(data.get("options") or [])
    while options and isinstance(options[0], dict) and options[0].get("type") in (1, 2):
        options = list(options[0].get("options") or [])  # down to the subcommand's own options
    parameters = {p.display_name: p for p in command.parameters}
    for option in options:
        parameter = parameters.get(str(option.get("name"))) if isinstance(option, dict) else None
        if parameter is None or parameter.type.value not in VALUE_TYPES:
            continue
        value = option.get("value")
        kinds = VALUE_TYPES[parameter.type.value]
        if option.get("type") != parameter.type.value or not isinstance(value, kinds):
            raise BadOption("tavern.error.unreadable-command")
        if isinstance(value, bool) and parameter.type.value != 5:
            raise BadOption("tavern.error.unreadable-command")
        if parameter.choices and value not in {c.value for c in parameter.choices}:
            raise BadOption("tavern.error.not-a-choice")
        # the declared Range: Discord's client keeps to it, a forged interaction need not (for a string
        # option the bounds are its length)
        low, high = parameter.min_value, parameter.max_value
        if isinstance(value, str):
            if (low is not None and len(value) < low) or (high is not None and len(value) > high):
                raise BadOption("tavern.error.out-of-length", low=low or 0, high=high or INTEGER_MAX)
        elif isinstance(value, int | float) and (
            (low is not None and value < low) or (high is not None and value > high)
        ):
            low, high = (-INTEGER_MAX if low is None else low), (INTEGER_MAX if high is None else high)
            raise BadOption("tavern.error.out-of-range", low=low, high=high)


class TavernTree(app_commands.CommandTree[Any]):
    """Command tree whose errors go through :func:`reply_error`."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """A command waits, at start-up, until every active game is listed (``TableService.indexed``: it
        may look tables up by channel or user; the restore of the tables themselves goes on, and a table
        looked up is rebuilt then); an option no client would send (an id that isn't one, a value of the
        wrong type, not among its choices or outside its range) is refused before the command runs; a
        closing bot refuses new commands with the same short answer as a press, and waits for the ones it
        let in (``bot.edge.drain``)."""
        languages = getattr(interaction.client, "languages", None)
        if languages is not None:  # the caller's language for everything this command answers
            await languages.heard(interaction)
        tables = getattr(interaction.client, "tables", None)
        if tables is not None:
            await tables.indexed()
        check_options(interaction.data or {})
        check_values(interaction)
        drain = getattr(interaction.client, "drain", None)
        if drain is not None:
            drain.refuse_if_closing()
            if interaction.type is discord.InteractionType.application_command:
                drain.enter(interaction.id)  # until its completion (TavernBot) or its error (below)
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        try:
            await reply_error(interaction, error)
        finally:
            drain = getattr(interaction.client, "drain", None)
            if drain is not None:
                drain.leave(interaction.id)
            cycles.let_go(interaction)
