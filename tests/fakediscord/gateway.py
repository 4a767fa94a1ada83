"""The gateway: the websocket the bot connects to, HELLO, heartbeats, IDENTIFY and READY, and the dispatch
of events to the connection of their shard.

The gateway routes by shard as Discord does, so several bot processes (each an ``AutoShardedBot`` with its
own ``shard_ids``, one token) can share one fake. IDENTIFY's ``shard`` ``[shard_id, shard_count]`` (absent:
``[0, 1]``) is remembered per connection; an invalid one (``shard_id`` outside ``0..shard_count-1``) closes
the socket with 4010 "Invalid shard.". A guild belongs to shard ``(guild_id >> 22) % shard_count``
(``shard_of``): READY lists only that connection's guilds and echoes its ``shard``, GUILD_CREATE follows for
those only, and every event about a guild (the payload's ``guild_id``, interactions from its channels and
threads) goes only to the connection of the guild's shard; events without a guild (a DM's interactions) go
to shard 0 only. Of two live connections for one guild's events, the most recently identified gets them.
An event whose shard has no live connection is not delivered (``FakeInteraction.shard`` is then None, and a
drive call waiting for an answer times out). ``GET /gateway/bot`` answers ``recommended_shards`` and the
fake's gateway URL, which discord.py uses when no ``shard_count`` is given.
"""

from __future__ import annotations

import json
import time
import traceback
from collections import Counter
from typing import Any

from aiohttp import WSMsgType, web

from .model import shard_of
from .state import FakeState

GUILDS_INTENT = 1 << 0
GUILD_MEMBERS_INTENT = 1 << 1


class Connection:
    """One gateway websocket: its sequence, and once identified its intents, shard and identify order."""

    def __init__(self, ws: web.WebSocketResponse, events: Counter[str] | None = None) -> None:
        self.ws = ws
        self.events: Counter[str] = Counter() if events is None else events  # dispatches sent, by type
        self.seq = 0
        self.identified = False
        self.intents = 0
        self.shard_id = 0
        self.shard_count = 1
        self.order = 0  # the identify_count at its IDENTIFY: the newest live connection of a shard wins

    @property
    def live(self) -> bool:
        return self.identified and not self.ws.closed

    def covers(self, guild_id: int | None) -> bool:
        """Whether Discord sends this connection the events of ``guild_id`` (None: events without a guild,
        which go to shard 0)."""
        if guild_id is None:
            return self.shard_id == 0
        return shard_of(guild_id, self.shard_count) == self.shard_id

    async def send(self, op: int, d: Any, t: str | None = None) -> None:
        payload: dict[str, Any] = {"op": op, "d": d, "s": None, "t": t}
        if op == 0:
            self.seq += 1
            payload["s"] = self.seq
            self.events[t or ""] += 1
        await self.ws.send_str(json.dumps(payload))


class Gateway(FakeState):
    """The gateway side of the fake: connections, READY, dispatch by shard."""

    def live_shards(self) -> list[tuple[int, int]]:
        """``(shard_id, shard_count)`` of every live identified gateway connection, oldest IDENTIFY first."""
        return [(c.shard_id, c.shard_count) for c in sorted(self._live(), key=lambda c: c.order)]

    def _live(self) -> list[Connection]:
        return [c for c in self._conns if c.live]

    def _route(self, guild_id: int | None) -> Connection | None:
        """The connection Discord sends the events of ``guild_id`` to (None: events without a guild, shard
        0's): the most recently identified live one whose shard has the guild, or None (not delivered)."""
        covering = [c for c in self._live() if c.covers(guild_id)]
        return max(covering, key=lambda c: c.order, default=None)

    async def _dispatch(self, event: str, payload: dict[str, Any], *, intent: int = GUILDS_INTENT) -> None:
        """Send a gateway event to the connection of its guild's shard (the payload's ``guild_id``; without
        one, shard 0), if that connection asked for the intent that carries it."""
        guild_id = payload.get("guild_id")
        conn = self._route(int(guild_id) if guild_id is not None else None)
        if conn is not None and conn.intents & intent:
            await conn.send(0, payload, event)

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.gateway_opened_at.append(time.monotonic())
        conn = Connection(ws, self.gateway_events)
        self._conns.append(conn)
        try:
            await conn.send(10, {"heartbeat_interval": self.heartbeat_interval_ms})
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                if op == 1:
                    await conn.send(11, None)
                elif op == 2:
                    await self._identify(conn, frame["d"])
                elif op == 6:  # resume: not modelled, make the client identify afresh
                    await conn.send(9, False)
        except Exception:
            self.errors.append(traceback.format_exc())
        finally:
            self._conns.remove(conn)
        return ws

    async def _identify(self, conn: Connection, d: dict[str, Any]) -> None:
        token = str(d.get("token", "")).removeprefix("Bot ")
        if token != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        shard = d.get("shard")
        if shard is None:
            shard = [0, 1]
        valid = isinstance(shard, list) and len(shard) == 2 and all(type(n) is int for n in shard)
        if not valid or not 0 <= shard[0] < shard[1]:
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return
        self.identify_count += 1
        self.identified_at.append(time.monotonic())
        conn.identified = True
        conn.intents = int(d.get("intents") or 0)
        conn.shard_id, conn.shard_count = shard
        conn.order = self.identify_count
        guilds = [g for g in self.guilds.values() if conn.covers(g.id)]
        ready = {
            "v": 10,
            "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": f"session-{self.identify_count}",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.app_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "shard": [conn.shard_id, conn.shard_count],
        }
        await conn.send(0, ready, "READY")
        for guild in guilds:
            await conn.send(0, guild.payload(), "GUILD_CREATE")

    def _gateway_bot(self) -> dict[str, Any]:
        """Get Gateway Bot: where to connect and how many shards to run (discord.py's AutoShardedClient asks
        when it is given no shard_count, and then connects to this ``url`` instead of DEFAULT_GATEWAY)."""
        return {
            "url": self.gateway_url,
            "shards": self.recommended_shards,
            "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1},
        }
