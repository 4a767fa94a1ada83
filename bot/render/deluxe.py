"""Bharg Deluxe as text: the hand, the table, what happened in a turn, the score sheet and the rules help.

Pure functions over the engine's ``View``, events and melds, so the Discord cog only decides *where* text
goes. Player names come in as a tuple indexed by seat. Markdown is Discord's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import groupby
from typing import Any

from bot.base.i18n import t, tn
from bot.base.text import RULES_DOCS, rules_link
from bot.render import suits, words
from bot.render.lists import chain
from bot.rules import deluxe as D
from bot.rules.decktet import Card, Rank, Suit, sort_key
from bot.rules.deluxe_melds import card_points

QUEUE_ROW = 5  # cards per line of a long Discard Queue: one line of twenty names reads as a blur


def fast_start_name(k: int) -> str:
    """A fast start option as the lobby names it (0: none)."""
    if k == 1:
        return t("deluxe.fast-start.1")
    if k == 2:
        return t("deluxe.fast-start.2")
    if k == 3:
        return t("deluxe.fast-start.3")
    return t("deluxe.fast-start.0")


def __getattr__(name: str) -> Any:
    """Texts older callers read as constants, in the language in force when they are read."""
    if name == "FAST_START_NAMES":
        return {k: fast_start_name(k) for k in range(4)}
    if name == "RULES":
        return rules_body()
    raise AttributeError(name)


MELD_EMOJI = {D.BHARG_SET: "🔷", D.COMPLETE: "📏", D.PARTIAL: "➕"}


def card_text(c: Card) -> str:
    """Name with suits: "the Forest 🌙🍃", "Ace of Moons 🌙"."""
    return f"{words.title(c)} {suits.marks(c.suits)}"


def cards_text(cs: Sequence[Card]) -> str:
    return ", ".join(card_text(c) for c in cs) if cs else "—"


def points(cs: Sequence[Card]) -> int:
    return sum(card_points(c) for c in cs)


def suit_text(suit: Suit | None) -> str:
    return f"{words.suit(suit)} {suits.mark(suit)}" if suit is not None else t("deluxe.suit-none")


def rank_name(rank: Rank) -> str:
    return words.rank(rank)


def hand_groups(hand: Sequence[Card]) -> list[tuple[Rank, list[Card]]]:
    """The hand sorted and grouped by rank, low to high (the order the card menus use too)."""
    ordered = sorted(hand, key=sort_key)
    return [(rank, list(cs)) for rank, cs in groupby(ordered, key=lambda c: c.rank)]


def hand_text(hand: Sequence[Card]) -> str:
    """One line per rank with each card's suits and the points a card of that rank is worth (D2)."""
    if not hand:
        return t("deluxe.hand.no-cards")
    lines = []
    for rank, cs in hand_groups(hand):
        names = []
        for _, same in groupby(cs, key=lambda c: c.index):
            group = list(same)
            names.append(card_text(group[0]) + (f" ×{len(group)}" if len(group) > 1 else ""))
        pts = card_points(cs[0])
        lines.append(tn("deluxe.hand.rank", pts, rank=rank_name(rank), cards=", ".join(names)))
    lines.append(
        t("deluxe.hand.total", cards=tn("deluxe.cards", len(hand)), points=tn("deluxe.points", points(hand)))
    )
    return "\n".join(lines)


def option_text(options: D.Options) -> str:
    parts = [t("deluxe.options-text.target", target=options.target)]
    if options.pawns:
        parts.append(t("deluxe.options-text.pawns"))
    if options.courts:
        parts.append(t("deluxe.options-text.courts"))
    if options.fast_start:
        parts.append(t("deluxe.options-text.fast-start", k=options.fast_start))
    return ", ".join(parts)


def straight_line(v: D.View) -> str:
    if v.ace_pile_top is not None:
        return t("deluxe.straight.ace", suit=suit_text(v.straight_suit), ace=words.title(v.ace_pile_top))
    if v.straight_suit is not None:
        return t("deluxe.straight.die", suit=suit_text(v.straight_suit))
    return t("deluxe.straight.none")


