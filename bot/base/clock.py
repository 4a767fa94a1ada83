"""The one clock every service reads: moves, timers and lobby expiry all agree on what time it is.

Tests advance it (``bot.base.clock.advance(90)``) instead of sleeping or patching private methods.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class Clock:
    """Wall-clock seconds (``time.time`` by default) plus an offset that only tests move."""

    def __init__(self, source: Callable[[], float] = time.time) -> None:
        self._source = source
        self.offset = 0.0

    def __call__(self) -> float:
        return self._source() + self.offset

    def advance(self, seconds: float) -> None:
        """Move the clock (backwards too, for a test that checks a refusal before a deadline)."""
        self.offset += seconds
