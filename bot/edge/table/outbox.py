"""A table's outbox: the calls its channel has not been shown yet, and whether its board and summary lag.

Calls that ping nobody wait a moment (the courier's coalescing window) to go out with the next ones, packed
into as few messages as fit; the board is edited at most once per ``BOARD_EVERY`` windows and the channel's
summary at most once per ``SUMMARY_EVERY``. Kept in memory only: a crash loses at most one window of calls,
never a move (the table stays marked untold until they are out).
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field, replace

from bot.edge import delivery
from bot.games import Announcement

BOARD_EVERY = 3  # the board is edited at most once per this many coalescing windows
SUMMARY_EVERY = 12  # the summary in the channel (a game played in a thread), once per this many
# Global requests a table makes per window at most, all its parts due: what the window's fair share counts.
PER_WINDOW = 1 + 1 / BOARD_EVERY + 1 / SUMMARY_EVERY


@dataclass
class Outbox:
    """What a table's channel has not been shown yet (see ``Settings.coalesce_seconds``): calls that pinged
    nobody, waiting for their window to end or for the next call that pings someone, and whether the board
    message is behind. Kept in memory only: a crash loses at most one window of calls, never a move."""

    messages: list[Announcement] = field(default_factory=list)
    since: float = 0.0  # when the first waiting call came
    board_dirty: bool = False
    board_at: float = -math.inf  # when the board was last edited
    summary_dirty: bool = False
    summary_at: float = -math.inf  # when the summary was last edited
    task: asyncio.Task[None] | None = None
    # set when something new waits: the courier sees again what is due first
    nudged: asyncio.Event = field(default_factory=asyncio.Event)
    through: int = 0  # the action count the waiting calls tell the table up to

    def pending(self) -> bool:
        return bool(self.messages) or self.board_dirty or self.summary_dirty

    def picture(self) -> bool:
        return any(a.picture is not None for a in self.messages)

    def board_due(self, window: float) -> float:
        """When the board's next edit may go: one per ``BOARD_EVERY`` coalescing windows."""
        return self.board_at + BOARD_EVERY * window

    def due(self, window: float) -> tuple[float, str]:
        """When the next part is due, and which: ``calls`` (when the window of the first waiting one ends),
        ``board`` or ``summary`` (their next edit may go); ``inf`` with nothing waiting."""
        parts = [(math.inf, "")]
        if self.messages:
            parts.append((self.since + window, "calls"))
        if self.board_dirty:
            parts.append((self.board_due(window), "board"))
        if self.summary_dirty:
            parts.append((self.summary_at + SUMMARY_EVERY * window, "summary"))
        return min(parts)

    def queue(self, ann: Announcement, now: float, through: int) -> None:
        """Let the calls wait for the window (or the next call that pings someone)."""
        if ann.messages:
            if not self.messages:
                self.since = now
            self.messages.append(ann)
        self.through = through

    def take(self, ann: Announcement) -> Announcement:
        """``ann`` with the waiting calls first, packed together into as few messages as fit."""
        if not self.messages:
            return ann
        waiting, self.messages = [*self.messages, ann], []
        texts: list[str] = []
        picture, picture_at = None, -1
        for a in waiting:
            for i, text in enumerate(a.messages):
                at = a.picture is not None and i == a.picture_at % len(a.messages)
                joined = f"{texts[-1]}\n{text}" if texts else text
                if texts and len(joined) <= delivery.CONTENT_LIMIT and not (at and picture is not None):
                    texts[-1] = joined
                else:
                    texts.append(text)
                if at:
                    picture, picture_at = a.picture, len(texts) - 1
        return replace(ann, messages=texts, picture=picture, picture_at=picture_at)
