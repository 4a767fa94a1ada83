"""Tournaments in the store, on both backends (a SQLite file, and a database on a real PostgreSQL server): an
event's document comes back as it went in, whatever its nesting; listings are newest first and a restart
finds the live events; a save at a version the event has left is refused and writes nothing, so of saves made
at once from one version, in one process or two, exactly one wins; games and places are linked to their
event, and a member's places read newest first; and a SQLite tavern's events move to PostgreSQL intact."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.games.seats import FORGOTTEN
from bot.services.tournaments.event import Entrant, Event, GameDone, Match, Settings, TournamentError
from bot.services.tournaments.stored import doc_of, event_of, forgotten
from bot.store import (
    NewGame,
    PostgresStore,
    SQLiteStore,
    StaleTournament,
    TournamentRow,
    open_store,
    transfer,
)

AnyStore = SQLiteStore | PostgresStore
GUILD, OTHER_GUILD = 80351110224670001, 80351110224670002  # Discord-like snowflakes, past 2**53
CHANNEL = 80351110224671111
ANN, BOB, CAT = 80351110224678912, 80351110224679913, 80351110224680914
T0 = 1_780_000_000.0

# Nested as the service's documents are: rounds of pairings, standings, names, a snowflake past 2**53, text
# that is no ASCII, empty containers, floats that are not whole, null and booleans.
DOC: dict[str, Any] = {
    "name": "Spring Swiss 2026 — Ünïcode ✓",
    "format": "swiss",
    "options": {"rounds": 4, "game": "bhargage", "tiebreak": ["buchholz", "spread"], "bye_points": 1.5},
    "entrants": [{"user_id": ANN, "name": "Annabel", "rating": 1512.25}, {"user_id": BOB, "name": "Bob"}],
    "rounds": [[{"table": 1, "seats": [ANN, BOB], "game_id": None, "done": False}], []],
    "standings": {str(ANN): {"points": 3, "spread": -0.5}},
    "notes": {},
    "paused": False,
}


@pytest.fixture(params=["sqlite", "postgres"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "tavern.db")
    url: str = request.getfixturevalue("pg_url")
    return url


async def opened(location: str) -> AnyStore:
    s = await open_store(location)
    assert isinstance(s, SQLiteStore | PostgresStore)
    return s


@pytest.fixture
async def store(location: str) -> AsyncIterator[AnyStore]:
    s = await opened(location)
    yield s
    await s.close()


async def event(
    store: AnyStore, name: str, *, status: str = "signup", guild: int = GUILD, at: float = T0
) -> int:
    made = await store.create_tournament(guild, CHANNEL, status, {"name": name}, at)
    return made.id


async def game(store: AnyStore, channel: int, at: float = T0) -> int:
    """An active two-seat game in ``channel``, its players its own (a player sits at one active game)."""
    seats = [(channel * 10, "Ann"), (channel * 10 + 1, "Bob")]
    return await store.create_game(NewGame("race", GUILD, channel, 1, seats, {}, at))


async def test_an_event_comes_back_as_created_with_its_nested_document(store: AnyStore) -> None:
    made = await store.create_tournament(GUILD, CHANNEL, "signup", DOC, T0)

    assert made == TournamentRow(made.id, GUILD, CHANNEL, "signup", DOC, 0, T0, T0)
    assert await store.get_tournament(made.id) == made
    got = await store.get_tournament(made.id)
    assert got is not None and got.doc["entrants"][0]["user_id"] == ANN  # a snowflake, exactly
    assert got.doc is not DOC and got.doc["rounds"] is not DOC["rounds"]  # the caller's copy, not ours
    assert await store.get_tournament(made.id + 1) is None


async def test_a_document_is_json_and_a_status_one_of_the_five(store: AnyStore) -> None:
    with pytest.raises(ValueError, match="status"):
        await store.create_tournament(GUILD, CHANNEL, "started", DOC, T0)
    with pytest.raises(ValueError):
        await store.create_tournament(GUILD, CHANNEL, "signup", {"spread": math.nan}, T0)
    assert await store.tournaments_in(GUILD) == []  # nothing of either was written
    made = await store.create_tournament(GUILD, CHANNEL, "signup", {"seats": (1, 2), "by_id": {7: "x"}}, T0)
    assert made.doc == {"seats": [1, 2], "by_id": {"7": "x"}}  # as JSON has them
    with pytest.raises(ValueError, match="status"):
        await store.save_tournament(made.id, DOC, "over", 0, T0 + 1)
    assert await store.get_tournament(made.id) == made


async def test_a_server_lists_its_events_newest_first_and_by_status(store: AnyStore) -> None:
    first = await event(store, "first", status="finished")
    second = await event(store, "second", status="running")
    elsewhere = await event(store, "elsewhere", guild=OTHER_GUILD)
    third = await event(store, "third", status="cancelled")

    assert [t.id for t in await store.tournaments_in(GUILD)] == [third, second, first]
    assert [t.id for t in await store.tournaments_in(GUILD, limit=2)] == [third, second]
    assert [t.id for t in await store.tournaments_in(GUILD, ["finished", "running"])] == [second, first]
    assert [t.id for t in await store.tournaments_in(GUILD, ("running",))] == [second]
    assert await store.tournaments_in(GUILD, []) == []
    assert [t.id for t in await store.tournaments_in(OTHER_GUILD)] == [elsewhere]
    with pytest.raises(TypeError):
        await store.tournaments_in(GUILD, "running")
    with pytest.raises(ValueError, match="status"):
        await store.tournaments_in(GUILD, ["done"])


async def test_a_restarted_process_finds_every_servers_live_events(location: str) -> None:
    first = await opened(location)
    try:
        signup = await event(first, "signup", status="signup")
        await event(first, "over", status="finished")
        running = await event(first, "running", status="running", guild=OTHER_GUILD)
        await event(first, "called off", status="cancelled")
        paused = await event(first, "paused", status="paused")
        later = await first.save_tournament(signup, DOC, "running", 0, T0 + 5)
    finally:
        await first.close()

    again = await opened(location)
    try:
        live = await again.live_tournaments()
        assert [(t.id, t.status) for t in live] == [
            (signup, "running"),
            (running, "running"),
            (paused, "paused"),
        ]
        assert live[0] == later
        assert live[0].doc == DOC and live[0].version == 1
    finally:
        await again.close()


async def test_a_save_at_the_stored_version_writes_and_one_at_an_old_version_is_refused(
    store: AnyStore,
) -> None:
    made = await store.create_tournament(GUILD, CHANNEL, "signup", {"name": "Cup"}, T0)

    saved = await store.save_tournament(made.id, DOC, "running", 0, T0 + 10)

    assert saved == TournamentRow(made.id, GUILD, CHANNEL, "running", DOC, 1, T0, T0 + 10)
    assert await store.get_tournament(made.id) == saved
    with pytest.raises(StaleTournament) as refused:
        await store.save_tournament(made.id, {"name": "lost"}, "paused", 0, T0 + 20)
    assert (refused.value.tournament_id, refused.value.expected, refused.value.found) == (made.id, 0, 1)
    assert await store.get_tournament(made.id) == saved  # nothing of the stale save
    with pytest.raises(StaleTournament):
        await store.save_tournament(made.id, {"name": "ahead"}, "paused", 2, T0 + 20)  # a version never seen
    again = await store.save_tournament(made.id, {**DOC, "paused": True}, "paused", 1, T0 + 30)
    assert (again.version, again.status, again.doc["paused"]) == (2, "paused", True)
    with pytest.raises(KeyError):
        await store.save_tournament(made.id + 100, DOC, "running", 0, T0)


async def test_of_saves_made_at_once_from_one_version_exactly_one_wins(location: str) -> None:
    """Organisers in one process, and in two (two stores on one database): all read version 0 and save."""
    one, two = await opened(location), await opened(location)
    try:
        made = await one.create_tournament(GUILD, CHANNEL, "running", {"round": 0}, T0)
        saves = [
            s.save_tournament(made.id, {"round": 1, "by": n}, "running", 0, T0 + n)
            for n, s in enumerate([one, two, one, two, one, two])
        ]
        outcomes = await asyncio.gather(*saves, return_exceptions=True)

        won = [o for o in outcomes if isinstance(o, TournamentRow)]
        assert len(won) == 1, outcomes
        assert all(isinstance(o, StaleTournament) and o.found >= 1 for o in outcomes if o is not won[0])
        stored = await two.get_tournament(made.id)
        assert stored is not None and stored == won[0] and stored.version == 1
    finally:
        await one.close()
        await two.close()


async def test_games_are_linked_to_their_event_once(store: AnyStore) -> None:
    cup, league = await event(store, "cup"), await event(store, "league")
    first, second, own = await game(store, 10), await game(store, 11), await game(store, 12)

    await store.link_tournament_game(cup, first)
    await store.link_tournament_game(league, second)
    await store.link_tournament_game(cup, first)  # a retry changes nothing

    assert await store.tournament_of_game(first) == cup
    assert await store.tournament_of_game(second) == league
    assert await store.tournament_of_game(own) is None
    with pytest.raises(ValueError, match=f"tournament {cup}"):
        await store.link_tournament_game(league, first)
    assert await store.tournament_of_game(first) == cup
    with pytest.raises(KeyError):
        await store.link_tournament_game(cup, own + 100)
    with pytest.raises(KeyError):
        await store.link_tournament_game(league + 100, own)
    assert await store.tournament_of_game(own) is None


async def test_a_members_places_read_newest_first_and_recording_again_replaces(store: AnyStore) -> None:
    autumn = await store.create_tournament(GUILD, CHANNEL, "running", {"name": "Autumn"}, T0)
    spring = await store.create_tournament(GUILD, CHANNEL, "running", {"name": "Spring", "n": [1]}, T0 + 1)
    winter = await store.create_tournament(OTHER_GUILD, CHANNEL, "running", {"name": "Winter"}, T0 + 2)
    await store.record_places(spring.id, [(ANN, 1), (BOB, 2), (CAT, 2)])
    await store.record_places(autumn.id, [(ANN, 5), (BOB, 1)])
    await store.record_places(winter.id, [(ANN, 3)])
    # Autumn finishes last: it is the newest by its last save, though it was created first.
    await store.save_tournament(spring.id, spring.doc, "finished", 0, T0 + 100)
    await store.save_tournament(winter.id, winter.doc, "finished", 0, T0 + 200)
    await store.save_tournament(autumn.id, autumn.doc, "finished", 0, T0 + 300)

    assert await store.places_of(ANN) == [
        (autumn.id, 5, {"name": "Autumn"}, T0 + 300),
        (winter.id, 3, {"name": "Winter"}, T0 + 200),
        (spring.id, 1, {"name": "Spring", "n": [1]}, T0 + 100),
    ]
    assert [p[0] for p in await store.places_of(ANN, limit=2)] == [autumn.id, winter.id]
    assert [p[0] for p in await store.places_of(ANN, guild_id=GUILD)] == [autumn.id, spring.id]
    assert [(p[0], p[1]) for p in await store.places_of(CAT)] == [(spring.id, 2)]
    assert await store.places_of(ANN + 1) == []

    await store.record_places(autumn.id, [(BOB, 1), (ANN, 2)])  # corrected
    assert next((p[0], p[1]) for p in await store.places_of(ANN)) == (autumn.id, 2)
    await store.record_places(spring.id, [])
    assert [p[0] for p in await store.places_of(ANN)] == [autumn.id, winter.id]
    with pytest.raises(ValueError, match="one place"):
        await store.record_places(autumn.id, [(BOB, 1), (BOB, 2)])
    with pytest.raises(KeyError):
        await store.record_places(winter.id + 100, [(ANN, 1)])
    assert [(p[0], p[1]) for p in await store.places_of(BOB)] == [(autumn.id, 1)]  # nothing of the refused


async def test_forgetting_a_member_deletes_their_places_and_keeps_the_others(store: AnyStore) -> None:
    cup = await event(store, "cup", status="finished")
    await store.record_places(cup, [(ANN, 1), (BOB, 2)])

    await store.forget_user(ANN, "👤", at=T0 + 10, rename=forgotten)

    assert await store.places_of(ANN) == []
    assert [(p[0], p[1]) for p in await store.places_of(BOB)] == [(cup, 2)]
    assert await store._all("SELECT * FROM tournament_places WHERE user_id = ?", (ANN,)) == []


async def test_a_sqlite_taverns_events_move_to_postgresql(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "tavern.db"
    source = await SQLiteStore.open(path)
    try:
        cup = await source.create_tournament(GUILD, CHANNEL, "running", DOC, T0)
        over = await source.create_tournament(GUILD, CHANNEL, "finished", {"name": "over"}, T0 + 1)
        played = await game(source, 10)
        await source.link_tournament_game(cup.id, played)
        await source.record_places(over.id, [(ANN, 1), (BOB, 2)])
        cup = await source.save_tournament(cup.id, {**DOC, "round": 2}, "running", 0, T0 + 0.125)
    finally:
        await source.close()

    moved = await transfer.move(path, pg_url)

    assert (
        moved.count("tournaments"),
        moved.count("tournament_games"),
        moved.count("tournament_places"),
    ) == (
        2,
        1,
        2,
    )
    target = await PostgresStore.open(pg_url)
    try:
        assert await target.get_tournament(cup.id) == cup
        assert [t.id for t in await target.live_tournaments()] == [cup.id]
        assert await target.tournament_of_game(played) == cup.id
        assert [(p[0], p[1]) for p in await target.places_of(BOB)] == [(over.id, 2)]
        newer = await target.create_tournament(GUILD, CHANNEL, "signup", {}, T0 + 2)
        assert newer.id > over.id  # the identity carries on past the moved ids
    finally:
        await target.close()


def _cup(status: str, entrants: list[Entrant], organiser: int = ANN) -> dict[str, Any]:
    """A stored event as the tournament service writes it: ANN beat BOB in its one match."""
    game = GameDone((ANN, BOB), (31, 20), 31, ANN, game_id=7)
    rounds = [[Match(1, 1, (ANN, BOB), [game], None, ANN)]]
    return doc_of(
        Event(Settings("Cup", "bhargage", "swiss", {"target": 31}), organiser, status, entrants, rounds)
    )


async def test_forgetting_a_member_rewrites_every_event_that_names_them(store: AnyStore) -> None:
    cup = await store.create_tournament(
        GUILD, CHANNEL, "finished", _cup("finished", [Entrant(ANN, "Ann"), Entrant(BOB, "Bob")]), T0
    )
    theirs = _cup("finished", [Entrant(BOB, "Bob"), Entrant(CAT, "Cat")], organiser=BOB)
    theirs["rounds"] = []
    other = await store.create_tournament(GUILD, CHANNEL, "finished", theirs, T0)
    await store.record_places(cup.id, [(ANN, 1), (BOB, 2)])

    await store.forget_user(ANN, "👤", at=T0 + 10, rename=forgotten)

    row = await store.get_tournament(cup.id)
    assert row is not None and row.version == cup.version + 1, "a save from before is stale"
    assert str(ANN) not in json.dumps(row.doc) and "Ann" not in json.dumps(row.doc)
    event = event_of(row.doc)
    pseudonym = event.organiser_id
    assert pseudonym in FORGOTTEN
    assert [(e.user_id, e.name) for e in event.entrants] == [(pseudonym, "👤"), (BOB, "Bob")]
    [match] = event.rounds[0]
    assert match.players == (pseudonym, BOB) and match.winner == pseudonym
    assert match.games[0].players == (pseudonym, BOB) and match.games[0].winner == pseudonym
    assert next(ln.player for ln in event.lines()) == pseudonym, "the standings read as before"
    assert await store.get_tournament(other.id) == other, "an event that does not name them is not touched"
    assert await store.places_of(ANN) == [] and [(p[0], p[1]) for p in await store.places_of(BOB)] == [
        (cup.id, 2)
    ]


async def test_a_member_entered_in_an_event_under_way_is_not_forgotten(store: AnyStore) -> None:
    running = await store.create_tournament(
        GUILD, CHANNEL, "running", _cup("running", [Entrant(ANN, "Ann"), Entrant(BOB, "Bob")]), T0
    )
    await store.set_user_language(ANN, "it")

    with pytest.raises(TournamentError) as refused:
        await store.forget_user(ANN, "👤", at=T0 + 10, rename=forgotten)

    assert refused.value.msgid == "tournament.refuse.forget-entered" and refused.value.params == {
        "name": "Cup"
    }
    assert await store.get_tournament(running.id) == running and (await store.user_languages())[ANN] == "it"
    dropped = _cup("running", [Entrant(ANN, "Ann", dropped=True), Entrant(BOB, "Bob")])
    saved = await store.save_tournament(running.id, dropped, "running", running.version, T0 + 20)
    await store.forget_user(ANN, "👤", at=T0 + 30, rename=forgotten)  # dropped: their matches are decided
    row = await store.get_tournament(running.id)
    assert row is not None and row.version == saved.version + 1 and str(ANN) not in json.dumps(row.doc)
