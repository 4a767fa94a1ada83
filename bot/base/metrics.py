"""What an operator can watch: the bot's Prometheus metrics, defined once for every layer that counts.

The definitions live here, low in the house, because the layers that count sit at every height: the store
times its queries, the services count moves and drawings, the Discord edge times interactions and REST
requests. They are counted always (an increment or an observation is about a microsecond, never a lock to
wait on or an await); they are served only where ``TAVERN_METRICS_PORT`` is set (``bot.edge.metrics_server``,
which adds the numbers read at scrape time: live tables, gateway latency, the REST budget in use).

Everything is in :data:`REGISTRY`, not prometheus_client's global default one, so whatever else registers in
that one (a library, a test) never clashes with ours. The counters are the process's: one bot per process in
production; tests that start several bots in one process compare before and after. No label is ever a
user, channel or guild id: label values come from small fixed sets (games, routes as discord.py's
templates, operations by name), so the series stay few. docs/METRICS.md documents each metric.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

# No ``*_created`` series beside each counter and histogram: they double the scrape and nobody reads them.
disable_created_metrics()  # type: ignore[no-untyped-call]
REGISTRY = CollectorRegistry(auto_describe=True)
# The process's CPU, memory, open files and start time, Python's garbage collector and version.
ProcessCollector(registry=REGISTRY)
GCCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

# Seconds, for the histograms: Discord refuses an interaction's callback after 3 s, so the buckets of the
# interaction histograms close in on it; a query is milliseconds; a picture is waited for at most 1.5 s.
_INTERACTION_BUCKETS = (0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0, 10.0)
_STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_DRAWING_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5)
_WAIT_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# ------------------------------------------------------------------------------------------- moves

MOVES = Counter(
    "tavern_moves",  # i18n: not text (the help below is for operators)
    "Moves committed to the store, by game and by who moved.",
    ["game", "player"],  # player: person or bot
    registry=REGISTRY,
)
GAMES_FINISHED = Counter(
    "tavern_games_finished",  # i18n: not text (the help below is for operators)
    "Games ended by a move (a win, a resignation, a claim), by game.",
    ["game"],
    registry=REGISTRY,
)
MOVES_NOT_SAVED = Counter(
    "tavern_moves_not_saved",  # i18n: not text (the help below is for operators)
    "Moves the store did not keep: conflict (another process logged that move first) or failed.",
    ["game", "reason"],
    registry=REGISTRY,
)

# ------------------------------------------------------------------------------------ interactions

INTERACTION_CALLBACK = Histogram(
    "tavern_interaction_callback_seconds",  # i18n: not text (the help below is for operators)
    "From the interaction's creation at Discord to the bot's handling of it starting, by kind.",
    ["kind"],
    buckets=_INTERACTION_BUCKETS,
    registry=REGISTRY,
)
INTERACTION_ACKNOWLEDGED = Histogram(
    "tavern_interaction_acknowledged_seconds",  # i18n: not text (the help below is for operators)
    "From the interaction's creation to Discord accepting its callback (due within 3 s).",
    buckets=_INTERACTION_BUCKETS,
    registry=REGISTRY,
)
INTERACTION_ANSWERED = Histogram(
    "tavern_interaction_answered_seconds",  # i18n: not text (the help below is for operators)
    "From the interaction's creation to its first answer with content delivered, by how it went.",
    ["via"],  # callback, edit (of a deferred answer) or followup
    buckets=_INTERACTION_BUCKETS,
    registry=REGISTRY,
)
INTERACTION_CALLBACK_FAILURES = Counter(
    "tavern_interaction_callback_failures",  # i18n: not text (the help below is for operators)
    "Interaction callbacks Discord refused, by HTTP status (404: too late or unknown).",
    ["status"],
    registry=REGISTRY,
)

# -------------------------------------------------------------------------------------------- REST

REST_REQUESTS = Counter(
    "tavern_rest_requests",  # i18n: not text (the help below is for operators)
    "Requests sent outside the interaction endpoints (the global budget's), by route.",
    ["route"],
    registry=REGISTRY,
)
REST_FAILURES = Counter(
    "tavern_rest_failures",  # i18n: not text (the help below is for operators)
    "Requests outside the interaction endpoints that failed, by route and HTTP status.",
    ["route", "status"],
    registry=REGISTRY,
)
REST_BUDGET_WAIT = Histogram(
    "tavern_rest_budget_wait_seconds",  # i18n: not text (the help below is for operators)
    "How long a request outside the interaction endpoints waited for room in the budget.",
    buckets=_WAIT_BUCKETS,
    registry=REGISTRY,
)
RATE_LIMITED = Counter(
    "tavern_rest_rate_limited",  # i18n: not text (the help below is for operators)
    "HTTP 429 answers from Discord, by scope (global, user, shared) and endpoint (bot, interaction).",
    ["scope", "endpoint"],
    registry=REGISTRY,
)

# ------------------------------------------------------------------------------------------- store

STORE_SECONDS = Histogram(
    "tavern_store_seconds",  # i18n: not text (the help below is for operators)
    "Time of one store operation as its caller waits for it (queueing included), by operation.",
    ["operation"],
    buckets=_STORE_BUCKETS,
    registry=REGISTRY,
)
STORE_ERRORS = Counter(
    "tavern_store_errors",  # i18n: not text (the help below is for operators)
    "Store operations that failed (not the store's own refusals, such as a busy channel).",
    ["operation"],
    registry=REGISTRY,
)

# ----------------------------------------------------------------------------------------- drawing

DRAWING_SECONDS = Histogram(
    "tavern_drawing_seconds",  # i18n: not text (the help below is for operators)
    "From a picture sent to the drawing process to its PNG back, for the pictures drawn.",
    buckets=_DRAWING_BUCKETS,
    registry=REGISTRY,
)
PICTURES = Counter(
    "tavern_pictures",  # i18n: not text (the help below is for operators)
    "Pictures asked for, by where they came from: cache, shared (being drawn for another) or drawn.",
    ["source"],
    registry=REGISTRY,
)
DRAWING_FAILURES = Counter(
    "tavern_drawing_failures",  # i18n: not text (the help below is for operators)
    "Pictures the drawing process did not draw: too_slow, stopped (the process died) or error.",
    ["reason"],
    registry=REGISTRY,
)
DRAWING_REPLACED = Counter(
    "tavern_drawing_replaced",  # i18n: not text (the help below is for operators)
    "Drawing processes killed and replaced, by why: hung or stopped.",
    ["why"],
    registry=REGISTRY,
)

# ---------------------------------------------------------------------------------------- thinking

EXPERT_SECONDS = Histogram(
    "tavern_expert_seconds",  # i18n: not text (the help below is for operators)
    "How long a move of an expert computer player waited for its thinking process (its budget caps it).",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0),
    registry=REGISTRY,
)
EXPERT_FELL_BACK = Counter(
    "tavern_expert_fell_back",  # i18n: not text (the help below is for operators)
    "Moves of an expert computer player that had no answer within its budget: the hard choice went.",
    registry=REGISTRY,
)
THINKING_REPLACED = Counter(
    "tavern_thinking_replaced",  # i18n: not text (the help below is for operators)
    "Thinking processes killed and replaced, by why: hung or stopped.",
    ["why"],
    registry=REGISTRY,
)

# ------------------------------------------------------------------------------------------- build

BUILD_INFO = Gauge(
    "tavern_build_info",  # i18n: not text (the help below is for operators)
    "Always 1: the running build's version and commit as labels (bot.base.version).",
    ["version", "commit"],
    registry=REGISTRY,
)

# ----------------------------------------------------------------------------------------- backups

BACKUP_LAST_SUCCESS = Gauge(
    "tavern_backup_last_success_timestamp_seconds",  # i18n: not text (the help below is for operators)
    "When the newest scheduled backup was taken (Unix time; the newest on disk at start).",
    registry=REGISTRY,
)
BACKUP_AGE = Gauge(
    "tavern_backup_age_seconds",  # i18n: not text (the help below is for operators)
    "Seconds since the newest scheduled backup (NaN: none yet, or scheduled backups are off).",
    registry=REGISTRY,
)
BACKUP_AGE.set(float("nan"))
BACKUPS_FAILED = Counter(
    "tavern_backups_failed",  # i18n: not text (the help below is for operators)
    "Scheduled backups that failed (the log says why; the next try is within 10 minutes).",
    registry=REGISTRY,
)

# ------------------------------------------------------------------------------------- known labels
#
# Every counter exists at 0 from the start with each label value known beforehand (docs/METRICS.md names
# them), so an alert on ``increase(...) > 0`` sees its first event: a series born at 1 has no earlier sample,
# and Prometheus counts no increase. The layers that know the rest of the values bind them at 0 too: the
# games (``zero_games``), the REST routes (``bot.edge.governor``), the store's operations (its classes).

PLAYERS = ("person", "bot")
NOT_SAVED = ("conflict", "failed")
INTERACTION_KINDS = ("component", "application_command", "autocomplete", "modal_submit")
ANSWERED_VIA = ("callback", "edit", "followup")
CALLBACK_STATUSES = ("400", "404")  # answered twice; too late (or unknown)
REST_STATUSES = ("400", "403", "404", "429", "500", "502", "503", "504", "error")
RATE_SCOPES = ("global", "user", "shared", "other")
RATE_ENDPOINTS = ("bot", "interaction")
PICTURE_SOURCES = ("cache", "shared", "drawn")
DRAWING_REASONS = ("too_slow", "stopped", "error")
REPLACED_WHY = ("hung", "stopped")


def zero(metric: Counter | Histogram, *values: Sequence[str]) -> None:
    """Bind every combination of ``values`` (one sequence per label), so each series exists from now."""
    for labels in itertools.product(*values):
        metric.labels(*labels)


def zero_games(games: Iterable[str]) -> None:
    """The per-game counters of these games, at 0."""
    names = sorted(games)
    zero(MOVES, names, PLAYERS)
    zero(GAMES_FINISHED, names)
    zero(MOVES_NOT_SAVED, names, NOT_SAVED)


zero(INTERACTION_CALLBACK, INTERACTION_KINDS)
zero(INTERACTION_ANSWERED, ANSWERED_VIA)
zero(INTERACTION_CALLBACK_FAILURES, CALLBACK_STATUSES)
zero(RATE_LIMITED, RATE_SCOPES, RATE_ENDPOINTS)
zero(PICTURES, PICTURE_SOURCES)
zero(DRAWING_FAILURES, DRAWING_REASONS)
zero(DRAWING_REPLACED, REPLACED_WHY)
zero(THINKING_REPLACED, REPLACED_WHY)

# Children whose labels are known here, bound once: the hot paths skip the label lookup.
PICTURE_FROM_CACHE = PICTURES.labels("cache")
PICTURE_SHARED = PICTURES.labels("shared")
PICTURE_DRAWN = PICTURES.labels("drawn")
