"""The start-up restore: every active game listed at once (what the lookups need), then rebuilt a chunk at a
time while the bot connects, leaving alone the tables made live (or closed) meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from bot.games import Table
from bot.services.tables.index import Listed, TableIndex
from bot.services.tables.loading import TableLoader
from bot.services.tables.moves import finish_from
from bot.store import GameRecord, Listing, Store

log = logging.getLogger(__name__)


class Restore:
    """One run of the restore over the store's active games (see ``TableService.restore``)."""

    def __init__(
        self, store: Store, index: TableIndex, loader: TableLoader, clock: Callable[[], float]
    ) -> None:
        self.store = store
        self.index = index
        self.loader = loader
        self.clock = clock

    async def run(
        self, shards: tuple[int, Sequence[int]] | None, *, chunk: int, indexed: asyncio.Event
    ) -> int:
        """List every active game (then set ``indexed``), rebuild them ``chunk`` at a time; how many tables
        it made live."""
        tags = self.loader.tags()
        index = self.index
        index.start_restore()
        restored = resumed = 0
        after = 0
        try:
            for game in await self.store.active_index(shards=shards):
                if not index.left_alone(game.id):
                    index.note(Listed.of(game))
            indexed.set()
            while records := await self.store.active_games(
                Listing(after=after, limit=chunk, snapshots=tags, shards=shards)
            ):
                after = records[-1].id
                for record in records:
                    if index.left_alone(record.id):
                        continue  # made live (or closed) meanwhile: that stays
                    table = await self.restore_one(record)
                    if table is None or index.left_alone(table.id):
                        continue
                    index.register(table)
                    restored += 1
                    resumed += table.snapshot_seq > 0
                await asyncio.sleep(0)
        finally:
            index.end_restore()
        log.info(
            "restored %d active table(s): %d from snapshots, %d by replaying the whole log",
            restored,
            resumed,
            restored - resumed,
        )
        return restored

    async def restore_one(self, record: GameRecord) -> Table | None:
        """The game's live table, or None if it must not be live: closed meanwhile, over (closed now), or
        impossible to rebuild (logged; ``abandon_unplayable`` can close it)."""
        try:
            table = await self.loader.build(record)
            if table.status != "active" or self.index.left_alone(table.id):
                return None
            result = table.result()
            if result is not None:
                # The log ends in a finished state that was never closed: close it now.
                finish = finish_from(result, self.clock(), table.module, table.state)
                await self.store.finish_game(table.id, finish)
                table.status = "finished"
                self.index.forget(table.id)
                return None
        except Exception:
            log.exception("could not restore game %d (%s)", record.id, record.game)
            self.index.forget(record.id)
            return None
        return table
