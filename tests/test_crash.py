"""A bot killed at any moment loses no acknowledged move.

A child process plays random legal Bhargage moves through the real TableService on an SQLite file and prints
each move's sequence number once ``act`` has returned (the moment the bot would announce it). The test kills
it with SIGKILL mid-game — no close, no flush — then restores from the same file: every acknowledged move must
be there, and the rebuilt state must equal a replay of the log.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bot.games import GAMES
from bot.rules import bhargage as bh
from bot.services.tables import TableService
from bot.store import SQLiteStore as Store

REPO = Path(__file__).resolve().parents[1]

CHILD = textwrap.dedent(
    """
    import asyncio, random, sys, time
    from bot.rules import bhargage as bh
    from bot.store import SQLiteStore as Store
    from bot.games import GAMES
    from bot.services.tables import TableService

    async def main(path):
        store = await Store.open(path)
        tables = TableService(store, clock=time.time, games=GAMES)
        table, _ = await tables.create("bhargage", 1, 2, [(10, "ann"), (20, "ben")], {"target": 221}, seed=5)
        print("game", table.id, flush=True)
        rng = random.Random(1)
        while not table.is_over():
            seat = table.waiting_for()[0]
            action = rng.choice(bh.legal_actions(table.state, seat))
            result = await tables.act(table.id, table.seats[seat].user_id, action)
            print("ack", result.seq, flush=True)

    asyncio.run(main(sys.argv[1]))
    """
)


@pytest.mark.parametrize("kill_after", [3, 17, 40])
async def test_sigkill_loses_no_acknowledged_move(tmp_path: Path, kill_after: int) -> None:
    db = tmp_path / "crash.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)], stdout=subprocess.PIPE, text=True, env=env, cwd=REPO
    )
    assert child.stdout is not None
    acked = 0
    game_id = None
    deadline = time.monotonic() + 30
    try:
        while acked < kill_after:
            assert time.monotonic() < deadline, "the child made no progress"
            line = child.stdout.readline()
            assert line, "the child stopped early"
            word, value = line.split()
            if word == "game":
                game_id = int(value)
            else:
                acked = int(value)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    assert child.returncode == -signal.SIGKILL and game_id is not None

    store = await Store.open(db)
    try:
        tables = TableService(store, clock=time.time, games=GAMES)
        assert await tables.restore() == 1
        table = await tables.get(game_id)
        assert table.seq >= acked  # every acknowledged move survived (later ones may too)
        log = [a.text for a in await store.actions(game_id)]
        assert len(log) == table.seq
        assert table.state == bh.replay(table.seed, 2, table.options, log)
    finally:
        await store.close()
