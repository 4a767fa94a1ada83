"""A player's profile in one server (``/stats``): per game their totals, rating and its recent course, best
hand; the person they met most; their games against the bot. One consistent read of a few queries, however
many games they finished.
"""

from __future__ import annotations

from bot.store._base import Conn, Row, StoreBase
from bot.store.records import GameProfile, Opponent, Profile
from bot.store.stats import bot_tally

TREND_GAMES = 20  # the rated games a profile's trend line follows, the latest ones

# The games that count for a favourite opponent: against people only (a table with a bot seat is unrated,
# and the bot is nobody's favourite), as a condition on ``results r``.
_NO_BOT = "NOT EXISTS (SELECT 1 FROM results b WHERE b.game_id = r.game_id AND b.user_id < 0)"


async def _latest_name(db: Conn, guild_id: int, user_id: int) -> str:
    """The name the user last finished a game under in this guild ("" if none)."""
    row = await db.fetchrow(
        "SELECT s.name FROM results r JOIN seats s ON s.game_id = r.game_id AND s.seat = r.seat "
        "WHERE r.guild_id = ? AND r.user_id = ? ORDER BY r.finished_at DESC, r.game_id DESC LIMIT 1",
        (guild_id, user_id),
    )
    return str(row["name"]) if row else ""


async def _favourite(db: Conn, guild_id: int, user_id: int) -> Opponent | None:
    """The person the user finished most games against here (ties: the one met last, then the lowest id)."""
    row = await db.fetchrow(
        "SELECT o.user_id, COUNT(*) AS games, SUM(r.won) AS wins, MAX(r.finished_at) AS last "
        "FROM results r JOIN results o ON o.game_id = r.game_id AND o.user_id <> r.user_id "
        f"WHERE r.guild_id = ? AND r.user_id = ? AND o.user_id > 0 AND {_NO_BOT} "
        "GROUP BY o.user_id ORDER BY games DESC, last DESC, o.user_id LIMIT 1",
        (guild_id, user_id),
    )
    if row is None:
        return None
    name = await _latest_name(db, guild_id, row["user_id"])
    return Opponent(int(row["user_id"]), name, int(row["games"]), int(row["wins"] or 0))


def _trends(rows: list[Row]) -> dict[str, tuple[float, ...]]:
    """Per game, the rating before the oldest of the rows and after each (rows newest first per game)."""
    by_game: dict[str, list[Row]] = {}
    for r in rows:
        by_game.setdefault(r["game"], []).append(r)
    out: dict[str, tuple[float, ...]] = {}
    for game, newest_first in by_game.items():
        oldest_first = newest_first[::-1]
        start = oldest_first[0]["rating_before"]
        points = [float(r["rating_after"]) for r in oldest_first]
        out[game] = ((float(start),) if start is not None else ()) + tuple(points)
    return out


class ProfilesMixin(StoreBase):
    async def profile(self, guild_id: int, user_id: int, *, trend: int = TREND_GAMES) -> Profile:
        """The user's profile in this guild (``Profile.empty`` when they finished no game here)."""
        async with self._read() as db:
            rated = await db.fetch(
                "SELECT game, games, wins, losses, muggins_wins, rating FROM ratings "
                "WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            )
            played = await db.fetch(
                "SELECT game, MAX(best_hand) AS best, AVG(hand_score_avg) AS hand_avg FROM results "
                "WHERE guild_id = ? AND user_id = ? GROUP BY game",
                (guild_id, user_id),
            )
            course = await db.fetch(
                "SELECT * FROM (SELECT game, rating_before, rating_after, ROW_NUMBER() OVER "
                "(PARTITION BY game ORDER BY finished_at DESC, game_id DESC) AS n FROM results "
                "WHERE guild_id = ? AND user_id = ? AND rating_after IS NOT NULL) AS h "
                "WHERE h.n <= ? ORDER BY h.game, h.n",
                (guild_id, user_id, trend),
            )
            name = await _latest_name(db, guild_id, user_id)
            favourite = await _favourite(db, guild_id, user_id)
            against_bot = await bot_tally(db, guild_id, user_id)
        totals = {r["game"]: r for r in rated}
        trends = _trends(course)
        games = []
        for p in sorted(played, key=lambda r: str(r["game"])):
            t = totals.get(p["game"])
            games.append(
                GameProfile(
                    game=p["game"],
                    games=int(t["games"]) if t else 0,
                    wins=int(t["wins"]) if t else 0,
                    losses=int(t["losses"]) if t else 0,
                    muggins_wins=int(t["muggins_wins"]) if t else 0,
                    rating=round(t["rating"]) if t else None,
                    trend=trends.get(p["game"], ()),
                    best_hand=None if p["best"] is None else int(p["best"]),
                    hand_score_avg=None if p["hand_avg"] is None else float(p["hand_avg"]),
                )
            )
        return Profile(user_id, name, tuple(games), favourite, tuple(against_bot))
