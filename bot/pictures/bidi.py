"""The part of the Unicode bidirectional algorithm (UAX #9) that one line of a picture needs: the pictures are
laid out left to right (their words are English or Italian), and a name in Arabic or Hebrew inside them reads
right to left. A name comes wrapped in FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE (``isolate``), so it
takes its own direction from its first letter and never reorders the words around it ("مريم's hand: 4").

Implemented: isolates (LRI, RLI, FSI, PDI), the weak-type rules for numbers and marks (W1–W7), the neutral
rules (N1–N2), the implicit levels (I1–I2) and reordering (L2). Embeddings and overrides (LRE, RLO, …) are
dropped before this (``text.clean``), and a line is one paragraph, so no line-breaking rules."""

from __future__ import annotations

import unicodedata

LRI, RLI, FSI, PDI = "\u2066", "\u2067", "\u2068", "\u2069"
OPENERS = frozenset((LRI, RLI, FSI))
CONTROLS = frozenset((LRI, RLI, FSI, PDI))
_NEUTRAL = frozenset(("B", "S", "WS", "ON", "BN"))


def isolate(text: str) -> str:
    """``text`` as a unit of its own direction inside a line (a player's name in a caption)."""
    return f"{FSI}{text}{PDI}"


def _strong(kind: str) -> str | None:
    if kind == "L":
        return "L"
    if kind in ("R", "AL"):
        return "R"
    return None


def _closing(text: str, i: int, end: int) -> int:
    """The index of the PDI that closes the isolate opened at ``i``, or ``end`` when it is never closed."""
    depth = 0
    for j in range(i, end):
        if text[j] in OPENERS:
            depth += 1
        elif text[j] == PDI:
            depth -= 1
            if depth == 0:
                return j
    return end


def first_strong(text: str, start: int = 0, end: int | None = None) -> str | None:
    """ "L" or "R" for the first strong letter of ``text[start:end]`` outside nested isolates (rule P2)."""
    end = len(text) if end is None else end
    i = start
    while i < end:
        ch = text[i]
        if ch in OPENERS:
            i = _closing(text, i, end) + 1
            continue
        strong = _strong(unicodedata.bidirectional(ch))
        if strong:
            return strong
        i += 1
    return None


def levels(text: str, base: int = 0) -> list[int]:
    """The embedding level of every character of ``text`` in a paragraph at level ``base`` (0: left to
    right); the isolate marks get the level of the text around them."""
    out = [base] * len(text)
    _resolve(text, 0, len(text), base, out)
    return out


def _units(text: str, start: int, end: int, level: int, out: list[int]) -> tuple[list[int], list[str]]:
    """The positions and bidi types of one isolating run sequence; each nested isolate is resolved on the way
    and stands in the sequence as one neutral (its opener)."""
    where: list[int] = []
    kinds: list[str] = []
    i = start
    while i < end:
        ch = text[i]
        if ch in OPENERS:
            close = _closing(text, i, end)
            rtl = ch == RLI or (ch == FSI and first_strong(text, i + 1, close) == "R")
            inner = level + 1 if (level % 2 == 0) == rtl else level + 2
            _resolve(text, i + 1, close, inner, out)
            if close < end:
                out[close] = level
            where.append(i)
            kinds.append("ON")
            i = close + 1
            continue
        where.append(i)
        kinds.append("ON" if ch == PDI else unicodedata.bidirectional(ch))
        i += 1
    return where, kinds


def _weak(kinds: list[str], sos: str) -> None:
    """W1–W7, in place: marks take the type before them, numbers after Arabic letters are Arabic numbers,
    separators between numbers join them, and European numbers after Latin letters are Latin."""
    prev = sos
    for i, k in enumerate(kinds):
        kinds[i] = k = prev if k == "NSM" else k
        prev = k
    last = sos
    for i, k in enumerate(kinds):
        if k in ("L", "R", "AL"):
            last = k
        elif k == "EN" and last == "AL":
            kinds[i] = "AN"
    kinds[:] = ["R" if k == "AL" else k for k in kinds]
    for i in range(1, len(kinds) - 1):
        a, k, b = kinds[i - 1], kinds[i], kinds[i + 1]
        if (k == "ES" and a == b == "EN") or (k == "CS" and a == b and a in ("EN", "AN")):
            kinds[i] = a
    for i, k in enumerate(kinds):
        if k == "ET" and _next_to(kinds, i, "EN", "ET"):
            kinds[i] = "EN"
    last = sos
    for i, k in enumerate(kinds):
        if k in ("ES", "ET", "CS"):
            kinds[i] = "ON"
        elif k in ("L", "R"):
            last = k
        elif k == "EN" and last == "L":
            kinds[i] = "L"


def _next_to(kinds: list[str], i: int, wanted: str, through: str) -> bool:
    """Whether a run of ``through`` types around position ``i`` touches a ``wanted`` type."""
    for step in (-1, 1):
        j = i + step
        while 0 <= j < len(kinds) and kinds[j] == through:
            j += step
        if 0 <= j < len(kinds) and kinds[j] == wanted:
            return True
    return False


def _neutrals(kinds: list[str], sos: str, eos: str, level: int) -> None:
    """N1–N2, in place: a run of neutrals between two of one direction takes it; others the level's."""
    own = "R" if level % 2 else "L"
    i = 0
    while i < len(kinds):
        if kinds[i] not in _NEUTRAL:
            i += 1
            continue
        j = i
        while j < len(kinds) and kinds[j] in _NEUTRAL:
            j += 1
        before = sos if i == 0 else ("R" if kinds[i - 1] in ("R", "EN", "AN") else "L")
        after = eos if j == len(kinds) else ("R" if kinds[j] in ("R", "EN", "AN") else "L")
        kinds[i:j] = [before if before == after else own] * (j - i)
        i = j


def _resolve(text: str, start: int, end: int, level: int, out: list[int]) -> None:
    where, kinds = _units(text, start, end, level, out)
    own = "R" if level % 2 else "L"
    _weak(kinds, own)
    _neutrals(kinds, own, own, level)
    for pos, k in zip(where, kinds, strict=True):
        if level % 2 == 0:
            out[pos] = level + (1 if k == "R" else 2 if k in ("AN", "EN") else 0)
        else:
            out[pos] = level + (1 if k in ("L", "EN", "AN") else 0)


def visual(levels_: list[int]) -> list[int]:
    """The positions in the order they are seen, left to right (rule L2: from the highest level down to the
    lowest odd one, every run at that level or higher is reversed)."""
    order = list(range(len(levels_)))
    if not levels_:
        return order
    top = max(levels_)
    odd = [lv for lv in levels_ if lv % 2]
    if not odd:
        return order
    for lv in range(top, min(odd) - 1, -1):
        i = 0
        while i < len(order):
            if levels_[order[i]] < lv:
                i += 1
                continue
            j = i
            while j < len(order) and levels_[order[j]] >= lv:
                j += 1
            order[i:j] = reversed(order[i:j])
            i = j
    return order
