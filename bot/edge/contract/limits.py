"""The limits Discord documents and its published schema states loosely or not at all.

Each is from Discord's developer documentation (the pages named beside it); the schema is checked first
(:class:`bot.edge.contract.Contract`), so these only add what it leaves out:

- messages (resources/message, "Create Message" and "Embed Limits"): ``content`` at most 2,000 characters for
  a bot (the schema allows 4,000 on channel routes, a Nitro user's limit); 6,000 characters of embed text over
  all embeds; at most 10 files, each at most 10 MiB (a server without boosts, and DMs);
- components (components/reference): without ``IS_COMPONENTS_V2`` only action rows at the top, at most 5; with
  it no ``content``, ``embeds``, ``poll`` or ``sticker_ids``, at most 40 components counting the nested ones
  and 4,000 characters of text display in all; a ``custom_id`` unique in its message and required on every
  interactive component but link and premium buttons; a link button has a ``url`` and no ``custom_id``; a
  button a label or an emoji; a string select's ``min_values <= max_values <= len(options)`` and its option
  values unique;
- ``allowed_mentions`` (resources/message, "Allowed Mentions"): ``parse`` naming ``users`` (or ``roles``)
  excludes a ``users`` (``roles``) list;
- command registration (interactions/application-commands, "Application Command Object", "Registering a
  Command", "Slash Commands"): names per the naming rule (chat-input names and option names lower-case
  letters, digits, ``-_'``; 1-32), localizations only for Discord's locales and under the same rules; a
  chat-input description of 1-100 characters, and none for user and message commands; options only on
  chat-input commands, required ones first, names unique; no ``autocomplete`` beside ``choices``; ``min_value
  <= max_value``; 8,000 characters per command over its names, descriptions, and choice names and values,
  counting the longest localization of each; at most 100 chat-input, 15 user, 15 message and 1 entry point
  commands, names unique per type.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence
from typing import Any

from bot.edge.contract.model import Path, Violation

INTEGER_MAX = 2**53 - 1  # the spec's Int53Type: the largest integer an option, a bound or a choice may carry
CONTENT_MAX = 2000
EMBED_TOTAL_MAX = 6000
FILES_MAX = 10
FILE_BYTES_MAX = 10 * 1024 * 1024
ACTION_ROWS_MAX = 5
V2_COMPONENTS_MAX = 40
V2_TEXT_MAX = 4000
IS_COMPONENTS_V2 = 1 << 15
COMMAND_CHARACTERS_MAX = 8000
MENU_NAME_MAX = 32  # characters of a user or message command's name
COMMANDS_MAX = {1: 100, 2: 15, 3: 15, 4: 1}  # per command type, global or per guild
CHAT_INPUT, USER, MESSAGE, ENTRY_POINT = 1, 2, 3, 4
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
BUTTON, STRING_SELECT, TEXT_INPUT = 2, 3, 4
LINK, PREMIUM = 5, 6
INTERACTIVE = (2, 3, 4, 5, 6, 7, 8)  # buttons, selects and text inputs carry a custom_id
TEXT_DISPLAY = 10

MESSAGE_OPERATIONS = frozenset(
    {
        "create_message",
        "update_message",
        "execute_webhook",
        "update_original_webhook_message",
        "update_webhook_message",
    }
)
COMMAND_OPERATIONS = frozenset({"bulk_set_application_commands", "bulk_set_guild_application_commands"})
MESSAGE_CALLBACKS = (4, 7)  # the interaction callbacks whose data is a message
MODAL_CALLBACK = 9


def check(op: str, body: Any, files: Sequence[int], locales: frozenset[str]) -> list[Violation]:
    """Every documented limit ``body`` breaks for the operation ``op`` (its ``operationId``); ``locales``:
    Discord's."""
    found: list[Violation] = []

    def add(path: Path, message: str, kind: str = "", limit: int | None = None, **more: Any) -> None:
        found.append(Violation(path, message, "docs", kind, limit, **more))

    if len(files) > FILES_MAX:
        refusal = (400, 30015, f"Maximum number of attachments in a message reached ({FILES_MAX})")
        add(("files",), f"at most {FILES_MAX} files a message (it has {len(files)})", refusal=refusal)
    for i, size in enumerate(files):
        if size > FILE_BYTES_MAX:
            refusal = (413, 40005, "Request entity too large")
            add(
                (f"files[{i}]",),
                f"a file may be at most {FILE_BYTES_MAX} bytes (it has {size})",
                refusal=refusal,
            )
    if op in MESSAGE_OPERATIONS and isinstance(body, dict):
        _message(body, (), add)
    elif op == "create_interaction_response" and isinstance(body, dict):
        data = body.get("data")
        if body.get("type") in MESSAGE_CALLBACKS and isinstance(data, dict):
            _message(data, ("data",), add)
        elif body.get("type") == MODAL_CALLBACK and isinstance(data, dict):
            _custom_ids(data.get("components"), ("data", "components"), add, set())
    elif op in COMMAND_OPERATIONS and isinstance(body, list):
        _commands(body, add, locales)
    return found


