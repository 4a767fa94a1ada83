"""A game record: one game as a versioned, human-readable text file (``docs/RECORD.md`` is the spec).

PGN-like ``[Key "value"]`` headers (the format and its version, the game, its options, the seed and how it
was chosen, the seats, the dates, the result), then the moves hand by hand, one numbered line each in the
engine's own log text, with what the table told the channel as ``;`` comment lines. A game is fully
determined by its seed, players, options and moves, so those replay it (:func:`replay_record`, which also
checks that the replay ends as the record says); the names, dates and calls are for people, and a comment can
change nothing.

Pure: no Discord, no store calls. :func:`record_of` reads a stored game (``bot.store.records.GameRecord``);
:func:`encode` writes a record in the language in force, walking the game with ``bot.services.replay``;
:func:`decode` reads one back, refusing anything malformed (:class:`RecordError`) — a record file is hostile
input, bounded in size and lines and read by a strict grammar (``bot.services.record_grammar``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.ai import LEVELS, Level
from bot.base import safe
from bot.base.i18n import ENGLISH, LANGUAGES, current, t
from bot.games import GAMES, Seat, Table
from bot.games.seats import bot_id, is_bot, level_of
from bot.render.refusals import said
from bot.rules.engine import Engine
from bot.rules.errors import RulesError
from bot.services import record_grammar as g
from bot.services.record_grammar import RecordError
from bot.services.replay import Replay, walk
from bot.store.records import GameRecord

__all__ = [
    "RecordError",
    "RecordFile",
    "Replayed",
    "SeatEntry",
    "calls",
    "decode",
    "encode",
    "record_of",
    "replay_record",
]

VERSION = 1  # bumped whenever the grammar or the meaning of a header changes; a reader refuses other versions
RANDOM_SEED = "random, recorded"  # i18n: not text (the bot's tables: 63 random bits, kept with the game)
CHOSEN_SEED = "chosen"  # i18n: not text (set by whoever made the game: a test, ``play --seed``)
SEED_POLICIES = (RANDOM_SEED, CHOSEN_SEED)
FIRST_HEADER = g.header_line("Format", f"{g.FORMAT} {VERSION}")
STATUSES = ("finished", "abandoned", "active")
# The headers of version 1, in the order they are written; Seat<n> and Seat<n>Bot come after Players.
REQUIRED = ("Format", "Game", "Options", "Seed", "SeedPolicy", "Players", "Date", "Status", "Result")
REQUIRED_AFTER = ("Winners", "How", "Moves")
OPTIONAL = ("GameId", "Ended", "Language")


@dataclass(frozen=True)
class SeatEntry:
    """A seat: the name people read, and for a computer player its level and number ("Bot 2 (hard)")."""

    name: str
    bot: Level | None = None
    number: int = 1


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the seats' final scores, the winning seats, and the engine's word for how."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    how: str


@dataclass(frozen=True)
class RecordFile:
    """One game's record, as written and as read back (comments are not kept: they replay nothing)."""

    game: str
    seed: int
    options: tuple[tuple[str, bool | int], ...]  # the engine's options, names sorted
    seats: tuple[SeatEntry, ...]
    moves: tuple[str, ...]  # the engine's action texts, in order (move n is moves[n - 1])
    status: str  # finished, abandoned (ended by an admin), active (still being played)
    result: Outcome | None  # None unless finished
    started: float  # epoch seconds, UTC
    ended: float | None = None
    game_id: int | None = None
    seed_policy: str = RANDOM_SEED
    language: str = ENGLISH  # the language of the comments
    version: int = VERSION


@dataclass(frozen=True)
class Replayed:
    """A record replayed: every step as the table told it, and how the moves end the game (None: they
    don't end it, as in an abandoned game)."""

    record: RecordFile
    replay: Replay
    outcome: Outcome | None


# ---------------------------------------------------------------- from the store


