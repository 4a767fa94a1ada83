"""History, replays and exports outside servers (a user install): in a group DM, where the fake refuses every
channel or DM REST call (403 50001), they answer by the interaction alone, from the users' scope, and only
with the games the asker sat at; a server's games never show there, nor the users' scope's in a server."""

from __future__ import annotations

import re

from bot.edge.app import TavernBot
from bot.edge.record_export import file_name
from bot.edge.table.host import USERS
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.stored_games import store_finished
from tests.test_anywhere import assert_interactions_only, boot
from tests.test_replay import disabled, picture_shown, position, press


async def three_friends(
    fake: FakeDiscord, start_bot: StartBot
) -> tuple[TavernBot, tuple[FakeUser, FakeUser, FakeUser], FakeChannel]:
    """The bot, and ann, bob and cat in a group DM of theirs (the bot not a member)."""
    bot = await boot(fake, start_bot)
    ann, bob, cat = fake.add_user("ann"), fake.add_user("bob"), fake.add_user("cat")
    return bot, (ann, bob, cat), fake.add_group_dm(ann, bob, cat)


def numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"`#(\d+)`", text)]


async def test_history_replay_and_export_in_a_group_dm_show_only_the_askers_games(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot, (ann, bob, cat), group = await three_friends(fake, start_bot)
    games = [
        await store_finished(bot, "bhargage", [ann, bob], seed=s, guild=USERS, channel=group.id)
        for s in range(11)
    ]
    served = await store_finished(
        bot, "bhargage", [ann, bob], seed=3, guild=fake.guild.id, channel=fake.channel.id
    )
    since = len(fake.request_log)

    # history: ann's eleven games of the users' scope, ten to a page, turned in the same message
    first = await fake.slash(ann, group, "tavern history")
    assert first.ephemeral and "page 1/2" in first.message.text()
    assert numbers(first.message.text()) == games[::-1][:10]
    turned = await fake.click(ann, first.message, "▶")
    assert turned.type == 7 and numbers(first.message.text()) == games[:1]
    friends = await fake.slash(bob, group, "tavern history", player=ann)  # bob sat at them too
    assert numbers(friends.message.text()) == games[::-1][:10]

    # replay: opened and stepped to its end with its buttons, the steps' pictures attached
    opened = await fake.slash(ann, group, "tavern replay", game=games[0])
    message = opened.message
    assert opened.ephemeral and position(message)[0] == 1
    await press(fake, ann, message, "⏭")
    assert position(message)[0] == position(message)[1] and "🏆" in message.text()
    assert {"▶", "⏩", "⏭"} <= disabled(message)
    picture_shown(fake, message)

    # export: the ended game's record, as an attachment of the answer
    exported = await fake.slash(ann, group, "tavern export", game=games[0])
    assert exported.ephemeral and f"record of game #{games[0]}" in exported.message.text()
    assert file_name(games[0]) in exported.message.files

    # cat is in the group DM but sat at none of them: nothing of theirs, every number unknown
    for asked in ({}, {"player": ann}):
        empty = await fake.slash(cat, group, "tavern history", **asked)
        assert numbers(empty.message.text()) == [] and "No finished game" in empty.message.text()
        assert not empty.message.buttons()
    for command in ("tavern replay", "tavern export"):
        refused = await fake.slash(cat, group, command, game=games[0])
        assert refused.ephemeral and f"no game #{games[0]}" in refused.message.text()
    forged = {"custom_id": f"tv:replay:{games[0]}:3:next", "component_type": 2}
    answer = await fake._interact(3, cat, group, forged, "forged", message=message)
    assert answer.ephemeral and "out of date" in answer.content
    assert position(message)[0] == position(message)[1]  # ann's stepper, untouched

    # ann's server game is not shown outside servers, nor the users' scope's games in the server
    assert served not in numbers(first.message.text()) + numbers(friends.message.text())
    for command in ("tavern replay", "tavern export"):
        refused = await fake.slash(ann, group, command, game=served)
        assert f"no game #{served}" in refused.message.text()
    inside = await fake.slash(ann, fake.channel, "tavern history")
    assert numbers(inside.message.text()) == [served]
    for command in ("tavern replay", "tavern export"):
        refused = await fake.slash(ann, fake.channel, command, game=games[0])
        assert f"no game #{games[0]}" in refused.message.text()

    assert_interactions_only(fake, since)


async def test_a_live_game_in_a_group_dm_is_replayed_to_its_players_only_and_never_exported(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot, (ann, bob, cat), group = await three_friends(fake, start_bot)
    since = len(fake.request_log)
    posted = await fake.slash(ann, group, "bhargage challenge", opponent=bob)
    await fake.click(bob, posted.message, "Accept")
    table = bot.tables.active_tables()[0]
    assert table.guild_id == USERS and table.status == "active"

    opened = await fake.slash(bob, group, "tavern replay", game=table.id)
    assert (
        opened.ephemeral
        and position(opened.message)[0] == 1
        and "still being played" in opened.message.text()
    )
    for user, text in ((bob, "still being played"), (cat, f"no game #{table.id}")):
        refused = await fake.slash(user, group, "tavern export", game=table.id)
        assert refused.ephemeral and text in refused.message.text() and not refused.message.files
    outsider = await fake.slash(cat, group, "tavern replay", game=table.id)
    assert f"no game #{table.id}" in outsider.message.text()
    assert_interactions_only(fake, since)
