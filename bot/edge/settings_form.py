"""``/tavern-admin settings`` with no option: the server's settings as a form, one private layout message.

Each setting is a text block — its line as the slash answer says it (what it is, the value in force, marked
when this server changed it) over a short note of what it does — with a menu of values under it, or, for an
on/off setting, a button beside it. A choice is saved at once through ``ServerSettings.change`` (checked
there as a slash option is) and answered by redrawing the same message, so the form always shows what is in
force; a value the service refuses is said on top of the redrawn form, in the admin's language.

Why a message and not a modal: discord.py 2.7 holds a modal to five components and the settings are nine
(seven and a target per game), and a modal saves all or nothing when it is sent, so one refused field loses
the others; a menu saves one setting per choice. On a phone each menu opens as a sheet of its options and the
form stays where it was.

The controls carry only what they set: a menu ``tv:set:<setting>`` (its one value the new value), a button
``tv:set:<setting>:<0|1>``. Anyone can send any custom id and any values: the presser must hold Manage Server
in the press's own server, which is the one changed (no server id is carried); the id is parsed strictly (a
known setting), the value must be among those the pressed message offers (``custom_ids.offered``) and is read
again (digits, or one of the setting's names). Anything else is refused quietly, as an out-of-date button.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import discord

from bot.base.i18n import LANGUAGES, named, t, tn
from bot.base.refusals import UserFacingError
from bot.edge import custom_ids
from bot.edge.client import Client
from bot.edge.layout import Layout
from bot.games import GameAdapter
from bot.services.server_settings import (
    BROWSER_CHOICES,
    MAX_CLAIM_MINUTES,
    MAX_NUDGE_MINUTES,
    ServerConfig,
    ServerSettings,
    browser_text,
    setting_lines,
)
from bot.store.boards import MONTHLY, ONE_SEASON

PREFIX = "tv:set:"  # i18n: not text
_ID = re.compile(r"tv:set:(?P<key>[a-z_]{1,40})(?::(?P<arg>[01]))?", re.ASCII)  # i18n: not text
_NUMBER = re.compile(r"[0-9]{1,5}", re.ASCII)
COLOUR = 0x5865F2
SWITCHES = ("dms", "threads")  # on or off: a button beside the line
# The idle timers' menus: these steps, the operator's default and the value in force (0 is off).
NUDGE_STEPS = (0, 5, 10, 15, 30, 60, 120, 240, 480, 720, 1440)
CLAIM_STEPS = (0, 30, 60, 120, 240, 480, 720, 1440, 2880, 4320, 10080)
TIMERS = {
    "nudge_minutes": (NUDGE_STEPS, MAX_NUDGE_MINUTES),
    "claim_minutes": (CLAIM_STEPS, MAX_CLAIM_MINUTES),
}
NAMED = {"language": ("auto", *LANGUAGES), "seasons": (MONTHLY, ONE_SEASON), "browser": BROWSER_CHOICES}
TARGET = "_target"

Interaction = discord.Interaction[Any]

ABOUT: dict[str, Callable[[], str]] = {
    "nudge_minutes": lambda: t("general.settings.form.nudge"),
    "claim_minutes": lambda: t("general.settings.form.claim"),
    "dms": lambda: t("general.settings.form.dms"),
    "threads": lambda: t("general.settings.form.threads"),
    "language": lambda: t("general.settings.form.language"),
    "seasons": lambda: t("general.settings.form.seasons"),
    "browser": lambda: t("general.settings.form.browser"),
}


def parse(cid: object, values: object, games: Mapping[str, GameAdapter]) -> tuple[str, Any]:
    """The setting a control changes and the value it asks, as ``ServerSettings.change`` takes them, or
    ``custom_ids.Refused``: a switch's button sends no value, a menu exactly one."""
    match = _ID.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a settings control")
    key, arg = match["key"], match["arg"]
    if not isinstance(values, list | tuple):
        raise custom_ids.Refused("select values are not a list")
    if key in SWITCHES:
        if arg is None or values:
            raise custom_ids.Refused(f"switch {cid!r} without its value, or with a menu's")
        return key, arg == "1"
    if arg is not None or len(values) != 1 or not isinstance(values[0], str):
        raise custom_ids.Refused(f"menu {cid!r} sent {values!r}")
    value = values[0]
    if key in TIMERS or _game(key, games) is not None:
        if not _NUMBER.fullmatch(value):
            raise custom_ids.Refused(f"{value!r} is not a number for {key}")
        return key, int(value)
    if value not in NAMED.get(key, ()):
        raise custom_ids.Refused(f"{value!r} is not a value of {key!r}")
    return key, value


def _game(key: str, games: Mapping[str, GameAdapter]) -> GameAdapter | None:
    """The game whose usual target ``key`` names (``bhargage_target``), if it has one."""
    adapter = games.get(key.removesuffix(TARGET)) if key.endswith(TARGET) else None
    return adapter if adapter is not None and adapter.targets is not None else None


