"""Playing against the bot through the real discord.py client and the fake Discord: practice Bhargage, a
Deluxe table filled with bots, the coach's Hint, ``/bhargage discard``, and the refusals."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from bot.ai import bhargage as bh_ai
from bot.base.refusals import UserFacingError
from bot.edge.app import TavernBot
from bot.games import Table
from bot.games.seats import is_bot, level_of
from bot.rules import bhargage as bh
from bot.rules import deluxe as D
from bot.rules.decktet import card
from bot.services.lobbies import Player
from tests.conftest import StartBot, make_settings
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_bhargage_discord import BOARD_HEAD, act_with_panel
from tests.test_deluxe_discord import live_panel, play_turn
from tests.test_hardening import forge, slash_raw

EXTENSIONS = ["cogs.general", "cogs.stats", "cogs.bhargage", "cogs.deluxe"]


async def boot(start_bot: StartBot, seed: int = 9) -> TavernBot:
    bot = await start_bot(extensions=EXTENSIONS)
    bot.lobbies.seed_source = lambda: seed
    return bot


async def settle(fake: FakeDiscord, bot: TavernBot) -> None:
    """Let the computer players finish moving and Discord catch up."""
    await bot.controller.computer.idle()
    await fake.settle()


def live_dm(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    found = live_dm_if_any(fake, user)
    if found is None:
        raise AssertionError(f"{user.name} has no live DM panel")
    return found


def live_dm_if_any(fake: FakeDiscord, user: FakeUser) -> FakeMessage | None:
    for m in reversed(fake.dms(user)):
        if any(not b.disabled for b in m.buttons()) or m.selects():
            return m
    return None


async def live_dm_soon(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    """The user's live DM panel, waited for: on a loaded machine a panel whose picture the drawing process
    is still making can come after the bot has gone quiet for a moment (a deadline, not a pause)."""
    return await fake.wait_for(lambda: live_dm_if_any(fake, user), timeout=30.0, what=f"{user.name}'s panel")


def hint_button(msg: FakeMessage) -> str:
    ids = [b.custom_id for b in msg.buttons() if b.custom_id and ":hint" in b.custom_id]
    assert len(ids) == 1, [b.label for b in msg.buttons()]
    return ids[0]


async def bhargage_move(fake: FakeDiscord, bot: TavernBot, table: Table, user: FakeUser) -> None:
    """The human's move on their live DM panel: the cut, a discard or a play."""
    if table.state.phase is bh.Phase.CUT:
        await fake.click(user, live_dm(fake, user), "Cut")
    else:
        await act_with_panel(fake, user, live_dm(fake, user))
    await settle(fake, bot)


