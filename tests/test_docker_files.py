"""The deployment files, read without Docker: what the build context holds (.dockerignore), that the image
is the tests' Python pinned by digest and installs the bot once and runs the installed copy, that the compose
files build once, restart, rotate their logs, name no volume for the whole machine and hold no secret, that
the health check stays light and answers right, and that .env.example names every variable the bot reads.
(tests/test_compose.py reads the compose files with Docker Compose itself.)"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from bot.cli import healthcheck
from bot.services import health
from bot.settings import RETIRED_VARIABLES, health_path_from_env

REPO = Path(__file__).resolve().parents[1]
COMPOSE_FILES = {"default": REPO / "docker-compose.yml", "scale": REPO / "docker-compose.scale.yml"}


# ------------------------------------------------------------------------------------------ .dockerignore


def _glob(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker matches it (Go's filepath.Match, plus ``**`` for any folders)."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            i += 2
            if pattern.startswith("/", i):
                i += 1
                out += "(?:.*/)?"
            else:
                out += ".*"
            continue
        ch = pattern[i]
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "[":
            end = pattern.index("]", i)
            out += "[" + pattern[i + 1 : end].replace("!", "^", 1) + "]"
            i = end
        else:
            out += re.escape(ch)
        i += 1
    return re.compile(out + r"\Z")


def dockerignore() -> list[tuple[bool, re.Pattern[str]]]:
    rules = []
    for line in (REPO / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        exclude = not line.startswith("!")
        pattern = os.path.normpath(line.lstrip("!").lstrip("/"))
        rules.append((exclude, _glob(pattern)))
    return rules


def in_context(path: str) -> bool:
    """Whether ``docker build`` sends ``path`` (relative, with /): the last rule that matches it or one of
    its folders decides, as in Docker's pattern matcher."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    excluded = False
    for exclude, rule in dockerignore():
        if any(rule.match(p) for p in prefixes):
            excluded = exclude
    return not excluded


@pytest.mark.parametrize(
    "path",
    [
        ".venv/bin/python",
        ".venv/lib/python3.11/site-packages/discord/__init__.py",
        "data/tavern.sqlite3",
        "data/tavern.sqlite3-wal",
        "data/health.json",
        ".env",
        ".env.example",
        ".env.local",
        "bot/.env",
        "postgres.env",
        "secrets/discord_token",
        ".git/HEAD",
        ".git/objects/ab/cdef",
        "tests/test_deploy.py",
        "bench/bench_load.py",
        "docs/rules-bhargage.md",
        "deploy/postgres-init/10-tavern-role.sh",
        ".pytest_cache/v/cache/lastfailed",
        ".mypy_cache/3.11/bot/__init__.data.json",
        ".ruff_cache/CACHEDIR.TAG",
        ".hypothesis/examples/x",
        "bot/__pycache__/__main__.cpython-311.pyc",
        "bot/services/__pycache__/health.cpython-312.pyc",
        "cogs/__pycache__/general.cpython-311.pyc",
        "decktet_tavern.egg-info/PKG-INFO",
        "build/lib/bot/__init__.py",
        "docker-compose.yml",
        "a-new-file-with-secrets.txt",
    ],
)
def test_the_build_context_leaves_out(path: str) -> None:
    assert not in_context(path)


@pytest.mark.parametrize(
    "path",
    [
        "pyproject.toml",
        "README.md",
        "requirements.lock",
        "bot/__init__.py",
        "bot/__main__.py",
        "bot/cli/healthcheck.py",
        "bot/services/health.py",
        "bot/locales/en/tavern.po",
        "bot/pictures/fonts/DejaVuSans.ttf",
        "cogs/general.py",
    ],
)
def test_the_build_context_holds(path: str) -> None:
    assert in_context(path)


def test_every_package_file_is_in_the_build_context() -> None:
    """Nothing the wheel needs is left out: every file of bot/ and cogs/ but bytecode."""
    files = [
        p.relative_to(REPO).as_posix()
        for top in ("bot", "cogs")
        for p in (REPO / top).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    ]
    assert files and [f for f in files if not in_context(f)] == []


