"""Which build runs: ``python -m bot --version``, the commit it names (the checkout's, or TAVERN_COMMIT from
the image's build), the ``tavern_build_info`` metric, ``/tavern help``'s footer and the start-up log line."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bot.__main__ import run
from bot.base import version as build
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_metrics import scrape, value

ROOT = Path(__file__).resolve().parent.parent
DECLARED = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def head() -> str:
    asked = ["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"]
    return subprocess.run(asked, capture_output=True, text=True, check=True).stdout.strip()


def run_version(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "TAVERN_COMMIT"}
    done = subprocess.run(
        [sys.executable, "-m", "bot", "--version"],
        capture_output=True,
        text=True,
        env={**clean, **env},
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_version_names_the_package_and_the_checkouts_commit() -> None:
    assert run_version() == f"Decktet Tavern {DECLARED} (commit {head()})"


def test_an_images_build_argument_names_the_commit_and_garbage_is_unknown() -> None:
    named = run_version(TAVERN_COMMIT="0123456789ABCDEF0123")
    assert named == f"Decktet Tavern {DECLARED} (commit 0123456789ab)"
    assert run_version(TAVERN_COMMIT="$(rm -rf /)") == f"Decktet Tavern {DECLARED} (commit unknown)"


def test_the_changelog_has_an_entry_for_this_version() -> None:
    """CHANGELOG.md is kept from 1.0.0 on: each version the package declares has its heading."""
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{DECLARED}]" in changelog


async def test_the_build_is_in_the_metrics_the_help_footer_and_the_start_log(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await start_bot(dataclasses.replace(settings, metrics_port=0))
    samples = await scrape(bot)
    assert value(samples, "tavern_build_info", version=build.version(), commit=build.commit()) == 1
    assert build.version() == DECLARED
    shown = await fake_discord.slash(fake_discord.add_user("member"), fake_discord.channel, "tavern help")
    assert f"Decktet Tavern {DECLARED} · build {build.commit()}" in shown.text()
    # The start-up log line, before anything else: a bot that cannot even open its store still says it.
    broken = dataclasses.replace(settings, db_path=Path("/proc/no-such-folder/t.sqlite3"))
    with caplog.at_level("INFO", logger="tavern.main"):
        assert await run(broken) == 3
    assert f"{build.describe()} starting" in caplog.text


def test_the_image_is_told_its_commit_by_the_compose_files() -> None:
    """The image bakes the build argument in; both compose files pass it from the shell that builds."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert 'ARG TAVERN_COMMIT=""\nENV TAVERN_COMMIT=${TAVERN_COMMIT}' in dockerfile
    for name in ("docker-compose.yml", "docker-compose.scale.yml"):
        assert 'TAVERN_COMMIT: "${TAVERN_COMMIT:-}"' in (ROOT / name).read_text(encoding="utf-8"), name
