"""A move's write to the store and what the live table becomes after it, whatever the store answered: the
one transaction of a move (its action, the meta it changes, a snapshot now and then), a conflict with
another process's write, a fault after which the store is believed over the error; and a meta change
outside a move, checked against the version this copy was read at."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import replace
from typing import Any

from bot.base import metrics
from bot.games import MoveConflict, MoveNotSaved, Table, TableError, TableMeta
from bot.services.tables.index import TableIndex
from bot.services.tables.loading import TableLoader
from bot.services.tables.moves import Step, take
from bot.store import ActionConflict, NewAction, Store, VersionConflict

log = logging.getLogger(__name__)


class Commits:
    """Writes the tables' moves and metas (``TableService`` hands them here; nothing else writes a game)."""

    def __init__(self, store: Store, index: TableIndex, loader: TableLoader) -> None:
        self.store = store
        self._index = index
        self._loader = loader

    async def reload(self, table: Table) -> Table:
        """Read a game again after another process wrote it: the store's copy replaces ours (a finished
        game is returned but no longer live)."""
        fresh = await self._loader.load(table.id)
        self._index.unregister(table)
        if fresh.status == "active":
            self._index.register(fresh)
        return fresh

    async def commit(self, table: Table, step: Step) -> None:
        """Write the move in one transaction, then make the live table what it says; a MoveConflict or a
        MoveNotSaved when the store did not keep it."""
        changed = step.meta.to_dict() if step.meta != table.meta else None
        try:
            table.version = await self.store.append_action(
                NewAction(
                    table.id,
                    step.seq,
                    step.seat,
                    step.text,
                    step.at,
                    finish=step.finish,
                    meta=changed,
                    snapshot=step.snapshot,
                ),
            )
        except ActionConflict as err:
            # Another process logged this seq first (it held the game while ours did not see it): never
            # ours, whatever its text. What the store has becomes the table.
            log.warning("game %d: action %d was logged by another process first", table.id, step.seq)
            metrics.MOVES_NOT_SAVED.labels(table.game, "conflict").inc()
            with contextlib.suppress(TableError):
                await self.reload(table)
            raise MoveConflict() from err
        except Exception as err:
            if not await self._saved_anyway(table, step.seq, step.text):
                log.warning("game %d: action %d was not saved (%s)", table.id, step.seq, err)
                metrics.MOVES_NOT_SAVED.labels(table.game, "failed").inc()
                raise MoveNotSaved() from err
            log.warning("game %d: action %d was saved, though the write reported %r", table.id, step.seq, err)
        take(table, step)
        metrics.MOVES.labels(table.game, "bot" if table.is_bot(step.seat) else "person").inc()
        if step.finish is not None:
            metrics.GAMES_FINISHED.labels(table.game).inc()
            self._index.unregister(table)

    async def _saved_anyway(self, table: Table, seq: int, text: str) -> bool:
        """After a failed write, believe the store, not the error: True if the action is in the log after
        all (a commit that reached the disk and then reported a fault). Otherwise the live table is rebuilt
        from what the store has — or, if the store can't be read, dropped until the next ``get`` can."""
        self._index.unregister(table)
        try:
            record = await self.store.load_game(table.id)
        except Exception as err:
            log.warning("game %d could not be re-read (%s); it is loaded again when next used", table.id, err)
            return False
        if record is None:
            return False
        if len(record.actions) >= seq and record.actions[seq - 1].text == text:
            table.version = record.version
            if record.status == "active":
                self._index.register(table)
            return True
        if record.status == "active":
            self._index.register(self._loader.rebuild(record))
        return False

    async def save_meta(self, table: Table, **changes: Any) -> None:
        """Change the table's meta outside a move (a board message posted, DMs found closed, a nudge), if
        the stored game is still the version this copy was read at. If not — another process wrote it
        without its lock, or the copy missed a write — the store is believed: the changes go onto the
        stored meta, and the copy is read again before its next use."""
        new = replace(table.meta, **changes)
        if new == table.meta:
            return
        try:
            table.version = await self.store.set_meta(table.id, new.to_dict(), version=table.version)
        except VersionConflict:
            record = await self.store.load_game(table.id)
            if record is None:
                raise TableError("tavern.table.not-found") from None
            log.warning(
                "game %d: its meta was written elsewhere (version %d, not %d); changing the stored one",
                table.id,
                record.version,
                table.version,
            )
            new = replace(TableMeta.from_dict(record.meta), **changes)
            table.version = await self.store.set_meta(table.id, new.to_dict(), version=record.version)
            table.stale = table.status == "active"
        moved = new.thread_id != table.meta.thread_id and table.status == "active"
        if moved:
            self._index.unregister(table)  # indexed under its old thread
        table.meta = new
        if moved:
            self._index.register(table)
