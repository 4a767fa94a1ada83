"""What a move's commit costs in the SQLite store, with ``synchronous=FULL`` and with ``NORMAL``.

Each move is one ``append_action`` transaction, as the table service writes it. The figures are the commit
latency seen by one move (p50/p99) and the moves committed per second, by one table at a time and by many
tables at once (their commits queue on the store's one connection).

    python -m bench.bench_store [--moves 2000] [--tables 200]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bench.bench_load import percentile
from bot.store import NewAction, NewGame, SQLiteStore


async def _run(path: Path, synchronous: str, moves: int, tables: int) -> tuple[list[float], float, float]:
    store = await SQLiteStore.open(path)
    await store.db.execute(f"PRAGMA synchronous={synchronous}")
    games = [
        await store.create_game(
            NewGame("bhargage", 1, 100 + t, t, [(10 + 2 * t, "A"), (11 + 2 * t, "B")], {}, 0.0)
        )
        for t in range(tables)
    ]
    seqs = dict.fromkeys(games, 0)
    latencies: list[float] = []

    async def move(game_id: int) -> None:
        seqs[game_id] += 1
        started = time.perf_counter()
        await store.append_action(NewAction(game_id, seqs[game_id], 0, "play forest", time.time()))
        latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    for i in range(moves):  # one table at a time
        await move(games[i % tables])
    serial = moves / (time.perf_counter() - started)
    started = time.perf_counter()
    for _ in range(max(1, moves // tables)):  # every table at once
        await asyncio.gather(*(move(g) for g in games))
    together = (moves // tables * tables) / (time.perf_counter() - started)
    await store.close()
    return latencies[:moves], serial, together


async def main_async(moves: int, tables: int) -> None:
    print(f"{moves} moves over {tables} tables, one append_action transaction each")
    print(f"{'synchronous':<12} {'p50 ms':>8} {'p99 ms':>8} {'moves/s alone':>14} {'moves/s at once':>16}")
    for synchronous in ("FULL", "NORMAL"):
        with tempfile.TemporaryDirectory(prefix="tavern-store-") as tmp:
            lat, serial, together = await _run(Path(tmp) / "t.sqlite3", synchronous, moves, tables)
        print(
            f"{synchronous:<12} {percentile(lat, 50):8.3f} {percentile(lat, 99):8.3f} {serial:14.0f} "
            f"{together:16.0f}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=200)
    args = parser.parse_args(argv)
    asyncio.run(main_async(args.moves, args.tables))


if __name__ == "__main__":
    main()
