"""Faults a test injects: one request failing (``fail_next``), answered 429 (``rate_limit_next``), hung until
cut (``hang``), uploads failing (``fail_uploads``); and the faults Discord makes by itself: its global rate
limit (``global_limit`` requests a second outside the interaction endpoints, else a global 429) and its
upload limit per file (413 40005).
"""

from __future__ import annotations

import asyncio
import math
import re
import secrets
import time
from dataclasses import dataclass, field

from aiohttp import web

from .errors import DiscordError
from .model import FilePart
from .state import API, FakeState


@dataclass
class Hang:
    """Requests that reach the fake and are never answered until :meth:`cut`, then fail unapplied: a
    connection lost mid-request (a bot killed while it waits on Discord)."""

    method: str
    pattern: re.Pattern[str]
    waiting: int = 0  # requests caught so far
    caught: asyncio.Event = field(default_factory=asyncio.Event)
    over: asyncio.Event = field(default_factory=asyncio.Event)

    def cut(self) -> None:
        """Let go: the caught requests fail (nobody is left to read the answer), later ones pass."""
        self.over.set()


class Faults(FakeState):
    """Passing faults, rate limits and the upload limit, checked by the middleware before a route runs."""

    def fail_next(self, method: str, path_regex: str, status: int, code: int, message: str) -> None:
        """The next ``method`` request whose path (after ``/api/v10``, e.g. ``/channels/1/messages``)
        matches ``path_regex`` (``re.search``) fails once with Discord's error shape, before the fake
        looks at it: a passing fault (403 on a thread creation, 404 on an edit...)."""
        self._failures.append((method.upper(), re.compile(path_regex), DiscordError(status, code, message)))

    def hang(self, method: str, path_regex: str) -> Hang:
        """Every ``method`` request (``""``: any) whose path (after ``/api/v10``) matches ``path_regex``
        waits, unanswered and unapplied, until the returned :class:`Hang` is cut, then fails: for catching
        a bot between two of its requests, e.g. to kill it there."""
        hang = Hang(method.upper(), re.compile(path_regex))
        self._hangs.append(hang)
        return hang

    async def _hung(self, request: web.Request) -> None:
        path = request.path.removeprefix(API)
        for hang in self._hangs:
            if hang.over.is_set() or hang.method not in ("", request.method) or not hang.pattern.search(path):
                continue
            hang.waiting += 1
            hang.caught.set()
            self._inflight -= 1  # a hung request is not the bot at work: settle() may return meanwhile
            try:
                await hang.over.wait()
            finally:
                self._inflight += 1
            raise DiscordError(503, 0, "the connection was lost")

    def rate_limit_next(
        self, method: str, path_regex: str, retry_after: float = 0.05, *, scope: str = "user"
    ) -> None:
        """The next ``method`` request whose path matches ``path_regex`` (as :meth:`fail_next`) is answered
        429 as Discord's rate limits topic shows: the body ``{"message": "You are being rate limited.",
        "retry_after": …, "global": …}``, the headers ``Retry-After``, ``X-RateLimit-Scope`` (``user``,
        ``global`` or ``shared``), ``X-RateLimit-Limit``/``-Remaining`` (0)/``-Reset-After``/``-Bucket``, and
        ``Via`` (Discord's answers carry it; discord.py takes a 429 without it for a Cloudflare ban and gives
        up). discord.py then waits ``retry_after`` and sends the request again, logging a warning — the bot's
        HTTP client for bot-token routes, the webhook adapter for interaction routes (callbacks, followups,
        ``@original`` edits: limited per interaction token, outside the global limit)."""
        err = DiscordError(
            429,
            0,
            "You are being rate limited.",
            extra={"retry_after": retry_after, "global": scope == "global"},
            headers={
                "Retry-After": str(max(1, round(retry_after))),
                "X-RateLimit-Scope": scope,
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": f"{retry_after:.3f}",
                "X-RateLimit-Bucket": secrets.token_hex(16),
                "Via": "1.1 google",
            },
        )
        self._failures.append((method.upper(), re.compile(path_regex), err))

    def fail_uploads(
        self, status: int, code: int = 0, message: str = "Service Unavailable", times: int | None = None
    ) -> None:
        """Every request carrying at least one file part fails with Discord's error shape ``{"code": code,
        "message": message}`` and HTTP ``status``, before the fake looks at it; ``times=None`` until
        :meth:`fail_uploads_clear`, else that many requests. Requests without files are not touched. The
        failed requests are still counted in ``uploads`` (with ``status``).

        discord.py retries some statuses by itself, sleeping between tries (discord.py 2.7.1):

        * the bot's HTTP client (``discord/http.py`` ``HTTPClient.request``: channel messages, DMs, message
          edits, application emojis) makes at most 5 tries; it retries only 500, 502, 504 and 524, sleeping
          ``1 + 2 * try`` seconds after each (1, 3, 5, 7, 9: 25 s in all, then ``DiscordServerError``). Any
          other 5xx (503, 501, 520...) raises ``DiscordServerError`` at once; 4xx raise at once.
        * the webhook adapter (``discord/webhook/async_.py`` ``AsyncWebhookAdapter.request``: interaction
          callbacks, followups, ``@original`` and followup edits) retries EVERY status >= 500 the same way
          (5 tries, 25 s of sleep). So on interaction paths use a 4xx, or a 5xx with ``times`` small: with
          ``times=1`` the retry after 1 s succeeds.

        Both clients also retry a 429 after its ``retry_after`` (only with a ``Via`` header; else it raises).
        """
        assert times is None or times > 0, "times: None (until cleared) or a positive count"
        self._upload_failure = (DiscordError(status, code, message), times)

    def fail_uploads_clear(self) -> None:
        """Uploads succeed again (ends :meth:`fail_uploads`)."""
        self._upload_failure = None

    def _check_uploads(self, parts: dict[str, FilePart]) -> None:
        """What Discord answers to a request with files before reading its payload: an injected failure
        (``fail_uploads``), then 413 40005 for a file over the upload limit (checked per file since April
        2025, per the API change log)."""
        if self._upload_failure is not None:
            err, times = self._upload_failure
            if times is not None:
                self._upload_failure = (err, times - 1) if times > 1 else None
            raise DiscordError(err.status, err.code, err.message)
        if any(len(part.data) > self.upload_limit for part in parts.values()):
            raise DiscordError(413, 40005, "Request entity too large")

    def _global_rate(self, request: web.Request) -> None:
        """Discord's global rate limit: at most ``global_limit`` requests in any second outside the
        interaction endpoints (callbacks, followups, ``@original`` edits), else 429 with ``global: true``, the
        ``retry_after`` until the oldest counted request is a second old, and the headers Discord sends
        (``X-RateLimit-Global``, ``X-RateLimit-Scope: global``, ``Retry-After``, ``Via``). A refused request
        is not counted."""
        path = request.path.removeprefix(API)
        if self.global_limit is None or path.startswith(("/interactions/", "/webhooks/")):
            return
        now = time.monotonic()
        window = self._global_window
        while window and now - window[0] >= 1.0:
            window.popleft()
        if len(window) >= self.global_limit:
            retry_after = round(window[0] + 1.0 - now, 3)
            self.global_429s += 1
            raise DiscordError(
                429,
                0,
                "You are being rate limited.",
                extra={"retry_after": retry_after, "global": True},
                headers={
                    "Retry-After": str(max(1, math.ceil(retry_after))),
                    "X-RateLimit-Global": "true",
                    "X-RateLimit-Scope": "global",
                    "Via": "1.1 google",
                },
            )
        window.append(now)
        self.global_counted.append(now)

    def _injected_failure(self, request: web.Request) -> None:
        path = request.path.removeprefix(API)
        for i, (method, pattern, err) in enumerate(self._failures):
            if method == request.method and pattern.search(path):
                del self._failures[i]
                raise err
