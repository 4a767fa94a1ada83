"""Classic Cribbage as text: what the channel, the board and a player's private panel say (no Discord here).

The channel hears every card and call (RULES.md C8); a hand is itemized in the show, each combination with
its cards ("• 15 for 2 — 5♥ K♣"), then counted as it is said ("15 for 2, 15 for 4, a pair for 6 and a run of
3 for 9", or "19 — nothing"); the end says "Game!" and "Lurched!" where it applies.
A seat's lay-away and hand stay on its private panel: a partner's hand is as hidden as an opponent's.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.base.i18n import both, t, tn
from bot.base.text import RULES_DOCS, rules_link
from bot.render.board import Lane, draw_board
from bot.render.cribbage_words import (
    call_text,
    cards_short,
    label,
    score_line,
    scored,
    short,
    show_count,
    side_name,
    side_names,
)
from bot.render.words import capital
from bot.rules import cribbage as C
from bot.rules.cribbage_scoring import peg_items
from bot.rules.pack52 import Card

MESSAGE_LIMIT = 1900  # under Discord's 2000, leaving room for a ping line
BUTTON_LABEL = 80  # Discord's longest button label

# ---------------------------------------------------------------- the channel


class Lines:
    """The lines of some events for one table: its names and player count fixed once."""

    def __init__(self, names: Sequence[str], players: int, target: int) -> None:
        self.names = names
        self.players = players
        self.target = target

    def side(self, side: int) -> str:
        return side_name(self.names, self.players, side)

    def of(self, events: Sequence[C.Event]) -> list[str]:
        """One line (or a few) per event, in order; a lay-away says nothing (its cards are secret)."""
        lines: list[str] = []
        for ev in events:
            lines.extend(self.event(ev))
        return lines

    def event(self, ev: C.Event) -> list[str]:
        names = self.names
        if isinstance(ev, C.DealerCut):
            return self.dealer_cut(ev)
        if isinstance(ev, C.HandDealt):
            return [t("cribbage.deal.hand", hand=ev.hand_no, dealer=names[ev.dealer], cards=ev.hand_size)]
        if isinstance(ev, C.CribMade):
            return [t("cribbage.deal.crib-made", dealer=names[ev.dealer])]
        if isinstance(ev, C.StarterTurned):
            return [t("cribbage.play.starter", name=names[ev.seat], card=label(ev.card))]
        if isinstance(ev, C.CardPlayed):
            return [t("cribbage.play.card", name=names[ev.seat], card=short(ev.card), count=ev.count)]
        if isinstance(ev, C.PointsScored):
            return [self.points(ev)]
        if isinstance(ev, C.WentGo):
            return [t("cribbage.play.go", name=names[ev.seat])]
        if isinstance(ev, C.CountReset):
            return [t("cribbage.play.new-count")]
        if isinstance(ev, C.PlayEnded):
            return [t("cribbage.play.over")]
        if isinstance(ev, C.ClaimAwaited):
            return [self.shown(ev.seat, ev.kind, ev.cards, ev.starter)]  # the ping asks for the claim
        if isinstance(ev, C.HandCounted):
            return self.counted(ev)
        if isinstance(ev, C.MugginsTaken):
            return [self.muggins(ev)]
        if isinstance(ev, C.GameWon):
            return self.won(ev)
        return []

    def dealer_cut(self, ev: C.DealerCut) -> list[str]:
        lines = []
        for i, cut in enumerate(ev.rounds):
            cuts = ", ".join(f"{self.names[seat]} {short(c)}" for seat, c in cut)
            lines.append(t("cribbage.deal.cut-again", cuts=cuts) if i else t("cribbage.deal.cut", cuts=cuts))
        lines.append(t("cribbage.deal.first", dealer=self.names[ev.dealer]))
        return lines

    def points(self, ev: C.PointsScored) -> str:
        item = C.ScoreItem(ev.reason, ev.points, ev.cards)
        return t(
            "cribbage.play.scored",
            call=capital(call_text(item)),  # each call starts its line: "A pair for 2", "Coppia per 2"
            score=scored(self.names, self.players, ev.side, ev.total_after),
        )

    def whose(self, seat: int, kind: str) -> str:
        """ "Ann's crib", at the start of a show's line ("Il crib di Ann")."""
        if kind == "crib":
            return capital(t("cribbage.show.whose-crib", name=self.names[seat]))
        return capital(t("cribbage.show.whose-hand", name=self.names[seat]))

    def shown(self, seat: int, kind: str, cards: Sequence[Card], starter: Card) -> str:
        return t(
            "cribbage.show.cards",
            whose=self.whose(seat, kind),
            cards=cards_short(cards),
            starter=short(starter),
        )

    def counted(self, ev: C.HandCounted) -> list[str]:
        """A show counted: the cards (or the claim), each scoring combination with the cards that make it —
        so a player can check the count, as muggins asks them to —, then the count as said and the score."""
        who = scored(self.names, self.players, ev.side, ev.total_after)
        count = capital(show_count(ev.items))
        if ev.claimed is None:
            head = self.shown(ev.seat, ev.kind, ev.cards, ev.starter)
            last = t("cribbage.show.total", count=count, score=who)
        else:
            # What the owner pegged, not the count: after a claim short of it or over it they differ (C9).
            head = t("cribbage.show.claimed", name=self.names[ev.seat], claimed=ev.claimed, total=ev.total)
            last = t("cribbage.show.pegged", count=count, pegged=ev.pegged, score=who)
        return [head, *(item_line(it) for it in ev.items), last]

    def muggins(self, ev: C.MugginsTaken) -> str:
        """C9's call, "**Muggins!** 2 for Ann (47): Bo left 2 out." (or "claimed 2 too many")."""
        who = scored(self.names, self.players, ev.side, ev.total_after)
        if ev.over:
            return tn("cribbage.show.muggins-over", ev.points, owner=self.names[ev.owner], scorer=who)
        return tn("cribbage.show.muggins-under", ev.points, owner=self.names[ev.owner], scorer=who)

    def won(self, ev: C.GameWon) -> list[str]:
        lines = []
        winners, many = both(self.side(s) for s in ev.sides), people(self.players, ev.sides)
        if ev.how == "target":
            lines.append(tn("cribbage.won.game", many, winners=winners, target=self.target))
        elif ev.how == "resign":
            lines.append(tn("cribbage.won.resign", many, winners=winners))
        else:
            lines.append(tn("cribbage.won.forfeit", many, winners=winners))
        if ev.lurch != "none":
            lost = [s for s in range(len(ev.scores)) if s not in ev.sides]
            losers, count = both(self.side(s) for s in lost), people(self.players, lost)
            if ev.lurch == "double":
                lines.append(tn("cribbage.won.double-lurched", count, losers=losers, mark=self.target // 2))
            else:
                lines.append(tn("cribbage.won.lurched", count, losers=losers, mark=lurch_mark(self.target)))
        lines.append("🏆 " + result_text(self.names, self.players, ev.sides, ev.scores, ev.lurch))
        return lines


def item_line(item: C.ScoreItem) -> str:
    """One scoring combination of a show with its cards: "• 15 for 2 — 5♥ K♣", "• a run of 3 — J♦ Q♣ K♣"."""
    return f"• {call_text(item)} — {cards_short(item.cards)}"


def lurch_mark(target: int) -> int:
    """The score a losing side must reach not to be lurched (C6): 91 in a game to 121, 31 in one to 61."""
    return target - 30


def people(players: int, sides: Sequence[int]) -> int:
    """How many players the sides are (a partnership is two): what the verbs agree with."""
    return len(sides) * (2 if players == 4 else 1)


def result_text(
    names: Sequence[str], players: int, sides: Sequence[int], scores: Sequence[int], lurch: str
) -> str:
    """The result in one line: "**Ann & Cy** win — Ann & Cy 121 — Bo & Dee 84 (a lurch)"."""
    winners = both(f"**{side_name(names, players, s)}**" for s in sides)
    line = tn(
        "cribbage.result.won",
        people(players, sides),
        winners=winners,
        scores=score_line(names, players, scores),
    )
    if lurch == "double":
        return t("cribbage.result.with-double-lurch", result=line)
    if lurch == "lurch":
        return t("cribbage.result.with-lurch", result=line)
    return line


def show_heading() -> str:
    """The line that opens the show in the channel ("**The show**")."""
    return t("cribbage.show.heading")


def messages(lines_of: Lines, events: Sequence[C.Event], *, after_show: str = "") -> list[str]:
    """The channel messages for one action: the play, then the show under its heading (closed by the pegs,
    ``after_show``), then the next deal; each under Discord's limit, split between lines, never inside one.
    With muggins the show takes one action per claim: its heading comes once, where the play ended."""
    starts = any(isinstance(e, C.PlayEnded) for e in events)
    blocks: list[list[C.Event]] = [[]]
    for ev in events:
        opens = isinstance(ev, C.HandCounted | C.ClaimAwaited) and not any(
            isinstance(e, C.HandCounted | C.ClaimAwaited) for e in blocks[-1]
        )
        if (opens or isinstance(ev, C.HandDealt)) and blocks[-1]:
            blocks.append([])
        blocks[-1].append(ev)
    out: list[str] = []
    for block in blocks:
        lines = lines_of.of(block)
        if starts and any(isinstance(e, C.HandCounted | C.ClaimAwaited) for e in block):
            lines.insert(0, show_heading())
        if after_show and any(isinstance(e, C.HandCounted) for e in block):
            lines.append(after_show)
        out.extend(chunk(lines))
    return out


def chunk(lines: Sequence[str], limit: int = MESSAGE_LIMIT) -> list[str]:
    """Lines packed into as few messages as fit ``limit`` each."""
    out: list[str] = []
    for line in lines:
        line = line[:limit]
        if out and len(out[-1]) + 1 + len(line) <= limit:
            out[-1] = f"{out[-1]}\n{line}"
        else:
            out.append(line)
    return out


# ---------------------------------------------------------------- the board


def options_text(options: C.Options) -> str:
    """ "121", "61 · muggins", "121 · muggins · double lurch"."""
    parts = [t("cribbage.table-options.target", target=options.target)]
    if options.muggins:
        parts.append(t("cribbage.table-options.muggins"))
    if options.double_lurch and options.target == 121:
        parts.append(t("cribbage.table-options.double-lurch"))
    return " · ".join(parts)


def waiting_text(state: C.State, names: Sequence[str]) -> str:
    if state.phase is C.Phase.DISCARD:
        who = [names[s] for s in C.waiting_for(state)]
        return tn("cribbage.waiting.lay-away", len(who), names=both(who))
    if state.phase is C.Phase.CUT:
        return t("cribbage.waiting.cut", name=names[(state.dealer + 1) % state.players])
    if state.phase is C.Phase.PLAY:
        return t("cribbage.waiting.play", name=names[state.to_move], count=state.count)
    if state.phase is C.Phase.CLAIM:
        return t("cribbage.waiting.claim", name=names[C.waiting_for(state)[0]])
    return t("cribbage.waiting.over")


def pegs_text(state: C.State, names: Sequence[str]) -> str:
    """Every side's lane of the board, 0 → target, as a code block."""
    lanes = [
        Lane(who, score) for who, score in zip(side_names(names, state.players), state.scores, strict=True)
    ]
    return f"```\n{draw_board(lanes, 0, state.options.target)}\n```"


def _deal_lines(state: C.State, names: Sequence[str]) -> list[str]:
    """What the board says of the hand in play: the partnerships, the starter, the count and its cards."""
    if state.phase is C.Phase.OVER:
        return []
    partners = [partners_text(names)] if state.players == 4 else []
    starter = [] if state.starter is None else [t("cribbage.board.starter", card=label(state.starter))]
    pile = [pile_text(state.pile, state.count)] if state.phase is C.Phase.PLAY else []
    return [*partners, *starter, *pile]


def board_text(state: C.State, names: Sequence[str], *, game_id: int = 0) -> str:
    """The one board message: the scores on the board, the deal, the starter, the count and its cards."""
    hand = (
        "" if C.is_over(state) else t("cribbage.board.hand", hand=state.hand_no, dealer=names[state.dealer])
    )
    return "\n".join(
        [
            t("cribbage.board.head", options=options_text(state.options)) + hand,
            pegs_text(state, names),
            score_line(names, state.players, state.scores),
            *_deal_lines(state, names),
            waiting_text(state, names),
            *([t("cribbage.board.game", game=game_id)] if game_id else []),
        ]
    )


def pile_text(pile: Sequence[tuple[int, Card]], count: int) -> str:
    """This count's cards, oldest first: "Count 24: 7♦ 8♣ 9♥"."""
    if not pile:
        return t("cribbage.board.pile-empty")
    return t("cribbage.board.pile", cards=cards_short(c for _, c in pile), count=count)


# ---------------------------------------------------------------- a player's private panel


def play_label(card: Card, view: C.SeatView) -> str:
    """A card's button in the play: the count it makes and what it scores there — "7♣ → 15 · 15 for 2" — or
    that it would pass 31."""
    count = view.count + card.value
    if count > 31:
        text = t("cribbage.button.play-too-high", card=short(card))
    else:
        calls = ", ".join(call_text(it) for it in peg_items([*(c for _, c in view.pile), card]))
        if calls:
            text = t("cribbage.button.play-scores", card=short(card), count=count, calls=calls)
        else:
            text = t("cribbage.button.play", card=short(card), count=count)
    return text if len(text) <= BUTTON_LABEL else text[: BUTTON_LABEL - 1] + "…"


def _head(view: C.SeatView, names: Sequence[str]) -> list[str]:
    me = view.seat
    dealer = (
        t("cribbage.panel.you-deal")
        if view.dealer == me
        else t("cribbage.panel.they-deal", name=names[view.dealer])
    )
    lines = [
        t("cribbage.panel.head", hand=view.hand_no, dealer=dealer, target=view.target),
        score_line(names, view.players, view.scores),
    ]
    if view.players == 4:
        lines.append(t("cribbage.panel.partner", name=names[(me + 2) % 4]))
    return lines


def _crib_words(view: C.SeatView, names: Sequence[str]) -> str:
    return (
        t("cribbage.panel.your-crib")
        if view.dealer == view.seat
        else t("cribbage.panel.their-crib", name=names[view.dealer])
    )


def _lay_away_lines(view: C.SeatView, names: Sequence[str]) -> list[str]:
    size = C.lay_away_size(view.players)
    dealt = sorted((*view.hand, *view.laid_away), key=lambda c: (c.rank, c.suit.value))
    lines = [t("cribbage.panel.your-cards", cards=cards_short(dealt))]
    crib = _crib_words(view, names)
    if view.laid[view.seat]:
        lines.append(t("cribbage.panel.laid-away", cards=cards_short(view.laid_away), crib=crib))
        waiting = [names[s] for s in range(view.players) if not view.laid[s]]
        if waiting:
            lines.append(tn("cribbage.panel.waiting-for", len(waiting), names=both(waiting)))
        lines.append(t("cribbage.panel.may-change"))
    else:
        lines.append(tn("cribbage.panel.choose", size, crib=crib))
    return lines


def hand_text(view: C.SeatView, names: Sequence[str]) -> str:
    """One seat's live panel: the standing, the deal, the starter, the count and its cards, whose turn, and
    its own cards (never a partner's)."""
    lines = _head(view, names)
    me = view.seat
    if view.phase is C.Phase.DISCARD:
        return "\n".join([*lines, *_lay_away_lines(view, names)])
    if view.starter is not None:
        lines.append(t("cribbage.board.starter", card=label(view.starter)))
    if view.phase is C.Phase.PLAY:
        lines.append(pile_text(view.pile, view.count))
    if view.phase is C.Phase.PLAY and view.kept != view.hand:  # one line: the panel stays short
        hand = cards_short(view.hand)
        lines.append(t("cribbage.panel.your-cards-kept", cards=hand, kept=cards_short(view.kept)))
    else:
        lines.append(t("cribbage.panel.your-cards", cards=cards_short(view.hand)))
    cutter = (view.dealer + 1) % view.players
    if view.phase is C.Phase.CUT:
        lines.append(
            t("cribbage.panel.your-cut") if cutter == me else t("cribbage.waiting.cut", name=names[cutter])
        )
    elif view.phase is C.Phase.PLAY:
        mine = view.to_move == me
        lines.append(
            t("cribbage.panel.your-turn", count=view.count)
            if mine
            else t("cribbage.waiting.play", name=names[view.to_move or 0], count=view.count)
        )
    elif view.phase is C.Phase.CLAIM and view.claim is not None:
        lines.extend(_claim_lines(view, names))
    elif view.phase is C.Phase.OVER:
        lines.append(t("cribbage.panel.over"))
    return "\n".join(lines)


def _claim_lines(view: C.SeatView, names: Sequence[str]) -> list[str]:
    claim = view.claim
    assert claim is not None
    whose = Lines(names, view.players, view.target).whose(claim.seat, claim.kind)
    shown = t(
        "cribbage.show.cards", whose=whose, cards=cards_short(claim.cards), starter=short(claim.starter)
    )
    if claim.seat != view.seat:
        return [shown, t("cribbage.waiting.claim", name=names[claim.seat])]
    taker = names[(claim.seat + 1) % view.players]
    return [shown, t("cribbage.panel.claim", taker=taker)]


# ---------------------------------------------------------------- help and the calculator

RULES = "cribbage.rules.summary"


def rules_text(link: str | None = None) -> str:
    """The short rules, ending with where to read the full ones (``link``; the repository's file if None)."""
    where = link or rules_link(RULES_DOCS["cribbage"])
    return t("cribbage.rules.summary") + "\n" + t("cribbage.rules.full", link=where)


def count_text(hand: Sequence[Card], starter: Card, crib: bool) -> str:
    """The calculator's answer: the cards, every scoring combination with its cards, the count as said."""
    items = C.count_show(hand, starter, crib)
    head = (
        t("cribbage.calc.crib", cards=cards_short(hand), starter=short(starter))
        if crib
        else t("cribbage.calc.hand", cards=cards_short(hand), starter=short(starter))
    )
    lines = [head]
    lines.extend(item_line(it) for it in items)
    lines.append(t("cribbage.calc.total", count=show_count(items), total=sum(it.points for it in items)))
    return "\n".join(lines)


def partners_text(names: Sequence[str]) -> str:
    """Who plays with whom at four (seats 0 & 2 against 1 & 3): "Partners: Ann & Cy against Bo & Dee"."""
    return t("cribbage.board.partners", first=side_name(names, 4, 0), second=side_name(names, 4, 1))
