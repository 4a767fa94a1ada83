"""What Discord refuses in a message body, with the error Discord answers.

Every path of the fake that creates or edits a message (channel messages and DMs, interaction callbacks
4 and 7, followups, webhook message edits) goes through :func:`validate_message_payload`; modals
(callback 9) through :func:`validate_modal_payload`. A refusal is HTTP 400 with Discord's error shape::

    {"code": 50035, "message": "Invalid Form Body",
     "errors": {"embeds": {"0": {"title": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH",
                                                        "message": "Must be 256 or fewer in length."}]}}}}}

and discord.py turns it into ``HTTPException`` whose text reads ``In embeds.0.title: Must be 256 or fewer in
length.``. A message left with nothing to show is 400 code 50006 "Cannot send an empty message".

Limits, from Discord's API documentation (resources/message: create message params and embed limits;
components/reference: action row, button, string select, user/role/mentionable/channel selects, text input):
content 2000; 10 embeds; embed title 256, description 4096, 25 fields, field name 256, field value 1024,
footer text 2048, author name 256, 6000 characters of embed text over all embeds of the message; 5 action rows
(components v2: 40 components in all); a row holds 1..5 buttons or exactly one select; custom_id 1..100
characters, required on every interactive component except link and premium buttons, unique in the message;
button label 80 and a label or an emoji; link buttons need a url (http, https or discord, 512 characters;
Assumed: a malformed one is ``URL_TYPE_INVALID_URL`` "Not a well formed URL.") and take no custom_id; string
select options 1..25, option label/value/description 100, option values unique; placeholder 150; min_values
0..25, max_values 1..25, min_values <= max_values <= number of options; allowed_mentions ``parse`` excludes
the ``users``/``roles`` lists of the same kind, lists of at most 100.

A component's ``emoji`` (buttons, string select options) is a partial emoji: ``{"name": "🌙"}`` for a Unicode
emoji, or ``{"id": "...", "name": ..., "animated": ...}`` for a custom one whose id the app may use (its own
application emojis; the fake's guilds have no emojis). Anything else is refused with code
``BUTTON_COMPONENT_INVALID_EMOJI`` "Invalid emoji" (the code Discord uses for select options too; seen at
``...emoji.name`` in discord/discord-api-docs#8071, bwmarrin/discordgo#1479, Crownicles/Crownicles#3110).
Assumed: the error sits at ``emoji.id`` for an unknown custom id, and "a Unicode emoji" is approximated as a
name made only of symbol/modifier/joiner/variation characters (Unicode categories So, Sk, Cf, Mn, Me) or a
keycap (``1️⃣``), as the fake carries no list of Unicode emoji. A non-snowflake id is ``NUMBER_TYPE_COERCE``.
Message content with ``<:name:id>`` is not checked (Discord shows an unknown one as text).

Layout messages (flag ``IS_COMPONENTS_V2``, components/reference and resources/message "Edit Message"): no
``content``, ``embeds``, ``poll`` or ``sticker_ids`` beside the flag (a layout message edited keeps it, so an
edit that sends content to one is refused); 40 components counting nested ones; 4,000 characters of text
display in all; a media gallery item's ``attachment://name`` names a file of the message. The flag cannot be
taken off by an edit, and here neither put on one sent without it (the stricter reading: Discord's later
documentation lets an edit that empties content and embeds put it on; the bot relies on neither). Assumed:
Discord's codes for the flag's refusals, ``MESSAGE_CANNOT_REMOVE_COMPONENTS_V2_FLAG`` and
``MESSAGE_CANNOT_ADD_COMPONENTS_V2_FLAG``, at ``flags``, and ``BASE_TYPE_MAX_LENGTH`` for the text limit.

Attachments (``files``/``attachments`` below) are worked out by the server, which passes how many the
message will have so that an image alone is not an empty message.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Container
from typing import Any

from .errors import DiscordError, FormErrors
from .model import COMPONENTS_V2

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4096
EMBED_FIELDS_MAX = 25
EMBED_FIELD_NAME_MAX = 256
EMBED_FIELD_VALUE_MAX = 1024
EMBED_FOOTER_MAX = 2048
EMBED_AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
ACTION_ROWS_MAX = 5
V2_COMPONENTS_MAX = 40
V2_TEXT_MAX = 4000
ROW_BUTTONS_MAX = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
BUTTON_URL_MAX = 512  # a link button's url
URL_SCHEMES = ("http://", "https://", "discord://")  # what a link button may open
SELECT_OPTIONS_MAX = 25
SELECT_OPTION_TEXT_MAX = 100
SELECT_PLACEHOLDER_MAX = 150
SELECT_VALUES_MAX = 25
MENTIONS_LIST_MAX = 100
MODAL_TITLE_MAX = 45
MODAL_ROWS_MAX = 5
TEXT_INPUT_LABEL_MAX = 45
TEXT_INPUT_LENGTH_MAX = 4000
TEXT_INPUT_PLACEHOLDER_MAX = 100

BUTTON = 2
STRING_SELECT = 3
TEXT_INPUT = 4
SELECTS = (3, 5, 6, 7, 8)
LINK_STYLE = 5
PREMIUM_STYLE = 6
# components v2 layout and content types (section, text display, thumbnail, gallery, file, separator,
# container) besides the action row
V2_TYPES = (1, 9, 10, 11, 12, 13, 14, 17)


def embed_length(embed: dict[str, Any]) -> int:
    """Characters that count toward the 6000 of a message: title, description, fields, footer, author."""
    total = len(str(embed.get("title") or "")) + len(str(embed.get("description") or ""))
    for f in embed.get("fields") or []:
        if isinstance(f, dict):
            total += len(str(f.get("name") or "")) + len(str(f.get("value") or ""))
    total += len(str((embed.get("footer") or {}).get("text") or ""))
    total += len(str((embed.get("author") or {}).get("name") or ""))
    return total


def _check_embeds(errors: FormErrors, embeds: Any) -> None:
    if not isinstance(embeds, list):
        errors.add(("embeds",), "BASE_TYPE_ARRAY", "Must be an array.")
        return
    errors.too_long(("embeds",), embeds, EMBEDS_MAX)
    for i, embed in enumerate(embeds):
        at: tuple[str | int, ...] = ("embeds", i)
        if not isinstance(embed, dict):
            errors.add(at, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        errors.too_long((*at, "title"), embed.get("title"), EMBED_TITLE_MAX)
        errors.too_long((*at, "description"), embed.get("description"), EMBED_DESCRIPTION_MAX)
        fields = embed.get("fields") or []
        errors.too_long((*at, "fields"), fields, EMBED_FIELDS_MAX)
        for j, f in enumerate(fields):
            # Empty names and values are accepted nowadays; missing ones are not.
            if f.get("name") is None:
                errors.add((*at, "fields", j, "name"), "BASE_TYPE_REQUIRED", "This field is required")
            if f.get("value") is None:
                errors.add((*at, "fields", j, "value"), "BASE_TYPE_REQUIRED", "This field is required")
            errors.too_long((*at, "fields", j, "name"), f.get("name"), EMBED_FIELD_NAME_MAX)
            errors.too_long((*at, "fields", j, "value"), f.get("value"), EMBED_FIELD_VALUE_MAX)
        footer = embed.get("footer")
        if footer is not None and errors.required((*at, "footer", "text"), footer.get("text")):
            errors.too_long((*at, "footer", "text"), footer["text"], EMBED_FOOTER_MAX)
        author = embed.get("author")
        if author is not None and errors.required((*at, "author", "name"), author.get("name")):
            errors.too_long((*at, "author", "name"), author["name"], EMBED_AUTHOR_MAX)
    if sum(embed_length(e) for e in embeds if isinstance(e, dict)) > EMBED_TOTAL_MAX:
        errors.add(
            ("embeds",), "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}"
        )


_EMOJI_CATEGORIES = ("So", "Sk", "Cf", "Mn", "Me")
_KEYCAP_BASES = "0123456789#*"


def is_unicode_emoji(name: str) -> bool:
    """Whether ``name`` looks like one Unicode emoji (see the module docstring for the approximation)."""
    if not name or len(name) > 32:
        return False
    if name[0] in _KEYCAP_BASES and name[1:] in ("\u20e3", "\ufe0f\u20e3"):
        return True
    categories = [unicodedata.category(ch) for ch in name]
    return all(c in _EMOJI_CATEGORIES for c in categories) and "So" in categories


class _Components:
    """Checks one message's component tree; remembers custom_ids to refuse duplicates."""

    def __init__(self, errors: FormErrors, emoji_ids: Container[int] | None = None) -> None:
        self.errors = errors
        self.custom_ids: set[str] = set()
        self.count = 0
        self.text = 0  # characters of text display (layout messages)
        self.media: list[tuple[tuple[str | int, ...], str]] = []  # attachment:// names a gallery shows
        self.emoji_ids = emoji_ids

    def emoji(self, at: tuple[str | int, ...], emoji: Any) -> None:
        """A partial emoji on a button or select option (None/absent is checked by the caller)."""
        errors = self.errors
        at = (*at, "emoji")
        if not isinstance(emoji, dict):
            errors.add(at, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            return
        animated = emoji.get("animated")
        if animated is not None and not isinstance(animated, bool):
            errors.add((*at, "animated"), "BASE_TYPE_BOOLEAN", "Must be either true or false.")
        eid, name = emoji.get("id"), emoji.get("name")
        if eid is not None:
            if isinstance(eid, bool) or not str(eid).isdigit():
                errors.add((*at, "id"), "NUMBER_TYPE_COERCE", f'Value "{eid}" is not snowflake.')
            elif self.emoji_ids is not None and int(eid) not in self.emoji_ids:
                errors.add((*at, "id"), "BUTTON_COMPONENT_INVALID_EMOJI", "Invalid emoji")
            return
        if not isinstance(name, str) or not is_unicode_emoji(name):
            errors.add((*at, "name"), "BUTTON_COMPONENT_INVALID_EMOJI", "Invalid emoji")

    def custom_id(self, at: tuple[str | int, ...], comp: dict[str, Any]) -> None:
        cid = comp.get("custom_id")
        if not self.errors.required((*at, "custom_id"), cid):
            return
        if not isinstance(cid, str):
            self.errors.add((*at, "custom_id"), "BASE_TYPE_STRING", "Must be a string.")
            return
        self.errors.too_long((*at, "custom_id"), cid, CUSTOM_ID_MAX)
        if cid in self.custom_ids:
            self.errors.add(
                (*at, "custom_id"),
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        self.custom_ids.add(cid)

    def button(self, at: tuple[str | int, ...], comp: dict[str, Any]) -> None:
        errors = self.errors
        style = comp.get("style")
        if style not in (1, 2, 3, 4, 5, 6):
            errors.add((*at, "style"), "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4, 5, 6).")
            return
        if style == PREMIUM_STYLE:
            errors.required((*at, "sku_id"), comp.get("sku_id"))
            for key in ("custom_id", "url", "label", "emoji"):
                if comp.get(key) is not None:
                    errors.add((*at, key), "BUTTON_COMPONENT_INVALID", "A premium button cannot have it")
            return
        if style == LINK_STYLE:
            url = comp.get("url")
            if errors.required((*at, "url"), url):
                errors.too_long((*at, "url"), url, BUTTON_URL_MAX)
                if not isinstance(url, str) or not url.startswith(URL_SCHEMES) or " " in url:
                    errors.add((*at, "url"), "URL_TYPE_INVALID_URL", "Not a well formed URL.")
            if comp.get("custom_id") is not None:
                errors.add(
                    (*at, "custom_id"),
                    "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                    "A link button has no custom_id",
                )
        else:
            self.custom_id(at, comp)
            if comp.get("url") is not None:
                errors.add((*at, "url"), "BUTTON_COMPONENT_URL_NOT_ALLOWED", "Only a link button has a url")
        label = comp.get("label")
        errors.too_long((*at, "label"), label, BUTTON_LABEL_MAX)
        if comp.get("emoji") is not None:
            self.emoji(at, comp["emoji"])
        if not label and not comp.get("emoji"):
            errors.add(at, "BUTTON_COMPONENT_MISSING_LABEL_OR_EMOJI", "A button needs a label or an emoji")

    def select(self, at: tuple[str | int, ...], comp: dict[str, Any]) -> None:
        errors = self.errors
        self.custom_id(at, comp)
        errors.too_long((*at, "placeholder"), comp.get("placeholder"), SELECT_PLACEHOLDER_MAX)
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        lo = 1 if lo is None else lo
        hi = 1 if hi is None else hi
        if not isinstance(lo, int) or not 0 <= lo <= SELECT_VALUES_MAX:
            errors.add((*at, "min_values"), "NUMBER_TYPE_MAX", f"Must be between 0 and {SELECT_VALUES_MAX}.")
            lo = None
        if not isinstance(hi, int) or not 1 <= hi <= SELECT_VALUES_MAX:
            errors.add((*at, "max_values"), "NUMBER_TYPE_MAX", f"Must be between 1 and {SELECT_VALUES_MAX}.")
            hi = None
        if lo is not None and hi is not None and lo > hi:
            errors.add(
                (*at, "min_values"),
                "SELECT_COMPONENT_MIN_VALUES_TOO_HIGH",
                "min_values must be <= max_values",
            )
        if comp.get("type") != STRING_SELECT:
            return
        options = comp.get("options")
        if not isinstance(options, list) or not options:
            errors.add((*at, "options"), "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.")
            return
        errors.too_long((*at, "options"), options, SELECT_OPTIONS_MAX)
        if hi is not None and hi > len(options):
            errors.add(
                (*at, "max_values"),
                "SELECT_COMPONENT_MAX_VALUES_TOO_HIGH",
                f"Must be less than or equal to the number of options ({len(options)}).",
            )
        values: set[str] = set()
        for k, opt in enumerate(options):
            oat = (*at, "options", k)
            for key in ("label", "value"):
                if errors.required((*oat, key), opt.get(key)):
                    errors.too_long((*oat, key), opt[key], SELECT_OPTION_TEXT_MAX)
            errors.too_long((*oat, "description"), opt.get("description"), SELECT_OPTION_TEXT_MAX)
            if opt.get("emoji") is not None:
                self.emoji(oat, opt["emoji"])
            value = opt.get("value")
            if isinstance(value, str) and value:
                if value in values:
                    errors.add(
                        (*oat, "value"),
                        "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                        "Select component option values must be unique",
                    )
                values.add(value)

    def row(self, at: tuple[str | int, ...], row: dict[str, Any]) -> None:
        errors = self.errors
        children = row.get("components")
        if not isinstance(children, list) or not children:
            errors.add((*at, "components"), "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.")
            return
        self.count += len(children)
        kinds = [c.get("type") if isinstance(c, dict) else None for c in children]
        selects = sum(1 for k in kinds if k in SELECTS)
        if selects and len(children) > 1:
            errors.add(
                (*at, "components"),
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
        elif len(children) > ROW_BUTTONS_MAX:
            errors.add(
                (*at, "components"), "BASE_TYPE_MAX_LENGTH", f"Must be {ROW_BUTTONS_MAX} or fewer in length."
            )
        for i, child in enumerate(children):
            self.interactive((*at, "components", i), child)

    def interactive(self, at: tuple[str | int, ...], comp: Any) -> None:
        if not isinstance(comp, dict):
            self.errors.add(at, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        elif comp.get("type") == BUTTON:
            self.button(at, comp)
        elif comp.get("type") in SELECTS:
            self.select(at, comp)
        else:
            self.errors.add(
                (*at, "type"),
                "UNION_TYPE_CHOICES",
                'Value of field "type" must be one of (2, 3, 5, 6, 7, 8).',
            )

    def legacy(self, components: list[Any]) -> None:
        """Classic messages: up to 5 action rows at the top level."""
        self.errors.too_long(("components",), components, ACTION_ROWS_MAX)
        for i, row in enumerate(components):
            at: tuple[str | int, ...] = ("components", i)
            if not isinstance(row, dict) or row.get("type") != 1:
                self.errors.add(
                    (*at, "type"), "UNION_TYPE_CHOICES", 'Value of field "type" must be one of (1,).'
                )
                continue
            self.count += 1
            self.row(at, row)

    def v2(self, at: tuple[str | int, ...], comp: Any) -> None:
        """Components v2 layouts: rows and interactive accessories are checked like classic ones."""
        if not isinstance(comp, dict) or comp.get("type") not in V2_TYPES:
            self.errors.add((*at, "type"), "UNION_TYPE_CHOICES", "Not a component valid in a message.")
            return
        self.count += 1
        kind = comp["type"]
        if kind == 10 and isinstance(comp.get("content"), str):
            self.text += len(comp["content"])
        elif kind == 12:
            for i, item in enumerate(comp.get("items") or []):
                url = str(((item or {}).get("media") or {}).get("url") or "")
                if url.startswith("attachment://"):
                    self.media.append(((*at, "items", i, "media", "url"), url.removeprefix("attachment://")))
        if kind == 1:
            self.row(at, comp)
        elif kind == 9:
            for i, child in enumerate(comp.get("components") or []):
                self.v2((*at, "components", i), child)
            accessory = comp.get("accessory")
            if isinstance(accessory, dict):
                self.count += 1
                if accessory.get("type") == BUTTON:
                    self.button((*at, "accessory"), accessory)
        elif kind == 17:
            for i, child in enumerate(comp.get("components") or []):
                self.v2((*at, "components", i), child)


def _check_flag_change(errors: FormErrors, payload: dict[str, Any], current: Any) -> None:
    """An edit may not take the layout flag off a message, nor put it on one sent without it."""
    if current is None or payload.get("flags") is None:
        return
    had = bool(int(current.flags or 0) & COMPONENTS_V2)
    has = bool(int(payload["flags"]) & COMPONENTS_V2)
    if had and not has:
        errors.add(
            ("flags",),
            "MESSAGE_CANNOT_REMOVE_COMPONENTS_V2_FLAG",
            "The IS_COMPONENTS_V2 flag cannot be removed from a message",
        )
    elif has and not had:
        errors.add(
            ("flags",),
            "MESSAGE_CANNOT_ADD_COMPONENTS_V2_FLAG",
            "The IS_COMPONENTS_V2 flag cannot be added to a message sent without it",
        )


def _check_allowed_mentions(errors: FormErrors, mentions: Any) -> None:
    if not isinstance(mentions, dict):
        errors.add(("allowed_mentions",), "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    parse = mentions.get("parse") or []
    for kind in ("users", "roles"):
        ids = mentions.get(kind) or []
        errors.too_long(("allowed_mentions", kind), ids, MENTIONS_LIST_MAX)
        if ids and kind in parse:
            errors.add(
                ("allowed_mentions", "parse"),
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.',
            )
    bad = [p for p in parse if p not in ("users", "roles", "everyone")]
    if bad:
        errors.add(
            ("allowed_mentions", "parse"),
            "BASE_TYPE_CHOICES",
            "Value must be one of ('users', 'roles', 'everyone').",
        )


def validate_message_payload(
    payload: dict[str, Any],
    *,
    attachments: int,
    current: Any = None,
    prefix: tuple[str, ...] = (),
    emoji_ids: Container[int] | None = None,
    files: Container[str] | None = None,
) -> None:
    """Raise :class:`DiscordError` as Discord would for a message create/edit body (or a callback's ``data``).

    ``attachments``: how many attachments the message will have after the request (for the empty-message
    rule). ``current``: the message being edited (an object with ``content``, ``embeds``, ``components``,
    ``flags``), whose kept fields must leave something to show. ``prefix``: where the body sits in the
    request (``("data",)`` for an interaction callback), so the error paths match Discord's. ``emoji_ids``:
    the custom emoji ids components may use (None: custom ids are not checked). ``files``: the file names
    the message will have, which a media gallery's ``attachment://`` may name (None: not checked).
    """
    errors = FormErrors(prefix)
    _check_flag_change(errors, payload, current)
    content = payload.get("content")
    flags = int(payload.get("flags") or 0)
    if current is not None:
        flags |= int(current.flags or 0) & COMPONENTS_V2
    v2 = bool(flags & COMPONENTS_V2)
    if content is not None:
        if not isinstance(content, str):
            errors.add(("content",), "BASE_TYPE_STRING", "Must be a string.")
        errors.too_long(("content",), content, CONTENT_MAX)
        if v2 and content:
            errors.add(
                ("content",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
            )
    embeds = payload.get("embeds")
    if embeds is not None:
        _check_embeds(errors, embeds)
        if v2 and embeds:
            errors.add(
                ("embeds",),
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'embeds' field cannot be used when using MessageFlags.IS_COMPONENTS_V2",
            )
    components = payload.get("components")
    if components is not None:
        if not isinstance(components, list):
            errors.add(("components",), "BASE_TYPE_ARRAY", "Must be an array.")
        elif v2:
            checker = _Components(errors, emoji_ids)
            for i, comp in enumerate(components):
                checker.v2(("components", i), comp)
            if checker.count > V2_COMPONENTS_MAX:
                errors.add(
                    ("components",),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {V2_COMPONENTS_MAX} or fewer components in total.",
                )
            if checker.text > V2_TEXT_MAX:
                errors.add(
                    ("components",),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Text displays must be {V2_TEXT_MAX} or fewer characters in total.",
                )
            for path, name in checker.media:
                if files is not None and name not in files:
                    errors.add(path, "UNFURLED_MEDIA_ATTACHMENT_NOT_FOUND", "Attachment not found.")
        else:
            _Components(errors, emoji_ids).legacy(components)
    if payload.get("allowed_mentions") is not None:
        _check_allowed_mentions(errors, payload["allowed_mentions"])
    errors.raise_if_any()

    # Nothing left to show: judged on the message as it would be after the request.
    def kept(key: str) -> Any:
        if key in payload:
            return payload[key]
        if key == "content" and v2:  # a layout message's content is its text displays: no content field
            return None
        return getattr(current, key, None) if current is not None else None

    if not (
        kept("content")
        or kept("embeds")
        or kept("components")
        or attachments
        or payload.get("sticker_ids")
        or payload.get("poll")
    ):
        raise DiscordError(400, 50006, "Cannot send an empty message")


def validate_modal_payload(payload: dict[str, Any], *, prefix: tuple[str, ...] = ("data",)) -> None:
    """Raise :class:`DiscordError` as Discord would for a modal (callback 9): title, custom_id, 1..5 rows of
    one text input each (or labels, type 18, holding one component), text input limits."""
    errors = FormErrors(prefix)
    if errors.required(("title",), payload.get("title")):
        errors.too_long(("title",), payload["title"], MODAL_TITLE_MAX)
    if errors.required(("custom_id",), payload.get("custom_id")):
        errors.too_long(("custom_id",), payload["custom_id"], CUSTOM_ID_MAX)
    rows = payload.get("components")
    if not isinstance(rows, list) or not rows:
        errors.add(("components",), "BASE_TYPE_MIN_LENGTH", "Must be 1 or more in length.")
        rows = []
    errors.too_long(("components",), rows, MODAL_ROWS_MAX)
    seen: set[str] = set()
    for i, top in enumerate(rows):
        at: tuple[str | int, ...] = ("components", i)
        if top.get("type") == 1:
            inner = top.get("components") or []
            if len(inner) != 1:
                errors.add((*at, "components"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 1 in length.")
            children = [((*at, "components", j), c) for j, c in enumerate(inner)]
        elif top.get("type") == 18:  # label wrapping one component
            if errors.required((*at, "label"), top.get("label")):
                errors.too_long((*at, "label"), top["label"], TEXT_INPUT_LABEL_MAX)
            children = [((*at, "component"), top.get("component") or {})]
        else:
            # text displays (10) and other v2 content need no checks here
            continue
        for cat, comp in children:
            cid = comp.get("custom_id")
            if errors.required((*cat, "custom_id"), cid):
                errors.too_long((*cat, "custom_id"), cid, CUSTOM_ID_MAX)
                if cid in seen:
                    errors.add(
                        (*cat, "custom_id"),
                        "COMPONENT_CUSTOM_ID_DUPLICATED",
                        "Component custom id cannot be duplicated",
                    )
                seen.add(cid)
            if comp.get("type") != TEXT_INPUT:
                continue
            if top.get("type") == 1 and errors.required((*cat, "label"), comp.get("label")):
                errors.too_long((*cat, "label"), comp["label"], TEXT_INPUT_LABEL_MAX)
            lo, hi = comp.get("min_length"), comp.get("max_length")
            if lo is not None and not 0 <= lo <= TEXT_INPUT_LENGTH_MAX:
                errors.add((*cat, "min_length"), "NUMBER_TYPE_MAX", "Must be between 0 and 4000.")
            if hi is not None and not 1 <= hi <= TEXT_INPUT_LENGTH_MAX:
                errors.add((*cat, "max_length"), "NUMBER_TYPE_MAX", "Must be between 1 and 4000.")
            errors.too_long((*cat, "value"), comp.get("value"), TEXT_INPUT_LENGTH_MAX)
            errors.too_long((*cat, "placeholder"), comp.get("placeholder"), TEXT_INPUT_PLACEHOLDER_MAX)
    errors.raise_if_any()
