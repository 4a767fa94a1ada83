"""The fake Discord harness, exercised through the real bot and a few test-only commands."""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, ParamSpec, TypeVar

import discord
import pytest
from discord import app_commands

from bot.base.i18n import t
from bot.base.refusals import UserFacingError
from bot.edge.app import TavernBot
from bot.edge.errors import reply_error
from bot.rules.errors import IllegalAction
from tests.conftest import ErrorLogGuard, StartBot
from tests.fakediscord import FAKE_TOKEN, FakeDiscord


@pytest.fixture(autouse=True)
def planted(fake_discord: FakeDiscord) -> Iterator[None]:
    """The tests here send what Discord refuses on purpose, to check the fake's own refusals: the referee's
    findings (``bot.edge.contract``) are theirs, taken at each test's end."""
    yield
    fake_discord.take_violations()


# ------------------------------------------------------------------------------------ test-only commands

P = ParamSpec("P")
R = TypeVar("R")


class TavernView(discord.ui.View):
    """A view whose callback errors become replies through the bot's one error path."""

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any]
    ) -> None:
        await reply_error(interaction, error)


def handles_errors(func: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R | None]]:
    """Routes a dynamic item's callback errors to reply_error (the interaction is the first argument after
    self)."""

    @functools.wraps(func)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | None:
        try:
            return await func(*args, **kwargs)
        except Exception as err:
            interaction = next(a for a in args if isinstance(a, discord.Interaction))
            await reply_error(interaction, err)
            return None

    return wrapper


