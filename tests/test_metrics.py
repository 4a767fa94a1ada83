"""The metrics an operator watches: ``GET /metrics`` served by the real bot on the fake Discord while a game
is played (live tables, moves, interaction latencies, REST by route, 429s, store and drawing times, shard
latency), off without a port, a taken port stopping the start; and the JSON log lines, token-free."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import re
import socket
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import __main__ as main_mod
from bot.base import metrics
from bot.edge.app import TavernBot
from bot.edge.governor import Governor
from bot.edge.metrics_server import MetricsServerError
from bot.logging_setup import REDACTED, setup_logging, uninstall_redaction
from bot.services import drawing
from bot.settings import Settings, SettingsError, settings_from_env
from tests.conftest import ErrorLogGuard, StartBot
from tests.fakediscord import FakeDiscord
from tests.test_bhargage_discord import BOARD_HEAD, challenge, step

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(bot: TavernBot, path: str = "/metrics") -> Samples:
    """Every sample the bot's endpoint serves, by name and labels."""
    assert bot.metrics_server is not None and bot.metrics_server.port
    url = f"http://127.0.0.1:{bot.metrics_server.port}{path}"
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        assert response.status == 200, response.status
        assert response.headers["Content-Type"].startswith("text/plain; version=")
        text = await response.text()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value; 0 for a series not served yet (a counter never incremented)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def watched(settings: Settings) -> Settings:
    return dataclasses.replace(settings, metrics_port=0)  # any free port: the server says which


async def test_metrics_of_the_web_pages(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """With the pages served, their viewers and frames are counted; without, no series at all."""
    fake = fake_discord
    plain = await start_bot(watched(settings))
    assert not [name for name, _ in await scrape(plain) if name.startswith("tavern_web_")]
    await plain.close()
    bot = await start_bot(dataclasses.replace(watched(settings), web_port=0))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob, target=31)
    accepted = await fake.click(bob, posted.message, "Accept")
    # The challenge is the board now: with the pages served, its one control is the link to watch it.
    assert accepted.message.content.startswith(BOARD_HEAD)
    assert [b.label for b in accepted.message.buttons() if b.url is None] == []
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and bot.links is not None
    url = bot.links.live(table.id, bot.clock()).replace("http://", "ws://", 1) + "/ws"
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        await ws.receive(timeout=5)
        assert await step(fake, fake.channel, [alice, bob]) is not None
        await ws.receive(timeout=5)
        during = await scrape(bot)
    assert value(during, "tavern_web_viewers") == 1 and value(during, "tavern_web_watched_tables") == 1
    assert value(during, "tavern_web_frames_built_total") >= 2  # the table as it stood, then the move
    assert value(during, "tavern_web_frames_sent_total") >= 2
    assert value(during, "tavern_web_refused_total") == 0


