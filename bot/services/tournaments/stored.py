"""A tournament's stored form: the JSON the store keeps (``doc_of``) and its strict reading (``event_of``),
which builds the event's own types and nothing else, and refuses (ValueError) whatever is not exactly what
``doc_of`` writes — a row edited by hand, or written by another version."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from bot.base import safe
from bot.services.tournaments.event import (
    FORMATS,
    LIVE,
    STATUSES,
    Entrant,
    Event,
    GameDone,
    Match,
    Settings,
    TournamentError,
)

VERSION = 1


def doc_of(event: Event) -> dict[str, Any]:
    """The event as stored: JSON data only."""
    s = event.settings
    return {
        "v": VERSION,
        "settings": {
            "name": s.name,
            "game": s.game,
            "format": s.format,
            "options": dict(s.options),
            "rounds": s.rounds,
            "best_of": s.best_of,
            "least": s.least,
            "most": s.most,
            "move_minutes": s.move_minutes,
        },
        "organiser_id": event.organiser_id,
        "status": event.status,
        "entrants": [[e.user_id, e.name, e.rating, e.dropped] for e in event.entrants],
        "rounds": [[_match_doc(m) for m in matches] for matches in event.rounds],
    }


def event_of(doc: Mapping[str, Any]) -> Event:
    """The event stored as ``doc``; ValueError for anything that is not exactly what ``doc_of`` writes."""
    if doc.get("v") != VERSION:
        raise ValueError("not a tournament of this version")
    s = _obj(doc["settings"])
    settings = Settings(
        name=_str(s["name"]),
        game=_str(s["game"]),
        format=_choice(s["format"], FORMATS),
        options=_obj(s["options"]),
        rounds=_int(s["rounds"]),
        best_of=_int(s["best_of"]),
        least=_int(s["least"]),
        most=_int(s["most"]),
        move_minutes=_int(s["move_minutes"]),
    )
    entrants = [
        Entrant(_int(u), _str(n), float(_num(r)), _bool(d))
        for u, n, r, d in (_list(x) for x in _list(doc["entrants"]))
    ]
    rounds = [[_match(x) for x in _list(r)] for r in _list(doc["rounds"])]
    return Event(settings, _int(doc["organiser_id"]), _choice(doc["status"], STATUSES), entrants, rounds)


def forgotten(doc: Mapping[str, Any], user_id: int, pseudonym: int, name: str) -> dict[str, Any] | None:
    """The stored event with the member ``user_id`` as ``pseudonym``, named ``name``, wherever they stand in
    it (organiser, entrant, a match's players and winner, a game's); None where they stand nowhere
    (``/tavern forget-me``, inside the store's transaction). A member still in an event under way (signing
    up, running or paused, not dropped) is refused: their matches would be played by nobody."""
    event = event_of(doc)
    if event.organiser_id != user_id and all(e.user_id != user_id for e in event.entrants):
        return None
    entered = any(e.user_id == user_id and not e.dropped for e in event.entrants)
    if entered and event.status in LIVE:
        raise TournamentError("tournament.refuse.forget-entered", name=safe.plain(event.settings.name, 60))

    def swap(user: int) -> int:
        return pseudonym if user == user_id else user

    event.organiser_id = swap(event.organiser_id)
    for e in event.entrants:
        if e.user_id == user_id:
            e.user_id, e.name = pseudonym, name
    for m in (m for matches in event.rounds for m in matches):
        m.players = tuple(map(swap, m.players))
        m.winner = None if m.winner is None else swap(m.winner)
        m.games = [replace(g, players=tuple(map(swap, g.players)), winner=swap(g.winner)) for g in m.games]
    return doc_of(event)


def _match_doc(m: Match) -> dict[str, Any]:
    return {
        "round": m.round,
        "number": m.number,
        "players": list(m.players),
        "games": [
            [list(g.players), list(g.scores), g.target, g.winner, g.how, g.lurch_line, g.game_id]
            for g in m.games
        ],
        "game_id": m.game_id,
        "winner": m.winner,
    }


def _match(x: Any) -> Match:
    d = _obj(x)
    games = []
    for g in _list(d["games"]):
        players, scores, target, winner, how, lurch, game_id = _list(g)
        games.append(
            GameDone(
                _ints(players),
                _ints(scores),
                _int(target),
                _int(winner),
                _choice(how, ("played", "forfeit", "awarded")),
                None if lurch is None else _int(lurch),
                None if game_id is None else _int(game_id),
            )
        )
    return Match(
        _int(d["round"]),
        _int(d["number"]),
        _ints(d["players"]),
        games,
        None if d["game_id"] is None else _int(d["game_id"]),
        None if d["winner"] is None else _int(d["winner"]),
    )


def _obj(x: Any) -> dict[str, Any]:
    if not isinstance(x, dict):
        raise ValueError("an object")
    return x


def _list(x: Any) -> list[Any]:
    if not isinstance(x, list):
        raise ValueError("a list")
    return x


def _int(x: Any) -> int:
    if type(x) is not int:
        raise ValueError("an integer")
    return x


def _ints(x: Any) -> tuple[int, ...]:
    return tuple(_int(v) for v in _list(x))


def _num(x: Any) -> float:
    if type(x) not in (int, float):
        raise ValueError("a number")
    return float(x)


def _str(x: Any) -> str:
    if not isinstance(x, str):
        raise ValueError("a string")
    return x


def _bool(x: Any) -> bool:
    if type(x) is not bool:
        raise ValueError("a boolean")
    return x


def _choice(x: Any, allowed: Iterable[Any]) -> Any:
    if x not in tuple(allowed):
        raise ValueError(f"one of {tuple(allowed)}")
    return x
