"""The REST budget of a move: panels redrawn through the players' own interactions, a table's calls sharing
posts within a short window, the board edited once for several moves, and turns pinged only to players who
are not at the table. Whole games are played by the flow benchmark's players (they click what a person
would), with the production coalescing on."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from bench import bench_flow as flow
from bot.ai import bhargage as bh_ai
from bot.edge.table.outbox import Outbox
from bot.rules import bhargage as bh
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord

WEBHOOK_EDIT = "/messages/@original"


def _outside(fake: FakeDiscord, start: int = 0) -> list[tuple[str, str]]:
    """The bot's requests that count against its global REST budget (not interaction endpoints)."""
    return [
        (method, path)
        for method, path, _ in fake.requests[start:]
        if "/interactions/" not in path and "/webhooks/" not in path
    ]


async def test_a_whole_bhargage_game_fits_the_budget_and_every_call_is_told(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, coalesce_seconds=0.2, attention_seconds=60.0))
    ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
    figures = await flow.play_bhargage(fake, bot, fake.channel, [ann, bob], 7, 61)
    assert figures.moves > 30
    assert figures.rest_outside <= figures.moves, figures.lines()  # at most one request per move
    assert sum(figures.dms.values()) == 2  # one live panel each for the whole game
    assert figures.response_edits > figures.moves  # the panels went through the players' interactions
    # Nothing was lost by waiting: every call of the game is in the channel, in order.
    table = await bot.tables.get(1)
    record = await bot.store.load_game(table.id)
    assert record is not None
    state, _ = bh.start(record.seed, 2, bh.Options.from_dict(record.options))
    expected: list[str] = []
    for action in record.actions:
        state, events = bh.apply(state, bh.parse_action(action.text))
        expected += [
            f"**{e.reason}** — {table.names[e.seat]} ({e.total_after})"
            for e in events
            if isinstance(e, bh.PointsScored)
        ]
    text = "\n".join(m.content for m in fake.channel_messages(fake.channel))
    at = 0
    for call in expected:
        found = text.find(call, at)
        assert found >= 0, f"{call!r} missing (or out of order) in the channel"
        at = found + len(call)
    # Players at the table are not pinged turn by turn: only the opening calls them.
    pings = [m for m in fake.channel_messages(fake.channel) if "your turn" in m.content]
    assert len(pings) <= 1


