"""The live fan-out: what a table tells reaches every browser watching it, for one render per language.

The table service's :class:`~bot.services.watch.Watch` calls :meth:`Fanout.told` after each publish that
told the channel something, and after each move of a Deluxe turn under way (its draw, its binds: what the
board already shows), whose step the next telling of the turn replaces: a page shows a turn as it is
played, in order, though the channel is told it whole. For a table nobody watches that is one dictionary
lookup. For a watched one it builds, per language its viewers read, ONE frame — ``{"seq", "html", "over",
"t"}``, the table's public fragment (``pages.table_html``) and the recent calls — and hands the same string
to each viewer: a move costs a render per table and language, never one per viewer.

Each viewer has a slot holding the newest frame it has not been sent and one writer task that sends what
the slot holds: a slow browser never delays the others; it skips straight to the newest frame, and one
whose socket stays full for ``SEND_SECONDS`` is dropped (a sweep every few seconds finds it: a timer per
send would cost more than the send). A frame is encoded once and the same bytes go to every socket.

The recent calls (``RECENT`` steps) are kept per table; a table that starts being watched takes them from
its log (the replay walk's last steps, up to what the channel was told), so the first frame already shows
what just happened.

A table another process wrote (several processes on one PostgreSQL: a DM press lands on shard 0's) is
news from the store (``Watch.changed``): a watched one is read again and its recent calls taken from its log
again, in a task of its own, and its viewers get the new frame.

The browser sends nothing but ``{"ping": N}`` (answered ``{"pong": N}``), a few a second at most; anything
else closes the socket (1008; over ``MAX_MESSAGE`` bytes 1009, by aiohttp itself).

A socket lasts no longer than what let it open: the same sweep closes a viewer whose link has expired
(``EXPIRED``, 4410) and every viewer of a server whose admins turned the pages off (``TURNED_OFF``, 4404,
within ``REVOKE_SECONDS`` here, or once this process's copy of the settings is read again where several
share the store). ``live.js`` says which, and does not come back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import aiohttp
from aiohttp import web

from bot.base.i18n import speaking
from bot.base.locks import KeyedLocks
from bot.edge.web import pages
from bot.edge.web.sight import Call, calls, sight
from bot.edge.web.viewers import Socket, Viewer, goodbye, ping_of
from bot.games import GameAdapter, Table
from bot.services import replay as rp
from bot.services.tables import TableService
from bot.store import Store

log = logging.getLogger("tavern.web")

RECENT = 12  # steps of calls a live table shows
REREADS = 20  # reads of a table another process wrote, one after another, before leaving it to the next news
SEND_SECONDS = 10.0  # a viewer whose socket takes longer than this to take a frame is dropped
MAX_MESSAGE = 512  # bytes a browser may send in one message (a ping is a dozen)
MAX_VIEWERS = 20_000  # browsers one process keeps current at once (each has a socket and a task)
REVOKE_SECONDS = 2.0  # how often the sockets' links and their servers' settings are looked at
POLICY = aiohttp.WSCloseCode.POLICY_VIOLATION  # 1008
EXPIRED = 4410  # the socket's link has expired (as its page would answer 410)
TURNED_OFF = 4404  # its server's admins turned the pages off (as the page would answer 404)


@dataclass
class Step:
    """What the channel was told at one step, with the table as it stood then; its calls are worded once
    per language, when first asked for. ``held``: a move whose calls the game tells later (a Deluxe turn
    under way): the next telling of the same turn, which repeats these events, takes its place."""

    table: Table
    events: tuple[Any, ...]
    seq: int
    said: dict[str, Call] = field(default_factory=dict)
    held: bool = False

    def call(self, lang: str) -> Call:
        found = self.said.get(lang)
        if found is None:
            with speaking(lang):
                found = self.said[lang] = calls(self.table, self.events)
        return found


@dataclass
class _Watched:
    """A table somebody watches: its viewers by language, its recent steps, the newest frame per language."""

    table: Table
    viewers: dict[str, set[Viewer]] = field(default_factory=dict)
    steps: deque[Step] = field(default_factory=lambda: deque(maxlen=RECENT))
    frames: dict[str, bytes] = field(default_factory=dict)
    ready: bool = False
    told: int = 0  # tellings by this process so far: a read of the store begun before one is out of date
    again: bool = False  # news of another process's write came during a read: read once more

    def offer(self, frame: Callable[[_Watched, str], bytes]) -> None:
        """The table's frame in each language its viewers read, to each of them."""
        for lang, group in self.viewers.items():
            built = frame(self, lang)
            for viewer in group:
                viewer.offer(built)


