"""Bharg Deluxe as text: the hand, the table, what happened in a turn, the score sheet and the rules help.

Pure functions over the engine's ``View``, events and melds, so the Discord cog only decides *where* text
goes. Player names come in as a tuple indexed by seat. Markdown is Discord's.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

from bot import pictures as pic
from bot.render import suits
from bot.rules import deluxe as D
from bot.rules.decktet import Card, Rank, Suit, sort_key
from bot.rules.deluxe_melds import card_points
from bot.text import RULES_DOCS, plural, rules_link

FAST_START_NAMES: dict[int, str] = {
    0: "No fast start",
    1: "Fast start 1: an Ace drawn onto an empty Ace Pile goes there, draw again",
    2: "Fast start 2: discard an Ace while the Ace Pile is empty",
    3: "Fast start 3: a die picks the first straight suit",
}

MELD_EMOJI = {D.BHARG_SET: "🔷", D.COMPLETE: "📏", D.PARTIAL: "➕"}


def card_text(c: Card) -> str:
    """Name with suits: "the Forest 🌙🍃", "Ace of Moons 🌙"."""
    return f"{c.title} {suits.marks(c.suits)}"


def cards_text(cs: Sequence[Card]) -> str:
    return ", ".join(card_text(c) for c in cs) if cs else "—"


def points(cs: Sequence[Card]) -> int:
    return sum(card_points(c) for c in cs)


def suit_text(suit: Suit | None) -> str:
    return f"{suit.value} {suits.mark(suit)}" if suit is not None else "none"


def rank_name(rank: Rank) -> str:
    return "Ace" if rank == Rank.ACE else rank.label


def hand_groups(hand: Sequence[Card]) -> list[tuple[Rank, list[Card]]]:
    """The hand sorted and grouped by rank, low to high (the order the card menus use too)."""
    ordered = sorted(hand, key=sort_key)
    return [(rank, list(cs)) for rank, cs in groupby(ordered, key=lambda c: c.rank)]


def hand_text(hand: Sequence[Card]) -> str:
    """One line per rank with each card's suits and the points a card of that rank is worth (D2)."""
    if not hand:
        return "*(no cards)*"
    lines = []
    for rank, cs in hand_groups(hand):
        names = []
        for _, same in groupby(cs, key=lambda c: c.index):
            group = list(same)
            names.append(card_text(group[0]) + (f" ×{len(group)}" if len(group) > 1 else ""))
        pts = card_points(cs[0])
        lines.append(f"**{rank_name(rank)}** ({plural(pts, 'pt')} each): " + ", ".join(names))
    lines.append(f"*{plural(len(hand), 'card')}, {plural(points(hand), 'point')} if left in hand.*")
    return "\n".join(lines)


def option_text(options: D.Options) -> str:
    parts = [f"target {options.target}"]
    if options.pawns:
        parts.append("Pawns")
    if options.courts:
        parts.append("Courts")
    if options.fast_start:
        parts.append(f"fast start {options.fast_start}")
    return ", ".join(parts)


def straight_line(v: D.View) -> str:
    if v.ace_pile_top is not None:
        return f"Straight suit: **{suit_text(v.straight_suit)}** (Ace Pile: {v.ace_pile_top.title})"
    if v.straight_suit is not None:
        return f"Straight suit: **{suit_text(v.straight_suit)}** (the die's; the Ace Pile is empty)"
    return "Straight suit: **none** — the Ace Pile is empty, so no straights can be bound yet"


def deck_text(v: D.View) -> str:
    """The deck's size; once it was rebuilt this hand, the warning that running out again ends the hand."""
    count = plural(v.deck_count, "card")
    return f"{count} (rebuilt: the hand ends when it runs out)" if v.deck_rebuilt else count


def queue_text(queue: Sequence[Card]) -> str:
    """The Discard Queue top first, numbered as "take n" counts it."""
    if not queue:
        return "*(empty)*"
    top_first = list(reversed(queue))
    return " · ".join(f"{i}. {card_text(c)}" for i, c in enumerate(top_first, 1))


def take_preview(queue: Sequence[Card], n: int) -> list[Card]:
    """The cards "take n" takes: the top n of the queue, top first (D4)."""
    return list(reversed(queue))[:n]


