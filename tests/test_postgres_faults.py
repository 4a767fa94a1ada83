"""The bot on PostgreSQL when the database fails: down or refusing at start (a clear line and exit code 3, no
traceback, never the password), and restarted in the middle of a game (the moves in flight are told to try
again; nothing is lost or applied twice). Also, on either backend, a database newer than the code."""

from __future__ import annotations

import io
import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.edge.app import TavernBot
from bot.logging_setup import install_redaction, uninstall_redaction
from bot.store import LATEST_VERSION, open_store
from tests.conftest import StartBot, make_settings
from tests.fakediscord import FakeDiscord, FakeUser
from tests.pgserver import PostgresServer, free_port
from tests.test_bhargage_discord import every_click_mine
from tests.transcripts import live_panel, verb

ROOT = Path(__file__).resolve().parent.parent
SECRET = "hunter2-not-in-any-log"
LOG_RECORD = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO) ")


def run_bot(tmp_path: Path, url: str | None) -> subprocess.CompletedProcess[str]:
    """``python -m bot`` as an operator starts it (no Discord is reachable: the database comes first), on
    PostgreSQL at ``url``, or on the SQLite file ``tmp_path/t.sqlite3`` for None."""
    env = {
        **os.environ,
        "DISCORD_TOKEN": "x" * 59,
        "TAVERN_DATABASE_URL": url or "",
        "TAVERN_DB_PATH": str(tmp_path / "t.sqlite3"),
        "TAVERN_LOG_LEVEL": "DEBUG",
    }
    return subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )


