"""Bhargage's adapter: a two-player challenge; hands, discards and the cut in each player's live panel.

Freshness: play and cut controls carry the table's action count; discard controls carry
"<hand>-<0|1 already discarded>" because both players discard at once (a double click applies once, and
one player's discard does not make the other's menu stale).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from bot.ai import bhargage as computer
from bot.errors import UserFacingError
from bot.games import Announcement, Aside, Click, GameAdapter, Move, clip
from bot.panel import Button, Option, Panel, Select
from bot.render import bhargage as render
from bot.render import picture
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import missing_suits, shortage_for
from bot.rules.decktet import ALL_CARDS, Card, card, cards
from bot.store import Lobby
from bot.tables import StaleAction, Table

NO_LONGER = "That button is out of date."
HINT = Button("Hint", "hint", emoji="💡")


def _mention(user_id: int) -> str:
    return f"<@{user_id}>"


def card_at(arg: str) -> Card:
    """A card by its index in the deck, as controls carry it; anything else is a stale or forged id."""
    if not arg.isascii() or not arg.isdigit() or len(arg) > 2 or int(arg) >= len(ALL_CARDS):
        raise UserFacingError(NO_LONGER)
    return ALL_CARDS[int(arg)]


def clip_lines(lines: Sequence[str], limit: int = 1900) -> str:
    """The newest non-empty lines that fit ``limit`` characters (a show is long; a panel must fit Discord)."""
    return clip([ln for ln in lines if ln], limit)


def _backs(state: bh.State) -> dict[int, int]:
    return {seat: back for seat, back in enumerate(state.backs) if back is not None}


class Bhargage(GameAdapter):
    name = "bhargage"
    title = "Bhargage"
    targets = (bh.MIN_TARGET, 121, bh.MAX_TARGET)
    rules = bh
    ai = computer
    command = "/bhargage"

    def rules_text(self, link: str | None = None) -> str:
        return render.rules_text(link)

    def options_text(self, options: Any) -> str:
        text = f"to {options.target}"
        if options.sequences:
            text += ", with sequences"
        return text

    # ---------------------------------------------------------------- the challenge

    def lobby_panel(self, lobby: Lobby) -> Panel:
        options = self.options(lobby.options)
        host, invited = lobby.host_id, lobby.invited_id or 0
        names = lobby.names
        if lobby.status == "open":
            text = (
                f"{_mention(invited)}, {_mention(host)} challenges you to **Bhargage** "
                f"({self.options_text(options)}).\n"
                f"The challenge expires <t:{int(lobby.expires_at or 0)}:R>."
            )
            return Panel(
                content=text,
                controls=(
                    Button("Accept", "accept", style="success"),
                    Button("Decline", "decline", style="danger"),
                ),
            )
        if lobby.status == "started":
            text = (
                f"{names.get(invited, 'Your opponent')} accepted {names.get(host, 'the')}'s challenge: "
                f"**Bhargage** ({self.options_text(options)}) is on!"
            )
        elif lobby.status == "declined":
            text = (
                f"{names.get(invited, 'The player')} declined the Bhargage challenge from {_mention(host)}."
            )
        elif lobby.status == "cancelled":
            text = f"The Bhargage challenge from {_mention(host)} was withdrawn."
        else:
            text = f"The Bhargage challenge from {_mention(host)} to {_mention(invited)} expired unanswered."
        return Panel(content=text)

    # ---------------------------------------------------------------- the table

    def token(self, table: Table, seat: int) -> str:
        state: bh.State = table.state
        if state.phase is bh.Phase.DISCARD:
            return f"{state.hand_no}-{int(bool(state.discards[seat]))}"
        return str(table.seq)

    def board(self, table: Table) -> Panel:
        state: bh.State = table.state
        names = table.names
        scores = f"{names[0]} {state.scores[0]}, {names[1]} {state.scores[1]}"
        alt = f"Cribbage board to {state.options.target}: {scores}"
        if state.up is not None and state.phase is not bh.Phase.OVER:
            alt += f"; up-card {state.up.title}"
        return Panel(
            content=render.board_text(state, names, _backs(state), game_id=table.id),
            picture=picture("bhargage-board.png", render.board_scene(state, names), alt),
        )

    def seat_panel(self, table: Table, seat: int, note: str = "") -> Panel:
        return self._panel(table, seat, note)

    def _panel(
        self, table: Table, seat: int, note: str = "", chosen: tuple[Card, Card] | None = None
    ) -> Panel:
        """The seat's hand with whatever it may do now; ``chosen`` = two picked discards awaiting Confirm."""
        state: bh.State = table.state
        view = bh.view(state, seat)
        panel = Panel(content=render.hand_text(view, table.names)).with_note(note)
        if view.hand or view.discard:
            cards = ", ".join(c.title for c in (*view.hand, *view.discard))
            panel = replace(panel, picture=picture("hand.png", render.panel_scene(view, chosen or ()), cards))
        if table.status != "active":
            return panel
        token = self.token(table, seat)
        controls: list[Button | Select] = []
        if state.phase is bh.Phase.DISCARD:
            dealt = render.dealt(view)
            picked = {c.index for c in chosen or ()}
            options = tuple(
                Option(label=c.label[:100], value=str(c.index), default=c.index in picked) for c in dealt
            )
            placeholder = "Change your 2 discards" if view.discarded[seat] else "Choose 2 cards to lay away"
            controls.append(Select(placeholder, "pick", options, token=token, min_values=2, max_values=2))
            if chosen is not None:
                arg = f"{chosen[0].index}-{chosen[1].index}"
                controls.append(Button("Confirm", "discard", token=token, arg=arg, style="success"))
            controls.append(HINT)
        elif state.phase is bh.Phase.CUT and seat == state.non_dealer:
            controls.append(Button("Cut", "cut", token=token, style="primary"))
        elif state.phase is bh.Phase.PLAY and state.to_move == seat:
            legal = {a.card for a in view.legal if isinstance(a, bh.Play)}
            for c in view.hand:
                controls.append(
                    Button(
                        c.label,
                        "play",
                        token=token,
                        arg=str(c.index),
                        style="primary",
                        disabled=c not in legal,
                    )
                )
            controls.append(HINT)
        return replace(panel, controls=tuple(controls))

    def hint(self, table: Table, seat: int) -> Aside:
        """The coach: the discard table while discarding, the hard player's card on the seat's turn."""
        state: bh.State = table.state
        view = bh.view(state, seat)
        if table.status == "active" and state.phase is bh.Phase.DISCARD:
            dealt = (*view.hand, *view.discard)
            dealer = seat == state.dealer
            lines = computer.discard_table(dealt, dealer, sequences=state.options.sequences)
            text = render.discard_hint_text(lines, dealer=dealer, sequences=state.options.sequences)
            return Aside(Panel(content=text))
        advice = (
            computer.play_advice(view) if state.phase is bh.Phase.PLAY and state.to_move == seat else None
        )
        if table.status != "active" or advice is None:
            raise UserFacingError(
                "There is no decision of yours to hint at just now: hints come while you discard and on "
                "your turn in the play."
            )
        return Aside(Panel(content=render.play_hint_text(advice, state.count)))

    def click(self, table: Table, seat: int, click: Click) -> Move | Panel | Aside:
        state: bh.State = table.state
        if click.verb == "hint":
            return self.hint(table, seat)
        if click.verb == "pick":
            if click.token != self.token(table, seat) or state.phase is not bh.Phase.DISCARD:
                raise StaleAction()
            if len(click.values) != 2:
                raise UserFacingError("Choose exactly two of your cards.")
            a, b = (card_at(v) for v in click.values)
            bh.check(state, bh.Discard(seat, (a, b)))
            note = f"Lay away **{a.title}** and **{b.title}**? Press Confirm (or choose again)."
            return self._panel(table, seat, note, chosen=(a, b))
        if click.verb == "discard":
            parts = click.arg.split("-")
            if len(parts) != 2:
                raise UserFacingError(NO_LONGER)
            a, b = (card_at(x) for x in parts)
            return Move(bh.Discard(seat, (a, b)), click.token, done=self._discarded(seat, a, b))
        if click.verb == "cut":
            return Move(bh.Cut(seat), click.token, done=self._played(seat, ""))
        if click.verb == "play":
            c = card_at(click.arg)
            return Move(bh.Play(seat, c), click.token, done=self._played(seat, f"You played **{c.title}**."))
        raise UserFacingError(NO_LONGER)

    def _discarded(self, seat: int, a: Card, b: Card) -> Any:
        return self._played(seat, f"You laid away **{a.title}** and **{b.title}**.")

    def _played(self, seat: int, note: str) -> Any:
        """The pressed panel after the seat's move: the live panel with what happened on top — or, when the
        move ended the hand, what happened only (the new hand comes as a new panel)."""

        def done(table: Table, events: Sequence[Any]) -> Panel:
            lines = [note, *render.event_lines(events, table.names, table.options.target)]
            if self.replaces(table, events) or table.status != "active":
                return Panel(content=clip_lines(lines))
            return self._panel(table, seat, clip_lines(lines, 900))

        return done

    # ---------------------------------------------------------------- telling the table

    def announce(self, table: Table, events: Sequence[Any]) -> Announcement:
        state: bh.State = table.state
        names = table.names
        over = table.is_over()
        # The show closes with the pegs (unless the game ended: the final board follows anyway).
        pegs = "" if over else render.pegs_text(state, names, _backs(state))
        if any(isinstance(e, bh.DealerCut) for e in events):
            head = f"**Bhargage** — {names[0]} vs {names[1]} ({self.options_text(table.options)})"
            opening = [e for e in events if isinstance(e, bh.DealerCut | bh.HandDealt)]
            rest = [e for e in events if not isinstance(e, bh.DealerCut | bh.HandDealt)]
            texts = render.chunk([head, *render.event_lines(opening, names)])
            texts += render.messages(rest, names, after_show=pegs, target=state.options.target)
        else:
            texts = render.messages(events, names, after_show=pegs, target=state.options.target)
        out = Announcement(messages=texts)
        show = render.show_scene(events, names)
        if show is not None:
            out.picture = picture("show.png", show, "The show: each hand beside the up-card")
            out.picture_at = next((i for i, t in enumerate(texts) if "**The show**" in t), -1)
        if over:
            final = self.board(table).content
            if texts and len(texts[-1]) + len(final) < render.MESSAGE_LIMIT:
                out.messages = [*texts[:-1], f"{texts[-1]}\n{final}"]
            else:
                out.messages = [*texts, final]
            return out
        if state.phase is bh.Phase.DISCARD and any(isinstance(e, bh.HandDealt) for e in events):
            out.ping_seats = table.humans
            who = " ".join(table.mention(s) for s in out.ping_seats)
            out.ping = f"{who}: lay 2 cards away — your new hand is on your panel."
        elif state.phase is bh.Phase.CUT and not table.is_bot(state.non_dealer):
            out.ping_seats = (state.non_dealer,)
            out.ping = (
                f"{table.mention(state.non_dealer)}, cut for the up-card: the **Cut** is on your panel."
            )
        elif state.phase is bh.Phase.PLAY and not table.is_bot(state.to_move):
            out.ping_seats = (state.to_move,)
            out.ping = f"{table.mention(state.to_move)}, your turn — count **{state.count}**."
        return out

    def deal(self, table: Table, events: Sequence[Any]) -> dict[int, str]:
        """Both panels follow the whole table, with what just happened on top (the show, after a hand).
        A discard while the other still chooses changes nothing the other sees."""
        state: bh.State = table.state
        if state.phase is bh.Phase.DISCARD and not self.replaces(table, events):
            return {}
        lines = render.event_lines(events, table.names, state.options.target)
        note = clip_lines(lines, 900)
        return {0: note, 1: note}

    def replaces(self, table: Table, events: Sequence[Any]) -> bool:
        return any(isinstance(e, bh.HandDealt) for e in events)

    def milestone(self, table: Table, events: Sequence[Any]) -> bool:
        return self.replaces(table, events)

    def score_line(self, table: Table) -> str:
        state: bh.State = table.state
        names = table.names
        if state.phase is bh.Phase.OVER and state.winner >= 0:
            return "🏆 " + render.result_text(state.winner, state.scores, names, state.options.target)
        if table.status != "active":
            return f"Ended: {names[0]} {state.scores[0]}, {names[1]} {state.scores[1]}."
        return f"Hand {state.hand_no} · {names[0]} **{state.scores[0]}** · {names[1]} **{state.scores[1]}**"

    def result_lines(self, table: Table, events: Sequence[Any]) -> list[str]:
        won = [e for e in events if isinstance(e, bh.GameWon)]
        return render.event_lines(won, table.names, table.state.options.target)

    def waiting_text(self, table: Table) -> str:
        return render.waiting_text(table.state, table.names)

    # ---------------------------------------------------------------- resigning and idle seats

    def resign_action(self, table: Table, seat: int) -> Any:
        return bh.Resign(seat)

    def resign_question(self, table: Table, seat: int) -> str:
        return f"Resign the game against {table.names[1 - seat]}? It counts as a loss."

    def claim_action(self, table: Table, seat: int) -> Any:
        return bh.parse_action(f"{seat} forfeit")

    def claim_offer(self, table: Table, idle: int, minutes: int) -> tuple[str, str]:
        text = (
            f"{table.mention(1 - idle)}, {table.names[idle]} has not moved for {minutes} minutes. "
            "You may claim the game (it counts as their forfeit)."
        )
        return text, "Claim the game"

    def claimed_text(self, table: Table, idle: int, by: str) -> str:
        return f"{by} claimed the game: {table.names[idle]} forfeits."


