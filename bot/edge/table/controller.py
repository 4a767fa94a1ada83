"""The table controller: one path for every click and command of every game, and the one timer, built from
collaborators that each own their part — where a table lives (``places``), the seats' private panels
(``panels``), telling the table (``publisher``, over the session core), the computer players
(``computer``), the timer (``timers``), a seated player's presses (``presses``; from the Activity's
page, ``page``) and the commands and lobby presses (``commands``). Nothing here knows a game's rules: that
is each game's adapter."""

from __future__ import annotations

from bot.base.refusals import UserFacingError
from bot.edge.table.commands import Commands
from bot.edge.table.computer import ComputerPlayers
from bot.edge.table.host import Host, Interaction
from bot.edge.table.page import PagePresses
from bot.edge.table.panels import PrivatePanels
from bot.edge.table.places import ACTIVITY, Places
from bot.edge.table.presses import Presses
from bot.edge.table.publisher import Publisher
from bot.edge.table.timers import Timers
from bot.games import Click, NotSeated, TableClosed, TableError
from bot.services import session
from bot.services.cooldowns import Limits


class TableController:
    """The collaborators, wired once, and the two doors a press comes in by: a lobby's, a table's."""

    def __init__(self, host: Host, limits: Limits) -> None:
        self.host = host
        self.places = Places(host)
        self.panels = PrivatePanels(host, self.places)
        self.ledger = session.StoredLedger(host.tables)
        self.publisher = Publisher(
            host, self.places, self.panels, wake=lambda table: self.computer.wake(table)
        )
        self.computer = ComputerPlayers(host, self.publisher, self.ledger)
        self.timers = Timers(host, self.places, self.publisher, self.computer)
        self.presses = Presses(host, self.panels, self.publisher, self.ledger)
        self.commands = Commands(host, limits, self.places, self.panels, self.publisher, self.presses)
        self.page = PagePresses(host, self.publisher, self.ledger)  # the Activity's door (``page``)

    async def lobby_click(self, interaction: Interaction, click: Click) -> None:
        await self.commands.lobby_press(interaction, click)

    async def table_click(self, interaction: Interaction, click: Click) -> None:
        """Rematch on a finished table, else a seated player's press on a running one."""
        try:
            table = await self.host.tables.get(click.key)
        except TableError as err:
            raise UserFacingError("tavern.table.gone") from err
        if click.verb == "rematch":
            await self.commands.rematch(interaction, table)
            return
        if (
            click.verb == ACTIVITY
        ):  # anyone may open the table in Discord: the Activity shows what they may see
            await interaction.response.launch_activity()
            return
        seat = table.seat_of(interaction.user.id)
        if seat is None:
            raise NotSeated()
        if table.status != "active":
            raise TableClosed()
        await self.presses.press(interaction, table, seat, click)

    async def close(self) -> None:
        """A clean shutdown: the timer stopped, the computer players stopped, the waiting calls told."""
        await self.timers.stop()
        await self.computer.stop()
        await self.publisher.courier.flush_all()
