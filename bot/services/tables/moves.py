"""A move worked out before anything is written (:class:`Step`): the checks a table makes, the engine's
answer, and everything the store must keep in the move's one transaction — the action's text, the game's
end, the meta the move changes, the snapshot it leaves. Once the store has kept it, :func:`take` makes the
live table what the step says.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.games import StaleAction, Table, TableClosed, TableError, TableMeta
from bot.rules.engine import Engine, Result
from bot.store import Finish, Snapshot

PENDING_LIMIT = 400  # events kept for a channel that refuses posts (the oldest go first)

MetaAfter = Callable[[Sequence[Any], int], TableMeta]


@dataclass(frozen=True)
class Step:
    """One move of one seat, worked out: ``text`` is the action as logged at ``seq``, ``at`` its time;
    ``state`` and ``events`` the engine's answer; ``meta`` the table's meta after it; ``result`` and
    ``finish`` the game's end when the move ends it; ``snapshot`` the one it leaves, if one is due."""

    seat: int
    text: str
    seq: int
    at: float
    state: Any
    events: list[Any]
    meta: TableMeta
    result: Result | None
    finish: Finish | None
    snapshot: Snapshot | None


def work_out(
    table: Table,
    seat: int,
    action: Any,
    *,
    expected_seq: int | None,
    meta_after: MetaAfter | None,
    clock: Callable[[], float],
    snapshot: Callable[[Table], Snapshot | None],
) -> Step:
    """Check ``action`` (an engine Action, or its text without the seat prefix) for ``seat`` and apply it
    to a copy of the state; nothing changes. A RulesError from the engine passes through unchanged."""
    if table.status != "active":
        raise TableClosed()
    if not 0 <= seat < len(table.seats):
        raise TableError("tavern.table.no-such-seat")
    if expected_seq is not None and expected_seq != table.seq:
        raise StaleAction()
    module = table.module
    if isinstance(action, str):
        action = module.parse_action(f"{seat} {action.strip()}")
    if getattr(action, "seat", seat) != seat:
        raise TableError("tavern.table.not-your-move")
    new_state, events = module.apply(table.state, action)
    text = module.action_text(action)
    seq = table.seq + 1
    now = clock()
    result = module.final_result(new_state) if module.is_over(new_state) else None
    finish = finish_from(result, now, module, new_state) if result is not None else None
    new_meta = meta_after(events, seq) if meta_after is not None else table.meta
    leaves = snapshot(table) if finish is None else None
    return Step(seat, text, seq, now, new_state, list(events), new_meta, result, finish, leaves)


def take(table: Table, step: Step) -> None:
    """The live table after the store kept its move (the caller takes a finished game out of the live
    tables)."""
    table.state, table.seq, table.last_action_at, table.meta = step.state, step.seq, step.at, step.meta
    if step.snapshot is not None:
        table.snapshot_seq = step.snapshot.seq
    table.pending = [*table.pending, *step.events][-PENDING_LIMIT:]
    if step.finish is not None:
        table.status = "finished"


def finish_from(result: Result, at: float, module: Engine | None = None, state: Any = None) -> Finish:
    """Flatten the engine's Result. Per-hand scores (the "average hand score" and "best hand" stats) come
    from ``Result.hand_scores`` or, failing that, an optional ``module.hand_scores(state)``; both are per
    seat. An engine whose hands have no one score (Bhargage's shows count a hand and a bhargage) says each
    seat's best itself, as ``Result.best_hands``."""
    hands = getattr(result, "hand_scores", None)
    if hands is None and module is not None and hasattr(module, "hand_scores"):
        hands = module.hand_scores(state)
    avgs: tuple[float | None, ...] = ()
    if hands is not None:
        avgs = tuple((sum(h) / len(h)) if len(h) else None for h in hands)
    best: tuple[int | None, ...] = tuple(getattr(result, "best_hands", ()))
    if not best and hands is not None:
        best = tuple(max(h) if len(h) else None for h in hands)
    return Finish(
        scores=tuple(int(s) for s in result.scores),
        winners=tuple(int(w) for w in result.winners),
        muggins=bool(result.muggins),
        how=str(result.how),
        at=at,
        hand_score_avg=avgs,
        left=tuple(bool(x) for x in getattr(result, "left", ())),
        best_hand=tuple(None if b is None else int(b) for b in best),
    )
