"""Stopping and deploying safely: SIGTERM drains the moves in flight, commands sync only when they changed,
the heartbeat file behind ``python -m bot health``, and the lock file the Docker image installs from."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import sqlite3
import stat
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bot import __main__ as main_mod
from bot.base.i18n import t
from bot.edge.app import TavernBot, create_bot
from bot.games import GAMES
from bot.services import health
from bot.services.tables import TableService
from bot.settings import Settings, health_path_from_env, settings_from_env
from bot.store import NewAction, NewGame, SQLiteStore
from tests import fakegame
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_plugin_game import live_panel, plug_in_race

REPO = Path(__file__).resolve().parents[1]
RACE_GAMES = {**GAMES, "race": fakegame.ADAPTER}
T = TypeVar("T")


async def poll(check: Callable[[], T], *, timeout: float = 5.0, what: str = "") -> T:
    """Poll without waiting for the whole bot to go quiet (it never is during a burst)."""
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what or check}"
        await asyncio.sleep(0.002)
    return result


# ---------------------------------------------------------------------------------------------- draining


@dataclasses.dataclass
class Tally:
    """What one game's presses got back: success answers, refusals, and presses the bot never answered."""

    added: int = 0
    refused: int = 0
    unanswered: int = 0


async def open_race(fake: FakeDiscord, bot: TavernBot, channel: Any, a: FakeUser, b: FakeUser) -> int:
    lobby = (await fake.slash(a, channel, "race", target=1000)).message
    await fake.click(b, lobby, "Join")
    await fake.click(a, lobby, "Start")
    await fake.settle()
    table = await bot.tables.table_for_channel(channel.id)
    assert table is not None
    return table.id


