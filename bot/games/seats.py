"""Computer players' seats: a seat's user id says whether a person or the bot plays it, and at what level.

Discord user ids are positive snowflakes, so negative ids are free for bot seats: ``-(100·(level+1) + n)``
(n = 0–9, one id per bot seat of a table). The level travels with the seat through the store, restarts and
rematches without a schema change, and a bot seat never collides with a person.

A member who asked to be forgotten (``/tavern forget-me``) is replaced in every stored row by a pseudonym: a
random id of ``FORGOTTEN``, ids no Discord account can have (a snowflake's bits above the lowest 22 count the
milliseconds since 2015-01-01, and these fall in its first 19 hours, months before Discord's first id). It is
positive, so every query still counts the seat as a person's (their opponents' records read as before), and
nothing derives it from the member's id.
"""

from __future__ import annotations

from bot.ai import LEVELS, Level
from bot.base.i18n import t
from bot.render.levels import level_name

_STEP = 100
MAX_BOTS = 10
FORGOTTEN = range(1 << 22, 1 << 48)  # forgotten members' pseudonyms
# Each seat's colour on its private panel (a layout's accent), told apart at a glance; and the table's own
# (its board, summary and lobby). Blue, red, green, amber, violet, teal, felt green.
ACCENTS = (0x3B82F6, 0xE11D48, 0x16A34A, 0xF59E0B, 0x9333EA, 0x0891B2)
TABLE_ACCENT = 0x1F8B4C


def accent(seat: int) -> int:
    """The colour of a seat's private panel."""
    return ACCENTS[seat % len(ACCENTS)]


def is_bot(user_id: int) -> bool:
    """Whether this seat id is a computer player's."""
    return user_id < 0


def is_forgotten(user_id: int) -> bool:
    """Whether this seat id is a forgotten member's pseudonym (nobody answers to it any more)."""
    return user_id in FORGOTTEN


def bot_id(level: Level, n: int) -> int:
    """The seat id of a table's ``n``-th bot (0-based) at ``level``."""
    if not 0 <= n < MAX_BOTS:
        raise ValueError("a table has at most ten bot seats")
    return -(_STEP * (LEVELS.index(level) + 1) + n)


def level_of(user_id: int) -> Level:
    """The level of a bot seat id (an unknown one plays as the middle level)."""
    index = -user_id // _STEP - 1
    return LEVELS[index] if 0 <= index < len(LEVELS) else LEVELS[1]


def bot_name(level: Level, n: int) -> str:
    """The name stored for the bot's seat: "Bot (hard)", then "Bot 2 (hard)" for a second one. Players read it
    in their language (:func:`shown`)."""
    return f"Bot ({level})" if n == 0 else f"Bot {n + 1} ({level})"  # i18n: not text (stored; see shown)


def shown(user_id: int, name: str) -> str:
    """A seat's name as players read it: a person's own name, or the bot's in the language in force."""
    if not is_bot(user_id):
        return name
    n, level = -user_id % _STEP, level_name(level_of(user_id))
    return t("tavern.bot-name", level=level) if n == 0 else t("tavern.bot-name-n", number=n + 1, level=level)


def next_bot(taken: list[int] | tuple[int, ...], level: Level) -> tuple[int, str]:
    """The id and name of one more bot at a table whose seats are ``taken``."""
    used = {-u % _STEP for u in taken if is_bot(u)}
    n = next(i for i in range(MAX_BOTS) if i not in used)
    return bot_id(level, n), bot_name(level, n)
