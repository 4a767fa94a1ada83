"""Per-address limits for the web pages: one address can't take the server from everyone else.

Each address gets a token bucket for requests (``rate`` a second, up to ``burst`` at once) and, for the live
table's WebSockets, a count of open sockets (``sockets`` at most) and a bucket of openings (``opens`` a
second). A refused request costs one dictionary lookup and a few float operations: the server answers it
with a small body made once (429 and ``Retry-After``), never a page.

A request is charged what it costs, not one whatever it is: a page found kept (built before, for anyone)
costs 1, a card picture or a style sheet sent from memory ``FILE_COST``; a page that has to be built takes
``BUILD_COST`` more before it is built (an address that can't pay it is refused, and nothing is built), and
once built, the CPU its building took, at one page per ``UNIT_SECONDS``. ``RATE`` units a second is then a
tenth of a core at most, whatever an address asks for; what it owes beyond its bucket (``charge``) it waits
for, up to ``burst`` more.

Memory is bounded: the addresses live in an ordered dictionary, least recently seen first. An address idle
long enough that its buckets are full again is the same as one never seen, so it is dropped as new ones
come; and the table never holds more than ``most`` addresses (the least recently seen go first, unless a
socket of theirs is open: those are few, since each address has at most ``sockets``).

The address is the connection's peer, or behind a trusted reverse proxy the client it names
(``server.forwarded_client``). IPv6 addresses count by their /64 network, which one household or server
usually holds whole.
"""

from __future__ import annotations

import ipaddress
import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

RATE = 20.0  # requests a second per address, over time
BURST = 60.0  # requests at once (pages; a card picture, css or js counts as ``FILE_COST`` of one)
FILE_COST = 0.2  # what a file sent from memory counts (a page of 50 cards costs 11: a few pages at once)
BUILD_COST = 2.0  # what a page built now (not found kept) costs before it is built, besides its CPU
UNIT_SECONDS = 0.005  # the CPU one unit stands for: RATE units a second is a tenth of a core
SOCKETS = 8  # live tables one address may watch at once (tabs, a household behind one address)
OPENS = 2.0  # new sockets a second per address, over time
OPEN_BURST = 4.0
MOST = 50_000  # addresses remembered at most
MAX_HOPS = 32  # X-Forwarded-For entries read, nearest first (a chain of proxies is a few)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Networks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]


@dataclass
class _Seen:
    """One address: its request bucket, its socket-opening bucket, its open sockets, when last seen."""

    tokens: float
    opens: float
    at: float
    sockets: int = 0


