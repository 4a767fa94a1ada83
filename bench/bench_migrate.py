"""What the operator's commands cost on a populated tavern: ``python -m bot backup``, ``restore-drill`` on
that backup, and ``migrate-to`` PostgreSQL, each timed as a process of its own, with the line it prints.

Run: ``.venv/bin/python -m bench.bench_migrate [--finished 2000] [--active 200] [--seed 1]``.

The database is built first (not timed): ``--finished`` games of the three games in turn, played to their
end by the easy computer player and closed through the store (results, ratings, seasons, as the bot closes
them), then ``--active`` games played to a random point and left live with their snapshots, between members
of a few servers, who also set preferences and server settings. Then a backup is taken and drilled (with
the fake's token, so the snapshots are checked); then a real PostgreSQL server is started
(``tests/pgserver.py``, as the tests start it), an empty database made, and migrate-to run as an operator
runs it: a process of its own, the address in ``TAVERN_DATABASE_URL``. Printed: the database's size and
rows, each command's wall time and its own line; then every live game restored from PostgreSQL as a bot on
it would (with the token's snapshot key) and how many came back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_start import _dump as dump
from bench.bench_start import _signer as signer
from bot.games import GAMES
from bot.services.snapshots import key_from
from bot.services.tables import TableService
from bot.services.tables.moves import finish_from
from bot.store import NewGame, PostgresStore, SQLiteStore
from tests.fakediscord import FAKE_TOKEN
from tests.pgserver import PostgresServer

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = {"bhargage": (2,), "deluxe": (2, 3, 4), "cribbage": (2, 3, 4)}


def play(game: str, seed: int, rng: random.Random, *, to_end: bool) -> tuple[int, Any, list[str], Any, Any]:
    """(players, options, action texts, final state, the state before the last action): to the end, or to a
    random point short of it."""
    adapter = GAMES[game]
    rules, ai = adapter.rules, adapter.ai
    assert ai is not None
    players = rng.choice(PLAYERS[game])
    options = rules.Options()
    state, _ = rules.start(seed, players, options)
    texts: list[str] = []
    before = state
    stop = None if to_end else rng.randint(3, 60)
    while not rules.is_over(state) and (stop is None or len(texts) < stop):
        seat = rules.waiting_for(state)[0]
        action = ai.choose(rules.view(state, seat), rng, "easy")
        after, _ = rules.apply(state, action)
        if not to_end and rules.is_over(after):
            break
        texts.append(rules.action_text(action))
        before, state = state, after
    return players, options, texts, state, before


async def build(path: Path, finished: int, active: int, seed: int) -> None:
    """The games, written through the store's own connection: seats and actions in bulk, each finished game
    closed by ``finish_game`` (its results and rating changes)."""
    rng = random.Random(seed)
    store = await SQLiteStore.open(path)
    names = list(GAMES)
    now = time.time() - 86_400
    try:
        for i in range(finished + active):
            game = names[i % len(names)]
            guild = 1 + i % 5
            ended = i < finished
            seed = rng.randrange(2**62)
            players, options, texts, state, before = play(game, seed, rng, to_end=ended)
            # Finished games among 60 regulars a server (ratings build up); a live game's players are its own
            # (nobody sits at two live tables).
            seats = [
                (1000 + 100 * s + rng.randrange(60) if ended else 900_000 + 10 * i + s, f"member {i}-{s}")
                for s in range(players)
            ]
            channel = 10_000 + i if ended else 50_000 + i  # one live game a channel
            game_id = await store.create_game(
                NewGame(game, guild, channel, seed, seats, options.to_dict(), now + i)
            )
            async with store._tx() as db:
                await db.executemany(
                    "INSERT INTO actions (game_id, seq, seat, text, at) VALUES (?, ?, ?, ?, ?)",
                    [(game_id, n, int(t.split(" ", 1)[0]), t, now + i + n) for n, t in enumerate(texts, 1)],
                )
                await db.execute("UPDATE games SET version = ? WHERE id = ?", (len(texts), game_id))
            rules = GAMES[game].rules
            if ended:
                await store.finish_game(game_id, finish_from(rules.final_result(state), now + i + len(texts)))
            elif len(texts) > 1:  # the snapshot a live table keeps (the state before its last move), signed
                codec, n = signer(rules), len(texts) - 1
                data = dump(codec, before, game=game_id, seq=n)
                async with store._tx() as db:
                    await db.execute(
                        "INSERT INTO snapshots (game_id, seq, at, fingerprint, data) VALUES (?, ?, ?, ?, ?)",
                        (game_id, n, now + i, codec.tag, data),
                    )
        for guild in range(1, 6):  # what servers and members set
            await store.set_guild_settings(guild, {"nudge_minutes": 5 + guild})
        for member in range(1000, 1300, 3):
            await store.set_user_prefs(member, {"auto_cut": False})
            await store.set_user_language(member, "it" if member % 2 else "en")
            await store.set_dm_channel(member, 7_000_000 + member)
    finally:
        await store.close()


async def resume(url: str) -> tuple[int, float]:
    """Every live game restored from PostgreSQL as a bot with the fake's token restores it: (games,
    seconds)."""
    store = await PostgresStore.open(url)
    try:
        started = time.perf_counter()
        back = await TableService(store, clock=time.time, games=GAMES, key=key_from(FAKE_TOKEN)).restore()
        return back, time.perf_counter() - started
    finally:
        await store.close()


def rows(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        tables = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: int(db.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0]) for n in sorted(tables)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--finished", type=int, default=2000)
    parser.add_argument("--active", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tavern-migrate-bench-") as folder:
        path = Path(folder) / "tavern.sqlite3"
        started = time.perf_counter()
        asyncio.run(build(path, args.finished, args.active, args.seed))
        counted = rows(path)
        print(
            f"built {path.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - started:.0f} s: "
            + json.dumps({k: v for k, v in counted.items() if k != "sqlite_sequence"})
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TAVERN_", "DISCORD_"))}
        env |= {"TAVERN_DB_PATH": str(path), "DISCORD_TOKEN": FAKE_TOKEN}
        (Path(folder) / "backups").mkdir()
        for command in (["backup", f"{folder}/backups"], ["restore-drill", "LATEST"]):
            if command[1] == "LATEST":
                command[1] = str(next((Path(folder) / "backups").iterdir()))
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "bot", *command], env=env, cwd=folder, capture_output=True, text=True
            )
            wall = time.perf_counter() - started
            print(f"$ python -m bot {command[0]}   (exit {done.returncode}; {wall:.1f} s wall)")
            print(done.stdout.strip() or done.stderr.strip())
        with PostgresServer() as server:
            url = server.new_database()
            env = {k: v for k, v in os.environ.items() if not k.startswith(("TAVERN_", "DISCORD_"))}
            env |= {"TAVERN_DB_PATH": str(path), "TAVERN_DATABASE_URL": url}
            started = time.perf_counter()
            command = [sys.executable, "-m", "bot", "migrate-to"]
            done = subprocess.run(command, env=env, cwd=folder, capture_output=True, text=True)
            wall = time.perf_counter() - started
            print(f"$ python -m bot migrate-to   (exit {done.returncode}; {wall:.1f} s wall, its start too)")
            print(done.stdout.strip() or done.stderr.strip())
            back, took = asyncio.run(resume(url))
            print(f"restored from PostgreSQL: {back} of {args.active} live games in {took:.1f} s")


if __name__ == "__main__":
    main()
