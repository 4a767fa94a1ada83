"""What every part of the fake Discord shares: its knobs (class attributes a test may change), its state
(users, guilds, channels, messages, interactions) and the records tests read (requests, rejections,
uploads, contract violations). The parts (gateway, routes, players' helpers...) are mixins over
:class:`FakeState`; :class:`~tests.fakediscord.server.FakeDiscord` composes them and calls one part from
another through ``self``."""

from __future__ import annotations

import re
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .errors import ContractViolation, DiscordError
from .messages import FakeInteraction, FakeMessage
from .model import (
    FakeChannel,
    FakeEmoji,
    FakeGuild,
    FakeUser,
    Rejection,
    RequestRecord,
    Snowflakes,
    UploadRecord,
)
from .oauth import FakeOAuth

if TYPE_CHECKING:
    from .faults import Hang
    from .gateway import Connection

FAKE_TOKEN = "fake.bot.token-" + "x" * 40
API = "/api/v10"
ENTRY_POINT = 4  # PRIMARY_ENTRY_POINT, the Activity's Launch command


class FakeState:
    """One application and its bot user, with nothing else yet (``FakeDiscord`` adds the default world)."""

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

    # the default world, made by FakeDiscord
    owner: FakeUser
    guild: FakeGuild
    channel: FakeChannel

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
        self.gateway_events: Counter[str] = Counter()  # dispatches sent to the bot, by type (all connections)
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
        self.global_counted: list[float] = []  # when each request the global limit counted was counted
        self.dropped_requests = 0  # requests whose client went away before they were read whole
        self._dms: dict[int, FakeChannel] = {}
        self._by_tok: dict[str, FakeInteraction] = {}  # O(1) lookups, so long runs do not slow down
        self._in_channel: dict[int, list[FakeMessage]] = {}
        self._conns: list[Connection] = []
        self._inflight = 0
        self._last_activity = time.monotonic()
        self._runner: web.AppRunner | None = None
        self.port = 0

        self.bot_user = FakeUser(self.ids.next(), "Decktet Tavern", bot=True)
        self.users[self.bot_user.id] = self.bot_user
        self.app_id = self.bot_user.id

        self.bot_user = FakeUser(self.ids.next(), "Decktet Tavern", bot=True)
        self.users[self.bot_user.id] = self.bot_user
        self.app_id = self.bot_user.id

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway/"

    def _touch(self) -> None:
        self._last_activity = time.monotonic()
