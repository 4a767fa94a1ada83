"""Runtime configuration, read once from the environment (and ``.env``) at start-up.

Every value is validated here so a typo in ``.env`` fails at launch with a sentence naming the variable,
instead of surfacing later as a confusing crash inside a game.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, unquote_plus, urlsplit

from dotenv import load_dotenv

from bot.settings.sections import (
    DEFAULT_BACKUP_EVERY,
    DEFAULT_BACKUP_KEEP,
    DEFAULT_WEB_HOST,
    _backups,
    _database,
    _secret,
    _shards,
    _web,
)
from bot.settings.values import (
    SettingsError as SettingsError,
)
from bot.settings.values import (
    _count,
    _host,
    _minutes,
    _port,
    _seconds,
    _switch,
    _url,
)
from bot.settings.values import (
    is_postgres_url as is_postgres_url,
)

DEFAULT_DB_PATH = "data/tavern.sqlite3"
HEALTH_FILE = "health.json"  # next to the database unless TAVERN_HEALTH_PATH says otherwise
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
# The metrics endpoint answers anyone who reaches it, without a password: by default only this machine.
DEFAULT_METRICS_HOST = "127.0.0.1"

# Every variable the settings read: ``python -m bot check`` names any other ``TAVERN_*`` as a likely typo.
EXPERT_SECONDS = 0.3  # the most an expert thinks about one decision, by default (the terminal's always)
VARIABLES: tuple[str, ...] = (
    "DISCORD_TOKEN",
    "DISCORD_TOKEN_FILE",
    "TAVERN_ATTENTION_SECONDS",
    "TAVERN_BACKUP_DIR",
    "TAVERN_BACKUP_EVERY",
    "TAVERN_BACKUP_KEEP",
    "TAVERN_BOT_DELAY",
    "TAVERN_CALCULATIONS_PER_MINUTE",
    "TAVERN_CHALLENGE_MINUTES",
    "TAVERN_CLIENT_SECRET",
    "TAVERN_CLIENT_SECRET_FILE",
    "TAVERN_CLAIM_MINUTES",
    "TAVERN_COALESCE_SECONDS",
    "TAVERN_COMMIT",
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
    # Scheduled backups of the SQLite file (bot.services.backups): the folder (None: off), how often (seconds)
    # and what is kept: (unit, count) pairs, unit h, d, w or m, e.g. 7 daily and 4 weekly.
    backup_dir: Path | None = None
    backup_every: float = DEFAULT_BACKUP_EVERY
    backup_keep: tuple[tuple[str, int], ...] = DEFAULT_BACKUP_KEEP

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


def settings_from_env(env: Mapping[str, str]) -> Settings:
    """Validate a mapping of environment variables; creates the database's folder."""
    token, token_file = _token(env)
    db_path = _db_file(env)
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
        log_level=_log_level(env),
        dev_guild_id=_dev_guild(env),
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
        **_backups(env, database_url),
    )


def _token(env: Mapping[str, str]) -> tuple[str, bool]:
    """The bot token, and whether it came from DISCORD_TOKEN_FILE's file."""
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
    return token, token_file


def _log_level(env: Mapping[str, str]) -> str:
    level = (env.get("TAVERN_LOG_LEVEL", "").strip() or "INFO").upper()
    if level not in LOG_LEVELS:
        raise SettingsError(f"TAVERN_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {level!r}.")
    return level


def _dev_guild(env: Mapping[str, str]) -> int | None:
    raw_guild = env.get("TAVERN_DEV_GUILD_ID", "").strip()
    if not raw_guild:
        return None
    if not raw_guild.isdigit() or int(raw_guild) <= 0:
        raise SettingsError(
            f"TAVERN_DEV_GUILD_ID must be a server id (digits only; right-click the server -> Copy "
            f"Server ID with Developer Mode on), got {raw_guild!r}."
        )
    return int(raw_guild)


def _db_file(env: Mapping[str, str]) -> Path:
    """TAVERN_DB_PATH, its folder made."""
    db_path = _db_path(env)
    if db_path.exists() and db_path.is_dir():
        raise SettingsError(f"TAVERN_DB_PATH must name a file, but {str(db_path)!r} is a folder.")
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise SettingsError(
            f"Cannot create the folder for TAVERN_DB_PATH ({db_path.parent}): {err}"
        ) from None
    return db_path


def _log_format(env: Mapping[str, str]) -> str:
    raw = env.get("TAVERN_LOG_FORMAT", "").strip().lower() or "text"
    if raw not in LOG_FORMATS:
        raise SettingsError(f"TAVERN_LOG_FORMAT must be text or json, got {raw!r}.")
    return raw


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


def load_token(dotenv_path: str | Path | None = None) -> str | None:
    """The bot token (DISCORD_TOKEN or DISCORD_TOKEN_FILE's file), or None: for a command that can use it
    without needing it (the restore drill checks snapshots with the key made from it)."""
    load_dotenv(dotenv_path=dotenv_path or Path.cwd() / ".env", override=False)
    return _secret(os.environ, "DISCORD_TOKEN")[0] or None


def load_database(dotenv_path: str | Path | None = None) -> tuple[Path, str | None]:
    """Like :func:`load_settings`, but only where the games are: the SQLite file, and the PostgreSQL address
    if there is one (checked, never echoed). No token needed; no folder is created."""
    load_dotenv(dotenv_path=dotenv_path or Path.cwd() / ".env", override=False)
    return _db_path(os.environ), _database(os.environ)[0]
