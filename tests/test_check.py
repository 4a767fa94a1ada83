"""``python -m bot check``: the operator's pre-flight, on a fresh data folder and on broken ones (a mistyped
setting, an occupied port, a database that misses migrations or can't be read), run as an operator runs it."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import check
from bot.settings import settings_from_env
from bot.store import LATEST_VERSION, SQLiteStore

ROOT = Path(__file__).resolve().parent.parent


def run_check(cwd: Path, **env: str) -> tuple[int, list[str]]:
    """``python -m bot check`` in ``cwd`` with only ``env`` set (and what Python needs)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TAVERN_", "DISCORD_"))}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "check"],
        cwd=cwd,
        env={**base, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert not done.stderr.strip(), done.stderr
    return done.returncode, done.stdout.splitlines()


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_a_fresh_data_folder_passes_every_item(tmp_path: Path) -> None:
    code, lines = run_check(tmp_path, DISCORD_TOKEN="abc.def.ghi", TAVERN_DB_PATH=str(tmp_path / "data/t.db"))
    print("\n".join(lines))
    assert code == 0, lines
    assert [line.split(":")[0] for line in lines] == [
        "ok    settings",
        "ok    commands",
        "ok    database",
        "ok    fonts",
        "ok    ports",
    ]
    assert "valid against Discord's published API" in lines[1] and "is new" in lines[2]


def test_a_broken_set_up_names_each_fault(tmp_path: Path, taken_port: int) -> None:
    old = tmp_path / "old.sqlite3"

    async def make_old() -> None:
        store = await SQLiteStore.open(old, migrate_to=LATEST_VERSION - 2)
        await store.close()

    asyncio.run(make_old())
    code, lines = run_check(
        tmp_path,
        DISCORD_TOKEN="abc.def.ghi",
        TAVERN_DB_PATH=str(old),
        TAVERN_NUDGE_MINUTE="5",
        TAVERN_WEB_PORT=str(taken_port),
    )
    print("\n".join(lines))
    assert code == 1
    by_item = {line.split(":")[0].split()[-1]: line for line in lines}
    assert by_item["settings"].startswith("FAIL") and (
        "TAVERN_NUDGE_MINUTE is not a setting; did you mean TAVERN_NUDGE_MINUTES?" in by_item["settings"]
    )
    assert by_item["database"].startswith("FAIL")
    assert f"migrations {LATEST_VERSION - 1}, {LATEST_VERSION} not applied" in by_item["database"]
    assert by_item["ports"].startswith("FAIL") and f"127.0.0.1:{taken_port} is taken" in by_item["ports"]
    assert by_item["commands"].startswith("ok") and by_item["fonts"].startswith("ok")


def test_a_setting_that_does_not_read_stops_the_check_with_status_2(tmp_path: Path) -> None:
    code, lines = run_check(tmp_path, DISCORD_TOKEN="abc.def.ghi", TAVERN_NUDGE_MINUTES="soon")
    assert code == 2 and lines == [
        "FAIL  settings: TAVERN_NUDGE_MINUTES must be a number of minutes, got 'soon'."
    ]


async def test_the_database_item_reads_without_writing(tmp_path: Path) -> None:
    settings = settings_from_env({"DISCORD_TOKEN": "x", "TAVERN_DB_PATH": str(tmp_path / "t.sqlite3")})
    new = await check.check_database(settings)
    assert new.ok and not (tmp_path / "t.sqlite3").exists()
    store = await SQLiteStore.open(settings.db_path)
    await store.close()
    current = await check.check_database(settings)
    assert current.ok and f"schema version {LATEST_VERSION} (current)" in current.text
    settings.db_path.write_bytes(b"not a database at all" * 100)
    broken = await check.check_database(settings)
    assert not broken.ok and "cannot be read as a SQLite database" in broken.text


async def test_the_database_item_on_postgresql(pg_url: str) -> None:
    settings = settings_from_env({"DISCORD_TOKEN": "x", "TAVERN_DATABASE_URL": pg_url})
    empty = await check.check_database(settings)
    assert empty.ok and "is new" in empty.text
    from bot.store import PostgresStore

    store = await PostgresStore.open(pg_url, pool_size=1)
    await store.close()
    current = await check.check_database(settings)
    assert current.ok and "(current)" in current.text and "@" not in current.text.split(" ")[0][-1:]
    wrong = settings_from_env(
        {"DISCORD_TOKEN": "x", "TAVERN_DATABASE_URL": pg_url.rsplit("/", 1)[0] + "/nope"}
    )
    missing = await check.check_database(wrong)
    assert not missing.ok and "no database named 'nope'" in missing.text


async def test_a_command_tree_discord_would_refuse_fails_the_commands_item(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The 2^53 bound that had every command refused on a real server: the check names it."""
    from bot.edge import app

    real = app.offline_command_payload

    async def with_the_old_bound(settings: object) -> list[dict[str, object]]:
        payload = await real(settings)  # type: ignore[arg-type]
        tavern = next(c for c in payload if c["name"] == "tavern")
        replay = next(o for o in tavern["options"] if o["name"] == "replay")  # type: ignore[index, union-attr]
        replay["options"][0]["max_value"] = 2**53  # type: ignore[index]
        return payload

    monkeypatch.setattr(app, "offline_command_payload", with_the_old_bound)
    item = await check.check_commands(settings_from_env({"DISCORD_TOKEN": "x"}))
    assert not item.ok and "options.0.max_value: must be at most 9007199254740991" in item.text


def test_the_settings_item_names_secrets_read_from_files_and_retired_variables(tmp_path: Path) -> None:
    (tmp_path / "token").write_text("abc.def.ghi\n")
    env = {"DISCORD_TOKEN_FILE": str(tmp_path / "token"), "TAVERN_DB_PATH": str(tmp_path / "t.db")}
    item = check.check_settings(settings_from_env(env), env)
    assert item.ok and item.text.endswith("; secrets read from the files DISCORD_TOKEN_FILE name")
    old = {**env, "TAVERN_POSTGRES_PASSWORD": "from-an-old-env"}
    retired = check.check_settings(settings_from_env(old), old)
    assert not retired.ok and "from-an-old-env" not in retired.text
    assert (
        "TAVERN_POSTGRES_PASSWORD is no longer read: its value belongs in the file secrets/" in retired.text
    )


def test_a_secret_file_that_cannot_be_read_stops_the_check_with_status_2(tmp_path: Path) -> None:
    code, lines = run_check(tmp_path, DISCORD_TOKEN_FILE=str(tmp_path / "missing"))
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("FAIL  settings: DISCORD_TOKEN_FILE names") and "cannot be read" in lines[0]


async def test_the_database_item_with_the_password_in_a_file(pg_url: str, tmp_path: Path) -> None:
    """The address without its password and TAVERN_DATABASE_PASSWORD_FILE (a Docker secret) reach the
    same server as the whole address."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(pg_url)
    assert parts.password, "the test server has a password"
    (tmp_path / "pw").write_text(unquote(parts.password) + "\n")
    bare = pg_url.replace(f":{parts.password}@", "@", 1)
    env = {
        "DISCORD_TOKEN": "x",
        "TAVERN_DATABASE_URL": bare,
        "TAVERN_DATABASE_PASSWORD_FILE": str(tmp_path / "pw"),
    }
    settings = settings_from_env(env)
    item = await check.check_database(settings)
    assert item.ok and parts.password not in item.text, item.text
