"""Tournaments in the store: each step of an event (``bot.services.tournaments.event``) read, taken and saved
whole at the version it was read at, so two organisers, or two shard processes, acting at once never both
write: the second reads the event again and takes its step on what the first left (an award for a match the
first decided is then refused, and nothing is lost).

A game's end reaches its event here (:meth:`TournamentService.game_over`): the table's result becomes the
event's ``GameDone`` and the event says which matches to open next. Opening them (a table in a thread, the
players pinged) is the edge's, which reports each table back (:meth:`TournamentService.opened`). When an
event finishes, every entrant's place is kept for their profile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from bot.base.locks import KeyedLocks
from bot.rules.engine import Result
from bot.services.tournaments.event import LIVE, LURCH_LINES, Event, GameDone, How, Match, Settings
from bot.services.tournaments.stored import doc_of, event_of
from bot.store import StaleTournament, Store, TournamentRow

T = TypeVar("T")
ATTEMPTS = 8  # saves lost to another writer before a step gives up (each loss means the other moved on)


class Contended(RuntimeError):
    """Another writer moved the event on at every attempt: a bug or a storm, logged by the caller."""


@dataclass(frozen=True)
class Stepped:
    """An event after a step: its id, the event as saved, and the matches the host must open now."""

    id: int
    event: Event
    open: tuple[Match, ...] = ()
    close: tuple[int, ...] = ()  # tables the step took from the event (an awarded match, an ended event)


class TournamentService:
    def __init__(self, store: Store, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock
        # Each match game's seed (None: a random one, as any table's); tests pin it to replay an event.
        self.seed_source: Callable[[], int | None] = lambda: None
        # Held while this process opens an event's matches (a game's end and the timer's pass may both try):
        # a second opener then finds them open. Across processes the store's one-seat-per-player refuses
        # the second table.
        self.openers = KeyedLocks()

    async def create(self, guild_id: int, channel_id: int, organiser_id: int, settings: Settings) -> Stepped:
        event = Event(settings, organiser_id)
        row = await self.store.create_tournament(
            guild_id, channel_id, event.status, doc_of(event), self.clock()
        )
        return Stepped(row.id, event)

    async def get(self, tournament_id: int) -> Event | None:
        row = await self.store.get_tournament(tournament_id)
        return None if row is None else event_of(row.doc)

    async def found(self, tournament_id: int) -> tuple[TournamentRow, Event] | None:
        """An event with its row (its server, for whoever shows it), or None: no such event, or a document
        this version cannot read (its page is then not found, not an error)."""
        row = await self.store.get_tournament(tournament_id)
        if row is None:
            return None
        try:
            return row, event_of(row.doc)
        except (ValueError, KeyError, TypeError):
            return None

    async def here(self, guild_id: int, channel_id: int) -> tuple[TournamentRow, Event] | None:
        """The live event of this channel (the newest, should there be several)."""
        for row in await self.store.tournaments_in(guild_id, LIVE):
            if row.channel_id == channel_id:
                return row, event_of(row.doc)
        return None

    async def live(self) -> list[tuple[TournamentRow, Event]]:
        """Every live event, of every server: what a pass of the timer looks after."""
        return [(row, event_of(row.doc)) for row in await self.store.live_tournaments()]

    async def step(self, tournament_id: int, take: Callable[[Event], T]) -> tuple[T, Event]:
        """Take one step (``take`` changes the event and returns what it says), saved at the version it was
        read at; taken again on the event as it now stands when another writer got there first. A refusal
        from ``take`` (a ``TournamentError``) saves nothing."""
        for _ in range(ATTEMPTS):
            row = await self.store.get_tournament(tournament_id)
            if row is None:
                raise KeyError(tournament_id)
            event = event_of(row.doc)
            said = take(event)
            try:
                await self.store.save_tournament(
                    tournament_id, doc_of(event), event.status, row.version, self.clock()
                )
            except StaleTournament:
                continue
            if event.status == "finished" and row.status != "finished":
                await self.store.record_places(tournament_id, event.places())
            return said, event
        raise Contended(f"tournament {tournament_id}: {ATTEMPTS} saves lost to other writers")

    async def opened(self, tournament_id: int, key: str, game_id: int) -> None:
        """The edge opened match ``key``'s next game at table ``game_id``."""
        await self.store.link_tournament_game(tournament_id, game_id)

        def take(event: Event) -> None:
            event.match(key).game_id = game_id

        await self.step(tournament_id, take)

    async def game_over(
        self, game_id: int, user_ids: Sequence[int], target: int, game: str, result: Result
    ) -> Stepped | None:
        """A table's game ended: its event's next matches (None when the table belongs to no event, or to no
        match the event still waits for: an ended event, an awarded match, an end already counted)."""
        tournament_id = await self.store.tournament_of_game(game_id)
        if tournament_id is None:
            return None
        done = game_done(game_id, user_ids, target, game, result)

        def take(event: Event) -> list[Match] | None:
            m = event.match_of_game(game_id)
            if m is None or event.status not in ("running", "paused"):
                return None  # told before (a retelling), or the match was settled without it
            return event.record(m.key, done)

        matches, event = await self.step(tournament_id, take)
        return None if matches is None else Stepped(tournament_id, event, tuple(matches))


def game_done(game_id: int, user_ids: Sequence[int], target: int, game: str, result: Result) -> GameDone:
    """A finished table's result as its event counts it: the seats' players and scores, the winner (the
    first of the winners), a forfeit or resignation as a forfeit, and Cribbage's lurch line."""
    how: How = "forfeit" if result.how in ("resign", "forfeit") else "played"
    lurch = LURCH_LINES.get(target) if game == "cribbage" else None
    winner = user_ids[result.winners[0]]
    return GameDone(tuple(user_ids), tuple(result.scores), target, winner, how, lurch, game_id)
