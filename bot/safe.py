"""Text that came from a user, made safe to show: one line, bounded, no markdown, no mentions.

A display name or a typed card name is echoed in channel posts and replies; without this a name could bold
half a board, ping @everyone-like mentions into a message, or push a reply past Discord's 2,000 characters.
Pure: the rules engines use it for the text their errors quote.
"""

from __future__ import annotations

import re

_MARKDOWN = re.compile(r"([\\*_~`|>])")
_SPACE = re.compile(r"\s+")
NAME_LIMIT = 32
QUOTE_LIMIT = 40


def plain(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as one line of at most ``limit`` characters, its markdown escaped and mentions defused."""
    line = _SPACE.sub(" ", text).strip()
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    line = _MARKDOWN.sub(r"\\\1", line)
    return line.replace("@", "@\u200b")


def name(text: str) -> str:
    """A display name as the bot shows it; never empty."""
    return plain(text, NAME_LIMIT) or "?"
