"""Bhargage's adapter: a two-player challenge; hands, discards and the cut in each player's live panel.

Freshness: play and cut controls carry the table's action count; discard controls carry
"<hand>-<0|1 already discarded>" because both players discard at once (a double click applies once, and
one player's discard does not make the other's menu stale).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from bot.ai import bhargage as computer
from bot.ai import bhargage_why as why
from bot.base.i18n import t, tn
from bot.base.panel import Button, Option, Panel, Select
from bot.base.refusals import UserFacingError
from bot.games import Announcement, Aside, Click, GameAdapter, Lobby, Move, Prefs, StaleAction, Table, clip
from bot.games.controls import play_buttons
from bot.games.prefs import how_to_turn_on
from bot.render import bhargage as render
from bot.render import bhargage_coach as coach
from bot.render import bhargage_scenes as scenes
from bot.render import picture, words
from bot.render.cards import find_card
from bot.render.typed import typed_cards
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import missing_suits, shortage_for
from bot.rules.decktet import ALL_CARDS, Card


def hint_button() -> Button:
    return Button(t("bhargage.button.hint"), "hint", emoji="💡")


def _mention(user_id: int) -> str:
    return f"<@{user_id}>"


def card_at(arg: str) -> Card:
    """A card by its index in the deck, as controls carry it; anything else is a stale or forged id."""
    if not arg.isascii() or not arg.isdigit() or len(arg) > 2 or int(arg) >= len(ALL_CARDS):
        raise UserFacingError("bhargage.panel.out-of-date")
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
        if options.sequences:
            return t("bhargage.options.with-sequences", target=options.target)
        return t("bhargage.options.plain", target=options.target)

    # ---------------------------------------------------------------- the challenge

    def lobby_panel(self, lobby: Lobby) -> Panel:
        options = self.options(lobby.options)
        host, invited = lobby.host_id, lobby.invited_id or 0
        names = lobby.names
        if lobby.status == "open":
            text = t(
                "bhargage.lobby.open",
                invited=_mention(invited),
                host=_mention(host),
                options=self.options_text(options),
                expires=f"<t:{int(lobby.expires_at or 0)}:R>",
            )
            return Panel(
                content=text,
                controls=(
                    Button(t("bhargage.button.accept"), "accept", style="success"),
                    Button(t("bhargage.button.decline"), "decline", style="danger"),
                ),
                pings=(invited,),  # the challenged player; the host asked for it
            )
        if lobby.status == "started":
            opts = self.options_text(options)
            if invited in names and host in names:
                text = t("bhargage.lobby.started", invited=names[invited], host=names[host], options=opts)
            elif host in names:
                text = t("bhargage.lobby.started-unnamed", host=names[host], options=opts)
            elif invited in names:
                text = t("bhargage.lobby.started-no-host", invited=names[invited], options=opts)
            else:
                text = t("bhargage.lobby.started-anonymous", options=opts)
        elif lobby.status == "declined":
            if invited in names:
                text = t("bhargage.lobby.declined", invited=names[invited], host=_mention(host))
            else:
                text = t("bhargage.lobby.declined-unnamed", host=_mention(host))
        elif lobby.status == "cancelled":
            text = t("bhargage.lobby.withdrawn", host=_mention(host))
        else:
            text = t("bhargage.lobby.expired", host=_mention(host), invited=_mention(invited))
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
        scores = {"first": names[0], "first_score": state.scores[0], "second": names[1]}
        target, second_score = state.options.target, state.scores[1]
        if state.up is not None and state.phase is not bh.Phase.OVER:
            up = words.title(state.up)
            alt = t("bhargage.alt.board-up", target=target, second_score=second_score, up=up, **scores)
        else:
            alt = t("bhargage.alt.board", target=target, second_score=second_score, **scores)
        return Panel(
            content=render.board_text(state, names, _backs(state), game_id=table.id),
            picture=picture("bhargage-board.png", scenes.board_scene(state, names), alt),
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
            cards = ", ".join(words.title(c) for c in (*view.hand, *view.discard))
            panel = replace(panel, picture=picture("hand.png", scenes.panel_scene(view, chosen or ()), cards))
        if table.status != "active":
            return panel
        token = self.token(table, seat)
        controls: list[Button | Select] = []
        if state.phase is bh.Phase.DISCARD:
            dealt = scenes.dealt(view)
            picked = {c.index for c in chosen or ()}
            options = tuple(
                Option(label=words.label(c)[:100], value=str(c.index), default=c.index in picked)
                for c in dealt
            )
            if view.discarded[seat]:
                placeholder = t("bhargage.select.change-discards")
            else:
                placeholder = t("bhargage.select.choose-discards")
            controls.append(Select(placeholder, "pick", options, token=token, min_values=2, max_values=2))
            if chosen is not None:
                arg = f"{chosen[0].index}-{chosen[1].index}"
                confirm = Button(
                    t("bhargage.button.confirm"), "discard", token=token, arg=arg, style="success"
                )
                controls.append(confirm)
            controls.append(hint_button())
        elif state.phase is bh.Phase.CUT and seat == state.non_dealer:
            controls.append(Button(t("bhargage.button.cut"), "cut", token=token, style="primary"))
            tip = t("bhargage.panel.cut-tip", how=how_to_turn_on("auto_cut"))
            panel = replace(panel, content=f"{panel.content}\n{tip}")
        elif state.phase is bh.Phase.PLAY and state.to_move == seat:
            legal = {a.card for a in view.legal if isinstance(a, bh.Play)}
            controls.extend(play_buttons(view.hand, lambda c: render.play_label(c, view), legal, token))
            controls.append(hint_button())
        return replace(panel, controls=tuple(controls))

    def hint(self, table: Table, seat: int) -> Aside:
        """The coach: the discard table while discarding, the hard player's card on the seat's turn."""
        state: bh.State = table.state
        view = bh.view(state, seat)
        if table.status == "active" and state.phase is bh.Phase.DISCARD:
            dealt = (*view.hand, *view.discard)
            dealer = seat == state.dealer
            lines = computer.discard_table(dealt, dealer, sequences=state.options.sequences)
            said = coach.discard_hint(
                lines, dealt, dealer=dealer, sequences=state.options.sequences, race=why.race_of(view)
            )
            return Aside(Panel(content=said.text), picks=tuple(said.picks))
        advice = (
            computer.play_advice(view) if state.phase is bh.Phase.PLAY and state.to_move == seat else None
        )
        if table.status != "active" or advice is None:
            raise UserFacingError("bhargage.hint.none")
        said = coach.play_hint(advice, why.play_why(view, advice), state.count)
        return Aside(Panel(content=said.text), picks=tuple(said.picks))

    def click(self, table: Table, seat: int, click: Click) -> Move | Panel | Aside:
        state: bh.State = table.state
        if click.verb == "hint":
            return self.hint(table, seat)
        if click.verb == "pick":
            if click.token != self.token(table, seat) or state.phase is not bh.Phase.DISCARD:
                raise StaleAction()
            if len(click.values) != 2:
                raise UserFacingError("bhargage.panel.choose-two")
            a, b = (card_at(v) for v in click.values)
            bh.check(state, bh.Discard(seat, (a, b)))
            if click.prefs.quick_discard:  # no Confirm: the pick is the discard
                return Move(bh.Discard(seat, (a, b)), click.token, done=self._played(seat, laid=(a, b)))
            note = t("bhargage.panel.confirm-discard", first=words.title(a), second=words.title(b))
            return self._panel(table, seat, note, chosen=(a, b))
        if click.verb == "discard":
            parts = click.arg.split("-")
            if len(parts) != 2:
                raise UserFacingError("bhargage.panel.out-of-date")
            a, b = (card_at(x) for x in parts)
            return Move(bh.Discard(seat, (a, b)), click.token, done=self._played(seat, laid=(a, b)))
        if click.verb == "cut":
            return Move(bh.Cut(seat), click.token, done=self._played(seat))
        if click.verb == "play":
            c = card_at(click.arg)
            return Move(bh.Play(seat, c), click.token, done=self._played(seat, played=c))
        raise UserFacingError("bhargage.panel.out-of-date")

    def _played(self, seat: int, *, played: Card | None = None, laid: tuple[Card, Card] | None = None) -> Any:
        """The pressed panel after the seat's move: the live panel with what happened on top — or, when the
        move ended the hand, what happened only (the new hand comes as a new panel)."""

        def done(table: Table, events: Sequence[Any]) -> Panel:
            # What the seat did is worded when the panel is drawn, in the language in force then.
            said = ""
            if played is not None:
                said = t("bhargage.panel.you-played", card=words.title(played))
            elif laid is not None:
                said = t(
                    "bhargage.panel.you-laid-away", first=words.title(laid[0]), second=words.title(laid[1])
                )
            lines = [said, *render.event_lines(events, table.names, table.options.target)]
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
            head = t(
                "bhargage.board.opening",
                first=names[0],
                second=names[1],
                options=self.options_text(table.options),
            )
            opening = [e for e in events if isinstance(e, bh.DealerCut | bh.HandDealt)]
            rest = [e for e in events if not isinstance(e, bh.DealerCut | bh.HandDealt)]
            texts = render.chunk([head, *render.event_lines(opening, names)])
            texts += render.messages(rest, names, after_show=pegs, target=state.options.target)
        else:
            texts = render.messages(events, names, after_show=pegs, target=state.options.target)
        out = Announcement(messages=texts)
        show = scenes.show_scene(events, names)
        if show is not None:
            out.picture = picture("show.png", show, t("bhargage.alt.show"))
            heading = render.show_heading()
            out.picture_at = next((i for i, text in enumerate(texts) if heading in text), -1)
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
            out.ping = tn("bhargage.ping.discard", len(out.ping_seats), who=who)
        elif state.phase is bh.Phase.CUT and not table.is_bot(state.non_dealer):
            out.ping_seats = (state.non_dealer,)
            out.ping = t("bhargage.ping.cut", who=table.mention(state.non_dealer))
        elif state.phase is bh.Phase.PLAY and not table.is_bot(state.to_move):
            out.ping_seats = (state.to_move,)
            out.ping = t("bhargage.ping.play", who=table.mention(state.to_move), count=state.count)
        return out

    def forced(self, table: Table, prefs: Callable[[int], Prefs]) -> tuple[int, Any] | None:
        """The cut (chance, nothing to decide) and a card that is the only one a player may play, made for
        them at once — when their preferences say so (both on by default)."""
        state: bh.State = table.state
        if table.status != "active" or state.phase not in (bh.Phase.CUT, bh.Phase.PLAY):
            return None
        [seat] = bh.waiting_for(state)
        if table.is_bot(seat):
            return None
        wanted = prefs(seat).auto_cut if state.phase is bh.Phase.CUT else prefs(seat).auto_play
        legal = bh.legal_actions(state, seat)
        return (seat, legal[0]) if wanted and len(legal) == 1 else None

    def redraws(self, table: Table, events: Sequence[Any]) -> dict[int, str]:
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
            return t(
                "bhargage.score.ended",
                first=names[0],
                first_score=state.scores[0],
                second=names[1],
                second_score=state.scores[1],
            )
        return t(
            "bhargage.score.hand",
            hand=state.hand_no,
            first=names[0],
            first_score=state.scores[0],
            second=names[1],
            second_score=state.scores[1],
        )

    def result_lines(self, table: Table, events: Sequence[Any]) -> list[str]:
        won = [e for e in events if isinstance(e, bh.GameWon)]
        return render.event_lines(won, table.names, table.state.options.target)

    def waiting_text(self, table: Table) -> str:
        return render.waiting_text(table.state, table.names)

    # ---------------------------------------------------------------- resigning and idle seats

    def resign_action(self, table: Table, seat: int) -> Any:
        return bh.Resign(seat)

    def resign_question(self, table: Table, seat: int) -> str:
        return t("bhargage.resign.question", opponent=table.names[1 - seat])

    def claim_action(self, table: Table, seat: int) -> Any:
        return bh.parse_action(f"{seat} forfeit")

    def claim_offer(self, table: Table, idle: int, minutes: int) -> tuple[str, str]:
        text = tn("bhargage.claim.offer", minutes, who=table.mention(1 - idle), idle=table.names[idle])
        return text, t("bhargage.button.claim")

    def claimed_text(self, table: Table, idle: int, by: str) -> str:
        return t("bhargage.claim.claimed", by=by, idle=table.names[idle])


ADAPTER = Bhargage()


COUNT_CARDS_LIMIT = 200  # four of the longest card names, with room for typos and spaces
COUNT_UP_LIMIT = 50


def count_answer(cards_text: str, up_text: str, *, bhargage: bool, sequences: bool) -> str:
    """``/bhargage count``: the itemised show count of 3 cards (or a 4-card bhargage) and the up-card.

    The lengths are checked here too: a client can send any text, whatever the command declares."""
    if len(cards_text) > COUNT_CARDS_LIMIT or len(up_text) > COUNT_UP_LIMIT:
        raise UserFacingError("bhargage.count.too-long")
    kept = typed_cards(cards_text, find_card)
    up = find_card(up_text)
    need = 4 if bhargage else 3
    if len(kept) != need:
        if bhargage:
            raise UserFacingError("bhargage.count.wrong-number-bhargage", need=need, gave=len(kept))
        raise UserFacingError("bhargage.count.wrong-number-hand", need=need, gave=len(kept))
    everything = (*kept, up)
    if len(set(everything)) != len(everything):
        raise UserFacingError("bhargage.count.repeated")
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
        raise UserFacingError("bhargage.discard.too-long")
    dealt = typed_cards(cards_text, find_card)
    if len(dealt) != bh.HAND_SIZE:
        raise UserFacingError("bhargage.discard.wrong-number", need=bh.HAND_SIZE, gave=len(dealt))
    if len(set(dealt)) != len(dealt):
        raise UserFacingError("bhargage.discard.repeated")
    lines = computer.discard_table(dealt, dealer, sequences=sequences)
    return coach.discard_hint_text(lines, dealt, dealer=dealer, sequences=sequences, limit=len(lines))  # all
