"""Start-up benchmark: the real bot started on a database holding many live games.

Run: ``.venv/bin/python bench/bench_start.py [--games 10000] [--seed 1] [--db PATH] [--no-edit]``.
Target on a 2-core machine, with 10,000 live games: the gateway connection begins within 2 s of
``bot.start()``, every table is restored soon after (well under 3 s), and a slash command sent as soon as the
bot is ready is answered well within Discord's 3 s while the restore still runs.

The database is built first (not timed): N live games, Bhargage and Bharg Deluxe in turn, each played by the
engines to a random point (3–60 random legal moves, stopping short of the end), written through the store in
one bulk transaction, with the snapshot each game's table would have kept when the code has snapshots
(signed as the bot signs them, with the key of the fake's token, and of the state before the last move). Then
the real bot starts against the fake Discord of ``tests/fakediscord`` and the figures are printed: from
``bot.start()`` to the fake's gateway accepting the websocket and receiving IDENTIFY, to READY, to every game
listed (what commands wait for) and to the end of the restore; the tables restored, and how many came from
their snapshot; the process's RSS; and ``/… hand`` sent at READY by a player of the last game (the last one
the restore comes to): its callback latency, whether it came before the end of the restore, and whether it
showed that game. Then the same start-up again after an engine edit that keeps ``STATE_VERSION``, in a child
process running a copy of the code whose two engine modules carry an edit (a function appended, which
changed the hash of the engines' source that keyed snapshots before they had a ``STATE_VERSION``): every
snapshot must still be used (``--no-edit`` skips it). Last, what a snapshot costs a move: its size, the time
to make it, and the time of a move's commit with and without it (on disk).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import logging
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from bench.bench_load import running_bot
from bot.edge.app import TavernBot
from bot.edge.custom_ids import parse
from bot.games import GAMES
from bot.services.tables import TableService
from bot.settings import Settings
from bot.store import NewAction, NewGame, SQLiteStore
from tests.fakediscord import FAKE_TOKEN, FakeDiscord

ROOT = Path(__file__).resolve().parent.parent
# What the engine edit appends to each engine module: code, kept STATE_VERSION.
EDIT = '''

def _edited_by_bench_start() -> str:
    """An edit of the engine that keeps STATE_VERSION (bench/bench_start.py)."""
    return "edited"
'''

try:  # absent before start-up used snapshots: the same bench then measures restore by replay
    from bot.services import snapshots
except ImportError:
    snapshots = None  # type: ignore[assignment]

log = logging.getLogger("bench")


def _play(game: str, seed: int, rng: random.Random) -> tuple[int, Any, list[tuple[int, str]], list[Any]]:
    """Play a game to a random point: (players, options, [(seat, action text)], the state at each seq)."""
    rules = GAMES[game].rules
    players = 2 if game == "bhargage" else rng.choice((2, 3, 4))
    options = rules.Options()
    state, _ = rules.start(seed, players, options)
    states = [state]
    moves: list[tuple[int, str]] = []
    for _ in range(rng.randint(3, 60)):
        seat = rules.waiting_for(state)[0]
        action = rng.choice(rules.legal_actions(state, seat))
        after, _ = rules.apply(state, action)
        if rules.is_over(after):
            break
        moves.append((seat, rules.action_text(action).split(" ", 1)[1]))
        state = after
        states.append(state)
    return players, options, moves, states


async def build(path: Path, games: int, seed: int) -> dict[str, int]:
    """Write ``games`` live games (and their snapshots, when the code has them); returns counts."""
    rng = random.Random(seed)
    store = await SQLiteStore.open(path)
    now = time.time() - 60  # recent moves: no idle nudges at start-up
    rows: dict[str, list[tuple[Any, ...]]] = {"games": [], "seats": [], "actions": [], "snapshots": []}
    counts = {"bhargage": 0, "deluxe": 0, "actions": 0, "snapshots": 0}
    codecs = {name: _signer(a.rules) for name, a in GAMES.items()} if snapshots else {}
    for i in range(1, games + 1):
        game = "bhargage" if i % 2 else "deluxe"
        game_seed = rng.randrange(2**62)
        players, options, moves, states = _play(game, game_seed, rng)
        counts[game] += 1
        options_text = json.dumps(options.to_dict())
        rows["games"].append((i, game, 1, 1_000_000 + i, game_seed, players, options_text, now))
        rows["seats"].extend((i, s, 10_000_000 + i * 10 + s, f"p{i}-{s}") for s in range(players))
        for seq, (seat, text) in enumerate(moves, 1):
            rows["actions"].append((i, seq, seat, f"{seat} {text}", now + seq))
        counts["actions"] += len(moves)
        codec = codecs.get(game)
        if codec is not None:
            # The seq of the snapshot the table would hold: each move leaves one of the state before it
            # when one is due, so the last move's is of the state before it at the latest.
            last = 0
            for seq in range(1, len(moves)):
                if snapshots.due(seq, last):
                    last = seq
            if last:
                data = _dump(codec, states[last], game=i, seq=last)
                rows["snapshots"].append((i, last, now + last, codec.tag, data))
                counts["snapshots"] += 1
    async with store._tx() as db:  # one bulk transaction through the store's own connection
        await db.executemany(
            "INSERT INTO games (id, game, guild_id, channel_id, seed, players, options, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows["games"],
        )
        await db.executemany(
            "INSERT INTO seats (game_id, seat, user_id, name) VALUES (?, ?, ?, ?)", rows["seats"]
        )
        await db.executemany(
            "INSERT INTO actions (game_id, seq, seat, text, at) VALUES (?, ?, ?, ?, ?)", rows["actions"]
        )
        if rows["snapshots"]:
            await db.executemany(
                "INSERT INTO snapshots (game_id, seq, at, fingerprint, data) VALUES (?, ?, ?, ?, ?)",
                rows["snapshots"],
            )
    await store.close()
    return counts


def _signer(rules: Any) -> Any:
    """The snapshot writer the bot uses for this engine: signed with its token's key where the code signs
    snapshots, else the plain codec (the code before signatures)."""
    codec = snapshots.codec(rules)
    signer = getattr(snapshots, "Signer", None)
    return codec if codec is None or signer is None else signer(codec, snapshots.key_from(FAKE_TOKEN))


def _dump(codec: Any, state: Any, *, game: int, seq: int) -> bytes:
    """A snapshot as the bot writes it (a signed one names its game and action count)."""
    if getattr(snapshots, "Signer", None) is None:  # the code before signed snapshots
        return bytes(codec.dump(state))
    return bytes(codec.dump(state, game=game, seq=seq))


def _rss_mb() -> tuple[float, float]:
    """(current, peak) resident set size in MB."""
    current = 0.0
    with contextlib.suppress(OSError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                current = int(line.split()[1]) / 1024
    return current, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def start_up(path: Path) -> dict[str, float]:
    """Start the real bot on ``path`` against the fake, and send a command at READY; the figures in seconds
    from ``bot.start()``."""
    marks: dict[str, float] = {}
    restore, index = TableService.restore, SQLiteStore.active_index

    async def timed_restore(self: TableService, *args: Any, **kwargs: Any) -> int:
        count = await restore(self, *args, **kwargs)
        marks["restored"], marks["tables"] = time.perf_counter(), count
        return count

    async def timed_index(self: SQLiteStore, **kwargs: Any) -> Any:
        listed = await index(self, **kwargs)
        marks["listed"] = time.perf_counter()
        return listed

    TableService.restore = timed_restore  # type: ignore[method-assign]
    SQLiteStore.active_index = timed_index  # type: ignore[method-assign]
    fake = FakeDiscord()
    fake.referee = False  # its CPU would count as Discord's time; the tests check every body
    player = fake.add_user("player")
    # The last game (the restore comes to it last) moves to the fake's channel, and the seat it waits for
    # to a fake user, whose hand then has the game's controls on it.
    with sqlite3.connect(path) as db:
        last, game, seed, players, options = db.execute(
            "SELECT id, game, seed, players, options FROM games ORDER BY id DESC LIMIT 1"
        ).fetchone()
        rules = GAMES[game].rules
        state, _ = rules.start(seed, players, rules.Options.from_dict(json.loads(options)))
        for (text,) in db.execute("SELECT text FROM actions WHERE game_id = ? ORDER BY seq", (last,)):
            state, _ = rules.apply(state, rules.parse_action(text))
        seat = rules.waiting_for(state)[0]
        db.execute(
            "UPDATE games SET guild_id = ?, channel_id = ? WHERE id = ?",
            (fake.guild.id, fake.channel.id, last),
        )
        db.execute("UPDATE seats SET user_id = ? WHERE game_id = ? AND seat = ?", (player.id, last, seat))
        marks["snapshots"] = db.execute("SELECT count(*) FROM snapshots").fetchone()[0]

    def starting(_bot: TavernBot) -> None:
        marks["t0"] = time.perf_counter()
        marks["t0 monotonic"] = time.monotonic()  # the clock of the fake's gateway marks

    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(
                token=FAKE_TOKEN, db_path=path, health_path=Path(tmp) / "heartbeat", suit_emojis=False
            )
            async with running_bot(fake, settings, setup=starting, ready_timeout=120) as bot:
                marks["ready"] = time.perf_counter()
                command = f"{GAMES[game].command.lstrip('/')} hand"
                answer = await fake.slash(player, fake.channel, command)
                marks["early"] = "restored" not in marks
                it = answer.interaction
                assert it.sent_at is not None and it.callback_at is not None
                marks["sent"], marks["callback"] = it.sent_at, it.callback_at
                controls = [*answer.message.selects(), *answer.message.buttons()]
                keys = {parse(c.custom_id, ()).key for c in controls if c.custom_id}
                marks["right"] = answer.ephemeral and keys == {last}
                while "restored" not in marks:
                    await asyncio.sleep(0.005)
                live = bot.tables.active_tables()
                marks["live"] = len(live)
                marks["resumed"] = sum(t.snapshot_seq > 0 for t in live)
                marks["rss"], marks["peak"] = _rss_mb()
    finally:
        TableService.restore = restore  # type: ignore[method-assign]
        SQLiteStore.active_index = index  # type: ignore[method-assign]
    t0 = marks["t0"]
    return {
        "gateway": fake.gateway_opened_at[0] - marks["t0 monotonic"],
        "identify": fake.identified_at[0] - marks["t0 monotonic"],
        "ready": marks["ready"] - t0,
        "listed": marks["listed"] - t0,
        "restored": marks["restored"] - t0,
        "tables": marks["tables"],
        "live": marks["live"],
        "snapshots": marks["snapshots"],
        "resumed": marks["resumed"],
        "rss": marks["rss"],
        "peak": marks["peak"],
        "sent": marks["sent"] - t0,
        "callback_ms": (marks["callback"] - marks["sent"]) * 1000,
        "early": marks["early"],
        "right": marks["right"],
    }


def report(f: dict[str, float]) -> None:
    print(f"gateway websocket accepted   {f['gateway']:7.3f} s after bot.start()")
    print(f"IDENTIFY received            {f['identify']:7.3f} s")
    print(f"READY (bot side)             {f['ready']:7.3f} s")
    print(f"every active game listed     {f['listed']:7.3f} s (commands wait for this)")
    print(f"every table restored         {f['restored']:7.3f} s")
    print(
        f"tables restored              {int(f['tables']):7d} (live afterwards: {int(f['live'])}; "
        f"from their snapshot: {int(f['resumed'])} of the {int(f['snapshots'])} games with one)"
    )
    print(f"RSS                          {f['rss']:7.1f} MB (getrusage max RSS {f['peak']:.1f} MB)")
    print(
        f"/… hand at READY ({f['sent']:.3f} s): callback in {f['callback_ms']:.0f} ms, "
        f"{'before' if f['early'] else 'AFTER'} the restore ended, "
        f"{'showing' if f['right'] else 'NOT showing'} the last game's hand"
    )


def _engines_hash(root: Path) -> str:
    """A hash of the engines' source, as the snapshots' fingerprint was before STATE_VERSION."""
    digest = hashlib.sha256()
    for path in sorted((root / "bot" / "rules").glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def start_after_engine_edit(folder: Path, path: Path) -> None:
    """The start-up again, in a child process running a copy of the code whose engines carry ``EDIT``."""
    root = folder / "edited"
    for part in ("bot", "cogs", "tests", "bench"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__", "reference"))
    for name in ("bhargage.py", "deluxe.py"):
        engine = root / "bot" / "rules" / name
        engine.write_text(engine.read_text() + EDIT)
    print(
        f"\nafter an engine edit that keeps STATE_VERSION (the engines' source hash {_engines_hash(ROOT)} -> "
        f"{_engines_hash(root)}):",
        flush=True,
    )
    script = root / "bench" / "bench_start.py"
    subprocess.run([sys.executable, str(script), "--db", str(path), "--start-only"], check=True, cwd=root)


async def snapshot_cost(folder: Path, moves: int = 400) -> dict[str, float]:
    """What a snapshot adds to a move: its size, the time to make it, and a move's commit with and without."""
    assert snapshots is not None
    from bot.store import Snapshot

    rng = random.Random(5)
    store = await SQLiteStore.open(folder / "cost.sqlite3")
    sizes: list[int] = []
    dump_s = plain_s = with_s = 0.0
    try:
        for n in range(moves // 40):
            game = "bhargage" if n % 2 else "deluxe"
            rules = GAMES[game].rules
            players, options, played, states = _play(game, rng.randrange(2**62), rng)
            seats = [(1 + n * 10 + s, "p") for s in range(players)]
            plain = await store.create_game(NewGame(game, 1, 10 + n * 2, 1, seats, options.to_dict(), 0.0))
            seats = [(5 + n * 10 + s, "p") for s in range(players)]
            snapped = await store.create_game(NewGame(game, 1, 11 + n * 2, 1, seats, options.to_dict(), 0.0))
            codec = _signer(rules)
            assert codec is not None
            # A move's snapshot is of the state before it (the last one told), so from the second move on.
            for seq, ((seat, text), before) in enumerate(zip(played, states[:-1], strict=True), 1):
                if seq == 1:
                    await store.append_action(NewAction(plain, seq, seat, text, 0.0))
                    await store.append_action(NewAction(snapped, seq, seat, text, 0.0))
                    continue
                t = time.perf_counter()
                data = _dump(codec, before, game=snapped, seq=seq - 1)
                dump_s += time.perf_counter() - t
                sizes.append(len(data))
                t = time.perf_counter()
                await store.append_action(NewAction(plain, seq, seat, text, 0.0))
                plain_s += time.perf_counter() - t
                t = time.perf_counter()
                snap = Snapshot(seq - 1, 0.0, codec.tag, data)
                await store.append_action(NewAction(snapped, seq, seat, text, 0.0, snapshot=snap))
                with_s += time.perf_counter() - t
    finally:
        await store.close()
    count = len(sizes)
    return {
        "moves": count,
        "bytes": sum(sizes) / count,
        "dump_ms": dump_s / count * 1000,
        "plain_ms": plain_s / count * 1000,
        "with_ms": with_s / count * 1000,
    }


async def run(args: argparse.Namespace) -> None:
    if args.start_only:  # the child of start_after_engine_edit
        print(f"engine code from             {Path(GAMES['bhargage'].rules.__file__).parent}")
        report(await start_up(Path(args.db)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.db) if args.db else Path(tmp) / "tavern.sqlite3"
        if not path.exists():
            t = time.monotonic()
            counts = await build(path, args.games, args.seed)
            print(
                f"built {args.games} live games ({counts['bhargage']} Bhargage, {counts['deluxe']} Deluxe; "
                f"{counts['actions']} actions, {counts['snapshots']} snapshots) "
                f"in {time.monotonic() - t:.1f} s"
            )
        report(await start_up(path))
        if not args.no_edit:
            start_after_engine_edit(Path(tmp), path)
        if snapshots is not None:
            c = await snapshot_cost(Path(tmp))
            print(
                f"\nsnapshot per move ({int(c['moves'])} moves): {c['bytes']:.0f} bytes, "
                f"made in {c['dump_ms']:.3f} ms; "
                f"commit {c['plain_ms']:.2f} ms without, {c['with_ms']:.2f} ms with"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=10_000, help="live games in the database")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games built")
    parser.add_argument("--db", help="use (or build once) this database file instead of a temporary one")
    parser.add_argument("--no-edit", action="store_true", help="skip the start-up after an engine edit")
    parser.add_argument("--start-only", action="store_true", help=argparse.SUPPRESS)  # the edited child
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
