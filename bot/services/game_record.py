"""A game record: one game as a versioned, human-readable text file (``docs/RECORD.md`` is the spec).

PGN-like ``[Key "value"]`` headers (the format and its version, the game, its options, the seed and how it
was chosen, the seats, the dates, the result), then the moves hand by hand, one numbered line each in the
engine's own log text, with what the table told the channel as ``;`` comment lines. A game is fully
determined by its seed, players, options and moves, so those replay it (:func:`replay_record`, which also
checks that the replay ends as the record says); the names, dates and calls are for people, and a comment can
change nothing.

Pure: no Discord, no store calls. :func:`record_of` reads a stored game (``bot.store.records.GameRecord``);
:func:`encode` writes a record in the language in force, walking the game with ``bot.services.replay``. A
record file is read back, as the hostile input it is, by ``bot.services.record_reader``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.ai import Level
from bot.base import safe
from bot.base.i18n import ENGLISH, LANGUAGES, current, t
from bot.games import GAMES, Seat, Table
from bot.games.seats import bot_id, is_bot, level_of
from bot.render.refusals import said
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
    "encode",
    "record_of",
    "replay_record",
]

VERSION = 1  # bumped whenever the grammar or the meaning of a header changes; a reader refuses other versions
RANDOM_SEED = "random, recorded"  # i18n: not text (the bot's tables: 63 random bits, kept with the game)
CHOSEN_SEED = "chosen"  # i18n: not text (set by whoever made the game: a test, ``play --seed``)
STATUSES = ("finished", "abandoned", "active")


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