async def test_sigterm_mid_burst_finishes_moves_in_flight_and_refuses_new_ones(
    fake_discord: FakeDiscord, settings: Settings
) -> None:
    """Several games are played as fast as the bot answers; the stop event (what SIGTERM sets) comes while one
    move is inside its write, holding its table's lock. That move completes and is answered; presses after
    the signal are refused with the restart message; every success answer is in the stored log, nothing is
    half-applied (every game replays), the store closes, and run() returns 0 well within 10 s."""
    fake = fake_discord
    channels = [fake.channel, *(fake.add_channel(f"tavern-{i}") for i in range(3))]
    players = [(fake.add_user(f"a{i}"), fake.add_user(f"b{i}")) for i in range(len(channels))]
    bot = create_bot(settings, guild_ready_timeout=0.01)
    plug_in_race(bot)
    stop = asyncio.Event()
    runner = asyncio.create_task(main_mod.run(settings, bot=bot, stop=stop))
    await poll(bot.is_ready, what="the bot to be ready")
    games = [await open_race(fake, bot, ch, a, b) for ch, (a, b) in zip(channels, players, strict=True)]
    users = dict(zip(games, players, strict=True))
    held, *burst, spare = games

    # The held game's third write waits for the test: a move caught mid-write when the signal comes.
    entered, release = asyncio.Event(), asyncio.Event()
    writes = {"n": 0}
    append = bot.store.append_action

    async def held_append(action: NewAction) -> None:
        if action.game_id == held:
            writes["n"] += 1
            if writes["n"] == 3:
                entered.set()
                await release.wait()
        await append(action)

    bot.store.append_action = held_append  # type: ignore[method-assign]

    tallies = {game: Tally() for game in games}

    async def play(game: int, limit: int = 10**6) -> None:
        """Press "Add 1" for whoever moves, as soon as their panel is there, until refused (or ``limit``)."""
        table = await bot.tables.get(game)
        tally = tallies[game]
        a, b = users[game]
        while not runner.done() and tally.added < limit:
            mover = a if table.seat_of(a.id) == table.waiting_for()[0] else b
            panel = await poll(lambda m=mover: live_panel(fake, m) or runner.done(), what="a live panel")
            if not isinstance(panel, FakeMessage):
                return
            try:
                pressed = await fake.click(mover, panel, "Add 1", expect_reply=False, settle=False)
            except (AssertionError, ConnectionError):
                return  # the bot is gone
            it = pressed.interaction

            def outcome(p: FakeMessage = panel, i: Any = it) -> str | None:
                if p.content == "Added.":
                    return "added"
                if any(
                    t("tavern.restarting") in m.content
                    for m in [*([i.response] if i.response else []), *i.followups]
                ):
                    return "refused"
                return "unanswered" if runner.done() else None

            result = await poll(outcome, timeout=10, what="the press's answer")
            if result == "added":
                tally.added += 1
            elif result == "refused":
                tally.refused += 1
                return
            else:
                tally.unanswered += 1
                return

    # The held game stops after its held move: a press sent while the bot disconnects would only be lost.
    loops = [asyncio.create_task(play(held, limit=3)), *(asyncio.create_task(play(game)) for game in burst)]
    await asyncio.wait_for(entered.wait(), 10)
    answered_before = {game: tallies[game].added for game in games}
    signalled = time.monotonic()
    stop.set()
    await poll(lambda: bot.drain.closing, what="closing to start")

    # A press now is refused at once, through the usual ephemeral reply, while the held move still runs.
    a, b = users[spare]
    spare_table = await bot.tables.get(spare)
    mover = a if spare_table.seat_of(a.id) == spare_table.waiting_for()[0] else b
    spare_panel = live_panel(fake, mover)
    assert spare_panel is not None
    refused = await fake.click(mover, spare_panel, "Add 1", settle=False)
    assert refused.ephemeral and refused.content == t("tavern.restarting")
    await asyncio.sleep(0.2)
    assert not runner.done() and bot.drain.busy >= 1  # waiting for the held move
    release.set()

    assert await asyncio.wait_for(runner, 10) == 0
    took = time.monotonic() - signalled
    assert took < 10, f"run() took {took:.1f} s to return after the signal"
    await asyncio.gather(*loops)
    assert bot.is_closed()
    with pytest.raises(ValueError):
        await bot.store.db.execute("SELECT 1")

    store = await SQLiteStore.open(settings.db_path)
    try:
        tables = TableService(store, clock=time.time, games=RACE_GAMES)
        assert await tables.restore() == len(games)  # every game replays to a valid, live state
        for game in games:
            table = await tables.get(game)
            texts = [a.text for a in await store.actions(game)]
            assert table.seq == len(texts)
            assert table.state == fakegame.replay(table.seed, len(table.seats), table.options, texts)
            tally = tallies[game]
            # Every move answered with success — before the signal or while draining — is stored, and no
            # stored move went unanswered.
            assert answered_before[game] <= tally.added == len(texts), (game, tally, len(texts))
            assert tally.unanswered == 0, (game, tally)
        assert tallies[held].added >= 3  # the move caught mid-write finished
        assert [a.text for a in await store.actions(spare)] == []  # the refused press changed nothing
    finally:
        await store.close()
    assert sum(t.added for t in tallies.values()) > len(burst) * 2
    assert tallies[held].added == 3 and all(tallies[game].refused == 1 for game in burst)


