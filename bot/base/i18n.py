"""Every word a player reads, in their language: one message catalog per language, one way to look text up.

The catalogs are gettext ``.po`` files in ``bot/locales/<language>/`` (one file per part of the bot: the
shared tables, each game, the slash commands, the deck), read with Babel. gettext's format because it is the
one translators' tools (Poedit, Weblate, Crowdin) all read, it has plural forms per language, and Babel —
maintained, pure Python, in Debian — parses it and knows each language's plural rule; no compile step and no
``.mo`` files: the ``.po`` files are loaded as they are.

Messages are looked up by id (``"bhargage.call.fifteen"``), not by their English text, so English is a catalog
like any other and rewording it never breaks a translation. Text has named ``{placeholders}``; ``tn`` picks a
plural form by a count (``{n}``). The language is the one in force for the current task (:func:`speaking`):
the clicking player's for private text, the server's for the channel. A language the bot lacks, an id a
catalog lacks, or a translation that does not fill the same placeholders falls back to English with a
warning in the log — a player never sees a raw id or a crash.
"""

from __future__ import annotations

import gettext
import logging
import re
import string
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from babel.lists import format_list
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

log = logging.getLogger("tavern.i18n")

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"
ENGLISH = "en"
LANGUAGES = ("en", "it")  # what the bot speaks; the first is the fallback
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)+$")

_current: ContextVar[str] = ContextVar("tavern_language", default=ENGLISH)
_warned: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Entry:
    """One message: its forms (one, or one per plural category of the language), where it is written, and
    whether it is a plural message (``msgid_plural``)."""

    forms: tuple[str, ...]
    source: str
    plural: bool = False


@dataclass
class Catalog:
    """One language's messages, read from every ``.po`` file in its folder."""

    language: str
    entries: dict[str, Entry]
    plural_index: Callable[[int], int]


def placeholders(text: str) -> frozenset[str]:
    """The named ``{placeholders}`` a text fills (``{{`` is a literal brace)."""
    names = set()
    for _, name, _, _ in string.Formatter().parse(text):
        if name is not None:
            names.add(re.split(r"[.\[!:]", name, maxsplit=1)[0])
    return frozenset(names)


def read_catalog(folder: Path, language: str) -> Catalog:
    """Read every ``*.po`` file in ``folder`` into one catalog; an id written twice is an error."""
    entries: dict[str, Entry] = {}
    plural_expr = "(n != 1)"
    for path in sorted(folder.glob("*.po")):
        with path.open("rb") as f:
            po = read_po(f, locale=language, domain=path.stem)
        plural_expr = po.plural_expr or plural_expr
        for message in po:
            if not message.id:
                continue
            plural = isinstance(message.id, tuple)
            if isinstance(message.id, tuple):
                msgid = message.id[0]
                forms = tuple(message.string) if isinstance(message.string, tuple | list) else ()
            else:
                msgid = str(message.id)
                forms = (message.string,) if isinstance(message.string, str) else ()
            source = f"{path.name}:{message.lineno}"
            if msgid in entries:
                raise ValueError(f"message id {msgid!r} is written twice ({entries[msgid].source}, {source})")
            if message.fuzzy or not all(forms):
                continue  # an untranslated or doubtful entry: English stands in for it
            entries[msgid] = Entry(forms, source, plural)
    return Catalog(language, entries, gettext.c2py(plural_expr))


_catalogs: dict[str, Catalog] = {}


def catalog(language: str) -> Catalog:
    """The catalog of one of ``LANGUAGES`` (read once)."""
    found = _catalogs.get(language)
    if found is None:
        found = read_catalog(LOCALES_DIR / language, language)
        _catalogs[language] = found
        if language != ENGLISH:
            _check_against_english(found)
    return found


def _check_against_english(cat: Catalog) -> None:
    """Drop (with a warning) translations that do not fill the same placeholders as the English text: the
    English text is shown for them instead."""
    english = catalog(ENGLISH).entries
    for msgid, entry in list(cat.entries.items()):
        source = english.get(msgid)
        if source is None:
            continue
        wanted, wrong = misfilled(source, entry)
        if wrong:
            log.warning(
                "The %s text of %r fills %s, not %s as in English: English is shown instead",
                cat.language,
                msgid,
                sorted(placeholders(wrong[0])) or "nothing",
                sorted(wanted),
            )
            del cat.entries[msgid]


def misfilled(english: Entry, entry: Entry) -> tuple[frozenset[str], list[str]]:
    """What the English text fills, and the forms of a translation that fill something else (a plural form
    may leave out the count, "una partita"; nothing else may be left out or added)."""
    wanted = frozenset().union(*(placeholders(f) for f in english.forms))
    return wanted, [f for f in entry.forms if placeholders(f) - {"n"} != wanted - {"n"}]


def _warn_once(kind: str, what: str, message: str, *args: Any) -> None:
    if (kind, what) not in _warned:
        _warned.add((kind, what))
        log.warning(message, *args)


# ------------------------------------------------------------------------------------------------ languages


def resolve(locale: object) -> str:
    """The language the bot speaks for a Discord locale (``"it"``, ``"en-GB"``, a ``discord.Locale``):
    one of ``LANGUAGES``, English for one it lacks (logged once per locale)."""
    code = str(getattr(locale, "value", locale) or "").strip()
    base = code.split("-")[0].lower()
    if base in LANGUAGES:
        return base
    if code:
        _warn_once("locale", code, "No catalog for locale %r: English is used for it", code)
    return ENGLISH


