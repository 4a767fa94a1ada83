"""Pictures through the real discord.py client and the fake Discord: the DM panels, the board, the show and
the Deluxe table carry their PNGs; editing replaces them; an upload Discord refuses, or a picture that can't
be drawn, leaves the game playing on with text; the suit emojis are made once; ``/tavern cards``."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import json
import logging
import os
import signal
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TypeVar

import pytest
from PIL import Image

from bench import sample_sheet
from bot import pictures
from bot.base.panel import Picture
from bot.edge import delivery
from bot.edge.app import TavernBot
from bot.render import suits
from bot.rules.decktet import Card, Rank, Suit
from bot.services import drawing, health
from bot.settings import Settings
from tests.conftest import ErrorLogGuard, StartBot
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser, walk_components
from tests.test_bhargage_discord import (
    board,
    challenge,
    enabled,
    every_click_mine,
    play_out,
    step,
    waiting_line,
)
from tests.test_deluxe_discord import boot, live_panel, open_table, play_turn, to_move

T = TypeVar("T")


def names(msg: FakeMessage) -> list[str]:
    return [a["filename"] for a in msg.attachments]


def png(fake: FakeDiscord, msg: FakeMessage, filename: str) -> Image.Image:
    """The message's picture: a real PNG whose size is what the attachment says."""
    (attachment,) = [a for a in msg.attachments if a["filename"] == filename]
    data = fake.attachment_bytes(attachment)
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.format == "PNG" and len(data) <= 150_000
    assert (attachment["width"], attachment["height"]) == image.size
    assert attachment.get("description"), "a picture without alt text"
    return image


