"""Application emojis: the routes under ``/applications/{id}/emojis``, and those a test adds before the bot
starts. The emoji of buttons and select options are checked with every message (validate.py).
"""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from . import media
from .errors import DiscordError, FormErrors
from .model import FakeEmoji
from .state import FakeState
from .wire import json_answer, no_content

EMOJI_NAME = re.compile(r"[A-Za-z0-9_]{2,32}")
EMOJI_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/avif")


class Emojis(FakeState):
    """The application's emojis, as Discord's emoji resource documents them."""

    def add_application_emoji(self, name: str, image: bytes = b"", *, animated: bool = False) -> FakeEmoji:
        """An application emoji that exists before the bot starts (as if uploaded in the developer portal by
        the owner); not checked like the API's create route."""
        emoji = FakeEmoji(self.ids.next(), name, self.owner, animated=animated, image=image)
        self.application_emojis.append(emoji)
        return emoji

    def emoji_uploads(self) -> int:
        """How many application emoji creations (``POST .../emojis``) the bot sent, refused ones included."""
        return sum(1 for method, path, _ in self.requests if method == "POST" and path.endswith("/emojis"))

    async def _emojis(self, request: web.Request, p: list[str]) -> web.Response:
        """Application emojis (``/applications/{id}/emojis[/{emoji_id}]``), as Discord's emoji resource
        documents them: list as ``{"items": [...]}``, get, create (name + image data URI), modify (name),
        delete (204). No gateway event is sent: Discord has none for application emojis (the only emoji event
        is Guild Emojis Update).

        Checked from the docs: at most 2000 per application; image PNG/JPEG/GIF/WebP/AVIF of at most
        256 KiB, else 400 50035 ``image: File cannot be larger than 256.0 kb.`` (code BINARY_TYPE_MAX_SIZE;
        the shape Discord answers for guild emojis, e.g. Androz2091/backups-bot#15). Assumed: the name rule of
        guild emojis (2–32 letters, digits, underscores: BASE_TYPE_BAD_LENGTH or STRING_TYPE_REGEX); a name
        already used by another emoji of the application (case-sensitive) is 50035
        APPLICATION_EMOJI_NAME_ALREADY_TAKEN; a bad data URI or bytes that are not a supported image is 50035
        IMAGE_INVALID; the 2001st is 400 30008 "Maximum number of emojis reached"; another application's id
        is 403 20012; an unknown emoji id is 404 10014 Unknown Emoji.
        """
        method = request.method
        if not p[1].isdigit() or int(p[1]) != self.app_id:
            raise DiscordError(
                403, 20012, "You are not authorized to perform this action on this application"
            )
        if len(p) == 3 and method == "GET":
            return json_answer({"items": [e.payload() for e in self.application_emojis]})
        if len(p) == 3 and method == "POST":
            body, _ = await self._read_body(request)
            errors = FormErrors()
            self._emoji_name(body.get("name"), None, errors, required=True)
            image = body.get("image")
            decoded = media.decode_data_uri(image) if errors.required(("image",), image) else None
            kind = media.sniff_image(decoded[1]) if decoded is not None else None
            if image and (decoded is None or decoded[0] not in EMOJI_IMAGE_TYPES or kind is None):
                errors.add(("image",), "IMAGE_INVALID", "Invalid image data")
            elif decoded is not None and len(decoded[1]) > self.emoji_image_max:
                kb = self.emoji_image_max / 1024
                errors.add(("image",), "BINARY_TYPE_MAX_SIZE", f"File cannot be larger than {kb:.1f} kb.")
            errors.raise_if_any()
            assert decoded is not None
            if len(self.application_emojis) >= self.application_emojis_max:
                raise DiscordError(400, 30008, "Maximum number of emojis reached")
            emoji = FakeEmoji(
                self.ids.next(),
                str(body["name"]),
                self.bot_user,
                animated=media.is_animated(decoded[1]),
                image=decoded[1],
            )
            self.application_emojis.append(emoji)
            return json_answer(emoji.payload(), 201)
        eid = p[3] if len(p) == 4 else ""
        found = [e for e in self.application_emojis if eid.isdigit() and e.id == int(eid)]
        if len(p) == 4 and method in ("GET", "PATCH", "DELETE"):
            if not found:
                raise DiscordError(404, 10014, "Unknown Emoji")
            emoji = found[0]
            if method == "GET":
                return json_answer(emoji.payload())
            if method == "DELETE":
                self.application_emojis.remove(emoji)
                return no_content()
            body, _ = await self._read_body(request)
            errors = FormErrors()
            self._emoji_name(body.get("name"), emoji, errors, required=False)
            errors.raise_if_any()
            if body.get("name") is not None:
                emoji.name = str(body["name"])
            return json_answer(emoji.payload())
        self.unhandled.append(f"{method} {request.path}")
        raise DiscordError(405, 0, "405: Method Not Allowed")

    def _emoji_name(self, name: Any, emoji: FakeEmoji | None, errors: FormErrors, *, required: bool) -> None:
        if name is None and not required:
            return
        if not errors.required(("name",), name):
            return
        if not isinstance(name, str):
            errors.add(("name",), "BASE_TYPE_STRING", "Must be a string.")
        elif not 2 <= len(name) <= 32:
            errors.add(("name",), "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 32 in length.")
        elif not EMOJI_NAME.fullmatch(name):
            errors.add(("name",), "STRING_TYPE_REGEX", "String value did not match validation regex.")
        elif any(e.name == name and e is not emoji for e in self.application_emojis):
            errors.add(("name",), "APPLICATION_EMOJI_NAME_ALREADY_TAKEN", "Emoji name already taken.")
