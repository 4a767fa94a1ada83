"""Lists inside a sentence as the Deluxe catalog joins them ("a, b and c"; "a and b and c" for names tied
or winning together), in the language in force."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from bot.base.i18n import t


def word_list(words: Sequence[str], last: Literal["and", "or"] = "and") -> str:
    """``a``, ``a and b``, ``a, b and c`` (or ``or``) in the language in force: a list in a sentence."""
    if len(words) == 1:
        return words[0]
    head = ", ".join(words[:-1])
    if last == "or":
        return t("deluxe.list.or", items=head, last=words[-1])
    return t("deluxe.list.and", items=head, last=words[-1])


def chain(words: Sequence[str]) -> str:
    """``a and b and c`` in the language in force (names of players tied or winning together)."""
    out = words[0] if words else ""
    for w in words[1:]:
        out = t("deluxe.list.and", items=out, last=w)
    return out
