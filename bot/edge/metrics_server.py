"""The metrics endpoint: ``GET /metrics`` in Prometheus's text format, served by aiohttp inside the bot
process when ``TAVERN_METRICS_PORT`` is set (off otherwise), started and stopped with the bot.

It serves the counters and histograms of :mod:`bot.base.metrics` (counted whether or not anyone scrapes) and
the numbers read at scrape time, which cost nothing between scrapes: the live tables by game, each shard's
gateway latency and whether it is connected, and the global REST budget (its size, the share in use, the
requests waiting). Each bot has a registry of its own, so tests can start several bots in one process.

It listens on ``TAVERN_METRICS_HOST``, 127.0.0.1 unless set: the endpoint has no password, and what it shows
(how busy the bot is, its routes) is for the operator's scraper, not the internet. docs/METRICS.md lists
every metric.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import discord
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from bot.base import metrics
from bot.edge.governor import Governor
from bot.edge.web import WebServer
from bot.services.tables import TableService

log = logging.getLogger("tavern.metrics")

PATH = "/metrics"


class MetricsServerError(Exception):
    """The endpoint could not listen where the settings say (the port is taken, the address is not this
    machine's): the bot does not start, since an operator who set a port relies on it."""


class Watched(Protocol):
    """What the numbers read at scrape time come from: the bot."""

    @property
    def tables(self) -> TableService: ...
    @property
    def games(self) -> Mapping[str, Any]: ...
    @property
    def governor(self) -> Governor: ...
    @property
    def shards(self) -> dict[int, discord.ShardInfo]: ...
    @property
    def web_server(self) -> WebServer | None: ...


class _Shared(Collector):
    """The process's counters and histograms (``bot.base.metrics.REGISTRY``)."""

    def collect(self) -> Iterable[Metric]:
        return metrics.REGISTRY.collect()


class _Live(Collector):
    """The numbers read from the bot at each scrape."""

    def __init__(self, bot: Watched) -> None:
        self._bot = bot

    def collect(self) -> Iterable[Metric]:
        yield self._tables()
        yield from self._gateway()
        yield from self._budget()
        yield from self._pages()

    def _tables(self) -> Metric:
        live = GaugeMetricFamily(
            "tavern_live_tables",  # i18n: not text (the help below is for operators)
            "Active games live in this process, by game.",
            labels=["game"],
        )
        counts = collections.Counter(table.game for table in self._bot.tables.active_tables())
        for game in sorted({*self._bot.games, *counts}):
            live.add_metric([game], counts.get(game, 0))
        return live

    def _gateway(self) -> Iterable[Metric]:
        latency = GaugeMetricFamily(
            "tavern_gateway_latency_seconds",  # i18n: not text (the help below is for operators)
            "Time between a gateway heartbeat and its acknowledgement, by shard (+Inf before the first).",
            labels=["shard"],
        )
        up = GaugeMetricFamily(
            "tavern_gateway_up",  # i18n: not text (the help below is for operators)
            "Whether the shard's gateway connection is open (1) or not (0).",
            labels=["shard"],
        )
        for shard_id, shard in sorted(self._bot.shards.items()):
            latency.add_metric([str(shard_id)], shard.latency)
            up.add_metric([str(shard_id)], 0.0 if shard.is_closed() else 1.0)
        return latency, up

    def _pages(self) -> Iterable[Metric]:
        """The web pages' live viewers and what they cost (nothing while the pages are not served)."""
        pages = self._bot.web_server
        if pages is None:
            return
        fanout = pages.fanout
        yield GaugeMetricFamily(
            "tavern_web_viewers",  # i18n: not text (the help below is for operators)
            "Browsers watching a live table now.",
            value=fanout.viewers,
        )
        yield GaugeMetricFamily(
            "tavern_web_watched_tables",  # i18n: not text (the help below is for operators)
            "Tables at least one browser watches now.",
            value=fanout.watched,
        )
        yield CounterMetricFamily(
            "tavern_web_frames_built",  # i18n: not text (the help below is for operators)
            "Live frames built: one per move, table and language.",
            value=fanout.frames_built,
        )
        yield CounterMetricFamily(
            "tavern_web_frames_sent",  # i18n: not text (the help below is for operators)
            "Live frames sent to browsers.",
            value=fanout.frames_sent,
        )
        yield CounterMetricFamily(
            "tavern_web_viewers_dropped",  # i18n: not text (the help below is for operators)
            "Browsers cut for not taking their frames in time.",
            value=fanout.dropped,
        )
        yield CounterMetricFamily(
            "tavern_web_refused",  # i18n: not text (the help below is for operators)
            "Requests and sockets refused by the per-address limits (429).",
            value=pages.guard.refused,
        )
        yield CounterMetricFamily(
            "tavern_web_pages_built",  # i18n: not text (the help below is for operators)
            "Pages and finished games built rather than served as kept.",
            value=pages.built.built,
        )
        yield CounterMetricFamily(
            "tavern_web_sockets_revoked",  # i18n: not text (the help below is for operators)
            "Live sockets closed because their link expired or their server turned the pages off.",
            value=fanout.revoked,
        )

    def _budget(self) -> Iterable[Metric]:
        governor = self._bot.governor
        return (
            GaugeMetricFamily(
                "tavern_rest_budget_per_second",  # i18n: not text (the help below is for operators)
                "This process's share of the global REST budget, in requests a second.",
                value=governor.per_second,
            ),
            GaugeMetricFamily(
                "tavern_rest_budget_used_ratio",  # i18n: not text (the help below is for operators)
                "Share of the budget in use now: requests in flight or answered in the last second.",
                value=governor.load(),
            ),
            GaugeMetricFamily(
                "tavern_rest_waiting",  # i18n: not text (the help below is for operators)
                "Requests waiting now for room in the budget.",
                value=governor.waiting(),
            ),
            CounterMetricFamily(
                "tavern_rest_queued",  # i18n: not text (the help below is for operators)
                "Requests that had to wait for room in the budget.",
                value=governor.queued,
            ),
            CounterMetricFamily(
                "tavern_rest_edits_replaced",  # i18n: not text (the help below is for operators)
                "Message edits never sent: a newer edit of the same message came while they waited.",
                value=governor.dropped,
            ),
        )


class MetricsServer:
    """``GET /metrics`` for one bot, on aiohttp's web server in the bot's event loop."""

    def __init__(self, bot: Watched) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_Shared())
        self.registry.register(_Live(bot))
        self._runner: web.AppRunner | None = None
        self.port: int | None = None  # the port it listens on (the one chosen, for port 0)

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port``; ``MetricsServerError`` when it can't."""
        app = web.Application()
        app.router.add_get(PATH, self._scrape)
        runner = web.AppRunner(app, access_log=None)  # a scrape every few seconds is no news for the log
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
        except OSError as err:
            await runner.cleanup()
            raise MetricsServerError(
                f"Could not serve metrics on {host}:{port} (TAVERN_METRICS_HOST, TAVERN_METRICS_PORT): {err}"
            ) from err
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        log.info("Metrics served on http://%s:%d%s", host, self.port, PATH)

    async def stop(self) -> None:
        """Stop listening (stopping twice is harmless)."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _scrape(self, request: web.Request) -> web.Response:
        return web.Response(
            body=generate_latest(self.registry), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )
