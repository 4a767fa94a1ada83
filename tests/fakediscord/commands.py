"""Application commands: the bulk sync the bot sends (global or per guild, checked by validate.py), the
Entry Point command that turning Activities on makes, and what tests read of them.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from .errors import DiscordError, FormErrors
from .model import FakeGuild
from .state import ENTRY_POINT, FakeState
from .wire import json_answer

COMMAND_NAME_MAX = 32
COMMAND_DESCRIPTION_MAX = 100
COMMAND_OPTIONS_MAX = 25
COMMAND_CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
# The locales Discord accepts as keys of name_localizations / description_localizations.
DISCORD_LOCALES = frozenset(
    {
        *("id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no"),
        *("pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th"),
        *("zh-CN", "ja", "zh-TW", "ko"),
    }
)


def _valid_name(name: Any) -> bool:
    """A chat-input command or option name: 1–32 lowercase letters, digits, ``-`` or ``_`` (any script)."""
    return (
        isinstance(name, str)
        and 1 <= len(name) <= COMMAND_NAME_MAX
        and all(ch.isalnum() or ch in "-_" for ch in name)
        and name == name.lower()
    )


def _check_text(errors: FormErrors, at: tuple[str | int, ...], item: dict[str, Any], *, named: bool) -> None:
    """A name (a command's or option's when ``named``, else a choice's) and a description, and their
    localizations: keys must be Discord locales, values must obey the same rules."""
    names = [((*at, "name"), item.get("name"))]
    names += [((*at, "name_localizations", k), v) for k, v in (item.get("name_localizations") or {}).items()]
    for path, value in names:
        if path[-2:-1] == ("name_localizations",) and path[-1] not in DISCORD_LOCALES:
            errors.add(path, "LOCALE_INVALID", f"Invalid locale {path[-1]!r}")
        if named and not _valid_name(value):
            errors.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        elif not named and not (isinstance(value, str) and 1 <= len(value) <= CHOICE_NAME_MAX):
            errors.add(path, "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {CHOICE_NAME_MAX} in length.")
    if not named:
        return
    texts = [((*at, "description"), item.get("description"))]
    texts += [
        ((*at, "description_localizations", k), v)
        for k, v in (item.get("description_localizations") or {}).items()
    ]
    for path, value in texts:
        if path[-2:-1] == ("description_localizations",) and path[-1] not in DISCORD_LOCALES:
            errors.add(path, "LOCALE_INVALID", f"Invalid locale {path[-1]!r}")
        if not (isinstance(value, str) and 1 <= len(value) <= COMMAND_DESCRIPTION_MAX):
            errors.add(
                path, "BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {COMMAND_DESCRIPTION_MAX} in length."
            )


def validate_commands(body: Any) -> None:
    """A bulk command sync as Discord checks it: chat-input commands' names, descriptions, options, choices
    and all their localizations; a user or message command's name of 1-32 characters (any case, spaces
    too) and no description; 400/50035 with Discord's error tree otherwise."""
    errors = FormErrors()
    if not isinstance(body, list):
        raise DiscordError(400, 50035, "Invalid Form Body")
    for i, command in enumerate(body):
        if command.get("type", 1) in (2, 3):
            _check_text(errors, (i,), command, named=False)
            if command.get("description"):
                errors.add((i, "description"), "BASE_TYPE_BAD_LENGTH", "Must be 0 in length.")
            continue
        _check_text(errors, (i,), command, named=True)
        stack: list[tuple[tuple[str | int, ...], dict[str, Any]]] = [((i,), command)]
        while stack:
            at, item = stack.pop()
            options = item.get("options") or []
            errors.too_long((*at, "options"), options, COMMAND_OPTIONS_MAX)
            for j, option in enumerate(options):
                _check_text(errors, (*at, "options", j), option, named=True)
                choices = option.get("choices") or []
                errors.too_long((*at, "options", j, "choices"), choices, COMMAND_CHOICES_MAX)
                for k, choice in enumerate(choices):
                    _check_text(errors, (*at, "options", j, "choices", k), choice, named=False)
                stack.append(((*at, "options", j), option))
    if errors.tree:
        raise DiscordError(400, 50035, "Invalid Form Body", errors.tree)


class Commands(FakeState):
    """Application commands as the bot synced them."""

    def enable_activities(self) -> dict[str, Any]:
        """What turning Activities on in the Developer Portal does: Discord makes the app's Entry Point
        command ("Launch", handled by Discord), which a global bulk overwrite must carry from then on."""
        command = {
            "id": str(self.ids.next()),
            "application_id": str(self.app_id),
            "version": str(self.ids.next()),
            "type": ENTRY_POINT,
            "handler": 2,  # DISCORD_LAUNCH_ACTIVITY
            "name": "launch",
            "description": "Launch an activity",
            "contexts": [0, 1, 2],
            "integration_types": [0, 1],
        }
        self.global_commands.append(command)
        return command

    def commands(self, guild: FakeGuild | None = None) -> list[dict[str, Any]]:
        """The synced command payloads (global, or one guild's)."""
        return list(self.global_commands if guild is None else self.guild_commands.get(guild.id, []))

    def command_syncs(self) -> int:
        """How many bulk command syncs (``PUT .../commands``, global or guild) the bot has sent."""
        return sum(1 for method, path, _ in self.requests if method == "PUT" and path.endswith("/commands"))

    async def _commands(self, request: web.Request, guild_id: int | None) -> web.Response:
        if guild_id is not None and guild_id not in self.guilds:
            raise DiscordError(403, 50001, "Missing Access")
        if request.method == "PUT":
            body = await request.json()
            self.command_bodies.append(body)
            validate_commands(body)
            entry = [c for c in body if isinstance(c, dict) and c.get("type") == ENTRY_POINT]
            if entry and guild_id is not None:
                raise DiscordError(400, 50035, "Invalid Form Body")  # an Entry Point command is global only
            if guild_id is None and not entry and any(c["type"] == ENTRY_POINT for c in self.global_commands):
                raise DiscordError(
                    400, 50240, "You cannot remove this app's Entry Point command in a bulk update operation"
                )
            stored = []
            old = {c["name"]: c["id"] for c in self.commands(self.guilds.get(guild_id or 0))}
            for cmd in body:
                stored.append(
                    {
                        **cmd,
                        "id": old.get(cmd["name"], str(self.ids.next())),
                        "application_id": str(self.app_id),
                        "version": str(self.ids.next()),
                        "type": cmd.get("type", 1),
                        "description": cmd.get("description", ""),  # "" for user and message commands
                        **({"guild_id": str(guild_id)} if guild_id else {}),
                    }
                )
            if guild_id is None:
                self.global_commands = stored
            else:
                self.guild_commands[guild_id] = stored
            return json_answer(stored)
        if request.method == "GET":
            return json_answer(
                self.global_commands if guild_id is None else self.guild_commands.get(guild_id, [])
            )
        self.unhandled.append(f"{request.method} {request.path}")
        raise DiscordError(404, 0, "fake Discord models only bulk command sync")
