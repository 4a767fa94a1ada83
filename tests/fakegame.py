"""A tiny game with the same module shape as ``bot.rules.bhargage`` / ``deluxe`` (an engine, as
``bot.rules.engine.Engine`` says), for service-layer tests.

"Race": seats take turns adding 1–3 to their own total; the first to reach ``target`` wins. The starting seat
is drawn from the seed, so replay must reproduce it. Reaching the target exactly with a 3 is a "muggins" win,
which gives the tests a way to exercise that flag. ``"{seat} resign"`` ends the game as a forfeit.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.rules.errors import BadActionText, GameOver, IllegalAction, NotYourTurn, RulesError


@dataclass(frozen=True)
class Options:
    target: int = 10

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Options:
        return cls(target=int(d.get("target", 10)))


@dataclass(frozen=True)
class Add:
    seat: int
    amount: int


@dataclass(frozen=True)
class Resign:
    seat: int


Action = Add | Resign


@dataclass(frozen=True)
class State:
    players: int
    options: Options
    totals: tuple[int, ...]
    turn: int
    over: bool = False
    winners: tuple[int, ...] = ()
    muggins: bool = False
    how: str = ""
    hand_scores: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class Result:
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    muggins: bool
    how: str
    hand_scores: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class GameStarted:
    first: int


@dataclass(frozen=True)
class Added:
    seat: int
    amount: int
    total: int


@dataclass(frozen=True)
class Resigned:
    seat: int


@dataclass(frozen=True)
class GameEnded:
    winners: tuple[int, ...]
    how: str


def start(seed: int, players: int, options: Options) -> tuple[State, list[object]]:
    first = random.Random(seed).randrange(players)
    state = State(
        players=players,
        options=options,
        totals=(0,) * players,
        turn=first,
        hand_scores=((),) * players,
    )
    return state, [GameStarted(first)]


def legal_actions(state: State, seat: int) -> list[Action]:
    if state.over or seat != state.turn:
        return []
    return [Add(seat, n) for n in (1, 2, 3)] + [Resign(seat)]


def apply(state: State, action: Action) -> tuple[State, list[object]]:
    if state.over:
        raise GameOver("The game is over.")
    if isinstance(action, Resign):
        others = tuple(s for s in range(state.players) if s != action.seat)
        ev: list[object] = [Resigned(action.seat), GameEnded(others, "forfeit")]
        return replace(state, over=True, winners=others, how="forfeit"), ev
    if action.seat != state.turn:
        raise NotYourTurn("It is not your turn.")
    if action.amount not in (1, 2, 3):
        raise IllegalAction("tavern.table.not-your-move")  # (a catalog message: a plug-in game has its own)
    totals = list(state.totals)
    totals[action.seat] += action.amount
    hands = list(state.hand_scores)
    hands[action.seat] = (*hands[action.seat], action.amount)
    events: list[object] = [Added(action.seat, action.amount, totals[action.seat])]
    new = replace(
        state,
        totals=tuple(totals),
        turn=(state.turn + 1) % state.players,
        hand_scores=tuple(hands),
    )
    if totals[action.seat] >= state.options.target:
        muggins = action.amount == 3 and totals[action.seat] == state.options.target
        new = replace(new, over=True, winners=(action.seat,), muggins=muggins, how="target")
        events.append(GameEnded((action.seat,), "target"))
    return new, events


def check(state: State, action: Action) -> None:
    apply(state, action)  # the state is immutable: this raises what apply would, and changes nothing


def can(state: State, action: Action) -> bool:
    try:
        check(state, action)
    except RulesError:
        return False
    return True


def parse_action(text: str) -> Action:
    parts = text.split()
    try:
        seat = int(parts[0])
        if parts[1:] == ["resign"]:
            return Resign(seat)
        if len(parts) == 3 and parts[1] == "add":
            return Add(seat, int(parts[2]))
    except (IndexError, ValueError):
        pass
    raise BadActionText(f"I don't understand “{text}”.")


def action_text(action: Action) -> str:
    if isinstance(action, Resign):
        return f"{action.seat} resign"
    return f"{action.seat} add {action.amount}"


def waiting_for(state: State) -> tuple[int, ...]:
    return () if state.over else (state.turn,)


def is_over(state: State) -> bool:
    return state.over


def final_result(state: State) -> Result:
    return Result(state.totals, state.winners, state.muggins, state.how, state.hand_scores)


def view(state: State, seat: int) -> State:
    return state


def replay(seed: int, players: int, options: Options, texts: Sequence[str]) -> State:
    state, _ = start(seed, players, options)
    for text in texts:
        state, _ = apply(state, parse_action(text))
    return state


# ------------------------------------------------------------------------------------------- its adapter
# Everything the shared table code needs to host "Race" on Discord: no change to bot/ or cogs/ for it. The
# hooks it leaves out keep their defaults (the panels redrawn after a move are those of the seat to move; a
# claim against an idle seat resigns it).

from bot.base.panel import Button, Panel  # noqa: E402
from bot.base.refusals import UserFacingError  # noqa: E402
from bot.games import Announcement, Click, GameAdapter, Move  # noqa: E402


class RaceAdapter(GameAdapter):
    name = "race"
    title = "Race"
    rules = sys.modules[__name__]
    command = "/race"
    min_players = 2
    max_players = 4
    challenge = False
    gathers = True

    def options_text(self, options: Any) -> str:
        return f"to {options.target}"

    def lobby_panel(self, lobby: Any) -> Panel:
        names = ", ".join(lobby.names.get(m, str(m)) for m in lobby.members)
        text = f"**Race** {self.options_text(self.options(lobby.options))}: {names} ({lobby.status})"
        if lobby.status != "open":
            return Panel(content=text)
        return Panel(content=text, controls=(Button("Join", "join"), Button("Start", "start")))

    def board(self, table: Any) -> Panel:
        totals = ", ".join(f"{n} {t}" for n, t in zip(table.names, table.state.totals, strict=True))
        return Panel(content=f"**Race board** {totals}. {self.waiting_text(table)}")

    def seat_panel(self, table: Any, seat: int, note: str = "") -> Panel:
        state: State = table.state
        mine = f"Race: you have {state.totals[seat]}."
        if state.over or state.turn != seat:
            return Panel(content=mine).with_note(note)
        token = self.token(table, seat)
        adds = tuple(Button(f"Add {n}", "add", token=token, arg=str(n)) for n in (1, 2, 3))
        return Panel(content=mine, controls=adds).with_note(note)

    def click(self, table: Any, seat: int, click: Click) -> Move | Panel:
        if click.verb != "add" or click.arg not in ("1", "2", "3"):
            raise UserFacingError("tavern.out-of-date")
        return Move(Add(seat, int(click.arg)), click.token, done=lambda t, e: Panel(content="Added."))

    def announce(self, table: Any, events: Sequence[Any]) -> Announcement:
        lines = [f"{table.names[e.seat]} adds {e.amount} → {e.total}" for e in events if isinstance(e, Added)]
        out = Announcement(messages=["\n".join(lines)] if lines else [])
        if not table.is_over():
            out.ping_seats = (table.state.turn,)
            out.ping = f"<@{table.user_ids[table.state.turn]}>, your race turn."
        return out

    def waiting_text(self, table: Any) -> str:
        state: State = table.state
        return "Race over." if state.over else f"Waiting for {table.names[state.turn]}."

    def resign_action(self, table: Any, seat: int) -> Any:
        return Resign(seat)

    def resign_question(self, table: Any, seat: int) -> str:
        return "Give up the race?"

    def claim_offer(self, table: Any, idle: int, minutes: int) -> tuple[str, str]:
        return f"{table.names[idle]} is idle ({minutes} min): claim the race?", "Claim the race"

    def claimed_text(self, table: Any, idle: int, by: str) -> str:
        return f"{by} claimed the race from {table.names[idle]}."


ADAPTER = RaceAdapter()
