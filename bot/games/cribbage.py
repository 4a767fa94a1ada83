"""Classic Cribbage's adapter: a two-player challenge, or an open lobby of 2–4 (four play in partnerships,
seats 0 & 2 against 1 & 3, in the lobby's order); hands, lay-aways, the cut and muggins claims in each
player's live panel (:mod:`.cribbage_panel`), the board and the calls in the channel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from bot.ai import cribbage as computer
from bot.ai import cribbage_expert as expert
from bot.ai import cribbage_why as why
from bot.ai.cribbage import PlayAdvice
from bot.base.i18n import Msg, both, t, tn
from bot.base.panel import Button, Panel
from bot.base.refusals import UserFacingError
from bot.games import (
    Announcement,
    Aside,
    Click,
    Consult,
    GameAdapter,
    Lobby,
    Move,
    Prefs,
    StaleAction,
    Table,
    clip,
)
from bot.games import cribbage_panel as P
from bot.render import cribbage as render
from bot.render import cribbage_coach as coach
from bot.render import cribbage_scenes as scenes
from bot.render import picture
from bot.render.cribbage_words import label, read_card, score_line, short, side_name
from bot.render.hints import thought_line
from bot.render.typed import typed_cards
from bot.rules import cribbage as C
from bot.rules import pack52
from bot.rules.cribbage_scoring import peg_items
from bot.rules.pack52 import Card


def _mention(user_id: int) -> str:
    return f"<@{user_id}>"


# What an open table's message says once it no longer takes players (any other status: cancelled).
CLOSED = {"started": Msg("cribbage.lobby.started"), "expired": Msg("cribbage.lobby.expired")}


class Cribbage(GameAdapter):
    name = "cribbage"
    title = "Cribbage"  # i18n: not text (the game's name)
    rules = C
    ai = computer
    command = "/cribbage"
    min_players = 2
    max_players = 4
    challenge = True
    gathers = True
    colour = 0x8E2A2A

    def rules_text(self, link: str | None = None) -> str:
        return render.rules_text(link)

    def options_text(self, options: Any) -> str:
        return render.options_text(options)

    # ---------------------------------------------------------------- the challenge or the lobby

    def lobby_panel(self, lobby: Lobby) -> Panel:
        opts = self.options_text(self.options(lobby.options))
        if lobby.challenge:
            return self._challenge(lobby, opts)
        names = [lobby.names.get(m, str(m)) for m in lobby.members]
        host = lobby.names.get(lobby.host_id) or t("cribbage.lobby.someone")
        lines = [
            t("cribbage.lobby.head", host=host, options=opts),
            t("cribbage.lobby.players", count=len(names), names=", ".join(names) or "—"),
        ]
        if len(names) == 4:
            lines.append(render.partners_text(names))
        if lobby.status != "open":
            return Panel(
                content="\n".join([*lines, str(CLOSED.get(lobby.status, Msg("cribbage.lobby.cancelled")))])
            )
        lines.append(t("cribbage.lobby.open"))
        controls = (
            Button(t("cribbage.lobby.join"), "join", style="success"),
            Button(t("cribbage.lobby.leave"), "leave"),
            Button(t("cribbage.lobby.start"), "start", style="primary"),
            Button(t("cribbage.lobby.cancel"), "cancel", style="danger"),
            *self.bot_controls(lobby),
        )
        return Panel(content="\n".join(lines), controls=controls)

    def _challenge(self, lobby: Lobby, opts: str) -> Panel:
        """A challenge of two: Accept and Decline for the invited player, who alone is pinged."""
        host, invited = lobby.host_id, lobby.invited_id or 0
        someone = t("cribbage.lobby.someone")
        host_name, invited_name = lobby.names.get(host) or someone, lobby.names.get(invited) or someone
        if lobby.status == "open":
            expires = f"<t:{int(lobby.expires_at or 0)}:R>"
            text = t(
                "cribbage.challenge.open",
                invited=_mention(invited),
                host=_mention(host),
                options=opts,
                expires=expires,
            )
            accept = Button(t("cribbage.button.accept"), "accept", style="success")
            decline = Button(t("cribbage.button.decline"), "decline", style="danger")
            return Panel(content=text, controls=(accept, decline), pings=(invited,))
        if lobby.status == "started":
            return Panel(
                content=t("cribbage.challenge.started", invited=invited_name, host=host_name, options=opts)
            )
        if lobby.status == "declined":
            return Panel(content=t("cribbage.challenge.declined", invited=invited_name, host=host_name))
        if lobby.status == "cancelled":
            return Panel(content=t("cribbage.challenge.withdrawn", host=host_name))
        return Panel(content=t("cribbage.challenge.expired", invited=invited_name, host=host_name))

    # ---------------------------------------------------------------- the table

    def token(self, table: Table, seat: int) -> str:
        return P.token(table, seat)

    def board(self, table: Table) -> Panel:
        state: C.State = table.state
        names = table.names
        alt = t(
            "cribbage.alt.board",
            scores=score_line(names, state.players, state.scores),
            target=state.options.target,
        )
        return Panel(
            content=render.board_text(state, names, game_id=table.id),
            picture=picture("cribbage-board.png", scenes.board_scene(state, names), alt),
        )

    def seat_panel(self, table: Table, seat: int, note: str = "") -> Panel:
        return P.seat_panel(table, seat, note)

    def hint(self, table: Table, seat: int) -> Aside:
        """The coach: the lay-away table while laying away, the hard player's card on the seat's turn."""
        state: C.State = table.state
        view = C.view(state, seat)
        if table.status == "active" and state.phase is C.Phase.DISCARD:
            ours = C.side_of(state, state.dealer) == C.side_of(state, seat)
            dealt = scenes.dealt(view)
            lines = computer.discard_table(dealt, players=state.players, dealer=ours)
            said = coach.discard_hint(lines, dealt, ours=ours, players=state.players, race=why.race_of(view))
            return Aside(Panel(content=said.text), picks=tuple(said.picks))
        if table.status == "active" and state.phase is C.Phase.PLAY and state.to_move == seat:
            advice = computer.play_advice(view)
            if advice is not None:
                said = coach.play_hint(advice, why.play_why(view, advice), state.count)
                consult = None
                if state.players == 2:  # the expert plays two-handed games
                    seed = self.coach_seed(table, seat)
                    consult = Consult(expert.weigh, view, seed, partial(expert_play_hint, view))
                return Aside(Panel(content=said.text), picks=tuple(said.picks), consult=consult)
        raise UserFacingError("cribbage.hint.none")

    def click(self, table: Table, seat: int, click: Click) -> Move | Panel | Aside:
        state: C.State = table.state
        verb = click.verb
        if verb == "hint":
            return self.hint(table, seat)
        if verb == "pick":
            return self._pick(table, seat, click)
        if click.values and verb != "tally":
            raise UserFacingError("tavern.out-of-date")
        if verb == "lay":
            laid = P.laid_arg(click.arg, C.lay_away_size(state.players))
            return Move(C.LayAway(seat, laid), click.token, done=self._after(seat, P.you_laid(laid)))
        if verb == "cut" and not click.arg:
            return Move(C.Cut(seat), click.token, done=self._after(seat, ""))
        if verb == "play":
            played = P.card_at(click.arg)
            said = t("cribbage.panel.you-played", card=short(played))
            return Move(C.Play(seat, played), click.token, done=self._after(seat, said))
        if verb == "tally":
            points = P.claim_arg(click.arg, click.values)
            said = tn("cribbage.panel.you-claimed", points)
            return Move(C.Claim(seat, points), click.token, done=self._after(seat, said))
        raise UserFacingError("tavern.out-of-date")

    def _pick(self, table: Table, seat: int, click: Click) -> Move | Panel:
        """Cards picked in the lay-away menu: laid away at once (a quick discard), or shown for Confirm."""
        state: C.State = table.state
        if click.token != self.token(table, seat) or state.phase is not C.Phase.DISCARD or click.arg:
            raise StaleAction()
        size = C.lay_away_size(state.players)
        if len(click.values) != size or len(set(click.values)) != size:
            raise UserFacingError("tavern.out-of-date")
        laid = tuple(sorted((P.card_at(v) for v in click.values), key=pack52.sort_key))
        C.check(state, C.LayAway(seat, laid))
        if click.prefs.quick_discard:
            return Move(C.LayAway(seat, laid), click.token, done=self._after(seat, P.you_laid(laid)))
        note = tn("cribbage.panel.confirm", size, cards=", ".join(label(c) for c in laid))
        return P.seat_panel(table, seat, note, chosen=laid)

    def _after(self, seat: int, said: str) -> Callable[[Table, Sequence[Any]], Panel]:
        """The pressed panel after the seat's move: what it did and what followed on top of its live panel —
        or, when the move ended the hand or the game, only that (a new hand comes as a new panel)."""

        def done(table: Table, events: Sequence[Any]) -> Panel:
            lines = [said, *self._lines(table).of(events)]
            if self.replaces(table, events) or table.status != "active":
                return Panel(content=clip([ln for ln in lines if ln], self.message_limit))
            return P.seat_panel(table, seat, clip([ln for ln in lines if ln], 900))

        return done

    # ---------------------------------------------------------------- telling the table

    @staticmethod
    def _lines(table: Table) -> render.Lines:
        return render.Lines(table.names, len(table.seats), table.options.target)

    def announce(self, table: Table, events: Sequence[Any]) -> Announcement:
        state: C.State = table.state
        lines = self._lines(table)
        showing = table.is_over() or state.phase is C.Phase.CLAIM  # the pegs close the show, once
        pegs = "" if showing else render.pegs_text(state, table.names)
        texts: list[str] = []
        if any(isinstance(e, C.DealerCut) for e in events):
            head = t(
                "cribbage.board.opening", players=both(table.names), options=self.options_text(table.options)
            )
            opening = [e for e in events if isinstance(e, C.DealerCut | C.HandDealt)]
            partners = [render.partners_text(table.names)] if state.players == 4 else []
            texts = render.chunk([head, *partners, *lines.of(opening)])
            events = [e for e in events if not isinstance(e, C.DealerCut | C.HandDealt)]
        texts += render.messages(lines, events, after_show=pegs)
        out = Announcement(messages=texts)
        show = scenes.show_scene(events, table.names)
        if show is not None:
            out.picture = picture("show.png", show, t("cribbage.alt.show"))
            out.picture_at = next((i for i, text in enumerate(texts) if render.show_heading() in text), -1)
        if table.is_over():
            out.messages = render.chunk([*texts, self.board(table).content])
        else:
            self._ping(table, events, out)
        return out

    @staticmethod
    def _ping(table: Table, events: Sequence[Any], out: Announcement) -> None:
        """Call whoever the game now waits for, once per step: everyone to lay away at a new hand, the cutter,
        the player to move, the owner of the count to claim."""
        state: C.State = table.state
        waiting = [s for s in C.waiting_for(state) if not table.is_bot(s)]
        if not waiting:
            return
        who = " ".join(table.mention(s) for s in waiting)
        if state.phase is C.Phase.DISCARD:
            if any(isinstance(e, C.HandDealt) for e in events):
                out.ping = tn("cribbage.ping.lay-away", len(waiting), who=who)
        elif state.phase is C.Phase.CUT:
            out.ping = t("cribbage.ping.cut", who=who)
        elif state.phase is C.Phase.PLAY:
            out.ping = t("cribbage.ping.play", who=who, count=state.count)
        elif state.phase is C.Phase.CLAIM:
            out.ping = t("cribbage.ping.claim", who=who)
        if out.ping:
            out.ping_seats = tuple(waiting)

    def forced(self, table: Table, prefs: Callable[[int], Prefs]) -> tuple[int, Any] | None:
        """The cut (chance: nothing to decide) and the only card a player may play, made for them at once when
        their preferences say so (both on by default)."""
        state: C.State = table.state
        if table.status != "active" or state.phase not in (C.Phase.CUT, C.Phase.PLAY):
            return None
        seat = C.waiting_for(state)[0]
        if table.is_bot(seat):
            return None
        legal = C.legal_actions(state, seat)
        wanted = prefs(seat).auto_cut if state.phase is C.Phase.CUT else prefs(seat).auto_play
        return (seat, legal[0]) if wanted and len(legal) == 1 else None

    def redraws(self, table: Table, events: Sequence[Any]) -> dict[int, str]:
        """Every panel at a new hand, the cut, the show and the end; in the play (and a muggins show), the
        panel of whoever moves next. A lay-away while others still choose changes nothing anyone else sees."""
        state: C.State = table.state
        shared = C.HandDealt | C.CribMade | C.StarterTurned | C.PlayEnded | C.GameWon
        everyone = any(isinstance(e, shared) for e in events)
        if state.phase is C.Phase.DISCARD and not everyone:
            return {}
        note = clip([ln for ln in self._lines(table).of(events) if ln], 900)
        seats = range(len(table.seats)) if everyone else table.waiting_for()
        return {s: note for s in seats}

    def replaces(self, table: Table, events: Sequence[Any]) -> bool:
        """A new hand is dealt: new panels, and the summary's standing changes (a hand ended)."""
        return any(isinstance(e, C.HandDealt) for e in events)

    milestone = replaces

    def score_line(self, table: Table) -> str:
        state: C.State = table.state
        names = table.names
        if state.phase is C.Phase.OVER:
            result = C.final_result(state)
            return "🏆 " + render.result_text(names, state.players, state.winners, state.scores, result.lurch)
        scores = score_line(names, state.players, state.scores)
        if table.status != "active":
            return t("cribbage.score.ended", scores=scores)
        return t("cribbage.score.hand", hand=state.hand_no, scores=scores)

    def result_lines(self, table: Table, events: Sequence[Any]) -> list[str]:
        return self._lines(table).of([e for e in events if isinstance(e, C.GameWon)])

    def waiting_text(self, table: Table) -> str:
        return render.waiting_text(table.state, table.names)

    # ---------------------------------------------------------------- resigning and idle seats

    def resign_action(self, table: Table, seat: int) -> Any:
        return C.Resign(seat)

    def partners(self, table: Table, seat: int) -> tuple[int, ...]:
        """With four, the seat across the table (seats 0 and 2, 1 and 3)."""
        state: C.State = table.state
        side = C.side_of(state, seat)
        return tuple(s for s in range(state.players) if s != seat and C.side_of(state, s) == side)

    def resign_question(self, table: Table, seat: int) -> str:
        state: C.State = table.state
        mine = C.side_of(state, seat)
        others = both(side_name(table.names, state.players, s) for s in range(len(state.scores)) if s != mine)
        if state.players == 4:
            return t("cribbage.resign.question-partners", partner=table.names[(seat + 2) % 4], others=others)
        return t("cribbage.resign.question", others=others)

    def claim_action(self, table: Table, seat: int) -> Any:
        return C.Resign(seat, "forfeit")

    def claim_offer(self, table: Table, idle: int, minutes: int) -> tuple[str, str]:
        state: C.State = table.state
        others = [s for s in table.humans if C.side_of(state, s) != C.side_of(state, idle)]
        who = " ".join(table.mention(s) for s in others)
        text = tn("cribbage.claim.offer", minutes, who=who, idle=table.names[idle])
        return text, t("cribbage.button.claim")

    def claimed_text(self, table: Table, idle: int, by: str) -> str:
        return t("cribbage.claim.claimed", by=by, idle=table.names[idle])


