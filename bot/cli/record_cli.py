"""``python -m bot export GAME_ID [--out FILE]`` and ``python -m bot replay FILE``: a game's record
(``bot.services.game_record``, ``docs/RECORD.md``) written from the store, and read back in the terminal.

``export`` reads the database the bot is configured with (``TAVERN_DB_PATH`` or ``TAVERN_DATABASE_URL``, as
``python -m bot backup`` finds it; no token needed) and writes the record to FILE (a new file: an export never
replaces one) or to standard output. It is the operator's tool, so any game may be exported, a live one too.

``replay`` reads a record (refusing anything malformed, whoever wrote it: ``bot.services.record_reader``),
replays its moves and checks that they end the game as the record says, then tells the game step by step as
its table did: each step's moves, the calls and, when it changed, the score. At a terminal it waits after
each step (Enter: next step, ``h``: next hand, ``q``: quit); piped, it prints the whole game.
``--language it`` speaks Italian, as ``play`` does.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from babel.dates import format_datetime

from bot.base.i18n import ENGLISH, LANGUAGES, both, current, speaking, t, tn
from bot.cli.play import language_of
from bot.cli.play_menu import words_for
from bot.games import GAMES
from bot.services import record_grammar as g
from bot.services.game_record import (
    RANDOM_SEED,
    RecordError,
    Replayed,
    calls,
    encode,
    record_of,
    replay_record,
)
from bot.services.record_reader import decode
from bot.settings import SettingsError, load_database
from bot.store import StoreOpenError, open_store

EXPORT = "python -m bot export"  # i18n: not text
REPLAY = "python -m bot replay"  # i18n: not text


def _language(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--language", choices=LANGUAGES, default=ENGLISH, help=t("record.cli.language"))


# ---------------------------------------------------------------- export


def export_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=EXPORT, description=t("record.cli.export.description"))
    parser.add_argument("game_id", type=int, metavar="GAME_ID", help=t("record.cli.export.game"))
    parser.add_argument("--out", metavar="FILE", help=t("record.cli.export.out"))
    _language(parser)
    return parser


async def stored_record(location: str | Path, game_id: int) -> str | None:
    """The record of game ``game_id`` in the store at ``location``, or None if there is no such game."""
    store = await open_store(location, pool_size=1)
    try:
        game = await store.load_game(game_id) if 0 < game_id < 2**63 else None
    finally:
        await store.close()
    if game is None or game.game not in GAMES:
        return None
    return encode(record_of(game))


def export_main(argv: Sequence[str]) -> int:
    """0: written; 1: no such game, or it could not be written; 2: the configuration; 3: the database."""
    with speaking(language_of(argv)):
        args = export_parser().parse_args(argv)
        try:
            db_path, url = load_database()
        except SettingsError as err:
            return _fail(t("record.cli.config", reason=str(err)), 2)
        if url is None and not db_path.is_file():
            return _fail(t("record.cli.no-database", path=str(db_path)), 2)
        try:
            text = asyncio.run(stored_record(url or db_path, args.game_id))
        except StoreOpenError as err:
            return _fail(t("record.cli.store", reason=str(err)), 3)
        except RecordError as err:
            return _fail(t("record.cli.not-written", id=args.game_id, reason=str(err)), 1)
        if text is None:
            return _fail(t("record.cli.no-game", id=args.game_id), 1)
        if args.out is None:
            sys.stdout.write(text)
            return 0
        out = Path(args.out).expanduser()
        try:
            with out.open("x", encoding="utf-8", newline="\n") as f:
                f.write(text)
        except FileExistsError:
            return _fail(t("record.cli.exists", path=str(out)), 1)
        except OSError as err:
            return _fail(t("record.cli.unwritable", path=str(out), reason=err.strerror or str(err)), 1)
        print(t("record.cli.written", id=args.game_id, path=str(out)))
        return 0


def _fail(text: str, code: int) -> int:
    print(text, file=sys.stderr)
    return code


# ---------------------------------------------------------------- replay


def replay_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=REPLAY, description=t("record.cli.replay.description"))
    parser.add_argument("file", metavar="FILE", help=t("record.cli.replay.file"))
    _language(parser)
    return parser


def read_limited(path: Path) -> bytes:
    """At most one byte past the format's limit (so a huge file, or a device, is refused by its size)."""
    with path.open("rb") as f:
        return f.read(g.MAX_BYTES + 1)


