"""The rules pages in Discord: ``/<game> rules`` answers (ephemeral) with page 1 of the game's rules
(``bot.render.rules_pages``) and two buttons, ◀ and ▶, that turn the pages by updating that same message
through the press's own answer (one callback, no other request).

A page button carries its own address, ``tv:rules:<game>:<page>``: the page it shows, of a game among
``rules_pages.GAMES``. Like every control of the bot (``bot.edge.delivery``), it is parsed strictly — anyone
can send any custom id — by :func:`parse`, which refuses quietly ("That button is out of date") a game the
bot has no pages for, a page out of range or anything else, and the button must be on the message it was
pressed on (``custom_ids.offered``). Nothing is kept in memory: ``bot.edge.router`` hands every press whose
id starts with :data:`PREFIX` to :func:`turn`, before or after a restart alike."""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from bot.base.text import game_rules_link
from bot.edge import custom_ids, delivery
from bot.render import rules_pages as pages
from bot.services.tables import TableService
from bot.settings import Settings

PREFIX = "tv:rules:"  # i18n: not text
_ID = re.compile(r"tv:rules:(?P<game>[a-z]{1,16}):(?P<page>[1-9][0-9]?)", re.ASCII)  # i18n: not text
BACK, FORWARD = "◀", "▶"

Interaction = discord.Interaction[Any]


class Library(Protocol):
    """What turning a page needs of the bot: the game's name and colour, and where the docs are published."""

    @property
    def tables(self) -> TableService: ...
    @property
    def settings(self) -> Settings: ...


def custom_id(game: str, page: int) -> str:
    text = f"{PREFIX}{game}:{page}"
    if game not in pages.GAMES or not 1 <= page <= pages.count(game) or not _ID.fullmatch(text):
        raise ValueError(f"bad rules page id {text!r}")
    return text


def parse(cid: object) -> tuple[str, int]:
    """The game and page a rules button shows, or ``custom_ids.Refused``: total over whatever arrives."""
    if not isinstance(cid, str) or len(cid) > 100:
        raise custom_ids.Refused("custom id is not a short string")
    match = _ID.fullmatch(cid)
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a rules page")
    game, page = match["game"], int(match["page"])
    if game not in pages.GAMES:
        raise custom_ids.Refused(f"no rules pages for the game {game!r}")
    if not 1 <= page <= pages.count(game):
        raise custom_ids.Refused(f"{game!r} has no rules page {page}")
    return game, page


def controls(game: str, page: int) -> discord.ui.View:
    """◀ and ▶: the page before and after, going round (◀ on page 1 opens the glossary, the last page).
    Their ids differ while a game has at least three pages."""
    n = pages.count(game)
    view = delivery.Controls()
    for label, to in ((BACK, (page - 2) % n + 1), (FORWARD, page % n + 1)):
        view.add_item(
            discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id(game, to))
        )
    return view


def page_embed(game: str, page: int, game_title: str, colour: int, link: str | None) -> discord.Embed:
    title = pages.title(game_title, page, pages.count(game))
    return discord.Embed(
        title=title[: delivery.EMBED_TITLE_LIMIT],
        description=pages.page_text(game, page, link),
        colour=colour,
    )


def _link(game: str, settings: Settings) -> str | None:
    """The published full rules, only where the operator set ``TAVERN_RULES_URL``: the pages are complete
    without it, so they never point at the repository."""
    return game_rules_link(game, settings.rules_url) if settings.rules_url else None


async def open_book(
    interaction: Interaction, game: str, game_title: str, colour: int, settings: Settings
) -> None:
    """Answer ``/<game> rules``: page 1, only for the asker, with the buttons that turn it."""
    embed = page_embed(game, 1, game_title, colour, _link(game, settings))
    await interaction.response.send_message(embed=embed, view=controls(game, 1), ephemeral=True)


async def turn(client: Library, interaction: Interaction) -> None:
    """A page button was pressed: show its page in the same message (the press's answer is the edit)."""
    game, page = custom_ids.pressed(interaction, parse)
    adapter = client.tables.adapter(game)
    embed = page_embed(game, page, adapter.title, adapter.colour, _link(game, client.settings))
    await interaction.response.edit_message(embed=embed, view=controls(game, page))