async def test_metrics_of_a_game_in_play(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(watched(settings))
    drawing.DRAWING.forget_pictures()  # the game's pictures are drawn here, not taken from an earlier test
    before = await scrape(bot)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    for _ in range(4):
        assert await step(fake, fake.channel, [alice, bob]) is not None
    await fake.settle()
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.seq >= 3
    after = await scrape(bot)

    assert value(after, "tavern_live_tables", game="bhargage") == 1
    assert value(after, "tavern_live_tables", game="deluxe") == 0
    assert delta(before, after, "tavern_moves_total", game="bhargage", player="person") == table.seq
    assert delta(before, after, "tavern_store_seconds_count", operation="append_action") == table.seq
    stored = delta(before, after, "tavern_store_seconds_sum", operation="append_action")
    assert 0 < stored < table.seq  # under a second a move

    clicks = delta(before, after, "tavern_interaction_callback_seconds_count", kind="component")
    assert clicks >= 4  # the accept, and a click or two a move
    assert delta(before, after, "tavern_interaction_callback_seconds_count", kind="application_command") >= 1
    acknowledged = delta(before, after, "tavern_interaction_acknowledged_seconds_count")
    assert acknowledged >= clicks + 1
    assert 0 <= delta(before, after, "tavern_interaction_acknowledged_seconds_sum") / acknowledged < 3
    assert delta(before, after, "tavern_interaction_answered_seconds_count", via="callback") >= 1
    # a move's click is deferred, and answered by an edit of its message
    assert delta(before, after, "tavern_interaction_answered_seconds_count", via="edit") >= 1

    posts = "POST /channels/{channel_id}/messages"
    assert delta(before, after, "tavern_rest_requests_total", route=posts) >= 1
    routes = [dict(labels)["route"] for (name, labels) in after if name == "tavern_rest_requests_total"]
    assert routes and all(re.fullmatch(r"(GET|POST|PATCH|PUT|DELETE) /[a-z0-9_/{}@-]+", r) for r in routes)
    assert value(after, "tavern_rest_budget_per_second") == settings.global_budget
    assert 0 <= value(after, "tavern_rest_budget_used_ratio") <= 1
    assert value(after, "tavern_rest_budget_wait_seconds_count") >= value(after, "tavern_rest_requests_total")

    drawn = delta(before, after, "tavern_drawing_seconds_count")
    assert drawn >= 1 and delta(before, after, "tavern_pictures_total", source="drawn") >= 1
    assert 0 < delta(before, after, "tavern_drawing_seconds_sum") / drawn < drawing.DRAW_SECONDS

    latency = value(after, "tavern_gateway_latency_seconds", shard="0")
    assert math.isfinite(latency) and 0 <= latency < 5
    assert value(after, "tavern_gateway_up", shard="0") == 1
    assert value(after, "process_cpu_seconds_total") > 0
    # No label is a user, channel or guild id: label values come from small fixed sets.
    for name, labels in after:
        if name == "tavern_build_info":  # its commit is hexadecimal, and may hold six digits in a row
            assert re.fullmatch(r"[0-9a-f]{12}|unknown", dict(labels)["commit"]), labels
            continue
        assert not any(re.search(r"\d{6,}", v) for _, v in labels), (name, labels)


async def test_429s_are_counted_by_scope(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(watched(settings))
    before = await scrape(bot)
    fake.rate_limit_next("POST", r"^/channels/\d+/messages$", 0.05, scope="user")
    await challenge(fake, fake.add_user("alice"), fake.add_user("bob"))  # its opening posts in the channel
    await fake.settle()
    after = await scrape(bot)
    assert delta(before, after, "tavern_rest_rate_limited_total", scope="user", endpoint="bot") == 1


async def test_only_metrics_is_served(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    bot = await start_bot(watched(settings))
    assert bot.metrics_server is not None
    url = f"http://127.0.0.1:{bot.metrics_server.port}/"
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        assert response.status == 404


async def test_no_endpoint_without_a_port(start_bot: StartBot) -> None:
    bot = await start_bot()
    assert bot.settings.metrics_port is None and bot.metrics_server is None


async def test_a_taken_port_stops_the_start(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(MetricsServerError) as caught:
            await start_bot(dataclasses.replace(settings, metrics_port=port))
    assert f"127.0.0.1:{port}" in str(caught.value) and "TAVERN_METRICS_PORT" in str(caught.value)
    assert main_mod._failed(caught.value) == 1
    assert "Could not serve metrics on" in capsys.readouterr().err


async def test_governor_counts_requests_and_failures_by_route() -> None:
    route = "GET /probe/{probe_id}"
    sent = metrics.REST_REQUESTS.labels(route)._value.get()
    failed = metrics.REST_FAILURES.labels(route, "503")._value.get()

    async def ok() -> str:
        return "ok"

    async def fails() -> Any:
        raise discord.HTTPException(SimpleNamespace(status=503, reason="Unavailable"), "down")

    governor = Governor(5)
    assert await governor.send("GET", "/probe/{probe_id}", "/probe/1", ok) == "ok"
    with pytest.raises(discord.HTTPException):
        await governor.send("GET", "/probe/{probe_id}", "/probe/2", fails)
    assert metrics.REST_REQUESTS.labels(route)._value.get() == sent + 2
    assert metrics.REST_FAILURES.labels(route, "503")._value.get() == failed + 1


# ------------------------------------------------------------------------------------------- settings


def test_metrics_and_log_settings(tmp_path: Any) -> None:
    env = {"DISCORD_TOKEN": "tok", "TAVERN_DB_PATH": str(tmp_path / "t.sqlite3")}
    plain = settings_from_env(env)
    assert (plain.metrics_port, plain.metrics_host, plain.log_format) == (None, "127.0.0.1", "text")
    custom = settings_from_env(
        {**env, "TAVERN_METRICS_PORT": "9464", "TAVERN_METRICS_HOST": "0.0.0.0", "TAVERN_LOG_FORMAT": "JSON"}
    )
    assert (custom.metrics_port, custom.metrics_host, custom.log_format) == (9464, "0.0.0.0", "json")
    for name, bad in (
        ("TAVERN_METRICS_PORT", "0"),
        ("TAVERN_METRICS_PORT", "65536"),
        ("TAVERN_METRICS_PORT", "http"),
        ("TAVERN_METRICS_HOST", "http://example.org"),
        ("TAVERN_LOG_FORMAT", "xml"),
    ):
        with pytest.raises(SettingsError, match=name):
            settings_from_env({**env, name: bad})


# ------------------------------------------------------------------------------------------- JSON logs


@pytest.mark.parametrize("log_format", ["json", "text"])
def test_log_lines_never_show_the_token(
    log_format: str, capsys: pytest.CaptureFixture[str], error_logs: ErrorLogGuard
) -> None:
    secret = "MTIz.metrics-test-token.XYZ"
    root = logging.getLogger()
    level, http_level = root.level, logging.getLogger("discord.http").level
    handler = setup_logging("INFO", secrets=[secret], log_format=log_format)
    try:
        log = logging.getLogger("tavern.test-json")
        log.info("logging in with %s", secret)
        log.warning("a line\nof two lines with %s", secret)
        try:
            raise RuntimeError(f"failed with {secret}")
        except RuntimeError:
            log.exception("it broke")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        logging.getLogger("discord.http").setLevel(http_level)
        uninstall_redaction()
    assert len(error_logs.take("it broke")) == 1
    err = capsys.readouterr().err
    assert secret not in err and f"logging in with {REDACTED}" in err
    assert f"RuntimeError: failed with {REDACTED}" in err
    if log_format == "text":
        return
    lines = [json.loads(line) for line in err.splitlines()]
    assert [entry["message"] for entry in lines] == [
        f"logging in with {REDACTED}",
        f"a line\nof two lines with {REDACTED}",
        "it broke",
    ]
    assert [entry["level"] for entry in lines] == ["INFO", "WARNING", "ERROR"]
    assert all(entry["logger"] == "tavern.test-json" and entry["time"].endswith("+00:00") for entry in lines)
    assert "exc_info" not in lines[0]
    assert lines[2]["exc_info"].endswith(f"RuntimeError: failed with {REDACTED}")
