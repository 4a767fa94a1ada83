"""``/leaderboard [game] [board] [season]``: a server's board of one game — this season's by default, the
all-time one, or a past season's — ten players to a page, with the presser's own line (rank, rating, games)
under the page wherever they stand. Public, and it pings no one; ◀ ▶ turn the page and a menu picks another
board, each press updating that same message (one callback, no other request). ``/tavern-admin new-season``
closes the current season after the admin confirms; it stays viewable as a past season (nothing is deleted).

Each control carries its own address — a page ``tv:lb:<game>:<all|season>:<page>``, the menu
``tv:lb:<game>:pick`` (its one value ``all`` or a season number), an admin's confirmation
``tv:lb:close:<season>`` — parsed strictly (anyone can send any custom id) and checked to be on the pressed
message. The server is always the press's own and the rank line always the presser's, so a forged id can
only show what ``/leaderboard`` would show anyone there; a confirmation is checked for Manage Server again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import discord
from babel.dates import format_date, format_skeleton

from bot.base import safe
from bot.base.i18n import current, t, tn
from bot.base.refusals import UserFacingError
from bot.edge import custom_ids, delivery
from bot.edge.client import Client
from bot.games import GAMES
from bot.render.ratings import PROVISIONAL_GAMES, START, STORED_START, shown_rating
from bot.store.boards import month_start, next_month
from bot.store.records import LeaderPage, LeaderRow, Season

PREFIX = "tv:lb:"  # i18n: not text
CLOSE = "tv:lb:close:"  # i18n: not text
_PAGE = re.compile(  # i18n: not text
    r"tv:lb:(?P<game>[a-z]{1,16}):(?P<board>all|[1-9][0-9]{0,5}):(?P<page>[1-9][0-9]{0,3})", re.ASCII
)
_PICK = re.compile(r"tv:lb:(?P<game>[a-z]{1,16}):pick", re.ASCII)  # i18n: not text
_CLOSE = re.compile(r"tv:lb:close:(?P<season>[1-9][0-9]{0,5})", re.ASCII)  # i18n: not text
_BOARD = re.compile(r"all|[1-9][0-9]{0,5}", re.ASCII)
ALL = "all"  # the all-time board, in ids and menu values
ALL_TIME = "all-time"  # the command's ``board`` choice for it (the other: ``season``)
PAGE = 10  # players per page: ten lines read on a phone
MAX_SEASON = 999_999  # the highest season number an id or the command's option holds
PICKS = 25  # Discord's most options in one menu

Interaction = discord.Interaction[Any]
NO_PINGS = discord.AllowedMentions.none()


# ------------------------------------------------------------------------------------------------- words


def title(game: str) -> str:
    """A game's name (its adapter's title), or its key for a game the bot no longer has."""
    return GAMES[game].title if game in GAMES else game


def rating_legend() -> str:
    """The leaderboard's line explaining the rating, in the language in force."""
    return t("general.leaderboard.rating-legend", start=START, games=PROVISIONAL_GAMES)


def floor(game: str) -> int:
    """The stored rating (rounded) at or below which a player shows 0: all such players share a rank."""
    return STORED_START.get(game, 0) - START


def _day(at: float) -> str:
    return format_date(datetime.fromtimestamp(at, UTC).date(), format="medium", locale=current())


def span(season: Season) -> str:
    """When a season ran: its month ("June 2025") when it is one whole UTC month, else its dates."""
    start = season.started_at
    whole_month = start == month_start(start) and (
        season.monthly if season.ended_at is None else season.ended_at == next_month(start)
    )
    if whole_month:
        return format_skeleton("yMMMM", datetime.fromtimestamp(start, UTC).date(), locale=current())
    if season.ended_at is None:
        return t("leaderboard.since", date=_day(start))
    return t("leaderboard.span", start=_day(start), end=_day(max(start, season.ended_at - 1)))


def season_name(season: Season) -> str:
    return t("leaderboard.season", number=season.number, span=span(season))


def board_name(board: str, seasons: Sequence[Season]) -> str:
    """The all-time board, or a season by its number and when it ran."""
    found = next((s for s in seasons if str(s.number) == board), None)
    return season_name(found) if found is not None and board != ALL else t("leaderboard.all-time")


def by_hands(game: str) -> bool:
    """Whether the board's extra column is the average hand score: for a game whose engine scores each hand
    (``hand_scores``, as Bharg Deluxe's); otherwise it is the muggins wins (Bhargage, Classic Cribbage)."""
    return game in GAMES and hasattr(GAMES[game].rules, "hand_scores")


