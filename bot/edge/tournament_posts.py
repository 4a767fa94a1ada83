"""What a tournament says on Discord, in the language in force: its sign-up (and its Join and Leave), its
rounds, its standings as text and as a phone-readable picture (a knockout: its bracket), its final results,
what an organiser's step did, a member's places for ``/stats``, and the link to the event's web page. Names
go through ``safe``; nothing here sends anything (``bot.edge.tournament_desk`` does)."""

from __future__ import annotations

from functools import partial

import discord

from bot.base import safe
from bot.base.i18n import t, tn
from bot.base.panel import Button, Picture
from bot.edge import delivery
from bot.edge.client import Client
from bot.pictures import standings as pic
from bot.services.server_settings import BROWSER_OFF
from bot.services.tournaments.event import KNOCKOUTS, Event
from bot.services.tournaments.stored import event_of

PREFIX = "tv:tn:"  # i18n: not text
SHOWN = 20  # standings lines shown at the most (the rest: "and N more")
PICTURE = "standings.png"  # i18n: not text
ALT_LIMIT = 1000  # an attachment's description (Discord: 1,024)
NAMES_ROOM = 1400  # the sign-up's list of names, in characters: the rest of the message fits beside it


def name(event: Event, user_id: int) -> str:
    e = event.entrant(user_id)
    return safe.name(e.name if e else "", str(user_id))


def title(bot: Client, event: Event) -> str:
    s = event.settings
    game = bot.games[s.game].title
    return t("tournament.title", name=safe.plain(s.name, 60), game=game, format=format_name(s.format))


def format_name(format: str) -> str:
    """A format's name in the language in force (each id written out for the catalog check)."""
    if format == "round_robin":
        return t("tournament.format.round-robin")
    if format == "knockout":
        return t("tournament.format.knockout")
    if format == "double_knockout":
        return t("tournament.format.double-knockout")
    return t("tournament.format.swiss")


def done(verb: str) -> str:
    """What an organiser's step did, said to the channel."""
    words = {
        "pause": t("tournament.done.pause"),
        "resume": t("tournament.done.resume"),
        "drop": t("tournament.done.drop"),
        "award": t("tournament.done.award"),
        "repair": t("tournament.done.repair"),
    }
    return words.get(verb, t("tournament.done.step"))


def signup_text(bot: Client, event: Event) -> str:
    """The sign-up: what the event is, its count and who has joined (as many names as fit a message)."""
    adapter = bot.games[event.settings.game]
    rules = adapter.options_text(adapter.rules.Options.from_dict(event.settings.options))
    shown: list[str] = []
    for e in event.entrants:
        if sum(len(n) + 2 for n in shown) > NAMES_ROOM:
            break
        shown.append(name(event, e.user_id))
    names = ", ".join(shown) or t("tournament.signup.nobody")
    if len(shown) < len(event.entrants):
        names += " " + tn("tournament.standings.more", len(event.entrants) - len(shown))
    lines = [title(bot, event), rules, tn("tournament.signup.count", len(event.entrants)), names]
    return "\n".join([*lines, t("tournament.signup.how")])[: delivery.CONTENT_LIMIT]


def signup_view(tournament_id: int) -> delivery.Controls:
    view = delivery.Controls()
    for verb, label, style in (
        ("join", t("tournament.signup.join"), discord.ButtonStyle.success),
        ("leave", t("tournament.signup.leave"), discord.ButtonStyle.secondary),
    ):
        view.add_item(
            discord.ui.Button(label=label, style=style, custom_id=f"{PREFIX}{tournament_id}:{verb}")
        )
    return view


def standings_text(bot: Client, event: Event) -> str:
    """The standings anyone can check: place, name, match points, Buchholz and spread (a knockout: each
    match's winner by round)."""
    lines = [title(bot, event)]
    if event.settings.format in KNOCKOUTS:
        return "\n".join(lines + _bracket_lines(event))[: delivery.CONTENT_LIMIT]
    ranked = event.lines()
    for i, line in enumerate(ranked[:SHOWN], start=1):
        dropped = t("tournament.standings.dropped") if (e := event.entrant(line.player)) and e.dropped else ""
        lines.append(
            t(
                "tournament.standings.line",
                place=i,
                name=name(event, line.player),
                points=line.points,
                buchholz=line.buchholz,
                spread=f"{line.spread:+d}",
            )
            + dropped
        )
    if len(ranked) > SHOWN:
        lines.append(tn("tournament.standings.more", len(ranked) - SHOWN))
    return "\n".join(lines)[: delivery.CONTENT_LIMIT]


