"""Bhargage as text: what the channel, the board and a player's private panel say (no Discord here).

Every call is worded as the seed announces it (R13): "11 for 2", "2 for a pair", "6 for bharg", "1 for last",
"2 for the Chief", "Shortage: 3", "Muggins!", "Game!".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from bot.base.i18n import both, t, tn
from bot.base.text import RULES_DOCS, rules_link
from bot.render import suits, words
from bot.render.board import Lane, draw_board
from bot.rules import bhargage as bh
from bot.rules import bhargage_scoring as sc
from bot.rules.bhargage_scoring import GAME, HandCount, ScoreItem
from bot.rules.decktet import Card, Rank, Suit

MESSAGE_LIMIT = 1900  # under Discord's 2000, leaving room for a ping line

_RUN = re.compile(r"^(\d+) for a run$")


def call_text(reason: str) -> str:
    """A scoring call as the table announces it, in the language in force: the engines name each call by
    its English words ("2 for a pair"), which stay their identity in events and logs."""
    if reason == sc.ELEVEN:
        return t("bhargage.call.eleven")
    if reason == sc.TWENTY_THREE:
        return t("bhargage.call.twenty-three")
    if reason == sc.BHARG:
        return t("bhargage.call.bharg")
    if reason == sc.FRIEND:
        return t("bhargage.call.friend")
    if reason == GAME:
        return t("bhargage.call.game")
    if reason == bh.CHIEF:
        return t("bhargage.call.chief")
    if reason == bh.LAST:
        return t("bhargage.call.last")
    if reason == sc.SET_REASONS[2]:
        return t("bhargage.call.pair")
    if reason == sc.SET_REASONS[3]:
        return t("bhargage.call.three")
    if reason == sc.SET_REASONS[4]:
        return t("bhargage.call.four")
    if reason == sc.SET_REASONS[5]:
        return t("bhargage.call.five")
    run = _RUN.match(reason)
    if run:
        return t("bhargage.call.run", points=int(run.group(1)))
    return reason  # i18n: not text


def how_text(how: str, loser: str) -> str:
    """The line that says how a game ended (none for reaching the target)."""
    if how == "resign":
        return t("bhargage.won.resign", loser=loser)
    if how == "forfeit":
        return t("bhargage.won.forfeit", loser=loser)
    if how == "game":
        return t("bhargage.won.game")
    if how == "muggins":
        return t("bhargage.won.muggins")
    return ""


def card_label(c: Card) -> str:
    """A card as a Bhargage player reads it: name, rank and count value (where they differ), suits —
    "the Forest (5) 🌙🍃", "the Sea (Crown, 10) 🌊", "the Watchman (Pawn, 0) …", "Ace of Moons (1) 🌙"."""
    if c.rank is Rank.EXCUSE:
        return f"{words.title(c)} (0)"
    rank = "1" if c.rank is Rank.ACE else words.rank(c.rank)
    inner = rank if rank == str(c.value) else f"{rank}, {c.value}"
    return f"{words.title(c)} ({inner}) {suits.marks(c.suits)}"


def cards_text(cards: Iterable[Card], *, short: bool = False) -> str:
    """Cards joined for reading: labels with rank, value and suits, or just their titles when ``short``."""
    return ", ".join(words.title(c) if short else card_label(c) for c in cards) or "—"


def _item(item: ScoreItem) -> str:
    return f"• {call_text(item.reason)} — {' + '.join(words.title(c) for c in item.cards)}"


def _score(names: Sequence[str], seat: int, total: int) -> str:
    return f"{names[seat]} ({total})"


# ---------------------------------------------------------------- the channel


def event_lines(events: Sequence[bh.Event], names: Sequence[str], target: int | None = None) -> list[str]:
    """One line (or a few) per event, in order; secret events (a discard) say nothing. ``target``, when
    given, is named in the winning line."""
    lines: list[str] = []
    for ev in events:
        if isinstance(ev, bh.DealerCut):
            for a, b in ev.cuts:
                cut = {"first": names[0], "first_card": card_label(a), "second": names[1]}
                if a.rank == b.rank:
                    lines.append(t("bhargage.deal.cut-again", second_card=card_label(b), **cut))
                else:
                    lines.append(t("bhargage.deal.cut", second_card=card_label(b), **cut))
            lines.append(t("bhargage.deal.first", dealer=names[ev.dealer]))
        elif isinstance(ev, bh.HandDealt):
            lines.append(t("bhargage.deal.hand", hand=ev.hand_no, dealer=names[ev.dealer]))
        elif isinstance(ev, bh.BhargageMade):
            lines.append(tn("bhargage.deal.bhargage-made", ev.size, dealer=names[ev.dealer]))
        elif isinstance(ev, bh.UpCardTurned):
            lines.append(t("bhargage.play.up-card-turned", name=names[ev.seat], card=card_label(ev.card)))
        elif isinstance(ev, bh.CardPlayed):
            lines.append(
                t("bhargage.play.card-played", name=names[ev.seat], card=card_label(ev.card), count=ev.count)
            )
        elif isinstance(ev, bh.PointsScored):
            if ev.reason == GAME:
                lines.append(t("bhargage.play.game", name=names[ev.seat]))
            else:
                lines.append(
                    t(
                        "bhargage.play.scored",
                        call=call_text(ev.reason),
                        score=_score(names, ev.seat, ev.total_after),
                    )
                )
        elif isinstance(ev, bh.WentGo):
            lines.append(t("bhargage.play.go", name=names[ev.seat]))
        elif isinstance(ev, bh.PlayEnded):
            lines.append(t("bhargage.play.over", count=ev.count))
        elif isinstance(ev, bh.HandCounted):
            lines.extend(counted_lines(ev, names))
        elif isinstance(ev, bh.ShortageClaimed):
            if ev.points:  # 0-point claims are not worth a line
                lines.append(shortage_line(ev, names))
        elif isinstance(ev, bh.GameWon):
            lines.extend(won_lines(ev, names, target))
    return lines


def shortage_line(ev: bh.ShortageClaimed, names: Sequence[str]) -> str:
    """Whose cards fall short and who scores for it: "Shortage in Ben's hand: 3 for Ann (25)"."""
    said = {
        "owner": names[ev.owner],
        "points": ev.points,
        "name": names[ev.claimant],
        "total": ev.total_after,
        "suits": suits.with_names(ev.missing),
    }
    if ev.kind == "bhargage":
        return t("bhargage.show.shortage-bhargage", **said)
    return t("bhargage.show.shortage-hand", **said)


BUTTON_LABEL = 80  # Discord's longest button label


def play_label(card: Card, view: bh.SeatView) -> str:
    """A card's button in the play: its value, the count it makes and what it scores there — "the Harvest
    🌙☀️🍃 0 → 11 · 11 for 2" — or that it would pass 23."""
    name = f"{words.title(card)} {card.suit_emoji}".rstrip()
    value = sc.card_value(card)
    count = view.count + value
    if count > bh.LIMIT:
        label = t("bhargage.button.play-too-high", card=name, value=value)
    else:
        pile = [*(c for _, c in view.pile), card]
        scored = sc.peg_points(pile, sequences=view.sequences)
        if scored:
            calls = ", ".join(call_text(item.reason) for item in scored)
            label = t("bhargage.button.play-scores", card=name, value=value, count=count, calls=calls)
        else:
            label = t("bhargage.button.play", card=name, value=value, count=count)
    return label if len(label) <= BUTTON_LABEL else label[: BUTTON_LABEL - 1] + "…"


