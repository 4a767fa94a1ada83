"""``python -m bot check``: the pre-flight an operator runs before the first start (and after an upgrade).

Offline: it never connects to Discord. One line per item, ``ok`` or ``FAIL`` and why, and the exit status 1
if any failed (2 when the settings can't be read at all, as the bot itself exits):

- **settings** — every variable parses (a secret's ``*_FILE`` is read, as the bot reads it), any ``TAVERN_*``
  variable nothing reads is named with the setting it most likely meant, and one nothing reads any more with
  where its value belongs now;
- **commands** — the slash commands as a sync would send them, valid against Discord's published contract in
  every locale they carry (a refused sync registers no command at all);
- **database** — it can be reached, and its schema is this version's (a database a newer version migrated is
  refused at start; one behind is migrated at the next start, after a backup);
- **fonts** — the packaged fonts the pictures are drawn with load and draw;
- **ports** — the web pages' and the metrics' ports (where set) are free to listen on.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.settings import (
    Settings,
    SettingsError,
    load_settings,
    retired_variables,
    unknown_variables,
)


@dataclass(frozen=True)
class Item:
    """One line of the check."""

    name: str
    ok: bool
    text: str

    def __str__(self) -> str:
        return f"{'ok  ' if self.ok else 'FAIL'}  {self.name}: {self.text}"


def check_settings(settings: Settings, env: Mapping[str, str]) -> Item:
    unknown = unknown_variables(env)
    said = [
        f"{name} is not a setting" + (f"; did you mean {near}?" if near else "") for name, near in unknown
    ]
    said += [f"{name} is no longer read: its value belongs in {to}" for name, to in retired_variables(env)]
    if said:
        return Item("settings", False, "; ".join(said))
    where = "PostgreSQL" if settings.database_url else str(settings.db_path)
    text = f"every variable reads; the games are kept in {where}"
    if settings.from_files:
        text += f"; secrets read from the files {', '.join(settings.from_files)} name"
    return Item("settings", True, text)


async def check_commands(settings: Settings) -> Item:
    from bot.edge.app import offline_command_payload
    from bot.edge.contract import SPEC_COMMIT, Contract, locale_views

    payload = await offline_command_payload(settings)
    contract = Contract.load()
    found = contract.check_commands(payload)
    if found:
        worst = [f"{locale}: {v}" for locale, violations in found.items() for v in violations[:3]]
        return Item(
            "commands",
            False,
            "Discord would refuse the sync, so no command would register: " + "; ".join(worst),
        )
    views = len(locale_views(payload))
    return Item(
        "commands",
        True,
        f"{len(payload)} commands valid against Discord's published API (spec {SPEC_COMMIT[:7]}) "
        f"in {views} locale views",
    )


async def check_database(settings: Settings) -> Item:
    from bot.store import LATEST_VERSION, StoreOpenError, redacted, version_at

    location = settings.database_url or settings.db_path
    where = redacted(settings.database_url) if settings.database_url else str(settings.db_path)
    try:
        version = await version_at(location)
    except StoreOpenError as err:
        return Item("database", False, str(err))
    if not version:
        return Item("database", True, f"{where} is new: the first start creates its tables")
    if version > LATEST_VERSION:
        return Item(
            "database",
            False,
            f"{where} is at schema version {version}, newer than this version of the bot knows "
            f"({LATEST_VERSION}): run the newer version, or restore a backup taken before it",
        )
    if version < LATEST_VERSION:
        missing = ", ".join(str(v) for v in range(version + 1, LATEST_VERSION + 1))
        return Item(
            "database",
            False,
            f"{where} is at schema version {version}; this version needs {LATEST_VERSION} (migrations "
            f"{missing} not applied): back it up, then start the bot, which applies them",
        )
    return Item("database", True, f"{where} reachable, schema version {version} (current)")


def check_fonts() -> Item:
    from bot.pictures import text

    for name, sample in text.FONT_FILES.items():
        try:
            drawn = text.proof(name, sample)
        except OSError as err:
            return Item("fonts", False, f"{name} cannot be loaded ({err}): reinstall the bot")
        if not drawn:
            return Item("fonts", False, f"{name} draws nothing: reinstall the bot")
    said = f"{len(text.FONT_FILES)} fonts (Latin, Greek, Cyrillic, Hebrew, Arabic, CJK, emoji) load and draw"
    if not text.SHAPING:
        said += "; no text shaping (Pillow's libraqm needs FriBiDi: apt-get install libfribidi0), so Arabic"
        said += " and Hebrew names are written 'Player N'"
    return Item("fonts", True, said)


def port_free(host: str, port: int) -> str | None:
    """Why ``host:port`` can't be listened on, or None when it can."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as err:
        return f"{host} is no address of this machine ({err})"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as err:
            return f"{host}:{port} is taken or not this machine's ({err.strerror})"
    return None


def check_ports(settings: Settings) -> Item:
    wanted = [
        (what, host, port)
        for what, host, port in (
            ("web pages", settings.web_host, settings.web_port),
            ("metrics", settings.metrics_host, settings.metrics_port),
        )
        if port  # 0: any free port
    ]
    if not wanted:
        return Item("ports", True, "no web pages or metrics port is set")
    problems = [f"{what}: {why}" for what, host, port in wanted if (why := port_free(host, port))]
    if problems:
        return Item("ports", False, "; ".join(problems))
    return Item("ports", True, ", ".join(f"{what} {host}:{port} free" for what, host, port in wanted))


async def run(settings: Settings, env: Mapping[str, str]) -> list[Item]:
    """Every item, in order; an item that crashes is a failure that says so."""
    items: list[Item] = []
    steps: list[tuple[str, Callable[[], object]]] = [
        ("settings", lambda: check_settings(settings, env)),
        ("commands", lambda: check_commands(settings)),
        ("database", lambda: check_database(settings)),
        ("fonts", check_fonts),
        ("ports", lambda: check_ports(settings)),
    ]
    for name, step in steps:
        try:
            result = step()
            if asyncio.iscoroutine(result):
                result = await result
            assert isinstance(result, Item)
            items.append(result)
        except Exception as err:  # the check must say every line, whatever breaks
            items.append(Item(name, False, f"the check itself failed: {err.__class__.__name__}: {err}"))
    return items


def main(dotenv_path: str | Path | None = None) -> int:
    try:
        settings = load_settings(dotenv_path)
    except SettingsError as err:
        print(Item("settings", False, str(err).replace("\n", " ")))
        return 2
    items = asyncio.run(run(settings, os.environ))
    for item in items:
        print(item)
    return 0 if all(item.ok for item in items) else 1
