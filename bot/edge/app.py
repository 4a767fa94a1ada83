"""The bot object: built without connecting, so tests can start it against a fake Discord."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
import math
import time
from collections.abc import Mapping
from typing import Any

import discord
from discord.ext import commands

from bot.base import metrics
from bot.base.clock import Clock
from bot.base.locks import KeyedLocks
from bot.base.version import commit, version
from bot.edge import buckets, custom_ids, cycles, discord_metrics, emojis, governor, router
from bot.edge.contract.limits import ENTRY_POINT
from bot.edge.drain import Drain
from bot.edge.errors import TavernTree
from bot.edge.metrics_server import MetricsServer
from bot.edge.table import TableController
from bot.edge.tournament_desk import Desk
from bot.edge.translator import CatalogTranslator
from bot.edge.web import WebServer
from bot.games import GAMES, GameAdapter
from bot.logging_setup import redact
from bot.render import suits
from bot.services import drawing, health, snapshots
from bot.services.backups import BackupSchedule
from bot.services.cooldowns import Limits
from bot.services.languages import Languages
from bot.services.links import Links, key_from
from bot.services.lobbies import LobbyService
from bot.services.preferences import Preferences
from bot.services.server_settings import ServerSettings
from bot.services.tables import TableService
from bot.services.thinking import THINKING
from bot.services.tournaments.service import TournamentService
from bot.settings import Settings
from bot.store import Store, open_store, redacted

log = logging.getLogger("tavern.app")

# Extensions loaded at start-up, in order. Game cogs append themselves here.
EXTENSIONS: list[str] = [
    "cogs.general",
    "cogs.bhargage",
    "cogs.stats",
    "cogs.deluxe",
    "cogs.cribbage",
    "cogs.right_click",
    "cogs.tournament",
]


# bot_state key of the hash of the command tree last synced (and where to): a restart with the same commands
# does not sync again (Discord rate-limits syncs, and a global one is slow to show).
SYNC_STATE_KEY = "command_sync"
# The Activity's "Launch" command (type ENTRY_POINT), which Discord makes when the operator turns Activities
# on: a global bulk overwrite must carry it back as Discord holds it, or Discord refuses the whole overwrite
# (50240) and registers no command at all. These are its fields sent back.
ENTRY_FIELDS = (
    "id",
    "type",
    "handler",
    "name",
    "name_localizations",
    "description",
    "description_localizations",
    "contexts",
    "integration_types",
)
# How long closing waits for presses in flight; ``docker stop`` kills after 10 s.
DRAIN_SECONDS = 5.0
# The heartbeat's database query must answer within this.
DB_CHECK_SECONDS = 5.0

# The bot never joins voice: don't warn at every start that voice libraries are missing.
discord.VoiceClient.warn_nacl = False
if hasattr(discord.VoiceClient, "warn_dave"):  # discord.py 2.7.1 and later
    setattr(discord.VoiceClient, "warn_dave", False)  # noqa: B010 - an attribute older versions lack


async def offline_command_payload(settings: Settings) -> list[dict[str, Any]]:
    """What a command sync would send, built without connecting or opening the store (``python -m bot
    check``): the cogs loaded into a bot that never starts."""
    bot = TavernBot(settings)
    try:
        await bot.tree.set_translator(CatalogTranslator())
        for name in bot.initial_extensions:
            await bot.load_extension(name)
        return await bot.command_payload(None)
    finally:
        await bot.http.close()


def intents() -> discord.Intents:
    """Guilds only: slash commands and components need no privileged (or message) intents."""
    result = discord.Intents.none()
    result.guilds = True
    return result


class TavernBot(commands.AutoShardedBot):
    """The Decktet Tavern bot. The services exist once ``setup_hook`` has run; ``clock`` and ``drain`` from
    the start. ``sync_only`` (``python -m bot sync``): set up, force a command sync, no timer or heartbeat.

    It runs the shards ``Settings.shard_ids`` of ``Settings.shard_count`` (by default every shard Discord
    recommends): several processes, each its own shards, share one PostgreSQL store. Any process serves any
    table (every DM press reaches shard 0); a process restores, and runs the timers of, only the tables and
    lobbies of the guilds on its own shards."""

    store: Store
    tables: TableService
    lobbies: LobbyService
    controller: TableController
    server_settings: ServerSettings
    tournaments: TournamentService
    tournament_desk: Desk

    def __init__(
        self,
        settings: Settings,
        *,
        extensions: list[str] | None = None,
        guild_ready_timeout: float = 2.0,
        games: Mapping[str, GameAdapter] | None = None,
        **options: Any,
    ) -> None:
        options.setdefault("http_trace", discord_metrics.http_trace())  # counts Discord's 429s
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            tree_cls=TavernTree,
            help_command=None,
            # Nothing pings unless it says whom: a panel names its pings (``delivery.mentions``).
            allowed_mentions=discord.AllowedMentions.none(),
            guild_ready_timeout=guild_ready_timeout,
            shard_count=settings.shard_count,
            **options,
        )
        if settings.shard_ids is not None:  # discord.py takes the list as given, and None for "all"
            self.shard_ids = list(settings.shard_ids)
        self.settings = settings
        self.governor = governor.Governor(settings.budget_per_process)
        governor.install(self, self.governor)
        buckets.install(self.http)
        discord_metrics.install()
        self.metrics_server: MetricsServer | None = None  # GET /metrics, where TAVERN_METRICS_PORT is set
        self.web_server: WebServer | None = None  # the pages, where TAVERN_WEB_PORT is set
        self.links: Links | None = None  # the pages' signed addresses, where the bot links them
        self.clock = Clock()
        self.limits = Limits(settings.openings_per_minute, settings.calculations_per_minute, self.clock)
        self.games: Mapping[str, GameAdapter] = GAMES if games is None else games
        metrics.zero_games(self.games)
        metrics.BUILD_INFO.labels(version(), commit()).set(1)
        self.initial_extensions = list(EXTENSIONS if extensions is None else extensions)
        self._store_open = False
        self.drain = Drain()
        self.sync_only = False
        self.heartbeat_seconds = health.HEARTBEAT_SECONDS
        self._heartbeat: asyncio.Task[None] | None = None
        self._emojis: asyncio.Task[None] | None = None
        self._warming: asyncio.Task[None] | None = None
        self.backups: BackupSchedule | None = None  # where TAVERN_BACKUP_DIR is set
        self._backing_up: asyncio.Task[None] | None = None
        self._restoring: asyncio.Task[None] | None = None
        self._foreign_views = False  # add_dynamic_items was called: see _handled_elsewhere

    async def open_store(self) -> None:
        """Open (and migrate) the database; ``run`` calls it before logging in, so a database that can't be
        reached stops the bot before it touches Discord (``StoreOpenError``)."""
        if not self._store_open:
            self.store = await open_store(
                self.settings.database_url or self.settings.db_path, pool_size=self.settings.database_pool
            )
            self._store_open = True

    async def setup_hook(self) -> None:
        await self.open_store()
        await self._build_services()
        if not self.sync_only:
            await self._start_servers()
        await self.store.watch(self.tables.changed_elsewhere)
        url = self.settings.database_url
        where = redacted(url) if url else str(self.settings.db_path)
        log.info("Database %s open; restoring its tables while connecting", where)
        self._restoring = asyncio.create_task(self._restore(), name="tavern-restore")
        for name in self.initial_extensions:
            await self.load_extension(name)
        if self.sync_only:
            await self.sync_commands(force=True)
            return
        self._heartbeat = asyncio.create_task(self._heartbeat_loop(), name="tavern-heartbeat")
        self._warming = asyncio.create_task(self._start_workers(), name="tavern-workers")
        self._start_backups()
        if self.settings.suit_emojis:  # in the background: connecting never waits on it
            self._emojis = asyncio.create_task(emojis.load_suit_emojis(self), name="tavern-emojis")
        if self.settings.first_shard:  # one process syncs for all
            await self.sync_commands()

    async def _build_services(self) -> None:
        """The services over the store, the table controller and the tournament desk, wired together; the
        server's languages and the players' preferences read in."""
        self.tables = TableService(
            self.store, clock=self.clock, games=self.games, key=snapshots.key_from(self.settings.token)
        )
        self.lobbies = LobbyService(
            self.store, self.tables, self.settings, clock=self.clock, locks=KeyedLocks()
        )
        self.server_settings = ServerSettings(self.store, self.settings, self.games)
        self.links = (
            Links(self.settings.web_links, key_from(self.settings.web_secret, self.settings.token))
            if self.settings.web_links
            else None
        )
        self.languages = Languages(self.store, self.server_settings, self._guild_locale)
        await self.languages.load()
        self.preferences = Preferences(self.store)
        await self.preferences.load()
        await self.tree.set_translator(CatalogTranslator())
        self.controller = TableController(self, self.limits)
        self.tournaments = TournamentService(self.store, self.clock)
        self.tournament_desk = Desk(self)
        self.controller.publisher.on_over = self.tournament_desk.ended
        self.controller.timers.after_pass = self.tournament_desk.catch_up

    async def _start_servers(self) -> None:
        """The metrics endpoint and the web pages, each where its port is set; the pages linked where they
        listen when no address was given."""
        if self.settings.metrics_port is not None:
            self.metrics_server = MetricsServer(self)
            await self.metrics_server.start(self.settings.metrics_host, self.settings.metrics_port)
        if self.settings.web_port is not None:
            self.web_server = WebServer(self)
            await self.web_server.start(self.settings.web_host, self.settings.web_port)
            if self.links is None:  # any free port (0): linked where it listens, on this machine
                here = dataclasses.replace(self.settings, web_port=self.web_server.port).web_links
                self.links = Links(here or "", key_from(self.settings.web_secret, self.settings.token))

    def _start_backups(self) -> None:
        """The scheduled backups of the SQLite file, where TAVERN_BACKUP_DIR is set (bot.services.backups)."""
        folder = self.settings.backup_dir
        if folder is None or self.settings.database_url:
            return
        self.backups = BackupSchedule(
            self.settings.db_path,
            folder,
            every=self.settings.backup_every,
            keep=self.settings.backup_keep,
            clock=self.clock,
        )
        home = self.settings.db_path.parent.resolve()
        if folder.resolve() == home or home in folder.resolve().parents:
            log.warning(
                "Backups go to %s, inside the database's own folder: whatever loses that folder (its volume, "
                "its disk) loses them too. Give them a volume or disk of their own.",
                folder,
            )
        self._backing_up = asyncio.create_task(self.backups.run(), name="tavern-backups")

    async def _start_workers(self) -> None:
        """Start the drawing process and, unless experts never think, the thinking one, in the background: a
        first picture, expert move or hint then finds its process warm (a hint cannot wait for a start)."""
        starts = [drawing.DRAWING.start()]
        if self.settings.expert_seconds > 0:
            starts.append(THINKING.start())
        await asyncio.gather(*starts)

    async def _restore(self) -> None:
        """Restore the tables in the background (connecting does not wait), then start the timer, whose
        passes go over every live table."""
        try:
            await self.tables.restore(self.settings.shards)
        except Exception:
            log.exception("Restoring the tables failed; those not restored load when clicked")
        if not self.sync_only:
            self.controller.timers.start()

    def _guild_locale(self, guild_id: int) -> object | None:
        guild = self.get_guild(guild_id)
        return guild.preferred_locale if guild is not None else None

    async def command_payload(self, guild: discord.abc.Snowflake | None) -> list[dict[str, Any]]:
        """What a sync sends: every command with its translations, sorted."""
        translator = self.tree.translator
        commands = self.tree.get_commands(guild=guild)
        if translator is None:
            payload = [command.to_dict(self.tree) for command in commands]
        else:
            payload = [await command.get_translated_payload(self.tree, translator) for command in commands]
        return sorted(payload, key=lambda c: (int(c.get("type", 1)), str(c["name"])))

    async def command_hash(self, guild: discord.abc.Snowflake | None) -> str:
        """A stable hash of what a sync would send (the commands, translated) and where to."""
        payload = await self.command_payload(guild)
        target = {"application": self.application_id, "guild": guild.id if guild is not None else None}
        text = json.dumps({"target": target, "commands": payload}, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    async def sync_commands(self, *, force: bool = False) -> int | None:
        """Sync to the dev guild (instant) when configured, else globally (can take up to an hour) — only when
        the command tree or the target changed since the last sync (or ``force``). Returns how many commands
        were synced, or None when nothing had changed."""
        guild: discord.Object | None = None
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
        digest = await self.command_hash(guild)
        if not force and await self.store.get_state(SYNC_STATE_KEY) == digest:
            log.info("Commands unchanged since the last sync (%s): not syncing", digest[:12])
            return None
        app_id = self.application_id
        if app_id is None:
            raise discord.app_commands.MissingApplicationID
        payload = await self.command_payload(guild)
        if guild is None:
            payload += await self._entry_points(app_id)
            synced = await self.http.bulk_upsert_global_commands(app_id, payload)
        else:  # (an Entry Point command is global only)
            synced = await self.http.bulk_upsert_guild_commands(app_id, guild.id, payload)
        await self.store.set_state(SYNC_STATE_KEY, digest)
        where = f"dev guild {guild.id}" if guild is not None else "global"  # i18n: not text
        log.info("Synced %d commands (%s, %s)", len(synced), where, digest[:12])
        return len(synced)

    async def _entry_points(self, app_id: int) -> list[dict[str, Any]]:
        """The app's Entry Point command as Discord holds it (none until Activities are turned on), to send
        back unchanged with the global commands: one request more per sync, and never a refused sync."""
        held = await self.http.get_global_commands(app_id)
        return [
            {key: command[key] for key in ENTRY_FIELDS if key in command}  # type: ignore[literal-required]
            for command in held
            if command.get("type") == ENTRY_POINT
        ]

    # ------------------------------------------------------------------------------------------ health

    def gateway_ok(self) -> bool:
        """Connected to the gateway right now: ready, not closed, every shard's websocket open and its
        heartbeats answered."""
        shards = list(self.shards.values())
        return (
            self.is_ready()
            and not self.is_closed()
            and bool(shards)
            and all(not shard.is_closed() and math.isfinite(shard.latency) for shard in shards)
        )

    async def health_beat(self) -> health.Beat:
        """Check the gateway, run a trivial query (a missing bot_state key) against the database, and call
        the drawing and thinking processes (replaced there if one hung). The file is readable by anyone on
        the machine: the detail is scrubbed like a log line."""
        try:
            await asyncio.wait_for(self.store.get_state("health_probe"), DB_CHECK_SECONDS)
            database, detail = True, ""
        except TimeoutError:
            database, detail = False, f"no answer within {DB_CHECK_SECONDS:.0f} s"  # i18n: not text
        except Exception as err:
            database, detail = False, redact(f"{err.__class__.__name__}: {err}", self.settings.secrets)
        workers = "; ".join(note for note in (await drawing.DRAWING.check(), await THINKING.check()) if note)
        return health.Beat(time.time(), self.gateway_ok(), database, detail, drawing=workers)

    async def _heartbeat_loop(self) -> None:
        path = self.settings.heartbeat_path
        while True:
            beat = await self.health_beat()
            try:
                health.write(path, beat)
            except OSError as err:
                log.warning("Could not write the heartbeat file %s: %s", path, err)
            await asyncio.sleep(self.heartbeat_seconds)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Every component press goes to ``router.on_component``: ours are parsed strictly, and a forged
        one is refused there rather than left unanswered (unless something else registered to take it)."""
        discord_metrics.heard(interaction)
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        cid = data.get("custom_id")
        if isinstance(cid, str) and not cid.startswith(custom_ids.ID_PREFIX) and self._handled_elsewhere():
            return
        try:
            await router.on_component(self, interaction)
        finally:
            cycles.let_go(interaction)

    def _handled_elsewhere(self) -> bool:
        """Whether views or dynamic items other than the bot's own listen for presses (tests add some): then
        a press whose id is not ours is theirs. The bot's own views carry ids of its prefix, so any view
        discord.py keeps listening to (``persistent_views``), or dynamic items added, are someone else's."""
        return self._foreign_views or bool(self.persistent_views)

    def add_dynamic_items(self, *items: type[discord.ui.DynamicItem[Any]]) -> None:
        self._foreign_views = True
        super().add_dynamic_items(*items)

    async def on_app_command_completion(self, interaction: discord.Interaction[Any], command: Any) -> None:
        """A slash command finished: the drain stops waiting for it (``TavernTree`` counted it in), and its
        interaction is let go (``bot.edge.cycles``)."""
        self.drain.leave(interaction.id)
        cycles.let_go(interaction)

    async def on_ready(self) -> None:
        assert self.user is not None
        log.info("Logged in as %s (id %s) in %d servers", self.user, self.user.id, len(self.guilds))

    async def close(self) -> None:
        """Let the presses in flight finish (new ones are refused), then stop a restore still running, the
        timer and the heartbeat, disconnect, and close the database last."""
        try:
            await self.drain.close(DRAIN_SECONDS)
            if self._restoring is not None:
                self._restoring.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._restoring
            if hasattr(self, "controller"):
                await self.controller.close()  # the timer, the computer players, the calls still waiting
            if self._warming is not None:
                self._warming.cancel()
            if self._backing_up is not None:
                self._backing_up.cancel()
            if self._emojis is not None:
                self._emojis.cancel()
                suits.use({})  # the text of anything drawn after this bot is gone (tests) is plain again
            heartbeat, self._heartbeat = self._heartbeat, None
            if heartbeat is not None:
                heartbeat.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await heartbeat
                with contextlib.suppress(OSError):
                    health.write(
                        self.settings.heartbeat_path, health.Beat(time.time(), False, False, "stopped")
                    )
            await super().close()
        finally:
            pages, self.web_server = self.web_server, None
            if pages is not None:
                await pages.stop()
            served, self.metrics_server = self.metrics_server, None
            if served is not None:
                await served.stop()
            if self._store_open:
                self._store_open = False
                await self.store.close()


def create_bot(settings: Settings, **options: Any) -> TavernBot:
    """Build the bot without connecting; ``options`` go to :class:`TavernBot` (e.g. guild_ready_timeout)."""
    return TavernBot(settings, **options)
