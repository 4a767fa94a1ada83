"""The pages' building: each page built once, kept by what it shows (``kept``), and charged to whoever asked
for it (``guard``).

- A **finished game** (or an abandoned one) never changes: it is read from the store and walked once, in a
  worker thread (:class:`Ended`: its record, its table at the end, its steps), and each of its pages — its
  live link's, each step of its replay in each language, its record — is written once from that, in a
  worker thread too, and kept in bytes. What a kept page needs to be served again (its server, its number
  of steps, its players: :class:`Over`) is kept apart, small, for many more games.
- A **live table** changes with each move: its page (:class:`Shown`, without the link that asked for it) is
  built on the event loop — the table is the live one, which moves change — once per move and language.

A page found kept costs a lookup. One that has to be built costs its asker ``BUILD_COST`` first (one that
can't pay is refused, ``TooMany``, and nothing is built) and then the CPU its building took; many asking for
the same page at once wait for one building (:meth:`Built.once`). The worker threads build one thing at a
time (``BUILDERS``): their CPU holds Python's GIL, so more at once would slow the event loop as much.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.base.i18n import speaking
from bot.edge.web import pages
from bot.edge.web.fanout import shown, told_steps
from bot.edge.web.guard import BUILD_COST, UNIT_SECONDS, Guard
from bot.edge.web.kept import Kept
from bot.edge.web.sight import Call, Sight, sight
from bot.games import GameAdapter, Table
from bot.services import game_record, snapshots
from bot.services import replay as rp
from bot.services.tables.loading import TableLoader
from bot.store import Store
from bot.store.records import GameRecord

CACHED = 32  # finished games kept walked (their steps' states), to build more of their pages
FINISHED = 4096  # finished games known as such (a few numbers each: what a kept page needs to be served)
PAGE_BYTES = 16 * 2**20  # finished games' pages kept, in bytes
SHOWS = 256  # live tables' pages kept (each move makes a new one)
KEPT_SECONDS = 300.0  # how long what is kept is trusted (a name can be forgotten by another process)
BUILDERS = 1  # things built at once in worker threads (their CPU holds the GIL)

T = TypeVar("T")
Key = tuple[Any, ...]  # what a kept page shows: (kind, game id, ...)


class Refused(Exception):
    """An answer that is a short page saying why there is nothing to show (the status's words)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class TooMany(Exception):
    """The asker can't pay for a page to be built now: a 429, ``wait`` seconds."""

    def __init__(self, wait: float) -> None:
        super().__init__(wait)
        self.wait = wait


@dataclass(frozen=True)
class Over:
    """What a kept page of a finished game needs to be served: its server (whose ``browser`` setting is
    checked at every request) and its steps (a step asked for is clamped to them)."""

    guild_id: int
    steps: int


@dataclass(frozen=True)
class Ended:
    """A finished (or abandoned) game, read and walked once: its stored record, its table at the end (as
    the store's log leaves it) and its steps."""

    record: GameRecord
    table: Table
    replay: rp.Replay

    @property
    def over(self) -> Over:
        return Over(self.record.guild_id, len(self.replay.steps))


@dataclass(frozen=True)
class Shown:
    """A table's live page without its link: what it shows (``sight``) and its ``<main>`` fragment."""

    sight: Sight
    inner: str


class Built:
    """What the pages have built and kept. ``guard()`` is the guard in force (a test may swap it);
    ``built`` counts what was built (a kept page is not), for the tests and the benches."""

    def __init__(
        self,
        store: Store,
        games: Mapping[str, GameAdapter],
        guard: Callable[[], Guard],
        cpu: Callable[[], float] = time.thread_time,
    ) -> None:
        self.store, self.games, self.guard = store, games, guard
        self.cpu = cpu  # the CPU meter a building is charged by (this thread's time; tests count instead)
        self._loader = TableLoader(store, games, snapshots.PROCESS_KEY)  # (rebuilds only: signs nothing)
        self._ended: Kept[int, Ended] = Kept(CACHED, KEPT_SECONDS)
        self._over: Kept[int, Over] = Kept(FINISHED, KEPT_SECONDS)
        self.shows: Kept[Key, Shown] = Kept(SHOWS, KEPT_SECONDS)
        self._pages: Kept[Key, bytes] = Kept(PAGE_BYTES, KEPT_SECONDS, len)
        self._making: dict[Hashable, asyncio.Future[Any]] = {}
        self._builders = asyncio.Semaphore(BUILDERS)
        self.built = 0

    def changed(self, game_id: int | None) -> None:
        """Drop everything kept of a stored game that changed (None: of every game): its pages are built
        again from what the store says then (a forgotten member's name has left it)."""
        self._ended.drop(lambda key: game_id in (None, key))
        self._over.drop(lambda key: game_id in (None, key))
        for kept in (self.shows, self._pages):
            kept.drop(lambda key: game_id is None or key[1] == game_id)  # (kind, game id, ...)

    # ------------------------------------------------------------------ charging

    def afford(self, client: str | None) -> None:
        """Charge ``client`` ``BUILD_COST`` for something about to be built: ``TooMany`` if it can't pay."""
        wait = self.guard().allow(client, BUILD_COST)
        if wait:
            raise TooMany(wait)

    def bill(self, client: str | None, seconds: float) -> None:
        """Charge ``client`` the CPU a building took (beyond the ``BUILD_COST`` it paid before)."""
        self.built += 1
        self.guard().charge(client, seconds / UNIT_SECONDS - BUILD_COST)

    async def once(self, client: str | None, key: Hashable, make: Callable[[], Awaitable[T]]) -> T:
        """``make()``, once however many ask for ``key`` meanwhile: the asker that starts it pays
        ``BUILD_COST`` first (and nothing starts if it can't); the others wait for it."""
        found = self._making.get(key)
        if found is None:
            self.afford(client)
            found = self._making[key] = asyncio.ensure_future(make())
            found.add_done_callback(lambda done: self._made(key, done))
        made: T = await asyncio.shield(found)
        return made

    def _made(self, key: Hashable, done: asyncio.Future[Any]) -> None:
        """A building has ended: the next ask of ``key`` finds it kept (or builds it again after an error,
        which its askers were told)."""
        self._making.pop(key, None)
        if not done.cancelled():
            done.exception()  # seen: its askers got it (even if they all went away meanwhile)

    async def aside(self, client: str | None, work: Callable[[], T]) -> T:
        """``work()`` in a worker thread, charged to ``client`` by its CPU; the event loop serves everyone
        else meanwhile."""

        def timed() -> tuple[T, float]:
            began = self.cpu()
            return work(), self.cpu() - began

        async with self._builders:
            done, seconds = await asyncio.to_thread(timed)
        self.bill(client, seconds)
        return done

    # ------------------------------------------------------------------ finished games

    def over(self, game_id: int) -> Over | None:
        """What serving a kept page of this game needs, if it is known to be finished."""
        return self._over.get(game_id)

    async def finished(self, client: str | None, game_id: int) -> Ended | None:
        """The finished (or abandoned) game, read and walked off the loop once; None for a live game;
        ``Refused(404)`` for none of ours."""
        kept = self._ended.get(game_id)
        if kept is not None:
            return kept

        async def make() -> Ended | None:
            record = await self.store.load_game(game_id)
            if record is None or record.game not in self.games:
                raise Refused(404)
            if record.status == "active":
                return None
            adapter = self.games[record.game]

            def walk() -> Ended:
                return Ended(record, self._loader.rebuild(record), rp.of_record(adapter, record))

            ended = await self.aside(client, walk)
            self._ended.put(game_id, ended)
            self._over.put(game_id, ended.over)
            return ended

        return await self.once(client, ("ended", game_id), make)

    async def page(
        self,
        client: str | None,
        game_id: int,
        key: Key,
        build: Callable[[Ended], T],
        kept: Kept[Key, T] | None = None,
    ) -> T:
        """A finished game's page: kept (in ``kept``, else with the pages' bytes), else built in a worker
        thread from the walked game, and kept."""
        shelf: Kept[Key, Any] = self._pages if kept is None else kept
        found: T | None = shelf.get(key)
        if found is not None:
            return found

        async def make() -> T:
            ended = await self.finished(client, game_id)
            if ended is None:
                raise Refused(404)
            made = await self.aside(client, lambda: build(ended))
            shelf.put(key, made)
            return made

        return await self.once(client, key, make)

    async def ended_show(self, client: str | None, game_id: int, lang: str) -> Shown:
        """A finished game's live page (what its live link shows, and its socket's last frame)."""
        return await self.page(
            client, game_id, ("end", game_id, lang), lambda e: _ended_show(e, lang), self.shows
        )

    # ------------------------------------------------------------------ live tables

    async def live_show(
        self, client: str | None, table: Table, lang: str, recent: Callable[[], Awaitable[Sequence[Call]]]
    ) -> Shown:
        """A live table's page as it stands (its ``recent`` calls), built once per move and language."""
        found = self.shows.get(_show_key(table, lang))
        if found is not None:
            return found
        self.afford(client)
        calls = await recent()
        key = _show_key(table, lang)  # (the table may have moved meanwhile)
        found = self.shows.get(key)
        if found is not None:
            return found
        began = self.cpu()
        with speaking(lang):
            seen = sight(table)
            made = Shown(seen, pages.table_html(seen, calls, lang))
        self.bill(client, self.cpu() - began)
        self.shows.put(key, made)
        return made


def _show_key(table: Table, lang: str) -> Key:
    """What a live table's page shows depends on: its moves, its stored version, its status, how far its
    channel was told, the language."""
    return ("live", table.id, table.seq, table.version, table.status, table.meta.told(table.seq), lang)


def _ended_show(ended: Ended, lang: str) -> Shown:
    """A finished game's live page without its link: the table at its end and the last calls told."""
    with speaking(lang):
        seen = sight(ended.table)
        return Shown(seen, pages.table_html(seen, shown(told_steps(ended.replay, ended.table), lang), lang))


def record_text(ended: Ended, lang: str) -> bytes:
    """The game's record file in ``lang`` (empty: it can't be written, its page is "not found")."""
    with speaking(lang):
        try:
            return game_record.encode(game_record.record_of(ended.record)).encode()
        except game_record.RecordError:
            return b""
