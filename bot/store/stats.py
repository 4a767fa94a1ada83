"""Results and ratings: writing them when a game finishes, and the leaderboard and per-player queries.

The rating policy itself lives in ``bot.base.ratings`` (pure functions); this module reads the current
rows, asks ``rate_game`` for the new ratings, and writes them. The games/wins/losses/muggins_wins
counters are kept in SQL.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from bot.base import ratings as rt
from bot.games.seats import is_bot, level_of
from bot.store import boards
from bot.store._base import Conn, Row, StoreBase
from bot.store.records import (
    BotRecord,
    Finish,
    GameStats,
    HistoryRow,
    LeaderPage,
    LeaderRow,
    PastGame,
    PastSeat,
    Season,
)

# The player's average hand score in one game, over the finished games that record one (Deluxe), as a
# column of a query on ``ratings r``.
_HAND_AVG = (
    "(SELECT AVG(x.hand_score_avg) FROM results x WHERE x.guild_id = r.guild_id AND x.game = r.game "
    "AND x.user_id = r.user_id AND x.hand_score_avg IS NOT NULL) AS hand_avg"
)


async def record_finish(
    db: Conn, game_id: int, game: str, guild_id: int, f: Finish, system: rt.RatingSystem
) -> None:
    """Write the results rows, the new all-time ratings and the new ratings of the season the finish counts
    in (``bot.store.boards``) of a game being closed, inside the caller's transaction."""
    seats = await db.fetch(
        "SELECT seat, user_id, name FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
    )
    ranks = rt.ranks_from_result(f.scores, f.winners, f.left)
    await _write_results(db, game_id, game, guild_id, f, seats, ranks)
    season = await boards.season_of(db, guild_id, f.at)
    await db.execute("UPDATE results SET season = ? WHERE game_id = ?", (season, game_id))
    if any(is_bot(s["user_id"]) for s in seats):
        return  # recorded, but a game against the bot moves no rating and no leaderboard
    changes = await boards.write_ratings(db, (guild_id, game, None), f, seats, ranks, system)
    for s, (before, after) in zip(seats, changes, strict=True):  # each result keeps its rating change
        await db.execute(
            "UPDATE results SET rating_before = ?, rating_after = ? WHERE game_id = ? AND seat = ?",
            (before.rating if before else rt.newcomer(system, len(seats)), after.rating, game_id, s["seat"]),
        )
    await boards.write_ratings(db, (guild_id, game, season), f, seats, ranks, system)


async def _write_results(
    db: Conn, game_id: int, game: str, guild_id: int, f: Finish, seats: Sequence[Row], ranks: Sequence[int]
) -> None:
    """One results row per seat."""
    n = len(seats)
    hands = list(f.hand_score_avg) + [None] * (n - len(f.hand_score_avg))
    best = list(f.best_hand) + [None] * (n - len(f.best_hand))
    await db.executemany(
        "INSERT INTO results (game_id, guild_id, game, user_id, seat, score, rank, won, muggins, how, "
        "hand_score_avg, players, finished_at, best_hand) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                game_id,
                guild_id,
                game,
                s["user_id"],
                s["seat"],
                f.scores[s["seat"]],
                ranks[s["seat"]],
                int(s["seat"] in f.winners),
                int(f.muggins and s["seat"] in f.winners),
                f.how,
                hands[s["seat"]],
                n,
                f.at,
                best[s["seat"]],
            )
            for s in seats
        ],
    )


def _seen_by(viewer: int, channels: Collection[int]) -> tuple[str, tuple[int, ...]]:
    """The condition on a result ``r`` that its game was played in one of ``channels`` or at ``viewer``'s
    own seat, and its parameters."""
    inside = ", ".join("?" * len(channels)) or "NULL"
    sql = (
        f"(EXISTS (SELECT 1 FROM games c WHERE c.id = r.game_id AND c.channel_id IN ({inside}))"
        " OR EXISTS (SELECT 1 FROM seats v WHERE v.game_id = r.game_id AND v.user_id = ?))"
    )
    return sql, (*sorted(channels), viewer)


