"""A move is told even when the bot dies between committing it and telling it.

The bot runs as a real child process (``bench.bot_process``) against the fake Discord, on one SQLite file. A
player presses; the bot commits the move and is caught waiting on Discord to tell it (the fake leaves its
requests hanging), or with the move's calls still waiting in its outbox; it is SIGKILLed there. The next
process finds the move committed untold and tells it: the calls in the game's thread, every person's panel
redrawn with the table as it now is, and the next player can move. A press on a panel drawn before the
table's last move gets the panel as the table is now.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bench.bot_process import BotChild
from bot.base.i18n import t
from bot.edge.table.presses import Presses
from bot.render.words import title
from bot.rules.decktet import ALL_CARDS
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.test_bhargage_discord import every_click_mine
from tests.transcripts import act, live_panel, verb


def stored(db: Path, game: int | None = None) -> tuple[int, int]:
    """(game id, actions logged) of the newest game, read as an operator would."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        if game is None:
            row = conn.execute("SELECT MAX(id) FROM games").fetchone()
            game = int(row[0])
        (count,) = conn.execute("SELECT COUNT(*) FROM actions WHERE game_id = ?", (game,)).fetchone()
        return game, int(count)


def token(message: FakeMessage) -> int | None:
    """The action count a panel was drawn at (the integer token its move controls carry)."""
    for cid in [b.custom_id for b in message.buttons()] + [s.custom_id for s in message.selects()]:
        parts = (cid or "").split(":")
        if len(parts) > 4 and parts[1] == "g" and parts[3].isdigit():
            return int(parts[3])
    return None


@contextlib.asynccontextmanager
async def bot_process(fake: FakeDiscord, db: Path) -> AsyncIterator[BotChild]:
    child = await BotChild.start(fake.api_base, fake.gateway_url, db, token=fake.token)
    try:
        yield child
    finally:
        await child.kill()


