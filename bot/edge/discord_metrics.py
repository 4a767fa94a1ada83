"""What the bot's Discord traffic is measured by, for the metrics (:mod:`bot.base.metrics`).

- **An interaction's latency**, from its creation at Discord (the time in its snowflake id) to three
  moments: the bot's handling starts (``heard``, first thing in ``TavernBot.on_interaction``); Discord
  accepts its callback (due within 3 s); its first answer with content is delivered — the callback itself
  when it carried one, else the first ``@original`` edit or followup after a deferral. The callback and the
  answers go through discord.py's webhook adapter, which :func:`install` wraps once per process.
- **429s**, every one Discord sends (discord.py waits them out and retries by itself, so no caller sees
  them), counted from the responses through an aiohttp trace on the client's HTTP session
  (:func:`http_trace`, discord.py's ``http_trace`` option).

A clock skew between Discord and this machine shifts the interaction latencies; below zero counts as zero.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any
from weakref import WeakSet

import aiohttp
import discord
from discord.webhook import async_ as webhook_adapter

from bot.base import metrics

# Callback types that defer the answer: its content comes later, by an @original edit or a followup.
DEFERRED = frozenset({5, 6})
TOKEN_SECONDS = 15 * 60  # an interaction's token lasts this long: a deferral not answered by then never is
MOST_DEFERRED = 10_000  # deferrals waiting for their answer, at most (the oldest forgotten beyond)
SCOPES = frozenset({"global", "user", "shared"})  # X-RateLimit-Scope's values; anything else is "other"

# Deferred interactions waiting for their first answer: token -> creation time (seconds since the epoch).
_deferred: OrderedDict[str, float] = OrderedDict()
_timed: WeakSet[Any] = WeakSet()


def created(interaction_id: int) -> float:
    """When Discord created the interaction, from its snowflake (seconds since the epoch)."""
    return ((interaction_id >> 22) + discord.utils.DISCORD_EPOCH) / 1000


def since(interaction_id: int) -> float:
    return max(0.0, time.time() - created(interaction_id))


def heard(interaction: discord.Interaction[Any]) -> None:
    """The bot's handling of an interaction starts: its latency so far, by kind (component, command…)."""
    metrics.INTERACTION_CALLBACK.labels(interaction.type.name).observe(since(interaction.id))


def install() -> None:
    """Time the interaction answers that go through discord.py's webhook adapter (once per process)."""
    adapter = webhook_adapter.async_context.get()
    if adapter in _timed:
        return
    _timed.add(adapter)
    for name, wrap in (
        ("create_interaction_response", _timed_callback),
        ("edit_original_interaction_response", _answer_via("edit")),
        ("execute_webhook", _answer_via("followup")),
    ):
        setattr(adapter, name, wrap(getattr(adapter, name)))


Request = Callable[..., Awaitable[Any]]


def _timed_callback(original: Request) -> Request:
    async def create_interaction_response(interaction_id: int, token: str, **kwargs: Any) -> Any:
        try:
            result = await original(interaction_id, token, **kwargs)
        except discord.HTTPException as err:
            metrics.INTERACTION_CALLBACK_FAILURES.labels(str(err.status)).inc()
            raise
        waited = since(interaction_id)
        metrics.INTERACTION_ACKNOWLEDGED.observe(waited)
        payload = getattr(kwargs.get("params"), "payload", None)
        if isinstance(payload, dict) and payload.get("type") in DEFERRED:
            _defer(token, created(interaction_id))
        else:
            metrics.INTERACTION_ANSWERED.labels("callback").observe(waited)
        return result

    return create_interaction_response


def _answer_via(via: str) -> Callable[[Request], Request]:
    child = metrics.INTERACTION_ANSWERED.labels(via)

    def wrap(original: Request) -> Request:
        async def answered(webhook_id: int, token: str, *args: Any, **kwargs: Any) -> Any:
            result = await original(webhook_id, token, *args, **kwargs)
            at = _deferred.pop(token, None)
            if at is not None:
                child.observe(max(0.0, time.time() - at))
            return result

        return answered

    return wrap


def _defer(token: str, at: float) -> None:
    """Remember a deferred interaction until its first answer, forgetting those past their token's life."""
    _deferred[token] = at
    cutoff = time.time() - TOKEN_SECONDS
    while _deferred and (len(_deferred) > MOST_DEFERRED or next(iter(_deferred.values())) < cutoff):
        _deferred.popitem(last=False)


def http_trace() -> aiohttp.TraceConfig:
    """A trace for the client's HTTP session that counts Discord's 429s by scope and endpoint."""
    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(_ended)
    return trace


async def _ended(
    session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestEndParams
) -> None:
    response = params.response
    if response.status != 429:
        return
    headers = response.headers
    scope = headers.get("X-RateLimit-Scope", "").lower()
    if scope not in SCOPES:
        scope = "global" if headers.get("X-RateLimit-Global", "").lower() == "true" else "other"
    path = params.url.path
    endpoint = "interaction" if "/interactions/" in path or "/webhooks/" in path else "bot"
    metrics.RATE_LIMITED.labels(scope, endpoint).inc()
