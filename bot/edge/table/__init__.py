"""The table controller (:class:`TableController`) and its collaborators."""

from bot.edge.table.controller import TableController

__all__ = ["TableController"]
