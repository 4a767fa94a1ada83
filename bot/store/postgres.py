"""``PostgresStore``: the ``Store`` on a PostgreSQL server, which any number of bot processes may share.

The SQL is the mixins' own (games, lobbies, stats, config), written once with ``?`` placeholders; here they
become ``$1 …`` (``to_dollar``). Connections come from an asyncpg pool: a write is one READ COMMITTED
transaction, a read of several rows one REPEATABLE READ READ ONLY transaction (one snapshot).

Across processes:

- ``create_game`` takes a transaction-level advisory lock before its checks, so two processes can never seat
  one player twice (SQLite's BEGIN IMMEDIATE does the same for one file).
- ``table_lock(game_id)`` holds a session-level advisory lock for a whole move, taken with
  ``pg_try_advisory_lock`` (retried with a short backoff while another process holds it) on one connection of
  the store's own that holds all of this process's table locks. A held lock ties up no pool connection: the
  move's reads and writes are short pool transactions, so any number of moves in flight (each announcing,
  drawing, waiting on Discord) never exhaust the pool. If that connection dies its locks go with it; the
  actions' primary key (game, seq) still refuses a second writer (``ActionConflict``).
- ``watch``: a trigger (migration 8) notifies the channel ``tavern_games`` of every write to a game, with the
  writer's token (each store sets ``tavern.writer`` on its connections); a dedicated listening connection
  tells the bot about the other processes' writes, reconnects in the background when lost, and then says
  that news may have been missed (``changed(None, False)``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.base import ratings as rt
from bot.base.locks import KeyedLocks
from bot.settings import is_postgres_url
from bot.store import schema
from bot.store._base import Conn, Params, Row
from bot.store.config import ConfigMixin
from bot.store.forget import ForgetMixin
from bot.store.games import GamesMixin
from bot.store.lobbies import LobbiesMixin
from bot.store.profiles import ProfilesMixin
from bot.store.records import StoreOpenError
from bot.store.stats import StatsMixin
from bot.store.tournaments import TournamentsMixin

if TYPE_CHECKING:
    from bot.store.interface import Store

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 10.0  # seconds to reach the server and log in
ACQUIRE_TIMEOUT = 10.0  # seconds to wait for a free pool connection
CHANNEL = "tavern_games"  # where the trigger of migration 8 tells of writes to games
TABLE_LOCKS = 1  # advisory lock class of table_lock: (1, game id mod 2**31)
SEATING_LOCK = (2, 0)  # the transaction lock create_game holds while seating
RECONNECT_DELAYS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0)  # the listener's backoff, the last one repeating
LOCK_WAIT = 30.0  # seconds a move waits for a table lock another process holds before giving up
LOCK_RETRY = (0.002, 0.05)  # the first and the longest pause between two tries of a held table lock

Changed = Callable[[int | None, bool], None]
AnyConnection = asyncpg.Connection | PoolConnectionProxy  # a pool's connections come wrapped


def redacted(url: str) -> str:
    """The URL with its password (in the address or as a ``password=`` parameter) replaced by ``***``."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:
            user, _, host = netloc.rpartition("@")
            netloc = f"{user.partition(':')[0]}:***@{host}"
        query = urlencode(
            [(k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)],
            safe="*",
        )
        return urlunsplit(parts._replace(netloc=netloc, query=query))
    except ValueError:
        return "(a malformed database URL)"


