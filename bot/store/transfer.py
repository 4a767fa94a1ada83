"""A SQLite database moved into an empty PostgreSQL one (``python -m bot migrate-to``), ids kept, verified.

An operator who outgrows one process keeps every game, rating and setting: every table the schema has
(games, seats, actions, snapshots, results, ratings, seasons, lobbies, tournaments, settings,
preferences…) is copied row for row, ids included, and the identity sequences are set past the highest id
(and past SQLite's AUTOINCREMENT counter, which never gives an id twice), so the PostgreSQL bots carry on
where the SQLite bot stopped: live games resume from their log and snapshot.

The source is read from a consistent copy taken with SQLite's online backup API (``bot.store.copies``), so
it may be the running bot's database; moves made after the copy began are not in it. The copy is migrated to
this code's schema first. The target must be empty: any row in a table of the bot's (but ``bot_state``,
bot-wide values a start writes, which the source's replace) refuses the move before anything is written.
Everything is written in one transaction; then, still inside it, each table is read back and its row count
and digest compared with the source's. Only an exact match commits: on any difference, or any error, the
transaction rolls back and the target is as empty as it was.

The digest of a table is the sum, modulo 2**256, of the SHA-256 of each row, its values in the target's
column types (a SQLite integer in a ``REAL`` column is that float; a float by its exact hex): independent of
the order rows come in: the source's as its rows are sent, the target's as they are read back.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

from bot.store import schema
from bot.store.copies import scratch, snapshot
from bot.store.postgres import CONNECT_TIMEOUT, explain_open_error, redacted
from bot.store.records import StoreOpenError
from bot.store.sqlite import SQLiteStore

SKIPPED = frozenset({"schema_version", "sqlite_sequence"})  # each database keeps its own
REPLACED = frozenset(
    {"bot_state"}
)  # bot-wide values a start writes (a command sync's hash): the source's win
BATCH = 5_000  # rows read and written at a time
Convert = Callable[[Any], Any]


class TransferError(Exception):
    """Nothing was moved; ``str(err)`` says why in a sentence (never with a password)."""


@dataclass(frozen=True)
class Tally:
    """One table as copied: its rows, and its digest on both sides (equal when verified)."""

    table: str
    rows: int
    digest: str


@dataclass(frozen=True)
class Moved:
    """A move that committed: every table's tally, the games, and how long it took."""

    tables: tuple[Tally, ...]
    games: int
    active: int
    seconds: float

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)

    def count(self, table: str) -> int:
        return next((t.rows for t in self.tables if t.table == table), 0)


async def move(source: Path, url: str, *, clock: Callable[[], float] = time.perf_counter) -> Moved:
    """Copy the SQLite database ``source`` into the empty PostgreSQL database at ``url`` and verify it;
    ``TransferError`` when it was not done (and then nothing was written)."""
    started = clock()
    if not source.is_file():
        raise TransferError(f"there is no database at {source} (TAVERN_DB_PATH): nothing to move.")
    with scratch(source.parent) as folder:
        copy = Path(folder) / "source.sqlite3"
        try:
            snapshot(source, copy)
            await (await SQLiteStore.open(copy)).close()  # the copy at this code's schema
        except (sqlite3.Error, StoreOpenError) as err:
            raise TransferError(f"could not read {source}: {err}.") from None
        src = sqlite3.connect(copy)
        try:
            conn = await _connect(url)
            try:
                tables = _tables_in_order(src)
                await _refuse_non_empty(conn, tables, url)
                await schema.migrate_postgres(conn, schema.LATEST_VERSION, name=redacted(url))
                tallies = await _copy_all(src, conn, tables)
            except StoreOpenError as err:  # a target a newer version of the bot migrated
                raise TransferError(str(err)) from None
            except asyncpg.PostgresError as err:  # refused by the server (rights, a lost connection…)
                raise TransferError(f"PostgreSQL refused ({err.__class__.__name__}: {err}).") from None
            finally:
                await conn.close()
            games, active = src.execute(
                "SELECT COUNT(*), COALESCE(SUM(status = 'active'), 0) FROM games"
            ).fetchone()
        finally:
            src.close()
    return Moved(tuple(tallies), int(games), int(active), clock() - started)


async def _connect(url: str) -> asyncpg.Connection:
    try:
        conn: asyncpg.Connection = await asyncpg.connect(url, timeout=CONNECT_TIMEOUT)
    except Exception as err:
        explained = explain_open_error(err, url)
        if explained is None:
            raise
        raise TransferError(str(explained)) from None
    return conn


def _tables_in_order(src: sqlite3.Connection) -> list[str]:
    """The source's tables, each after every table its foreign keys name."""
    names = [
        name
        for (name,) in src.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        if name not in SKIPPED
    ]
    needs = {n: {row[2] for row in src.execute(f'PRAGMA foreign_key_list("{n}")')} - {n} for n in names}
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and needs[n] <= set(ordered)]
        if not ready:
            raise TransferError(
                f"the tables {sorted(set(names) - set(ordered))} refer to each other in a circle."
            )
        ordered.extend(ready)
    return ordered


async def _refuse_non_empty(conn: asyncpg.Connection, tables: Iterable[str], url: str) -> None:
    """Refused when any of the bot's tables in the target has a row (``REPLACED`` aside)."""
    held: dict[str, int] = {}
    for table in tables:
        if table in REPLACED or not await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", table):
            continue
        rows = int(await conn.fetchval(f'SELECT COUNT(*) FROM "{table}"'))
        if rows:
            held[table] = rows
    if held:
        raise TransferError(
            f"{redacted(url)} is not empty ({held.get('games', 0):,} games; {sum(held.values()):,} rows in "
            f"{len(held)} tables): migrate-to copies only into an empty database. Create a new one "
            "(createdb) and name it instead; nothing was written."
        )


