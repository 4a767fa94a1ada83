"""Hardening: forged input, Discord's limits, one seat per player, write failures, admin controls."""

from __future__ import annotations

from typing import Any

from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_bhargage_discord import challenge


async def forge(
    fake: FakeDiscord, user: FakeUser, message: FakeMessage, cid: str, values: list[str] | None = None
) -> Any:
    """Send a component interaction with any custom id and values, as a modified client can."""
    data: dict[str, Any] = {"custom_id": cid, "component_type": 2 if values is None else 3}
    if values is not None:
        data["values"] = values
    return await fake._interact(3, user, message.channel, data, f"forged {cid!r}", message=message)


async def test_explore(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    dm = fake.dms(alice)[-1]
    sel = dm.selects()[0]
    print(sel.custom_id, [b.custom_id for b in dm.buttons()])
    for cid in [
        sel.custom_id.replace(":pick", ":pick:x"),
        f"tv:g:{table.id}:x:play:²",
        "tv:g:" + "9" * 41 + ":x:play:1",
        "tv:g:" + "9" * 20 + ":x:play:1",
        "tv:g:" + "9" * 19 + ":x:play:1",
        f"tv:g:{table.id}::zzz",
        "nonsense",
    ]:
        try:
            r = await forge(fake, alice, dm, cid)
            print(repr(cid[:40]), "->", r.ephemeral, r.message.content if r.message else None)
        except AssertionError as e:
            print(repr(cid[:40]), "-> no answer", str(e)[:80])
    r = await forge(fake, alice, dm, sel.custom_id, ["44", "43"])
    print("values", r.ephemeral, r.message.content if r.message else None)
    r = await fake.slash(alice, fake.channel, "bhargage count", cards="x" * 5000, up="y" * 3000)
    print("count", len(r.message.content))