ADAPTER = Cribbage()


# ---------------------------------------------------------------- the calculators

CARDS_TEXT_LIMIT = 150  # six cards written out long ("queen of diamonds, …"), with room for spaces
CARD_TEXT_LIMIT = 30  # one card by name: "the queen of diamonds", "il quattro di picche"


def read_cards(text: str, most: int) -> tuple[Card, ...]:
    """Cards as a player types them (``cribbage_words.read_card``): codes in any case ("5H TC jd"), marks
    ("5♥ 10♣"), names in the language in force or English ("five of hearts", "cinque di cuori"), spaces or
    commas between; at most ``most`` of them. Anything else is refused, quoted back harmlessly."""
    out = typed_cards(text, read_card)
    if len(out) > most:
        raise UserFacingError("cribbage.calc.too-many", most=most, gave=len(out))
    if len(set(out)) != len(out):
        raise UserFacingError("cribbage.calc.repeated")
    return tuple(out)


def count_answer(cards_text: str, starter_text: str, *, crib: bool) -> str:
    """``/cribbage count``: the itemized show of 4 cards and the starter (a crib counts only a 5-card flush).
    The lengths are checked here too: a client can send any text, whatever the command declares."""
    if len(cards_text) > CARDS_TEXT_LIMIT or len(starter_text) > CARD_TEXT_LIMIT:
        raise UserFacingError("cribbage.calc.too-long")
    hand = read_cards(cards_text, 4)
    if len(hand) != 4:
        raise UserFacingError("cribbage.calc.four-cards", gave=len(hand))
    starter = read_cards(starter_text, 1)
    if len(starter) != 1:
        raise UserFacingError("cribbage.calc.one-starter")
    if starter[0] in hand:
        raise UserFacingError("cribbage.calc.repeated")
    return render.count_text(hand, starter[0], crib)


