"""Bharg Deluxe on the fake Discord: long hands, restarts, leaving, idle players, closed DMs and bad input."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import replace
from typing import Any

from bot.base.i18n import t
from bot.base.refusals import UserFacingError
from bot.games import Move as Move_
from bot.rules import deluxe as D
from bot.settings import Settings
from bot.store import NewLobby
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_deluxe_discord import (
    boot,
    labels,
    live_panel,
    menu,
    menus,
    open_table,
    pings,
    play_turn,
    to_move,
)


async def the_table(bot: Any, fake: FakeDiscord) -> Any:
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    return table


async def discard_last(fake: FakeDiscord, user: FakeUser, panel: FakeMessage) -> None:
    """Draw from the deck, then discard the highest card (so the Discard Queue grows): two clicks."""
    if "Draw from deck" in labels(panel):
        panel = (await fake.click(user, panel, "Draw from deck")).message
    last = menus(panel, "toss")[-1]
    done = (await fake.select(user, panel, last.custom_id, [last.options[-1].value])).message
    assert done is panel and "Your turn is over" in done.text()
    assert not (done.buttons() or done.selects())  # the turn is over: no old controls stay on the panel


async def test_a_hand_of_more_than_25_cards_keeps_every_card_reachable(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, seed=11)
    users = [fake.add_user("ann"), fake.add_user("bob")]
    await open_table(fake, users)
    table = await the_table(bot, fake)
    while True:
        user = to_move(fake, users)
        panel = live_panel(fake, user)
        offered = sum(len(s.options) for s in panel.selects() if ":take:" in s.custom_id)
        if offered >= 22:
            break
        await discard_last(fake, user, panel)
    # take the whole Discard Queue: the hand grows past one menu's 25 options
    takes = [s for s in panel.selects() if ":take:" in s.custom_id]
    biggest = takes[-1].options[-1]
    assert biggest.label.startswith(f"Take {offered}:")
    seat = table.seat_of(user.id)
    queue_top_first = list(reversed(table.state.queue))
    assert queue_top_first[-1].title in biggest.label  # the take goes down to the queue's bottom card
    said = biggest.description or ""
    assert said.endswith("to bind now") or said == "nothing more to bind"  # the gain, as the hint says it
    panel = (await fake.select(user, panel, takes[-1].custom_id, [biggest.value])).message
    hand = D.view(table.state, seat).hand
    assert len(hand) > 25
    # the bind step: every card can be discarded from the discard menus, 25 a menu
    tosses = menus(panel, "toss")
    assert len(tosses) == (len(hand) + 24) // 25 >= 2
    assert [int(o.value) for s in tosses for o in s.options] == list(range(len(hand)))
    assert all(s.placeholder.startswith("Discard (ends your turn): ") for s in tosses)
    # building a meld by hand: the card menus cover the hand too
    panel = (await fake.click(user, panel, "Build a meld by hand")).message
    card_menus = menus(panel, "pick")
    assert len(card_menus) == (len(hand) + 24) // 25 >= 2
    values = [o.value for s in card_menus for o in s.options]
    assert sorted(int(v) for v in values) == list(range(len(hand)))
    assert [o.label for s in card_menus for o in s.options] == [f"{c.title} {c.suit_emoji}" for c in hand]
    assert f"{len(hand)} cards" in panel.text()
    # picks in different menus accumulate (the selection travels in the custom ids)
    first, second = card_menus[0], card_menus[1]
    panel = (await fake.select(user, panel, first.custom_id, [first.options[0].value])).message
    second = menus(panel, "pick")[1]
    panel = (await fake.select(user, panel, second.custom_id, [second.options[-1].value])).message
    picked_line = next(line for line in panel.text().splitlines() if line.startswith("**Picked:**"))
    assert hand[0].title in picked_line and hand[-1].title in picked_line
    picks = menus(panel, "pick")
    assert [o.value for o in picks[0].options if o.default] == ["0"]
    assert [o.value for o in picks[1].options if o.default] == [str(len(hand) - 1)]
    assert all(len(s.custom_id) <= 100 for s in panel.selects())
    # back to the bind step, and discard the very last card, in the second discard menu
    panel = (await fake.click(user, panel, "Back")).message
    last = menus(panel, "toss")[-1]
    assert last.options[-1].label == f"{hand[-1].title} {hand[-1].suit_emoji}"
    seq = table.seq
    await fake.select(user, panel, last.custom_id, [last.options[-1].value])
    assert table.seq == seq + 1 and len(table.state.hands[seat]) == len(hand) - 1


async def test_restart_mid_turn_and_old_buttons_still_work(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, seed=3)
    users = [fake.add_user("ann"), fake.add_user("bob"), fake.add_user("cat")]
    await open_table(fake, users)
    table = await the_table(bot, fake)
    user = to_move(fake, users)
    panel = (await fake.click(user, live_panel(fake, user), "Draw from deck")).message
    drawn = table.state.hands[table.seat_of(user.id)][-1]
    assert f"You drew **{drawn.title}" in panel.text()
    panel = (await fake.click(user, panel, "Build a meld by hand")).message
    first = menu(panel, "pick")
    panel = (await fake.select(user, panel, first.custom_id, [first.options[0].value])).message
    seq, board_id = table.seq, table.meta.board_id
    await bot.close()

    bot2 = await boot(start_bot, seed=3)
    again = await the_table(bot2, fake)
    assert again is not table and again.seq == seq
    n_pings = len(pings(fake))
    panel = (await fake.click(user, panel, "Back")).message  # the picking state lived in the custom ids
    toss = menu(panel, "toss")
    done = await fake.select(user, panel, toss.custom_id, [toss.options[0].value])
    assert not done.ephemeral and done.message is panel and "Your turn is over" in panel.content
    assert again.seq == seq + 1 and len(pings(fake)) == n_pings + 1
    nxt = to_move(fake, users)
    assert nxt is not user and "discarded" in pings(fake)[-1].content
    assert again.meta.board_id == board_id
    assert fake.messages[board_id].edits  # the same table message, kept current
    await play_turn(fake, nxt, live_panel(fake, nxt))
    assert again.seq > seq + 1


async def leave(fake: FakeDiscord, user: FakeUser) -> None:
    asked = await fake.slash(user, fake.channel, "deluxe leave")
    assert asked.ephemeral and "Leave this game?" in asked.content
    done = await fake.click(user, asked.message, "Leave the game")
    assert done.content == "You left the game."


async def test_leaving_three_to_two_then_two_to_one(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await boot(start_bot, seed=8)
    users = [fake.add_user("ann"), fake.add_user("bob"), fake.add_user("cat")]
    await open_table(fake, users)
    table = await the_table(bot, fake)
    mover = to_move(fake, users)
    await leave(fake, mover)
    assert table.state.left[table.seat_of(mover.id)] and not D.is_over(table.state)
    assert "left the game" in pings(fake)[-1].content
    rest = [u for u in users if u is not mover]
    for _ in range(4):  # the leaver is skipped from now on
        nxt = to_move(fake, users)
        assert nxt in rest
        await play_turn(fake, nxt, live_panel(fake, nxt))
    again = await fake.slash(mover, fake.channel, "deluxe leave")
    assert again.ephemeral and "already left" in again.content
    quitter = next(u for u in rest if u is not to_move(fake, users))
    await leave(fake, quitter)
    winner = next(u for u in rest if u is not quitter)
    final = fake.channel_messages(fake.channel)[-1]
    assert "Rematch" in labels(final) and f"**{winner.name}** won the game" in final.content
    record = await bot.store.load_game(table.id)
    assert record is not None and record.status == "finished" and record.result is not None
    assert record.result["winners"] == [table.seat_of(winner.id)]
    assert await bot.tables.table_for_channel(fake.channel.id) is None


async def test_bad_input_is_refused_and_changes_nothing(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, seed=2)
    ann, bob, cat, eve = (fake.add_user(n) for n in ("ann", "bob", "cat", "eve"))
    created = await fake.slash(ann, fake.channel, "deluxe create", target=50, fast_start=0)
    lobby = created.message
    assert "target 50" in lobby.content
    busy = await fake.slash(bob, fake.channel, "deluxe create")
    assert busy.ephemeral and "already an open table" in busy.content
    assert (await fake.click(ann, lobby, "Join")).content == "You are already at this table."
    assert (await fake.click(ann, lobby, "Leave")).content.startswith("You are the host")
    assert (await fake.click(bob, lobby, "Leave")).content == "You are not at this table."
    assert (await fake.click(ann, lobby, "Start")).content.startswith("Bharg Deluxe needs at least 2")
    await fake.click(bob, lobby, "Join")
    assert (await fake.click(bob, lobby, "Start")).content == "Only the host can start this table."
    assert (await fake.click(bob, lobby, "Cancel")).content == "Only the host can cancel this table."
    extra = [fake.add_user(f"p{i}") for i in range(4)]
    for u in extra:
        await fake.click(u, lobby, "Join")
    full = await fake.click(cat, lobby, "Join")
    assert full.ephemeral and full.content == "This table is full (6 players)."
    assert "Players (6/6)" in lobby.content
    for u in extra:
        await fake.click(u, lobby, "Leave")
    await fake.click(cat, lobby, "Join")
    await fake.click(ann, lobby, "Start")
    table = await the_table(bot, fake)
    seq = table.seq

    in_dm = await fake.slash(ann, fake.dm_channel(ann), "deluxe hand", force=True)
    assert in_dm.content == t("tavern.no-game-here", game="Bharg Deluxe")  # (her game is in the server)
    busy = await fake.slash(eve, fake.channel, "deluxe create")
    assert "already a game in this channel" in busy.content
    outsider = await fake.click(eve, lobby, "Show my hand")  # on the board the lobby became
    assert outsider.ephemeral and outsider.content == "You are not playing at this table."
    assert (
        await fake.slash(eve, fake.channel, "deluxe hand")
    ).content == "You are not playing at this table."

    users = [ann, bob, cat]
    mover = to_move(fake, users)
    waiter = next(u for u in users if u is not mover)
    shown = await fake.slash(waiter, fake.channel, "deluxe hand")
    assert shown.ephemeral and shown.message.buttons() == [] and "Waiting for" in shown.content
    # a fresh ephemeral panel and the DM panel: both offer the draw; a double click applies once
    eph = (await fake.slash(mover, fake.channel, "deluxe hand")).message
    dm = live_panel(fake, mover)
    draw_id = dm.button("Draw from deck").custom_id
    first, second = await asyncio.gather(
        fake.click(mover, dm, "Draw from deck"), fake.click(mover, eph, "Draw from deck")
    )
    # both clicks are acknowledged at once (deferred update); the loser hears why in an ephemeral followup
    assert first.type == second.type == 6
    stale_text = "That button is from an earlier turn."
    refused = [r for r in (first, second) if [f.content for f in r.followups] == [stale_text]]
    assert len(refused) == 1 and refused[0].followups[0].ephemeral
    assert table.seq == seq + 1
    old = refused[0].interaction.message
    assert old is not None
    # Pressed again (a client still showing it, even where the panel lost its controls): refused up front.
    data = {"custom_id": draw_id, "component_type": 2}
    stale = await fake._interact(3, mover, old.channel, data, "old draw", message=old)
    assert stale.ephemeral and stale.content in (stale_text, "That button is out of date.")
    assert table.seq == seq + 1
    winner = next(r for r in (first, second) if r is not refused[0])
    panel = winner.interaction.message
    assert panel is not None and panel.edits  # the winning panel was edited in place
    assert "Build a meld by hand" in labels(panel)

    # one picked card that binds as nothing: a hint, not the engine's error; the Bind button stays off
    state: D.State = table.state
    seat = table.seat_of(mover.id)
    hand = D.view(state, seat).hand
    panel = (await fake.click(mover, panel, "Build a meld by hand")).message
    picks = menu(panel, "pick")
    one = await fake.select(mover, panel, picks.custom_id, [picks.options[0].value])
    bind = one.message.button("Bind picked cards")
    assert not state.ace_pile and D.straight_suit(state) is None  # seed 2: no Ace turned up
    assert bind.disabled and "Pick 2 or more cards to bind" in one.message.text()
    assert "Straights need" not in one.message.text()
    # two cards that make nothing: now the engine's reason is shown
    picks = menu(one.message, "pick")
    two = await fake.select(mover, one.message, picks.custom_id, ["0", "1"])
    assert two.message.button("Bind picked cards").disabled
    assert (
        "Pick 2 or more" not in two.message.text() and "until an Ace is on the Ace Pile" in two.message.text()
    )
    # three cards that make nothing: the engine's reason is shown
    trio = next(
        (i, j, k)
        for i in range(len(hand))
        for j in range(i + 1, len(hand))
        for k in range(j + 1, len(hand))
        if not D.is_bharg_set([hand[i], hand[j], hand[k]])
    )
    picks = menu(two.message, "pick")
    three = await fake.select(mover, two.message, picks.custom_id, [str(i) for i in trio])
    assert three.message.button("Bind picked cards").disabled
    assert "Those cards make no meld" in three.message.text() and "no bharg set" in three.message.text()
    assert table.seq == seq + 1 and len(table.state.hands[seat]) == 11

    # forged menu values the panel never offered are refused by the adapter too, and change nothing
    from bot.games import Click
    from bot.games import deluxe as V

    back = V.ADAPTER.click(table, seat, Click("g", table.id, str(table.seq), "back", ""))
    assert not isinstance(back, Move_) and back.controls
    token = str(table.seq)
    for verb, arg, values in (
        ("meld", "", ("1",)),  # one card: not a meld this panel offers
        ("meld", "", ("zzzzzz",)),  # cards past the hand
        ("meld", "", ()),
        ("meld", "0", ("7",)),
        ("toss", "0", (str(len(hand) + 1),)),
        ("toss", "3", ("0",)),
        ("toss", "x", ("0",)),
        ("toss", "0", ("0", "1")),
        ("build", "1", ()),
    ):
        try:
            V.ADAPTER.click(table, seat, Click("g", table.id, token, verb, arg, values))
        except UserFacingError:
            continue
        raise AssertionError(f"{verb} {arg} {values} was accepted")
    assert table.seq == seq + 1


async def test_lobby_expires_and_channel_shared_with_bhargage(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, dataclasses.replace(settings, lobby_minutes=0.004))
    ann = fake.add_user("ann")
    lobby = (await fake.slash(ann, fake.channel, "deluxe create")).message
    await fake.wait_for(lambda: "not started in time" in lobby.content, what="the lobby to expire")
    assert lobby.buttons() == []
    other = fake.add_channel("cribbage")
    await bot.store.create_lobby(
        NewLobby("bhargage", fake.guild.id, other.id, ann.id, created_at=time.time())
    )
    refused = await fake.slash(ann, other, "deluxe create")
    assert refused.ephemeral and "already an open table or challenge" in refused.content


async def test_closed_dms_play_from_show_my_hand_and_idle_players(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    timed = dataclasses.replace(settings, nudge_minutes=1, claim_minutes=3)
    bot = await boot(start_bot, timed, seed=4)
    ann, bob = fake.add_user("ann", dms_closed=True), fake.add_user("bob", dms_closed=True)
    cat = fake.add_user("cat")
    users = [ann, bob, cat]
    await open_table(fake, users)
    table = await the_table(bot, fake)
    mover = to_move(fake, users)
    if mover is cat:  # let cat play one turn by DM so that a closed-DM player is to move
        await play_turn(fake, cat, live_panel(fake, cat))
        mover = to_move(fake, users)
    notices = [m for m in fake.channel_messages(fake.channel) if "DMs are closed" in m.content]
    assert [m for m in notices if mover.mention in m.content] and fake.dms(mover) == []
    assert len(notices) == 2  # ann and bob are each told once
    ping = pings(fake)[-1]
    panel = (await fake.click(mover, ping, "Show my hand")).message
    assert panel.ephemeral and "Draw from deck" in labels(panel)
    await play_turn(fake, mover, panel)
    assert table.seq >= 2 and to_move(fake, users) is not mover

    idle = to_move(fake, users)

    async def idle_pass(minutes: float) -> tuple[list[FakeMessage], list[FakeMessage]]:
        """Set the clock this long after the last move and run the timer pass now (no waiting)."""
        bot.clock.advance(table.last_action_at + minutes * 60 - bot.clock())
        await bot.controller.timers.run()
        await fake.settle()
        msgs = fake.channel_messages(fake.channel)
        return [m for m in msgs if "waiting for you" in m.content], [
            m for m in msgs if "has not moved" in m.content
        ]

    assert await idle_pass(0.5) == ([], [])
    nudge, offer = await idle_pass(1.5)
    assert len(nudge) == 1 and idle.mention in nudge[0].content and offer == []
    assert await idle_pass(2.5) == (nudge, [])  # nudged once per turn
    nudge, offer = await idle_pass(3.5)
    assert len(nudge) == 1 and len(offer) == 1 and idle.mention in offer[0].content
    assert await idle_pass(4) == (nudge, offer)  # offered once per turn
    remove = offer[0].buttons()[0]
    assert remove.label == f"Remove {idle.name}"
    own = await fake.click(idle, offer[0], remove.label)
    assert own.ephemeral and "waiting for you" in own.content
    other = next(u for u in users if u is not idle)
    await fake.click(other, offer[0], remove.label)
    assert table.state.left[table.seat_of(idle.id)] and not D.is_over(table.state)
    assert to_move(fake, users) is not idle


async def test_final_bind_window_panel_offers_bind_and_done_only_to_its_player() -> None:
    from bot.games import Seat, Table
    from bot.games import deluxe as V
    from bot.games import deluxe_panel as P

    state, _ = D.start(5, 3, D.Options())
    state = replace(state, phase=D.Phase.FINAL_BIND, turn=1, final_binders=(2,))
    seats = (Seat(1, "Ann"), Seat(2, "Bob"), Seat(3, "Cat"))
    table = Table(1, "deluxe", V.ADAPTER, 1, 1, 5, state.options, seats, state, 7, 0.0, 0.0)
    panel = P.turn_panel(table, 1)
    assert panel.content.startswith("**Final bind**")
    names = [getattr(i, "label", None) for i in panel.controls]
    assert "Done" in names and "Build a meld by hand" in names
    assert not any(n and n.startswith("Discard") for n in names)
    assert not any(getattr(i, "verb", "") == "toss" for i in panel.controls)
    built = P.turn_panel(table, 1, build=True, mask=1)
    assert [getattr(i, "label", None) for i in built.controls][-3:] == ["Bind picked cards", "Clear", "Back"]
    assert all(i.token == "7" for i in panel.controls)
    waiting = P.turn_panel(table, 2)
    assert waiting.controls == () and waiting.content == "Waiting for Bob."


async def test_table_and_rules_commands(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    users = [fake.add_user("ann"), fake.add_user("bob")]
    rules = await fake.slash(users[0], fake.channel, "deluxe rules")
    assert rules.ephemeral and "partial straight" in rules.text()
    nothing = await fake.slash(users[0], fake.channel, "deluxe table")
    assert nothing.ephemeral and "no Bharg Deluxe game" in nothing.content
    await open_table(fake, users)
    table = await the_table(bot, fake)
    old = table.meta.board_id
    old_edits = len(fake.messages[old].edits)
    posted = await fake.slash(users[1], fake.channel, "deluxe table")
    assert not posted.ephemeral and "Straight suit" in posted.text()
    assert table.meta.board_id == posted.message.id != old
    mover = to_move(fake, users)
    await play_turn(fake, mover, live_panel(fake, mover))
    assert posted.message.edits and len(fake.messages[old].edits) == old_edits  # only the new one is kept


def test_more_than_25_melds_shows_the_25_best_within_discord_limits() -> None:
    from bot.base.panel import Select
    from bot.games import Click, Seat, Table
    from bot.games import deluxe as V
    from bot.games import deluxe_panel as P
    from bot.render import deluxe as R

    state, _ = D.start(5, 3, D.Options())
    hand = tuple(sorted(state.deck[:40], key=lambda c: (c.rank.value, c.index)))
    hands = (hand, *state.hands[1:])
    state = replace(state, hands=hands, phase=D.Phase.BIND, turn=0)
    seats = (Seat(1, "Ann"), Seat(2, "Bob"), Seat(3, "Cat"))
    table = Table(1, "deluxe", V.ADAPTER, 1, 1, 5, state.options, seats, state, 9, 0.0, 0.0)
    assert len(D.bindable_melds(state, 0)) > 25
    panel = P.turn_panel(table, 0)
    selects = [c for c in panel.controls if isinstance(c, Select)]
    melds = selects[0]
    assert melds.verb == "meld" and len(melds.options) == 25 and len(selects) <= 4
    assert "more in **Build a meld**" in (panel.embed.description if panel.embed else "")
    best = [R.points(m.cards) for m in P.ranked_melds(state, 0)]
    assert best[:25] == sorted(best, reverse=True)[:25]
    assert len({o.value for o in melds.options}) == 25
    for s in selects:
        assert len(s.options) <= 25
        assert all(len(o.label) <= 100 and len(o.description or "") <= 100 for o in s.options)
        assert all(len(o.value) <= 100 for o in s.options)
    assert {c.row for c in panel.controls} <= set(range(5))
    assert panel.embed is not None and len(panel.embed.description) <= 4096
    # every offered meld binds; a meld not offered (past the 25 best) is refused from the menu
    move = V.ADAPTER.click(table, 0, Click("g", 1, "9", "meld", "", (melds.options[-1].value,)))
    assert isinstance(move, Move_) and D.can(state, move.action)
    offered = {o.value for o in melds.options}
    hidden = next(
        m
        for m in P.ranked_melds(state, 0)
        if P.mask_text(P.mask_of(D.view(state, 0).hand, m.cards)) not in offered
    )
    value = P.mask_text(P.mask_of(D.view(state, 0).hand, hidden.cards))
    try:
        V.ADAPTER.click(table, 0, Click("g", 1, "9", "meld", "", (value,)))
    except UserFacingError:
        pass
    else:
        raise AssertionError("a meld the menu did not offer was accepted")
