"""Players' preferences (``/tavern me``): switches in a private panel, stored, and what they change at a
Bhargage table — the cut made at once, the only playable card played, two picked cards laid away with no
Confirm. The two that decide nothing (the cut, an only card) are on by default, the lay-away's Confirm is
kept; what a player chose is stored, and a player who never chose follows the defaults (issue 46, item 7)."""

from __future__ import annotations

import random
from typing import Any

from bot.games import Prefs, Seat, Table
from bot.games import bhargage as adapter_module
from bot.rules import bhargage as bh
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.test_bhargage_discord import challenge, waiting_line


def switch(panel: FakeMessage, words: str) -> Any:
    [button] = [b for b in panel.buttons() if words in (b.label or "")]
    return button


async def test_the_switches_start_at_their_defaults_flip_in_place_and_are_kept(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    ann = fake.add_user("ann")
    shown = await fake.slash(ann, fake.channel, "tavern me")
    assert shown.ephemeral
    text = shown.message.text()
    assert "**Cut for me** — on." in text and "**Play my only card** — on." in text
    assert "**Lay away without Confirm** — off." in text
    cut = switch(shown.message, "Cut for me")
    flipped = await fake.click(ann, shown.message, cut.custom_id)
    assert flipped.type == 7 and flipped.message is shown.message  # the same message, updated
    assert "**Cut for me** — off." in shown.message.text()
    assert not bot.preferences.of(ann.id).auto_cut
    assert await bot.store.user_prefs() == {ann.id: {"auto_cut": False}}
    # read again at the next start
    await bot.close()
    again = await start_bot()
    assert again.preferences.of(ann.id) == Prefs(auto_cut=False)
    # and back on: her choice is kept as a choice, even where it is the default today
    await fake.click(ann, shown.message, switch(shown.message, "Cut for me").custom_id)
    assert await again.store.user_prefs() == {ann.id: {"auto_cut": True}}
    assert again.preferences.of(ann.id) == Prefs()


async def test_a_player_who_never_chose_gets_the_defaults_and_a_choice_stays(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """Rows written before the defaults changed hold only switches turned on: a player with none (who never
    chose) now cuts and plays an only card at once; one who turned a switch on keeps it; a choice of off,
    stored since, stays off."""
    fake = fake_discord
    bot = await start_bot()
    ann, bob, cy = fake.add_user("ann"), fake.add_user("bob"), fake.add_user("cy")
    await bot.store.set_user_prefs(bob.id, {"quick_discard": True})
    await bot.store.set_user_prefs(cy.id, {"auto_cut": False, "auto_play": False})
    await bot.close()
    again = await start_bot()
    assert again.preferences.of(ann.id) == Prefs(auto_cut=True, auto_play=True, quick_discard=False)
    assert again.preferences.of(bob.id) == Prefs(auto_cut=True, auto_play=True, quick_discard=True)
    assert again.preferences.of(cy.id) == Prefs(auto_cut=False, auto_play=False, quick_discard=False)


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


async def test_the_cut_is_made_at_once_by_default_and_quick_discard_needs_no_confirm(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    for user in (alice, bob):  # Cut for me is on already: nobody asked for it
        shown = await fake.slash(user, fake.channel, "tavern me")
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


async def test_the_cut_waits_for_a_press_when_turned_off_and_says_where_to_turn_it_on(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    for user in (alice, bob):
        shown = await fake.slash(user, fake.channel, "tavern me")
        await fake.click(user, shown.message, switch(shown.message, "Cut for me").custom_id)
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
    assert "Cut" in [b.label for b in panel.buttons()]
    assert "Tip: turn on **Cut for me** in `/tavern me` and the cut is made for you." in panel.content


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
            on = adapter.forced(table, lambda _: Prefs())  # both on by default
            off = adapter.forced(table, lambda _: Prefs(auto_play=False, auto_cut=False))
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
