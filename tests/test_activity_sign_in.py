"""The Activity's sign-in (``POST /a/token``) against the fake Discord's OAuth2 and Activity instances: a
player is who Discord says, where Discord says, and nothing the page sends can say otherwise."""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from typing import Any

import aiohttp
import pytest

from bot.edge.app import TavernBot
from bot.edge.web.activity_routes import SIGN_IN_COST
from bot.edge.web.guard import Guard
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import CLIENT_SECRET, CODE_SECONDS, FakeDiscord


async def activity_bot(start_bot: StartBot, settings: Settings) -> tuple[TavernBot, str]:
    bot = await start_bot(dataclasses.replace(settings, web_port=0, client_secret=CLIENT_SECRET))
    assert bot.web_server is not None and bot.web_server.sign_in is not None
    return bot, f"http://127.0.0.1:{bot.web_server.port}/a/token"


async def post(url: str, body: Any, content_type: str = "application/json") -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as client:
        data = body if isinstance(body, str) else json.dumps(body)
        async with client.post(url, data=data, headers={"Content-Type": content_type}) as response:
            text = await response.text()
            return response.status, json.loads(text) if response.content_type == "application/json" else {}


async def test_a_player_in_the_instance_signs_in_as_discord_says(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    bot, url = await activity_bot(start_bot, settings)
    alice = fake.add_user("alice")
    instance = fake.oauth.launch(fake.channel, alice)
    caplog.set_level(logging.DEBUG)
    code = fake.oauth.authorize(alice)
    status, answer = await post(url, {"code": code, "instance_id": instance.id})
    assert status == 200, answer
    assert bot.links is not None and bot.links.read_session(answer["session"], bot.clock()) == (
        alice.id,
        instance.id,
    )
    async with aiohttp.ClientSession() as client:  # the bearer token is the player's own, for authenticate
        bearer = {"Authorization": f"Bearer {answer['access_token']}"}
        async with client.get(f"{fake.api_base}/oauth2/@me", headers=bearer) as response:
            assert (await response.json())["user"]["id"] == str(alice.id)
    assert (await post(url, {"code": code, "instance_id": instance.id}))[0] == 401  # a code is good once
    logged = caplog.text
    assert CLIENT_SECRET not in logged and answer["access_token"] not in logged and code not in logged
    assert answer["session"] not in logged
    route = f"GET /api/v10/applications/{bot.application_id}/activity-instances/{instance.id}"
    assert route in {f"{m} {p}" for m, p, _ in fake.requests}  # the instance was asked with the bot's token


async def test_what_discord_does_not_vouch_for_is_refused(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot, url = await activity_bot(start_bot, settings)
    assert bot.web_server is not None
    bot.web_server.guard = Guard(rate=1000, burst=10_000)  # the charge is another test's
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    instance = fake.oauth.launch(fake.channel, alice)
    other = fake.oauth.launch(fake.add_channel("other"), bob)

    async def sign(user: Any, instance_id: str) -> int:
        return (await post(url, {"code": fake.oauth.authorize(user), "instance_id": instance_id}))[0]

    assert await sign(bob, instance.id) == 403  # bob is not in alice's instance
    assert await sign(alice, other.id) == 403
    assert await sign(alice, "i-no-such-instance") == 403
    fake.oauth.join(instance, bob)
    assert await sign(bob, instance.id) == 200  # once he joins, he is
    fake.oauth.leave(instance, alice)
    fake.oauth.leave(instance, bob)
    assert await sign(alice, instance.id) == 403  # an ended instance is never live again
    fake.oauth.join(instance, alice)
    assert await sign(alice, instance.id) == 403
    assert (await post(url, {"code": "made-up", "instance_id": other.id}))[0] == 401  # Discord's no
    stale = fake.oauth.authorize(bob)
    fake.oauth.clock = lambda: time.time() + CODE_SECONDS + 1
    assert (await post(url, {"code": stale, "instance_id": other.id}))[0] == 401  # an expired code
    fake.oauth.clock = time.time
    fake.oauth.client_secret = "another application's secret"
    assert await sign(bob, other.id) == 401  # Discord refused our client: nothing signed


async def test_a_sign_in_costs_its_address_what_it_asks_of_discord(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """Each sign-in asks Discord three things: an address pays for them before any is asked, so one address
    can't spend the bot's requests (a page costs 1, a sign-in ``1 + SIGN_IN_COST``)."""
    fake = fake_discord
    bot, url = await activity_bot(start_bot, settings)
    assert bot.web_server is not None
    bot.web_server.guard = Guard(rate=0.001, burst=2 * (1 + SIGN_IN_COST))
    alice = fake.add_user("alice")
    instance = fake.oauth.launch(fake.channel, alice)
    statuses = [
        (await post(url, {"code": fake.oauth.authorize(alice), "instance_id": instance.id}))[0]
        for _ in range(3)
    ]
    assert statuses == [200, 200, 429]
    assert [outcome for outcome, _ in fake.oauth.exchanges] == ["granted", "granted"]  # the third never asked


@pytest.mark.parametrize(
    "body",
    [
        {"code": "abc"},
        {"code": "abc", "instance_id": "i-1", "user_id": "1"},  # the user is Discord's word, never the page's
        {"code": "abc", "instance_id": "i/../1"},
        {"code": "abc def", "instance_id": "i-1"},
        {"code": 5, "instance_id": "i-1"},
        {"code": "a" * 129, "instance_id": "i-1"},
        ["abc", "i-1"],
        "not json",
    ],
)
async def test_a_malformed_sign_in_is_refused_before_discord_is_asked(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, body: Any
) -> None:
    _bot, url = await activity_bot(start_bot, settings)
    asked = len(fake_discord.requests)
    status, _ = await post(url, body)
    assert status == 400
    assert len(fake_discord.requests) == asked and fake_discord.oauth.exchanges == []
    assert (await post(url, {"code": "abc", "instance_id": "i-1"}, "text/plain"))[0] == 400


async def test_without_a_client_secret_there_is_no_sign_in(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    bot = await start_bot(dataclasses.replace(settings, web_port=0))
    assert bot.web_server is not None and bot.web_server.sign_in is None
    url = f"http://127.0.0.1:{bot.web_server.port}/a/token"
    status, _ = await post(url, {"code": "abc", "instance_id": "i-1"}, "application/json")
    assert status in (404, 405) and fake_discord.oauth.exchanges == []