class Fanout:
    """The live tables' viewers. ``frames_built``, ``frames_sent``, ``dropped``, ``revoked`` and
    ``viewers`` are for the benches and the operator. ``clock`` is what the links' expiry is read on;
    ``shown(guild_id)`` says whether a server still lets its games be watched."""

    def __init__(
        self,
        tables: TableService,
        *,
        send_seconds: float = SEND_SECONDS,
        clock: Callable[[], float] = time.time,
        shown: Callable[[int], Awaitable[bool]] | None = None,
    ):
        self.tables, self.send_seconds, self.clock, self.shown = tables, send_seconds, clock, shown
        self.store: Store = tables.store
        self.games: Mapping[str, GameAdapter] = tables.games
        self._watched: dict[int, _Watched] = {}
        self._walks = rp.Replays(64)  # the logs walked for the recent calls, by game and version
        self._locks = KeyedLocks()
        self.most = MAX_VIEWERS
        self._viewers = 0
        self.frames_built = 0
        self.frames_sent = 0
        self.dropped = 0
        self.revoked = 0
        self._goodbyes: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._rereading: dict[int, asyncio.Task[None]] = {}  # watched tables read again after news

    @property
    def viewers(self) -> int:
        return self._viewers

    @property
    def full(self) -> bool:
        """Whether the process watches as many browsers as it takes (a new one is told to come back)."""
        return self._viewers >= self.most

    @property
    def watched(self) -> int:
        return len(self._watched)

    # ------------------------------------------------------------------ what tables tell

    def told(self, table: Table, events: Sequence[Any]) -> None:
        """The Watch listener (under the table's lock): for a watched table, the step is kept and one frame
        per language is built and offered to every viewer of that language."""
        entry = self._watched.get(table.id)
        if entry is None:
            return
        entry.table = table
        entry.told += 1
        if events:  # (an admin's end tells nothing: the page shows the game over, no call)
            told = tuple(events)
            last = entry.steps[-1] if entry.steps else None
            if last is not None and last.held and told[: len(last.events)] == last.events:
                entry.steps.pop()  # the turn so far, now with its next move (or told whole)
            entry.steps.append(Step(replace(table, pending=[]), told, table.seq, held=bool(table.pending)))
        entry.frames.clear()
        if entry.ready:  # else the recent calls are being read: the first frame comes once they are
            entry.offer(self._frame)

    def changed(self, game_id: int | None) -> None:
        """The Watch's news of a table another process wrote (None: any): a watched one is read again."""
        for watched in [game_id] if game_id is not None else list(self._watched):
            entry = self._watched.get(watched)
            if entry is None:
                continue
            if watched in self._rereading:
                entry.again = True  # the read under way may have begun before this write
                continue
            task = asyncio.get_running_loop().create_task(self._reread(watched))
            self._rereading[watched] = task

    async def _reread(self, game_id: int) -> None:
        """The table as the store has it now, its recent calls from its log, a new frame to its viewers;
        read again while news keeps coming or this process told the table meanwhile (at most ``REREADS``
        times: the next telling shows the table anyway)."""
        try:
            for _ in range(REREADS):
                await asyncio.sleep(0)  # news of one write often comes with more: read once after them
                entry = self._watched.get(game_id)
                if entry is None:
                    return
                if not entry.ready:  # a first viewer's read is under way: read after it
                    await asyncio.sleep(0.05)
                    continue
                entry.again, before = False, entry.told
                table = await self.tables.get(game_id)
                steps = await self._told_steps(table)
                entry = self._watched.get(game_id)
                if entry is None:
                    return
                if entry.told != before:
                    continue  # told here meanwhile: what was read may be older than what is shown
                entry.table = table
                entry.steps.clear()
                entry.steps.extend(steps)
                entry.frames.clear()
                entry.offer(self._frame)
                if not entry.again:
                    return
        except Exception:
            log.exception("game %d: could not show its viewers what another process told", game_id)
        finally:
            self._rereading.pop(game_id, None)

    def _frame(self, entry: _Watched, lang: str) -> bytes:
        """The table's frame in ``lang`` (built once per state and language)."""
        found = entry.frames.get(lang)
        if found is not None:
            return found
        with speaking(lang):
            seen = sight(entry.table)
            html = pages.table_html(seen, shown(entry.steps, lang), lang)
        frame = json.dumps({"seq": seen.seq, "html": html, "over": seen.over, "t": time.time()}).encode()
        entry.frames[lang] = frame
        self.frames_built += 1
        return frame

    # ------------------------------------------------------------------ the recent calls

    async def recent(self, table: Table, lang: str) -> list[Call]:
        """The calls a page shows under the table: the watched table's, else read from its log."""
        entry = self._watched.get(table.id)
        steps = entry.steps if entry is not None and entry.ready else await self._told_steps(table)
        return shown(steps, lang)

    async def _told_steps(self, table: Table) -> list[Step]:
        """The last ``RECENT`` steps the channel was told, from the log (walked once per game version)."""
        async with self._locks(table.id):
            replay = self._walks.get(table.id, table.version)
            if replay is None:
                record = await self.store.load_game(table.id)
                if record is None or record.game not in self.games:
                    return []
                # walked beside the event loop, which serves the rest
                replay = await asyncio.to_thread(rp.of_record, self.games[record.game], record)
                self._walks.put(record.id, record.version, replay)
                self._walks.put(table.id, table.version, replay)
        return told_steps(replay, table)

    async def _ready(self, entry: _Watched) -> None:
        """Read the recent calls of a newly watched table; steps told meanwhile stay after them."""
        if entry.ready:
            return
        seeded = await self._told_steps(entry.table)
        if entry.ready:
            return
        live = list(entry.steps)
        first = live[0].seq if live else None
        entry.steps.clear()
        entry.steps.extend(s for s in seeded if first is None or s.seq < first)
        entry.steps.extend(live)
        entry.frames.clear()
        entry.ready = True

    # ------------------------------------------------------------------ viewers

    async def join(
        self,
        table: Table,
        lang: str,
        socket: Socket,
        abort: Callable[[], None] = lambda: None,
        until: float | None = None,
    ) -> Viewer:
        """Watch ``table`` through ``socket`` (prepared): its current frame goes first, then one per told
        step. ``abort`` cuts the connection of a viewer too slow to keep; ``until`` is when the link it
        came with expires (its socket is closed then). Call :meth:`leave` when done."""
        entry = self._watched.get(table.id)
        if entry is None:
            entry = self._watched[table.id] = _Watched(table)
        elif table.seq > entry.table.seq or (
            table.seq == entry.table.seq and table.status != entry.table.status
        ):
            entry.table, entry.frames = table, {}
        viewer = Viewer(socket, lang, table.id, abort, until)
        entry.viewers.setdefault(lang, set()).add(viewer)
        self._viewers += 1
        try:
            await self._ready(entry)
        except BaseException:
            self.leave(viewer)
            raise
        viewer.offer(self._frame(entry, lang))
        viewer.task = asyncio.create_task(self._write(viewer), name=f"tavern-web-viewer-{table.id}")
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep(), name="tavern-web-sweep")
        return viewer

    def leave(self, viewer: Viewer) -> None:
        """The viewer is gone: its writer stops; a table nobody watches any more is forgotten."""
        if viewer.task is not None and viewer.task is not asyncio.current_task():
            viewer.task.cancel()
        entry = self._watched.get(viewer.table_id)
        if entry is None:
            return
        group = entry.viewers.get(viewer.lang)
        if group is not None and viewer in group:
            group.discard(viewer)
            self._viewers -= 1
            if not group:
                del entry.viewers[viewer.lang]
                entry.frames.pop(viewer.lang, None)
        if not entry.viewers:
            del self._watched[viewer.table_id]

    async def _write(self, viewer: Viewer) -> None:
        """The viewer's writer: sends what its slot holds, newest only (``_sweep`` drops one stuck)."""
        socket = viewer.socket
        while not socket.closed:
            await viewer.wake.wait()
            viewer.wake.clear()
            for data in viewer.take():
                viewer.since = time.monotonic()
                try:
                    await socket.send_frame(data, aiohttp.WSMsgType.TEXT)
                except (ConnectionError, RuntimeError):
                    return  # closed meanwhile: its reader ends too
                finally:
                    viewer.since = None
                viewer.sent += 1
                self.frames_sent += 1

    async def _sweep(self) -> None:
        """While anyone watches, every quarter of ``send_seconds`` (``REVOKE_SECONDS`` at most): cut the
        viewers whose send has waited longer than ``send_seconds`` (their socket stays full: a browser too
        slow to keep, or gone without a word), and close those whose link has expired or whose server no
        longer shows its games."""
        while self._watched:
            await asyncio.sleep(min(self.send_seconds / 4, REVOKE_SECONDS))
            now = time.monotonic()
            for viewer in self._all():
                if viewer.since is not None and now - viewer.since > self.send_seconds:
                    viewer.since = None
                    self.dropped += 1
                    log.info("game %d: a browser too slow to take the table was dropped", viewer.table_id)
                    viewer.abort()
            await self._revoke()

    def _all(self) -> list[Viewer]:
        return [v for entry in self._watched.values() for group in entry.viewers.values() for v in group]

    async def _revoke(self) -> None:
        """Close the sockets no link or server allows any more (``EXPIRED``, ``TURNED_OFF``)."""
        off: set[int] = set()
        if self.shown is not None:
            for guild_id in {entry.table.guild_id for entry in self._watched.values()}:
                try:
                    if not await self.shown(guild_id):
                        off.add(guild_id)
                except Exception as err:  # the settings can't be read now: looked at again next sweep
                    log.warning("guild %d: could not read whether its pages are shown (%r)", guild_id, err)
        now = self.clock()
        for entry in list(self._watched.values()):
            for viewer in [v for group in entry.viewers.values() for v in group]:
                if entry.table.guild_id in off:
                    self.revoke(viewer, TURNED_OFF, b"pages off")
                elif viewer.until is not None and viewer.until <= now:
                    self.revoke(viewer, EXPIRED, b"link expired")

    def revoke(self, viewer: Viewer, code: int, why: bytes) -> None:
        """Stop sending to ``viewer`` and close its socket with ``code`` (its reader then ends)."""
        self.leave(viewer)
        self.revoked += 1
        task = asyncio.get_running_loop().create_task(goodbye(viewer.socket, code, why))
        self._goodbyes.add(task)
        task.add_done_callback(self._goodbyes.discard)

    async def listen(self, viewer: Viewer, socket: web.WebSocketResponse) -> None:
        """Read what the browser sends until it goes: pings are answered; anything else closes it."""
        async for message in socket:
            if message.type is aiohttp.WSMsgType.TEXT:
                number = ping_of(message.data)
                if number is not None and viewer.ping(number):
                    continue
            if message.type is aiohttp.WSMsgType.ERROR:
                return  # too big or not WebSocket: aiohttp has closed it (1009, 1002)
            await socket.close(code=POLICY, message=b"pings only")
            return

    async def close(self) -> None:
        """Say goodbye to every viewer (1001: the server is going away; live.js comes back later)."""
        viewers = self._all()
        tasks = [self._sweeper, *self._rereading.values(), *(v.task for v in viewers)]
        stopped = [task for task in tasks if task is not None and not task.done()]
        for task in stopped:
            task.cancel()
        await asyncio.gather(*stopped, return_exceptions=True)
        goodbyes = [goodbye(v.socket, aiohttp.WSCloseCode.GOING_AWAY, b"restarting") for v in viewers]
        await asyncio.gather(*goodbyes, *self._goodbyes, return_exceptions=True)


def told_steps(replay: rp.Replay, table: Table) -> list[Step]:
    """The last ``RECENT`` steps of ``replay`` (the table's log walked) that the channel was told."""
    told = table.meta.told(table.seq)
    kept = [i for i, s in enumerate(replay.steps) if s.last <= told][-RECENT:]
    return [Step(replay.at(i), replay.steps[i].events, replay.steps[i].last) for i in kept]


def shown(steps: Sequence[Step] | deque[Step], lang: str) -> list[Call]:
    """The steps' calls in ``lang``, oldest first, those that said nothing left out."""
    return [call for call in (s.call(lang) for s in steps) if call.lines or call.scene is not None]
