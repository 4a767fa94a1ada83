"""A panel as one container of Discord's layout components (message flag ``IS_COMPONENTS_V2``).

The container holds, in this order: the panel's text in text blocks (its content, then its embed's title and
description), its picture in a media gallery (``attachment://<file>``, with the picture's alt text), and its
controls in action rows after a thin separator, arranged as a classic message arranges them (a control's
``row`` first, else the first row with room). The text blocks carry everything the picture shows, so a
text-only client or a screen reader misses nothing. Discord refuses the whole message beyond 40 components
(nested ones counted) or 4,000 characters of text blocks: the text is cut to fit, and a control that would
pass 40 is left off (logged), as :func:`bot.edge.delivery.view` leaves off what passes five rows."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord

from bot.base.panel import Control, Panel, Select

log = logging.getLogger("tavern.delivery")

FLAG = 1 << 15  # IS_COMPONENTS_V2
COMPONENTS_MAX = 40  # every component of the message, nested ones counted
TEXT_MAX = 4000  # the characters of all its text blocks together
ROWS = 5
ROW_WIDTH = 5  # a row holds five buttons or one select


class Layout(discord.ui.LayoutView):
    """A layout message's components, as data: never kept in memory (like ``delivery.Controls``)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_finished(self) -> bool:
        return True


def texts(panel: Panel) -> list[str]:
    """The panel's text blocks: its content, then its embed (a bold title over the description); the last
    that passes Discord's 4,000 characters in all is cut, ending in "…", and nothing after it is sent."""
    blocks = [panel.content] if panel.content else []
    if panel.embed is not None:
        title = f"**{panel.embed.title}**\n" if panel.embed.title else ""
        blocks.append(title + panel.embed.description)
    out: list[str] = []
    room = TEXT_MAX
    for block in blocks:
        block = block.strip("\n")
        if len(block) > room:  # cut where it must be, and seen to be cut
            block = block[: room - 1] + "…" if room > 1 else ""
        if block:
            out.append(block)
            room -= len(block)
    return out


def rows(controls: tuple[Control, ...]) -> list[list[Control]]:
    """The controls in rows as a classic message places them: a control's own ``row`` when it has room
    there, else the first row with room; what fits nowhere is left off (logged)."""
    placed: list[list[Control]] = [[] for _ in range(ROWS)]
    used = [0] * ROWS
    for control in controls:
        width = ROW_WIDTH if isinstance(control, Select) else 1
        choices = [control.row] if control.row is not None and 0 <= control.row < ROWS else range(ROWS)
        row = next((r for r in choices if used[r] + width <= ROW_WIDTH), None)
        if row is None:
            log.warning("control %r left off: no room in its row", control.verb)
            continue
        placed[row].append(control)
        used[row] += width
    return [row for row in placed if row]


def view(
    panel: Panel,
    item: Callable[[Control], discord.ui.Item[Any]],
    image: str | None = None,
    alt: str = "",
) -> Layout:
    """The panel as one container (``item`` makes a control's component, with its custom id); ``image``:
    the uploaded or kept file the gallery shows."""
    container: discord.ui.Container[Any] = discord.ui.Container(accent_colour=panel.accent)
    count = 1
    for block in texts(panel):
        container.add_item(discord.ui.TextDisplay(block))
        count += 1
    if image is not None:
        media = discord.MediaGalleryItem(f"attachment://{image}", description=alt or None)
        container.add_item(discord.ui.MediaGallery(media))
        count += 1
    arranged = rows(panel.controls)
    if arranged and count > 1:
        container.add_item(discord.ui.Separator())
        count += 1
    for controls in arranged:
        if count + 2 > COMPONENTS_MAX:
            log.warning(
                "controls %r left off: over %d components", [c.verb for c in controls], COMPONENTS_MAX
            )
            break
        row: discord.ui.ActionRow[Any] = discord.ui.ActionRow()
        count += 1
        for control in controls:
            if count + 1 > COMPONENTS_MAX:
                log.warning("control %r left off: over %d components", control.verb, COMPONENTS_MAX)
                break
            try:
                row.add_item(item(control))
            except ValueError as err:
                log.warning("control %r left off (%s)", control.verb, err)
                continue
            count += 1
        if row.children:
            container.add_item(row)
        else:
            count -= 1
    if not container.children:  # a container holds one component at least: a message with nothing to say
        container.add_item(discord.ui.TextDisplay("\u200b"))
    layout = Layout()
    layout.add_item(container)
    return layout
