"""``/tavern forget-me`` with two bot processes on one PostgreSQL (as tests/test_cluster.py): the member asks
through process A while their game is process B's (its guild on B's shard). Being seated is what the store
says, not what A's own tables know; and the pages B serves stop showing their name once A has forgotten them
(B hears of it as news of the games)."""

from __future__ import annotations

import time
from pathlib import Path

import aiohttp

from tests.conftest import StartBot
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.test_cluster import SHARDS, bhargage_between, cluster, cluster_settings, far_channel
from tests.test_forget_store import traces
from tests.test_web_server import get, replay_path


def near_channel(fake: FakeDiscord) -> FakeChannel:
    """A channel in a guild that Discord puts on shard 0 (process A's)."""
    return fake.add_channel("near", fake.add_guild("Near Tavern", shard=0, shard_count=SHARDS))


async def forget_through_a(fake: FakeDiscord, user: FakeUser, near: FakeChannel) -> str:
    """``/tavern forget-me`` and its button, both reaching process A: what the member is told."""
    asked = await fake.slash(user, near, "tavern forget-me")
    assert fake.interactions[-1].shard == 0
    answer = await fake.click(user, asked.message, "Forget me")
    assert fake.interactions[-1].shard == 0
    return answer.message.text() if answer.ephemeral else asked.message.text()


async def test_seated_at_a_game_another_process_runs_is_refused(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str
) -> None:
    fake = fake_discord
    far, near = far_channel(fake), near_channel(fake)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    a, b = await cluster(start_bot, tmp_path, pg_url)
    await bhargage_between(fake, far, alice, bob)
    assert await a.tables.seated_at(alice.id) is None  # A runs none of the far guild's tables
    said = await forget_through_a(fake, alice, near)
    assert "finish it or leave it first" in said
    assert await traces(a.store, alice.id, "alice")  # nothing was forgotten
    ask = await fake.slash(bob, far, "bhargage resign")
    await fake.click(bob, ask.message, "Resign")
    await fake.settle()
    assert "has forgotten you" in await forget_through_a(fake, alice, near)
    assert await traces(b.store, alice.id, "alice") == []


async def test_the_pages_another_process_serves_forget_the_name_too(
    fake_discord: FakeDiscord, start_bot: StartBot, tmp_path: Path, pg_url: str
) -> None:
    fake = fake_discord
    far, near = far_channel(fake), near_channel(fake)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await start_bot(cluster_settings(tmp_path, pg_url, 0))
    b = await start_bot(cluster_settings(tmp_path, pg_url, 1, web_port=0))
    assert b.web_server is not None
    await bhargage_between(fake, far, alice, bob)
    ask = await fake.slash(bob, far, "bhargage resign")
    await fake.click(bob, ask.message, "Resign")
    await fake.settle()
    [game] = (await b.store.history(far.guild.id, bob.id, None, offset=0, limit=1))[0]  # type: ignore[union-attr]
    paths = [replay_path(b, game.game_id), replay_path(b, game.game_id) + "/record"]

    async def shown(client: aiohttp.ClientSession) -> str:
        return "\n".join([(await get(client, b.web_server, path))[1] for path in paths])  # type: ignore[arg-type]

    async with aiohttp.ClientSession() as client:
        assert "alice" in await shown(client)  # B walked the replay and wrote the record: both kept
        assert "has forgotten you" in await forget_through_a(fake, alice, near)
        deadline = time.monotonic() + 5  # B hears of it through PostgreSQL: soon, not at once
        while b.web_server.built.over(game.game_id) is not None and time.monotonic() < deadline:
            await fake.settle()
        text = await shown(client)
    assert "alice" not in text and "👤" in text
