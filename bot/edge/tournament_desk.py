"""Tournaments on Discord: ``/tournament``'s answers, the sign-up message's Join and Leave (a live count),
each match opened as a table in a thread of its own that pings exactly its players, every game's end carried
to its event, a move's time limit kept, and the rounds, standings and final results posted in the event's
channel. The event itself — pairings, results, refusals — is ``bot.services.tournaments``'s; nothing here
decides who plays whom; what the posts say is ``bot.edge.tournament_posts``'s.

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
from bot.base.i18n import t
from bot.base.panel import Panel, Picture
from bot.base.refusals import UserFacingError
from bot.edge import custom_ids, delivery
from bot.edge import tournament_posts as posts
from bot.edge.client import Client
from bot.games import Move, Table, TableError
from bot.services import session
from bot.services.tournaments.event import Event, Match
from bot.services.tournaments.service import Stepped
from bot.services.tournaments.stored import event_of

if TYPE_CHECKING:
    from bot.store import TournamentRow

log = logging.getLogger("tavern.tournaments")

PREFIX = posts.PREFIX
_ID = re.compile(r"tv:tn:(?P<event>[0-9]{1,12}):(?P<verb>join|leave)", re.ASCII)  # i18n: not text
Interaction = discord.Interaction[Any]


def parse(cid: object) -> tuple[int, str]:
    match = _ID.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a tournament's button")
    return int(match["event"]), match["verb"]


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
        task = asyncio.create_task(ended(self.bot, table), name=f"tavern-tournament-{table.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def catch_up(self) -> None:
        await catch_up(self.bot)


async def ended(bot: Client, table: Table) -> None:
    """Carry a finished table's result to its event (nothing when it belongs to none, or was counted). Every
    game's end comes here: ``game_over``'s one indexed lookup tells the few that belong to an event."""
    try:
        result = table.result()
        if result is None:
            return
        target = getattr(table.options, "target", 0)
        stepped = await bot.tournaments.game_over(table.id, table.user_ids, target, table.game, result)
        if stepped is not None:
            await after(bot, stepped)
    except Exception:
        log.exception("game %d: its end could not reach its tournament", table.id)


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
            text = posts.final_text(bot, event) + "\n\n" + posts.standings_text(bot, event)
            view = await posts.page_view(bot, row.guild_id, row.id)
            await _post(bot, row.channel_id, text, posts.standings_picture(bot, event), view)
        elif stepped.open and not told and _fresh(stepped):
            view = await posts.page_view(bot, row.guild_id, row.id)
            await _post(bot, row.channel_id, posts.round_text(bot, event), view=view)
    await open_matches(bot, row, event, stepped.open)


async def _post(
    bot: Client,
    channel_id: int,
    text: str,
    picture: Picture | None = None,
    view: discord.ui.View | None = None,
) -> None:
    try:
        files = await delivery.draw(picture)
        await bot.get_partial_messageable(channel_id).send(
            text[: delivery.CONTENT_LIMIT],
            files=files,
            allowed_mentions=discord.AllowedMentions.none(),
            view=view if view is not None else discord.utils.MISSING,
        )
    except discord.HTTPException as err:
        log.warning("tournament post to %d refused (%s)", channel_id, err)


async def close(bot: Client, game_id: int) -> None:
    """Close a match's table the event no longer waits for (awarded, re-paired, ended): no result."""
    try:
        async with bot.tables.locked(game_id) as table, bot.languages.channel(table.guild_id):
            if table.status == "active":
                await bot.tables.abandon(table, "tournament")
                await bot.controller.places.post(table, Panel(content=t("tournament.closed")))
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
        seats = [(p, posts.name(event, p)) for p in m.players]
        settings = event.settings
        seed = bot.tournaments.seed_source()
        table, _ = await bot.tables.create(
            settings.game, row.guild_id, home, seats, dict(settings.options), seed=seed
        )
        await bot.tournaments.opened(row.id, m.key, table.id)
        pings = " ".join(f"<@{p}>" for p in m.players)
        text = t(
            "tournament.pairing",
            title=posts.title(bot, event),
            match=m.key,
            game=len(m.games) + 1,
            players=pings,
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
    names = [posts.name(event, p) for p in m.players]
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
        await ended(bot, table)
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
            if table.meta.warned != table.seq:  # told first, once a turn
                left = int((limit - idle) // 60) + 1
                text = t("tournament.warn", player=table.mention(seat), minutes=left)
                await bot.controller.places.post(table, Panel(content=text))
                await bot.tables.save_meta(table, warned=table.seq)
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
        game = event_of(row.doc).settings.game  # the row just read: its game never changes
        rated = await bot.store.rating_of(row.guild_id, game, user.id)
        rating = float(rated["rating"]) if rated else 0.0
        name = safe.name(user.display_name, user.name)
        _, event = await bot.tournaments.step(tournament_id, lambda e: e.join(user.id, name, rating))
        opened: Sequence[Match] = ()
        closing: Sequence[int] = ()
    else:
        (opened, closing), event = await bot.tournaments.step(tournament_id, lambda e: e.leave(user.id))
    if event.status == "signup":
        await interaction.response.edit_message(
            content=posts.signup_text(bot, event), view=posts.signup_view(tournament_id)
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
    picture, linked = None, True
    if event.status == "finished":
        answer = posts.final_text(bot, event) + "\n\n" + posts.standings_text(bot, event)
        picture = posts.standings_picture(bot, event)
    elif opened and _fresh(stepped):
        answer = posts.round_text(bot, event)
    else:
        answer, linked = f"{posts.title(bot, event)}\n{posts.done(verb)}", False
    view = await posts.page_view(bot, row.guild_id, row.id) if linked else None
    await interaction.response.send_message(
        answer[: delivery.CONTENT_LIMIT],
        files=await delivery.draw(picture),
        allowed_mentions=discord.AllowedMentions.none(),
        view=view if view is not None else discord.utils.MISSING,
    )
    await after(bot, stepped, told=True)
