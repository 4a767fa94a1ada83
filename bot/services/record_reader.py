"""Reading a game record back (``docs/RECORD.md``): a record file is hostile input, bounded in size and
lines and read by a strict grammar (``bot.services.record_grammar``) into the ``RecordFile`` that
``bot.services.game_record`` writes. Apart from the writer: reading checks every header and line of a text
it did not make, writing walks a game it trusts. The moves are not played here: ``game_record.replay_record``
plays them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.ai import LEVELS
from bot.base.i18n import ENGLISH, LANGUAGES
from bot.games import GAMES
from bot.render.refusals import said
from bot.rules.engine import Engine
from bot.rules.errors import RulesError
from bot.services import record_grammar as g
from bot.services.game_record import (
    CHOSEN_SEED,
    RANDOM_SEED,
    STATUSES,
    VERSION,
    Outcome,
    RecordFile,
    SeatEntry,
)
from bot.services.record_grammar import RecordError

SEED_POLICIES = (RANDOM_SEED, CHOSEN_SEED)
FIRST_HEADER = g.header_line("Format", f"{g.FORMAT} {VERSION}")
# The headers of version 1, in the order they are written; Seat<n> and Seat<n>Bot come after Players.
REQUIRED = ("Format", "Game", "Options", "Seed", "SeedPolicy", "Players", "Date", "Status", "Result")
REQUIRED_AFTER = ("Winners", "How", "Moves")
OPTIONAL = ("GameId", "Ended", "Language")


def decode(data: bytes | str) -> RecordFile:
    """A record read back from its text, or :class:`RecordError` saying where it breaks the grammar: size
    and line limits, the headers (``Format`` first, each once, none unknown, every required one), their
    values, then the body (hand headings and move numbers in order, comments). The moves are not played
    here: ``game_record.replay_record`` does that."""
    lines = g.split_lines(data)
    headers, body_at = _read_headers(lines)
    numbered = _read_body(lines, body_at)
    record = _record(headers)
    moves = _spelled(GAMES[record["game"]].rules, numbered)
    if len(moves) != int(headers["Moves"]):
        raise RecordError("record.move-count", recorded=int(headers["Moves"]), found=len(moves))
    return RecordFile(**{**record, "moves": tuple(moves)})


def _read_headers(lines: Sequence[str]) -> tuple[dict[str, str], int]:
    """The headers by key, and the index of the first line after them."""
    at = 0
    while at < len(lines) and (not lines[at] or lines[at].startswith(";")):
        at += 1
    headers: dict[str, str] = {}
    while at < len(lines) and lines[at].startswith("["):
        match = g.HEADER.fullmatch(lines[at])
        if match is None:
            raise RecordError("record.bad-header", line=at + 1)
        key, value = match[1], g.unquote(match[2], at + 1)
        if not headers and (key != "Format" or not value.startswith(g.FORMAT + " ")):
            raise RecordError("record.not-a-record", format=FIRST_HEADER)
        if not _known(key):
            raise RecordError("record.unknown-header", line=at + 1, key=key)
        if key in headers:
            raise RecordError("record.twice", line=at + 1, key=key)
        headers[key] = value
        at += 1
    if not headers:
        raise RecordError("record.not-a-record", format=FIRST_HEADER)
    version = headers["Format"].removeprefix(g.FORMAT + " ")
    if version != str(VERSION):
        shown = version if g.COUNT.fullmatch(version) else "?"
        raise RecordError("record.version", version=shown, known=VERSION)
    for key in (*REQUIRED, *REQUIRED_AFTER):
        if key not in headers:
            raise RecordError("record.missing", key=key)
    return headers, at


def _known(key: str) -> bool:
    seat = g.SEAT_KEY.fullmatch(key)
    return key in REQUIRED or key in REQUIRED_AFTER or key in OPTIONAL or seat is not None


def _spelled(rules: Engine, numbered: Sequence[tuple[int, str]]) -> list[str]:
    """The moves, each in its engine's one spelling (``action_text``): a move the engine reads but writes
    otherwise ("0 DISCARD …") is no move line; one it can't read is left for the replay to refuse."""
    for number, move in numbered:
        try:
            spelled = rules.action_text(rules.parse_action(move))
        except (RulesError, ValueError, IndexError, KeyError, TypeError):
            continue
        if spelled != move:
            raise RecordError("record.bad-line", line=number)
    return [move for _, move in numbered]


