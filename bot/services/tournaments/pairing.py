"""Who plays whom: a Swiss round, a round robin's rounds, a knockout bracket, and Bharg Deluxe's tables.

Pure functions of the standings and the history (no store, no clock, no randomness): the same event always
pairs the same way, so a restart, a second process or a player checking by hand finds the same rounds.

- **Swiss**: the players in standings order (``standings.order``). An odd field's bye goes to the
  lowest-placed player who has had none (everyone has had one: the lowest). Then the top unpaired player meets
  the highest placed opponent they have not met yet; when that leaves the rest unpairable, the search goes
  back and tries the next opponent. Only when no pairing without a rematch exists at all does it allow
  rematches, as few as it can.
- **Round robin**: the circle method. The first player stays, the others turn one place a round; an odd field
  adds a bye, whose partner rests that round. Everyone meets everyone once in n−1 rounds (n even).
- **Knockout**: seeded by rating (then by sign-up), the bracket the next power of two, byes to the top seeds;
  seeds meet as 1–16, 8–9, 5–12, 4–13 …, so the top two can meet only in the final.
- **Double knockout**: a player is out after two lost matches. Each round the players without a loss play
  on in bracket order (the upper bracket); those with one loss play among themselves, the last round's
  survivors of the lower bracket against the upper bracket's new losers where the two are as many, else in
  order; an odd player out has a bye. The last of each bracket meet in the final; when the lower bracket's
  player wins it, both have lost once and play it again.
- **Deluxe tables**: players in standings order cut into tables of ``least``–``most`` seats, as few tables as
  possible and their sizes as even as possible, the leaders together.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

Pair = tuple[int, int]


@dataclass(frozen=True)
class Round:
    """One round's pairings (each pair in standings order) and who has the bye (None: nobody)."""

    pairs: tuple[Pair, ...]
    bye: int | None = None


def met(history: Iterable[Pair]) -> set[frozenset[int]]:
    """The pairs of players who have met, as unordered pairs."""
    return {frozenset(pair) for pair in history}


def swiss(order: Sequence[int], history: Iterable[Pair], byes: Iterable[int]) -> Round:
    """The next Swiss round for ``order`` (the players in standings order, best first), given every pair
    that has met and everyone who has had a bye."""
    players = list(order)
    had = set(byes)
    bye: int | None = None
    if len(players) % 2:
        bye = next((p for p in reversed(players) if p not in had), players[-1])
        players.remove(bye)
    seen = met(history)
    for allowed in range(len(players) // 2 + 1):
        pairs = _pair(players, seen, allowed)
        if pairs is not None:
            return Round(tuple(pairs), bye)
    raise AssertionError("a pairing with every rematch allowed always exists")


def _pair(players: list[int], seen: set[frozenset[int]], allowed: int) -> list[Pair] | None:
    """Pair ``players`` top down, each with the highest one left they may meet, going back on a dead end;
    at most ``allowed`` rematches. None when no such pairing exists."""
    if not players:
        return []
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        rematch = frozenset((first, other)) in seen
        if rematch and not allowed:
            continue
        tail = _pair(rest[:i] + rest[i + 1 :], seen, allowed - rematch)
        if tail is not None:
            return [(first, other), *tail]
    return None


def round_robin(players: Sequence[int]) -> list[Round]:
    """Every round of a round robin by the circle method (a bye where the field is odd)."""
    field: list[int | None] = list(players)
    if len(field) % 2:
        field.append(None)
    n = len(field)
    rounds = []
    for _ in range(n - 1):
        pairs: list[Pair] = []
        bye = None
        for i in range(n // 2):
            a, b = field[i], field[n - 1 - i]
            if a is None or b is None:
                bye = b if a is None else a
            else:
                pairs.append((a, b))
        rounds.append(Round(tuple(pairs), bye))
        field = [field[0], field[-1], *field[1:-1]]
    return rounds


def seeds(size: int) -> list[int]:
    """The standard bracket order of seeds 1..size (a power of two): 1, size, …, so that seed s meets seed
    size + 1 − s in the first round and the top seeds meet as late as they can."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


Slot = tuple[int, int | None]  # a knockout match in bracket order: two players, or one with a bye


def knockout(ratings: Mapping[int, float], signed: Sequence[int]) -> tuple[Slot, ...]:
    """The first round of a single knockout, in bracket order: players seeded by rating (ties by sign-up
    order), byes (``(player, None)``) to the top seeds where the field is no power of two."""
    ranked = sorted(signed, key=lambda p: (-ratings.get(p, 0.0), signed.index(p)))
    size = 1
    while size < len(ranked):
        size *= 2
    slots = [ranked[s - 1] if s <= len(ranked) else None for s in seeds(size)]
    out: list[Slot] = []
    for a, b in zip(slots[::2], slots[1::2], strict=True):
        assert a is not None  # the higher seed of a first-round match is always a player
        out.append((a, b))
    return tuple(out)


def next_knockout(winners: Sequence[int]) -> tuple[Slot, ...]:
    """The next knockout round: the previous round's winners (bye or not), in bracket order, two by two."""
    return tuple((a, b) for a, b in zip(winners[::2], winners[1::2], strict=True))


def in_twos(players: Sequence[int]) -> list[tuple[int, ...]]:
    """Players paired in order, an odd one out alone (a bye)."""
    out: list[tuple[int, ...]] = [tuple(players[i : i + 2]) for i in range(0, len(players) - 1, 2)]
    return out + ([(players[-1],)] if len(players) % 2 else [])


def double_knockout(
    upper: Sequence[int], survivors: Sequence[int], dropped: Sequence[int]
) -> list[tuple[int, ...]]:
    """The next double-knockout round: ``upper`` (no loss yet, in bracket order), the lower bracket's
    ``survivors`` of the last round and the upper bracket's new losers (``dropped``), both in match order."""
    lower = [*survivors, *dropped]
    if len(upper) == 1 and len(lower) == 1:
        return [(upper[0], lower[0])]  # the final
    if survivors and len(survivors) == len(dropped):
        crossed: list[tuple[int, ...]] = list(zip(survivors, dropped, strict=True))
        return [*in_twos(upper), *crossed]
    return [*in_twos(upper), *in_twos(lower)]


def tables(order: Sequence[int], least: int, most: int) -> list[tuple[int, ...]]:
    """Deluxe tables for ``order`` (standings order): as few tables of ``least``–``most`` seats as the field
    allows, their sizes as even as possible, the larger ones first, the leaders at the first table."""
    n = len(order)
    if n < least:
        raise ValueError(f"{n} players cannot fill a table of {least}")
    count = -(-n // most)
    while count * least > n:
        count -= 1
    if count < 1 or count * most < n:
        raise ValueError(f"{n} players cannot sit at tables of {least} to {most}")
    base, extra = divmod(n, count)
    sizes = [base + 1] * extra + [base] * (count - extra)
    out, at = [], 0
    for size in sizes:
        out.append(tuple(order[at : at + size]))
        at += size
    return out
