"""``/tavern history``: a member's finished games in this server, newest first, ten to a page, turned with
◀ ▶ in the same message; bots' seats marked; forged page ids refused."""

from __future__ import annotations

import dataclasses
import re

from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeUser
from tests.test_bhargage_discord import challenge


async def finish_one(fake: FakeDiscord, a: FakeUser, b: FakeUser, loser: FakeUser) -> None:
    await challenge(fake, a, b)
    ask = await fake.slash(loser, fake.channel, "bhargage resign")
    await fake.click(loser, ask.message, "Resign")
    await fake.settle()


def numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"`#(\d+)`", text)]


async def test_history_pages_newest_first_with_everyones_score(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    await start_bot(dataclasses.replace(settings, openings_per_minute=100))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    empty = await fake.slash(alice, fake.channel, "tavern history")
    assert empty.ephemeral and "No finished game" in empty.message.text() and not empty.message.buttons()
    for i in range(12):
        await finish_one(fake, alice, bob, loser=bob if i % 3 else alice)
    await fake.slash(alice, fake.channel, "bhargage practice", level="easy")
    ask = await fake.slash(alice, fake.channel, "bhargage resign")
    await fake.click(alice, ask.message, "Resign")
    await fake.settle()

    first = await fake.slash(alice, fake.channel, "tavern history")
    text = first.message.text()
    assert first.ephemeral and "alice's games · page 1/2" in text
    ids = numbers(text)
    assert len(ids) == 10 and ids == sorted(ids, reverse=True) and ids[0] == 13
    lines = [line for line in text.split("\n") if line.startswith("`#")]
    assert "🤖 Bot (easy)" in lines[0] and "lost with" in lines[0]  # the practice game, newest
    assert all("**Bhargage**" in line and " bob " in line for line in lines[1:])
    assert "rating" not in lines[0]  # a game against the bot moves no rating
    changes = [int(m) for line in lines[1:] for m in re.findall(r"rating ([+-]\d+)", line)]
    assert len(changes) == 9
    assert all((c > 0) == ("🏆" in line) for c, line in zip(changes, lines[1:], strict=True))
    assert sum("🏆 won with" in line for line in lines) == sum(1 for i in range(12)[-9:] if i % 3)
    turned = await fake.click(alice, first.message, "▶")
    assert turned.type == 7 and "page 2/2" in first.message.text()
    assert numbers(first.message.text()) == [3, 2, 1]
    back = await fake.click(alice, first.message, "◀")
    assert back.type == 7 and numbers(first.message.text()) == ids

    bobs = await fake.slash(alice, fake.channel, "tavern history", player=bob)
    assert "bob's games · page 1/2" in bobs.message.text() and "🤖" not in bobs.message.text()
    deluxe = await fake.slash(alice, fake.channel, "tavern history", game="deluxe")
    assert "No finished game" in deluxe.message.text()

    for cid in ("tv:hist:1:all:0", "tv:hist:x:all:1", "tv:hist:1:chess!:1", "tv:hist:1:all:1:2"):
        data = {"custom_id": cid, "component_type": 2}
        answer = await fake._interact(3, alice, fake.channel, data, "forged", message=first.message)
        assert answer.ephemeral and "out of date" in answer.content


def test_a_lurch_is_said_in_the_history_line_in_either_language() -> None:
    from bot.base.i18n import speaking
    from bot.edge.history_book import line
    from bot.games import GAMES as ADAPTERS
    from bot.store.records import PastGame, PastSeat

    seats = (PastSeat(1, "Ann", 121), PastSeat(2, "Bo", 80))
    past = PastGame(7, "cribbage", 1.7e9, True, 121, 1, "lurch", 10, None, seats)
    with speaking("en"):
        assert "lurch" in line(past, 1, ADAPTERS)
        assert "lurch" not in line(dataclasses.replace(past, how="target"), 1, ADAPTERS)
        assert "double lurch" in line(dataclasses.replace(past, how="double-lurch"), 1, ADAPTERS)
    with speaking("it"):
        assert "cappotto" in line(past, 2, ADAPTERS)
