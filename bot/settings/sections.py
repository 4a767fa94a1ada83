"""The settings read as groups: the secrets (from a variable or the file a ``*_FILE`` variable names), the
database, the web pages, the shards and the scheduled backups."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from bot.settings.values import SettingsError, _count, _host, _port, _url, is_postgres_url

# The web pages (watch and replay in a browser) listen here unless TAVERN_WEB_HOST says otherwise: a reverse
# proxy in front gives them to the internet with TLS.
DEFAULT_WEB_HOST = "127.0.0.1"

SECRET_FILE_MOST = 4096  # characters a secret's file may hold (a token is about 70, a password 64)


WEB_URL_MOST = 400  # a link's address before its path and token (Discord takes 512 for a link button)


DEFAULT_BACKUP_EVERY = 86400.0  # a backup a day


DEFAULT_BACKUP_KEEP: tuple[tuple[str, int], ...] = (("d", 7), ("w", 4))  # 7 daily and 4 weekly


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


def _backups(env: Mapping[str, str], database_url: str | None) -> dict[str, Any]:
    """TAVERN_BACKUP_DIR, TAVERN_BACKUP_EVERY ("6h", "1d", "30m") and TAVERN_BACKUP_KEEP ("7d,4w")."""
    raw_dir = env.get("TAVERN_BACKUP_DIR", "").strip()
    every = _duration(env, "TAVERN_BACKUP_EVERY")
    keep = _keep(env, "TAVERN_BACKUP_KEEP")
    if not raw_dir:
        return {"backup_every": every, "backup_keep": keep}
    if database_url:
        raise SettingsError(
            "TAVERN_BACKUP_DIR backs up the SQLite file, but TAVERN_DATABASE_URL is set: back PostgreSQL up "
            "with pg_dump (docker-compose.scale.yml's backup profile; README, Backing up) and leave it "
            "empty."
        )
    folder = Path(raw_dir).expanduser()
    if folder.exists() and not folder.is_dir():
        raise SettingsError(f"TAVERN_BACKUP_DIR must name a folder, but {str(folder)!r} is a file.")
    return {"backup_dir": folder, "backup_every": every, "backup_keep": keep}


_DURATION_UNITS = {"m": 60.0, "h": 3600.0, "d": 86400.0}


def _duration(env: Mapping[str, str], name: str) -> float:
    """A span such as "30m", "6h" or "1d", from 15 minutes to 7 days; seconds."""
    raw = env.get(name, "").strip().lower()
    if not raw:
        return DEFAULT_BACKUP_EVERY
    unit = _DURATION_UNITS.get(raw[-1:])
    number = raw[:-1]
    if unit is None or not number.isascii() or not number.isdigit():
        raise SettingsError(
            f"{name} must be a whole number of minutes, hours or days, e.g. 6h or 1d; got {raw!r}."
        )
    seconds = int(number) * unit
    if not 15 * 60 <= seconds <= 7 * 86400:
        raise SettingsError(f"{name} must be from 15m to 7d, got {raw!r}.")
    return seconds


def _keep(env: Mapping[str, str], name: str) -> tuple[tuple[str, int], ...]:
    """Retention as restic's --keep-hourly/daily/weekly/monthly: "7d,4w" (h, d, w, m; each at most 1000)."""
    raw = env.get(name, "").strip().lower()
    if not raw:
        return DEFAULT_BACKUP_KEEP
    rules: dict[str, int] = {}
    for part in raw.replace(" ", "").split(","):
        number, unit = part[:-1], part[-1:]
        if unit not in "hdwm" or not unit or not number.isascii() or not number.isdigit():
            raise SettingsError(
                f"{name} must list how many hourly (h), daily (d), weekly (w) or monthly (m) backups to "
                f"keep, e.g. 7d,4w; got {raw!r}."
            )
        if unit in rules or not 1 <= int(number) <= 1000:
            raise SettingsError(f"{name} names each of h, d, w, m at most once, each 1 to 1000; got {raw!r}.")
        rules[unit] = int(number)
    return tuple(rules.items())


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
