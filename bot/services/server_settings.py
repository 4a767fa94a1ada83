"""Per-server settings: what a server's admins changed from the defaults the bot's operator set in ``.env``.

A server may change the idle timers (nudge and claim minutes), the usual target of each game (used when a
player doesn't give one), whether each game opens its own thread, and whether private panels go out by DM
at all (off: every player plays from the channel with **Show my hand**, for servers that don't want the
bot in their members' DMs), whether the leaderboard's seasons are monthly or one until an admin closes it,
and what of its games may be watched in a browser (``browser``: nothing, each game's own page, or also a page
of the server's live tables).
Every value is checked here, whatever the client sent; a change is all or nothing.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from bot.base.i18n import LANGUAGES, named, t
from bot.base.refusals import UserFacingError
from bot.base.safe import plain
from bot.games import GameAdapter
from bot.settings import Settings
from bot.store import Store
from bot.store.boards import MONTHLY, ONE_SEASON

MAX_NUDGE_MINUTES = 24 * 60
SHARED_TTL = 30.0  # seconds a process trusts its copy of a server's settings when several share the store
MAX_CLAIM_MINUTES = 7 * 24 * 60
# ``browser``: no links posted and no page of this server's games served; each game's live and replay
# pages (the default); those and a page listing the server's live tables
BROWSER_OFF, BROWSER_TABLES, BROWSER_SERVER = "off", "tables", "server"
BROWSER_CHOICES = (BROWSER_OFF, BROWSER_TABLES, BROWSER_SERVER)


@dataclass(frozen=True)
class ServerConfig:
    """One server's settings in force (its own changes over the operator's defaults)."""

    nudge_minutes: float
    claim_minutes: float
    dms: bool = True
    threads: bool = True  # each game in its own thread (where the bot may open threads)
    targets: Mapping[str, int] = field(default_factory=dict)  # the usual target per game name
    language: str | None = None  # the channels' language; None: the server's Discord locale (bot.languages)
    # the leaderboard's seasons (bot.store.boards reads this one from the store): MONTHLY, or ONE_SEASON
    # until an admin closes it
    seasons: str = MONTHLY
    browser: str = BROWSER_TABLES  # one of BROWSER_CHOICES: what of its games a browser may show

    def changes(self, defaults: ServerConfig) -> dict[str, Any]:
        """What differs from ``defaults``: what is stored."""
        out: dict[str, Any] = {}
        for key in ("nudge_minutes", "claim_minutes", "dms", "threads", "language", "seasons", "browser"):
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
        self._cache: dict[int, tuple[ServerConfig, float]] = {}
        # Where other processes share the store, an admin's change made through one of them reaches the
        # others within this many seconds (its own process sees it at once).
        self.ttl = SHARED_TTL if store.shared else math.inf

    async def get(self, guild_id: int) -> ServerConfig:
        cached = self._cache.get(guild_id)
        if cached is not None and time.monotonic() - cached[1] < self.ttl:
            return cached[0]
        config = self._apply(self.defaults, await self.store.guild_settings(guild_id), strict=False)
        self._keep(guild_id, config)
        return config

    def _keep(self, guild_id: int, config: ServerConfig) -> None:
        self._cache[guild_id] = (config, time.monotonic())

    async def change(self, guild_id: int, changes: Mapping[str, Any]) -> ServerConfig:
        """Apply ``changes`` (``nudge_minutes``, ``claim_minutes``, ``dms``, ``seasons``, ``browser``,
        ``<game>_target``)
        or refuse them all with a sentence saying what is wrong."""
        config = self._apply(await self.get(guild_id), self._as_stored(changes), strict=True)
        await self.store.set_guild_settings(guild_id, config.changes(self.defaults))
        self._keep(guild_id, config)
        return config

    async def reset(self, guild_id: int) -> ServerConfig:
        await self.store.set_guild_settings(guild_id, {})
        self._keep(guild_id, self.defaults)
        return self.defaults

    async def answer(self, guild_id: int, changes: Mapping[str, Any], *, reset: bool = False) -> str:
        """``/tavern-admin settings``: change (or reset) what was asked, and say the settings now in force,
        marking what this server changed."""
        if reset:
            config = await self.reset(guild_id)
        elif changes:
            config = await self.change(guild_id, changes)
        else:
            config = await self.get(guild_id)
        head = t("tavern.settings.saved") if reset or changes else t("tavern.settings.these")
        return f"{head}\n{describe(config, self.defaults, self.games)}"

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
            return replace(config, nudge_minutes=_minutes(value, MAX_NUDGE_MINUTES, "nudge"))
        if key == "claim_minutes":
            return replace(config, claim_minutes=_minutes(value, MAX_CLAIM_MINUTES, "claim"))
        if key == "dms":
            if not isinstance(value, bool):
                raise UserFacingError("tavern.settings.dms-on-off")
            return replace(config, dms=value)
        if key == "threads":
            if not isinstance(value, bool):
                raise UserFacingError("tavern.settings.threads-on-off")
            return replace(config, threads=value)
        if key == "language":
            if value == "auto":
                return replace(config, language=None)
            if value not in LANGUAGES:
                raise UserFacingError("tavern.settings.no-language", language=plain(str(value)))
            return replace(config, language=value)
        if key == "seasons":
            if value not in (MONTHLY, ONE_SEASON):
                raise UserFacingError("leaderboard.settings.seasons-choice")
            return replace(config, seasons=value)
        if key == "browser":
            if value not in BROWSER_CHOICES:
                raise UserFacingError("tavern.settings.browser-choice")
            return replace(config, browser=value)
        if key == "targets" and isinstance(value, Mapping):
            targets = dict(config.targets)
            for game, target in value.items():
                adapter = self.games.get(str(game))
                if adapter is None or adapter.targets is None:
                    raise UserFacingError("tavern.settings.no-target-game", game=plain(str(game)))
                low, _, high = adapter.targets
                if isinstance(target, bool) or not isinstance(target, int) or not low <= target <= high:
                    raise UserFacingError(
                        "tavern.settings.target-range", game=adapter.title, low=low, high=high
                    )
                targets[str(game)] = target
            return replace(config, targets=targets)
        raise UserFacingError("tavern.settings.no-setting", key=plain(str(key)))


def _minutes(value: Any, highest: int, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= highest:
        if what == "nudge":
            raise UserFacingError("tavern.settings.nudge-range", highest=highest)
        raise UserFacingError("tavern.settings.claim-range", highest=highest)
    return value


def describe(config: ServerConfig, defaults: ServerConfig, games: Mapping[str, GameAdapter]) -> str:
    """The settings in force, marking what this server changed."""
    return "\n".join(line for _, line in setting_lines(config, defaults, games))


def setting_lines(
    config: ServerConfig, defaults: ServerConfig, games: Mapping[str, GameAdapter]
) -> list[tuple[str, str]]:
    """Each setting's line (what it is, its value in force, marked when this server changed it), keyed by the
    name ``change`` takes for it: the slash answer and the admin's form say the same."""

    dms = t("tavern.settings.dms-on") if config.dms else t("tavern.settings.dms-off")
    threads = t("tavern.settings.threads-on") if config.threads else t("tavern.settings.threads-off")
    language = named("language", config.language) if config.language else t("tavern.settings.language-auto")
    monthly = config.seasons == MONTHLY
    seasons = t("leaderboard.settings.monthly") if monthly else t("leaderboard.settings.none")
    texts = {  # keyed by the ServerConfig field each one shows
        "nudge_minutes": t("tavern.settings.nudge-line", value=minutes_text(config.nudge_minutes)),
        "claim_minutes": t("tavern.settings.claim-line", value=minutes_text(config.claim_minutes)),
        "dms": t("tavern.settings.dms-line", value=dms),
        "threads": t("tavern.settings.threads-line", value=threads),
        "language": t("tavern.settings.language-line", value=language),
        "seasons": t("leaderboard.settings.seasons-line", value=seasons),
        "browser": t("tavern.settings.browser-line", value=browser_text(config.browser)),
    }
    here = t("tavern.settings.changed-here")
    lines = [
        (name, text + (here if getattr(config, name) != getattr(defaults, name) else ""))
        for name, text in texts.items()
    ]
    for name, adapter in games.items():
        if adapter.targets is not None:
            target = config.targets.get(name, adapter.targets[1])
            text = t("tavern.settings.target-line", game=adapter.title, target=target)
            lines.append((f"{name}_target", text + (here if target != defaults.targets.get(name) else "")))
    return lines


def minutes_text(value: float) -> str:
    """An idle timer's value as a line says it: off, or after so many minutes."""
    return t("tavern.settings.off") if not value else t("tavern.settings.after-minutes", minutes=f"{value:g}")


def browser_text(browser: str) -> str:
    """What a browser may show, as a line says it."""
    return {
        BROWSER_OFF: t("tavern.settings.browser-off"),
        BROWSER_TABLES: t("tavern.settings.browser-tables"),
        BROWSER_SERVER: t("tavern.settings.browser-server"),
    }[browser]