class StatsMixin(StoreBase):
    async def rating_of(self, guild_id: int, game: str, user_id: int) -> dict[str, Any] | None:
        """The player's ratings row in this guild and game, as a dict; ``None`` if they never finished one."""
        row = await self._one(
            "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?", (guild_id, game, user_id)
        )
        return dict(row) if row else None

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderRow]:
        """The best ``limit`` players of a game in a guild, all time: the all-time board's first page."""
        return list((await self.leaderboard_page(guild_id, game, None, page=1, per_page=limit)).rows)

    async def leaderboard_page(
        self,
        guild_id: int,
        game: str,
        season: int | None,
        *,
        page: int,
        per_page: int,
        user_id: int | None = None,
        floor: int | None = None,
    ) -> LeaderPage:
        """A page of a board (one season's, or the all-time one when ``season`` is None) in one read; see
        ``Store.leaderboard_page``."""
        async with self._read() as db:
            return await boards.page(db, (guild_id, game, season), page, per_page, user_id, floor)

    async def seasons(self, guild_id: int, now: float) -> list[Season]:
        """Every season of the server, newest first, the current one first (``Store.seasons``)."""
        async with self._read() as db:
            return await boards.listing(db, guild_id, now)

    async def close_season(self, guild_id: int, season: int, at: float) -> Season | None:
        """Close the current season and open the next (``Store.close_season``)."""
        async with self._tx() as db:
            return await boards.close(db, guild_id, season, at)

    async def stats(self, guild_id: int, user_id: int, *, recent: int = 5) -> dict[str, GameStats]:
        """Per game the user has finished in this guild: totals, rating, average hand score, recent games."""
        async with self._read() as db:
            rows = await db.fetch(
                f"SELECT r.*, {_HAND_AVG} FROM ratings r WHERE r.guild_id = ? AND r.user_id = ? "
                "ORDER BY r.game",
                (guild_id, user_id),
            )
            history = await db.fetch(
                "SELECT * FROM (SELECT x.*, ROW_NUMBER() OVER "
                "(PARTITION BY x.game ORDER BY x.finished_at DESC, x.game_id DESC) AS n "
                "FROM results x WHERE x.guild_id = ? AND x.user_id = ? AND NOT EXISTS "
                "(SELECT 1 FROM results b WHERE b.game_id = x.game_id AND b.user_id < 0)) AS h "
                "WHERE h.n <= ? ORDER BY h.game, h.n",
                (guild_id, user_id, recent),
            )
        recent_of: dict[str, list[HistoryRow]] = {}
        for h in history:
            recent_of.setdefault(h["game"], []).append(
                HistoryRow(
                    game_id=h["game_id"],
                    game=h["game"],
                    finished_at=h["finished_at"],
                    seat=h["seat"],
                    score=h["score"],
                    rank=h["rank"],
                    players=h["players"],
                    won=bool(h["won"]),
                    muggins=bool(h["muggins"]),
                    how=h["how"],
                )
            )
        return {
            r["game"]: GameStats(
                game=r["game"],
                games=r["games"],
                wins=r["wins"],
                losses=r["losses"],
                muggins_wins=r["muggins_wins"],
                rating=round(r["rating"]),
                hand_score_avg=r["hand_avg"],
                recent=tuple(recent_of.get(r["game"], ())),
            )
            for r in rows
        }

    async def history(
        self,
        guild_id: int,
        user_id: int,
        game: str | None,
        *,
        offset: int,
        limit: int,
        seen_by: tuple[int, Collection[int]] | None = None,
    ) -> tuple[list[PastGame], int]:
        """The user's finished games in this guild (one game, or all), newest first: ``limit`` of them from
        ``offset``, with every seat's name and score, and how many there are in all; ``seen_by`` (viewer,
        channel ids): only those played in these channels or at the viewer's own seat, so that the pages and
        the count leave out what the viewer may not see."""
        where = "r.guild_id = ? AND r.user_id = ?" + (" AND r.game = ?" if game else "")
        params: tuple[Any, ...] = (guild_id, user_id, game) if game else (guild_id, user_id)
        if seen_by is not None:
            seen, seen_params = _seen_by(*seen_by)
            where, params = f"{where} AND {seen}", (*params, *seen_params)
        async with self._read() as db:
            total = await db.fetchrow(f"SELECT COUNT(*) AS n FROM results r WHERE {where}", params)
            rows = await db.fetch(
                "SELECT r.game_id, r.game, r.finished_at, r.won, r.score, r.rank, r.how, g.channel_id, "
                "r.rating_before, r.rating_after, "
                f"m.data AS meta FROM results r JOIN games g ON g.id = r.game_id "
                f"LEFT JOIN table_meta m ON m.game_id = r.game_id WHERE {where} "
                "ORDER BY r.finished_at DESC, r.game_id DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            )
            ids = [r["game_id"] for r in rows]
            seats = await db.fetch(
                "SELECT s.game_id, s.seat, s.user_id, s.name, x.score FROM seats s LEFT JOIN results x "
                "ON x.game_id = s.game_id AND x.seat = s.seat "
                f"WHERE s.game_id IN ({', '.join('?' * len(ids)) or 'NULL'}) ORDER BY s.game_id, s.seat",
                tuple(ids),
            )
        by_game: dict[int, list[PastSeat]] = {}
        for s in seats:
            by_game.setdefault(s["game_id"], []).append(PastSeat(s["user_id"], s["name"], s["score"]))
        out = [_past_game(r, tuple(by_game.get(r["game_id"], ()))) for r in rows]
        return out, int(total["n"]) if total else 0

    async def bot_records(self, guild_id: int, user_id: int) -> list[BotRecord]:
        """The user's finished games against the bot in this guild, per game and level (the strongest bot at
        the table), apart from the human leaderboard."""
        async with self._read() as db:
            return await bot_tally(db, guild_id, user_id)


async def bot_tally(db: Conn, guild_id: int, user_id: int) -> list[BotRecord]:
    """``bot_records`` inside a read of the caller's (the profile reads it with the rest)."""
    rows = await db.fetch(
        "SELECT t.game, t.won, t.bot FROM (SELECT r.game, r.won, (SELECT MIN(b.user_id) FROM results b "
        "WHERE b.game_id = r.game_id AND b.user_id < 0) AS bot FROM results r "
        "WHERE r.guild_id = ? AND r.user_id = ?) AS t WHERE t.bot IS NOT NULL",
        (guild_id, user_id),
    )
    tally: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        counts = tally.setdefault((r["game"], level_of(r["bot"])), [0, 0])
        counts[0] += 1
        counts[1] += int(r["won"])
    return [
        BotRecord(game=game, level=level, games=n, wins=won)
        for (game, level), (n, won) in sorted(tally.items())
    ]


def _past_game(row: Any, seats: tuple[PastSeat, ...]) -> PastGame:
    """One row of ``history``'s page (a result joined with its game and its table's meta), with its seats."""
    meta = json.loads(row["meta"]) if row["meta"] else {}
    thread = meta.get("thread_id") if isinstance(meta, dict) else None
    return PastGame(
        game_id=row["game_id"],
        game=row["game"],
        finished_at=row["finished_at"],
        won=bool(row["won"]),
        score=row["score"],
        rank=row["rank"],
        how=row["how"],
        channel_id=row["channel_id"],
        thread_id=int(thread) if isinstance(thread, int) else None,
        seats=seats,
        rating_before=row["rating_before"],
        rating_after=row["rating_after"],
    )
