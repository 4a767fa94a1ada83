"""`/tavern-admin settings` with no option opens the server's settings as a form (bot/edge/settings_form.py):
one private layout message, each setting's line with its menu or switch; a choice is saved through the
server settings service and shown at once; only a member with Manage Server may use it, and a forged id or
value changes nothing."""

from __future__ import annotations

import discord
import pytest

from bot.edge.layout import FLAG
from tests.conftest import StartBot
from tests.fakediscord import ALL_PERMISSIONS, FakeDiscord, FakeMessage, walk_components

MEMBER = discord.Permissions(view_channel=True, send_messages=True, read_message_history=True).value
MODERATOR = MEMBER | discord.Permissions(manage_channels=True).value
NUDGE, DMS_OFF, DELUXE = "tv:set:nudge_minutes", "tv:set:dms:0", "tv:set:deluxe_target"


def chosen(message: FakeMessage, custom_id: str) -> list[str]:
    """The values a menu of the form shows as chosen."""
    return [o.value for o in message.select(custom_id).options if o.default]


async def open_form(fake: FakeDiscord, user: object) -> FakeMessage:
    opened = await fake.slash(user, fake.channel, "tavern-admin settings")  # type: ignore[arg-type]
    assert opened.ephemeral and opened.message.selects(), "no form opened"
    return opened.message


