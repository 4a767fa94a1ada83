"""Private channels stay private (issue 45, items 4 and 5): a game is listed, replayed, exported, linked and
shown in a history only to members who can view the channel it was played in, and to its own players; the
web's server page lists only the games of channels @everyone can view. ``/tavern tables`` reads this server's
live games alone (an indexed query) and has a per-member cooldown."""

from __future__ import annotations

import dataclasses
import re

import aiohttp
import pytest

from bot.settings import Settings
from bot.store import SQLiteStore, open_store
from bot.store.records import NewGame
from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.test_bhargage_discord import challenge


async def finish_in(fake: FakeDiscord, channel: FakeChannel, a: FakeUser, b: FakeUser) -> int:
    """A Bhargage game between ``a`` and ``b`` in ``channel``, ended by ``b`` resigning; its id."""
    await challenge(fake, a, b, channel)
    ask = await fake.slash(b, channel, "bhargage resign")
    await fake.click(b, ask.message, "Resign")
    await fake.settle()
    return max(
        int(n) for n in re.findall(r"`#(\d+)`", (await fake.slash(a, channel, "tavern history")).text())
    )


@pytest.fixture
def people(fake_discord: FakeDiscord) -> dict[str, FakeUser]:
    """alice and bob play in #secret; dave may view it; carol may not."""
    fake = fake_discord
    return {name: fake.add_user(name) for name in ("alice", "bob", "carol", "dave")}


async def secret_channel(fake: FakeDiscord, people: dict[str, FakeUser]) -> FakeChannel:
    secret = fake.add_channel("secret")
    await fake.make_private(secret, people["alice"], people["bob"], people["dave"])
    return secret


async def test_tavern_tables_lists_only_what_the_asker_may_see(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, people: dict[str, FakeUser]
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, web_url="https://tavern.example"))
    secret = await secret_channel(fake, people)
    await challenge(fake, people["alice"], people["bob"], secret)
    erin, frank = fake.add_user("erin"), fake.add_user("frank")
    await challenge(fake, erin, frank)  # in #tavern, which everyone views
    secret_game = (await bot.tables.table_for_channel(secret.id)).id  # type: ignore[union-attr]
    public_game = (await bot.tables.table_for_channel(fake.channel.id)).id  # type: ignore[union-attr]

    def listed(text: str) -> set[int]:
        return {int(m) for m in re.findall(r"/t/(\d+)\.", text)}

    carol = (await fake.slash(people["carol"], fake.channel, "tavern tables")).text()
    assert secret.mention not in carol and fake.channel.mention in carol
    assert listed(carol) == {public_game}
    for who in ("alice", "dave"):  # a player of the game, and a member who views its channel
        seen = (await fake.slash(people[who], fake.channel, "tavern tables")).text()
        assert secret.mention in seen and listed(seen) == {public_game, secret_game}, who


async def test_tavern_tables_has_a_cooldown(
    fake_discord: FakeDiscord, start_bot: StartBot, people: dict[str, FakeUser]
) -> None:
    fake = fake_discord
    bot = await start_bot()
    for _ in range(6):
        assert "Slow down" not in (await fake.slash(people["carol"], fake.channel, "tavern tables")).text()
    refused = await fake.slash(people["carol"], fake.channel, "tavern tables")
    assert refused.ephemeral and "Slow down a little: you can list the tables again" in refused.text()
    assert "Slow down" not in (await fake.slash(people["dave"], fake.channel, "tavern tables")).text()
    bot.clock.advance(61)
    assert "Slow down" not in (await fake.slash(people["carol"], fake.channel, "tavern tables")).text()


async def test_replay_export_and_history_of_a_private_game(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, people: dict[str, FakeUser]
) -> None:
    fake = fake_discord
    await start_bot(dataclasses.replace(settings, openings_per_minute=100))
    secret = await secret_channel(fake, people)
    game = await finish_in(fake, secret, people["alice"], people["bob"])
    public = await finish_in(fake, fake.channel, people["alice"], people["carol"])

    for command in ("tavern replay", "tavern export"):
        hidden = await fake.slash(people["carol"], fake.channel, command, game=game)
        assert hidden.ephemeral and f"#{game}" in hidden.text() and not hidden.message.attachments, command
        assert "no game" in hidden.text().lower() or "not" in hidden.text().lower(), hidden.text()
        for who in ("alice", "dave"):
            shown = await fake.slash(people[who], fake.channel, command, game=game)
            if command == "tavern export":
                assert shown.message.attachments, (who, shown.text())
            else:
                assert shown.message.embeds or shown.message.attachments, (who, shown.text())
        assert (
            await fake.slash(people["carol"], fake.channel, command, game=public)
        ).message.attachments or (command == "tavern replay")

    def games_in(text: str) -> set[int]:
        return {int(n) for n in re.findall(r"`#(\d+)`", text)}

    as_carol = (
        await fake.slash(people["carol"], fake.channel, "tavern history", player=people["alice"])
    ).text()
    assert games_in(as_carol) == {public} and "page 1/1" in as_carol
    as_dave = (
        await fake.slash(people["dave"], fake.channel, "tavern history", player=people["alice"])
    ).text()
    assert games_in(as_dave) == {game, public}
    as_bob = (await fake.slash(people["bob"], fake.channel, "tavern history")).text()
    assert games_in(as_bob) == {game}  # his own game, whoever else may see its channel


async def test_the_server_page_lists_only_what_everyone_may_see(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, people: dict[str, FakeUser]
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, web_port=0))
    admin = fake.owner
    await fake.slash(admin, fake.channel, "tavern-admin settings", browser="server")
    secret = await secret_channel(fake, people)
    await challenge(fake, people["alice"], people["bob"], secret)
    erin, frank = fake.add_user("erin"), fake.add_user("frank")
    await challenge(fake, erin, frank)
    assert bot.links is not None
    url = bot.links.server(fake.guild.id, bot.clock())
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        page = await response.text()
    assert response.status == 200
    assert "erin" in page and "frank" in page
    assert "alice" not in page and "bob" not in page


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_active_in_guild_reads_one_servers_games_newest_first(
    backend: str, tmp_path: object, request: pytest.FixtureRequest
) -> None:
    location = request.getfixturevalue("pg_url") if backend == "postgres" else f"{tmp_path}/t.sqlite3"
    store = await open_store(location)
    try:
        made = []
        for n in range(6):
            guild = 7 if n % 2 else 8
            made.append(
                (
                    guild,
                    await store.create_game(NewGame("bhargage", guild, 100 + n, n, [(n + 1, "p")], {}, 1.0)),
                )
            )
        assert await store.active_in_guild(7) == [
            (gid, 100 + n) for n, (g, gid) in reversed(list(enumerate(made))) if g == 7
        ]
        assert await store.active_in_guild(9) == []
        if isinstance(store, SQLiteStore):
            plan = " ".join(
                str(r[-1])
                for r in await store.db.execute_fetchall(
                    "EXPLAIN QUERY PLAN SELECT id, channel_id FROM games "
                    "WHERE guild_id = ? AND status = 'active' ORDER BY id DESC",
                    (7,),
                )
            )
            assert "games_active_in_guild" in plan, plan
    finally:
        await store.close()