def deck_text(v: D.View) -> str:
    """The deck's size; once it was rebuilt this hand, the warning that running out again ends the hand."""
    count = tn("deluxe.cards", v.deck_count)
    return t("deluxe.deck.rebuilt", count=count) if v.deck_rebuilt else count


def queue_text(queue: Sequence[Card]) -> str:
    """The Discard Queue top first, numbered as "take n" counts it; a long one in rows under its name."""
    if not queue:
        return t("deluxe.queue.empty")
    named = [f"{i}. {card_text(c)}" for i, c in enumerate(reversed(queue), 1)]
    rows = [" · ".join(named[k : k + QUEUE_ROW]) for k in range(0, len(named), QUEUE_ROW)]
    return rows[0] if len(rows) == 1 else "\n" + "\n".join(rows)


def take_preview(queue: Sequence[Card], n: int) -> list[Card]:
    """The cards "take n" takes: the top n of the queue, top first (D4)."""
    return list(reversed(queue))[:n]


def kind_word(kind: str) -> str:
    """A meld's kind inside a sentence: "bharg set", "complete straight", "partial straight"."""
    if kind == D.BHARG_SET:
        return t("deluxe.kind.bharg-set")
    if kind == D.COMPLETE:
        return t("deluxe.kind.complete")
    if kind == D.PARTIAL:
        return t("deluxe.kind.partial")
    return kind


def kind_name(kind: str) -> str:
    """A meld's kind as a menu names it: "Bharg set", "Complete straight", "Partial straight"."""
    return words.capital(kind_word(kind))


OWNER_CHARS = 12  # a long owner's name inside a meld's line on the board, at most
OWNER_LONG = 20  # a name longer than this is long ("Bot 2 (difficile)" is not)


def meld_text(meld: D.Meld, names: Sequence[str], *, binder: int | None = None, public: bool = False) -> str:
    """A meld and, for a partial straight, the table cards it builds on (they stay where they are, D6).

    The binder's own table cards are "yours" in a private panel, "their own" in the channel (``public``)."""
    head = t("deluxe.meld.head", kind=kind_word(meld.kind), cards=cards_text(meld.cards))
    text = f"{MELD_EMOJI.get(meld.kind, '')} {head}".strip()
    if meld.kind == D.PARTIAL and meld.used:
        uses = []
        for owner, cs in meld.used:
            if owner == binder:
                who = t("deluxe.meld.their-own") if public else t("deluxe.meld.yours")
            else:
                who = t("deluxe.meld.owner", name=owner_name(names[owner]) if public else names[owner])
            uses.append(t("deluxe.meld.use", cards=cards_text(cs), who=who))
        text = t("deluxe.meld.with", meld=text, uses="; ".join(uses))
    return f"{text} (+{points(meld.cards)})"


def owner_name(name: str, most: int = OWNER_CHARS) -> str:
    """A table card's owner inside a meld's line on the board, a long name cut to ``most`` characters: its
    seat's own line says it whole, and a six-seat board of long names stays within what Discord shows."""
    if len(name) <= OWNER_LONG:
        return name
    return name[: most - 1].rstrip("\\") + "…"  # (never a markdown escape left hanging)


PROGRESS_WIDTH = 5


