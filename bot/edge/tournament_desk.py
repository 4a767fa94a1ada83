"""Tournaments on Discord: ``/tournament``'s answers, the sign-up message's Join and Leave (a live count),
each match opened as a table in a thread of its own that pings exactly its players, every game's end carried
to its event, a move's time limit kept, and the rounds, standings and final results posted in the event's
channel. The event itself — pairings, results, refusals — is ``bot.services.tournaments``'s; nothing here
decides who plays whom.

Requests: the sign-up, a start and an organiser's step are answered through their interactions (no global
request); a match costs its thread, its pairing post (which pings its players) and the game as usual; a new
round after a game's end, and the final results, are one channel post each.

Names are shown through ``safe.name``; a match's first post pings its players and nobody else (``Places.post``
pings only the table's people it names), and the event's own posts ping nobody.

Where the bot links its web pages and the server allows them (``browser`` not ``off``), a round's post, the
standings and the final results carry a link button to the event's page (``/e/<token>``: its standings and
every match's table), signed afresh with each post: no request more."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot.base import safe
from bot.base.i18n import t, tn
from bot.base.panel import Button, Panel
from bot.base.refusals import UserFacingError
from bot.edge import custom_ids, delivery
from bot.edge.client import Client
from bot.games import Move, Table, TableError
from bot.services import session
from bot.services.server_settings import BROWSER_OFF
from bot.services.tournaments.event import Event, Match
from bot.services.tournaments.service import Stepped
from bot.services.tournaments.stored import event_of

if TYPE_CHECKING:
    from bot.store import TournamentRow

log = logging.getLogger("tavern.tournaments")

PREFIX = "tv:tn:"  # i18n: not text
_ID = re.compile(r"tv:tn:(?P<event>[0-9]{1,12}):(?P<verb>join|leave)", re.ASCII)  # i18n: not text
SHOWN = 20  # standings lines shown at the most (the rest: "and N more")
Interaction = discord.Interaction[Any]


def parse(cid: object) -> tuple[int, str]:
    match = _ID.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a tournament's button")
    return int(match["event"]), match["verb"]


# ---------------------------------------------------------------- words


def _name(event: Event, user_id: int) -> str:
    e = event.entrant(user_id)
    return safe.name(e.name if e else "", str(user_id))


def _title(bot: Client, event: Event) -> str:
    s = event.settings
    game = bot.games[s.game].title
    return t("tournament.title", name=safe.plain(s.name, 60), game=game, format=_format_name(s.format))


def _format_name(format: str) -> str:
    """A format's name in the language in force (each id written out for the catalog check)."""
    if format == "round_robin":
        return t("tournament.format.round-robin")
    if format == "knockout":
        return t("tournament.format.knockout")
    return t("tournament.format.swiss")


def _done(verb: str) -> str:
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
    names = ", ".join(_name(event, e.user_id) for e in event.entrants) or t("tournament.signup.nobody")
    return "\n".join(
        [
            _title(bot, event),
            tn("tournament.signup.count", len(event.entrants)),
            names,
            t("tournament.signup.how"),
        ]
    )


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
    lines = [_title(bot, event)]
    if event.settings.format == "knockout":
        for r, matches in enumerate(event.rounds, start=1):
            won = [
                t(
                    "tournament.bracket.match",
                    players=" – ".join(_name(event, p) for p in m.players),
                    winner=_name(event, m.winner) if m.winner is not None else "…",
                )
                for m in matches
            ]
            lines.append(t("tournament.bracket.round", round=r, matches="; ".join(won)))
        return "\n".join(lines)[: delivery.CONTENT_LIMIT]
    ranked = event.lines()
    for i, line in enumerate(ranked[:SHOWN], start=1):
        dropped = t("tournament.standings.dropped") if (e := event.entrant(line.player)) and e.dropped else ""
        lines.append(
            t(
                "tournament.standings.line",
                place=i,
                name=_name(event, line.player),
                points=line.points,
                buchholz=line.buchholz,
                spread=f"{line.spread:+d}",
            )
            + dropped
        )
    if len(ranked) > SHOWN:
        lines.append(tn("tournament.standings.more", len(ranked) - SHOWN))
    return "\n".join(lines)[: delivery.CONTENT_LIMIT]


