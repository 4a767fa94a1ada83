"""Components that survive restarts, shared by every game cog.

Every button and select the bot sends carries its own address in the custom id:
``tv:<scope>:<key>:<token>:<verb>[:<arg>]`` where scope ``g`` means a game table (key = game id) and ``l`` a
lobby or challenge (key = lobby id). One :class:`TavernItem` (a ``DynamicItem``) catches them all, loads the
table or lobby from the service (so a click on a message sent before a restart still works) and hands the
click to the handler the game cog registered for that game or lobby kind. ``token`` is how the cog tells a
fresh button from a stale one (usually the table's action count when the button was drawn).

Nothing here knows any game's rules.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import discord

from bot.errors import UserFacingError, reply_error
from bot.store import Lobby, Store
from bot.tables import Table, TableError

if TYPE_CHECKING:
    from bot.app import TavernBot

log = logging.getLogger("tavern.ui")

TEMPLATE = r"tv:(?P<scope>[gl]):(?P<key>[0-9]+):(?P<token>[0-9a-z\-]*):(?P<verb>[a-z_]+)(?::(?P<arg>[^:]*))?"
_COMPILED = re.compile(TEMPLATE)
NO_LONGER = "This button is no longer in use."


@dataclass(frozen=True)
class Click:
    """A parsed component interaction: what the custom id says, plus the values chosen in a select."""

    scope: str
    key: int
    token: str
    verb: str
    arg: str
    values: tuple[str, ...] = ()


TableHandler = Callable[[discord.Interaction[Any], Click, Table], Awaitable[None]]
LobbyHandler = Callable[[discord.Interaction[Any], Click, Lobby], Awaitable[None]]


class KeyedLocks:
    """One lock per key (a game, a lobby, a channel), kept only while someone holds or waits for it:
    a lock per table the bot ever hosted would otherwise stay in memory for good."""

    def __init__(self) -> None:
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def __call__(self, key: int) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)


@dataclass
class Handlers:
    """What the game cogs registered: per game name for tables, per lobby kind for lobbies."""

    tables: dict[str, TableHandler] = field(default_factory=dict)
    lobbies: dict[str, LobbyHandler] = field(default_factory=dict)
    channel_locks: KeyedLocks = field(default_factory=KeyedLocks)


def handlers(bot: discord.Client) -> Handlers:
    found = getattr(bot, "component_handlers", None)
    if found is None:
        found = Handlers()
        bot.component_handlers = found  # type: ignore[attr-defined]
        bot.add_dynamic_items(TavernItem)
    return found


def channel_lock(bot: discord.Client, channel_id: int) -> AbstractAsyncContextManager[None]:
    """One lock per channel shared by every game cog, so opening a challenge, a lobby or a table in a
    channel happens one at a time whichever game asks (one table or open lobby per channel)."""
    return handlers(bot).channel_locks(channel_id)


def custom_id(scope: str, key: int, verb: str, *, token: str | int = "", arg: str = "") -> str:
    text = f"tv:{scope}:{key}:{token}:{verb}" + (f":{arg}" if arg else "")
    if len(text) > 100 or not _COMPILED.fullmatch(text):
        raise ValueError(f"bad custom id {text!r}")
    return text


def button(
    label: str,
    scope: str,
    key: int,
    verb: str,
    *,
    token: str | int = "",
    arg: str = "",
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    emoji: str | None = None,
    disabled: bool = False,
    row: int | None = None,
) -> TavernItem:
    item: discord.ui.Button[Any] = discord.ui.Button(
        label=label[:80],
        style=style,
        emoji=emoji,
        disabled=disabled,
        row=row,
        custom_id=custom_id(scope, key, verb, token=token, arg=arg),
    )
    return TavernItem(item)


def select(
    placeholder: str,
    scope: str,
    key: int,
    verb: str,
    options: Sequence[discord.SelectOption],
    *,
    token: str | int = "",
    arg: str = "",
    min_values: int = 1,
    max_values: int = 1,
    disabled: bool = False,
    row: int | None = None,
) -> TavernItem:
    item: discord.ui.Select[Any] = discord.ui.Select(
        placeholder=placeholder[:150],
        options=list(options)[:25],
        min_values=min_values,
        max_values=max_values,
        disabled=disabled,
        row=row,
        custom_id=custom_id(scope, key, verb, token=token, arg=arg),
    )
    return TavernItem(item)


def view_of(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A view for components that all carry their own address (so nothing is kept in memory)."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


class TavernItem(discord.ui.DynamicItem[discord.ui.Item[Any]], template=TEMPLATE):
    """The one dynamic item: every ``tv:`` button or select lands here, before or after a restart."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TavernItem:
        return cls(item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await dispatch(interaction, self.custom_id, _values(self.item))
        except Exception as err:  # every click gets an answer, even a broken one
            await reply_error(interaction, err)


def _values(item: discord.ui.Item[Any]) -> tuple[str, ...]:
    if isinstance(item, discord.ui.Select):
        return tuple(str(v) for v in item.values)
    return ()


async def dispatch(interaction: discord.Interaction[Any], cid: str, values: tuple[str, ...]) -> None:
    match = _COMPILED.fullmatch(cid)
    if match is None:
        raise UserFacingError(NO_LONGER)
    click = Click(
        scope=match["scope"],
        key=int(match["key"]),
        token=match["token"],
        verb=match["verb"],
        arg=match["arg"] or "",
        values=values,
    )
    bot: TavernBot = interaction.client
    registry = handlers(bot)
    if click.scope == "g":
        try:
            table = await bot.tables.get(click.key)
        except TableError as err:
            raise UserFacingError("That game no longer exists.") from err
        table_handler = registry.tables.get(table.game)
        if table_handler is None:
            raise UserFacingError(NO_LONGER)
        await table_handler(interaction, click, table)
        return
    lobby = await bot.store.get_lobby(click.key)
    lobby_handler = registry.lobbies.get(lobby.kind) if lobby is not None else None
    if lobby is None or lobby_handler is None:
        raise UserFacingError(NO_LONGER)
    await lobby_handler(interaction, click, lobby)


async def answer_with_lobby(
    interaction: discord.Interaction[Any], store: Store, lobby_id: int, **kwargs: Any
) -> None:
    """Answer ``interaction`` with a new lobby's message and remember the message's id. A lobby whose
    message never went out is cancelled: nobody could join it, yet it would hold the channel until it
    expired."""
    try:
        response = await interaction.response.send_message(**kwargs)
    except BaseException:
        await store.update_lobby(lobby_id, status="cancelled")
        raise
    if response.message_id is not None:
        await store.update_lobby(lobby_id, message_id=response.message_id)


@dataclass
class Panel:
    """A message to send privately: to a DM, or as a fresh ephemeral reply when DMs are closed."""

    content: str = ""
    embeds: list[discord.Embed] = field(default_factory=list)
    items: list[discord.ui.Item[Any]] = field(default_factory=list)

    def view(self) -> discord.ui.View | None:
        return view_of(*self.items) if self.items else None

    def kwargs(self) -> dict[str, Any]:
        """Send/edit arguments; ``view=None`` when there are no controls, so an edit removes the old ones."""
        return {"content": self.content or None, "embeds": self.embeds, "view": self.view()}


async def send_dm(bot: discord.Client, user_id: int, panel: Panel) -> discord.Message | None:
    """DM a panel; ``None`` when the user's DMs are closed to the bot (Discord error 50007 / 403)."""
    try:
        user = bot.get_user(user_id) or await bot.fetch_user(user_id)
        return await user.send(**panel.kwargs())
    except discord.Forbidden as err:
        log.info("DMs closed for user %s (code %s)", user_id, err.code)
        return None


async def deliver_dm(bot: discord.Client, user_id: int, panel: Panel) -> Literal["sent", "closed", "failed"]:
    """DM a panel without raising: "closed" when the user's DMs are closed to the bot (403), "failed" (logged)
    for any other Discord error, a passing fault that should not stop the rest of a move's announcements."""
    try:
        sent = await send_dm(bot, user_id, panel)
    except discord.HTTPException as err:
        log.warning("could not DM user %s: %s", user_id, err)
        return "failed"
    return "closed" if sent is None else "sent"


async def refresh_kept_message(
    bot: TavernBot, game_id: int, channel: Any, board_id: int | None, **kwargs: Any
) -> None:
    """Edit the one message a table keeps current (its id in the table's meta as ``board_id``); post it
    again if it was deleted. Best effort: a refusal is logged and the game goes on."""
    try:
        if board_id is not None:
            try:
                await channel.get_partial_message(int(board_id)).edit(**kwargs)
                return
            except discord.NotFound:
                pass  # deleted: post a new one, which becomes the kept one
        message = await channel.send(**kwargs)
    except discord.HTTPException as err:
        log.warning("game %d: could not update the table message (%s)", game_id, err)
        return
    await bot.store.set_meta(game_id, board_id=message.id)


async def send_ephemeral_panel(interaction: discord.Interaction[Any], panel: Panel) -> None:
    """Always a *fresh* ephemeral message: old ephemerals can't be edited after their token expires."""
    kwargs = panel.kwargs()
    for key in ("content", "view"):  # a new message takes MISSING, not None, for "no such part"
        if kwargs[key] is None:
            kwargs[key] = discord.utils.MISSING
    if interaction.response.is_done():
        await interaction.followup.send(ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(ephemeral=True, **kwargs)