def _bracket_lines(event: Event) -> list[str]:
    """A knockout's rounds, one line each: every match's players and its winner (… while it plays)."""
    out = []
    for r, matches in enumerate(event.rounds, start=1):
        won = [
            t(
                "tournament.bracket.match",
                players=" – ".join(name(event, p) for p in m.players),
                winner=name(event, m.winner) if m.winner is not None else "…",
            )
            for m in matches
        ]
        out.append(t("tournament.bracket.round", round=r, matches="; ".join(won)))
    return out


def standings_picture(bot: Client, event: Event) -> Picture:
    """The standings (a knockout: its bracket) as a phone-readable picture; its text is the message's."""
    s = event.settings
    subtitle = t(
        "tournament.picture.subtitle",
        game=bot.games[s.game].title,
        format=format_name(s.format),
        round=len(event.rounds),
        rounds=event.total_rounds(),
    )
    head = (
        t("tournament.picture.place"),
        t("tournament.picture.player"),
        t("tournament.picture.points"),
        t("tournament.picture.buchholz"),
        t("tournament.picture.spread"),
    )
    rows: tuple[tuple[str, str, str, str, str], ...] = ()
    lines: list[str] = []
    if s.format in KNOCKOUTS:
        lines = _bracket_lines(event)[-pic.MAX_LINES :]
    else:
        ranked = event.lines()
        rows = tuple(
            (str(i), name(event, ln.player), str(ln.points), str(ln.buchholz), f"{ln.spread:+d}")
            for i, ln in enumerate(ranked[: pic.MAX_ROWS], start=1)
        )
        if len(ranked) > pic.MAX_ROWS:
            lines = [tn("tournament.standings.more", len(ranked) - pic.MAX_ROWS)]
    card = pic.StandingsCard(safe.plain(s.name, 60), subtitle, head, rows, tuple(lines))
    alt = standings_text(bot, event)[:ALT_LIMIT]
    return Picture(PICTURE, partial(pic.draw, card), alt, key=card)


def round_text(bot: Client, event: Event) -> str:
    """A round's pairings (the byes too), no pings: each match pings its players in its own thread."""
    lines = [
        title(bot, event),
        t("tournament.round.head", round=len(event.rounds), rounds=event.total_rounds()),
    ]
    for m in event.current:
        if len(m.players) == 1:
            lines.append(t("tournament.round.bye", name=name(event, m.players[0])))
        else:
            lines.append(
                t(
                    "tournament.round.match",
                    match=m.key,
                    players=" – ".join(name(event, p) for p in m.players),
                )
            )
    return "\n".join(lines)[: delivery.CONTENT_LIMIT]


def final_text(bot: Client, event: Event) -> str:
    places = event.places()
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    lines = [title(bot, event), t("tournament.final.head")]
    for user, place in places[:SHOWN]:
        lines.append(
            t("tournament.final.line", medal=medals.get(place, "▫️"), place=place, name=name(event, user))
        )
    return "\n".join(lines)[: delivery.CONTENT_LIMIT]


async def medal_lines(bot: Client, guild_id: int, user_id: int, most: int = 3) -> list[str]:
    """A member's places in this server's finished events, newest first ("🥇 Spring Swiss 2026: place 1 of
    12"), for their ``/stats``."""
    lines = []
    for _, place, doc, _ in await bot.store.places_of(user_id, most, guild_id=guild_id):
        try:
            event = event_of(doc)
        except (ValueError, KeyError, TypeError):
            continue  # a document this version cannot read: its line is left out, not the card
        medal = {1: "🥇", 2: "🥈", 3: "🥉"}.get(place, "🏅")
        name = safe.plain(event.settings.name, 60)
        lines.append(t("tournament.medal", medal=medal, name=name, place=place, field=len(event.entrants)))
    return lines


async def page_view(bot: Client, guild_id: int, tournament_id: int) -> discord.ui.View | None:
    """The event page's link button, where the bot links its pages and the server allows them; else None
    (the post goes without it). In the language in force."""
    links = bot.links
    if links is None or (await bot.server_settings.get(guild_id)).browser == BROWSER_OFF:
        return None
    link = Button(t("tournament.page"), "", url=links.tournament(tournament_id, bot.clock()))
    return delivery.view((link,), "tn", tournament_id)