def whose_hand(ev: bh.HandCounted, names: Sequence[str]) -> str:
    """ "Ann's hand", "Ann's bhargage"."""
    if ev.kind == "bhargage":
        return t("bhargage.show.whose-bhargage", name=names[ev.seat])
    return t("bhargage.show.whose-hand", name=names[ev.seat])


def counted_lines(ev: bh.HandCounted, names: Sequence[str]) -> list[str]:
    whose = whose_hand(ev, names)
    lines = [t("bhargage.show.cards", whose=whose, cards=cards_text(ev.cards), up=card_label(ev.up))]
    lines.extend(_item(it) for it in ev.items)
    lines.append(
        t("bhargage.show.total", whose=whose, total=ev.total, score=_score(names, ev.seat, ev.total_after))
    )
    return lines


def won_lines(ev: bh.GameWon, names: Sequence[str], target: int | None = None) -> list[str]:
    loser = names[1 - ev.seat]
    lines = []
    note = how_text(ev.how, loser)
    if note:
        lines.append(note)
    lines.append(f"🏆 {result_text(ev.seat, ev.scores, names, target if ev.how != 'resign' else None)}")
    return lines


def result_text(winner: int, scores: Sequence[int], names: Sequence[str], target: int | None) -> str:
    """Who won, how far: "**Ann** reaches 121 and wins — Ann 125, Bob 111"."""
    params = {
        "winner": names[winner],
        "winner_score": scores[winner],
        "loser": names[1 - winner],
        "loser_score": scores[1 - winner],
    }
    if target is not None and scores[winner] >= target:
        return t("bhargage.result.reaches", target=target, **params)
    return t("bhargage.result.wins", **params)


