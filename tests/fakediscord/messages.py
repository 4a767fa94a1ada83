"""What the bot sent, as the fake Discord keeps it: messages (their text as a player reads it, buttons,
selects, embeds, edits), the interactions tests sent, and what the bot did with each
(:class:`InteractionResult`).

Everything here is plain data plus small find helpers, so assertions read like what a player would see.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .model import COMPONENTS_V2, EPHEMERAL, HAS_THREAD, LOADING, FakeChannel, FakeUser, iso

_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


# ---------------------------------------------------------------------------------------------- components


@dataclass(frozen=True)
class Button:
    label: str | None
    custom_id: str | None
    style: int
    disabled: bool
    emoji: str | None
    url: str | None
    raw: dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class SelectOption:
    label: str
    value: str
    description: str | None
    default: bool


@dataclass(frozen=True)
class Select:
    custom_id: str
    type: int  # 3 string, 5 user, 6 role, 7 mentionable, 8 channel
    options: tuple[SelectOption, ...]
    min_values: int
    max_values: int
    placeholder: str | None
    disabled: bool
    raw: dict[str, Any] = field(repr=False, compare=False)

    def values(self) -> list[str]:
        return [o.value for o in self.options]


def walk_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every component in a tree: action rows, and components v2 containers/sections/labels."""
    for comp in components:
        yield comp
        for key in ("components", "items"):
            children = comp.get(key)
            if isinstance(children, list):
                yield from walk_components([c for c in children if isinstance(c, dict)])
        for key in ("component", "accessory"):
            child = comp.get(key)
            if isinstance(child, dict):
                yield from walk_components([child])


def _emoji_text(raw: dict[str, Any] | None) -> str | None:
    if not raw:
        return None
    return raw.get("name") or None


def parse_buttons(components: list[dict[str, Any]]) -> list[Button]:
    return [
        Button(
            label=c.get("label"),
            custom_id=c.get("custom_id"),
            style=int(c.get("style", 1)),
            disabled=bool(c.get("disabled", False)),
            emoji=_emoji_text(c.get("emoji")),
            url=c.get("url"),
            raw=c,
        )
        for c in walk_components(components)
        if c.get("type") == 2
    ]


def parse_selects(components: list[dict[str, Any]]) -> list[Select]:
    return [
        Select(
            custom_id=c["custom_id"],
            type=int(c["type"]),
            options=tuple(
                SelectOption(o["label"], o["value"], o.get("description"), bool(o.get("default", False)))
                for o in c.get("options", [])
            ),
            min_values=int(c.get("min_values", 1)),
            max_values=int(c.get("max_values", 1)),
            placeholder=c.get("placeholder"),
            disabled=bool(c.get("disabled", False)),
            raw=c,
        )
        for c in walk_components(components)
        if c.get("type") in (3, 5, 6, 7, 8)
    ]


def embed_text(embed: dict[str, Any]) -> list[str]:
    parts: list[str] = []
    if (author := embed.get("author")) and author.get("name"):
        parts.append(author["name"])
    for key in ("title", "description"):
        if embed.get(key):
            parts.append(str(embed[key]))
    for f in embed.get("fields", []):
        parts.append(str(f.get("name", "")))
        parts.append(str(f.get("value", "")))
    if (footer := embed.get("footer")) and footer.get("text"):
        parts.append(footer["text"])
    return parts


def components_text(components: list[dict[str, Any]]) -> list[str]:
    """Text display contents (components v2), which are message text in all but name."""
    return [
        str(c["content"]) for c in walk_components(components) if c.get("type") == 10 and c.get("content")
    ]


# ------------------------------------------------------------------------------------------------ messages


@dataclass(frozen=True)
class Snapshot:
    """A message as it was before one edit."""

    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    flags: int
    at: float
    attachments: list[dict[str, Any]] = field(default_factory=list)


