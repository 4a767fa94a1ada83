"""Seasons and paged leaderboards: the periods a server's results fall into, each with its own ratings, and a
board (a season's, or the all-time one) read a page at a time with every player's rank.

A server's seasons are numbered 1, 2, … (table ``seasons``: when each began, when it was closed, its newest
result). The season a result counts in is decided when it is recorded, from its finish time and the server's
setting ``seasons`` (read from ``guild_settings`` in the same transaction): ``monthly`` (the default) — a
season ends at the first UTC month start after its newest result, so the next result opens a new one at the
start of its own month; ``none`` — a season runs until an admin closes it (``close``), which also opens the
next one at once. Each season rates everyone afresh (``season_ratings``, written with ``rate_game`` beside the
all-time ``ratings``); a result keeps its season's number (``results.season``). Nothing is ever deleted.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot.base import ratings as rt
from bot.store._base import Conn, Row
from bot.store.records import Finish, LeaderPage, LeaderRow, Season

SETTING = "seasons"  # the server setting this module reads (``guild_settings``), i18n: not text
MONTHLY, ONE_SEASON = "monthly", "none"  # its values; anything else (or nothing) is monthly

# The order of a board: rating, then wins, games, user id (as ``StatsMixin.leaderboard``).
_ORDER = "ORDER BY r.rating DESC, r.wins DESC, r.games DESC, r.user_id"
# A page's full rows: the all-time board's (the player's average hand score over every result of theirs)…
_ALL_TIME_ROWS = (
    "SELECT r.*, (SELECT AVG(x.hand_score_avg) FROM results x WHERE x.guild_id = r.guild_id "
    "AND x.game = r.game AND x.user_id = r.user_id AND x.hand_score_avg IS NOT NULL) AS hand_avg "
    "FROM ratings r WHERE r.guild_id = ? AND r.game = ?"
)
# …and a season's (the name the player last played under, from the all-time row every rated player has;
# the hand average over the season's results).
_SEASON_ROWS = (
    "SELECT r.*, a.name, (SELECT AVG(x.hand_score_avg) FROM results x WHERE x.guild_id = r.guild_id "
    "AND x.game = r.game AND x.user_id = r.user_id AND x.season = r.season "
    "AND x.hand_score_avg IS NOT NULL) AS hand_avg FROM season_ratings r JOIN ratings a "
    "ON a.guild_id = r.guild_id AND a.game = r.game AND a.user_id = r.user_id "
    "WHERE r.guild_id = ? AND r.game = ? AND r.season = ?"
)


def month_start(at: float) -> float:
    """The start of the UTC month ``at`` falls in."""
    day = datetime.fromtimestamp(at, UTC)
    return datetime(day.year, day.month, 1, tzinfo=UTC).timestamp()


def next_month(at: float) -> float:
    """The first UTC month start after ``at``."""
    day = datetime.fromtimestamp(at, UTC)
    year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    return datetime(year, month, 1, tzinfo=UTC).timestamp()


def ended(row: Row, monthly: bool, at: float) -> float | None:
    """When the stored season ``row`` ended, as seen at ``at``: when it was closed, else (monthly) the first
    month start after its newest result once that has come; None while it runs."""
    if row["ended_at"] is not None:
        return float(row["ended_at"])
    if not monthly:
        return None
    newest = row["started_at"] if row["last_at"] is None else max(row["started_at"], row["last_at"])
    end = next_month(newest)
    return end if end <= at else None


def current(latest: Row | None, monthly: bool, at: float) -> tuple[int, float, bool]:
    """The season a result finishing at ``at`` counts in: its number, its start, and whether it is new (not
    stored yet: its first result opens it)."""
    if latest is None:
        return 1, month_start(at) if monthly else at, True
    end = ended(latest, monthly, at)
    if end is None:
        return int(latest["season"]), float(latest["started_at"]), False
    return int(latest["season"]) + 1, max(end, month_start(at)) if monthly else at, True


async def is_monthly(db: Conn, guild_id: int) -> bool:
    """The server's season setting, as its admins stored it (monthly unless they chose ``none``)."""
    row = await db.fetchrow("SELECT data FROM guild_settings WHERE guild_id = ?", (guild_id,))
    data = json.loads(row["data"]) if row is not None else {}
    return not (isinstance(data, dict) and data.get(SETTING) == ONE_SEASON)


async def _latest(db: Conn, guild_id: int) -> Row | None:
    return await db.fetchrow(
        "SELECT * FROM seasons WHERE guild_id = ? ORDER BY season DESC LIMIT 1", (guild_id,)
    )


