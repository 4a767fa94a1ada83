"""A table people can follow, through the real discord.py client: a thread per game with one summary in
the channel, one live panel per player, and what happens when the thread, the summary or a player goes."""

from __future__ import annotations

import dataclasses

import discord
import pytest

from bot.controller import THREADS_REFUSED
from bot.rules import bhargage as bh
from bot.settings import Settings
from bot.tables import Table
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.test_bhargage_discord import SEED, act_with_panel, challenge, enabled, step, waiting_line


@pytest.fixture
def threaded(settings: Settings) -> Settings:
    return dataclasses.replace(settings, threads=True)


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.tables.secrets.randbits", lambda bits: SEED)


def live_panels(fake: FakeDiscord, user: FakeUser) -> list[FakeMessage]:
    return [m for m in fake.dms(user) if enabled(m)]


async def move(fake: FakeDiscord, table: Table, users: list[FakeUser]) -> None:
    """One move by whoever the table waits for, from their own live panel."""
    user = users[table.waiting_for()[0]]
    panel = live_panels(fake, user)[-1]
    if table.state.phase is bh.Phase.CUT:
        await fake.click(user, panel, "Cut")
    else:
        await act_with_panel(fake, user, panel)


async def start(fake: FakeDiscord, a: FakeUser, b: FakeUser) -> tuple[FakeMessage, FakeChannel]:
    posted = await challenge(fake, a, b)
    thread = fake.thread_of(posted)
    assert thread is not None, "the game opened no thread"
    return posted, thread


