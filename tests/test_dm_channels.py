"""A player's DM channel is remembered in the store: after a restart, their panel costs no DM-channel opening
(``POST /users/@me/channels``, a request of the bot's global budget). Through the real discord.py client and
the fake Discord; the store round-trip on both backends is in tests/test_store.py."""

from __future__ import annotations

from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_bhargage_discord import challenge


def dm_opens(fake: FakeDiscord) -> int:
    return sum(
        1 for method, path, _ in fake.requests if method == "POST" and path.endswith("/users/@me/channels")
    )


async def test_a_known_players_dm_after_a_restart_opens_no_channel(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    assert dm_opens(fake) == 2
    assert await bot.store.dm_channel(alice.id) == fake.dm_channel(alice).id
    await bot.close()

    again = await start_bot()  # a new process: discord.py's own cache of DM channels is empty
    opens = dm_opens(fake)
    table = await again.tables.table_for_channel(fake.channel.id)
    assert table is not None
    seat = table.seat_of(alice.id)
    assert seat is not None
    sent = await again.controller.panels.dm(table, seat, table.adapter.seat_panel(table, seat))
    assert sent is not None and sent.channel.id == fake.dm_channel(alice).id
    assert dm_opens(fake) == opens, "the remembered channel was used"