def address_key(peer: str | None) -> str:
    """What a peer counts as: its IPv4 address, or its IPv6 /64 network (an IPv4-mapped one as IPv4)."""
    if not peer:
        return "-"
    try:
        ip = ipaddress.ip_address(peer.partition("%")[0])
    except ValueError:
        return peer[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return str(ip)


class Guard:
    """Request and socket limits per address; ``allow`` and ``open`` answer 0 (go) or the seconds to wait."""

    def __init__(
        self,
        *,
        rate: float = RATE,
        burst: float = BURST,
        sockets: int = SOCKETS,
        opens: float = OPENS,
        open_burst: float = OPEN_BURST,
        most: int = MOST,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate, self.burst, self.sockets = rate, burst, sockets
        self.opens, self.open_burst, self.most = opens, open_burst, most
        self.clock = clock
        # After this long unseen an address's buckets are full again (what it owed paid, up to a burst):
        # forgetting it changes nothing.
        self.idle = max(2 * burst / rate, open_burst / opens)
        self._seen: OrderedDict[str, _Seen] = OrderedDict()
        self.refused = 0  # requests and openings refused, for the operator and the benches

    def __len__(self) -> int:
        return len(self._seen)

    def _entry(self, key: str, now: float) -> _Seen:
        """The address's entry, refilled up to ``now`` and made the most recently seen."""
        seen = self._seen.get(key)
        if seen is None:
            self._forget_idle(now)
            seen = self._seen[key] = _Seen(self.burst, self.open_burst, now)
            return seen
        self._seen.move_to_end(key)
        elapsed = max(0.0, now - seen.at)
        seen.tokens = min(self.burst, seen.tokens + elapsed * self.rate)
        seen.opens = min(self.open_burst, seen.opens + elapsed * self.opens)
        seen.at = now
        return seen

    def _forget_idle(self, now: float) -> None:
        """Drop the least recently seen addresses that are idle (a few at a time, as new ones come), and
        any beyond ``most``. One with an open socket is kept (moved to the back)."""
        for _ in range(4):
            if not self._seen:
                return
            key, oldest = next(iter(self._seen.items()))
            if now - oldest.at < self.idle:
                break
            if oldest.sockets:
                self._seen.move_to_end(key)  # watching: kept, and out of the way of the idle ones
            else:
                del self._seen[key]
        kept = 0
        while len(self._seen) >= self.most and kept < len(self._seen):
            key, oldest = self._seen.popitem(last=False)
            if oldest.sockets:
                self._seen[key] = oldest
                kept += 1

    def allow(self, peer: str | None, cost: float = 1.0) -> float:
        """Count a request from ``peer`` (``cost``: a card picture or a style sheet, sent from memory, is
        a fraction of a page): 0 when it may go, else the seconds until it may."""
        seen = self._entry(address_key(peer), self.clock())
        if seen.tokens >= cost - 1e-9:  # (a fifth, five times, is one)
            seen.tokens -= cost
            return 0.0
        self.refused += 1
        return (cost - seen.tokens) / self.rate

    def charge(self, peer: str | None, cost: float) -> None:
        """Charge ``peer`` for work already done for it (a page's building, by its CPU): its bucket may go
        below zero, by a burst at most, and its next requests wait until it has refilled."""
        if cost > 0:
            seen = self._entry(address_key(peer), self.clock())
            seen.tokens = max(-self.burst, seen.tokens - cost)

    def open(self, peer: str | None) -> float:
        """Count one new WebSocket from ``peer``: 0 when it may open (``close`` it later), else the seconds
        to wait (it is at its sockets' limit, or opening too fast)."""
        seen = self._entry(address_key(peer), self.clock())
        if seen.sockets >= self.sockets:
            self.refused += 1
            return max(1.0, self.idle)
        if seen.opens < 1.0:
            self.refused += 1
            return (1.0 - seen.opens) / self.opens
        seen.opens -= 1.0
        seen.sockets += 1
        return 0.0

    def close(self, peer: str | None) -> None:
        """A socket ``open`` let through has closed."""
        seen = self._seen.get(address_key(peer))
        if seen is not None and seen.sockets > 0:
            seen.sockets -= 1


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))


# ------------------------------------------------------------------------------------ behind a proxy


def _address(text: str | None) -> IPAddress | None:
    try:
        return ipaddress.ip_address((text or "").partition("%")[0])
    except ValueError:
        return None


_BRACKETED = re.compile(r"\[([0-9A-Fa-f:.]{2,45}(?:%[0-9A-Za-z_.-]{1,16})?)\](?::([0-9]{1,5}))?", re.ASCII)
_V4_PORT = re.compile(r"([0-9]{1,3}(?:\.[0-9]{1,3}){3}):([0-9]{1,5})", re.ASCII)


def hop_address(hop: str) -> IPAddress | None:
    """The address of one ``X-Forwarded-For`` entry: ``1.2.3.4``, ``2001:db8::1``, with a port
    (``1.2.3.4:5678``, ``[2001:db8::1]:443``), or bracketed, quoted or not; None for anything else
    (``unknown``, an obfuscated name, a port past 65535)."""
    hop = hop.strip().strip('"')
    found = _address(hop)
    if found is not None:
        return found
    match = _BRACKETED.fullmatch(hop) or _V4_PORT.fullmatch(hop)
    if match is None or (match[2] is not None and int(match[2]) > 65535):
        return None
    return _address(match[1])


def forwarded_client(peer: str | None, forwarded: Sequence[str], proxies: Networks) -> str | None:
    """The address a request counts against: its peer's, or where the peer is a trusted reverse proxy
    (``TAVERN_WEB_PROXIES``), the nearest ``X-Forwarded-For`` entry that is not one, read from the right
    across every line of the header (a proxy may add a line of its own rather than extend the client's),
    without its port. Only the trusted proxies wrote what is right of the client; anything to its left the
    client may have written. An entry there that is no address (what the nearest proxy wrote can't be
    read) counts against the proxy."""
    if not proxies or not _within(peer, proxies):
        return peer
    hops: list[str] = []
    for line in reversed(forwarded):
        parts = line.rsplit(",", MAX_HOPS)
        hops.extend(reversed(parts[1:] if len(parts) > MAX_HOPS else parts))
        if len(hops) >= MAX_HOPS:
            break
    for hop in hops[:MAX_HOPS]:
        ip = hop_address(hop)
        if ip is None:
            return peer
        if not any(ip in n for n in proxies):
            return str(ip)
    return peer


def _within(text: str | None, networks: Networks) -> bool:
    ip = _address(text)
    return ip is not None and any(ip in n for n in networks)
