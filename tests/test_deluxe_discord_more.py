"""Bharg Deluxe on the fake Discord: the D7 final-bind window, lobby races, a lost channel, a busy table."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import discord

from bot.games import deluxe as V
from bot.games import deluxe_panel as P
from bot.render import deluxe as R
from bot.rules import deluxe as D
from bot.rules.decktet import cards, sort_key
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_deluxe_discord import (
    BOARD_HEAD,
    boot,
    labels,
    live_panel,
    open_table,
    pings,
    play_turn,
    to_move,
)

# Seed 131, three players, default options: the first player (seat 2) draws from the deck and can bind
# three bharg sets (found offline by searching seeds with the engine), then discards their last card.
D7_SEED = 131
D7_MELDS = ("journey, savage, castle", "ace-suns, ace-waves, battle, forest", "cave, pact, merchant")


async def pick(fake: FakeDiscord, user: FakeUser, panel: FakeMessage, table: Any, names: str) -> FakeMessage:
    """Pick exactly these cards in the (single) card menu, by their positions in the sorted hand."""
    seat = table.seat_of(user.id)
    hand = list(D.view(table.state, seat).hand)
    values = []
    for c in cards(names):
        i = next(i for i, h in enumerate(hand) if h == c and str(i) not in values)
        values.append(str(i))
    if "Build a meld by hand" in labels(panel):
        panel = (await fake.click(user, panel, "Build a meld by hand")).message
    menu = next(s for s in panel.selects() if ":pick:" in s.custom_id)
    return (await fake.select(user, panel, menu.custom_id, values)).message


async def cat_goes_out(fake: FakeDiscord, cat: FakeUser, table: Any) -> FakeMessage:
    """Seed 131: cat (the first player) draws, binds the three melds and discards the last card on the first
    turn; returns a second (ephemeral) panel cat opened before discarding."""
    panel = (await fake.click(cat, live_panel(fake, cat), "Draw from deck")).message
    # the first meld by hand, the other two from the meld menu (one click each), the last card discarded
    panel = await pick(fake, cat, panel, table, D7_MELDS[0])
    assert "These make a 🔷 bharg set" in panel.text()
    panel = (await fake.click(cat, panel, "Bind picked cards")).message
    for meld in D7_MELDS[1:]:
        hand = D.view(table.state, 2).hand
        melds = next(s for s in panel.selects() if ":meld" in s.custom_id)
        option = next(o for o in melds.options if o.label == R.cards_text(sorted(cards(meld), key=sort_key)))
        assert option.description is not None and option.description.startswith("Bharg set of")
        named = P.chosen(hand, P.parse_mask(option.value))
        assert sorted(named, key=sort_key) == sorted(cards(meld), key=sort_key)
        panel = (await fake.select(cat, panel, melds.custom_id, [option.value])).message
    last = D.view(table.state, 2).hand
    assert len(last) == 1
    stale_cat = (await fake.slash(cat, fake.channel, "deluxe hand")).message  # a second panel
    assert "Build a meld by hand" in labels(stale_cat)
    toss = next(s for s in panel.selects() if ":toss:" in s.custom_id)
    assert [o.label for o in toss.options] == [R.card_text(last[0])]
    await fake.select(cat, panel, toss.custom_id, [toss.options[0].value])
    return stale_cat


async def test_final_bind_window_after_the_first_player_goes_out_on_the_first_turn(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, seed=D7_SEED)
    ann, bob, cat = users = [fake.add_user(n) for n in ("ann", "bob", "cat")]
    await open_table(fake, users)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.state.first_seat == 2
    assert to_move(fake, users) is cat
    stale_cat = await cat_goes_out(fake, cat, table)
    assert table.state.phase == D.Phase.FINAL_BIND and table.state.turn == 0

    # the channel: cat went out, ann is pinged to bind once more; the table message says so
    ping = pings(fake)[-1]
    assert ann.mention in ping.content and "bind once more before scoring" in ping.content
    assert "**cat** has no cards left" in ping.content
    board = fake.messages[table.meta.board_id]
    assert "Final bind: **ann** may bind once more" in board.text()
    # ann's DM: Bind and Done, no draw and no discard
    final = live_panel(fake, ann)
    assert final.content.startswith("**Final bind**")
    assert "Done" in labels(final) and "Build a meld by hand" in labels(final)
    assert not any(n and n.startswith(("Discard", "Draw")) for n in labels(final))
    assert not any(":toss:" in s.custom_id for s in final.selects())

    # out of turn in the window: bob and cat get no controls, old buttons are refused, nothing changes
    seq = table.seq
    for who in (bob, cat):
        shown = await fake.slash(who, fake.channel, "deluxe hand")
        assert shown.ephemeral and "Waiting for ann" in shown.content and shown.message.buttons() == []
    assert stale_cat.buttons() == [] and stale_cat.selects() == []  # replaced: no live controls left
    assert table.seq == seq and table.state.turn == 0

    # ann is done; bob gets his window; when he is done the hand is scored and hand 2 begins with ann
    second = (await fake.slash(ann, fake.channel, "deluxe hand")).message
    assert "Done" in labels(second)
    await fake.click(ann, final, "Done")
    assert table.state.phase == D.Phase.FINAL_BIND and table.state.turn == 1
    ping = pings(fake)[-1]
    assert bob.mention in ping.content and "bind once more" in ping.content
    await fake.settle()  # her press on her DM panel made it her live panel: the ephemeral one is retired
    assert second.buttons() == [] and second.selects() == [] and table.state.turn == 1
    await fake.click(bob, live_panel(fake, bob), "Done")
    sheets = [m for m in fake.channel_messages(fake.channel) if "**Hand 1 scored**" in m.content]
    assert len(sheets) == 1
    cat_row = next(line for line in sheets[0].content.splitlines() if line.startswith("cat "))
    bound = sum(D.card_points(c) for meld in D7_MELDS for c in cards(meld))
    assert bound == 18 and cat_row.split()[1:4] == ["18", "0", "+18"]  # all bound, none left in hand
    assert table.state.hand_no == 2 and table.state.first_seat == 0
    assert to_move(fake, users) is ann and "your turn" in pings(fake)[-1].content


async def test_joining_a_started_table_is_refused(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    ann, bob, eve = (fake.add_user(n) for n in ("ann", "bob", "eve"))
    lobby = (await fake.slash(ann, fake.channel, "deluxe create")).message
    await fake.click(bob, lobby, "Join")
    shown_before = list(lobby.components)  # what a client that has not refreshed still shows
    await fake.click(ann, lobby, "Start")
    table = await bot.tables.table_for_channel(fake.channel.id)
    # The Start press made the lobby message the table's board.
    assert table is not None and len(table.seats) == 2 and labels(lobby) == ["Show my hand"]
    seq, board_shown, edits = table.seq, list(lobby.components), len(lobby.edits)
    lobby.components = shown_before
    late = await fake.click(eve, lobby, "Join")
    # The late press is told privately, and the board is left alone (no edit puts a lobby text on it).
    assert late.ephemeral and late.content == "This table has already started." and not late.followups
    assert len(lobby.edits) == edits and lobby.content.startswith(BOARD_HEAD)
    lobby.components = board_shown
    assert table.seq == seq and len(table.seats) == 2 and table.seat_of(eve.id) is None
    lobby_id = int(late.interaction.data["custom_id"].split(":")[2])
    stored = await bot.store.get_lobby(lobby_id)
    assert stored is not None and list(stored.members) == [ann.id, bob.id]


async def test_players_joining_at_the_same_moment_all_get_a_seat(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    host = fake.add_user("host")
    others = [fake.add_user(f"p{i}") for i in range(5)]
    lobby = (await fake.slash(host, fake.channel, "deluxe create")).message
    results = await asyncio.gather(*(fake.click(u, lobby, "Join") for u in others))
    assert all(not r.ephemeral for r in results)
    lobby_id = int(lobby.button("Join").custom_id.split(":")[2])
    stored = await bot.store.get_lobby(lobby_id)
    assert stored is not None and sorted(stored.members) == sorted([host.id, *(u.id for u in others)])
    assert "Players (6/6)" in lobby.content
    late = fake.add_user("late")
    full = await fake.click(late, lobby, "Join")
    assert full.ephemeral and full.content == "This table is full (6 players)."


async def test_two_tables_opened_at_the_same_moment_make_one_lobby(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    results = await asyncio.gather(*(fake.slash(u, fake.channel, "deluxe create") for u in (ann, bob)))
    refused = [r for r in results if r.ephemeral]
    assert len(refused) == 1 and "already an open table" in refused[0].content
    assert len(await bot.store.open_lobbies(channel_id=fake.channel.id)) == 1


async def test_lost_channel_permission_does_not_stop_the_game(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """The bot can no longer post in the channel: moves still go through and the next player gets their DM."""
    fake = fake_discord
    bot = await boot(start_bot, seed=3)
    users = [fake.add_user(n) for n in ("ann", "bob", "cat")]
    await open_table(fake, users)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    mover = to_move(fake, users)
    n_pings = len(pings(fake))
    await fake.set_bot_permissions(fake.channel, 0)
    seq = table.seq
    await play_turn(fake, mover, live_panel(fake, mover))
    assert table.seq > seq and len(pings(fake)) == n_pings  # nothing could be posted
    nxt = next(u for u in users if table.seat_of(u.id) == table.state.turn)
    assert nxt is not mover
    panel = live_panel(fake, nxt)
    assert panel.content.startswith("**Your turn")  # the next player still hears of their turn
    await fake.set_bot_permissions(fake.channel, discord.Permissions.all().value)
    await play_turn(fake, nxt, panel)
    # back in the channel: the ping carries what happened while the bot could not post
    assert len(pings(fake)) == n_pings + 1
    assert pings(fake)[-1].content.count("discarded") >= 2


def test_a_busy_six_player_table_message_fits_one_embed_and_keeps_every_player() -> None:
    from dataclasses import replace

    from bot.games import Seat, Table

    state, _ = D.start(1, 6, D.Options(pawns=True, courts=True))
    partial = D.Meld(D.PARTIAL, cards("journey, mill"), ((1, cards("author, sailor")), (2, cards("savage"))))
    full = D.Meld(D.BHARG_SET, cards("forest, battle, merchant"))
    busy = tuple((partial, full) * 5 for _ in range(6))  # ten melds each, as late in a long hand
    queue = tuple(cards("forest, sailor, pact, desert, soldier, merchant") * 6)
    state = replace(state, bound=busy, queue=queue, turn=5)
    seats = tuple(Seat(i + 1, f"Player number {i}") for i in range(6))
    table = Table(1, "deluxe", V.ADAPTER, 1, 1, 1, state.options, seats, state, 3, 0.0, 0.0)
    full_text = R.table_text(D.view(state, -1), table.names)
    assert len(full_text) > 4096  # too long in full
    embed = V.ADAPTER.board(table).embed
    assert embed is not None
    text = embed.description
    assert len(text) <= 4096
    assert all(f"**Player number {i}**" in text for i in range(6))
    assert text.rstrip().endswith("Waiting for **Player number 5** to draw.")
    assert "the Journey" in text  # the melds are still named, only shorter


async def test_fast_start_1_an_ace_drawn_goes_to_the_pile_and_the_panel_says_so(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, seed=2)  # fast start 1, seed 2: the first draw is the Ace of Leaves
    users = [fake.add_user("ann"), fake.add_user("bob")]
    await open_table(fake, users, fast_start=1)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and not table.state.ace_pile
    mover = to_move(fake, users)
    panel = (await fake.click(mover, live_panel(fake, mover), "Draw from deck")).message
    assert [c.title for c in table.state.ace_pile] == ["Ace of Leaves"]
    assert table.state.phase == D.Phase.DRAW and table.state.turn == table.seat_of(mover.id)
    assert "You drew **Ace of Leaves" in panel.text() and "went onto the empty Ace Pile" in panel.text()
    assert "Draw from deck" in labels(panel)  # the turn starts over: draw or take again
    rules = await fake.slash(mover, fake.channel, "deluxe rules")
    assert "page 1/6" in rules.text()  # the full rules, a page at a time, in Discord; they say too:
    full = (Path(__file__).resolve().parent.parent / "docs" / "rules-deluxe.md").read_text(encoding="utf-8")
    assert "your turn starts over" in " ".join(full.split())


async def test_a_deleted_table_message_is_posted_again(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, seed=3)
    users = [fake.add_user("ann"), fake.add_user("bob")]
    await open_table(fake, users)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    old_id = table.meta.board_id
    mover = to_move(fake, users)  # the board says, before it goes
    fake.messages[old_id].deleted = True  # a moderator removed it
    await play_turn(fake, mover, live_panel(fake, mover))
    new_id = table.meta.board_id
    assert new_id != old_id and "Straight suit" in fake.messages[new_id].text()
    nxt = to_move(fake, users)
    await play_turn(fake, nxt, live_panel(fake, nxt))
    assert table.meta.board_id == new_id and fake.messages[new_id].edits


async def test_a_passing_dm_failure_still_pings_and_updates_the_table(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """A DM that fails for a reason other than closed DMs must not cut the move's announcements short."""
    fake = fake_discord
    bot = await boot(start_bot, seed=3)
    users = [fake.add_user(n) for n in ("ann", "bob", "cat")]
    await open_table(fake, users)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    mover = to_move(fake, users)
    nxt = next(u for u in users if table.seat_of(u.id) == (table.state.turn + 1) % 3)
    # Redrawing the next player's live panel fails, and so does the new DM sent instead.
    fake.fail_next("PATCH", rf"/channels/{fake.dm_channel(nxt).id}/messages/\d+$", 400, 0, "passing failure")
    nxt.dm_failures = 1
    n_pings, n_dms = len(pings(fake)), len(fake.dms(nxt))
    await play_turn(fake, mover, live_panel(fake, mover))
    assert table.state.turn == table.seat_of(nxt.id)
    assert len(pings(fake)) == n_pings + 1 and to_move(fake, users) is nxt
    notice = [m for m in fake.channel_messages(fake.channel) if "didn't deliver your hand" in m.content]
    assert len(notice) == 1 and nxt.mention in notice[0].content
    assert len(fake.dms(nxt)) == n_dms
    panel = (await fake.click(nxt, pings(fake)[-1], "Show my hand")).message
    assert panel.ephemeral and "Draw from deck" in labels(panel)


