"""Panels as layout messages through the real bot and the fake Discord (issue 47, item 4): the fake's rules
for the ``IS_COMPONENTS_V2`` flag, and messages sent before layouts (a game live across the upgrade)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.base.panel import Panel
from bot.edge import delivery
from bot.edge.shows import Shows
from tests.conftest import StartBot
from tests.fakediscord import COMPONENTS_V2, DiscordError, FakeDiscord, validate_message_payload
from tests.test_bhargage_discord import board, challenge, step

TEXT = {"type": 10, "content": "hello"}


class Sent:
    """A message as the fake keeps it, for the validator: its content, embeds, components and flags."""

    def __init__(self, flags: int, content: str = "", components: list[Any] | None = None) -> None:
        self.flags, self.content, self.embeds = flags, content, []
        self.components = components or []


def refusal(payload: dict[str, Any], current: Any = None, files: set[str] | None = None) -> str:
    with pytest.raises(DiscordError) as caught:
        validate_message_payload(payload, attachments=0, current=current, files=files)
    return str(caught.value)


def test_the_fake_holds_a_layout_message_to_the_flags_rules() -> None:
    container = {"type": 17, "components": [TEXT]}
    layout = Sent(COMPONENTS_V2, components=[container])
    classic = Sent(0, content="old")
    # an edit may neither take the flag off nor put it on
    assert "cannot be removed" in refusal({"flags": 0, "components": [{"type": 1, "components": []}]}, layout)
    assert "cannot be added" in refusal({"flags": COMPONENTS_V2, "components": [container]}, classic)
    # a layout message takes no content, even in an edit that does not repeat the flag
    assert "'content' field cannot be used" in refusal({"content": "now some text"}, layout)
    assert "'embeds' field" in refusal(
        {"flags": COMPONENTS_V2, "embeds": [{"title": "x"}], "components": [TEXT]}
    )
    # 40 components, 4,000 characters of text display
    many = {"type": 17, "components": [TEXT] * 40}
    assert "40 or fewer" in refusal({"flags": COMPONENTS_V2, "components": [many]})
    long = {
        "type": 17,
        "components": [{"type": 10, "content": "x" * 2001}, {"type": 10, "content": "y" * 2000}],
    }
    assert "4000 or fewer characters" in refusal({"flags": COMPONENTS_V2, "components": [long]})
    # a gallery shows a file of the message
    gallery = {"type": 12, "items": [{"media": {"url": "attachment://hand.png"}}]}
    body = {"flags": COMPONENTS_V2, "components": [{"type": 17, "components": [TEXT, gallery]}]}
    assert "Attachment not found" in refusal(body, files={"board.png"})
    validate_message_payload(body, attachments=1, files={"hand.png"})
    validate_message_payload({"components": [container]}, attachments=0, current=layout)  # kept flag: fine


async def test_panels_are_layout_messages_and_each_was_checked(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None
) -> None:
    """A Bhargage game's lobby, board and private panels are layout messages, one container each with the
    seat's colour, their pictures in galleries; the calls stay classic. Every one went through the
    contract's referee and the fake's rules."""
    fake = fake_discord
    await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    for _ in range(4):
        assert await step(fake, fake.channel, [alice, bob]) is not None
    await fake.settle()
    shown = board(fake, fake.channel)
    assert shown.laid_out and shown.components[0]["type"] == 17 and shown.components[0]["accent_color"]
    panels = {user.name: fake.dms(user)[-1] for user in (alice, bob)}
    assert all(p.laid_out for p in panels.values())
    colours = {p.components[0]["accent_color"] for p in panels.values()}
    assert len(colours) == 2, "each seat has its own colour"
    gallery = [c for c in panels["alice"].components[0]["components"] if c["type"] == 12]
    assert (
        gallery
        and gallery[0]["items"][0]["media"]["url"]
        == f"attachment://{panels['alice'].attachments[0]['filename']}"
    )
    calls = [m for m in fake.channel_messages(fake.channel) if not m.laid_out]
    assert calls, "the calls stay classic messages"
    layouts = [m for m in fake.messages.values() if m.laid_out]
    print(f"\nlayout messages: {len(layouts)}; requests checked against the spec: {fake.contract_checked}")


async def test_messages_sent_before_layouts_keep_their_form_after_the_upgrade(
    fake_discord: FakeDiscord, start_bot: StartBot, seeded: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A game started by the bot before layouts (every panel classic) is live when the upgraded bot starts.
    Its messages cannot take the flag by an edit: each is edited in its own classic form (after at most one
    refused edit per message, a format this process then remembers), the game plays on, and a message
    sent anew (a reposted board) is a layout message."""
    fake = fake_discord
    with monkeypatch.context() as before:
        before.setattr(Panel, "laid_out", lambda self, accent=None: self)  # the version before layouts
        first = await start_bot()
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        await challenge(fake, alice, bob)
        for _ in range(3):
            assert await step(fake, fake.channel, [alice, bob]) is not None
        await fake.settle()
        await first.close()
    old = [m for m in fake.messages.values() if not m.deleted]
    assert old and not any(m.laid_out for m in old)
    monkeypatch.setattr(delivery, "SHOWS", Shows())  # a new process remembers nothing
    await start_bot()
    for _ in range(6):
        assert await step(fake, fake.channel, [alice, bob]) is not None
    await fake.settle()
    assert not any(m.laid_out for m in old), "no old message took the flag"
    edited = [m for m in old if m.edits]
    assert edited, "the old board and panels were edited, in their own form"
    reposted = await fake.slash(alice, fake.channel, "bhargage board")
    assert reposted.message.laid_out and "Bhargage" in reposted.message.content
