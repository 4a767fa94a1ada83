"""Bharg Deluxe through the real discord.py client and the fake Discord: lobby to result by clicks."""

from __future__ import annotations

import random
from typing import Any

from bot.edge.app import TavernBot
from bot.render import deluxe as R
from bot.rules import deluxe as D
from bot.settings import Settings
from tests.conftest import StartBot, plural
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

EXTENSIONS = ["cogs.general", "cogs.stats", "cogs.deluxe"]
BOARD_HEAD = "**Bharg Deluxe · target "
MOVER = "▶️ **"  # the board's line of the player to move


async def boot(start_bot: StartBot, settings: Settings | None = None, seed: int | None = 5) -> TavernBot:
    bot = await start_bot(settings, extensions=EXTENSIONS)
    bot.lobbies.seed_source = lambda: seed
    return bot


async def open_table(
    fake: FakeDiscord, users: list[FakeUser], channel: FakeChannel | None = None, **options: Any
) -> FakeMessage:
    """Create a lobby as the first user, the others join, the host starts; returns the lobby message, which
    the Start press made the table's board."""
    channel = channel or fake.channel
    created = await fake.slash(users[0], channel, "deluxe create", **options)
    lobby = created.message
    assert not created.ephemeral and "Join" in [b.label for b in lobby.buttons()]
    for u in users[1:]:
        joined = await fake.click(u, lobby, "Join")
        assert u.name in joined.message.content
    started = await fake.click(users[0], lobby, "Start")
    assert started.message is lobby and lobby.content.startswith(BOARD_HEAD), lobby.content
    # The lobby's own controls are gone: the board's are the table's (Show my hand; Open the table where the
    # Activity is on) and at most the link to watch in a browser.
    assert "Show my hand" in labels(lobby) and lobby.selects() == []
    assert all(b.url or (b.custom_id or "").startswith("tv:g:") for b in lobby.buttons()), labels(lobby)
    return lobby


def pings(fake: FakeDiscord, channel: FakeChannel | None = None) -> list[FakeMessage]:
    return [
        m
        for m in fake.channel_messages(channel or fake.channel)
        if "your turn" in m.content or "bind once more" in m.content
    ]


