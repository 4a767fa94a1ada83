"""Finished games: results, ratings (the policy is ``bot.ratings``; this only persists it), leaderboards."""

from __future__ import annotations

import json
from typing import Any

import aiosqlite

from bot import ratings as rt
from bot.store.base import SQLiteBase
from bot.store.records import Finish, GameStats, HistoryRow, LeaderRow

# The "average hand score" of a ratings row ``r``: the mean of its player's per-game averages.
HAND_AVG = (
    "(SELECT AVG(x.hand_score_avg) FROM results x WHERE x.guild_id = r.guild_id AND x.game = r.game "
    "AND x.user_id = r.user_id AND x.hand_score_avg IS NOT NULL)"
)


class StatsPart(SQLiteBase):
    async def _finish_in_tx(self, db: aiosqlite.Connection, game_id: int, f: Finish) -> None:
        cur = await db.execute("SELECT game, guild_id, status FROM games WHERE id = ?", (game_id,))
        g = await cur.fetchone()
        if g is None or g["status"] != "active":
            raise ValueError(f"game {game_id} is not active")
        cur = await db.execute(
            "SELECT seat, user_id, name FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
        )
        seats = list(await cur.fetchall())
        await db.execute(
            "UPDATE games SET status = 'finished', finished_at = ?, result = ? WHERE id = ?",
            (f.at, json.dumps(f.to_dict()), game_id),
        )
        game, guild_id, n = g["game"], g["guild_id"], len(seats)
        ranks = rt.ranks_from_result(f.scores, f.winners, f.left)
        hands = list(f.hand_score_avg) + [None] * (n - len(f.hand_score_avg))
        await db.executemany(
            "INSERT INTO results (game_id, guild_id, game, user_id, seat, score, rank, won, muggins, how, "
            "hand_score_avg, players, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                )
                for s in seats
            ],
        )
        # The policy is pure (bot.ratings): read everyone's current rating, persist what it returns.
        current: list[rt.Rating | None] = []
        for s in seats:
            cur = await db.execute(
                "SELECT rating, mu, sigma FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?",
                (guild_id, game, s["user_id"]),
            )
            row = await cur.fetchone()
            current.append(rt.Rating(row["rating"], row["mu"], row["sigma"]) if row else None)
        system = rt.system_for(game, self.rating_systems)
        new = rt.rate_game(system, current, ranks, f.winners)
        for s, rated in zip(seats, new, strict=True):
            won = s["seat"] in f.winners
            await db.execute(
                "INSERT INTO ratings (guild_id, game, user_id, name, rating, mu, sigma, games, wins, losses, "
                "muggins_wins, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id, game, user_id) DO UPDATE SET name = excluded.name, "
                "rating = excluded.rating, mu = excluded.mu, sigma = excluded.sigma, games = games + 1, "
                "wins = wins + excluded.wins, losses = losses + excluded.losses, "
                "muggins_wins = muggins_wins + excluded.muggins_wins, updated_at = excluded.updated_at",
                (
                    guild_id,
                    game,
                    s["user_id"],
                    s["name"],
                    rated.rating,
                    rated.mu,
                    rated.sigma,
                    int(won),
                    int(not won),
                    int(won and f.muggins),
                    f.at,
                ),
            )

    async def rating_of(self, guild_id: int, game: str, user_id: int) -> dict[str, Any] | None:
        row = await self._one(
            "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?", (guild_id, game, user_id)
        )
        return dict(row) if row else None

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderRow]:
        rows = await self._all(
            f"SELECT r.*, {HAND_AVG} AS hand_avg FROM ratings r "
            "WHERE r.guild_id = ? AND r.game = ? AND r.games > 0 "
            "ORDER BY r.rating DESC, r.wins DESC, r.games DESC, r.user_id LIMIT ?",
            (guild_id, game, limit),
        )
        return [
            LeaderRow(
                user_id=r["user_id"],
                name=r["name"],
                games=r["games"],
                wins=r["wins"],
                losses=r["losses"],
                win_pct=100.0 * r["wins"] / r["games"],
                muggins_wins=r["muggins_wins"],
                rating=round(r["rating"]),
                hand_score_avg=r["hand_avg"],
            )
            for r in rows
        ]

    async def stats(self, guild_id: int, user_id: int, *, recent: int = 5) -> dict[str, GameStats]:
        """Per game the user has finished in this guild: totals, rating, average hand score, recent games."""
        out: dict[str, GameStats] = {}
        rows = await self._all(
            f"SELECT r.*, {HAND_AVG} AS hand_avg FROM ratings r WHERE r.guild_id = ? AND r.user_id = ? "
            "ORDER BY r.game",
            (guild_id, user_id),
        )
        for r in rows:
            hist = await self._all(
                "SELECT * FROM results WHERE guild_id = ? AND user_id = ? AND game = ? "
                "ORDER BY finished_at DESC, game_id DESC LIMIT ?",
                (guild_id, user_id, r["game"], recent),
            )
            out[r["game"]] = GameStats(
                game=r["game"],
                games=r["games"],
                wins=r["wins"],
                losses=r["losses"],
                muggins_wins=r["muggins_wins"],
                rating=round(r["rating"]),
                hand_score_avg=r["hand_avg"],
                recent=tuple(
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
                    for h in hist
                ),
            )
        return out
