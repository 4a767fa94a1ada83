"""Classic Cribbage through the real discord.py client and the fake Discord, driven only the way players
would: slash commands, the lobby's and the panels' buttons and menus, reading what the channel, the DMs and
the ephemerals show. Seeds are pinned (the lobby's ``seed_source``); the players' clicks are fixed (the lowest
cards laid away, the first card that may be played, the true count claimed unless a test says otherwise), so
every game is the same game each run: the seeds were picked offline for what each test must show (a lurch, a
muggins)."""

from __future__ import annotations

import random
from typing import Any

from bot.ai import cribbage as ai
from bot.ai import cribbage_expert as expert
from bot.edge.app import TavernBot
from bot.games import Table
from bot.games.cribbage import expert_play_hint
from bot.render.cribbage_words import cards_short, short, show_count
from bot.render.words import capital
from bot.rules import cribbage as C
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.test_ai_discord import live_dm, live_dm_soon, settle

EXTENSIONS = ["cogs.general", "cogs.stats", "cogs.cribbage"]
BOARD_HEAD = "**Cribbage** (game to "
TWO_HUMANS_LURCH = 27  # to 61: the second player wins 63–29, a lurch
AGAINST_THE_BOT_LURCH = 7  # to 61, against the hard bot: it wins 65–10, a lurch
MUGGINS_SEED = 2  # to 61 with muggins: the first two counts of the show are worth 4 and 8


CLAIM_MENUS = [[str(n) for n in range(15)], [str(n) for n in range(15, 30)]]


def true_count(state: C.State) -> int:
    """What the count awaiting its claim is worth (the players count it themselves: the bot never says)."""
    _owner, kind, shown = C.show_order(state)[state.show_step]
    assert state.starter is not None
    return C.show_total(shown, state.starter, kind == "crib")


async def boot(start_bot: StartBot, seed: int) -> TavernBot:
    bot = await start_bot(extensions=EXTENSIONS)
    bot.lobbies.seed_source = lambda: seed
    return bot


def verb(custom_id: str | None) -> str:
    """A control's verb (``tv:g:<key>:<token>:<verb>[:<arg>]``)."""
    parts = (custom_id or "").split(":")
    return parts[4] if len(parts) > 4 else ""


def text(fake: FakeDiscord) -> str:
    return "\n".join(m.content for m in fake.channel_messages(fake.channel))


class Players:
    """The people at a table, by seat, and their fixed way of playing by clicks."""

    def __init__(self, fake: FakeDiscord, bot: TavernBot, table: Table, users: list[FakeUser]) -> None:
        self.fake, self.bot, self.table = fake, bot, table
        self.by_seat = {table.seat_of(u.id): u for u in users}
        self.under_claims = 0  # muggins: how many counts to under-claim by one point (the first ones)

    async def move(self) -> None:
        """One move by a person the game waits for: lay away, cut, play or claim, on their live DM panel."""
        state: C.State = self.table.state
        seat = next(s for s in C.waiting_for(state) if not self.table.is_bot(s))
        user = self.by_seat[seat]
        panel = await live_dm_soon(self.fake, user)
        if state.phase is C.Phase.DISCARD:
            pick = next(s for s in panel.selects() if verb(s.custom_id) == "pick")
            size = C.lay_away_size(state.players)
            assert pick.min_values == pick.max_values == size
            chosen = await self.fake.select(user, panel, pick.custom_id, pick.values()[:size])
            await self.fake.click(user, chosen.message, "Confirm")
        elif state.phase is C.Phase.CUT:
            await self.fake.click(user, panel, "Cut")
        elif state.phase is C.Phase.PLAY:
            play = next(b for b in panel.buttons() if verb(b.custom_id) == "play" and not b.disabled)
            assert play.custom_id is not None
            await self.fake.click(user, panel, play.custom_id)
        else:
            await self.claim(user, panel, state)
        await settle(self.fake, self.bot)

    async def claim(self, user: FakeUser, panel: FakeMessage, state: C.State) -> None:
        points = true = true_count(state)
        if self.under_claims and true:
            points = true - 1
            self.under_claims -= 1
        menus = [s for s in panel.selects() if verb(s.custom_id) == "tally"]
        assert [m.values() for m in menus] == CLAIM_MENUS  # the same numbers whatever the count (C9)
        menu = next(m for m in menus if str(points) in m.values())
        await self.fake.select(user, panel, menu.custom_id, [str(points)])

    async def play_out(self, limit: int = 400) -> int:
        moves = 0
        while self.table.status == "active":
            await self.move()
            moves += 1
            assert moves < limit, "the game did not end"
        return moves


