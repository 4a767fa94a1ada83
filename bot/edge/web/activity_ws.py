"""The Activity's socket, ``/a/ws`` (docs/ACTIVITY.md): who is at the other end, which table they see, and
a seated player's presses.

The first frame is the page's session token (``Links.read_session``: another user's, an expired or a
forged one closes the socket, ``NOT_SIGNED_IN``); the instance it names is asked of Discord once more, so
a session outliving its instance sees nothing (``ENDED``). Then:

- a seated player (``TableService.seated_at``) watches their own table through the live fan-out, like any
  live page, and is sent their own seat's panel (``{"panel": html, "seat": n}``, drawn by
  ``activity_page.panel_html`` from the panel the DM shows) whenever the table tells something, and after
  each of their own presses;
- anyone else in the instance watches the table of the instance's channel, where its server lets its games
  be watched, through the same fan-out: the public table, never a hand (``NO_TABLE`` where there is none).

A press is ``{"press": "<custom id>", "values": [...]}``. The user is the session's, never the frame's; the
id is read by ``custom_ids.parse`` and must name this connection's table and a control of the panel this
connection was last sent (and its values that control's options), as Discord checks a message's
components; then it goes through the controller's page door (``PagePresses``) inside the drain. A refusal
is ``{"refused": text}`` to this connection only. Pings are answered as on the live page; anything else
closes the socket (1008).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import aiohttp
from aiohttp import web

from bot.base.i18n import speaking, t
from bot.base.panel import Button, Control, Panel
from bot.edge import custom_ids
from bot.edge.drain import Drain
from bot.edge.errors import user_message
from bot.edge.table import TableController
from bot.edge.web.activity import SignIn, SignInRefused
from bot.edge.web.activity_page import controls_of, nothing_html, panel_html
from bot.edge.web.fanout import POLICY, Fanout
from bot.edge.web.viewers import Viewer, ping_of
from bot.games import Table
from bot.services.links import Links
from bot.services.server_settings import BROWSER_OFF, ServerSettings
from bot.services.tables import TableService

log = logging.getLogger("tavern.web.activity")

FIRST_SECONDS = 10.0  # how long the page has to send its session token
MAX_FRAME = 4096  # bytes a page may send in one message (a press with a menu's values)
PRESSES = 5.0  # presses a second a page may send, over time (more are refused, not played)
PRESS_BURST = 20.0
NOT_SIGNED_IN = 4401  # no session, another's, forged or expired: the page signs in again
ENDED = 4403  # the session's instance is no longer live
NO_TABLE = 4404  # nothing to show: nobody seated here, no table in the instance's channel


class Sessioned(Protocol):
    """What the Activity's socket reads of the bot."""

    @property
    def links(self) -> Links | None: ...
    @property
    def tables(self) -> TableService: ...
    @property
    def server_settings(self) -> ServerSettings: ...
    @property
    def controller(self) -> TableController: ...
    @property
    def drain(self) -> Drain: ...
    @property
    def application_id(self) -> int | None: ...
    @property
    def clock(self) -> Callable[[], float]: ...


@dataclass(eq=False)
class Seat:
    """A seated player's connection: their viewer, the page's language, and the controls of the panel it was
    last sent (what a press may name)."""

    viewer: Viewer
    user_id: int
    lang: str
    table_id: int
    seat: int
    controls: dict[str, Control] = field(default_factory=dict)
    presses: float = field(default_factory=lambda: PRESS_BURST)
    pressed: float = field(default_factory=time.monotonic)

    def send(self, message: dict[str, Any]) -> None:
        self.viewer.tell(json.dumps(message).encode())

    def show(self, table: Table, panel: Panel | None) -> None:
        """The seat's panel is now ``panel`` (None: no panel, the game is over); its controls are what the
        page may press from now on."""
        if panel is None:
            self.controls = {}
            self.send({"panel": None, "seq": table.seq})
            return
        self.controls = controls_of(panel, table.id)
        self.send({"panel": panel_html(panel, table.id), "seq": table.seq, "seat": self.seat})

    def allowed(self) -> bool:
        """One press more within the connection's budget."""
        now = time.monotonic()
        self.presses = min(PRESS_BURST, self.presses + (now - self.pressed) * PRESSES)
        self.pressed = now
        if self.presses < 1.0:
            return False
        self.presses -= 1.0
        return True

    # -- the page's side of a press's answer (``bot.edge.table.page.PageAnswer``)

    async def panel(self, table: Table, seat: int, panel: Panel) -> None:
        self.show(table, panel)

    async def aside(self, panel: Panel) -> None:
        # words only: the seat's cards are drawn once, on its panel (an older picture would say them twice)
        self.send({"aside": panel_html(replace(panel.without_controls(), picture=None), 0)})


def press_of(data: str) -> tuple[str, list[str]] | None:
    """The custom id and values of a press frame (exactly ``{"press": str, "values": [str, ...]}``, the
    values optional); None for anything else."""
    try:
        message = json.loads(data)
    except ValueError:
        return None
    if not isinstance(message, dict) or "press" not in message or not set(message) <= {"press", "values"}:
        return None
    cid, values = message["press"], message.get("values", [])
    if not isinstance(cid, str) or not isinstance(values, list):
        return None
    return cid, values


