"""``/tavern forget-me``: after the member's own confirmation, their language, preferences and DM channel go
and their name becomes 👤 in seats and ratings; results stay, so the opponent's record is unchanged.
Refused while seated at a live game; the button works for its own member only."""

from __future__ import annotations

from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_bhargage_discord import challenge


async def test_forget_me_after_confirmation_keeps_the_opponents_record(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    shown = await fake.slash(alice, fake.channel, "tavern me")
    await fake.click(
        alice, shown.message, next(b.custom_id for b in shown.message.buttons() if "Cut" in b.label)
    )
    await challenge(fake, alice, bob)

    seated = await fake.slash(alice, fake.channel, "tavern forget-me")
    refused = await fake.click(alice, seated.message, "Forget me")
    assert refused.ephemeral and "finish it or leave it first" in refused.message.text()

    ask = await fake.slash(bob, fake.channel, "bhargage resign")
    await fake.click(bob, ask.message, "Resign")
    await fake.settle()
    before_bob = await bot.store.stats(fake.guild.id, bob.id)
    asked = await fake.slash(alice, fake.channel, "tavern forget-me")
    assert asked.ephemeral and "can't be undone" in asked.message.text()
    # someone else pressing it (the message is alice's; a forged press in another's name) changes nothing
    data = {"custom_id": f"tv:forget:{alice.id}", "component_type": 2}
    other = await fake._interact(3, bob, fake.channel, data, "forged", message=asked.message)
    assert other.ephemeral and "out of date" in other.content
    assert await bot.store.user_prefs() == {alice.id: {"auto_cut": True}}

    done = await fake.click(alice, asked.message, "Forget me")
    assert done.type == 7 and "has forgotten you" in asked.message.text() and not asked.message.buttons()
    assert await bot.store.user_prefs() == {} and alice.id not in await bot.store.user_languages()
    assert await bot.store.dm_channel(alice.id) is None and bot.preferences.of(alice.id).auto_cut is False
    rating = await bot.store.rating_of(fake.guild.id, "bhargage", alice.id)
    assert rating is not None and rating["name"] == "👤" and rating["games"] == 1
    assert await bot.store.stats(fake.guild.id, bob.id) == before_bob  # the opponent's record is unchanged
    history = (await fake.slash(bob, fake.channel, "tavern history")).message.text()
    assert "👤" in history and "alice" not in history
