"""Settings, start-up and shutdown, token redaction and the bot factory."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import io
import logging
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import discord
import pytest

from bot import __main__ as main_mod
from bot.edge.app import EXTENSIONS, TavernBot, create_bot
from bot.logging_setup import REDACTED, install_redaction, setup_logging, uninstall_redaction
from bot.settings import (
    MissingTokenError,
    Settings,
    SettingsError,
    load_settings,
    settings_from_env,
)
from tests.conftest import ErrorLogGuard, StartBot
from tests.fakediscord import FAKE_TOKEN, FakeDiscord

REPO = Path(__file__).resolve().parents[1]

# ---------------------------------------------------------------------------------------------- settings


def test_defaults_and_db_folder(tmp_path: Path) -> None:
    db = tmp_path / "deep" / "er" / "t.sqlite3"
    s = settings_from_env({"DISCORD_TOKEN": "abc", "TAVERN_DB_PATH": str(db)})
    assert s.token == "abc" and s.db_path == db and db.parent.is_dir()
    assert (s.log_level, s.dev_guild_id) == ("INFO", None)
    assert (s.challenge_minutes, s.lobby_minutes, s.nudge_minutes, s.claim_minutes) == (10, 15, 10, 60)
    assert "abc" not in repr(s)


def test_values_parse(tmp_path: Path) -> None:
    s = settings_from_env(
        {
            "DISCORD_TOKEN": " tok ",
            "TAVERN_DB_PATH": str(tmp_path / "x.db"),
            "TAVERN_LOG_LEVEL": "debug",
            "TAVERN_DEV_GUILD_ID": "123456789012345678",
            "TAVERN_CHALLENGE_MINUTES": "2.5",
            "TAVERN_LOBBY_MINUTES": "30",
            "TAVERN_NUDGE_MINUTES": "0",
            "TAVERN_CLAIM_MINUTES": "0",
        }
    )
    assert s.token == "tok" and s.log_level == "DEBUG" and s.dev_guild_id == 123456789012345678
    assert s.challenge_minutes == 2.5 and s.lobby_minutes == 30
    assert s.nudge_minutes == 0 and s.claim_minutes == 0  # 0 = untimed


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("TAVERN_NUDGE_MINUTES", "soon", "number of minutes"),
        ("TAVERN_NUDGE_MINUTES", "-1", "0 or more"),
        ("TAVERN_CLAIM_MINUTES", "nan", "finite"),
        ("TAVERN_CHALLENGE_MINUTES", "0", "more than 0"),
        ("TAVERN_LOBBY_MINUTES", "0", "more than 0"),
        ("TAVERN_LOG_LEVEL", "LOUD", "one of DEBUG"),
        ("TAVERN_DEV_GUILD_ID", "my-server", "server id"),
        ("DISCORD_TOKEN", "two words", "spaces"),
        ("TAVERN_DATABASE_URL", "mysql://tavern:pw@db/tavern", "PostgreSQL address"),
        ("TAVERN_DATABASE_URL", "postgresql://tavern:pw@/tavern", "name the server"),
        ("TAVERN_DATABASE_POOL", "0", "from 1 to 100"),
        ("TAVERN_SHARD_COUNT", "two", "whole number"),
        ("TAVERN_SHARD_IDS", "0", "needs TAVERN_SHARD_COUNT"),
    ],
)
def test_bad_values_name_the_variable(tmp_path: Path, name: str, value: str, words: str) -> None:
    env = {"DISCORD_TOKEN": "tok", "TAVERN_DB_PATH": str(tmp_path / "t.db"), name: value}
    with pytest.raises(SettingsError, match=words) as info:
        settings_from_env(env)
    assert name in str(info.value) or name == "DISCORD_TOKEN"


def test_shards_and_the_database_address(tmp_path: Path) -> None:
    base = {"DISCORD_TOKEN": "tok", "TAVERN_DB_PATH": str(tmp_path / "t.db")}
    alone = settings_from_env(base)
    assert alone.shards is None and alone.shard_count is None and alone.first_shard
    assert alone.owns(1 << 22) and alone.database_url is None
    url = "postgresql://tavern:s%40cret@db.example:5432/tavern"
    s = settings_from_env(
        {**base, "TAVERN_SHARD_COUNT": "4", "TAVERN_SHARD_IDS": "1, 3", "TAVERN_DATABASE_URL": url}
    )
    assert s.shards == (4, (1, 3)) and not s.first_shard
    assert [s.owns(n << 22) for n in range(8)] == [False, True, False, True] * 2
    assert settings_from_env({**base, "TAVERN_SHARD_COUNT": "4", "TAVERN_SHARD_IDS": "0-2"}).shard_ids == (
        0,
        1,
        2,
    )
    # The password never shows, and the log scrubs it as written and as decoded.
    assert "s%40cret" not in repr(s) and {"s%40cret", "s@cret"} <= set(s.secrets)
    for ids in ("4", "1,x", "-1"):
        with pytest.raises(SettingsError, match="TAVERN_SHARD_IDS"):
            settings_from_env({**base, "TAVERN_SHARD_COUNT": "4", "TAVERN_SHARD_IDS": ids})
    with pytest.raises(SettingsError) as info:
        settings_from_env({**base, "TAVERN_DATABASE_URL": "mysql://tavern:hunter2@db/tavern"})
    assert "hunter2" not in str(info.value)


def test_db_path_that_is_a_folder(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="is a folder"):
        settings_from_env({"DISCORD_TOKEN": "tok", "TAVERN_DB_PATH": str(tmp_path)})


def test_missing_token_explains_how_to_get_one() -> None:
    with pytest.raises(MissingTokenError) as info:
        settings_from_env({"DISCORD_TOKEN": "  "})
    text = str(info.value)
    assert "Developer Portal" in text and "Reset Token" in text and ".env" in text


def test_dotenv_does_not_override_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text(
        "DISCORD_TOKEN=from-file\nTAVERN_LOBBY_MINUTES=7\nTAVERN_NUDGE_MINUTES=3\n"
    )
    monkeypatch.chdir(tmp_path)
    for var in ("DISCORD_TOKEN", "TAVERN_LOBBY_MINUTES", "TAVERN_NUDGE_MINUTES", "TAVERN_DB_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TAVERN_NUDGE_MINUTES", "4")
    try:
        s = load_settings()
    finally:  # load_dotenv wrote into os.environ; monkeypatch only undoes what it set itself
        for var in ("DISCORD_TOKEN", "TAVERN_LOBBY_MINUTES"):
            os.environ.pop(var, None)
    assert (s.token, s.lobby_minutes, s.nudge_minutes) == ("from-file", 7, 4)
    assert s.db_path == Path("data/tavern.sqlite3") and (tmp_path / "data").is_dir()


# ------------------------------------------------------------------------------------ secrets from files


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8", newline="")
    return str(path)


def test_secrets_come_from_the_files_their_file_variables_name(tmp_path: Path) -> None:
    """Each ``*_FILE`` (a Docker secret in /run/secrets) gives its secret, one final line break dropped
    (``\n`` or ``\r\n``); the database password goes into the address, encoded; every one of them joins
    ``secrets`` (as written in the address and as read), and none shows in the settings' repr."""
    password = "p@ss/w:rd%7e"
    env = {
        "TAVERN_DB_PATH": str(tmp_path / "t.db"),
        "DISCORD_TOKEN_FILE": _write(tmp_path / "token", "MTIz.file-token.XYZ\n"),
        "TAVERN_WEB_SECRET_FILE": _write(tmp_path / "web", "a-web-secret-of-32-characters-xx\r\n"),
        "TAVERN_CLIENT_SECRET_FILE": _write(tmp_path / "client", "client-secret "),  # kept as written
        "TAVERN_DATABASE_URL": "postgresql://tavern@db:5432/tavern?sslmode=prefer&application_name=a@b",
        "TAVERN_DATABASE_PASSWORD_FILE": _write(tmp_path / "pw", password + "\n"),
    }
    s = settings_from_env(env)
    assert s.token == "MTIz.file-token.XYZ"
    assert s.web_secret == "a-web-secret-of-32-characters-xx" and s.client_secret == "client-secret "
    assert (
        s.database_url
        == "postgresql://tavern:p%40ss%2Fw%3Ard%257e@db:5432/tavern?sslmode=prefer&application_name=a@b"
    )
    assert s.from_files == (
        "DISCORD_TOKEN_FILE",
        "TAVERN_WEB_SECRET_FILE",
        "TAVERN_CLIENT_SECRET_FILE",
        "TAVERN_DATABASE_PASSWORD_FILE",
    )
    for secret in (s.token, s.web_secret, s.client_secret, password, "p%40ss%2Fw%3Ard%257e"):
        assert secret in s.secrets and secret not in repr(s)
    # Only one line break goes: a second one is part of the file, and a token has none.
    env["DISCORD_TOKEN_FILE"] = _write(tmp_path / "token", "MTIz.file-token.XYZ\n\n")
    with pytest.raises(SettingsError, match="DISCORD_TOKEN_FILE's file holds spaces or line breaks"):
        settings_from_env(env)