Add = Any  # add(path, message[, kind, limit]): see check


# ----------------------------------------------------------------------------------------------- messages


def _message(body: dict[str, Any], at: Path, add: Add) -> None:
    content = body.get("content")
    if isinstance(content, str) and len(content) > CONTENT_MAX:
        add(
            (*at, "content"),
            f"at most {CONTENT_MAX} characters for a bot (it has {len(content)})",
            "maxLength",
            CONTENT_MAX,
        )
    embeds = body.get("embeds") or []
    if isinstance(embeds, list):
        total = sum(_embed_text(e) for e in embeds if isinstance(e, dict))
        if total > EMBED_TOTAL_MAX:
            add(
                (*at, "embeds"), f"at most {EMBED_TOTAL_MAX} characters of embed text in all (it has {total})"
            )
    components = body.get("components")
    flags = body.get("flags")
    v2 = isinstance(flags, int) and bool(flags & IS_COMPONENTS_V2)
    if isinstance(components, list):
        if v2:
            count, text = _v2_size(components)
            if count > V2_COMPONENTS_MAX:
                add((*at, "components"), f"at most {V2_COMPONENTS_MAX} components in all (it has {count})")
            if text > V2_TEXT_MAX:
                add((*at, "components"), f"at most {V2_TEXT_MAX} characters of text display (it has {text})")
        else:
            if len(components) > ACTION_ROWS_MAX:
                add((*at, "components"), f"at most {ACTION_ROWS_MAX} action rows (it has {len(components)})")
            for i, row in enumerate(components):
                if isinstance(row, dict) and row.get("type") != 1:
                    add((*at, "components", i), "only action rows without the IS_COMPONENTS_V2 flag")
        _custom_ids(components, (*at, "components"), add, set())
    if v2:
        for key in ("content", "embeds", "poll", "sticker_ids"):
            if body.get(key):
                add((*at, key), "not allowed with the IS_COMPONENTS_V2 flag")
    mentions = body.get("allowed_mentions")
    if isinstance(mentions, dict):
        parse = mentions.get("parse") or []
        for kind in ("users", "roles"):
            if isinstance(parse, list) and kind in parse and mentions.get(kind):
                add((*at, "allowed_mentions", "parse"), f'"{kind}" excludes a list of {kind} beside it')


def _embed_text(embed: dict[str, Any]) -> int:
    total = len(str(embed.get("title") or "")) + len(str(embed.get("description") or ""))
    for field in embed.get("fields") or []:
        if isinstance(field, dict):
            total += len(str(field.get("name") or "")) + len(str(field.get("value") or ""))
    for part in ("footer", "author"):
        inner = embed.get(part)
        if isinstance(inner, dict):
            total += len(str(inner.get("text" if part == "footer" else "name") or ""))
    return total


