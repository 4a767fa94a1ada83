"""Players' preferences (``/tavern me``): switches in a private panel, stored, and what they change at a
Bhargage table — the cut made at once, the only playable card played, two picked cards laid away with no
Confirm. All are off by default."""

from __future__ import annotations

import random
from typing import Any

from bot.games import Prefs, Seat, Table
from bot.games import bhargage as adapter_module
from bot.rules import bhargage as bh
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.test_bhargage_discord import challenge, seeded, waiting_line

__all__ = ["seeded"]  # the fixture, used by name


def switch(panel: FakeMessage, words: str) -> Any:
    [button] = [b for b in panel.buttons() if words in (b.label or "")]
    return button


async def test_the_switches_start_off_flip_in_place_and_are_kept(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    ann = fake.add_user("ann")
    shown = await fake.slash(ann, fake.channel, "tavern me")
    assert shown.ephemeral
    text = shown.message.text()
    assert text.count("— off.") == 3 and "Cut for me" in text and "Lay away without Confirm" in text
    cut = switch(shown.message, "Cut for me")
    flipped = await fake.click(ann, shown.message, cut.custom_id)
    assert flipped.type == 7 and flipped.message is shown.message  # the same message, updated
    assert "**Cut for me** — on." in shown.message.text()
    assert bot.preferences.of(ann.id).auto_cut
    assert await bot.store.user_prefs() == {ann.id: {"auto_cut": True}}
    # read again at the next start
    await bot.close()
    again = await start_bot()
    assert again.preferences.of(ann.id) == Prefs(auto_cut=True)
    # and back off: nothing stored for a player on the defaults
    await fake.click(ann, shown.message, switch(shown.message, "Cut for me").custom_id)
    assert await again.store.user_prefs() == {} and again.preferences.of(ann.id) == Prefs()


async def test_a_forged_switch_is_refused_and_changes_nothing(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    ann = fake.add_user("ann")
    shown = await fake.slash(ann, fake.channel, "tavern me")
    for cid in ("tv:me:evil:1", "tv:me:auto_cut:2", "tv:me:auto_cut:1:x", "tv:me:__class__:1"):
        data = {"custom_id": cid, "component_type": 2}
        answer = await fake._interact(3, ann, fake.channel, data, "forged", message=shown.message)
        assert answer.ephemeral and "out of date" in answer.content
    assert bot.preferences.of(ann.id) == Prefs() and await bot.store.user_prefs() == {}


async def test_cut_for_me_cuts_at_once_and_quick_discard_needs_no_confirm(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    for user in (alice, bob):
        shown = await fake.slash(user, fake.channel, "tavern me")
        await fake.click(user, shown.message, switch(shown.message, "Cut for me").custom_id)
        await fake.click(user, shown.message, switch(shown.message, "Lay away without Confirm").custom_id)
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    for user in (alice, bob):
        panel = fake.dms(user)[-1]
        pick = next(s for s in panel.selects() if ":pick" in s.custom_id)
        seq = table.seq
        laid = await fake.select(user, panel, pick.custom_id, pick.values()[:2])
        assert "Confirm" not in [b.label for b in laid.message.buttons()]  # laid away by the pick itself
        assert table.seq > seq
    await bot.controller.computer.idle()
    await fake.settle()
    cutter = table.names[table.state.non_dealer]
    assert table.state.phase is bh.Phase.PLAY  # nobody pressed Cut
    assert any(f"{cutter} cuts: the up-card is" in m.content for m in fake.channel_messages(fake.channel))
    assert "to cut" not in waiting_line(fake, fake.channel)


async def test_the_cut_waits_for_a_press_by_default_and_says_where_to_change_that(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    for user in (alice, bob):
        panel = fake.dms(user)[-1]
        pick = next(s for s in panel.selects() if ":pick" in s.custom_id)
        chosen = await fake.select(user, panel, pick.custom_id, pick.values()[:2])
        await fake.click(user, chosen.message, "Confirm")
    await bot.controller.computer.idle()
    await fake.settle()
    assert table.state.phase is bh.Phase.CUT
    cutter = [alice, bob][table.state.non_dealer]
    panel = fake.dms(cutter)[-1]
    assert "Cut" in [b.label for b in panel.buttons()] and "/tavern me" in panel.content


def test_play_my_only_card_plays_it_and_only_then() -> None:
    """``forced``: the only playable card of a player who asked, never a choice, never for one who didn't."""
    adapter = adapter_module.ADAPTER
    seats = (Seat(1, "Ann"), Seat(2, "Bob"))
    found = {"only": 0, "choice": 0}
    for seed in range(40):
        state, _ = bh.start(seed, 2, bh.Options(target=61))
        rng = random.Random(seed)
        while not bh.is_over(state) and min(found.values()) < 5:
            [seat, *_] = bh.waiting_for(state)
            legal = bh.legal_actions(state, seat)
            table = Table(1, "bhargage", adapter, 1, 1, seed, state.options, seats, state, 0, 0.0, 0.0)
            on = adapter.forced(table, lambda _: Prefs(auto_play=True, auto_cut=True))
            off = adapter.forced(table, lambda _: Prefs())
            assert off is None
            if state.phase is bh.Phase.PLAY:
                if len(legal) == 1:
                    assert on == (seat, legal[0])
                    found["only"] += 1
                else:
                    assert on is None
                    found["choice"] += 1
            elif state.phase is bh.Phase.CUT:
                assert on == (seat, bh.Cut(seat))
            else:
                assert on is None
            state, _ = bh.apply(state, rng.choice(legal))
    assert min(found.values()) >= 5
