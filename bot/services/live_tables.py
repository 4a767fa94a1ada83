"""The server's live games for ``/tavern tables`` and the web's server page: who plays what, the score, and
where to watch (in Discord, and in a browser where the bot links its pages and the server allows it).

One indexed read of this server's active games (``Store.active_in_guild``: its rows alone, whatever the number
of games elsewhere), those the asker may not see left out (``sees``: by channel, worked out by the caller from
Discord's permissions; a player always sees the game they sit at), then each listed table from the table
service (in memory when this process hosts it, else rebuilt from its snapshot), at most ``LIMIT`` of them,
newest first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.base.i18n import t
from bot.games import Table
from bot.services.tables import TableService
from bot.store import Store

LIMIT = 15  # tables shown: an embed of one line each stays short on a phone
ROOM = 4096  # characters of an embed's description


@dataclass(frozen=True)
class LiveTables:
    tables: tuple[Table, ...]
    more: int  # live games beyond the ones listed


async def live_tables(
    store: Store,
    tables: TableService,
    guild_id: int,
    sees: Callable[[int], bool],
    viewer: int | None = None,
) -> LiveTables:
    """The server's live games that ``sees`` (channel id → bool) lets through, or that ``viewer`` sits at."""
    own = await tables.seated_at(viewer) if viewer is not None else None
    listed = [
        game_id
        for game_id, channel_id in await store.active_in_guild(guild_id)
        if sees(channel_id) or (own is not None and own.id == game_id)
    ]
    shown = [await tables.get(game_id) for game_id in listed[:LIMIT]]
    return LiveTables(tuple(t for t in shown if t.status == "active"), max(0, len(listed) - LIMIT))


def tables_text(
    found: LiveTables,
    watch: Callable[[Table], str] | None = None,
    server: str | None = None,
    room: int = ROOM,
) -> str:
    """One line per live game: the game, where to watch it (its thread, else its channel), the score, and
    ``watch(table)``, the address of its page in a browser, when given; ``server``: the address of the
    page of all the server's live tables, last. Within ``room`` characters (an embed's): the tables that
    don't fit are counted with those beyond the list."""
    lines: list[str] = []
    tail = (
        [t("general.tables.server", url=server)]
        if server is not None and (found.tables or found.more)
        else []
    )
    more = found.more
    for n, table in enumerate(found.tables):
        where = f"<#{table.meta.thread_id or table.channel_id}>"
        game, score = table.adapter.title, table.adapter.score_line(table)
        if watch is None:
            line = t("general.tables.line", game=game, where=where, score=score)
        else:
            line = t("general.tables.watch-line", game=game, where=where, score=score, url=watch(table))
        left = len(found.tables) - n - 1 + more
        after = [t("general.tables.more", n=left)] if left else []
        if len("\n".join([*lines, line, *after, *tail])) > room:
            more = len(found.tables) - n + more
            break
        lines.append(line)
    if more:
        lines.append(t("general.tables.more", n=more))
    lines += tail
    return "\n".join(lines) if lines else t("general.tables.none")
