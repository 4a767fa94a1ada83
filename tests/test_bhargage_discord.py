"""Bhargage through the real bot and the fake Discord, driven only the way players would: slash commands,
selects and buttons, reading what the channel, the DMs and the ephemerals show."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import discord
import pytest

from bot.base.i18n import t
from bot.render import bhargage as render
from bot.rules import bhargage as bh
from bot.rules.decktet import card, cards
from bot.settings import Settings
from tests.conftest import SEED, StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

BOARD_HEAD = "**Bhargage** ("


# ------------------------------------------------------------------------------------------- driving


def board(fake: FakeDiscord, channel: FakeChannel) -> FakeMessage:
    """The newest board message (the one the bot keeps current)."""
    boards = [m for m in fake.channel_messages(channel) if m.content.startswith(BOARD_HEAD)]
    assert boards, "no board in the channel"
    return boards[-1]


def waiting_line(fake: FakeDiscord, channel: FakeChannel) -> str:
    lines = [
        ln for ln in board(fake, channel).content.splitlines() if ln.startswith(("Waiting", "Game over"))
    ]
    assert lines, board(fake, channel).content
    return lines[-1]


def enabled(msg: FakeMessage) -> bool:
    return any(not b.disabled for b in msg.buttons()) or any(not s.disabled for s in msg.selects())


async def panel_for(
    fake: FakeDiscord, channel: FakeChannel, user: FakeUser, closed: set[FakeUser]
) -> FakeMessage | None:
    """The user's current controls: the live DM panel, or, for a user whose DMs are closed (or failed) and
    who has no live DM panel of this hand, a fresh "Show my hand" ephemeral."""
    live = [m for m in fake.dms(user) if enabled(m)]
    if user not in closed and not live:  # on a loaded machine it may come after the bot went quiet a moment
        await fake.wait_for(lambda: [m for m in fake.dms(user) if enabled(m)], timeout=30.0, what=user.name)
        live = [m for m in fake.dms(user) if enabled(m)]
    if user not in closed or (live and _current(fake, channel, live[-1])):
        return live[-1] if live else None
    shows = [
        m
        for m in fake.channel_messages(channel)
        if any(b.custom_id and ":hand:" in b.custom_id and user.name in (b.label or "") for b in m.buttons())
    ]
    assert shows, f"no Show my hand button for {user.name}"
    button = next(
        b
        for b in shows[-1].buttons()
        if b.custom_id and ":hand:" in b.custom_id and user.name in (b.label or "")
    )
    assert button.custom_id is not None
    result = await fake.click(user, shows[-1], button.custom_id)
    assert result.ephemeral and result.message.viewer is user
    return result.message


def _current(fake: FakeDiscord, channel: FakeChannel, panel: FakeMessage) -> bool:
    """A DM panel of the hand the board shows (one from an earlier hand is left behind when a DM fails)."""
    head = board(fake, channel).content.split("\n", 1)[0]
    hand = head.split("· hand ", 1)[1].split(" ", 1)[0] if "· hand " in head else ""
    return f"hand {hand}**" in panel.content


async def act_with_panel(fake: FakeDiscord, user: FakeUser, panel: FakeMessage) -> str:
    """Discard the first two offered cards, or play the first card that may be played."""
    picks = [s for s in panel.selects() if ":pick" in s.custom_id]
    if picks:
        chosen = await fake.select(user, panel, picks[0].custom_id, picks[0].values()[:2])
        assert "Confirm" in [b.label for b in chosen.message.buttons()]
        await fake.click(user, chosen.message, "Confirm")
        return "discard"
    plays = [b for b in panel.buttons() if b.custom_id and ":play:" in b.custom_id and not b.disabled]
    assert plays, f"nothing to do on {panel!r}"
    assert plays[0].custom_id is not None
    await fake.click(user, panel, plays[0].custom_id)
    return "play"


async def step(
    fake: FakeDiscord,
    channel: FakeChannel,
    users: list[FakeUser],
    closed: set[FakeUser] | None = None,
) -> str | None:
    """One move by whoever the board says the table waits for; None when the game is over. What the bot
    does after it (a computer player's move, a forced one) is done before it returns."""
    await computers_idle(fake)
    line = waiting_line(fake, channel)
    if line.startswith("Game over"):
        return None
    body = line.removeprefix("Waiting for ")
    user = min((u for u in users if u.name in body), key=lambda u: body.index(u.name))
    panel = await panel_for(fake, channel, user, closed or set())
    if "to cut" in line:
        assert panel is not None, f"{user.name} has no panel to cut from"
        if any(b.label == "Cut" for b in panel.buttons()):  # else cut for them (Cut for me, the default)
            await fake.click(user, panel, "Cut")  # the cut is on the cutting player's own panel
        done = "cut"
    else:
        assert panel is not None, f"{user.name} has no controls; board says {line!r}"
        done = await act_with_panel(fake, user, panel)
    await computers_idle(fake)
    return done


async def every_click_mine(fake: FakeDiscord, users: list[FakeUser]) -> None:
    """The players turn off Cut for me and Play my only card (``/tavern me``): every move is a press, so a
    test counts them and finds the Cut on a panel."""
    for user in users:
        shown = await fake.slash(user, fake.channel, "tavern me")
        for words in ("Cut for me", "Play my only card"):
            [button] = [b for b in shown.message.buttons() if words in (b.label or "")]
            await fake.click(user, shown.message, button.custom_id or "")


async def computers_idle(fake: FakeDiscord) -> None:
    """Wait until the bot's computer players are still (its tasks ``bots-<table>``, which also make a person's
    forced move: the cut and an only card, on by default) and Discord has caught up: until then the board may
    wait for a player whose panel the forced move is redrawing."""
    while tasks := [t for t in asyncio.all_tasks() if t.get_name().startswith("bots-") and not t.done()]:
        await asyncio.gather(*tasks, return_exceptions=True)
    await fake.settle()


async def play_out(
    fake: FakeDiscord,
    channel: FakeChannel,
    users: list[FakeUser],
    closed: set[FakeUser] | None = None,
    limit: int = 200,
) -> int:
    moves = 0
    while await step(fake, channel, users, closed) is not None:
        moves += 1
        assert moves < limit, "the game did not end"
    return moves


async def challenge(
    fake: FakeDiscord, a: FakeUser, b: FakeUser, channel: FakeChannel | None = None, target: int = 31
) -> FakeMessage:
    channel = channel or fake.channel
    posted = await fake.slash(a, channel, "bhargage challenge", opponent=b, target=target)
    assert not posted.ephemeral and b.mention in posted.content and "Bhargage" in posted.content
    accepted = await fake.click(b, posted.message, "Accept")
    # The challenge becomes the table's board, through the accepting press: no request of the global budget.
    assert accepted.message is posted.message and accepted.message.content.startswith(BOARD_HEAD)
    # At most the table's own controls (Open the table) and the link to watch it; never the lobby's.
    assert all(b.url or (b.custom_id or "").startswith("tv:g:") for b in accepted.message.buttons()), (
        accepted.message.buttons()
    )
    return posted.message


def channel_text(fake: FakeDiscord, channel: FakeChannel) -> str:
    return "\n".join(m.content for m in fake.channel_messages(channel))


# ------------------------------------------------------------------------------------------- 1. a game


async def test_whole_game_from_challenge_to_leaderboard(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)

    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.seed == SEED and table.names == ("alice", "bob")
    opening = fake.channel_messages(fake.channel)[1].content
    assert "Cut for the deal: alice cuts" in opening and "deals first" in opening
    # Nobody is pinged: each hand came by DM, which rang for its player.
    assert alice.mention not in opening and bob.mention not in opening
    first_board = board(fake, fake.channel)
    assert "alice" in first_board.content and "31" in first_board.content and "●" in first_board.content
    for user in (alice, bob):
        dm = fake.dms(user)[-1]
        assert "Choose exactly 2 cards" in dm.content
        assert len(dm.select().options) == 5 and dm.select().min_values == dm.select().max_values == 2

    moves = await play_out(fake, fake.channel, [alice, bob])
    assert moves > 10
    state = table.state
    assert bh.is_over(state) and table.status == "finished"
    text = channel_text(fake, fake.channel)
    # The engine's events, replayed, all appear in the channel in the seed's words.
    record = await bot.store.load_game(table.id)
    assert record is not None
    events: list[Any] = []
    st, evs = bh.start(record.seed, 2, bh.Options.from_dict(record.options))
    events += evs
    for act in record.actions:
        st, evs = bh.apply(st, bh.parse_action(act.text))
        events += evs
    for ev in events:
        if isinstance(ev, bh.PointsScored):
            assert f"**{ev.reason}** — {table.names[ev.seat]} ({ev.total_after})" in text
        if isinstance(ev, bh.WentGo):
            assert f"{table.names[ev.seat]}: **go**" in text
        if isinstance(ev, bh.ShortageClaimed) and ev.points:
            owner, claimant = table.names[ev.owner], table.names[ev.claimant]
            call = f"**Shortage in {owner}'s {ev.kind}: {ev.points} for {claimant}** ({ev.total_after})"
            assert call in text
        if isinstance(ev, bh.UpCardTurned):
            assert f"the up-card is **{render.card_label(ev.card)}**" in text
    assert any(isinstance(e, bh.WentGo) for e in events) and "1 for last" in text and " for " in text
    # The show: itemised in order, non-dealer's hand first.
    shows = [m.content for m in fake.channel_messages(fake.channel) if m.content.startswith("**The show**")]
    assert shows
    first = shows[0]
    counted = [e for e in events if isinstance(e, bh.HandCounted)][:3]
    positions = [first.index(f"__{table.names[e.seat]}'s {e.kind}__") for e in counted]
    assert positions == sorted(positions)
    assert ": 0 for " not in text  # no shortage line for a claim worth nothing
    # Then the board: the pegs close every show (the game's last message has the whole final board).
    middle = [s for s in shows if "🏆" not in s]
    assert middle and all(s.endswith("```") and "●" in s for s in middle)
    assert all("●" in s for s in shows)
    winner = table.names[state.winner]
    last = fake.last_message(fake.channel)
    assert f"🏆 **{winner}** " in last.content and "Rematch" in [b.label for b in last.buttons()]
    assert "Game over" in board(fake, fake.channel).content
    # The play: the mover's DM had playable and (sometimes) greyed-out cards with the count.
    versions = [v.content for m in fake.dms(alice) for v in (m, *m.edits)]
    assert any("count **" in text or "You played" in text for text in versions)
    # Turn pings are new messages that mention the mover.
    assert sum("your turn — count" in m.content for m in fake.channel_messages(fake.channel)) >= 4

    board_edits = len(board(fake, fake.channel).edits)
    assert board_edits >= moves // 2  # one board, kept current by edits

    lb = await fake.slash(alice, fake.channel, "leaderboard")
    assert winner in lb.content and "100" in lb.content and "Bhargage leaderboard" in lb.content
    stats = await fake.slash(bob, fake.channel, "stats", player=alice)
    assert stats.ephemeral and "Bhargage" in stats.content and "1 game ·" in stats.content

    # Rematch: either player; a new challenge to the other with the same options.
    rematch = await fake.click(bob, last, "Rematch")
    assert not rematch.ephemeral and alice.mention in rematch.content and "to 31" in rematch.content
    declined = await fake.click(alice, rematch.message, "Decline")
    assert "declined" in declined.message.content


async def test_resign_with_an_ephemeral_confirm(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    """Resign via the ephemeral confirm: the channel says so, the loser gets a loss."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    old_board = board(fake, fake.channel)
    reposted = await fake.slash(alice, fake.channel, "bhargage board")
    assert not reposted.ephemeral  # the answer is the new board, the one kept up to date from now on
    new_board = board(fake, fake.channel)
    assert new_board is reposted.message and new_board is not old_board
    assert new_board.content == old_board.content
    outsider = await fake.slash(fake.add_user("eve"), fake.channel, "bhargage resign")
    assert outsider.content == "You are not playing at this table."
    ask = await fake.slash(bob, fake.channel, "bhargage resign")
    assert ask.ephemeral and "alice" in ask.content
    done = await fake.click(bob, ask.message, "Resign")
    assert done.message.content == "You resigned."
    last = fake.last_message(fake.channel)
    assert "bob resigned." in last.content and "🏆 **alice** wins" in last.content
    assert await bot.tables.table_for_channel(fake.channel.id) is None
    assert "Game over: alice won." in new_board.content and "Game over" not in old_board.content
    rating = await bot.store.rating_of(fake.guild.id, "bhargage", bob.id)
    assert rating is not None and rating["losses"] == 1


# ------------------------------------------------------------------------------------------- 2. restart


async def test_restart_mid_hand_then_finish_with_old_buttons(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    first = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await every_click_mine(fake, [alice, bob])
    await challenge(fake, alice, bob)
    for _ in range(6):  # both discards, the cut and a few cards
        assert await step(fake, fake.channel, [alice, bob]) is not None
    old_board = board(fake, fake.channel)
    live_before = {m.id for u in (alice, bob) for m in fake.dms(u) if enabled(m)}
    assert live_before
    await first.close()

    second = await start_bot()
    table = await second.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.seq == 6
    # The first move after the restart uses a panel sent before it.
    line = waiting_line(fake, fake.channel)
    mover = alice if "alice" in line else bob
    panel = [m for m in fake.dms(mover) if enabled(m)][-1]
    assert panel.id in live_before
    await act_with_panel(fake, mover, panel)
    assert table.seq == 7
    await play_out(fake, fake.channel, [alice, bob])
    assert table.status == "finished"
    assert board(fake, fake.channel) is old_board  # still the same board message, edited
    timer = second.controller.timers.task
    assert timer is not None and not timer.done()  # the one timer runs after a restart too


# ------------------------------------------------------------------------------------------- 3. closed DMs


async def test_closed_dms_play_through_show_my_hand(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, carol = fake.add_user("alice"), fake.add_user("carol", dms_closed=True)
    await challenge(fake, alice, carol)
    notices = [m for m in fake.channel_messages(fake.channel) if "DMs are closed" in m.content]
    assert len(notices) == 1 and carol.mention in notices[0].content
    assert "Show my hand" in (notices[0].buttons()[0].label or "")
    # Someone else can't use carol's hand.
    refused = await fake.click(fake.add_user("dave"), notices[0], notices[0].buttons()[0].custom_id or "")
    assert refused.ephemeral and refused.content == "You are not playing at this table."

    await play_out(fake, fake.channel, [alice, carol], closed={carol})
    table = await bot.tables.get(1)
    assert table.status == "finished"
    assert len([m for m in fake.channel_messages(fake.channel) if "DMs are closed" in m.content]) == 1
    assert fake.dms(carol) == [] and len(fake.ephemerals(carol)) > 5
    # The turn pings for carol carry her Show my hand button.
    pings = [m for m in fake.channel_messages(fake.channel) if f"{carol.mention}, your turn" in m.content]
    assert pings and all(any("carol" in (b.label or "") for b in m.buttons()) for m in pings)


# ------------------------------------------------------------------------------------------- 4. bad input


async def test_wrong_user_stale_double_click_and_not_your_turn(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob, eve = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("eve")
    await every_click_mine(fake, [alice, bob])
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None

    outsider = await fake.slash(eve, fake.channel, "bhargage hand")
    assert outsider.ephemeral and outsider.content == "You are not playing at this table."

    # alice keeps an ephemeral panel of hand 1's discard, then discards from her DM.
    old = await fake.slash(alice, fake.channel, "bhargage hand")
    assert old.ephemeral and old.message.selects()
    await act_with_panel(fake, alice, [m for m in fake.dms(alice) if enabled(m)][-1])
    # bob confirms twice at once: applied once, the other click is stale.
    panel = [m for m in fake.dms(bob) if enabled(m)][-1]
    pick = panel.selects()[0]
    chosen = await fake.select(bob, panel, pick.custom_id, pick.values()[:2])
    confirm = chosen.message.button("Confirm").custom_id or ""
    both = await asyncio.gather(
        fake.click(bob, chosen.message, confirm), fake.click(bob, chosen.message, confirm)
    )
    assert table.seq == 2
    texts = [r.text() for r in both]
    assert sum("That button is from an earlier turn." in t for t in texts) == 1
    # Her DM panel took over as her live panel: the old ephemeral one lost its controls.
    await fake.settle()
    assert old.message.selects() == [] and old.message.buttons() == []

    # The cut is on the cutting player's own panel only; the dealer's panel has none.
    cuts = [
        (u, m)
        for u in (alice, bob)
        for m in fake.dms(u)
        if any(b.label == "Cut" and not b.disabled for b in m.buttons())
    ]
    assert len(cuts) == 1
    cutter, cut_msg = cuts[0]
    dealer = bob if cutter is alice else alice
    assert not any(b.label == "Cut" for m in fake.dms(dealer) for b in m.buttons())
    assert not any(b.label == "Cut" for m in fake.channel_messages(fake.channel) for b in m.buttons())
    await fake.click(cutter, cut_msg, "Cut")
    assert table.seq == 3 and "Cut" not in [b.label for b in cut_msg.buttons()]

    # The leader keeps an ephemeral panel, plays from the DM, then clicks the old ephemeral button.
    leader = cutter
    eph = await fake.slash(leader, fake.channel, "bhargage hand")
    dm_panel = [m for m in fake.dms(leader) if enabled(m)][-1]
    play = next(b for b in dm_panel.buttons() if not b.disabled).custom_id or ""
    old_play = next(b for b in eph.message.buttons() if not b.disabled).custom_id or ""
    both = await asyncio.gather(fake.click(leader, dm_panel, play), fake.click(leader, dm_panel, play))
    assert table.seq == 4
    assert sorted("That button is from an earlier turn." in r.text() for r in both) == [False, True]
    assert dm_panel.content.startswith("You played")
    await fake.settle()
    assert eph.message.buttons() == []  # the DM panel is the live one again: the ephemeral one is retired
    # A client still showing the old ephemeral button presses it anyway: refused, nothing changes.
    data = {"custom_id": old_play, "component_type": 2}
    late = await fake._interact(3, leader, eph.message.channel, data, "old play", message=eph.message)
    assert late.text() == "That button is out of date." and table.seq == 4
    # Not your turn: whoever the board is not waiting for gets a panel without play buttons.
    line = waiting_line(fake, fake.channel)
    idle = next(u for u in (alice, bob) if u.name not in line)
    mine = await fake.slash(idle, fake.channel, "bhargage hand")
    assert "Waiting for" in mine.content and mine.message.buttons() == []


async def test_count_calculator_rules_and_dm_commands(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await start_bot()
    alice = fake.add_user("alice")
    result = await fake.slash(
        alice, fake.channel, "bhargage count", cards="forest, sailor, ace of moons", up="bard"
    )
    text = result.content
    assert result.ephemeral
    expected = bh.count_hand(cards("forest, sailor, ace of moons"), card("bard"))
    assert f"**Total: {expected.total}**" in text
    for item in expected.items:
        assert f"• {item.reason} — {' + '.join(c.title for c in item.cards)}" in text
    assert "Chief's Friend — the Sailor" in text and "Shortage: 3 for the opponent" in text

    typo = await fake.slash(alice, fake.channel, "bhargage count", cards="forrest, sailor, pact", up="bard")
    assert typo.ephemeral and "no card called “forrest”" in typo.content and "the Forest" in typo.content
    short = await fake.slash(alice, fake.channel, "bhargage count", cards="forest, sailor", up="bard")
    assert "Give 3 cards" in short.content
    four = await fake.slash(
        alice, fake.channel, "bhargage count", cards="forest, sailor, pact, mill", up="bard", bhargage=True
    )
    assert "**Bhargage**" in four.content and "Chief's Friend" not in four.content

    rules = await fake.slash(alice, fake.channel, "bhargage rules")
    assert rules.ephemeral
    body = rules.text()
    for words in ("23", "11 → 2", "bharg", "121", "page 1/6"):  # the full rules, a page at a time
        assert words in body
    assert "repository" not in body

    dm = fake.dm_channel(alice)
    in_dm = await fake.slash(alice, dm, "bhargage hand")
    assert in_dm.content == t("tavern.no-game-here", game="Bhargage")
    assert (await fake.slash(alice, dm, "bhargage challenge", opponent=fake.owner)).content == t(
        "tavern.error.not-in-bot-dm"
    )  # (the owner can't see alice's DM with the bot: a challenge goes where both are)
    with pytest.raises(AssertionError, match="not offered in DMs"):
        await fake.slash(alice, dm, "leaderboard")
    counted = await fake.slash(alice, dm, "bhargage count", cards="forest, sailor, pact", up="bard")
    assert "Total" in counted.content  # the calculator works anywhere


async def test_challenge_refusals(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await start_bot()
    alice, bob, carl, dora = (fake.add_user(n) for n in ("alice", "bob", "carl", "dora"))
    robot = fake.add_user("robot", bot=True)
    me = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=alice)
    assert me.ephemeral and "yourself" in me.content
    bot_ = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=robot)
    assert bot_.ephemeral and "Other bots don't play" in bot_.content and "/bhargage practice" in bot_.content
    quiet = fake.add_channel("quiet", bot_permissions=discord.Permissions(view_channel=True).value)
    perm = await fake.slash(alice, quiet, "bhargage challenge", opponent=bob)
    assert (
        perm.ephemeral
        and "Send Messages and Embed Links permissions" in perm.content
        and fake.channel_messages(quiet) == []
    )

    pending = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    busy = await fake.slash(carl, fake.channel, "bhargage challenge", opponent=dora)
    assert busy.ephemeral and "open table or challenge" in busy.content
    wrong = await fake.click(carl, pending.message, "Accept")
    assert wrong.ephemeral and "only they can answer" in wrong.content
    await fake.click(bob, pending.message, "Accept")
    taken = await fake.slash(carl, fake.channel, "bhargage challenge", opponent=dora)
    assert taken.ephemeral and "already a game in this channel" in taken.content
    other = fake.add_channel("other")
    seated = await fake.slash(carl, other, "bhargage challenge", opponent=bob)
    assert seated.ephemeral and "bob is already playing" in seated.content
    again = await fake.click(bob, pending.message, "Accept") if pending.message.buttons() else None
    assert again is None  # the accepted challenge lost its buttons


async def test_challenge_expiry_and_decline(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    first = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    bot.clock.advance(11 * 60)
    late = await fake.click(bob, first.message, "Accept")
    assert "This challenge has expired." in late.text() and first.message.buttons() == []
    assert await bot.tables.table_for_channel(fake.channel.id) is None

    second = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    bot.clock.advance(11 * 60)
    await bot.controller.timers.run()
    await fake.settle()
    assert "expired" in second.message.content and second.message.buttons() == []
    lobby = await bot.store.open_lobbies(channel_id=fake.channel.id)
    assert lobby == []

    third = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    declined = await fake.click(bob, third.message, "Decline")
    assert "bob declined" in declined.message.content and third.message.buttons() == []
    assert await bot.tables.table_for_channel(fake.channel.id) is None


async def test_idle_nudge_once_then_claim(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, nudge_minutes=1, claim_minutes=3))
    alice, bob, eve = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("eve")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    bot.clock.advance(90)
    await bot.controller.timers.run()
    await bot.controller.timers.run()
    await fake.settle()
    nudges = [m for m in fake.channel_messages(fake.channel) if "waiting for you" in m.content]
    assert len(nudges) == 1 and alice.mention in nudges[0].content and bob.mention in nudges[0].content

    await act_with_panel(fake, alice, [m for m in fake.dms(alice) if enabled(m)][-1])
    bot.clock.advance(30)  # bob's turn, 30 s in: neither a nudge nor a claim yet
    await bot.controller.timers.run()
    await fake.settle()
    assert [m for m in fake.channel_messages(fake.channel) if "waiting for you" in m.content] == nudges
    early = [m for m in fake.channel_messages(fake.channel) if "Claim the game" in str(m.buttons())]
    assert early == []
    bot.clock.advance(4 * 60 - 30)
    await bot.controller.timers.run()
    await fake.settle()
    claims = [
        m
        for m in fake.channel_messages(fake.channel)
        if any(b.label == "Claim the game" for b in m.buttons())
    ]
    assert (
        len(claims) == 1 and alice.mention in claims[0].content and "bob has not moved" in claims[0].content
    )
    own = await fake.click(bob, claims[0], "Claim the game")
    assert own.ephemeral and "waiting for you" in own.content
    stranger = await fake.click(eve, claims[0], "Claim the game")
    assert stranger.content == "You are not playing at this table."
    bot.clock.advance(-4 * 60)  # the clock is re-checked at the click
    notyet = await fake.click(alice, claims[0], "Claim the game")
    assert "Not yet" in notyet.text()
    bot.clock.advance(4 * 60)
    won = await fake.click(alice, claims[0], "Claim the game")
    assert "claimed the game" in won.message.content
    assert table.status == "finished" and table.state.how == "forfeit"
    assert "bob forfeited" in channel_text(fake, fake.channel)


# ----------------------------------------------------------------------------------- 5. expired tokens


async def test_game_proceeds_after_tokens_expire(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, carol = fake.add_user("alice"), fake.add_user("carol", dms_closed=True)
    await challenge(fake, alice, carol)
    for _ in range(3):
        await step(fake, fake.channel, [alice, carol], {carol})
        fake.expire_tokens()
        bot.clock.advance(15 * 60)  # as Discord's tokens do: the bot no longer edits carol's old panel
    await play_out(fake, fake.channel, [alice, carol], {carol})
    table = await bot.tables.get(1)
    assert table.status == "finished"
    assert not fake.rejections(10015) and not fake.rejections(10062)


# ----------------------------------------------------------------------------------- 6. audit cases

MUGGINS_SEED = 6  # with play_out's choices, a target-31 game won on a shortage claim (found offline)


async def test_muggins_is_announced_and_counted(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R11: a win on a shortage claim says "Muggins!" and is a muggins win on the leaderboard."""
    monkeypatch.setattr("bot.services.tables.secrets.randbits", lambda bits: MUGGINS_SEED)
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    await play_out(fake, fake.channel, [alice, bob])
    assert table.state.how == "muggins"
    winner = table.names[table.state.winner]
    last = fake.last_message(fake.channel).content
    assert "**Muggins!**" in last and f"🏆 **{winner}** " in last
    assert last.index("**Shortage in ") < last.index("**Muggins!**")
    lb = await fake.slash(alice, fake.channel, "leaderboard")
    row = next(ln.split() for ln in lb.content.splitlines() if winner in ln)
    assert row[2:4] == ["1", "0"] and row[5] == "1"  # W, L, …, mug


async def test_deleted_board_is_posted_again(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    """Someone deletes the board mid-game: the next move posts a new one, which is kept from then on."""
    fake = fake_discord
    await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    old = board(fake, fake.channel)
    old.deleted = True
    await act_with_panel(fake, alice, [m for m in fake.dms(alice) if enabled(m)][-1])
    await fake.settle()
    new = board(fake, fake.channel)
    assert new is not old and "Waiting for bob" in new.content
    assert await step(fake, fake.channel, [alice, bob]) == "discard"
    await fake.settle()
    assert board(fake, fake.channel) is new and new.edits


async def test_an_accept_left_showing_after_its_table_opened_draws_the_board(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """The table opened but its board never reached the challenge (the bot stopped in between: here the
    message is put back as it was): the Accept the message still shows draws the board there through that
    press, and the presser is told the challenge was accepted already; no second table opens."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    message = posted.message
    accept = message.button("Accept").custom_id or ""
    shown = (message.content, message.embeds, message.components, message.flags, message.attachments)
    await fake.click(bob, message, accept)
    await fake.settle()
    assert message.content.startswith(BOARD_HEAD)
    message.content, message.embeds, message.components, message.flags, message.attachments = shown
    again = await fake.click(bob, message, accept)
    await fake.settle()
    assert message.content.startswith(BOARD_HEAD) and "Accept" not in [b.label for b in message.buttons()]
    assert [m.ephemeral for m in again.followups if "already accepted" in m.content] == [True]
    assert [t.id for t in bot.tables.active_tables()] == [1]


async def test_dms_closing_mid_game_keep_the_live_panel(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    """A player closes their DMs after the deal: the panel they already have is edited in place for the rest
    of the game (no new DM is needed), so they play on from it and nobody is told to switch."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    for _ in range(2):
        await step(fake, fake.channel, [alice, bob])
    alice.dms_closed = bob.dms_closed = True
    await play_out(fake, fake.channel, [alice, bob])
    table = await bot.tables.get(1)
    assert table.status == "finished" and table.state.hand_no > 1
    assert not [m for m in fake.channel_messages(fake.channel) if "DMs are closed" in m.content]
    assert len(fake.dms(alice)) == len(fake.dms(bob)) == 1


async def test_challenge_accepted_twice_at_once(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    """Two Accept clicks racing: one table, one opening, the other click is told plainly."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    accept = posted.message.button("Accept").custom_id or ""
    both = await asyncio.gather(
        fake.click(bob, posted.message, accept), fake.click(bob, posted.message, accept)
    )
    await fake.settle()
    texts = [r.text() for r in both]
    assert sum("already accepted" in t for t in texts) == 1
    [late] = [r for r in both if "already accepted" in r.text()]
    # Told privately; the challenge is the board now, and stays so.
    assert [m.ephemeral for m in late.followups if "already accepted" in m.content] == [True]
    assert posted.message.content.startswith(BOARD_HEAD) and "already accepted" not in posted.message.content
    assert len(await bot.store.active_games()) == 1
    assert [m for m in fake.channel_messages(fake.channel) if m.content.startswith(BOARD_HEAD)] == [
        posted.message
    ]


async def test_bot_loses_channel_permission_mid_game(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    """The bot can no longer post in the channel: the cut comes by DM, the game ends, and both are told."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = [alice, bob]
    await every_click_mine(fake, users)  # the Cut is pressed on a DM'd panel, not made for them
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    await fake.set_bot_permissions(fake.channel, discord.Permissions(view_channel=True).value)
    posted_before = len(fake.channel_messages(fake.channel))
    moves = 0
    while table.status == "active":
        seat = table.waiting_for()[0]
        user = users[seat]
        panel = [m for m in fake.dms(user) if enabled(m)][-1]
        if table.state.phase is bh.Phase.CUT:
            assert "Your move: cut" in panel.content
            await fake.click(user, panel, "Cut")
        else:
            await act_with_panel(fake, user, panel)
        moves += 1
        assert moves < 200
    await fake.settle()
    assert len(fake.channel_messages(fake.channel)) == posted_before  # nothing reached the channel
    winner = table.names[table.state.winner]
    for user in users:
        assert f"🏆 **{winner}** " in fake.dms(user)[-1].content


async def test_resign_and_hand_from_another_channel_when_the_table_is_gone(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """The game's channel was deleted: the players are not stuck; /bhargage hand and resign work elsewhere."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    del fake.channels[fake.channel.id]  # gone: posts there now answer 404 Unknown Channel
    other = fake.add_channel("other")
    blocked = await fake.slash(alice, other, "bhargage challenge", opponent=fake.add_user("carl"))
    assert blocked.ephemeral and "/bhargage resign" in blocked.content
    hand = await fake.slash(alice, other, "bhargage hand")
    assert hand.ephemeral and f"<#{table.channel_id}>" in hand.content and hand.message.selects()
    ask = await fake.slash(alice, other, "bhargage resign")
    assert ask.ephemeral and "bob" in ask.content and f"<#{table.channel_id}>" in ask.content
    await fake.click(alice, ask.message, "Resign")
    await fake.settle()
    assert table.status == "finished" and await bot.tables.tables_of_user(fake.guild.id, alice.id) == []
    assert "🏆 **bob** wins" in fake.dms(bob)[-1].content
    nobody = await fake.slash(fake.add_user("eve"), other, "bhargage resign")
    assert nobody.content == "There is no Bhargage game in this channel."


async def test_untimed_tables_are_never_nudged_or_claimed(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, nudge_minutes=0, claim_minutes=0))
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    before = len(fake.channel_messages(fake.channel))
    bot.clock.advance(30 * 24 * 3600)
    await bot.controller.timers.run()
    await fake.settle()
    assert len(fake.channel_messages(fake.channel)) == before


async def test_rematch_after_another_table_started_here(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """An old Rematch button, clicked once the channel hosts another game, is refused and changes nothing."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob, carl, dora = (fake.add_user(n) for n in ("alice", "bob", "carl", "dora"))
    await challenge(fake, alice, bob)
    ask = await fake.slash(bob, fake.channel, "bhargage resign")
    await fake.click(bob, ask.message, "Resign")
    result = fake.last_message(fake.channel)
    await challenge(fake, carl, dora)
    refused = await fake.click(alice, result, "Rematch")
    assert refused.ephemeral and "already a game in this channel" in refused.content
    assert await bot.store.open_lobbies(channel_id=fake.channel.id) == []
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.names == ("carl", "dora")


async def test_a_passing_dm_failure_falls_back_once_and_dms_resume(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    """A failed DM (not a 403) gives a one-off "Show my hand" for that hand; the next hand comes by DM."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    alice.dm_failures = 1  # the opening deal's DM to alice fails once
    await challenge(fake, alice, bob)
    table = await bot.tables.get(1)
    notice = [m for m in fake.channel_messages(fake.channel) if "didn't deliver your hand" in m.content]
    assert len(notice) == 1 and alice.mention in notice[0].content
    assert fake.dms(alice) == [] and len(fake.dms(bob)) == 1
    # this hand is played from the one-off "Show my hand"; the table does not mark the DMs closed
    assert 0 not in table.meta.dm_closed and 1 not in table.meta.dm_closed
    button = next(b for b in notice[0].buttons() if b.custom_id and ":hand:" in b.custom_id)
    shown = await fake.click(alice, notice[0], button.custom_id or "")
    assert shown.ephemeral and any(s.custom_id and ":pick" in s.custom_id for s in shown.message.selects())
    assert await act_with_panel(fake, alice, shown.message) == "discard"
    await play_out(fake, fake.channel, [alice, bob], closed={alice})
    assert len(fake.dms(alice)) >= 1  # later hands came by DM again
    assert not [m for m in fake.channel_messages(fake.channel) if "DMs are closed" in m.content]
