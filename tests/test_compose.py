"""Both compose files as Docker Compose itself reads them: ``config`` of a copy of the deployment (the compose
files, deploy/, .env from .env.example, a file for every secret), parsed by the real implementation, then the
hardening checked on what it made of them: every service with an init process, no capabilities but the few
named, a read-only file system, a memory limit, a pull policy, its image pinned by digest, its secrets from
Docker secrets, no volume named for the whole machine; the backup and proxy profiles parse too. A copy with a
misspelt key must be refused, so the parser is known to be checking.

The parser: ``docker compose`` where the plugin is installed, else ``docker-compose`` (Debian's, Docker's own
earlier implementation, which reads the same file format offline); where neither is, and the tests run as
root with apt-get (CI, a fresh machine of the project), Debian's docker-compose is installed as
tests/browser.py installs chromium; elsewhere the tests skip, saying why. No Docker engine is needed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import debian

yaml = pytest.importorskip("yaml")

REPO = Path(__file__).resolve().parents[1]
FILES = {"default": "docker-compose.yml", "scale": "docker-compose.scale.yml"}
PROJECT = "tavern-test"
SECRETS = ("discord_token", "web_secret", "client_secret", "tavern_postgres_password", "postgres_password")
PROFILES = ("backup", "proxy")
PINNED = re.compile(r"[a-z0-9./-]+:[\w.-]+@sha256:[0-9a-f]{64}")
# The capabilities a service may take back, and why (the compose files say so beside each).
CAP_ADD = {
    "db": {"CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"},  # the postgres entrypoint's chown and gosu
    "proxy": {"NET_BIND_SERVICE"},  # the caddy binary's file capability
}
MEMORY = {"bot": 512, "bot-0": 512, "bot-1": 512, "db": 1024, "backup": 256, "proxy": 256}  # MiB


def find_compose() -> list[str] | str:
    """The command that runs Compose, or why there is none."""
    docker = shutil.which("docker")
    if docker:
        try:
            plugin = subprocess.run(
                [docker, "compose", "version"], capture_output=True, timeout=60, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            plugin = None
        if plugin is not None and plugin.returncode == 0:
            return [docker, "compose"]
    why = debian.install("docker-compose", lambda: shutil.which("docker-compose") is not None)
    found = shutil.which("docker-compose")
    return [found] if found else (why or "no docker-compose")


@pytest.fixture(scope="module")
def compose() -> list[str]:
    found = find_compose()
    if isinstance(found, str):
        pytest.skip(f"no Docker Compose to read the files with: {found}")
    return found


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A copy of what a deployment's folder holds: the compose files, deploy/, the Dockerfile, .env from
    .env.example, and a file (with a dummy value) for every secret."""
    for name in (*FILES.values(), "Dockerfile"):
        shutil.copy(REPO / name, tmp_path / name)
    shutil.copytree(REPO / "deploy", tmp_path / "deploy")
    shutil.copy(REPO / ".env.example", tmp_path / ".env")
    (tmp_path / "secrets").mkdir(mode=0o700)
    for name in SECRETS:
        (tmp_path / "secrets" / name).write_text(f"dummy-{name}\n")
    yield tmp_path


def run_config(compose: list[str], folder: Path, which: str) -> subprocess.CompletedProcess[str]:
    profiles = [arg for profile in PROFILES for arg in ("--profile", profile)]
    return subprocess.run(
        [*compose, "-p", PROJECT, "-f", FILES[which], *profiles, "config"],
        cwd=folder,
        # COMPOSE_PROJECT_NAME as a current Compose sets it for interpolation from -p (docker-compose 1.x
        # does not); nothing else from this process's environment, so .env alone is read.
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(folder),
            "COMPOSE_PROJECT_NAME": PROJECT,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )


def parsed(compose: list[str], folder: Path, which: str) -> dict[str, Any]:
    done = run_config(compose, folder, which)
    assert done.returncode == 0, done.stderr
    data = yaml.safe_load(done.stdout)
    assert isinstance(data, dict) and data["services"], done.stdout
    return data