def test_file_secrets_are_scrubbed_from_the_log(tmp_path: Path, captured: io.StringIO) -> None:
    password = "pw-from-a-file-4e1"
    s = settings_from_env(
        {
            "TAVERN_DB_PATH": str(tmp_path / "t.db"),
            "DISCORD_TOKEN_FILE": _write(tmp_path / "token", "tok-from-a-file\n"),
            "TAVERN_WEB_SECRET_FILE": _write(tmp_path / "web", "web-secret-from-a-file\n"),
            "TAVERN_CLIENT_SECRET_FILE": _write(tmp_path / "client", "client-from-a-file\n"),
            "TAVERN_DATABASE_URL": "postgresql://tavern@db:5432/tavern",
            "TAVERN_DATABASE_PASSWORD_FILE": _write(tmp_path / "pw", password),
        }
    )
    install_redaction(s.secrets)
    logger = logging.getLogger("tavern.test-redaction")
    logger.warning(
        "lost %s with %s, %s, %s and %s", s.database_url, s.token, s.web_secret, s.client_secret, password
    )
    logged = captured.getvalue()
    assert logged.count(REDACTED) == 5 and "postgresql://tavern:[REDACTED]@db" in logged
    for leak in ("tok-from-a-file", "web-secret-from-a-file", "client-from-a-file", password):
        assert leak not in logged