def live_dm(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    return [m for m in fake.dms(user) if enabled(m)][-1]


async def test_bhargage_panels_board_and_show_carry_pictures(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await every_click_mine(fake, [alice, bob])  # the cut waits for its press: the board is seen before it
    await challenge(fake, alice, bob)
    kept = board(fake, fake.channel)
    assert names(kept) == ["bhargage-board.png"]
    first = dict(kept.attachments[0])
    png(fake, kept, "bhargage-board.png")
    hands = [live_dm(fake, u) for u in (alice, bob)]
    assert [names(m) for m in hands] == [["hand.png"], ["hand.png"]]
    # Each player sees their own five cards: the two pictures differ.
    assert png(fake, hands[0], "hand.png").tobytes() != png(fake, hands[1], "hand.png").tobytes()

    while "to cut" not in waiting_line(fake, fake.channel):
        await step(fake, fake.channel, [alice, bob])
    await step(fake, fake.channel, [alice, bob])  # the cut: the up-card is on the board now
    kept = board(fake, fake.channel)
    assert names(kept) == ["bhargage-board.png"] and kept.attachments[0]["id"] != first["id"]
    assert fake.attachment_bytes(kept.attachments[0]) != fake.attachment_bytes(first)
    # The board message was edited (no new board), and the DM panels stay one live message each.
    assert kept.id == board(fake, fake.channel).id and kept.edits

    await play_out(fake, fake.channel, [alice, bob])
    shows = [m for m in fake.channel_messages(fake.channel) if "**The show**" in m.content]
    assert shows and all(names(m) == ["show.png"] for m in shows)
    png(fake, shows[0], "show.png")
    # Every board, panel and show went out with its picture: no upload was refused or left out.
    assert all(u.status < 300 for u in fake.uploads)


def gallery(message: FakeMessage) -> list[str]:
    """What a layout message's galleries show (``attachment://`` addresses)."""
    return [
        item["media"]["url"]
        for c in walk_components(message.components)
        if c.get("type") == 12
        for item in c.get("items", [])
    ]


async def test_the_deluxe_table_and_hand_are_pictures_inside_their_containers(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    await boot(start_bot)
    users = [fake.add_user(n) for n in ("ann", "ben", "cy")]
    await open_table(fake, users)
    table = [m for m in fake.channel_messages(fake.channel) if m.laid_out and "table.png" in names(m)]
    assert len(table) == 1
    assert gallery(table[0]) == ["attachment://table.png"]
    png(fake, table[0], "table.png")
    user = to_move(fake, users)
    panel = live_panel(fake, user)
    assert names(panel) == ["hand.png"] and gallery(panel) == ["attachment://hand.png"]
    png(fake, panel, "hand.png")
    before = table[0].attachments[0]["id"]
    await play_turn(fake, user, panel)
    after = next(m for m in fake.channel_messages(fake.channel) if m.id == table[0].id)
    assert names(after) == ["table.png"] and after.attachments[0]["id"] != before


async def test_a_refused_upload_leaves_the_game_playing_on_in_text(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    fake.fail_uploads(413, 40005, "Request entity too large")
    caplog.set_level(logging.WARNING, "tavern")
    await challenge(fake, alice, bob)
    for _ in range(6):
        await step(fake, fake.channel, [alice, bob])
    kept = board(fake, fake.channel)
    assert names(kept) == [] and "Waiting for" in kept.content
    assert all(names(m) == [] for u in (alice, bob) for m in fake.dms(u))
    assert any(u.status == 413 for u in fake.uploads)
    assert "Discord refused the picture" in caplog.text

    # A server error on one board edit (discord.py does not retry a 503): that edit goes again as text alone.
    fake.fail_uploads_clear()
    kept = board(fake, fake.channel)
    fake.fail_next(
        "PATCH", rf"/channels/{fake.channel.id}/messages/{kept.id}$", 503, 0, "Service Unavailable"
    )
    edits = len(kept.edits)
    for _ in range(3):
        if len(kept.edits) > edits:
            break
        await step(fake, fake.channel, [alice, bob])
    assert len(kept.edits) == edits + 1 and names(kept) == [] and "Waiting for" in kept.content
    assert [r for r in fake.rejections() if r.status == 503]
    await step(fake, fake.channel, [alice, bob])
    assert names(kept) == ["bhargage-board.png"]  # the next edit carries the picture again
    await play_out(fake, fake.channel, [alice, bob])
    assert "Game over" in waiting_line(fake, fake.channel)
    assert names(board(fake, fake.channel)) == ["bhargage-board.png"]  # pictures are back


async def test_a_card_the_renderer_does_not_know_is_a_logged_error_not_a_stuck_table(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    seeded: None,
    error_logs: ErrorLogGuard,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = fake_discord
    await start_bot()
    bogus = Card(99, "Bogus", Rank.TWO, (Suit.MOONS,))
    scene = pictures.Scene((pictures.Row("", ((bogus,),)),))
    monkeypatch.setattr("bot.render.bhargage_scenes.board_scene", lambda state, names: scene)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    moves = 0
    while await step(fake, fake.channel, [alice, bob]) is not None and moves < 8:
        moves += 1
    assert moves == 8 and names(board(fake, fake.channel)) == []
    logged = error_logs.take("could not draw the picture bhargage-board.png")
    assert logged and "unknown card 'Bogus'" in error_logs.render(logged[0])
    assert all(names(fake.dms(u)[-1]) == ["hand.png"] for u in (alice, bob))  # other pictures still go


async def test_the_suit_emojis_are_made_once_and_used_in_text(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, seeded: None
) -> None:
    fake = fake_discord
    fake.add_application_emoji("decktet_moons", b"\x89PNG")  # made by hand in the Developer Portal
    with_emojis = dataclasses.replace(settings, suit_emojis=True)
    bot = await start_bot(with_emojis)
    assert bot._emojis is not None
    await bot._emojis
    made = {e.name: e for e in fake.application_emojis}
    assert set(made) == {f"decktet_{s.value.lower()}" for s in Suit} and fake.emoji_uploads() == 5
    for emoji in made.values():
        if emoji.name != "decktet_moons":
            image = Image.open(io.BytesIO(emoji.image))
            assert image.format == "PNG" and image.mode == "RGBA" and len(emoji.image) <= 256 * 1024
    assert suits.mark(Suit.WAVES) == f"<:decktet_waves:{made['decktet_waves'].id}>"

    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    assert f"<:decktet_moons:{made['decktet_moons'].id}> Moons" in board(fake, fake.channel).content
    options = [o.label for s in live_dm(fake, alice).selects() for o in s.options]
    assert options and not any("<:" in label for label in options)  # labels keep unicode suits

    # A restart finds them all: nothing more is made.
    await bot.close()
    again = await start_bot(with_emojis)
    assert again._emojis is not None
    await again._emojis
    assert fake.emoji_uploads() == 5 and len(fake.application_emojis) == 6
    await again.close()
    assert suits.mark(Suit.WAVES) == Suit.WAVES.emoji  # a closed bot's emojis are gone from text


async def test_suits_stay_unicode_where_discord_refuses_an_emoji(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    fake.fail_next("POST", r"/applications/\d+/emojis$", 400, 30008, "Maximum number of emojis reached")
    bot = await start_bot(dataclasses.replace(settings, suit_emojis=True))
    assert bot._emojis is not None
    await bot._emojis
    assert len(fake.application_emojis) == 5 and "could not create the decktet_moons emoji" in caplog.text
    assert suits.mark(Suit.MOONS) == Suit.MOONS.emoji and suits.mark(Suit.SUNS).startswith("<:decktet_suns:")


async def test_the_card_gallery(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await start_bot()
    user = fake.add_user("newcomer")
    shown = await fake.slash(user, fake.channel, "tavern cards")
    assert shown.ephemeral and "45 cards in six suits" in shown.content
    assert all(f"{s.emoji} {s.value}" in shown.content for s in Suit)
    gallery = png(fake, shown.message, "decktet.png")
    assert gallery.width >= 600

    sea = await fake.slash(user, fake.channel, "tavern cards", card="the sea")
    assert sea.ephemeral and "**The Sea** — rank Crown" in sea.content and "counts **10**" in sea.content
    assert png(fake, sea.message, "card.png").size == (240, 336)

    wrong = await fake.slash(user, fake.channel, "tavern cards", card="seaa")
    assert wrong.ephemeral and "There is no card called" in wrong.content and wrong.message.attachments == []


async def test_a_drawing_process_that_dies_costs_one_picture(error_logs: ErrorLogGuard) -> None:
    """Pictures are drawn in a process beside the event loop; if it dies, that picture is left out (logged)
    and the next one is drawn by a new process. (Each process is waited for as the bot waits for its first
    at start, ``DRAWING.start``: a start under load may take longer than one picture is waited for.)"""
    board = Picture("b.png", partial(pictures.draw, sample_sheet.sample_scenes()["board"]), "board")
    await drawing.DRAWING.start()
    (first,) = await delivery.draw(board)
    drawn = first.fp.read()
    assert first.filename == "b.png" and drawn.startswith(b"\x89PNG")
    pids = drawing.DRAWING.pids()
    assert pids, "the drawing process said no process id as it started"
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    await poll(lambda: all(gone(pid) for pid in pids), 5, "the killed drawing process to exit")
    assert await delivery.draw(board) == []
    assert error_logs.take("The drawing process stopped")
    await drawing.DRAWING.start()  # the replacement, started when the death was seen
    assert not set(drawing.DRAWING.pids()) & set(pids)
    (again,) = await delivery.draw(board)
    assert again.fp.read() == drawn


@pytest.fixture
def stopped() -> Iterator[list[int]]:
    """The processes a test stops (SIGSTOP), killed at its end whatever happened: none outlives it."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def gone(pid: int) -> bool:
    """The process has exited (a zombie not yet reaped by its parent counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


async def poll(check: Callable[[], T], timeout: float, what: str) -> T:
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.005)
    return result


async def test_a_hung_drawing_process_costs_pictures_not_moves_and_is_replaced(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    seeded: None,
    error_logs: ErrorLogGuard,
    stopped: list[int],
) -> None:
    """The drawing process stopped (SIGSTOP) in the middle of a game: the next move is answered within
    DRAW_SECONDS and a little, in text alone, instead of every table waiting on it; the stopped worker is
    killed and a new one draws the pictures of the move after; the heartbeat says so and stays healthy."""
    fake = fake_discord

    def fast(bot: TavernBot) -> None:
        bot.heartbeat_seconds = 0.05

    bot = await start_bot(setup=fast)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    while True:  # on to the pegging, where a press on a card is a move (the discard is a selection first)
        mover = next(u for u in (alice, bob) if u.name in waiting_line(fake, fake.channel))
        plays = [
            b for b in live_dm(fake, mover).buttons() if ":play:" in (b.custom_id or "") and not b.disabled
        ]
        if plays:
            break
        await step(fake, fake.channel, [alice, bob])
    panel = live_dm(fake, mover)
    assert names(panel) == ["hand.png"]
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    moves = table.seq

    hung = drawing.DRAWING.pids()
    assert hung
    drawing.DRAWING.forget_pictures()  # an earlier test's game drew this one's pictures: draw them anew
    for pid in hung:
        os.kill(pid, signal.SIGSTOP)
        stopped.append(pid)
    edits = len(panel.edits)
    pressed = time.monotonic()
    await fake.click(mover, panel, str(plays[0].custom_id), settle=False)
    await poll(lambda: len(panel.edits) > edits, 10, "the pressed panel to be redrawn")
    answered = time.monotonic() - pressed
    assert answered < drawing.DRAW_SECONDS + 1.0 < 3.0, f"the move was answered after {answered:.2f} s"
    assert names(panel) == [] and panel.content, "the move's answer is its text alone"
    await fake.settle(timeout=10)
    assert table.seq == moves + 1 and len(await bot.store.actions(table.id)) == moves + 1
    assert len(error_logs.take("The drawing process did not answer for 1.5 s")) == 1

    # The stopped worker is gone (SIGKILL reaches a stopped process) and a new one is up.
    await poll(lambda: all(gone(pid) for pid in hung), 10, "the hung worker to be killed")
    await poll(drawing.DRAWING.ready, 10, "a new drawing process")
    assert drawing.DRAWING.pids() and not set(drawing.DRAWING.pids()) & set(hung)

    # The next move has its pictures again.
    uploads = len(fake.uploads)
    await step(fake, fake.channel, [alice, bob])
    assert len(fake.uploads) > uploads and all(u.status < 300 for u in fake.uploads[uploads:])
    assert names(board(fake, fake.channel)) == ["bhargage-board.png"]

    # The heartbeat tells the operator, and the bot stays healthy: it healed itself.
    path = bot.settings.heartbeat_path
    await poll(lambda: "the last one hung" in health.check(path)[1], 5, "the heartbeat to mention it")
    healthy, line = health.check(path)
    assert healthy and line.startswith("ok: heartbeat") and "; the drawing process was replaced" in line
    assert "the last one hung" in line and "the new one works" in line
    assert "the last one hung" in json.loads(path.read_text())["drawing"]


async def test_show_my_hand_carries_the_hand_picture_where_dms_are_closed(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    fake = fake_discord
    await start_bot()
    alice, carol = fake.add_user("alice"), fake.add_user("carol", dms_closed=True)
    await challenge(fake, alice, carol)
    notice = next(m for m in fake.channel_messages(fake.channel) if "DMs are closed" in m.content)
    shown = await fake.click(carol, notice, notice.buttons()[0].custom_id or "")
    assert shown.ephemeral and shown.message.viewer is carol
    assert names(shown.message) == ["hand.png"]
    png(fake, shown.message, "hand.png")
