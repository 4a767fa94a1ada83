"""Bharg Deluxe's adapter: an open lobby of 2–6, the private turn panel (drawn by :mod:`.deluxe_panel`), the
table message, the score sheets.

A panel's controls carry the table's action count and name cards by their position in the sorted hand (a set
of them as a base-36 bitmask): :meth:`Deluxe.click` reads them back, refusing anything the panel could not
have offered. A typical turn is three clicks: draw, bind a meld from the menu (one click per meld), discard.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.ai import deluxe as computer
from bot.ai import deluxe_why as why
from bot.base.i18n import Msg, t, tn
from bot.base.panel import Button, Panel
from bot.base.refusals import UserFacingError
from bot.games import Announcement, Aside, Click, GameAdapter, Lobby, Move, Prefs, StaleAction, Table, clip
from bot.games.deluxe_panel import (
    CHUNK,
    COLOUR,
    EMBED_LIMIT,
    MAX_SELECTS,
    chosen,
    closed_panel,
    discard_menus,
    embed,
    meld_choices,
    parse_mask,
    pick_of,
    turn_panel,
)
from bot.render import deluxe as R
from bot.render import deluxe_coach as coach
from bot.render import deluxe_scenes as scenes
from bot.render import picture
from bot.render.lists import chain
from bot.rules import deluxe as D
from bot.rules.errors import NotYourTurn


def _mask_arg(text: str) -> int:
    """A selection as controls carry it: base-36 digits only, at most 20 of them (no hand has 100 cards)."""
    if len(text) > 20 or not all(ch in "0123456789abcdefghijklmnopqrstuvwxyz" for ch in text):
        raise UserFacingError("deluxe.panel.stale")
    return parse_mask(text)


def _small_int(text: str, limit: int) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 3 or int(text) >= limit:
        raise UserFacingError("deluxe.panel.stale")
    return int(text)


class Deluxe(GameAdapter):
    name = "deluxe"
    title = "Bharg Deluxe"  # i18n: not text (the game's name)
    targets = (D.MIN_TARGET, 100, D.MAX_TARGET)
    rules = D
    ai = computer
    command = "/deluxe"
    min_players = D.MIN_PLAYERS
    max_players = D.MAX_PLAYERS
    challenge = False
    gathers = True

    resign_label_msg = Msg("deluxe.leave.label")
    resign_done_msg = Msg("deluxe.leave.done")
    board_command = "table"
    resign_command = "leave"
    colour = COLOUR

    def rules_text(self, link: str | None = None) -> str:
        return R.rules_text(link)

    def options_text(self, options: Any) -> str:
        return R.option_text(options)

    def lobby_panel(self, lobby: Lobby) -> Panel:
        options = self.options(lobby.options)
        names = lobby.names
        host = names.get(lobby.host_id) or t("deluxe.lobby.someone")
        members = [names.get(m, str(m)) for m in lobby.members]
        text = R.lobby_text(host, members, options, lobby.status)
        if lobby.status != "open":
            return Panel(content=text)
        return Panel(
            content=text,
            controls=(
                Button(t("deluxe.lobby.join"), "join", style="success"),
                Button(t("deluxe.lobby.leave"), "leave"),
                Button(t("deluxe.lobby.start"), "start", style="primary"),
                Button(t("deluxe.lobby.cancel"), "cancel", style="danger"),
                *self.bot_controls(lobby),
            ),
        )

    # ---------------------------------------------------------------- the table

    def board(self, table: Table) -> Panel:
        v = D.view(table.state, -1)
        for detail in (2, 1, 0):  # the fullest text that fits one embed
            text = R.table_text(v, table.names, detail=detail)
            if len(text) <= EMBED_LIMIT:
                break
        sheet = embed(t("deluxe.board.title", options=R.option_text(table.options)), text)
        controls = () if D.is_over(table.state) else (self.hand_button(),)
        scores = ", ".join(f"{n} {s}" for n, s in zip(table.names, v.scores, strict=True))
        alt = t("deluxe.board.alt", hand=v.hand_no, scores=scores, target=v.target)
        return Panel(
            embed=sheet,
            controls=controls,
            picture=picture("table.png", scenes.table_scene(v, table.names), alt),
        )

    def seat_panel(self, table: Table, seat: int, note: str = "") -> Panel:
        return turn_panel(table, seat, note=note)

    def hint(self, table: Table, seat: int) -> Aside:
        """The coach: every option of this decision best first, the hard computer player's choice on top."""
        view = D.view(table.state, seat)
        advice = computer.advise(view)
        said = coach.hint(advice, why.explain(view, advice), table.names, pick_of(table.state, seat))
        return Aside(Panel(content=said.text), picks=tuple(said.picks))

    def click(self, table: Table, seat: int, click: Click) -> Move | Panel | Aside:
        """A control of the seat's turn panel: a move, or the panel redrawn for a selection being built."""
        state: D.State = table.state
        if click.token != str(table.seq):
            raise StaleAction()
        if state.turn != seat or state.left[seat]:
            raise NotYourTurn("deluxe.rules.not-your-turn")
        if click.verb == "hint":
            return self.hint(table, seat)
        if click.verb in ("pick", "build", "clr", "back", "sug"):
            return self._selection(table, seat, click)
        return Move(self._action(state, seat, click), click.token, done=self._after(seat))

    @staticmethod
    def _selection(table: Table, seat: int, click: Click) -> Panel:
        """The panel redrawn as a selection is built by hand ("pick" carries the menu and the selection so
        far), opened or cleared ("build", "clr"), or left for the bind step ("back")."""
        hand = D.view(table.state, seat).hand
        if click.verb == "pick":
            chunk, dot, old = click.arg.partition(".")
            if not dot:
                raise UserFacingError("deluxe.panel.stale")
            k = _small_int(chunk, MAX_SELECTS)
            mask = _mask_arg(old)
            for i in range(k * CHUNK, (k + 1) * CHUNK):
                mask &= ~(1 << i)
            for value in click.values:
                i = _small_int(value, len(hand))
                if not k * CHUNK <= i < (k + 1) * CHUNK:
                    raise UserFacingError("deluxe.panel.stale")
                mask |= 1 << i
            return turn_panel(table, seat, mask=mask, build=True)
        if click.verb in ("build", "clr"):
            if click.arg or click.values:
                raise UserFacingError("deluxe.panel.stale")
            return turn_panel(table, seat, build=True)
        return turn_panel(table, seat)  # "back"; "sug": a panel from before the meld menu, now the same place

    @staticmethod
    def _action(state: D.State, seat: int, click: Click) -> D.Action:
        """The engine action a move control asks for, if the panel could have offered it."""
        hand = D.view(state, seat).hand
        verb = click.verb
        if verb == "meld":
            if len(click.values) != 1 or click.arg:
                raise UserFacingError("deluxe.panel.stale")
            mask = _mask_arg(click.values[0])
            choices, _ = meld_choices(state, seat, hand)
            if click.values[0] not in choices:  # not a meld this panel offered
                raise UserFacingError("deluxe.panel.stale")
            return D.Bind(seat, tuple(chosen(hand, mask)))  # the engine classifies them again when applied
        if verb == "toss":
            if len(click.values) != 1:
                raise UserFacingError("deluxe.panel.stale")
            k = _small_int(click.arg, MAX_SELECTS)
            chunks = discard_menus(state, seat, hand, bool(D.bindable_melds(state, seat)))
            i = _small_int(click.values[0], len(hand))
            if k >= len(chunks) or i not in chunks[k]:
                raise UserFacingError("deluxe.panel.stale")
            return D.Discard(seat, hand[i])
        if verb == "draw":
            return D.Draw(seat)
        if verb == "take":
            if len(click.values) != 1:
                raise UserFacingError("deluxe.panel.stale")
            return D.TakeQueue(seat, _small_int(click.values[0], len(state.queue) + 1))
        if verb == "bind":
            return D.Bind(seat, tuple(chosen(hand, _mask_arg(click.arg))))
        if verb == "disc":
            cards = chosen(hand, _mask_arg(click.arg))
            if len(cards) != 1:
                raise UserFacingError("deluxe.panel.discard-one")
            return D.Discard(seat, cards[0])
        if verb == "done":
            return D.Done(seat)
        raise UserFacingError("deluxe.panel.stale")

    @staticmethod
    def _after(seat: int) -> Any:
        """The clicked panel after a move: the rest of the turn, or what happened once it is over."""

        def done(table: Table, events: Sequence[Any]) -> Panel:
            state: D.State = table.state
            if D.is_over(state) or state.turn != seat:
                return closed_panel(table, seat, R.event_lines(events, table.names))
            note = ""
            if any(isinstance(e, D.CardDrawn) for e in events):
                drawn = D.view(state, seat).drawn
                note = t("deluxe.panel.you-drew", card=R.card_text(drawn)) if drawn is not None else ""
            for e in events:
                if isinstance(e, D.AceDrawnToPile):  # D10 option 1: the turn starts over
                    note = t("deluxe.panel.you-drew-ace", card=R.card_text(e.card))
                elif isinstance(e, D.MeldBound) and e.seat == seat:
                    meld = R.meld_text(D.Meld(e.kind, e.cards, e.used), table.names, binder=seat)
                    note = t("deluxe.panel.you-bound", meld=meld)
            return turn_panel(table, seat, note=note)

        return done

    # ---------------------------------------------------------------- telling the table

    def tells_later(self, table: Table, events: Sequence[Any]) -> bool:
        """A turn is told in one message, when it passes (or a hand or the game ends, or someone leaves)."""
        ends = D.TurnStarted | D.FinalBindOffered | D.HandScored | D.GameWon | D.SeatLeft
        return not any(isinstance(e, ends) for e in events)

    def announce(self, table: Table, events: Sequence[Any]) -> Announcement:
        names = table.names
        state: D.State = table.state
        out = Announcement()
        lines: list[str] = []
        turn: D.TurnStarted | D.FinalBindOffered | None = None
        for e in events:
            if isinstance(e, D.HandScored):
                lines += ["", R.score_table(e.hand_no, e.rows, names, state.left)]
                out.messages.append(clip(lines, self.message_limit))
                lines = []
            elif isinstance(e, D.GameWon):
                lines += R.event_lines([e], names)
                final = R.final_text(D.final_result(state), names)
                out.messages.append(clip([*lines, "", final], self.message_limit))
                lines = []
            else:
                lines += R.event_lines([e], names)
                if isinstance(e, D.TurnStarted | D.FinalBindOffered):
                    turn = e
        waiting = table.waiting_for()
        if turn is not None and waiting and waiting[0] == turn.seat and not table.is_bot(turn.seat):
            final_bind = isinstance(turn, D.FinalBindOffered)
            who = table.mention(turn.seat)
            out.ping = t("deluxe.ping.final-bind", who=who) if final_bind else t("deluxe.ping.turn", who=who)
            out.ping_seats = (turn.seat,)
            out.controls.append(self.hand_button())
            lines.append("")
        if any(line for line in lines):
            out.messages.append(clip(lines, self.message_limit - len(out.ping) - 1))
        return out

    def redraws(self, table: Table, events: Sequence[Any]) -> dict[int, str]:
        """At a new hand everyone's panel is dealt afresh; whenever a turn starts, the player to move's panel
        is redrawn with what happened since their last turn on top. The others' panels wait for their turn
        (redrawing every panel on every move would cost a request per player per move)."""
        state: D.State = table.state
        if any(isinstance(e, D.GameWon) for e in events):  # every panel shows the result, once
            return {s: "" for s in range(len(table.seats)) if not state.left[s]}
        waiting = table.waiting_for()
        turns = [e for e in events if isinstance(e, D.TurnStarted | D.FinalBindOffered)]
        if not turns or not waiting or waiting[0] != turns[-1].seat:
            return {}
        lines = [line for line in R.event_lines(events, table.names) if line]
        note = clip(lines[-6:], 900)
        out: dict[int, str] = {}
        if self.replaces(table, events):
            out = {s: note for s in range(len(table.seats)) if not state.left[s]}
        out[waiting[0]] = note
        return out

    def replaces(self, table: Table, events: Sequence[Any]) -> bool:
        return any(isinstance(e, D.HandStarted) for e in events)

    def forced(self, table: Table, prefs: Callable[[int], Prefs]) -> tuple[int, Any] | None:
        """A final bind offered to someone with nothing to bind: their Done is the only answer."""
        state: D.State = table.state
        if table.status != "active" or state.phase != D.Phase.FINAL_BIND or table.is_bot(state.turn):
            return None
        return None if D.bindable_melds(state, state.turn) else (state.turn, D.Done(state.turn))

    def milestone(self, table: Table, events: Sequence[Any]) -> bool:
        return any(isinstance(e, D.HandScored) for e in events)

    def score_line(self, table: Table) -> str:
        state: D.State = table.state
        names = table.names
        target = table.options.target
        if D.is_over(state):
            result = D.final_result(state)
            won = chain([f"**{names[w]}**" for w in result.winners])
            scores = ", ".join(f"{n} {total}" for n, total in zip(names, result.scores, strict=True))
            return tn("deluxe.score-line.won", len(result.winners), names=won, scores=scores)
        standing = " · ".join(f"{n} **{total}**" for n, total in zip(names, state.totals, strict=True))
        if table.status != "active":
            return t("deluxe.score-line.ended", standing=standing)
        return t("deluxe.score-line.playing", hand=state.hand_no, standing=standing, target=target)

    def result_lines(self, table: Table, events: Sequence[Any]) -> list[str]:
        return R.event_lines([e for e in events if isinstance(e, D.GameWon)], table.names)

    def waiting_text(self, table: Table) -> str:
        state: D.State = table.state
        if D.is_over(state):
            return t("deluxe.rules.over")
        name = table.names[state.turn]
        if state.phase == D.Phase.DRAW:
            return t("deluxe.waiting.draw", name=name)
        if state.phase == D.Phase.FINAL_BIND:
            return t("deluxe.waiting.final-bind", name=name)
        return t("deluxe.waiting.bind", name=name)

    # ---------------------------------------------------------------- leaving and idle seats

    def resign_action(self, table: Table, seat: int) -> Any:
        if table.state.left[seat]:
            raise UserFacingError("deluxe.leave.already")
        return D.Leave(seat)

    def resign_question(self, table: Table, seat: int) -> str:
        return t("deluxe.leave.question")

    def claim_action(self, table: Table, seat: int) -> Any:
        return D.Leave(seat)

    def claim_offer(self, table: Table, idle: int, minutes: int) -> tuple[str, str]:
        text = t("deluxe.claim.offer", who=table.mention(idle), minutes=minutes)
        return text, t("deluxe.claim.button", name=table.names[idle])

    def claimed_text(self, table: Table, idle: int, by: str) -> str:
        return t("deluxe.claim.done", name=table.names[idle], by=by)

    def playing(self, table: Table) -> list[int]:
        return [s for s in range(len(table.seats)) if not table.state.left[s]]


ADAPTER = Deluxe()