async def test_calls_that_wait_go_out_packed_and_the_board_once(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """Within one window, several plays make one post and no board edit; after it, both are current."""
    fake = fake_discord
    window = 0.5
    bot = await start_bot(dataclasses.replace(settings, coalesce_seconds=window, attention_seconds=60.0))
    table, players, rng = await _to_the_play(fake, bot, 3)
    await fake.wait_for(lambda: _all_told(bot, table.id, board_window_over=True), what="the board's window")
    posts, board_edits = len(fake.channel_messages(fake.channel)), _board_edits(fake)
    start = len(fake.requests)
    for _ in range(3):
        await flow._bhargage_move(table, players, rng)
    # The board's window was long over: its courier edits it once for the first play, not for each.
    assert _board_edits(fake) <= board_edits + 1
    assert len(fake.channel_messages(fake.channel)) == posts  # the calls wait for the window
    await fake.wait_for(lambda: len(fake.channel_messages(fake.channel)) > posts, what="the window's post")
    assert len(fake.channel_messages(fake.channel)) == posts + 1  # three plays, one post
    last = fake.last_message(fake.channel).content
    assert last.count(" plays **") >= 3
    assert len(_outside(fake, start)) <= 3
    await fake.wait_for(lambda: _all_told(bot, table.id), what="the board's next edit")
    assert board_edits + 1 <= _board_edits(fake) <= board_edits + 2  # caught up once its window ended
    assert f"count **{table.state.count}**" in _board(fake).content or table.state.phase is not bh.Phase.PLAY


async def test_a_player_away_from_the_table_is_pinged_and_waiting_calls_go_with_it(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    attention = 60.0  # on the bot's clock, which the test moves: a slow machine's pause is none
    bot = await start_bot(dataclasses.replace(settings, coalesce_seconds=30.0, attention_seconds=attention))
    table, players, rng = await _to_the_play(fake, bot, 3)
    await flow._bhargage_move(table, players, rng)  # a play; the next player clicked moments ago
    await fake.settle()
    waiting = table.state.to_move
    assert not any(f"<@{table.user_ids[waiting]}>, your turn" in m.content for m in _recent(fake))
    bot.clock.advance(attention * 1.5)  # the mover thinks: the one who waits has looked away
    mover = table.state.to_move
    await flow._bhargage_move(table, players, rng)
    await fake.settle()
    assert table.state.phase is bh.Phase.PLAY and table.state.to_move != mover  # the seed's play goes on
    last = fake.last_message(fake.channel).content
    assert f"<@{table.user_ids[table.state.to_move]}>, your turn" in last
    assert last.count(" plays **") >= 2  # the call that waited went out with the ping


async def test_calls_still_waiting_are_told_when_the_bot_stops(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, coalesce_seconds=60.0, attention_seconds=60.0))
    table, players, rng = await _to_the_play(fake, bot, 5)
    await flow._bhargage_move(table, players, rng)
    await fake.settle()
    text = "\n".join(m.content for m in fake.channel_messages(fake.channel))
    assert " plays **" not in text  # still waiting
    await bot.close()
    text = "\n".join(m.content for m in fake.channel_messages(fake.channel))
    assert " plays **" in text


async def _to_the_play(
    fake: FakeDiscord, bot: Any, seed: int
) -> tuple[Any, list[flow.Player], random.Random]:
    """A Bhargage table between Ann and Bob, played by the flow benchmark's players up to the first play.
    The deal is pinned too: what each test expects of the play (who moves next) must not hang on a random
    deck."""
    bot.lobbies.seed_source = lambda: seed
    ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
    players = [flow.Player(fake, u, [fake.channel]) for u in (ann, bob)]
    made = await fake.slash(ann, fake.channel, "bhargage challenge", opponent=bob, target=61)
    await fake.click(bob, made.message, "Accept")
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    rng = random.Random(seed)
    while table.state.phase is not bh.Phase.PLAY:
        await flow._quiet(fake)  # the bot's own moves first (a forced cut): the next one read is a person's
        await flow._bhargage_move(table, players, rng)
    await flow._quiet(fake)  # and the panels redrawn for the play
    return table, players, rng


async def _until(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Poll ``check`` (without settling: the bot is busy with the budget meanwhile) until it holds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out after {timeout}s waiting for {what}"
        await asyncio.sleep(0.01)


def _outbox(bot: Any, table_id: int) -> Outbox | None:
    box: Outbox | None = bot.controller.publisher.courier._outboxes.get(table_id)
    return box


def _all_told(bot: Any, table_id: int, *, board_window_over: bool = False) -> bool:
    """No call of the table waits in its outbox and its board is current (and, if asked, the board could be
    edited at once): what the tests waited a few windows for, polled instead. The summary is left out: it
    is due only every ``SUMMARY_EVERY`` windows."""
    box = _outbox(bot, table_id)
    if box is None:
        return True
    courier = bot.controller.publisher.courier
    over = not board_window_over or box.board_due(courier.window()) <= courier.now()
    # Nothing in flight either: the courier marks the board current before its edit goes, on room it holds.
    return not box.messages and not box.board_dirty and over and bot.governor._flying == 0


def _calls_due(bot: Any, table_id: int) -> bool:
    """The table's waiting calls are past their window: their courier is after room in the budget."""
    box = _outbox(bot, table_id)
    courier = bot.controller.publisher.courier
    return box is not None and bool(box.messages) and box.since + courier.window() <= courier.now()


def _board(fake: FakeDiscord) -> Any:
    return next(m for m in fake.channel_messages(fake.channel) if m.content.startswith("**Bhargage** ("))


def _board_edits(fake: FakeDiscord) -> int:
    return len(_board(fake).edits)


def _recent(fake: FakeDiscord) -> list[Any]:
    return fake.channel_messages(fake.channel)[-2:]


async def test_a_move_never_waits_behind_its_tables_telling_for_the_budget(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """With the global budget spent for seconds ahead, a table's courier waits for room without holding
    the table: the next move is answered at once, and the calls go out in order once there is room."""
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, coalesce_seconds=0.2, attention_seconds=60.0))
    table, players, rng = await _to_the_play(fake, bot, 3)
    await fake.wait_for(lambda: _all_told(bot, table.id), what="everything so far told")
    elsewhere = bot.get_partial_messageable(fake.add_channel("elsewhere").id)
    bot.governor.per_second = 1
    await fake.wait_for(lambda: bot.governor.load() == 0, what="the last second's requests out of the window")
    flood = [asyncio.create_task(elsewhere.send(f"news {n}")) for n in range(8)]  # eight seconds of budget
    await asyncio.sleep(0.05)
    answered_in: list[float] = []
    for _ in range(2):
        seat = bh.waiting_for(table.state)[0]
        action = bh_ai.choose(bh.view(table.state, seat), rng, "hard")
        assert isinstance(action, bh.Play)
        panel = players[seat].panel()
        button = next(
            b.custom_id
            for b in panel.buttons()
            if flow._verb(b.custom_id) == "play" and flow._arg(b.custom_id) == str(action.card.index)
        )
        result = await fake.click(players[seat].user, panel, button or "", settle=False)
        while result.interaction.first_reply_at is None:  # the deferred press's answer: the move is in
            await asyncio.sleep(0.01)
        answered_in.append(result.interaction.first_reply_at - result.interaction.sent_at)
        # The play's calls are due: their courier waits for room meanwhile.
        await _until(lambda: _calls_due(bot, table.id), "the play's calls due")
    assert max(answered_in) < 1.0, answered_in  # not the seconds the courier's post waits for the budget
    bot.governor.per_second = 45  # room again: what waits goes
    await asyncio.gather(*flood)
    await fake.wait_for(lambda: _all_told(bot, table.id), timeout=10, what="the calls that waited told")
    text = "\n".join(m.content for m in fake.channel_messages(fake.channel))
    plays = [line for line in text.splitlines() if " plays **" in line]
    assert len(plays) >= 2 and text.index(plays[-2]) < text.index(plays[-1])


async def test_a_rematch_asks_nothing_of_the_global_budget_before_its_answer(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """Rematch, pressed after a restart (the bot knows nobody yet): the challenge goes out as the press's
    answer with the opponent as the table knows them, never behind a user lookup that waits its turn in the
    global budget (under load, that turn came after Discord's 3 s and the press failed)."""
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, coalesce_seconds=0.0))
    ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
    await flow.play_bhargage(fake, bot, fake.channel, [ann, bob], 7, 31)
    await fake.settle()
    await bot.close()
    await start_bot(settings)
    last = next(
        m
        for m in reversed(fake.channel_messages(fake.channel))
        if any(b.label == "Rematch" for b in m.buttons())
    )
    start = len(fake.requests)
    rematch = await fake.click(bob, last, "Rematch")
    assert ann.mention in rematch.content and "to 31" in rematch.content
    assert not [path for method, path, _ in fake.requests[start:] if "/users/" in path and method == "GET"]


