"""Rating maths, kept pure so it can be tested without a database; ``Store`` calls these when a game ends.

- **Bhargage (2 players): Elo**, K = 32, everyone starts at 1500. A muggins win counts as an ordinary win
  for rating: the rules treat it as a stake multiplier, not as a stronger result, and the leaderboard shows
  muggins wins in their own column instead.
- **Bharg Deluxe (2–6 players): openskill Plackett–Luce** on the final ranks. We store ``mu``/``sigma`` and
  show ``display_openskill(mu, sigma) = round(60 · (mu − 3·sigma))``: the conservative estimate (the
  ordinal), scaled so that the model's average player (mu = 25), once well known, shows as 1500 — the same
  number an average Elo player has, which makes the two boards read alike. Newcomers start at 0 and climb
  as sigma shrinks, so one lucky win does not put a stranger on top of the board.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from openskill.models import PlackettLuce

RatingSystem = Literal["elo", "openskill"]

ELO_K = 32.0
ELO_START = 1500.0
OS_SCALE = 1500.0 / 25.0

# Cribbage is played by 2, 3 or 4 (partnerships): one system for all its tables, openskill on the final ranks
# (partners share their side's rank), since Elo rates two players only.
DEFAULT_SYSTEMS: dict[str, RatingSystem] = {"bhargage": "elo", "deluxe": "openskill", "cribbage": "openskill"}

_MODEL = PlackettLuce()
OS_MU: float = float(_MODEL.mu)
OS_SIGMA: float = float(_MODEL.sigma)


@dataclass(frozen=True)
class Rating:
    """One player's rating in one game: the number shown, and openskill's mu/sigma (None under Elo)."""

    rating: float
    mu: float | None = None
    sigma: float | None = None


def elo_expected(ra: float, rb: float) -> float:
    """Probability-like expectation that A beats B."""
    return 1.0 / (1.0 + float(10.0 ** ((rb - ra) / 400.0)))


def elo_update(ra: float, rb: float, score_a: float, k: float = ELO_K) -> tuple[float, float]:
    """New (ra, rb) after A scored ``score_a`` (1 win, 0.5 draw, 0 loss); the sum is conserved."""
    delta = k * (score_a - elo_expected(ra, rb))
    return ra + delta, rb - delta


def ranks_from_result(scores: Sequence[int], winners: Sequence[int], left: Sequence[bool] = ()) -> list[int]:
    """Final rank per seat (1 = best, ties share): winners first, then those who stayed, then those who
    left the game (by score within each group).

    Winners come first even if a loser has more points (a forfeit can end a game with the leader resigning);
    a seat that left ranks below every seat that played on, whatever its score when it left.
    """
    gone = list(left) + [False] * (len(scores) - len(left))
    keys = [(0 if seat in winners else 2 if gone[seat] else 1, -scores[seat]) for seat in range(len(scores))]
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def openskill_update(
    ratings: Sequence[tuple[float, float]], ranks: Sequence[int]
) -> list[tuple[float, float]]:
    """New (mu, sigma) per player, one team per player, lower rank = better."""
    teams = [[_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    rated = _MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [(float(team[0].mu), float(team[0].sigma)) for team in rated]


def display_openskill(mu: float, sigma: float) -> int:
    """The number shown on the board for an openskill rating (see module docstring)."""
    return round(OS_SCALE * (mu - 3.0 * sigma))


def system_for(game: str, systems: Mapping[str, RatingSystem] = DEFAULT_SYSTEMS) -> RatingSystem:
    """The rating system configured for ``game``; a game nobody configured is rated with openskill."""
    return systems.get(game, "openskill")


def newcomer(system: RatingSystem, players: int) -> float:
    """The rating shown for a player before their first game of a system (as ``rate_game`` starts them)."""
    return ELO_START if system == "elo" and players == 2 else float(display_openskill(OS_MU, OS_SIGMA))


def rate_game(
    system: RatingSystem, current: Sequence[Rating | None], ranks: Sequence[int], winners: Sequence[int]
) -> list[Rating]:
    """New rating per seat after a finished game.

    ``current`` holds each seat's rating before the game (``None`` for a newcomer), ``ranks`` the final rank
    per seat (see ``ranks_from_result``) and ``winners`` the winning seats. Elo applies only to exactly two
    players (any other count falls back to openskill): A scores 1 if only A won, 0 if only B won, else 0.5,
    and a newcomer starts at ``ELO_START``. Openskill rates by ``ranks``, starting newcomers (and players
    with no ``mu``/``sigma`` yet) at ``OS_MU``/``OS_SIGMA``, and shows ``display_openskill(mu, sigma)``.
    """
    if system == "elo" and len(current) == 2:
        ra, rb = (r.rating if r is not None else ELO_START for r in current)
        a, b = (seat in winners for seat in range(2))
        score_a = 1.0 if a and not b else 0.0 if b and not a else 0.5
        new_a, new_b = elo_update(ra, rb, score_a)
        return [Rating(new_a), Rating(new_b)]
    pairs = [
        (
            r.mu if r is not None and r.mu is not None else OS_MU,
            r.sigma if r is not None and r.sigma is not None else OS_SIGMA,
        )
        for r in current
    ]
    return [
        Rating(float(display_openskill(mu, sigma)), mu, sigma) for mu, sigma in openskill_update(pairs, ranks)
    ]
