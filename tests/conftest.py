"""Shared fixtures: a fake Discord, settings on a temporary database, a bot starter, and a guard that fails
any test during which something logged at ERROR (discord.py only logs exceptions from commands and views)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import discord
import pytest
import yarl

from bot.edge.app import TavernBot, create_bot
from bot.settings import Settings
from tests.browser import Chromium, chromium_or_skip
from tests.fakediscord import FAKE_TOKEN, REFEREE, FakeDiscord
from tests.pgserver import PostgresNotFound, PostgresServer, server_version

StartBot = Callable[..., Awaitable[TavernBot]]


def plural(n: int, word: str, many: str | None = None) -> str:
    """English counting, as the expected text in tests writes it: "1 card", "2 cards"."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


class ErrorLogGuard(logging.Handler):
    """Collects ERROR records from every logger; the test fails at teardown unless they were taken."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def take(self, contains: str | None = None) -> list[logging.LogRecord]:
        """Remove and return the records (whose text contains ``contains``): for tests expecting errors."""
        taken = [r for r in self.records if contains is None or contains in self.render(r)]
        self.records = [r for r in self.records if r not in taken]
        return taken

    @staticmethod
    def render(record: logging.LogRecord) -> str:
        text = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info and record.exc_info[0] is not None:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        elif record.exc_text:
            text += "\n" + record.exc_text
        return text

    def check(self) -> None:
        if self.records:
            rendered = "\n\n".join(self.render(r) for r in self.records)
            self.records = []
            pytest.fail(f"something logged at ERROR during the test:\n{rendered}", pytrace=False)


# The modules that take longest, longest first (measured with --durations=0 on two cores). The workers take
# whole modules (--dist loadfile) in the order they are collected, so these start first and the run ends
# on short ones: a long module begun last would leave the other workers idle until it ends. xdist's own
# order (most tests first) put most of these last. A module not listed keeps its place after them; the
# list needs no care beyond adding a module that grows past a few tens of seconds.
LONGEST_FIRST = (
    "test_kill_test.py",
    "test_tournament_simulations.py",
    "test_ai_deluxe.py",
    "test_fuzz.py",
    "test_counting_streams.py",
    "test_migrate.py",
    "test_activity_browser.py",
    "test_game_record.py",
    "test_ai_bhargage.py",
    "test_activity_play.py",
    "test_bhargage_properties.py",
    "test_web_browser.py",
    "test_deluxe_expert.py",
    "test_fakediscord.py",
    "test_anywhere.py",
    "test_cribbage_discord.py",
    "test_tournament_discord.py",
    "test_told_after_crash.py",
    "test_layout_limits.py",
    "test_cluster.py",
    "test_i18n.py",
    "test_pictures_names.py",
    "test_postgres_faults.py",
    "test_coach_deluxe.py",
    "test_bhargage_discord.py",
    "test_deluxe_discord.py",
    "test_deluxe_d8.py",
    "test_rest_budget.py",
    "test_governor.py",
    "test_bench_load.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest modules first (``LONGEST_FIRST``), each module's tests in their own order."""
    rank = {name: n for n, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))