def meld_text(meld: D.Meld, names: Sequence[str], *, binder: int | None = None, own: str = "yours") -> str:
    """A meld and, for a partial straight, the table cards it builds on (they stay where they are, D6).

    ``own`` names the binder's own table cards: "yours" in a private panel, "their own" in the channel."""
    text = f"{MELD_EMOJI.get(meld.kind, '')} {meld.kind}: {cards_text(meld.cards)}".strip()
    if meld.kind == D.PARTIAL and meld.used:
        uses = []
        for owner, cs in meld.used:
            who = own if owner == binder else f"{names[owner]}'s"
            uses.append(f"{cards_text(cs)} ({who})")
        text += " — with " + "; ".join(uses)
    return f"{text} (+{points(meld.cards)})"


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
        left = " (left)" if v.left[seat] else ""
        parts.append(f"{name}{left} {progress(v.scores[seat], v.target)}")
    return " · ".join(parts)


def seat_line(v: D.View, seat: int, names: Sequence[str]) -> str:
    marker = "▶️ " if v.phase != D.Phase.OVER and v.turn == seat else ""
    status = " *(left)*" if v.left[seat] else ""
    return (
        f"{marker}**{names[seat]}**{status} — {v.scores[seat]}/{v.target} pts "
        f"{progress_bar(v.scores[seat], v.target)} · "
        f"{plural(v.hand_sizes[seat], 'card')} in hand"
    )


KIND_NAMES = {D.BHARG_SET: "Bharg set", D.COMPLETE: "Complete straight", D.PARTIAL: "Partial straight"}


def meld_option(meld: D.Meld, names: Sequence[str], *, binder: int) -> tuple[str, str]:
    """A meld as one menu option, each part within Discord's 100 characters: the label names its cards with
    their suits, the description its kind, size and points (and, for a partial straight, whose table cards
    it builds on)."""
    label = ", ".join(f"{c.title} {c.suit_emoji}" for c in meld.cards)  # a label shows no custom emoji
    if len(label) > 100:
        label = ", ".join(c.title for c in meld.cards)
    if len(label) > 100:
        label = label[:99] + "…"
    desc = f"{KIND_NAMES.get(meld.kind, meld.kind)} of {len(meld.cards)} · {plural(points(meld.cards), 'pt')}"
    if meld.kind == D.PARTIAL and meld.used:
        owners = []
        for owner, _ in meld.used:
            who = "your" if owner == binder else f"{names[owner]}'s"
            if who not in owners:
                owners.append(who)
        desc += " · with " + " and ".join(owners) + " table cards"
    if len(desc) > 100:
        desc = desc[:99] + "…"
    return label, desc


