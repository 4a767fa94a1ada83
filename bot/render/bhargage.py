"""Bhargage as text: what the channel, the board and a player's private panel say (no Discord here).

Every call is worded as the seed announces it (R13): "11 for 2", "2 for a pair", "6 for bharg", "1 for last",
"2 for the Chief", "Shortage: 3", "Muggins!", "Game!".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bot import pictures as pic
from bot.ai.bhargage import DiscardLine, PlayAdvice
from bot.render import suits
from bot.render.board import Lane, draw_board
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import GAME, HandCount, ScoreItem
from bot.rules.decktet import Card, Rank, Suit, sort_key
from bot.text import RULES_DOCS, rules_link

MESSAGE_LIMIT = 1900  # under Discord's 2000, leaving room for a ping line

HOW_WORDS = {
    "resign": "{loser} resigned.",
    "forfeit": "{loser} forfeited (the table waited too long).",
    "game": "Six Aces in a row: **Game!**",
    "muggins": "**Muggins!** The game was won on a shortage claim (it counts double).",
    "target": "",
}


def card_label(c: Card) -> str:
    """A card as a Bhargage player reads it: name, rank and count value (where they differ), suits —
    "the Forest (5) 🌙🍃", "the Sea (Crown, 10) 🌊", "the Watchman (Pawn, 0) …", "Ace of Moons (1) 🌙"."""
    if c.rank is Rank.EXCUSE:
        return f"{c.title} (0)"
    rank = "1" if c.rank is Rank.ACE else c.rank.label
    inner = rank if rank == str(c.value) else f"{rank}, {c.value}"
    return f"{c.title} ({inner}) {suits.marks(c.suits)}"


def cards_text(cards: Iterable[Card], *, short: bool = False) -> str:
    """Cards joined for reading: labels with rank, value and suits, or just their titles when ``short``."""
    return ", ".join(c.title if short else card_label(c) for c in cards) or "—"


def _item(item: ScoreItem) -> str:
    return f"• {item.reason} — {' + '.join(c.title for c in item.cards)}"


def _suits(missing: Sequence[Suit]) -> str:
    return suits.named(missing)


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
                tie = " — same rank, cut again" if a.rank == b.rank else ""
                lines.append(
                    f"Cut for the deal: {names[0]} cuts {card_label(a)}, {names[1]} cuts {card_label(b)}{tie}"
                )
            lines.append(f"The lower card deals: **{names[ev.dealer]}** deals first.")
        elif isinstance(ev, bh.HandDealt):
            lines.append(
                f"**Hand {ev.hand_no}** — {names[ev.dealer]} deals (the bhargage is theirs). "
                "Each player lays 2 cards away."
            )
        elif isinstance(ev, bh.BhargageMade):
            lines.append(f"Both discards are in: {names[ev.dealer]}'s bhargage holds {ev.size} cards.")
        elif isinstance(ev, bh.UpCardTurned):
            lines.append(f"{names[ev.seat]} cuts: the up-card is **{card_label(ev.card)}**")
        elif isinstance(ev, bh.CardPlayed):
            lines.append(f"{names[ev.seat]} plays **{card_label(ev.card)}** — count **{ev.count}**")
        elif isinstance(ev, bh.PointsScored):
            if ev.reason == GAME:
                lines.append(f"**{GAME}** {names[ev.seat]} played the sixth Ace in a row.")
            else:
                lines.append(f"**{ev.reason}** — {_score(names, ev.seat, ev.total_after)}")
        elif isinstance(ev, bh.WentGo):
            lines.append(f"{names[ev.seat]}: **go**")
        elif isinstance(ev, bh.PlayEnded):
            lines.append(f"The play is over at {ev.count}.")
        elif isinstance(ev, bh.HandCounted):
            lines.extend(counted_lines(ev, names))
        elif isinstance(ev, bh.ShortageClaimed):
            if ev.points:  # 0-point claims are not worth a line
                lines.append(
                    f"**Shortage: {ev.points}** — {_score(names, ev.claimant, ev.total_after)} "
                    f"(missing {_suits(ev.missing)})"
                )
        elif isinstance(ev, bh.GameWon):
            lines.extend(won_lines(ev, names, target))
    return lines


def counted_lines(ev: bh.HandCounted, names: Sequence[str]) -> list[str]:
    whose = f"{names[ev.seat]}'s {'bhargage' if ev.kind == 'bhargage' else 'hand'}"
    lines = [f"__{whose}__: {cards_text(ev.cards)} + up {card_label(ev.up)}"]
    lines.extend(_item(it) for it in ev.items)
    lines.append(f"{whose}: **{ev.total}** — {_score(names, ev.seat, ev.total_after)}")
    return lines


def won_lines(ev: bh.GameWon, names: Sequence[str], target: int | None = None) -> list[str]:
    loser = names[1 - ev.seat]
    lines = []
    note = HOW_WORDS.get(ev.how, "").format(loser=loser)
    if note:
        lines.append(note)
    lines.append(f"🏆 {result_text(ev.seat, ev.scores, names, target if ev.how != 'resign' else None)}")
    return lines


def result_text(winner: int, scores: Sequence[int], names: Sequence[str], target: int | None) -> str:
    """Who won, how far: "**Ann** reaches 121 and wins — Ann 125, Bob 111"."""
    reached = f"reaches {target} and wins" if target is not None and scores[winner] >= target else "wins"
    return f"**{names[winner]}** {reached} — {names[winner]} {scores[winner]}, {names[1 - winner]} " + str(
        scores[1 - winner]
    )


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
            lines.insert(0, "**The show**")
            if after_show:
                lines.append(after_show)
        out.extend(chunk(lines))
    return out


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
        return f"Waiting for {' and '.join(who)} to lay 2 cards away."
    if state.phase is bh.Phase.CUT:
        return f"Waiting for {names[state.non_dealer]} to cut for the up-card."
    if state.phase is bh.Phase.PLAY:
        return f"Waiting for {names[state.to_move]} to play."
    return f"Game over: {names[state.winner]} won." if state.winner >= 0 else "Game over."


def pegs_text(state: bh.State, names: Sequence[str], backs: Mapping[int, int] | None = None) -> str:
    """Both lanes of the cribbage board, 10 → target, as a code block."""
    backs = backs or {}
    lanes = [Lane(names[s], state.scores[s], backs.get(s)) for s in (0, 1)]
    return f"```\n{draw_board(lanes, bh.START_SCORE, state.options.target)}\n```"


def board_text(
    state: bh.State, names: Sequence[str], backs: Mapping[int, int] | None = None, *, game_id: int = 0
) -> str:
    """The one board message: both lanes 10 → target, the deal, the up-card, the pile and the count."""
    opts = f"to {state.options.target}" + (", sequences" if state.options.sequences else "")
    head = f"**Bhargage** ({opts})"
    if state.phase is not bh.Phase.OVER:
        head += f" · hand {state.hand_no} · {names[state.dealer]} deals"
    lines = [head, pegs_text(state, names, backs)]
    if state.phase is not bh.Phase.OVER:
        if state.up is not None:
            lines.append(f"Up-card: {card_label(state.up)}")
        if state.phase is bh.Phase.PLAY:
            lines.append(pile_text(state.pile, state.count))
    lines.append(waiting_text(state, names))
    lines.append(f"-# Suits: {suits.legend()}" + (f" · game #{game_id}" if game_id else ""))
    return "\n".join(lines)


def pile_text(pile: Sequence[tuple[int, Card]], count: int) -> str:
    """The cards of this count, oldest first, with their suits: "Play: the Forest (5) 🌙🍃 · … — count 14"."""
    if not pile:
        return "The play starts: count **0**, no card yet."
    return "Play: " + " · ".join(card_label(c) for _, c in pile) + f" — count **{count}**"


# ---------------------------------------------------------------- a player's private panel


def hand_text(view: bh.SeatView, names: Sequence[str]) -> str:
    """One seat's live panel: the whole table it needs to decide — the standing and target, the deal, the
    up-card, the count and pile with suits, the opponent's last card, whose turn — and its own cards."""
    me, other = view.seat, 1 - view.seat
    dealer = "you deal" if view.dealer == me else f"{names[view.dealer]} deals"
    lines = [
        f"**Bhargage — hand {view.hand_no}** ({dealer}) · **you {view.scores[me]}**, "
        f"{names[other]} {view.scores[other]} · to {view.target}"
    ]
    whose = "your" if view.dealer == me else f"{names[view.dealer]}'s"
    if view.phase is bh.Phase.DISCARD:
        lines.append(
            f"Your cards: {cards_text(view.hand if not view.discard else (*view.hand, *view.discard))}"
        )
        if view.discarded[me]:
            lines.append(f"You laid away {cards_text(view.discard)} (to {whose} bhargage).")
            lines.append(f"Waiting for {names[other]}." if not view.discarded[other] else "")
            lines.append("You may still change your discard below.")
        else:
            lines.append(f"Choose exactly 2 cards for {whose} bhargage.")
        lines.append(f"-# Suits: {suits.legend()}")
        return "\n".join(line for line in lines if line)
    if view.up is not None:
        lines.append(f"Up-card: {card_label(view.up)}")
    if view.phase is bh.Phase.PLAY:
        lines.append(pile_text(view.pile, view.count))
        theirs = [c for s, c in view.pile if s == other]
        if theirs:
            lines.append(f"{names[other]}'s last card: {card_label(theirs[-1])}")
    lines.append(f"Your cards: {cards_text(view.hand)}")
    if view.discard:
        lines.append(f"Your discard ({whose} bhargage): {cards_text(view.discard, short=True)}")
    if view.phase is bh.Phase.CUT:
        if view.dealer != me:
            lines.append("**Your move: cut** for the up-card.")
        else:
            lines.append(f"Waiting for {names[other]} to cut for the up-card.")
    elif view.phase is bh.Phase.PLAY:
        if view.to_move == me:
            lines.append("**Your turn**: play a card (cards that would pass 23 are greyed out).")
        else:
            lines.append(f"Waiting for {names[other]} to play.")
    else:
        lines.append("The game is over.")
    return "\n".join(line for line in lines if line)


