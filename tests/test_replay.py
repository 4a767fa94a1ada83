"""``/tavern replay game:N``: a game stepped through as its table told it, to the stored result, for both
games; a live game refused to outsiders and never showing a hidden card to its own players; forged ids."""

from __future__ import annotations

import re

from bot.render import words
from bot.rules import bhargage as bh
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.stored_games import store_finished
from tests.test_bhargage_discord import challenge, every_click_mine, play_out, step


def title(message: FakeMessage) -> str:
    return str(message.embeds[0]["title"])


def position(message: FakeMessage) -> tuple[int, int, int, int]:
    """(step, steps, hand, hands) from the stepper's title."""
    found = re.search(r"step (\d+)/(\d+) · hand (\d+)/(\d+)", title(message))
    assert found, title(message)
    step, steps, hand, hands = (int(g) for g in found.groups())
    return step, steps, hand, hands


def disabled(message: FakeMessage) -> set[str]:
    return {str(b.emoji) for b in message.buttons() if b.disabled}


async def press(fake: FakeDiscord, user: FakeUser, message: FakeMessage, emoji: str) -> None:
    button = next(b for b in message.buttons() if b.emoji == emoji)
    assert button.custom_id is not None
    answer = await fake.click(user, message, button.custom_id)
    assert answer.type == 7  # the same message, updated: no other request


def picture_shown(fake: FakeDiscord, message: FakeMessage) -> bytes:
    """The PNG the step's embed shows, as uploaded."""
    image = str(message.embeds[0]["image"]["url"]).removeprefix("attachment://")
    found = next(a for a in message.attachments if a["filename"] == image)
    data = fake.attachment_bytes(found)
    assert data.startswith(b"\x89PNG")
    return data


async def step_to_the_end(
    fake: FakeDiscord, user: FakeUser, game_id: int, *, hands: bool
) -> tuple[FakeMessage, list[str]]:
    """Open the replay and press ⏩ (``hands``) or ▶ until the last step; every step's text on the way."""
    opened = await fake.slash(user, fake.channel, "tavern replay", game=game_id)
    message = opened.message
    assert opened.ephemeral and position(message)[0] == 1 and {"⏮", "⏪", "◀"} <= disabled(message)
    seen = [message.text()]
    last_hand = 1
    while "⏭" not in disabled(message):
        before = position(message)
        await press(fake, user, message, "⏩" if hands else "▶")
        after = position(message)
        assert after[0] > before[0] and after[2] >= last_hand
        if hands and after[0] < after[1]:
            assert after[2] == before[2] + 1  # each press deals the next hand
        last_hand = after[2]
        seen.append(message.text())
        assert len(message.text()) <= 6000 and all(len(str(e["description"])) <= 4096 for e in message.embeds)
    assert position(message)[0] == position(message)[1] and {"▶", "⏩", "⏭"} <= disabled(message)
    return message, seen


async def test_a_finished_bhargage_game_replays_to_its_stored_result(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    seeded: None,
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    await play_out(fake, fake.channel, [alice, bob])
    record = await bot.store.load_game(table.id)
    assert record is not None and record.status == "finished" and record.result is not None

    # carol never sat at it: a finished game is open to anyone in the server
    message, seen = await step_to_the_end(fake, carol, table.id, hands=False)
    steps, hands = position(message)[1], position(message)[3]
    assert steps == len(record.actions) + 1 and hands >= 2  # one step per action, and the deal
    scores = record.result["scores"]
    winner = record.seats[record.result["winners"][0]].name
    assert f"🏆 **{winner}**" in seen[-1] and all(str(s) in seen[-1] for s in scores)
    assert "**The show**" in "\n".join(seen)  # everyone's cards, as the table showed them
    picture_shown(fake, message)
    # back to the first step and by hands again: the hand starts, in order
    await press(fake, carol, message, "⏮")
    assert position(message)[0] == 1
    by_hand = [position(message)[2]]
    while "⏩" not in disabled(message):
        await press(fake, carol, message, "⏩")
        by_hand.append(position(message)[2])
    assert by_hand[:hands] == list(range(1, hands + 1))
    await press(fake, carol, message, "⏪")
    assert position(message)[2] == hands and position(message)[0] < steps


async def test_a_finished_deluxe_game_replays_to_its_stored_result(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    users = [fake.add_user(n) for n in ("ann", "ben", "cat", "dan")]
    game_id = await store_finished(bot, "deluxe", users, seed=11, guild=fake.guild.id)
    record = await bot.store.load_game(game_id)
    assert record is not None and record.result is not None
    message, seen = await step_to_the_end(fake, users[0], game_id, hands=True)
    assert position(message)[3] >= 2
    text = seen[-1]
    for seat, score in enumerate(record.result["scores"]):
        assert f"{record.seats[seat].name} — {score}" in text
    assert "Game over" in text
    picture_shown(fake, message)
    # ◀ from the end steps back one turn, in the same message
    await press(fake, users[0], message, "◀")
    assert position(message)[0] == position(message)[1] - 1


async def test_a_live_game_is_refused_to_outsiders_and_hides_every_hand(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    seeded: None,
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    await every_click_mine(fake, [alice, bob])  # each step a press
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    for _ in range(6):  # the discards, the cut, and a few cards of the play
        await step(fake, fake.channel, [alice, bob])
    state: bh.State = table.state
    assert table.status == "active" and state.phase is bh.Phase.PLAY

    refused = await fake.slash(carol, fake.channel, "tavern replay", game=table.id)
    assert refused.ephemeral and "still being played" in refused.message.text()
    assert not refused.message.buttons()

    # bob's cards still in hand, the bhargage and the deck, but those the channel showed (the cut for the
    # deal, shuffled back): none was ever shown to alice
    public = "\n".join(m.text() for m in fake.channel_messages(fake.channel))
    hidden = {words.title(c) for c in (*state.hands[1], *state.bhargage, *state.deck)}
    hidden = {name for name in hidden if name not in public}
    assert len(hidden) > 20
    message, seen = await step_to_the_end(fake, alice, table.id, hands=False)
    assert "still being played" in seen[-1]
    for text in seen:
        assert not any(name in text for name in hidden), text
    # a forged step id for the live game, from the outsider, on alice's message: refused quietly
    for cid in (f"tv:replay:{table.id}:3:next", "tv:replay:0:1:next", f"tv:replay:{table.id}:1:jump"):
        data = {"custom_id": cid, "component_type": 2}
        answer = await fake._interact(3, carol, fake.channel, data, "forged", message=message)
        assert answer.ephemeral and "out of date" in answer.content


async def test_unknown_games_and_other_servers_games_are_refused(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    ann, ben = fake.add_user("ann"), fake.add_user("ben")
    elsewhere = await store_finished(bot, "bhargage", [ann, ben], seed=3, guild=fake.guild.id + 1)
    for game_id in (elsewhere, 9999):
        answer = await fake.slash(ann, fake.channel, "tavern replay", game=game_id)
        assert answer.ephemeral and f"no game #{game_id}" in answer.message.text()


async def test_the_stepper_speaks_italian(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    ann, ben = fake.add_user("ann"), fake.add_user("ben")
    ann.locale = "it"
    game_id = await store_finished(bot, "bhargage", [ann, ben], seed=5, guild=fake.guild.id)
    opened = await fake.slash(ann, fake.channel, "tavern replay", game=game_id)
    assert f"Partita #{game_id} · Bhargage · passo 1/" in title(opened.message)
    await press(fake, ann, opened.message, "⏭")
    assert "🏆" in opened.message.text()
