"""The global REST budget: every request outside the interaction endpoints goes through one governor.

Discord gives a bot about 50 requests a second for all its processes together outside the interaction
endpoints (an interaction's answer, followups and ``@original`` edits go through discord.py's webhook
adapter and are not counted), and a global 429 pauses every request the bot makes. So the bot never lets
itself reach it: :class:`Governor` sends at most ``per_second`` requests in any rolling second (the
process's share of ``TAVERN_GLOBAL_BUDGET``) and queues the rest. What waits goes by urgency — what a player
waits for (a ping to the player to move, the end of a game, the panel of the player to move) before the
rest, board and summary edits last — and in order of arrival within one urgency, so openings (threads, DM
channels) are served fairly. An edit of a message that waits behind a newer edit of the same message is
dropped: its caller gets the newer edit's answer, since only the newest content matters.

A global 429 that still comes (another process over its share) is obeyed by discord.py itself, which holds
every request until its ``retry_after`` has passed; it warns once per request that got the 429, which
:class:`_OneWarningAPause` brings down to one warning for the pause.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import heapq
import itertools
import logging
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import discord

from bot.base import metrics


class Urgency(IntEnum):
    """How soon a request must go when the budget is short: lower goes first."""

    PLAYER = 0  # what a player waits for: a ping to the player to move, the end of a game, their panel
    NORMAL = 1
    LATER = 2  # board and summary edits: the players' own panels say the same


# The routes the bot sends through the budget, as discord.py's templates: their request and failure counters
# exist at 0 from the start (``metrics.zero``), so an alert sees the first failure. A route not listed
# still counts, from its first request.
ROUTES = (
    "GET /users/@me",
    "GET /oauth2/applications/@me",
    "GET /gateway/bot",
    "GET /applications/{application_id}/commands",
    "PUT /applications/{application_id}/commands",
    "PUT /applications/{application_id}/guilds/{guild_id}/commands",
    "GET /applications/{application_id}/emojis",
    "POST /applications/{application_id}/emojis",
    "POST /users/@me/channels",
    "GET /users/{user_id}",
    "GET /channels/{channel_id}",
    "PATCH /channels/{channel_id}",
    "POST /channels/{channel_id}/messages",
    "PATCH /channels/{channel_id}/messages/{message_id}",
    "POST /channels/{channel_id}/messages/{message_id}/threads",
)
metrics.zero(metrics.REST_REQUESTS, ROUTES)
metrics.zero(metrics.REST_FAILURES, ROUTES, metrics.REST_STATUSES)

URGENCY: contextvars.ContextVar[Urgency] = contextvars.ContextVar("tavern_urgency", default=Urgency.NORMAL)
_EDIT = "/channels/{channel_id}/messages/{message_id}"


@contextlib.contextmanager
def urgency(level: Urgency) -> Iterator[None]:
    """Requests made inside go with this urgency."""
    token = URGENCY.set(level)
    try:
        yield
    finally:
        URGENCY.reset(token)


_TURN: contextvars.ContextVar[int | None] = contextvars.ContextVar("tavern_turn", default=None)


@dataclass
class _Held:
    """Room in the budget held by ``Governor.reserved`` for the requests of one task (not of the tasks it
    starts): counted in flight, not sent yet."""

    task: asyncio.Task[Any] | None
    rooms: int = 0


_HELD: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("tavern_held_room", default=None)


@dataclass(eq=False)
class _Waiter:
    """A request waiting for room in the budget; ``newer`` is the later edit of the same message that
    replaced it (it then never goes)."""

    go: asyncio.Future[None]
    edit: str | None = None
    newer: _Waiter | None = None
    answer: asyncio.Future[Any] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class Governor:
    """At most ``per_second`` requests arrive at Discord in any one second, the rest queued by urgency.

    A request may arrive at any moment between its start and its answer, so the network's delays could
    bunch two seconds' requests into one at Discord's end. A request therefore goes only while fewer than
    ``per_second`` others are in flight or came back within the last second: then, whatever the delays,
    no second at Discord's end holds more than ``per_second`` of them."""

    def __init__(self, per_second: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = max(1, int(per_second))
        self._clock = clock
        self._flying = 0  # requests sent and not answered yet
        self._back: deque[float] = deque()  # when the requests of the last second were answered
        self._freed = asyncio.Event()  # a request was answered
        self._queue: list[tuple[int, int, int, _Waiter]] = []  # (urgency, turn, arrival, waiter)
        self._order = itertools.count()
        self._edits: dict[str, _Waiter] = {}  # the newest waiting edit of each message, by its url
        self._dispatcher: asyncio.Task[None] | None = None
        self.sent = 0
        self.queued = 0  # requests that had to wait for room
        self.dropped = 0  # edits replaced by a newer edit of the same message before they went

    def room(self) -> float:
        """Seconds until one more request may go: 0 now, ``inf`` until one in flight is answered."""
        now = self._clock()
        while self._back and now - self._back[0] >= 1.0:
            self._back.popleft()
        if self._flying + len(self._back) < self.per_second:
            return 0.0
        return self._back[0] + 1.0 - now if self._back else math.inf

    def backlog(self) -> float:
        """Seconds of budget the requests waiting now need: the pressure the tables should ease."""
        return len(self._queue) / self.per_second

    def load(self) -> float:
        """The share of the budget the last second used (1: all of it), requests in flight included."""
        self.room()  # forget what is more than a second old
        return min(1.0, (self._flying + len(self._back)) / self.per_second)

    def waiting(self) -> int:
        """Requests waiting for room now (the metrics' gauge)."""
        return len(self._queue)

    async def send(
        self, method: str, route_path: str, url: str, request: Callable[[], Awaitable[Any]]
    ) -> Any:
        """``request()`` once the budget has room for it, after every more urgent request waiting (at once
        on room held by ``reserved``)."""
        route = f"{method} {route_path}"  # discord.py's template: a label of few values, never an id
        held = _HELD.get()
        if held is not None and held.rooms > 0 and held.task is asyncio.current_task():
            held.rooms -= 1
            return await self._fly(request, route)
        if not self._queue and self.room() == 0:
            self._flying += 1
            return await self._fly(request, route)
        queued = time.perf_counter()
        waiter = await self._queue_for_room(url if method == "PATCH" and route_path == _EDIT else None)
        if waiter.newer is not None:
            return await asyncio.shield(waiter.answer)
        if waiter.edit is not None and self._edits.get(waiter.edit) is waiter:
            del self._edits[waiter.edit]  # an edit from now on waits on its own
        try:
            result = await self._fly(request, route, time.perf_counter() - queued)
        except asyncio.CancelledError:
            waiter.answer.cancel()
            raise
        except BaseException as err:
            waiter.answer.set_exception(err)
            waiter.answer.exception()  # retrieved: only the replaced edits read it
            raise
        waiter.answer.set_result(result)
        return result

    def new_turn(self) -> int:
        """A turn that begins now: after every turn begun before."""
        return next(self._order)

    @contextlib.contextmanager
    def in_turn(self, turn: int) -> Iterator[None]:
        """The requests made inside wait as ``turn``: within one urgency, a turn's requests go before those
        of every later turn (and in order of arrival within it). A table tells everything in the turn it
        opened in, so a table in play — whose telling holds its lock, and so its players' next moves — is
        not held back behind the tables that opened after it. A turn inside a turn is the outer one."""
        if _TURN.get() is not None:
            yield
            return
        token = _TURN.set(turn)
        try:
            yield
        finally:
            _TURN.reset(token)

    @contextlib.asynccontextmanager
    async def reserved(self, rooms: int, level: Urgency) -> AsyncIterator[None]:
        """Wait, with ``level``'s urgency, for room for ``rooms`` requests and hold it: requests this task
        makes inside go at once while the held room lasts, the rest wait as usual. A table's courier waits
        for the budget here before it takes the table's lock, so it never holds a table's lock while the
        budget is short; room it did not use is given back."""
        held = _Held(asyncio.current_task())
        try:
            with urgency(level):
                for _ in range(rooms):
                    await self._queue_for_room(None)
                    held.rooms += 1
            token = _HELD.set(held)
            try:
                yield
            finally:
                _HELD.reset(token)
        finally:
            if held.rooms:
                self._flying -= held.rooms  # counted in flight, never sent
                held.rooms = 0
                self._freed.set()

    async def _queue_for_room(self, edit: str | None) -> _Waiter:
        """Queue by urgency until the budget lets this request go (counted in flight from then on), or a
        newer edit of the same message replaces it (``newer`` set: it never goes)."""
        loop = asyncio.get_running_loop()
        waiter = _Waiter(loop.create_future(), edit=edit)
        if edit is not None:
            older = self._edits.get(edit)
            if older is not None and not older.go.done():
                older.newer = waiter
                waiter.answer = older.answer  # one answer for the edits of one message that wait together
                older.go.set_result(None)  # out of the queue: it takes the newer edit's answer
                self.dropped += 1
            self._edits[edit] = waiter
        self.queued += 1
        order = next(self._order)
        turn = _TURN.get()
        heapq.heappush(self._queue, (URGENCY.get(), order if turn is None else turn, order, waiter))
        if self._dispatcher is None or self._dispatcher.done():
            self._dispatcher = asyncio.create_task(self._dispatch(), name="tavern-governor")
        try:
            await waiter.go
        except asyncio.CancelledError:
            if waiter.go.done() and not waiter.go.cancelled() and waiter.newer is None:
                self._flying -= 1  # let go and counted in flight, but never sent: its room is free again
                self._freed.set()
            waiter.go.cancel()
            if self._edits.get(edit or "") is waiter:
                del self._edits[edit or ""]
                if not waiter.answer.done():
                    waiter.answer.cancel()
            raise
        return waiter

    async def _fly(self, request: Callable[[], Awaitable[Any]], route: str, waited: float = 0.0) -> Any:
        """Send a request counted in flight (by whoever let it go) until it is answered; ``waited`` is how
        long it waited for room (0: at once, or on room held for it)."""
        self.sent += 1
        metrics.REST_REQUESTS.labels(route).inc()
        metrics.REST_BUDGET_WAIT.observe(waited)
        try:
            return await request()
        except discord.HTTPException as err:
            metrics.REST_FAILURES.labels(route, str(err.status)).inc()
            raise
        except Exception:
            metrics.REST_FAILURES.labels(route, "error").inc()  # no answer: the network, a timeout
            raise
        finally:
            self._flying -= 1
            self._back.append(self._clock())
            self._freed.set()

    async def _dispatch(self) -> None:
        """Let the waiting requests go, most urgent first, as the budget makes room."""
        while self._queue:
            wait = self.room()
            if wait > 0:
                self._freed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._freed.wait(), None if wait == math.inf else wait)
                continue
            *_, waiter = heapq.heappop(self._queue)
            if waiter.go.done():  # replaced by a newer edit, or its caller gave up
                continue
            self._flying += 1
            waiter.go.set_result(None)


