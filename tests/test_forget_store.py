"""Forgetting a member in the store, on both backends (a SQLite file, and a database on a real PostgreSQL
server): every row that keys on them moves to one random pseudonym, so no cell of any table holds their id,
name or DM channel, while their opponents' stats, profiles, histories and boards read exactly as before; they
are refused while seated or waiting in an open lobby (nothing written); one who plays again starts afresh;
and a game an admin ended keeps no name (a migration clears those stored before)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.base import ratings as rt
from bot.games.seats import FORGOTTEN
from bot.services.tournaments.stored import forgotten
from bot.store import (
    MIGRATIONS,
    Finish,
    NewAction,
    NewGame,
    NewLobby,
    PlayerBusy,
    PostgresStore,
    SQLiteStore,
    WaitingInLobby,
    open_store,
)

GUILD = 1
SYSTEMS: dict[str, rt.RatingSystem] = {"race": "elo", "raceN": "openskill"}
AnyStore = SQLiteStore | PostgresStore
JAN = datetime(2025, 1, 10, 12, tzinfo=UTC).timestamp()
FEB = datetime(2025, 2, 3, 9, tzinfo=UTC).timestamp()
ANN, BOB, CAT = 80351110224678912, 80351110224679913, 80351110224680914  # Discord-like snowflakes
ANN_DM = 80351110224688888  # Ann's DM channel with the bot
ANON = "👤"


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "tavern.db")
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
async def store(location: str) -> AsyncIterator[AnyStore]:
    s = await open_store(location, rating_systems=SYSTEMS)
    assert isinstance(s, SQLiteStore | PostgresStore)
    yield s
    await s.close()


async def traces(store: Any, *needles: int | str) -> list[str]:
    """Every cell of every table of the store that holds one of ``needles``: an id as a number or within
    text (JSON), a name within text. Empty when the store keeps nothing of them."""
    if isinstance(store, SQLiteStore):
        rows = await store._all("SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        rows = await store._all(
            "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"
        )
    found = []
    for table in sorted(str(r["name"]) for r in rows):
        for row in await store._all(f"SELECT * FROM {table}"):
            for column in row.keys():  # noqa: SIM118 (asyncpg records iterate values)
                value = row[column]
                text = (
                    bytes(value).decode("utf-8", "replace") if isinstance(value, bytes | memoryview) else None
                )
                for needle in needles:
                    if isinstance(needle, int) and (
                        value == needle or re.search(rf"\b{needle}\b", text or str(value))
                    ):
                        found.append(f"{table}.{column} holds {needle}")
                    elif isinstance(needle, str) and needle in (text or str(value)):
                        found.append(f"{table}.{column} holds {needle!r}")
    return found


async def play(
    store: AnyStore,
    seats: Sequence[tuple[int, str]],
    winner: int,
    at: float,
    *,
    channel: int = 10,
    meta: dict[str, Any] | None = None,
) -> int:
    """A two-seat Race game that ``winner`` (a seat) wins at ``at``, with its table meta."""
    gid = await store.create_game(NewGame("race", GUILD, channel, 1, list(seats), {}, at - 1, meta=meta))
    scores = (10, 7) if winner == 0 else (7, 10)
    finish = Finish(scores, (winner,), False, "target", at, best_hand=(4, 3))
    await store.append_action(NewAction(gid, 1, winner, f"{winner} add 3", at, finish=finish))
    return gid


async def record_of(store: AnyStore, user_id: int) -> dict[str, Any]:
    """What every reader of a player's record sees: stats, profile, history, the boards' rows."""
    stats = await store.stats(GUILD, user_id)
    profile = await store.profile(GUILD, user_id)
    history, total = await store.history(GUILD, user_id, None, offset=0, limit=50)
    boards = [
        await store.leaderboard_page(GUILD, "race", season, page=1, per_page=10, user_id=user_id)
        for season in (None, 1, 2)
    ]
    return {"stats": stats, "profile": profile, "history": (history, total), "boards": boards}


def renamed(record: dict[str, Any], pseudonym: int) -> dict[str, Any]:
    """``record`` as it should read once Ann is forgotten: her seats and rows under the pseudonym, as 👤."""

    def seat(s: Any) -> Any:
        return replace(s, user_id=pseudonym, name=ANON) if s.user_id == ANN else s

    history, total = record["history"]
    games = [replace(g, seats=tuple(seat(s) for s in g.seats)) for g in history]
    boards = [
        replace(b, rows=tuple(seat(r) for r in b.rows), me=seat(b.me) if b.me else None)
        for b in record["boards"]
    ]
    profile = record["profile"]
    favourite = profile.favourite and seat(profile.favourite)
    return {
        **record,
        "history": (games, total),
        "boards": boards,
        "profile": replace(profile, favourite=favourite),
    }


async def test_a_forgotten_member_is_a_pseudonym_everywhere_and_their_opponents_records_stay(
    store: AnyStore,
) -> None:
    panels = {"panels": {"0": [ANN_DM, 1], "1": [77, 2]}, "dm_closed": [0], "thread_id": 55}
    games = [
        await play(store, [(ANN, "Annabel"), (BOB, "Bob")], 0, JAN, meta=panels),
        await play(store, [(BOB, "Bob"), (ANN, "Annabel")], 0, JAN + 60, meta={"log": ["Annabel pegs 2"]}),
        await play(store, [(ANN, "Annabel"), (BOB, "Bob")], 1, FEB),
        await play(store, [(ANN, "Annabel"), (-300, "Bot (hard)")], 0, FEB + 60),  # against the bot
    ]
    others = await play(store, [(CAT, "Cat"), (BOB, "Bob")], 0, FEB + 120)
    challenge = await store.create_lobby(
        NewLobby("race", GUILD, 20, BOB, created_at=JAN, invited_id=ANN, names={BOB: "Bob", ANN: "Annabel"})
    )
    await store.update_lobby(challenge.id, status="started", game_id=games[0], members=[BOB, ANN])
    hosted = await store.create_lobby(
        NewLobby("race", GUILD, 21, ANN, created_at=JAN, names={ANN: "Annabel"}, members=[ANN, CAT])
    )
    await store.update_lobby(hosted.id, status="cancelled")
    await store.set_user_prefs(ANN, {"auto_cut": True})
    await store.set_user_language(ANN, "it")
    await store.set_dm_channel(ANN, ANN_DM)
    assert len(await traces(store, ANN, "Annabel", ANN_DM)) > 10
    bob_before, cat_before = await record_of(store, BOB), await record_of(store, CAT)
    versions = [(await store.load_game(g)).version for g in games]  # type: ignore[union-attr]

    changed = await store.forget_user(ANN, ANON, at=FEB + 200, rename=forgotten)

    assert changed == games
    assert await traces(store, ANN, "Annabel", ANN_DM) == []  # nothing left leads to her, in any table
    record = await store.load_game(games[0])
    assert record is not None
    pseudonym = record.seats[0].user_id
    assert pseudonym in FORGOTTEN and record.seats[0].name == ANON
    meta = record.meta  # only her seat's panel (her DM channel) and closed-DMs mark went
    assert meta["panels"] == {"1": [77, 2]} and meta["dm_closed"] == [] and meta["thread_id"] == 55
    assert [(await store.load_game(g)).version for g in games] == [v + 1 for v in versions]  # type: ignore[union-attr]
    for game_id in games[1:]:
        again = await store.load_game(game_id)
        assert again is not None and pseudonym in [s.user_id for s in again.seats]
    assert (await store.load_game(games[1])).meta.get("log") is None  # type: ignore[union-attr]
    # the opponents' records read exactly as before, her seats and rows as 👤
    assert await record_of(store, BOB) == renamed(bob_before, pseudonym)
    assert await record_of(store, CAT) == renamed(cat_before, pseudonym)
    assert (await store.profile(GUILD, BOB)).favourite.name == ANON  # type: ignore[union-attr]
    # her own account holds nothing: no stats, profile, history, rating or board row
    assert await store.stats(GUILD, ANN) == {} and (await store.profile(GUILD, ANN)).empty
    assert await store.history(GUILD, ANN, None, offset=0, limit=10) == ([], 0)
    assert await store.rating_of(GUILD, "race", ANN) is None and await store.bot_records(GUILD, ANN) == []
    gone = await store.rating_of(GUILD, "race", pseudonym)
    assert gone is not None and gone["name"] == ANON and gone["games"] == 3
    assert await store.user_prefs() == {} and await store.user_languages() == {}
    assert await store.dm_channel(ANN) is None
    lobby = await store.get_lobby(challenge.id)
    assert lobby is not None and lobby.invited_id == pseudonym and lobby.members == (BOB, pseudonym)
    assert lobby.names == {BOB: "Bob", pseudonym: ANON}
    lobby = await store.get_lobby(hosted.id)
    assert lobby is not None and lobby.host_id == pseudonym and lobby.members == (pseudonym, CAT)
    assert (await store.load_game(others)).seats[0].user_id == CAT  # type: ignore[union-attr]


async def test_a_forgotten_member_who_plays_again_starts_afresh_under_another_pseudonym(
    store: AnyStore,
) -> None:
    await play(store, [(ANN, "Annabel"), (BOB, "Bob")], 0, JAN)
    await play(store, [(ANN, "Annabel"), (BOB, "Bob")], 0, JAN + 60)
    await store.forget_user(ANN, ANON, at=JAN + 100, rename=forgotten)
    newcomer = (await store.rating_of(GUILD, "race", BOB) or {})["games"]
    again = await play(store, [(ANN, "Annabel"), (BOB, "Bob")], 1, FEB)
    rating = await store.rating_of(GUILD, "race", ANN)
    assert rating is not None and rating["games"] == 1 and rating["wins"] == 0  # a new player
    assert (await store.history(GUILD, ANN, None, offset=0, limit=10))[1] == 1
    assert (await store.rating_of(GUILD, "race", BOB) or {})["games"] == newcomer + 1

    await store.forget_user(ANN, ANON, at=FEB + 100, rename=forgotten)
    record = await store.load_game(again)
    assert record is not None and record.seats[0].name == ANON
    board = await store.leaderboard_page(GUILD, "race", None, page=1, per_page=10)
    pseudonyms = {r.user_id for r in board.rows if r.name == ANON}
    assert len(pseudonyms) == 2 and all(p in FORGOTTEN for p in pseudonyms)  # two forgettings, two strangers
    assert await traces(store, ANN, "Annabel") == []


async def test_refused_while_seated_or_waiting_in_an_open_lobby_and_nothing_is_written(
    store: AnyStore,
) -> None:
    await play(store, [(ANN, "Annabel"), (BOB, "Bob")], 0, JAN)
    await store.set_user_prefs(ANN, {"auto_cut": True})
    live = await store.create_game(NewGame("race", GUILD, 30, 1, [(CAT, "Cat"), (ANN, "Annabel")], {}, JAN))
    before = await traces(store, ANN, "Annabel")
    with pytest.raises(PlayerBusy) as seated:
        await store.forget_user(ANN, ANON, at=JAN + 10, rename=forgotten)
    assert seated.value.channel_id == 30
    await store.finish_game(live, Finish((1, 0), (0,), False, "target", JAN + 20))

    for n, lobby in enumerate(
        [
            NewLobby("race", GUILD, 40, ANN, created_at=JAN, expires_at=JAN + 600),  # hosting
            NewLobby("race", GUILD, 41, CAT, created_at=JAN, invited_id=ANN),  # challenged, never runs out
            NewLobby("race", GUILD, 42, BOB, created_at=JAN, members=[BOB, ANN], names={ANN: "Annabel"}),
        ]
    ):
        opened = await store.create_lobby(lobby)
        with pytest.raises(WaitingInLobby) as waiting:
            await store.forget_user(ANN, ANON, at=JAN + 30, rename=forgotten)
        assert waiting.value.lobby.id == opened.id and waiting.value.lobby.channel_id == 40 + n
        await store.update_lobby(opened.id, status="cancelled")
    assert len(await traces(store, ANN, "Annabel")) > len(before)  # nothing was written meanwhile
    assert await store.user_prefs() == {ANN: {"auto_cut": True}}

    overdue = await store.create_lobby(NewLobby("race", GUILD, 43, ANN, created_at=JAN, expires_at=JAN + 60))
    # a lobby that ran out (not yet marked so) seats nobody
    await store.forget_user(ANN, ANON, at=JAN + 120, rename=forgotten)
    lobby = await store.get_lobby(overdue.id)
    assert lobby is not None and lobby.host_id in FORGOTTEN
    assert await traces(store, ANN, "Annabel") == []


async def test_an_admins_name_is_not_kept_with_the_games_they_ended(location: str) -> None:
    clearing = next(m.version for m in MIGRATIONS if "ended by an admin" in m.sqlite)
    old = await open_store(location, migrate_to=clearing - 1, rating_systems=SYSTEMS)
    assert isinstance(old, SQLiteStore | PostgresStore)
    ended = await old.create_game(NewGame("race", GUILD, 10, 1, [(ANN, "Annabel"), (BOB, "Bob")], {}, JAN))
    await old.abandon_game(ended, JAN + 1, "ended by Dora the admin")  # as the bot wrote it before
    await old.close()
    new = await open_store(location, rating_systems=SYSTEMS)
    assert isinstance(new, SQLiteStore | PostgresStore)
    try:
        record = await new.load_game(ended)
        assert record is not None and record.result == {"abandoned": "ended by an admin"}
        assert await traces(new, "Dora") == []
    finally:
        await new.close()
