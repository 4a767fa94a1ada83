"""The project's test kit: a fake Discord (REST + gateway on 127.0.0.1) for end-to-end tests and benchmarks
of the real bot through the unmodified discord.py client. README.md says what it fakes and how to use it.

This is the one entry: tests and bench/ import from ``tests.fakediscord``, never from its modules.
"""

from .commands import DISCORD_LOCALES
from .errors import ContractViolation, DiscordError
from .messages import (
    Button,
    FakeInteraction,
    FakeMessage,
    InteractionResult,
    Select,
    SelectOption,
    parse_buttons,
    parse_selects,
    walk_components,
)
from .model import (
    ALL_PERMISSIONS,
    COMPONENTS_V2,
    EPHEMERAL,
    FakeChannel,
    FakeEmoji,
    FakeGuild,
    FakeUser,
    FilePart,
    Rejection,
    RequestRecord,
    UploadRecord,
    shard_of,
)
from .oauth import CLIENT_SECRET, CODE_SECONDS, FakeInstance
from .referee import REFEREE
from .server import FakeDiscord
from .state import FAKE_TOKEN
from .validate import validate_message_payload, validate_modal_payload

__all__ = [
    "ALL_PERMISSIONS",
    "CLIENT_SECRET",
    "CODE_SECONDS",
    "COMPONENTS_V2",
    "DISCORD_LOCALES",
    "EPHEMERAL",
    "FAKE_TOKEN",
    "REFEREE",
    "Button",
    "ContractViolation",
    "DiscordError",
    "FakeChannel",
    "FakeDiscord",
    "FakeEmoji",
    "FakeGuild",
    "FakeInstance",
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
    "parse_buttons",
    "parse_selects",
    "shard_of",
    "validate_message_payload",
    "validate_modal_payload",
    "walk_components",
]
