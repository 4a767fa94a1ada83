"""The few places the bot leans on discord.py's internals, each checked here so that a discord.py release that
changes one fails with a sentence naming it, instead of the bot breaking quietly in production.

discord.py is pinned to the minor version these are written against (``pyproject.toml``: ``>=2.7.1,<2.8``);
taking a new minor means running these first. Where a public hook exists the bot uses it instead: unknown
presses are left to other listeners through ``Client.persistent_views`` and the bot's own
``add_dynamic_items``; the drawing process reports its process id through its pool's ``initializer``; 429s are
counted through the public ``http_trace``.

What remains, and why:

- ``discord.http.HTTPClient.request(route, *, files=None, form=None, **kwargs)`` is replaced on the bot's
  client by the REST budget's governor (``bot.edge.governor.install``): every request outside the interaction
  endpoints waits there for room. There is no public hook that can hold a request back.
- ``discord.webhook.async_.async_context`` and its adapter's ``create_interaction_response``,
  ``edit_original_interaction_response`` and ``execute_webhook`` are wrapped to time an interaction's answer
  (``bot.edge.discord_metrics.install``): a trace sees the request but not which callback type it carried.
- ``discord.http.HTTPClient._try_clear_expired_ratelimits`` is replaced on the bot's client by a sweep that
  runs at most once a minute (``bot.edge.buckets.install``): discord.py scans every rate-limit bucket on each
  new one once it holds 256, thousands of buckets at a thousand tables. No public hook bounds it.
- ``discord.InteractionResponse._parent`` is the interaction a response answers, and holds it in a cycle with
  the interaction's cached ``response``: the bot sets it to None once an interaction is answered
  (``bot.edge.cycles``), so the interaction and its message are freed without the garbage collector.
- ``app_commands.Command._locale_name`` / ``_locale_description`` (and a group's ``_locale_name``) hold the
  ``locale_str`` the help translates into the reader's language (``cogs.general.command_name``); discord.py
  keeps no public reference to it once the command is built.
"""

from __future__ import annotations

import asyncio
import inspect
from contextvars import ContextVar

import discord
import pytest
from discord import app_commands
from discord.webhook import async_ as webhook_async

from bot.edge import buckets
from bot.edge.app import TavernBot
from bot.settings import Settings

PINNED = (2, 7)