def live_panel(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    """The user's newest DM that still has controls."""
    for m in reversed(fake.dms(user)):
        if m.buttons() or m.selects():
            return m
    raise AssertionError(f"{user.name} has no DM panel with controls")


def to_move(fake: FakeDiscord, users: list[FakeUser], channel: FakeChannel | None = None) -> FakeUser:
    """Whom the board (the newest, if it was posted again) marks to move. Not the last ping: the opening
    calls ping nobody whose hand just came by DM (the DM rang for them)."""
    boards = [m for m in fake.channel_messages(channel or fake.channel) if m.content.startswith(BOARD_HEAD)]
    board = boards[-1]
    lines = [line for line in board.content.split("\n") if line.startswith(MOVER)]
    assert len(lines) == 1, board.content
    found = [u for u in users if lines[0].startswith(f"{MOVER}{u.name}**")]
    assert len(found) == 1, lines[0]
    return found[0]


def labels(msg: FakeMessage) -> list[str | None]:
    return [b.label for b in msg.buttons()]


def menu(msg: FakeMessage, verb: str) -> Any:
    """The message's first select of this verb (``tv:g:<key>:<token>:<verb>[:<arg>]``), or None."""
    return next((s for s in msg.selects() if s.custom_id.split(":")[4] == verb), None)


def menus(msg: FakeMessage, verb: str) -> list[Any]:
    return [s for s in msg.selects() if s.custom_id.split(":")[4] == verb]


async def play_turn(fake: FakeDiscord, user: FakeUser, panel: FakeMessage) -> dict[str, int]:
    """Draw from the deck, bind the best meld the menu offers until none is left, then discard the first card
    the discard menu offers (or press Done in a final bind). Counts the clicks and what they did."""
    did = {"binds": 0, "clicks": 0, "draws": 0, "discards": 0}
    while "Draw from deck" in labels(panel):  # twice when fast start 1 puts a drawn Ace on the pile
        panel = (await fake.click(user, panel, "Draw from deck")).message
        did["clicks"] += 1
        did["draws"] += 1
    while True:
        melds = menu(panel, "meld")
        if melds is not None:
            panel = (await fake.select(user, panel, melds.custom_id, [melds.options[0].value])).message
            did["clicks"] += 1
            did["binds"] += 1
            assert "You bound " in panel.text() and "On the table:" in panel.text()  # the bind, confirmed
            continue
        if "Done" in labels(panel):
            await fake.click(user, panel, "Done")
            did["clicks"] += 1
            return did
        toss = menu(panel, "toss")
        if toss is None:
            return did  # the hand ended (went out by binding)
        done = (await fake.select(user, panel, toss.custom_id, [toss.options[0].value])).message
        # the turn is over: the panel is closed, or (the hand ended) the next hand starts with this player
        assert not (done.buttons() or done.selects()) or done.content.startswith("**Your turn: draw**"), (
            done.content
        )
        did["clicks"] += 1
        did["discards"] += 1
        return did


def first_content(m: FakeMessage) -> str:
    return m.edits[0].content if m.edits else m.content


async def play_until_over(
    fake: FakeDiscord, users: list[FakeUser], limit: int = 400, log: list[dict[str, int]] | None = None
) -> dict[str, int]:
    turns: dict[str, int] = {u.name: 0 for u in users}
    while not any("Rematch" in labels(m) for m in fake.channel_messages(fake.channel)):
        user = to_move(fake, users)
        did = await play_turn(fake, user, live_panel(fake, user))
        if log is not None:
            log.append(did)
        turns[user.name] += 1
        assert sum(turns.values()) < limit
    return turns


async def test_whole_three_player_game_by_clicks(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await boot(start_bot)
    users = [fake.add_user(n) for n in ("ann", "bob", "cat")]
    await open_table(fake, users, target=30)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.game == "deluxe"
    game_id = table.id
    board_id = table.meta.board_id
    board = fake.messages[board_id]
    assert "Straight suit" in board.text() and "Discard Queue" in board.text() and "Deck:" in board.text()
    assert all(u.name in board.text() for u in users)

    seq = table.seq
    log: list[dict[str, int]] = []
    turns = await play_until_over(fake, users, log=log)

    # every click was a move: a turn of draw, k binds and a discard takes 2 + k clicks
    assert sum(d["clicks"] for d in log) == table.seq - seq
    typical = [d for d in log if d["draws"] == 1 and d["discards"] == 1]
    assert len(typical) >= len(log) - 3 and any(d["binds"] for d in typical)
    assert all(d["clicks"] == 2 + d["binds"] for d in typical)
    state: D.State = (await bot.tables.get(game_id)).state
    assert D.is_over(state) and len(state.history) >= 1
    msgs = fake.channel_messages(fake.channel)
    # one ping per turn, carrying the public events of the turn before, but the first: its player's hand
    # came as a new DM, which rang for them, so the opening call pings nobody
    assert len(pings(fake)) == sum(turns.values()) - 1
    opening = next(m for m in msgs if "is dealt" in m.content)
    assert not any(u.mention in opening.content for u in users) and opening.pinged_user_ids() == []
    assert any("drew from the deck" in m.content and "discarded" in m.content for m in pings(fake))
    # a score sheet per hand
    sheets = [m for m in msgs if "scored**" in m.content]
    assert len(sheets) == len(state.history)
    assert "Bound  Hand  Score  Total" in sheets[0].content
    # one live panel per player for the whole game: one DM, edited in place for every turn and every hand
    assert state.hand_no > 1
    for u in users:
        assert len(fake.dms(u)) == 1
        assert not [m for m in fake.dms(u) if m.buttons() or m.selects()]
    # every player's panel ends on the result and every score (no promise of a next turn)
    await fake.settle()
    for u in users:
        [panel] = fake.dms(u)
        assert panel.content.startswith("The game is over.\n"), (u.name, panel.content)
        assert "Game over" in panel.text() and all(f"{v.name} — " in panel.text() for v in users)
    # the winner, the kept table message, the store
    final = next(m for m in msgs if "Rematch" in labels(m))
    record = await bot.store.load_game(game_id)
    assert record is not None and record.status == "finished" and record.result is not None
    winner = users[record.result["winners"][0]]
    assert f"{winner.name} — {max(state.totals)} 🏆" in final.content and "Game over" in final.content
    assert "won" in board.text() and board.buttons() == []
    assert all(h is not None for h in record.result["hand_score_avg"])

    board_cmd = await fake.slash(users[0], fake.channel, "leaderboard", game="deluxe")
    assert "Bharg Deluxe leaderboard" in board_cmd.content
    assert all(u.name in board_cmd.content for u in users)
    mine = await fake.slash(winner, fake.channel, "stats")
    assert "Bharg Deluxe" in mine.content and "average hand score" in mine.content

    # rematch: a new lobby with everyone seated, hosted by whoever pressed it
    rematch = await fake.click(users[1], final, "Rematch")
    lobby = rematch.message
    assert not rematch.ephemeral and "Players (3/6)" in lobby.content and "table by bob" in lobby.content
    again = await fake.click(users[2], final, "Rematch")
    assert again.ephemeral and "already an open table" in again.content
    started = await fake.click(users[1], lobby, "Start")
    assert started.message is lobby and lobby.content.startswith(BOARD_HEAD)
    again_table = await bot.tables.table_for_channel(fake.channel.id)
    assert again_table is not None and again_table.meta.board_id == lobby.id


async def test_the_turn_panel_binds_and_discards_in_one_click_each(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """The bind step: the best melds in one menu, the discards in another, "Build a meld by hand" for the
    rest; a single picked card there gets a hint, never an error."""
    from bot.games import deluxe_panel as P

    fake = fake_discord
    bot = await boot(start_bot, seed=5)
    users = [fake.add_user(n) for n in ("ann", "bob", "cat")]
    await open_table(fake, users, target=30)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    checked_hint = False
    for _ in range(30):
        user = to_move(fake, users)
        seat = table.seat_of(user.id)
        panel = (await fake.click(user, live_panel(fake, user), "Draw from deck")).message
        assert "Build a meld by hand" in labels(panel) and menu(panel, "toss") is not None
        scores = D.view(table.state, seat).scores
        assert (
            "Scores: "
            + " · ".join(f"{u.name} {R.progress(n, 30)}" for u, n in zip(users, scores, strict=True))
            in panel.text()
        )
        melds = menu(panel, "meld")
        hand = D.view(table.state, seat).hand
        if melds is not None:
            assert panel.content.startswith("**Your turn: bind, then discard**")
            assert melds.placeholder == "Bind a meld…"
            best = P.ranked_melds(table.state, seat)
            assert len(melds.options) == min(25, len(best))
            pts = [R.points(m.cards) for m in best[:25]]
            assert pts == sorted(pts, reverse=True)
            assert [o.description.split(" · ")[1] for o in melds.options] == [plural(p, "pt") for p in pts]
            top = best[0]
            assert melds.options[0].label == ", ".join(R.card_text(c) for c in top.cards)
            assert melds.options[0].value == P.mask_text(P.mask_of(hand, top.cards))
        else:
            assert panel.content.startswith("**Your turn: discard**")
        if not checked_hint:
            built = (await fake.click(user, panel, "Build a meld by hand")).message
            assert labels(built)[-1] == "Back" and built.button("Bind picked cards").disabled
            for i in range(len(hand)):
                pick = menu(built, "pick")
                one = (await fake.select(user, built, pick.custom_id, [str(i)])).message
                text = one.text()
                assert P.PICK_HINT in text or "These make a ➕ partial straight" in text, text
                assert "Straights need" not in text and "make no meld" not in text
                assert one.button(f"Discard {hand[i].title}") is not None
                built = one
            checked_hint = True
            seq = table.seq
            panel = (await fake.click(user, built, "Back")).message
            assert table.seq == seq and menu(panel, "toss") is not None
        toss = menu(panel, "toss")
        assert toss.placeholder == "Discard a card (ends your turn)…"
        assert [o.value for o in toss.options] == [str(i) for i in range(len(hand))]
        seq = table.seq
        done = (await fake.select(user, panel, toss.custom_id, [toss.options[-1].value])).message
        assert table.seq == seq + 1 and not (done.buttons() or done.selects())
        if table.status != "active":
            break
    board = fake.messages[table.meta.board_id].text()
    assert "/30 " in board and "▱" in board


async def test_the_hint_answers_each_step_privately_with_the_hard_players_choice_first(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """💡 Hint on the draw step and on the bind step: a private answer (the panel and the table unchanged)
    whose first option is what the hard computer player would play; the draw menu says what each take
    unlocks."""
    from bot.ai import deluxe as ai

    fake = fake_discord
    bot = await boot(start_bot, seed=5)
    users = [fake.add_user(n) for n in ("ann", "bob")]
    await open_table(fake, users, target=30)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    for _ in range(6):
        user = to_move(fake, users)
        seat = table.seat_of(user.id)
        panel = live_panel(fake, user)
        take = menu(panel, "take")
        if take is not None:
            assert all(
                ("to bind now" in o.description) or ("nothing more to bind" in o.description)
                for o in take.options
            )
        for step in ("draw", "bind"):
            view = D.view(table.state, seat)
            seq = table.seq
            said = await fake.click(user, panel, "Hint")
            assert said.ephemeral and table.seq == seq
            first = next(line for line in said.message.content.split("\n") if line.startswith("• "))
            best = ai.choose(view, random.Random(0), "hard")
            if step == "draw":
                assert "What to draw" in said.message.content
                assert ("Draw from the deck" in first) == isinstance(best, D.Draw)
            else:
                assert "The rest of your turn" in said.message.content
                if isinstance(best, D.Discard):
                    assert first.startswith(f"• **Discard {R.card_text(best.card)}")
                else:
                    assert first.startswith("• **Bind ")
            if step == "draw":
                panel = (await fake.click(user, panel, "Draw from deck")).message
        toss = menu(panel, "toss")
        await fake.select(user, panel, toss.custom_id, [toss.options[0].value])
        if table.status != "active":
            break