def mebibytes(value: object) -> float:
    """A memory size as Compose prints it (``512m``, ``1g``, or bytes) in MiB."""
    text = str(value).strip().lower()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmg]?)b?", text)
    assert match, f"not a memory size: {value!r}"
    return float(match[1]) * {"": 1 / 2**20, "k": 1 / 2**10, "m": 1, "g": 2**10}[match[2]]


def secret_names(service: dict[str, Any]) -> set[str]:
    return {s if isinstance(s, str) else s["source"] for s in service.get("secrets", [])}


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {key: "" if value is None else str(value) for key, value in env.items()}


@pytest.mark.parametrize("which", sorted(FILES))
def test_compose_reads_the_file_and_every_service_is_hardened(
    compose: list[str], project: Path, which: str
) -> None:
    data = parsed(compose, project, which)
    services: dict[str, dict[str, Any]] = data["services"]
    built = {name for name, service in services.items() if "build" in service}
    assert len(built) == 1, built
    built_image = services[next(iter(built))].get("image")
    for name, service in services.items():
        assert service.get("init") is True, name
        assert service.get("cap_drop") == ["ALL"], name
        assert set(service.get("cap_add", [])) == CAP_ADD.get(name, set()), name
        assert service.get("read_only") is True, name
        assert "no-new-privileges:true" in service.get("security_opt", []), name
        tmpfs = service.get("tmpfs", [])
        assert any(str(t).split(":")[0] == "/tmp" for t in tmpfs), name
        assert mebibytes(service["mem_limit"]) == MEMORY[name], name
        policy = service.get("pull_policy")
        if name in built:
            assert policy == "build", name
        elif built_image is not None and service.get("image") == built_image:
            assert policy == "never", name  # the image the builder made: never in a registry
        else:
            assert policy in ("if_not_present", "missing"), name
            assert PINNED.fullmatch(service["image"]), (name, service["image"])
        for key, value in environment(service).items():
            if re.search(r"TOKEN|PASSWORD|SECRET", key):
                # A secret is never in the environment (docker inspect shows it): only the file it is in.
                if key.endswith("_FILE"):
                    secret = value.removeprefix("/run/secrets/")
                    assert value.startswith("/run/secrets/") and secret in secret_names(service), (name, key)
                else:
                    assert value == "", (name, key)
            if "://" in value:
                assert ":" not in value.split("://", 1)[1].rpartition("@")[0], (name, key)  # no password
    for volume in (data.get("volumes") or {}).values():
        named = (volume or {}).get("name")
        assert named is None or named.startswith(f"{PROJECT}_"), named  # this project's, not the machine's
    for secret in data.get("secrets", {}).values():
        assert Path(secret["file"]).parent == project / "secrets", secret
    # Where the games and heartbeats are written stays writable: a named volume or a tmpfs.
    for name, service in services.items():
        if environment(service).get("DISCORD_TOKEN_FILE"):
            mounts = [
                str(v).split(":")[1] if isinstance(v, str) else v["target"]
                for v in service.get("volumes", [])
            ]
            tmpfs = [str(t).split(":")[0] for t in service.get("tmpfs", [])]
            assert "/app/data" in mounts + tmpfs, name
            assert {"discord_token", "web_secret", "client_secret"} <= secret_names(service), name


def test_the_default_deployment_keeps_its_games_on_its_own_volume(compose: list[str], project: Path) -> None:
    data = parsed(compose, project, "default")
    bot = data["services"]["bot"]
    assert "image" not in yaml.safe_load((REPO / FILES["default"]).read_text())["services"]["bot"]
    assert any(
        str(v).startswith("tavern-data:/app/data")
        or (isinstance(v, dict) and v.get("source") == "tavern-data")
        for v in bot["volumes"]
    )
    assert "name" not in (
        yaml.safe_load((REPO / FILES["default"]).read_text())["volumes"]["tavern-data"] or {}
    )
    proxy = data["services"]["proxy"]
    assert proxy["profiles"] == ["proxy"]
    env = environment(proxy)
    assert env["TAVERN_WEB_UPSTREAM"] == "bot:8080" and env["TAVERN_PROXY_METRICS_FROM"] == "127.0.0.1/32"
    assert any(
        str(v).split(":")[1] == "/etc/caddy/Caddyfile" for v in proxy["volumes"] if isinstance(v, str)
    ) or any(isinstance(v, dict) and v.get("target") == "/etc/caddy/Caddyfile" for v in proxy["volumes"])


