"""A table people can follow, through the real discord.py client: a thread per game opened from its board,
which stands in the channel as the game's one message there, one live panel per player, and what happens
when the thread, the board or a player goes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import discord
import pytest

from bot.edge.app import TavernBot
from bot.games import Table
from bot.rules import bhargage as bh
from bot.settings import Settings, SettingsError, settings_from_env
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.test_bhargage_discord import (
    BOARD_HEAD,
    act_with_panel,
    board,
    challenge,
    enabled,
    step,
    waiting_line,
)

THREADS_REFUSED = "I can't open a thread for this game here"  # the start of the English notice


@pytest.fixture
def threaded(settings: Settings) -> Settings:
    return dataclasses.replace(settings, threads=True)


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


@dataclasses.dataclass
class Game:
    """A bot on the fake with alice and bob at a Bhargage table in its own thread, opened from its board
    (the challenge, in the channel)."""

    bot: TavernBot
    alice: FakeUser
    bob: FakeUser
    board: FakeMessage
    thread: FakeChannel
    table: Table


async def game_in_a_thread(fake: FakeDiscord, start_bot: StartBot, settings: Settings) -> Game:
    bot = await start_bot(settings)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    posted, thread = await start(fake, alice, bob)
    table = await bot.tables.table_for_channel(thread.id)
    assert table is not None
    return Game(bot, alice, bob, posted, thread, table)


async def test_a_game_in_its_own_thread_with_one_live_panel_each(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    fake = fake_discord
    game = await game_in_a_thread(fake, start_bot, threaded)
    bot, alice, bob, thread, posted = game.bot, game.alice, game.bob, game.thread, game.board
    # The channel keeps one message: the challenge, now the game's board, heading its thread (no summary).
    assert fake.channel_messages(fake.channel) == [posted] and fake.thread_of(posted) is thread
    assert posted.content.startswith(BOARD_HEAD) and "hand 1" in posted.content and "alice" in posted.content
    assert posted.buttons() == [] and game.table.meta.summary is None
    assert "Waiting for alice and bob" in waiting_line(fake, fake.channel)
    # The table plays in the thread: the opening calls, pinging nobody (each hand came by DM, which rang).
    opening = "\n".join(m.content for m in fake.channel_messages(thread))
    assert "Cut for the deal" in opening and "**Hand 1**" in opening
    assert alice.mention not in opening and bob.mention not in opening
    table = await bot.tables.table_for_channel(thread.id)
    assert table is not None and table is await bot.tables.table_for_channel(fake.channel.id)
    saw_context = False
    hands_seen = 1
    while (await step(fake, fake.channel, [alice, bob])) is not None:
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
    # One DM per player for the whole game, every hand dealt on it; every panel is closed at the end.
    assert hands_seen > 1
    for user in (alice, bob):
        assert len(fake.dms(user)) == 1
        assert live_panels(fake, user) == []
    # Still one channel message, the board, now with the result; the thread has the Rematch.
    assert fake.channel_messages(fake.channel) == [posted] and "Game over" in waiting_line(fake, fake.channel)
    last = fake.last_message(thread)
    assert "🏆" in last.content and "Rematch" in [b.label for b in last.buttons()]

    # A rematch plays on in the same thread, its board its own message, with a summary in the channel.
    rematch = await fake.click(bob, last, "Rematch")
    assert rematch.message.channel is thread and alice.mention in rematch.content
    accepted = await fake.click(alice, rematch.message, "Accept")
    again = await bot.tables.table_for_channel(thread.id)
    assert again is not None and again.id != table.id and again.channel_id == thread.id
    assert len(fake.threads(fake.channel)) == 1
    assert board(fake, thread) is rematch.message and accepted.message is rematch.message
    channel_now = fake.channel_messages(fake.channel)
    assert len(channel_now) == 2 and thread.mention in channel_now[-1].content
    assert again.meta.summary == (fake.channel.id, channel_now[-1].id)
    assert "Waiting for" in waiting_line(fake, thread)


async def test_threads_refused_fall_back_to_the_channel_and_say_so_once(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(threaded)
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))

    async def refused(a: FakeUser, b: FakeUser, channel: FakeChannel) -> FakeMessage:
        """The challenge accepted: it becomes the board, the refusal note put first on it."""
        posted = (await fake.slash(a, channel, "bhargage challenge", opponent=b)).message
        accepted = await fake.click(b, posted, "Accept")
        assert accepted.message is posted and posted.content.startswith(THREADS_REFUSED)
        assert f"\n{BOARD_HEAD}" in posted.content and "Waiting for" in posted.content
        return posted

    # Discord refuses the thread (403): the game is played in the channel and its board says so.
    fake.fail_next("POST", r"/messages/\d+/threads$", 403, 50013, "Missing Permissions")
    posted = await refused(alice, bob, fake.channel)
    assert fake.thread_of(posted) is None
    assert sum(THREADS_REFUSED in m.content for m in fake.channel_messages(fake.channel)) == 1
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    await move(fake, table, [alice, bob])  # the board plays on in the channel, the note said once
    assert board(fake, fake.channel) is posted and THREADS_REFUSED not in posted.content
    # Without the thread permissions the bot does not even try.
    other = fake.add_channel("no-threads")
    perms = discord.Permissions(view_channel=True, send_messages=True, embed_links=True)
    await fake.set_bot_permissions(other, perms.value)
    posted = await refused(carol, dave, other)
    assert fake.threads(other) == []
    assert sum(THREADS_REFUSED in m.content for m in fake.channel_messages(other)) == 1


async def test_a_new_hand_redraws_the_same_panel(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    """Never a new DM where an edit serves: the next hand is dealt on the panel the player already has."""
    fake = fake_discord
    game = await game_in_a_thread(fake, start_bot, threaded)
    bot, alice, bob, thread = game.bot, game.alice, game.bob, game.thread
    table = await bot.tables.table_for_channel(thread.id)
    assert table is not None
    while table.state.hand_no == 1:
        await step(fake, fake.channel, [alice, bob])  # the board heads the thread, in the channel
    for user in (alice, bob):
        [only] = fake.dms(user)
        assert enabled(only) and "hand 2**" in only.content


async def test_thread_deleted_mid_game_goes_on_in_the_channel(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    fake = fake_discord
    game = await game_in_a_thread(fake, start_bot, threaded)
    bot, alice, bob, thread, posted = game.bot, game.alice, game.bob, game.thread, game.board
    for _ in range(3):
        await step(fake, fake.channel, [alice, bob])
    await fake.delete_channel(thread)
    table = await bot.tables.get(1)
    await move(fake, table, [alice, bob])  # from the DM panel: the players' panels don't need the thread
    assert table.meta.thread_id is None
    notice = [m for m in fake.channel_messages(fake.channel) if "thread is gone" in m.content]
    assert len(notice) == 1 and alice.mention in notice[0].content and bob.mention in notice[0].content
    while (await step(fake, fake.channel, [alice, bob])) is not None:
        pass
    assert table.status == "finished" and "🏆" in fake.last_message(fake.channel).content
    # The board stayed where it was, in the channel: the same message, kept current to the end.
    assert board(fake, fake.channel) is posted and table.meta.board_id == posted.id
    assert "Game over" in waiting_line(fake, fake.channel)


async def test_thread_archived_mid_game_is_reopened(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    fake = fake_discord
    game = await game_in_a_thread(fake, start_bot, threaded)
    bot, alice, bob, thread = game.bot, game.alice, game.bob, game.thread
    for _ in range(3):
        await step(fake, fake.channel, [alice, bob])
    await fake.archive(thread)
    await step(fake, fake.channel, [alice, bob])
    assert not thread.archived
    table = await bot.tables.get(1)
    assert table.meta.thread_id == thread.id
    assert not [m for m in fake.channel_messages(fake.channel) if "thread is gone" in m.content]


async def test_board_heading_the_thread_deleted_is_posted_again(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    """The board heads the thread, in the channel; a moderator deletes it: the game goes on in its thread,
    with a new board there, kept current from then on."""
    fake = fake_discord
    game = await game_in_a_thread(fake, start_bot, threaded)
    bot, alice, bob, thread, posted = game.bot, game.alice, game.bob, game.thread, game.board
    posted.deleted = True  # a moderator deleted it
    table = await bot.tables.get(1)
    await move(fake, table, [alice, bob])
    again = board(fake, thread)
    assert again is not posted and table.meta.board_id == again.id and table.meta.thread_id == thread.id
    while table.state.hand_no == 1:
        await step(fake, thread, [alice, bob])
    assert board(fake, thread) is again and "hand 2" in again.content
    assert fake.channel_messages(fake.channel) == [] and table.meta.summary is None


async def test_a_player_who_left_the_server(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    """bob leaves mid-game: nothing is lost, he is told why the bot can't reach him, and alice can claim."""
    fake = fake_discord
    game = await game_in_a_thread(
        fake, start_bot, dataclasses.replace(threaded, nudge_minutes=1, claim_minutes=3)
    )
    bot, alice, bob, thread = game.bot, game.alice, game.bob, game.thread
    table = await bot.tables.get(1)
    await fake.remove_member(fake.guild, bob)
    await move(fake, table, [alice, bob])  # alice lays away; the table now waits for bob alone
    assert table.waiting_for() == (1,)
    bot.clock.advance(4 * 60)
    await bot.controller.timers.run()
    claims = [m for m in fake.channel_messages(thread) if "claim" in m.content.lower() and m.buttons()]
    assert claims and alice.mention in claims[-1].content
    button = next(b for b in claims[-1].buttons() if b.style == discord.ButtonStyle.danger.value)
    await fake.click(alice, claims[-1], button.label or "")
    assert table.status == "finished" and table.state.winner == 0