def current() -> str:
    """The language in force for this task."""
    return _current.get()


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """Text looked up inside this block is in ``language`` (one of ``LANGUAGES``; anything else → English)."""
    token = _current.set(resolve(language))
    try:
        yield
    finally:
        _current.reset(token)


def use(language: str) -> None:
    """Make ``language`` the one in force for the rest of this task: called where a task starts handling one
    player's interaction (each runs in its own task), so everything it answers is in that player's
    language unless a block says otherwise (the channel's text, another seat's panel)."""
    _current.set(resolve(language))


# ------------------------------------------------------------------------------------------------ lookup


def t(msgid: str, /, **params: Any) -> str:
    """The message ``msgid`` in the current language, its ``{placeholders}`` filled from ``params``."""
    return _say(msgid, None, params)


def tn(msgid: str, n: int, /, **params: Any) -> str:
    """The plural message ``msgid`` in the form the current language uses for ``n`` (``{n}`` is ``n``)."""
    return _say(msgid, n, {"n": n, **params})


def say(msgid: str, /, **params: Any) -> str:
    """A message whose id a value carried here (an error): the id was checked where the value was made. An
    integer ``n`` among the values picks a plural form, as ``tn`` does."""
    n = params.get("n")
    return _say(msgid, n if isinstance(n, int) and not isinstance(n, bool) else None, params)


def named(family: str, key: str, /, **params: Any) -> str:
    """A message from a family of ids made of a fixed part and a key from a closed set (``"suit"``,
    ``"moons"`` → ``"suit.moons"``): card names, suits, ranks, option words. The catalog check knows each
    family's keys (``bot.cli.i18n_check.FAMILIES``)."""
    return _say(f"{family}.{key}", None, params)


def _say(msgid: str, n: int | None, params: Mapping[str, Any]) -> str:
    language = current()
    if language != ENGLISH:
        text = _render(catalog(language), msgid, n, params)
        if text is not None:
            return text
    text = _render(catalog(ENGLISH), msgid, n, params)
    if text is not None:
        return text
    log.error("Message %r is missing from the English catalog", msgid)
    fallback = catalog(ENGLISH).entries.get("tavern.text-missing")
    return fallback.forms[0] if fallback else "…"


def _render(cat: Catalog, msgid: str, n: int | None, params: Mapping[str, Any]) -> str | None:
    entry = cat.entries.get(msgid)
    if entry is None:
        if cat.language != ENGLISH:
            _warn_once(
                cat.language, msgid, "Message %r has no %s text: English is shown", msgid, cat.language
            )
        return None
    if n is None:
        form = entry.forms[0]
    else:
        index = cat.plural_index(abs(n))
        form = entry.forms[min(index, len(entry.forms) - 1)]
    try:
        return form.format_map(params)
    except (KeyError, IndexError, ValueError, AttributeError) as err:
        log.warning("Message %r in %s could not be filled (%r): %s", msgid, cat.language, err, sorted(params))
        return None


class Said(Exception):
    """An error whose text is a message: it carries the id and what fills it, and ``str(err)`` is the sentence
    in the language in force where it is shown (the base of the services' refusals; the rules' refusals are
    plain data, made sentences by ``bot.render.refusals.said``)."""

    def __init__(self, msgid: str, /, **params: Any) -> None:
        super().__init__(msgid)
        self.msgid = msgid
        self.params = params

    def __str__(self) -> str:
        return say(self.msgid, **self.params)


class _Listing:
    """Items joined as the language in force joins a list ("A, B and C"; "A o B"), when formatted."""

    def __init__(self, items: tuple[str, ...], style: str) -> None:
        self.items = items
        self.style = style

    def __format__(self, spec: str) -> str:
        if not self.items:
            return ""
        return format_list(list(self.items), style=self.style, locale=current())  # type: ignore[arg-type]

    def __str__(self) -> str:
        return self.__format__("")


def number(x: float, digits: int = 1, *, signed: bool = False) -> str:
    """A decimal as the language in force writes it ("0.6" in English, "0,6" in Italian), with a true minus
    sign, and a plus sign when ``signed`` (a gain or a loss)."""
    text = format_decimal(round(x, digits), format=f"0.{'0' * digits}", locale=current())
    text = text.replace("-", "−")
    return f"+{text}" if signed and not text.startswith("−") else text


def both(items: Iterable[str]) -> Any:
    """A placeholder value: ``items`` as a list ending in "and" in the language the text is shown in."""
    return _Listing(tuple(items), "standard")


def either(items: Iterable[str]) -> Any:
    """A placeholder value: ``items`` as a list ending in "or" in the language the text is shown in."""
    return _Listing(tuple(items), "or")


@dataclass(frozen=True, init=False)
class Msg:
    """A message to look up later, in whatever language is in force then (an error raised in one place and
    shown in another; a note written for several players)."""

    msgid: str
    params: tuple[tuple[str, Any], ...]

    def __init__(self, msgid: str, /, **params: Any) -> None:
        object.__setattr__(self, "msgid", msgid)
        object.__setattr__(self, "params", tuple(params.items()))

    def __str__(self) -> str:
        return say(self.msgid, **dict(self.params))
