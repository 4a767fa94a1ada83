"""What picture, and which format, each message this process sent or edited shows: so an edit keeps a
picture a message shows already instead of uploading it again, a picture that comes late never overwrites a
newer edit, and an edit keeps its message's format (classic, or one container of layout components)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import discord

from bot.base.panel import Panel, Picture
from bot.base.recent import keep_newest
from bot.edge import layout

SHOWN_MESSAGES = 20_000  # messages whose picture this process remembers
RETIRABLE = 2_000  # layout messages whose last panel this process remembers, to take its controls off


@dataclass(frozen=True)
class Shown:
    """The picture a message shows: its key, and the attachment that carries it."""

    key: Hashable
    filename: str
    attachment: int


class Kept:
    """An attachment an edit keeps, named by id: discord.py sends ``to_dict()`` of what is not a new file."""

    def __init__(self, shown: Shown) -> None:
        self.shown = shown

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.shown.attachment, "filename": self.shown.filename}


class Shows:
    """What picture each message this process last sent or edited shows, and how many times it was edited
    (bounded, least recently used out): an edit keeps a picture the message shows already instead of
    uploading it again, and a picture that comes late never overwrites a newer edit."""

    def __init__(self, most: int = SHOWN_MESSAGES) -> None:
        self._most = most
        self._state: OrderedDict[int, tuple[Shown | None, int]] = OrderedDict()
        self._laid: OrderedDict[int, bool] = OrderedDict()  # message → whether it is a layout message
        self._last: OrderedDict[int, tuple[Panel, str, int]] = OrderedDict()  # a layout's last panel

    def laid(self, message_id: int | None) -> bool | None:
        """Whether the message is a layout message, when this process knows (it sent, edited or saw it)."""
        return self._laid.get(message_id) if message_id is not None else None

    def saw(self, message: discord.Message | None) -> None:
        """A message as Discord sent it to the bot (the pressed one): its format is known from its flags."""
        if message is not None:
            self.remember(message.id, message.flags.value & layout.FLAG != 0)

    def remember(self, message_id: int, laid: bool) -> None:
        keep_newest(self._laid, message_id, laid, self._most)

    def last(self, message_id: int | None) -> tuple[Panel, str, int] | None:
        """The panel (with its scope and key) a layout message was last drawn from by this process."""
        return self._last.get(message_id) if message_id is not None else None

    def drawn(self, message_id: int | None, panel: Panel, scope: str, key: int) -> None:
        if message_id is None:
            return
        keep_newest(self._last, message_id, (panel, scope, key), RETIRABLE)

    def kept(self, message_id: int | None, picture: Picture) -> Shown | None:
        """The attachment to keep when ``message_id`` is edited to show ``picture``: the one it shows when
        that is this picture, else None (it is uploaded)."""
        if message_id is None or picture.key is None:
            return None
        shown, _ = self._state.get(message_id, (None, 0))
        if shown is None or shown.key != picture.key or shown.filename != picture.filename:
            return None
        return shown

    def edit(self, message_id: int | None) -> int:
        """An edit of the message begins: its new edit count (0 for no message)."""
        if message_id is None:
            return 0
        shown, edits = self._state.get(message_id, (None, 0))
        keep_newest(self._state, message_id, (shown, edits + 1), self._most)
        return edits + 1

    def edits(self, message_id: int | None) -> int:
        return self._state.get(message_id, (None, 0))[1] if message_id is not None else 0

    def record(self, sent: object, message_id: int | None, picture: Picture | None) -> None:
        """What the message sent or edited (``sent``: what the call returned) shows now: ``picture`` when it
        went with it (its attachment read from the returned message), else nothing known."""
        message = getattr(sent, "resource", sent)  # an interaction's callback response carries its message
        if isinstance(message, discord.Message):
            message_id = message.id
            self.saw(message)
        if message_id is None:
            return
        shown = None
        if picture is not None and picture.key is not None and isinstance(message, discord.Message):
            attachment = next((a for a in message.attachments if a.filename == picture.filename), None)
            if attachment is not None:
                shown = Shown(picture.key, picture.filename, attachment.id)
        _, edits = self._state.get(message_id, (None, 0))
        keep_newest(self._state, message_id, (shown, edits), self._most)
