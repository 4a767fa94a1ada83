"""Per-user rate limits on what posts in a channel (opening tables, reposting a board) or costs work (the
calculators, a card drawn up close, the admin commands), so one member cannot flood a channel or the bot. Kept
on the bot's clock, so tests move time instead of sleeping.

A use is checked and counted in one step with no await in between: simultaneous commands cannot all pass the
check before any of them is counted. A command refused afterwards (a busy channel) gives its use back."""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterator

from bot.base.i18n import Msg
from bot.base.refusals import UserFacingError

# Limits that protect the bot and its channels rather than set a server's pace (those are settings).
ADMIN_PER_MINUTE = 10  # /tavern-admin end and settings, together
CARDS_PER_MINUTE = 10  # /tavern cards: a card up close is a picture to draw
BOARDS_PER_MINUTE = 3  # /… board: each one is a new message in the channel
TABLES_PER_MINUTE = 6  # /tavern tables: a read of the server's live games and up to 15 of them
REPLAYS_PER_MINUTE = 6  # /tavern replay: a game's whole log read and walked (its buttons then cost nothing)
EXPORTS_PER_MINUTE = 4  # /tavern export: a game's whole log read, walked and written as a file
FORGET_AFTER = 10_000  # users tracked before those whose uses have all expired are forgotten


class Cooldown:
    """At most ``rate`` uses per ``per`` seconds per user. ``what`` names the use in the refusal ("you can
    {what} again"): a message, ``Msg("general.cooldown.open-table")``."""

    def __init__(self, rate: int, per: float, clock: Callable[[], float], what: Msg) -> None:
        self.rate, self.per, self.clock, self.what = rate, per, clock, what
        self._uses: dict[int, deque[float]] = {}

    def take(self, user_id: int) -> float:
        """Count one use now, or refuse, saying how long to wait, if the user has used up their rate. Returns
        when the use was counted (what ``give_back`` takes)."""
        now = self.clock()
        uses = self._uses.get(user_id)
        if uses is not None:
            while uses and uses[0] <= now - self.per:
                uses.popleft()
            if len(uses) >= self.rate:
                wait = max(1, round(uses[0] + self.per - now))
                raise UserFacingError("general.cooldown.wait", what=self.what, wait=wait)
        elif len(self._uses) > FORGET_AFTER:
            self._uses = {u: q for u, q in self._uses.items() if q and q[-1] > now - self.per}
        self._uses.setdefault(user_id, deque()).append(now)
        return now

    def give_back(self, user_id: int, at: float) -> None:
        """Uncount the use counted at ``at`` (the command it was for did nothing)."""
        uses = self._uses.get(user_id)
        if uses is None:
            return
        with contextlib.suppress(ValueError):
            uses.remove(at)
        if not uses:
            del self._uses[user_id]

    @contextlib.contextmanager
    def reserve(self, user_id: int) -> Iterator[None]:
        """Take a use for the block (refused at once if there is none left) and give it back if the block
        raises: only a command that did what it was for counts."""
        at = self.take(user_id)
        try:
            yield
        except BaseException:
            self.give_back(user_id, at)
            raise


class Limits:
    """Every per-user rate limit the bot keeps, one :class:`Cooldown` a use, on the bot's clock."""

    def __init__(
        self, openings_per_minute: int, calculations_per_minute: int, clock: Callable[[], float]
    ) -> None:
        self.openings = Cooldown(openings_per_minute, 60, clock, Msg("general.cooldown.open-table"))
        self.calculators = Cooldown(calculations_per_minute, 60, clock, Msg("general.cooldown.calculator"))
        self.admin = Cooldown(ADMIN_PER_MINUTE, 60, clock, Msg("general.cooldown.admin"))
        self.cards = Cooldown(CARDS_PER_MINUTE, 60, clock, Msg("general.cooldown.cards"))
        self.boards = Cooldown(BOARDS_PER_MINUTE, 60, clock, Msg("general.cooldown.board"))
        self.tables = Cooldown(TABLES_PER_MINUTE, 60, clock, Msg("general.cooldown.tables"))
        self.replays = Cooldown(REPLAYS_PER_MINUTE, 60, clock, Msg("general.cooldown.replay"))
        self.exports = Cooldown(EXPORTS_PER_MINUTE, 60, clock, Msg("general.cooldown.export"))
