"""Tournaments: each event one JSON document the service (``bot.services.tournaments``) owns, saved whole.

The store does not read the document: it keeps it, with the event's status (for the listings and for what a
restarted process resumes) and its version. A save names the version it was made from and is one
``UPDATE … WHERE version = ?``: of two organisers, or two processes, saving from the same version, the
database lets exactly one through and the other gets ``StaleTournament`` (nothing written), whatever the
backend. Beside the document: which games were played for which event (``tournament_games``), and each
entrant's final place (``tournament_places``), so a profile lists a member's places without reading every
event.

The document is JSON both ways (``json.dumps`` without NaN or infinities, ``json.loads``; never anything that
runs code): keys come back as strings and tuples as lists, as JSON has them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from bot.store._base import Conn, Row, StoreBase
from bot.store.interface import LIVE_TOURNAMENT_STATUSES, TOURNAMENT_STATUSES, Rename
from bot.store.records import StaleTournament, TournamentRow


class TournamentsMixin(StoreBase):
    async def create_tournament(
        self, guild_id: int, channel_id: int, status: str, doc: Mapping[str, Any], now: float
    ) -> TournamentRow:
        """Insert an event at version 0 and return it as stored."""
        text = _doc_json(doc)
        _check_status(status)
        async with self._tx() as db:
            row = await db.fetchrow(
                "INSERT INTO tournaments (guild_id, channel_id, status, doc, version, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, 0, ?, ?) RETURNING id",
                (guild_id, channel_id, status, text, now, now),
            )
            assert row is not None
            made = await _select(db, int(row["id"]))
        assert made is not None
        return made

    async def get_tournament(self, tournament_id: int) -> TournamentRow | None:
        """The event in any status; None if there is no such event."""
        row = await self._one("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        return _tournament(row) if row else None

    async def tournaments_in(
        self, guild_id: int, statuses: Sequence[str] | None = None, limit: int = 25
    ) -> list[TournamentRow]:
        """The server's events (those in ``statuses``, or all), newest first, at most ``limit``."""
        if isinstance(statuses, str):  # one status is a sequence of its letters: never what was meant
            raise TypeError("statuses is a sequence of statuses, not one")
        if statuses is None:
            rows = await self._all(
                "SELECT * FROM tournaments WHERE guild_id = ? ORDER BY id DESC LIMIT ?", (guild_id, limit)
            )
        else:
            wanted = list(dict.fromkeys(statuses))
            for status in wanted:
                _check_status(status)
            if not wanted:
                return []
            marks = ", ".join("?" for _ in wanted)
            rows = await self._all(
                f"SELECT * FROM tournaments WHERE guild_id = ? AND status IN ({marks}) "
                "ORDER BY id DESC LIMIT ?",
                (guild_id, *wanted, limit),
            )
        return [_tournament(r) for r in rows]

    async def live_tournaments(self) -> list[TournamentRow]:
        """Every server's events not over (signing up, running or paused), by id: what a process resumes."""
        marks = ", ".join("?" for _ in LIVE_TOURNAMENT_STATUSES)
        rows = await self._all(
            f"SELECT * FROM tournaments WHERE status IN ({marks}) ORDER BY id", LIVE_TOURNAMENT_STATUSES
        )
        return [_tournament(r) for r in rows]

    async def save_tournament(
        self, tournament_id: int, doc: Mapping[str, Any], status: str, version: int, now: float
    ) -> TournamentRow:
        """Replace the event's document and status if it is still at ``version`` (it then moves to
        ``version`` + 1), decided by the one UPDATE; ``StaleTournament`` if it moved on, ``KeyError`` if there
        is no such event: then nothing is written."""
        text = _doc_json(doc)
        _check_status(status)
        async with self._tx() as db:
            changed = await db.execute(
                "UPDATE tournaments SET doc = ?, status = ?, version = version + 1, updated_at = ? "
                "WHERE id = ? AND version = ?",
                (text, status, now, tournament_id, version),
            )
            saved = await _select(db, tournament_id)
        if saved is None:
            raise KeyError(tournament_id)
        if changed != 1:
            raise StaleTournament(tournament_id, version, saved.version)
        return saved

    async def link_tournament_game(self, tournament_id: int, game_id: int) -> None:
        """Record that the game is played for the event. Linking it again to the same event does nothing (a
        retry after a crash); ``ValueError`` if it is another event's, ``KeyError`` if either is unknown."""
        async with self._tx() as db:
            for table, key in (("tournaments", tournament_id), ("games", game_id)):
                if await db.fetchrow(f"SELECT 1 FROM {table} WHERE id = ?", (key,)) is None:
                    raise KeyError(f"no such row in {table}: {key}")
            await db.execute(
                "INSERT INTO tournament_games (game_id, tournament_id) VALUES (?, ?) "
                "ON CONFLICT (game_id) DO NOTHING",
                (game_id, tournament_id),
            )
            row = await db.fetchrow(
                "SELECT tournament_id FROM tournament_games WHERE game_id = ?", (game_id,)
            )
        assert row is not None
        if int(row["tournament_id"]) != tournament_id:
            raise ValueError(f"game {game_id} is played for tournament {row['tournament_id']}")

    async def tournament_of_game(self, game_id: int) -> int | None:
        """The event the game is played for, or None (a game of its own)."""
        row = await self._one("SELECT tournament_id FROM tournament_games WHERE game_id = ?", (game_id,))
        return None if row is None else int(row["tournament_id"])

    async def record_places(self, tournament_id: int, places: Sequence[tuple[int, int]]) -> None:
        """Replace the event's final places with ``places`` ((user id, place) each; ties share a place):
        recording them again after a correction leaves no place of the first try. ``ValueError`` if a member
        comes twice, ``KeyError`` if there is no such event: then nothing is written."""
        users = [int(user_id) for user_id, _ in places]
        if len(set(users)) != len(users):
            raise ValueError("a member has one place in an event")
        async with self._tx() as db:
            if await db.fetchrow("SELECT 1 FROM tournaments WHERE id = ?", (tournament_id,)) is None:
                raise KeyError(tournament_id)
            await db.execute("DELETE FROM tournament_places WHERE tournament_id = ?", (tournament_id,))
            await db.executemany(
                "INSERT INTO tournament_places (tournament_id, user_id, place) VALUES (?, ?, ?)",
                [(tournament_id, int(user_id), int(place)) for user_id, place in places],
            )

    async def places_of(
        self, user_id: int, limit: int = 10, *, guild_id: int | None = None
    ) -> list[tuple[int, int, dict[str, Any], float]]:
        """The member's places, newest event first (by when it was last saved): (tournament id, place, the
        event's document, its ``updated_at``), at most ``limit``; with ``guild_id``, only that server's (a
        profile shown in one server tells nothing of the others)."""
        where = "p.user_id = ?" + ("" if guild_id is None else " AND t.guild_id = ?")
        params: tuple[int, ...] = (user_id,) if guild_id is None else (user_id, guild_id)
        rows = await self._all(
            "SELECT p.tournament_id, p.place, t.doc, t.updated_at FROM tournament_places p "
            f"JOIN tournaments t ON t.id = p.tournament_id WHERE {where} "
            "ORDER BY t.updated_at DESC, t.id DESC LIMIT ?",
            (*params, limit),
        )
        return [
            (int(r["tournament_id"]), int(r["place"]), _doc(r["doc"]), float(r["updated_at"])) for r in rows
        ]


