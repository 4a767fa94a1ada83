"""Which games are active, and where: the live tables by id, and every active game the lookups know by its
channel, its thread and the people seated at it — the live tables, and at start-up the games the restore has
listed but not rebuilt yet (:class:`Listed`). In memory only: the table service keeps it in step with the
store.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.games import Table, TableMeta
from bot.games.seats import is_bot
from bot.store import ActiveGame

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Listed:
    """An active game as the lookups find it, whether its table is live or not rebuilt yet: where it plays
    and the people seated at it (the bot is never looked up by seat)."""

    id: int
    channel_id: int
    thread_id: int | None
    people: tuple[int, ...]

    @classmethod
    def of(cls, game: ActiveGame) -> Listed:
        try:
            thread = TableMeta.from_dict(game.meta).thread_id
        except Exception as err:  # its rebuild will say what is wrong; it is still found by channel
            log.warning("game %d: its table meta can't be read (%r)", game.id, err)
            thread = None
        people = tuple(s.user_id for s in game.seats if not is_bot(s.user_id))
        return cls(game.id, game.channel_id, thread, people)


class TableIndex:
    """The live tables and the listed games, by id, channel, thread and seated person; and, while a restore
    runs, the games it must leave as they are (made live, closed or found unplayable meanwhile)."""

    def __init__(self) -> None:
        self._live: dict[int, Table] = {}
        self._listed: dict[int, Listed] = {}
        self._channels: dict[int, int] = {}
        self._threads: dict[int, int] = {}
        self._seated: dict[int, set[int]] = {}
        self._restoring: set[int] | None = None

    def live(self, game_id: int) -> Table | None:
        return self._live.get(game_id)

    def tables(self) -> list[Table]:
        return list(self._live.values())

    def in_channel(self, channel_id: int) -> int | None:
        """The active game played in this channel (not counting threads)."""
        return self._channels.get(channel_id)

    def game_in(self, channel_id: int) -> int | None:
        """The active game played in this channel, or in this game thread."""
        game_id = self._channels.get(channel_id)
        return self._threads.get(channel_id) if game_id is None else game_id

    def games_of(self, user_id: int) -> list[int]:
        """The active games where this person sits, by id (a copy: rebuilding one changes the index)."""
        return sorted(self._seated.get(user_id, ()))

    def register(self, table: Table) -> None:
        """Make the table live, and found by its channel, thread and seated people."""
        if self._restoring is not None:
            self._restoring.add(table.id)
        self._live[table.id] = table
        people = tuple(uid for uid in table.user_ids if not is_bot(uid))
        self.note(Listed(table.id, table.channel_id, table.meta.thread_id, people))

    def unregister(self, table: Table) -> None:
        self._live.pop(table.id, None)
        self.forget(table.id)

    def note(self, entry: Listed) -> None:
        """Make an active game found by its channel, thread and seated people."""
        self._drop(entry.id)
        self._listed[entry.id] = entry
        self._channels[entry.channel_id] = entry.id
        if entry.thread_id is not None:
            self._threads[entry.thread_id] = entry.id
        for user_id in entry.people:
            self._seated.setdefault(user_id, set()).add(entry.id)

    def forget(self, game_id: int) -> None:
        """The game is no longer live here (closed, or it can't be rebuilt): out of the lookups, and left
        alone by a restore under way."""
        self._drop(game_id)
        if self._restoring is not None:
            self._restoring.add(game_id)

    def _drop(self, game_id: int) -> None:
        entry = self._listed.pop(game_id, None)
        if entry is None:
            return
        if self._channels.get(entry.channel_id) == game_id:
            del self._channels[entry.channel_id]
        if entry.thread_id is not None and self._threads.get(entry.thread_id) == game_id:
            del self._threads[entry.thread_id]
        for user_id in entry.people:
            games = self._seated.get(user_id)
            if games is not None:
                games.discard(game_id)
                if not games:
                    del self._seated[user_id]

    def changed_elsewhere(self, game_id: int | None, closed: bool, clock: Callable[[], float]) -> None:
        """Another process wrote this game (None: any game): our copy is marked stale, a game closed
        there is live here no more, and news of a move counts as activity until the copy is read again."""
        if closed and game_id is not None and game_id not in self._live:
            self.forget(game_id)  # listed, not rebuilt yet
        tables = list(self._live.values()) if game_id is None else [self._live.get(game_id)]
        for table in tables:
            if table is None:
                continue
            table.stale = True
            if closed:
                self.unregister(table)
            elif game_id is not None:
                table.last_action_at = max(table.last_action_at, clock())

    # ---------------------------------------------------------------- while a restore runs

    def start_restore(self) -> None:
        """From now on, note the games a restore must leave alone: those live already, and any made live or
        forgotten until :meth:`end_restore`."""
        self._restoring = set(self._live)

    def left_alone(self, game_id: int) -> bool:
        """Whether the restore under way must leave this game as it is."""
        return self._restoring is not None and game_id in self._restoring

    def end_restore(self) -> None:
        self._restoring = None
