"""Application commands: the bulk sync the bot sends (global or per guild, checked by validate.py), the
Entry Point command that turning Activities on makes, and what tests read of them.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from .model import (
    FakeGuild,
)
from .state import ENTRY_POINT, FakeState
from .validate import (
    DiscordError,
    validate_commands,
)
from .wire import json_answer


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