class Counter(TavernView):
    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.count = 0

    @discord.ui.button(label="Add", custom_id="counter:add")
    async def add(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        self.count += 1
        await interaction.response.edit_message(content=f"count {self.count}", view=self)

    @discord.ui.button(label="Refuse", custom_id="counter:refuse")
    async def refuse(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        raise UserFacingError("tavern.table.not-seated")

    @discord.ui.button(label="Off", custom_id="counter:off", disabled=True)
    async def off(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        raise AssertionError("a disabled button was clicked")


class Pick(discord.ui.View):
    @discord.ui.select(
        custom_id="pick",
        min_values=1,
        max_values=2,
        options=[discord.SelectOption(label=x.title(), value=x) for x in ("moons", "suns", "waves")],
    )
    async def pick(self, interaction: discord.Interaction[Any], select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message("picked " + "+".join(select.values), ephemeral=True)

    @discord.ui.button(label="Name", custom_id="pick:name")
    async def name(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.send_modal(NameModal())


class NameModal(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Name", custom_id="name", max_length=20)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"hello {self.name.value}", ephemeral=True)


class Broken(discord.ui.View):
    """A plain view (no TavernView): its exception is only logged by discord.py."""

    @discord.ui.button(label="Break", custom_id="broken:break")
    async def brk(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        raise RuntimeError("view exploded")


class Seat(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"seat:(?P<n>\d+)"):
    """A persistent button that survives restarts: the state lives in the custom_id."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Seat {n}", custom_id=f"seat:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Seat:
        return cls(int(match["n"]))

    @handles_errors
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.n == 0:
            raise IllegalAction("tavern.table.no-such-seat")
        await interaction.response.send_message(f"sat at {self.n}", ephemeral=True)


KINDS = ("user", "rules", "bug", "late")


def add_test_commands(bot: TavernBot) -> None:
    """A ``/t`` group of commands that exercise the harness; added before start so it is synced."""
    group = app_commands.Group(name="t", description="test commands")
    saved: dict[str, discord.Interaction[Any]] = {}
    background: set[asyncio.Task[None]] = set()

    @group.command(name="dm", description="DM someone")
    async def dm(interaction: discord.Interaction[Any], who: discord.User, text: str = "hi") -> None:
        try:
            await who.send(text)
        except discord.Forbidden as err:
            await interaction.response.send_message(f"forbidden {err.code}", ephemeral=True)
            return
        await interaction.response.send_message("sent", ephemeral=True)

    @group.command(name="post", description="post in the channel")
    async def post(interaction: discord.Interaction[Any]) -> None:
        can = interaction.app_permissions.send_messages
        assert interaction.channel is not None
        try:
            await interaction.channel.send("posted")  # type: ignore[union-attr]
        except discord.Forbidden as err:
            await interaction.response.send_message(f"forbidden {err.code} can={can}", ephemeral=True)
            return
        await interaction.response.send_message(f"ok can={can}", ephemeral=True)

    @group.command(name="counter", description="a counter with buttons")
    async def counter(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("count 0", view=Counter())

    @group.command(name="pick", description="a select and a modal")
    async def pick(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("pick suits", view=Pick())

    @group.command(name="slow", description="defer, then follow up")
    async def slow(interaction: discord.Interaction[Any], secret: bool = False) -> None:
        await interaction.response.defer(ephemeral=secret, thinking=True)
        await interaction.followup.send("done thinking", ephemeral=secret)
        await interaction.followup.send("and more", ephemeral=secret)

    @group.command(name="args", description="echo typed options")
    @app_commands.choices(suit=[app_commands.Choice(name=s, value=s) for s in ("moons", "suns")])
    async def args(
        interaction: discord.Interaction[Any],
        n: app_commands.Range[int, 1, 9],
        flag: bool,
        suit: str,
        who: discord.Member | None = None,
    ) -> None:
        name = who.display_name if who else "-"
        await interaction.response.send_message(f"n={n} flag={flag} suit={suit} who={name}")

    @group.command(name="remember", description="an ephemeral reply to edit later")
    async def remember(interaction: discord.Interaction[Any]) -> None:
        saved["it"] = interaction
        await interaction.response.send_message("first words", ephemeral=True)

    @group.command(name="editold", description="try to edit the remembered reply")
    async def editold(interaction: discord.Interaction[Any]) -> None:
        try:
            await saved["it"].edit_original_response(content="second words")
        except discord.NotFound as err:
            await interaction.response.send_message(f"gone {err.code}", ephemeral=True)
            return
        await interaction.response.send_message("edited", ephemeral=True)

    @group.command(name="fail", description="raise something")
    @app_commands.choices(
        kind=[app_commands.Choice(name=k, value=k) for k in ("user", "rules", "bug", "late")]
    )
    async def fail(interaction: discord.Interaction[Any], kind: str) -> None:
        if kind == "user":
            raise UserFacingError("tavern.lobby.busy-lobby")
        if kind == "rules":
            raise IllegalAction("tavern.table.not-your-move")
        if kind == "late":
            await interaction.response.defer(ephemeral=True)
            raise UserFacingError("tavern.claim.not-yet")
        raise RuntimeError("boom")

    @group.command(name="broken", description="a plain view that raises")
    async def broken(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("careful", view=Broken())

    @group.command(name="seats", description="persistent dynamic buttons")
    async def seats(interaction: discord.Interaction[Any]) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Seat(0))
        view.add_item(Seat(1))
        await interaction.response.send_message("choose a seat", view=view)

    def in_guild(interaction: discord.Interaction[Any]) -> bool:
        if interaction.guild is None:
            raise app_commands.NoPrivateMessage()
        return True

    @group.command(name="guildcheck", description="checked in code, not by Discord")
    @app_commands.check(in_guild)
    async def guildcheck(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("in a guild", ephemeral=True)

    @app_commands.command(name="tguild", description="guild only, enforced by Discord (top level only)")
    @app_commands.guild_only()
    async def tguild(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("in a guild", ephemeral=True)

    bot.tree.add_command(tguild)

    @group.command(name="later", description="post in the channel a little later")
    async def later(interaction: discord.Interaction[Any]) -> None:
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)

        async def post() -> None:
            await asyncio.sleep(0.1)
            await channel.send("your turn, a while later")

        background.add(asyncio.create_task(post()))
        await interaction.response.send_message("ok", ephemeral=True)

    @group.command(name="cleanup", description="post, then delete")
    async def cleanup(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("short-lived reply", view=Counter())
        assert interaction.channel is not None
        note = await interaction.channel.send("short-lived note")  # type: ignore[union-attr]
        await note.delete()
        await interaction.delete_original_response()

    @group.command(name="silent", description="never answers")
    async def silent(interaction: discord.Interaction[Any]) -> None:
        return None

    bot.tree.add_command(group)
    bot.add_dynamic_items(Seat)


# ------------------------------------------------------------------------------------------------ tests


async def test_ping_round_trip(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    bot = await start_bot()
    alice = fake_discord.add_user("alice")
    result = await fake_discord.slash(alice, fake_discord.channel, "tavern ping")
    assert result.type == 4
    assert result.ephemeral
    assert result.content.startswith("Pong!")
    assert result.message.viewer is alice
    assert fake_discord.channel_messages(fake_discord.channel) == []  # ephemeral: not in the channel
    assert fake_discord.ephemerals(alice) == [result.message]
    assert bot.user is not None and bot.user.id == fake_discord.bot_user.id
    synced = sorted(c["name"] for c in fake_discord.commands())
    assert "tavern" in synced and synced == sorted(c.name for c in bot.tree.get_commands())


async def test_help_lists_every_command(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    result = await fake_discord.slash(fake_discord.owner, fake_discord.channel, "tavern help")
    text = result.text()
    assert result.ephemeral and "Decktet Tavern" in text
    for line in ("/tavern ping", "/tavern help", "/t counter", "/t dm"):
        assert line in text


async def test_slash_in_dm(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    bob = fake_discord.add_user("bob")
    dm = fake_discord.dm_channel(bob)
    result = await fake_discord.slash(bob, dm, "tavern ping")
    assert "Pong!" in result.content and result.message.channel is dm

    with pytest.raises(AssertionError, match="not offered in DMs"):
        await fake_discord.slash(bob, dm, "tguild")
    forced = await fake_discord.slash(bob, dm, "tguild", force=True)
    assert forced.content == "in a guild"  # discord.py trusts Discord to enforce it
    checked = await fake_discord.slash(bob, dm, "t guildcheck")
    assert checked.ephemeral and checked.content == t("tavern.error.server-only")
    in_guild = await fake_discord.slash(bob, fake_discord.channel, "t guildcheck")
    assert in_guild.content == "in a guild"


async def test_options_are_typed_and_validated(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    alice, bob = fake_discord.add_user("alice"), fake_discord.add_user("bob")
    result = await fake_discord.slash(
        alice, fake_discord.channel, "t args", n=3, flag=True, suit="suns", who=bob
    )
    assert result.content == "n=3 flag=True suit=suns who=bob"
    assert not result.ephemeral
    assert fake_discord.channel_messages(fake_discord.channel) == [result.message]

    bad: list[dict[str, Any]] = [
        {"n": 10, "flag": True, "suit": "suns"},  # above max
        {"n": 1, "flag": True, "suit": "knots"},  # not a choice
        {"n": "1", "flag": True, "suit": "suns"},  # wrong type
        {"n": 1, "suit": "suns"},  # required missing
        {"n": 1, "flag": True, "suit": "suns", "colour": "red"},  # unknown option
    ]
    for options in bad:
        with pytest.raises(AssertionError):
            await fake_discord.slash(alice, fake_discord.channel, "t args", options=options)
    with pytest.raises(AssertionError, match="no subcommand"):
        await fake_discord.slash(alice, fake_discord.channel, "t nope")
    with pytest.raises(AssertionError, match="no synced slash command"):
        await fake_discord.slash(alice, fake_discord.channel, "nope")


async def test_dm_to_closed_user_is_forbidden_50007(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    open_ = fake_discord.add_user("open")
    closed = fake_discord.add_user("closed", dms_closed=True)

    ok = await fake_discord.slash(alice, fake_discord.channel, "t dm", who=open_, text="your hand")
    assert ok.content == "sent"
    assert [m.content for m in fake_discord.dms(open_)] == ["your hand"]

    refused = await fake_discord.slash(alice, fake_discord.channel, "t dm", who=closed)
    assert refused.content == "forbidden 50007"
    assert fake_discord.dms(closed) == []
    assert [r.status for r in fake_discord.rejections(50007)] == [403]


async def test_missing_permissions_50013(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    quiet = fake_discord.add_channel("quiet")
    await fake_discord.set_bot_permissions(quiet, discord.Permissions(view_channel=True).value)

    refused = await fake_discord.slash(alice, quiet, "t post")
    assert refused.content == "forbidden 50013 can=False"
    assert fake_discord.channel_messages(quiet) == []

    ok = await fake_discord.slash(alice, fake_discord.channel, "t post")
    assert ok.content == "ok can=True"
    assert [m.content for m in fake_discord.channel_messages(fake_discord.channel)] == ["posted"]


async def test_buttons_edit_history_and_disabled(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    posted = await fake_discord.slash(alice, fake_discord.channel, "t counter")
    msg = posted.message
    assert [b.label for b in msg.buttons()] == ["Add", "Refuse", "Off"]
    assert msg.button("Off").disabled

    first = await fake_discord.click(alice, msg, "Add")
    assert first.type == 7 and first.message is msg
    second = await fake_discord.click(alice, msg, "counter:add")  # custom_id works too
    assert second.content == "count 2"
    assert [s.content for s in msg.edits] == ["count 0", "count 1"]
    assert fake_discord.channel_messages(fake_discord.channel) == [msg]

    refused = await fake_discord.click(alice, msg, "Refuse")
    assert refused.ephemeral and refused.content == "You are not playing at this table."
    with pytest.raises(AssertionError, match="disabled"):
        await fake_discord.click(alice, msg, "Off")
    with pytest.raises(AssertionError, match="0 buttons match"):
        await fake_discord.click(alice, msg, "Missing")


async def test_ephemeral_messages_belong_to_their_user(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    await start_bot(setup=add_test_commands)
    alice, bob = fake_discord.add_user("alice"), fake_discord.add_user("bob")
    pick = await fake_discord.slash(alice, fake_discord.channel, "t pick")
    chosen = await fake_discord.select(bob, pick.message, "pick", ["moons", "waves"])
    assert chosen.content == "picked moons+waves" and chosen.message.viewer is bob
    with pytest.raises(AssertionError, match="ephemeral"):
        await fake_discord.click(alice, chosen.message, "anything")
    with pytest.raises(AssertionError, match="no options"):
        await fake_discord.select(bob, pick.message, "pick", ["knots"])
    with pytest.raises(AssertionError, match=r"takes 1\.\.2"):
        await fake_discord.select(bob, pick.message, "pick", ["moons", "suns", "waves"])


async def test_modal_round_trip(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    pick = await fake_discord.slash(alice, fake_discord.channel, "t pick")
    opened = await fake_discord.click(alice, pick.message, "Name")
    assert opened.type == 9 and opened.modal is not None and opened.modal["title"] == "Your name"
    with pytest.raises(AssertionError, match="required"):
        await fake_discord.submit_modal(alice, opened, {})
    submitted = await fake_discord.submit_modal(alice, opened, {"Name": "Ada"})
    assert submitted.content == "hello Ada" and submitted.ephemeral


async def test_defer_then_followups(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    public = await fake_discord.slash(alice, fake_discord.channel, "t slow")
    assert public.type == 5 and public.deferred
    assert [m.content for m in public.messages] == ["", "done thinking", "and more"]
    assert public.message.loading  # never edited: Discord would still show "thinking..."
    assert "done thinking\nand more" in public.text()
    secret = await fake_discord.slash(alice, fake_discord.channel, "t slow", secret=True)
    assert all(m.ephemeral for m in secret.messages)


async def test_expired_tokens_refuse_old_edits(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    first = await fake_discord.slash(alice, fake_discord.channel, "t remember")
    edited = await fake_discord.slash(alice, fake_discord.channel, "t editold")
    assert edited.content == "edited" and first.content == "second words"

    await fake_discord.slash(alice, fake_discord.channel, "t remember")
    fake_discord.expire_tokens()
    refused = await fake_discord.slash(alice, fake_discord.channel, "t editold")
    assert refused.content == "gone 10015"
    assert fake_discord.rejections(10015)


async def test_error_handler_replies(
    fake_discord: FakeDiscord, start_bot: StartBot, error_logs: ErrorLogGuard
) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    channel = fake_discord.channel

    user = await fake_discord.slash(alice, channel, "t fail", kind="user")
    assert user.ephemeral and user.content == "There is already an open table or challenge in this channel."
    rules = await fake_discord.slash(alice, channel, "t fail", kind="rules")
    assert rules.ephemeral and rules.content == "That move belongs to another player."
    late = await fake_discord.slash(alice, channel, "t fail", kind="late")
    assert late.type == 5 and [m.content for m in late.followups] == [
        "Not yet: the table has not been idle long enough to claim."
    ]
    assert late.followups[0].ephemeral
    assert error_logs.records == []

    bug = await fake_discord.slash(alice, channel, "t fail", kind="bug")
    assert bug.ephemeral and bug.content == t("tavern.error.apology")
    logged = error_logs.take()
    assert len(logged) == 1
    assert "/t fail" in logged[0].getMessage() and str(alice.id) in logged[0].getMessage()
    assert "boom" in ErrorLogGuard.render(logged[0])


async def test_dynamic_items_survive_a_restart(
    fake_discord: FakeDiscord, start_bot: StartBot, error_logs: ErrorLogGuard
) -> None:
    first = await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    msg = (await fake_discord.slash(alice, fake_discord.channel, "t seats")).message
    assert (await fake_discord.click(alice, msg, "Seat 1")).content == "sat at 1"
    await first.close()
    assert first.is_closed()

    second = await start_bot(setup=add_test_commands)
    assert second is not first and fake_discord.identify_count == 2
    again = await fake_discord.click(alice, msg, "seat:1")
    assert again.content == "sat at 1"
    refused = await fake_discord.click(alice, msg, "Seat 0")
    assert refused.ephemeral and refused.content == "There is no such seat at this table."
    assert error_logs.records == []


async def test_guard_sees_exceptions_discord_only_logs(
    fake_discord: FakeDiscord, start_bot: StartBot, error_logs: ErrorLogGuard
) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    msg = (await fake_discord.slash(alice, fake_discord.channel, "t broken")).message
    await fake_discord.click(alice, msg, "Break", expect_reply=False)
    logged = error_logs.take()
    assert len(logged) == 1 and "Ignoring exception in view" in logged[0].getMessage()
    assert "view exploded" in ErrorLogGuard.render(logged[0])

    error_logs.emit(logged[0])
    with pytest.raises(pytest.fail.Exception, match="logged at ERROR"):
        error_logs.check()
    assert error_logs.records == []


async def test_interaction_without_answer_fails_clearly(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await start_bot(setup=add_test_commands)
    fake_discord.reply_timeout = 0.2
    alice = fake_discord.add_user("alice")
    with pytest.raises(AssertionError, match="did not answer /t silent by alice"):
        await fake_discord.slash(alice, fake_discord.channel, "t silent")
    await bot.close()
    with pytest.raises(AssertionError, match="no bot is connected"):
        await fake_discord.slash(alice, fake_discord.channel, "tavern ping")


async def test_wait_for_timer_driven_messages(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    await fake_discord.slash(alice, fake_discord.channel, "t later")
    assert fake_discord.channel_messages(fake_discord.channel) == []
    msgs = await fake_discord.wait_for(lambda: fake_discord.channel_messages(fake_discord.channel))
    assert [m.content for m in msgs] == ["your turn, a while later"]
    with pytest.raises(AssertionError, match="waiting for a second post"):
        await fake_discord.wait_for(
            lambda: len(fake_discord.channel_messages(fake_discord.channel)) > 1,
            timeout=0.05,
            what="a second post",
        )


async def test_deletes_are_recorded(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_test_commands)
    alice = fake_discord.add_user("alice")
    result = await fake_discord.slash(alice, fake_discord.channel, "t cleanup")
    assert result.message.deleted and result.content == "short-lived reply"
    assert fake_discord.channel_messages(fake_discord.channel) == []
    gone = [m for m in fake_discord.messages.values() if m.deleted]
    assert sorted(m.content for m in gone) == ["short-lived note", "short-lived reply"]
    with pytest.raises(AssertionError, match="deleted"):
        await fake_discord.click(alice, result.message, "Add")


def test_help_fields_split_long_command_lists() -> None:
    from cogs.general import command_fields

    lines = [f"`/cmd{i}` — " + "x" * 90 for i in range(30)]
    fields = command_fields(lines)
    assert len(fields) > 1 and all(len(value) <= 1024 for _, value in fields)
    assert "\n".join(value for _, value in fields).split("\n") == lines


# ------------------------------------------------------------------------------- Discord's message limits


def _button(cid: str | None = "b", label: str | None = "B", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"type": 2, "style": 1, **extra}
    if cid is not None:
        data["custom_id"] = cid
    if label is not None:
        data["label"] = label
    return data


def _row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


def _select(n: int = 3, cid: str | None = "s", **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "type": 3,
        "options": [{"label": f"o{i}", "value": f"v{i}"} for i in range(n)],
        **extra,
    }
    if cid is not None:
        data["custom_id"] = cid
    return data


def _option(**extra: Any) -> dict[str, Any]:
    return _select(1, options=[{"label": "o", "value": "v", **extra}])


def _embed(**fields: Any) -> dict[str, Any]:
    return {"type": "rich", **fields}


def _buttons(n: int) -> list[dict[str, Any]]:
    return [_button(f"b{i}") for i in range(n)]


# (at the limit, one past it, where Discord reports the error as discord.py prints it: "In <path>: ...")
LIMITS: list[Any] = [
    pytest.param({"content": "x" * 2000}, {"content": "x" * 2001}, "content", id="content 2000"),
    pytest.param(
        {"embeds": [_embed(description="d")] * 10},
        {"embeds": [_embed(description="d")] * 11},
        "embeds",
        id="10 embeds",
    ),
    pytest.param(
        {"embeds": [_embed(title="t" * 256)]},
        {"embeds": [_embed(title="t" * 257)]},
        "embeds.0.title",
        id="embed title 256",
    ),
    pytest.param(
        {"embeds": [_embed(description="d" * 4096)]},
        {"embeds": [_embed(description="d" * 4097)]},
        "embeds.0.description",
        id="embed description 4096",
    ),
    pytest.param(
        {"embeds": [_embed(fields=[{"name": "n", "value": "v"}] * 25)]},
        {"embeds": [_embed(fields=[{"name": "n", "value": "v"}] * 26)]},
        "embeds.0.fields",
        id="25 embed fields",
    ),
    pytest.param(
        {"embeds": [_embed(fields=[{"name": "n" * 256, "value": "v"}])]},
        {"embeds": [_embed(fields=[{"name": "n" * 257, "value": "v"}])]},
        "embeds.0.fields.0.name",
        id="field name 256",
    ),
    pytest.param(
        {"embeds": [_embed(fields=[{"name": "n", "value": "v" * 1024}])]},
        {"embeds": [_embed(fields=[{"name": "n", "value": "v" * 1025}])]},
        "embeds.0.fields.0.value",
        id="field value 1024",
    ),
    pytest.param(
        {"embeds": [_embed(footer={"text": "f" * 2048})]},
        {"embeds": [_embed(footer={"text": "f" * 2049})]},
        "embeds.0.footer.text",
        id="footer text 2048",
    ),
    pytest.param(
        {"embeds": [_embed(author={"name": "a" * 256})]},
        {"embeds": [_embed(author={"name": "a" * 257})]},
        "embeds.0.author.name",
        id="author name 256",
    ),
    pytest.param(
        {"embeds": [_embed(title="t" * 200, description="d" * 3800), _embed(description="d" * 2000)]},
        {"embeds": [_embed(title="t" * 200, description="d" * 3800), _embed(description="d" * 2001)]},
        "embeds",
        id="6000 characters over all embeds",
    ),
    pytest.param(
        {"components": [_row(_button(f"b{i}")) for i in range(5)]},
        {"components": [_row(_button(f"b{i}")) for i in range(6)]},
        "components",
        id="5 action rows",
    ),
    pytest.param(
        {"components": [_row(*_buttons(5))]},
        {"components": [_row(*_buttons(6))]},
        "components.0.components",
        id="5 buttons a row",
    ),
    pytest.param(
        {"components": [_row(_select()), _row(_button())]},
        {"components": [_row(_select(), _button())]},
        "components.0.components",
        id="a select is alone in its row",
    ),
    pytest.param(
        {"components": [_row(_button())]},
        {"components": [_row()]},
        "components.0.components",
        id="no empty row",
    ),
    pytest.param(
        {"components": [_row(_button("c" * 100))]},
        {"components": [_row(_button("c" * 101))]},
        "components.0.components.0.custom_id",
        id="button custom_id 100",
    ),
    pytest.param(
        {"components": [_row(_select(cid="c" * 100))]},
        {"components": [_row(_select(cid="c" * 101))]},
        "components.0.components.0.custom_id",
        id="select custom_id 100",
    ),
    pytest.param(
        {"components": [_row(_button("c"))]},
        {"components": [_row(_button(None))]},
        "components.0.components.0.custom_id",
        id="button needs a custom_id",
    ),
    pytest.param(
        {"components": [_row(_select(cid="c"))]},
        {"components": [_row(_select(cid=None))]},
        "components.0.components.0.custom_id",
        id="select needs a custom_id",
    ),
    pytest.param(
        {"components": [_row(_button("a"), _button("b")), _row(_select(cid="c"))]},
        {"components": [_row(_button("a")), _row(_select(cid="a"))]},
        "components.1.components.0.custom_id",
        id="custom_ids unique in the message",
    ),
    pytest.param(
        {"components": [_row(_button(label="l" * 80))]},
        {"components": [_row(_button(label="l" * 81))]},
        "components.0.components.0.label",
        id="button label 80",
    ),
    pytest.param(
        {"components": [_row(_button(label=None, emoji={"name": "🌙"}))]},
        {"components": [_row(_button(label=None))]},
        "components.0.components.0",
        id="button needs a label or an emoji",
    ),
    pytest.param(
        {"components": [_row({"type": 2, "style": 5, "label": "Rules", "url": "https://decktet.com"})]},
        {"components": [_row({"type": 2, "style": 5, "label": "Rules", "custom_id": "r"})]},
        "components.0.components.0.url",
        id="link button needs a url",
    ),
    pytest.param(
        {"components": [_row({"type": 2, "style": 5, "label": "Rules", "url": "https://decktet.com"})]},
        {
            "components": [
                _row({"type": 2, "style": 5, "label": "R", "url": "https://decktet.com", "custom_id": "r"})
            ]
        },
        "components.0.components.0.custom_id",
        id="link button takes no custom_id",
    ),
    pytest.param(
        {"components": [_row(_select(25))]},
        {"components": [_row(_select(26))]},
        "components.0.components.0.options",
        id="25 select options",
    ),
    pytest.param(
        {"components": [_row(_select(1))]},
        {"components": [_row(_select(0))]},
        "components.0.components.0.options",
        id="at least 1 select option",
    ),
    pytest.param(
        {"components": [_row(_option(label="l" * 100))]},
        {"components": [_row(_option(label="l" * 101))]},
        "components.0.components.0.options.0.label",
        id="option label 100",
    ),
    pytest.param(
        {"components": [_row(_option(value="v" * 100))]},
        {"components": [_row(_option(value="v" * 101))]},
        "components.0.components.0.options.0.value",
        id="option value 100",
    ),
    pytest.param(
        {"components": [_row(_option(description="d" * 100))]},
        {"components": [_row(_option(description="d" * 101))]},
        "components.0.components.0.options.0.description",
        id="option description 100",
    ),
    pytest.param(
        {"components": [_row(_select(placeholder="p" * 150))]},
        {"components": [_row(_select(placeholder="p" * 151))]},
        "components.0.components.0.placeholder",
        id="placeholder 150",
    ),
    pytest.param(
        {"components": [_row(_select(25, min_values=0, max_values=25))]},
        {"components": [_row(_select(25, min_values=0, max_values=26))]},
        "components.0.components.0.max_values",
        id="max_values 25",
    ),
    pytest.param(
        {"components": [_row(_select(25, min_values=25, max_values=25))]},
        {"components": [_row(_select(25, min_values=26, max_values=25))]},
        "components.0.components.0.min_values",
        id="min_values 25",
    ),
    pytest.param(
        {"components": [_row(_select(3, min_values=0, max_values=1))]},
        {"components": [_row(_select(3, min_values=-1, max_values=1))]},
        "components.0.components.0.min_values",
        id="min_values 0",
    ),
    pytest.param(
        {"components": [_row(_select(3, min_values=2, max_values=2))]},
        {"components": [_row(_select(3, min_values=3, max_values=2))]},
        "components.0.components.0.min_values",
        id="min_values at most max_values",
    ),
    pytest.param(
        {"components": [_row(_select(3, max_values=3))]},
        {"components": [_row(_select(3, max_values=4))]},
        "components.0.components.0.max_values",
        id="max_values at most the options",
    ),
    pytest.param(
        {"content": "hi", "allowed_mentions": {"parse": ["users"], "roles": ["1"]}},
        {"content": "hi", "allowed_mentions": {"parse": ["users"], "users": ["1"]}},
        "allowed_mentions.parse",
        id="allowed_mentions parse or list",
    ),
    pytest.param(
        {"components": [_row(_button(label=None, emoji={"name": "1\ufe0f\u20e3"}))]},
        {"components": [_row(_button(label=None, emoji={"name": "one"}))]},
        "components.0.components.0.emoji.name",
        id="button emoji is a unicode emoji",
    ),
    pytest.param(
        {"components": [_row(_select(2, options=[{"label": "a", "value": "a", "emoji": {"name": "🌙"}}]))]},
        {
            "components": [
                _row(_select(2, options=[{"label": "a", "value": "a", "emoji": {"id": "1", "name": "x"}}]))
            ]
        },
        "components.0.components.0.options.0.emoji.id",
        id="select option emoji id must exist",
    ),
]


async def _post(bot: TavernBot, channel_id: int, body: dict[str, Any]) -> discord.Message:
    """POST a raw body through the client's HTTP layer (discord.py itself refuses some, e.g. 11 embeds)."""
    params = discord.http.MultipartParameters(payload=body, multipart=None, files=None)
    data = await bot.http.send_message(channel_id, params=params)
    return discord.Message(state=bot._connection, channel=bot.get_channel(channel_id), data=data)  # type: ignore[arg-type]


@pytest.mark.parametrize(("at_limit", "over", "path"), LIMITS)
async def test_message_limits(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    at_limit: dict[str, Any],
    over: dict[str, Any],
    path: str,
) -> None:
    bot = await start_bot()
    channel = fake_discord.channel
    sent = await _post(bot, channel.id, at_limit)
    assert fake_discord.last_message(channel).id == sent.id
    assert not fake_discord.rejections()

    with pytest.raises(discord.HTTPException) as refused:
        await _post(bot, channel.id, over)
    assert (refused.value.status, refused.value.code) == (400, 50035)
    assert refused.value.text.startswith("Invalid Form Body\n")
    assert f"\nIn {path}: " in refused.value.text
    assert fake_discord.last_message(channel).id == sent.id  # nothing posted
    [rejection] = fake_discord.rejections(50035)
    assert rejection.body == over


async def test_refusals_have_discords_error_shape(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    bot = await start_bot()
    with pytest.raises(discord.HTTPException) as refused:
        await _post(bot, fake_discord.channel.id, {"content": "x" * 2001})
    assert str(refused.value) == (
        "400 Bad Request (error code: 50035): Invalid Form Body\nIn content: Must be 2000 or fewer in length."
    )
    [rejection] = fake_discord.rejections()
    assert rejection.errors == {
        "content": {
            "_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}]
        }
    }

    for empty in ({}, {"content": ""}, {"content": None, "embeds": [], "components": []}):
        with pytest.raises(discord.HTTPException) as refused:
            await _post(bot, fake_discord.channel.id, empty)
        assert (refused.value.status, refused.value.code) == (400, 50006)
        assert refused.value.text == "Cannot send an empty message"
    # an embed, or components alone, are a message
    await _post(bot, fake_discord.channel.id, {"embeds": [_embed(title="t")]})
    await _post(bot, fake_discord.channel.id, {"components": [_row(_button())]})
    # embed fields may be empty strings, as Discord accepts nowadays; only missing ones are refused
    await _post(bot, fake_discord.channel.id, {"embeds": [_embed(fields=[{"name": "", "value": ""}])]})
    with pytest.raises(
        discord.HTTPException, match=r"In embeds\.0\.fields\.0\.value: This field is required"
    ):
        await _post(bot, fake_discord.channel.id, {"embeds": [_embed(fields=[{"name": "n"}])]})


TOO_LONG = "x" * 2001


def _report(err: discord.HTTPException) -> str:
    paths = [line[3:].split(":")[0] for line in err.text.splitlines() if line.startswith("In ")]
    return f"refused {err.status} {err.code} {' '.join(paths)}".strip()


class RawView(discord.ui.View):
    """Sends whatever component payload it is given (discord.py's View would refuse 6 rows itself)."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self.raw = components

    def to_components(self) -> list[dict[str, Any]]:
        return self.raw


class LongTitle(discord.ui.Modal, title="t" * 46):
    answer: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Answer", custom_id="answer")


class Refuse(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Update", custom_id="refuse:update")
    async def update(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        try:
            await interaction.response.edit_message(content=TOO_LONG)
        except discord.HTTPException as err:
            await interaction.response.send_message(_report(err), ephemeral=True)


PATHS = (
    "reply",
    "empty",
    "rows",
    "modal",
    "followup",
    "edit",
    "emptyedit",
    "channel",
    "channeledit",
    "dm",
    "twice",
    "update",
)


def add_refusing_commands(bot: TavernBot) -> None:
    """``/r send path`` sends something Discord refuses along one path, then reports the refusal."""
    group = app_commands.Group(name="r", description="refused bodies")

    @group.command(name="send", description="send a refused body")
    @app_commands.choices(path=[app_commands.Choice(name=p, value=p) for p in PATHS])
    async def send(interaction: discord.Interaction[Any], path: str) -> None:
        response = interaction.response
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        try:
            if path == "reply":
                await response.send_message(TOO_LONG)
            elif path == "empty":
                await response.send_message()
            elif path == "rows":
                await response.send_message("rows", view=RawView([_row(_button(f"b{i}")) for i in range(6)]))
            elif path == "modal":
                await response.send_modal(LongTitle())
            elif path == "followup":
                await response.defer()
                await interaction.followup.send(TOO_LONG)
            elif path == "edit":
                await response.send_message("first words")
                await interaction.edit_original_response(content=TOO_LONG)
            elif path == "emptyedit":
                await response.defer()
                await interaction.edit_original_response(content="")
            elif path == "channel":
                await channel.send(TOO_LONG)
            elif path == "channeledit":
                note = await channel.send("short note")
                await note.edit(content=TOO_LONG)
            elif path == "dm":
                await interaction.user.send(TOO_LONG)
            elif path == "twice":
                await response.send_message("first answer")
                await discord.InteractionResponse(interaction).send_message("second answer")
            elif path == "update":
                await response.send_message("update me", view=Refuse())
                return
        except discord.HTTPException as err:
            if response.is_done():
                await interaction.followup.send(_report(err), ephemeral=True)
            else:
                await response.send_message(_report(err), ephemeral=True)

    late: list[str] = []

    @group.command(name="late", description="answer after Discord's deadline")
    async def late_answer(interaction: discord.Interaction[Any]) -> None:
        await asyncio.sleep(0.1)
        try:
            await interaction.response.send_message("too late")
        except discord.HTTPException as err:
            late.append(_report(err))

    @group.command(name="ping", description="mention people")
    async def ping(interaction: discord.Interaction[Any], first: discord.User, second: discord.User) -> None:
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        text = f"{first.mention} {second.mention} @everyone"
        await channel.send(text, allowed_mentions=discord.AllowedMentions(users=[first]))
        await interaction.response.send_message(text)

    bot.tree.add_command(group)
    bot.late_reports = late  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("path", "report"),
    [
        ("reply", "refused 400 50035 data.content"),
        ("empty", "refused 400 50006"),
        ("rows", "refused 400 50035 data.components"),
        ("modal", "refused 400 50035 data.title"),
        ("followup", "refused 400 50035 content"),
        ("edit", "refused 400 50035 content"),
        ("emptyedit", "refused 400 50006"),
        ("channel", "refused 400 50035 content"),
        ("channeledit", "refused 400 50035 content"),
        ("dm", "refused 400 50035 content"),
        ("twice", "refused 400 40060"),
    ],
)
async def test_every_path_is_checked(
    fake_discord: FakeDiscord, start_bot: StartBot, path: str, report: str
) -> None:
    await start_bot(setup=add_refusing_commands)
    alice = fake_discord.add_user("alice")
    result = await fake_discord.slash(alice, fake_discord.channel, "r send", path=path)
    assert report in result.text().splitlines()
    assert all(len(m.content) <= 2000 for m in fake_discord.messages.values())
    assert len(fake_discord.rejections()) == 1


async def test_update_and_late_answers_are_refused(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    bot = await start_bot(setup=add_refusing_commands)
    alice = fake_discord.add_user("alice")
    posted = await fake_discord.slash(alice, fake_discord.channel, "r send", path="update")
    clicked = await fake_discord.click(alice, posted.message, "Update")
    assert clicked.type == 4 and clicked.content == "refused 400 50035 data.content"
    assert posted.message.content == "update me" and posted.message.edits == []

    fake_discord.callback_deadline = 0.05
    await fake_discord.slash(alice, fake_discord.channel, "r late", expect_reply=False)
    reports = await fake_discord.wait_for(lambda: bot.late_reports, what="the late answer")  # type: ignore[attr-defined]
    assert reports == ["refused 404 10062"]


async def test_allowed_mentions_are_recorded(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    await start_bot(setup=add_refusing_commands)
    alice, bob = fake_discord.add_user("alice"), fake_discord.add_user("bob")
    result = await fake_discord.slash(alice, fake_discord.channel, "r ping", first=alice, second=bob)
    [note] = fake_discord.channel_messages(fake_discord.channel)[:1]
    assert note.allowed_mentions is not None
    assert [int(u) for u in note.allowed_mentions["users"]] == [alice.id]
    assert note.pinged_user_ids() == [alice.id] and not note.pings_everyone
    # the bot's default (nobody: a message says whom it pings) reaches the interaction reply too
    assert result.message.allowed_mentions == {"parse": []}
    assert result.message.pinged_user_ids() == []
    assert not result.message.pings_everyone


# ------------------------------------------------------------------------------------------------- threads


async def _bot_post(bot: TavernBot, channel_id: int, text: str) -> discord.Message:
    channel = bot.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel | discord.Thread)
    return await channel.send(text)


NO_MANAGE_THREADS = discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, create_public_threads=True
).value


async def test_thread_from_a_message(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    bot = await start_bot()
    channel = fake_discord.channel
    sent = await _bot_post(bot, channel.id, "a table opens")
    thread = await sent.create_thread(name="Game 1", auto_archive_duration=60)
    await fake_discord.settle()

    [fthread] = fake_discord.threads(channel)
    starter = fake_discord.last_message(channel)
    assert thread.id == sent.id == fthread.id == starter.id  # a thread shares its message's id
    assert fake_discord.thread_of(starter) is fthread and fthread.parent is channel
    assert (thread.parent_id, thread.owner_id, thread.auto_archive_duration) == (channel.id, bot.user.id, 60)  # type: ignore[union-attr]
    payload = starter.payload()
    assert payload["thread"]["id"] == str(fthread.id) and payload["flags"] & (1 << 5)
    assert fthread.payload()["type"] == 11 and fthread.payload()["parent_id"] == str(channel.id)
    cached = bot.get_channel(thread.id)  # THREAD_CREATE reached the client's cache
    assert isinstance(cached, discord.Thread) and cached.parent is bot.get_channel(channel.id)

    inside = await thread.send("your turn")
    assert [m.content for m in fake_discord.channel_messages(fthread)] == ["your turn"]
    assert [m.content for m in fake_discord.channel_messages(channel)] == ["a table opens"]
    assert inside.channel.id == thread.id
    fetched = await bot.fetch_channel(thread.id)
    assert isinstance(fetched, discord.Thread) and fetched.message_count == 1 and not fetched.archived

    with pytest.raises(discord.HTTPException) as again:
        await sent.create_thread(name="Game 1 again")
    assert (again.value.status, again.value.code) == (400, 160004)
    assert again.value.text == "A thread has already been created for this message"

    other = await _bot_post(bot, channel.id, "another table")
    for name, duration, path in (
        ("", 60, "name"),
        ("n" * 101, 60, "name"),
        ("ok", 30, "auto_archive_duration"),
    ):
        with pytest.raises(discord.HTTPException) as bad:
            await bot.http.start_thread_with_message(
                channel.id,
                other.id,
                name=name,
                auto_archive_duration=duration,  # type: ignore[arg-type]
            )
        assert (bad.value.status, bad.value.code) == (400, 50035) and f"In {path}: " in bad.value.text
    assert len(fake_discord.threads(channel)) == 1

    standalone = await bot.http.start_thread_without_message(
        channel.id, name="Lobby", auto_archive_duration=1440, type=11
    )
    assert standalone["type"] == 11 and len(fake_discord.threads(channel)) == 2


async def test_thread_permissions_come_from_the_parent(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    bot = await start_bot()
    channel = fake_discord.channel
    sent = await _bot_post(bot, channel.id, "a table opens")
    await fake_discord.set_bot_permissions(
        channel, discord.Permissions(view_channel=True, send_messages=True).value
    )
    with pytest.raises(discord.Forbidden) as refused:
        await sent.create_thread(name="Game 1")
    assert refused.value.code == 50013 and fake_discord.threads(channel) == []

    no_talk = discord.Permissions(view_channel=True, send_messages=True, create_public_threads=True).value
    await fake_discord.set_bot_permissions(channel, no_talk)
    thread = await sent.create_thread(name="Game 1")
    with pytest.raises(discord.Forbidden) as mute:
        await thread.send("hello")  # SEND_MESSAGES has no effect in threads
    assert mute.value.code == 50013

    await fake_discord.set_bot_permissions(channel, discord.Permissions(administrator=True).value)
    await thread.send("hello")
    [fthread] = fake_discord.threads(channel)
    assert [m.content for m in fake_discord.channel_messages(fthread)] == ["hello"]
    with pytest.raises(AssertionError, match="parent"):
        await fake_discord.set_bot_permissions(fthread, 0)


async def test_archived_and_locked_threads(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    bot = await start_bot()
    channel = fake_discord.channel
    await fake_discord.set_bot_permissions(channel, NO_MANAGE_THREADS)
    thread = await (await _bot_post(bot, channel.id, "table")).create_thread(name="Game")
    note = await thread.send("round 1")
    [fthread] = fake_discord.threads(channel)

    await fake_discord.archive(fthread)
    await fake_discord.settle()
    assert bot.get_channel(thread.id) is None  # THREAD_UPDATE: discord.py drops archived threads
    with pytest.raises(discord.HTTPException) as archived:
        await note.edit(content="round 1, edited")
    assert (archived.value.status, archived.value.code, archived.value.text) == (
        400,
        50083,
        "Thread is archived",
    )
    with pytest.raises(discord.HTTPException, match="Thread is archived"):
        await note.delete()
    await thread.send("round 2")  # a message unarchives an unlocked thread
    assert not fthread.archived
    await note.edit(content="round 1, edited")

    await fake_discord.archive(fthread, locked=True)
    with pytest.raises(discord.HTTPException) as locked:
        await thread.send("round 3")
    assert (locked.value.status, locked.value.code) == (400, 50083)
    with pytest.raises(discord.Forbidden) as unarchive:
        await thread.edit(archived=False)  # a locked thread needs MANAGE_THREADS
    assert unarchive.value.code == 50013 and fthread.archived

    await fake_discord.set_bot_permissions(
        channel,
        discord.Permissions(view_channel=True, manage_threads=True, send_messages_in_threads=True).value,
    )
    edited = await thread.edit(archived=False)
    assert not edited.archived and edited.locked and not fthread.archived
    await thread.send("round 3")  # a moderator may talk in a locked thread
    await fake_discord.set_bot_permissions(channel, NO_MANAGE_THREADS)
    with pytest.raises(discord.Forbidden) as still_locked:
        await thread.send("round 4")
    assert still_locked.value.code == 160005
    assert [m.content for m in fake_discord.channel_messages(fthread)] == [
        "round 1, edited",
        "round 2",
        "round 3",
    ]


async def test_deleted_thread_is_unknown(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    bot = await start_bot()
    channel = fake_discord.channel
    sent = await _bot_post(bot, channel.id, "table")
    thread = await sent.create_thread(name="Game")
    note = await thread.send("round 1")
    [fthread] = fake_discord.threads(channel)
    starter = fake_discord.last_message(channel)

    await fake_discord.delete_channel(fthread)
    await fake_discord.settle()
    assert bot.get_channel(thread.id) is None  # THREAD_DELETE reached the client
    assert fake_discord.threads(channel) == [] and fake_discord.thread_of(starter) is None
    assert fake_discord.channel_messages(fthread) == []
    for attempt in (thread.send("round 2"), note.edit(content="x"), bot.fetch_channel(thread.id)):
        with pytest.raises(discord.NotFound) as gone:
            await attempt
        assert gone.value.code == 10003
    alice = fake_discord.add_user("alice")
    with pytest.raises(AssertionError, match="deleted"):
        await fake_discord.slash(alice, fthread, "tavern ping")

    again = await sent.create_thread(name="Game, again")  # the message may start a new thread
    await again.delete()
    assert fake_discord.threads(channel) == []


async def test_member_who_left_cannot_be_dmed(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    other_guild = fake_discord.add_guild("Other Tavern")
    await start_bot(setup=add_test_commands)
    alice, bob = fake_discord.add_user("alice"), fake_discord.add_user("bob")
    await fake_discord.remove_member(fake_discord.guild, alice)
    with pytest.raises(AssertionError, match="not a member"):
        await fake_discord.slash(alice, fake_discord.channel, "tavern ping")
    sent = await fake_discord.slash(bob, fake_discord.channel, "t dm", who=alice, text="still here?")
    assert sent.content == "sent"  # alice still shares Other Tavern with the bot

    await fake_discord.remove_member(other_guild, alice)
    refused = await fake_discord.slash(bob, fake_discord.channel, "t dm", who=alice, text="hello?")
    assert refused.content == "forbidden 50007"
    assert [m.content for m in fake_discord.dms(alice)] == ["still here?"]


async def test_interactions_inside_a_thread(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    bot = await start_bot(setup=add_test_commands)
    channel = fake_discord.channel
    await (await _bot_post(bot, channel.id, "table")).create_thread(name="Game")
    [fthread] = fake_discord.threads(channel)
    alice = fake_discord.add_user("alice")

    counter = await fake_discord.slash(alice, fthread, "t counter")
    assert counter.message.channel is fthread
    sent = fake_discord._interaction_payload(fake_discord.interactions[-1])
    assert sent["channel_id"] == str(fthread.id) and sent["channel"]["type"] == 11
    assert sent["channel"]["parent_id"] == str(channel.id)
    assert sent["app_permissions"] == str(channel.bot_permissions)
    clicked = await fake_discord.click(alice, counter.message, "Add")
    assert clicked.content == "count 1"
    picked = await fake_discord.slash(alice, fthread, "t pick")
    chosen = await fake_discord.select(alice, picked.message, "pick", ["suns"])
    assert chosen.content == "picked suns"
    ok = await fake_discord.slash(alice, fthread, "t post")
    assert ok.content == "ok can=True"
    assert [m.content for m in fake_discord.channel_messages(fthread)] == ["count 1", "pick suits", "posted"]

    await fake_discord.set_bot_permissions(channel, discord.Permissions(view_channel=True).value)
    refused = await fake_discord.slash(alice, fthread, "t post")  # app_permissions are the parent's
    assert refused.content == "forbidden 50013 can=False"


async def test_fail_next_fails_one_request(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    bot = await start_bot()
    channel = fake_discord.channel
    sent = await _bot_post(bot, channel.id, "table")
    fake_discord.fail_next("POST", r"/channels/\d+/messages/\d+/threads$", 403, 50013, "Missing Permissions")
    with pytest.raises(discord.Forbidden):
        await sent.create_thread(name="Game")
    thread = await sent.create_thread(name="Game")
    note = await thread.send("summary")
    fake_discord.fail_next("PATCH", r"/messages/\d+$", 404, 10008, "Unknown Message")
    with pytest.raises(discord.NotFound) as gone:
        await note.edit(content="summary, edited")
    assert gone.value.code == 10008
    await note.edit(content="summary, edited")
    assert [(r.status, r.code) for r in fake_discord.rejections()] == [(403, 50013), (404, 10008)]


async def test_active_threads_are_synced_on_connect(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    first = await start_bot()
    sent = await _bot_post(first, fake_discord.channel.id, "table")
    thread = await sent.create_thread(name="Game")
    await first.close()

    second = await start_bot()
    synced = second.get_channel(thread.id)  # GUILD_CREATE carries the active threads
    assert isinstance(synced, discord.Thread) and synced.name == "Game"
    await fake_discord.archive(fake_discord.threads(fake_discord.channel)[0])
    await second.close()
    third = await start_bot()
    assert third.get_channel(thread.id) is None  # archived threads are not synced


async def test_member_remove_needs_the_members_intent(fake_discord: FakeDiscord) -> None:
    removed: asyncio.Queue[discord.Member] = asyncio.Queue()
    intents = discord.Intents.none()
    intents.guilds = intents.members = True
    client = discord.Client(intents=intents, guild_ready_timeout=0.01)

    @client.event
    async def on_member_remove(member: discord.Member) -> None:
        await removed.put(member)

    alice = fake_discord.add_user("alice")
    task = asyncio.create_task(client.start(FAKE_TOKEN))
    try:
        await asyncio.wait_for(client.wait_until_ready(), 5)
        await fake_discord.remove_member(fake_discord.guild, alice)
        member = await asyncio.wait_for(removed.get(), 5)
        assert member.id == alice.id and member.guild.id == fake_discord.guild.id
        guild = client.get_guild(fake_discord.guild.id)
        assert guild is not None and guild.get_member(alice.id) is None
    finally:
        await client.close()
        await asyncio.wait_for(task, 5)
