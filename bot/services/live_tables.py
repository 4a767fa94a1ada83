"""The server's live games for ``/tavern tables``: who plays what, the score, and where to watch.

One read of the active-game index (a few queries whatever the number of games), then each listed table from
the table service (in memory when this process hosts it, else rebuilt from its snapshot), at most
``LIMIT`` of them, newest first.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.base.i18n import t
from bot.games import Table
from bot.services.tables import TableService
from bot.store import Store

LIMIT = 15  # tables shown: an embed of one line each stays short on a phone


@dataclass(frozen=True)
class LiveTables:
    tables: tuple[Table, ...]
    more: int  # live games beyond the ones listed


async def live_tables(store: Store, tables: TableService, guild_id: int) -> LiveTables:
    index = [g for g in await store.active_index() if g.guild_id == guild_id]
    index.sort(key=lambda g: -g.id)
    shown = [await tables.get(g.id) for g in index[:LIMIT]]
    return LiveTables(tuple(t for t in shown if t.status == "active"), max(0, len(index) - LIMIT))


def tables_text(found: LiveTables) -> str:
    """One line per live game: the game, where to watch it (its thread, else its channel), the score."""
    lines = [
        t(
            "general.tables.line",
            game=table.adapter.title,
            where=f"<#{table.meta.thread_id or table.channel_id}>",
            score=table.adapter.score_line(table),
        )
        for table in found.tables
    ]
    if found.more:
        lines.append(t("general.tables.more", n=found.more))
    return "\n".join(lines) if lines else t("general.tables.none")