def parameters(function: object) -> list[str]:
    return list(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_discord_py_is_the_pinned_minor_version() -> None:
    version = tuple(discord.version_info[:2])
    assert version == PINNED, (
        f"discord.py {discord.__version__} is installed; the bot's uses of its internals are written against "
        f"{PINNED[0]}.{PINNED[1]}: check each test here, then move the pin in pyproject.toml"
    )


def test_the_http_clients_request_is_what_the_governor_replaces() -> None:
    names = parameters(discord.http.HTTPClient.request)
    assert names[:2] == ["self", "route"] and "files" in names and "form" in names, (
        f"discord.http.HTTPClient.request is now {names}: bot.edge.governor.install passes (route, **kwargs) "
        "through it"
    )
    assert inspect.iscoroutinefunction(discord.http.HTTPClient.request), (
        "HTTPClient.request is no coroutine now"
    )
    route = discord.http.Route("POST", "/channels/{channel_id}/messages", channel_id=1)
    assert (route.method, route.path) == ("POST", "/channels/{channel_id}/messages"), (
        "discord.http.Route no longer keeps method and path (the template): the governor labels by them"
    )
    assert route.url.endswith("/channels/1/messages"), "discord.http.Route.url is no longer the request's url"


@pytest.mark.parametrize(
    ("method", "leading"),
    [
        ("create_interaction_response", ["self", "interaction_id", "token"]),
        ("edit_original_interaction_response", ["self", "application_id", "token"]),
        ("execute_webhook", ["self", "webhook_id", "token"]),
    ],
)
def test_the_webhook_adapter_methods_the_metrics_wrap(method: str, leading: list[str]) -> None:
    assert isinstance(webhook_async.async_context, ContextVar), (
        "discord.webhook.async_.async_context is gone: bot.edge.discord_metrics.install reads the adapter "
        "there"
    )
    adapter = webhook_async.async_context.get()
    function = getattr(type(adapter), method, None)
    assert callable(function), f"the webhook adapter has no {method} now: bot.edge.discord_metrics wraps it"
    names = parameters(function)
    assert names[: len(leading)] == leading, (
        f"{method} now takes {names}; the metrics' wrapper passes {leading}"
    )
    if method == "create_interaction_response":
        assert "params" in names, (
            "create_interaction_response takes no params: the metrics read its payload's type"
        )


def test_a_commands_locale_strings_are_where_the_help_reads_them() -> None:
    @app_commands.command(name=app_commands.locale_str("ping", msgid="x"), description="A test")
    async def ping(interaction: discord.Interaction) -> None:  # type: ignore[type-arg]
        pass

    group = app_commands.Group(name=app_commands.locale_str("tavern", msgid="y"), description="A group")
    for item, msgid in ((ping, "x"), (group, "y")):
        name = getattr(item, "_locale_name", None)
        assert isinstance(name, app_commands.locale_str) and name.extras.get("msgid") == msgid, (
            f"{type(item).__name__}._locale_name no longer holds the name's locale_str: "
            "cogs.general.command_name reads it to show the command in the reader's language"
        )
    assert isinstance(getattr(ping, "_locale_description", None), app_commands.locale_str), (
        "Command._locale_description no longer holds the description's locale_str: the help reads it"
    )


def test_the_public_hooks_the_bot_uses_instead() -> None:
    assert isinstance(discord.Client.persistent_views, property), "Client.persistent_views is gone"
    assert "http_trace" in inspect.getsource(discord.Client.__init__), (
        "Client no longer takes http_trace: bot.edge.discord_metrics counts Discord's 429s through it"
    )


def test_the_bucket_sweep_is_what_discord_py_calls_on_each_new_bucket() -> None:
    http = discord.http.HTTPClient
    assert parameters(http._try_clear_expired_ratelimits) == ["self"], (
        "HTTPClient._try_clear_expired_ratelimits changed its signature: bot.edge.buckets replaces it"
    )
    source = inspect.getsource(http.get_ratelimit)
    assert "self._buckets[key]" in source and "self._try_clear_expired_ratelimits()" in source, (
        "HTTPClient.get_ratelimit no longer makes its buckets in self._buckets and sweeps them through "
        "self._try_clear_expired_ratelimits(): bot.edge.buckets bounds that sweep"
    )
    sweep = inspect.getsource(http._try_clear_expired_ratelimits)
    assert "is_inactive()" in sweep and "del self._buckets[key]" in sweep, (
        "the sweep no longer drops the buckets Ratelimit.is_inactive calls idle: check bot.edge.buckets"
    )


class _Scans:
    """Counts Ratelimit.is_inactive calls: one per bucket a sweep looks at."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = discord.http.Ratelimit.is_inactive

        def counted(bucket: discord.http.Ratelimit) -> bool:
            self.calls += 1
            return real(bucket)

        monkeypatch.setattr(discord.http.Ratelimit, "is_inactive", counted)


async def test_the_bots_client_does_not_scan_every_bucket_on_each_new_one(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans = _Scans(monkeypatch)
    bot = TavernBot(settings)
    try:
        for channel in range(2_000):  # a thousand tables' channels and threads
            bot.http.get_ratelimit(f"POST /channels/{{channel_id}}/messages:{channel}")
    finally:
        await bot.http.close()
    assert len(bot.http._buckets) == 2_000
    assert scans.calls <= 2_000, f"{scans.calls} buckets looked at for 2,000 new ones"


async def test_the_bounded_sweep_still_drops_idle_buckets_once_a_minute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scans = _Scans(monkeypatch)
    now = [0.0]
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    buckets.install(http, every=60.0, clock=lambda: now[0])
    for n in range(300):
        http.get_ratelimit(f"k:{n}")
    assert scans.calls == 0  # the first sweep came at the first bucket, under 256
    for bucket in http._buckets.values():
        bucket._last_request -= 301  # five minutes idle
    now[0] = 59.0
    http.get_ratelimit("k:new")
    assert scans.calls == 0 and len(http._buckets) == 301
    now[0] = 60.0
    http.get_ratelimit("k:newer")
    assert scans.calls == 302 and list(http._buckets) == ["k:new", "k:newer"]


def test_an_interactions_response_holds_it_in_parent_and_answers_nothing_twice() -> None:
    """What ``bot.edge.cycles.let_go`` relies on: the response's link back is ``_parent``; a response already
    answered refuses another answer without looking at it; the token's edits don't go through the response."""
    assert "_parent" in discord.InteractionResponse.__slots__, (
        "InteractionResponse no longer keeps its interaction in _parent, the link bot.edge.cycles breaks"
    )
    for answer in ("send_message", "defer", "edit_message", "send_modal", "pong", "launch_activity"):
        source = inspect.getsource(getattr(discord.InteractionResponse, answer))
        done_check = source.index("if self._response_type:")
        first_use = source.find("self._parent", done_check)
        assert first_use == -1 or source.index("raise InteractionResponded", done_check) < first_use, (
            f"InteractionResponse.{answer} uses _parent before refusing a second answer: let_go breaks it"
        )
    for later in ("edit_original_response", "delete_original_response"):
        assert ".response" not in inspect.getsource(getattr(discord.Interaction, later)), (
            f"Interaction.{later} now goes through the response, whose _parent let_go clears"
        )