async def season_of(db: Conn, guild_id: int, at: float) -> int:
    """Inside a finish's transaction: the season its results count in, opened (and the one before closed)
    when the result is the first of a new one; the season's newest result becomes ``at``. A season another
    process closed meanwhile (PostgreSQL: its row was locked, and is closed once this write may go on) is
    read again, and the finish counts in the one that follows."""
    monthly = await is_monthly(db, guild_id)
    number = 0
    for _ in range(3):
        latest = await _latest(db, guild_id)
        number, start, new = current(latest, monthly, at)
        if new:
            if latest is not None:
                await db.execute(
                    "UPDATE seasons SET ended_at = ? WHERE guild_id = ? AND season = ? AND ended_at IS NULL",
                    (ended(latest, monthly, at), guild_id, latest["season"]),
                )
            # another process may open it at the same instant: then theirs is the one
            await db.execute(
                "INSERT INTO seasons (guild_id, season, started_at) VALUES (?, ?, ?) "
                "ON CONFLICT (guild_id, season) DO NOTHING",
                (guild_id, number, start),
            )
        kept = await db.execute(
            "UPDATE seasons SET last_at = CASE WHEN last_at IS NULL OR last_at < ? THEN ? ELSE last_at END "
            "WHERE guild_id = ? AND season = ? AND ended_at IS NULL",
            (at, at, guild_id, number),
        )
        if kept:
            break
    return number


async def write_ratings(
    db: Conn,
    board: tuple[int, str, int | None],
    f: Finish,
    seats: Sequence[Row],
    ranks: Sequence[int],
    system: rt.RatingSystem,
) -> list[tuple[rt.Rating | None, rt.Rating]]:
    """Every seat's new rating and tallies on ``board`` (guild, game, and a season or None for all time),
    from their rows there (none: a fresh start); each seat's (before, after). The all-time rows also keep
    the name the player last played under (a season's board reads it from them)."""
    guild_id, game, season = board
    table, key = ("ratings", ()) if season is None else ("season_ratings", (season,))
    in_season = "" if season is None else " AND season = ?"
    read = f"SELECT rating, mu, sigma FROM {table} WHERE guild_id = ? AND game = ? AND user_id = ?{in_season}"
    current_ratings: list[rt.Rating | None] = []
    for s in seats:
        row = await db.fetchrow(read, (guild_id, game, s["user_id"], *key))
        current_ratings.append(rt.Rating(row["rating"], row["mu"], row["sigma"]) if row else None)
    new = rt.rate_game(system, current_ratings, ranks, f.winners)
    named = season is None
    write = _rating_upsert(table, named)
    for s, r in zip(seats, new, strict=True):
        won = s["seat"] in f.winners
        await db.execute(
            write,
            (
                guild_id,
                game,
                s["user_id"],
                s["name"] if named else season,
                r.rating,
                r.mu,
                r.sigma,
                int(won),
                int(not won),
                int(won and f.muggins),
                f.at,
            ),
        )
    return list(zip(current_ratings, new, strict=True))


def _rating_upsert(table: str, named: bool) -> str:
    """The statement that writes one seat's row on a board: the new rating, the tallies added to. ``named``:
    the all-time table, keyed without a season and keeping the player's name."""
    columns = "guild_id, game, user_id, " + ("name" if named else "season")
    conflict = "guild_id, game, user_id" + ("" if named else ", season")
    tallies = ("games", "wins", "losses", "muggins_wins")
    return (
        f"INSERT INTO {table} ({columns}, rating, mu, sigma, games, wins, losses, muggins_wins, updated_at) "
        f"VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) ON CONFLICT ({conflict}) DO UPDATE SET "
        + ("name = excluded.name, " if named else "")
        + "rating = excluded.rating, mu = excluded.mu, sigma = excluded.sigma, "
        + ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in tallies)
        + ", updated_at = excluded.updated_at"
    )


async def listing(db: Conn, guild_id: int, now: float) -> list[Season]:
    """Every season of the server, newest first, the current one (a result finishing ``now`` would count
    in it; it may have none yet) first."""
    monthly = await is_monthly(db, guild_id)
    rows = await db.fetch("SELECT * FROM seasons WHERE guild_id = ? ORDER BY season DESC", (guild_id,))
    counts = await db.fetch(
        "SELECT season, COUNT(DISTINCT user_id) AS n FROM season_ratings WHERE guild_id = ? GROUP BY season",
        (guild_id,),
    )
    players = {int(c["season"]): int(c["n"]) for c in counts}
    number, start, new = current(rows[0] if rows else None, monthly, now)
    out = [Season(number, start, None, monthly, 0)] if new else []
    for row in rows:
        n = int(row["season"])
        end = None if n == number else ended(row, monthly, now)
        out.append(Season(n, float(row["started_at"]), end, monthly, players.get(n, 0)))
    return out