async def events_of(bot: TavernBot, table: Table) -> list[Any]:
    """Every event of the stored game, replayed from its seed and log."""
    record = await bot.store.load_game(table.id)
    assert record is not None
    state, events = C.start(record.seed, len(table.seats), C.Options.from_dict(record.options))
    for act in record.actions:
        state, evs = C.apply(state, C.parse_action(act.text))
        events += evs
    return events


def assert_calls_told(events: list[Any], channel: str) -> None:
    """Every show is in the channel, itemized as it is said ("15 for 2, 15 for 4 and a pair for 6")."""
    shows = [e for e in events if isinstance(e, C.HandCounted)]
    assert shows
    for e in shows:
        assert f"**{capital(show_count(e.items))}**" in channel, show_count(e.items)
    assert any(isinstance(e, C.PointsScored) for e in events)


# ------------------------------------------------------------------------------------------- two players


async def test_a_challenge_played_to_the_end_by_clicks_ends_with_game_and_lurch(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, TWO_HUMANS_LURCH)
    ann, bo = fake.add_user("ann"), fake.add_user("bo")
    posted = await fake.slash(ann, fake.channel, "cribbage challenge", opponent=bo, target=61)
    assert not posted.ephemeral and "challenges you to **Cribbage** (game to 61)" in posted.content
    assert posted.message.pinged_user_ids() == [bo.id]  # the challenged player only
    assert [b.label for b in posted.message.buttons()] == ["Accept", "Decline"]
    accepted = await fake.click(bo, posted.message, "Accept")
    # The challenge becomes the table's board, through the accepting press.
    assert accepted.message is posted.message and accepted.message.buttons() == []
    assert (
        posted.message.content.startswith(BOARD_HEAD) and "Waiting for ann and bo" in posted.message.content
    )
    await fake.settle()
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.names == ("ann", "bo") and table.seed == TWO_HUMANS_LURCH
    assert table.meta.board_id == posted.message.id
    assert "Cut for the deal: ann" in text(fake) and "deals first" in text(fake)
    # Nobody is pinged: each hand came by DM, which rang for its player.
    cut = next(m for m in fake.channel_messages(fake.channel) if "Cut for the deal" in m.content)
    assert cut.pinged_user_ids() == [] and ann.mention not in cut.content and bo.mention not in cut.content
    for user in (ann, bo):
        panel = live_dm(fake, user)
        pick = panel.select()
        assert len(pick.options) == 6 and pick.min_values == pick.max_values == 2
        assert "Choose 2 cards to lay away" in panel.content and "Hint" in [b.label for b in panel.buttons()]

    # a lay-away does not make the other seat's menu stale (a freshness token per seat)
    players = Players(fake, bot, table, [ann, bo])
    first = table.seat_of(ann.id)
    await players.move()  # the first waiting person lays away (ann, seat 0)
    assert table.state.laid[first] and not table.state.laid[1 - first]
    bo_panel = live_dm(fake, bo)
    pick = bo_panel.select()
    chosen = await fake.select(bo, bo_panel, pick.custom_id, pick.values()[:2])
    assert "Confirm" in [b.label for b in chosen.message.buttons()]
    await fake.click(bo, chosen.message, "Confirm")
    await settle(fake, bot)
    assert table.state.phase is C.Phase.PLAY  # the cut decides nothing: made for the cutter (Cut for me)

    await players.play_out()
    state: C.State = table.state
    result = C.final_result(state)
    assert result.lurch == "lurch" and result.how == "lurch" and min(state.scores) < 31
    channel = text(fake)
    assert "**Game!**" in channel and "**Lurched!**" in channel and "(a lurch)" in channel
    assert "did not reach 31: a double game" in channel  # the lurch line of a game to 61
    assert "**The show**" in channel and "**go**" in channel
    assert_calls_told(await events_of(bot, table), channel)
    winner = table.names[result.winners[0]]
    assert f"🏆 **{winner}** wins — ann {state.scores[0]} — bo {state.scores[1]} (a lurch)" in channel
    # the rematch of a game of two is a challenge again
    final = next(
        m for m in fake.channel_messages(fake.channel) if "Rematch" in [b.label for b in m.buttons()]
    )
    again = await fake.click(ann, final, "Rematch")
    assert [b.label for b in again.message.buttons()] == ["Accept", "Decline"]
    assert again.message.pinged_user_ids() == [bo.id]