def leaderboard_text(game: str, rows: Sequence[LeaderRow], heading: str = "", empty: str = "") -> str:
    """The board as a table (ranks as the store gave them, else 1, 2, 3 …). A game that scores by hands
    shows the average hand score (Deluxe); the others their muggins wins (Bhargage's count double for
    stakes)."""
    head_line = t("general.leaderboard.title", game=title(game)) + (f" · {heading}" if heading else "")
    if not rows:
        return f"{head_line}\n{empty or t('general.leaderboard.empty')}"
    hands = by_hands(game)
    extra = t("general.leaderboard.column.avg") if hands else t("general.leaderboard.column.mug")
    player, won, lost = (
        t("general.leaderboard.column.player"),
        t("general.leaderboard.column.won"),
        t("general.leaderboard.column.lost"),
    )
    pct, rating = t("general.leaderboard.column.win-pct"), t("general.leaderboard.column.rating")
    lines = [f"{'#':>2} {player:<16} {won:>3} {lost:>3} {pct:>5} {extra:>5} {rating:>7}"]
    for i, r in enumerate(rows, 1):
        if hands:
            value = "—" if r.hand_score_avg is None else f"{r.hand_score_avg:.1f}"
        else:
            value = str(r.muggins_wins)
        lines.append(
            f"{r.rank or i:>2} {r.name[:16]:<16} {r.wins:>3} {r.losses:>3} {r.win_pct:>5.0f} {value:>5} "
            f"{shown_rating(game, r.rating, r.games):>7}"
        )
    extra_legend = t("general.leaderboard.avg-legend") if hands else t("general.leaderboard.mug-legend")
    return f"{head_line}\n```\n" + "\n".join(lines) + f"\n```\n{extra_legend}\n{rating_legend()}"


def rank_line(game: str, name: str, me: LeaderRow | None) -> str:
    """Where the presser stands on this board, wherever that is."""
    if me is None:
        return t("leaderboard.you-none", name=name)
    rating = shown_rating(game, me.rating, me.games)
    return tn("leaderboard.you", me.games, name=name, rank=me.rank, rating=rating)


# ----------------------------------------------------------------------------------------------- message


def _picks(board: str, seasons: Sequence[Season]) -> list[discord.SelectOption]:
    """This season, all time, then past seasons newest first (the one shown always among them)."""
    now = str(seasons[0].number)
    values = [now, ALL, *(str(s.number) for s in seasons[1:])][:PICKS]
    if board not in values:
        values[-1] = board
    options = []
    for value in values:
        name = board_name(value, seasons)
        label = t("leaderboard.pick.now", season=name) if value == now else name
        options.append(
            discord.SelectOption(
                label=label[: delivery.OPTION_TEXT_LIMIT], value=value, default=value == board
            )
        )
    return options


def controls(game: str, board: str, found: LeaderPage, seasons: Sequence[Season]) -> discord.ui.View:
    view = delivery.Controls()
    if found.pages > 1:  # ◀ ▶, off at either end (their ids differ: the pages either side)
        for label, to in (("◀", max(1, found.page - 1)), ("▶", min(found.pages, found.page + 1))):
            cid = f"{PREFIX}{game}:{board}:{to}"
            style = discord.ButtonStyle.secondary
            view.add_item(
                discord.ui.Button(label=label, style=style, custom_id=cid, disabled=to == found.page)
            )
    view.add_item(discord.ui.Select(custom_id=f"{PREFIX}{game}:pick", options=_picks(board, seasons), row=1))
    return view


async def render(
    client: Client, interaction: Interaction, game: str, board: str, number: int, seasons: Sequence[Season]
) -> tuple[str, discord.ui.View]:
    """Page ``number`` of a board of the press's own server, with the presser's line under it."""
    assert interaction.guild_id is not None
    user = interaction.user
    found = await client.store.leaderboard_page(
        interaction.guild_id,
        game,
        None if board == ALL else int(board),
        page=number,
        per_page=PAGE,
        user_id=user.id,
        floor=floor(game),
    )
    if board == ALL:
        empty = t("general.leaderboard.empty")
    else:
        empty = t("leaderboard.empty-now") if board == str(seasons[0].number) else t("leaderboard.empty-past")
    text = leaderboard_text(game, found.rows, board_name(board, seasons), empty)
    if found.total:
        pages = tn("leaderboard.page", found.total, page=found.page, pages=found.pages)
        name = safe.name(getattr(user, "display_name", user.name), user.name)
        text += f"\n{pages}\n{rank_line(game, name, found.me)}"
    return text[: delivery.CONTENT_LIMIT], controls(game, board, found, seasons)


async def _seasons(client: Client, interaction: Interaction) -> list[Season]:
    assert interaction.guild_id is not None
    return await client.store.seasons(interaction.guild_id, client.tables.clock())