@functools.lru_cache(maxsize=4096)
def to_dollar(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2 …`` (not inside quoted literals or names)."""
    out: list[str] = []
    n = 0
    quote = ""
    for ch in sql:
        if quote:
            if ch == quote:  # a doubled quote closes and reopens: the same either way
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            n += 1
            out.append(f"${n}")
            continue
        out.append(ch)
    return "".join(out)


def _count(status: str) -> int:
    """The rows a command changed, from its status ("UPDATE 1", "INSERT 0 1")."""
    last = status.rpartition(" ")[2]
    return int(last) if last.isdigit() else 0


class PgConn:
    """``Conn`` on one asyncpg connection."""

    def __init__(self, conn: AnyConnection) -> None:
        self.conn = conn

    async def fetch(self, sql: str, params: Params = ()) -> list[Row]:
        return list(await self.conn.fetch(to_dollar(sql), *params))

    async def fetchrow(self, sql: str, params: Params = ()) -> Row | None:
        row: Row | None = await self.conn.fetchrow(to_dollar(sql), *params)
        return row

    async def execute(self, sql: str, params: Params = ()) -> int:
        return _count(await self.conn.execute(to_dollar(sql), *params))

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        await self.conn.executemany(to_dollar(sql), [tuple(r) for r in rows])


def explain_open_error(err: BaseException, url: str) -> StoreOpenError | None:
    """One sentence for an operator, never with the password; None for an error that is none of these."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    try:
        port = parts.port or 5432
    except ValueError:
        port = 5432
    where = f"{host}:{port}"
    user = unquote(parts.username or "") or "(default user)"
    database = unquote(parts.path.lstrip("/")) or user
    if isinstance(err, asyncpg.InvalidCatalogNameError):
        return StoreOpenError(
            f"PostgreSQL at {where} has no database named '{database}': create it (createdb {database}) or "
            "correct the database name in TAVERN_DATABASE_URL."
        )
    if isinstance(err, asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError):
        return StoreOpenError(
            f"PostgreSQL at {where} refused the login of user '{user}' (wrong password, or no such user): "
            "check the user and password in TAVERN_DATABASE_URL."
        )
    if isinstance(err, OSError | TimeoutError | asyncpg.CannotConnectNowError):
        why = "no answer in time" if isinstance(err, TimeoutError) else err.__class__.__name__
        return StoreOpenError(
            f"Cannot reach PostgreSQL at {where} ({why}): check that PostgreSQL runs there and accepts "
            "connections, and that TAVERN_DATABASE_URL names it."
        )
    if isinstance(err, ValueError | asyncpg.ClientConfigurationError):
        return StoreOpenError(_malformed())
    return None


def _malformed() -> str:
    return (
        "TAVERN_DATABASE_URL is not a valid PostgreSQL address: write it as "
        "postgresql://user:password@host:port/database."
    )


class PostgresStore(
    GamesMixin, LobbiesMixin, StatsMixin, ProfilesMixin, ConfigMixin, ForgetMixin, TournamentsMixin
):
    """Async PostgreSQL store. Create with ``await PostgresStore.open(url)``."""

    shared = True  # other processes write it too: cached games must be checked before use
    _unique_errors = (asyncpg.UniqueViolationError,)

    def __init__(self, pool: asyncpg.Pool, url: str, token: str, rating_systems: dict[str, rt.RatingSystem]):
        self.pool = pool
        self.url = url
        self.rating_systems = rating_systems
        self.write_transactions = 0  # committed write transactions, for the benchmarks
        self._token = token  # this store's tavern.writer: its own writes are no news to it
        self._closed = False
        self._watchers: list[Changed] = []
        self._listener: asyncpg.Connection | None = None
        self._reconnecting: asyncio.Task[None] | None = None
        self._locker: asyncpg.Connection | None = None  # holds this process's table locks
        self._locker_busy = asyncio.Lock()  # one statement at a time on it
        self._local = KeyedLocks()  # one holder per table in this process

    # ---------------------------------------------------------------- lifecycle

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        pool_size: int = 10,
        rating_systems: Mapping[str, rt.RatingSystem] | None = None,
        migrate_to: int | None = None,
    ) -> PostgresStore:
        """Connect (a pool of up to ``pool_size`` connections) and migrate to the latest schema; a server
        that can't be reached or refuses raises ``StoreOpenError``. ``migrate_to`` stops at an older version
        (for tests)."""
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018  (a port that is no number raises here)
        except ValueError:
            raise StoreOpenError(_malformed()) from None
        if not is_postgres_url(url):
            raise StoreOpenError(_malformed())
        token = secrets.token_hex(8)
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=pool_size,
                timeout=CONNECT_TIMEOUT,
                server_settings={"tavern.writer": token, "application_name": "decktet-tavern"},
            )
        except Exception as err:
            explained = explain_open_error(err, url)
            if explained is None:
                raise
            raise explained from None  # the driver's own text may quote the address
        systems = dict(rt.DEFAULT_SYSTEMS)
        systems.update(rating_systems or {})
        store = cls(pool, url, token, systems)
        try:
            async with pool.acquire(timeout=ACQUIRE_TIMEOUT) as conn:
                target = schema.LATEST_VERSION if migrate_to is None else migrate_to
                await schema.migrate_postgres(conn, target, name=f"database {redacted(url)}")
        except BaseException:
            pool.terminate()
            raise
        return store

    @staticmethod
    async def version_at(url: str) -> int:
        """The schema version of the database at ``url``, read without writing anything (``python -m bot
        check``); 0 for an empty database. ``StoreOpenError`` (one sentence, no password) when it can't be
        reached."""
        try:
            conn = await asyncpg.connect(url, timeout=CONNECT_TIMEOUT)
        except Exception as err:
            explained = explain_open_error(err, url)
            if explained is None:
                raise
            raise explained from None
        try:
            exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
            if not exists:
                return 0
            return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))
        finally:
            await conn.close()

    async def close(self) -> None:
        """Stop listening and close the pool; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reconnecting
        for side in (self._listener, self._locker):
            if side is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(side.close(), 5)
                side.terminate()
        self._listener = self._locker = None
        try:
            await asyncio.wait_for(self.pool.close(), 10)
        except (TimeoutError, Exception):
            self.pool.terminate()

    # ---------------------------------------------------------------- across processes

    @asynccontextmanager
    async def table_lock(self, game_id: int) -> AsyncIterator[int | None]:
        """Hold the game's advisory lock for a whole move and yield its stored version, read once the lock is
        held (None for an unknown game); see the module doc. Waiting longer than ``LOCK_WAIT`` raises."""
        key = game_id % 2**31
        async with self._local(key):
            held_on = await self._take(game_id, key)
            try:
                row = await self._one("SELECT version FROM games WHERE id = ?", (game_id,))
                yield None if row is None else int(row["version"])
            finally:
                await self._give_back(held_on, key)

    async def _take(self, game_id: int, key: int) -> asyncpg.Connection:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LOCK_WAIT
        pause = LOCK_RETRY[0]
        while True:
            async with self._locker_busy:
                if self._locker is None or self._locker.is_closed():
                    self._locker = await self._own_connection("locks")
                conn = self._locker
                if await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", TABLE_LOCKS, key):
                    return conn
            if loop.time() > deadline:
                raise TimeoutError(f"game {game_id}'s lock stayed held by another process")
            await asyncio.sleep(pause)
            pause = min(pause * 2, LOCK_RETRY[1])

    async def _give_back(self, conn: asyncpg.Connection, key: int) -> None:
        async with self._locker_busy:
            if conn is not self._locker or conn.is_closed():
                return  # that connection is gone, and its locks with it
            try:
                await asyncio.wait_for(
                    conn.execute("SELECT pg_advisory_unlock($1, $2)", TABLE_LOCKS, key), ACQUIRE_TIMEOUT
                )
            except Exception as err:  # the session is gone or stuck: end it, and its locks go too
                log.warning("Could not release a table lock (%s); dropping the locks' connection", err)
                conn.terminate()
                self._locker = None

    async def watch(self, changed: Changed) -> None:
        """Listen (on a connection of its own) for other processes' writes to games; see the module doc."""
        self._watchers.append(changed)
        if self._listener is None and self._reconnecting is None:
            await self._listen()

    async def _own_connection(self, role: str) -> asyncpg.Connection:
        """A connection outside the pool (the listener's, the table locks'), writing as this store."""
        return await asyncpg.connect(
            self.url,
            timeout=CONNECT_TIMEOUT,
            server_settings={"tavern.writer": self._token, "application_name": f"decktet-tavern-{role}"},
        )

    async def _listen(self) -> None:
        conn = await self._own_connection("listener")
        try:
            await conn.add_listener(CHANNEL, self._notified)
        except BaseException:
            conn.terminate()
            raise
        conn.add_termination_listener(self._lost)
        if self._closed:
            conn.terminate()
            return
        self._listener = conn

    def _notified(self, conn: object, pid: int, channel: str, payload: object) -> None:
        try:
            game, status, writer = str(payload).split(":", 2)
            if writer == self._token:
                return
            self._tell(int(game), status != "active")
        except Exception:
            log.warning("Unreadable news of a game write: %r", payload, exc_info=True)

    def _tell(self, game_id: int | None, closed: bool) -> None:
        for changed in list(self._watchers):
            try:
                changed(game_id, closed)
            except Exception:
                log.warning("Telling of a write to game %s failed", game_id, exc_info=True)

    def _lost(self, conn: object) -> None:
        if self._closed or conn is not self._listener:
            return
        self._listener = None
        log.warning("Lost the connection that listens for other processes' writes; reconnecting")
        self._reconnecting = asyncio.get_running_loop().create_task(
            self._reconnect(), name="tavern-pg-listen"
        )

    async def _reconnect(self) -> None:
        attempt = 0
        try:
            while not self._closed:
                await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
                attempt += 1
                try:
                    await self._listen()
                except Exception as err:
                    if attempt in (1, 10) or attempt % 60 == 0:
                        log.warning("Listening again for other processes' writes failed (%s); retrying", err)
                    continue
                log.info("Listening again for other processes' writes")
                self._reconnecting = None
                self._tell(None, False)  # whatever was written meanwhile went untold
                return
        finally:
            if self._reconnecting is asyncio.current_task():
                self._reconnecting = None

    # ---------------------------------------------------------------- plumbing

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[PoolConnectionProxy]:
        async with self.pool.acquire(timeout=ACQUIRE_TIMEOUT) as conn:
            yield conn

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Conn]:
        async with self._connection() as conn:
            async with conn.transaction(isolation="read_committed"):
                yield PgConn(conn)
            self.write_transactions += 1

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Conn]:
        async with self._connection() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            yield PgConn(conn)

    async def _all(self, sql: str, params: Params = ()) -> list[Row]:
        async with self._connection() as conn:
            return await PgConn(conn).fetch(sql, params)

    async def _one(self, sql: str, params: Params = ()) -> Row | None:
        async with self._connection() as conn:
            return await PgConn(conn).fetchrow(sql, params)

    async def _serialize_seating(self, db: Conn) -> None:
        await db.execute("SELECT pg_advisory_xact_lock(?, ?)", SEATING_LOCK)


if TYPE_CHECKING:

    def _implements_store(s: PostgresStore) -> Store:
        return s

    def _implements_conn(c: PgConn) -> Conn:
        return c
