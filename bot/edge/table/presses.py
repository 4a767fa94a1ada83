"""A seated player's press on a table's controls: act → lock → check → apply → persist → render → deliver.

The press is acknowledged at once, the table's lock is taken (what the store says is owed is told first),
the control's freshness token and the engine's rules are checked, the move and its meta are committed in one
transaction, and only then is anything announced: the pressed panel through the interaction, then the rest
through the publisher. What a click comes to is the session core's (``bot.services.session``) decision."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import discord

from bot.base import safe
from bot.base.i18n import t
from bot.base.panel import Panel
from bot.base.refusals import UserFacingError
from bot.edge import delivery, layout
from bot.edge.table.host import Host, Interaction, private
from bot.edge.table.panels import PrivatePanels
from bot.edge.table.publisher import Publisher
from bot.games import Aside, Click, Move, StaleAction, Table, TableClosed
from bot.games.seats import accent
from bot.services import session

log = logging.getLogger("tavern.controller")


class Presses:
    """The press path of a game's own controls, for a seated player of a running table."""

    def __init__(
        self, host: Host, panels: PrivatePanels, publisher: Publisher, ledger: session.Ledger
    ) -> None:
        self.host = host
        self.panels = panels
        self.publisher = publisher
        self.ledger = ledger

    async def press(self, interaction: Interaction, table: Table, seat: int, click: Click) -> None:
        """Answer the press as the session core says the click comes to."""
        self.publisher.saw(table, seat)
        self.publisher.places.answering.pressed(table, interaction)  # it carries what the table says now
        if click.verb == "claim":
            await self._claim(interaction, table, seat, click)
            return
        click = replace(click, prefs=self.host.preferences.of(interaction.user.id))
        try:
            outcome = session.outcome(table, seat, click)
        except StaleAction:
            await self._stale(interaction, table.id, seat)
            return
        if isinstance(outcome, session.ShowHand):
            await self.panels.ephemeral(interaction, table, seat, table.adapter.private_panel(table, seat))
        elif isinstance(outcome, Aside):
            aside = await session.coached(outcome, self.host.settings.expert_seconds)
            await delivery.send_ephemeral(interaction, aside.panel, table.id)
        elif isinstance(outcome, Panel) and not private(interaction):
            await delivery.send_ephemeral(interaction, outcome, table.id)  # never a hand in the channel
        elif isinstance(outcome, Panel):
            redrawn = outcome.laid_out(accent(seat))  # a selection: the seat's panel drawn again
            await delivery.deliver(
                interaction.response.edit_message, redrawn, "g", table.id, **_answering(interaction)
            )
            await self.panels.take_reach(interaction, table, seat)
        else:
            fresh = click.verb != "resign"  # a resignation stands whatever moved since it was asked
            await self._move(interaction, table, seat, outcome, fresh=fresh)

    async def _move(
        self, interaction: Interaction, table: Table, seat: int, move: Move, *, fresh: bool
    ) -> None:
        """Acknowledge at once (the table may still be announcing the previous move), then play the move
        under the table's lock and answer through the interaction."""
        if not interaction.response.is_done():
            await interaction.response.defer()
        async with self.publisher.taken(table.id) as table:
            if fresh and session.stale(table, seat, move):
                await self._stale_locked(interaction, table, seat)
                return
            played = await session.play(self.ledger, table, seat, move)
            done = played.done
            if done is not None and not private(interaction):
                # A private answer to a press on a public message goes privately; the message keeps its text.
                await delivery.send_ephemeral(interaction, done, table.id)
                done = None
            answered: int | None = None
            if done is not None:
                done = done.laid_out(accent(seat))  # the seat's panel, as its live panel is drawn
                answered = seat  # the pressed panel is the seat's live panel, redrawn through the answer
                await self.panels.take_reach(interaction, table, seat)
            await self.saved(interaction, table, played.events, played.told, done, answered=answered)

    async def _stale(self, interaction: Interaction, table_id: int, seat: int) -> None:
        """A press on a panel drawn before the table's last move (the panel was not redrawn yet, or the bot
        stopped before it could be): the seat gets its panel as the table is now, not a bare refusal, so no
        player is ever left holding buttons that only say no."""
        if not interaction.response.is_done():
            await interaction.response.defer()
        async with self.publisher.taken(table_id) as table:
            if table.status != "active":
                raise TableClosed()
            await self._stale_locked(interaction, table, seat)

    async def _stale_locked(self, interaction: Interaction, table: Table, seat: int) -> None:
        """The pressed panel, if it is the seat's live one, becomes the seat's panel as the table is now; the
        caller holds the table's lock and has acknowledged the press. A second press on a panel a press of
        the seat already redrew (a double click), or a press on a panel that is not the live one, is refused
        as before: the player has the current table in front of them."""
        if self.panels.answered_at(table, seat) == table.seq or not self.panels.live(
            interaction, table, seat
        ):
            raise StaleAction()
        panel = table.adapter.private_panel(table, seat, t("tavern.table.stale-redrawn"))
        await delivery.deliver(
            interaction.edit_original_response, panel, "g", table.id, **_answering(interaction)
        )
        self.panels.mark_answered(table, seat)
        await self.panels.take_reach(interaction, table, seat)

    async def saved(
        self,
        interaction: Interaction,
        table: Table,
        events: Sequence[Any],
        told: int,
        answer: Panel | None,
        *,
        answered: int | None = None,
        board_shown: bool = False,
    ) -> None:
        """The move is committed: answer the click (``answer`` is what the pressed message becomes; None
        keeps its text and takes its controls off; ``board_shown``: it is the table's board), then tell
        everyone. A failed answer (Discord refused the edit, the token ran out) is logged and never stops
        the announcement, the board or the next ping."""
        try:
            if answer is None:
                message = interaction.message
                laid = message.flags.value & layout.FLAG != 0 if message is not None else None
                await delivery.retire(
                    interaction.edit_original_response, message.id if message else None, laid
                )
            else:
                await delivery.deliver(
                    interaction.edit_original_response, answer, "g", table.id, **_answering(interaction)
                )
        except discord.HTTPException as err:
            log.warning("game %d: move saved, but its reply failed (%s)", table.id, err)
            answered = None  # the pressed panel was not redrawn: redraw it like any other
            board_shown = False
        if answered is not None:
            self.panels.mark_answered(table, answered)
        await self.publisher.publish(
            table, events, told_before=told, answered=answered, board_shown=board_shown
        )

    async def _claim(self, interaction: Interaction, table: Table, seat: int, click: Click) -> None:
        if not click.arg.isascii() or not click.arg.isdigit() or len(click.arg) > 2:
            raise UserFacingError("tavern.out-of-date")
        idle = int(click.arg)
        if idle == seat:
            raise UserFacingError("tavern.claim.yourself")
        if click.token != str(table.seq) or table.waiting_for() != (idle,):
            raise UserFacingError("tavern.claim.moved-on")
        claim = (await self.host.server_settings.get(table.guild_id)).claim_minutes * 60
        if not claim or self.host.clock() - table.last_action_at < claim:
            raise UserFacingError("tavern.claim.not-yet")
        await interaction.response.defer()
        async with self.publisher.taken(table.id) as table:
            move = Move(table.adapter.claim_action(table, idle), click.token)
            played = await session.play(self.ledger, table, idle, move, expected_seq=int(click.token))
            async with self.host.languages.channel(table.guild_id):  # the claim offer is a channel message
                text = table.adapter.claimed_text(
                    table, idle, safe.name(interaction.user.display_name, interaction.user.name)
                )
            await self.saved(interaction, table, played.events, played.told, Panel(content=text))


def _answering(interaction: Interaction) -> dict[str, Any]:
    """How a press's own answer is delivered: it edits the pressed message (a picture it shows already is
    kept), and never waits on the drawing queue (its new picture follows by the interaction's edit)."""
    message = interaction.message
    return {
        "editing": message.id if message is not None else None,
        "later": interaction.edit_original_response,
        "laid": message.flags.value & layout.FLAG != 0 if message is not None else None,
    }