async def show(client: Client, interaction: Interaction, game: str, board: str, season: int | None) -> None:
    """Answer ``/leaderboard``: page 1 of this season's board, the all-time one, or season ``season``'s."""
    if interaction.guild_id is None:
        raise UserFacingError("tavern.error.server-only")
    if game not in client.games:
        raise UserFacingError("general.history.unknown-game")
    if season is not None and board == ALL_TIME:
        raise UserFacingError("leaderboard.season-or-all-time")
    seasons = await _seasons(client, interaction)
    if season is not None and not 1 <= season <= seasons[0].number:
        raise UserFacingError("leaderboard.no-season", number=season, current=seasons[0].number)
    target = ALL if board == ALL_TIME else str(season or seasons[0].number)
    content, view = await render(client, interaction, game, target, 1, seasons)
    await interaction.response.send_message(content, view=view, allowed_mentions=NO_PINGS)


# ------------------------------------------------------------------------------------------------ presses


def parse_page(cid: object) -> tuple[str, str, int]:
    match = _PAGE.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a leaderboard page")
    return match["game"], match["board"], int(match["page"])


def parse_pick(cid: object) -> str:
    match = _PICK.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a leaderboard menu")
    return match["game"]


def parse_close(cid: object) -> int:
    match = _CLOSE.fullmatch(cid) if isinstance(cid, str) and len(cid) <= 100 else None
    if match is None:
        raise custom_ids.Refused(f"custom id {cid!r} is not a season's closing")
    return int(match["season"])


async def _checked(client: Client, interaction: Interaction, game: str, board: str) -> list[Season]:
    """The server's seasons, once the pressed board is one ``/leaderboard`` could show there."""
    if interaction.guild_id is None or game not in client.games:
        raise custom_ids.Refused("a leaderboard press outside a server, or of no game")
    seasons = await _seasons(client, interaction)
    if board != ALL and int(board) > seasons[0].number:
        raise custom_ids.Refused(f"a leaderboard press for season {board}, which has not begun")
    return seasons


async def press(client: Client, interaction: Interaction) -> None:
    """Any press of ours on a board or a season's closing (``tv:lb:``)."""
    data: Any = interaction.data or {}
    cid = data.get("custom_id")
    if isinstance(cid, str) and cid.startswith(CLOSE):
        await confirm_close(client, interaction)
    elif isinstance(cid, str) and cid.endswith(":pick"):
        await pick(client, interaction)
    else:
        await turn(client, interaction)


async def turn(client: Client, interaction: Interaction) -> None:
    """A page button: that page of that board, in the same message."""
    game, board, number = custom_ids.pressed(interaction, parse_page)
    seasons = await _checked(client, interaction, game, board)
    content, view = await render(client, interaction, game, board, number, seasons)
    await interaction.response.edit_message(content=content, view=view, allowed_mentions=NO_PINGS)


async def pick(client: Client, interaction: Interaction) -> None:
    """The menu: page 1 of the board chosen, in the same message."""
    data: Any = interaction.data or {}
    game = parse_pick(data.get("custom_id"))
    values = data.get("values")
    if not isinstance(values, list) or len(values) != 1 or not isinstance(values[0], str):
        raise custom_ids.Refused("a leaderboard menu sent other than one value")
    if not _BOARD.fullmatch(values[0]):
        raise custom_ids.Refused("a leaderboard menu value is not a board")
    custom_ids.offered(interaction.message, str(data["custom_id"]), (values[0],))
    seasons = await _checked(client, interaction, game, values[0])
    content, view = await render(client, interaction, game, values[0], 1, seasons)
    await interaction.response.edit_message(content=content, view=view, allowed_mentions=NO_PINGS)


# ----------------------------------------------------------------------------------- closing a season


async def ask_close(client: Client, interaction: Interaction) -> None:
    """Answer ``/tavern-admin new-season`` (the caller checked Manage Server): what closing means, and the
    one button that does it."""
    if interaction.guild_id is None:
        raise UserFacingError("tavern.error.server-only")
    now = (await _seasons(client, interaction))[0]
    if not now.players:
        raise UserFacingError("leaderboard.close.nothing", season=season_name(now))
    view = delivery.Controls()
    button: discord.ui.Button[Any] = discord.ui.Button(
        label=t("leaderboard.close.button", number=now.number),
        style=discord.ButtonStyle.danger,
        custom_id=f"{CLOSE}{now.number}",
    )
    view.add_item(button)
    text = t("leaderboard.close.ask", season=season_name(now), next=now.number + 1)
    await interaction.response.send_message(text, view=view, ephemeral=True, allowed_mentions=NO_PINGS)


async def confirm_close(client: Client, interaction: Interaction) -> None:
    """The confirmation: an admin of the press's server closes that season, if it is still the current one."""
    number = custom_ids.pressed(interaction, parse_close)
    if interaction.guild_id is None or not interaction.permissions.manage_guild:
        raise custom_ids.Refused("a season's closing pressed outside a server or by a non-admin")
    closed = await client.store.close_season(interaction.guild_id, number, client.tables.clock())
    if closed is None:
        raise UserFacingError("leaderboard.close.gone", number=number)
    text = t("leaderboard.close.done", season=season_name(closed), next=number + 1)
    await interaction.response.edit_message(content=text, view=None, allowed_mentions=NO_PINGS)
