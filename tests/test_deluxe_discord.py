"""Bharg Deluxe through the real discord.py client and the fake Discord: lobby to result by clicks."""

from __future__ import annotations

from typing import Any

from bot.app import TavernBot
from bot.rules import deluxe as D
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

EXTENSIONS = ["cogs.general", "cogs.stats", "cogs.deluxe"]


async def boot(start_bot: StartBot, settings: Settings | None = None, seed: int | None = 5) -> TavernBot:
    bot = await start_bot(settings, extensions=EXTENSIONS)
    bot.lobbies.seed_source = lambda: seed
    return bot


async def open_table(
    fake: FakeDiscord, users: list[FakeUser], channel: FakeChannel | None = None, **options: Any
) -> FakeMessage:
    """Create a lobby as the first user, the others join, the host starts; returns the lobby message."""
    channel = channel or fake.channel
    created = await fake.slash(users[0], channel, "deluxe create", **options)
    lobby = created.message
    assert not created.ephemeral and "Join" in [b.label for b in lobby.buttons()]
    for u in users[1:]:
        joined = await fake.click(u, lobby, "Join")
        assert u.name in joined.message.content
    started = await fake.click(users[0], lobby, "Start")
    assert "has started" in started.message.content and lobby.buttons() == []
    return lobby


def pings(fake: FakeDiscord, channel: FakeChannel | None = None) -> list[FakeMessage]:
    return [
        m
        for m in fake.channel_messages(channel or fake.channel)
        if "your turn" in m.content or "bind once more" in m.content
    ]


def live_panel(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    """The user's newest DM that still has controls."""
    for m in reversed(fake.dms(user)):
        if m.buttons() or m.selects():
            return m
    raise AssertionError(f"{user.name} has no DM panel with controls")


def to_move(fake: FakeDiscord, users: list[FakeUser], channel: FakeChannel | None = None) -> FakeUser:
    last = pings(fake, channel)[-1]
    found = [u for u in users if last.content.count(u.mention)]
    assert len(found) == 1, last.content
    return found[0]


def labels(msg: FakeMessage) -> list[str | None]:
    return [b.label for b in msg.buttons()]


async def play_turn(fake: FakeDiscord, user: FakeUser, panel: FakeMessage) -> dict[str, int]:
    """Draw from the deck, bind every suggested meld (first one each time), discard the first card."""
    did = {"binds": 0}
    if "Draw from deck" in labels(panel):
        res = await fake.click(user, panel, "Draw from deck")
        panel = res.message
    while True:
        names = labels(panel)
        if "Suggest melds" not in names:
            return did  # the hand ended (went out) or the move passed
        res = await fake.click(user, panel, "Suggest melds")
        panel = res.message
        if "Bind 1" in labels(panel):
            res = await fake.click(user, panel, "Bind 1")
            panel = res.message
            did["binds"] += 1
            continue
        panel = (await fake.click(user, panel, "Back to my cards")).message
        if "Done" in labels(panel):
            await fake.click(user, panel, "Done")
            return did
        first = panel.selects()[0]
        panel = (await fake.select(user, panel, first.custom_id, [first.options[0].value])).message
        discard = [b for b in panel.buttons() if b.label and b.label.startswith("Discard ")]
        assert len(discard) == 1 and not discard[0].disabled, labels(panel)
        await fake.click(user, panel, discard[0].label or "")
        return did


def first_content(m: FakeMessage) -> str:
    return m.edits[0].content if m.edits else m.content


async def play_until_over(fake: FakeDiscord, users: list[FakeUser], limit: int = 400) -> dict[str, int]:
    turns: dict[str, int] = {u.name: 0 for u in users}
    while not any("Rematch" in labels(m) for m in fake.channel_messages(fake.channel)):
        user = to_move(fake, users)
        await play_turn(fake, user, live_panel(fake, user))
        turns[user.name] += 1
        assert sum(turns.values()) < limit
    return turns


async def test_whole_three_player_game_by_clicks(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    users = [fake.add_user(n) for n in ("ann", "bob", "cat")]
    await open_table(fake, users, target=30)
    table = bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.game == "deluxe"
    game_id = table.id
    board_id = table.meta.board_id
    board = fake.messages[board_id]
    assert "Straight suit" in board.text() and "Discard Queue" in board.text() and "Deck:" in board.text()
    assert all(u.name in board.text() for u in users)

    turns = await play_until_over(fake, users)

    state: D.State = (await bot.tables.get(game_id)).state
    assert D.is_over(state) and len(state.history) >= 1
    msgs = fake.channel_messages(fake.channel)
    # one ping per turn, carrying the public events of the turn before
    assert len(pings(fake)) == sum(turns.values())
    assert any("drew from the deck" in m.content and "discarded" in m.content for m in pings(fake))
    # a score sheet per hand
    sheets = [m for m in msgs if "scored**" in m.content]
    assert len(sheets) == len(state.history)
    assert "Bound  Hand  Score  Total" in sheets[0].content
    # one live panel per player: a new DM per hand, edited in place for every turn
    for u in users:
        assert len(fake.dms(u)) == state.hand_no
        assert not [m for m in fake.dms(u) if m.buttons() or m.selects()]
    # the winner, the kept table message, the store
    final = next(m for m in msgs if "Rematch" in labels(m))
    record = await bot.store.load_game(game_id)
    assert record is not None and record.status == "finished" and record.result is not None
    winner = users[record.result["winners"][0]]
    assert f"{winner.name} — {max(state.totals)} 🏆" in final.content and "Game over" in final.content
    assert "won" in board.text() and board.buttons() == []
    assert all(h is not None for h in record.result["hand_score_avg"])

    board_cmd = await fake.slash(users[0], fake.channel, "leaderboard", game="deluxe")
    assert "Bharg Deluxe leaderboard" in board_cmd.content
    assert all(u.name in board_cmd.content for u in users)
    mine = await fake.slash(winner, fake.channel, "stats")
    assert "Bharg Deluxe" in mine.content and "average hand score" in mine.content

    # rematch: a new lobby with everyone seated, hosted by whoever pressed it
    rematch = await fake.click(users[1], final, "Rematch")
    lobby = rematch.message
    assert not rematch.ephemeral and "Players (3/6)" in lobby.content and "table by bob" in lobby.content
    again = await fake.click(users[2], final, "Rematch")
    assert again.ephemeral and "already an open table" in again.content
    started = await fake.click(users[1], lobby, "Start")
    assert "has started" in started.message.content
    assert bot.tables.table_for_channel(fake.channel.id) is not None
