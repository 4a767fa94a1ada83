"""One browser watching a table: its socket, the newest frame (and pong) it has not been sent, its own
frames (an Activity seat's panel), its pings' allowance, and the goodbye that closes it. The fan-out
(:mod:`.fanout`) hands frames to viewers; a viewer never waits on another."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Protocol

import aiohttp

PINGS = 1.0  # pings a second a browser may send, over time (live.js sends one every 25 s or so)
PING_BURST = 5.0
CLOSE_SECONDS = 2.0  # how long a closing handshake may take


class Socket(Protocol):
    """What a viewer is sent through: an aiohttp ``WebSocketResponse`` (or a bench's stand-in)."""

    @property
    def closed(self) -> bool: ...
    async def send_frame(
        self, message: bytes, opcode: aiohttp.WSMsgType, compress: int | None = None
    ) -> None: ...
    async def close(self, *, code: int = ..., message: bytes = ..., drain: bool = ...) -> bool: ...


class Viewer:
    """One browser: its socket, its language, the newest frame (and pong) not yet sent, its writer, and
    when the link it came with expires (on the fan-out's clock; None: never)."""

    def __init__(
        self,
        socket: Socket,
        lang: str,
        table_id: int,
        abort: Callable[[], None],
        until: float | None = None,
    ) -> None:
        self.socket, self.lang, self.table_id, self.abort = socket, lang, table_id, abort
        self.until = until
        self.frame: bytes | None = None
        self.pong: bytes | None = None
        self.own: list[bytes] = []  # this viewer's own frames (an Activity seat's panel), after the table's
        self.since: float | None = None  # when the send under way began (None: not sending)
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.pings = PING_BURST
        self.pinged = time.monotonic()
        self.sent = 0

    def offer(self, frame: bytes) -> None:
        """The newest frame replaces one still waiting: a slow viewer skips to the latest."""
        self.frame = frame
        self.wake.set()

    def ping(self, number: int) -> bool:
        """Answer a ping (False: too many, the socket is closed)."""
        now = time.monotonic()
        self.pings = min(PING_BURST, self.pings + (now - self.pinged) * PINGS)
        self.pinged = now
        if self.pings < 1.0:
            return False
        self.pings -= 1.0
        self.pong = json.dumps({"pong": number}).encode()
        self.wake.set()
        return True

    def tell(self, frame: bytes) -> None:
        """A frame for this viewer alone, sent after the table's newest (none is skipped)."""
        self.own.append(frame)
        self.wake.set()

    def take(self) -> list[bytes]:
        out = [text for text in (self.pong, self.frame) if text is not None] + self.own
        self.pong = self.frame = None
        self.own = []
        return out


def ping_of(data: str) -> int | None:
    """N of a ``{"ping": N}`` message (a whole number), None for anything else."""
    try:
        message = json.loads(data)
    except ValueError:
        return None
    if not isinstance(message, dict) or len(message) != 1:
        return None
    number = message.get("ping")
    if type(number) is not int or not 0 <= number < 2**53:
        return None
    return number


async def goodbye(socket: Socket, code: int, why: bytes) -> None:
    with contextlib.suppress(TimeoutError, ConnectionError, RuntimeError):
        async with asyncio.timeout(CLOSE_SECONDS):
            await socket.close(code=code, message=why)
