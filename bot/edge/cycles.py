"""A handled interaction freed at once, by reference counting, instead of by the garbage collector.

discord.py's ``Interaction.response`` is an ``InteractionResponse`` that keeps its interaction in ``_parent``,
and the interaction caches the response: a reference cycle. Only the collector frees one, and with it the
pressed message the interaction carries (its components, users, channel: about a hundred objects). At a
thousand tables that was most of the collector's work, and the garbage its full passes scan: each pass stops
the event loop for a few hundred milliseconds. Once an interaction is answered nothing responds through it
again (``InteractionResponse`` refuses a second answer before it looks at ``_parent``), so the bot drops that
link when it has handled an interaction; the token's later edits and follow-ups don't use it. There is no
public hook; ``tests/test_discord_internals.py`` checks what this relies on.
"""

from __future__ import annotations

from typing import Any

import discord


def let_go(interaction: discord.Interaction[Any]) -> None:
    """Break the interaction's cycle with its response, once it is answered (an unanswered one keeps it: an
    answer may still go through it)."""
    response = interaction.response
    if response.is_done():
        response._parent = None  # type: ignore[assignment]
