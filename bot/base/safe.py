"""Text that came from a user, made safe to show: one line, bounded, shown as the plain characters it is.

A display name or a typed card name is echoed in channel posts and replies. Without this a name could bold
half a board, ping someone, become a heading or subtext (event lines begin with a name), hide a link behind a
masked one or unfurl a preview of a bare one, show as a channel, a timestamp or an emoji, reverse the text
after it (bidi overrides), pile combining marks over the lines around it, look blank, or push a reply past
Discord's 2,000 characters. Markdown is escaped with backslashes (Discord shows the character alone); forms
Discord reads as something else (mentions, links, invites, ``<#…>``, ``<t:…>``, ``<:…:…>``) are broken
with an invisible zero-width space, which also shows nothing where markdown is not read (button labels).
Pure, standard library only: the rules engines use it for the text their errors quote.
"""

from __future__ import annotations

import re
import unicodedata

NAME_LIMIT = 32
QUOTE_LIMIT = 40
MARKS = 2  # combining marks kept on one character: any script's accents, never a flood over the lines around
BREAK = "\u200b"  # zero-width space: put inside a form so that Discord no longer reads it

# Characters that draw nothing yet are not whitespace: a name of them would look blank. Shown as spaces.
BLANKS = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0\U0001d159")
# Format characters kept: the joiners that emoji sequences and some scripts need. Every other one goes
# (bidi controls such as U+202E, zero-width spaces, the word joiner, the byte-order mark, tag characters).
JOINERS = frozenset("\u200c\u200d")

_MARKDOWN = re.compile(r"([\\*_~`|])")
_SPACE = re.compile(r"\s+")
_MASKED = re.compile(r"\](?=\(|$)")  # the "](" of a masked link, or a "]" that a "(" after the name completes
_LINE_START = re.compile(r"^(#{1,3}|-#|[-+]|>{1,3})(?=\s|$)")  # a heading, subtext, list or quote
_NUMBERED = re.compile(r"^(\d{1,9})\.(?=\s|$)")  # a numbered list
_FORMS = re.compile(r"<(?=[#@/:]|a:|t:|id:)")  # <#channel>, <@user>, </command:id>, <:emoji:id>, <t:…>
_LINK = re.compile(r"(?<=[0-9A-Za-z]):(?=//)")  # https://, and any scheme
_INVITE = re.compile(r"(?i)(?<=discord)(?=\.gg\b)|(?<=discordapp)(?=\.com\b)|(?<=discord)(?=\.com\b)")


def _characters(text: str) -> str:
    """The characters worth showing: composed (NFC); control and format characters out (line breaks and blank
    look-alikes become spaces); at most ``MARKS`` combining marks on one character."""
    out: list[str] = []
    marks = 0
    for ch in unicodedata.normalize("NFC", text):
        kind = unicodedata.category(ch)
        if ch in BLANKS or kind == "Cc":
            ch, marks = " ", 0
        elif kind in ("Cf", "Cs") and ch not in JOINERS:
            continue
        elif kind in ("Mn", "Me"):
            marks += 1
            if marks > MARKS:
                continue
        else:
            marks = 0
        out.append(ch)
    return "".join(out)


def _visible(ch: str) -> bool:
    """Whether the character draws something on its own (a letter, digit, symbol or punctuation)."""
    return unicodedata.category(ch)[0] not in "MZC" and ch not in BLANKS


def plain(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as one line of at most ``limit`` characters that Discord shows as those characters: markdown
    escaped, mentions, links and other forms broken, invisible and direction-changing characters removed.
    Empty when nothing visible is left."""
    line = _SPACE.sub(" ", _characters(text)).strip()
    if not any(_visible(ch) for ch in line):
        return ""
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    line = _MARKDOWN.sub(r"\\\1", line)
    line = _MASKED.sub(r"\\]", line)
    line = _LINE_START.sub(r"\\\1", line)
    line = _NUMBERED.sub(r"\1\\.", line)
    line = _FORMS.sub("<" + BREAK, line)
    line = _LINK.sub(":" + BREAK, line)
    line = _INVITE.sub(BREAK, line)
    return line.replace("@", "@" + BREAK)


def name(text: str, *fallbacks: str) -> str:
    """A display name as the bot shows it; never empty: the first of ``text`` and ``fallbacks`` (a member's
    username, which Discord keeps to plain letters) with something visible, else "?"."""
    for candidate in (text, *fallbacks):
        shown = plain(candidate, NAME_LIMIT)
        if shown:
            return shown
    return "?"
