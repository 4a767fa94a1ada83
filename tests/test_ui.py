"""``cogs.ui`` helpers shared by the game cogs: keyed locks and posting a lobby's message."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.store import Store
from cogs.ui import KeyedLocks, answer_with_lobby


async def test_same_key_waits_other_keys_do_not() -> None:
    locks = KeyedLocks()
    order: list[str] = []
    release = asyncio.Event()

    async def hold(key: int, name: str) -> None:
        async with locks(key):
            order.append(f"{name} in")
            if name == "first":
                await release.wait()
            order.append(f"{name} out")

    first = asyncio.create_task(hold(1, "first"))
    await asyncio.sleep(0)
    second = asyncio.create_task(hold(1, "second"))
    other = asyncio.create_task(hold(2, "other"))
    await asyncio.sleep(0.01)
    assert order == ["first in", "other in", "other out"]
    assert len(locks) == 1  # key 2 is already forgotten; key 1 is held and waited for
    release.set()
    await asyncio.gather(first, second, other)
    assert order[3:] == ["first out", "second in", "second out"]
    assert len(locks) == 0


async def test_a_failing_holder_frees_its_key() -> None:
    locks = KeyedLocks()
    try:
        async with locks(7):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert len(locks) == 0
    async with locks(7):
        assert len(locks) == 1


class _Response:
    def __init__(self, fail: bool) -> None:
        self.fail = fail

    async def send_message(self, **kwargs: Any) -> Any:
        if self.fail:
            raise discord.HTTPException(SimpleNamespace(status=500, reason="boom"), "boom")
        return SimpleNamespace(message_id=4242)


@pytest.mark.parametrize("fail", [False, True])
async def test_a_lobby_whose_message_failed_is_cancelled(tmp_path: Path, fail: bool) -> None:
    store = await Store.open(tmp_path / "t.sqlite3")
    try:
        lobby = await store.create_lobby("deluxe", 1, 2, 3, created_at=0.0)
        interaction: Any = SimpleNamespace(response=_Response(fail))
        if fail:
            with pytest.raises(discord.HTTPException):
                await answer_with_lobby(interaction, store, lobby.id, content="hi")
        else:
            await answer_with_lobby(interaction, store, lobby.id, content="hi")
        after = await store.get_lobby(lobby.id)
        assert after is not None
        assert (after.status, after.message_id) == (("cancelled", None) if fail else ("open", 4242))
        assert [x.id for x in await store.open_lobbies(channel_id=2)] == ([] if fail else [lobby.id])
    finally:
        await store.close()
