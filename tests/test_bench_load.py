"""Smoke test of the load benchmark's core, so ``bench/bench_load.py`` can't rot: a couple of tables, a few
seconds, and the figures must show measured interactions and games that moved. No timing asserts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_load.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_load", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_load", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _bench()


async def test_bhargage_tables_play_and_are_measured(bench: ModuleType, tmp_path: Path) -> None:
    config = bench.Config(tables=2, seconds=3.0, think=0.0, target=21, seed=7, db_dir=tmp_path)
    result = await bench.run_bench(config)

    game = result.series["bhargage"]
    noop = result.series["noop"]
    assert len(game.callback) >= 20, result.report()
    assert len(noop.callback) == len(game.callback)  # one no-op per game interaction, all answered
    assert all(v > 0 for v in game.callback + noop.callback)
    assert all(d >= c for c, d in zip(game.callback, game.done, strict=True))
    # The games moved: every kind of move was made and committed, and a short game got to its end.
    assert {"/bhargage challenge", "accept", "pick", "discard", "cut", "play"} <= set(game.by_label)
    assert result.actions.get("bhargage", 0) >= 10
    assert result.games_finished.get("bhargage", 0) >= 1, result.report()
    assert result.errors == [] and result.unanswered == 0 and game.refused == 0, result.report()
    text = result.report()
    for words in ("interactions/s", "p50", "p99", "no-op", "games finished: bhargage"):
        assert words in text


async def test_deluxe_tables_play_and_are_measured(bench: ModuleType, tmp_path: Path) -> None:
    config = bench.Config(
        tables=0, deluxe_tables=2, seconds=3.0, think=0.0, deluxe_target=10, db_dir=tmp_path
    )
    result = await bench.run_bench(config)

    game = result.series["deluxe"]
    assert len(game.callback) >= 20, result.report()
    assert len(result.series["noop"].callback) == len(game.callback)
    labels = {"/deluxe create", "join", "start", "draw", "meld", "toss", "build", "pick", "disc"}
    assert labels <= set(game.by_label), result.report()
    assert result.actions.get("deluxe", 0) >= 10
    assert result.errors == [] and result.unanswered == 0 and result.stuck == 0, result.report()
    assert "deluxe" in result.report()


async def test_max_interactions_bounds_the_run(bench: ModuleType, tmp_path: Path) -> None:
    config = bench.Config(
        tables=0, ping_tables=2, seconds=30.0, think=0.0, max_interactions=25, db_dir=tmp_path
    )
    result = await bench.run_bench(config)
    assert result.duration < 10
    assert 25 <= result.count() <= 27  # each table stops after its in-flight interaction
    assert len(result.series["noop"].callback) == result.count()


def test_percentile_is_nearest_rank(bench: ModuleType) -> None:
    values = [float(v) for v in range(1, 101)]
    assert bench.percentile(values, 50) == 50.0
    assert bench.percentile(values, 99) == 99.0
    assert bench.percentile([3.0], 99) == 3.0
