"""Playing anywhere on Discord (issue 47): games in a group DM, where the bot is not a member and only its
players' interactions reach it (a user install). The fake refuses every channel or DM REST call there
(403 50001), each interaction token dies 15 minutes after it was issued on the fake's clock (the bot's own
injectable clock here), and each test shows the bot attempted no REST call outside the interaction
endpoints, used no token older than that, and recorded the games in the users' scope."""

from __future__ import annotations

from bot.edge.app import TavernBot
from bot.edge.table.answering import LIFE
from bot.edge.table.host import USERS
from bot.games import Table
from bot.rules import cribbage as C
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.test_ai_discord import settle
from tests.test_cribbage_discord import true_count
from tests.transcripts import act, verb

EXTENSIONS = [
    "cogs.general",
    "cogs.stats",
    "cogs.bhargage",
    "cogs.cribbage",
    "cogs.deluxe",
    "cogs.right_click",
]
INTERACTION_ROUTES = ("/interactions/", "/webhooks/")


async def boot(fake: FakeDiscord, start_bot: StartBot, seed: int = 9) -> TavernBot:
    bot = await start_bot(extensions=EXTENSIONS)
    bot.lobbies.seed_source = lambda: seed
    fake.clock = bot.clock  # the tokens age on the clock the test moves
    await fake.settle()
    return bot


def rest_outside_interactions(fake: FakeDiscord, since: int) -> list[tuple[str, str]]:
    """Requests the bot sent after ``since`` to anything but the interaction endpoints."""
    return [(r.method, r.path) for r in fake.request_log[since:] if not r.path.startswith(INTERACTION_ROUTES)]


def board_of(fake: FakeDiscord, group: FakeChannel) -> FakeMessage:
    """The newest public message in the group DM with a Your hand button: the board."""
    boards = [
        m for m in fake.channel_messages(group) if any(verb(b.custom_id) == "hand" for b in m.buttons())
    ]
    assert boards, "no board in the group DM"
    return boards[-1]


def hand_button(board: FakeMessage) -> str:
    return next(str(b.custom_id) for b in board.buttons() if verb(b.custom_id) == "hand")


def hand_panel(fake: FakeDiscord, user: FakeUser) -> FakeMessage | None:
    """The user's newest ephemeral panel with controls to use."""
    for m in reversed(fake.ephemerals(user)):
        if any(not b.disabled for b in m.buttons()) or any(not s.disabled for s in m.selects()):
            return m
    return None


def drawn_now(panel: FakeMessage, table: Table, seat: int) -> bool:
    """Whether the panel's controls carry the seat's current freshness token (``tv:g:<id>:<token>:...``)."""
    ids = [
        c.custom_id
        for c in [*panel.buttons(), *panel.selects()]
        if c.custom_id and verb(c.custom_id) != "hint"
    ]
    return bool(ids) and all(i.split(":")[3] == table.adapter.token(table, seat) for i in ids)


async def step(fake: FakeDiscord, bot: TavernBot, group: FakeChannel, table: Table, user: FakeUser) -> None:
    """One step of the player the game waits for, by clicks: Your hand on the board when they hold no
    panel drawn as the table is now (their reach ran out while everyone was away), else the next control of
    their panel."""
    panel = hand_panel(fake, user)
    seat = table.seat_of(user.id)
    assert seat is not None
    if panel is None or not drawn_now(panel, table, seat):
        await fake.click(user, board_of(fake, group), hand_button(board_of(fake, group)))
        return
    if table.game == "cribbage":
        await cribbage_step(fake, user, panel, table.state)
        return
    await act(fake, user, panel)