async def test_a_game_in_its_own_thread_with_one_live_panel_each(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot(threaded)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    summary, thread = await start(fake, alice, bob)
    # The channel keeps one message: the challenge, now the game's summary with a link to its thread.
    assert fake.channel_messages(fake.channel) == [summary]
    assert thread.mention in summary.content and "alice" in summary.content and "Hand 1" in summary.content
    assert summary.buttons() == []
    # The table lives in the thread: the board and the opening, the ping for both discards.
    assert "Waiting for" in waiting_line(fake, thread)
    table = bot.tables.table_for_channel(thread.id)
    assert table is not None and table is bot.tables.table_for_channel(fake.channel.id)
    saw_context = False
    hands_seen = 1
    while (await step(fake, thread, [alice, bob])) is not None:
        for user in (alice, bob):
            assert len(live_panels(fake, user)) <= 1, f"{user.name} has more than one live panel"
        state: bh.State = table.state
        if state.phase is bh.Phase.PLAY and state.pile and table.status == "active":
            mover = (alice, bob)[state.to_move]
            other = table.names[1 - state.to_move]
            panel = live_panels(fake, mover)[-1]
            if any(s != state.to_move for s, _ in state.pile):
                # The panel carries the table: the pile with suits, the count, the opponent's last card.
                assert "Play: " in panel.content and f"count **{state.count}**" in panel.content
                assert f"{other}'s last card:" in panel.content and "to 31" in panel.content
                saw_context = True
        hands_seen = max(hands_seen, table.state.hand_no)
    assert saw_context
    assert table.status == "finished"
    # One new DM per hand per player; every panel is closed at the end.
    for user in (alice, bob):
        assert len(fake.dms(user)) == hands_seen
        assert live_panels(fake, user) == []
    # Still one channel message, now with the result; the thread has the Rematch.
    assert fake.channel_messages(fake.channel) == [summary] and "🏆" in summary.content
    last = fake.last_message(thread)
    assert "🏆" in last.content and "Rematch" in [b.label for b in last.buttons()]

    # Rematch continues in the same thread, with a new summary in the channel.
    rematch = await fake.click(bob, last, "Rematch")
    assert rematch.message.channel is thread and alice.mention in rematch.content
    await fake.click(alice, rematch.message, "Accept")
    again = bot.tables.table_for_channel(thread.id)
    assert again is not None and again.id != table.id and again.channel_id == thread.id
    assert len(fake.threads(fake.channel)) == 1
    channel_now = fake.channel_messages(fake.channel)
    assert len(channel_now) == 2 and thread.mention in channel_now[-1].content
    assert "Waiting for" in waiting_line(fake, thread)


async def test_threads_refused_fall_back_to_the_channel_and_say_so_once(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings
) -> None:
    fake = fake_discord
    await start_bot(threaded)
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    # Discord refuses the thread (403): the game is played in the channel and the start message says so.
    fake.fail_next("POST", r"/messages/\d+/threads$", 403, 50013, "Missing Permissions")
    posted = await challenge(fake, alice, bob)
    assert fake.thread_of(posted) is None and THREADS_REFUSED in posted.content
    assert sum(THREADS_REFUSED in m.content for m in fake.channel_messages(fake.channel)) == 1
    assert "Waiting for" in waiting_line(fake, fake.channel)
    # Without the thread permissions the bot does not even try.
    other = fake.add_channel("no-threads")
    perms = discord.Permissions(view_channel=True, send_messages=True, embed_links=True)
    await fake.set_bot_permissions(other, perms.value)
    posted = await challenge(fake, carol, dave, channel=other)
    assert fake.threads(other) == [] and THREADS_REFUSED in posted.content
    assert "Waiting for" in waiting_line(fake, other)


async def test_replaced_panels_have_no_controls(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot(threaded)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, thread = await start(fake, alice, bob)
    table = bot.tables.table_for_channel(thread.id)
    assert table is not None
    while table.state.hand_no == 1:
        await step(fake, thread, [alice, bob])
    for user in (alice, bob):
        first, second = fake.dms(user)
        assert first.buttons() == [] and first.selects() == []  # hand 1's panel lost its controls
        assert enabled(second) and "hand 2**" in second.content


async def test_thread_deleted_mid_game_goes_on_in_the_channel(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot(threaded)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    summary, thread = await start(fake, alice, bob)
    for _ in range(3):
        await step(fake, thread, [alice, bob])
    await fake.delete_channel(thread)
    table = await bot.tables.get(1)
    await move(fake, table, [alice, bob])  # from the DM panel: the players' panels don't need the thread
    assert table.meta.thread_id is None
    notice = [m for m in fake.channel_messages(fake.channel) if "thread is gone" in m.content]
    assert len(notice) == 1 and alice.mention in notice[0].content and bob.mention in notice[0].content
    while (await step(fake, fake.channel, [alice, bob])) is not None:
        pass
    assert table.status == "finished" and "🏆" in fake.last_message(fake.channel).content
    assert "🏆" in summary.content


async def test_thread_archived_mid_game_is_reopened(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot(threaded)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, thread = await start(fake, alice, bob)
    for _ in range(3):
        await step(fake, thread, [alice, bob])
    await fake.archive(thread)
    await step(fake, thread, [alice, bob])
    assert not thread.archived
    table = await bot.tables.get(1)
    assert table.meta.thread_id == thread.id
    assert not [m for m in fake.channel_messages(fake.channel) if "thread is gone" in m.content]


async def test_summary_deleted_is_posted_again(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot(threaded)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    summary, thread = await start(fake, alice, bob)
    summary.deleted = True  # a moderator deleted it
    table = await bot.tables.get(1)
    while table.state.hand_no == 1:
        await step(fake, thread, [alice, bob])
    again = fake.channel_messages(fake.channel)
    assert len(again) == 1 and again[0] is not summary and thread.mention in again[0].content
    assert "Hand 2" in again[0].content and table.meta.summary == (fake.channel.id, again[0].id)


async def test_a_player_who_left_the_server(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    """bob leaves mid-game: nothing is lost, he is told why the bot can't reach him, and alice can claim."""
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(threaded, nudge_minutes=1, claim_minutes=3))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, thread = await start(fake, alice, bob)
    table = await bot.tables.get(1)
    await fake.remove_member(fake.guild, bob)
    await move(fake, table, [alice, bob])  # alice lays away; the table now waits for bob alone
    assert table.waiting_for() == (1,)
    bot.clock.advance(4 * 60)
    await bot.controller.run_timers()
    claims = [m for m in fake.channel_messages(thread) if "claim" in m.content.lower() and m.buttons()]
    assert claims and alice.mention in claims[-1].content
    button = next(b for b in claims[-1].buttons() if b.style == discord.ButtonStyle.danger.value)
    await fake.click(alice, claims[-1], button.label or "")
    assert table.status == "finished" and table.state.winner == 0
