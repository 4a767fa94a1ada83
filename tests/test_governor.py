"""The global REST budget (bot/edge/governor.py) through the real discord.py client and the fake Discord,
which answers a global 429 past ``global_limit`` requests a second as Discord does: a burst stays within the
budget, what a player waits for goes first, an edit replaced by a newer one of the same message is never
sent, and a global 429 is waited out."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any

import discord
import pytest

from bot.edge.app import TavernBot
from bot.edge.governor import Governor, Urgency, urgency
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, RequestRecord


def busiest_second(records: list[RequestRecord]) -> int:
    """The most requests outside the interaction endpoints that arrived within any one second."""
    times = sorted(r.at for r in records if not r.path.startswith(("/interactions/", "/webhooks/")))
    window: deque[float] = deque()
    most = 0
    for at in times:
        window.append(at)
        while at - window[0] >= 1.0:
            window.popleft()
        most = max(most, len(window))
    return most


async def budget_unused(fake: FakeDiscord, bot: TavernBot) -> None:
    """Wait until the bot's last request was answered a second ago or more (a fixed second's sleep before):
    the budget's whole second, and the fake's, is free."""
    await fake.wait_for(lambda: bot.governor.load() == 0, what="a second with no request")


async def test_a_burst_of_500_requests_stays_within_the_budget(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    bot.governor.per_second = 90  # twice the usual budget, so the test takes half the time; the fake: 100
    fake.global_limit = 100
    channel = bot.get_partial_messageable(fake.channel.id)
    since = len(fake.request_log)
    started = time.monotonic()
    sent = await asyncio.gather(*(channel.send(f"call {n}") for n in range(500)))
    took = time.monotonic() - started
    assert len({m.id for m in sent}) == 500
    assert fake.global_429s == 0
    assert busiest_second(fake.request_log[since:]) <= 100
    assert took >= 4.5, "500 requests at 90 a second take more than five seconds"
    assert bot.governor.queued > 0


async def test_what_a_player_waits_for_goes_first(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = bot.get_partial_messageable(fake.channel.id)
    bot.governor.per_second = 2
    await budget_unused(fake, bot)  # the last second's requests out of the window
    with urgency(Urgency.LATER):
        boards = [asyncio.create_task(channel.send(f"board {n}")) for n in range(6)]
    await asyncio.sleep(0.05)  # the board edits queue first
    with urgency(Urgency.PLAYER):
        ping = asyncio.create_task(channel.send("your turn"))
    await asyncio.gather(ping, *boards)
    texts = [m.content for m in fake.channel_messages(fake.channel)]
    later = [t for t in texts if t.startswith("board")]
    # Two boards took the first second's room; the ping went before every board queued behind them.
    assert texts.index("your turn") < texts.index(later[2])
    assert later == [f"board {n}" for n in range(6)], "one urgency goes in order of arrival"


async def board_and_a_spent_budget(fake: FakeDiscord, bot: TavernBot) -> discord.Message:
    """A board message, then a budget of one request a second spent for the next second."""
    channel = bot.get_partial_messageable(fake.channel.id)
    board = await channel.send("board 0")
    bot.governor.per_second = 1
    await budget_unused(fake, bot)
    await channel.send("the second's one request")
    return board


async def test_an_edit_replaced_by_a_newer_one_is_never_sent(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    board = await board_and_a_spent_budget(fake, bot)
    patches = len([r for r in fake.requests if r[0] == "PATCH"])
    edits = [asyncio.create_task(board.edit(content=f"board {n}")) for n in range(1, 6)]
    answers = await asyncio.gather(*edits)
    assert fake.messages[board.id].content == "board 5"
    assert len([r for r in fake.requests if r[0] == "PATCH"]) == patches + 1, (
        "one edit went, four were replaced"
    )
    assert {a.content for a in answers} == {"board 5"}, "every caller gets the newest edit's answer"
    assert bot.governor.dropped == 4


async def test_a_global_429_is_waited_out(
    fake_discord: FakeDiscord, start_bot: StartBot, caplog: pytest.LogCaptureFixture
) -> None:
    """Without the governor's limit (another process spent the budget), the fake answers global 429s; the
    client holds its requests for ``retry_after`` and every message still goes, none lost; the requests the
    429 answered together make one warning, not one each."""
    fake = fake_discord
    bot = await start_bot()
    bot.governor.per_second = 1000
    fake.global_limit = 5
    rooms = [bot.get_partial_messageable(fake.add_channel(f"room-{n}").id) for n in range(12)]
    await budget_unused(fake, bot)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="discord.http"):  # one room each: all at once, no bucket
        sent = await asyncio.gather(*(room.send(f"call {n}") for n, room in enumerate(rooms)))
    assert len({m.id for m in sent}) == 12 and fake.global_429s > 0
    assert time.monotonic() - started >= 1.0, "the 429's retry_after was waited"
    # As the limit counts them (when each was let through, not when its bytes began to arrive: on a loaded
    # machine reading a body can take long enough to put six arrivals in one second).
    counted = fake.global_counted[-12:]
    assert len(counted) == 12 and max(sum(1 for t in counted if 0 <= t - s < 1.0) for s in counted) <= 5
    pauses = [r for r in caplog.records if r.getMessage().startswith("Global rate limit has been hit")]
    assert 1 <= len(pauses) < fake.global_429s, "one warning a pause"


def test_the_budget_is_shared_by_the_processes() -> None:
    governor = Governor(45)
    assert governor.per_second == 45 and governor.room() == 0.0
    governor._flying = 44
    assert governor.room() == 0.0
    governor._flying = 45
    assert governor.room() == float("inf"), "nothing goes until a request in flight is answered"
    assert governor.load() == 1.0
    governor._flying = 9
    assert governor.load() == 0.2


async def test_a_request_that_fails_fails_every_edit_it_replaced(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    board = await board_and_a_spent_budget(fake, await start_bot())
    fake.fail_next("PATCH", rf"/messages/{board.id}$", 404, 10008, "Unknown Message")
    edits = [asyncio.create_task(board.edit(content=f"board {n}")) for n in range(3)]
    results = await asyncio.gather(*edits, return_exceptions=True)
    assert all(isinstance(r, discord.NotFound) for r in results)


def test_each_process_keeps_to_its_share() -> None:
    from bot.settings import Settings

    assert Settings(token="t").budget_per_process == 45
    assert Settings(token="t", shard_count=4, shard_ids=(0, 1), global_budget=40).budget_per_process == 20
    assert Settings(token="t", shard_count=3, shard_ids=(2,), global_budget=45).budget_per_process == 15


def test_the_panel_of_a_seat_waited_for_goes_first() -> None:
    from typing import cast

    from bot.edge.table.panels import awaited
    from bot.games import Table

    class Stub:
        over = False

        def is_over(self) -> bool:
            return self.over

        def waiting_for(self) -> tuple[int, ...]:
            return (1,)

    table = Stub()
    assert [awaited(cast(Table, table), s) for s in (0, 1)] == [Urgency.NORMAL, Urgency.PLAYER]
    table.over = True
    assert awaited(cast(Table, table), 0) == Urgency.PLAYER, "the end of a game is waited for by all"


async def test_a_request_cancelled_as_it_is_let_go_gives_its_room_back() -> None:
    """The budget lets a waiting request go, and its caller is cancelled before it sends: the room it was
    counted in is free again (else every such cancellation would shrink the budget for good)."""
    governor = Governor(1)
    governor._flying = 1  # the budget is full
    never = asyncio.Event()

    async def request() -> None:
        await never.wait()

    task = asyncio.create_task(governor.send("POST", "/x", "/x", request))
    for _ in range(3):
        await asyncio.sleep(0)
    governor._flying -= 1  # the request in flight was answered
    governor._freed.set()
    for _ in range(20):
        await asyncio.sleep(0)
        if governor._flying == 1:
            task.cancel()
            break
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled() and governor._flying == 0 and governor.room() == 0.0


async def test_held_room_lets_a_request_go_at_once_and_what_is_not_used_is_given_back() -> None:
    """``reserved`` waits its turn for room and holds it: a request made inside goes at once, even with
    others queued since; room it did not use is free again when it ends."""
    now = [0.0]
    governor = Governor(2, clock=lambda: now[0])
    sent: list[str] = []

    def request(name: str) -> Any:
        async def go() -> None:
            sent.append(name)

        return go

    async with governor.reserved(2, Urgency.LATER):
        assert governor._flying == 2  # both rooms held, nothing sent yet
        queued = asyncio.create_task(governor.send("POST", "/x", "/x", request("queued")))
        for _ in range(5):
            await asyncio.sleep(0)
        assert sent == [] and governor.backlog() > 0  # no room left for it
        await governor.send("POST", "/x", "/x", request("held"))
        assert sent == ["held"]
    now[0] += 1.0  # the answered request's second is over; the unused room was given back
    governor._freed.set()
    await asyncio.wait_for(queued, 1.0)
    assert sent == ["held", "queued"] and governor._flying == 0


async def test_a_turn_begun_earlier_goes_first_whenever_its_requests_come() -> None:
    """Within one urgency, the requests of a turn (a table's opening, say) go before those of a turn that
    began after it, even when those came first: a table half told is finished before the next ones."""
    now = [0.0]
    governor = Governor(1, clock=lambda: now[0])
    governor._flying = 1  # the budget is full
    sent: list[str] = []

    def request(name: str) -> Any:
        async def go() -> None:
            sent.append(name)

        return go

    async def told(name: str, turn: asyncio.Event, later: asyncio.Event | None = None) -> None:
        with governor.in_turn(governor.new_turn()):
            turn.set()
            if later is not None:
                await later.wait()  # this turn's second request comes after the other turn's requests
            await governor.send("POST", "/x", "/x", request(name))

    first_began, second_began, second_queued = asyncio.Event(), asyncio.Event(), asyncio.Event()
    first = asyncio.create_task(told("first table's rest", first_began, second_queued))
    await first_began.wait()
    second = asyncio.create_task(told("second table", second_began))
    for _ in range(5):
        await asyncio.sleep(0)
    assert governor.backlog() > 0  # the second table's request waits
    second_queued.set()
    for _ in range(5):
        await asyncio.sleep(0)
    for _ in range(2):  # room for one request, twice
        governor._flying -= 1 if governor._flying else 0
        now[0] += 1.0
        governor._freed.set()
        for _ in range(20):
            await asyncio.sleep(0)
    await asyncio.wait_for(asyncio.gather(first, second), 1.0)
    assert sent == ["first table's rest", "second table"]
