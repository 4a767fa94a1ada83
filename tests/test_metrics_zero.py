"""Every counter docs/METRICS.md documents exists at 0 from the start, with every label value known
beforehand: an alert on ``increase(...) > 0`` sees a counter's first event only if the series was there, at
0, before it (a series born at 1 has no earlier sample, and Prometheus counts no increase).

The values: those the document lists beside a label; for the labels it leaves open, the games, the REST routes
the bot uses (``governor.ROUTES``), the statuses the alerts name (``metrics.CALLBACK_STATUSES``,
``metrics.REST_STATUSES``) and the store's operations. The process's own counters are read from a fresh
process that has only built the bot (nothing has happened yet); the ones read from the bot at each scrape
from the first scrape of a bot just started.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.base import metrics
from bot.edge.governor import ROUTES
from bot.games import ADAPTER_PATHS
from bot.settings import Settings
from bot.store._base import OPERATIONS
from tests.conftest import StartBot
from tests.test_metrics import Samples, scrape

DOC = Path(__file__).resolve().parent.parent / "docs" / "METRICS.md"
ROW = re.compile(r"^\| `(?P<name>[a-z_]+)` \| counter \| (?P<labels>[^|]*) \|", re.MULTILINE)
LABEL = re.compile(r"`(?P<label>\w+)`(?: \((?P<values>`[^)]*)\))?")

# The values of the labels the document leaves open, by counter and label.
OPEN: dict[str, tuple[str, ...]] = {
    "game": tuple(sorted(ADAPTER_PATHS)),
    "route": ROUTES,
    "operation": (),  # filled below: the store's classes register theirs as they are defined
}
STATUSES = {
    "tavern_interaction_callback_failures_total": metrics.CALLBACK_STATUSES,
    "tavern_rest_failures_total": metrics.REST_STATUSES,
}


def documented() -> list[tuple[str, dict[str, tuple[str, ...]]]]:
    """Each counter of the document, with the values of each of its labels."""
    found = []
    for row in ROW.finditer(DOC.read_text()):
        name = row["name"]
        labels: dict[str, tuple[str, ...]] = {}
        for label in LABEL.finditer(row["labels"]):
            key = label["label"]
            if label["values"]:
                labels[key] = tuple(re.findall(r"`([^`]+)`", label["values"]))
            elif key == "status":
                labels[key] = STATUSES[name]
            elif key == "operation":
                labels[key] = tuple(sorted(OPERATIONS))
            else:
                labels[key] = OPEN[key]
        found.append((name, labels))
    return found


COUNTERS = documented()


def test_the_document_lists_the_counters() -> None:
    names = {name for name, _ in COUNTERS}
    assert (
        len(names) >= 15 and "tavern_moves_not_saved_total" in names and "tavern_web_refused_total" in names
    )
    assert OPERATIONS and "append_action" in OPERATIONS


@pytest.fixture(scope="module")
def fresh() -> Samples:
    """The process's counters in a new process that has built the bot and done nothing else."""
    code = (
        "from bot.edge.app import TavernBot\n"
        "from bot.settings import Settings\n"
        "import bot.store\n"
        "from bot.base.metrics import REGISTRY\n"
        "from prometheus_client import generate_latest\n"
        "TavernBot(Settings(token='x'))\n"
        "print(generate_latest(REGISTRY).decode())\n"
    )
    text = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


@pytest.fixture
async def first_scrape(start_bot: StartBot, settings: Settings) -> Samples:
    """The first scrape of a bot just started, its web pages served (their counters are read at scrape)."""
    bot = await start_bot(dataclasses.replace(settings, metrics_port=0, web_port=0))
    return await scrape(bot)


@pytest.mark.parametrize(("name", "labels"), COUNTERS, ids=[name for name, _ in COUNTERS])
async def test_a_documented_counter_exists_at_zero_from_the_start(
    name: str, labels: dict[str, tuple[str, ...]], fresh: Samples, first_scrape: Samples
) -> None:
    keys = list(labels)
    combos = [dict(zip(keys, values, strict=True)) for values in itertools.product(*labels.values())]
    assert combos, f"{name}: a label with no known value"
    in_registry = any(sample_name == name for sample_name, _ in fresh)
    samples = fresh if in_registry else first_scrape
    for combo in combos:
        key = (name, tuple(sorted(combo.items())))
        assert key in samples, f"{name}{combo} does not exist before its first event"
        assert samples[key] == 0, f"{name}{combo} starts at {samples[key]}"
