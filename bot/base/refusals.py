"""Refusals a service raises ("There is already a game in this channel"): a message id and what fills it.

Discord-free, so tables, lobbies, cooldowns, settings and the game adapters can refuse without importing the
Discord edge; the edge (``bot.edge.errors``) turns any refusal into an ephemeral reply.
"""

from __future__ import annotations

from bot.base.i18n import Said


class UserFacingError(Said):
    """A service-level refusal: ``str(err)`` is the sentence in the language in force (the player's, when
    it is shown)."""
