"""The web pages' addresses: each one carries what it opens and a signature, so nothing of the store can be
reached by guessing (``/t/41`` is not a page; ``/t/41.1767225600.Zq…`` is, until its time runs out).

- a **live table** (``/t/<game>.<expires>.<sig>``) expires: whoever was shown the link in Discord may watch
  for a while (``LIVE_SECONDS``), and the summary or ``/tavern tables`` hands out a fresh one;
- a **replay** of a finished game (``/r/<game>.<sig>``) never expires: it is meant to be shared;
- a **server page** (``/s/<guild>.<expires>.<sig>``) lists a server's live tables, where its admins allow it;
- a **tournament page** (``/e/<event>.<expires>.<sig>``) shows an event's standings and matches; it expires
  as a live table's does, and each post of the event (a round, the standings, the results) signs a fresh one;
- an **Activity session** (``<user>.<instance>.<expires>.<sig>``, never in an address: the Activity's socket
  sends it as its first frame) says which Discord user, signed in through OAuth2 in which Activity instance,
  the page speaks for, for ``SESSION_SECONDS``.

The signature is HMAC-SHA256 over the kind, the id and the time, keyed by ``TAVERN_WEB_SECRET`` (else a key
derived from the bot's token, so every process of one bot signs alike), cut to 132 bits in URL-safe base64.
A token is parsed strictly — ASCII digits of bounded length, the exact signature length — and compared in
constant time; anything else is simply not a link.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["t", "r", "s", "e"]  # live table, replay, server page, tournament (event) page

LIVE_SECONDS = 7 * 24 * 3600  # a live table's link lasts a week: longer than nearly any game's pause
SERVER_SECONDS = 24 * 3600  # a server page's link lasts a day (it lists what is live now)
EVENT_SECONDS = LIVE_SECONDS  # a tournament page's: a week, as long as a match's table may wait
LASTS = {"t": LIVE_SECONDS, "s": SERVER_SECONDS, "e": EVENT_SECONDS}  # each expiring kind's lifetime
SESSION_SECONDS = 3600  # an Activity's session; then the page signs in again (OAuth2 with prompt "none")
SIG_CHARS = 22  # 132 bits of the HMAC, URL-safe base64

_EXPIRING = re.compile(
    r"(?P<id>[1-9][0-9]{0,18})\.(?P<exp>[1-9][0-9]{0,10})\.(?P<sig>[A-Za-z0-9_-]{22})", re.ASCII
)
_FOREVER = re.compile(r"(?P<id>[1-9][0-9]{0,18})\.(?P<sig>[A-Za-z0-9_-]{22})", re.ASCII)
_SESSION = re.compile(
    r"(?P<user>[1-9][0-9]{0,19})\.(?P<instance>[A-Za-z0-9_-]{1,64})\.(?P<exp>[1-9][0-9]{0,10})"
    r"\.(?P<sig>[A-Za-z0-9_-]{22})",
    re.ASCII,
)
INSTANCE = re.compile(r"[A-Za-z0-9_-]{1,64}", re.ASCII)  # an Activity instance id as this side takes one
MAX_ID = 2**63 - 1


def key_from(secret: str, token: str) -> bytes:
    """The links' key: the secret given, else one derived from the bot's token (never the token itself)."""
    if secret:
        return hashlib.sha256(b"tavern-web-links:" + secret.encode()).digest()
    return hmac.new(token.encode(), b"tavern-web-links", hashlib.sha256).digest()


@dataclass(frozen=True)
class Links:
    """Signs and reads the pages' addresses. ``base`` is where people open them (no trailing slash)."""

    base: str
    key: bytes = field(repr=False)

    def _sig(self, kind: Kind, ident: int, expires: int | None) -> str:
        return self._signed(f"{kind}:{ident}:{expires if expires is not None else '-'}")

    def _signed(self, message: str) -> str:
        """The signature of ``message``; each kind's messages start with its own letter, so a token of one
        kind never reads as another's."""
        digest = hmac.new(self.key, message.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode()[:SIG_CHARS]

    def token(self, kind: Kind, ident: int, now: float) -> str:
        """The path's last part for ``kind`` (a replay never expires; the others from ``now``)."""
        if kind == "r":
            return f"{ident}.{self._sig(kind, ident, None)}"
        # from the next whole hour: a message re-signed within the hour keeps the same link (no edit for it)
        expires = (int(now) // 3600 + 1) * 3600 + LASTS[kind]
        return f"{ident}.{expires}.{self._sig(kind, ident, expires)}"

    def url(self, kind: Kind, ident: int, now: float) -> str:
        return f"{self.base}/{kind}/{self.token(kind, ident, now)}"

    def live(self, game_id: int, now: float) -> str:
        return self.url("t", game_id, now)

    def replay(self, game_id: int) -> str:
        return self.url("r", game_id, 0)

    def server(self, guild_id: int, now: float) -> str:
        return self.url("s", guild_id, now)

    def tournament(self, tournament_id: int, now: float) -> str:
        return self.url("e", tournament_id, now)

    def read(self, kind: Kind, token: object, now: float) -> int | None:
        """The id a token opens, or None: not a token of this kind, a wrong signature, or expired."""
        if not isinstance(token, str) or len(token) > 64:
            return None
        match = (_FOREVER if kind == "r" else _EXPIRING).fullmatch(token)
        if match is None or int(match["id"]) > MAX_ID:
            return None
        ident = int(match["id"])
        expires = None if kind == "r" else int(match["exp"])
        if not hmac.compare_digest(match["sig"], self._sig(kind, ident, expires)):
            return None
        if expires is not None and expires <= now:
            return None
        return ident

    def session(self, user_id: int, instance: str, now: float) -> str:
        """An Activity session for ``user_id`` in ``instance`` (checked with Discord before this is made),
        good for ``SESSION_SECONDS``."""
        if not INSTANCE.fullmatch(instance) or not 0 < user_id <= MAX_ID:
            raise ValueError("not a user and instance a session can name")
        expires = int(now) + SESSION_SECONDS
        return f"{user_id}.{instance}.{expires}.{self._signed(f'a:{user_id}:{instance}:{expires}')}"

    def read_session(self, token: object, now: float) -> tuple[int, str] | None:
        """The user and instance a session token names, or None: not one, forged, or expired."""
        if not isinstance(token, str) or len(token) > 128:
            return None
        match = _SESSION.fullmatch(token)
        if match is None or int(match["user"]) > MAX_ID:
            return None
        user, instance, expires = int(match["user"]), match["instance"], int(match["exp"])
        if not hmac.compare_digest(match["sig"], self._signed(f"a:{user}:{instance}:{expires}")):
            return None
        return (user, instance) if now < expires else None

    def expired(self, kind: Kind, token: object, now: float) -> bool:
        """Whether ``token`` is a genuine link whose time ran out (its page says so, not "not found")."""
        if kind == "r" or not isinstance(token, str) or len(token) > 64:
            return False
        match = _EXPIRING.fullmatch(token)
        if match is None or int(match["id"]) > MAX_ID:
            return False
        ident, expires = int(match["id"]), int(match["exp"])
        return hmac.compare_digest(match["sig"], self._sig(kind, ident, expires)) and expires <= now