def messages(
    events: Sequence[bh.Event], names: Sequence[str], *, after_show: str = "", target: int | None = None
) -> list[str]:
    """The channel messages for one action: the play part, then the show (if any), then what follows.

    ``after_show`` (the pegs, see :func:`pegs_text`) closes the show, as the issue's "then the board" asks.
    Each message stays under Discord's limit; a long show is split between lines, never inside one.
    """
    blocks: list[list[bh.Event]] = [[]]
    previous: bh.Event | None = None
    for ev in events:
        in_show = isinstance(previous, bh.HandCounted | bh.ShortageClaimed)
        starts_show = isinstance(ev, bh.HandCounted) and not in_show and blocks[-1]
        previous = ev
        if starts_show or (isinstance(ev, bh.HandDealt) and blocks[-1]):
            blocks.append([])
        blocks[-1].append(ev)
    out: list[str] = []
    for block in blocks:
        lines = event_lines(block, names, target)
        if any(isinstance(e, bh.HandCounted) for e in block):
            lines.insert(0, show_heading())
            if after_show:
                lines.append(after_show)
        out.extend(chunk(lines))
    return out


def show_heading() -> str:
    """The line that opens the show in the channel ("**The show**")."""
    return t("bhargage.show.heading")


def chunk(lines: Sequence[str], limit: int = MESSAGE_LIMIT) -> list[str]:
    out: list[str] = []
    current = ""
    for line in lines:
        line = line[:limit]
        if current and len(current) + 1 + len(line) > limit:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return out


# ---------------------------------------------------------------- the board


def waiting_text(state: bh.State, names: Sequence[str]) -> str:
    if state.phase is bh.Phase.DISCARD:
        who = [names[s] for s in bh.waiting_for(state)]
        return tn("bhargage.waiting.discard", len(who), names=both(who))
    if state.phase is bh.Phase.CUT:
        return t("bhargage.waiting.cut", name=names[state.non_dealer])
    if state.phase is bh.Phase.PLAY:
        return t("bhargage.waiting.play", name=names[state.to_move])
    if state.winner >= 0:
        return t("bhargage.waiting.over-won", name=names[state.winner])
    return t("bhargage.waiting.over")


def pegs_text(state: bh.State, names: Sequence[str], backs: Mapping[int, int] | None = None) -> str:
    """Both lanes of the cribbage board, 10 → target, as a code block."""
    backs = backs or {}
    lanes = [Lane(names[s], state.scores[s], backs.get(s)) for s in (0, 1)]
    return f"```\n{draw_board(lanes, bh.START_SCORE, state.options.target)}\n```"


def board_text(
    state: bh.State, names: Sequence[str], backs: Mapping[int, int] | None = None, *, game_id: int = 0
) -> str:
    """The one board message: both lanes 10 → target, the deal, the up-card, the pile and the count."""
    target = state.options.target
    if state.options.sequences:
        opts = t("bhargage.board.options-sequences", target=target)
    else:
        opts = t("bhargage.board.options", target=target)
    head = f"**Bhargage** ({opts})"
    if state.phase is not bh.Phase.OVER:
        head += t("bhargage.board.hand", hand=state.hand_no, dealer=names[state.dealer])
    lines = [head, pegs_text(state, names, backs)]
    if state.phase is not bh.Phase.OVER:
        if state.up is not None:
            lines.append(t("bhargage.board.up-card", card=card_label(state.up)))
        if state.phase is bh.Phase.PLAY:
            lines.append(pile_text(state.pile, state.count))
    lines.append(waiting_text(state, names))
    if game_id:
        lines.append(t("bhargage.board.legend-game", legend=suits.legend(), game=game_id))
    else:
        lines.append(t("bhargage.board.legend", legend=suits.legend()))
    return "\n".join(lines)


def pile_text(pile: Sequence[tuple[int, Card]], count: int) -> str:
    """The cards of this count, oldest first, with their suits: "Play: the Forest (5) 🌙🍃 · … — count 14"."""
    if not pile:
        return t("bhargage.board.pile-empty")
    return t("bhargage.board.pile", cards=" · ".join(card_label(c) for _, c in pile), count=count)


# ---------------------------------------------------------------- a player's private panel


