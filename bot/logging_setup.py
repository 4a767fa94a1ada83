"""Logging for the bot process, with secrets scrubbed from every log record.

Redaction happens in the log-record factory, so it covers records from every logger (discord.py, aiohttp,
ours) and every handler, including handlers added later, and formatted tracebacks too. It scrubs the secrets
registered at start (the bot token, the database password) and, by their shape, interaction tokens: each
lets whoever holds it answer and edit as the bot for 15 minutes, and discord.py names them in the URLs it
logs (``/interactions/{id}/{token}/callback``, ``/webhooks/{application}/{token}/…``: every interaction
request at DEBUG, and rate-limit warnings) and in the gateway events it logs at DEBUG (``'token': …``).
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

REDACTED = "[REDACTED]"

_lock = threading.Lock()
_secrets: set[str] = set()
_previous_factory: Callable[..., logging.LogRecord] | None = None


# An interaction (or webhook) token where discord.py writes one: in a URL after the interaction's or
# application's id, or as the "token" field of an event it logs.
_TOKEN_SHAPES = re.compile(
    r"""(?P<lead>/(?:interactions|webhooks)/[0-9]+/|['"]token['"]:\s*['"])[^/?#\s'"]+"""
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` without the registered secrets, ``secrets`` and anything shaped like an interaction token."""
    for secret in (*_secrets, *secrets):
        if secret and secret in text:
            text = text.replace(secret, REDACTED)
    if "token" in text or "/interactions/" in text or "/webhooks/" in text:
        text = _TOKEN_SHAPES.sub(lambda m: m["lead"] + REDACTED, text)
    return text


def _redacting_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
    assert _previous_factory is not None
    record = _previous_factory(*args, **kwargs)
    try:
        message = record.getMessage()
    except Exception:  # a malformed call; keep the raw parts but still scrub them
        message = f"{record.msg} {record.args}"
    clean = redact(message)
    if clean != message or record.args:
        record.msg, record.args = clean, None
    if record.exc_info and record.exc_info[0] is not None:
        text = logging.Formatter().formatException(record.exc_info)
        record.exc_text = redact(text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    return record


def install_redaction(secrets: Iterable[str]) -> None:
    """Scrub ``secrets`` and interaction tokens from all future log records (idempotent; more secrets may
    be added by calling it again)."""
    global _previous_factory
    with _lock:
        _secrets.update(s for s in secrets if s)
        if _previous_factory is None:
            _previous_factory = logging.getLogRecordFactory()
            logging.setLogRecordFactory(_redacting_factory)


def uninstall_redaction() -> None:
    """Forget all secrets and restore the previous record factory (for tests)."""
    global _previous_factory
    with _lock:
        _secrets.clear()
        if _previous_factory is not None:
            logging.setLogRecordFactory(_previous_factory)
            _previous_factory = None


class JsonFormatter(logging.Formatter):
    """One JSON object per line (``TAVERN_LOG_FORMAT=json``), for a log collector that reads fields, not
    prose: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``, and ``exc_info`` / ``stack_info``
    as text when the record has them. The record factory has scrubbed every part already; a traceback
    formatted here is scrubbed too."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, str] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
            record.exc_text = redact(self.formatException(record.exc_info))
        if record.exc_text:
            entry["exc_info"] = record.exc_text
        if record.stack_info:
            entry["stack_info"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False)


def setup_logging(level: str, *, secrets: Iterable[str] = (), log_format: str = "text") -> logging.Handler:
    """Log to stderr at ``level``, as readable lines or (``log_format="json"``) one JSON object per line;
    returns the handler so callers (tests) can remove it."""
    install_redaction(secrets)
    handler = logging.StreamHandler(sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    # discord.py's HTTP chatter at DEBUG is huge and useless for operators.
    logging.getLogger("discord.http").setLevel(max(logging.INFO, logging.getLevelName(level)))
    return handler
