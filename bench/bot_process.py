"""The bot alone in its own process, pointed at a fake Discord that runs elsewhere (the load bench's).

The load bench and the kill test start it; by hand (with a fake Discord already listening)::

    DISCORD_TOKEN=<the fake's token> python -m bench.bot_process --api http://127.0.0.1:PORT/api/v10 \\
        --gateway ws://127.0.0.1:PORT/gateway/ --db /tmp/tavern.sqlite3 \\
        [--database-url postgresql://… --shards 2:1]

It builds the bot exactly as the bench always did (the bench's settings, plus a test-only no-op slash
command), prints ``{"ready": true, ...}`` on stdout once the gateway said READY, logs WARNING and above on
stderr (``LEVEL name: message``, so the parent counts ERROR lines), and stops cleanly on SIGTERM. On its way
out it prints one JSON line with its own counters: CPU seconds of this process, its max RSS, and the store's
write transactions when the store counts them (else null).

:class:`BotChild` is the parent's side: start it, wait until ready, stop or kill it, read its CPU while it
runs (``/proc``; its descendants apart) and its counters once it is gone.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import logging
import os
import pstats
import resource
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import discord
import yarl

from bench import loop_monitor
from bench.loop_monitor import LOOP_ENV, Monitor
from bot.__main__ import run
from bot.base import metrics
from bot.edge.app import TavernBot, create_bot
from bot.settings import Settings

NOOP_COMMAND = "bench_noop"
TOKEN_ENV = "DISCORD_TOKEN"  # how the bot's process gets its token
READY_SECONDS = 60.0  # opening a big database and restoring its tables can take a while
_TICKS = os.sysconf("SC_CLK_TCK")


def bench_settings(
    token: str,
    db_path: Path,
    database_url: str | None = None,
    shards: tuple[int, tuple[int, ...]] | None = None,
) -> Settings:
    """What the bench runs the bot with: no nudges or claims (nobody is idle on purpose), and openings
    unlimited because the bench's players rematch at once, again and again. With ``database_url`` the
    games live in PostgreSQL (``db_path`` then only places the heartbeat file); with ``shards`` (count, ids)
    the process runs those shards only."""
    return Settings(
        token=token,
        db_path=db_path,
        log_level="WARNING",
        nudge_minutes=0,
        claim_minutes=0,
        openings_per_minute=10_000,
        coalesce_seconds=float(os.environ.get(COALESCE_ENV, Settings.coalesce_seconds)),
        global_budget=int(os.environ.get(BUDGET_ENV, Settings.global_budget)),
        database_url=database_url,
        shard_count=shards[0] if shards else None,
        shard_ids=shards[1] if shards else None,
    )


def parse_shards(text: str) -> tuple[int, tuple[int, ...]]:
    """``COUNT:ID[,ID…]``, e.g. ``2:1``."""
    count, _, ids = text.partition(":")
    return int(count), tuple(int(i) for i in ids.split(","))


def point_at(api_base: str, gateway_url: str) -> tuple[str, yarl.URL]:
    """Point the unmodified discord.py client at a fake Discord; returns what it pointed at before."""
    old = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = api_base  # type: ignore[misc]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    return old


PROFILE_ENV = "TAVERN_BENCH_PROFILE"  # where the bot process writes its profile (cProfile) when it stops
COALESCE_ENV = "TAVERN_BENCH_COALESCE"  # the coalescing window the bench runs the bot with (seconds)
BUDGET_ENV = "TAVERN_BENCH_BUDGET"  # the global budget it runs the bot with (requests/s; tests shrink it)


def add_noop(bot: TavernBot) -> None:
    """A slash command that answers at once: the cheapest interaction, the bench's yardstick."""

    @bot.tree.command(name=NOOP_COMMAND, description="Benchmark no-op: answers at once")
    async def noop(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("ok", ephemeral=True)


def counters(bot: TavernBot) -> dict[str, Any]:
    """This process's own figures, for the parent (which only sees the fake's side)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    store = getattr(bot, "store", None)
    return {
        "cpu_seconds": me.ru_utime + me.ru_stime,
        "max_rss_mb": me.ru_maxrss / 1024,
        "write_transactions": getattr(store, "write_transactions", None),
    }


def store_times() -> dict[str, list[float]]:
    """Each store operation's calls and seconds in all, as its callers waited (queueing included), from the
    store's own histogram (``tavern_store_seconds``)."""
    found: dict[str, list[float]] = {}
    for family in metrics.STORE_SECONDS.collect():
        for sample in family.samples:
            if sample.name.endswith(("_count", "_sum")):
                row = found.setdefault(sample.labels["operation"], [0.0, 0.0])
                row[0 if sample.name.endswith("_count") else 1] = sample.value
    return found


async def _serve(args: argparse.Namespace, monitor: Monitor | None = None) -> int:
    point_at(args.api, args.gateway)
    shards = parse_shards(args.shards) if args.shards else None
    # The token comes from the environment, as in a deployment: importing the fake (and the contract's
    # validator with it) would put its objects on this process's collector.
    settings = bench_settings(os.environ[TOKEN_ENV], Path(args.db), args.database_url, shards)
    bot = create_bot(settings, guild_ready_timeout=0.01)
    add_noop(bot)

    async def announce() -> None:
        print(json.dumps({"ready": True, "pid": os.getpid()}), flush=True)

    bot.add_listener(announce, "on_ready")
    probe = asyncio.create_task(monitor.probe()) if monitor is not None else None
    code = await run(settings, bot=bot)
    if probe is not None:
        probe.cancel()
    if monitor is not None:
        monitor.save()
    print(json.dumps(counters(bot)), flush=True)
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The bot alone, pointed at a fake Discord")
    parser.add_argument("--api", required=True, help="the fake's REST base, e.g. http://127.0.0.1:N/api/v10")
    parser.add_argument("--gateway", required=True, help="the fake's gateway URL")
    parser.add_argument(
        "--db", required=True, help="the SQLite file (with --database-url: its folder holds health.json)"
    )
    parser.add_argument("--database-url", default=None, help="PostgreSQL instead of the SQLite file")
    parser.add_argument("--shards", default=None, help="COUNT:IDS, the shards this process runs (e.g. 2:1)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    monitor = Monitor(Path(os.environ[LOOP_ENV])) if os.environ.get(LOOP_ENV) else None
    if monitor is not None:
        monitor.watch_heartbeats()
        monitor.watch_collections()
        monitor.watch_stalls()
        monitor.extra["store"] = store_times  # saved as it goes: a stop that drains too long is killed
    with asyncio.Runner(loop_factory=monitor.loop if monitor is not None else None) as runner:
        profile_to = os.environ.get(PROFILE_ENV)
        if not profile_to:
            return runner.run(_serve(args, monitor))
        profiler = cProfile.Profile()
        try:
            return profiler.runcall(runner.run, _serve(args, monitor))
        finally:
            profiler.dump_stats(profile_to)


def top_costs(path: str, most: int = 25) -> str:
    """A profile's most expensive functions, by their own time and with what they call, as text."""
    out = io.StringIO()
    for order in ("tottime", "cumulative"):
        out.write(f"-- by {order}\n")
        pstats.Stats(path, stream=out).strip_dirs().sort_stats(order).print_stats(most)
    return out.getvalue()


# ------------------------------------------------------------------------------------------ parent side


@dataclass
class BotChild:
    """A running bot process seen from the bench: its ERROR log lines and, once it stopped, its counters."""

    proc: asyncio.subprocess.Process
    errors: list[str] = field(default_factory=list)
    counters: dict[str, Any] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    monitor: Path | None = None  # where it saves its event loop's figures
    _readers: list[asyncio.Task[None]] = field(default_factory=list)

    @classmethod
    async def start(
        cls,
        api_base: str,
        gateway_url: str,
        db_path: Path,
        *,
        token: str,
        database_url: str | None = None,
        shards: tuple[int, tuple[int, ...]] | None = None,
        monitor: Path | None = None,
    ) -> BotChild:
        """Start the bot process and wait until it is connected and ready (or fail if it exits first);
        with ``monitor`` it measures its event loop (:mod:`bench.loop_monitor`) into that file, saved every
        second and at exit (``loop_figures``)."""
        extra = ["--database-url", database_url] if database_url else []
        if shards is not None:
            extra += ["--shards", f"{shards[0]}:{','.join(str(i) for i in shards[1])}"]
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.bot_process",
            *("--api", api_base, "--gateway", gateway_url, "--db", str(db_path)),
            *extra,
            cwd=Path(__file__).resolve().parent.parent,
            env={**os.environ, TOKEN_ENV: token, **({LOOP_ENV: str(monitor)} if monitor is not None else {})},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own process group: a kill takes the drawing process with it
        )
        child = cls(proc, monitor=monitor)
        child._readers = [
            asyncio.create_task(child._read_stdout()),
            asyncio.create_task(child._read_stderr()),
        ]
        waiter = asyncio.create_task(child.ready.wait())
        exited = asyncio.create_task(proc.wait())
        await asyncio.wait({waiter, exited}, timeout=READY_SECONDS, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        exited.cancel()
        if not child.ready.is_set():
            await child.kill()
            raise RuntimeError(f"the bot process did not get ready: {child.errors[-5:]}")
        return child

    async def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        async for line in self.proc.stdout:
            with contextlib.suppress(ValueError):
                data = json.loads(line)
                if data.get("ready"):
                    self.ready.set()
                else:
                    self.counters = data

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        async for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip()
            if line.startswith(("ERROR ", "CRITICAL ")):
                self.errors.append(line)

    def loop_figures(self) -> dict[str, Any] | None:
        """Its event loop's figures as it last saved them (:mod:`bench.loop_monitor`): there even when it
        had to be killed at its stop."""
        return loop_monitor.read(self.monitor) if self.monitor is not None else None

    def cpu_seconds(self) -> tuple[float, float]:
        """CPU (user + system) used so far by the process, and by its descendants (the drawing process,
        which the forkserver starts, so the bot never reaps it), read from /proc while it runs."""
        stats: dict[int, tuple[int, float]] = {}  # pid → (parent pid, CPU seconds)
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError), open(f"/proc/{entry.name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                    stats[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICKS)
        family = {self.proc.pid}
        grew = True
        while grew:
            more = {pid for pid, (ppid, _) in stats.items() if ppid in family} - family
            family |= more
            grew = bool(more)
        own = stats.get(self.proc.pid, (0, 0.0))[1]
        return own, sum(stats[pid][1] for pid in family if pid in stats) - own

    async def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM, as ``docker stop`` does, then wait for the exit (and its counters line)."""
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            return await self.kill()
        await asyncio.gather(*self._readers, return_exceptions=True)
        return code

    async def kill(self) -> int:
        """SIGKILL to the bot and its drawing process: the crash the kill test wants (no drain, no close)."""
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        code = await self.proc.wait()
        await asyncio.gather(*self._readers, return_exceptions=True)
        return code


if __name__ == "__main__":
    sys.exit(main())
