"""Per-server settings: what a server's admins changed from the defaults the bot's operator set in ``.env``.

A server may change the idle timers (nudge and claim minutes), the usual target of each game (used when a
player doesn't give one), whether each game opens its own thread, and whether private panels go out by DM
at all (off: every player plays from the channel with **Show my hand**, for servers that don't want the
bot in their members' DMs). Every value is
checked here, whatever the client sent; a change is all or nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from bot.errors import UserFacingError
from bot.games import GameAdapter
from bot.safe import plain
from bot.settings import Settings
from bot.store import Store

MAX_NUDGE_MINUTES = 24 * 60
MAX_CLAIM_MINUTES = 7 * 24 * 60


@dataclass(frozen=True)
class ServerConfig:
    """One server's settings in force (its own changes over the operator's defaults)."""

    nudge_minutes: float
    claim_minutes: float
    dms: bool = True
    threads: bool = True  # each game in its own thread (where the bot may open threads)
    targets: Mapping[str, int] = field(default_factory=dict)  # the usual target per game name

    def changes(self, defaults: ServerConfig) -> dict[str, Any]:
        """What differs from ``defaults``: what is stored."""
        out: dict[str, Any] = {}
        for key in ("nudge_minutes", "claim_minutes", "dms", "threads"):
            if getattr(self, key) != getattr(defaults, key):
                out[key] = getattr(self, key)
        targets = {g: t for g, t in self.targets.items() if defaults.targets.get(g) != t}
        if targets:
            out["targets"] = targets
        return out


class ServerSettings:
    """Reads and changes servers' settings, cached (every idle check of every table asks)."""

    def __init__(self, store: Store, settings: Settings, games: Mapping[str, GameAdapter]) -> None:
        self.store = store
        self.games = games
        self.defaults = ServerConfig(
            nudge_minutes=settings.nudge_minutes,
            claim_minutes=settings.claim_minutes,
            threads=settings.threads,
            targets={name: g.targets[1] for name, g in games.items() if g.targets is not None},
        )
        self._cache: dict[int, ServerConfig] = {}

    async def get(self, guild_id: int) -> ServerConfig:
        config = self._cache.get(guild_id)
        if config is None:
            config = self._apply(self.defaults, await self.store.guild_settings(guild_id), strict=False)
            self._cache[guild_id] = config
        return config

    async def change(self, guild_id: int, changes: Mapping[str, Any]) -> ServerConfig:
        """Apply ``changes`` (``nudge_minutes``, ``claim_minutes``, ``dms``, ``<game>_target``) or refuse them
        all with a sentence saying what is wrong."""
        config = self._apply(await self.get(guild_id), self._as_stored(changes), strict=True)
        await self.store.set_guild_settings(guild_id, config.changes(self.defaults))
        self._cache[guild_id] = config
        return config

    async def reset(self, guild_id: int) -> ServerConfig:
        await self.store.set_guild_settings(guild_id, {})
        self._cache[guild_id] = self.defaults
        return self.defaults

    def _as_stored(self, changes: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        targets: dict[str, Any] = {}
        for key, value in changes.items():
            if key.endswith("_target"):
                targets[key.removesuffix("_target")] = value
            else:
                out[key] = value
        if targets:
            out["targets"] = targets
        return out

    def _apply(self, base: ServerConfig, data: Mapping[str, Any], *, strict: bool) -> ServerConfig:
        """``base`` with ``data`` over it. ``strict`` (an admin's change) refuses anything out of range; a
        stored value that no longer fits (a game removed, a range narrowed) is ignored instead."""
        config = base
        for key, value in data.items():
            try:
                config = self._one(config, key, value)
            except UserFacingError:
                if strict:
                    raise
        return config

    def _one(self, config: ServerConfig, key: str, value: Any) -> ServerConfig:
        if key == "nudge_minutes":
            return replace(config, nudge_minutes=_minutes(value, MAX_NUDGE_MINUTES, "Nudge"))
        if key == "claim_minutes":
            return replace(config, claim_minutes=_minutes(value, MAX_CLAIM_MINUTES, "Claim"))
        if key == "dms":
            if not isinstance(value, bool):
                raise UserFacingError("DMs are on or off.")
            return replace(config, dms=value)
        if key == "threads":
            if not isinstance(value, bool):
                raise UserFacingError("Threads are on or off.")
            return replace(config, threads=value)
        if key == "targets" and isinstance(value, Mapping):
            targets = dict(config.targets)
            for game, target in value.items():
                adapter = self.games.get(str(game))
                if adapter is None or adapter.targets is None:
                    raise UserFacingError(f"There is no game “{plain(str(game))}” with a target here.")
                low, _, high = adapter.targets
                if isinstance(target, bool) or not isinstance(target, int) or not low <= target <= high:
                    raise UserFacingError(
                        f"The {adapter.title} target must be a whole number from {low} to {high}."
                    )
                targets[str(game)] = target
            return replace(config, targets=targets)
        raise UserFacingError(f"There is no setting called “{key}”.")


def _minutes(value: Any, highest: int, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= highest:
        raise UserFacingError(f"{what} minutes must be from 0 (off) to {highest}.")
    return value


def describe(config: ServerConfig, defaults: ServerConfig, games: Mapping[str, GameAdapter]) -> str:
    """The settings in force, marking what this server changed."""

    def mark(changed: bool) -> str:
        return " *(changed here)*" if changed else ""

    def minutes(value: float) -> str:
        return "off" if not value else f"after {value:g} min"

    lines = [
        f"**Nudge** an idle player: {minutes(config.nudge_minutes)}"
        f"{mark(config.nudge_minutes != defaults.nudge_minutes)}",
        f"**Claim** against an idle player: {minutes(config.claim_minutes)}"
        f"{mark(config.claim_minutes != defaults.claim_minutes)}",
        f"**DMs**: {'private hands by DM' if config.dms else 'off: everyone plays with Show my hand'}"
        f"{mark(config.dms != defaults.dms)}",
        "**Threads**: "
        f"{'each game in its own thread' if config.threads else 'off: games play in the channel'}"
        f"{mark(config.threads != defaults.threads)}",
    ]
    for name, adapter in games.items():
        if adapter.targets is not None:
            target = config.targets.get(name, adapter.targets[1])
            lines.append(
                f"**{adapter.title}** usual target: {target}{mark(target != defaults.targets.get(name))}"
            )
    return "\n".join(lines)