async def test_restart_mid_game_keeps_the_thread_and_the_live_panels(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings, seeded: None
) -> None:
    fake = fake_discord
    first = await start_bot(threaded)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, thread = await start(fake, alice, bob)
    for _ in range(5):
        await step(fake, fake.channel, [alice, bob])  # the board heads the thread, in the channel
    panels = {u.name: live_panels(fake, u) for u in (alice, bob)}
    await first.close()
    second = await start_bot(threaded)
    table = await second.tables.table_for_channel(thread.id)
    assert table is not None and table.meta.thread_id == thread.id
    while (await step(fake, fake.channel, [alice, bob])) is not None:
        pass
    assert table.status == "finished"
    # The same DM panels were redrawn after the restart (no new DM until the next hand).
    for user in (alice, bob):
        if panels[user.name]:
            assert panels[user.name][-1] in fake.dms(user)
    assert len(fake.channel_messages(fake.channel)) == 1


async def test_practice_opens_its_thread_and_a_closed_dm_panel_stays_live(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings
) -> None:
    """Practice against the bot in a thread; alice's DMs are closed, so her Show my hand panel is her live
    panel: it is redrawn as the bot plays, and an older one loses its controls."""
    fake = fake_discord
    bot = await start_bot(threaded)
    alice = fake.add_user("alice", dms_closed=True)
    opened = await fake.slash(alice, fake.channel, "bhargage practice", level="easy", target=31)
    thread = fake.thread_of(opened.message)  # the practice command's answer is the board, heading the thread
    assert thread is not None and opened.message.content.startswith(BOARD_HEAD)
    assert fake.channel_messages(fake.channel) == [opened.message]
    table = await bot.tables.table_for_channel(thread.id)
    assert table is not None
    await bot.controller.computer.idle()
    await fake.settle()
    shows = [
        m for m in fake.channel_messages(thread) if any(":hand:" in (b.custom_id or "") for b in m.buttons())
    ]
    assert shows, "no Show my hand for alice"
    first = await fake.click(alice, shows[-1], shows[-1].buttons()[0].custom_id or "")
    second = await fake.click(alice, shows[-1], shows[-1].buttons()[0].custom_id or "")
    assert first.message.buttons() == [] and first.message.selects() == []  # replaced: no controls
    panel = second.message
    await act_with_panel(fake, alice, panel)  # her discard; the bot discards too
    await bot.controller.computer.idle()
    await fake.settle()
    state: bh.State = table.state
    assert state.phase is not bh.Phase.DISCARD
    # The panel was redrawn without a new press: the cut or the play is on it now.
    assert "You laid away" in panel.content or "Up-card" in panel.content
    if state.phase is bh.Phase.CUT and state.non_dealer == 0:
        assert "Cut" in [b.label for b in panel.buttons()]


