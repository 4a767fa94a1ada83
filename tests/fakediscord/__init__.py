"""A fake Discord for end-to-end tests of the real bot through the unmodified discord.py client."""

from .model import (
    ALL_PERMISSIONS,
    EPHEMERAL,
    Button,
    FakeChannel,
    FakeEmoji,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    FilePart,
    InteractionResult,
    Rejection,
    RequestRecord,
    Select,
    SelectOption,
    UploadRecord,
    shard_of,
)
from .server import FAKE_TOKEN, FakeDiscord
from .validate import DiscordError, validate_message_payload, validate_modal_payload

__all__ = [
    "ALL_PERMISSIONS",
    "EPHEMERAL",
    "FAKE_TOKEN",
    "Button",
    "DiscordError",
    "FakeChannel",
    "FakeDiscord",
    "FakeEmoji",
    "FakeGuild",
    "FakeInteraction",
    "FakeMessage",
    "FakeUser",
    "FilePart",
    "InteractionResult",
    "Rejection",
    "RequestRecord",
    "Select",
    "SelectOption",
    "UploadRecord",
    "shard_of",
    "validate_message_payload",
    "validate_modal_payload",
]