# ------------------------------------------------------------------------------------------- three and four


async def open_table(fake: FakeDiscord, users: list[FakeUser], **options: Any) -> FakeMessage:
    created = await fake.slash(users[0], fake.channel, "cribbage create", **options)
    lobby = created.message
    assert not created.ephemeral and "Join" in [b.label for b in lobby.buttons()]
    assert lobby.pinged_user_ids() == []
    for u in users[1:]:
        joined = await fake.click(u, lobby, "Join")
        assert u.name in joined.message.content
    if len(users) == 4:
        assert "ann & cy against bo & dee" in lobby.content  # partners in the order they sat down
    started = await fake.click(users[0], lobby, "Start")
    # The lobby becomes the table's board, through the starting press.
    assert started.message is lobby and lobby.content.startswith(BOARD_HEAD) and lobby.buttons() == []
    await fake.settle()
    return lobby


async def test_three_players_from_an_open_table_to_the_end(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, 11)
    users = [fake.add_user(n) for n in ("ann", "bo", "cy")]
    lobby = await open_table(fake, users, target=61)
    assert "ann 0 — bo 0 — cy 0" in lobby.content  # the board the lobby became seats all three, in order
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and len(table.seats) == 3
    for u in users:
        pick = live_dm(fake, u).select()
        assert len(pick.options) == 5 and pick.min_values == pick.max_values == 1
    await Players(fake, bot, table, users).play_out()
    state: C.State = table.state
    assert C.is_over(state) and len(state.scores) == 3
    channel = text(fake)
    assert "**Game!**" in channel and "ann " in channel and "cy " in channel
    assert_calls_told(await events_of(bot, table), channel)
    assert "ann {} — bo {} — cy {}".format(*state.scores) in channel


async def test_four_players_in_partnerships_with_muggins(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, 5)
    users = [fake.add_user(n) for n in ("ann", "bo", "cy", "dee")]
    await open_table(fake, users, target=61, muggins=True)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.names == ("ann", "bo", "cy", "dee")
    assert "Partners: ann & cy against bo & dee" in text(fake)
    players = Players(fake, bot, table, users)
    players.under_claims = 1
    secrets_kept = False
    while table.status == "active":
        state: C.State = table.state
        if state.phase is C.Phase.PLAY and not secrets_kept:
            # a partner's hand is hidden: each panel shows its own cards only
            for seat, user in players.by_seat.items():
                own = cards_short(C.view(state, seat).hand)
                panel = fake.dms(user)[-1].content
                assert (
                    f"Your cards: {own}" in panel and f"Your partner: {table.names[(seat + 2) % 4]}" in panel
                )
                partner = C.view(state, (seat + 2) % 4).hand
                assert f"Your cards: {cards_short(partner)}" not in panel
            secrets_kept = True
        await players.move()
    assert secrets_kept
    state = table.state
    channel = text(fake)
    assert "**Muggins!**" in channel and "claims" in channel
    assert "**Game!**" in channel
    assert f"ann & cy {state.scores[0]} — bo & dee {state.scores[1]}" in channel
    record = await bot.store.load_game(table.id)
    assert record is not None and record.result is not None
    winners = set(record.result["winners"])
    assert winners in ({0, 2}, {1, 3})  # a side wins: both partners