def discard_answer(cards_text: str, *, players: int, dealer: bool) -> str:
    """``/cribbage discard``: the coach's lay-away table for the cards dealt (6 with two players, 5 with three
    or four)."""
    if len(cards_text) > CARDS_TEXT_LIMIT:
        raise UserFacingError("cribbage.calc.too-long")
    if players not in C.PLAYERS:
        raise UserFacingError("tavern.out-of-date")
    need = 6 if players == 2 else 5
    dealt = read_cards(cards_text, need)
    if len(dealt) != need:
        raise UserFacingError("cribbage.calc.dealt-cards", need=need, gave=len(dealt))
    lines = computer.discard_table(dealt, players=players, dealer=dealer)
    return coach.discard_text(lines, dealt, ours=dealer, players=players, limit=len(lines))


def expert_play_hint(view: C.SeatView, weighing: expert.Weighing, seconds: float) -> Aside:
    """The coach's word in the play from the expert's weighing: its card and why, as the hard player's is
    told, and how long it thought over the opponent's likely hands."""
    points = dict(weighing.points)
    card = weighing.card
    pile = [c for _, c in view.pile]
    others = sorted(
        ((a.card, points[a.card.rank]) for a in view.legal if isinstance(a, C.Play) and a.card != card),
        key=lambda cv: -cv[1],
    )
    advice = PlayAdvice(card, peg_items([*pile, card]), points[card.rank], tuple(others))
    by_points = expert.best_card(view, points)
    said = coach.play_hint(advice, why.play_why(view, advice, by_points), view.count)
    said.add(thought_line(seconds))
    return Aside(Panel(content=said.text), picks=tuple(said.picks))
