"""Forgetting a member (``/tavern forget-me``): in one transaction, what is personal is deleted and every row
that keys on them moves to a pseudonym.

The pseudonym is a fresh random id of ``bot.games.seats.FORGOTTEN`` (ids no Discord account has; positive, so
every query still counts the seat as a person's). Nothing derives it from the member's id and nothing keeps
the pair, so no record leads back to the account; yet their seats, results, all-time and season ratings and
lobbies move to it together, so their opponents' games, histories, favourite opponents and ratings join and
read exactly as before, the member named "👤". Their language, preferences and DM channel are deleted, and so
is their seat's live panel (its DM channel) in the table meta of every game they played, and so are their
places in tournaments; a tournament's document that names them is rewritten in the same transaction by the
function the tournament service gives (``rename``: the store never reads a document). Their own id keeps
nothing: if they play again, they start afresh. Every game touched is bumped a version, so what any process
keeps of it by version (a replay, a walk of its log) is never used again, and other processes hear of it.

A member seated at an active game, or waiting in an open lobby, is refused: checked in the same transaction,
under the seating lock (``_serialize_seating``), so whichever process runs their game, the answer holds.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import replace

from bot.games.meta import TableMeta
from bot.games.seats import FORGOTTEN
from bot.store import lobbies, tournaments
from bot.store._base import Conn, Row, StoreBase
from bot.store.games import refuse_seated
from bot.store.interface import Rename
from bot.store.records import WaitingInLobby

PERSONAL = ("user_languages", "user_prefs", "dm_channels")  # deleted outright (keyed by user_id)


class ForgetMixin(StoreBase):
    async def forget_user(self, user_id: int, anonymous: str, *, at: float, rename: Rename) -> list[int]:
        """Forget the member (see the module's docstring); the ids of the games whose rows changed.
        ``PlayerBusy`` if they sit at an active game, ``WaitingInLobby`` if they are in a lobby still open at
        ``at``, or whatever ``rename`` raises for a tournament's document; then nothing is written."""
        async with self._tx() as db:
            await self._serialize_seating(db)
            await refuse_seated(db, (user_id,))
            theirs = await lobbies.of_member(db, user_id)
            for lobby in theirs:
                if lobby.status == "open" and (lobby.expires_at is None or lobby.expires_at > at):
                    raise WaitingInLobby(lobby)
            pseudonym = await _pseudonym(db)
            for table in PERSONAL:
                await db.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
            await tournaments.forget_member(db, user_id, pseudonym, anonymous, rename)
            seats = await db.fetch("SELECT game_id, seat FROM seats WHERE user_id = ?", (user_id,))
            await _move_results(db, user_id, pseudonym, anonymous)
            await _drop_panels(db, user_id, seats)
            await db.execute(
                "UPDATE seats SET user_id = ?, name = ? WHERE user_id = ?", (pseudonym, anonymous, user_id)
            )
            if theirs:
                await lobbies.rename_member(db, theirs, user_id, pseudonym, anonymous)
            games = sorted({int(s["game_id"]) for s in seats})
            await db.execute(
                "UPDATE games SET version = version + 1 "
                "WHERE id IN (SELECT game_id FROM seats WHERE user_id = ?)",
                (pseudonym,),
            )
        return games


async def _pseudonym(db: Conn) -> int:
    """A random id of ``FORGOTTEN`` that no seat holds yet."""
    while True:
        candidate = FORGOTTEN.start + secrets.randbelow(len(FORGOTTEN))
        if await db.fetchrow("SELECT 1 FROM seats WHERE user_id = ? LIMIT 1", (candidate,)) is None:
            return candidate


async def _move_results(db: Conn, user_id: int, pseudonym: int, anonymous: str) -> None:
    """The member's results and their boards' rows (all-time, renamed; each season's) to the pseudonym. Found
    through their seats (indexed): a result, and so a rating, is only ever written for a seat."""
    of_their_games = "game_id IN (SELECT game_id FROM seats WHERE user_id = ?)"
    boards = await db.fetch(
        f"SELECT DISTINCT guild_id, game FROM results WHERE user_id = ? AND {of_their_games}",
        (user_id, user_id),
    )
    for board in boards:
        key = (board["guild_id"], board["game"], user_id)
        where = "WHERE guild_id = ? AND game = ? AND user_id = ?"
        await db.execute(f"UPDATE ratings SET user_id = ?, name = ? {where}", (pseudonym, anonymous, *key))
        await db.execute(f"UPDATE season_ratings SET user_id = ? {where}", (pseudonym, *key))
    await db.execute(
        f"UPDATE results SET user_id = ? WHERE user_id = ? AND {of_their_games}",
        (pseudonym, user_id, user_id),
    )


async def _drop_panels(db: Conn, user_id: int, seats: Sequence[Row]) -> None:
    """The member's seats out of their games' table meta: no live panel (a DM channel and message) or
    closed-DMs mark is kept for them. The meta is written back in today's form, so what an older version
    kept beside it (text it had still to tell) goes too; a meta that can't be read goes whole (the game is
    over: it only showed the way to the game's thread)."""
    seated: dict[int, set[int]] = {}
    for s in seats:
        seated.setdefault(int(s["game_id"]), set()).add(int(s["seat"]))
    rows = await db.fetch(
        "SELECT game_id, data FROM table_meta WHERE game_id IN (SELECT game_id FROM seats WHERE user_id = ?)",
        (user_id,),
    )
    changed = []
    for row in rows:
        mine = seated.get(int(row["game_id"]), set())
        try:
            old = json.loads(row["data"])
            meta = TableMeta.from_dict(old)
            meta = replace(
                meta,
                panels={s: p for s, p in meta.panels.items() if s not in mine},
                dm_closed=meta.dm_closed - mine,
            )
            new = meta.to_dict()
        except Exception:  # not what any version writes: nothing of it is kept
            old, new = None, {}
        if new != old:
            changed.append((json.dumps(new), row["game_id"]))
    if changed:
        await db.executemany("UPDATE table_meta SET data = ? WHERE game_id = ?", changed)
