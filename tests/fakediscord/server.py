"""A fake Discord (REST + gateway) on 127.0.0.1 that the unmodified discord.py client talks to: the parts
composed. README.md (beside this file) says what each part fakes, and how faithfully.

Tests act as users (``slash``, ``click``, ``select``, ``submit_modal``: players.py) and read what the bot
sent (``channel_messages``, ``dms``: world.py; the returned :class:`InteractionResult`). Every request is
checked against Discord's published contract (referee.py) and every message body as Discord would
(validate.py); ``check_healthy`` fails a test whose bot broke either, or used a route the fake does not
model, or made the fake itself fail.
"""

from __future__ import annotations

from aiohttp import web

from .callbacks import Callbacks
from .channels import Channels
from .commands import Commands
from .emojis import Emojis
from .faults import Faults
from .gateway import Gateway
from .interactions import Interactions
from .players import Players
from .posting import Posting
from .referee import Referee
from .rest import Rest
from .state import API
from .uploads import Uploads
from .world import World


class FakeDiscord(
    Players,
    Interactions,
    Rest,
    Callbacks,
    Channels,
    Posting,
    Emojis,
    Commands,
    Uploads,
    Referee,
    Faults,
    World,
    Gateway,
):
    """One application, its bot user, a default guild with a ``#tavern`` channel, and whatever tests add."""

    def __init__(self) -> None:
        super().__init__()
        self.owner = self.add_user("owner")
        self.guild = self.add_guild("Test Tavern")
        self.channel = self.add_channel("tavern")

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