def replay_main(argv: Sequence[str], stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """0: replayed (or quit); 1: the file could not be read, or is no record that reproduces."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(errors="replace")  # a terminal that can't show the suit emoji gets "?"
    with speaking(language_of(argv)):
        args = replay_parser().parse_args(argv)
        try:
            replayed = replay_record(decode(read_limited(Path(args.file))))
        except OSError as err:
            return _fail(t("record.cli.unreadable", path=args.file, reason=err.strerror or str(err)), 1)
        except RecordError as err:
            return _fail(t("record.cli.refused", reason=str(err)), 1)
        interactive = stdin.isatty() and stdout.isatty()
        Viewer(replayed, stdin, stdout, interactive=interactive).run()
        return 0


class Viewer:
    """A replayed record told in the terminal, step by step."""

    def __init__(self, replayed: Replayed, stdin: TextIO, stdout: TextIO, *, interactive: bool) -> None:
        self.replayed, self.stdin, self.stdout, self.interactive = replayed, stdin, stdout, interactive
        table = replayed.replay.table
        self.names = [g.readable(n) for n in table.names]
        self.score = ""
        self.next_words = words_for("h hand", t("record.replay.words.hand"))  # i18n: not text
        self.quit_words = words_for("q quit exit", t("record.replay.words.quit"))  # i18n: not text

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout)

    def run(self) -> None:
        self.header()
        replayed, steps = self.replayed, self.replayed.replay.steps
        skipping = False
        for index, step in enumerate(steps):
            last = index == len(steps) - 1
            if skipping and not step.deals and not last:
                continue
            skipping = False
            self.step(index)
            if last or not self.interactive:
                continue
            answer = self.ask()
            if answer in self.quit_words:
                return
            skipping = answer in self.next_words
        self.end(replayed)

    def header(self) -> None:
        record, table = self.replayed.record, self.replayed.replay.table
        adapter = table.adapter
        self.say(t("record.replay.title", game=adapter.title, options=adapter.options_text(table.options)))
        self.say(t("record.replay.players", players=both(self.names)))
        if record.game_id is not None:
            self.say(t("record.replay.game-id", id=record.game_id))
        when = datetime.fromtimestamp(record.started, UTC)
        date = format_datetime(when, format="medium", tzinfo=UTC, locale=current())
        random = record.seed_policy == RANDOM_SEED
        policy = t("record.replay.seed-random") if random else t("record.replay.seed-chosen")
        self.say(t("record.replay.started", date=date, seed=record.seed, policy=policy))
        if record.status == "abandoned":
            self.say(t("record.replay.abandoned"))
        elif record.status == "active":
            self.say(t("record.replay.live"))
        if self.interactive:
            self.say(t("record.replay.keys"))

    def step(self, index: int) -> None:
        """One step: its moves, the calls, the score if it changed, and the next hand's heading."""
        replay, moves = self.replayed.replay, self.replayed.record.moves
        step = replay.steps[index]
        if index == 0:
            self.say("")
            self.say(t("record.replay.hand", hand=1))
        for seq in range(step.first, step.last + 1) if index else ():
            self.say(f"#{seq} {moves[seq - 1]}")
        for line in calls(self.replayed, index):
            self.say(f"  {line}")
        score = " ".join(g.plain(replay.table.adapter.score_line(replay.at(index)), lambda _: "?"))
        if score != self.score:
            self.score = score
            self.say(t("record.replay.score", score=score))
        if index and step.deals and index < len(replay.steps) - 1:
            self.say("")
            self.say(t("record.replay.hand", hand=step.hand))

    def ask(self) -> str:
        print(t("record.replay.prompt"), end=" ", file=self.stdout, flush=True)
        line = self.stdin.readline()
        if not line:
            print(file=self.stdout)
            return self.quit_words[0]
        return line.strip().lower()

    def end(self, replayed: Replayed) -> None:
        outcome = replayed.outcome
        self.say("")
        if outcome is None:
            self.say(tn("record.replay.not-over", len(replayed.record.moves)))
            return
        scores = ", ".join(f"{n} {s}" for n, s in zip(self.names, outcome.scores, strict=True))
        winners = both(self.names[w] for w in outcome.winners)
        self.say(tn("record.replay.final", len(outcome.winners), scores=scores, winners=winners))
        if replayed.record.result is not None:
            self.say(t("record.replay.reproduced"))