@pytest.mark.parametrize("name", ["DISCORD_TOKEN", "TAVERN_WEB_SECRET", "TAVERN_CLIENT_SECRET"])
def test_a_secret_and_its_file_both_set_is_a_configuration_error(tmp_path: Path, name: str) -> None:
    value = "set-in-the-environment-too"
    env = {
        "DISCORD_TOKEN": "tok",
        "TAVERN_DB_PATH": str(tmp_path / "t.db"),
        name: value,
        f"{name}_FILE": _write(tmp_path / "secret", "from-the-file-0123456789\n"),
    }
    with pytest.raises(SettingsError) as info:
        settings_from_env(env)
    said = str(info.value)
    assert f"{name} and {name}_FILE are both set" in said and "\n" not in said
    assert value not in said and "from-the-file" not in said
    # Blank counts as unset, as for every setting: an empty DISCORD_TOKEN= line in .env is no conflict.
    assert settings_from_env({**env, name: "  "})


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        ("missing", "cannot be read (No such file or directory)"),
        ("folder", "cannot be read (Is a directory)"),
        ("binary", "not UTF-8 text"),
        ("huge", "more than 4096 characters"),
        ("empty", "which is empty: put the bot token in it"),
    ],
)
def test_an_unusable_secret_file_is_a_configuration_error(tmp_path: Path, setup: str, words: str) -> None:
    path = tmp_path / "token"
    if setup == "folder":
        path.mkdir()
    elif setup == "binary":
        path.write_bytes(b"\xff\xfe\x00")
    elif setup == "huge":
        path.write_text("x" * 5000)
    elif setup == "empty":
        path.write_text("\n")
    env = {"TAVERN_DB_PATH": str(tmp_path / "t.db"), "DISCORD_TOKEN_FILE": str(path)}
    with pytest.raises(SettingsError, match=re.escape(words)) as info:
        settings_from_env(env)
    assert "DISCORD_TOKEN_FILE" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("", "needs TAVERN_DATABASE_URL"),
        ("postgresql://tavern:in-the-url@db/tavern", "must name the user and no password"),
        ("postgresql://tavern@db/tavern?password=in-the-url", "must name the user and no password"),
        ("postgresql://db/tavern", "must name the user and no password"),
    ],
)
def test_the_database_password_file_takes_an_address_without_a_password(
    tmp_path: Path, url: str, words: str
) -> None:
    env = {
        "DISCORD_TOKEN": "tok",
        "TAVERN_DB_PATH": str(tmp_path / "t.db"),
        "TAVERN_DATABASE_URL": url,
        "TAVERN_DATABASE_PASSWORD_FILE": _write(tmp_path / "pw", "from-the-file\n"),
    }
    with pytest.raises(SettingsError, match=words) as info:
        settings_from_env(env)
    assert "in-the-url" not in str(info.value) and "from-the-file" not in str(info.value)


