"""Runtime configuration, read once from the environment (and ``.env``) at start-up.

Every value is validated here so a typo in ``.env`` fails at launch with a sentence naming the variable,
instead of surfacing later as a confusing crash inside a game.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, unquote_plus, urlsplit

from dotenv import load_dotenv


def is_postgres_url(location: object) -> bool:
    """Whether ``open_store`` takes ``location`` for a PostgreSQL server (else it is a SQLite file)."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


DEFAULT_DB_PATH = "data/tavern.sqlite3"
HEALTH_FILE = "health.json"  # next to the database unless TAVERN_HEALTH_PATH says otherwise
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
# The metrics endpoint answers anyone who reaches it, without a password: by default only this machine.
DEFAULT_METRICS_HOST = "127.0.0.1"
# The web pages (watch and replay in a browser) listen here unless TAVERN_WEB_HOST says otherwise: a reverse
# proxy in front gives them to the internet with TLS.
DEFAULT_WEB_HOST = "127.0.0.1"
WEB_URL_MOST = 400  # a link's address before its path and token (Discord takes 512 for a link button)
SECRET_FILE_MOST = 4096  # characters a secret's file may hold (a token is about 70, a password 64)

# Every variable the settings read: ``python -m bot check`` names any other ``TAVERN_*`` as a likely typo.
EXPERT_SECONDS = 0.3  # the most an expert thinks about one decision, by default (the terminal's always)
VARIABLES: tuple[str, ...] = (
    "DISCORD_TOKEN",
    "DISCORD_TOKEN_FILE",
    "TAVERN_ATTENTION_SECONDS",
    "TAVERN_BOT_DELAY",
    "TAVERN_CALCULATIONS_PER_MINUTE",
    "TAVERN_CHALLENGE_MINUTES",
    "TAVERN_CLIENT_SECRET",
    "TAVERN_CLIENT_SECRET_FILE",
    "TAVERN_CLAIM_MINUTES",
    "TAVERN_COALESCE_SECONDS",
    "TAVERN_DATABASE_PASSWORD_FILE",
    "TAVERN_DATABASE_POOL",
    "TAVERN_DATABASE_URL",
    "TAVERN_DB_PATH",
    "TAVERN_DEV_GUILD_ID",
    "TAVERN_EXPERT_SECONDS",
    "TAVERN_GLOBAL_BUDGET",
    "TAVERN_HEALTH_PATH",
    "TAVERN_LOBBY_MINUTES",
    "TAVERN_LOG_FORMAT",
    "TAVERN_LOG_LEVEL",
    "TAVERN_METRICS_HOST",
    "TAVERN_METRICS_PORT",
    "TAVERN_NUDGE_MINUTES",
    "TAVERN_OPENINGS_PER_MINUTE",
    "TAVERN_RULES_URL",
    "TAVERN_SHARD_COUNT",
    "TAVERN_SHARD_IDS",
    "TAVERN_SUIT_EMOJIS",
    "TAVERN_THREADS",
    "TAVERN_WEB_HOST",
    "TAVERN_WEB_PORT",
    "TAVERN_WEB_PROXIES",
    "TAVERN_WEB_SECRET",
    "TAVERN_WEB_SECRET_FILE",
    "TAVERN_WEB_URL",
)
# ``TAVERN_*`` variables others read: Docker Compose (the reverse proxy's site and who may read its /metrics,
# docker-compose.yml's ``proxy`` profile); and every name under the tests' and the benchmarks' prefixes.
OTHER_VARIABLES = ("TAVERN_PROXY_SITE", "TAVERN_PROXY_METRICS_FROM")
OTHER_PREFIXES = ("TAVERN_TEST_", "TAVERN_BENCH_")
# Variables nothing reads any more, and where their value went: ``python -m bot check`` says so.
RETIRED_VARIABLES = {
    "TAVERN_POSTGRES_PASSWORD": "the file secrets/tavern_postgres_password (README, Running at scale)",
}