# ------------------------------------------------------------------------------------------- Dockerfile


def dockerfile_stages() -> list[list[str]]:
    """The Dockerfile's instructions (continuation lines joined, comments dropped), stage by stage."""
    text = re.sub(r"\\\n\s*", " ", (REPO / "Dockerfile").read_text())
    stages: list[list[str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.upper().startswith("FROM "):
            stages.append([])
        stages[-1].append(line)
    return stages


def test_the_image_installs_the_bot_once_and_runs_the_installed_copy() -> None:
    """Only the build stage copies the source; the image installs its wheel through a bind mount (no layer
    keeps it) and the hashed lock, runs as a user of its own, in a folder that holds no ``bot`` package
    (``python -m`` puts the working folder first on ``sys.path``), and checks itself with the light
    checker."""
    *build, image = dockerfile_stages()
    assert build, "the source is built into a wheel in a stage of its own"
    assert any(re.match(r"COPY\s+bot\b", line) for line in build[-1])
    assert not [line for line in image if line.startswith(("COPY", "ADD"))], "the image copies files in"
    runs = "\n".join(line for line in image if line.startswith("RUN"))
    assert re.search(r"pip install [^&\n]*--require-hashes -r /tmp/requirements\.lock", runs)
    assert re.search(r"--mount=type=bind,source=requirements\.lock,target=/tmp/requirements\.lock", runs)
    assert re.search(r"--mount=type=bind,from=\w+,source=/wheel,target=/tmp/wheel", runs)
    installs = re.findall(r"pip install ([^&\n]*)", runs)
    assert len(installs) == 2 and "--no-deps /tmp/wheel/" in installs[1], installs
    assert not re.search(r"pip install[^&\n]*(?:-e|--editable)\b", runs)
    workdir = [line.split()[1] for line in image if line.startswith("WORKDIR")]
    assert workdir == ["/app"]
    user = [n for n, line in enumerate(image) if line.startswith("USER")]
    assert user and image[user[-1]].split()[1] == "tavern"
    assert all(n < user[-1] for n, line in enumerate(image) if "pip install" in line)
    healthcheck_line = next(line for line in image if line.startswith("HEALTHCHECK"))
    assert json.loads(healthcheck_line.split(" CMD ", 1)[1]) == ["python", "-m", "bot.cli.healthcheck"]
    assert json.loads(next(line for line in image if line.startswith("CMD"))[4:]) == ["python", "-m", "bot"]


def test_the_image_is_the_tests_python_pinned_by_digest_with_no_volume() -> None:
    """Both stages start from one image, named by its tag and the digest of the tag's index, of the oldest
    Python minor version the project supports (``requires-python``: the one CI runs the tests on), on Debian
    bookworm (which has the libfribidi0 below); the lock is resolved for it; the image declares no VOLUME
    (each container would get an anonymous one: Compose mounts what it needs)."""
    bases = [stage[0].split()[1] for stage in dockerfile_stages()]
    assert len(set(bases)) == 1, bases
    match = re.fullmatch(r"python:(\d+)\.(\d+)\.\d+-slim-bookworm@sha256:[0-9a-f]{64}", bases[0])
    assert match, bases[0]
    supported = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    assert supported == f">={match[1]}.{match[2]}", (supported, bases[0])
    assert not [line for stage in dockerfile_stages() for line in stage if line.upper().startswith("VOLUME")]
    lock = (REPO / "requirements.lock").read_text().splitlines()[1]
    assert f"--python-version {match[1]}.{match[2]} " in lock, lock  # the lock resolved for that Python


def test_the_image_can_shape_arabic_and_hebrew_names() -> None:
    """Pillow's libraqm loads FriBiDi from the system, which the slim image lacks: the image installs it and
    its build fails when Pillow still cannot shape (pictures would write such names "Player N")."""
    image = dockerfile_stages()[-1]
    runs = "\n".join(line for line in image if line.startswith("RUN"))
    assert re.search(r"apt-get install -y --no-install-recommends libfribidi0\b", runs)
    assert "features.check('raqm')" in runs


def test_what_the_dockerfile_takes_from_the_context_is_sent() -> None:
    sources = []
    for stage in dockerfile_stages():
        for line in stage:
            if line.startswith("COPY") and "--from" not in line:
                sources += line.split()[1:-1]
            for mount in re.findall(r"--mount=(\S+)", line):
                fields = dict(f.split("=", 1) for f in mount.split(","))
                if fields.get("type") == "bind" and "from" not in fields:
                    sources.append(fields["source"])
    assert {"pyproject.toml", "bot", "cogs", "requirements.lock"} <= set(sources)
    for source in sources:
        assert (REPO / source).exists() and in_context(source), source


# ----------------------------------------------------------------------------------------- compose files


def _scalar(text: str, anchors: dict[str, Any]) -> Any:
    text = text.strip()
    if text.startswith("*"):
        return anchors[text[1:]]
    if text.startswith(("[", '"')):
        return json.loads(text)  # the flow lists and quoted strings these files use are JSON
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    return text


def _strip_comment(line: str) -> str:
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def load_compose(path: Path) -> dict[str, Any]:
    """The block YAML these compose files are written in — mappings, lists, quoted and plain scalars,
    JSON-like flow lists, anchors, aliases and ``<<`` merges — as Python values. (PyYAML is no dependency;
    where it is installed, a test checks that both read the files alike.)"""
    lines = [
        (len(raw) - len(raw.lstrip()), raw.strip())
        for raw in map(_strip_comment, path.read_text().splitlines())
    ]
    lines = [(indent, text) for indent, text in lines if text]
    anchors: dict[str, Any] = {}

    def block(start: int, indent: int) -> tuple[Any, int]:
        if start < len(lines) and lines[start][1].startswith("- ") and lines[start][0] == indent:
            items, i = [], start
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
                items.append(_scalar(lines[i][1][2:], anchors))
                i += 1
            return items, i
        mapping: dict[str, Any] = {}
        i = start
        while i < len(lines) and lines[i][0] == indent:
            key, sep, rest = lines[i][1].partition(":")
            assert sep and not key.startswith("- "), f"{path.name}: cannot read {lines[i][1]!r}"
            rest = rest.strip()
            anchor = None
            if rest.startswith("&"):
                anchor, _, rest = rest[1:].partition(" ")
            i += 1
            if rest:
                value = _scalar(rest, anchors)
            elif i < len(lines) and lines[i][0] > indent:
                value, i = block(i, lines[i][0])
            elif i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
                value, i = block(i, indent)
            else:
                value = None
            if anchor:
                anchors[anchor] = value
            if key == "<<":
                mapping = {**value, **mapping}
            else:
                mapping[key.strip().strip('"')] = value
        return mapping, i

    data, end = block(0, 0)
    assert end == len(lines), f"{path.name}: stopped reading at {lines[end][1]!r}"
    return data


@pytest.fixture(params=sorted(COMPOSE_FILES))
def compose(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param, load_compose(COMPOSE_FILES[request.param])


def test_pyyaml_reads_the_compose_files_alike() -> None:
    yaml = pytest.importorskip("yaml")
    for path in COMPOSE_FILES.values():
        assert load_compose(path) == yaml.safe_load(path.read_text()), path.name


def bots(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run the bot (they read .env); the others are PostgreSQL, its backup, the proxy."""
    return {name: s for name, s in data["services"].items() if s.get("env_file") == ".env"}


def test_one_service_builds_the_image_and_the_others_run_it(compose: tuple[str, dict[str, Any]]) -> None:
    """Two services that both build one image name race on a fresh machine ("image already exists"). The
    image is this project's (no name shared by every checkout on the machine), built and never pulled."""
    which, data = compose
    services = data["services"]
    builders = [name for name, s in services.items() if "build" in s]
    assert len(builders) == 1, builders
    (builder,) = builders
    # Built from this folder, told the commit it is built from (python -m bot --version, tavern_build_info).
    assert services[builder]["build"] == {"context": ".", "args": {"TAVERN_COMMIT": "${TAVERN_COMMIT:-}"}}
    assert services[builder]["pull_policy"] == "build"
    image = services[builder].get("image")
    if which == "default":
        assert image is None  # Compose names it <project>-bot
    else:
        assert re.fullmatch(r"\$\{COMPOSE_PROJECT_NAME:\?[^}]+\}-bot", image), image
    for name in bots(data):
        if name != builder:
            assert services[name]["image"] == image and services[name]["pull_policy"] == "never", name


def test_every_service_restarts_and_rotates_its_logs(compose: tuple[str, dict[str, Any]]) -> None:
    _, data = compose
    for name, service in data["services"].items():
        assert service["restart"] == "unless-stopped", name
        logging = service["logging"]
        assert logging["driver"] == "json-file", name
        assert re.fullmatch(r"\d+m", logging["options"]["max-size"]), name
        assert int(logging["options"]["max-file"]) >= 2, name
    for name, bot in bots(data).items():
        assert bot["stop_grace_period"] == "15s", name


def test_no_secret_is_written_in_or_passed_through_a_compose_file(
    compose: tuple[str, dict[str, Any]],
) -> None:
    """Every secret comes from a Docker secret, a file in ./secrets mounted at /run/secrets (never the
    environment, which ``docker inspect`` shows): no variable of a compose file names one, no address holds
    one, and each ``*_FILE`` names a secret its service mounts. (tests/test_compose.py checks the same, and
    the hardening, on what Compose itself makes of the files.)"""
    which, data = compose
    text = COMPOSE_FILES[which].read_text()
    uses = re.findall(r"\$\{([^}]*)\}", text)
    assert not [u for u in uses if re.search(r"PASSWORD|SECRET|TOKEN", u.split(":")[0])], uses
    for name, service in data["services"].items():
        mounted = set(service.get("secrets", []))
        for key, value in (service.get("environment") or {}).items():
            value = str(value)
            if re.search(r"PASSWORD|SECRET|TOKEN", key):
                assert key.endswith("_FILE") and value == f"/run/secrets/{value.rpartition('/')[2]}", (
                    name,
                    key,
                )
                assert value.rpartition("/")[2] in mounted, (name, key)
            if "://" in value:
                assert ":" not in value.split("://", 1)[1].rpartition("@")[0], (name, key)
        assert "env_file" not in service or service["env_file"] == ".env", name
    for secret, source in data["secrets"].items():
        assert source == {"file": f"./secrets/{secret}"}, secret
    assert "secrets/" in (REPO / ".gitignore").read_text().split()


def test_no_volume_is_named_for_the_whole_machine(compose: tuple[str, dict[str, Any]]) -> None:
    """A volume's ``name:`` is global: two checkouts would share it (and one SQLite file). Without it, each
    is <project>_<volume>."""
    _, data = compose
    for volume, options in data["volumes"].items():
        assert "name" not in (options or {}), volume
        assert not (options or {}).get("external"), volume


def test_the_default_deployment_is_one_process_on_sqlite_on_a_volume() -> None:
    data = load_compose(COMPOSE_FILES["default"])
    (name,) = bots(data)
    bot = data["services"][name]
    env = bot["environment"]
    assert "TAVERN_DATABASE_URL" not in env and "TAVERN_SHARD_IDS" not in env
    db_path = env["TAVERN_DB_PATH"]
    mounts = dict(m.split(":", 1) for m in bot["volumes"])
    (volume,) = [v for v, target in mounts.items() if db_path.startswith(target.rstrip("/") + "/")]
    assert volume in data["volumes"], "the database is on a named volume, not in the container"
    assert [s for s, service in data["services"].items() if "profiles" not in service] == [name]


def test_the_scale_deployment_shards_over_postgres() -> None:
    data = load_compose(COMPOSE_FILES["scale"])
    services = data["services"]
    running = bots(data)
    assert sorted(running) == ["bot-0", "bot-1"]
    shards = sorted(s["environment"]["TAVERN_SHARD_IDS"] for s in running.values())
    assert shards == ["0", "1"]
    for bot in running.values():
        assert bot["environment"]["TAVERN_SHARD_COUNT"] == str(len(running))
        assert bot["environment"]["TAVERN_DATABASE_URL"] == "postgresql://tavern@db:5432/tavern"
        assert bot["depends_on"] == {"db": {"condition": "service_healthy"}}
        assert "postgres_password" not in bot["secrets"]  # the superuser's stays with db
    assert services["db"]["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    assert "tavern-postgres:/var/lib/postgresql/data" in services["db"]["volumes"]
    assert (
        services["backup"]["profiles"] == ["backup"]
        and services["backup"]["image"] == services["db"]["image"]
    )


def test_what_the_compose_files_name_exists() -> None:
    for path in COMPOSE_FILES.values():
        data = load_compose(path)
        for service in data["services"].values():
            if "build" in service:
                assert (REPO / service["build"]["context"] / "Dockerfile").is_file()
            if "env_file" in service:  # the file to copy it from, as the README says
                assert (REPO / f"{service['env_file']}.example").is_file(), service["env_file"]
            for mount in service.get("volumes", []):
                source = mount.split(":", 1)[0]
                if source.startswith("./"):
                    assert (REPO / source).exists(), source
                    if source.endswith(".sh"):
                        assert os.access(REPO / source, os.X_OK), source


# ------------------------------------------------------------------------------------------ health check

HEAVY = {"discord", "aiohttp", "PIL", "dotenv", "asyncio", "sqlite3", "aiosqlite", "asyncpg", "logging"}
SLOW_STDLIB = {"typing", "dataclasses", "pathlib", "inspect"}  # each a real share of a 30-second check


def test_the_checker_and_its_packages_import_nothing_of_their_own() -> None:
    """``bot/__init__.py`` and ``bot/services/__init__.py`` run before any module of theirs: they stay
    docstrings, or every health check pays for what they import."""
    for init in ("bot/__init__.py", "bot/services/__init__.py"):
        tree = ast.parse((REPO / init).read_text())
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)], init


def run_checker(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, flags: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *flags, "-m", "bot.cli.healthcheck", *args],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", "/usr/bin"), "PYTHONPATH": str(REPO), **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_checker_imports_only_a_little_of_the_standard_library(tmp_path: Path) -> None:
    """Run as the container runs it, every module it imports is listed (``-X importtime``); ``-S`` leaves out
    this development virtualenv's own start-up (the editable install's finder), which the image has not."""
    path = tmp_path / "health.json"
    health.write(path, health.Beat(time.time(), True, True))
    proc = run_checker(tmp_path, env={"TAVERN_HEALTH_PATH": str(path)}, flags=("-S", "-X", "importtime"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    modules = {
        line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")
    }
    modules.discard("imported package")  # the header line
    own = {m for m in modules if m.split(".")[0] not in sys.stdlib_module_names}
    assert own == {"bot", "bot.cli", "bot.services", "bot.services.health"}, own  # the check runs as __main__
    tops = {m.split(".")[0] for m in modules}
    assert not tops & (HEAVY | SLOW_STDLIB), tops & (HEAVY | SLOW_STDLIB)


def test_the_checker_is_small(tmp_path: Path) -> None:
    """At most 20 MB resident (the check that imported the bot took 60 MB)."""
    path = tmp_path / "health.json"
    health.write(path, health.Beat(time.time(), True, True))
    measure = (
        "import resource, subprocess, sys; "
        "subprocess.run([sys.executable, '-S', '-m', 'bot.cli.healthcheck'], check=True, "
        "capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-c", measure],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "TAVERN_HEALTH_PATH": str(path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    kilobytes = int(proc.stdout)  # Linux: KB
    assert kilobytes <= 20 * 1024, f"the health check used {kilobytes / 1024:.1f} MB"


def _write(path: Path, **fields: Any) -> None:
    path.write_text(json.dumps(fields))


@pytest.mark.parametrize(
    ("content", "code", "words"),
    [
        ({"at": 0, "gateway": True, "database": True}, 0, "ok: heartbeat"),  # "at" is now-relative below
        ({"at": -300, "gateway": True, "database": True}, 1, "last heartbeat 300 s ago"),
        ({"at": 0, "gateway": False, "database": True, "detail": "closed 4004"}, 1, "gateway: closed 4004"),
        ({"at": 0, "gateway": True, "database": False, "detail": "disk I/O"}, 1, "database check failed"),
        ({"at": 0, "gateway": True, "database": True, "drawing": "replaced 1 min ago"}, 0, "replaced"),
        ({"at": "NaN", "gateway": True, "database": True}, 1, "unhealthy: last heartbeat"),
        ({"at": 0, "gateway": "yes", "database": True}, 1, "not connected"),
        ({"gateway": True, "database": True}, 1, "unreadable heartbeat file"),
        ("{not json", 1, "unreadable heartbeat file"),
        ("[1, 2]", 1, "unreadable heartbeat file"),
        (None, 1, "no heartbeat file"),
    ],
)
def test_the_checker_answers_with_docker_exit_codes(
    tmp_path: Path, content: dict[str, Any] | str | None, code: int, words: str
) -> None:
    path = tmp_path / "data" / "health.json"
    path.parent.mkdir()
    if isinstance(content, dict):
        fields = dict(content)
        if "at" in fields:
            fields["at"] = float(fields["at"]) + time.time()
        _write(path, **fields)
    elif isinstance(content, str):
        path.write_text(content)
    proc = run_checker(tmp_path, env={"TAVERN_DB_PATH": str(tmp_path / "data" / "tavern.sqlite3")})
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert proc.stderr == "" and len(proc.stdout.splitlines()) == 1 and words in proc.stdout
    assert proc.stdout.startswith("ok" if code == 0 else "unhealthy")


def test_the_checker_takes_no_arguments(tmp_path: Path) -> None:
    proc = run_checker(tmp_path, "--verbose")
    assert proc.returncode == 2 and "usage" in proc.stderr and proc.stdout == ""


def test_the_checker_reads_dotenv_as_the_bot_does(tmp_path: Path) -> None:
    """A ``.env`` in the working folder says where the database is (as for ``python -m bot``); the
    environment wins over it; ``python -m bot health`` gives the same answer."""
    (tmp_path / ".env").write_text("TAVERN_DB_PATH=games/t.sqlite3\n")
    (tmp_path / "games").mkdir()
    health.write(tmp_path / "games" / "health.json", health.Beat(time.time(), True, True))
    found = run_checker(tmp_path)
    assert found.returncode == 0 and found.stdout.startswith("ok"), found.stdout + found.stderr
    elsewhere = run_checker(tmp_path, env={"TAVERN_DB_PATH": str(tmp_path / "none" / "t.sqlite3")})
    assert elsewhere.returncode == 1 and str(tmp_path / "none" / "health.json") in elsewhere.stdout
    via_main = subprocess.run(
        [sys.executable, "-m", "bot", "health"],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", "/usr/bin"), "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    same = [(p.returncode, re.sub(r"\d+ s ago", "N s ago", p.stdout)) for p in (via_main, found)]
    assert same[0] == same[1]


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"TAVERN_DB_PATH": "data/tavern.sqlite3"},
        {"TAVERN_DB_PATH": "tavern.sqlite3"},
        {"TAVERN_DB_PATH": "./x/../games/t.db"},
        {"TAVERN_DB_PATH": "/srv/tavern//t.db"},
        {"TAVERN_DB_PATH": "/t.db"},
        {"TAVERN_DB_PATH": "~/tavern/t.db"},
        {"TAVERN_DB_PATH": "  spaced/t.db  "},
        {"TAVERN_DB_PATH": "   "},
        {"TAVERN_DB_PATH": "games/x/"},
        {"TAVERN_HEALTH_PATH": "/run/h.json", "TAVERN_DB_PATH": "games/t.db"},
        {"TAVERN_HEALTH_PATH": "~/h.json"},
        {"TAVERN_HEALTH_PATH": " "},
    ],
)
def test_the_checker_looks_where_the_bot_writes(env: dict[str, str]) -> None:
    """The checker cannot import bot.settings (python-dotenv, and more): its path rule is held to the
    settings' here."""
    assert Path(healthcheck.health_path(env)) == health_path_from_env(env)


def test_the_heartbeat_round_trips() -> None:
    beat = health.Beat(12.5, True, False, "why", drawing="replaced")
    assert beat == health.Beat(**beat.as_dict()) and beat != health.Beat(12.5, True, True, "why")
    assert "detail='why'" in repr(beat)


# ---------------------------------------------------------------------------------------- .env.example

NAME = re.compile(r"(?:TAVERN|DISCORD)_[A-Z0-9_]*[A-Z0-9]")  # a name, not a prefix such as TAVERN_TEST_


def names_the_code_reads() -> dict[str, str]:
    """Every environment variable bot/ and cogs/ read: a string constant that is exactly such a name (as
    ``env.get("TAVERN_X")`` and the settings' helpers take it), with a file that reads it."""
    found: dict[str, str] = {}
    for top in ("bot", "cogs"):
        for path in sorted((REPO / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and NAME.fullmatch(node.value)
                ):
                    found.setdefault(node.value, str(path.relative_to(REPO)))
    return found


def env_example() -> list[tuple[str, str]]:
    """(variable, the comment above it) for each variable .env.example sets, commented out or not; variables
    on consecutive lines share the comment above the first."""
    out: list[tuple[str, str]] = []
    comment: list[str] = []
    after_variable = False
    for line in (REPO / ".env.example").read_text().splitlines():
        line = line.strip()
        match = re.fullmatch(r"(?:#\s*)?([A-Z][A-Z0-9_]*)=.*", line)
        if match:
            out.append((match[1], " ".join(comment)))
            after_variable = True
        elif line.startswith("#"):
            comment = [line] if after_variable else [*comment, line]
            after_variable = False
        else:
            comment, after_variable = [], False
    return out


def test_env_example_names_every_variable_the_bot_reads() -> None:
    read = {name: where for name, where in names_the_code_reads().items() if name not in RETIRED_VARIABLES}
    assert {"DISCORD_TOKEN", "TAVERN_DB_PATH", "TAVERN_COALESCE_SECONDS", "TAVERN_ATTENTION_SECONDS"} <= set(
        read
    )
    listed = dict(env_example())
    missing = sorted(set(read) - set(listed))
    assert not missing, (
        f"read by the code, missing from .env.example: {missing} ({[read[m] for m in missing]})"
    )
    for name in read:
        assert listed[name].strip(), f"{name} has no comment above it in .env.example"


def test_env_example_names_nothing_the_deployment_does_not_read() -> None:
    compose = " ".join(p.read_text() for p in COMPOSE_FILES.values())
    compose += (REPO / "deploy" / "postgres-init" / "10-tavern-role.sh").read_text()
    read = names_the_code_reads()
    for name, _ in env_example():
        assert name in read or name.startswith("COMPOSE_") or f"${{{name}" in compose, name
        assert name not in RETIRED_VARIABLES, name
    assert {"TAVERN_PROXY_SITE", "TAVERN_PROXY_METRICS_FROM"} <= set(dict(env_example()))
