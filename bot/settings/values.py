"""How one setting is read: a number, a count, a switch, an address, a port; each refusal one sentence that
names the variable (``SettingsError``)."""

from __future__ import annotations

from collections.abc import Mapping


def is_postgres_url(location: object) -> bool:
    """Whether ``open_store`` takes ``location`` for a PostgreSQL server (else it is a SQLite file)."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


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


def _seconds(env: Mapping[str, str], name: str, default: float, *, most: float = 60) -> float:
    read = _number(env, name, "seconds")
    if read is None:
        return default
    raw, value = read
    if not 0 <= value <= most:
        raise SettingsError(f"{name} must be between 0 and {most:g} seconds, got {raw!r}.")
    return value


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


class SettingsError(ValueError):
    """A configuration value is missing or malformed; ``str(err)`` tells the operator what to fix."""
