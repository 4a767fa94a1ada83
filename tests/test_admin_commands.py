"""The admin commands: a top-level group Discord hides from members without the permissions, the runtime
checks behind it, and what `/tavern-admin end` costs."""

from __future__ import annotations

import discord
import pytest

from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord

MEMBER = discord.Permissions(view_channel=True, send_messages=True, read_message_history=True).value
MODERATOR = MEMBER | discord.Permissions(manage_channels=True).value


async def test_the_admin_commands_are_a_top_level_group_that_discord_hides(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """Discord reads ``default_member_permissions`` on top-level commands only: the admin commands are a
    group of their own that carries it, and none is left under ``/tavern``."""
    fake = fake_discord
    await start_bot()
    synced = {c["name"]: c for c in fake.commands()}
    admin = synced["tavern-admin"]
    assert int(admin["default_member_permissions"]) == discord.Permissions(manage_channels=True).value
    assert admin["name_localizations"]["it"] == "taverna-admin"
    assert admin["dm_permission"] is False  # servers only
    assert sorted(o["name"] for o in admin["options"]) == ["end", "settings"]
    assert all("default_member_permissions" not in o for o in admin["options"])
    tavern = synced["tavern"]
    assert sorted(o["name"] for o in tavern["options"]) == ["cards", "help", "ping"]
    assert tavern.get("default_member_permissions") is None
    # A member is not offered the group, and help lists it only to those who are.
    member, mod = fake.add_user("member"), fake.add_user("mod")
    member.permissions, mod.permissions = MEMBER, MODERATOR
    with pytest.raises(AssertionError, match="not offered"):
        await fake.slash(member, fake.channel, "tavern-admin end")
    shown = await fake.slash(member, fake.channel, "tavern help")
    assert "/tavern help" in shown.text() and "tavern-admin" not in shown.text()
    shown = await fake.slash(mod, fake.channel, "tavern help")
    assert "/tavern-admin end" in shown.text() and "/tavern-admin settings" in shown.text()
    # Settings wants Manage Server, which the group's default does not ask: checked when it runs.
    refused = await fake.slash(mod, fake.channel, "tavern-admin settings")
    assert refused.ephemeral and "Manage Server" in refused.text()
