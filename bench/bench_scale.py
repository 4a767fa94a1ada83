"""Scale benchmark: the same load on SQLite with one bot process, and on PostgreSQL with one and with two
bot processes (each running one shard of two), at 200 and 500 tables.

Run from the repository root::

    python -m bench.bench_scale [--tables 200 500] [--seconds 20] [--think 1]

Each run is the load bench's (:mod:`bench.bench_load`): simulated players and the fake Discord in this
process, the bot in child processes, Bhargage tables whose guilds are spread evenly over the shards (every
DM on shard 0, as Discord does). PostgreSQL is a real server this script starts itself (``tests.pgserver``,
the one the tests use), a fresh database per run. It prints, per run, the interactions answered per second,
the callback latency (INTERACTION_CREATE sent → the callback arrived: what the player waits for) at p50 and
p99, failures, and the bot processes' CPU, then each figure's ratio to SQLite with one process at the same
number of tables.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from dataclasses import dataclass

from bench.bench_load import BenchResult, Config, percentile, run_bench
from tests.pgserver import PostgresServer


@dataclass(frozen=True)
class Setup:
    name: str
    postgres: bool
    processes: int


SETUPS = (
    Setup("SQLite, 1 process", postgres=False, processes=1),
    Setup("PostgreSQL, 1 process", postgres=True, processes=1),
    Setup("PostgreSQL, 2 processes", postgres=True, processes=2),
)


@dataclass(frozen=True)
class Figures:
    per_second: float  # game interactions answered per second
    p50: float  # callback ms
    p99: float
    done50: float  # last reply ms: the move played, stored and answered (a deferred press's real answer)
    done99: float
    failures: int  # unanswered, or answered past Discord's 3 s
    refused: int  # presses answered with an error (e.g. "from an earlier turn": the player was too quick)
    stuck: int  # tables left with nothing to press for 10 s (the simulated players never retry a refusal)
    bot_cpu: float | None  # seconds, every bot process together, during the run
    moves: int

    @classmethod
    def of(cls, result: BenchResult) -> Figures:
        callbacks, done = result.merged("callback"), result.merged("done")
        return cls(
            per_second=len(callbacks) / result.duration,
            p50=percentile(callbacks, 50),
            p99=percentile(callbacks, 99),
            done50=percentile(done, 50),
            done99=percentile(done, 99),
            failures=result.unanswered + result.late,
            refused=sum(s.refused for s in result.series.values()),
            stuck=result.stuck,
            bot_cpu=result.bot_cpu_seconds,
            moves=result.moves,
        )


async def measure(tables: list[int], seconds: float, think: float) -> dict[tuple[str, int], Figures]:
    server = PostgresServer()
    server.start()
    out: dict[tuple[str, int], Figures] = {}
    try:
        for n in tables:
            for setup in SETUPS:
                url = server.new_database() if setup.postgres else None
                config = Config(
                    tables=n,
                    seconds=seconds,
                    think=think,
                    noop_ratio=0.0,
                    database_url=url,
                    processes=setup.processes,
                    referee=False,
                )
                result = await run_bench(config)
                if result.errors:
                    print(f"  {setup.name}, {n} tables: ERRORS {result.errors[:3]}")
                out[(setup.name, n)] = Figures.of(result)
                print(f"  done: {setup.name}, {n} tables", flush=True)
    finally:
        server.close()
    return out


def report(figures: dict[tuple[str, int], Figures], tables: list[int], seconds: float, think: float) -> str:
    lines = [
        "Decktet Tavern scale benchmark — Bhargage tables, simulated players thinking "
        f"{think:g} s on average, {seconds:g} s per run",
        "int/s: game interactions answered per second; callback: the press sent → Discord got the bot's "
        "answer (what the player waits for); reply: → the move's own answer (stored and redrawn)",
        f"{'setup':<26} {'tables':>6} {'int/s':>7} {'callback p50/p99 ms':>20} {'reply p50/p99 ms':>18} "
        f"{'fail':>5} {'refused':>7} {'stuck':>5} {'moves':>6} {'bot CPU s':>9}   "
        "ratio to SQLite (int/s, callback p50, p99)",
    ]
    for n in tables:
        base = figures[(SETUPS[0].name, n)]
        for setup in SETUPS:
            f = figures[(setup.name, n)]
            cpu = f"{f.bot_cpu:9.1f}" if f.bot_cpu is not None else f"{'-':>9}"
            ratio = (
                f"{f.per_second / base.per_second:5.2f}  {f.p50 / base.p50:5.2f}  {f.p99 / base.p99:5.2f}"
                if base.per_second and base.p50 and base.p99
                else "-"
            )
            lines.append(
                f"{setup.name:<26} {n:>6} {f.per_second:7.1f} {f.p50:10.1f} / {f.p99:7.1f} "
                f"{f.done50:8.1f} / {f.done99:7.1f} {f.failures:>5} {f.refused:>7} {f.stuck:>5} {f.moves:>6} "
                f"{cpu}   {ratio}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, nargs="+", default=[200, 500])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each run plays")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a player thinks per move")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    figures = asyncio.run(measure(args.tables, args.seconds, args.think))
    print(report(figures, args.tables, args.seconds, args.think))


if __name__ == "__main__":
    main()
