"""The fake Discord's file uploads, application emojis and component emojis, through the real discord.py
client."""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.edge.app import TavernBot
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord


@pytest.fixture(autouse=True)
def planted(fake_discord: FakeDiscord) -> Iterator[None]:
    """The tests here send what Discord refuses on purpose, to check the fake's refusals of uploads: the
    referee's findings (``bot.edge.contract``) are theirs, taken at each test's end."""
    yield
    fake_discord.take_violations()


# ------------------------------------------------------------------------------------------------ helpers


def png(width: int, height: int, pad: int = 0) -> bytes:
    """A valid PNG of ``width`` x ``height`` black pixels, grown by ``pad`` bytes of an ancillary chunk."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + b"\x00" * 3 * width for _ in range(height))
    extra = chunk(b"teXt", b"pad\x00" + b"x" * pad) if pad else b""
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + extra
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def file(data: bytes, name: str) -> discord.File:
    return discord.File(io.BytesIO(data), filename=name)


async def text_channel(bot: TavernBot, fake: FakeDiscord) -> discord.TextChannel:
    channel = bot.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    return channel


class Swap(discord.ui.View):
    """A button whose click replaces the message's picture (callback 7 with a file)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Swap", custom_id="up:swap")
    async def swap(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.edit_message(
            content="swapped", attachments=[file(png(3, 4), "swapped.png")], view=self
        )


def add_upload_commands(bot: TavernBot) -> None:
    """A ``/up`` group that answers interactions with files in every way discord.py offers."""
    group = app_commands.Group(name="up", description="uploads")

    @group.command(name="pic", description="a reply with a picture")
    async def pic(interaction: discord.Interaction[Any], secret: bool = False) -> None:
        await interaction.response.send_message(
            "a picture", file=file(png(5, 6), "pic.png"), ephemeral=secret, view=Swap()
        )

    @group.command(name="later", description="defer, edit the original with a file, follow up with one")
    async def later(interaction: discord.Interaction[Any], secret: bool = False) -> None:
        await interaction.response.defer(ephemeral=secret, thinking=True)
        await interaction.edit_original_response(
            content="done", attachments=[file(png(7, 8), "original.png")]
        )
        await interaction.followup.send("and this", file=file(b"a,b\n1,2\n", "scores.csv"), ephemeral=secret)

    bot.tree.add_command(group)


# ------------------------------------------------------------------------------------------ channel uploads


async def test_channel_send_with_png_keeps_bytes_and_size(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = await text_channel(bot, fake)
    image = png(12, 34)

    sent = await channel.send("the board", file=file(image, "board.png"))

    msg = fake.last_message(fake.channel)
    [att] = msg.attachments
    assert (att["filename"], att["size"], att["content_type"]) == ("board.png", len(image), "image/png")
    assert (att["width"], att["height"]) == (12, 34)
    assert fake.attachment_bytes(att) == image == msg.files["board.png"]
    # what discord.py made of the answer, and the bytes behind the url
    [got] = sent.attachments
    assert (got.filename, got.width, got.height, got.content_type) == ("board.png", 12, 34, "image/png")
    assert await got.read() == image
    assert fake.uploads[-1][:4] == (
        "POST",
        f"/channels/{fake.channel.id}/messages",
        ("board.png",),
        (len(image),),
    )
    assert fake.uploads[-1].status == 200


async def test_image_alone_is_a_message_and_text_files_get_a_type(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = await text_channel(bot, fake)
    await channel.send(files=[file(png(1, 1), "a.png"), file(b"hello", "notes.txt")])
    msg = fake.last_message(fake.channel)
    assert msg.content == "" and [a["filename"] for a in msg.attachments] == ["a.png", "notes.txt"]
    assert msg.attachments[1]["content_type"] == "text/plain; charset=utf-8"
    assert "width" not in msg.attachments[1]


async def test_edit_replaces_keeps_and_removes_attachments(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = await text_channel(bot, fake)
    sent = await channel.send("v1", file=file(png(2, 2), "old.png"))
    old_id = fake.last_message(fake.channel).attachments[0]["id"]

    # edit(attachments=[File]) lists only the new upload: the old attachment goes
    sent = await sent.edit(content="v2", attachments=[file(png(4, 4), "new.png")])
    msg = fake.last_message(fake.channel)
    assert [a["filename"] for a in msg.attachments] == ["new.png"]
    assert msg.attachments[0]["id"] != old_id and msg.attachments[0]["width"] == 4
    assert list(msg.files) == ["new.png"]
    assert msg.edits[-1].attachments[0]["id"] == old_id  # the snapshot before the edit

    # keeping the existing one (by its snowflake) and adding a second
    sent = await sent.edit(attachments=[*sent.attachments, file(b"x", "more.txt")])
    assert [a["filename"] for a in msg.attachments] == ["new.png", "more.txt"]

    # an edit without attachments keeps them
    sent = await sent.edit(content="v3")
    assert len(msg.attachments) == 2

    # attachments=[] removes them all
    await sent.edit(attachments=[])
    assert msg.attachments == [] and msg.files == {} and msg.content == "v3"


async def test_removing_the_only_picture_of_an_image_message_is_an_empty_message(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = await text_channel(bot, fake)
    sent = await channel.send(file=file(png(2, 2), "only.png"))
    with pytest.raises(discord.HTTPException) as refused:
        await sent.edit(attachments=[])
    assert (refused.value.status, refused.value.code) == (400, 50006)
    assert len(fake.last_message(fake.channel).attachments) == 1


async def test_dm_with_a_file(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    ann = fake.add_user("ann")
    bot = await start_bot()
    user = await bot.fetch_user(ann.id)
    await user.send("your hand", file=file(png(9, 3), "hand.png"))
    [dm] = fake.dms(ann)
    assert dm.content == "your hand" and dm.attachments[0]["width"] == 9
    assert fake.attachment_bytes(dm.attachments[0]) == png(9, 3)


# --------------------------------------------------------------------------------------- interaction uploads


@pytest.mark.parametrize("secret", [False, True], ids=["public", "ephemeral"])
async def test_interaction_replies_carry_files(
    fake_discord: FakeDiscord, start_bot: StartBot, secret: bool
) -> None:
    fake = fake_discord
    ann = fake.add_user("ann")
    await start_bot(setup=add_upload_commands)

    # callback 4 with a file
    result = await fake.slash(ann, fake.channel, "up pic", secret=secret)
    reply = result.message
    assert result.type == 4 and reply.ephemeral is secret
    [att] = reply.attachments
    assert (att["filename"], att["width"], att["height"]) == ("pic.png", 5, 6)
    assert att.get("ephemeral", False) is secret
    assert fake.attachment_bytes(att) == png(5, 6)

    # callback 7 (edit_message) replacing it
    clicked = await fake.click(ann, reply, "Swap")
    assert clicked.type == 7
    assert reply.content == "swapped" and [a["filename"] for a in reply.attachments] == ["swapped.png"]
    assert (reply.attachments[0]["width"], reply.attachments[0]["height"]) == (3, 4)

    # deferred, then edit_original_response(attachments=[File]) and followup.send(file=)
    later = await fake.slash(ann, fake.channel, "up later", secret=secret)
    original, followup = later.messages
    assert original.content == "done" and not original.loading
    assert [a["filename"] for a in original.attachments] == ["original.png"]
    assert followup.attachments[0]["filename"] == "scores.csv"
    assert fake.attachment_bytes(followup.attachments[0]) == b"a,b\n1,2\n"
    assert {m.ephemeral for m in later.messages} == {secret}
    paths = [(u.method, u.path.split("/")[1]) for u in fake.uploads]
    assert paths == [
        ("POST", "interactions"),
        ("POST", "interactions"),
        ("PATCH", "webhooks"),
        ("POST", "webhooks"),
    ]


# --------------------------------------------------------------------------------------------- upload limits


async def test_eleven_files_are_refused(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = await text_channel(bot, fake)
    await channel.send("ten", files=[file(b"x", f"f{i}.txt") for i in range(10)])
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("eleven", files=[file(b"x", f"f{i}.txt") for i in range(11)])
    assert (refused.value.status, refused.value.code) == (400, 30015)
    assert "Maximum number of attachments in a message reached (10)" in refused.value.text
    assert fake.last_message(fake.channel).content == "ten"


async def test_a_file_over_the_upload_limit_is_413(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = await text_channel(bot, fake)
    limit = 10 * 1024 * 1024
    await channel.send("at the limit", file=file(b"\0" * limit, "big.bin"))
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("over", file=file(b"\0" * (limit + 1), "bigger.bin"))
    assert (refused.value.status, refused.value.code) == (413, 40005)
    assert refused.value.text == "Request entity too large"
    assert fake.last_message(fake.channel).content == "at the limit"
    assert [u.sizes for u in fake.uploads] == [(limit,), (limit + 1,)]


async def test_attachment_entries_must_name_a_part_or_a_kept_attachment(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = await text_channel(bot, fake)
    # an entry for files[0] with no file part sent (a JSON body)
    params = discord.http.MultipartParameters(
        payload={"content": "x", "attachments": [{"id": 0, "filename": "a.png"}]}, multipart=None, files=None
    )
    with pytest.raises(discord.HTTPException) as refused:
        await bot.http.send_message(channel.id, params=params)
    assert refused.value.code == 50035
    assert fake.rejections(50035)[-1].errors == {
        "attachments": {
            "0": {"_errors": [{"code": "ATTACHMENT_NOT_FOUND", "message": "Attachment data not found"}]}
        }
    }
    # an edit keeping an attachment id the message never had
    sent = await channel.send("v1", file=file(b"x", "a.txt"))
    params = discord.http.MultipartParameters(
        payload={"attachments": [{"id": str(sent.id)}]}, multipart=None, files=None
    )
    with pytest.raises(discord.HTTPException) as refused:
        await bot.http.edit_message(channel.id, sent.id, params=params)
    assert refused.value.code == 50035 and len(fake.last_message(fake.channel).attachments) == 1
    # an empty filename
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("x", file=file(b"x", ""))
    assert refused.value.code == 50035 and "attachments.0.filename" in refused.value.text


async def test_fail_uploads_fails_only_requests_with_files(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = await text_channel(bot, fake)
    fake.fail_uploads(503, 0, "Service Unavailable")
    tried = len(fake.uploads)
    with pytest.raises(discord.DiscordServerError) as failed:
        await channel.send("with a file", file=file(png(1, 1), "p.png"))
    assert failed.value.status == 503
    assert len(fake.uploads) == tried + 1  # discord.py does not retry a 503 on the bot's HTTP client
    await channel.send("text only")
    assert fake.last_message(fake.channel).content == "text only"
    with pytest.raises(discord.DiscordServerError):
        await channel.send(file=file(png(1, 1), "p.png"))
    fake.fail_uploads_clear()
    await channel.send(file=file(png(1, 1), "p.png"))
    assert [u.status for u in fake.uploads] == [503, 503, 200]

    fake.fail_uploads(400, 0, "passing failure", times=1)
    with pytest.raises(discord.HTTPException):
        await channel.send(file=file(png(1, 1), "p.png"))
    await channel.send(file=file(png(1, 1), "p.png"))
    assert [u.status for u in fake.uploads][-2:] == [400, 200]


# ---------------------------------------------------------------------------------------- application emojis


async def test_application_emojis(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()

    moon = await bot.create_application_emoji(name="moon", image=png(16, 16))
    assert moon.name == "moon" and moon.is_application_owned() and not moon.animated
    [stored] = fake.application_emojis
    assert stored.id == moon.id and stored.image == png(16, 16) and stored.user is fake.bot_user
    assert [e.id for e in await bot.fetch_application_emojis()] == [moon.id]
    assert (await bot.fetch_application_emoji(moon.id)).name == "moon"

    async def refused(name: str, image: bytes) -> dict[str, Any]:
        with pytest.raises(discord.HTTPException) as err:
            await bot.create_application_emoji(name=name, image=image)
        assert (err.value.status, err.value.code) == (400, 50035)
        return fake.rejections(50035)[-1].errors

    taken = await refused("moon", png(8, 8))
    assert taken["name"]["_errors"][0]["code"] == "APPLICATION_EMOJI_NAME_ALREADY_TAKEN"
    assert (await refused("m", png(8, 8)))["name"]["_errors"][0]["code"] == "BASE_TYPE_BAD_LENGTH"
    assert (await refused("full-moon", png(8, 8)))["name"]["_errors"][0]["code"] == "STRING_TYPE_REGEX"
    big = await refused("sun", png(8, 8, pad=256 * 1024))
    assert big["image"]["_errors"] == [
        {"code": "BINARY_TYPE_MAX_SIZE", "message": "File cannot be larger than 256.0 kb."}
    ]
    assert len(fake.application_emojis) == 1 and fake.emoji_uploads() == 5

    # another application's emojis
    with pytest.raises(discord.Forbidden):
        await bot.http.get_application_emojis(fake.app_id + 1)

    await moon.delete()
    assert fake.application_emojis == [] and await bot.fetch_application_emojis() == []
    with pytest.raises(discord.NotFound):
        await bot.fetch_application_emoji(moon.id)


async def test_component_emojis_must_exist(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    channel = await text_channel(bot, fake)
    moon = await bot.create_application_emoji(name="moon", image=png(16, 16))

    def view(emoji: discord.PartialEmoji | discord.Emoji | str) -> discord.ui.View:
        v = discord.ui.View()
        v.add_item(discord.ui.Button(label="Go", custom_id="go", emoji=emoji))
        return v

    await channel.send("custom", view=view(moon))
    assert str(fake.last_message(fake.channel).buttons()[0].raw["emoji"]["id"]) == str(moon.id)
    await channel.send(f"in content {moon}", view=view("🌙"))
    select = discord.ui.Select(custom_id="s", options=[discord.SelectOption(label="Moons", emoji=moon)])
    await channel.send("select", view=discord.ui.View().add_item(select))

    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("unknown", view=view(discord.PartialEmoji(name="ghost", id=moon.id + 1)))
    assert refused.value.code == 50035
    assert "In components.0.components.0.emoji.id: Invalid emoji" in refused.value.text
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("not an emoji", view=view(discord.PartialEmoji(name="moon")))
    assert "In components.0.components.0.emoji.name: Invalid emoji" in refused.value.text
    assert fake.last_message(fake.channel).content == "select"