def _discard_lines(view: bh.SeatView, names: Sequence[str]) -> list[str]:
    """The panel's lines while discarding: all five cards, what was laid away (and who is still choosing),
    or whose bhargage the two go to."""
    me, other = view.seat, 1 - view.seat
    mine, dealer_name = view.dealer == me, names[view.dealer]
    lines = [t("bhargage.panel.your-cards", cards=cards_text((*view.hand, *view.discard)))]
    if view.discarded[me]:
        laid = cards_text(view.discard)
        if mine:
            lines.append(t("bhargage.panel.laid-away-yours", cards=laid))
        else:
            lines.append(t("bhargage.panel.laid-away-theirs", cards=laid, dealer=dealer_name))
        lines.append(t("bhargage.panel.waiting-for", name=names[other]) if not view.discarded[other] else "")
        lines.append(t("bhargage.panel.may-change"))
    elif mine:
        lines.append(t("bhargage.panel.choose-yours"))
    else:
        lines.append(t("bhargage.panel.choose-theirs", dealer=dealer_name))
    lines.append(t("bhargage.panel.legend", legend=suits.legend()))
    return lines


def hand_text(view: bh.SeatView, names: Sequence[str]) -> str:
    """One seat's live panel: the whole table it needs to decide — the standing and target, the deal, the
    up-card, the count and pile with suits, the opponent's last card, whose turn — and its own cards."""
    me, other = view.seat, 1 - view.seat
    mine = view.dealer == me
    dealer = t("bhargage.panel.you-deal") if mine else t("bhargage.panel.they-deal", name=names[view.dealer])
    lines = [
        t(
            "bhargage.panel.head",
            hand=view.hand_no,
            dealer=dealer,
            mine=view.scores[me],
            other=names[other],
            theirs=view.scores[other],
            target=view.target,
        )
    ]
    dealer_name = names[view.dealer]
    if view.phase is bh.Phase.DISCARD:
        lines += _discard_lines(view, names)
        return "\n".join(line for line in lines if line)
    if view.up is not None:
        lines.append(t("bhargage.board.up-card", card=card_label(view.up)))
    if view.phase is bh.Phase.PLAY:
        lines.append(pile_text(view.pile, view.count))
        theirs = [c for s, c in view.pile if s == other]
        if theirs:
            lines.append(t("bhargage.panel.their-last-card", name=names[other], card=card_label(theirs[-1])))
    lines.append(t("bhargage.panel.your-cards", cards=cards_text(view.hand)))
    if view.discard:
        short = cards_text(view.discard, short=True)
        if mine:
            lines.append(t("bhargage.panel.discard-yours", cards=short))
        else:
            lines.append(t("bhargage.panel.discard-theirs", cards=short, dealer=dealer_name))
    if view.phase is bh.Phase.CUT:
        if view.dealer != me:
            lines.append(t("bhargage.panel.your-cut"))
        else:
            lines.append(t("bhargage.waiting.cut", name=names[other]))
    elif view.phase is bh.Phase.PLAY:
        if view.to_move == me:
            lines.append(t("bhargage.panel.your-turn"))
        else:
            lines.append(t("bhargage.waiting.play", name=names[other]))
    else:
        lines.append(t("bhargage.panel.over"))
    return "\n".join(line for line in lines if line)


# ---------------------------------------------------------------- help and the calculator


# The short help for ``/bhargage rules``: what a newcomer needs to start; docs/rules-bhargage.md has the rest.
# It follows RULES.md (R1–R11) without naming the rulings; tests/test_player_rules.py keeps it short.
RULES = "bhargage.rules.summary"  # the id of the short rules (looked up when shown, in the reader's language)


def rules_text(link: str | None = None) -> str:
    """The short rules, ending with where to read the full ones (``link``; the repository's file if None)."""
    where = link or rules_link(RULES_DOCS["bhargage"])
    return t("bhargage.rules.summary") + "\n" + t("bhargage.rules.full", link=where)


def count_text(
    cards: Sequence[Card],
    up: Card,
    hc: HandCount,
    *,
    bhargage: bool,
    sequences: bool,
    missing: Sequence[Suit],
    shortage_points: int,
) -> str:
    """The hand calculator's answer: the cards, every scoring item, the total and the shortage."""
    shown = cards_text(cards)
    head = t("bhargage.count.bhargage", cards=shown) if bhargage else t("bhargage.count.hand", cards=shown)
    lines = [head, t("bhargage.count.up-card", card=words.label(up))]
    if sequences:
        lines.append(t("bhargage.count.sequences"))
    lines.extend(_item(it) for it in hc.items)
    if not hc.items:
        lines.append(t("bhargage.count.nothing"))
    lines.append(t("bhargage.count.total", total=hc.total))
    if shortage_points:
        lines.append(t("bhargage.count.shortage", points=shortage_points, suits=suits.with_names(missing)))
    else:
        lines.append(t("bhargage.count.no-shortage"))
    return "\n".join(lines)
