"""Ratings as players read them: one friendly scale on which a new player stands at ``START`` in every game,
whatever the store keeps (Elo for Bhargage, newcomers at 1500; 60·(mu − 3·sigma) for Deluxe's openskill,
newcomers at 0). Display only: the leaderboard and the profile card both show this scale.
"""

from __future__ import annotations

START = 1000
STORED_START = {"bhargage": 1500, "deluxe": 0}
PROVISIONAL_GAMES = 5  # fewer rated games than this: the number is marked provisional ("?")


def shown_value(game: str, rating: float) -> int:
    """A stored rating on the shown scale, never below 0."""
    return max(0, round(rating) - STORED_START.get(game, 0) + START)


def shown_rating(game: str, rating: int, games: int) -> str:
    """The stored rating on the shown scale (never below 0), with "?" while it rests on few games."""
    value = shown_value(game, rating)
    return f"{value}?" if games < PROVISIONAL_GAMES else str(value)