def test_main_with_a_secret_and_its_file_exits_2_in_one_line(tmp_path: Path) -> None:
    token = _write(tmp_path / "token", "tok-in-a-file\n")
    proc = _run_module(tmp_path, DISCORD_TOKEN="tok-in-env", DISCORD_TOKEN_FILE=token)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("Configuration error: DISCORD_TOKEN and DISCORD_TOKEN_FILE are both set")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "tok-in-env" not in proc.stderr and "tok-in-a-file" not in proc.stderr
    unreadable = _run_module(tmp_path, DISCORD_TOKEN_FILE=str(tmp_path / "none"))
    assert unreadable.returncode == 2 and len(unreadable.stderr.strip().splitlines()) == 1
    assert "DISCORD_TOKEN_FILE names" in unreadable.stderr and "cannot be read" in unreadable.stderr


# ------------------------------------------------------------------------------------------ python -m bot


def _run_module(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {"PATH": os.environ.get("PATH", "/usr/bin"), "PYTHONPATH": str(REPO), **env}
    return subprocess.run(
        [sys.executable, "-m", "bot"], cwd=cwd, env=clean, capture_output=True, text=True, timeout=60
    )


def test_main_without_token_exits_2(tmp_path: Path) -> None:
    proc = _run_module(tmp_path)
    assert proc.returncode == 2
    assert "DISCORD_TOKEN is not set" in proc.stderr and "Reset Token" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_main_with_bad_setting_exits_2(tmp_path: Path) -> None:
    proc = _run_module(tmp_path, DISCORD_TOKEN="tok", TAVERN_LOBBY_MINUTES="-5")
    assert proc.returncode == 2
    assert "Configuration error: TAVERN_LOBBY_MINUTES" in proc.stderr and "Traceback" not in proc.stderr


async def test_invalid_token_is_a_clear_message(
    fake_discord: FakeDiscord, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = dataclasses.replace(settings, token="not-the-token")
    code = await main_mod.run(wrong)
    assert code == 1
    err = capsys.readouterr().err
    assert "rejected the bot token" in err and "Reset Token" in err
    assert fake_discord.rejections() and fake_discord.rejections()[0].status == 401


async def test_unreachable_discord_is_a_clear_message(
    settings: Settings, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    import discord

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    code = await main_mod.run(settings)
    assert code == 1
    err = capsys.readouterr().err
    assert "Could not reach Discord" in err and "Traceback" not in err


async def _until_ready(bot: TavernBot, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not bot.is_ready():
        assert loop.time() < deadline, "bot not ready"
        await asyncio.sleep(0.005)


async def test_the_garbage_collector_runs_less_often_while_the_bot_runs(
    fake_discord: FakeDiscord, settings: Settings
) -> None:
    before = gc.get_threshold()
    bot = create_bot(settings, guild_ready_timeout=0.01)
    stop = asyncio.Event()
    runner = asyncio.create_task(main_mod.run(settings, bot=bot, stop=stop))
    await _until_ready(bot)
    assert gc.get_threshold() == (main_mod.YOUNG_COLLECTIONS, *before[1:]) != before
    stop.set()
    assert await asyncio.wait_for(runner, 5) == 0
    assert gc.get_threshold() == before


async def test_answered_interactions_are_freed_without_the_garbage_collector(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """A command and a press, answered: nothing keeps their interactions (a challenge withdrawn), so they are
    freed as soon as they are handled, with the collector off: no cycle of theirs is left for its passes."""
    fake = fake_discord
    await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    gc.collect()
    gc.disable()
    try:
        posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
        withdrawn = await fake.click(alice, posted.message, "Decline")  # its host takes it back
        await fake.settle()
        ids = {posted.interaction.id, withdrawn.interaction.id}
        left = [o.id for o in gc.get_objects() if isinstance(o, discord.Interaction) and o.id in ids]
    finally:
        gc.enable()
    assert "was withdrawn" in posted.message.content and left == []


async def test_sigterm_closes_bot_and_store(fake_discord: FakeDiscord, settings: Settings) -> None:
    bot = create_bot(settings, guild_ready_timeout=0.01)
    runner = asyncio.create_task(main_mod.run(settings, bot=bot))
    await _until_ready(bot)
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(runner, 5) == 0
    assert bot.is_closed()
    with pytest.raises(ValueError):
        await bot.store.db.execute("SELECT 1")
    # The handlers were removed again: the default SIGTERM disposition is back.
    assert signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None)


async def test_sigint_too(fake_discord: FakeDiscord, settings: Settings) -> None:
    bot = create_bot(settings, guild_ready_timeout=0.01)
    runner = asyncio.create_task(main_mod.run(settings, bot=bot))
    await _until_ready(bot)
    os.kill(os.getpid(), signal.SIGINT)
    assert await asyncio.wait_for(runner, 5) == 0
    assert bot.is_closed()


# -------------------------------------------------------------------------------------------- redaction


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    logger = logging.getLogger("tavern.test-redaction")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        uninstall_redaction()


def test_token_is_redacted_from_messages_args_and_tracebacks(captured: io.StringIO) -> None:
    secret = "MTIz.secret-token.XYZ"
    logger = logging.getLogger("tavern.test-redaction")
    logger.info("before install %s", secret)
    assert secret in captured.getvalue()  # proves the capture would show a leak

    install_redaction([secret])
    logger.info("token is %s", secret)
    logger.warning(f"inline {secret} in the message")
    try:
        raise RuntimeError(f"failed with {secret}")
    except RuntimeError:
        logger.debug("with traceback", exc_info=True)
    after = captured.getvalue().split("before install")[1].split("\n", 1)[1]
    assert secret not in after
    assert after.count(REDACTED) == 3
    assert "RuntimeError: failed with [REDACTED]" in after


def test_setup_logging_writes_redacted_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    level = root.level
    handler = setup_logging("INFO", secrets=["hunter2-token"])
    try:
        logging.getLogger("discord.client").info("logging in with hunter2-token")
        logging.getLogger("tavern").debug("below the level")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        uninstall_redaction()
    err = capsys.readouterr().err
    assert "logging in with [REDACTED]" in err and "hunter2" not in err and "below the level" not in err


async def test_running_bot_never_logs_its_token(
    fake_discord: FakeDiscord, start_bot: StartBot, captured: io.StringIO
) -> None:
    root = logging.getLogger()
    handler = logging.StreamHandler(captured)
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    install_redaction([FAKE_TOKEN])
    try:
        bot = await start_bot()
        logging.getLogger("tavern.app").debug("settings token %s", bot.settings.token)
        await fake_discord.slash(fake_discord.owner, fake_discord.channel, "tavern ping")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    text = captured.getvalue()
    assert "discord.gateway" in text and "settings token [REDACTED]" in text
    assert FAKE_TOKEN not in text


async def test_interaction_tokens_are_scrubbed_from_every_log_line(
    fake_discord: FakeDiscord, start_bot: StartBot, captured: io.StringIO
) -> None:
    """An interaction token lets whoever holds it answer and edit as the bot for 15 minutes. discord.py names
    it in the URLs it logs (every interaction request at DEBUG, the one a rate limit held among them) and in
    the gateway events it logs at DEBUG. A /tavern ping whose answer Discord rate-limits once: it is answered
    after the wait, the warning is logged, and no log line holds the token."""
    fake = fake_discord
    root = logging.getLogger()
    handler = logging.StreamHandler(captured)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    install_redaction([FAKE_TOKEN])  # what python -m bot installs at start
    try:
        await start_bot()
        fake.rate_limit_next("POST", r"^/interactions/\d+/[^/]+/callback$", retry_after=0.05)
        result = await fake.slash(fake.owner, fake.channel, "tavern ping")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    assert "Pong!" in result.content
    assert [r.status for r in fake.rejections()] == [429]
    text = captured.getvalue()
    assert "WARNING discord.webhook.async_ Webhook ID" in text and "is rate limited" in text
    assert f"/interactions/{result.interaction.id}/{REDACTED}/callback" in text
    assert "'token': '[REDACTED]'" in text  # the INTERACTION_CREATE event, logged at DEBUG
    assert result.interaction.token not in text and FAKE_TOKEN not in text


def test_a_password_given_as_a_url_parameter_is_never_logged(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error_logs: ErrorLogGuard,
) -> None:
    """PostgreSQL takes the password in the address or as ``?password=``: either way no log line shows it,
    as written or decoded. ``python -m bot`` whose open fails with an error quoting the address (as a
    driver's unexpected error may): the traceback is logged, the password is not."""
    import asyncpg

    written, decoded = "p%40ss+w%2Fd-7e1", "p@ss w/d-7e1"
    url = f"postgresql://tavern@db.example:5432/tavern?sslmode=prefer&password={written}"

    async def refused(dsn: str, **kwargs: object) -> None:
        raise RuntimeError(f"cannot use {dsn} (password {decoded!r}, or {unquote(written)!r})")

    monkeypatch.setattr(asyncpg, "create_pool", refused)
    for name, value in {
        "DISCORD_TOKEN": "tok-" + "x" * 40,
        "TAVERN_DATABASE_URL": url,
        "TAVERN_DB_PATH": str(tmp_path / "t.sqlite3"),
        "TAVERN_LOG_LEVEL": "DEBUG",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        assert main_mod.main([]) == 1
    finally:
        for handler in root.handlers:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        uninstall_redaction()
    logged = error_logs.take("The bot stopped because of an error")
    err = capsys.readouterr().err
    assert logged and "RuntimeError: cannot use postgresql://tavern@db.example" in err
    for shown in (written, decoded, unquote(written), "p@ss"):
        assert shown not in err and shown not in (logged[0].exc_text or "") + logged[0].getMessage()


# ----------------------------------------------------------------------------------------------- factory


def test_factory_builds_without_connecting(settings: Settings) -> None:
    bot = create_bot(settings)
    assert isinstance(bot, TavernBot) and bot.settings is settings
    assert bot.intents.guilds and not bot.intents.members and not bot.intents.message_content
    assert not bot.intents.presences and not bot.intents.guild_messages
    assert bot.initial_extensions == EXTENSIONS and EXTENSIONS[0] == "cogs.general"
    assert not bot.is_ready() and bot.user is None


async def test_setup_hook_opens_store_and_tables(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    bot = await start_bot()
    assert bot.store.path == bot.settings.db_path and bot.settings.db_path.exists()
    assert bot.tables.store is bot.store and bot.tables.active_tables() == []
    assert "General" in bot.cogs
    await bot.close()
    await bot.close()  # idempotent
    with pytest.raises(ValueError):
        await bot.store.db.execute("SELECT 1")


async def test_dev_guild_sync(fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings) -> None:
    dev = dataclasses.replace(settings, dev_guild_id=fake_discord.guild.id)
    bot = await start_bot(dev)
    synced = sorted(c["name"] for c in fake_discord.commands(fake_discord.guild))
    assert "tavern" in synced and synced == sorted(c.name for c in bot.tree.get_commands())
    assert fake_discord.commands() == []  # nothing global while developing
    result = await fake_discord.slash(fake_discord.owner, fake_discord.channel, "tavern ping")
    assert "Pong!" in result.content