async def forget_member(db: Conn, user_id: int, pseudonym: int, anonymous: str, rename: Rename) -> None:
    """Inside ``forget_user``'s transaction: the member's places go, and each event whose document names
    them is rewritten by ``rename`` (document, member, pseudonym, name → the new document, or None where it
    does not name them; the tournament service's, since the store never reads a document; its refusal
    refuses the whole forgetting) and moves a version, so a save from before is stale."""
    await db.execute("DELETE FROM tournament_places WHERE user_id = ?", (user_id,))
    rows = await db.fetch("SELECT id, doc FROM tournaments WHERE doc LIKE ? ORDER BY id", (f"%{user_id}%",))
    for row in rows:  # the text holds the id: a few candidates, each read as the service reads it
        doc = rename(_doc(row["doc"]), user_id, pseudonym, anonymous)
        if doc is not None:
            moved = "UPDATE tournaments SET doc = ?, version = version + 1 WHERE id = ?"
            await db.execute(moved, (_doc_json(doc), row["id"]))


def _check_status(status: str) -> None:
    if status not in TOURNAMENT_STATUSES:
        raise ValueError(f"not a tournament status: {status!r}")


def _doc_json(doc: Mapping[str, Any]) -> str:
    """The document as strict JSON: NaN and infinities are refused (no other reader would take them back)."""
    return json.dumps(dict(doc), allow_nan=False, separators=(",", ":"), ensure_ascii=False)


def _doc(text: str) -> dict[str, Any]:
    """The stored text back as a dict, by ``json.loads`` alone, as strict as ``_doc_json`` wrote it."""
    doc = json.loads(text, parse_constant=_no_constant)
    if not isinstance(doc, dict):
        raise ValueError(f"a tournament's document is a JSON object, not {type(doc).__name__}")
    return doc


def _no_constant(name: str) -> Any:
    raise ValueError(f"a tournament's document holds {name}, which JSON has no number for")


async def _select(db: Conn, tournament_id: int) -> TournamentRow | None:
    row = await db.fetchrow("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
    return _tournament(row) if row else None


def _tournament(r: Row) -> TournamentRow:
    return TournamentRow(
        id=int(r["id"]),
        guild_id=int(r["guild_id"]),
        channel_id=int(r["channel_id"]),
        status=str(r["status"]),
        doc=_doc(r["doc"]),
        version=int(r["version"]),
        created_at=float(r["created_at"]),
        updated_at=float(r["updated_at"]),
    )
