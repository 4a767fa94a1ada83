"""``/tavern tables``: the server's live games, each with where to watch it and its score; finished games
leave the list."""

from __future__ import annotations

from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_bhargage_discord import challenge


async def test_the_live_tables_of_the_server_with_where_to_watch_them(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob, carol, dan = (fake.add_user(n) for n in ("alice", "bob", "carol", "dan"))
    empty = await fake.slash(carol, fake.channel, "tavern tables")
    assert empty.ephemeral and "No game is being played" in empty.message.text()

    other = fake.add_channel("other")
    await challenge(fake, alice, bob)
    await challenge(fake, carol, dan, channel=other)
    first = await bot.tables.table_for_channel(fake.channel.id)
    second = await bot.tables.table_for_channel(other.id)
    assert first is not None and second is not None

    listed = await fake.slash(dan, fake.channel, "tavern tables")
    text = listed.message.text()
    assert listed.ephemeral and "Live tables" in text
    lines = [line for line in text.split("\n") if line.startswith("**Bhargage** in ")]
    assert len(lines) == 2 and lines[0].startswith(f"**Bhargage** in <#{second.channel_id}>")  # newest first
    assert f"<#{first.meta.thread_id or first.channel_id}>" in lines[1]
    assert "alice" in lines[1] and "bob" in lines[1] and "carol" in lines[0] and "dan" in lines[0]

    ask = await fake.slash(carol, other, "bhargage resign")
    await fake.click(carol, ask.message, "Resign")
    await fake.settle()
    after = (await fake.slash(dan, fake.channel, "tavern tables")).message.text()
    watch = f"<#{first.meta.thread_id or first.channel_id}>"
    assert f"<#{second.channel_id}>" not in after and watch in after
