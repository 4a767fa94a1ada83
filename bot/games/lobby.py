"""A lobby as the games see it: a table being gathered in a channel, before its game exists (the store keeps
it; an adapter draws its message)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Lobby:
    """A table being gathered in a channel, before its game exists."""

    id: int
    game: str
    guild_id: int
    channel_id: int
    host_id: int
    invited_id: int | None
    options: dict[str, Any]  # the game's options only
    names: dict[int, str]  # display names of members, by user id
    members: tuple[int, ...]
    message_id: int | None
    created_at: float
    expires_at: float | None
    status: str  # open, started, declined, expired or cancelled
    game_id: int | None

    @property
    def challenge(self) -> bool:
        """A challenge (one invited player answers Accept/Decline), else an open lobby (Join/Start)."""
        return self.invited_id is not None