async def test_practice_bhargage_against_the_bot_to_the_end(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    alice = fake.add_user("alice")
    opened = await fake.slash(alice, fake.channel, "bhargage practice", level="hard", target=41)
    # The command's answer is the table's board, the bot's seat named on it (never a mention).
    assert not opened.ephemeral and opened.message.content.startswith(BOARD_HEAD)
    assert "Bot (hard)" in opened.message.content and "<@" not in opened.message.content
    await settle(fake, bot)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.names == ("alice", "Bot (hard)")
    assert is_bot(table.user_ids[1]) and level_of(table.user_ids[1]) == "hard"

    hinted_discard = hinted_play = False
    moves = 0
    while table.status == "active":
        assert 0 in table.waiting_for(), "the bot left the table waiting"
        state = table.state
        view = bh.view(state, 0)
        if state.phase is bh.Phase.DISCARD and not hinted_discard:
            # The coach's table: every discard, best first, the best being the hard player's choice.
            hint = await fake.click(alice, live_dm(fake, alice), hint_button(live_dm(fake, alice)))
            assert hint.ephemeral and "What to lay away" in hint.message.content
            assert "```" not in hint.message.content  # sentences that fit a phone, not a wide table
            best = bh_ai.discard_table((*view.hand, *view.discard), state.dealer == 0)[0]
            rows = hint.message.content.splitlines()
            assert not any(ln[:1].isdigit() for ln in rows)  # no "1.": typed, it would be the menu's first
            first_row = next(ln for ln in rows if ln.startswith("• "))
            assert all(c.title in first_row for c in best.cards)
            hard = bh_ai.choose(view, random.Random(1), "hard")
            assert isinstance(hard, bh.Discard) and set(hard.cards) == set(best.cards)
            hinted_discard = True
        if state.phase is bh.Phase.PLAY and not hinted_play:
            hint = await fake.click(alice, live_dm(fake, alice), hint_button(live_dm(fake, alice)))
            hard = bh_ai.choose(view, random.Random(1), "hard")
            assert isinstance(hard, bh.Play) and f"💡 Play **{hard.card.title}**" in hint.message.content
            hinted_play = True
        await bhargage_move(fake, bot, table, alice)
        moves += 1
        assert moves < 200
    assert hinted_discard and hinted_play
    assert bh.is_over(table.state)
    text = "\n".join(m.content for m in fake.channel_messages(fake.channel))
    assert "**Bot (hard)**" in text or "Bot (hard)" in text
    assert "<@3" not in text.replace(alice.mention, "")  # the bot's seat is never pinged as a user
    # Recorded, but apart from the human leaderboard and ratings.
    stats = await fake.slash(alice, fake.channel, "stats")
    assert "Against the bot" in stats.message.content and "Bhargage, hard: 1 game" in stats.message.content
    board = await fake.slash(alice, fake.channel, "leaderboard", game="bhargage")
    assert "alice" not in board.message.content
    assert await bot.store.rating_of(fake.channel.guild.id, "bhargage", alice.id) is None


async def test_challenging_the_bot_user_starts_a_practice_game(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    alice = fake.add_user("alice")
    opened = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=fake.bot_user)
    # No challenge to accept: the answer is the practice table's board at once.
    assert opened.message.content.startswith(BOARD_HEAD) and "Bot (normal)" in opened.message.content
    assert opened.message.buttons() == []
    await settle(fake, bot)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.names[1] == "Bot (normal)"
    # The bot laid its discard at once; the table waits for alice only.
    assert table.waiting_for() == (0,)


async def test_deluxe_table_with_two_bots_to_the_end(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await boot(start_bot, seed=5)
    alice = fake.add_user("alice")
    created = await fake.slash(alice, fake.channel, "deluxe create", target=20)
    lobby = created.message
    for level in ("hard", "easy"):
        menu = next(s for s in lobby.selects() if ":addbot" in s.custom_id)
        added = await fake.select(alice, lobby, menu.custom_id, [level])
        assert "Bot" in added.message.content
    assert "Bot (hard)" in lobby.content and "Bot 2 (easy)" in lobby.content
    await fake.click(alice, lobby, "Start")
    await settle(fake, bot)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and len(table.seats) == 3 and table.humans == (0,)
    turns = 0
    while table.status == "active":
        assert table.waiting_for() == (0,), "the bots left the table waiting"
        await play_turn(fake, alice, live_panel(fake, alice))
        await settle(fake, bot)
        turns += 1
        assert turns < 300
    assert D.is_over(table.state)
    record = await bot.store.load_game(table.id)
    assert record is not None and {a.seat for a in record.actions} == {0, 1, 2}
    assert any("Rematch" in [b.label for b in m.buttons()] for m in fake.channel_messages(fake.channel))


# ------------------------------------------------------------------------------------------- refusals


async def test_practice_with_an_unknown_level_is_refused(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    alice = fake.add_user("alice")
    refused = await slash_raw(
        fake, alice, fake.channel, "bhargage practice", {"level": "hard"}, level="wizard"
    )
    assert refused.ephemeral and "That isn't one of this command's choices" in refused.message.content
    assert await bot.tables.table_for_channel(fake.channel.id) is None


async def test_adding_a_bot_to_a_full_or_started_lobby(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    lobby = (await fake.slash(alice, fake.channel, "deluxe create")).message
    lobby_id = (await bot.store.open_lobbies())[0].id
    menu_id = next(s for s in lobby.selects() if ":addbot" in s.custom_id).custom_id
    outsider = await fake.select(bob, lobby, menu_id, ["easy"])
    assert outsider.ephemeral and "Join the table first" in outsider.message.content
    for _ in range(D.MAX_PLAYERS - 2):
        await fake.select(alice, lobby, menu_id, ["normal"])
    # One seat left: bob takes it while alice's menu still shows; her late pick is refused, nothing changes.
    menu_before = [s.custom_id for s in lobby.selects()]
    await fake.click(bob, lobby, "Join")
    assert menu_id in menu_before and not any(":addbot" in s.custom_id for s in lobby.selects())
    with pytest.raises(UserFacingError, match="This table is full"):
        bot.lobbies.refuse(await bot.lobbies.get(lobby_id), Player(alice.id, "alice"), "addbot", "hard")
    full = await forge(fake, alice, lobby, menu_id, ["hard"])
    assert full.ephemeral and full.message.content
    assert len((await bot.lobbies.get(lobby_id)).members) == D.MAX_PLAYERS
    await fake.click(alice, lobby, "Start")
    await settle(fake, bot)
    late = await forge(fake, alice, lobby, menu_id, ["hard"])
    assert late.ephemeral and late.message.content
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and len(table.seats) == D.MAX_PLAYERS
    assert (await bot.lobbies.get(lobby_id)).status == "started"


async def test_hint_when_it_is_not_your_decision(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob, target=41)
    await fake.click(bob, posted.message, "Accept")
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    await act_with_panel(fake, alice, live_dm(fake, alice))
    shown = (await fake.slash(alice, fake.channel, "bhargage hand")).message  # a private panel, kept as sent
    hint_id = hint_button(shown)
    await act_with_panel(fake, bob, live_dm(fake, bob))
    await settle(fake, bot)  # bob's cut is made for him (the default), by the computer's task
    assert 0 not in table.waiting_for()  # bob cuts, then bob leads
    seq = table.seq
    late = await fake.click(alice, shown, hint_id)
    assert late.ephemeral and "no decision of yours to hint at" in late.message.content
    assert table.seq == seq


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("forest, sailor, forest, bard, author", "five different cards"),
        ("forest, sailor, bard, author", "Give the 5 cards"),
        ("forest, sailor, bard, author, moon of aces", "moon of aces"),
        ("forest, sailor, bard, author, huntress, end", "you gave 6"),
    ],
)
async def test_discard_calculator_refusals(
    fake_discord: FakeDiscord, start_bot: StartBot, cards: str, expected: str
) -> None:
    fake = fake_discord
    await boot(start_bot)
    alice = fake.add_user("alice")
    refused = await fake.slash(alice, fake.channel, "bhargage discard", cards=cards, dealer=True)
    assert refused.ephemeral and expected in refused.message.content


async def test_discard_calculator_in_dms(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await boot(start_bot)
    alice = fake.add_user("alice")
    dm = fake.dm_channel(alice)
    answer = await fake.slash(
        alice, dm, "bhargage discard", cards="forest, sailor, bard, author, ace of moons", dealer=False
    )
    dealt = [card(x) for x in ("forest", "sailor", "bard", "author", "ace of moons")]
    lines = bh_ai.discard_table(dealt, False)
    content = answer.message.content
    rows = [ln for ln in content.splitlines() if ln.startswith("• ")]
    more = re.search(r"and (\d+) more choices?, worth less", content)
    assert len(rows) + (int(more[1]) if more else 0) == 10 and len(content) <= 2000  # every one, or said
    assert all(c.title in rows[0] for c in lines[0].cards) and "First " in rows[0]


async def test_a_restart_while_the_bot_is_to_move_loses_nothing(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path
) -> None:
    fake = fake_discord
    first = await start_bot(make_settings(tmp_path, bot_delay=60.0), extensions=EXTENSIONS)  # the bot pauses
    first.lobbies.seed_source = lambda: 9
    alice = fake.add_user("alice")
    await fake.slash(alice, fake.channel, "bhargage practice", level="easy", target=41)
    await fake.settle()
    table = await first.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.seq == 0 and 1 in table.waiting_for()  # the bot has not discarded yet
    await first.close()

    second = await start_bot(make_settings(tmp_path), extensions=EXTENSIONS)
    await second.controller.timers.run()  # what the timer does after start-up
    await settle(fake, second)
    table = await second.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.waiting_for() == (0,) and table.seq == 1


async def test_when_the_last_person_leaves_the_bots_do_not_play_on(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, seed=5)
    alice = fake.add_user("alice")
    lobby = (await fake.slash(alice, fake.channel, "deluxe create")).message
    for level in ("normal", "normal"):
        menu = next(s for s in lobby.selects() if ":addbot" in s.custom_id)
        await fake.select(alice, lobby, menu.custom_id, [level])
    removed = await fake.click(alice, lobby, "Remove a bot")
    assert "Bot 2 (normal)" not in removed.message.content and "Bot (normal)" in removed.message.content
    menu = next(s for s in lobby.selects() if ":addbot" in s.custom_id)
    await fake.select(alice, lobby, menu.custom_id, ["hard"])
    await fake.click(alice, lobby, "Start")
    await settle(fake, bot)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.names == ("alice", "Bot (normal)", "Bot 2 (hard)")
    asked = await fake.slash(alice, fake.channel, "deluxe leave")
    await fake.click(alice, asked.message, "Leave the game")
    await settle(fake, bot)
    assert table.status == "finished" and D.is_over(table.state)
    record = await bot.store.load_game(table.id)
    assert record is not None
    texts = [a.text for a in record.actions]
    assert texts[-2:] == ["0 leave", "1 leave"], texts[-4:]  # alice left, one bot followed: one seat remains


async def test_practice_in_a_busy_channel_is_refused_privately(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await fake.slash(alice, fake.channel, "bhargage practice")
    await settle(fake, bot)
    refused = await fake.slash(bob, fake.channel, "bhargage practice", level="hard")
    assert refused.ephemeral and "already a game in this channel" in refused.message.content
    again = await fake.slash(alice, fake.add_channel("other"), "bhargage practice")
    assert again.ephemeral and "You are already playing in" in again.message.content