def _now(config: ServerConfig, key: str) -> Any:
    """The value in force of one setting, as its control names it."""
    if key.endswith(TARGET):
        return config.targets.get(key.removesuffix(TARGET))
    if key == "language":
        return config.language or "auto"
    return getattr(config, key)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _span(minutes: int) -> str:
    """A timer's value as a menu offers it: off, minutes, whole hours or whole days."""
    if not minutes:
        said = t("tavern.settings.off")
    elif minutes % 1440 == 0:
        said = tn("general.settings.form.days", minutes // 1440)
    elif minutes % 60 == 0:
        said = t("general.settings.form.hours", hours=minutes // 60)
    else:
        said = t("tavern.settings.after-minutes", minutes=minutes)
    return _capital(said)


def _numbers(
    key: str, config: ServerConfig, defaults: ServerConfig, adapter: GameAdapter | None
) -> list[int]:
    """A timer's or a target's menu: round values in range, the default and the value in force."""
    wanted = {_now(config, key), _now(defaults, key)}
    if adapter is not None and adapter.targets is not None:
        low, usual, high = adapter.targets
        wanted |= {low, (usual + 1) // 2, usual, usual * 3 // 2, usual * 2, high}
    else:
        steps, high = TIMERS[key]
        wanted |= set(steps)
        low = 0
    whole = (v for v in wanted if isinstance(v, int | float) and float(v).is_integer())
    return sorted({int(v) for v in whole if low <= v <= high})[:25]


def _options(key: str, config: ServerConfig, settings: ServerSettings) -> list[discord.SelectOption]:
    now, default = _now(config, key), _now(settings.defaults, key)
    adapter = _game(key, settings.games)
    if key in TIMERS or adapter is not None:
        labels = {
            str(v): (_span(v) if adapter is None else str(v), v == now, v == default)
            for v in _numbers(key, config, settings.defaults, adapter)
        }
    else:
        labels = {v: (_named(key, v), v == now, v == default) for v in NAMED[key]}
    return [
        discord.SelectOption(
            label=label[:100],
            value=value,
            default=chosen,
            description=t("general.settings.form.default") if usual else None,
        )
        for value, (label, chosen, usual) in labels.items()
    ]


def _named(key: str, value: str) -> str:
    if key == "language":
        return _capital(t("tavern.settings.language-auto")) if value == "auto" else named("language", value)
    if key == "seasons":
        return _capital(
            t("leaderboard.settings.monthly") if value == MONTHLY else t("leaderboard.settings.none")
        )
    return _capital(browser_text(value))


def _about(key: str, games: Mapping[str, GameAdapter]) -> str:
    adapter = _game(key, games)
    if adapter is not None:
        return t("general.settings.form.target", game=adapter.title)
    return ABOUT[key]()


def form(settings: ServerSettings, config: ServerConfig, note: str = "") -> Layout:
    """The form as the settings stand: a title, then each setting's block with its control (30 components
    for nine settings, of Discord's 40; about 1,300 characters of its 4,000)."""
    container: discord.ui.Container[Any] = discord.ui.Container(accent_colour=COLOUR)
    title = t("general.settings.form.title")
    container.add_item(discord.ui.TextDisplay(f"{note}\n\n{title}" if note else title))
    for key, line in setting_lines(config, settings.defaults, settings.games):
        block: discord.ui.TextDisplay[Any] = discord.ui.TextDisplay(
            f"{line}\n-# {_about(key, settings.games)}"
        )
        if key in SWITCHES:
            on = bool(_now(config, key))
            button: discord.ui.Button[Any] = discord.ui.Button(
                label=t("general.settings.form.turn-off") if on else t("general.settings.form.turn-on"),
                style=discord.ButtonStyle.secondary if on else discord.ButtonStyle.success,
                custom_id=f"{PREFIX}{key}:{int(not on)}",
            )
            container.add_item(discord.ui.Section(block, accessory=button))
            continue
        container.add_item(block)
        menu: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"{PREFIX}{key}", options=_options(key, config, settings)
        )
        container.add_item(discord.ui.ActionRow(menu))
    container.add_item(discord.ui.TextDisplay(f"-# {t('general.settings.form.footer')}"))
    layout = Layout()
    layout.add_item(container)
    return layout


async def show(client: Client, interaction: Interaction, guild_id: int) -> None:
    """Answer ``/tavern-admin settings`` with no option (its caller checked for Manage Server): the form,
    only for the admin."""
    config = await client.server_settings.get(guild_id)
    await interaction.response.send_message(view=form(client.server_settings, config), ephemeral=True)


async def press(client: Client, interaction: Interaction) -> None:
    """A menu choice or a switch on the form: save it and redraw the form in the same message."""
    if interaction.guild_id is None or not interaction.permissions.manage_guild:
        raise custom_ids.Refused(f"settings control pressed by {interaction.user.id} without Manage Server")
    settings = client.server_settings
    data: Any = interaction.data or {}
    cid, values = data.get("custom_id"), data.get("values", [])
    key, value = parse(cid, values, settings.games)
    custom_ids.offered(interaction.message, str(cid), tuple(values))
    config, note = await settings.get(interaction.guild_id), ""
    if _now(config, key) != value:
        client.limits.admin.take(interaction.user.id)
        try:
            config = await settings.change(interaction.guild_id, {key: value})
        except UserFacingError as err:
            note = t("general.settings.form.refused", why=str(err))
    await interaction.response.edit_message(view=form(settings, config, note))
