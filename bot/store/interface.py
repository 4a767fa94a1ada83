"""The store's interface: what the services may ask of any backend (SQLite today; another later).

Every method is a coroutine. A backend keeps these promises:
- ``create_game`` inserts the game and its seats in one transaction and raises ``ChannelBusy`` when the
  channel already has an active game.
- ``append_action`` is one transaction: the action (a duplicate ``(game_id, seq)`` is rejected, never applied
  twice), the table's meta when given (replacing it), and when ``finish`` is given the game closed with its
  results and ratings. If any part fails, nothing of it is stored.
- Reads never see half a transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from bot.store.records import ActionRecord, Finish, GameRecord, GameStats, LeaderRow, Lobby


class Store(Protocol):
    path: Path

    async def close(self) -> None:
        """Release the backend; closing twice is harmless."""

    async def schema_version(self) -> int:
        """The newest migration applied."""

    # ---------------------------------------------------------------- games

    async def create_game(
        self,
        game: str,
        guild_id: int,
        channel_id: int,
        seed: int,
        seats: Sequence[tuple[int, str]],
        options: Mapping[str, Any],
        created_at: float,
    ) -> int:
        """A new active game and its seats; its id."""

    async def append_action(
        self,
        game_id: int,
        seq: int,
        seat: int | None,
        text: str,
        at: float,
        *,
        finish: Finish | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        """One accepted action, with the meta and the finish it brings, in one transaction."""

    async def finish_game(self, game_id: int, finish: Finish) -> None:
        """Close a game whose last action is already logged (results and ratings in one transaction)."""

    async def load_game(self, game_id: int) -> GameRecord | None:
        """A game with its seats, actions and meta; None if unknown."""

    async def active_games(self) -> list[GameRecord]:
        """Every active game, oldest first."""

    async def actions(self, game_id: int) -> list[ActionRecord]:
        """A game's action log in order."""

    async def get_meta(self, game_id: int) -> dict[str, Any]:
        """The table's meta ({} if none)."""

    async def set_meta(self, game_id: int, data: Mapping[str, Any]) -> None:
        """Replace the table's meta outside a move."""

    # ---------------------------------------------------------------- finished games

    async def rating_of(self, guild_id: int, game: str, user_id: int) -> dict[str, Any] | None:
        """A player's rating row in one game and server."""

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[LeaderRow]:
        """The server's best players of a game."""

    async def stats(self, guild_id: int, user_id: int, *, recent: int = 5) -> dict[str, GameStats]:
        """A player's record per game in a server."""

    # ---------------------------------------------------------------- lobbies

    async def create_lobby(
        self,
        game: str,
        guild_id: int,
        channel_id: int,
        host_id: int,
        *,
        created_at: float,
        expires_at: float | None = None,
        invited_id: int | None = None,
        options: Mapping[str, Any] | None = None,
        names: Mapping[int, str] | None = None,
        members: Sequence[int] = (),
        message_id: int | None = None,
    ) -> Lobby:
        """A new open lobby."""

    async def get_lobby(self, lobby_id: int) -> Lobby | None:
        """A lobby; None if unknown."""

    async def update_lobby(self, lobby_id: int, **fields: Any) -> Lobby:
        """Change some of a lobby's fields; the lobby as it now is."""

    async def open_lobbies(self, *, channel_id: int | None = None) -> list[Lobby]:
        """Open lobbies, everywhere or in one channel."""
