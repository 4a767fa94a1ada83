"""Whole seeded games with an Italian and an English player on an Italian server, through the real discord.py
client and the fake Discord, and what each of them read.

``python -m tests.transcripts [bhargage|deluxe]`` plays one and prints the transcript: every version of every
message (content, embeds, buttons, menus, picture descriptions) in the channel and its thread, and each
player's DMs and private replies. ``tests/test_i18n_games.py`` plays the same games and checks the languages.

The games are driven by the controls' verbs (``tv:g:<table>:<token>:<verb>``), never by their words, so the
same driver plays in any language.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import yarl

from bot.edge.app import TavernBot, create_bot
from tests.conftest import make_settings
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_bhargage_discord import computers_idle

SEEDS = {"bhargage": 9, "deluxe": 5}
EXTENSIONS = ["cogs.general", "cogs.stats", "cogs.bhargage", "cogs.deluxe"]


@dataclass
class Transcript:
    """What each reader saw: ``channel`` (the server's channel and the game's thread), and each player's
    private text, by name."""

    channel: list[str] = field(default_factory=list)
    private: dict[str, list[str]] = field(default_factory=dict)

    def render(self) -> str:
        out = ["=== channel (the server's language) ===", *self.channel]
        for name, lines in self.private.items():
            out += ["", f"=== {name}: DMs and private replies ===", *lines]
        return "\n".join(out)


def versions(
    message: FakeMessage,
) -> Iterator[tuple[str, list[dict[str, Any]], list[dict[str, Any]], list[Any]]]:
    for old in message.edits:
        yield old.content, old.embeds, old.components, old.attachments
    yield message.content, message.embeds, message.components, message.attachments


def _components(components: list[dict[str, Any]]) -> Iterator[str]:
    for row in components:
        for item in row.get("components", [row]):
            for key in ("label", "placeholder"):
                if item.get(key):
                    yield f"[{item[key]}]"
            for option in item.get("options") or []:
                about = f" — {option['description']}" if option.get("description") else ""
                yield f"<{option.get('label', '')}{about}>"


def words_of(message: FakeMessage) -> list[str]:
    """Every text of every version of a message, one line each (content lines, embed parts, controls, alt)."""
    out: list[str] = []
    for content, embeds, components, attachments in versions(message):
        out += [line for line in content.splitlines() if line.strip()]
        for embed in embeds:
            for key in ("title", "description"):
                if embed.get(key):
                    out += embed[key].splitlines()
            for f in embed.get("fields") or []:
                out += [f.get("name", ""), *str(f.get("value", "")).splitlines()]
            if (embed.get("footer") or {}).get("text"):
                out.append(embed["footer"]["text"])
        out += _components(components)
        out += [f"(picture: {a['description']})" for a in attachments if a.get("description")]
    return out


def verb(custom_id: str | None) -> str:
    parts = (custom_id or "").split(":")
    return parts[4] if len(parts) > 4 else ""


def live_panel(fake: FakeDiscord, user: FakeUser) -> FakeMessage | None:
    """The user's newest private message with controls they can use."""
    private = sorted([*fake.dms(user), *fake.ephemerals(user)], key=lambda m: m.id)
    for m in reversed(private):
        if any(not b.disabled for b in m.buttons()) or any(not s.disabled for s in m.selects()):
            return m
    return None


async def act(fake: FakeDiscord, user: FakeUser, panel: FakeMessage) -> str:
    """One step by the controls' verbs: Deluxe draws, binds what the meld menu offers first, then discards;
    Bhargage discards the first two cards offered, cuts, and plays the first playable card."""
    buttons = {verb(b.custom_id): b for b in reversed(panel.buttons()) if not b.disabled}
    selects = {verb(s.custom_id): s for s in reversed(panel.selects()) if not s.disabled}
    for name in ("draw", "cut", "done", "discard"):
        if name in buttons:
            await fake.click(user, panel, str(buttons[name].custom_id))
            return name
    if "meld" in selects or "toss" in selects:
        menu = selects.get("meld") or selects["toss"]
        await fake.select(user, panel, menu.custom_id, [menu.options[0].value])
        return verb(menu.custom_id)
    if "pick" in selects:
        menu = selects["pick"]
        chosen = await fake.select(user, panel, menu.custom_id, menu.values()[:2])
        confirm = next(b for b in chosen.message.buttons() if verb(b.custom_id) == "discard")
        await fake.click(user, chosen.message, str(confirm.custom_id))
        return "discard"
    plays = [b for b in panel.buttons() if verb(b.custom_id) == "play" and not b.disabled]
    if plays:
        await fake.click(user, panel, str(plays[0].custom_id))
        return "play"
    raise AssertionError(f"{user.name} has nothing to do on {panel.content!r}")