SEED = 9  # a target-31 game of 3 hands with "go", shortage claims and "1 for last" (found offline)


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables get a known seed (``SEED``) so the short game reliably shows the calls the tests look for."""
    monkeypatch.setattr("bot.services.tables.secrets.randbits", lambda bits: SEED)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Chromium]:
    """One headless chromium for the worker's whole session, started when a test first needs it (each test
    opens fresh contexts in it, so nothing carries over from one module to the next)."""
    browser = chromium_or_skip()
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture(autouse=True)
def error_logs() -> Iterator[ErrorLogGuard]:
    """Autouse guard; request it by name to ``take()`` errors a test provokes on purpose."""
    guard = ErrorLogGuard()
    root = logging.getLogger()
    root.addHandler(guard)
    try:
        yield guard
    finally:
        root.removeHandler(guard)
    guard.check()


_postgres_skips: dict[str, int] = {}  # why PostgreSQL tests were skipped: how many
_postgres_used: set[str] = set()  # which servers the tests ran on


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A test that needs PostgreSQL where none can be run (``PostgresNotFound``, from the session's server or
    one a test starts itself) is skipped, not failed; the reason is said once at the end."""
    report = yield
    if call.excinfo is not None and call.excinfo.errisinstance(PostgresNotFound):
        reason = str(call.excinfo.value)
        _postgres_skips[reason] = _postgres_skips.get(reason, 0) + 1
        report.outcome = "skipped"
        line = (item.location[1] or 0) + 1
        report.longrepr = (str(item.path), line, f"Skipped: no PostgreSQL: {reason}")
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In an xdist worker: hand this worker's tallies to the controller, which prints the summary."""
    out = getattr(session.config, "workeroutput", None)
    if out is not None:
        out["referee"] = dict(REFEREE)
        out["postgres_skips"] = dict(_postgres_skips)
        out["postgres_used"] = sorted(_postgres_used)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """In the xdist controller: add up what a finished worker counted."""
    out = getattr(node, "workeroutput", {})
    REFEREE.update(out.get("referee", {}))
    for reason, count in out.get("postgres_skips", {}).items():
        _postgres_skips[reason] = _postgres_skips.get(reason, 0) + count
    _postgres_used.update(out.get("postgres_used", ()))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if REFEREE["checked"]:
        untaken = REFEREE["violations"] - REFEREE["taken"]
        terminalreporter.write_line(
            f"Discord's published contract: {REFEREE['checked']} requests checked "
            f"({REFEREE['layouts']} with the layout flag), {untaken} violations "
            f"({REFEREE['taken']} more planted on purpose by tests and caught)"
        )
    for reason, count in _postgres_skips.items():
        terminalreporter.write_line(
            f"{plural(count, 'test')} needing PostgreSQL skipped: {reason}", yellow=True, bold=True
        )
    for used in sorted(_postgres_used):
        terminalreporter.write_line(f"PostgreSQL for the tests: {used}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One real PostgreSQL server for the whole session, started when a test first needs it (see
    tests/pgserver.py: the pinned wheel's, else the system's; with none, its tests skip saying why)."""
    server = PostgresServer()
    _postgres_used.add(f"{server_version(server.bin_dir)} from {server.bin_dir}")
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def pg_url(postgres_server: PostgresServer) -> str:
    """The URL of a fresh, empty database on the session's server (its own per test)."""
    if postgres_server.process is None or postgres_server.process.poll() is not None:
        postgres_server.start()  # a test stopped it and failed before starting it again
    return postgres_server.new_database()


@pytest.fixture
async def fake_discord(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    """A running fake Discord with the discord.py client pointed at it."""
    fake = FakeDiscord()
    await fake.start()
    monkeypatch.setattr(discord.http.Route, "BASE", fake.api_base)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(fake.gateway_url))
    try:
        yield fake
    finally:
        await fake.stop()
    fake.check_healthy()


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    """Settings for tests: the fake's token and a database in ``tmp_path``."""
    values: dict[str, Any] = {
        "token": FAKE_TOKEN,
        "db_path": tmp_path / "tavern.sqlite3",
        "log_level": "DEBUG",
        "bot_delay": 0.0,  # computer players move at once in tests
        "coalesce_seconds": 0.0,  # every move told at once, unless a test asks for coalescing
        "attention_seconds": 0.0,  # every turn pinged, unless a test asks otherwise
        # The expert always answers (a loaded test machine is slow), so its games and hints are exact; a test
        # of its budget sets its own.
        "expert_seconds": 10.0,
        "threads": False,  # games play in the channel unless a test asks for threads
        "suit_emojis": False,  # message text keeps unicode suits unless a test asks for the application's
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Default settings on a temporary database; vary with ``dataclasses.replace(settings, ...)``."""
    return make_settings(tmp_path)


@pytest.fixture
async def start_bot(fake_discord: FakeDiscord, settings: Settings) -> AsyncIterator[StartBot]:
    """``bot = await start_bot(settings=None, *, setup=None, extensions=None)`` starts a TavernBot on the fake
    and returns it once ready and its tables restored (``restored=False``: once ready). ``setup(bot)`` runs
    before start (add test-only commands there, so they are synced). Call several times in sequence for
    restart tests (``await bot.close()`` in between)."""
    running: list[tuple[TavernBot, asyncio.Task[None]]] = []

    async def start(
        custom: Settings | None = None,
        *,
        setup: Callable[[TavernBot], object] | None = None,
        extensions: list[str] | None = None,
        timeout: float = 30.0,  # a deadline, not a wait: a busy machine takes longer to be ready
        restored: bool = True,
    ) -> TavernBot:
        bot = create_bot(custom or settings, guild_ready_timeout=0.01, extensions=extensions)
        if setup is not None:
            result = setup(bot)
            if asyncio.iscoroutine(result):
                await result
        task = asyncio.create_task(bot.start(bot.settings.token), name="test-bot")
        running.append((bot, task))
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            if task in done:
                task.result()  # re-raise why the bot stopped
            raise AssertionError(f"the bot was not ready within {timeout}s")
        if restored:
            await asyncio.wait_for(bot.tables.restored(), timeout)
        if bot._warming is not None:  # the drawing process is up: no picture is left out while it starts
            await asyncio.wait_for(asyncio.shield(bot._warming), timeout)
        return bot

    yield start
    for bot, task in reversed(running):
        await bot.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)
