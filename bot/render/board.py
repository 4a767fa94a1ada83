"""A cribbage-style board as plain text, for any game whose score runs from a start number to a target."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.pictures import street_marks

TRACK = "─"
FRONT = "●"
BACK = "○"
MARK = "┼"
NAME_WIDTH = 16  # the longest name beside its lane (with the 31 holes and the score, a line of about 52)


@dataclass(frozen=True)
class Lane:
    """One player's row: the front peg (the score) and the back peg (the score before the last peg)."""

    name: str
    front: int
    back: int | None = None


def _column(score: int, start: int, target: int, width: int) -> int:
    """Where a score sits on a lane of ``width`` holes: ``start`` at 0, ``target`` at the last hole."""
    span = max(target - start, 1)
    clamped = min(max(score, start), target)
    return round((clamped - start) * (width - 1) / span)


def draw_board(lanes: Sequence[Lane], start: int, target: int, *, width: int = 31) -> str:
    """One line per lane, ``start`` on the left and ``target`` on the right, the street marks between: the
    holes the picture's board marks too (30, 60 and 90 on a 121 board, ``bot.pictures.street_marks``).

    The front peg wins a shared hole; the back peg shows how far the last score moved (as on a real board).
    Names fit beside their lanes; when one is longer (a partnership, "Ann & Bot 2 (normal)") every name
    has a line of its own above its lane, whole: a name is never cut.
    """
    name_w = max((len(lane.name) for lane in lanes), default=0)
    own_line = name_w > NAME_WIDTH
    if own_line:
        name_w = -1  # the lanes start at the left edge, under their names
    marks = {_column(m, start, target, width) for m in street_marks(target) if start < m < target}
    head = f"{'':<{name_w + 1}}{start:<{width // 2}}{target:>{width - width // 2}}"
    lines = [head]
    for lane in lanes:
        cells = [MARK if i in marks else TRACK for i in range(width)]
        if lane.back is not None and lane.back != lane.front:
            cells[_column(lane.back, start, target, width)] = BACK
        cells[_column(lane.front, start, target, width)] = FRONT
        if own_line:
            lines += [lane.name, f"{''.join(cells)} {lane.front}"]
        else:
            lines.append(f"{lane.name:<{name_w}} {''.join(cells)} {lane.front}")
    return "\n".join(lines)
