"""How an event scores its games and ranks its players: pure functions, written so that anyone can check the
standings by hand.

- **A two-player game** (Bhargage, Cribbage) gives its winner 2 match points, 3 for a lurch (Cribbage: the
  loser short of the lurch line, 91 in a game to 121, 31 in one to 61), the loser 0; its **spread** is the
  winner's margin (the target less the loser's score, as the American Cribbage Congress counts it), plus as
  much again for a lurch, and the same taken from the loser.
- **A Deluxe game** gives each seat points by its finishing place: 6 to the winner, 0 to the last, the places
  between spread evenly and rounded down (4, 2 at a table of four; 3 at a table of three), so tables of
  different sizes weigh alike; its spread is the seat's score less the table's average, rounded down.
- **A bye** counts as a win without a lurch, spread 0.
- **The standings** order by match points, then Buchholz (the sum of the match points of everyone the player
  met; a bye adds nothing), then spread, then rating, then sign-up order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

WIN = 2
LURCH = 3
BYE = WIN
PLACE_TOP = 6  # a Deluxe winner's points


@dataclass(frozen=True)
class Game:
    """One finished game of a match: the seats' players in order, their scores, the target, and the winner
    (a forfeit or an awarded result names the winner with the scores as they stood)."""

    players: tuple[int, ...]
    scores: tuple[int, ...]
    target: int
    winner: int
    lurch_line: int | None = None  # Cribbage: a loser short of it is lurched (None: no lurch in this game)


@dataclass
class Line:
    """One player's line in the standings."""

    player: int
    points: int = 0
    spread: int = 0
    opponents: list[int] = field(default_factory=list)
    byes: int = 0
    buchholz: int = 0


def two_player(game: Game) -> dict[int, tuple[int, int]]:
    """(match points, spread) of each player of a two-player game."""
    (a, b), (sa, sb) = game.players, game.scores
    loser, lost = (b, sb) if game.winner == a else (a, sa)
    margin = max(0, game.target - lost)
    lurched = game.lurch_line is not None and lost < game.lurch_line
    spread = margin * (2 if lurched else 1)
    return {game.winner: (LURCH if lurched else WIN, spread), loser: (0, -spread)}


def by_place(game: Game) -> dict[int, tuple[int, int]]:
    """(match points, spread) of each seat of a Deluxe game, by finishing place (ties share the better
    place, but for the winner's)."""
    size = len(game.players)
    average = sum(game.scores) / size
    out = {}
    for player, score in zip(game.players, game.scores, strict=True):
        place = 1 + sum(1 for other in game.scores if other > score)
        if player != game.winner and place == 1:
            place = 2  # a tie on points: the game's own tie-break named the winner
        points = PLACE_TOP * (size - place) // (size - 1)
        out[player] = (points, int((score - average) // 1))
    return out


def scored(game: Game) -> dict[int, tuple[int, int]]:
    return two_player(game) if len(game.players) == 2 else by_place(game)


def standings(
    players: Sequence[int], games: Iterable[Game], byes: Iterable[int], ratings: Mapping[int, float]
) -> list[Line]:
    """Every player's line, in standings order (see the module's docstring)."""
    lines = {p: Line(p) for p in players}
    for game in games:
        for player, (points, spread) in scored(game).items():
            line = lines[player]
            line.points += points
            line.spread += spread
            line.opponents.extend(o for o in game.players if o != player)
    for player in byes:
        lines[player].points += BYE
        lines[player].byes += 1
    for line in lines.values():
        line.buchholz = sum(lines[o].points for o in line.opponents if o in lines)
    signed = {p: i for i, p in enumerate(players)}
    return sorted(
        lines.values(),
        key=lambda ln: (
            -ln.points,
            -ln.buchholz,
            -ln.spread,
            -ratings.get(ln.player, 0.0),
            signed[ln.player],
        ),
    )


def order(lines: Sequence[Line]) -> list[int]:
    return [line.player for line in lines]