async def cribbage_step(fake: FakeDiscord, user: FakeUser, panel: FakeMessage, state: C.State) -> None:
    """Lay away the lowest cards, cut, play the first playable card, claim the true count."""
    if state.phase is C.Phase.DISCARD:
        pick = next(s for s in panel.selects() if verb(s.custom_id) == "pick")
        chosen = await fake.select(
            user, panel, pick.custom_id, pick.values()[: C.lay_away_size(state.players)]
        )
        await fake.click(user, chosen.message, "Confirm")
    elif state.phase is C.Phase.CUT:
        await fake.click(user, panel, "Cut")
    elif state.phase is C.Phase.PLAY:
        play = next(b for b in panel.buttons() if verb(b.custom_id) == "play" and not b.disabled)
        await fake.click(user, panel, str(play.custom_id))
    else:
        points = str(true_count(state))
        menu = next(m for m in panel.selects() if verb(m.custom_id) == "tally" and points in m.values())
        await fake.select(user, panel, menu.custom_id, [points])


async def play_out(
    fake: FakeDiscord, bot: TavernBot, group: FakeChannel, users: list[FakeUser], *, idle_at: int = 12
) -> Table:
    """Play the group DM's table to its end; after ``idle_at`` steps everyone leaves it for 16 minutes
    (every token issued so far is dead), and the next press picks it up."""
    by_id = {u.id: u for u in users}
    table = bot.tables.active_tables()[0]
    for n in range(800):
        if table.status != "active":
            return table
        if n == idle_at:  # everyone away for 16 minutes; back, each asks for their hand on the board
            bot.clock.advance(16 * 60)
            for user in users:
                await fake.click(user, board_of(fake, group), hand_button(board_of(fake, group)))
        waiting = table.people_waited_for()
        assert waiting, "the table waits for nobody"
        await step(fake, bot, group, table, by_id[table.user_ids[waiting[0]]])
        await settle(fake, bot)  # a forced move (the computer makes it) told too
        table = await bot.tables.get(table.id)
    raise AssertionError("the game did not end")


def assert_interactions_only(fake: FakeDiscord, since: int) -> None:
    assert rest_outside_interactions(fake, since) == []
    assert fake.absent_refusals == []
    assert fake.rejections(10015) == [] and fake.rejections(40094) == []
    assert fake.token_ages and max(fake.token_ages) < LIFE + 60