def _walk(components: Any, at: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every component, nested ones included (rows, containers, sections and their accessories)."""
    if not isinstance(components, list):
        return
    for i, comp in enumerate(components):
        if not isinstance(comp, dict):
            continue
        here = (*at, i)
        yield here, comp
        yield from _walk(comp.get("components"), (*here, "components"))
        accessory = comp.get("accessory")
        if isinstance(accessory, dict):
            yield (*here, "accessory"), accessory
        label_child = comp.get("component")  # a modal's label wraps one component
        if isinstance(label_child, dict):
            yield (*here, "component"), label_child


def _v2_size(components: list[Any]) -> tuple[int, int]:
    count = text = 0
    for _, comp in _walk(components, ()):
        count += 1
        if comp.get("type") == TEXT_DISPLAY and isinstance(comp.get("content"), str):
            text += len(comp["content"])
    return count, text


def _custom_ids(components: Any, at: Path, add: Add, seen: set[str]) -> None:
    for path, comp in _walk(components, at):
        kind = comp.get("type")
        if kind not in INTERACTIVE:
            continue
        custom_id = comp.get("custom_id")
        style = comp.get("style")
        if kind == BUTTON and style == LINK:
            if not comp.get("url"):
                add((*path, "url"), "a link button needs a url")
            if custom_id is not None:
                add((*path, "custom_id"), "a link button takes no custom_id")
            continue
        if kind == BUTTON and style == PREMIUM:
            continue
        if kind == BUTTON and not comp.get("label") and not comp.get("emoji"):
            add(path, "a button needs a label or an emoji")
        if not isinstance(custom_id, str) or not custom_id:
            add((*path, "custom_id"), "required on an interactive component")
        elif custom_id in seen:
            add((*path, "custom_id"), f"custom_id {custom_id!r} is used twice in one message")
        else:
            seen.add(custom_id)
        if kind == STRING_SELECT:
            _select(comp, path, add)


def _select(comp: dict[str, Any], at: Path, add: Add) -> None:
    options = comp.get("options") or []
    if not isinstance(options, list):
        return
    low, high = comp.get("min_values", 1), comp.get("max_values", 1)
    if isinstance(low, int) and isinstance(high, int):
        if low > high:
            add((*at, "min_values"), f"min_values ({low}) above max_values ({high})")
        if high > len(options):
            add((*at, "max_values"), f"max_values ({high}) above the number of options ({len(options)})")
    values = [o.get("value") for o in options if isinstance(o, dict)]
    if len(set(map(str, values))) != len(values):
        add((*at, "options"), "option values must be unique")


# ----------------------------------------------------------------------------------------------- commands


def chat_name_ok(name: Any) -> bool:
    """A chat-input command's or an option's name: 1-32 letters (lower-case where a case exists), digits,
    ``-``, ``_`` or ``'``, Devanagari or Thai (``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``)."""
    if not isinstance(name, str) or not 1 <= len(name) <= 32:
        return False
    for ch in name:
        if ch in "-_'":
            continue
        if "\u0900" <= ch <= "\u097f" or "\u0e00" <= ch <= "\u0e7f":
            continue
        if unicodedata.category(ch)[0] not in "LN" or ch.lower() != ch:
            return False
    return True


def _commands(body: list[Any], add: Add, locales: frozenset[str]) -> None:
    by_type: dict[int, list[str]] = {}
    for i, command in enumerate(body):
        if not isinstance(command, dict):
            continue
        kind = command.get("type") or CHAT_INPUT
        names = by_type.setdefault(kind, [])
        name = str(command.get("name"))
        if name in names:
            add((i, "name"), f"two commands of type {kind} are named {name!r}")
        names.append(name)
        _command(command, (i,), kind, add, locales)
    for kind, names in by_type.items():
        most = COMMANDS_MAX.get(kind)
        if most is not None and len(names) > most:
            add((), f"at most {most} commands of type {kind} (it has {len(names)})")


def _command(command: dict[str, Any], at: Path, kind: int, add: Add, locales: frozenset[str]) -> None:
    chat = kind == CHAT_INPUT
    _text(command, at, add, locales, chat=chat, described=kind in (CHAT_INPUT, ENTRY_POINT))
    if not chat:  # a user or message command's name: 1-32 characters, any case, spaces too
        names = [(None, command.get("name")), *((command.get("name_localizations") or {}).items())]
        for locale, name in names:
            if not (isinstance(name, str) and 1 <= len(name) <= MENU_NAME_MAX):
                path = (*at, "name") if locale is None else (*at, "name_localizations", locale)
                add(path, f"{name!r}: a user or message command's name has 1-{MENU_NAME_MAX} characters")
        if kind in (USER, MESSAGE) and command.get("description"):
            add((*at, "description"), "a user or message command takes an empty description")
        if command.get("options"):
            add((*at, "options"), "options are for chat-input commands only")
        return
    _options(command.get("options"), (*at, "options"), add, locales)
    size = _characters(command)
    if size > COMMAND_CHARACTERS_MAX:
        add(at, f"at most {COMMAND_CHARACTERS_MAX} characters a command (it has {size})")


def _text(
    item: dict[str, Any], at: Path, add: Add, locales: frozenset[str], *, chat: bool, described: bool
) -> None:
    """A name and description with their localizations, under the naming rule and for known locales."""
    for key in ("name_localizations", "description_localizations"):
        table = item.get(key) or {}
        if isinstance(table, dict):
            for locale in table:
                if locale not in locales:
                    add((*at, key, locale), f"{locale!r} is not one of Discord's locales")
    for locale, name in [(None, item.get("name")), *((item.get("name_localizations") or {}).items())]:
        if chat and not chat_name_ok(name):
            path = (*at, "name") if locale is None else (*at, "name_localizations", locale)
            add(path, f"{name!r} breaks the naming rule (1-32 lower-case letters, digits, - _ ')")
    if described:
        described_text = [item.get("description"), *(item.get("description_localizations") or {}).values()]
        for text in described_text:
            if not isinstance(text, str) or not 1 <= len(text) <= 100:
                add((*at, "description"), f"a description of 1-100 characters (it is {text!r})")


def _options(options: Any, at: Path, add: Add, locales: frozenset[str]) -> None:
    if not isinstance(options, list):
        return
    names: set[str] = set()
    optional_seen = False
    for j, option in enumerate(options):
        if not isinstance(option, dict):
            continue
        here = (*at, j)
        _text(option, here, add, locales, chat=True, described=True)
        name = str(option.get("name"))
        if name in names:
            add((*here, "name"), f"two options are named {name!r}")
        names.add(name)
        if option.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
            _options(option.get("options"), (*here, "options"), add, locales)
            continue
        if option.get("required"):
            if optional_seen:
                add((*here, "required"), "required options come before optional ones")
        else:
            optional_seen = True
        if option.get("autocomplete") and option.get("choices"):
            add((*here, "autocomplete"), "autocomplete may not be set beside choices")
        low, high = option.get("min_value"), option.get("max_value")
        if isinstance(low, int | float) and isinstance(high, int | float) and low > high:
            add((*here, "min_value"), f"min_value ({low}) above max_value ({high})")
        for k, choice in enumerate(option.get("choices") or []):
            if isinstance(choice, dict):
                _text(choice, (*here, "choices", k), add, locales, chat=False, described=False)


def _longest(item: dict[str, Any], key: str) -> int:
    """The length of a field counted toward a command's size: its longest localization, the default
    included."""
    values = [item.get(key), *((item.get(f"{key}_localizations") or {}).values())]
    return max((len(str(v)) for v in values if v is not None), default=0)


def _characters(item: dict[str, Any]) -> int:
    """A command's size: names, descriptions, and its options' and choices' (choice values too)."""
    total = _longest(item, "name") + _longest(item, "description")
    for option in item.get("options") or []:
        if isinstance(option, dict):
            total += _characters(option)
            for choice in option.get("choices") or []:
                if isinstance(choice, dict):
                    total += _longest(choice, "name") + len(str(choice.get("value", "")))
    return total
