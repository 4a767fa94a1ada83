"""The session core: what a click comes to, how a move is applied, and what it makes visible, decided once.

Discord's table controller (``bot.edge.table``) and the terminal client (``python -m bot play``) both run a
game through here. Each gives a :class:`Ledger` (where a move is applied: the store, or memory only) and a
:class:`Sink` (where what a move makes visible is shown: Discord's channel, DMs and board, or a terminal);
the decisions between — the click switch, the freshness check, which panels to redraw with which notes,
whether the calls go out or the game holds them back, and the publish order — live here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from bot.base.i18n import speaking, t
from bot.base.panel import Panel
from bot.games import Announcement, Aside, Click, Move, StaleAction, Table, TableMeta
from bot.services.tables import TableService
from bot.services.thinking import THINKING
from bot.services.workers import START_SECONDS


@dataclass(frozen=True)
class ShowHand:
    """The seat asked to see its private panel (Show my hand): nothing in the game changes."""


Outcome = ShowHand | Aside | Panel | Move
COACH_SECONDS = 1.0  # the most a hint waits for the expert's weighing, whatever its budget for a move


def resign_move(table: Table, seat: int) -> Move:
    """Resigning (or leaving) as a move: refused at once if the seat can't; its panel says it is done."""
    adapter = table.adapter
    return Move(adapter.resign_action(table, seat), "", done=lambda _t, _e: Panel(adapter.resign_done_text()))


def outcome(table: Table, seat: int, click: Click) -> Outcome:
    """What a seat's click on its panel comes to: its panel shown, a resignation, or the game's own answer
    (``StaleAction`` when the control is out of date, a refusal when the rules say no)."""
    if click.verb == "hand":
        return ShowHand()
    if click.verb == "resign":
        return resign_move(table, seat)
    return table.adapter.click(table, seat, click)


async def coached(aside: Aside, seconds: float, *, hurry: bool = True) -> Aside:
    """A hint as the coach gives it: the expert's weighing when the aside asks for one and it comes within
    ``seconds`` (the expert's budget), else the hard player's — the aside itself, saying so. ``hurry``: an
    interaction waits for the answer (Discord wants it within 3 s), so at most ``COACH_SECONDS`` and never
    for the thinking process to start; the terminal is in no hurry."""
    consult = aside.consult
    if consult is None:
        return aside
    wait, start_wait = (min(seconds, COACH_SECONDS), 0.0) if hurry else (seconds, START_SECONDS)
    thought = await THINKING.decide(consult.weigh, consult.view, consult.seed, wait, start_wait=start_wait)
    if thought.action is not None:
        return consult.finish(thought.action, thought.seconds)
    said = f"{aside.panel.content}\n-# {t('general.coach.hard-weighing')}"
    return replace(aside, panel=replace(aside.panel, content=said), consult=None)


def stale(table: Table, seat: int, move: Move) -> bool:
    """Whether the move was drawn before the table's last change (checked under the table's lock)."""
    return move.token != table.adapter.token(table, seat)


class Ledger(Protocol):
    """Where a move is applied; the caller holds the table's lock."""

    async def apply(
        self, table: Table, seat: int, action: Any, *, expected_seq: int | None = None
    ) -> list[Any]: ...


class StoredLedger:
    """Moves committed to the store, each with its meta marked owed and untold: telling it clears the mark
    (``publish``), so a process stopped in between tells it when it is back."""

    def __init__(self, tables: TableService) -> None:
        self.tables = tables

    async def apply(
        self, table: Table, seat: int, action: Any, *, expected_seq: int | None = None
    ) -> list[Any]:
        def meta_after(events: Sequence[Any], seq: int) -> TableMeta:
            return replace(table.meta, untold_after=table.meta.told(seq - 1), owed=True)

        result = await self.tables.apply_locked(
            table, seat, action, expected_seq=expected_seq, meta_after=meta_after
        )
        return result.events