async def test_muggins_a_claim_is_taken_once_and_its_difference_goes_left_either_way(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """C9 through the panels: an over-claim is not refused, the owner pegs the count and the opponent what it
    overstates; an under-claim likewise gives away what it misses; both are called "Muggins! 3 for …"."""
    fake = fake_discord
    bot = await boot(start_bot, MUGGINS_SEED)
    ann, bo = fake.add_user("ann"), fake.add_user("bo")
    posted = await fake.slash(ann, fake.channel, "cribbage challenge", opponent=bo, target=61, muggins=True)
    await fake.click(bo, posted.message, "Accept")
    await fake.settle()
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    players = Players(fake, bot, table, [ann, bo])
    while table.state.phase is not C.Phase.CLAIM:
        await players.move()
    names = table.names
    for wrong in (+3, -3):  # the first count over-claimed by 3, the second under-claimed by 3
        state: C.State = table.state
        owner, left, true = C.waiting_for(state)[0], 1 - C.waiting_for(state)[0], true_count(state)
        claim = true + wrong
        assert 0 <= claim <= 29, "the pinned seed's counts allow both"
        user = players.by_seat[owner]
        panel = live_dm(fake, user)
        menus = [s for s in panel.selects() if verb(s.custom_id) == "tally"]
        assert [m.values() for m in menus] == CLAIM_MENUS
        menu = next(m for m in menus if str(claim) in m.values())
        before = state.scores
        said = await fake.select(user, panel, menu.custom_id, [str(claim)])
        await settle(fake, bot)
        assert not said.ephemeral, said.content  # taken, never refused
        after = table.state.scores
        assert after[owner] - before[owner] == min(claim, true) and after[left] - before[left] == 3
        channel = text(fake)
        assert f"{names[owner]} claims {claim} (the count is {true})." in channel
        why = "claimed 3 too many" if wrong > 0 else "left 3 out"
        assert f"**Muggins!** 3 for {names[left]} ({after[left]}): {names[owner]} {why}." in channel
        offered = [s.custom_id for m in fake.dms(user) for s in m.selects()]
        assert not any(x in offered for x in (m.custom_id for m in menus))  # claimed once: its menus are gone
    record = await bot.store.load_game(table.id)
    assert record is not None
    texts = [a.text for a in record.actions]
    assert len([x for x in texts if " claim " in x]) == 2  # each count claimed once, the over-claim too
    assert C.replay(record.seed, 2, C.Options.from_dict(record.options), texts) == table.state


# ------------------------------------------------------------------------------------------- the bot


async def test_a_human_against_the_bot_with_the_coach_and_a_lurch(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(start_bot, AGAINST_THE_BOT_LURCH)
    ann = fake.add_user("ann")
    opened = await fake.slash(ann, fake.channel, "cribbage practice", level="hard", target=61)
    assert not opened.ephemeral
    await settle(fake, bot)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.names == ("ann", "Bot (hard)")
    players = Players(fake, bot, table, [ann])
    hinted: set[C.Phase] = set()
    while table.status == "active":
        state: C.State = table.state
        assert C.waiting_for(state) and not table.is_bot(C.waiting_for(state)[0]), "the bot left it waiting"
        if state.phase in (C.Phase.DISCARD, C.Phase.PLAY) and state.phase not in hinted:
            panel = live_dm(fake, ann)
            hint = next(b.custom_id for b in panel.buttons() if verb(b.custom_id) == "hint")
            assert hint is not None
            seq = table.seq
            said = await fake.click(ann, panel, hint)
            assert said.ephemeral and table.seq == seq
            view = C.view(state, 0)
            if state.phase is C.Phase.DISCARD:
                ours = state.dealer == 0
                best = ai.discard_table((*view.hand, *view.laid_away), players=2, dealer=ours)[0]
                assert f"• **Lay away {cards_short(best.laid)}, keep" in said.content
                hard = ai.choose(view, random.Random(0), "hard")
                assert isinstance(hard, C.LayAway) and set(hard.cards) == set(best.laid)
            else:
                # Two-handed, the coach gives the expert's weighing (thought in the thinking process).
                weighing = expert.weigh(view, random.Random(table.adapter.coach_seed(table, 0)))
                assert said.content.startswith(f"💡 Play **{short(weighing.card)}**"), said.content
                *lines, last = said.content.splitlines()
                assert lines == expert_play_hint(view, weighing, 0.3).panel.content.splitlines()[:-1]
                assert last.startswith("-# 🧠 The expert's weighing: it thought for ")
            hinted.add(state.phase)
        await players.move()
    assert hinted == {C.Phase.DISCARD, C.Phase.PLAY}
    result = C.final_result(table.state)
    assert result.winners == (1,) and result.lurch == "lurch"
    channel = text(fake)
    assert "**Lurched!** ann did not reach" in channel and "🏆 **Bot (hard)** wins" in channel
    assert "<@-" not in channel  # the bot's seat is never pinged
    record = await bot.store.load_game(table.id)
    assert record is not None and record.status == "finished"
    assert await bot.store.rating_of(fake.channel.guild.id, "cribbage", ann.id) is None  # never rated


# ------------------------------------------------------------------------------------------- the calculators


async def test_the_count_and_discard_calculators_read_cards_strictly(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    await boot(start_bot, 1)
    ann, cy = fake.add_user("ann"), fake.add_user("cy")
    said = await fake.slash(ann, fake.channel, "cribbage count", cards="5h 5♠ jd 10♣", starter="5C")
    assert said.ephemeral
    assert "15 for 2, 15 for 4" in said.content and "pair royal for 20** — 20 in all." in said.content
    nothing = await fake.slash(ann, fake.channel, "cribbage count", cards="2C 4D 6H 8S", starter="KD")
    assert "**19 — nothing** — 0 in all." in nothing.content
    crib = await fake.slash(ann, fake.channel, "cribbage count", cards="2H 4H 6H 8H", starter="KD", crib=True)
    assert "flush" not in crib.content.split("\n", 1)[1]  # a four-card flush counts in a hand, not a crib
    hostile = await fake.slash(
        ann, fake.channel, "cribbage count", cards=f"{cy.mention} @everyone **5H", starter="5C"
    )
    assert (
        hostile.ephemeral and hostile.message.pinged_user_ids() == [] and not hostile.message.pings_everyone
    )
    assert "There is no card called" in hostile.content and "@everyone" not in hostile.content.replace(
        "@\u200beveryone", ""
    )
    named = await fake.slash(
        ann,
        fake.channel,
        "cribbage count",
        cards="five of hearts, 5s, jack of diamonds 10♣",
        starter="5 of clubs",
    )
    assert named.content == said.content  # names and codes as players type them (issue 46, item 9)
    twice = await fake.slash(ann, fake.channel, "cribbage count", cards="5H 5H JD QC", starter="5C")
    assert "appears twice" in twice.content
    # past the option's declared length: refused before the command runs (the adapter's own limit, "too much
    # text", guards its other callers)
    long = await fake.slash(ann, fake.channel, "cribbage count", cards="5H " * 60, starter="5C", force=True)
    assert long.ephemeral and "outside what this option takes" in long.content
    table = await fake.slash(
        ann, fake.channel, "cribbage discard", cards="5H 5S JD QC 7D 8C", **{"crib-is-yours": True}
    )
    assert table.ephemeral and "• **Lay away 7♦ 8♣, keep " in table.content and len(table.content) <= 2000
    listed = table.content.count("\n• ")
    assert f"…and {15 - listed} more choices, worth less." in table.content  # all 15, or how many are left
    five = await fake.slash(
        ann, fake.channel, "cribbage discard", cards="5H 5S JD QC 7D", players=4, **{"crib-is-yours": False}
    )
    assert five.content.count("\n• ") == 5 and "• **Lay away " in five.content  # 5 dealt: 5 ways to lay 1
