"""A coach's hint as its lines and the options they speak of, so every client can name an option the way its
panel shows it: Discord by the button's or the menu option's label (the text says it), the terminal by the
numbers it printed (:class:`bot.base.panel.Pick` for each line that is an option of the panel).

An option's line starts with a bullet, never with a number: "1." in a hint would read as the menu's first
choice, which is something else (typing it once handed the opponent 15 for 2)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.base.i18n import number, t, tn
from bot.base.panel import Pick

BULLET = "• "


@dataclass
class Hint:
    """The lines of one hint, built in order; ``picks`` are (line index, option) for the option lines."""

    lines: list[str] = field(default_factory=list)
    picks: list[tuple[int, Pick]] = field(default_factory=list)

    def add(self, line: str) -> None:
        """A line that is no option (a heading, a reason, the key)."""
        self.lines.append(line)

    def option(self, line: str, pick: Pick | None = None) -> None:
        """An option's line, bulleted; ``pick``: how the panel offers it now (None: not on this panel yet,
        as a discard that comes after a bind)."""
        if pick is not None:
            self.picks.append((len(self.lines), pick))
        self.lines.append(BULLET + line)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


MESSAGE_LIMIT = 1900  # a calculator's answer is one Discord message


def fitted(build: Callable[[int], Hint], options: int) -> str:
    """A list of ``options`` built by ``build(limit)`` as text within one message: the fewest options
    dropped from its end, and a line saying how many (a calculator lists every choice when it can)."""
    limit = options
    text = build(limit).text
    while len(text) > MESSAGE_LIMIT and limit > 1:
        limit -= 1
        text = build(limit).text + "\n" + tn("general.hint.more", options - limit)
    return text


# Chances said as a teacher says them: the nearest of these simple fractions.
_FRACTIONS = ((1, 10), (1, 8), (1, 6), (1, 5), (1, 4), (1, 3), (2, 5), (1, 2), (3, 5), (2, 3), (3, 4), (4, 5))


def odds(chance: float) -> str:
    """A chance in words: "about 1 in 4", "a slim chance" (under 5%), "almost surely" (over 90%)."""
    if chance < 0.05:
        return t("general.odds.slim")
    if chance > 0.9:
        return t("general.odds.sure")
    k, n = min(_FRACTIONS, key=lambda f: abs(f[0] / f[1] - chance))
    return t("general.odds.about", k=k, n=n)


def thought_line(seconds: float) -> str:
    """The last line of a hint from the expert's weighing: whose it is and how long it thought."""
    return "-# " + t("general.coach.expert", seconds=number(max(seconds, 0.1), 1))
