"""What the bot remembers about a table besides the game itself (:class:`TableMeta`): stored with the game,
read back at every restart, and changed by the table code as it tells the channel and the players what
happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

REST = "rest"  # a table the bot reaches by REST: its server's channel, thread and DMs
INTERACTIONS = "interactions"  # a table reached only through its players' interactions (a user install)


@dataclass(frozen=True)
class TableMeta:
    """What the bot remembers about a table besides the game itself; never rendered text.

    ``untold_after`` is None while the channel has been told everything in the log; else the action count
    up to which it has been told (-1: not even the opening), the later events being re-derived from the log.
    ``owed`` says the last move was committed and its telling — the presser's answer, the panels, the calls
    or their place in the outbox — had not finished: a process that finds it so tells it again.
    ``nudged`` / ``claim_offered`` hold the action count at which the idle nudge / claim offer was made, so
    each comes once per turn; ``warned``, where a tournament limits a move's time, the action count at which
    its player was warned that the game would be forfeited (apart from the server's nudge, which may come
    first). ``thread_id`` is the game's own thread (None: it plays in its channel),
    ``summary`` the (channel, message) kept current in the channel while it plays in a thread, and
    ``panels`` each seat's one live private panel, (DM channel, message). ``home`` is how the table reaches
    its players: ``REST`` (the bot is in its server: channel posts, threads, DMs) or ``INTERACTIONS`` (a DM,
    group DM or server the bot is not in, through a user install: only the players' own interactions). In
    the usual move nothing here changes, so nothing but the action is written.
    """

    board_id: int | None = None
    dm_closed: frozenset[int] = frozenset()
    nudged: int = -1
    claim_offered: int = -1
    warned: int = -1
    untold_after: int | None = None
    owed: bool = False
    thread_id: int | None = None
    summary: tuple[int, int] | None = None
    panels: Mapping[int, tuple[int, int]] = field(default_factory=dict)
    home: str = REST

    def told(self, seq: int) -> int:
        """The action count up to which the channel has been told what happened."""
        return seq if self.untold_after is None else self.untold_after

    def to_dict(self) -> dict[str, Any]:
        return {
            "board_id": self.board_id,
            "dm_closed": sorted(self.dm_closed),
            "nudged": self.nudged,
            "claim_offered": self.claim_offered,
            "untold_after": self.untold_after,
            "owed": self.owed,
            "thread_id": self.thread_id,
            "summary": list(self.summary) if self.summary is not None else None,
            "panels": {str(s): list(p) for s, p in sorted(self.panels.items())},
            **({"home": self.home} if self.home != REST else {}),  # a server's table is stored as before
            **({"warned": self.warned} if self.warned != -1 else {}),  # as is one no tournament warned
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableMeta:
        """Reads today's meta and the untyped meta of older versions (their extra keys are ignored)."""
        board, untold, thread = data.get("board_id"), data.get("untold_after"), data.get("thread_id")
        summary = data.get("summary")
        return cls(
            board_id=int(board) if board is not None else None,
            dm_closed=frozenset(int(s) for s in data.get("dm_closed", ())),
            nudged=int(data.get("nudged", -1)),
            claim_offered=int(data.get("claim_offered", -1)),
            warned=int(data.get("warned", -1)),
            untold_after=int(untold) if untold is not None else None,
            owed=data.get("owed") is True,
            thread_id=int(thread) if thread is not None else None,
            summary=(int(summary[0]), int(summary[1])) if summary else None,
            panels={int(s): (int(p[0]), int(p[1])) for s, p in (data.get("panels") or {}).items()},
            home=INTERACTIONS if data.get("home") == INTERACTIONS else REST,
        )

    @property
    def by_interaction(self) -> bool:
        """Whether the table lives by its players' interactions only (no channel or DM REST call)."""
        return self.home == INTERACTIONS