@dataclass(eq=False)
class FakeMessage:
    """One message the bot posted: in a channel, as an interaction response, or as a followup.

    ``content`` is what the message says as text: its content, or for a layout message (``IS_COMPONENTS_V2``,
    which has no content field: Discord refuses one) its text displays in order, one per line, so a test
    reads a panel's words the same in either format. What Discord is sent and sends back is unchanged
    (:meth:`payload` gives a layout message no content)."""

    id: int
    channel: FakeChannel
    author: FakeUser
    source: str  # "channel" | "response" | "followup"
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    attachments: list[dict[str, Any]] = field(default_factory=list)
    # the bytes of the current attachments by filename (FakeDiscord.attachment_bytes reads them by id)
    files: dict[str, bytes] = field(default_factory=dict, repr=False)
    interaction: FakeInteraction | None = field(default=None, repr=False)
    reference_id: int | None = None
    thread: FakeChannel | None = field(default=None, repr=False)  # the thread started from this message
    # allowed_mentions as last sent with the message (None: never sent, Discord then parses every mention)
    allowed_mentions: dict[str, Any] | None = None
    edits: list[Snapshot] = field(default_factory=list, repr=False)
    deleted: bool = False
    created: float = field(default_factory=time.time)
    edited: float | None = None

    @property
    def channel_id(self) -> int:
        return self.channel.id

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred response that has not been filled in yet ("Bot is thinking...")."""
        return bool(self.flags & LOADING)

    @property
    def viewer(self) -> FakeUser | None:
        """Who can see an ephemeral message (the user of the interaction it answered)."""
        if self.ephemeral and self.interaction is not None:
            return self.interaction.user
        return None

    def buttons(self) -> list[Button]:
        return parse_buttons(self.components)

    def button(self, label: str | None = None, *, custom_id: str | None = None) -> Button:
        """The one button with that label (or custom_id); fails listing what is there."""
        found = [
            b
            for b in self.buttons()
            if (label is None or b.label == label) and (custom_id is None or b.custom_id == custom_id)
        ]
        if len(found) != 1:
            have = [(b.label, b.custom_id) for b in self.buttons()]
            raise AssertionError(
                f"expected one button label={label!r} custom_id={custom_id!r} on message {self.id}, "
                f"found {len(found)}; buttons are {have}"
            )
        return found[0]

    def selects(self) -> list[Select]:
        return parse_selects(self.components)

    def select(self, custom_id: str | None = None) -> Select:
        found = [s for s in self.selects() if custom_id is None or s.custom_id == custom_id]
        if len(found) != 1:
            raise AssertionError(
                f"expected one select custom_id={custom_id!r} on message {self.id}, found "
                f"{[s.custom_id for s in self.selects()]}"
            )
        return found[0]

    @property
    def laid_out(self) -> bool:
        """Whether this is a layout message (flag ``IS_COMPONENTS_V2``)."""
        return bool(self.flags & COMPONENTS_V2)

    def shown_text(self) -> None:
        """A layout message's ``content``: its text displays (called after every create and edit)."""
        if self.laid_out:
            self.content = "\n".join(components_text(self.components))

    def text(self) -> str:
        """Content, embed author/title/description/fields/footer and text displays, one per line."""
        parts = [self.content] if self.content else []
        for e in self.embeds:
            parts.extend(embed_text(e))
        if not self.laid_out:  # a layout message's content is its text displays already
            parts.extend(components_text(self.components))
        return "\n".join(parts)

    def pinged_user_ids(self) -> list[int]:
        """Users whose ``<@id>`` mention in the content would ping them, under its allowed_mentions."""
        mentioned = [int(m) for m in dict.fromkeys(_USER_MENTION.findall(self.content))]
        allowed = self.allowed_mentions
        if allowed is None or "users" in (allowed.get("parse") or []):
            return mentioned
        listed = {int(u) for u in allowed.get("users") or []}
        return [u for u in mentioned if u in listed]

    def pinged_role_ids(self) -> list[int]:
        """Roles whose ``<@&id>`` mention in the content would ping them, under the allowed_mentions."""
        mentioned = [int(m) for m in dict.fromkeys(_ROLE_MENTION.findall(self.content))]
        allowed = self.allowed_mentions
        if allowed is None or "roles" in (allowed.get("parse") or []):
            return mentioned
        listed = {int(r) for r in allowed.get("roles") or []}
        return [r for r in mentioned if r in listed]

    @property
    def pings_everyone(self) -> bool:
        """Whether ``@everyone``/``@here`` in the content would ping (needs ``everyone`` in ``parse``)."""
        if "@everyone" not in self.content and "@here" not in self.content:
            return False
        allowed = self.allowed_mentions
        return allowed is None or "everyone" in (allowed.get("parse") or [])

    def snapshot(self) -> Snapshot:
        return Snapshot(
            self.content,
            list(self.embeds),
            list(self.components),
            self.flags,
            self.edited or self.created,
            list(self.attachments),
        )

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "author": self.author.payload(),
            "content": "" if self.laid_out else self.content,
            "timestamp": iso(self.created),
            "edited_timestamp": iso(self.edited) if self.edited else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": self.attachments,
            "embeds": self.embeds,
            "pinned": False,
            "type": 0,
            "flags": self.flags,
            "components": self.components,
        }
        if self.channel.guild is not None:
            data["guild_id"] = str(self.channel.guild.id)
        if self.interaction is not None:
            data["type"] = 20 if self.interaction.type == 2 else 0
            data["webhook_id"] = str(self.author.id)
            data["application_id"] = str(self.author.id)
            data["interaction_metadata"] = {
                "id": str(self.interaction.id),
                "type": self.interaction.type,
                "user": self.interaction.user.payload(),
                "authorizing_integration_owners": {},
            }
        if self.thread is not None:
            data["thread"] = self.thread.payload()
            data["flags"] = self.flags | HAS_THREAD
        if self.reference_id is not None:
            data["message_reference"] = {
                "message_id": str(self.reference_id),
                "channel_id": str(self.channel.id),
            }
            data["type"] = 19
        return data

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        gone = " deleted" if self.deleted else ""
        return f"<FakeMessage {self.id} {self.source}{flags}{gone} in {self.channel!r}: {self.text()[:60]!r}>"


