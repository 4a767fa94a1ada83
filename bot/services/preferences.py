"""Players' preferences (``/tavern me``): read once at start-up, kept in memory, written when a player changes
one. A game asks for them on every forced-move check, so asking costs nothing.

What is stored is what each player chose (every switch they pressed, with its value), never the defaults: a
player who never chose follows the defaults of the day, and one who chose keeps the choice when they change.

With several processes sharing one store, a change reaches the others when they next start (as players'
languages do); the process that served ``/tavern me`` uses it at once.
"""

from __future__ import annotations

from bot.games.prefs import DEFAULT, Prefs
from bot.store import Store


class Preferences:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._chosen: dict[int, dict[str, bool]] = {}  # what each player chose, as stored
        self._users: dict[int, Prefs] = {}

    async def load(self) -> None:
        self._chosen = {user: Prefs.chosen(data) for user, data in (await self.store.user_prefs()).items()}
        self._users = {user: Prefs.stored(chosen) for user, chosen in self._chosen.items()}

    def of(self, user_id: int) -> Prefs:
        """The player's preferences (the defaults for one who never changed any, and for a bot)."""
        return self._users.get(user_id, DEFAULT)

    def forget(self, user_id: int) -> None:
        """The player asked to be forgotten (the store row is already gone)."""
        self._chosen.pop(user_id, None)
        self._users.pop(user_id, None)

    async def change(self, user_id: int, name: str, value: bool) -> Prefs:
        """Set one preference; stored first, so what the player sees is what is kept. ``name`` must be one of
        :meth:`Prefs.names` (the caller parsed it strictly)."""
        if name not in Prefs.names():
            raise ValueError(name)
        chosen = {**self._chosen.get(user_id, {}), name: value}
        await self.store.set_user_prefs(user_id, chosen)
        self._chosen[user_id] = chosen
        self._users[user_id] = prefs = Prefs.stored(chosen)
        return prefs