def test_the_scale_deployment_runs_one_image_and_backs_up_its_database(
    compose: list[str], project: Path
) -> None:
    data = parsed(compose, project, "scale")
    services = data["services"]
    assert services["bot-0"]["image"] == services["bot-1"]["image"] == f"{PROJECT}-bot"
    db, backup = services["db"], services["backup"]
    assert backup["profiles"] == ["backup"] and "profiles" not in db
    assert backup["image"] == db["image"]  # pg_dump of the server's own version
    assert environment(db)["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    assert {"/var/run/postgresql", "/tmp"} <= {str(t).split(":")[0] for t in db["tmpfs"]}
    # The image's VOLUME would be an anonymous volume in every backup container without this tmpfs.
    assert "/var/lib/postgresql/data" in {str(t).split(":")[0] for t in backup["tmpfs"]}
    assert secret_names(backup) == {"tavern_postgres_password"}
    for bot in ("bot-0", "bot-1"):
        env = environment(services[bot])
        assert env["TAVERN_DATABASE_URL"] == "postgresql://tavern@db:5432/tavern"
        assert env["TAVERN_DATABASE_PASSWORD_FILE"] == "/run/secrets/tavern_postgres_password"
        assert "postgres_password" not in secret_names(services[bot])  # the superuser's stays with db


def test_a_misspelt_key_is_refused(compose: list[str], project: Path) -> None:
    """The parser checks the files against Compose's schema: without this, a passing config proves nothing."""
    path = project / FILES["default"]
    text = path.read_text()
    path.write_text(text.replace("    pull_policy: build\n", "    pull_policy: build\n    initt: true\n", 1))
    done = run_config(compose, project, "default")
    assert done.returncode != 0 and "initt" in done.stderr, done.stdout + done.stderr


def test_without_the_project_name_the_scale_file_says_what_to_set(compose: list[str], project: Path) -> None:
    """The bots' image is named after the project; Compose refuses, saying why, rather than name it for the
    whole machine (a current Compose always sets the name, so this runs with docker-compose 1.x only)."""
    if compose[-1] == "compose":
        pytest.skip("docker compose sets COMPOSE_PROJECT_NAME itself")
    done = subprocess.run(
        [*compose, "-f", FILES["scale"], "config"],
        cwd=project,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(project)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "set COMPOSE_PROJECT_NAME in .env" in done.stderr, done.stderr


def test_the_caddyfile_adapts_where_caddy_is_installed() -> None:
    """Caddy's own parser, where it is on this machine (it is not installed for the tests): the pages go to
    the bot, /metrics only to the allowed networks."""
    caddy = shutil.which("caddy")
    if caddy is None:
        pytest.skip("caddy is not installed (apt-get install caddy): the Caddyfile is not parsed here")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TAVERN_PROXY_SITE": "tavern.example.org",
        "TAVERN_PROXY_METRICS_FROM": "10.8.0.0/24 203.0.113.7/32",
        "TAVERN_WEB_UPSTREAM": "bot:8080",
        "TAVERN_METRICS_UPSTREAM": "bot:9464",
    }
    done = subprocess.run(
        [caddy, "adapt", "--config", str(REPO / "deploy" / "Caddyfile"), "--adapter", "caddyfile"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert (
        '"host":["tavern.example.org"]' in text
        and '"dial":"bot:8080"' in text
        and '"dial":"bot:9464"' in text
    )
    assert '"not":[{"remote_ip":{"ranges":["10.8.0.0/24","203.0.113.7/32"]}}]' in text