def progress_bar(score: int, target: int, width: int = PROGRESS_WIDTH) -> str:
    """How far a score is to the target: "▰▰▱▱▱" (a negative score shows empty, a reached target full)."""
    filled = 0 if target <= 0 or score <= 0 else min(width, score * width // target)
    return "▰" * filled + "▱" * (width - filled)


def progress(score: int, target: int) -> str:
    """A score out of the target with its bar: "45/100 ▰▰▱▱▱"."""
    return f"{score}/{target} {progress_bar(score, target)}"


def progress_line(v: D.View, names: Sequence[str]) -> str:
    """Every player's running total out of the target, on one line: "Ann 45/100 ▰▰▱▱▱ · Bob …"."""
    parts = []
    for seat, name in enumerate(names):
        left = t("deluxe.left-mark") if v.left[seat] else ""
        parts.append(f"{name}{left} {progress(v.scores[seat], v.target)}")
    return " · ".join(parts)


def seat_line(v: D.View, seat: int, names: Sequence[str]) -> str:
    marker = "▶️ " if v.phase != D.Phase.OVER and v.turn == seat else ""
    status = t("deluxe.seat.left") if v.left[seat] else ""
    return t(
        "deluxe.seat.line",
        marker=marker,
        name=names[seat],
        status=status,
        score=v.scores[seat],
        target=v.target,
        bar=progress_bar(v.scores[seat], v.target),
        cards=tn("deluxe.cards", v.hand_sizes[seat]),
    )


def meld_option(meld: D.Meld, names: Sequence[str], *, binder: int) -> tuple[str, str]:
    """A meld as one menu option, each part within Discord's 100 characters: the label names its cards with
    their suits, the description its kind, size and points (and, for a partial straight, whose table cards
    it builds on)."""
    label = ", ".join(f"{words.title(c)} {c.suit_emoji}" for c in meld.cards)  # a label shows no custom emoji
    if len(label) > 100:
        label = ", ".join(words.title(c) for c in meld.cards)
    if len(label) > 100:
        label = label[:99] + "…"
    size = tn("deluxe.option.kind-size", len(meld.cards), kind=kind_name(meld.kind))
    desc = t("deluxe.option.meld", size=size, points=tn("deluxe.pts", points(meld.cards)))
    if meld.kind == D.PARTIAL and meld.used:
        uses = []
        for owner, cs in meld.used:
            who = t("deluxe.option.your") if owner == binder else t("deluxe.option.owner", name=names[owner])
            uses += [t("deluxe.option.table-card", card=words.title(c), owner=who) for c in cs]
        desc = t("deluxe.option.with-table", meld=desc, cards=", ".join(uses))
    if len(desc) > 100:
        desc = desc[:99] + "…"
    return label, desc


def melds_line(bound: Sequence[D.Meld]) -> str:
    """One seat's melds on one line, by card name: "🔷the Savage, the Sailor, … · ➕the Mill (+8)"."""
    melds = " · ".join(
        f"{MELD_EMOJI.get(m.kind, '')}" + ", ".join(words.title(c) for c in m.cards) for m in bound
    )
    return f"{melds} (+{points([c for m in bound for c in m.cards])})"


def table_lines(v: D.View, names: Sequence[str]) -> list[str]:
    """The table as a private panel shows it: each seat's melds on one line, seats with none left out."""
    return [
        t("deluxe.panel.table-seat", name=names[s], melds=melds_line(b)) for s, b in enumerate(v.bound) if b
    ]


def table_text(v: D.View, names: Sequence[str], *, detail: int = 2) -> str:
    """The channel's table message: the public state of the game.

    ``detail`` 2 lists every meld in full; 1 puts each player's melds on one line by card name only; 0 gives
    only their count and points. A busy six-player hand can outgrow an embed (4096 characters) in full, and
    cutting the text would lose the last players and whose turn it is."""
    lines = [
        t("deluxe.table.head", hand=v.hand_no, target=v.target),
        straight_line(v),
        t("deluxe.table.piles", deck=deck_text(v), count=len(v.queue), queue=queue_text(v.queue)),
        "",
    ]
    for seat in range(len(names)):
        lines.append(seat_line(v, seat, names))
        bound = v.bound[seat]
        if not bound:
            continue
        total = points([c for m in bound for c in m.cards])
        if detail >= 2:
            for m in bound:
                lines.append(f"  {meld_text(m, names, binder=seat, public=True)}")
            lines.append("  " + t("deluxe.table.bound", total=total))
        elif detail == 1:
            lines.append(f"  {melds_line(bound)}")
        else:
            lines.append("  " + tn("deluxe.table.melds-bound", len(bound), total=total))
    if v.phase == D.Phase.OVER:
        if v.winners:
            lines += ["", tn("deluxe.table.won", len(v.winners), names=chain([names[w] for w in v.winners]))]
    elif v.phase == D.Phase.FINAL_BIND:
        lines += ["", t("deluxe.table.final-bind", name=names[v.turn])]
    elif v.phase == D.Phase.DRAW:
        lines += ["", t("deluxe.table.waiting-draw", name=names[v.turn])]
    else:
        lines += ["", t("deluxe.table.waiting-bind", name=names[v.turn])]
    return "\n".join(lines)


def event_lines(events: Sequence[D.Event], names: Sequence[str]) -> list[str]:
    """What everyone may know about these events (a card drawn from the deck stays secret)."""
    out: list[str] = []
    for e in events:
        line = _move_line(e, names)
        if line is None:
            line = _table_line(e, names)
        if line is not None:
            out.append(line)
    return out


def _move_line(e: D.Event, names: Sequence[str]) -> str | None:
    """A player's move, or what befell one player; None for any other event."""
    match e:
        case D.CardDrawn(seat):
            return t("deluxe.event.drew", name=names[seat])
        case D.AceDrawnToPile(seat, c):
            return t("deluxe.event.ace-drawn", name=names[seat], card=words.title(c))
        case D.QueueTaken(seat, cs):
            return t("deluxe.event.took", name=names[seat], count=len(cs), cards=cards_text(cs))
        case D.MeldBound(seat, kind, cs, used):
            meld = meld_text(D.Meld(kind, cs, used), names, binder=seat, public=True)
            return t("deluxe.event.bound", name=names[seat], meld=meld)
        case D.CardDiscarded(seat, c, to):
            if to == "ace pile":  # i18n: not text
                return t(
                    "deluxe.event.discarded-ace",
                    name=names[seat],
                    card=card_text(c),
                    suit=suit_text(c.suits[0]),
                )
            return t("deluxe.event.discarded", name=names[seat], card=card_text(c))
        case D.DeckRanOut(seat, rebuilt):
            if rebuilt:
                return t("deluxe.event.ran-out-again", name=names[seat])
            return t("deluxe.event.ran-out", name=names[seat])
        case D.PlayerWentOut(seat):
            return t("deluxe.event.went-out", name=names[seat])
        case D.FinalBindOffered(seat):
            return t("deluxe.event.final-bind", name=names[seat])
        case D.SeatLeft(seat):
            return t("deluxe.event.left", name=names[seat])
    return None


def _table_line(e: D.Event, names: Sequence[str]) -> str | None:
    """The hand's and the game's course; None for events shown elsewhere (TurnStarted, HandScored: the
    ping and the score sheet)."""
    match e:
        case D.HandStarted(hand_no, first, _, queue, suit):
            first_card = words.title(queue[-1]) if queue else t("deluxe.nothing")
            return t(
                "deluxe.event.hand-started",
                hand=hand_no,
                name=names[first],
                card=first_card,
                suit=suit_text(suit),
            )
        case D.AceTurned(c):
            return t("deluxe.event.ace-turned", card=words.capital(words.title(c)))
        case D.DieRolled(face, suit):
            return t("deluxe.event.die", face=face, suit=suit_text(suit))
        case D.DeckReshuffled(n):
            return t("deluxe.event.reshuffled", cards=tn("deluxe.cards", n))
        case D.TiePlayedOn(seats, total):
            return t("deluxe.event.tie", names=chain([names[s] for s in seats]), total=total)
        case D.GameWon(winners, _):
            if winners:
                won = chain([f"**{names[w]}**" for w in winners])
                return tn("deluxe.event.won", len(winners), names=won)
            return t("deluxe.event.no-winner")
    return None


def score_table(hand_no: int, rows: Sequence[D.ScoreRow], names: Sequence[str], left: Sequence[bool]) -> str:
    """The sheet after a hand: bound points, the hand penalty, the hand's score and the running total."""
    player, bound, hand, score, total = (
        t("deluxe.score.player"),
        t("deluxe.score.bound"),
        t("deluxe.score.hand"),
        t("deluxe.score.score"),
        t("deluxe.score.total"),
    )
    width = max(6, len(player), *(len(n) for n in names))
    wb, wh, ws, wt = max(5, len(bound)), max(4, len(hand)), max(5, len(score)), max(5, len(total))
    head = f"{player:<{width}}  {bound:>{wb}}  {hand:>{wh}}  {score:>{ws}}  {total:>{wt}}"
    lines = [t("deluxe.score.title", hand=hand_no), "```", head, "-" * len(head)]
    for r in rows:
        name = names[r.seat] + ("*" if left[r.seat] else "")
        cells = f"{r.bound_points:>{wb}}  {-r.hand_penalty:>{wh}}  {r.hand_score:>+{ws}}  {r.total:>{wt}}"
        lines.append(f"{name:<{width}}  {cells}")
    lines.append("```")
    if any(left):
        lines.append(t("deluxe.score.left"))
    return "\n".join(lines)


_REACHED = re.compile(r"^reached the target of (\d+)$")  # i18n: not text (the engine's record)


def how_text(how: str) -> str:
    """How a game ended, from the engine's record of it ("reached the target of 100")."""
    reached = _REACHED.match(how)
    if reached:
        return t("deluxe.how.target", target=int(reached.group(1)))
    if how == "the other players left":  # i18n: not text
        return t("deluxe.how.others-left")
    if not how:
        return t("deluxe.how.finished")
    return how


def final_text(result: D.Result, names: Sequence[str]) -> str:
    order = sorted(range(len(names)), key=lambda s: (-result.scores[s], s))
    lines = [t("deluxe.final.head", how=how_text(result.how or ""))]
    for place, s in enumerate(order, 1):
        crown = " 🏆" if s in result.winners else ""
        lines.append(f"{place}. {names[s]} — {result.scores[s]}{crown}")
    return "\n".join(lines)


def lobby_text(host: str, members: Sequence[str], options: D.Options, status: str = "open") -> str:
    lines = [
        t("deluxe.lobby.head", host=host, options=option_text(options)),
        fast_start_name(options.fast_start) + ".",
        t("deluxe.lobby.players", count=len(members), names=", ".join(members) if members else "—"),
    ]
    if status == "open":
        lines.append(t("deluxe.lobby.open"))
    elif status == "started":
        lines.append(t("deluxe.lobby.started"))
    elif status == "expired":
        lines.append(t("deluxe.lobby.expired"))
    elif status == "cancelled":
        lines.append(t("deluxe.lobby.cancelled"))
    else:
        lines.append(status)
    return "\n".join(lines)


def selection_text(meld: D.Meld | None, reason: str | None, names: Sequence[str], seat: int) -> str:
    """What the selected cards would bind as, or why they can't."""
    if meld is not None:
        return t("deluxe.selection", meld=meld_text(meld, names, binder=seat))
    return reason or ""


def rules_body() -> str:
    """The short help for ``/deluxe rules``: what a newcomer needs to start (docs/rules-deluxe.md has the
    rest). It follows RULES.md (D1–D9) without naming the rulings; tests/test_player_rules.py keeps it
    short."""
    return t("deluxe.rules-help")


def rules_text(link: str | None = None) -> str:
    """The short rules, one line per paragraph, ending with where to read the full ones (``link``)."""
    where = link or rules_link(RULES_DOCS["deluxe"])
    body = "\n".join(p.replace("\n", " ") for p in rules_body().strip().split("\n\n"))
    return t("deluxe.rules-full", body=body, where=where)