def offered(controls: dict[str, Control], cid: str, values: tuple[str, ...]) -> None:
    """``custom_ids.offered`` for the page: the control was on the panel this connection was last sent, and
    the values among its options, as many as it allows."""
    control = controls.get(cid)
    if control is None:
        raise custom_ids.Refused(f"{cid!r} is not on the page's panel")
    if isinstance(control, Button):
        if values:
            raise custom_ids.Refused(f"a button {cid!r} sent values")
        return
    if control.disabled or not set(values) <= control.values:
        raise custom_ids.Refused(f"values {values!r} were not offered by {cid!r}")
    if not min(control.min_values, len(control.options)) <= len(values) <= control.max_values:
        raise custom_ids.Refused(f"{len(values)} values for {cid!r}")


class ActivitySockets:
    """Every Activity socket of the process, and the seated ones by table (their panels follow the table)."""

    def __init__(self, bot: Sessioned, fanout: Fanout, sign_in: SignIn) -> None:
        self.bot, self.fanout, self.sign_in = bot, fanout, sign_in
        self._seats: dict[int, set[Seat]] = {}

    def told(self, table: Table, events: Any) -> None:
        """The Watch listener: each connected seat of the table gets its panel as the table is now (in its
        page's language), or none once the game is over."""
        for seat in tuple(self._seats.get(table.id, ())):
            if table.status != "active" or table.is_over() or table.seat_of(seat.user_id) is None:
                seat.show(table, None)
                continue
            with speaking(seat.lang):
                seat.show(table, table.adapter.seat_panel(table, seat.seat))

    async def serve(self, socket: web.WebSocketResponse, lang: str, abort: Callable[[], None]) -> None:
        """The prepared socket, from its session frame to its end."""
        try:
            first = await socket.receive(timeout=FIRST_SECONDS)
        except TimeoutError:
            await socket.close(code=NOT_SIGNED_IN, message=b"no session")
            return
        links = self.bot.links
        now = self.bot.clock()
        token = first.data if first.type is aiohttp.WSMsgType.TEXT else None
        who = links.read_session(token, now) if links is not None else None
        if who is None or not isinstance(token, str):
            await socket.close(code=NOT_SIGNED_IN, message=b"not signed in")
            return
        user_id, instance = who
        app_id = self.bot.application_id
        try:
            if app_id is None:
                raise SignInRefused(502, "the bot has not logged in yet")
            _guild_id, channel_id = await self.sign_in.where(app_id, instance, user_id)
        except SignInRefused as refused:
            log.info("An Activity socket was refused (%d): %s", refused.status, refused)
            await socket.close(code=ENDED, message=b"instance ended")
            return
        until = float(token.split(".")[2])  # the session's expiry, read and checked above
        table = await self.bot.tables.seated_at(user_id)
        seated = table is not None
        if table is None and channel_id is not None:
            table = await self._watched_in(channel_id)
        if table is None:
            await socket.send_json({"none": nothing_html(lang)})
            await socket.close(code=NO_TABLE, message=b"no table")
            return
        await self._watch(socket, table, lang, abort, until, user_id if seated else None)

    async def _watched_in(self, channel_id: int) -> Table | None:
        """The live table of the instance's channel, where its server lets its games be watched."""
        table = await self.bot.tables.table_for_channel(channel_id)
        if table is None or (await self.bot.server_settings.get(table.guild_id)).browser == BROWSER_OFF:
            return None
        return table

    async def _watch(
        self,
        socket: web.WebSocketResponse,
        table: Table,
        lang: str,
        abort: Callable[[], None],
        until: float,
        user_id: int | None,
    ) -> None:
        viewer = await self.fanout.join(table, lang, socket, abort, until)
        seat: Seat | None = None
        try:
            index = table.seat_of(user_id) if user_id is not None else None
            if user_id is not None and index is not None:
                seat = Seat(viewer, user_id, lang, table.id, index)
                self._seats.setdefault(table.id, set()).add(seat)
                with speaking(lang):
                    seat.show(table, table.adapter.seat_panel(table, index))
            with contextlib.suppress(ConnectionError):
                await self._listen(socket, viewer, seat)
        finally:
            self.fanout.leave(viewer)
            if seat is not None:
                group = self._seats.get(table.id)
                if group is not None:
                    group.discard(seat)
                    if not group:
                        del self._seats[table.id]

    async def _listen(self, socket: web.WebSocketResponse, viewer: Viewer, seat: Seat | None) -> None:
        """Pings, and a seat's presses; anything else closes the socket."""
        async for message in socket:
            if message.type is aiohttp.WSMsgType.ERROR:
                return
            if message.type is aiohttp.WSMsgType.TEXT:
                number = ping_of(message.data)
                if number is not None and viewer.ping(number):
                    continue
                pressed = press_of(message.data) if seat is not None else None
                if seat is not None and pressed is not None:
                    if seat.allowed():
                        await self._press(seat, *pressed)
                    else:
                        with speaking(seat.lang):
                            seat.send({"refused": t("tavern.error.cooldown", seconds="1")})
                    continue
            await socket.close(code=POLICY, message=b"pings and presses only")
            return

    async def _press(self, seat: Seat, cid: str, values: list[str]) -> None:
        """One press of the seat's panel, answered to this connection only."""
        with speaking(seat.lang):
            try:
                click = custom_ids.parse(cid, values)
                offered(seat.controls, cid, click.values)
                if click.scope != "g" or click.key != seat.table_id:
                    raise custom_ids.Refused(f"{cid!r} is another table's")
                async with self.bot.drain.in_flight():
                    await self.bot.controller.page.press(seat, seat.user_id, click)
            except asyncio.CancelledError:
                raise
            except Exception as err:
                said = user_message(err)
                if said is None:
                    log.exception("game %d: a press from the Activity failed", seat.table_id)
                    said = t("tavern.error.apology")
                else:
                    log.info("game %d: a press from the Activity was refused: %r", seat.table_id, err)
                seat.send({"refused": said})
