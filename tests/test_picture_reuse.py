"""A picture is drawn once and uploaded once: an edit that keeps a message's picture keeps its attachment
(no upload), the same scene is not drawn twice, and a press's answer never waits on the drawing process —
its picture follows by the interaction's own edit. Through the real discord.py client and the fake Discord."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import time
from dataclasses import replace
from functools import partial

import discord

from bench import bench_flow as flow
from bench import sample_sheet
from bot import pictures
from bot.base.panel import Panel, Picture
from bot.edge import delivery
from bot.services import drawing
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord
from tests.test_bhargage_discord import challenge
from tests.test_pictures_discord import live_dm, names, poll, stopped  # noqa: F401 (fixtures)


def scene_picture(name: str) -> Picture:
    scene = sample_sheet.sample_scenes()[name]
    return Picture(f"{name}.png", partial(pictures.draw, scene), name, key=scene)


async def test_an_unchanged_picture_is_kept_and_a_changed_one_uploaded(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    drawing.DRAWING.forget_pictures()
    channel = bot.get_partial_messageable(fake.channel.id)
    panel = Panel(content="the board", picture=scene_picture("board"))
    sent: discord.Message = await delivery.deliver(channel.send, panel, "g", 1, new=True)
    message = fake.messages[sent.id]
    (first,) = message.attachments
    uploads, calls = len(fake.uploads), drawing.DRAWING.calls

    # The same picture with other text: the attachment stays, nothing is drawn or uploaded.
    await delivery.deliver(sent.edit, replace(panel, content="the board, later"), "g", 1, editing=sent.id)
    assert message.content == "the board, later"
    assert message.attachments == [first] and len(fake.uploads) == uploads
    assert drawing.DRAWING.calls == calls

    # Another picture is uploaded in its place.
    other = replace(panel, picture=scene_picture("show"))
    await delivery.deliver(sent.edit, other, "g", 1, editing=sent.id)
    assert names(message) == ["show.png"] and len(fake.uploads) == uploads + 1

    # A message whose attachment went elsewhere (another process edited it) gets the picture uploaded again.
    await delivery.deliver(sent.edit, panel, "g", 1, editing=sent.id)
    board_attachment = message.attachments[0]
    message.attachments = []  # as if edited by a process this one does not know of
    await delivery.deliver(sent.edit, replace(panel, content="again"), "g", 1, editing=sent.id)
    assert names(message) == ["board.png"] and message.attachments[0]["id"] != board_attachment["id"]


async def test_the_same_scene_is_drawn_once() -> None:
    drawing.DRAWING.forget_pictures()
    picture = scene_picture("hand")
    calls = drawing.DRAWING.calls
    together = await asyncio.gather(*(delivery.draw(picture) for _ in range(5)))
    again = await delivery.draw(picture)
    assert drawing.DRAWING.calls == calls + 1
    assert len({f[0].fp.read() for f in [*together, again]}) == 1


async def test_a_pick_is_answered_while_the_drawing_process_is_stopped(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    seeded: None,
    stopped: list[int],  # noqa: F811
) -> None:
    """The drawing process stops; a player picks a card to lay away: the answer comes at once, in text, and
    the hand's picture follows by an edit once the process draws again."""
    fake = fake_discord
    await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    panel = live_dm(fake, alice)
    (pick,) = [s for s in panel.selects() if ":pick" in s.custom_id]
    assert names(panel) == ["hand.png"]
    drawing.DRAWING.forget_pictures()
    worker = drawing.DRAWING.pids()
    for pid in worker:
        os.kill(pid, signal.SIGSTOP)
        stopped.append(pid)
    edits = len(panel.edits)
    pressed = time.monotonic()
    answer = await fake.select(alice, panel, pick.custom_id, pick.values()[:2], settle=False)
    answered = time.monotonic() - pressed
    assert answer.interaction.callback_at is not None and answered < 0.5, f"answered after {answered:.2f} s"
    await poll(lambda: len(panel.edits) > edits, 5, "the pick's answer")
    assert names(panel) == [], "the answer went as text while the picture was drawn"
    for pid in worker:
        os.kill(pid, signal.SIGCONT)
        stopped.remove(pid)  # drawing again: the next tests keep it
    await poll(lambda: names(panel) == ["hand.png"], 5, "the picture to follow the answer")