async def test_a_deluxe_lobby_opens_its_thread(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(threaded)
    bot.lobbies.seed_source = lambda: 5
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    lobby = (await fake.slash(ann, fake.channel, "deluxe create", target=30)).message
    await fake.click(bob, lobby, "Join")
    await fake.click(ann, lobby, "Start")
    thread = fake.thread_of(lobby)  # the lobby is the board now, heading the thread
    assert thread is not None and lobby.content.startswith("**Bharg Deluxe") and "Hand 1" in lobby.content
    assert "Waiting for **bob**" in lobby.content
    assert [b.label for b in lobby.buttons()] == ["Show my hand"]  # the lobby's own buttons are gone
    assert fake.channel_messages(fake.channel) == [lobby]
    # The opening call pings nobody: bob's hand came by DM, which rang for him.
    [call] = fake.channel_messages(thread)
    assert "**Hand 1** is dealt" in call.content and "**bob** goes first" in call.content
    assert bob.mention not in call.content and ann.mention not in call.content
    for user in (ann, bob):
        assert len(fake.dms(user)) == 1
    assert sum(bool(live_panels(fake, u)) for u in (ann, bob)) == 1  # only the player to move has controls


async def test_a_server_can_turn_threads_off(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings
) -> None:
    fake = fake_discord
    await start_bot(threaded)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    shown = await fake.slash(fake.owner, fake.channel, "tavern-admin settings", threads=False)
    assert "**Threads**: off" in shown.content
    posted = await challenge(fake, alice, bob)
    assert fake.threads(fake.channel) == [] and THREADS_REFUSED not in posted.content
    assert "Waiting for" in waiting_line(fake, fake.channel)


def test_the_threads_setting_reads_on_and_off(tmp_path: Path) -> None:
    env = {"DISCORD_TOKEN": "x", "TAVERN_DB_PATH": str(tmp_path / "db.sqlite3")}
    assert settings_from_env(env).threads is True
    assert settings_from_env({**env, "TAVERN_THREADS": "off"}).threads is False
    assert settings_from_env({**env, "TAVERN_THREADS": "true"}).threads is True
    with pytest.raises(SettingsError, match="TAVERN_THREADS"):
        settings_from_env({**env, "TAVERN_THREADS": "maybe"})


async def test_board_asked_in_the_channel_points_to_the_thread(
    fake_discord: FakeDiscord, start_bot: StartBot, threaded: Settings
) -> None:
    fake = fake_discord
    await start_bot(threaded)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    _, thread = await start(fake, alice, bob)
    here = await fake.slash(alice, fake.channel, "bhargage board")
    assert here.ephemeral and thread.mention in here.content and "Waiting for" in here.content
    assert len(fake.channel_messages(fake.channel)) == 1
    there = await fake.slash(alice, thread, "bhargage board")
    assert not there.ephemeral and there.message.channel is thread