def table_text(v: D.View, names: Sequence[str], *, detail: int = 2) -> str:
    """The channel's table message: the public state of the game.

    ``detail`` 2 lists every meld in full; 1 puts each player's melds on one line by card name only; 0 gives
    only their count and points. A busy six-player hand can outgrow an embed (4096 characters) in full, and
    cutting the text would lose the last players and whose turn it is."""
    lines = [
        f"**Hand {v.hand_no}** · target {v.target}",
        straight_line(v),
        f"Deck: {deck_text(v)} · Discard Queue ({len(v.queue)}, top first): " + queue_text(v.queue),
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
                lines.append(f"  {meld_text(m, names, binder=seat, own='their own')}")
            lines.append(f"  bound this hand: +{total}")
        elif detail == 1:
            melds = " · ".join(
                f"{MELD_EMOJI.get(m.kind, '')}" + ", ".join(c.title for c in m.cards) for m in bound
            )
            lines.append(f"  {melds} (+{total})")
        else:
            lines.append(f"  {plural(len(bound), 'meld')} bound this hand: +{total}")
    if v.phase == D.Phase.OVER:
        if v.winners:
            lines += ["", "🏆 " + " and ".join(names[w] for w in v.winners) + " won."]
    elif v.phase == D.Phase.FINAL_BIND:
        lines += ["", f"Final bind: **{names[v.turn]}** may bind once more before the hand is scored."]
    else:
        doing = "to draw" if v.phase == D.Phase.DRAW else "to bind and discard"
        lines += ["", f"Waiting for **{names[v.turn]}** {doing}."]
    return "\n".join(lines)


def event_lines(events: Sequence[D.Event], names: Sequence[str]) -> list[str]:
    """What everyone may know about these events (a card drawn from the deck stays secret)."""
    out: list[str] = []
    for e in events:
        match e:
            case D.HandStarted(hand_no, first, _, queue, suit):
                first_card = queue[-1].title if queue else "nothing"
                out.append(
                    f"🃏 **Hand {hand_no}** is dealt, 10 cards each; **{names[first]}** goes first. "
                    f"The Discard Queue starts with {first_card}; straight suit: {suit_text(suit)}."
                )
            case D.AceTurned(c):
                out.append(f"{c.title} was turned onto the Ace Pile.")
            case D.DieRolled(face, suit):
                out.append(f"🎲 The die shows {face}: the straight suit is {suit_text(suit)}.")
            case D.CardDrawn(seat):
                out.append(f"{names[seat]} drew from the deck.")
            case D.AceDrawnToPile(seat, c):
                out.append(
                    f"{names[seat]} drew {c.title}: it goes onto the empty Ace Pile; their turn starts over."
                )
            case D.QueueTaken(seat, cs):
                out.append(f"{names[seat]} took {len(cs)} from the Discard Queue: {cards_text(cs)}.")
            case D.MeldBound(seat, kind, cs, used):
                meld = D.Meld(kind, cs, used)
                out.append(f"{names[seat]} bound a " + meld_text(meld, names, binder=seat, own="their own"))
            case D.CardDiscarded(seat, c, to):
                if to == "ace pile":
                    out.append(
                        f"{names[seat]} discarded {card_text(c)} onto the Ace Pile: "
                        f"the straight suit is now {suit_text(c.suits[0])}."
                    )
                else:
                    out.append(f"{names[seat]} discarded {card_text(c)}.")
            case D.DeckReshuffled(n):
                out.append(
                    f"🔄 The deck ran out: the Discard Queue except its top card ({plural(n, 'card')}) was "
                    "shuffled into a new deck. This happens once a hand: if the deck runs out again, "
                    "the hand ends."
                )
            case D.DeckRanOut(seat, rebuilt):
                why = (
                    "the deck ran out a second time this hand"
                    if rebuilt
                    else "the deck is empty and the Discard Queue has too few cards to rebuild it"
                )
                out.append(f"📭 {names[seat]} can't draw: {why}. The hand ends and is scored.")
            case D.PlayerWentOut(seat):
                out.append(f"**{names[seat]}** has no cards left: the hand ends.")
            case D.FinalBindOffered(seat):
                out.append(f"{names[seat]} may still bind from their hand before scoring.")
            case D.TiePlayedOn(seats, total):
                tied = " and ".join(names[s] for s in seats)
                out.append(f"{tied} are tied at {total}: another hand is played.")
            case D.SeatLeft(seat):
                out.append(f"🚪 {names[seat]} left the game.")
            case D.GameWon(winners, _):
                if winners:
                    out.append("🏆 " + " and ".join(f"**{names[w]}**" for w in winners) + " won the game!")
                else:
                    out.append("The game ended with no winner.")
            case _:
                pass  # TurnStarted, HandScored: shown as the ping and the score sheet
    return out


def score_table(hand_no: int, rows: Sequence[D.ScoreRow], names: Sequence[str], left: Sequence[bool]) -> str:
    """The sheet after a hand: bound points, the hand penalty, the hand's score and the running total."""
    width = max(6, *(len(n) for n in names))
    head = f"{'Player':<{width}}  Bound  Hand  Score  Total"
    lines = [f"**Hand {hand_no} scored**", "```", head, "-" * len(head)]
    for r in rows:
        name = names[r.seat] + ("*" if left[r.seat] else "")
        lines.append(
            f"{name:<{width}}  {r.bound_points:>5}  {-r.hand_penalty:>4}  {r.hand_score:>+5}  {r.total:>5}"
        )
    lines.append("```")
    if any(left):
        lines.append("\\* left the game")
    return "\n".join(lines)


def final_text(result: D.Result, names: Sequence[str]) -> str:
    order = sorted(range(len(names)), key=lambda s: (-result.scores[s], s))
    lines = ["**Game over** — " + (result.how or "finished") + "."]
    for place, s in enumerate(order, 1):
        crown = " 🏆" if s in result.winners else ""
        lines.append(f"{place}. {names[s]} — {result.scores[s]}{crown}")
    return "\n".join(lines)


def lobby_text(host: str, members: Sequence[str], options: D.Options, status: str = "open") -> str:
    lines = [
        f"**Bharg Deluxe** table by {host} — {option_text(options)}",
        FAST_START_NAMES[options.fast_start] + ".",
        f"Players ({len(members)}/6): " + (", ".join(members) if members else "—"),
    ]
    if status == "open":
        lines.append("Press **Join** to sit down; the host starts with 2 to 6 players.")
    else:
        lines.append(
            {
                "started": "The game has started.",
                "expired": "This table closed: it was not started in time.",
                "cancelled": "The host cancelled this table.",
            }.get(status, status)
        )
    return "\n".join(lines)


def selection_text(meld: D.Meld | None, reason: str | None, names: Sequence[str], seat: int) -> str:
    """What the selected cards would bind as, or why they can't."""
    if meld is not None:
        return "These make a " + meld_text(meld, names, binder=seat) + "."
    return reason or ""


# The short help for ``/deluxe rules``: what a newcomer needs to start; docs/rules-deluxe.md has the rest.
# It follows RULES.md (D1–D9) without naming the rulings; tests/test_player_rules.py keeps it short.
RULES = """
**Bharg Deluxe** — 2–6 players, two Decktets shuffled together. Six suits:
🌙 Moons · ☀️ Suns · 🌊 Waves · 🍃 Leaves · 🐉 Wyrms · 🪢 Knots.

**Your turn:** draw the top card of the deck **or** any number of cards from the top of the Discard
Queue; bind melds if you can; discard one card (Aces go onto the Ace Pile).

**Melds:** a **bharg set** is 3+ cards with each of the six suits exactly once. A **straight** is 3+
cards of consecutive ranks (Ace, 2–9, Crown) all in the suit of the top Ace on the Ace Pile; a
**partial straight** is 1–2 cards that finish a straight with cards already on the table.

**Card points:** Ace and Crown 1, 2–9 two, Pawn and Court 3.

**Scoring:** the hand ends when someone runs out of cards: you score your bound cards minus the cards
left in your hand. After someone reaches 100, the highest total wins.

**Start:** `/deluxe create`, then Join and Start (or Add a bot). Your hand comes by DM (or `/deluxe
hand`); **Suggest melds** finds what you can bind.
"""


def rules_text(link: str | None = None) -> str:
    """The short rules, one line per paragraph, ending with where to read the full ones (``link``)."""
    where = link or rules_link(RULES_DOCS["deluxe"])
    body = "\n".join(p.replace("\n", " ") for p in RULES.strip().split("\n\n"))
    return f"{body}\n**Full rules:** {where}"


# ---------------------------------------------------------------- pictures (drawn by bot.pictures)

KIND_SHORT = {D.BHARG_SET: "Bharg set", D.COMPLETE: "Straight", D.PARTIAL: "Partial"}


def table_scene(v: D.View, names: Sequence[str]) -> pic.Scene:
    """The table as a picture: each player's melds bound this hand (with kind and points), the Discard
    Queue top first, and the Ace Pile with the suit straights follow."""
    rows: list[pic.Row | pic.Track] = []
    for seat, name in enumerate(names):
        turn = "» " if v.phase != D.Phase.OVER and v.turn == seat else ""
        left = " (left)" if v.left[seat] else ""
        bound = v.bound[seat]
        rows.append(
            pic.Row(
                caption=f"{turn}{name}{left} · {v.scores[seat]}/{v.target}",
                groups=tuple(m.cards for m in bound),
                labels=tuple(f"{KIND_SHORT.get(m.kind, m.kind)} +{points(m.cards)}" for m in bound),
                small=True,
            )
        )
    top_first = tuple(reversed(v.queue))
    queue = f"Discard Queue · {len(v.queue)}, top first" if v.queue else "Discard Queue · empty"
    rows.append(pic.Row(caption=queue, groups=(top_first,) if top_first else (), small=True))
    suit = v.straight_suit
    aces = pic.Row(
        caption="Ace Pile · straights in" if suit is not None else "Ace Pile · no straight suit yet",
        groups=(tuple(v.ace_pile),) if v.ace_pile else (),
        suits=(suit,) if suit is not None else (),
        small=True,
    )
    rows.append(aces)
    return pic.Scene(tuple(rows), title=f"Bharg Deluxe · hand {v.hand_no}", worth="suits")


def hand_scene(hand: Sequence[Card], picked: Sequence[int] = ()) -> pic.Scene:
    """A player's hand as a picture, in the view's order (the order the menus list it, so ``picked``, the
    positions of the cards picked for a meld, are raised)."""
    row = pic.Row(caption="Your hand", groups=(tuple(hand),), picked=tuple((0, i) for i in picked))
    return pic.Scene((row,), worth="suits")
