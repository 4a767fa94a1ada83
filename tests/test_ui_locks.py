"""``cogs.ui.KeyedLocks``: one holder per key at a time, and nothing kept once a key is free."""

from __future__ import annotations

import asyncio

from cogs.ui import KeyedLocks


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