async def test_the_form_opens_with_the_values_in_force(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    await bot.server_settings.change(fake.guild.id, {"claim_minutes": 37, "bhargage_target": 61})
    form = await open_form(fake, fake.owner)
    assert form.flags & FLAG and form.embeds == []  # one layout message: text blocks, no content
    text = form.text()
    assert "each choice is saved at once" in text
    assert "**Nudge** an idle player: after 10 min" in text and "Reminds the player" in text
    assert "**Claim** against an idle player: after 37 min *(changed here)*" in text
    assert "**DMs**: private hands by DM" in text and "**Bhargage** usual target: 61 *(changed here)*" in text
    menus = {s.custom_id for s in form.selects()}
    assert menus == {
        NUDGE,
        "tv:set:claim_minutes",
        "tv:set:language",
        "tv:set:seasons",
        "tv:set:browser",
        "tv:set:bhargage_target",
        DELUXE,
    }
    assert chosen(form, NUDGE) == ["10"] and chosen(form, "tv:set:claim_minutes") == [
        "37"
    ]  # a value set by hand
    assert chosen(form, "tv:set:bhargage_target") == ["61"] and chosen(form, "tv:set:language") == ["auto"]
    usual = [o for o in form.select(DELUXE).options if o.description == "the default"]
    assert [o.value for o in usual] == ["100"]
    assert {b.custom_id for b in form.buttons()} == {
        DMS_OFF,
        "tv:set:threads:1",
    }  # the tests' settings have no threads
    count = sum(1 for _ in walk_components(form.components))
    assert count <= 40 and len(text) <= 4000
    assert all(len(s.options) <= 25 for s in form.selects())


async def test_a_choice_is_saved_and_shown_at_once(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    form = await open_form(fake, fake.owner)
    answer = await fake.select(fake.owner, form, NUDGE, ["120"])
    assert answer.message.id == form.id  # the same message, redrawn
    assert await bot.store.guild_settings(fake.guild.id) == {"nudge_minutes": 120}
    assert "**Nudge** an idle player: after 120 min *(changed here)*" in form.text()
    assert chosen(form, NUDGE) == ["120"]
    await fake.click(fake.owner, form, DMS_OFF)
    assert (await bot.server_settings.get(fake.guild.id)).dms is False
    assert "**DMs**: off: everyone plays with Show my hand *(changed here)*" in form.text()
    assert {b.custom_id for b in form.buttons()} == {
        "tv:set:dms:1",
        "tv:set:threads:1",
    }  # the tests' settings have no threads
    # The slash options still work, and the form reads them.
    said = await fake.slash(fake.owner, fake.channel, "tavern-admin settings", browser="off")
    assert "Settings saved" in said.text() and "**Browser**: off" in said.text()
    again = await open_form(fake, fake.owner)
    assert chosen(again, "tv:set:browser") == ["off"] and chosen(again, NUDGE) == ["120"]


async def test_the_form_speaks_the_admins_language(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await start_bot()
    fake.owner.locale = "it"
    form = await open_form(fake, fake.owner)
    assert "ogni scelta è salvata subito" in form.text()
    assert "**Sollecita** un giocatore inattivo: dopo 10 min" in form.text()
    labels = {o.value: o.label for o in form.select("tv:set:claim_minutes").options}
    assert labels["0"] == "Disattivato" and labels["120"] == "Dopo 2 h" and labels["1440"] == "Dopo 1 giorno"
    assert {b.label for b in form.buttons()} == {"Disattiva", "Attiva"}


async def test_a_refused_value_is_said_on_the_form(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The service has the last word: a value the form offered and the service refuses (here, the game's
    range narrowed meanwhile) is said on the redrawn form, in the admin's language, and nothing is saved."""
    fake = fake_discord
    bot = await start_bot()
    form = await open_form(fake, fake.owner)
    monkeypatch.setattr(type(bot.games["deluxe"]), "targets", (10, 100, 150))
    fake.owner.locale = "it"
    await fake.select(fake.owner, form, DELUXE, ["200"])
    assert "**Non salvato:** Il punteggio obiettivo di Bharg Deluxe deve essere" in form.text()
    assert await bot.store.guild_settings(fake.guild.id) == {}
    assert chosen(form, DELUXE) == ["100"]


async def test_only_a_server_manager_opens_or_uses_the_form(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    mod, member = fake.add_user("mod"), fake.add_user("member")
    mod.permissions, member.permissions = MODERATOR, MEMBER
    refused = await fake.slash(mod, fake.channel, "tavern-admin settings")
    assert "Manage Server" in refused.text() and refused.message.selects() == []
    form = await open_form(fake, fake.owner)
    for user in (member, mod):  # a press of the admin's form by anyone else, as a modified client sends it
        chose = {"custom_id": NUDGE, "component_type": 3, "values": ["5"]}
        pressed = {"custom_id": DMS_OFF, "component_type": 2}
        forged = [await fake.forge(3, user, fake.channel, d, message=form) for d in (chose, pressed)]
        await fake.settle()
        assert all(f.type == 4 and f.ephemeral and "out of date" in f.text() for f in forged)
    # An admin who lost Manage Server since the form opened is refused as well.
    fake.owner.permissions = MODERATOR
    lost = await fake.select(fake.owner, form, NUDGE, ["5"])
    assert "out of date" in lost.text()
    assert await bot.store.guild_settings(fake.guild.id) == {}
    fake.owner.permissions = ALL_PERMISSIONS
    assert "after 10 min" in form.text()


@pytest.mark.parametrize(
    ("custom_id", "values"),
    [
        (NUDGE, ["7"]),  # a number no option offers
        (NUDGE, ["-5"]),
        (NUDGE, ["10", "120"]),  # two values for one setting
        (NUDGE, []),
        ("tv:set:language", ["fr"]),
        ("tv:set:seasons", ["weekly"]),
        ("tv:set:chess_target", ["50"]),  # a game with no target, on no message
        ("tv:set:nudge_minutes:1", []),  # a menu addressed as a switch
        ("tv:set:dms:2", []),
        ("tv:set:dms", ["0"]),  # a switch addressed as a menu
        ("tv:set:guild_id", ["1"]),
    ],
)
async def test_a_forged_id_or_value_changes_nothing(
    fake_discord: FakeDiscord, start_bot: StartBot, custom_id: str, values: list[str]
) -> None:
    fake = fake_discord
    bot = await start_bot()
    form = await open_form(fake, fake.owner)
    data: dict[str, object] = {"custom_id": custom_id, "component_type": 3 if values else 2}
    if values:
        data["values"] = values
    forged = await fake.forge(3, fake.owner, fake.channel, data, message=form)
    await fake.settle()
    assert forged.type == 4 and forged.ephemeral and "out of date" in forged.text()
    assert await bot.store.guild_settings(fake.guild.id) == {}
    assert "after 10 min" in form.text() and "changed here" not in form.text()