async def test_a_whole_game_uploads_no_picture_a_message_shows_already(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    """Played through to its end, a Bhargage game's edits never upload the very picture (same name, same
    bytes) the edited message showed already: each is kept by its attachment."""
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, coalesce_seconds=0.2, attention_seconds=60.0))
    ann, bob = fake.add_user("Ann"), fake.add_user("Bob")
    figures = await flow.play_bhargage(fake, bot, fake.channel, [ann, bob], 7, 61)
    assert figures.pictures["hand.png edit (answer)"] > figures.moves // 2, figures.lines()
    assert figures.unchanged == 0, figures.lines()


async def test_an_edit_replaced_by_a_newer_one_does_not_claim_its_answer(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """An edit waiting for the budget that a newer edit of the same message replaces gets the newer edit's
    answer (``bot.edge.governor``): the attachment there, of the same file name, is the newer picture, so
    the replaced edit's picture must not be thought shown, or a later edit would keep the wrong one."""
    fake = fake_discord
    bot = await start_bot()
    channel = bot.get_partial_messageable(fake.channel.id)
    board = Panel(content="the board", picture=scene_picture("board"))
    show = scene_picture("show")
    other = Panel(content="the show", picture=replace(show, filename="board.png"))
    sent: discord.Message = await delivery.deliver(channel.send, board, "g", 1, new=True)
    await delivery.deliver(sent.edit, other, "g", 1, editing=sent.id)

    async def replaced(**_: object) -> discord.Message:
        # the newer edit (back to the board) begins, and its answer is the replaced edit's answer
        return await delivery.deliver(sent.edit, board, "g", 1, editing=sent.id)

    await delivery.deliver(replaced, other, "g", 1, editing=sent.id)
    message = fake.messages[sent.id]
    assert fake.attachment_bytes(message.attachments[0]) == pictures.draw(
        sample_sheet.sample_scenes()["board"]
    )
    uploads = len(fake.uploads)
    await delivery.deliver(sent.edit, other, "g", 1, editing=sent.id)
    assert len(fake.uploads) == uploads + 1, "the show's picture was uploaded, not the board's kept"
    assert fake.attachment_bytes(message.attachments[0]) == pictures.draw(
        sample_sheet.sample_scenes()["show"]
    )


async def test_a_picture_still_drawing_when_the_bot_closes_is_dropped_quietly(
    fake_discord: FakeDiscord,
    start_bot: StartBot,
    seeded: None,
    stopped: list[int],  # noqa: F811
) -> None:
    """An answer went as text while the drawing process was stopped; the bot closes (a restart, a deploy)
    before the picture is drawn. The picture's edit then has no HTTP session left: it is dropped, and the
    task ends without an error (it failed with "Session is closed", never retrieved)."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    panel = live_dm(fake, alice)
    (pick,) = [s for s in panel.selects() if ":pick" in s.custom_id]
    drawing.DRAWING.forget_pictures()
    worker = drawing.DRAWING.pids()
    for pid in worker:
        os.kill(pid, signal.SIGSTOP)
        stopped.append(pid)
    edits = len(panel.edits)
    await fake.select(alice, panel, pick.custom_id, pick.values()[:2], settle=False)
    await poll(lambda: len(panel.edits) > edits, 5, "the pick's answer")
    waiting = list(delivery._LATER)
    assert waiting, "the picture follows later"
    await bot.close()
    for pid in worker:
        os.kill(pid, signal.SIGCONT)
        stopped.remove(pid)
    done = await asyncio.wait_for(asyncio.gather(*waiting, return_exceptions=True), 30)
    assert done == [None] * len(waiting)