async def _copy_all(src: sqlite3.Connection, conn: asyncpg.Connection, tables: Sequence[str]) -> list[Tally]:
    """Every table copied, the sequences set, and each table read back and compared, in one transaction."""
    tallies: list[Tally] = []
    try:
        async with conn.transaction():
            for table in tables:
                columns = [row[1] for row in src.execute(f'PRAGMA table_info("{table}")')]
                converts = await _converters(conn, table, columns)
                if table in REPLACED:
                    await conn.execute(f'DELETE FROM "{table}"')
                rows = src.execute(f'SELECT {_names(columns)} FROM "{table}"')
                wanted = Digest()  # the source's rows as sent, digested as they go
                while batch := rows.fetchmany(BATCH):
                    records = [tuple(f(v) for f, v in zip(converts, row, strict=True)) for row in batch]
                    for record in records:
                        wanted.add(record)
                    await conn.copy_records_to_table(table, records=records, columns=columns)
                await _set_sequences(src, conn, table)
                tallies.append(await _verify(conn, table, columns, wanted))
    except (asyncpg.PostgresError, ValueError, TypeError) as err:
        raise TransferError(
            f"the copy failed ({err.__class__.__name__}: {err}); nothing was written."
        ) from None
    return tallies


async def _converters(conn: asyncpg.Connection, table: str, columns: Sequence[str]) -> list[Convert]:
    """For each column, the value as the target's type wants it (and as the digest reads it)."""
    types = {
        r["column_name"]: r["data_type"]
        for r in await conn.fetch(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = $1",
            table,
        )
    }
    missing = [c for c in columns if c not in types]
    if missing:
        raise TransferError(f"the target's {table} has no column {', '.join(missing)}: its schema differs.")
    return [_CONVERT.get(types[c], _same) for c in columns]


def _same(value: Any) -> Any:
    return value


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"{value!r} is no whole number")
    return int(value)


def _bytes(value: Any) -> bytes | None:
    return None if value is None else bytes(value)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise ValueError(f"{value!r} is no text")


_CONVERT: dict[str, Convert] = {
    "bigint": _int,
    "integer": _int,
    "smallint": _int,
    "double precision": _float,
    "real": _float,
    "text": _text,
    "bytea": _bytes,
}


async def _set_sequences(src: sqlite3.Connection, conn: asyncpg.Connection, table: str) -> None:
    """An identity column's sequence past the highest id, and past SQLite's AUTOINCREMENT counter."""
    for record in await conn.fetch(
        "SELECT column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = $1 AND is_identity = 'YES'",
        table,
    ):
        column = record["column_name"]
        (highest,) = src.execute(f'SELECT COALESCE(MAX("{column}"), 0) FROM "{table}"').fetchone()
        counter = src.execute("SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = ?", (table,))
        last = max(int(highest), int(counter.fetchone()[0]))
        if last >= 1:
            await conn.execute("SELECT setval(pg_get_serial_sequence($1, $2), $3, true)", table, column, last)


async def _verify(conn: asyncpg.Connection, table: str, columns: Sequence[str], wanted: Digest) -> Tally:
    """The table read back from the target (inside the transaction) against the source's rows and digest."""
    got = Digest()
    async for record in conn.cursor(f'SELECT {_names(columns)} FROM "{table}"', prefetch=BATCH):
        got.add(list(record))
    if (wanted.rows, wanted.hex) != (got.rows, got.hex):
        raise TransferError(
            f"{table} differs after the copy ({wanted.rows} rows in SQLite, {got.rows} in PostgreSQL; "
            f"digests {wanted.hex[:16]} and {got.hex[:16]}); nothing was written."
        )
    return Tally(table, got.rows, got.hex)


def _names(columns: Iterable[str]) -> str:
    return ", ".join(f'"{c}"' for c in columns)


class Digest:
    """A table's rows summed as a multiset: the same whatever order they are read in."""

    MODULUS = 2**256

    def __init__(self) -> None:
        self.rows = 0
        self._sum = 0

    def add(self, row: Sequence[Any]) -> None:
        text = json.dumps([_canonical(v) for v in row], separators=(",", ":"), ensure_ascii=False)
        self._sum = (self._sum + int.from_bytes(hashlib.sha256(text.encode()).digest(), "big")) % self.MODULUS
        self.rows += 1

    @property
    def hex(self) -> str:
        return f"{self._sum:064x}"


def _canonical(value: Any) -> Any:
    """A value as both sides spell it: a float by its exact hex, bytes as hex (PostgreSQL reads BYTEA as
    bytes, SQLite BLOB as bytes too; memoryview and bytearray are the same bytes)."""
    if isinstance(value, float):
        return {"f": value.hex()}
    if isinstance(value, bytes | bytearray | memoryview):
        return {"b": bytes(value).hex()}
    return value


def summary(source: Path, url: str, moved: Moved) -> str:
    """The one line the command prints."""
    shown = ", ".join(
        f"{moved.count(name):,} {label}"
        for name, label in (("actions", "actions"), ("results", "results"), ("ratings", "ratings"))
    )
    return (
        f"Moved {source} to {redacted(url)} in {moved.seconds:.1f} s: {moved.games:,} games "
        f"({moved.active:,} active), {shown}; {moved.rows:,} rows in {len(moved.tables)} tables. Verified: "
        "every table's row count and digest equal in both."
    )