def _read_body(lines: Sequence[str], at: int) -> list[tuple[int, str]]:
    """The moves in order, with their line numbers: blank lines and comments skipped, hand headings counted
    1, 2, …, move numbers 1, 2, … with nothing skipped or repeated."""
    moves: list[tuple[int, str]] = []
    hands = 0
    for number, line in enumerate(lines[at:], at + 1):
        if not line or line.startswith(";"):
            continue
        hand, move = g.HAND_LINE.fullmatch(line), g.MOVE_LINE.fullmatch(line)
        if hand is not None:
            hands += 1
            if int(hand[1]) != hands:
                raise RecordError("record.hand-number", line=number, expected=hands)
        elif move is not None:
            if int(move[1]) != len(moves) + 1:
                raise RecordError("record.move-number", line=number, expected=len(moves) + 1)
            if len(moves) >= g.MAX_MOVES:
                raise RecordError("record.too-many-moves", most=g.MAX_MOVES)
            moves.append((number, move[2]))
        elif line.startswith("["):
            raise RecordError("record.header-after-moves", line=number)
        else:
            raise RecordError("record.bad-line", line=number)
    return moves


def _record(h: dict[str, str]) -> dict[str, Any]:
    """The header values read and checked against each other (not the moves: ``replay_record``)."""
    game = h["Game"]
    if not g.GAME.fullmatch(game) or game not in GAMES:
        raise RecordError("record.bad-value", key="Game")
    adapter = GAMES[game]
    options = g.read_options(h["Options"])
    try:
        adapter.options(dict(options))
    except (RulesError, ValueError, TypeError) as err:
        raise RecordError("record.bad-options", reason=said(err)) from None
    players = g.read_int("Players", h["Players"])
    if not adapter.min_players <= players <= min(adapter.max_players, g.MAX_SEATS):
        raise RecordError("record.bad-value", key="Players")
    status = h["Status"]
    if status not in STATUSES:
        raise RecordError("record.bad-value", key="Status")
    if h["SeedPolicy"] not in SEED_POLICIES:
        raise RecordError("record.bad-value", key="SeedPolicy")
    language = h.get("Language", ENGLISH)
    if language not in LANGUAGES:
        raise RecordError("record.bad-value", key="Language")
    game_id = g.read_int("GameId", h["GameId"], g.SEED) if "GameId" in h else None
    return {
        "game": game,
        "seed": g.read_int("Seed", h["Seed"], g.SEED),
        "options": options,
        "seats": _seats(h, players),
        "status": status,
        "result": _outcome(h, players, status),
        "started": g.read_date("Date", h["Date"]),
        "ended": g.read_date("Ended", h["Ended"]) if "Ended" in h else None,
        "game_id": game_id if game_id and game_id > 0 else None,
        "seed_policy": h["SeedPolicy"],
        "language": language,
    }


def _seats(h: dict[str, str], players: int) -> tuple[SeatEntry, ...]:
    """A ``Seat<n>`` header for each seat and none beyond; a ``Seat<n>Bot`` only beside its seat."""
    for key in h:
        seat = g.SEAT_KEY.fullmatch(key)
        if seat is not None and int(seat[1]) >= players:
            raise RecordError("record.bad-value", key=key)
    seats: list[SeatEntry] = []
    for n in range(players):
        if f"Seat{n}" not in h:
            raise RecordError("record.missing", key=f"Seat{n}")
        name = g.read_text(f"Seat{n}", h[f"Seat{n}"], g.MAX_NAME)
        bot = h.get(f"Seat{n}Bot")
        if bot is None:
            seats.append(SeatEntry(name))
        else:
            level, number = g.read_bot(f"Seat{n}Bot", bot, LEVELS)
            seats.append(SeatEntry(name, LEVELS[LEVELS.index(level)], number))
    return tuple(seats)


def _outcome(h: dict[str, str], players: int, status: str) -> Outcome | None:
    """Result, Winners and How: all three for a finished game (scores one per seat, winners seats in order,
    each once), all ``*`` otherwise."""
    scores, winners, how = g.read_ints("Result", h["Result"]), g.read_ints("Winners", h["Winners"]), h["How"]
    if status != "finished":
        if scores is not None or winners is not None or how != g.NONE:
            raise RecordError("record.bad-value", key="Result")
        return None
    if scores is None or len(scores) != players:
        raise RecordError("record.bad-value", key="Result")
    if not winners or len(set(winners)) != len(winners) or not all(0 <= w < players for w in winners):
        raise RecordError("record.bad-value", key="Winners")
    return Outcome(scores, winners, g.read_text("How", how))