class MemoryLedger:
    """Moves applied in memory only, as the table service applies them before storing them: for a client
    that keeps nothing (the terminal)."""

    async def apply(
        self, table: Table, seat: int, action: Any, *, expected_seq: int | None = None
    ) -> list[Any]:
        if expected_seq is not None and expected_seq != table.seq:
            raise StaleAction()
        rules = table.adapter.rules
        state, events = rules.apply(table.state, action)
        table.state, table.seq = state, table.seq + 1
        table.pending = [*table.pending, *events]
        if rules.is_over(state):
            table.status = "finished"
        return list(events)


@dataclass(frozen=True)
class Played:
    """A move applied: its events, the action count told before it, and what the pressed panel becomes."""

    events: list[Any]
    told: int
    done: Panel | None


async def play(
    ledger: Ledger, table: Table, seat: int, move: Move, *, expected_seq: int | None = None
) -> Played:
    """Apply a move (the caller holds the table's lock and checked it is fresh)."""
    told = table.meta.told(table.seq)
    events = await ledger.apply(table, seat, move.action, expected_seq=expected_seq)
    done = move.done(table, events) if move.done is not None else None
    return Played(events, told, done)


@dataclass(frozen=True)
class News:
    """What a move makes visible, before any place shows it: the game holds its calls back (``held``: a
    Deluxe turn is told when it passes) or not; ``dealt`` are the seats the game gives a fresh panel (every
    seat at the end, or in a retelling); ``panels`` those to redraw now, each in its player's language with
    the note of what happened on top (never a computer player's, nor the one the click's answer redrew)."""

    events: list[Any]
    held: bool
    dealt: frozenset[int]
    panels: dict[int, Panel]
    channel: str  # the language of the table's public text
    answered: int | None = None


def news(
    table: Table,
    events: Sequence[Any],
    *,
    channel: str,
    language_of: Callable[[int], str],
    answered: int | None = None,
    everyone: bool = False,
) -> News:
    """Decide what ``events`` make visible; ``answered`` is the seat whose live panel the click's own answer
    already redrew, ``everyone`` redraws every person's panel (a retelling: nobody knows which went out)."""
    adapter = table.adapter
    held = adapter.tells_later(table, events)
    told = list(events) if held else list(table.pending)
    fresh = adapter.replaces(table, events)
    with speaking(channel):
        dealt = adapter.redraws(table, told)
    if table.is_over() or everyone:  # every panel: the end (without controls), or a retelling
        dealt = {s: dealt.get(s, "") for s in range(len(table.seats))}
    notes: dict[str, dict[int, str]] = {}
    panels: dict[int, Panel] = {}
    for seat in dealt:
        if table.is_bot(seat) or (seat == answered and not fresh):
            continue
        language = language_of(seat)
        with speaking(language):
            if language not in notes:
                notes[language] = adapter.redraws(table, told)
            panels[seat] = adapter.private_panel(table, seat, notes[language].get(seat, ""))
    return News(list(events), held, frozenset(dealt), panels, channel, answered)


class Sink(Protocol):
    """Where a table's news is shown, step by step in the publish order."""

    async def panel(self, table: Table, seat: int, panel: Panel, *, retire: bool) -> None:
        """Redraw a seat's private panel (``retire``: the panel it replaces loses its controls)."""

    async def calls(self, table: Table, calls: Announcement) -> bool:
        """Tell the calls; True when they are out (or queued to go), so the table's pending events clear."""

    async def board(self, table: Table, news: News) -> None:
        """Bring the board up to date."""

    async def last(self, table: Table, news: News) -> None:
        """Whatever the place does once the rest is out (the summary, the record of what was told)."""


async def publish(sink: Sink, table: Table, told: News) -> None:
    """Show what a move made visible (``news``), in the one publish order: the panels first (when a ping
    arrives, the pinged player's panel is already current), then the calls unless the game holds them
    back, then the board, then the sink's last word."""
    for seat, panel in told.panels.items():
        await sink.panel(table, seat, panel, retire=seat != told.answered)
    if not told.held:
        with speaking(told.channel):
            calls = table.adapter.announce(table, table.pending)
        if await sink.calls(table, calls):
            table.pending = []
    await sink.board(table, told)
    await sink.last(table, told)
