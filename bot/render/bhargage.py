"""Bhargage as text: what the channel, the board and a player's private panel say (no Discord here).

Every call is worded as the seed announces it (R13): "11 for 2", "2 for a pair", "6 for bharg", "1 for last",
"2 for the Chief", "Shortage: 3", "Muggins!", "Game!".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from bot.ai.bhargage import DiscardLine, PlayAdvice
from bot.render.board import Lane, draw_board
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import GAME, HandCount, ScoreItem
from bot.rules.decktet import Card, Suit

MESSAGE_LIMIT = 1900  # under Discord's 2000, leaving room for a ping line

HOW_WORDS = {
    "resign": "{loser} resigned.",
    "forfeit": "{loser} forfeited (the table waited too long).",
    "game": "Six Aces in a row: **Game!**",
    "muggins": "**Muggins!** The game was won on a shortage claim (it counts double).",
    "target": "",
}


def cards_text(cards: Iterable[Card], *, short: bool = False) -> str:
    """Cards joined for reading: labels with rank and suits, or just their titles when ``short``."""
    return ", ".join(c.title if short else c.label for c in cards) or "—"


def _item(item: ScoreItem) -> str:
    return f"• {item.reason} — {' + '.join(c.title for c in item.cards)}"


def _suits(suits: Sequence[Suit]) -> str:
    return " ".join(f"{s.emoji} {s.value}" for s in suits)


def _score(names: Sequence[str], seat: int, total: int) -> str:
    return f"{names[seat]} ({total})"


# ---------------------------------------------------------------- the channel


def event_lines(events: Sequence[bh.Event], names: Sequence[str]) -> list[str]:
    """One line (or a few) per event, in order; secret events (a discard) say nothing."""
    lines: list[str] = []
    for ev in events:
        if isinstance(ev, bh.DealerCut):
            for a, b in ev.cuts:
                tie = " — same rank, cut again" if a.rank == b.rank else ""
                lines.append(f"Cut for the deal: {names[0]} cuts {a.label}, {names[1]} cuts {b.label}{tie}")
            lines.append(f"The lower card deals: **{names[ev.dealer]}** deals first.")
        elif isinstance(ev, bh.HandDealt):
            lines.append(
                f"**Hand {ev.hand_no}** — {names[ev.dealer]} deals (the bhargage is theirs). "
                "Each player lays 2 cards away."
            )
        elif isinstance(ev, bh.BhargageMade):
            lines.append(f"Both discards are in: {names[ev.dealer]}'s bhargage holds {ev.size} cards.")
        elif isinstance(ev, bh.UpCardTurned):
            lines.append(f"{names[ev.seat]} cuts: the up-card is **{ev.card.label}**")
        elif isinstance(ev, bh.CardPlayed):
            lines.append(f"{names[ev.seat]} plays **{ev.card.label}** — count **{ev.count}**")
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
            lines.extend(won_lines(ev, names))
    return lines


def counted_lines(ev: bh.HandCounted, names: Sequence[str]) -> list[str]:
    whose = f"{names[ev.seat]}'s {'bhargage' if ev.kind == 'bhargage' else 'hand'}"
    lines = [f"__{whose}__: {cards_text(ev.cards)} + up {ev.up.label}"]
    lines.extend(_item(it) for it in ev.items)
    lines.append(f"{whose}: **{ev.total}** — {_score(names, ev.seat, ev.total_after)}")
    return lines


def won_lines(ev: bh.GameWon, names: Sequence[str]) -> list[str]:
    winner, loser = names[ev.seat], names[1 - ev.seat]
    lines = []
    note = HOW_WORDS.get(ev.how, "").format(loser=loser)
    if note:
        lines.append(note)
    lines.append(f"🏆 **{winner} wins** {ev.scores[ev.seat]}–{ev.scores[1 - ev.seat]}!")
    return lines


def messages(events: Sequence[bh.Event], names: Sequence[str], *, after_show: str = "") -> list[str]:
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
        lines = event_lines(block, names)
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
            lines.append(f"Up-card: {state.up.label}")
        if state.phase is bh.Phase.PLAY:
            pile = " · ".join(c.title for _, c in state.pile) or "—"
            lines.append(f"Play: {pile} — count **{state.count}**")
    lines.append(waiting_text(state, names))
    if game_id:
        lines.append(f"-# game #{game_id}")
    return "\n".join(lines)


# ---------------------------------------------------------------- a player's private panel


def hand_text(view: bh.SeatView, names: Sequence[str]) -> str:
    """What one seat reads in its DM (or ephemeral) panel; the controls come with it."""
    me, other = names[view.seat], names[1 - view.seat]
    dealer = "you deal" if view.dealer == view.seat else f"{names[view.dealer]} deals"
    lines = [
        f"**Bhargage — hand {view.hand_no}** ({dealer}) · {me} {view.scores[view.seat]}, "
        f"{other} {view.scores[1 - view.seat]}"
    ]
    if view.phase is bh.Phase.DISCARD:
        lines.append(
            f"Your cards: {cards_text(view.hand if not view.discard else (*view.hand, *view.discard))}"
        )
        whose = "your" if view.dealer == view.seat else f"{names[view.dealer]}'s"
        if view.discarded[view.seat]:
            lines.append(f"You laid away {cards_text(view.discard)} (to {whose} bhargage).")
            lines.append(f"Waiting for {other}." if not view.discarded[1 - view.seat] else "")
            lines.append("You may still change your discard below.")
        else:
            lines.append(f"Choose exactly 2 cards for {whose} bhargage.")
    else:
        lines.append(f"Your cards: {cards_text(view.hand)}")
        if view.discard:
            lines.append(f"Your discard: {cards_text(view.discard, short=True)}")
        if view.up is not None:
            lines.append(f"Up-card: {view.up.label}")
        if view.phase is bh.Phase.CUT:
            cutter = "you" if view.dealer != view.seat else other
            lines.append(f"Waiting for {cutter} to cut for the up-card.")
        elif view.phase is bh.Phase.PLAY:
            lines.append(f"Count: **{view.count}**")
            if view.to_move == view.seat:
                lines.append("Your turn: play a card (cards that would pass 23 are greyed out).")
            else:
                lines.append(f"Waiting for {other} to play.")
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
    from bot.text import RULES_DOCS, rules_link

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