async def test_bhargage_in_a_group_dm_by_clicks_without_rest(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(fake, start_bot)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    group = fake.add_group_dm(ann, bob)
    since = len(fake.request_log)

    posted = await fake.slash(ann, group, "bhargage challenge", opponent=bob, target=31)
    assert not posted.ephemeral
    await fake.click(bob, posted.message, "Accept")
    assert any(
        verb(b.custom_id) == "hand" for b in posted.message.buttons()
    )  # the challenge became the board
    table = await play_out(fake, bot, group, [ann, bob])

    assert table.status == "finished" and table.guild_id == USERS
    assert table.meta.by_interaction
    assert_interactions_only(fake, since)
    assert len(fake.channel_messages(group)) > 3  # calls and boards went out as follow-ups
    for user in (ann, bob):  # the users' scope holds the game and its rating
        profile = await bot.store.profile(USERS, user.id)
        assert [g.game for g in profile.games] == ["bhargage"] and profile.games[0].rating is not None
    card = await fake.slash(bob, group, "stats")  # /stats in the group DM: the users' scope
    assert card.ephemeral and card.buttons() == []  # no Post in channel where the bot is not
    assert "1" in card.text()


async def test_cribbage_in_a_group_dm_by_clicks_without_rest(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(fake, start_bot, seed=27)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    group = fake.add_group_dm(ann, bob)
    since = len(fake.request_log)

    posted = await fake.slash(ann, group, "cribbage challenge", opponent=bob)
    await fake.click(bob, posted.message, "Accept")
    table = await play_out(fake, bot, group, [ann, bob])

    assert table.status == "finished" and table.game == "cribbage"
    assert isinstance(table.state, C.State)
    assert_interactions_only(fake, since)


async def test_deluxe_for_three_in_a_group_dm_by_clicks_without_rest(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await boot(fake, start_bot, seed=5)
    ann, bob, cat = fake.add_user("ann"), fake.add_user("bob"), fake.add_user("cat")
    group = fake.add_group_dm(ann, bob, cat)
    since = len(fake.request_log)

    created = await fake.slash(ann, group, "deluxe create", target=20)
    lobby = created.message
    for user in (bob, cat):
        await fake.click(
            user, lobby, next(str(b.custom_id) for b in lobby.buttons() if verb(b.custom_id) == "join")
        )
    await fake.click(
        ann, lobby, next(str(b.custom_id) for b in lobby.buttons() if verb(b.custom_id) == "start")
    )
    table = await play_out(fake, bot, group, [ann, bob, cat], idle_at=30)

    assert table.status == "finished" and len(table.seats) == 3
    assert_interactions_only(fake, since)


async def test_a_right_click_challenge_in_a_group_dm_is_played_to_its_end(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """Right-click a friend, "Challenge to Bhargage": the same challenge as the slash command, accepted
    and played to its end by clicks, without REST; the user commands are localized and installable both
    ways."""
    fake = fake_discord
    bot = await boot(fake, start_bot)
    menus = {c["name"]: c for c in fake.commands() if c.get("type") == 2}
    assert set(menus) == {"Challenge to Bhargage", "Challenge to Cribbage", "Invite to Bharg Deluxe"}
    for menu in menus.values():
        assert menu["integration_types"] == [0, 1] and 2 in menu["contexts"]
    assert menus["Challenge to Bhargage"]["name_localizations"]["it"] == "Sfida a Bhargage"
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    group = fake.add_group_dm(ann, bob)
    since = len(fake.request_log)

    posted = await fake.user_command(ann, group, "Challenge to Bhargage", bob)
    assert bob.mention in posted.message.content  # the challenge names whom it challenges
    await fake.click(bob, posted.message, "Accept")
    table = await play_out(fake, bot, group, [ann, bob])

    assert table.status == "finished" and table.game == "bhargage" and table.guild_id == USERS
    assert_interactions_only(fake, since)


async def test_invite_to_deluxe_seats_the_right_clicked_member_in_a_server_lobby(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """In a server that added the bot, the menu opens the same lobby as ``/deluxe create``, in the
    server's scope, with the invited member seated."""
    fake = fake_discord
    bot = await boot(fake, start_bot)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    posted = await fake.user_command(ann, fake.channel, "Invite to Bharg Deluxe", bob)
    lobby = await bot.lobbies.get(1)
    assert lobby is not None and lobby.guild_id == fake.guild.id
    assert {ann.id, bob.id} <= set(lobby.names)
    assert not posted.ephemeral


async def test_practice_with_bots_in_a_group_dm_tells_their_moves_through_the_players_presses(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """Games against the bot where only interactions reach it: a Bhargage practice, and a Deluxe table of
    one player and five bots, whose long turns are told through the player's own presses (at most five
    follow-ups each: what one press cannot carry waits for the next), played to the end by clicks."""
    fake = fake_discord
    bot = await boot(fake, start_bot, seed=3)
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    group = fake.add_group_dm(ann, bob)
    since = len(fake.request_log)

    practice = await fake.slash(ann, group, "bhargage practice", target=31)
    assert not practice.ephemeral
    table = await play_out(fake, bot, group, [ann], idle_at=6)
    assert table.status == "finished" and table.guild_id == USERS and table.humans == (0,)

    created = await fake.slash(ann, group, "deluxe create", target=10)
    lobby = created.message
    for level in ("hard", "normal", "easy", "hard", "normal"):
        menu = next(s for s in lobby.selects() if ":addbot" in s.custom_id)
        lobby = (await fake.select(ann, lobby, menu.custom_id, [level])).message
    await fake.click(ann, lobby, "Start")
    await settle(fake, bot)
    table = await play_out(fake, bot, group, [ann], idle_at=10)
    assert table.status == "finished" and len(table.seats) == 6 and table.humans == (0,)
    record = await bot.store.load_game(table.id)
    assert record is not None and {a.seat for a in record.actions} == set(range(6))
    last = fake.channel_messages(group)[-1]
    assert last.id != lobby.id and "won" in last.content, "the game's last calls reach the group DM"
    assert_interactions_only(fake, since)