def round_text(bot: Client, event: Event) -> str:
    """A round's pairings (the byes too), no pings: each match pings its players in its own thread."""
    lines = [
        _title(bot, event),
        t("tournament.round.head", round=len(event.rounds), rounds=event.total_rounds()),
    ]
    for m in event.current:
        if len(m.players) == 1:
            lines.append(t("tournament.round.bye", name=_name(event, m.players[0])))
        else:
            lines.append(
                t(
                    "tournament.round.match",
                    match=m.key,
                    players=" – ".join(_name(event, p) for p in m.players),
                )
            )
    return "\n".join(lines)[: delivery.CONTENT_LIMIT]


def final_text(bot: Client, event: Event) -> str:
    places = event.places()
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    lines = [_title(bot, event), t("tournament.final.head")]
    for user, place in places[:SHOWN]:
        lines.append(
            t("tournament.final.line", medal=medals.get(place, "▫️"), place=place, name=_name(event, user))
        )
    return "\n".join(lines)[: delivery.CONTENT_LIMIT]


async def page_view(bot: Client, guild_id: int, tournament_id: int) -> discord.ui.View | None:
    """The event page's link button, where the bot links its pages and the server allows them; else None
    (the post goes without it). In the language in force."""
    links = bot.links
    if links is None or (await bot.server_settings.get(guild_id)).browser == BROWSER_OFF:
        return None
    link = Button(t("tournament.page"), "", url=links.tournament(tournament_id, bot.clock()))
    return delivery.view((link,), "tn", tournament_id)


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


# ---------------------------------------------------------------- the desk


