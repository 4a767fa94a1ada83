"""``/stats [player]``: a member's profile in this server as a picture card, only for the asker — per game
their rating and its recent course, their record and best hand; the person they met most; their games
against the bot — with the same facts as text beside it (what screen readers read, and what goes alone
when the picture can't be drawn), and a **Post in channel** button.

The button carries its own address, ``tv:prof:<asker id>:<member id>``, parsed strictly (anyone can send any
custom id) and checked to be on the pressed message and pressed by its asker. It answers with a new public
message (the press's own answer: no rate-limited request), in the server's language, pinging nobody; the
server is always the press's own, so a forged id can only post what ``/stats`` would show for that member
there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import discord

from bot.base import safe
from bot.base.i18n import number, t, tn
from bot.base.panel import Panel, Picture
from bot.edge import custom_ids, delivery, tournament_posts
from bot.edge.client import Client
from bot.edge.table.host import USERS, scope_of
from bot.pictures import profile as pic
from bot.pictures.text import drawable
from bot.render.levels import level_name
from bot.render.ratings import shown_rating, shown_value
from bot.store.records import GameProfile, Profile

PREFIX = "tv:prof:"  # i18n: not text
_ID = re.compile(r"tv:prof:(?P<asker>[1-9][0-9]{0,19}):(?P<member>[1-9][0-9]{0,19})", re.ASCII)
FILENAME = "profile.png"  # i18n: not text
_ESCAPED = re.compile(r"\\(.)")  # a character ``safe.name`` escaped for markdown, which a picture draws plain

Interaction = discord.Interaction[Any]


@dataclass(frozen=True)
class Shown:
    """A game's rating as the card shows it: the value, and its course over the latest rated games."""

    rating: str
    change: int | None  # shown points gained over the trend (None: fewer than two points)
    games: int  # the rated games the trend spans
    points: tuple[int, ...]


def parse(cid: object) -> tuple[int, int]:
    """(asker, member) from a Post in channel button's id; ``Refused`` for anything the bot never made."""
    match = _ID.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None or max(int(match["asker"]), int(match["member"])) > custom_ids.MAX_KEY:
        raise custom_ids.Refused(f"custom id {cid!r} is not a profile's Post in channel")
    return int(match["asker"]), int(match["member"])


def _title(games: Any, game: str) -> str:
    adapter = games.get(game)
    return str(adapter.title) if adapter is not None else game


def shown(g: GameProfile) -> Shown:
    """The rating on the shown scale (a dash before a rated game), and its trend on that scale."""
    rating = "—" if g.rating is None else shown_rating(g.game, g.rating, g.games)
    points = tuple(shown_value(g.game, p) for p in g.trend)
    change = points[-1] - points[0] if len(points) >= 2 else None
    return Shown(rating, change, max(0, len(points) - 1), points)


def _trend_text(s: Shown) -> str:
    """Which way the rating went, in words (what a screen reader says of the line)."""
    if s.change is None:
        return ""
    if s.change > 0:
        return tn("profile.trend.up", s.games, change=s.change)
    if s.change < 0:
        return tn("profile.trend.down", s.games, change=-s.change)
    return tn("profile.trend.flat", s.games)


def _record(g: GameProfile) -> str:
    """Games, wins, losses and the share won against people (and muggins wins, where there are any)."""
    if not g.games:
        return t("profile.unrated")
    parts = [
        tn("profile.games", g.games),
        tn("profile.wins", g.wins),
        tn("profile.losses", g.losses),
        f"{100 * g.wins / g.games:.0f}%",
    ]
    if g.muggins_wins:
        parts.append(tn("profile.muggins-wins", g.muggins_wins))
    return " · ".join(parts)


def _hands(g: GameProfile) -> list[str]:
    """The best hand and the average hand score, on one line (none when neither is known)."""
    out = [] if g.best_hand is None else [t("profile.best-hand", points=g.best_hand)]
    if g.hand_score_avg is not None:
        out.append(t("profile.hand-average", average=number(g.hand_score_avg)))
    return [" · ".join(out)] if out else []


def _others(p: Profile, games: Any, *, marked: bool = True) -> list[str]:
    """The person met most, then the games against the bot (names as markdown shows them, or plain)."""
    out = []
    if p.favourite is not None:
        f = p.favourite
        wins, played = tn("profile.wins", f.wins), tn("profile.games", f.games)
        name = f.name if marked else _plain(f.name)
        out.append(t("profile.favourite", name=name, games=played, wins=wins))
    if p.against_bot:
        out.append(t("profile.against-bot"))
    for r in p.against_bot:
        played, wins = tn("profile.games", r.games), tn("profile.wins", r.wins)
        title = _title(games, r.game)
        out.append(t("profile.bot-line", game=title, level=level_name(r.level), games=played, wins=wins))
    return out