# -------------------------------------------------------------------------------------------- interactions

_kinds = {2: "command", 3: "component", 4: "autocomplete", 5: "modal submit"}


@dataclass(eq=False)
class FakeInteraction:
    """An interaction the fake sent, and everything the bot answered to it."""

    id: int
    token: str
    type: int  # 2 command, 3 component, 4 autocomplete, 5 modal submit
    user: FakeUser
    channel: FakeChannel
    data: dict[str, Any]
    description: str
    message: FakeMessage | None = None  # the message a component/modal was on
    created: float = field(default_factory=time.monotonic)
    born: float = 0.0  # on the fake's clock (``FakeDiscord.clock``): the token dies ``token_life`` after
    # time.perf_counter() stamps for latency figures: INTERACTION_CREATE written, callback POST arrived.
    sent_at: float | None = None
    callback_at: float | None = None
    replied_at: float | None = None  # the latest followup or edit through the interaction's webhook
    first_reply_at: float | None = None  # the first of them (a deferred press's answer)
    callback_type: int | None = None
    callback_data: dict[str, Any] = field(default_factory=dict)
    response: FakeMessage | None = None  # the original response message (callback 4 or 5)
    followups: list[FakeMessage] = field(default_factory=list)
    expired: bool = False
    # the shard_id of the gateway connection INTERACTION_CREATE went to; None: no live connection had the
    # guild's shard (or shard 0, for a DM), so nothing was delivered
    shard: int | None = None
    answered: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def kind(self) -> str:
        return _kinds.get(self.type, str(self.type))

    @property
    def command_path(self) -> str:
        """A slash command's path ("/bhargage count"), subcommands included; "" for other interactions."""
        if self.type != 2:
            return ""
        words = [str(self.data.get("name"))]
        options = self.data.get("options") or []
        while options and options[0].get("type") in (1, 2):
            words.append(str(options[0]["name"]))
            options = options[0].get("options") or []
        return "/" + " ".join(words)


class InteractionResult:
    """What the bot did with one interaction: its callback, its reply and any followups.

    ``message`` is the reply a user sees: the response message (callback 4/5), else the message a component
    was on if the bot updated it (callback 7, or 6 followed by an edit), else the first followup.
    """

    def __init__(self, interaction: FakeInteraction) -> None:
        self.interaction = interaction

    # --- raw parts
    @property
    def type(self) -> int | None:
        """Callback type: 4 message, 5 deferred message, 6 deferred update, 7 update, 8 choices, 9 modal."""
        return self.interaction.callback_type

    @property
    def data(self) -> dict[str, Any]:
        return self.interaction.callback_data

    @property
    def followups(self) -> list[FakeMessage]:
        return list(self.interaction.followups)

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.interaction.callback_data if self.type == 9 else None

    @property
    def choices(self) -> list[dict[str, Any]]:
        """Autocomplete choices (callback 8)."""
        return list(self.interaction.callback_data.get("choices", [])) if self.type == 8 else []

    @property
    def deferred(self) -> bool:
        return self.type in (5, 6)

    @property
    def messages(self) -> list[FakeMessage]:
        out: list[FakeMessage] = []
        if self.interaction.response is not None:
            out.append(self.interaction.response)
        elif self.type in (6, 7) and self.interaction.message is not None and self.interaction.message.edits:
            out.append(self.interaction.message)
        out.extend(self.interaction.followups)
        return out

    @property
    def message(self) -> FakeMessage:
        msgs = self.messages
        if not msgs:
            raise AssertionError(
                f"the bot answered {self.interaction.description} with callback type {self.type} "
                "but no message"
            )
        return msgs[0]

    # --- convenient views of the reply
    @property
    def ephemeral(self) -> bool:
        return self.message.ephemeral

    @property
    def content(self) -> str:
        return self.message.content

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.message.embeds

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.message.components

    def buttons(self) -> list[Button]:
        return self.message.buttons()

    def button(self, label: str | None = None, *, custom_id: str | None = None) -> Button:
        return self.message.button(label, custom_id=custom_id)

    def selects(self) -> list[Select]:
        return self.message.selects()

    def text(self) -> str:
        """Text of every message this interaction produced (reply and followups)."""
        return "\n".join(m.text() for m in self.messages)

    def __repr__(self) -> str:
        return f"<InteractionResult {self.interaction.description} callback={self.type} {self.messages!r}>"