async def test_a_closing_bot_refuses_slash_commands_too(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await start_bot()
    bot.drain.closing = True  # what close() sets first
    result = await fake_discord.slash(fake_discord.owner, fake_discord.channel, "tavern ping")
    assert result.ephemeral and result.content == t("tavern.restarting")
    bot.drain.closing = False
    assert (
        "Pong!" in (await fake_discord.slash(fake_discord.owner, fake_discord.channel, "tavern ping")).content
    )


async def test_drain_waits_a_bounded_time() -> None:
    from bot.edge.drain import Drain, Restarting

    drain = Drain()
    entered = asyncio.Event()

    async def stuck() -> None:
        async with drain.in_flight():
            entered.set()
            await asyncio.sleep(10)

    task = asyncio.create_task(stuck())
    await entered.wait()
    # Gives up after its 0.05 s, not when the stuck request ends (10 s): the deadline is only a backstop.
    assert await asyncio.wait_for(drain.close(0.05), 5) is False
    assert not task.done()
    with pytest.raises(Restarting):
        async with drain.in_flight():
            pass
    task.cancel()
    assert await Drain().close(0.05) is True


# ------------------------------------------------------------------------------------------ command sync


async def test_commands_sync_only_when_the_tree_or_target_changes(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    await (await start_bot()).close()
    assert fake.command_syncs() == 1 and fake.commands()
    await (await start_bot()).close()
    assert fake.command_syncs() == 1  # same commands, same target: no sync
    bot = await start_bot(setup=plug_in_race)
    assert fake.command_syncs() == 2 and "race" in {c["name"] for c in fake.commands()}
    await bot.close()
    bot = await start_bot(setup=plug_in_race)
    assert fake.command_syncs() == 2
    assert "Pong!" in (await fake.slash(fake.owner, fake.channel, "tavern ping")).content
    await bot.close()
    dev = dataclasses.replace(settings, dev_guild_id=fake.guild.id)
    bot = await start_bot(dev, setup=plug_in_race)
    assert fake.command_syncs() == 3 and fake.commands(fake.guild)  # a new target syncs
    await bot.close()


async def test_a_sync_carries_the_activitys_entry_point_command(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """With Activities turned on, Discord holds the app's Entry Point command and refuses (50240) a global
    overwrite without it, registering nothing: the sync sends it back as held, and the commands register."""
    fake = fake_discord
    launch = fake.enable_activities()
    await (await start_bot()).close()
    assert fake.command_syncs() == 1 and not fake.rejections(50240)
    held = {c["name"]: c for c in fake.commands()}
    assert held["launch"]["id"] == launch["id"] and held["launch"]["handler"] == 2  # the same command, kept
    assert {"tavern", "bhargage"} <= set(held)
    assert await main_mod.sync(settings) == 0  # forced: carried again
    assert fake.command_syncs() == 2 and not fake.rejections(50240)
    assert [c["id"] for c in fake.commands() if c["type"] == 4] == [launch["id"]]
    dev = dataclasses.replace(settings, dev_guild_id=fake.guild.id)
    await (await start_bot(dev)).close()  # a dev guild's sync carries none: the Entry Point is global only
    assert fake.command_syncs() == 3 and not any(c["type"] == 4 for c in fake.commands(fake.guild))


async def test_python_m_bot_sync_forces_a_sync(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    await (await start_bot()).close()
    assert fake.command_syncs() == 1
    assert await main_mod.sync(settings) == 0
    assert fake.command_syncs() == 2  # forced, although nothing changed
    bot = await start_bot()
    assert fake.command_syncs() == 2
    assert "Pong!" in (await fake.slash(fake.owner, fake.channel, "tavern ping")).content
    await bot.close()
    assert fake.identify_count == 2  # the sync logged in over REST only: no gateway session


async def test_sync_with_a_wrong_token_says_so(
    fake_discord: FakeDiscord, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await main_mod.sync(dataclasses.replace(settings, token="wrong")) == 1
    assert "rejected the bot token" in capsys.readouterr().err
    assert fake_discord.command_syncs() == 0


async def test_command_hash_is_stable_and_names_the_target(settings: Settings) -> None:
    import discord

    one, two = create_bot(settings), create_bot(settings)
    assert await one.command_hash(None) == await two.command_hash(None)
    plug_in_race(two)
    assert await one.command_hash(None) != await two.command_hash(None)
    assert await one.command_hash(None) != await one.command_hash(discord.Object(id=123))


def test_unknown_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main_mod.main(["deploy"])
    assert info.value.code == 2 and "invalid choice" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ health


def beat(
    path: Path, *, age: float = 1.0, gateway: bool = True, database: bool = True, detail: str = ""
) -> None:
    health.write(path, health.Beat(time.time() - age, gateway, database, detail))


@pytest.mark.parametrize(
    ("kwargs", "healthy", "words"),
    [
        ({}, True, "ok: heartbeat"),
        ({"age": 61}, False, "last heartbeat 61 s ago"),
        ({"gateway": False}, False, "not connected to the Discord gateway"),
        ({"database": False, "detail": "OperationalError: disk I/O error"}, False, "database check failed"),
    ],
)
def test_health_check_reads_the_heartbeat(
    tmp_path: Path, kwargs: dict[str, Any], healthy: bool, words: str
) -> None:
    path = tmp_path / "health.json"
    beat(path, **kwargs)
    ok, reason = health.check(path)
    assert ok is healthy and words in reason and "\n" not in reason
    if "detail" in kwargs:
        assert kwargs["detail"] in reason


def test_health_check_without_a_readable_file(tmp_path: Path) -> None:
    ok, reason = health.check(tmp_path / "health.json")
    assert not ok and "no heartbeat file" in reason
    (tmp_path / "health.json").write_text("{not json")
    ok, reason = health.check(tmp_path / "health.json")
    assert not ok and "unreadable" in reason


def test_health_path_setting(tmp_path: Path) -> None:
    env = {"DISCORD_TOKEN": "tok", "TAVERN_DB_PATH": str(tmp_path / "db" / "t.sqlite3")}
    assert settings_from_env(env).heartbeat_path == tmp_path / "db" / "health.json"
    assert health_path_from_env({"TAVERN_DB_PATH": str(tmp_path / "t.db")}) == tmp_path / "health.json"
    custom = {**env, "TAVERN_HEALTH_PATH": str(tmp_path / "h.json")}
    assert settings_from_env(custom).heartbeat_path == tmp_path / "h.json"
    assert health_path_from_env({}) == Path("data/health.json")


@pytest.mark.parametrize("fresh", [True, False])
def test_python_m_bot_health_exit_code(tmp_path: Path, fresh: bool) -> None:
    """No token needed: the check reads only the file (the container's environment has the path)."""
    path = tmp_path / "health.json"
    beat(path, age=1 if fresh else 300)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin"),
        "PYTHONPATH": str(REPO),
        "TAVERN_HEALTH_PATH": str(path),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "health"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == (0 if fresh else 1)
    assert len(proc.stdout.strip().splitlines()) == 1 and proc.stderr == ""
    assert proc.stdout.startswith("ok" if fresh else "unhealthy")


async def test_the_running_bot_writes_its_heartbeat(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fast(bot: TavernBot) -> None:
        bot.heartbeat_seconds = 0.02

    bot = await start_bot(setup=fast)
    path = bot.settings.heartbeat_path
    assert path.parent == bot.settings.db_path.parent

    def reason() -> str:
        return health.check(path)[1]

    await poll(lambda: reason().startswith("ok"), what="a healthy heartbeat")
    written = json.loads(path.read_text())
    assert written["gateway"] is True and written["database"] is True and bot.gateway_ok()

    async def broken(key: str) -> str | None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(bot.store, "get_state", broken)
    await poll(lambda: "database check failed: OperationalError: disk I/O error" in reason(), what="db down")
    monkeypatch.undo()
    await poll(lambda: reason().startswith("ok"), what="healthy again")

    await bot.close()
    assert not bot.gateway_ok()
    ok, why = health.check(path)
    assert not ok and "gateway" in why and "stopped" in why


async def test_the_heartbeat_detail_never_carries_a_secret(settings: Settings, tmp_path: Path) -> None:
    """The health file is for anyone on the machine (and docker inspect): a database error that quotes the
    password, the token or an interaction's address is scrubbed there as in the log."""
    secret = "pw-9f3c-in-an-error"
    url = f"postgresql://tavern@db:5432/tavern?password={secret}"
    bot = create_bot(dataclasses.replace(settings, database_url=url))

    class Failing:
        async def get_state(self, key: str) -> str | None:
            raise OSError(
                f"lost {url} (password {secret}) with token {settings.token} answering "
                "POST /interactions/12/itok-12-0a1b/callback"
            )

    bot.store = Failing()  # type: ignore[assignment]
    beat = await bot.health_beat()
    assert not beat.database and beat.detail.startswith("OSError: lost postgresql://tavern@db:5432/tavern")
    path = tmp_path / "health.json"
    health.write(path, beat)
    written = path.read_text() + health.check(path)[1]
    assert "password=[REDACTED]" in written and "/interactions/12/[REDACTED]/callback" in written
    for leak in (secret, settings.token, "itok-12-0a1b"):
        assert leak not in written


# ------------------------------------------------------------------------------------------------ backup


async def bot_command(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot …`` as an operator runs it beside the running bot (no token needed, only ``env``'s
    settings), without blocking the event loop the bot in this process runs on."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("TAVERN_", "DISCORD_"))}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=tmp_path,
        env={**clean, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return subprocess.CompletedProcess(list(args), proc.returncode, out.decode(), err.decode())


async def backup_command(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return await bot_command(tmp_path, "backup", *args, **env)


async def test_a_backup_taken_while_the_bot_writes_moves_is_a_whole_database(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, tmp_path: Path
) -> None:
    """``python -m bot backup PATH`` while three games are played as fast as the bot answers: each copy is
    one file that passes SQLite's integrity check, opens as the bot's store, and holds every game, each of
    whose logs replays, with at least the moves stored before it began and at most those stored after."""
    fake = fake_discord
    bot = await start_bot(setup=plug_in_race)
    channels = [fake.channel, fake.add_channel("tavern-1"), fake.add_channel("tavern-2")]
    players = [(fake.add_user(f"a{i}"), fake.add_user(f"b{i}")) for i in range(len(channels))]
    games = [await open_race(fake, bot, ch, a, b) for ch, (a, b) in zip(channels, players, strict=True)]
    users = dict(zip(games, players, strict=True))
    stop = asyncio.Event()

    async def play(game: int) -> int:
        """Press "Add 1" for whoever moves until told to stop; how many moves were answered."""
        moves = 0
        while not stop.is_set():
            table = await bot.tables.get(game)
            a, b = users[game]
            mover = a if table.seat_of(a.id) == table.waiting_for()[0] else b
            panel = await poll(lambda m=mover: live_panel(fake, m), what="a live panel")
            await fake.click(mover, panel, "Add 1", settle=False)
            await poll(lambda t=table, n=table.seq: t.seq > n, what="the move to be stored")
            moves += 1
        return moves

    async def stored() -> dict[int, int]:
        return {game: len(await bot.store.actions(game)) for game in games}

    players_at_work = [asyncio.create_task(play(game)) for game in games]
    copies: list[tuple[Path, dict[int, int], dict[int, int]]] = []
    try:
        tables = [await bot.tables.get(game) for game in games]
        await poll(lambda: all(table.seq >= 3 for table in tables), what="the games to be under way")
        for n in range(3):
            target = tmp_path / f"backup-{n}.sqlite3"
            before = await stored()
            done = await backup_command(tmp_path, str(target), TAVERN_DB_PATH=str(settings.db_path))
            after = await stored()
            assert done.returncode == 0, done.stderr
            assert done.stdout.startswith(f"Backed up {settings.db_path} to {target}: ") and done.stderr == ""
            assert "3 games (3 active), integrity checked." in done.stdout
            assert len(done.stdout.strip().splitlines()) == 1
            copies.append((target, before, after))
    finally:
        stop.set()
        answered = await asyncio.gather(*players_at_work)
    assert all(moves >= 3 for moves in answered), answered
    assert any(before != after for _, before, after in copies), "no move was stored during a backup"

    for target, before, after in copies:
        assert sorted(p.name for p in tmp_path.glob(f"{target.name}*")) == [target.name]  # one file
        with sqlite3.connect(target) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert db.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        copy = await SQLiteStore.open(target)
        try:
            restored = TableService(copy, clock=time.time, games=RACE_GAMES)
            assert await restored.restore() == len(games)  # every game replays to a valid, live state
            for game in games:
                table = await restored.get(game)
                texts = [a.text for a in await copy.actions(game)]
                assert before[game] <= len(texts) <= after[game], (game, before, len(texts), after)
                assert table.seq == len(texts)
                assert table.state == fakegame.replay(table.seed, len(table.seats), table.options, texts)
        finally:
            await copy.close()


async def test_backup_refuses_what_it_cannot_do_well(tmp_path: Path, settings: Settings) -> None:
    """Never over a file; no database, no copy; a PostgreSQL database is pg_dump's, and the command says how
    (without the password) instead of copying anything."""
    store = await SQLiteStore.open(settings.db_path)
    await store.close()
    env = {"TAVERN_DB_PATH": str(settings.db_path)}
    kept = tmp_path / "kept.sqlite3"
    kept.write_text("an older backup")
    done = await backup_command(tmp_path, str(kept), **env)
    assert done.returncode == 1 and "kept.sqlite3 already exists" in done.stderr
    assert kept.read_text() == "an older backup"

    missing = await backup_command(tmp_path, "b.sqlite3", TAVERN_DB_PATH=str(tmp_path / "none.sqlite3"))
    assert missing.returncode == 1 and "there is no database at" in missing.stderr
    assert not (tmp_path / "none.sqlite3").exists()

    into = tmp_path / "backups"
    into.mkdir()
    dated = await backup_command(tmp_path, str(into), **env)
    assert dated.returncode == 0 and [p.suffix for p in into.iterdir()] == [".sqlite3"]
    # It holds members' ids and names: its owner's alone, whatever the umask.
    assert [stat.S_IMODE(p.stat().st_mode) for p in into.iterdir()] == [0o600]

    url = "postgresql://tavern:s3cret-pw@db.example:5432/tavern"
    pg = await backup_command(tmp_path, "c.dump", TAVERN_DATABASE_URL=url, **env)
    assert pg.returncode == 2 and "pg_dump --format=custom" in pg.stderr
    assert "s3cret-pw" not in pg.stdout + pg.stderr and not (tmp_path / "c.dump").exists()


# ------------------------------------------------------------------------------------------------ compose

COMPOSE = REPO / "docker-compose.scale.yml"  # PostgreSQL and shards (docker-compose.yml: one SQLite process)
INIT_SCRIPT = REPO / "deploy" / "postgres-init" / "10-tavern-role.sh"
BACKUP_SCRIPT = REPO / "deploy" / "pg-backup.sh"


def compose_service(text: str, name: str) -> str:
    """One service's block of the compose file (or the x-bot anchor's), as text: no YAML parser needed."""
    lines = text.splitlines()
    head = next((i for i, line in enumerate(lines) if re.match(rf"(  )?{re.escape(name)}:", line)), None)
    assert head is not None, f"no {name} in {COMPOSE.name}"
    indent = len(lines[head]) - len(lines[head].lstrip())
    block = []
    for line in lines[head + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line)
    return "\n".join(block) + "\n"


def test_compose_has_no_default_password_and_the_bots_are_no_superuser() -> None:
    """The passwords are Docker secrets, files with no default (Compose refuses to start without them): the
    bots log in as tavern, which is not the image's superuser (POSTGRES_USER), whose password's secret only
    the db service mounts; the init script that makes tavern reads the same secret as the bots, and is
    mounted where the image runs it."""
    text = COMPOSE.read_text()
    uses = re.findall(r"\$\{([^}]*)\}", text)
    # No default but the build's commit, which is no secret (empty: the image says "unknown").
    defaults = [u for u in uses if ":-" in u or re.match(r"\w+-", u)]
    assert uses and defaults == ["TAVERN_COMMIT:-"], uses
    assert "change-me" not in text and not re.search(r"^\s*POSTGRES_PASSWORD\s*:", text, re.M)

    db, bots = compose_service(text, "db"), compose_service(text, "x-bot")
    superuser = re.search(r"POSTGRES_USER:\s*(\S+)", db)
    assert superuser and superuser[1] == "postgres"
    assert "POSTGRES_PASSWORD_FILE: /run/secrets/postgres_password" in db
    assert "TAVERN_POSTGRES_PASSWORD_FILE: /run/secrets/tavern_postgres_password" in db
    assert "- postgres_password" not in bots and "- tavern_postgres_password" in bots
    assert "./deploy/postgres-init:/docker-entrypoint-initdb.d" in db
    assert "pg_isready -h 127.0.0.1" in db  # healthy only once the init script is done and TCP is open
    environment = compose_service(text, "x-bot-environment")
    url = re.search(r"TAVERN_DATABASE_URL:\s*postgresql://([^@:]+)@db:5432/tavern\n", environment)
    assert url and url[1] == "tavern" != superuser[1]
    assert "TAVERN_DATABASE_PASSWORD_FILE: /run/secrets/tavern_postgres_password" in environment
    for name in ("bot-0", "bot-1"):
        bot = compose_service(text, name)
        assert "<<: *bot\n" in bot and "<<: *bot-environment" in bot, name
    ignored = (REPO / ".gitignore").read_text().split()
    assert "secrets/" in ignored and ".env" in ignored

    script = INIT_SCRIPT.read_text()
    assert os.access(INIT_SCRIPT, os.X_OK), "the image sources a script that is not executable"
    assert re.search(r"CREATE ROLE tavern LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE\b", script)
    assert "CREATE DATABASE tavern OWNER tavern;" in script
    assert (
        "\\getenv tavern_password TAVERN_POSTGRES_PASSWORD" in script
        and "PASSWORD :'tavern_password'" in script
    )


def test_the_init_script_makes_an_owner_that_is_no_superuser_and_runs_the_bot(tmp_path: Path) -> None:
    """The init script, run as the postgres image runs it (as the superuser ``postgres``, with the image's
    environment and the password's secret file), on a real server: tavern logs in with that password (the
    bot's TAVERN_DATABASE_PASSWORD_FILE reading the same file), takes in the games of a database the earlier
    compose file's superuser bots wrote (the README's move to a new volume), migrates and plays as a
    non-superuser owner, cannot do what only a superuser can, the README's backup and restore work as tavern,
    and so does the backup service's script (deploy/pg-backup.sh): dumps on its schedule, 0600, the newest
    kept, one weekly hard link, and a prompt stop."""
    import asyncpg

    from bot.store import LATEST_VERSION, PostgresStore
    from tests.pgserver import PostgresServer

    password = "t" + os.urandom(12).hex()
    secret = tmp_path / "tavern_postgres_password"  # the Docker secret, as compose mounts it
    secret.write_text(password + "\n")
    with PostgresServer(user="postgres") as server:
        env = {
            **os.environ,
            "PATH": f"{server.bin_dir}:{os.environ.get('PATH', '')}",
            "PGHOST": "127.0.0.1",
            "PGPORT": str(server.port),
            "PGUSER": "postgres",
            "PGPASSWORD": server.password,
            "POSTGRES_USER": "postgres",
            "POSTGRES_DB": "postgres",
            "TAVERN_POSTGRES_PASSWORD_FILE": str(secret),
        }

        def run(*args: str, **more: str) -> None:
            done = subprocess.run(args, env={**env, **more}, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
            assert password not in done.stdout + done.stderr

        url = settings_from_env(
            {
                "DISCORD_TOKEN": "x",
                "TAVERN_DB_PATH": str(tmp_path / "unused.sqlite3"),
                "TAVERN_DATABASE_URL": f"postgresql://tavern@127.0.0.1:{server.port}/tavern",
                "TAVERN_DATABASE_PASSWORD_FILE": str(secret),
            }
        ).database_url
        assert url == f"postgresql://tavern:{password}@127.0.0.1:{server.port}/tavern"
        server.execute("CREATE DATABASE earlier")

        async def earlier() -> None:  # the bots of the earlier compose file, logged in as the superuser
            store = await PostgresStore.open(server.url("earlier"))
            try:
                gid = await store.create_game(
                    NewGame("race", 1, 10, 7, [(1, "a"), (2, "b")], {"target": 9}, 1.0)
                )
                await store.append_action(NewAction(gid, 1, 0, "0 add 2", 2.0, meta={"board": 1}))
            finally:
                await store.close()

        asyncio.run(earlier())
        run(str(INIT_SCRIPT))
        moved = tmp_path / "earlier.dump"
        run("pg_dump", "--format=custom", "--no-owner", f"--file={moved}", "earlier")
        as_tavern = {"PGUSER": "tavern", "PGPASSWORD": password}
        run("pg_restore", "--no-owner", "--single-transaction", "-dtavern", str(moved), **as_tavern)

        async def play() -> None:
            store = await PostgresStore.open(url)  # migrates, as the bot does at each start
            try:
                assert await store.schema_version() == LATEST_VERSION
                (game,) = await store.active_games()
                assert [a.text for a in game.actions] == ["0 add 2"] and game.meta == {"board": 1}
                await store.append_action(NewAction(game.id, 2, 1, "1 add 3", 3.0, meta={"board": 2}))
                async with store.table_lock(game.id) as version:
                    assert version == game.version + 1
            finally:
                await store.close()
            conn = await asyncpg.connect(url)
            try:
                role = await conn.fetchrow(
                    "SELECT rolsuper, rolcreaterole, rolcreatedb, rolreplication FROM pg_roles "
                    "WHERE rolname = current_user"
                )
                assert role is not None and not any(role.values())
                owners = await conn.fetch(
                    "SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class "
                    "WHERE relnamespace = 'public'::regnamespace"
                )
                assert [r[0] for r in owners] == ["tavern"]
                owner = "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'tavern'"
                assert await conn.fetchval(owner) == "tavern"
                with pytest.raises(asyncpg.InsufficientPrivilegeError):
                    await conn.execute("COPY (SELECT 1) TO PROGRAM 'true'")
                with pytest.raises(asyncpg.InsufficientPrivilegeError):
                    await conn.execute("CREATE ROLE intruder SUPERUSER")
            finally:
                await conn.close()

        asyncio.run(play())

        # The README's backup and restore, as tavern: a dump in the custom format, restored over the database.
        dump = tmp_path / "tavern.dump"
        run("pg_dump", "--format=custom", f"--file={dump}", "tavern", **as_tavern)
        restore = ["--clean", "--if-exists", "--no-owner", "--single-transaction", "-dtavern", str(dump)]
        run("pg_restore", *restore, **as_tavern)

        async def restored() -> None:
            store = await PostgresStore.open(url)
            try:
                (game,) = await store.active_games()
                assert [a.text for a in game.actions] == ["0 add 2", "1 add 3"] and game.meta == {"board": 2}
            finally:
                await store.close()

        asyncio.run(restored())

        # The backup service: its script, as its container runs it (the secret's file, PG* of the service).
        backups = tmp_path / "backups"
        service = subprocess.Popen(
            ["bash", str(BACKUP_SCRIPT)],
            env={
                "PATH": env["PATH"],
                "PGHOST": "127.0.0.1",
                "PGPORT": str(server.port),
                "PGUSER": "tavern",
                "PGDATABASE": "tavern",
                "TAVERN_POSTGRES_PASSWORD_FILE": str(secret),
                "BACKUP_DIR": str(backups),
                "BACKUP_EVERY_SECONDS": "1",
                "BACKUP_KEEP_DAILY": "2",
                "BACKUP_KEEP_WEEKLY": "1",
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            assert service.stdout is not None
            said = [service.stdout.readline() for _ in range(3)]
        finally:
            service.terminate()
            out = service.communicate(timeout=10)[0]
        assert all(line.startswith("backup: wrote ") for line in said), [*said, out]
        assert password not in "".join(said) + out
        daily = sorted((backups / "daily").iterdir())
        weekly = list((backups / "weekly").iterdir())
        assert len(daily) == 2 and all(p.name.endswith(".dump") for p in daily), daily  # the newest two
        assert len(weekly) == 1 and re.fullmatch(r"tavern-\d{4}-W\d\d\.dump", weekly[0].name)
        for path in (*daily, *weekly):
            assert path.stat().st_mode & 0o777 == 0o600, path
        run("pg_restore", "--list", str(daily[-1]))  # a whole custom-format dump


# ------------------------------------------------------------------------------------------- lock file


def test_the_lock_file_pins_every_runtime_dependency_with_hashes() -> None:
    """The image installs requirements.lock with --require-hashes, then the bot with --no-deps: a dependency
    added to pyproject.toml without regenerating the lock would be missing from the image."""
    declared = [
        Requirement(r)
        for r in tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    ]
    text = (REPO / "requirements.lock").read_text().replace("\\\n", " ")
    pins: dict[str, str] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})+)", line)
        assert match, f"not a pinned, hashed line: {line[:80]!r}"
        pins[canonicalize_name(match[1])] = match[2]
    for req in declared:
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is in pyproject.toml but not in requirements.lock: regenerate it"
        assert req.specifier.contains(pins[name], prereleases=True), f"{name}=={pins[name]} violates {req}"
