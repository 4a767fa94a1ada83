"""The expert computer player at a table, through the real discord.py client and the fake Discord: every one
of its decisions is made in the thinking process (never on the bot's event loop) and is exactly what
``choose(view, rng, "expert")`` gives for the table's seed, so a game replays alike; with the thinking process
stopped, the expert plays the hard player's choice within its budget and the game goes on."""

from __future__ import annotations

import contextlib
import os
import random
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.ai import cribbage as ai
from bot.ai import cribbage_why as why
from bot.base import metrics
from bot.games.seats import level_of
from bot.render import cribbage_coach as coach
from bot.rules import cribbage as C
from bot.services.thinking import THINKING
from tests.conftest import StartBot, make_settings
from tests.fakediscord import FakeDiscord
from tests.test_ai_discord import live_dm, settle
from tests.test_cribbage_discord import AGAINST_THE_BOT_LURCH, Players, boot


def sample(name: str) -> float:
    return float(metrics.REGISTRY.get_sample_value(name) or 0.0)


async def test_an_expert_thinks_every_move_in_its_process_and_the_game_replays_alike(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, AGAINST_THE_BOT_LURCH)
    ann = fake.add_user("ann")
    thought_before = sample("tavern_expert_seconds_count")
    fell_before = sample("tavern_expert_fell_back_total")
    opened = await fake.slash(ann, fake.channel, "cribbage practice", level="expert", target=61)
    assert not opened.ephemeral and "Bot (expert)" in opened.message.content
    await settle(fake, bot)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.names == ("ann", "Bot (expert)")
    bot_seat = table.seat_of(table.user_ids[1])
    assert level_of(table.user_ids[bot_seat]) == "expert"
    await Players(fake, bot, table, [ann]).play_out()

    record = await bot.store.load_game(table.id)
    assert record is not None
    state, _ = C.start(record.seed, 2, C.Options.from_dict(record.options))
    decided = 0
    for seq, act in enumerate(record.actions):
        action = C.parse_action(act.text)
        if act.seat == bot_seat:
            view = C.view(state, bot_seat)
            assert action == ai.choose(view, random.Random(f"{record.seed}:{seq}:{bot_seat}"), "expert")
            decided += 1
        state, _ = C.apply(state, action)
    assert decided > 10
    assert sample("tavern_expert_seconds_count") - thought_before == decided
    assert sample("tavern_expert_fell_back_total") == fell_before
    assert THINKING.pids() and os.getpid() not in THINKING.pids()


@pytest.fixture
def stopped_thinking() -> Iterator[list[int]]:
    """The thinking process, stopped by the test and continued at its end whatever happened."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


async def test_with_the_thinking_process_stopped_the_expert_plays_the_hard_choice_in_its_budget(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path, stopped_thinking: list[int]
) -> None:
    fake = fake_discord
    bot = await start_bot(
        make_settings(tmp_path, expert_seconds=0.2), extensions=["cogs.general", "cogs.cribbage"]
    )
    bot.lobbies.seed_source = lambda: AGAINST_THE_BOT_LURCH
    await THINKING.start()
    for pid in THINKING.pids():
        os.kill(pid, signal.SIGSTOP)
        stopped_thinking.append(pid)
    fell_before = sample("tavern_expert_fell_back_total")
    ann = fake.add_user("ann")
    await fake.slash(ann, fake.channel, "cribbage practice", level="expert", target=61)
    await settle(fake, bot)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    players = Players(fake, bot, table, [ann])
    hinted = False
    for _ in range(40):
        if sample("tavern_expert_fell_back_total") - fell_before >= 3 and hinted:
            break
        state: C.State = table.state
        if not hinted and state.phase is C.Phase.PLAY and state.to_move == table.seat_of(ann.id):
            # The coach, too, gives the hard player's weighing when the expert has no answer in time.
            view = C.view(state, state.to_move)
            panel = live_dm(fake, ann)
            hint = next(b.custom_id for b in panel.buttons() if b.custom_id and b.custom_id.endswith(":hint"))
            said = await fake.click(ann, panel, hint)
            advice = ai.play_advice(view)
            assert advice is not None
            hard = coach.play_hint(advice, why.play_why(view, advice), state.count).text
            assert said.content == f"{hard}\n-# The hard player's weighing: the expert had no answer in time."
            hinted = True
        await players.move()
    assert sample("tavern_expert_fell_back_total") - fell_before >= 3 and hinted
    bot_seat = 1 - table.seat_of(ann.id)
    record = await bot.store.load_game(table.id)
    assert record is not None
    state, _ = C.start(record.seed, 2, C.Options.from_dict(record.options))
    for seq, act in enumerate(record.actions):
        action = C.parse_action(act.text)
        if act.seat == bot_seat:
            view = C.view(state, bot_seat)
            assert action == ai.choose(view, random.Random(f"{record.seed}:{seq}:{bot_seat}"), "hard")
        state, _ = C.apply(state, action)
    assert table.status == "active"