async def wait_for(check: Any, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


async def to_the_play(fake: FakeDiscord, channel: FakeChannel, alice: FakeUser, bob: FakeUser) -> None:
    """Alice challenges Bob, he accepts, and both play by DM until someone has a card to play. Each move is
    their press (Cut for me and Play my only card off), so the moves stored are the ones counted."""
    await every_click_mine(fake, [alice, bob])
    posted = await fake.slash(alice, channel, "bhargage challenge", opponent=bob, target=121)
    accept = next(b for b in posted.message.buttons() if verb(b.custom_id) == "accept")
    await fake.click(bob, posted.message, str(accept.custom_id))

    def next_step() -> tuple[FakeUser, FakeMessage] | None:
        for user in (alice, bob):
            panel = live_panel(fake, user)
            if panel is None or any((s.placeholder or "").startswith("Change") for s in panel.selects()):
                continue  # nothing to do, or laid away already (it could only change its discard)
            if verb_offered(panel, ("pick", "discard", "cut")):
                return user, panel
        return None

    # The bot is another process, perhaps still drawing its card faces: on a loaded machine (two cores, the
    # suite's other workers) that has taken over 30 s. A bound on a condition's wait, not a sleep.
    async with asyncio.timeout(90):
        while not any(plays(fake, user) for user in (alice, bob)):
            step = next_step()
            if step is None:
                await asyncio.sleep(0.05)
            else:
                await act(fake, *step)
                await fake.settle()


def verb_offered(panel: FakeMessage, verbs: tuple[str, ...]) -> bool:
    found = [verb(b.custom_id) for b in panel.buttons() if not b.disabled]
    found += [verb(s.custom_id) for s in panel.selects() if not s.disabled]
    return any(v in verbs for v in found)


def plays(fake: FakeDiscord, user: FakeUser) -> list[str]:
    """The play buttons on the user's live panel."""
    panel = live_panel(fake, user)
    if panel is None:
        return []
    return [str(b.custom_id) for b in panel.buttons() if verb(b.custom_id) == "play" and not b.disabled]


def thread_of(fake: FakeDiscord, channel: FakeChannel) -> FakeChannel:
    """Where the game's calls go: its thread, or its channel where the settings keep games there."""
    threads = fake.threads(channel)
    return threads[0] if threads else channel


@pytest.mark.parametrize("caught", ["telling", "coalescing"])
async def test_a_move_committed_but_not_told_is_told_after_a_kill(
    fake_discord: FakeDiscord, tmp_path: Path, caught: str
) -> None:
    """``telling``: killed while its answer and calls hang on Discord. ``coalescing``: killed after the
    press was answered, while the move's calls wait in the outbox for their window (5 s in these
    settings), which a kill loses from memory."""
    fake = fake_discord
    fake.quiet = 0.2  # the bot is another process: give it a moment between requests
    db = tmp_path / "tavern.sqlite3"
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    channel = fake.channel
    async with bot_process(fake, db) as first:
        await to_the_play(fake, channel, alice, bob)
        thread = thread_of(fake, channel)
        mover, other = (alice, bob) if plays(fake, alice) else (bob, alice)
        game, before = stored(db)
        panel = live_panel(fake, mover)
        assert panel is not None and token(panel) == before
        play = plays(fake, mover)[0]
        card = ALL_CARDS[int(play.rsplit(":", 1)[1])]
        told_before = len(fake.channel_messages(thread))  # earlier calls may still be waiting: never this one
        drawn = {fake.dms(user)[-1]: len(fake.dms(user)[-1].edits) for user in (alice, bob)}
        hang = fake.hang("", r"^/(webhooks|channels)/") if caught == "telling" else None
        await fake.click(mover, panel, play, settle=False)  # answered at once (deferred), then the move
        await wait_for(lambda: stored(db, game)[1] == before + 1)
        if hang is not None:
            await asyncio.wait_for(hang.caught.wait(), 10)  # committed, and stuck telling it
        else:
            await wait_for(lambda: len(panel.edits) > drawn[panel])  # answered: the calls wait in the outbox
        await first.kill()
        if hang is not None:
            hang.cut()

    def calls() -> str:
        return "\n".join(m.content for m in fake.channel_messages(thread)[told_before:])

    assert title(card) not in calls(), "the move's call never reached the thread"
    if caught == "telling":
        assert token(panel) == before, "the killed bot never redrew the pressed panel"

    async with bot_process(fake, db):
        # The restarted bot tells what it finds committed untold: the call, and every panel redrawn.
        await wait_for(lambda: title(card) in calls())
        # Both DM panels are redrawn (nobody knows which went out before the kill) ...
        for dm, edits in drawn.items():
            await wait_for(lambda dm=dm, edits=edits: len(dm.edits) > edits)
        # ... and whoever is to move now can: the newest stored move is on their panel.
        await fake.settle()
        mine = live_panel(fake, other)
        if mine is None or token(mine) != before + 1:
            mine = live_panel(fake, mover)  # a play that ends the count may give the mover the next turn
        assert mine is not None and token(mine) == before + 1
        await act(fake, other if mine is live_panel(fake, other) else mover, mine)
        await wait_for(lambda: stored(db, game)[1] == before + 2)


async def test_a_press_on_a_panel_drawn_before_the_last_move_gets_the_table_as_it_is(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot commits a move and tells nobody (as if it stopped right there): a press on the panel drawn
    before it is not refused bare — the table, as it now is, is told first, and the press gets its panel."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await to_the_play(fake, fake.channel, alice, bob)
    mover, other = (alice, bob) if plays(fake, alice) else (bob, alice)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    before = table.seq
    mine, theirs = live_panel(fake, mover), fake.dms(other)[-1]
    assert mine is not None and token(mine) == before
    theirs_drawn = len(theirs.edits)
    thread = thread_of(fake, fake.channel)
    told = len(fake.channel_messages(thread))

    saved = Presses.saved
    skipped: list[int] = []

    async def tells_nothing_once(self: Presses, interaction: Any, table: Any, *a: Any, **k: Any) -> None:
        """The first move's answer and announcement never happen (the bot stopped right after the commit)."""
        if not skipped:
            skipped.append(table.seq)
            return
        await saved(self, interaction, table, *a, **k)

    monkeypatch.setattr(Presses, "saved", tells_nothing_once)
    first, again = plays(fake, mover)[:2]
    await fake.click(mover, mine, first)
    assert skipped == [before + 1] and table.seq == before + 1
    assert token(mine) == before and len(theirs.edits) == theirs_drawn  # nobody was told

    # Another card on the same, now stale, panel: the table is told first, and the press gets its panel.
    answer = await fake.click(mover, mine, again)
    assert table.seq == before + 1, "the stale press moved nothing"
    assert answer.message is mine and token(mine) != before
    assert mine.content.startswith(t("tavern.table.stale-redrawn"))
    assert len(theirs.edits) > theirs_drawn and len(fake.channel_messages(thread)) > told
    assert not [m for m in fake.ephemerals(mover) if t("tavern.table.stale") in m.content]
    # A client still showing the old button presses it again: a plain refusal (the panel is current now).
    data = {"custom_id": again, "component_type": 2}
    late = await fake._interact(3, mover, mine.channel, data, "late press", message=mine)
    assert late.text() in (t("tavern.table.stale"), t("tavern.out-of-date")) and table.seq == before + 1