class _OneWarningAPause(logging.Filter):
    """discord.py warns twice for each request a global 429 answered ("We are being rate limited", then
    "Global rate limit has been hit"), so the requests in flight when the budget ran out would fill the log
    with one pause. This lets the first warning of a pause through and none until its ``retry_after`` has
    passed."""

    # discord.py's own log formats, matched (not shown to anyone)
    _GLOBAL = "Global rate limit has been hit."  # i18n: not text
    _ANY = "We are being rate limited. %s %s responded with 429. Retrying"  # i18n: not text

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._clock = clock
        self._until = -math.inf  # when the pause last warned of ends

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if not message.startswith((self._GLOBAL, self._ANY)):
            return True
        now = self._clock()
        if now < self._until:
            return False  # the pause already warned of
        if message.startswith(self._GLOBAL) and record.args:
            self._until = now + float(record.args[0])  # type: ignore[index, arg-type]
        return True


_ONE_WARNING_A_PAUSE = _OneWarningAPause()


def install(client: discord.Client, governor: Governor) -> None:
    """Route every request of ``client``'s HTTP client (bot-token routes: everything outside the interaction
    endpoints) through ``governor``."""
    http_log = logging.getLogger(discord.http.__name__)
    if _ONE_WARNING_A_PAUSE not in http_log.filters:
        http_log.addFilter(_ONE_WARNING_A_PAUSE)
    http = client.http
    request = http.request

    async def governed(route: discord.http.Route, **kwargs: Any) -> Any:
        return await governor.send(route.method, route.path, route.url, lambda: request(route, **kwargs))

    http.request = governed  # type: ignore[method-assign]