ADAPTER = Bhargage()


COUNT_CARDS_LIMIT = 200  # four of the longest card names, with room for typos and spaces
COUNT_UP_LIMIT = 50


def count_answer(cards_text: str, up_text: str, *, bhargage: bool, sequences: bool) -> str:
    """``/bhargage count``: the itemised show count of 3 cards (or a 4-card bhargage) and the up-card.

    The lengths are checked here too: a client can send any text, whatever the command declares."""
    if len(cards_text) > COUNT_CARDS_LIMIT or len(up_text) > COUNT_UP_LIMIT:
        raise UserFacingError(
            "That is longer than any hand: name 3 cards (4 for a bhargage) separated by commas, "
            "and the up-card, e.g. `cards: forest, sailor, ace of moons` `up: bard`."
        )
    kept = cards(cards_text)
    up = card(up_text)
    need = 4 if bhargage else 3
    if len(kept) != need:
        kind = "a bhargage" if bhargage else "a hand"
        raise UserFacingError(
            f"Give {need} cards for {kind} (you gave {len(kept)}), separated by commas, plus the up-card."
        )
    everything = (*kept, up)
    if len(set(everything)) != len(everything):
        raise UserFacingError(
            "Each card is in the deck once: list different cards (and a different up-card)."
        )
    hc = bh.count_hand(kept, up, bhargage=bhargage, sequences=sequences)
    missing = missing_suits(everything)
    return render.count_text(
        kept,
        up,
        hc,
        bhargage=bhargage,
        sequences=sequences,
        missing=missing,
        shortage_points=shortage_for(len(missing)),
    )


def discard_answer(cards_text: str, *, dealer: bool, sequences: bool) -> str:
    """``/bhargage discard``: the coach's table for any five dealt cards."""
    if len(cards_text) > COUNT_CARDS_LIMIT:
        raise UserFacingError(
            "That is longer than any hand: name your 5 dealt cards separated by commas, e.g. "
            "`cards: forest, sailor, ace of moons, bard, author`."
        )
    dealt = cards(cards_text)
    if len(dealt) != bh.HAND_SIZE:
        raise UserFacingError(
            f"Give the {bh.HAND_SIZE} cards you were dealt (you gave {len(dealt)}), separated by commas."
        )
    if len(set(dealt)) != len(dealt):
        raise UserFacingError("Each card is in the deck once: list five different cards.")
    lines = computer.discard_table(dealt, dealer, sequences=sequences)
    return render.discard_hint_text(lines, dealer=dealer, sequences=sequences)