class Desk:
    """Carries each game's end to its event, as a task of its own (the publisher that tells the end holds the
    table's lock), and the timer's passes; ``settled`` waits for the tasks."""

    def __init__(self, bot: Client) -> None:
        self.bot = bot
        self._tasks: set[asyncio.Task[None]] = set()

    async def settled(self) -> None:
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def ended(self, table: Table) -> None:
        """A table's game is over (the publisher says so once it is told): carry it to its event."""
        task = asyncio.create_task(ended(self.bot, table.id), name=f"tavern-tournament-{table.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def catch_up(self) -> None:
        await catch_up(self.bot)


async def ended(bot: Client, game_id: int) -> None:
    """Carry a finished table's result to its event (nothing when it belongs to none, or was counted)."""
    try:
        table = await bot.tables.get(game_id)
        result = table.result()
        if result is None:
            return
        target = getattr(table.options, "target", 0)
        stepped = await bot.tournaments.game_over(table.id, table.user_ids, target, table.game, result)
        if stepped is not None:
            await after(bot, stepped)
    except Exception:
        log.exception("game %d: its end could not reach its tournament", game_id)


async def after(bot: Client, stepped: Stepped, *, told: bool = False) -> None:
    """After a step: close what it closed, say a new round (unless ``told``: the step's own answer said it)
    and open its matches; post the final results when it finished the event."""
    row = await bot.store.get_tournament(stepped.id)
    if row is None:
        return
    event = stepped.event
    for game_id in stepped.close:
        await close(bot, game_id)
    async with bot.languages.channel(row.guild_id):
        if event.status == "finished" and not told:
            text = final_text(bot, event) + "\n\n" + standings_text(bot, event)
            await _post(bot, row.channel_id, text, await page_view(bot, row.guild_id, row.id))
        elif stepped.open and not told and _fresh(stepped):
            view = await page_view(bot, row.guild_id, row.id)
            await _post(bot, row.channel_id, round_text(bot, event), view)
    await open_matches(bot, row, event, stepped.open)


async def _post(bot: Client, channel_id: int, text: str, view: discord.ui.View | None = None) -> None:
    try:
        await bot.get_partial_messageable(channel_id).send(
            text,
            allowed_mentions=discord.AllowedMentions.none(),
            view=view if view is not None else discord.utils.MISSING,
        )
    except discord.HTTPException as err:
        log.warning("tournament post to %d refused (%s)", channel_id, err)


async def close(bot: Client, game_id: int) -> None:
    """Close a match's table the event no longer waits for (awarded, re-paired, ended): no result."""
    try:
        async with bot.tables.locked(game_id) as table:
            if table.status == "active":
                await bot.tables.abandon(table, "tournament")
    except TableError:
        pass


async def open_matches(bot: Client, row: TournamentRow, event: Event, matches: Sequence[Match]) -> None:
    """Open each match as a table in a thread of the event's channel, pinging its players there. A match
    that cannot open now (a player seated elsewhere, Discord refusing) is tried again by the next pass of
    the timer."""
    async with bot.tournaments.openers(row.id):  # one opener of an event's matches at a time, here
        fresh = await bot.tournaments.get(row.id)  # as it stands now: another opener may have been first
        for m in matches:
            now = fresh.match(m.key) if fresh is not None else m
            if now.decided or now.game_id is not None:
                continue
            try:
                await _open_one(bot, row, event, now)
            except (TableError, discord.HTTPException) as err:
                log.info("tournament %d: match %s waits (%s)", row.id, m.key, err)


async def _open_one(bot: Client, row: TournamentRow, event: Event, m: Match) -> None:
    for p in m.players:  # one table at a time: a player still seated elsewhere is waited for
        if await bot.tables.seated_at(p) is not None:
            log.info("tournament %d: match %s waits for %d, seated elsewhere", row.id, m.key, p)
            return
    async with bot.languages.channel(row.guild_id):
        home = await _match_thread(bot, m) or await _new_thread(bot, row, event, m)
        if home is None:
            return
        seats = [(p, _name(event, p)) for p in m.players]
        settings = event.settings
        seed = bot.tournaments.seed_source()
        table, _ = await bot.tables.create(
            settings.game, row.guild_id, home, seats, dict(settings.options), seed=seed
        )
        await bot.tournaments.opened(row.id, m.key, table.id)
        pings = " ".join(f"<@{p}>" for p in m.players)
        text = t(
            "tournament.pairing", title=_title(bot, event), match=m.key, game=len(m.games) + 1, players=pings
        )
        publisher, places = bot.controller.publisher, bot.controller.places
        publisher.telling_now(table)
        async with bot.tables.locked(table.id) as table:
            # The pairing is the board's first post, at its foot: it pings the match's players (nobody else)
            # and goes with the board's next redraw; the opening then tells the calls as any game's does.
            board = await places.board(table)
            posted = await places.post(table, replace(board, content=f"{board.content}\n\n{text}"))
            if posted is not None:
                await bot.tables.save_meta(table, board_id=posted.id)
            await publisher.publish(table, table.pending, told_before=-1, board_shown=posted is not None)


async def _match_thread(bot: Client, m: Match) -> int | None:
    """The thread of the match's earlier games (a best of three plays on there), if it has any."""
    last = next((g.game_id for g in reversed(m.games) if g.game_id is not None), None)
    if last is None:
        return None
    try:
        return (await bot.tables.get(last)).channel_id
    except TableError:
        return None


async def _new_thread(bot: Client, row: TournamentRow, event: Event, m: Match) -> int | None:
    """A thread of the event's channel for the match, named for it; None where the channel takes none."""
    names = [_name(event, p) for p in m.players]
    title = t("tournament.thread", match=m.key, players=" – ".join(names))[:100]
    channel = bot.get_channel(row.channel_id) or await bot.fetch_channel(row.channel_id)
    if not isinstance(channel, discord.TextChannel):
        log.warning("tournament %d: channel %d takes no threads", row.id, row.channel_id)
        return None
    thread = await channel.create_thread(
        name=title, type=discord.ChannelType.public_thread, auto_archive_duration=1440
    )
    return thread.id


async def catch_up(bot: Client) -> None:
    """One pass of the timer: for the live events of this process's servers, carry any game end a stopped
    process missed, open the matches still waiting, and forfeit a player past the move limit (told at half
    the limit)."""
    for row, event in await bot.tournaments.live():
        if not bot.settings.owns(row.guild_id) or event.status != "running":
            continue
        waiting = [m for m in event.current if not m.decided and m.game_id is None]
        if waiting:
            await open_matches(bot, row, event, waiting)
        for m in event.current:
            if m.game_id is not None and not m.decided:
                await _watch(bot, row, event, m.game_id)


async def _watch(bot: Client, row: TournamentRow, event: Event, game_id: int) -> None:
    try:
        table = await bot.tables.get(game_id)
    except TableError:
        return
    if table.status != "active":
        await ended(bot, game_id)
        return
    limit = event.settings.move_minutes * 60
    waiting = table.people_waited_for()
    idle = bot.tables.clock() - table.last_action_at
    if not limit or len(waiting) != 1 or idle < limit / 2:
        return
    publisher = bot.controller.publisher
    async with publisher.taken(game_id) as table, bot.languages.channel(row.guild_id):
        if table.status != "active" or table.people_waited_for() != waiting:
            return
        seat = waiting[0]
        idle = bot.tables.clock() - table.last_action_at
        if idle < limit:
            if table.meta.nudged != table.seq:  # told first, once a turn
                left = int((limit - idle) // 60) + 1
                text = t("tournament.warn", player=table.mention(seat), minutes=left)
                await bot.controller.places.post(table, Panel(content=text))
                await bot.tables.save_meta(table, nudged=table.seq)
            return
        move = Move(table.adapter.claim_action(table, seat), str(table.seq))
        played = await session.play(bot.controller.ledger, table, seat, move, expected_seq=table.seq)
        await publisher.publish(table, played.events, told_before=played.told)


def _fresh(stepped: Stepped) -> bool:
    """The step paired a new round (not only the next game of a best-of-three match)."""
    return any(not m.games for m in stepped.open)


# ---------------------------------------------------------------- presses and commands


def organiser(event: Event, interaction: Interaction) -> None:
    perms = getattr(interaction, "permissions", None)
    if interaction.user.id != event.organiser_id and not (perms is not None and perms.manage_guild):
        raise UserFacingError("tournament.refuse.organiser")


async def press(bot: Client, interaction: Interaction) -> None:
    """Join or Leave on a sign-up message: the message's count redrawn by the press's own answer."""
    tournament_id, verb = custom_ids.pressed(interaction, parse)
    row = await bot.store.get_tournament(tournament_id)
    if row is None or interaction.guild_id != row.guild_id:
        raise UserFacingError("tournament.refuse.gone")
    user = interaction.user
    if verb == "join":
        event = await bot.tournaments.get(tournament_id)
        rated = await bot.store.rating_of(row.guild_id, event.settings.game, user.id) if event else None
        rating = float(rated["rating"]) if rated else 0.0
        name = safe.name(user.display_name, user.name)
        _, event = await bot.tournaments.step(tournament_id, lambda e: e.join(user.id, name, rating))
        opened: Sequence[Match] = ()
        closing: Sequence[int] = ()
    else:
        (opened, closing), event = await bot.tournaments.step(tournament_id, lambda e: e.leave(user.id))
    if event.status == "signup":
        await interaction.response.edit_message(
            content=signup_text(bot, event), view=signup_view(tournament_id)
        )
    else:
        await interaction.response.send_message(t("tournament.left"), ephemeral=True)
        await after(bot, Stepped(tournament_id, event, tuple(opened), tuple(closing)))


async def here(bot: Client, interaction: Interaction) -> tuple[TournamentRow, Event]:
    if interaction.guild_id is None or interaction.channel_id is None:
        raise UserFacingError("tavern.error.server-only")
    found = await bot.tournaments.here(interaction.guild_id, interaction.channel_id)
    if found is None:
        raise UserFacingError("tournament.refuse.none-here")
    return found


async def step(
    bot: Client, interaction: Interaction, verb: str, player: int | None = None, match: str = ""
) -> None:
    """An organiser's step on this channel's event, answered in the channel (everyone sees what changed)."""
    row, event = await here(bot, interaction)
    organiser(event, interaction)

    def take(e: Event) -> tuple[list[Match], list[int]]:
        if verb == "start":
            return e.start(), []
        if verb == "pause":
            e.pause()
            return [], []
        if verb == "resume":
            return e.resume(), []
        if verb == "drop":
            assert player is not None
            return e.drop(player)
        if verb == "award":
            assert player is not None
            opened, closing = e.award(match, player)
            return opened, [closing] if closing is not None else []
        if verb == "repair":
            return e.repair()
        return [], e.end()

    (opened, closing), event = await bot.tournaments.step(row.id, take)
    stepped = Stepped(row.id, event, tuple(opened), tuple(closing))
    linked = True
    if event.status == "finished":
        answer = final_text(bot, event) + "\n\n" + standings_text(bot, event)
    elif opened and _fresh(stepped):
        answer = round_text(bot, event)
    else:
        answer, linked = f"{_title(bot, event)}\n{_done(verb)}", False
    view = await page_view(bot, row.guild_id, row.id) if linked else None
    await interaction.response.send_message(
        answer[: delivery.CONTENT_LIMIT],
        allowed_mentions=discord.AllowedMentions.none(),
        view=view if view is not None else discord.utils.MISSING,
    )
    await after(bot, stepped, told=True)
