"""Tournament steps through the store (a SQLite file): an event survives being read again by a new service
(a restart), a table's end reaches its match, two organisers acting at once on one match are answered one
each — one award taken, the other refused as decided — and a finished event leaves each entrant's place."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.services.tournaments.event import Event, Settings, TournamentError
from bot.services.tournaments.service import TournamentService
from bot.store import NewGame, SQLiteStore, open_store

GUILD, CHANNEL = 80351110224670001, 80351110224671111
PLAYERS = [80351110224678912 + i for i in range(4)]


@dataclass(frozen=True)
class Ended:
    """A finished table's result, as an engine gives it."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    muggins: bool = False
    how: str = "target"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    s = await open_store(str(tmp_path / "tavern.db"))
    assert isinstance(s, SQLiteStore)
    yield s
    await s.close()


def clock() -> float:
    return 1_780_000_000.0


async def signed_up(service: TournamentService) -> int:
    made = await service.create(
        GUILD,
        CHANNEL,
        PLAYERS[0],
        Settings("Spring Swiss 2026", "cribbage", "swiss", {"target": 61}, rounds=1),
    )
    for i, user in enumerate(PLAYERS):
        await service.step(made.id, lambda e, u=user, i=i: e.join(u, f"player {i}", 1500.0 + i))
    return made.id


async def test_a_game_s_end_reaches_its_match_and_the_final_places_are_kept(store: SQLiteStore) -> None:
    service = TournamentService(store, clock)
    tid = await signed_up(service)
    opened, _ = await service.step(tid, Event.start)
    assert len(opened) == 2
    restarted = TournamentService(store, clock)  # a new process reads the same event
    for n, m in enumerate(opened):
        game_id = await store.create_game(
            NewGame(
                "cribbage",
                GUILD,
                CHANNEL + 1 + n,
                7,
                [(p, f"p{p}") for p in m.players],
                {"target": 61},
                clock(),
            )
        )
        await restarted.opened(tid, m.key, game_id)
        assert await store.tournament_of_game(game_id) == tid
        after = await restarted.game_over(game_id, m.players, 61, "cribbage", Ended((61, 20), (1,)))
        assert after is not None and after.open == ()
        assert after.event.match(m.key).winner == m.players[1]
        assert after.event.match(m.key).games[0].lurch_line == 31, "Cribbage to 61: 20 is a lurch"
    event = await service.get(tid)
    assert event is not None and event.status == "finished"
    for user, place in event.places():
        rows = await store.places_of(user)
        assert [(r[0], r[1]) for r in rows] == [(tid, place)]
    assert await service.game_over(10**9, PLAYERS[:2], 61, "cribbage", Ended((61, 0), (0,))) is None


class Together:
    """The store as two processes see it when they read an event at the same moment: the first read of each
    waits for the other's, so both steps start from one version."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.barrier = asyncio.Barrier(2)
        self.waited = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    async def get_tournament(self, tournament_id: int) -> Any:
        row = await self.store.get_tournament(tournament_id)
        if self.waited < 2:
            self.waited += 1
            await self.barrier.wait()
        return row


async def test_two_organisers_awarding_one_match_at_once_get_one_answer_each(store: SQLiteStore) -> None:
    tid = await signed_up(TournamentService(store, clock))
    opened, _ = await TournamentService(store, clock).step(tid, Event.start)
    together = Together(store)
    a, b = TournamentService(together, clock), TournamentService(together, clock)  # type: ignore[arg-type]
    m = opened[0]
    results = await asyncio.gather(
        a.step(tid, lambda e: e.award(m.key, m.players[0])),
        b.step(tid, lambda e: e.award(m.key, m.players[1])),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, TournamentError)]
    taken = [r for r in results if not isinstance(r, BaseException)]
    assert len(refused) == 1 and refused[0].msgid == "tournament.refuse.decided"
    assert len(taken) == 1
    event = await a.get(tid)
    assert event is not None and event.match(m.key).winner in m.players
    assert len(event.match(m.key).games) == 1, "one award, not two"
    assert together.waited == 2, "both steps read the event before either saved"