async def close(db: Conn, guild_id: int, number: int, at: float) -> Season | None:
    """Inside a transaction: close season ``number`` at ``at`` and open the next one, if it is the current
    season and someone has a rating in it; else None, and nothing is written."""
    monthly = await is_monthly(db, guild_id)
    current_number, start, new = current(await _latest(db, guild_id), monthly, at)
    if new or current_number != number:
        return None
    rated = await db.fetchrow(
        "SELECT COUNT(DISTINCT user_id) AS n FROM season_ratings WHERE guild_id = ? AND season = ?",
        (guild_id, number),
    )
    if rated is None or not rated["n"]:
        return None
    closing = "UPDATE seasons SET ended_at = ? WHERE guild_id = ? AND season = ? AND ended_at IS NULL"
    if not await db.execute(closing, (at, guild_id, number)):
        return None  # closed meanwhile, by another admin (PostgreSQL: once their transaction ended)
    await db.execute(
        "INSERT INTO seasons (guild_id, season, started_at) VALUES (?, ?, ?)", (guild_id, number + 1, at)
    )
    return Season(number, start, at, monthly, int(rated["n"]))


def _ranks(ratings: Sequence[float], floor: int | None) -> list[int]:
    """Standard competition ranks (1, 2, 2, 4) of ratings in board order: equal when they round alike, and
    all those at or below ``floor`` equal (they show alike)."""
    out: list[int] = []
    last: int | None = None
    for i, rating in enumerate(ratings):
        key = round(rating) if floor is None else max(round(rating), floor)
        out.append(out[-1] if key == last else i + 1)
        last = key
    return out


def _leader_row(r: Row, rank: int) -> LeaderRow:
    return LeaderRow(
        user_id=r["user_id"],
        name=r["name"],
        games=r["games"],
        wins=r["wins"],
        losses=r["losses"],
        win_pct=100.0 * r["wins"] / r["games"],
        muggins_wins=r["muggins_wins"],
        rating=round(r["rating"]),
        hand_score_avg=r["hand_avg"],
        rank=rank,
    )


async def page(
    db: Conn,
    key: tuple[int, str, int | None],
    number: int,
    per_page: int,
    user_id: int | None,
    floor: int | None,
) -> LeaderPage:
    """Page ``number`` (clamped to the last) of the board ``key`` (guild, game, season or None for all
    time), with ``user_id``'s row wherever it is. Two queries: the whole board's order (four numbers a
    player), then the full rows of the page and the asker."""
    guild_id, game, season = key
    where: tuple[Any, ...] = (guild_id, game) if season is None else (guild_id, game, season)
    table = "ratings" if season is None else "season_ratings"
    in_season = "" if season is None else " AND r.season = ?"
    order = await db.fetch(
        f"SELECT r.user_id, r.rating FROM {table} r WHERE r.guild_id = ? AND r.game = ?{in_season} "
        f"AND r.games > 0 {_ORDER}",
        where,
    )
    ranks = _ranks([o["rating"] for o in order], floor)
    pages = max(1, math.ceil(len(order) / per_page))
    number = min(max(1, number), pages)
    shown = [int(o["user_id"]) for o in order[(number - 1) * per_page : number * per_page]]
    position = {int(o["user_id"]): i for i, o in enumerate(order)}
    wanted = shown + ([user_id] if user_id is not None and user_id in position else [])
    full: dict[int, Row] = {}
    if wanted:
        sql = (_ALL_TIME_ROWS if season is None else _SEASON_ROWS) + (
            f" AND r.user_id IN ({', '.join('?' * len(wanted))})"
        )
        full = {int(r["user_id"]): r for r in await db.fetch(sql, (*where, *wanted))}
    rows = tuple(_leader_row(full[u], ranks[position[u]]) for u in shown if u in full)
    me = None
    if user_id is not None and user_id in full:
        me = _leader_row(full[user_id], ranks[position[user_id]])
    return LeaderPage(rows=rows, total=len(order), page=number, pages=pages, me=me)
