"""Discord's published contract as the referee (``bot.edge.contract``, applied by the fake to every request).

- Planted bad requests, each a kind Discord refuses, are caught with the field's path and the limit, and
  refused by the fake as Discord refuses them (400 50035).
- The whole command tree, as ``tree.sync()`` sends it, is valid for every locale the bot ships: the payload
  and each locale's view of it (its names and descriptions as that locale's users read them) against the
  spec's schema and the limits Discord applies at registration (``Contract.check_commands``).
"""

from __future__ import annotations

from typing import Any

import aiohttp
import discord
import pytest

from bot.base.i18n import LANGUAGES
from bot.edge.contract import Contract, locale_views
from bot.edge.contract.limits import COMMAND_CHARACTERS_MAX, INTEGER_MAX, _characters
from tests.conftest import StartBot
from tests.fakediscord import FAKE_TOKEN, ContractViolation, FakeDiscord

contract = Contract.load()


def button(label: str = "Go", custom_id: str = "go", **more: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id, **more}


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


def command(**more: Any) -> dict[str, Any]:
    return {"name": "tavern", "description": "The tavern", "type": 1, **more}


def game_option(**more: Any) -> dict[str, Any]:
    return {"type": 4, "name": "game", "description": "A game", "required": True, **more}


MESSAGE = "POST /channels/{channel}/messages"
COMMANDS = "PUT /applications/{app}/commands"
CALLBACK = "POST /interactions/{interaction}/tok/callback"

# (kind, route, body, where the violation is, words of the limit)
PLANTED: list[tuple[str, str, Any, str, str]] = [
    (
        "an integer bound past 2^53 - 1",
        COMMANDS,
        [command(options=[game_option(min_value=1, max_value=2**53)])],
        "0.options.0.max_value",
        f"maximum {INTEGER_MAX}",
    ),
    ("a button label over 80", MESSAGE, {"components": [row(button("x" * 81))]}, "label", "maxLength 80"),
    (
        "26 select options",
        MESSAGE,
        {
            "components": [
                row(
                    {
                        "type": 3,
                        "custom_id": "pick",
                        "options": [{"label": f"o{i}", "value": str(i)} for i in range(26)],
                    }
                )
            ]
        },
        "components.0.components.0.options",
        "maxItems 25",
    ),
    (
        "allowed_mentions parsing users beside a users list",
        MESSAGE,
        {"content": "hi", "allowed_mentions": {"parse": ["users"], "users": ["1"]}},
        "allowed_mentions.parse",
        '"users" excludes a list of users',
    ),
    (
        "allowed_mentions parsing what isn't a kind",
        MESSAGE,
        {"content": "hi", "allowed_mentions": {"parse": ["members"]}},
        "allowed_mentions.parse.0",
        "must be one of",
    ),
    ("content over 2,000", MESSAGE, {"content": "x" * 2001}, "content", "2000 characters for a bot"),
    (
        "an embed title over 256",
        MESSAGE,
        {"embeds": [{"title": "t" * 257}]},
        "embeds.0.title",
        "maxLength 256",
    ),
    (
        "embeds over 6,000 characters in all",
        MESSAGE,
        {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]},
        "embeds",
        "6000 characters of embed text",
    ),
    (
        "six action rows",
        MESSAGE,
        {"components": [row(button(custom_id=f"b{i}")) for i in range(6)]},
        "components",
        "5 action rows",
    ),
    ("a custom_id over 100", MESSAGE, {"components": [row(button(custom_id="c" * 101))]}, "custom_id", "100"),
    (
        "one custom_id twice",
        MESSAGE,
        {"components": [row(button(custom_id="same"), button(custom_id="same"))]},
        "components.0.components.1.custom_id",
        "used twice",
    ),
    (
        "a link button with a custom_id",
        MESSAGE,
        {
            "components": [
                row({"type": 2, "style": 5, "label": "Web", "url": "https://x.io", "custom_id": "w"})
            ]
        },
        "custom_id",
        "takes no custom_id",
    ),
    (
        "content beside the IS_COMPONENTS_V2 flag",
        CALLBACK,
        {"type": 4, "data": {"flags": 1 << 15, "content": "x", "components": [{"type": 10, "content": "t"}]}},
        "data.content",
        "IS_COMPONENTS_V2",
    ),
    (
        "41 components with the IS_COMPONENTS_V2 flag",
        CALLBACK,
        {
            "type": 4,
            "data": {
                "flags": 1 << 15,
                "components": [{"type": 17, "components": [{"type": 10, "content": "t"}] * 40}],
            },
        },
        "data.components",
        "40 components",
    ),
    (
        "a select with min_values above max_values",
        MESSAGE,
        {
            "components": [
                row(
                    {
                        "type": 3,
                        "custom_id": "pick",
                        "min_values": 3,
                        "max_values": 2,
                        "options": [{"label": f"o{i}", "value": str(i)} for i in range(3)],
                    }
                )
            ]
        },
        "min_values",
        "above max_values",
    ),
    ("a callback of no known type", CALLBACK, {"type": 99}, "type", "must be one of"),
    (
        "a thread name over 100",
        "POST /channels/{channel}/threads",
        {"name": "n" * 101},
        "name",
        "maxLength 100",
    ),
    (
        "a command name in capitals",
        COMMANDS,
        [command(name="Tavern")],
        "0.name",
        "naming rule",
    ),
    (
        "a command description over 100",
        COMMANDS,
        [command(description="d" * 101)],
        "0.description",
        "maxLength 100",
    ),
    (
        "a localization for no Discord locale",
        COMMANDS,
        [command(name_localizations={"xx": "taverna"})],
        "0.name_localizations.xx",
        "not one of Discord's locales",
    ),
    (
        "a required option after an optional one",
        COMMANDS,
        [command(options=[game_option(name="a", required=False), game_option(name="b")])],
        "0.options.1.required",
        "before optional",
    ),
    (
        "a command over 8,000 characters",
        COMMANDS,
        [
            command(
                options=[
                    {
                        "type": 3,
                        "name": f"o{i}",
                        "description": "d" * 100,
                        "choices": [{"name": "c" * 100, "value": f"{j}" + "v" * 99} for j in range(25)],
                    }
                    for i in range(2)
                ]
            )
        ],
        "0",
        f"at most {COMMAND_CHARACTERS_MAX} characters a command",
    ),
    ("a route Discord does not publish", "POST /channels/{channel}/shuffle", {}, "(body)", "no route"),
]


