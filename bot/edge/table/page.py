"""A seated player's press from the Activity's page (docs/ACTIVITY.md, "Playing one's own seat from the
page"): the path of one click with a WebSocket frame where Discord has an interaction.

The press is the session core's like any other: ``session.outcome`` decides what it comes to, a move is
played under the table's lock (``Publisher.taken``: owed news told first), checked for freshness
(``session.stale``), applied through the same ledger (``session.play``) and told through the same
``Publisher.publish`` — the calls, the board, every seat's panel, the presser's own Discord panel too — so a
page press can do nothing a DM press cannot, and says what a DM press says. Only the answer differs: the
page's side of it (:class:`PageAnswer`) is a frame to that one connection (the redrawn panel, or a private
aside such as the Hint), which costs no Discord request; a refusal is raised, for the socket to word. After
a move the page is sent the seat's live panel as the table is now (a new hand's, if the move dealt one),
and what the pressed panel would have become in Discord (``Played.done``: "You played …") as an aside.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from bot.base.i18n import t
from bot.base.panel import Panel
from bot.base.refusals import UserFacingError
from bot.edge.table.host import Host
from bot.edge.table.publisher import Publisher
from bot.games import Aside, Click, NotSeated, StaleAction, Table, TableClosed, TableError
from bot.services import session


class PageAnswer(Protocol):
    """The page's side of a press's answer: one connection's frames."""

    async def panel(self, table: Table, seat: int, panel: Panel) -> None:
        """The seat's panel is now ``panel`` (the page always shows the seat's latest)."""

    async def aside(self, panel: Panel) -> None:
        """A private answer beside the panel (the coach's Hint)."""


class PagePresses:
    """The page's door to a seated player's table: the same session core and publisher as Discord's."""

    def __init__(self, host: Host, publisher: Publisher, ledger: session.Ledger) -> None:
        self.host, self.publisher, self.ledger = host, publisher, ledger

    async def press(self, answer: PageAnswer, user_id: int, click: Click) -> None:
        """Answer the press of ``user_id`` (the session's, never the frame's) as the session core says."""
        try:
            table = await self.host.tables.get(click.key)
        except TableError as err:
            raise UserFacingError("tavern.table.gone") from err
        seat = table.seat_of(user_id)
        if seat is None:
            raise NotSeated()
        if table.status != "active" or table.is_over():  # (over, its end being told: not yet finished)
            raise TableClosed()
        if click.verb in ("claim", "rematch"):  # channel controls: never on a seat's panel
            raise UserFacingError("tavern.out-of-date")
        self.publisher.saw(table, seat)
        click = replace(click, prefs=self.host.preferences.of(user_id))
        try:
            outcome = session.outcome(table, seat, click)
        except StaleAction:
            await self._stale(answer, table.id, seat)
            return
        if isinstance(outcome, session.ShowHand):
            await answer.panel(table, seat, table.adapter.seat_panel(table, seat))
        elif isinstance(outcome, Aside):
            await answer.aside((await session.coached(outcome, self.host.settings.expert_seconds)).panel)
        elif isinstance(outcome, Panel):
            await answer.panel(table, seat, outcome)
        else:
            async with self.publisher.taken(table.id) as table:
                fresh = click.verb != "resign"  # a resignation stands whatever moved since it was asked
                if fresh and session.stale(table, seat, outcome):
                    await self._redrawn(answer, table, seat)
                    return
                played = await session.play(self.ledger, table, seat, outcome)
                await self.publisher.publish(table, played.events, told_before=played.told)
                if not table.is_over():  # the seat's live panel; what the move did, beside it
                    await answer.panel(table, seat, table.adapter.seat_panel(table, seat))
                if played.done is not None and played.done.content:
                    await answer.aside(played.done)

    async def _stale(self, answer: PageAnswer, table_id: int, seat: int) -> None:
        """A press on a panel drawn before the table's last move: the page gets the panel as the table is
        now, never a bare refusal."""
        async with self.publisher.taken(table_id) as table:
            await self._redrawn(answer, table, seat)

    async def _redrawn(self, answer: PageAnswer, table: Table, seat: int) -> None:
        """The seat's panel as the table is now, for a press on an older one; a game that ended meanwhile
        (a move the bot made for the player, say) refuses the press: the page was told the game is over."""
        if table.status != "active" or table.is_over():
            raise TableClosed()
        panel = table.adapter.seat_panel(table, seat, t("tavern.table.stale-redrawn"))
        await answer.panel(table, seat, panel)
