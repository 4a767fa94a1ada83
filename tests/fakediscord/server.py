"""A fake Discord (REST + gateway) on 127.0.0.1 that the unmodified discord.py client talks to.

Tests act as users (``slash``, ``click``, ``select``, ``submit_modal``) and read what the bot sent
(``channel_messages``, ``dms``, the returned :class:`InteractionResult`). As in Discord's client, a member is
offered only the top-level commands whose ``default_member_permissions`` they hold (``slash`` refuses the
others unless ``force``: what a modified client could still send). Discord's refusals that matter to
the bot are modelled: closed DMs (50007), missing permissions (50013), expired interaction tokens
(10015 Unknown Webhook), double acknowledgement (40060), late callbacks (10062), and every message body
Discord would refuse (50035 Invalid Form Body, 50006 empty message; see validate.py). ``rate_limit_next``
answers one request 429 as Discord does, so discord.py waits and retries it; and Discord's global rate limit
holds for every request outside the interaction endpoints (``global_limit`` a second, else a global 429).

Group DMs (``add_group_dm``, type 3) are where a user-installed app lives without being a member: their
interactions carry ``context`` 2 and ``authorizing_integration_owners`` ``{"1": user_id}``, every channel REST
route there answers 403 50001 Missing Access (kept in ``absent_refusals``), and each interaction may send at
most 5 follow-ups (400 40094). Interaction tokens die ``token_life`` (15 minutes) after they were issued, on
the fake's ``clock`` (``time.monotonic`` unless a test shares the bot's injectable clock); ``token_ages``
keeps how old each token was whenever the bot used it. ``user_command`` runs a user context-menu command
(type 2) on a target, offered only where the command's ``contexts`` and ``integration_types`` allow.

Public threads (type 11) follow Discord's threads topic: the bot's permissions there are its parent's
(CREATE_PUBLIC_THREADS to start one, SEND_MESSAGES_IN_THREADS to talk), a thread shares its starter message's
id and a message starts at most one (400 160004), archived threads take no edit or delete (400 50083) while a
new message unarchives them unless they are locked (then 50083, or 403 160005 when locked but active) for
anyone without MANAGE_THREADS. Deleted channels and threads answer 404 10003. ``remove_member`` makes a user
leave a server; the bot cannot DM someone it shares no server with (403 50007). ``fail_next`` makes one
request fail as a passing Discord fault would.

Files are taken as Discord's "Uploading Files" reference describes: ``multipart/form-data`` with the JSON in
``payload_json`` and each file in a ``files[n]`` part, described by the payload's ``attachments`` entries
(see ``_plan_attachments`` for creates and edits). Each file may be at most ``upload_limit`` (10 MiB, the
default for a server without boosts and for DMs; checked per file since April 2025) else 413 40005 "Request
entity too large"; at most 10 attachments per message. Uploaded bytes stay on the fake
(``attachment_bytes``, ``attachment_data``), never in what the bot receives; each attachment gets a
``content_type`` and, for PNG and GIF images, ``width``/``height``; its url serves the bytes. ``uploads``
lists every request that carried files; ``fail_uploads`` makes them fail. Application emojis
(``application_emojis``, routes under ``/applications/{id}/emojis``) and the emoji of buttons and select
options (validate.py) are checked as Discord does.

The gateway routes by shard as Discord does, so several bot processes (each an ``AutoShardedBot`` with its
own ``shard_ids``, one token) can share one fake. IDENTIFY's ``shard`` ``[shard_id, shard_count]`` (absent:
``[0, 1]``) is remembered per connection; an invalid one (``shard_id`` outside ``0..shard_count-1``) closes
the socket with 4010 "Invalid shard.". A guild belongs to shard ``(guild_id >> 22) % shard_count``
(``shard_of``): READY lists only that connection's guilds and echoes its ``shard``, GUILD_CREATE follows for
those only, and every event about a guild (the payload's ``guild_id``, interactions from its channels and
threads) goes only to the connection of the guild's shard; events without a guild (a DM's interactions) go
to shard 0 only. Of two live connections for one guild's events, the most recently identified gets them.
An event whose shard has no live connection is not delivered (``FakeInteraction.shard`` is then None, and a
drive call waiting for an answer times out). ``GET /gateway/bot`` answers ``recommended_shards`` and the
fake's gateway URL, which discord.py uses when no ``shard_count`` is given.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import secrets
import time
import traceback
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import quote

from aiohttp import WSMsgType, web

from bot.edge.contract import Contract, Violation

from . import media
from .model import (
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    AUTO_ARCHIVE_DURATIONS,
    COMPONENTS_V2,
    CREATE_PUBLIC_THREADS,
    EPHEMERAL,
    LOADING,
    MANAGE_CHANNELS,
    MANAGE_THREADS,
    PUBLIC_THREAD,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    FakeChannel,
    FakeEmoji,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    FilePart,
    InteractionResult,
    Rejection,
    RequestRecord,
    Snowflakes,
    UploadRecord,
    shard_of,
)
from .oauth import FakeOAuth
from .validate import (
    ContractViolation,
    DiscordError,
    FormErrors,
    validate_commands,
    validate_message_payload,
    validate_modal_payload,
)

log = logging.getLogger("fakediscord")
contract = Contract.load()  # Discord's published contract, the referee of every request
# Over every fake of this process: requests checked against the contract, those that broke it, and those of
# them a test took because it sent them on purpose (the test session's summary prints it).
REFEREE: Counter[str] = Counter()

FAKE_TOKEN = "fake.bot.token-" + "x" * 40
API = "/api/v10"
GUILDS_INTENT = 1 << 0
GUILD_MEMBERS_INTENT = 1 << 1
# Names discord.py gives the tasks that run the bot's event, command and component handlers. settle() waits
# for them too: a handler busy between two requests (a database commit, a slow CPU) is not a quiet bot.
HANDLER_TASKS = ("discord.py: ", "discord-ui-", "CommandTree-invoker")

T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


# where _read_body keeps the parsed JSON body, for Rejection.body
_BODY_KEY = web.RequestKey("fakediscord.body", dict)
# a multipart request, read once by the middleware: (payload, file parts by part name)
_FORM_KEY = web.RequestKey("fakediscord.form", tuple)
# the DM channel a DM-open request asked for, for RequestRecord.channel_id
_DM_KEY = web.RequestKey("fakediscord.dm", int)
_FILE_PART = re.compile(r"files\[(\d+)\]")
EMOJI_NAME = re.compile(r"[A-Za-z0-9_]{2,32}")
EMOJI_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/avif")


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py only decodes content-type exactly "application/json" (no charset).
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


def _no_content() -> web.Response:
    return web.Response(status=204)


@dataclass
class Hang:
    """Requests that reach the fake and are never answered until :meth:`cut`, then fail unapplied: a
    connection lost mid-request (a bot killed while it waits on Discord)."""

    method: str
    pattern: re.Pattern[str]
    waiting: int = 0  # requests caught so far
    caught: asyncio.Event = field(default_factory=asyncio.Event)
    over: asyncio.Event = field(default_factory=asyncio.Event)

    def cut(self) -> None:
        """Let go: the caught requests fail (nobody is left to read the answer), later ones pass."""
        self.over.set()


class _Conn:
    """One gateway websocket: its sequence, and once identified its intents, shard and identify order."""

    def __init__(self, ws: web.WebSocketResponse, events: Counter[str] | None = None) -> None:
        self.ws = ws
        self.events: Counter[str] = Counter() if events is None else events  # dispatches sent, by type
        self.seq = 0
        self.identified = False
        self.intents = 0
        self.shard_id = 0
        self.shard_count = 1
        self.order = 0  # the identify_count at its IDENTIFY: the newest live connection of a shard wins

    @property
    def live(self) -> bool:
        return self.identified and not self.ws.closed

    def covers(self, guild_id: int | None) -> bool:
        """Whether Discord sends this connection the events of ``guild_id`` (None: events without a guild,
        which go to shard 0)."""
        if guild_id is None:
            return self.shard_id == 0
        return shard_of(guild_id, self.shard_count) == self.shard_id

    async def send(self, op: int, d: Any, t: str | None = None) -> None:
        payload: dict[str, Any] = {"op": op, "d": d, "s": None, "t": t}
        if op == 0:
            self.seq += 1
            payload["s"] = self.seq
            self.events[t or ""] += 1
        await self.ws.send_str(json.dumps(payload))


def _in_discords_words(violation: Violation) -> tuple[str, str]:
    """A contract violation as Discord's form error says it (its code and sentence), where the kind is one
    whose words are known; else the referee's own sentence."""
    limit = violation.limit
    if violation.span is not None:
        low, high = violation.span
        return "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length."
    match violation.kind:
        case "maxLength" | "maxItems" if limit is not None:
            return "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length."
        case "minLength" | "minItems" if limit is not None:
            return "BASE_TYPE_MIN_LENGTH", f"Must be {limit} or more in length."
        case "maximum" if limit is not None:
            return "NUMBER_TYPE_MAX", f"int value should be less than or equal to {limit}."
        case "minimum" if limit is not None:
            return "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {limit}."
        case "required":
            return "BASE_TYPE_REQUIRED", "This field is required"
        case "enum":
            return "BASE_TYPE_CHOICES", violation.message
    return "CONTRACT", violation.message