async def test_a_lobby_started_as_it_expires_is_not_marked_expired(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """Expiry pass and Start click at the same moment: the Start wins, the lobby never says it closed."""
    fake = fake_discord
    bot = await boot(start_bot)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    lobby = (await fake.slash(ann, fake.channel, "deluxe create")).message
    await fake.click(bob, lobby, "Join")
    (stored,) = await bot.store.open_lobbies(channel_id=fake.channel.id)
    real_create = bot.tables.create

    async def slow_create(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.2)  # the Start is still being handled when the lobby's time runs out
        return await real_create(*args, **kwargs)

    bot.tables.create = slow_create  # type: ignore[method-assign]
    await bot.store.update_lobby(stored.id, expires_at=time.time() + 0.1)
    start = asyncio.create_task(fake.click(ann, lobby, "Start"))
    await asyncio.sleep(0.15)  # past the expiry, while Start is mid-way
    await bot.controller.timers.run()
    await start
    await fake.settle()
    assert await bot.tables.table_for_channel(fake.channel.id) is not None
    assert (await bot.store.get_lobby(stored.id)).status == "started"  # type: ignore[union-attr]
    shown = [lobby.content, *(e.content for e in lobby.edits)]
    assert not any("not started in time" in text for text in shown), shown


async def test_a_final_bind_with_nothing_to_bind_is_made_for_the_player(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: Any
) -> None:
    """No click is asked for when there is one answer: with nothing to bind, a final bind is Done at once."""
    fake = fake_discord
    bot = await boot(start_bot, seed=D7_SEED)
    ann, bob, cat = users = [fake.add_user(n) for n in ("ann", "bob", "cat")]
    await open_table(fake, users)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    binds = D.bindable_melds

    def nothing_in_the_final_bind(state: D.State, seat: int) -> list[D.Meld]:
        return [] if state.phase == D.Phase.FINAL_BIND else binds(state, seat)

    monkeypatch.setattr(D, "bindable_melds", nothing_in_the_final_bind)
    clicks_before = len(fake.interactions)
    await cat_goes_out(fake, cat, table)
    await bot.controller.computer.idle()
    await fake.settle()
    assert table.state.hand_no == 2 and table.state.phase == D.Phase.DRAW
    assert not [i for i in fake.interactions[clicks_before:] if i.user in (ann, bob)]
    sheets = [m for m in fake.channel_messages(fake.channel) if "**Hand 1 scored**" in m.content]
    assert len(sheets) == 1