def check_refused(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    out = done.stdout + done.stderr
    assert done.returncode == 3, out
    assert "Traceback" not in out and SECRET not in out, out
    # the refusal is the last line the bot says; aiosqlite's thread may still log (DEBUG) after it
    lines = [line for line in done.stderr.splitlines() if line.strip() and not LOG_RECORD.match(line)]
    assert lines and lines[-1].startswith("Could not open the database:"), out
    for needle in needles:
        assert needle in lines[-1], out


def test_postgresql_down_at_start_is_one_clear_line_and_exit_code_3(tmp_path: Path) -> None:
    port = free_port()
    done = run_bot(tmp_path, f"postgresql://tavern:{SECRET}@127.0.0.1:{port}/tavern")
    check_refused(done, f"127.0.0.1:{port}")


def test_wrong_credentials_are_one_clear_line_and_never_the_password(
    tmp_path: Path, postgres_server: PostgresServer, pg_url: str
) -> None:
    wrong = pg_url.replace(f"{postgres_server.password}@", f"{SECRET}@", 1)
    assert wrong != pg_url
    done = run_bot(tmp_path, wrong)
    check_refused(done, postgres_server.user)


def test_an_unknown_database_is_named(tmp_path: Path, postgres_server: PostgresServer) -> None:
    done = run_bot(tmp_path, postgres_server.url("no_such_database"))
    check_refused(done, "no_such_database")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_database_newer_than_the_bot_is_refused_in_one_line(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    """A database that a newer version of the bot migrated: refused at start (one line, exit code 3), not
    used until a later write fails in front of the players."""
    url: str | None = request.getfixturevalue("pg_url") if backend == "postgres" else None
    store = await open_store(url or tmp_path / "t.sqlite3")
    async with store._tx() as db:
        await db.execute("INSERT INTO schema_version (version) VALUES (?)", (LATEST_VERSION + 1,))
    await store.close()
    done = run_bot(tmp_path, url)
    check_refused(
        done,
        f"is at schema version {LATEST_VERSION + 1}, newer than this version of the bot knows "
        f"({LATEST_VERSION}): run the newer version of the bot, or restore a backup",
    )
    assert "migrated" not in done.stderr, done.stderr


def test_a_password_given_as_a_parameter_is_never_shown_when_refused(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    where = f"{postgres_server.user}@127.0.0.1:{postgres_server.port}/postgres"
    done = run_bot(tmp_path, f"postgresql://{where}?password={SECRET}")
    check_refused(done, postgres_server.user)


async def test_a_running_bot_never_logs_a_password_given_as_a_parameter(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    tmp_path: Path,
    pg_url: str,
    postgres_server: PostgresServer,
) -> None:
    """Everything logged at DEBUG from start to a game's first moves, scrubbed as ``python -m bot`` does:
    the start-up line names the database without its password, and no line holds it."""
    password = postgres_server.password
    url = pg_url.replace(f":{password}@", "@", 1) + f"?password={password}"
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    install_redaction(make_settings(tmp_path, database_url=url).secrets)  # as python -m bot does
    try:
        await bhargage_game(fake_discord, start_bot, tmp_path, url)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        uninstall_redaction()
    text = stream.getvalue()
    assert f"Database {url.replace(password, '***')} open" in text
    assert password not in text


async def bhargage_game(
    fake: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str
) -> tuple[TavernBot, tuple[FakeUser, FakeUser], int, int]:
    """A bot on PostgreSQL and Alice and Bob at a Bhargage table: the bot, the players, the game and how many
    actions it has logged."""
    bot = await start_bot(make_settings(tmp_path, database_url=pg_url))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await every_click_mine(fake, [alice, bob])  # no cut made for them: each move logged is a press
    posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    accept = next(b.custom_id for b in posted.message.buttons() if verb(b.custom_id) == "accept")
    await fake.click(bob, posted.message, str(accept))
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    return bot, (alice, bob), table.id, len(await bot.store.actions(table.id))


async def discard(fake: FakeDiscord, user: FakeUser) -> str:
    """Choose two cards on the user's DM panel and confirm; the text the player is shown afterwards."""
    panel = live_panel(fake, user)
    assert panel is not None
    menu = next(s for s in panel.selects() if verb(s.custom_id) == "pick")
    chosen = await fake.select(user, panel, str(menu.custom_id), menu.values()[:2])
    confirm = next(b for b in chosen.message.buttons() if verb(b.custom_id) == "discard")
    done = await fake.click(user, chosen.message, str(confirm.custom_id))
    texts = [m.content for m in fake.ephemerals(user)[-1:]] + [done.message.content if done.message else ""]
    return "\n".join(texts)


async def test_postgresql_restarted_mid_game_says_try_again_and_loses_nothing(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    tmp_path: Path,
    pg_url: str,
    postgres_server: PostgresServer,
) -> None:
    fake = fake_discord
    bot, (alice, bob), game, before = await bhargage_game(fake, start_bot, tmp_path, pg_url)

    # The server restarts while Alice's discard is being committed: her move is in flight.
    real_append = bot.store.append_action
    restarted: list[bool] = []

    async def append_during_a_restart(*args: Any, **kwargs: Any) -> int:
        if not restarted:
            restarted.append(True)
            postgres_server.restart()
        return await real_append(*args, **kwargs)

    bot.store.append_action = append_during_a_restart  # type: ignore[method-assign]
    said = await discard(fake, alice)
    bot.store.append_action = real_append  # type: ignore[method-assign]
    assert restarted
    assert "press again" in said or "try again" in said, said
    assert len(await bot.store.actions(game)) == before, "a move told to try again is not in the log"

    # Pressed again, it is played — once.
    await discard(fake, alice)
    actions = await bot.store.actions(game)
    assert len(actions) == before + 1
    assert await bot.tables.table_for_channel(fake.channel.id) is not None
    live = await bot.tables.get(game)
    assert live.seq == len(actions)
    # The game goes on: Bob discards too, through the same (recovered) pool.
    await discard(fake, bob)
    assert len(await bot.store.actions(game)) == before + 2


async def test_postgresql_down_while_a_player_presses_says_try_again(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    tmp_path: Path,
    pg_url: str,
    postgres_server: PostgresServer,
) -> None:
    fake = fake_discord
    bot, (alice, _bob), game, before = await bhargage_game(fake, start_bot, tmp_path, pg_url)
    postgres_server.stop()
    try:
        said = await discard(fake, alice)
    finally:
        postgres_server.start()
    assert "try again" in said or "press again" in said, said
    await discard(fake, alice)
    assert len(await bot.store.actions(game)) == before + 1