def _thread_form(body: dict[str, Any], errors: FormErrors) -> None:
    """A thread's name (1–100 characters) and auto-archive minutes, where the body gives them."""
    if "name" in body:
        name = body["name"]
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            errors.add(("name",), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
    duration = body.get("auto_archive_duration")
    if duration is not None and duration not in AUTO_ARCHIVE_DURATIONS:
        errors.add(
            ("auto_archive_duration",), "BASE_TYPE_CHOICES", f"Value must be one of {AUTO_ARCHIVE_DURATIONS}."
        )


ENTRY_POINT = 4  # PRIMARY_ENTRY_POINT, the Activity's Launch command


class FakeDiscord:
    """One application, its bot user, a default guild with a ``#tavern`` channel, and whatever tests add."""

    reply_timeout = 5.0  # seconds the bot has to acknowledge an interaction before a drive call fails
    quiet = 0.02  # settle(): how long the bot must be silent
    callback_deadline = 3.0  # Discord rejects callbacks later than this (10062 Unknown interaction)
    upload_limit = 10 * 1024 * 1024  # bytes per file: the default limit (no boosts), DMs included
    attachments_max = 10  # per message
    application_emojis_max = 2000
    emoji_image_max = 256 * 1024  # bytes of a decoded emoji image
    recommended_shards = 1  # what GET /gateway/bot answers in "shards"
    # Requests per second a bot token may make outside the interaction endpoints (Discord's global rate
    # limit); beyond it, a global 429. None: unlimited.
    global_limit: int | None = 50
    token_life = 15 * 60.0  # seconds an interaction token lives, on ``clock``
    followups_max = 5  # follow-ups per interaction where a user-installed app is not a member

    def __init__(self) -> None:
        self.ids = Snowflakes()
        self.clock: Callable[[], float] = time.monotonic  # the tokens' age is read on it
        self.token_ages: list[float] = []  # how old each interaction token was when the bot used it
        self.absent_refusals: list[tuple[str, str]] = []  # REST calls to channels the bot is not in
        self.token = FAKE_TOKEN
        self.users: dict[int, FakeUser] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: list[FakeInteraction] = []
        self.listeners: list[Callable[[FakeMessage], object]] = []  # called on every message post/edit/delete
        self.global_commands: list[dict[str, Any]] = []
        self.oauth = FakeOAuth(lambda: self.app_id)  # an Activity's sign-in and its instances
        self.command_bodies: list[Any] = []  # every bulk command sync's body, as the bot sent it
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[tuple[str, str, int]] = []
        self.request_log: list[RequestRecord] = []  # the same requests, timed and tied to channel or token
        self.rejected: list[Rejection] = []
        self.errors: list[str] = []  # bugs in the fake itself
        self.unhandled: list[str] = []  # routes the bot used that the fake does not model
        # Every request is checked against Discord's published contract (``_referee``); a test that sends what
        # Discord refuses on purpose takes its violations (``take_violations``).
        self.referee = True
        self.contract_checked = 0  # requests checked
        self.contract_violations: list[ContractViolation] = []
        self.identify_count = 0
        # HELLO's heartbeat interval (Discord's 41.25 s); the load bench shortens it for more samples of
        # how late the bot's heartbeats are (every one is ACKed at once).
        self.heartbeat_interval_ms = 41250
        self.gateway_events: Counter[str] = (
            Counter()
        )  # dispatches sent to the bot, by type (every connection)
        # time.monotonic() when each gateway websocket was accepted, and when each IDENTIFY arrived (start-up
        # benchmarks measure from them).
        self.gateway_opened_at: list[float] = []
        self.identified_at: list[float] = []
        self.uploads: list[UploadRecord] = []  # every request that carried file parts, in order
        self.attachment_data: dict[int, bytes] = {}  # uploaded bytes by attachment id (never sent to the bot)
        self.application_emojis: list[FakeEmoji] = []
        self._failures: list[tuple[str, re.Pattern[str], DiscordError]] = []
        self._hangs: list[Hang] = []
        self._upload_failure: tuple[DiscordError, int | None] | None = None
        self._global_window: deque[float] = deque()  # when the last second's counted requests arrived
        self.global_429s = 0  # requests answered 429 for the global rate limit
        self.dropped_requests = 0  # requests whose client went away before they were read whole
        self._dms: dict[int, FakeChannel] = {}
        self._by_tok: dict[str, FakeInteraction] = {}  # O(1) lookups, so long runs do not slow down
        self._in_channel: dict[int, list[FakeMessage]] = {}
        self._conns: list[_Conn] = []
        self._inflight = 0
        self._last_activity = time.monotonic()
        self._runner: web.AppRunner | None = None
        self.port = 0

        self.bot_user = FakeUser(self.ids.next(), "Decktet Tavern", bot=True)
        self.users[self.bot_user.id] = self.bot_user
        self.app_id = self.bot_user.id
        self.owner = self.add_user("owner")
        self.guild = self.add_guild("Test Tavern")
        self.channel = self.add_channel("tavern")

    # ------------------------------------------------------------------------------------------ model

    def add_user(self, name: str, *, bot: bool = False, dms_closed: bool = False) -> FakeUser:
        """A user, member of every existing guild."""
        user = FakeUser(self.ids.next(), name, bot=bot, dms_closed=dms_closed)
        self.users[user.id] = user
        for guild in self.guilds.values():
            guild.members.append(user)
        return user

    def add_guild(self, name: str, *, shard: int | None = None, shard_count: int = 2) -> FakeGuild:
        """A guild with the bot and every known human user as members (visible to bots started later).

        ``shard``: its id is picked so that the guild belongs to that shard of ``shard_count`` (``shard_of``),
        for tests of bots that run as several shards."""
        gid = self.ids.next() if shard is None else self.ids.next_on_shard(shard, shard_count)
        guild = FakeGuild(gid, name, owner_id=getattr(self, "owner", self.bot_user).id)
        guild.members.extend(self.users.values())
        self.guilds[guild.id] = guild
        return guild

    def add_channel(
        self, name: str, guild: FakeGuild | None = None, *, bot_permissions: int = ALL_PERMISSIONS
    ) -> FakeChannel:
        guild = guild or self.guild
        channel = FakeChannel(
            self.ids.next(), name, guild=guild, bot_permissions=bot_permissions, bot_user_id=self.bot_user.id
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    async def set_bot_permissions(self, channel: FakeChannel, permissions: int) -> None:
        """Change what the bot may do in ``channel`` (an int or ``discord.Permissions(...).value``); a
        thread's permissions are its parent's, so set those."""
        assert not channel.is_thread, f"{channel!r} takes its permissions from its parent"
        channel.bot_permissions = int(permissions)
        await self._dispatch("CHANNEL_UPDATE", channel.payload())

    async def make_private(self, channel: FakeChannel, *viewers: FakeUser) -> None:
        """``channel`` becomes private: @everyone may not view it, only ``viewers`` (and the bot), as a
        permission overwrite denying VIEW_CHANNEL to @everyone and allowing it to each. Dispatches the whole
        channel as CHANNEL_CREATE (discord.py adds it, or replaces the one it has)."""
        assert not channel.is_thread and not channel.is_dm, f"{channel!r}: a thread is its parent's"
        channel.viewers = frozenset(u.id for u in viewers)
        # A channel added after the bot connected is news to it (Discord sends CHANNEL_CREATE as it is
        # made); an update of one it knows is CHANNEL_UPDATE. Both carry the whole channel.
        await self._dispatch("CHANNEL_CREATE", channel.payload())

    async def archive(self, thread: FakeChannel, *, locked: bool = False) -> None:
        """Archive ``thread`` (as Discord does after its inactivity time, or a moderator), locked too if
        asked: then only MANAGE_THREADS can unarchive it or post in it. Dispatches THREAD_UPDATE."""
        assert thread.is_thread and not thread.deleted, f"{thread!r} is not a live thread"
        thread.archived = True
        thread.locked = thread.locked or locked
        thread.archive_timestamp = time.time()
        await self._dispatch("THREAD_UPDATE", thread.payload())

    async def delete_channel(self, channel: FakeChannel) -> None:
        """Delete a channel or thread (a channel takes its threads with it): every route then answers 404
        10003 Unknown Channel and its messages are gone. Dispatches THREAD_DELETE or CHANNEL_DELETE."""
        await self._delete_channel(channel)

    async def remove_member(self, guild: FakeGuild, user: FakeUser) -> None:
        """``user`` leaves ``guild``: GUILD_MEMBER_REMOVE (only with the GUILD_MEMBERS intent, as Discord),
        no more interactions from them there, and no DMs from the bot once they share no server with it."""
        assert user is not self.bot_user, "the bot leaving a server is not modelled"
        assert user in guild.members, f"{user!r} is not a member of {guild!r}"
        guild.members.remove(user)
        payload = {"guild_id": str(guild.id), "user": user.payload()}
        await self._dispatch("GUILD_MEMBER_REMOVE", payload, intent=GUILD_MEMBERS_INTENT)

    def shares_a_server(self, user: FakeUser) -> bool:
        """Whether ``user`` and the bot are both members of some guild (else the bot cannot DM them)."""
        return any(user in g.members and self.bot_user in g.members for g in self.guilds.values())

    def fail_next(self, method: str, path_regex: str, status: int, code: int, message: str) -> None:
        """The next ``method`` request whose path (after ``/api/v10``, e.g. ``/channels/1/messages``)
        matches ``path_regex`` (``re.search``) fails once with Discord's error shape, before the fake
        looks at it: a passing fault (403 on a thread creation, 404 on an edit...)."""
        self._failures.append((method.upper(), re.compile(path_regex), DiscordError(status, code, message)))

    def hang(self, method: str, path_regex: str) -> Hang:
        """Every ``method`` request (``""``: any) whose path (after ``/api/v10``) matches ``path_regex``
        waits, unanswered and unapplied, until the returned :class:`Hang` is cut, then fails: for catching
        a bot between two of its requests, e.g. to kill it there."""
        hang = Hang(method.upper(), re.compile(path_regex))
        self._hangs.append(hang)
        return hang

    async def _hung(self, request: web.Request) -> None:
        path = request.path.removeprefix(API)
        for hang in self._hangs:
            if hang.over.is_set() or hang.method not in ("", request.method) or not hang.pattern.search(path):
                continue
            hang.waiting += 1
            hang.caught.set()
            self._inflight -= 1  # a hung request is not the bot at work: settle() may return meanwhile
            try:
                await hang.over.wait()
            finally:
                self._inflight += 1
            raise DiscordError(503, 0, "the connection was lost")

    def rate_limit_next(
        self, method: str, path_regex: str, retry_after: float = 0.05, *, scope: str = "user"
    ) -> None:
        """The next ``method`` request whose path matches ``path_regex`` (as :meth:`fail_next`) is answered
        429 as Discord's rate limits topic shows: the body ``{"message": "You are being rate limited.",
        "retry_after": …, "global": …}``, the headers ``Retry-After``, ``X-RateLimit-Scope`` (``user``,
        ``global`` or ``shared``), ``X-RateLimit-Limit``/``-Remaining`` (0)/``-Reset-After``/``-Bucket``, and
        ``Via`` (Discord's answers carry it; discord.py takes a 429 without it for a Cloudflare ban and gives
        up). discord.py then waits ``retry_after`` and sends the request again, logging a warning — the bot's
        HTTP client for bot-token routes, the webhook adapter for interaction routes (callbacks, followups,
        ``@original`` edits: limited per interaction token, outside the global limit)."""
        err = DiscordError(
            429,
            0,
            "You are being rate limited.",
            extra={"retry_after": retry_after, "global": scope == "global"},
            headers={
                "Retry-After": str(max(1, round(retry_after))),
                "X-RateLimit-Scope": scope,
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": f"{retry_after:.3f}",
                "X-RateLimit-Bucket": secrets.token_hex(16),
                "Via": "1.1 google",
            },
        )
        self._failures.append((method.upper(), re.compile(path_regex), err))

    def fail_uploads(
        self, status: int, code: int = 0, message: str = "Service Unavailable", times: int | None = None
    ) -> None:
        """Every request carrying at least one file part fails with Discord's error shape ``{"code": code,
        "message": message}`` and HTTP ``status``, before the fake looks at it; ``times=None`` until
        :meth:`fail_uploads_clear`, else that many requests. Requests without files are not touched. The
        failed requests are still counted in ``uploads`` (with ``status``).

        discord.py retries some statuses by itself, sleeping between tries (discord.py 2.7.1):

        * the bot's HTTP client (``discord/http.py`` ``HTTPClient.request``: channel messages, DMs, message
          edits, application emojis) makes at most 5 tries; it retries only 500, 502, 504 and 524, sleeping
          ``1 + 2 * try`` seconds after each (1, 3, 5, 7, 9: 25 s in all, then ``DiscordServerError``). Any
          other 5xx (503, 501, 520...) raises ``DiscordServerError`` at once; 4xx raise at once.
        * the webhook adapter (``discord/webhook/async_.py`` ``AsyncWebhookAdapter.request``: interaction
          callbacks, followups, ``@original`` and followup edits) retries EVERY status >= 500 the same way
          (5 tries, 25 s of sleep). So on interaction paths use a 4xx, or a 5xx with ``times`` small: with
          ``times=1`` the retry after 1 s succeeds.

        Both clients also retry a 429 after its ``retry_after`` (only with a ``Via`` header; else it raises).
        """
        assert times is None or times > 0, "times: None (until cleared) or a positive count"
        self._upload_failure = (DiscordError(status, code, message), times)

    def fail_uploads_clear(self) -> None:
        """Uploads succeed again (ends :meth:`fail_uploads`)."""
        self._upload_failure = None

    def attachment_bytes(self, attachment: dict[str, Any] | int | str) -> bytes:
        """The bytes uploaded for an attachment (an attachment dict as in ``FakeMessage.attachments``, or its
        id); they stay readable after the attachment is removed from its message."""
        aid = int(attachment["id"] if isinstance(attachment, dict) else attachment)
        if aid not in self.attachment_data:
            raise AssertionError(f"no attachment {aid} was ever uploaded")
        return self.attachment_data[aid]

    def add_application_emoji(self, name: str, image: bytes = b"", *, animated: bool = False) -> FakeEmoji:
        """An application emoji that exists before the bot starts (as if uploaded in the developer portal by
        the owner); not checked like the API's create route."""
        emoji = FakeEmoji(self.ids.next(), name, self.owner, animated=animated, image=image)
        self.application_emojis.append(emoji)
        return emoji

    def emoji_uploads(self) -> int:
        """How many application emoji creations (``POST .../emojis``) the bot sent, refused ones included."""
        return sum(1 for method, path, _ in self.requests if method == "POST" and path.endswith("/emojis"))

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use, as Discord does)."""
        if user.id not in self._dms:
            channel = FakeChannel(
                self.ids.next(), f"dm-{user.name}", recipient=user, bot_user_id=self.bot_user.id
            )
            self._dms[user.id] = channel
            self.channels[channel.id] = channel
        return self._dms[user.id]

    def add_group_dm(self, *users: FakeUser, name: str = "friends") -> FakeChannel:
        """A group DM of ``users`` (the first owns it); the bot is not a member."""
        channel = FakeChannel(
            self.ids.next(),
            name,
            recipients=tuple(users),
            owner_id=users[0].id,
            bot_user_id=self.bot_user.id,
            bot_permissions=0,
        )
        self.channels[channel.id] = channel
        return channel

    def expire_tokens(self) -> None:
        """Every interaction token issued so far dies, as after Discord's 15 minutes."""
        for it in self.interactions:
            it.expired = True

    # ------------------------------------------------------------------------------------------- read

    def channel_messages(self, channel: FakeChannel, *, include_ephemeral: bool = False) -> list[FakeMessage]:
        """Live (not deleted) bot messages in a channel, oldest first; ephemerals only on request."""
        return [
            m
            for m in self._in_channel.get(channel.id, ())
            if not m.deleted and (include_ephemeral or not m.ephemeral)
        ]

    def threads(self, channel: FakeChannel) -> list[FakeChannel]:
        """Live (not deleted) threads started in ``channel``, archived ones included, oldest first."""
        assert channel.guild is not None, f"{channel!r} has no threads"
        return [t for t in channel.guild.threads if t.parent is channel and not t.deleted]

    def thread_of(self, message: FakeMessage) -> FakeChannel | None:
        """The live thread started from ``message``, if any."""
        thread = message.thread
        return thread if thread is not None and not thread.deleted else None

    def last_message(self, channel: FakeChannel) -> FakeMessage:
        msgs = self.channel_messages(channel)
        if not msgs:
            raise AssertionError(f"the bot has posted nothing in {channel!r}")
        return msgs[-1]

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Live messages the bot sent to ``user`` in DMs (empty if it never opened the DM)."""
        channel = self._dms.get(user.id)
        return [] if channel is None else self.channel_messages(channel)

    def ephemerals(self, user: FakeUser) -> list[FakeMessage]:
        """Live ephemeral messages only ``user`` can see, oldest first."""
        return [m for m in self.messages.values() if m.ephemeral and not m.deleted and m.viewer is user]

    def rejections(self, code: int | None = None) -> list[Rejection]:
        return [r for r in self.rejected if code is None or r.code == code]

    def commands(self, guild: FakeGuild | None = None) -> list[dict[str, Any]]:
        """The synced command payloads (global, or one guild's)."""
        return list(self.global_commands if guild is None else self.guild_commands.get(guild.id, []))

    def enable_activities(self) -> dict[str, Any]:
        """What turning Activities on in the Developer Portal does: Discord makes the app's Entry Point
        command ("Launch", handled by Discord), which a global bulk overwrite must carry from then on."""
        command = {
            "id": str(self.ids.next()),
            "application_id": str(self.app_id),
            "version": str(self.ids.next()),
            "type": ENTRY_POINT,
            "handler": 2,  # DISCORD_LAUNCH_ACTIVITY
            "name": "launch",
            "description": "Launch an activity",
            "contexts": [0, 1, 2],
            "integration_types": [0, 1],
        }
        self.global_commands.append(command)
        return command

    def command_syncs(self) -> int:
        """How many bulk command syncs (``PUT .../commands``, global or guild) the bot has sent."""
        return sum(1 for method, path, _ in self.requests if method == "PUT" and path.endswith("/commands"))

    def live_shards(self) -> list[tuple[int, int]]:
        """``(shard_id, shard_count)`` of every live identified gateway connection, oldest IDENTIFY first."""
        return [(c.shard_id, c.shard_count) for c in sorted(self._live(), key=lambda c: c.order)]

    # ---------------------------------------------------------------------------------------- lifecycle

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway/"

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway/", self._gateway)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", API + "/{tail:.*}", self._dispatch_rest)
        app.router.add_get("/attachments/{channel}/{attachment}/{filename}", self._cdn)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        for conn in list(self._conns):
            await conn.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def check_healthy(self) -> None:
        """Fail if the fake itself broke or the bot used a route the fake does not model."""
        problems = []
        if self.errors:
            problems.append("fake Discord handler errors:\n" + "\n".join(self.errors))
        if self.unhandled:
            problems.append("bot used routes the fake does not model: " + ", ".join(self.unhandled))
        if self.contract_violations:
            problems.append(
                "requests Discord's published contract refuses (bot.edge.contract):\n"
                + "\n".join(str(v) for v in self.contract_violations)
            )
        if problems:
            raise AssertionError("\n".join(problems))

    # ------------------------------------------------------------------------------------------- drive

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        *,
        options: dict[str, Any] | None = None,
        expect_reply: bool = True,
        force: bool = False,
        settle: bool = True,
        **kwargs: Any,
    ) -> InteractionResult:
        """Run ``/command`` ("group sub" path) as ``user`` in ``channel`` (a DM channel works too).

        Option values: str, int, float, bool, FakeUser (USER/MENTIONABLE), FakeChannel (CHANNEL).
        ``force`` sends it even where Discord would not offer the command (a guild-only command in DMs).
        ``settle=False`` returns as soon as the bot acknowledged (for load: the bot is never quiet then).
        """
        values = {**(options or {}), **kwargs}
        data = self._command_data(user, channel, command, values, force=force)
        return await self._interact(
            2, user, channel, data, f"/{command}", expect_reply=expect_reply, settle=settle
        )

    async def user_command(
        self, user: FakeUser, channel: FakeChannel, name: str, target: FakeUser, *, force: bool = False
    ) -> InteractionResult:
        """Right-click ``target`` and pick the user command ``name`` (type 2) as ``user`` in ``channel``."""
        cmd, is_guild = self._find_command(channel, name, 2)
        if channel.is_group and not force and not self._offered_in_private(cmd):
            raise AssertionError(f"user command {name!r} is not offered in group DMs")
        if channel.guild is not None and not force and not self._offered(cmd, user):
            raise AssertionError(f"user command {name!r} is not offered to {user!r}")
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": 2,
            "target_id": str(target.id),
            "resolved": self._resolved_users([target], channel),
        }
        if is_guild and channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
        return await self._interact(2, user, channel, data, f"user command {name!r} on {target.name}")

    async def autocomplete(
        self, user: FakeUser, channel: FakeChannel, command: str, focused: str, **values: Any
    ) -> InteractionResult:
        """Ask for autocomplete choices while ``focused`` is being typed; read ``result.choices``."""
        data = self._command_data(user, channel, command, values, force=True, focused=focused)
        return await self._interact(4, user, channel, data, f"/{command} autocomplete {focused}")

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        target: str,
        *,
        expect_reply: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        """Click the button whose custom_id or label is ``target`` on ``message`` as ``user``."""
        self._check_can_use(user, message)
        buttons = message.buttons()
        found = [b for b in buttons if b.custom_id == target] or [b for b in buttons if b.label == target]
        if len(found) != 1:
            have = [(b.label, b.custom_id) for b in buttons]
            raise AssertionError(f"{len(found)} buttons match {target!r} on {message!r}; buttons: {have}")
        button = found[0]
        if button.url is not None or button.custom_id is None:
            raise AssertionError(f"button {target!r} is a link button; clicking it does not reach the bot")
        if button.disabled:
            raise AssertionError(f"button {target!r} on {message!r} is disabled; a user cannot click it")
        data = {"custom_id": button.custom_id, "component_type": 2}
        return await self._interact(
            3,
            user,
            message.channel,
            data,
            f"click {target!r}",
            message=message,
            expect_reply=expect_reply,
            settle=settle,
        )

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str,
        values: list[Any],
        *,
        expect_reply: bool = True,
        settle: bool = True,
        force: bool = False,
    ) -> InteractionResult:
        """Choose ``values`` in select ``custom_id`` (option values, or FakeUsers for a user select).

        ``force`` sends the values as given, as a modified client could: values that are not among the
        options, or too few or too many of them."""
        self._check_can_use(user, message)
        sel = message.select(custom_id)
        if sel.disabled and not force:
            raise AssertionError(f"select {custom_id!r} is disabled")
        if not sel.min_values <= len(values) <= sel.max_values and not force:
            raise AssertionError(
                f"select {custom_id!r} takes {sel.min_values}..{sel.max_values} values, got {len(values)}"
            )
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": sel.type}
        if sel.type == 3:
            allowed = sel.values()
            bad = [v for v in values if v not in allowed]
            if bad and not force:
                raise AssertionError(f"select {custom_id!r} has no options {bad}; options are {allowed}")
            data["values"] = list(values)
        else:
            data["values"] = [str(v.id if isinstance(v, FakeUser | FakeChannel) else v) for v in values]
            users = [v for v in values if isinstance(v, FakeUser)]
            if users:
                data["resolved"] = self._resolved_users(users, message.channel)
        return await self._interact(
            3,
            user,
            message.channel,
            data,
            f"select {custom_id!r}",
            message=message,
            expect_reply=expect_reply,
            settle=settle,
        )

    async def submit_modal(
        self,
        user: FakeUser,
        opened: InteractionResult,
        values: dict[str, str],
        *,
        expect_reply: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        """Fill and submit the modal opened in ``opened``; keys are text input custom_ids or labels."""
        modal = opened.modal
        if modal is None:
            raise AssertionError(f"{opened!r} did not open a modal")
        remaining = dict(values)

        def fill(comp: dict[str, Any], label: str | None = None) -> dict[str, Any]:
            cid = comp["custom_id"]
            label = label or comp.get("label")
            if cid in remaining:
                value = remaining.pop(cid)
            elif label is not None and label in remaining:
                value = remaining.pop(label)
            else:
                value = comp.get("value") or ""
            if comp.get("required", True) and not value:
                raise AssertionError(f"modal field {label or cid!r} is required")
            if len(value) > int(comp.get("max_length", 4000)) or len(value) < int(comp.get("min_length", 0)):
                raise AssertionError(f"modal field {label or cid!r} length out of bounds: {value!r}")
            return {"type": comp["type"], "custom_id": cid, "value": value}

        submitted: list[dict[str, Any]] = []
        for top in modal.get("components", []):
            if top.get("type") == 1:
                submitted.append({"type": 1, "components": [fill(c) for c in top.get("components", [])]})
            elif top.get("type") == 18:
                submitted.append({"type": 18, "component": fill(top["component"], top.get("label"))})
        if remaining:
            raise AssertionError(f"modal {modal.get('title')!r} has no fields {sorted(remaining)}")
        data = {"custom_id": modal["custom_id"], "components": submitted}
        src = opened.interaction
        return await self._interact(
            5,
            user,
            src.channel,
            data,
            f"modal {modal['custom_id']!r}",
            message=src.message,
            expect_reply=expect_reply,
            settle=settle,
        )

    async def forge(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        message: FakeMessage | None = None,
        description: str = "forged interaction",
    ) -> InteractionResult:
        """Send an interaction exactly as given, with none of the checks above: what a modified client
        could send (a custom id or select values no message offered, a message it cannot see). Returns at
        once; ``settle()`` then read ``unanswered()``."""
        return await self._interact(
            itype, user, channel, data, description, message=message, expect_reply=False, settle=False
        )

    def unanswered(self, since: int = 0) -> list[FakeInteraction]:
        """Interactions (from index ``since`` in ``interactions``) the bot never acknowledged; a callback
        later than ``callback_deadline`` was refused (10062), so it counts as none."""
        return [it for it in self.interactions[since:] if it.callback_type is None]

    async def wait_for(self, check: Callable[[], T], *, timeout: float = 5.0, what: str = "") -> T:
        """Poll ``check()`` until it returns something truthy (e.g. a timer-driven message) and return it."""
        deadline = time.monotonic() + timeout
        while not (result := check()):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout}s waiting for {what or check}")
            await asyncio.sleep(0.005)
        await self.settle()
        return result

    async def settle(self, quiet: float | None = None, timeout: float = 5.0) -> None:
        """Wait until no handler of the bot is running and it has sent nothing for ``quiet`` seconds."""
        quiet = self.quiet if quiet is None else quiet
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            idle = now - self._last_activity
            if self._inflight == 0 and idle >= quiet and not self._handlers_running():
                return
            if now > deadline:
                raise AssertionError(f"the bot did not go quiet within {timeout}s")
            await asyncio.sleep(max(quiet - idle, 0.002))

    @staticmethod
    def _handlers_running() -> bool:
        """Whether a handler task of the bot (same event loop) is still at work."""
        me = asyncio.current_task()
        return any(
            t is not me and not t.done() and t.get_name().startswith(HANDLER_TASKS)
            for t in asyncio.all_tasks()
        )

    # ------------------------------------------------------------------------------- drive internals

    def _check_can_use(self, user: FakeUser, message: FakeMessage) -> None:
        if message.deleted:
            raise AssertionError(f"{message!r} was deleted; nobody can click it")
        if message.ephemeral and message.viewer is not None and message.viewer is not user:
            raise AssertionError(f"{message!r} is ephemeral to {message.viewer!r}; {user!r} cannot see it")
        if message.channel.is_dm and message.channel.recipient is not user:
            raise AssertionError(f"{message!r} is in someone else's DMs; {user!r} cannot see it")
        if not message.channel.is_dm and not message.channel.can_view(user.id):
            raise AssertionError(f"{message!r} is in a channel {user!r} cannot view")

    def _find_command(self, channel: FakeChannel, name: str, kind: int = 1) -> tuple[dict[str, Any], bool]:
        if channel.guild is not None:
            for cmd in self.guild_commands.get(channel.guild.id, []):
                if cmd["name"] == name and cmd.get("type", 1) == kind:
                    return cmd, True
        for cmd in self.global_commands:
            if cmd["name"] == name and cmd.get("type", 1) == kind:
                return cmd, False
        known = sorted(
            {c["name"] for c in self.global_commands}
            | {c["name"] for cs in self.guild_commands.values() for c in cs}
        )
        raise AssertionError(f"no synced slash command /{name} visible in {channel!r}; synced: {known}")

    @staticmethod
    def _offered_in_private(cmd: dict[str, Any]) -> bool:
        """Whether a user-installed command shows in a group DM: context 2 and user install (1)."""
        return 2 in (cmd.get("contexts") or ()) and 1 in (cmd.get("integration_types") or ())

    @staticmethod
    def _offered(cmd: dict[str, Any], user: FakeUser) -> bool:
        """Whether Discord shows ``user`` the top-level command in a server: its
        ``default_member_permissions`` (None: everyone; "0": administrators only) are all among the member's,
        or they are an administrator.
        Discord ignores the field on subcommands, so only the top level counts."""
        needed = cmd.get("default_member_permissions")
        if needed is None or user.permissions & ADMINISTRATOR:
            return True
        return int(needed) != 0 and int(needed) & ~user.permissions == 0

    def _command_data(
        self,
        user: FakeUser,
        channel: FakeChannel,
        path: str,
        values: dict[str, Any],
        *,
        force: bool,
        focused: str | None = None,
    ) -> dict[str, Any]:
        words = path.strip().lstrip("/").split()
        if not channel.is_dm and not channel.can_view(user.id):
            raise AssertionError(f"{user!r} cannot view {channel!r}, so cannot use a command there")
        cmd, is_guild = self._find_command(channel, words[0])
        if not force and channel.guild is not None and not self._offered(cmd, user):
            raise AssertionError(
                f"/{path} is not offered to {user!r}: the command needs the permissions "
                f"{cmd['default_member_permissions']}; pass force=True to send it anyway"
            )
        if channel.is_group and not force and not self._offered_in_private(cmd):
            raise AssertionError(
                f"/{path} is not offered in group DMs (contexts or integration_types lack it); "
                "pass force=True to send it anyway"
            )
        if channel.is_dm and not force:
            contexts = cmd.get("contexts")
            if cmd.get("dm_permission") is False or (contexts is not None and 1 not in contexts):
                raise AssertionError(
                    f"/{path} is not offered in DMs (guild only); pass force=True to send it anyway"
                )
        node: dict[str, Any] = cmd
        chain: list[dict[str, Any]] = []
        for word in words[1:]:
            subs = [o for o in node.get("options", []) if o.get("type") in (1, 2)]
            match = [o for o in subs if o["name"] == word]
            if not match:
                raise AssertionError(f"/{path}: no subcommand {word!r}; have {[o['name'] for o in subs]}")
            node = match[0]
            chain.append(node)
        if any(o.get("type") in (1, 2) for o in node.get("options", [])):
            subs = [o["name"] for o in node["options"]]
            raise AssertionError(f"/{path} is a group; pick one of {subs}")

        specs = {o["name"]: o for o in node.get("options", [])}
        unknown = sorted(set(values) - set(specs))
        if unknown:
            raise AssertionError(f"/{path} has no options {unknown}; options are {sorted(specs)}")
        missing = [n for n, o in specs.items() if o.get("required") and n not in values and n != focused]
        if missing and focused is None:
            raise AssertionError(f"/{path} needs options {missing}")
        resolved: dict[str, Any] = {}
        leaf_opts: list[dict[str, Any]] = []
        for name, value in values.items():
            spec = specs[name]
            otype = int(spec["type"])
            opt: dict[str, Any] = {
                "name": name,
                "type": otype,
                "value": self._option_value(path, spec, value),
            }
            if name == focused:
                opt["focused"] = True
                opt["value"] = str(value)
            if otype in (6, 9) and isinstance(value, FakeUser):
                for key, entries in self._resolved_users([value], channel).items():
                    resolved.setdefault(key, {}).update(entries)
            if otype == 7 and isinstance(value, FakeChannel):
                resolved.setdefault("channels", {})[str(value.id)] = {
                    **value.payload(),
                    "permissions": str(ALL_PERMISSIONS),
                }
            leaf_opts.append(opt)

        options = leaf_opts
        for sub in reversed(chain):
            options = [{"name": sub["name"], "type": sub["type"], "options": options}]
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1, "options": options}
        if resolved:
            data["resolved"] = resolved
        if is_guild and channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
        return data

    @staticmethod
    def _option_value(path: str, spec: dict[str, Any], value: Any) -> Any:
        otype, name = int(spec["type"]), spec["name"]
        checks: dict[int, tuple[type | tuple[type, ...], Callable[[Any], Any]]] = {
            3: (str, str),
            4: (int, int),
            5: (bool, bool),
            10: ((int, float), float),
        }
        if otype in checks:
            kinds, conv = checks[otype]
            if not isinstance(value, kinds) or (otype in (4, 10) and isinstance(value, bool)):
                raise AssertionError(f"/{path} option {name!r} wants {conv.__name__}, got {value!r}")
            result = conv(value)
            choices = spec.get("choices")
            if choices and result not in [c["value"] for c in choices]:
                raise AssertionError(
                    f"/{path} option {name!r}: {value!r} is not one of the choices {choices}"
                )
            if otype in (4, 10):
                if "min_value" in spec and result < spec["min_value"]:
                    raise AssertionError(f"/{path} option {name!r}: {value!r} < min {spec['min_value']}")
                if "max_value" in spec and result > spec["max_value"]:
                    raise AssertionError(f"/{path} option {name!r}: {value!r} > max {spec['max_value']}")
            return result
        if otype in (6, 9):
            if not isinstance(value, FakeUser):
                raise AssertionError(f"/{path} option {name!r} wants a FakeUser, got {value!r}")
            return str(value.id)
        if otype == 7:
            if not isinstance(value, FakeChannel):
                raise AssertionError(f"/{path} option {name!r} wants a FakeChannel, got {value!r}")
            return str(value.id)
        return str(value)

    def _resolved_users(self, users: list[FakeUser], channel: FakeChannel) -> dict[str, Any]:
        resolved: dict[str, Any] = {"users": {str(u.id): u.payload() for u in users}}
        guild = channel.guild
        if guild is not None:
            members = {
                str(u.id): {**guild.member_payload(u, with_user=False), "permissions": str(ALL_PERMISSIONS)}
                for u in users
                if u in guild.members
            }
            if members:
                resolved["members"] = members
        return resolved

    def _interaction_payload(self, it: FakeInteraction) -> dict[str, Any]:
        channel = it.channel
        payload: dict[str, Any] = {
            "id": str(it.id),
            "application_id": str(self.app_id),
            "type": it.type,
            "token": it.token,
            "version": 1,
            "attachment_size_limit": self.upload_limit,
            "data": it.data,
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "app_permissions": str(channel.permissions),
            "locale": it.user.locale,
            "entitlements": [],
        }
        if channel.guild is not None:
            payload["guild_id"] = str(channel.guild.id)
            payload["guild"] = {
                "id": str(channel.guild.id),
                "locale": channel.guild.preferred_locale,
                "features": [],
            }
            payload["guild_locale"] = channel.guild.preferred_locale
            payload["member"] = {
                **channel.guild.member_payload(it.user),
                "permissions": str(it.user.permissions),
            }
            payload["context"] = 0
            payload["authorizing_integration_owners"] = {"0": str(channel.guild.id)}
        elif channel.is_group:  # the app is installed to the user's account, and not a member here
            payload["user"] = it.user.payload()
            payload["context"] = 2
            payload["authorizing_integration_owners"] = {"1": str(it.user.id)}
            payload["app_permissions"] = str(VIEW_CHANNEL | SEND_MESSAGES)
        else:
            payload["user"] = it.user.payload()
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": "0"}
        if it.message is not None:
            payload["message"] = it.message.payload()
        return payload

    async def _interact(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        description: str,
        *,
        message: FakeMessage | None = None,
        expect_reply: bool = True,
        settle: bool = True,
    ) -> InteractionResult:
        if not self._live():
            raise AssertionError("no bot is connected to the fake Discord")
        conn = self._route(channel.guild.id if channel.guild is not None else None)
        # What Discord would never deliver, whoever sends it.
        if channel.deleted or (channel.parent is not None and channel.parent.deleted):
            raise AssertionError(f"{channel!r} was deleted; nobody can use it")
        if channel.guild is not None and user not in channel.guild.members:
            raise AssertionError(f"{user!r} is not a member of {channel.guild!r}; Discord delivers nothing")
        iid = self.ids.next()
        it = FakeInteraction(
            id=iid,
            token=f"itok-{iid}-{secrets.token_hex(8)}",
            type=itype,
            user=user,
            channel=channel,
            data=data,
            description=f"{description} by {user.name} in {channel!r}",
            message=message,
            born=self.clock(),
        )
        self.interactions.append(it)
        self._by_tok[it.token] = it
        self._touch()
        payload = self._interaction_payload(it)
        it.sent_at = time.perf_counter()
        if conn is not None:
            it.shard = conn.shard_id
            await conn.send(0, payload, "INTERACTION_CREATE")
        if expect_reply:
            try:
                await asyncio.wait_for(it.answered.wait(), self.reply_timeout)
            except TimeoutError:
                why = (
                    "(check the error-log guard output for an exception)"
                    if conn is not None
                    else f"(not delivered: no live connection has its shard; live: {self.live_shards()})"
                )
                raise AssertionError(
                    f"the bot did not answer {it.description} within {self.reply_timeout}s {why}"
                ) from None
        if settle:
            await self.settle()
        return InteractionResult(it)

    # --------------------------------------------------------------------------------------- gateway

    def _live(self) -> list[_Conn]:
        return [c for c in self._conns if c.live]

    def _route(self, guild_id: int | None) -> _Conn | None:
        """The connection Discord sends the events of ``guild_id`` to (None: events without a guild, shard
        0's): the most recently identified live one whose shard has the guild, or None (not delivered)."""
        covering = [c for c in self._live() if c.covers(guild_id)]
        return max(covering, key=lambda c: c.order, default=None)

    async def _dispatch(self, event: str, payload: dict[str, Any], *, intent: int = GUILDS_INTENT) -> None:
        """Send a gateway event to the connection of its guild's shard (the payload's ``guild_id``; without
        one, shard 0), if that connection asked for the intent that carries it."""
        guild_id = payload.get("guild_id")
        conn = self._route(int(guild_id) if guild_id is not None else None)
        if conn is not None and conn.intents & intent:
            await conn.send(0, payload, event)

    def _touch(self) -> None:
        self._last_activity = time.monotonic()

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self.gateway_opened_at.append(time.monotonic())
        conn = _Conn(ws, self.gateway_events)
        self._conns.append(conn)
        try:
            await conn.send(10, {"heartbeat_interval": self.heartbeat_interval_ms})
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                if op == 1:
                    await conn.send(11, None)
                elif op == 2:
                    await self._identify(conn, frame["d"])
                elif op == 6:  # resume: not modelled, make the client identify afresh
                    await conn.send(9, False)
        except Exception:
            self.errors.append(traceback.format_exc())
        finally:
            self._conns.remove(conn)
        return ws

    async def _identify(self, conn: _Conn, d: dict[str, Any]) -> None:
        token = str(d.get("token", "")).removeprefix("Bot ")
        if token != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        shard = d.get("shard")
        if shard is None:
            shard = [0, 1]
        valid = isinstance(shard, list) and len(shard) == 2 and all(type(n) is int for n in shard)
        if not valid or not 0 <= shard[0] < shard[1]:
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return
        self.identify_count += 1
        self.identified_at.append(time.monotonic())
        conn.identified = True
        conn.intents = int(d.get("intents") or 0)
        conn.shard_id, conn.shard_count = shard
        conn.order = self.identify_count
        guilds = [g for g in self.guilds.values() if conn.covers(g.id)]
        ready = {
            "v": 10,
            "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": f"session-{self.identify_count}",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.app_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "shard": [conn.shard_id, conn.shard_count],
        }
        await conn.send(0, ready, "READY")
        for guild in guilds:
            await conn.send(0, guild.payload(), "GUILD_CREATE")

    # ------------------------------------------------------------------------------------------ REST

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path.startswith("/gateway"):
            return await handler(request)
        self._inflight += 1
        self._touch()
        arrived = time.perf_counter()
        parts: dict[str, FilePart] = {}
        try:
            try:
                refused: DiscordError | None = None
                if request.content_type.startswith("multipart/"):
                    body, parts = await self._read_form(request)
                    request[_FORM_KEY] = (body, parts)
                    request[_BODY_KEY] = body
                    refused = self._referee(request, body, parts)
                else:
                    body = await self._json_body(request)
                    if isinstance(body, dict):
                        request[_BODY_KEY] = body
                    refused = self._referee(request, body, {})
                await self._hung(request)
                self._injected_failure(request)
                self._global_rate(request)
                if parts:
                    self._check_uploads(parts)
                if refused is not None:
                    raise refused
                response = await handler(request)
            except DiscordError as err:
                self.rejected.append(
                    Rejection(
                        request.method,
                        request.path,
                        err.status,
                        err.code,
                        err.message,
                        errors=err.errors,
                        body=request.get(_BODY_KEY),
                    )
                )
                response = _json(err.body(), err.status, headers=err.headers)
            except ConnectionResetError:
                # The client went away while its request was being read (a bot process killed mid-upload):
                # no answer can reach it, and nothing is wrong with the fake.
                self.dropped_requests += 1
                response = _json({"code": 0, "message": "the client went away"}, 400)
            except Exception:
                self.errors.append(f"{request.method} {request.path}\n{traceback.format_exc()}")
                # 400, not 500: discord.py retries 5xx with sleeps, which would only slow the failure down.
                response = _json({"code": 0, "message": "fake Discord crashed; see fake.errors"}, 400)
            self.requests.append((request.method, request.path, response.status))
            self.request_log.append(self._record(request, arrived, response.status))
            if parts:
                self.uploads.append(
                    UploadRecord(
                        request.method,
                        request.path.removeprefix(API),
                        tuple(part.filename for part in parts.values()),
                        tuple(len(part.data) for part in parts.values()),
                        response.status,
                    )
                )
            return response
        finally:
            self._inflight -= 1
            self._touch()

    @staticmethod
    async def _json_body(request: web.Request) -> Any:
        """A request's JSON body, or None (no body, or not JSON: the route's handler answers that)."""
        if not request.body_exists or request.content_type != "application/json":
            return None
        try:
            return json.loads(await request.read())
        except ValueError:
            return None

    def _referee(self, request: web.Request, body: Any, parts: dict[str, FilePart]) -> DiscordError | None:
        """Discord's published contract (``bot.edge.contract``) applied to the request: each violation is kept
        in ``contract_violations`` (the test that caused it fails, see :meth:`check_healthy`) and the
        request is refused as Discord refuses a body it won't take (400 50035, the field errors in
        ``errors``), once the fake's other refusals (injected failures, rate limits, uploads) have had their
        turn."""
        if not self.referee or not request.path.startswith(API):  # the CDN's attachments are no API
            return None
        path = request.path.removeprefix(API)
        files = [len(part.data) for part in parts.values()]
        found = contract.check(request.method, path, body, files=files, payload_json=bool(parts))
        self.contract_checked += 1
        REFEREE["checked"] += 1
        message = body.get("data") if isinstance(body, dict) and "type" in body else body
        if isinstance(message, dict) and int(message.get("flags") or 0) & COMPONENTS_V2:
            REFEREE["layouts"] += 1  # a message sent or edited with the layout flag
        if not found:
            return None
        REFEREE["violations"] += 1
        self.contract_violations.append(ContractViolation(request.method, path, tuple(found), body))
        for violation in found:
            if violation.refusal is not None:
                status, code, message = violation.refusal
                return DiscordError(status, code, message)
        errors = FormErrors()
        for violation in found:
            errors.add(violation.path or ("_body",), *_in_discords_words(violation))
        return DiscordError(400, 50035, "Invalid Form Body", errors.tree)

    def take_violations(self, contains: str = "") -> list[ContractViolation]:
        """Remove and return the contract violations (whose text contains ``contains``): for tests that
        send what Discord would refuse on purpose."""
        taken = [v for v in self.contract_violations if contains in str(v)]
        self.contract_violations = [v for v in self.contract_violations if v not in taken]
        REFEREE["taken"] += len(taken)
        return taken

    @staticmethod
    def _record(request: web.Request, arrived: float, status: int) -> RequestRecord:
        path = request.path.removeprefix(API)
        p = path.strip("/").split("/")
        channel_id: int | None = request.get(_DM_KEY)
        token: str | None = None
        if p[0] == "channels" and len(p) >= 2 and p[1].isdigit():
            channel_id = int(p[1])
        elif p[0] in ("interactions", "webhooks") and len(p) >= 3:
            token = p[2]
        return RequestRecord(arrived, request.method, path, status, channel_id, token)

    def _check_uploads(self, parts: dict[str, FilePart]) -> None:
        """What Discord answers to a request with files before reading its payload: an injected failure
        (``fail_uploads``), then 413 40005 for a file over the upload limit (checked per file since April
        2025, per the API change log)."""
        if self._upload_failure is not None:
            err, times = self._upload_failure
            if times is not None:
                self._upload_failure = (err, times - 1) if times > 1 else None
            raise DiscordError(err.status, err.code, err.message)
        if any(len(part.data) > self.upload_limit for part in parts.values()):
            raise DiscordError(413, 40005, "Request entity too large")

    def _global_rate(self, request: web.Request) -> None:
        """Discord's global rate limit: at most ``global_limit`` requests in any second outside the
        interaction endpoints (callbacks, followups, ``@original`` edits), else 429 with ``global: true``, the
        ``retry_after`` until the oldest counted request is a second old, and the headers Discord sends
        (``X-RateLimit-Global``, ``X-RateLimit-Scope: global``, ``Retry-After``, ``Via``). A refused request
        is not counted."""
        path = request.path.removeprefix(API)
        if self.global_limit is None or path.startswith(("/interactions/", "/webhooks/")):
            return
        now = time.monotonic()
        window = self._global_window
        while window and now - window[0] >= 1.0:
            window.popleft()
        if len(window) >= self.global_limit:
            retry_after = round(window[0] + 1.0 - now, 3)
            self.global_429s += 1
            raise DiscordError(
                429,
                0,
                "You are being rate limited.",
                extra={"retry_after": retry_after, "global": True},
                headers={
                    "Retry-After": str(max(1, math.ceil(retry_after))),
                    "X-RateLimit-Global": "true",
                    "X-RateLimit-Scope": "global",
                    "Via": "1.1 google",
                },
            )
        window.append(now)

    def _injected_failure(self, request: web.Request) -> None:
        path = request.path.removeprefix(API)
        for i, (method, pattern, err) in enumerate(self._failures):
            if method == request.method and pattern.search(path):
                del self._failures[i]
                raise err

    async def _dispatch_rest(self, request: web.Request) -> web.StreamResponse:
        parts = request.match_info["tail"].strip("/").split("/")
        method = request.method
        p = parts
        n = len(p)
        # Interaction endpoints authenticate with the interaction token, not the bot token.
        if p[0] == "interactions" and n == 4 and p[3] == "callback" and method == "POST":
            return await self._callback(request, int(p[1]), p[2])
        if p[0] == "webhooks" and n >= 3:
            return await self._webhook(request, p[2], p[3:])
        if p == ["oauth2", "token"] and method == "POST":  # (the client's secret, not the bot's token)
            return await self.oauth.token(request)
        if p == ["oauth2", "@me"] and method == "GET":  # (a player's bearer token)
            return self.oauth.me(request, self._application())
        if request.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordError(401, 0, "401: Unauthorized")
        if p[0] == "applications" and n == 4 and p[2] == "activity-instances" and method == "GET":
            return self.oauth.instance(p[1], p[3])
        if p == ["users", "@me"] and method == "GET":
            return _json(self.bot_user.payload())
        if p == ["gateway", "bot"] and method == "GET":
            return _json(self._gateway_bot())
        if p == ["oauth2", "applications", "@me"] and method == "GET":
            return _json(self._application())
        if p[0] == "applications" and n in (3, 4) and p[2] == "emojis":
            return await self._emojis(request, p)
        if p[0] == "applications" and p[-1] == "commands":
            guild_id = int(p[3]) if n == 5 and p[2] == "guilds" else None
            return await self._commands(request, guild_id)
        if p == ["users", "@me", "channels"] and method == "POST":
            body = await request.json()
            user = self._user(int(body["recipient_id"]))
            dm = self.dm_channel(user)
            request[_DM_KEY] = dm.id
            return _json(dm.payload())
        if p[0] == "users" and n == 2 and method == "GET":
            return _json(self._user(int(p[1])).payload())
        if p[0] == "guilds" and n >= 2:
            return self._guild_route(method, p)
        if p[0] == "channels" and n >= 2:
            return await self._channel_route(request, p)
        self.unhandled.append(f"{method} {request.path}")
        raise DiscordError(404, 0, f"fake Discord does not model {method} {request.path}")

    def _gateway_bot(self) -> dict[str, Any]:
        """Get Gateway Bot: where to connect and how many shards to run (discord.py's AutoShardedClient asks
        when it is given no shard_count, and then connects to this ``url`` instead of DEFAULT_GATEWAY)."""
        return {
            "url": self.gateway_url,
            "shards": self.recommended_shards,
            "session_start_limit": {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1},
        }

    def _application(self) -> dict[str, Any]:
        return {
            "id": str(self.app_id),
            "name": self.bot_user.name,
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.owner.payload(),
            "verify_key": "0" * 64,
            "flags": 0,
            "team": None,
        }

    def _user(self, user_id: int) -> FakeUser:
        user = self.users.get(user_id)
        if user is None:
            raise DiscordError(404, 10013, "Unknown User")
        return user

    def _channel(self, channel_id: int) -> FakeChannel:
        channel = self.channels.get(channel_id)
        if channel is None or channel.deleted:
            raise DiscordError(404, 10003, "Unknown Channel")
        return channel

    async def _commands(self, request: web.Request, guild_id: int | None) -> web.Response:
        if guild_id is not None and guild_id not in self.guilds:
            raise DiscordError(403, 50001, "Missing Access")
        if request.method == "PUT":
            body = await request.json()
            self.command_bodies.append(body)
            validate_commands(body)
            entry = [c for c in body if isinstance(c, dict) and c.get("type") == ENTRY_POINT]
            if entry and guild_id is not None:
                raise DiscordError(400, 50035, "Invalid Form Body")  # an Entry Point command is global only
            if guild_id is None and not entry and any(c["type"] == ENTRY_POINT for c in self.global_commands):
                raise DiscordError(
                    400, 50240, "You cannot remove this app's Entry Point command in a bulk update operation"
                )
            stored = []
            old = {c["name"]: c["id"] for c in self.commands(self.guilds.get(guild_id or 0))}
            for cmd in body:
                stored.append(
                    {
                        **cmd,
                        "id": old.get(cmd["name"], str(self.ids.next())),
                        "application_id": str(self.app_id),
                        "version": str(self.ids.next()),
                        "type": cmd.get("type", 1),
                        "description": cmd.get("description", ""),  # "" for user and message commands
                        **({"guild_id": str(guild_id)} if guild_id else {}),
                    }
                )
            if guild_id is None:
                self.global_commands = stored
            else:
                self.guild_commands[guild_id] = stored
            return _json(stored)
        if request.method == "GET":
            return _json(self.global_commands if guild_id is None else self.guild_commands.get(guild_id, []))
        self.unhandled.append(f"{request.method} {request.path}")
        raise DiscordError(404, 0, "fake Discord models only bulk command sync")

    async def _emojis(self, request: web.Request, p: list[str]) -> web.Response:
        """Application emojis (``/applications/{id}/emojis[/{emoji_id}]``), as Discord's emoji resource
        documents them: list as ``{"items": [...]}``, get, create (name + image data URI), modify (name),
        delete (204). No gateway event is sent: Discord has none for application emojis (the only emoji event
        is Guild Emojis Update).

        Checked from the docs: at most 2000 per application; image PNG/JPEG/GIF/WebP/AVIF of at most
        256 KiB, else 400 50035 ``image: File cannot be larger than 256.0 kb.`` (code BINARY_TYPE_MAX_SIZE;
        the shape Discord answers for guild emojis, e.g. Androz2091/backups-bot#15). Assumed: the name rule of
        guild emojis (2–32 letters, digits, underscores: BASE_TYPE_BAD_LENGTH or STRING_TYPE_REGEX); a name
        already used by another emoji of the application (case-sensitive) is 50035
        APPLICATION_EMOJI_NAME_ALREADY_TAKEN; a bad data URI or bytes that are not a supported image is 50035
        IMAGE_INVALID; the 2001st is 400 30008 "Maximum number of emojis reached"; another application's id
        is 403 20012; an unknown emoji id is 404 10014 Unknown Emoji.
        """
        method = request.method
        if not p[1].isdigit() or int(p[1]) != self.app_id:
            raise DiscordError(
                403, 20012, "You are not authorized to perform this action on this application"
            )
        if len(p) == 3 and method == "GET":
            return _json({"items": [e.payload() for e in self.application_emojis]})
        if len(p) == 3 and method == "POST":
            body, _ = await self._read_body(request)
            errors = FormErrors()
            self._emoji_name(body.get("name"), None, errors, required=True)
            image = body.get("image")
            decoded = media.decode_data_uri(image) if errors.required(("image",), image) else None
            kind = media.sniff_image(decoded[1]) if decoded is not None else None
            if image and (decoded is None or decoded[0] not in EMOJI_IMAGE_TYPES or kind is None):
                errors.add(("image",), "IMAGE_INVALID", "Invalid image data")
            elif decoded is not None and len(decoded[1]) > self.emoji_image_max:
                kb = self.emoji_image_max / 1024
                errors.add(("image",), "BINARY_TYPE_MAX_SIZE", f"File cannot be larger than {kb:.1f} kb.")
            errors.raise_if_any()
            assert decoded is not None
            if len(self.application_emojis) >= self.application_emojis_max:
                raise DiscordError(400, 30008, "Maximum number of emojis reached")
            emoji = FakeEmoji(
                self.ids.next(),
                str(body["name"]),
                self.bot_user,
                animated=media.is_animated(decoded[1]),
                image=decoded[1],
            )
            self.application_emojis.append(emoji)
            return _json(emoji.payload(), 201)
        eid = p[3] if len(p) == 4 else ""
        found = [e for e in self.application_emojis if eid.isdigit() and e.id == int(eid)]
        if len(p) == 4 and method in ("GET", "PATCH", "DELETE"):
            if not found:
                raise DiscordError(404, 10014, "Unknown Emoji")
            emoji = found[0]
            if method == "GET":
                return _json(emoji.payload())
            if method == "DELETE":
                self.application_emojis.remove(emoji)
                return _no_content()
            body, _ = await self._read_body(request)
            errors = FormErrors()
            self._emoji_name(body.get("name"), emoji, errors, required=False)
            errors.raise_if_any()
            if body.get("name") is not None:
                emoji.name = str(body["name"])
            return _json(emoji.payload())
        self.unhandled.append(f"{method} {request.path}")
        raise DiscordError(405, 0, "405: Method Not Allowed")

    def _emoji_name(self, name: Any, emoji: FakeEmoji | None, errors: FormErrors, *, required: bool) -> None:
        if name is None and not required:
            return
        if not errors.required(("name",), name):
            return
        if not isinstance(name, str):
            errors.add(("name",), "BASE_TYPE_STRING", "Must be a string.")
        elif not 2 <= len(name) <= 32:
            errors.add(("name",), "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 32 in length.")
        elif not EMOJI_NAME.fullmatch(name):
            errors.add(("name",), "STRING_TYPE_REGEX", "String value did not match validation regex.")
        elif any(e.name == name and e is not emoji for e in self.application_emojis):
            errors.add(("name",), "APPLICATION_EMOJI_NAME_ALREADY_TAKEN", "Emoji name already taken.")

    async def _cdn(self, request: web.Request) -> web.Response:
        """An attachment's url: its bytes (what ``discord.Attachment.read()`` fetches)."""
        aid = request.match_info["attachment"]
        data = self.attachment_data.get(int(aid)) if aid.isdigit() else None
        if data is None:
            return web.Response(status=404, text="404: Not Found")
        return web.Response(body=data, content_type="application/octet-stream")

    def _guild_route(self, method: str, p: list[str]) -> web.Response:
        guild = self.guilds.get(int(p[1]))
        if guild is None:
            raise DiscordError(404, 10004, "Unknown Guild")
        if len(p) == 2 and method == "GET":
            return _json(guild.payload())
        if len(p) == 3 and p[2] == "channels" and method == "GET":
            return _json([c.payload() for c in guild.channels if not c.deleted])
        if len(p) == 4 and p[2] == "members" and method == "GET":
            user = self._user(int(p[3]))
            if user not in guild.members:
                raise DiscordError(404, 10007, "Unknown Member")
            return _json(guild.member_payload(user))
        self.unhandled.append(f"{method} /guilds/{'/'.join(p[1:])}")
        raise DiscordError(404, 0, "fake Discord does not model this guild route")

    async def _channel_route(self, request: web.Request, p: list[str]) -> web.StreamResponse:
        method = request.method
        channel = self._channel(int(p[1]))
        if channel.bot_absent:
            self.absent_refusals.append((method, request.path.removeprefix(API)))
            raise DiscordError(403, 50001, "Missing Access")
        n = len(p)
        if n == 2 and method == "GET":
            return _json(channel.payload())
        if n == 2 and method == "PATCH" and channel.is_thread:
            return await self._modify_thread(request, channel)
        if n == 2 and method == "DELETE" and not channel.is_dm:
            need = MANAGE_THREADS if channel.is_thread else MANAGE_CHANNELS
            if not channel.bot_has(VIEW_CHANNEL | need):
                raise DiscordError(403, 50013, "Missing Permissions")
            payload = channel.payload()
            await self._delete_channel(channel)
            return _json(payload)
        if n == 3 and p[2] == "threads" and method == "POST":
            return await self._start_thread(request, channel, None)
        if n == 3 and p[2] == "typing" and method == "POST":
            return _no_content()
        if n == 3 and p[2] == "messages" and method == "POST":
            self._check_post(channel)
            body, files = await self._read_body(request)
            msg = self._new_message(channel, "channel", body, files)
            await self._sent_in(channel)
            return _json(msg.payload())
        if n == 3 and p[2] == "messages" and method == "GET":
            limit = int(request.query.get("limit", "50"))
            msgs = [m for m in self.channel_messages(channel)][::-1][:limit]
            return _json([m.payload() for m in msgs])
        if n >= 4 and p[2] == "messages":
            msg = self.messages.get(int(p[3]))
            if msg is None or msg.channel is not channel or msg.deleted or msg.ephemeral:
                raise DiscordError(404, 10008, "Unknown Message")
            if n == 4 and method == "GET":
                return _json(msg.payload())
            if n == 4 and method == "PATCH":
                body, files = await self._read_body(request)
                self._edit(msg, body, files)
                return _json(msg.payload())
            if n == 4 and method == "DELETE":
                self._check_thread_active(channel)
                self._delete_message(msg)
                return _no_content()
            if n == 5 and p[4] == "threads" and method == "POST":
                return await self._start_thread(request, channel, msg)
            if n >= 6 and p[4] == "reactions" and method in ("PUT", "DELETE"):
                return _no_content()
        self.unhandled.append(f"{method} {request.path}")
        raise DiscordError(404, 0, "fake Discord does not model this channel route")

    def _check_post(self, channel: FakeChannel) -> None:
        if channel.is_dm:
            assert channel.recipient is not None
            if channel.recipient.dms_closed or channel.recipient.bot:
                raise DiscordError(403, 50007, "Cannot send messages to this user")
            if channel.recipient.dm_failures > 0:
                channel.recipient.dm_failures -= 1
                # 400, not 5xx: discord.py retries 5xx with sleeps, which would only slow the test down.
                raise DiscordError(400, 0, "fake passing failure")
            if not self.shares_a_server(channel.recipient):
                raise DiscordError(403, 50007, "Cannot send messages to this user")
        elif not channel.can_post():
            raise DiscordError(403, 50013, "Missing Permissions")
        elif channel.is_thread:
            self._check_thread_writable(channel, sending=True)

    def _check_thread_active(self, channel: FakeChannel) -> None:
        """Archived threads take no edits, reactions or deletes until unarchived (400 50083)."""
        if channel.is_thread and channel.archived:
            raise DiscordError(400, 50083, "Thread is archived")

    def _check_thread_writable(self, channel: FakeChannel, *, sending: bool) -> None:
        """Whether the bot may post (``sending``) or edit in a thread: an archived one only takes a new
        message (which unarchives it) unless it is locked; a locked one only from MANAGE_THREADS."""
        if not channel.is_thread:
            return
        moderator = channel.bot_has(MANAGE_THREADS)
        if channel.archived and (not sending or (channel.locked and not moderator)):
            raise DiscordError(400, 50083, "Thread is archived")
        if channel.locked and not moderator:
            raise DiscordError(403, 160005, "Thread is locked")

    async def _sent_in(self, channel: FakeChannel) -> None:
        """A message sent in an archived (unlocked, or by a moderator) thread unarchives it."""
        if channel.is_thread:
            channel.member_ids.add(self.bot_user.id)
            if channel.archived:
                channel.archived = False
                channel.archive_timestamp = time.time()
                await self._dispatch("THREAD_UPDATE", channel.payload())

    def _delete_message(self, msg: FakeMessage) -> None:
        msg.deleted = True
        if msg.channel.is_thread and not msg.ephemeral:
            msg.channel.message_count = max(0, msg.channel.message_count - 1)
        self._notify(msg)

    async def _delete_channel(self, channel: FakeChannel) -> None:
        assert not channel.is_dm and not channel.deleted, f"{channel!r} cannot be deleted"
        if channel.guild is not None and not channel.is_thread:
            for thread in channel.guild.threads:
                if thread.parent is channel and not thread.deleted:
                    await self._delete_channel(thread)
        channel.deleted = True
        for msg in self._in_channel.get(channel.id, ()):
            msg.deleted = True
        starter = self.messages.get(channel.id)  # a thread started from a message takes that message's id
        if starter is not None and starter.thread is channel:
            starter.thread = None
        if channel.is_thread:
            assert channel.guild is not None and channel.parent is not None
            gone = {
                "id": str(channel.id),
                "guild_id": str(channel.guild.id),
                "parent_id": str(channel.parent.id),
                "type": PUBLIC_THREAD,
            }
            await self._dispatch("THREAD_DELETE", gone)
        else:
            await self._dispatch("CHANNEL_DELETE", channel.payload())

    async def _start_thread(
        self, request: web.Request, parent: FakeChannel, message: FakeMessage | None
    ) -> web.Response:
        """Start Thread from Message (``message``) or without one (public threads only)."""
        if parent.is_dm or parent.is_thread:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        if not parent.bot_has(VIEW_CHANNEL | CREATE_PUBLIC_THREADS):
            raise DiscordError(403, 50013, "Missing Permissions")
        body, _ = await self._read_body(request)
        errors = FormErrors()
        name = body.get("name")
        if errors.required(("name",), name) and not isinstance(name, str):
            errors.add(("name",), "BASE_TYPE_STRING", "Must be a string.")
        _thread_form({k: v for k, v in body.items() if k != "name" or (isinstance(v, str) and v)}, errors)
        duration = body.get("auto_archive_duration")
        if message is None and body.get("type", 12) != PUBLIC_THREAD:
            self.unhandled.append(f"{request.method} {request.path} type={body.get('type')} (private thread)")
            raise DiscordError(400, 0, "fake Discord models only public threads (type 11)")
        errors.raise_if_any()
        if message is not None and message.thread is not None:
            raise DiscordError(400, 160004, "A thread has already been created for this message")
        assert parent.guild is not None
        thread = FakeChannel(
            message.id if message is not None else self.ids.next(),
            str(name),
            guild=parent.guild,
            bot_user_id=self.bot_user.id,
            parent=parent,
            owner_id=self.bot_user.id,
            auto_archive_duration=int(duration or 1440),
            member_ids={self.bot_user.id},
        )
        parent.guild.threads.append(thread)
        self.channels[thread.id] = thread
        if message is not None:
            message.thread = thread
            self._notify(message)
        await self._dispatch("THREAD_CREATE", {**thread.payload(), "newly_created": True})
        return _json(thread.payload(), 201)

    async def _modify_thread(self, request: web.Request, thread: FakeChannel) -> web.Response:
        """PATCH a thread: ``archived``, ``locked``, ``name``, ``auto_archive_duration``."""
        body, _ = await self._read_body(request)
        moderator = thread.bot_has(MANAGE_THREADS)
        owner = thread.owner_id == self.bot_user.id
        unarchive = body.get("archived") is False
        if thread.archived and not unarchive:
            raise DiscordError(400, 50083, "Thread is archived")
        if unarchive and thread.locked and not moderator:
            raise DiscordError(403, 50013, "Missing Permissions")
        if "locked" in body and bool(body["locked"]) != thread.locked and not moderator:
            raise DiscordError(403, 50013, "Missing Permissions")
        if any(k in body for k in ("name", "auto_archive_duration")) and not (moderator or owner):
            raise DiscordError(403, 50013, "Missing Permissions")
        errors = FormErrors()
        _thread_form(body, errors)
        errors.raise_if_any()
        duration = body.get("auto_archive_duration")
        if "name" in body:
            thread.name = str(body["name"])
        if duration is not None:
            thread.auto_archive_duration = int(duration)
            thread.archive_timestamp = time.time()
        if "locked" in body:
            thread.locked = bool(body["locked"])
        if "archived" in body and bool(body["archived"]) != thread.archived:
            thread.archived = bool(body["archived"])
            thread.archive_timestamp = time.time()
        await self._dispatch("THREAD_UPDATE", thread.payload())
        return _json(thread.payload())

    async def _read_form(self, request: web.Request) -> tuple[dict[str, Any], dict[str, FilePart]]:
        """A ``multipart/form-data`` body as Discord's "Uploading Files" reference takes it: the JSON payload
        in a ``payload_json`` part (or, without one, plain form fields such as ``content``), and files in
        parts named ``files[n]``, each with a filename. Assumed: another name for a file part, or the same
        ``files[n]`` twice, is a 400 50035 form error on that part."""
        body: dict[str, Any] = {}
        fields: dict[str, str] = {}
        parts: dict[str, FilePart] = {}
        has_payload = False
        errors = FormErrors()
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            name = part.name or ""  # type: ignore[union-attr]
            filename = part.filename  # type: ignore[union-attr]
            if name == "payload_json" and filename is None:
                try:
                    body = json.loads(await part.text())  # type: ignore[union-attr]
                except ValueError:
                    raise DiscordError(400, 50109, "The request body contains invalid JSON.") from None
                has_payload = True
            elif filename is None:
                fields[name] = await part.text()  # type: ignore[union-attr]
            elif not _FILE_PART.fullmatch(name) or name in parts:
                await part.read()  # type: ignore[union-attr]
                errors.add((name,), "BASE_TYPE_INVALID", "Files must be uploaded as parts named files[n].")
            else:
                data = bytes(await part.read())  # type: ignore[union-attr]
                parts[name] = FilePart(name, filename, data)
        errors.raise_if_any()
        if not has_payload:
            body = dict(fields)
        if not isinstance(body, dict):
            raise DiscordError(400, 50109, "The request body contains invalid JSON.")
        return body, parts

    async def _read_body(self, request: web.Request) -> tuple[dict[str, Any], dict[str, FilePart]]:
        """The JSON payload and the file parts (by part name) of a request; a multipart one was read by the
        middleware."""
        form = request.get(_FORM_KEY)
        if form is not None:
            body, files = form
            return body, files
        if request.body_exists:  # read already by the middleware's referee: aiohttp keeps it
            try:
                body = await request.json()
            except ValueError:
                raise DiscordError(400, 50109, "The request body contains invalid JSON.") from None
        else:
            body = {}
        request[_BODY_KEY] = body
        return body, {}

    def _plan_attachments(
        self,
        body: dict[str, Any],
        files: dict[str, FilePart],
        current: FakeMessage | None,
        prefix: tuple[str, ...],
    ) -> list[dict[str, Any] | tuple[FilePart, str, dict[str, Any]]]:
        """The attachments a message will have after a create (``current`` None) or an edit, in order: kept
        ones as their dicts, new uploads as (part, filename, request entry).

        From Discord's reference (Uploading Files; message resource, attachment request structure and Edit
        Message): an ``attachments`` entry's ``id`` is the ``n`` of a ``files[n]`` part for a new file, or
        the snowflake of an attachment to keep; on an edit, only listed files are on the message afterwards
        (unlisted old ones are removed, unlisted new parts are not appended); an edit without
        ``attachments`` keeps the old ones and appends the new files. An entry naming no part and no
        attachment of the message is 400 50035 ``ATTACHMENT_NOT_FOUND`` "Attachment data not found" (the
        shape seen in Cogmasters/concord#78). More than 10 attachments (or file parts) is 400 30015 "Maximum
        number of attachments in a message reached (10)", from Discord's JSON error code table. Assumed: on
        a create, parts not listed are attached too; an empty filename is ``BASE_TYPE_REQUIRED`` at the
        entry's (or the part's) ``filename``.
        """
        errors = FormErrors(prefix)
        by_index = {part.index: part for part in files.values()}
        kept = {str(a["id"]): a for a in current.attachments} if current is not None else {}
        plan: list[dict[str, Any] | tuple[FilePart, str, dict[str, Any]]] = []
        entries = body.get("attachments") if "attachments" in body else None
        if "attachments" in body and entries is None:
            entries = []
        if entries is None:
            plan.extend(current.attachments if current is not None else [])
            plan.extend((part, part.filename, {}) for part in files.values())
            for part in files.values():
                if not part.filename:
                    errors.add((part.name, "filename"), "BASE_TYPE_REQUIRED", "This field is required")
        elif not isinstance(entries, list):
            errors.add(("attachments",), "BASE_TYPE_ARRAY", "Must be an array.")
        else:
            used: set[str] = set()
            for i, entry in enumerate(entries):
                at: tuple[str | int, ...] = ("attachments", i)
                if not isinstance(entry, dict):
                    errors.add(at, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
                    continue
                if not errors.required((*at, "id"), entry.get("id")):
                    continue
                eid = str(entry["id"])
                errors.too_long((*at, "description"), entry.get("description"), 1024)
                if eid in by_index and eid not in used:
                    used.add(eid)
                    part = by_index[eid]
                    filename = entry.get("filename", part.filename)
                    if not isinstance(filename, str) or not filename:
                        errors.add((*at, "filename"), "BASE_TYPE_REQUIRED", "This field is required")
                        continue
                    plan.append((part, filename, entry))
                elif eid in kept and eid not in used:
                    used.add(eid)
                    old = dict(kept[eid])
                    if entry.get("description") is not None:
                        old["description"] = entry["description"]
                    plan.append(old)
                else:
                    errors.add(at, "ATTACHMENT_NOT_FOUND", "Attachment data not found")
            if current is None:
                for part in files.values():
                    if part.index in used:
                        continue
                    if not part.filename:
                        errors.add((part.name, "filename"), "BASE_TYPE_REQUIRED", "This field is required")
                    plan.append((part, part.filename, {}))
        errors.raise_if_any()
        if max(len(plan), len(files)) > self.attachments_max:
            raise DiscordError(
                400, 30015, f"Maximum number of attachments in a message reached ({self.attachments_max})"
            )
        return plan

    def _store_attachments(
        self,
        plan: list[dict[str, Any] | tuple[FilePart, str, dict[str, Any]]],
        channel: FakeChannel,
        *,
        ephemeral: bool,
    ) -> list[dict[str, Any]]:
        """Attachment objects for a planned list, new uploads stored in ``attachment_data``: id, filename,
        size, url, proxy_url, content_type (from the bytes or the name), width/height for PNG and GIF images,
        description if given, ``ephemeral`` on an ephemeral message's attachments (assumed)."""
        out: list[dict[str, Any]] = []
        for item in plan:
            if isinstance(item, dict):
                out.append(item)
                continue
            part, filename, entry = item
            aid = self.ids.next()
            self.attachment_data[aid] = part.data
            url = f"http://127.0.0.1:{self.port}/attachments/{channel.id}/{aid}/{quote(filename)}"
            att: dict[str, Any] = {
                "id": str(aid),
                "filename": filename,
                "size": len(part.data),
                "url": url,
                "proxy_url": url,
            }
            kind = media.content_type(filename, part.data)
            if kind is not None:
                att["content_type"] = kind
            size = media.image_size(part.data)
            if size is not None:
                att["width"], att["height"] = size
            if entry.get("description") is not None:
                att["description"] = entry["description"]
            if entry.get("is_spoiler"):
                att["flags"] = 1 << 3  # IS_SPOILER
            if ephemeral:
                att["ephemeral"] = True
            out.append(att)
        return out

    def _emoji_ids(self) -> set[int]:
        """Custom emoji ids the bot may put in components: its application's (the fake's guilds have none)."""
        return {e.id for e in self.application_emojis}

    def _new_message(
        self,
        channel: FakeChannel,
        source: str,
        body: dict[str, Any],
        files: dict[str, FilePart],
        interaction: FakeInteraction | None = None,
        *,
        loading: bool = False,
        prefix: tuple[str, ...] = (),
    ) -> FakeMessage:
        plan = [] if loading else self._plan_attachments(body, files, None, prefix)
        if not loading:
            validate_message_payload(
                body,
                prefix=prefix,
                attachments=len(plan),
                emoji_ids=self._emoji_ids(),
                files=_names(plan),
            )
        content = str(body.get("content") or "")
        embeds = list(body.get("embeds") or [])
        components = list(body.get("components") or [])
        flags = int(body.get("flags") or 0)
        if loading:
            flags |= LOADING
        ref = body.get("message_reference") or {}
        attachments = self._store_attachments(plan, channel, ephemeral=bool(flags & EPHEMERAL))
        msg = FakeMessage(
            id=self.ids.next(),
            channel=channel,
            author=self.bot_user,
            source=source,
            content=content,
            embeds=embeds,
            components=components,
            flags=flags,
            attachments=attachments,
            files={a["filename"]: self.attachment_data[int(a["id"])] for a in attachments},
            interaction=interaction,
            reference_id=int(ref["message_id"]) if ref.get("message_id") else None,
            allowed_mentions=body.get("allowed_mentions"),
        )
        msg.shown_text()
        self.messages[msg.id] = msg
        self._in_channel.setdefault(channel.id, []).append(msg)
        if channel.is_thread and not msg.ephemeral:
            channel.message_count += 1
            channel.total_message_sent += 1
        self._notify(msg)
        return msg

    def _notify(self, msg: FakeMessage) -> None:
        for listener in self.listeners:
            listener(msg)

    def _edit(
        self,
        msg: FakeMessage,
        body: dict[str, Any],
        files: dict[str, FilePart],
        *,
        prefix: tuple[str, ...] = (),
    ) -> None:
        self._check_thread_writable(msg.channel, sending=False)
        plan = self._plan_attachments(body, files, msg, prefix)
        validate_message_payload(
            body,
            current=msg,
            prefix=prefix,
            attachments=len(plan),
            emoji_ids=self._emoji_ids(),
            files=_names(plan),
        )
        msg.edits.append(msg.snapshot())
        msg.edited = time.time()
        if "content" in body:
            msg.content = str(body["content"] or "")
        if "embeds" in body:
            msg.embeds = list(body["embeds"] or [])
        if "components" in body:
            msg.components = list(body["components"] or [])
        if "flags" in body and body["flags"] is not None:
            msg.flags = (msg.flags & EPHEMERAL) | int(body["flags"])
        if body.get("allowed_mentions") is not None:
            msg.allowed_mentions = body["allowed_mentions"]
        msg.attachments = self._store_attachments(plan, msg.channel, ephemeral=msg.ephemeral)
        msg.files = {a["filename"]: self.attachment_data[int(a["id"])] for a in msg.attachments}
        msg.flags &= ~LOADING
        msg.shown_text()
        self._notify(msg)

    # ------------------------------------------------------------------------------ interaction REST

    def _interaction(self, iid: int, token: str) -> FakeInteraction:
        it = self._by_tok.get(token)
        if it is None or it.id != iid:
            raise DiscordError(404, 10062, "Unknown interaction")
        self._aged(it)
        return it

    def _by_token(self, token: str) -> FakeInteraction:
        it = self._by_tok.get(token)
        if it is None or it.expired:
            raise DiscordError(404, 10015, "Unknown Webhook")
        self._aged(it)
        if it.expired:
            raise DiscordError(404, 10015, "Unknown Webhook")
        return it

    def _aged(self, it: FakeInteraction) -> None:
        """The token is used now: its age is kept, and past ``token_life`` it is dead, as on Discord."""
        age = self.clock() - it.born
        self.token_ages.append(age)
        if age >= self.token_life:
            it.expired = True

    async def _callback(self, request: web.Request, iid: int, token: str) -> web.Response:
        arrived = time.perf_counter()
        it = self._interaction(iid, token)
        if it.expired or time.monotonic() - it.created > self.callback_deadline:
            raise DiscordError(404, 10062, "Unknown interaction")
        if it.callback_type is not None:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        body, files = await self._read_body(request)
        ctype = int(body.get("type", 0))
        data = body.get("data") or {}
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}[it.type]
        if it.type == 5 and it.message is None:
            allowed = {4, 5}
        if it.type != 4 and any(c.get("type") == ENTRY_POINT for c in self.global_commands):
            allowed = allowed | {12}  # LAUNCH_ACTIVITY, for an app with Activities on
        if ctype not in allowed:
            choices = ", ".join(str(c) for c in sorted(allowed))
            raise DiscordError(
                400,
                50035,
                "Invalid Form Body",
                {
                    "type": {
                        "_errors": [
                            {"code": "BASE_TYPE_CHOICES", "message": f"Value must be one of ({choices})."}
                        ]
                    }
                },
            )
        msg: FakeMessage | None = None
        if ctype in (4, 5):
            self._check_interaction_post(it)
        if ctype == 4:
            msg = self._new_message(it.channel, "response", data, files, it, prefix=("data",))
            it.response = msg
        elif ctype == 5:
            msg = self._new_message(
                it.channel, "response", {"flags": data.get("flags", 0)}, {}, it, loading=True
            )
            it.response = msg
        elif ctype == 7:
            assert it.message is not None
            self._edit(it.message, data, files, prefix=("data",))
            msg = it.message
        elif ctype == 9:
            validate_modal_payload(data)
        launched = self.oauth.launch(it.channel, it.user) if ctype == 12 else None
        it.callback_type, it.callback_data = ctype, data
        if ctype in (4, 5):
            await self._sent_in(it.channel)
        it.callback_at = arrived
        it.answered.set()
        reply: dict[str, Any] = {
            "interaction": {
                "id": str(it.id),
                "type": it.type,
                "activity_instance_id": launched.id if launched else None,
                "response_message_id": str(msg.id) if msg else None,
                "response_message_loading": ctype == 5,
                "response_message_ephemeral": bool(msg and msg.ephemeral),
            },
            "resource": {"type": ctype, **({"message": msg.payload()} if msg else {})},
        }
        return _json(reply)

    async def _webhook(self, request: web.Request, token: str, rest: list[str]) -> web.StreamResponse:
        it = self._by_token(token)
        method = request.method
        if method in ("POST", "PATCH"):
            it.replied_at = time.perf_counter()
            if it.first_reply_at is None:
                it.first_reply_at = it.replied_at
        if not rest and method == "POST":
            if it.callback_type is None:
                raise DiscordError(404, 10015, "Unknown Webhook")
            self._check_interaction_post(it)
            if it.channel.bot_absent and len(it.followups) >= self.followups_max:
                raise DiscordError(400, 40094, "Maximum number of follow-up messages for this interaction")
            body, files = await self._read_body(request)
            msg = self._new_message(it.channel, "followup", body, files, it)
            it.followups.append(msg)
            await self._sent_in(it.channel)
            if request.query.get("wait") in ("1", "true", "True"):
                return _json(msg.payload())
            return _no_content()
        if len(rest) == 2 and rest[0] == "messages":
            msg = self._webhook_message(it, rest[1])
            if method == "GET":
                return _json(msg.payload())
            if method == "PATCH":
                body, files = await self._read_body(request)
                self._edit(msg, body, files)
                return _json(msg.payload())
            if method == "DELETE":
                self._check_thread_active(msg.channel)
                self._delete_message(msg)
                return _no_content()
        self.unhandled.append(f"{method} {request.path}")
        raise DiscordError(404, 0, "fake Discord does not model this webhook route")

    def _check_interaction_post(self, it: FakeInteraction) -> None:
        """An interaction reply needs no permission, but a deleted channel is gone and an archived, locked
        thread takes no message (Discord answers 50083 even to the callback)."""
        channel = it.channel
        if channel.deleted:
            raise DiscordError(404, 10003, "Unknown Channel")
        if channel.is_thread and channel.archived and channel.locked and not channel.bot_has(MANAGE_THREADS):
            raise DiscordError(400, 50083, "Thread is archived")

    def _webhook_message(self, it: FakeInteraction, mid: str) -> FakeMessage:
        if mid == "@original":
            if it.response is not None:
                msg = it.response
            elif it.callback_type in (6, 7) and it.message is not None:
                msg = it.message
            else:
                raise DiscordError(404, 10008, "Unknown Message")
        else:
            found = [m for m in it.followups if m.id == int(mid)]
            if not found and it.response is not None and it.response.id == int(mid):
                found = [it.response]
            if not found:
                raise DiscordError(404, 10008, "Unknown Message")
            msg = found[0]
        if msg.deleted:
            raise DiscordError(404, 10008, "Unknown Message")
        return msg


def _names(plan: list[dict[str, Any] | tuple[FilePart, str, dict[str, Any]]]) -> set[str]:
    """The file names a message will have after a request, from its attachments plan."""
    return {str(p["filename"]) if isinstance(p, dict) else p[1] for p in plan}