def record_of(game: GameRecord, *, seed_policy: str = RANDOM_SEED) -> RecordFile:
    """A stored game as a record. Its result is the one stored (the log is replayed against it when the
    record is read: an engine that has changed since would show there)."""
    adapter = GAMES[game.game]
    options = adapter.options(game.options).to_dict()
    seats = tuple(
        SeatEntry(g.readable(s.name) or "?", level_of(s.user_id), -s.user_id % 100 + 1)
        if is_bot(s.user_id)
        else SeatEntry(g.readable(s.name) or "?")
        for s in game.seats
    )
    result = None
    if game.status == "finished" and game.result is not None:
        stored = game.result
        result = Outcome(
            tuple(int(x) for x in stored["scores"]),
            tuple(int(x) for x in stored["winners"]),
            str(stored.get("how", "")) or g.NONE,
        )
    return RecordFile(
        game=game.game,
        seed=game.seed,
        options=tuple(sorted(options.items())),
        seats=seats,
        moves=tuple(a.text for a in sorted(game.actions, key=lambda a: a.seq)),
        status=game.status if game.status in STATUSES else "abandoned",
        result=result,
        started=game.created_at,
        ended=game.finished_at,
        game_id=game.id,
        seed_policy=seed_policy,
    )


# ---------------------------------------------------------------- replaying


def table_for(record: RecordFile) -> Table:
    """The table the record's game starts at: its seed, options and seats (people get ids 1, 2, …, bots
    the ids their level and number give, so the calls name them as the table did)."""
    adapter = GAMES[record.game]
    seats = tuple(
        Seat(i + 1 if s.bot is None else bot_id(s.bot, s.number - 1), safe.name(s.name))
        for i, s in enumerate(record.seats)
    )
    return Table(
        id=record.game_id or 0,
        game=record.game,
        adapter=adapter,
        guild_id=0,
        channel_id=0,
        seed=record.seed,
        options=adapter.options(dict(record.options)),
        seats=seats,
        state=None,
        seq=0,
        created_at=record.started,
        last_action_at=record.ended or record.started,
        status=record.status,
    )


def _checked_moves(record: RecordFile, table: Table) -> Any:
    """Every move read and checked against the rules in turn; the state after the last."""
    rules = table.module
    state, _ = rules.start(record.seed, len(record.seats), table.options)
    for seq, text in enumerate(record.moves, 1):
        if rules.is_over(state):
            raise RecordError("record.after-end", seq=seq)
        try:
            action = rules.parse_action(text)
            rules.check(state, action)
            state, _ = rules.apply(state, action)
        except RulesError as err:
            raise RecordError("record.illegal-move", seq=seq, move=text, reason=said(err)) from None
        except (ValueError, IndexError, KeyError, TypeError):
            raise RecordError("record.illegal-move", seq=seq, move=text, reason="?") from None
    return state


def replay_record(record: RecordFile) -> Replayed:
    """Replay the record's moves from its seed and options, step by step as its table told them, and check
    that they end the game as its headers say: the same status, scores, winners and how."""
    table = table_for(record)
    state = _checked_moves(record, table)
    rules = table.module
    outcome = None
    if rules.is_over(state):
        result = rules.final_result(state)
        outcome = Outcome(tuple(result.scores), tuple(result.winners), str(result.how) or g.NONE)
    if record.status == "finished" and outcome is None:
        raise RecordError("record.not-ended")
    if record.status != "finished" and outcome is not None:
        raise RecordError("record.ended")
    if record.result is not None and outcome is not None:
        if record.result.scores != outcome.scores:
            mine, theirs = g.write_ints(outcome.scores), g.write_ints(record.result.scores)
            raise RecordError("record.other-scores", replayed=mine, recorded=theirs)
        if record.result.winners != outcome.winners or record.result.how != outcome.how:
            raise RecordError("record.other-winners")
    return Replayed(record, walk(table.adapter, table, record.moves), outcome)


