"""Lobbies: two-player challenges and open lobbies of 2–6, for every game; the only code that asks the store
about lobbies.

One table or open lobby per channel (of any game): opening runs under the channel's lock. One open lobby or
challenge per host, anywhere (a player sits at one table at a time, so a second could never start with them):
the store decides it with the insert. A click on a lobby runs under that lobby's lock, so simultaneous Joins
all count and a Start and an expiry never both win.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot import ai
from bot.base.i18n import Msg
from bot.base.locks import KeyedLocks
from bot.base.refusals import UserFacingError
from bot.games import GameAdapter, Table
from bot.games.seats import is_bot, next_bot
from bot.render import levels
from bot.services.tables import TableService
from bot.settings import Settings
from bot.store import HostBusy, Lobby, NewLobby, Store

# Table commands a refusal names, as the reader's client shows them ("resign" → "abbandona").
SUBCOMMANDS = {
    "resign": Msg("cmd.table.resign.name"),
    "leave": Msg("cmd.table.leave.name"),
    "practice": Msg("cmd.bhargage.practice.name"),
}
# Why a lobby no longer takes clicks, for the clicker: a challenge's words, an open table's.
CLOSED_WORDS = {
    True: {
        "expired": Msg("tavern.lobby.challenge-expired"),
        "declined": Msg("tavern.lobby.challenge-declined"),
        "started": Msg("tavern.lobby.challenge-accepted"),
        "cancelled": Msg("tavern.lobby.challenge-withdrawn"),
    },
    False: {
        "expired": Msg("tavern.lobby.table-expired"),
        "declined": Msg("tavern.lobby.table-cancelled"),
        "started": Msg("tavern.lobby.table-started"),
        "cancelled": Msg("tavern.lobby.table-cancelled"),
    },
}


def subcommand(name: str) -> str:
    """A table command's name as the reader's client shows it."""
    return str(SUBCOMMANDS.get(name, name))


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    bot: bool = False


@dataclass
class LobbyOutcome:
    """What a lobby click did: the lobby as it now is; ``notice`` is an extra private line for the clicker
    (the lobby had closed); ``started`` the new table and its opening events."""

    lobby: Lobby
    notice: str = ""
    started: tuple[Table, list[Any]] | None = None


class LobbyService:
    def __init__(
        self,
        store: Store,
        tables: TableService,
        settings: Settings,
        *,
        clock: Callable[[], float],
        locks: KeyedLocks,
    ) -> None:
        self.store = store
        self.tables = tables
        self.settings = settings
        self.clock = clock
        self.locks = locks
        self.seed_source: Callable[[], int | None] = lambda: None  # tests pin seeds here

    def adapter(self, lobby: Lobby) -> GameAdapter:
        return self.tables.adapter(lobby.game)

    def _minutes(self, challenge: bool) -> float:
        return self.settings.challenge_minutes if challenge else self.settings.lobby_minutes

    # ---------------------------------------------------------------- opening

    async def _refuse_seated(self, adapter: GameAdapter, players: Sequence[Player], clicker: int) -> None:
        """A player takes one seat at a time, anywhere: a quick check before anything is written (the store
        decides for good, atomically, when the table is created)."""
        for player in players:
            seated = await self.tables.seated_at(player.id)
            if seated is None:
                continue
            if player.id != clicker:
                raise UserFacingError(
                    "tavern.lobby.other-seated", name=player.name, channel=seated.channel_id
                )
            game = seated.adapter
            leave = f"`{game.command} {subcommand(game.resign_command)}`"
            raise UserFacingError("tavern.lobby.you-seated", channel=seated.channel_id, leave=leave)

    async def open(
        self,
        adapter: GameAdapter,
        guild_id: int,
        channel_id: int,
        host: Player,
        *,
        invited: Player | None = None,
        members: Sequence[Player] = (),
        options: Mapping[str, Any] | None = None,
    ) -> Lobby:
        """Open a challenge (``invited``) or a lobby (the host and ``members`` seated) in a free channel."""
        self._refuse_invitation(adapter, host, invited)
        seated = [host, *([invited] if invited else []), *(m for m in members if m.id != host.id)]
        if len(seated) > adapter.max_players:
            raise UserFacingError("tavern.lobby.seats-at-most", game=adapter.title, most=adapter.max_players)
        opts = adapter.options(options or {})  # the engine checks every option, whatever the client sent
        now = self.clock()
        async with self.locks(("channel", channel_id)):
            await self._refuse_busy(
                adapter, channel_id, [host, *([invited] if invited else []), *members], host
            )
            everyone = [host, *(m for m in members if m.id != host.id)]
            try:
                return await self.store.create_lobby(
                    NewLobby(
                        adapter.name,
                        guild_id,
                        channel_id,
                        host.id,
                        created_at=now,
                        expires_at=now + self._minutes(invited is not None) * 60,
                        invited_id=invited.id if invited else None,
                        options=opts.to_dict(),
                        names={p.id: p.name for p in [*everyone, *([invited] if invited else [])]},
                        members=[p.id for p in everyone],
                    ),
                )
            except HostBusy as busy:
                raise self._hosting(busy.lobby) from None

    @staticmethod
    def _refuse_invitation(adapter: GameAdapter, host: Player, invited: Player | None) -> None:
        """Whom a game may not be opened with: nobody, where it only plays as a challenge; the host; a bot
        (the host is pointed to practice where the game has one)."""
        if invited is None and not adapter.gathers:
            raise UserFacingError("tavern.lobby.name-opponent")
        if invited is None:
            return
        if not adapter.challenge:
            raise UserFacingError("tavern.out-of-date")
        if invited.id == host.id:
            raise UserFacingError("tavern.lobby.not-yourself")
        if invited.bot:
            if adapter.ai is not None:
                practice = f"`{adapter.command} {subcommand('practice')}`"
                raise UserFacingError(
                    "tavern.lobby.other-bots-practice", game=adapter.title, practice=practice
                )
            raise UserFacingError("tavern.lobby.other-bots", game=adapter.title)

    def _hosting(self, lobby: Lobby) -> UserFacingError:
        """The refusal of a second lobby to a host: where their open one is, and how to close it."""
        if lobby.challenge:
            return UserFacingError("tavern.lobby.hosting-challenge", channel=lobby.channel_id)
        return UserFacingError("tavern.lobby.hosting-table", channel=lobby.channel_id)

    async def _refuse_busy(
        self, adapter: GameAdapter, channel_id: int, players: Sequence[Player], host: Player
    ) -> None:
        """One table or open lobby per channel, one seat per player; the caller holds the channel's lock."""
        if await self.tables.table_for_channel(channel_id) is not None:
            raise UserFacingError("tavern.lobby.busy-table")
        await self._refuse_seated(adapter, players, host.id)
        now = self.clock()
        for lobby in await self.store.open_lobbies(channel_id=channel_id):
            if lobby.expires_at is None or lobby.expires_at > now:  # an overdue one is the timer's
                raise UserFacingError("tavern.lobby.busy-lobby")

    async def practice(
        self,
        adapter: GameAdapter,
        guild_id: int,
        channel_id: int,
        host: Player,
        level: ai.Level,
        options: Mapping[str, Any] | None = None,
    ) -> tuple[Table, list[Any]]:
        """A table against the bot, started at once (there is nobody to wait for)."""
        if adapter.ai is None:
            raise UserFacingError("tavern.lobby.bot-does-not-play", game=adapter.title)
        opts = adapter.options(options or {})
        bot_id, name = next_bot([], level)
        async with self.locks(("channel", channel_id)):
            await self._refuse_busy(adapter, channel_id, [host], host)
            return await self.tables.create(
                adapter.name,
                guild_id,
                channel_id,
                [(host.id, host.name), (bot_id, name)],
                opts,
                seed=self.seed_source(),
            )

    async def posted(self, lobby_id: int, message_id: int | None) -> None:
        """The lobby's message went out (its id, to edit it later) — or did not (None): then nobody could
        join it, so it is cancelled rather than left holding the channel until it expires."""
        if message_id is None:
            await self.store.update_lobby(lobby_id, status="cancelled")
        else:
            await self.store.update_lobby(lobby_id, message_id=message_id)

    # ---------------------------------------------------------------- clicks

    STARTS: frozenset[str] = frozenset({"accept", "start"})  # the clicks that may open a table

    def refuse(self, lobby: Lobby, user: Player, verb: str, arg: str = "") -> None:
        """Raise the refusal this click gets on this lobby as it stands, if any; pure, so a click can be
        refused before it is acknowledged (and is checked again under the lobby's lock). ``arg`` is the
        value chosen in a menu (a bot's level). A challenge is answered by the player it invites; its host
        may only withdraw it, with the same decline button."""
        adapter = self.adapter(lobby)
        known = (
            ("accept", "decline")
            if lobby.challenge
            else ("join", "leave", "start", "cancel", "addbot", "dropbot")
        )
        if verb not in known:
            raise UserFacingError("tavern.out-of-date")
        withdraws = verb == "decline" and user.id == lobby.host_id  # the host takes their challenge back
        if lobby.challenge and user.id != lobby.invited_id and not withdraws:
            raise UserFacingError("tavern.lobby.not-for-you", user=lobby.invited_id)
        if lobby.status != "open" or self._overdue(lobby):
            return  # answered with the lobby as it is, and a word on why it is closed
        members = lobby.members
        if verb == "join" and user.id in members:
            raise UserFacingError("tavern.lobby.already-here")
        if verb == "join" and len(members) >= adapter.max_players:
            raise UserFacingError("tavern.lobby.full", most=adapter.max_players)
        if verb == "leave" and user.id not in members:
            raise UserFacingError("tavern.lobby.not-here")
        if verb == "leave" and user.id == lobby.host_id:
            raise UserFacingError("tavern.lobby.host-cannot-leave")
        if verb == "start" and user.id != lobby.host_id:
            raise UserFacingError("tavern.lobby.host-only-start")
        if verb == "cancel" and user.id != lobby.host_id:
            raise UserFacingError("tavern.lobby.host-only-cancel")
        if verb == "addbot":
            if adapter.ai is None:
                raise UserFacingError("tavern.lobby.bot-does-not-play", game=adapter.title)
            levels.level(arg)
            if user.id not in members:
                raise UserFacingError("tavern.lobby.join-first")
            if len(members) >= adapter.max_players:
                raise UserFacingError("tavern.lobby.full-no-bot", most=adapter.max_players)
        if verb == "dropbot":
            if user.id != lobby.host_id:
                raise UserFacingError("tavern.lobby.host-only-dropbot")
            if not any(is_bot(m) for m in members):
                raise UserFacingError("tavern.lobby.no-bot")
        if verb == "start" and len(members) < adapter.min_players:
            raise UserFacingError("tavern.lobby.needs-players", game=adapter.title, least=adapter.min_players)

    def _overdue(self, lobby: Lobby) -> bool:
        return lobby.status == "open" and lobby.expires_at is not None and lobby.expires_at <= self.clock()

    async def get(self, lobby_id: int) -> Lobby:
        lobby = await self.store.get_lobby(lobby_id)
        if lobby is None:
            raise UserFacingError("tavern.lobby.gone")
        return lobby

    async def click(self, lobby_id: int, user: Player, verb: str, arg: str = "") -> LobbyOutcome:
        """Join, leave, start, cancel, accept, decline, add or remove a bot, under the lobby's lock."""
        async with self.locks(("lobby", lobby_id)):
            lobby = await self.get(lobby_id)
            self.refuse(lobby, user, verb, arg)
            adapter = self.adapter(lobby)
            if self._overdue(lobby):
                lobby = await self.store.update_lobby(lobby.id, status="expired")
            if lobby.status != "open":
                return LobbyOutcome(lobby, notice=str(CLOSED_WORDS[lobby.challenge].get(lobby.status, "")))
            if verb == "start" or verb == "accept":
                names = {**lobby.names, user.id: user.name}
                if names != lobby.names:
                    lobby = await self.store.update_lobby(lobby.id, names=names)
                others = [user.id] if verb == "accept" else [m for m in lobby.members if m != lobby.host_id]
                seated = [lobby.host_id, *others]
                players = [Player(uid, names.get(uid, str(uid)), is_bot(uid)) for uid in seated]
                return await self._start(adapter, lobby, players, user.id)
            if verb == "join":
                await self._refuse_seated(adapter, [user], user.id)
                members, names = [*lobby.members, user.id], {**lobby.names, user.id: user.name}
                return LobbyOutcome(await self.store.update_lobby(lobby.id, members=members, names=names))
            if verb == "addbot":
                bot_id, name = next_bot(lobby.members, levels.level(arg))
                members, names = [*lobby.members, bot_id], {**lobby.names, bot_id: name}
                return LobbyOutcome(await self.store.update_lobby(lobby.id, members=members, names=names))
            if verb == "dropbot":
                last = [m for m in lobby.members if is_bot(m)][-1]
                members = [m for m in lobby.members if m != last]
                return LobbyOutcome(await self.store.update_lobby(lobby.id, members=members))
            if verb == "leave":
                members = [m for m in lobby.members if m != user.id]
                return LobbyOutcome(await self.store.update_lobby(lobby.id, members=members))
            status = "declined" if verb == "decline" and user.id != lobby.host_id else "cancelled"
            return LobbyOutcome(await self.store.update_lobby(lobby.id, status=status))

    async def _start(
        self, adapter: GameAdapter, lobby: Lobby, players: Sequence[Player], clicker: int
    ) -> LobbyOutcome:
        await self._refuse_seated(adapter, players, clicker)
        table, events = await self.tables.create(
            adapter.name,
            lobby.guild_id,
            lobby.channel_id,
            [(p.id, p.name) for p in players],
            dict(lobby.options),
            seed=self.seed_source(),
        )
        lobby = await self.store.update_lobby(lobby.id, status="started", game_id=table.id)
        return LobbyOutcome(lobby, started=(table, events))

    async def cancel_in(self, channel_id: int) -> list[Lobby]:
        """Close the channel's open lobbies (an admin's ``/tavern-admin end``); returns them as now closed."""
        closed: list[Lobby] = []
        for lobby in await self.store.open_lobbies(channel_id=channel_id):
            async with self.locks(("lobby", lobby.id)):
                current = await self.store.get_lobby(lobby.id)
                if current is not None and current.status == "open":
                    closed.append(await self.store.update_lobby(lobby.id, status="cancelled"))
        return closed

    # ---------------------------------------------------------------- expiry

    async def expire_due(self, owns: Callable[[int], bool] = lambda guild_id: True) -> list[Lobby]:
        """Close every overdue open lobby of the guilds this process ``owns`` (a lobby's clicks all reach
        its guild's shard, so its process alone touches it); returns them, so their messages can say so."""
        now = self.clock()
        expired: list[Lobby] = []
        for lobby in await self.store.open_lobbies():
            if lobby.expires_at is None or lobby.expires_at > now or not owns(lobby.guild_id):
                continue
            async with self.locks(("lobby", lobby.id)):
                current = await self.store.get_lobby(lobby.id)
                if current is None or current.status != "open":
                    continue  # a Start (or an answer) at the same moment won
                expired.append(await self.store.update_lobby(lobby.id, status="expired"))
        return expired