# ---------------------------------------------------------------- help and the calculator


# The short help for ``/bhargage rules``: what a newcomer needs to start; docs/rules-bhargage.md has the rest.
# It follows RULES.md (R1–R11) without naming the rulings; tests/test_player_rules.py keeps it short.
RULES = """\
**Bhargage** — the Decktet's cribbage for two. 45 cards in six suits: \
🌙 Moons · ☀️ Suns · 🌊 Waves · 🍃 Leaves · 🐉 Wyrms · 🪢 Knots.
**Values:** Ace 1, 2–9 their number, Crown 10, Pawn, Court and Excuse 0.
**A hand:** 5 cards each; both lay 2 away into the dealer's **bhargage**. An up-card is turned; \
if it shows a person, the dealer scores 2.
**The play:** take turns adding a card to one count that never passes 23 (play if you can). \
Count 11 → 2, 23 → 3; cards of one rank in a row → 2, 6, 12, 20; the last cards holding all six suits \
once (a **bharg**) → 6; last card → 1.
**The show:** your 3 cards + the up-card: each combination adding to 11 → 2, each pair → 2, each bharg \
→ 6. The dealer also counts the bhargage. The opponent scores for suits missing: 1, 3, 6, 10.
**Winning:** both start at 10; first to 121 wins, at once.
**Start:** `/bhargage challenge @friend` or `/bhargage practice`. Your hand comes by DM \
(or `/bhargage hand`); **Hint** suggests a move."""


