"""Draining: a stopping bot lets the presses and commands it accepted finish, and refuses new ones.

``docker stop`` sends SIGTERM and kills the process ten seconds later. Every press of every kind (a move, a
lobby's button, a rules page, a confirmation of forget-me or of a new season, a history or replay page, a
preference switch, Post in channel) is handled inside :meth:`Drain.in_flight` (``router.on_component``), and
every slash command between :meth:`Drain.enter` (the command tree's check, before it runs) and
:meth:`Drain.leave` (its completion or its error). Once :meth:`Drain.close` starts, a new press or slash
command gets a short ephemeral refusal, and ``TavernBot.close`` waits (a few seconds at most) for those
already running — a move holding its table's lock among them — to commit and answer before the gateway, the
HTTP session and the database close.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from discord import app_commands

from bot.base.refusals import UserFacingError

log = logging.getLogger("tavern.drain")


class Restarting(UserFacingError, app_commands.CheckFailure):
    """A press or command that arrived while the bot is closing. A ``CheckFailure`` too, so a command tree's
    ``interaction_check`` can raise it and it reaches the tree's error handler."""

    def __init__(self) -> None:
        super().__init__("tavern.restarting")


class Drain:
    """Counts the presses being handled; once closing, refuses new ones."""

    def __init__(self) -> None:
        self.closing = False
        self._busy = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._entered: set[object] = set()  # work counted by enter() until its leave()

    @property
    def busy(self) -> int:
        """How many presses are being handled right now."""
        return self._busy

    def refuse_if_closing(self) -> None:
        if self.closing:
            raise Restarting()

    @asynccontextmanager
    async def in_flight(self) -> AsyncIterator[None]:
        """Handle one press: refused (``Restarting``) once closing has started, else counted until done."""
        self.refuse_if_closing()
        self._start()
        try:
            yield
        finally:
            self._done()

    def enter(self, key: object) -> None:
        """Count work that ends elsewhere (a slash command: it is let in by the command tree's check and
        ends in its completion or its error handler) until :meth:`leave` with the same key; refused
        (``Restarting``) once closing has started."""
        self.refuse_if_closing()
        if key not in self._entered:
            self._entered.add(key)
            self._start()

    def leave(self, key: object) -> None:
        """The work counted by :meth:`enter` under ``key`` is done (nothing if it was not counted)."""
        if key in self._entered:
            self._entered.discard(key)
            self._done()

    def _start(self) -> None:
        self._busy += 1
        self._idle.clear()

    def _done(self) -> None:
        self._busy -= 1
        if self._busy == 0:
            self._idle.set()

    async def close(self, timeout: float) -> bool:
        """Refuse new presses from now on and wait up to ``timeout`` seconds for the running ones; False
        (logged) if some were still running — their transaction commits whole or not at all either way."""
        self.closing = True
        if self._busy:
            log.info("Closing: waiting for %d press(es) in flight", self._busy)
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            log.warning(
                "Closing: %d press(es) still running after %.0f s; closing anyway", self._busy, timeout
            )
            return False
        return True
