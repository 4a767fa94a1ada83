"""discord.py's rate-limit buckets swept for idle ones at most once a minute, not on every new bucket.

discord.py keeps one bucket per route and major parameter (each channel, thread, DM channel and webhook
token is its own), and once it holds 256 it scans every one for idle ones (300 s without a request) each time
it makes a new one (``HTTPClient._try_clear_expired_ratelimits``, from ``get_ratelimit``). With a thousand
tables it holds thousands, none idle, and a new one comes with nearly every new thread, DM or message: the
scan ran about 500,000 times in 30 s of the load bench. A bucket is only dropped after five idle minutes
anyway, so one sweep a minute keeps the buckets as few as before, give or take a minute's new ones.
There is no public hook; ``tests/test_discord_internals.py`` checks what this relies on.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import discord

SWEEP_SECONDS = 60.0


def install(
    http: discord.http.HTTPClient,
    every: float = SWEEP_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Make ``http``'s sweep of idle buckets run at most once every ``every`` seconds of ``clock``."""
    sweep = http._try_clear_expired_ratelimits
    last = -math.inf

    def bounded() -> None:
        nonlocal last
        now = clock()
        if now - last >= every:
            last = now
            sweep()

    http._try_clear_expired_ratelimits = bounded  # type: ignore[method-assign]