def rules_text(link: str | None = None) -> str:
    """The short rules, ending with where to read the full ones (``link``; the repository's file if None)."""
    where = link or rules_link(RULES_DOCS["bhargage"])
    return f"{RULES}\n**Full rules:** {where}"


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
    kind = "Bhargage" if bhargage else "Hand"
    lines = [f"**{kind}**: {cards_text(cards)}", f"**Up-card**: {up.label}"]
    if sequences:
        lines.append("(sequences variant on)")
    lines.extend(_item(it) for it in hc.items)
    if not hc.items:
        lines.append("• nothing scores")
    lines.append(f"**Total: {hc.total}**")
    if shortage_points:
        lines.append(f"Shortage: {shortage_points} for the opponent (missing {_suits(missing)})")
    else:
        lines.append("No shortage: every suit is there.")
    return "\n".join(lines)


# ---------------------------------------------------------------- the coach


def _signed(x: float) -> str:
    return f"{x:+.2f}".replace("-", "−")


def discard_hint_text(lines: Sequence[DiscardLine], *, dealer: bool, sequences: bool = False) -> str:
    """The coach's discard table: every choice's expected points this hand, best first, itemised."""
    role = (
        "the dealer: the bhargage is yours" if dealer else "not the dealer: the bhargage is your opponent's"
    )
    out = [
        f"**Discard hint** — expected points this hand (you are {role}"
        f"{'; sequences on' if sequences else ''}), averaged over every up-card and every pair your "
        "opponent may lay away:",
        "```",
        f"{'':3}{'lay away':<28}{'hand':>7}{'bharg.':>8}{'short.':>8}{'total':>8}",
    ]
    for i, line in enumerate(lines, 1):
        pair = " + ".join(c.name for c in line.cards)
        out.append(
            f"{i:>2} {pair[:27]:<28}{line.hand:>7.2f}{_signed(line.bhargage):>8}"
            f"{_signed(line.shortage):>8}{_signed(line.total):>8}"
        )
    out.append("```")
    out.append(
        "hand: your 3 kept cards with the up-card in the show · bharg.: the bhargage's count, yours as "
        "dealer, against you otherwise · short.: shortage claims on your hand (and the bhargage's, for the "
        "non-dealer)."
    )
    return "\n".join(out)