TOKEN_HELP = (
    "DISCORD_TOKEN is not set.\n"
    "Get a bot token from the Discord Developer Portal (https://discord.com/developers/applications):\n"
    "  Applications -> your application -> Bot -> Reset Token, then copy it.\n"
    "Put it in a file named .env next to where you run the bot (cp .env.example .env):\n"
    "  DISCORD_TOKEN=your-token-here\n"
    "or export DISCORD_TOKEN in the environment. Never share or commit the token."
)


class SettingsError(ValueError):
    """A configuration value is missing or malformed; ``str(err)`` tells the operator what to fix."""


class MissingTokenError(SettingsError):
    """No bot token: the one setting without a usable default."""


@dataclass(frozen=True)
class Settings:
    """Validated configuration. Timers are minutes (fractions allowed); 0 means "untimed" where noted."""

    token: str = field(repr=False)
    db_path: Path = Path(DEFAULT_DB_PATH)
    log_level: str = "INFO"
    dev_guild_id: int | None = None
    challenge_minutes: float = 10
    lobby_minutes: float = 15
    nudge_minutes: float = 10
    claim_minutes: float = 60
    openings_per_minute: int = 3  # challenges, lobbies and rematches one member may open
    calculations_per_minute: int = 10  # calculator uses per member
    bot_delay: float = 1.5  # seconds a computer player waits before it moves, so people can follow
    # The most an expert computer player thinks about one decision (in its own process); past it, it plays
    # the hard player's choice. 0: the expert never thinks (it plays as hard).
    expert_seconds: float = EXPERT_SECONDS
    # Seconds within which a table's calls share one post (and, three times that, its board one edit): the
    # bot's REST budget is per bot, not per table. 0: every move is told at once.
    coalesce_seconds: float = 5.0
    # A player who clicked at the table this recently is looking at it: their turn is not pinged. 0: always.
    attention_seconds: float = 60.0
    health_path: Path | None = None  # None: ``health.json`` next to the database
    threads: bool = True  # each game in its own thread where the bot may open one (a server may turn it off)
    suit_emojis: bool = True  # suits in message text as the application's own emojis (made once at start)
    rules_url: str | None = None  # where docs/ is published: the full rules are <rules_url>/rules-<game>.md
    # PostgreSQL instead of the SQLite file: any number of bot processes may share it (never logged whole:
    # it may carry a password).
    database_url: str | None = field(default=None, repr=False)
    database_pool: int = 10  # connections each process keeps to PostgreSQL
    # Discord shards: how many in all (None: as many as Discord recommends), and which this process runs
    # (None: all of them).
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    # Requests a second outside the interaction endpoints, for every process of the bot together (Discord
    # allows about 50); each process keeps to its share (``budget_per_process``).
    global_budget: int = 45
    log_format: str = "text"  # text: one readable line per record; json: one JSON object per line
    # Prometheus metrics on http://<metrics_host>:<metrics_port>/metrics (None: not served; 0: any free port)
    metrics_port: int | None = None
    metrics_host: str = DEFAULT_METRICS_HOST
    # The table in a browser: pages served on http://<web_host>:<web_port> (None: not served here; 0: any free
    # port), and linked from Discord as <web_url>/… (None: no links; a process that only links, while another
    # serves, sets the URL alone). ``web_secret`` signs the links (empty: derived from the token).
    web_port: int | None = None
    web_host: str = DEFAULT_WEB_HOST
    web_url: str | None = None
    web_secret: str = field(default="", repr=False)
    # Reverse proxies in front of the pages (networks, as text): a request from one of them counts against
    # the limits of the client the proxy names in X-Forwarded-For, not against the proxy's own address.
    web_proxies: tuple[str, ...] = ()
    # The application's OAuth2 client secret (Developer Portal -> OAuth2): with the pages served, the table
    # opens as a Discord Activity, whose players sign in by OAuth2 (empty: no Activity).
    client_secret: str = field(default="", repr=False)
    # The ``*_FILE`` variables a secret was read from (``DISCORD_TOKEN_FILE`` …), for ``python -m bot check``.
    from_files: tuple[str, ...] = ()

    @property
    def web_links(self) -> str | None:
        """The address the pages are linked by (no trailing slash), or None when the bot links none: the
        URL given, else this process's own server (an address only this machine may open)."""
        if self.web_url:
            return self.web_url
        if self.web_port is None:
            return None
        host = "127.0.0.1" if self.web_host in ("0.0.0.0", "::") else self.web_host
        return f"http://{host}:{self.web_port}" if self.web_port else None

    @property
    def secrets(self) -> list[str]:
        """What no log line may show: the token, and the database password — in the address or as a
        ``password=`` parameter (both are PostgreSQL's) — as written and decoded."""
        found = [self.token, *(secret for secret in (self.web_secret, self.client_secret) if secret)]
        if self.database_url:
            parts = urlsplit(self.database_url)
            written = [parts.password or ""]
            for pair in parts.query.split("&"):
                key, _, value = pair.partition("=")
                if unquote(key) == "password":
                    written.append(value)
            for value in written:
                if value:
                    found += [value, unquote(value), unquote_plus(value)]
        return list(dict.fromkeys(found))

    @property
    def shards(self) -> tuple[int, tuple[int, ...]] | None:
        """(shard count, this process's shard ids) when it runs only some shards; None when it runs all."""
        if self.shard_ids is None or self.shard_count is None:
            return None
        return self.shard_count, self.shard_ids

    def owns(self, guild_id: int) -> bool:
        """Whether this process runs the shard Discord puts the guild on (its timers and lobbies are ours)."""
        shards = self.shards
        return shards is None or (guild_id >> 22) % shards[0] in shards[1]

    @property
    def budget_per_process(self) -> float:
        """This process's share of the global budget: split among the processes that run the shards, each
        running as many as this one (all of them: the whole budget)."""
        shards = self.shards
        processes = 1 if shards is None else max(1, -(-shards[0] // max(1, len(shards[1]))))
        return self.global_budget / processes

    @property
    def first_shard(self) -> bool:
        """Whether this process runs shard 0, which gets every DM: it alone does the once-per-bot chores."""
        return self.shard_ids is None or 0 in self.shard_ids

    @property
    def heartbeat_path(self) -> Path:
        """The heartbeat file the running bot writes and ``python -m bot health`` reads."""
        return self.health_path or self.db_path.parent / HEALTH_FILE


def _number(env: Mapping[str, str], name: str, unit: str) -> tuple[str, float] | None:
    """The variable as written and as a number of ``unit``; None when it is unset or blank."""
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        return raw, float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number of {unit}, got {raw!r}.") from None


def _minutes(env: Mapping[str, str], name: str, default: float, *, allow_zero: bool) -> float:
    read = _number(env, name, "minutes")
    if read is None:
        return default
    raw, value = read
    if value != value or value in (float("inf"), float("-inf")):
        raise SettingsError(f"{name} must be a finite number of minutes, got {raw!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        need = "0 or more (0 = untimed)" if allow_zero else "more than 0"
        raise SettingsError(f"{name} must be {need}, got {raw!r}.")
    return int(value) if value.is_integer() else value


def _count(env: Mapping[str, str], name: str, default: int, *, most: int = 10_000) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= most:
        raise SettingsError(f"{name} must be a whole number from 1 to {most}, got {raw!r}.")
    return int(raw)


def read_secret_file(name: str, path: str) -> str:
    """The secret in the file ``path`` (named by the variable ``name``), without one final line break."""
    try:
        with open(Path(path).expanduser(), encoding="utf-8") as file:
            text = file.read(SECRET_FILE_MOST + 3)
    except OSError as err:
        why = err.strerror or err.__class__.__name__
        raise SettingsError(
            f"{name} names {path!r}, which cannot be read ({why}): with Docker secrets the file must exist "
            "and be readable by the bot's user (README, Configuration)."
        ) from None
    except UnicodeDecodeError:
        raise SettingsError(f"{name} names {path!r}, which is not UTF-8 text.") from None
    for end in ("\r\n", "\n"):
        if text.endswith(end):
            text = text[: -len(end)]
            break
    if len(text) > SECRET_FILE_MOST:
        raise SettingsError(f"{name} names {path!r}, which holds more than {SECRET_FILE_MOST} characters.")
    return text


def _secret(env: Mapping[str, str], name: str) -> tuple[str, bool]:
    """``name``'s value (spaces around it dropped) or, where ``<name>_FILE`` is set instead, the content of
    the file it names; and whether it came from the file. Both set is a configuration error."""
    value = env.get(name, "").strip()
    path = env.get(f"{name}_FILE", "").strip()
    if not path:
        return value, False
    if value:
        raise SettingsError(
            f"{name} and {name}_FILE are both set: keep one (the file, with Docker secrets), "
            f"and remove {name} from .env and the environment."
        )
    return read_secret_file(f"{name}_FILE", path), True


def settings_from_env(env: Mapping[str, str]) -> Settings:
    """Validate a mapping of environment variables; creates the database's folder."""
    token, token_file = _secret(env, "DISCORD_TOKEN")
    if not token:
        if token_file:
            raise SettingsError(
                f"DISCORD_TOKEN_FILE names {env['DISCORD_TOKEN_FILE'].strip()!r}, which is empty: put the "
                "bot token in it (README, Configuration)."
            )
        raise MissingTokenError(TOKEN_HELP)
    if any(ch.isspace() for ch in token):
        where = "DISCORD_TOKEN_FILE's file holds" if token_file else "DISCORD_TOKEN contains"
        raise SettingsError(f"{where} spaces or line breaks; paste the token alone.")

    level = (env.get("TAVERN_LOG_LEVEL", "").strip() or "INFO").upper()
    if level not in LOG_LEVELS:
        raise SettingsError(f"TAVERN_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {level!r}.")

    raw_guild = env.get("TAVERN_DEV_GUILD_ID", "").strip()
    dev_guild_id: int | None = None
    if raw_guild:
        if not raw_guild.isdigit() or int(raw_guild) <= 0:
            raise SettingsError(
                f"TAVERN_DEV_GUILD_ID must be a server id (digits only; right-click the server -> Copy "
                f"Server ID with Developer Mode on), got {raw_guild!r}."
            )
        dev_guild_id = int(raw_guild)

    db_path = _db_path(env)
    if db_path.exists() and db_path.is_dir():
        raise SettingsError(f"TAVERN_DB_PATH must name a file, but {str(db_path)!r} is a folder.")
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise SettingsError(
            f"Cannot create the folder for TAVERN_DB_PATH ({db_path.parent}): {err}"
        ) from None

    database_url, password_file = _database(env)
    web = _web(env)
    from_files = tuple(
        name
        for name, read in (
            ("DISCORD_TOKEN_FILE", token_file),
            ("TAVERN_WEB_SECRET_FILE", web.pop("web_secret_file")),
            ("TAVERN_CLIENT_SECRET_FILE", web.pop("client_secret_file")),
            ("TAVERN_DATABASE_PASSWORD_FILE", password_file),
        )
        if read
    )
    return Settings(
        token=token,
        db_path=db_path,
        log_level=level,
        dev_guild_id=dev_guild_id,
        challenge_minutes=_minutes(env, "TAVERN_CHALLENGE_MINUTES", 10, allow_zero=False),
        lobby_minutes=_minutes(env, "TAVERN_LOBBY_MINUTES", 15, allow_zero=False),
        nudge_minutes=_minutes(env, "TAVERN_NUDGE_MINUTES", 10, allow_zero=True),
        claim_minutes=_minutes(env, "TAVERN_CLAIM_MINUTES", 60, allow_zero=True),
        openings_per_minute=_count(env, "TAVERN_OPENINGS_PER_MINUTE", 3),
        calculations_per_minute=_count(env, "TAVERN_CALCULATIONS_PER_MINUTE", 10),
        health_path=health_path_from_env(env),
        bot_delay=_seconds(env, "TAVERN_BOT_DELAY", 1.5),
        expert_seconds=_seconds(env, "TAVERN_EXPERT_SECONDS", EXPERT_SECONDS, most=10),
        coalesce_seconds=_seconds(env, "TAVERN_COALESCE_SECONDS", 5.0),
        attention_seconds=_seconds(env, "TAVERN_ATTENTION_SECONDS", 60.0, most=3600),
        global_budget=_count(env, "TAVERN_GLOBAL_BUDGET", 45, most=50),
        threads=_switch(env, "TAVERN_THREADS", True),
        suit_emojis=_switch(env, "TAVERN_SUIT_EMOJIS", True),
        rules_url=_url(env, "TAVERN_RULES_URL"),
        database_url=database_url,
        database_pool=_count(env, "TAVERN_DATABASE_POOL", 10, most=100),
        log_format=_log_format(env),
        metrics_port=_port(env, "TAVERN_METRICS_PORT"),
        metrics_host=_host(env, "TAVERN_METRICS_HOST", DEFAULT_METRICS_HOST),
        from_files=from_files,
        **web,
        **_shards(env),
    )


def _web(env: Mapping[str, str]) -> dict[str, Any]:
    """TAVERN_WEB_PORT, TAVERN_WEB_HOST, TAVERN_WEB_URL, TAVERN_WEB_SECRET, TAVERN_WEB_PROXIES and
    TAVERN_CLIENT_SECRET (the two secrets, or their ``_FILE``): where the pages listen, the address people
    reach them by (else this machine's, which only it can open), the links' key, the reverse proxies whose
    X-Forwarded-For is believed, and the Activity's OAuth2 secret."""
    port = _port(env, "TAVERN_WEB_PORT")
    host = _host(env, "TAVERN_WEB_HOST", DEFAULT_WEB_HOST)
    url = _url(env, "TAVERN_WEB_URL", "the address people open the pages at")
    if url is not None and len(url) > WEB_URL_MOST:
        raise SettingsError(
            f"TAVERN_WEB_URL must be at most {WEB_URL_MOST} characters: a link is that and its token, and "
            "Discord takes 512."
        )
    secret, secret_file = _secret(env, "TAVERN_WEB_SECRET")
    if secret and len(secret) < 16:
        raise SettingsError(
            "TAVERN_WEB_SECRET must be at least 16 characters (or empty: derived from the token)."
        )
    proxies = []
    for part in env.get("TAVERN_WEB_PROXIES", "").split(","):
        if part.strip():
            try:
                proxies.append(str(ipaddress.ip_network(part.strip(), strict=False)))
            except ValueError:
                raise SettingsError(
                    f"TAVERN_WEB_PROXIES must list addresses or networks such as 127.0.0.1 or 10.0.0.0/8, "
                    f"got {part.strip()!r}."
                ) from None
    client_secret, client_file = _secret(env, "TAVERN_CLIENT_SECRET")
    return {
        "web_port": port,
        "web_host": host,
        "web_url": url,
        "web_secret": secret,
        "web_proxies": tuple(proxies),
        "web_secret_file": secret_file,
        "client_secret": client_secret,
        "client_secret_file": client_file,
    }


def _log_format(env: Mapping[str, str]) -> str:
    raw = env.get("TAVERN_LOG_FORMAT", "").strip().lower() or "text"
    if raw not in LOG_FORMATS:
        raise SettingsError(f"TAVERN_LOG_FORMAT must be text or json, got {raw!r}.")
    return raw


def _port(env: Mapping[str, str], name: str) -> int | None:
    """A TCP port to listen on; None when unset (the service is off)."""
    raw = env.get(name, "").strip()
    if not raw:
        return None
    if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= 65535:
        raise SettingsError(f"{name} must be a port number from 1 to 65535 (empty: off), got {raw!r}.")
    return int(raw)


def _host(env: Mapping[str, str], name: str, default: str) -> str:
    """An address to listen on (an IP address or a host name; 0.0.0.0 for every interface)."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    if len(raw) > 253 or not raw.isascii() or any(ch.isspace() or ch in "/@?#" for ch in raw):
        raise SettingsError(
            f"{name} must be an address to listen on, such as 127.0.0.1 or 0.0.0.0, got {raw!r}."
        )
    return raw


def _database(env: Mapping[str, str]) -> tuple[str | None, bool]:
    """TAVERN_DATABASE_URL, with the password from TAVERN_DATABASE_PASSWORD_FILE put in where that is set
    (the address then names the user and no password); and whether it was."""
    url = _database_url(env)
    path = env.get("TAVERN_DATABASE_PASSWORD_FILE", "").strip()
    if not path:
        return url, False
    if url is None:
        raise SettingsError(
            "TAVERN_DATABASE_PASSWORD_FILE needs TAVERN_DATABASE_URL, the address without the password "
            "(postgresql://USER@HOST:5432/DATABASE)."
        )
    scheme, _, rest = url.partition("://")
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    credentials, at, location = rest[:cut].rpartition("@")
    location += rest[cut:]
    parts = urlsplit(url)
    query_password = any(
        unquote(pair.partition("=")[0]) == "password" for pair in parts.query.split("&") if pair
    )
    if not at or not credentials or ":" in credentials or query_password:
        raise SettingsError(
            "TAVERN_DATABASE_PASSWORD_FILE is set, so TAVERN_DATABASE_URL must name the user and no "
            "password: postgresql://USER@HOST:5432/DATABASE (the password is the file's)."
        )
    password = read_secret_file("TAVERN_DATABASE_PASSWORD_FILE", path)
    if not password:
        raise SettingsError(f"TAVERN_DATABASE_PASSWORD_FILE names {path!r}, which is empty.")
    return f"{scheme}://{credentials}:{quote(password, safe='')}@{location}", True


def _database_url(env: Mapping[str, str]) -> str | None:
    """A PostgreSQL address, checked without ever echoing it (it may carry a password)."""
    raw = env.get("TAVERN_DATABASE_URL", "").strip()
    if not raw:
        return None
    scheme, sep, rest = raw.partition("://")
    if not is_postgres_url(raw):
        shown = f"{scheme}://" if sep else "no scheme"
        raise SettingsError(
            "TAVERN_DATABASE_URL must be a PostgreSQL address such as "
            f"postgresql://tavern:PASSWORD@db.example:5432/tavern (got {shown}); leave it empty to use "
            "the SQLite file TAVERN_DB_PATH."
        )
    host = rest.rpartition("@")[2].partition("/")[0].partition("?")[0]
    if not (host or "host=" in rest) or any(ch.isspace() for ch in raw):
        raise SettingsError(
            "TAVERN_DATABASE_URL must name the server: postgresql://USER:PASSWORD@HOST:PORT/DATABASE."
        )
    return raw


def _shards(env: Mapping[str, str]) -> dict[str, Any]:
    """TAVERN_SHARD_COUNT and TAVERN_SHARD_IDS ("0,1" or "2-3"): the shards this process runs."""
    raw_count = env.get("TAVERN_SHARD_COUNT", "").strip()
    raw_ids = env.get("TAVERN_SHARD_IDS", "").strip()
    if not raw_count:
        if raw_ids:
            raise SettingsError(
                "TAVERN_SHARD_IDS needs TAVERN_SHARD_COUNT (how many shards there are in all)."
            )
        return {}
    count = _count(env, "TAVERN_SHARD_COUNT", 1)
    if not raw_ids:
        return {"shard_count": count}
    ids: set[int] = set()
    for part in raw_ids.split(","):
        first, dash, last = part.strip().partition("-")
        if not (first.isascii() and first.isdigit() and (not dash or (last.isascii() and last.isdigit()))):
            raise SettingsError(
                f"TAVERN_SHARD_IDS must list shard numbers such as 0,1 or 0-3, got {raw_ids!r}."
            )
        ids.update(range(int(first), int(last if dash else first) + 1))
    if not ids or max(ids) >= count:
        raise SettingsError(
            f"TAVERN_SHARD_IDS must be shard numbers from 0 to {count - 1} "
            f"(TAVERN_SHARD_COUNT is {count}), got {raw_ids!r}."
        )
    return {"shard_count": count, "shard_ids": tuple(sorted(ids))}


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"{name} must be on or off (true/false), got {raw!r}.")


def _url(env: Mapping[str, str], name: str, what: str = "the folder where docs/ is published") -> str | None:
    raw = env.get(name, "").strip()
    if not raw:
        return None
    if not raw.startswith(("https://", "http://")) or any(ch.isspace() for ch in raw) or len(raw) > 500:
        raise SettingsError(f"{name} must be a web address starting with https:// ({what}), got {raw!r}.")
    return raw.rstrip("/")


def _seconds(env: Mapping[str, str], name: str, default: float, *, most: float = 60) -> float:
    read = _number(env, name, "seconds")
    if read is None:
        return default
    raw, value = read
    if not 0 <= value <= most:
        raise SettingsError(f"{name} must be between 0 and {most:g} seconds, got {raw!r}.")
    return value


def _db_path(env: Mapping[str, str]) -> Path:
    return Path(env.get("TAVERN_DB_PATH", "").strip() or DEFAULT_DB_PATH).expanduser()


def health_path_from_env(env: Mapping[str, str]) -> Path:
    """The heartbeat file's path without the rest of the settings: the health check needs no token."""
    raw = env.get("TAVERN_HEALTH_PATH", "").strip()
    return Path(raw).expanduser() if raw else _db_path(env).parent / HEALTH_FILE


def retired_variables(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """Every variable set that nothing reads any more, with where its value belongs now."""
    return [(name, RETIRED_VARIABLES[name]) for name in sorted(env) if name in RETIRED_VARIABLES]


def unknown_variables(env: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """Every ``TAVERN_*`` variable set that nothing reads, with the setting it most likely meant (or None):
    a typo leaves a setting at its default without a word."""
    known = (*VARIABLES, *OTHER_VARIABLES, *RETIRED_VARIABLES)
    found = []
    for name in sorted(env):
        if name.startswith("TAVERN_") and name not in known and not name.startswith(OTHER_PREFIXES):
            close = difflib.get_close_matches(name, VARIABLES, n=1, cutoff=0.75)
            found.append((name, close[0] if close else None))
    return found


def load_settings(dotenv_path: str | Path | None = None) -> Settings:
    """Read ``.env`` (without overriding variables already set) and then the process environment."""
    load_dotenv(dotenv_path=dotenv_path or Path.cwd() / ".env", override=False)
    return settings_from_env(os.environ)


def load_database(dotenv_path: str | Path | None = None) -> tuple[Path, str | None]:
    """Like :func:`load_settings`, but only where the games are: the SQLite file, and the PostgreSQL address
    if there is one (checked, never echoed). No token needed; no folder is created."""
    load_dotenv(dotenv_path=dotenv_path or Path.cwd() / ".env", override=False)
    return _db_path(os.environ), _database(os.environ)[0]
