"""The line grammar of a game record (``bot.services.game_record``, ``docs/RECORD.md``): how one header's
value is quoted and read back, what each header may hold, and how the table's calls become comment lines.

A record file is hostile input (anyone can hand the bot one), so reading is strict and bounded: a header is
``[Key "value"]`` exactly, a value holds only the escapes the writer makes (``\\\\``, ``\\"``, ``\\uXXXX``,
``\\UXXXXXXXX``), and no line carries a control, format or line-separator character raw — a name can't
break out of its line, forge a header or turn the text around it. Nothing here runs what it reads.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from bot.base.refusals import UserFacingError
from bot.render.suits import EMOJI_NAMES

FORMAT = "decktet-tavern-record"  # i18n: not text (the format's name, in its first header)
MAX_BYTES = 1 << 20  # a record is a few KB; a long six-player game with its calls, ~150 KB
MAX_LINES = 100_000
MAX_LINE = 4096  # characters: a header of a 256-character name, each character escaped, still fits
MAX_NAME = 256
MAX_TEXT = 256  # the How header, and any other free text
MAX_SEATS = 10
MAX_MOVES = 100_000
JOINERS = frozenset("\u200c\u200d")  # kept in comments: emoji sequences and some scripts need them
HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})  # never raw in a record: escaped in values, cut from calls
BREAK = "\u200b"  # the zero-width space ``bot.base.safe`` puts into names and forms

HEADER = re.compile(r'\[([A-Z][A-Za-z0-9]{0,23}) "((?:[^"\\]|\\.)*)"\]')
_ESCAPE = re.compile(r'\\(?:(["\\])|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))')
_VALUE = re.compile(r'(?:[^\\]|\\(?:["\\]|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}))*')
_MARKDOWN_ESCAPE = re.compile(r"\\([\\*_~`|\]#>+.\-])")
_EMOJI = re.compile(r"<a?:(\w{1,32}):\d{1,20}>")
_MENTION = re.compile(r"<@!?(\d{1,20})>")
_INT = r"0|-?[1-9][0-9]{0,5}"
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_OPTION = re.compile(r"([a-z][a-z0-9_]{0,31})=(true|false|0|-?[1-9][0-9]{0,8})")
SEED = re.compile(r"0|-?[1-9][0-9]{0,19}")
COUNT = re.compile(r"0|[1-9][0-9]{0,5}")
GAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
SEAT_KEY = re.compile(r"Seat([0-9])(Bot)?")
HAND_LINE = re.compile(r"Hand ([1-9][0-9]{0,4})")
MOVE_LINE = re.compile(r"([1-9][0-9]{0,5})\. ([A-Za-z0-9][A-Za-z0-9 ,\-]{0,199})")  # Cribbage's cards: 5H
NONE = "*"  # a Result, Winners or How the game does not have (abandoned, or still being played)


class RecordError(UserFacingError):
    """A record refused, or one that does not reproduce: ``str(err)`` says where and why, in the language in
    force. Never a crash, whatever the file holds."""


# ---------------------------------------------------------------- quoting


def hidden(ch: str) -> bool:
    """A character that must not stand raw in a record: controls, format characters (bidi overrides,
    zero-width ones), surrogates, line and paragraph separators."""
    return unicodedata.category(ch) in HIDDEN


def quote(value: str) -> str:
    """A header value as written between its quotes: ``"`` and ``\\`` escaped, every hidden character as
    ``\\uXXXX`` (or ``\\UXXXXXXXX``), so the value stays on its line and shows what it holds."""
    out: list[str] = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif hidden(ch):
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def unquote(raw: str, line: int) -> str:
    """A header value read back: only the escapes :func:`quote` writes; a code point that is no character
    (a surrogate, beyond U+10FFFF) is refused."""
    if not _VALUE.fullmatch(raw):
        raise RecordError("record.bad-header", line=line)

    def one(match: re.Match[str]) -> str:
        if match[1]:
            return match[1]
        code = int(match[2] or match[3], 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise RecordError("record.bad-header", line=line)
        return chr(code)

    return _ESCAPE.sub(one, raw)


def header_line(key: str, value: str) -> str:
    return f'[{key} "{quote(value)}"]'


# ---------------------------------------------------------------- values


def read_int(key: str, value: str, pattern: re.Pattern[str] = COUNT) -> int:
    if not pattern.fullmatch(value):
        raise RecordError("record.bad-value", key=key)
    return int(value)


def read_ints(key: str, value: str) -> tuple[int, ...] | None:
    """Numbers separated by single spaces (scores, winning seats), or None for ``*``."""
    if value == NONE:
        return None
    if not re.fullmatch(rf"(?:{_INT})(?: (?:{_INT})){{0,{MAX_SEATS - 1}}}", value):
        raise RecordError("record.bad-value", key=key)
    return tuple(int(v) for v in value.split(" "))


def write_ints(values: tuple[int, ...] | None) -> str:
    return NONE if values is None else " ".join(str(v) for v in values)


def read_text(key: str, value: str, most: int = MAX_TEXT) -> str:
    """Free text (a name, how a game ended): non-empty, bounded."""
    if not value.strip() or len(value) > most:
        raise RecordError("record.bad-value", key=key)
    return value


def read_date(key: str, value: str) -> float:
    """``2025-03-01T18:04:05Z`` (UTC, to the second) as epoch seconds."""
    if not _DATE.fullmatch(value):
        raise RecordError("record.bad-value", key=key)
    try:
        when = datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        raise RecordError("record.bad-value", key=key) from None
    return when.timestamp()


def write_date(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_options(value: str) -> tuple[tuple[str, bool | int], ...]:
    """``courts=false fast_start=0 target=100``: names in order, each once, values true, false or whole
    numbers (what the engines' options are)."""
    if value == "":
        return ()
    out: list[tuple[str, bool | int]] = []
    for item in value.split(" "):
        match = _OPTION.fullmatch(item)
        if match is None or (out and match[1] <= out[-1][0]):
            raise RecordError("record.bad-value", key="Options")
        raw = match[2]
        out.append((match[1], raw == "true" if raw in ("true", "false") else int(raw)))
    return tuple(out)


def write_options(options: Mapping[str, object]) -> str:
    """Options in their one stable spelling, names sorted; a kind of value the format lacks is a bug."""
    items: list[str] = []
    for name, value in sorted(options.items()):
        if isinstance(value, bool):
            items.append(f"{name}={'true' if value else 'false'}")
        elif isinstance(value, int):
            items.append(f"{name}={value}")
        else:
            raise TypeError(f"option {name}={value!r}: a record holds booleans and whole numbers only")
    return " ".join(items)


def read_bot(key: str, value: str, levels: tuple[str, ...]) -> tuple[str, int]:
    """A bot seat's mark: its level and its number among the table's bots (``hard 2`` is "Bot 2 (hard)")."""
    level, _, number = value.partition(" ")
    if level not in levels or not re.fullmatch(r"[1-9]|10", number):
        raise RecordError("record.bad-value", key=key)
    return level, int(number)


# ---------------------------------------------------------------- lines


def split_lines(data: bytes | str) -> list[str]:
    """The file's lines, once its size, encoding and characters pass: at most ``MAX_BYTES``, UTF-8 (a
    leading byte-order mark dropped), ``\\n`` or ``\\r\\n`` line ends, no line over ``MAX_LINE``
    characters, no hidden character raw (joiners aside)."""
    if isinstance(data, str):
        if len(data) > MAX_BYTES:  # characters: checked again as bytes below
            raise RecordError("record.too-big", most=MAX_BYTES // 1024)
        data = data.encode("utf-8", "surrogatepass")
    if len(data) > MAX_BYTES:
        raise RecordError("record.too-big", most=MAX_BYTES // 1024)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError("record.not-text") from None
    lines = text.removeprefix("\ufeff").split("\n")
    if len(lines) > MAX_LINES:
        raise RecordError("record.too-many-lines", most=MAX_LINES)
    out: list[str] = []
    for number, line in enumerate(lines, 1):
        line = line.removesuffix("\r").rstrip(" ")
        if len(line) > MAX_LINE:
            raise RecordError("record.line-too-long", line=number, most=MAX_LINE)
        if any(hidden(ch) and ch not in JOINERS for ch in line):
            raise RecordError("record.hidden-character", line=number)
        out.append(line)
    return out


def readable(name: str) -> str:
    """A stored name as people read it: Discord's markdown escapes and the zero-width spaces that
    ``bot.base.safe`` put in, taken out again."""
    return _MARKDOWN_ESCAPE.sub(r"\1", name).replace(BREAK, "")


def legible(text: str) -> str:
    """A stored text as people read it: :func:`readable`, and hidden characters cut but for the joiners
    emoji need."""
    return "".join(ch for ch in readable(text) if not hidden(ch) or ch in JOINERS)


def plain(text: str, names: Callable[[int], str]) -> list[str]:
    """What the channel was told as plain lines: no bold, underline, subtext marks or code fences; suit
    emojis as their symbols; names unescaped; hidden characters cut; blank lines dropped."""
    suits = {name: suit.emoji for suit, name in EMOJI_NAMES.items()}
    text = _MENTION.sub(lambda m: names(int(m[1])), text)
    text = _EMOJI.sub(lambda m: suits.get(m[1], f":{m[1]}:"), text)
    text = text.replace("**", "").replace("__", "")
    out: list[str] = []
    for line in text.split("\n"):
        if line.startswith("```"):
            continue
        line = legible(line.removeprefix("-# ")).rstrip(" ")
        if line.strip():
            out.append(line[: MAX_LINE - 2])
    return out