async def play(fake: FakeDiscord, bot: TavernBot, game: str, players: list[FakeUser]) -> None:
    """An Italian-language server (set by an admin), the first player opens the game, the others join, and
    the game is played to its end."""
    admin = fake.owner
    said = await fake.slash(admin, fake.channel, "tavern-admin settings", language="it")
    assert said.ephemeral
    host, others = players[0], players[1:]
    if game == "bhargage":
        posted = await fake.slash(host, fake.channel, "bhargage challenge", opponent=others[0], target=31)
        accept = next(b for b in posted.message.buttons() if verb(b.custom_id) == "accept")
        await fake.click(others[0], posted.message, str(accept.custom_id))
    else:
        created = await fake.slash(host, fake.channel, "deluxe create", target=20)
        lobby = created.message
        for user in others:
            join = next(b for b in lobby.buttons() if verb(b.custom_id) == "join")
            await fake.click(user, lobby, str(join.custom_id))
        start = next(b for b in lobby.buttons() if verb(b.custom_id) == "start")
        await fake.click(host, lobby, str(start.custom_id))
    by_id = {u.id: u for u in players}
    for _ in range(600):
        await computers_idle(fake)  # the bot's own moves first (a cut, an only card it makes for a player)
        tables = bot.tables.active_tables()
        if not tables:
            return
        table = tables[0]
        waiting = table.people_waited_for()
        assert waiting, "the table waits for nobody"
        user = by_id[table.user_ids[waiting[0]]]
        panel = live_panel(fake, user)
        assert panel is not None, f"{user.name} has no panel"
        await act(fake, user, panel)
    raise AssertionError("the game did not end")


def transcript(fake: FakeDiscord, players: list[FakeUser]) -> Transcript:
    out = Transcript()
    places = [fake.channel, *fake.threads(fake.channel)]
    for place in places:
        for m in fake.channel_messages(place):
            out.channel += words_of(m)
    for user in players:
        private = sorted([*fake.dms(user), *fake.ephemerals(user)], key=lambda m: m.id)
        out.private[user.name] = [line for m in private for line in words_of(m)]
    return out


def people(fake: FakeDiscord) -> list[FakeUser]:
    """Giulia plays in Italian, Oliver in English."""
    giulia, oliver = fake.add_user("giulia"), fake.add_user("oliver")
    giulia.locale, oliver.locale = "it", "en-GB"
    return [giulia, oliver]


async def main_async(game: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        fake = FakeDiscord()
        await fake.start()
        try:
            settings = make_settings(Path(tmp), threads=True)
            discord.http.Route.BASE = fake.api_base  # type: ignore[misc]
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
            bot = create_bot(settings, guild_ready_timeout=0.01, extensions=EXTENSIONS)
            task = asyncio.create_task(bot.start(settings.token))
            while not bot.is_ready():  # (wait_until_ready may only be awaited once the client logged in)
                assert not task.done(), task.exception()
                await asyncio.sleep(0.01)
            await bot.tables.restored()
            bot.lobbies.seed_source = lambda: SEEDS[game]
            players = people(fake)
            await play(fake, bot, game, players)
            await bot.controller.computer.idle()
            text = transcript(fake, players).render()
            await bot.close()
            await task
            return text
        finally:
            await fake.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("game", choices=sorted(SEEDS), nargs="?", default="bhargage")
    args = parser.parse_args(argv)
    print(asyncio.run(main_async(args.game)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
