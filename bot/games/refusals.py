"""A table's refusals: what a player is told when a move or a lookup can't be made (a stale button, a seat
not theirs, a move the store did not keep). Discord-free, like every ``UserFacingError``.
"""

from __future__ import annotations

from bot.base.refusals import UserFacingError


class TableError(UserFacingError):
    """A table-level refusal; ``str(err)`` is a sentence a player can read (shown by bot.edge.errors)."""


class NotSeated(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.not-seated")


class StaleAction(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.stale")


class MoveNotSaved(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.not-saved")


class TableUnavailable(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.unavailable")


class TableClosed(TableError):
    def __init__(self) -> None:
        super().__init__("tavern.table.closed")


class MoveConflict(TableError):
    """Another process logged a move at this seq first: this one was not played."""

    def __init__(self) -> None:
        super().__init__("tavern.table.conflict")