def text(name: str, p: Profile, games: Any, *, marked: bool = True) -> str:
    """The card's facts as text: markdown for the message (``marked``), plain for the picture's alt."""
    if p.empty:
        return t("profile.none", name=name)
    out = [f"**{name}**" if marked else _plain(name)]
    for g in p.games:
        s = shown(g)
        title = _title(games, g.game)
        head = [f"__{title}__" if marked else title, t("profile.rating", rating=s.rating)]
        head += [x for x in (_trend_text(s),) if x]
        out += [" · ".join(head), _record(g), *_hands(g)]
    return "\n".join(out + _others(p, games, marked=marked))


def _plain(name: str) -> str:
    """A name as ``safe.name`` shows it in a message, without its markdown escapes (a picture draws it)."""
    return _ESCAPED.sub(r"\1", name)


def card(names: tuple[str, ...], p: Profile, games: Any) -> pic.ProfileCard:
    """The card: the first of ``names`` a picture can draw (else a word for "player"), then each game."""
    name = next((n for n in map(_plain, names) if drawable(n)), t("profile.card.player"))
    out = []
    for g in p.games:
        s = shown(g)
        direction = 0 if not s.change else 1 if s.change > 0 else -1
        span = tn("profile.card.span", s.games) if s.change is not None else ""
        lines = (_record(g), *_hands(g)) if g.games else tuple(_hands(g))
        title = _title(games, g.game)
        out.append(pic.GameCard(title, s.rating, _change(g, s), direction, s.points, span, lines))
    others = tuple(_others(p, games, marked=False)[: pic.MAX_LINES])
    return pic.ProfileCard(name, t("profile.card.subtitle"), tuple(out[: pic.MAX_GAMES]), others)


def _change(g: GameProfile, s: Shown) -> str:
    """Beside the rating: its change over the trend ("+32", "−12", "±0"), or that there is none yet."""
    if g.rating is None:
        return t("profile.unrated")
    if s.change is None:
        return ""
    return "±0" if s.change == 0 else f"{s.change:+d}".replace("-", "−")


def panel(names: tuple[str, ...], p: Profile, games: Any, *, users: bool = False) -> Panel:
    """The message: the facts as text, and (when there is anything to show) the card beside them.
    ``users``: the users' scope (no server's), which the empty card says."""
    if p.empty:
        none = t("profile.none-users", name=names[0]) if users else t("profile.none", name=names[0])
        return Panel(content=none)
    content = text(names[0], p, games)
    drawn = card(names, p, games)
    alt = text(names[0], p, games, marked=False)
    picture = Picture(FILENAME, partial(pic.draw, drawn), alt, key=drawn)
    return Panel(content=content, picture=picture)


def _button(asker: int, member: int) -> discord.ui.View:
    view = delivery.Controls()
    label = t("profile.post")[: delivery.LABEL_LIMIT]
    cid = f"{PREFIX}{asker}:{member}"
    view.add_item(discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=cid))
    return view


async def _send(interaction: Interaction, shown_panel: Panel, **extra: Any) -> None:
    """Answer the interaction with the panel (its picture drawn, or left out when it can't be), no pings."""
    files = await delivery.draw(shown_panel.picture)
    await interaction.response.send_message(
        shown_panel.content[: delivery.CONTENT_LIMIT],
        files=files,
        allowed_mentions=discord.AllowedMentions.none(),
        **extra,
    )


async def show(client: Client, interaction: Interaction, who: discord.abc.User) -> None:
    """Answer ``/stats``: the member's card, only for the asker, with Post in channel when there is one (in
    a server that added the bot). Outside one (a DM, a group DM, a server without the bot) the card is of
    the users' scope: every game played where only interactions reach the bot."""
    scope = scope_of(interaction)
    found = await client.store.profile(scope, who.id)
    display = getattr(who, "display_name", who.name)
    names = (safe.name(display, who.name), who.name)
    extra: dict[str, Any] = {"ephemeral": True}
    if not found.empty and scope != USERS:
        extra["view"] = _button(interaction.user.id, who.id)
    shown = panel(names, found, client.games, users=scope == USERS)
    if scope != USERS:
        shown = with_medals(shown, await tournament_posts.medal_lines(client, scope, who.id))
    await _send(interaction, shown, **extra)


async def post(client: Client, interaction: Interaction) -> None:
    """Post in channel: the member's card as ``/stats`` shows it, as a new public message in the server's
    language. Only the asker's own press of a button on their answer counts; anything else is refused."""
    asker, member = custom_ids.pressed(interaction, parse)
    if interaction.guild_id is None or interaction.user.id != asker:
        raise custom_ids.Refused("a profile's Post in channel pressed by someone else, or outside a server")
    found = await client.store.profile(interaction.guild_id, member)
    if found.empty:
        raise custom_ids.Refused("a profile's Post in channel for a member with no finished game here")
    known = interaction.guild.get_member(member) if interaction.guild is not None else None
    names = (safe.name(known.display_name, known.name), known.name) if known else (found.name or "?",)
    async with client.languages.channel(interaction.guild_id):
        medals = await tournament_posts.medal_lines(client, interaction.guild_id, member)
        await _send(interaction, with_medals(panel(names, found, client.games), medals))


def with_medals(shown: Panel, medals: list[str]) -> Panel:
    """The card's text with the member's tournament places under it."""
    return replace(shown, content="\n".join([shown.content, *medals])) if medals else shown
