"""A stored game, step by step, as its table told it: the one walk through a game's log that the replay
stepper (``/tavern replay``), the game record (``bot.services.game_record``) and the terminal's replay share.

A game is fully determined by its seed, players, options and actions, so a replay is the log applied again
from the start. A *step* is what the channel was told at once: one action, or a whole Deluxe turn (the
actions the game tells later, ``GameAdapter.tells_later``, wait for the one that closes the turn). Each step
keeps the state after it, so showing step k is one lookup; what it shows is only what the table showed
everyone (the board and the calls), never a hidden hand.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.base.recent import keep_newest
from bot.games import GameAdapter, Seat, Table

CACHED_GAMES = 32  # replays kept (by game and version): a stepper's presses replay nothing again


@dataclass(frozen=True)
class Step:
    """What the table told at once: the events of actions ``first``..``last`` (0..0: the deal that opened
    the game), the state after them, the hand they belong to (1 for the first) and whether they dealt it."""

    first: int
    last: int
    events: tuple[Any, ...]
    state: Any
    hand: int
    deals: bool


@dataclass(frozen=True)
class Replay:
    """A game's steps, with the table they are shown at (its seats, options and ids)."""

    table: Table
    steps: tuple[Step, ...]
    finished: bool  # the log ends the game (else the replay stops at the last complete step)

    def at(self, index: int) -> Table:
        """The table as it stood after step ``index`` (clamped to the steps there are)."""
        step = self.steps[max(0, min(index, len(self.steps) - 1))]
        over = step is self.steps[-1] and self.finished
        return replace(self.table, state=step.state, seq=step.last, status="finished" if over else "active")

    def hand_starts(self) -> list[int]:
        """The indexes of the steps that deal a hand (the first step always begins one)."""
        return [0, *(i for i, s in enumerate(self.steps) if s.deals and i > 0)]

    def targets(self, index: int) -> dict[str, int]:
        """Where each stepper leads from step ``index`` (first, hand-, prev, next, hand+, last): previous
        hand is the start of this hand (or, from there, of the one before); next hand the start of the next
        (or the last step). The Discord stepper and the replay page share it."""
        last = len(self.steps) - 1
        starts = self.hand_starts()
        before = [s for s in starts if s < index]
        after = [s for s in starts if s > index]
        return {
            "first": 0,
            "hand-": before[-1] if before else 0,
            "prev": max(0, index - 1),
            "next": min(last, index + 1),
            "hand+": after[0] if after else last,
            "last": last,
        }


def walk(
    adapter: GameAdapter,
    table: Table,
    texts: Sequence[str],
) -> Replay:
    """Replay ``texts`` (the logged actions, in order) from the start of ``table``'s game (its seed, seats and
    options; its state is ignored). A log that stops mid-turn (a live game) ends at the last complete step:
    what the table had told."""
    rules = adapter.rules
    state, opening = rules.start(table.seed, len(table.seats), table.options)
    at = replace(table, state=state, seq=0, status="active", pending=[])
    hand = 1
    steps = [Step(0, 0, tuple(opening), state, hand, True)]
    held: list[Any] = []
    first = 1
    for seq, text in enumerate(texts, 1):
        state, events = rules.apply(state, rules.parse_action(text))
        at = replace(at, state=state, seq=seq)
        held.extend(events)
        if adapter.tells_later(at, events) and not rules.is_over(state):
            continue
        deals = adapter.replaces(at, held)
        hand += int(deals)
        steps.append(Step(first, seq, tuple(held), state, hand, deals))
        held, first = [], seq + 1
    return Replay(table, tuple(steps), finished=bool(rules.is_over(steps[-1].state)))


class Replays:
    """Recent replays by (game id, version): pressing through a stepper costs one lookup a press."""

    def __init__(self, size: int = CACHED_GAMES) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[int, int], Replay] = OrderedDict()

    def get(self, game_id: int, version: int) -> Replay | None:
        found = self._kept.get((game_id, version))
        if found is not None:
            self._kept.move_to_end((game_id, version))
        return found

    def put(self, game_id: int, version: int, replay: Replay) -> None:
        keep_newest(self._kept, (game_id, version), replay, self.size)


def table_of(adapter: GameAdapter, record: Any) -> Table:
    """A stored game (``GameRecord``) as the table its replay starts from."""
    return Table(
        id=record.id,
        game=record.game,
        adapter=adapter,
        guild_id=record.guild_id,
        channel_id=record.channel_id,
        seed=record.seed,
        options=adapter.options(record.options),
        seats=tuple(Seat(s.user_id, s.name) for s in record.seats),
        state=None,
        seq=0,
        created_at=record.created_at,
        last_action_at=record.finished_at or record.created_at,
        status=record.status,
    )


def of_record(adapter: GameAdapter, record: Any) -> Replay:
    """A stored game (``GameRecord``) walked from its start: its table, then every logged action."""
    return walk(adapter, table_of(adapter, record), [a.text for a in record.actions])