@pytest.mark.parametrize("game", ["bhargage", "deluxe"])
async def test_a_table_opens_with_its_thread_and_one_dm_per_player(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, game: str
) -> None:
    """The opening message becomes the board through the opening press, the thread is opened from it, and
    the opening calls ping nobody whose hand just came by DM (the DM rang), so they wait for the next calls:
    of the global budget a table's opening spends its thread and one DM per player (and a DM channel for a
    player the bot has never written to; these players are known)."""
    fake = fake_discord
    bot = await start_bot(
        dataclasses.replace(settings, coalesce_seconds=5.0, attention_seconds=60.0, threads=True)
    )
    users = [fake.add_user(n) for n in ("Ann", "Bob", "Cy")[: 2 if game == "bhargage" else 3]]
    for user in users:
        await bot.tables.store.set_dm_channel(user.id, fake.dm_channel(user).id)
    start = len(fake.requests)
    if game == "bhargage":
        made = await fake.slash(users[0], fake.channel, "bhargage challenge", opponent=users[1], target=61)
        opened = await fake.click(users[1], made.message, "Accept")
    else:
        made = await fake.slash(users[0], fake.channel, "deluxe create")
        for user in users[1:]:
            await fake.click(user, made.message, "Join")
        start = len(fake.requests)
        opened = await fake.click(users[0], made.message, "Start")
    await fake.settle()
    spent = _outside(fake, start)
    board = bot.tables.adapter(game).title
    assert opened.message is made.message and opened.message.content.startswith(f"**{board}")  # the board
    [thread] = fake.threads(fake.channel)
    assert spent[0] == ("POST", f"/api/v10/channels/{fake.channel.id}/messages/{made.message.id}/threads")
    dms = {fake.dm_channel(u).id for u in users}
    assert sorted(spent[1:]) == sorted(("POST", f"/api/v10/channels/{c}/messages") for c in dms)
    assert fake.channel_messages(thread) == []  # the opening calls wait for the next ones
