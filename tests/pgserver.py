"""A throwaway PostgreSQL server for the tests and the benchmarks: ``initdb`` into a temporary folder, then
``postgres`` on a free 127.0.0.1 port, with settings for speed, not durability (fsync off).

The login is real: user ``tavern`` with a password, checked by scram-sha-256, so a test can be refused.
PostgreSQL refuses to run as root; as root, the server runs as the ``postgres`` user the Debian package
creates. It needs the PostgreSQL server binaries (``initdb``, ``postgres``) in PATH or in
/usr/lib/postgresql/*/bin: see the README's "Tests" section (``apt-get install postgresql``).

``python -m tests.pgserver`` starts one and prints its address until Ctrl-C.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import glob
import itertools
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

START_TIMEOUT = 30.0


class PostgresNotFound(RuntimeError):
    pass


def find_bin_dir() -> Path:
    """The folder of ``initdb`` and ``postgres``: from PATH, else the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("postgres"):
        return Path(os.path.realpath(found)).parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2].split(".")[0])
    )
    for folder in reversed(candidates):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "postgres").exists():
            return Path(folder)
    raise PostgresNotFound(
        "No PostgreSQL server binaries (initdb, postgres) in PATH or /usr/lib/postgresql/*/bin: the store's "
        "tests need them; install them as the README's Tests section says (apt-get install postgresql)."
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One PostgreSQL server in a temporary folder. ``start()`` (initdb the first time), ``stop()``,
    ``restart()`` (same port, same data), ``url(database)``, ``new_database()``; ``close()`` stops it and
    deletes the folder. Also a context manager."""

    def __init__(self, *, user: str = "tavern", password: str | None = None) -> None:
        self.bin_dir = find_bin_dir()
        self.user = user
        self.password = password or "pw-" + secrets.token_hex(8)
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="tavern-pg-"))
        self.data = self.root / "data"
        self.log_path = self.root / "postgres.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._initialized = False
        self._names = itertools.count(1)
        self._run_as: str | None = None
        if os.geteuid() == 0:  # postgres refuses root: run it as the package's own user
            try:
                pwd.getpwnam("postgres")
            except KeyError as err:
                raise PostgresNotFound(
                    "Running as root, the tests run PostgreSQL as the user 'postgres', which does not exist: "
                    "install the postgresql package (it creates the user) or run the tests as another user."
                ) from err
            self._run_as = "postgres"
            shutil.chown(self.root, "postgres", "postgres")
        atexit.register(self.close)

    # ------------------------------------------------------------------ lifecycle

    def _popen(self, args: list[str], **kw: Any) -> subprocess.Popen[bytes]:
        extra: dict[str, Any] = {}
        if self._run_as is not None:
            extra = {"user": self._run_as, "group": self._run_as, "extra_groups": []}
        return subprocess.Popen(args, cwd=self.root, **extra, **kw)

    def _initdb(self) -> None:
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n")
        if self._run_as is not None:
            shutil.chown(pwfile, self._run_as, self._run_as)
        with open(self.root / "initdb.log", "wb") as log:
            proc = self._popen(
                [
                    str(self.bin_dir / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    self.user,
                    f"--pwfile={pwfile}",
                    "--auth-host=scram-sha-256",
                    "--auth-local=scram-sha-256",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--no-sync",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            code = proc.wait(timeout=120)
        pwfile.unlink()
        if code != 0:
            raise RuntimeError(f"initdb failed:\n{(self.root / 'initdb.log').read_text()}")
        self._initialized = True

    def start(self) -> None:
        """Start the server (initializing its folder the first time) and wait until it takes logins."""
        if self.process is not None and self.process.poll() is None:
            return
        if not self._initialized:
            self._initdb()
        settings = {
            "listen_addresses": "127.0.0.1",
            "port": str(self.port),
            "unix_socket_directories": str(self.root),
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "300",
            "shared_buffers": "32MB",
        }
        args = [str(self.bin_dir / "postgres"), "-D", str(self.data)]
        for key, value in settings.items():
            args += ["-c", f"{key}={value}"]
        with open(self.log_path, "ab") as log:
            self.process = self._popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"postgres exited at start:\n{self.log_path.read_text()[-3000:]}")
            if self._accepts_logins():
                return
            time.sleep(0.05)
        raise RuntimeError(
            f"postgres did not start in {START_TIMEOUT}s:\n{self.log_path.read_text()[-3000:]}"
        )

    def _accepts_logins(self) -> bool:
        try:
            self._run(self._probe())
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            return False
        return True

    async def _probe(self) -> None:
        conn = await asyncpg.connect(self.url("postgres"), timeout=2)
        await conn.close()

    def stop(self) -> None:
        """Stop the server (a fast shutdown: sessions are ended, committed data stays)."""
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def restart(self) -> None:
        """Stop and start again on the same port with the same data: every open session is lost."""
        self.stop()
        self.start()

    def close(self) -> None:
        """Stop the server and delete its folder; harmless twice."""
        with contextlib.suppress(Exception):
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ databases

    def url(self, database: str = "postgres", *, password: str | None = None) -> str:
        secret = self.password if password is None else password
        return f"postgresql://{self.user}:{secret}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create a fresh empty database; its URL. (Synchronous: usable from any test or script.)"""
        name = f"t{os.getpid()}_{next(self._names)}"
        self.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def execute(self, sql: str, database: str = "postgres") -> None:
        """Run one statement as the server's user (e.g. ``SELECT pg_terminate_backend(...)``)."""
        self._run(self._execute(sql, database))

    async def _execute(self, sql: str, database: str) -> None:
        conn = await asyncpg.connect(self.url(database), timeout=10)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    @staticmethod
    def _run(coro: Any) -> Any:
        """Run a coroutine to the end in a thread of its own (the caller may be inside an event loop)."""
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, coro).result()


def main() -> None:
    with PostgresServer() as server:
        print(server.url(), flush=True)
        print(f"(data in {server.root}; Ctrl-C stops it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while server.process is not None and server.process.poll() is None:
                time.sleep(1)


if __name__ == "__main__":
    main()