def play_hint_text(advice: PlayAdvice, count: int) -> str:
    """The coach's one line in the play: the card the strongest bot would play, and why."""
    now = ", ".join(it.reason for it in advice.now)
    scored = f"it scores {now} now" if now else "it scores nothing now"
    return (
        f"**Hint:** play **{advice.card.title}** (count {count} → {count + advice.card.value}): {scored}; "
        f"over the rest of this count you can expect {_signed(advice.net)} points against your opponent "
        f"(their best reply averages {advice.reply:.1f})."
    )


# ---------------------------------------------------------------- pictures (drawn by bot.pictures)


def _lanes(scores: Sequence[int], backs: Sequence[int | None], names: Sequence[str]) -> tuple[pic.Lane, ...]:
    lanes = []
    for seat in (0, 1):
        back = backs[seat]
        lanes.append(
            pic.Lane(names[seat], scores[seat], back, scores[seat] - back if back is not None else None)
        )
    return tuple(lanes)


def _play_row(up: Card | None, pile: Sequence[tuple[int, Card]], count: int, playing: bool) -> pic.Row | None:
    """The up-card and, during the play, the cards of this count."""
    if up is None:
        return None
    groups: list[tuple[Card, ...]] = [(up,)]
    labels = ["Up-card"]
    if playing and pile:
        groups.append(tuple(c for _, c in pile))
        labels.append(f"Count {count}")
    return pic.Row(caption="", groups=tuple(groups), labels=tuple(labels))


def board_scene(state: bh.State, names: Sequence[str]) -> pic.Scene:
    """The board as a picture: both pegs on a cribbage track (back peg, last points, target), the up-card
    and the pile."""
    parts: list[pic.Row | pic.Track] = [
        pic.Track(_lanes(state.scores, state.backs, names), state.options.target)
    ]
    if state.phase is not bh.Phase.OVER:
        row = _play_row(state.up, state.pile, state.count, state.phase is bh.Phase.PLAY)
        if row is not None:
            parts.append(row)
    title = f"Bhargage · hand {state.hand_no}" if state.phase is not bh.Phase.OVER else "Bhargage · final"
    return pic.Scene(tuple(parts), title=title)


def dealt(view: bh.SeatView) -> tuple[Card, ...]:
    """The seat's five cards of this deal, discards included, low to high: the order of its discard menu."""
    return tuple(sorted((*view.hand, *view.discard), key=sort_key))


def panel_scene(view: bh.SeatView, picked: Sequence[Card] = ()) -> pic.Scene:
    """A seat's panel as a picture: its cards (while discarding, all five with the chosen two raised), then
    the up-card and the pile."""
    if view.phase is bh.Phase.DISCARD:
        cards = dealt(view)
        chosen = set(picked or view.discard)
        raised = tuple((0, i) for i, c in enumerate(cards) if c in chosen)
        caption = "Your cards: choose 2 to lay away"
    else:
        cards, raised, caption = tuple(view.hand), (), "Your cards"
    parts: list[pic.Row | pic.Track] = [pic.Row(caption=caption, groups=(cards,), picked=raised)]
    row = _play_row(view.up, view.pile, view.count, view.phase is bh.Phase.PLAY)
    if row is not None:
        parts.append(row)
    return pic.Scene(tuple(parts))


def show_scene(events: Sequence[bh.Event], names: Sequence[str]) -> pic.Scene | None:
    """The show as a picture: each counted hand (and the bhargage) beside the up-card, with what it scored;
    None when these events hold no show."""
    rows: list[pic.Row | pic.Track] = []
    for ev in events:
        if isinstance(ev, bh.HandCounted):
            whose = f"{names[ev.seat]}'s {'bhargage' if ev.kind == 'bhargage' else 'hand'}"
            scored = ", ".join(it.reason for it in ev.items) or "nothing"
            rows.append(
                pic.Row(
                    caption=f"{whose}: {ev.total} ({scored})",
                    groups=(ev.cards, (ev.up,)),
                    labels=("", "Up-card"),
                )
            )
    return pic.Scene(tuple(rows), title="The show") if rows else None
