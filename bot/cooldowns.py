"""Per-user rate limits on what posts in a channel (opening tables) or costs work (the calculators), so one
member cannot flood a channel. Kept on the bot's clock, so tests move time instead of sleeping."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from bot.errors import UserFacingError
from bot.i18n import Msg


class Cooldown:
    """At most ``rate`` uses per ``per`` seconds per user. ``what`` names the use in the refusal ("you can
    {what} again"): a message, ``Msg("general.cooldown.open-table")``."""

    def __init__(self, rate: int, per: float, clock: Callable[[], float], what: Msg) -> None:
        self.rate, self.per, self.clock, self.what = rate, per, clock, what
        self._uses: dict[int, deque[float]] = {}

    def check(self, user_id: int) -> None:
        """Refuse, saying how long to wait, if the user has used up their rate."""
        now = self.clock()
        uses = self._uses.get(user_id)
        if uses is None:
            return
        while uses and uses[0] <= now - self.per:
            uses.popleft()
        if not uses:
            del self._uses[user_id]
        elif len(uses) >= self.rate:
            wait = max(1, round(uses[0] + self.per - now))
            raise UserFacingError("general.cooldown.wait", what=self.what, wait=wait)

    def record(self, user_id: int) -> None:
        now = self.clock()
        if len(self._uses) > 10_000:  # forget users whose uses have all expired
            self._uses = {u: q for u, q in self._uses.items() if q and q[-1] > now - self.per}
        self._uses.setdefault(user_id, deque()).append(now)

    def use(self, user_id: int) -> None:
        self.check(user_id)
        self.record(user_id)