def calls(replayed: Replayed, index: int) -> list[str]:
    """What the table told the channel at step ``index``, as plain lines in the language in force."""
    replay = replayed.replay
    table = replay.at(index)
    names = {s.user_id: g.readable(n) for s, n in zip(table.seats, table.names, strict=True)}
    told = table.adapter.announce(table, replay.steps[index].events)
    return [line for text in told.messages for line in g.plain(text, lambda uid: names.get(uid, "?"))]


# ---------------------------------------------------------------- writing


def encode(record: RecordFile, *, with_calls: bool = True) -> str:
    """The record as text, its comments in the language in force. The moves are replayed first (a record
    that does not reproduce is never written); a record whose calls would pass ``MAX_BYTES`` is written
    without them, and one too big even so is refused."""
    replayed = replay_record(record)
    language = current() if current() in LANGUAGES else ENGLISH
    lines = [f"; {line}" for line in t("record.file.preamble").split("\n")]
    lines += _headers(record, replayed.outcome, language)
    lines += ["", *_body(replayed, with_calls)]
    text = "\n".join(lines) + "\n"
    if len(text.encode("utf-8")) > g.MAX_BYTES:
        if with_calls:
            return encode(record, with_calls=False)
        raise RecordError("record.too-big", most=g.MAX_BYTES // 1024)
    return text


def _headers(record: RecordFile, outcome: Outcome | None, language: str) -> list[str]:
    result = (record.result or outcome) if record.status == "finished" else None
    pairs: list[tuple[str, str]] = [
        ("Format", f"{g.FORMAT} {VERSION}"),  # i18n: not text
        ("Game", record.game),
        *([("GameId", str(record.game_id))] if record.game_id else []),
        ("Options", g.write_options(dict(record.options))),
        ("Seed", str(record.seed)),
        ("SeedPolicy", record.seed_policy),
        ("Players", str(len(record.seats))),
    ]
    for n, seat in enumerate(record.seats):
        pairs.append((f"Seat{n}", seat.name[: g.MAX_NAME]))
        if seat.bot is not None:
            pairs.append((f"Seat{n}Bot", f"{seat.bot} {seat.number}"))
    pairs.append(("Date", g.write_date(record.started)))
    if record.ended is not None:
        pairs.append(("Ended", g.write_date(record.ended)))
    pairs += [
        ("Status", record.status),
        ("Result", g.write_ints(result.scores if result else None)),
        ("Winners", g.write_ints(result.winners if result else None)),
        ("How", result.how[: g.MAX_TEXT] if result else g.NONE),
        ("Moves", str(len(record.moves))),
        ("Language", language),
    ]
    return [g.header_line(key, value) for key, value in pairs]


def _body(replayed: Replayed, with_calls: bool) -> list[str]:
    """The moves grouped by hand: ``Hand n``, then each step's moves with the calls they made. A hand's
    heading comes after the move that dealt it (that move's calls end the hand before)."""
    moves, steps = replayed.record.moves, replayed.replay.steps
    lines = ["Hand 1"]
    for index, step in enumerate(steps):
        if index:
            lines += [f"{seq}. {moves[seq - 1]}" for seq in range(step.first, step.last + 1)]
        if with_calls:
            lines += [f"; {line}" for line in calls(replayed, index)]
        if index and step.deals:
            lines += ["", f"Hand {step.hand}"]
    told = steps[-1].last  # a live game's unfinished turn: its moves, not yet told
    lines += [f"{seq}. {moves[seq - 1]}" for seq in range(told + 1, len(moves) + 1)]
    return lines


# ---------------------------------------------------------------- reading


def decode(data: bytes | str) -> RecordFile:
    """A record read back from its text, or :class:`RecordError` saying where it breaks the grammar: size
    and line limits, the headers (``Format`` first, each once, none unknown, every required one), their
    values, then the body (hand headings and move numbers in order, comments). The moves are not played
    here: :func:`replay_record` does that."""
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