async def send_raw(fake: FakeDiscord, route: str, body: Any) -> tuple[int, dict[str, Any]]:
    """``body`` as the bot would send it (its token, JSON), past every check of discord.py's own."""
    method, path = route.split(" ", 1)
    path = path.format(channel=fake.channel.id, app=fake.app_id, interaction=0)
    headers = {"Authorization": f"Bot {FAKE_TOKEN}"}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, fake.api_base + path, json=body, headers=headers) as response,
    ):
        return response.status, await response.json(content_type=None)


@pytest.mark.parametrize(("kind", "route", "body", "where", "limit"), PLANTED, ids=[p[0] for p in PLANTED])
async def test_a_planted_bad_request_is_caught_naming_its_field_and_limit(
    fake_discord: FakeDiscord, kind: str, route: str, body: Any, where: str, limit: str
) -> None:
    """Each kind is refused as Discord refuses it (400 50035, or the route's own answer) and kept as a
    violation naming the field's path and the limit: a test that sent it without taking it fails."""
    fake = fake_discord
    status, answer = await send_raw(fake, route, body)
    assert status >= 400, answer
    caught = fake.take_violations()
    assert len(caught) == 1, caught
    text = str(caught[0])
    assert where in text and limit in text, text
    assert not fake.contract_violations


def test_a_violation_left_untaken_fails_the_test_that_caused_it() -> None:
    fake = FakeDiscord()
    found = contract.check("POST", "/channels/1/messages", {"content": "x" * 2001})
    fake.contract_violations.append(ContractViolation("POST", "/channels/1/messages", tuple(found)))
    with pytest.raises(AssertionError, match=r"content: at most 2000 characters for a bot"):
        fake.check_healthy()


def test_every_planted_kind_is_valid_once_mended() -> None:
    """The checks bite on the fault alone: the same bodies within their limits pass."""
    good_message = {"content": "x" * 2000, "components": [row(button("x" * 80, custom_id="c" * 100))]}
    assert contract.check("POST", "/channels/1/messages", good_message) == []
    good_command = [command(options=[game_option(min_value=1, max_value=INTEGER_MAX)])]
    assert contract.check("PUT", "/applications/1/commands", good_command) == []
    assert contract.check("POST", "/interactions/1/t/callback", {"type": 4, "data": {"content": "hi"}}) == []


# --------------------------------------------------------------------------------------- the command tree


async def test_the_command_tree_as_discord_receives_it_is_valid_in_every_locale(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    assert len(fake.command_bodies) == 1
    sent = fake.command_bodies[0]
    key = lambda c: (c.get("type", 1), c["name"])  # noqa: E731
    assert sorted(sent, key=key) == sorted(await bot.command_payload(None), key=key)
    assert contract.check_commands(sent) == {}
    views = locale_views(sent)
    shipped = {loc for loc in views if loc.split("-")[0] in LANGUAGES} | {"(default)"}
    assert "it" in views and set(views) == shipped, sorted(views)
    assert {c["name"] for c in views["it"]} != {c["name"] for c in views["(default)"]}, "nothing translated"
    largest = 0
    for locale, commands in views.items():
        for c in commands:
            largest = max(largest, _characters(c))
            stack = [c]
            while stack:
                node = stack.pop()
                assert len(node.get("options") or []) <= 25 and len(node.get("choices") or []) <= 25
                assert 1 <= len(node["name"]) <= 32, (locale, node["name"])
                assert 1 <= len(node.get("description") or "") <= 100 or c.get("type", 1) != 1, (
                    locale,
                    node["name"],
                )
                stack.extend(node.get("options") or [])
    assert largest <= COMMAND_CHARACTERS_MAX
    by_name = {c["name"]: c for c in sent}
    admin = discord.Permissions(int(by_name["tavern-admin"]["default_member_permissions"]))
    assert admin.manage_channels
    assert all(c.get("default_member_permissions") is None for n, c in by_name.items() if n != "tavern-admin")
    for c in sent:
        assert set(c.get("contexts") or ()) <= {0, 1, 2} and set(c.get("integration_types") or ()) <= {0, 1}
    print(f"\n{len(sent)} commands, {len(views)} locale views, the largest command {largest} characters")
