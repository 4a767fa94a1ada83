"""Bharg Deluxe's coach as text: every option of one decision, best first, in words a newcomer reads at a
glance — what a draw lets them bind and what it leaves in hand, what a discard hands the next player.

The options and their order are the hard computer player's (:func:`bot.ai.deluxe.advise`)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ai.deluxe import Advice
from bot.base.i18n import t, tn
from bot.render import words
from bot.render.deluxe import card_text, kind_word, meld_text, points, suit_text
from bot.rules import deluxe as D
from bot.rules.decktet import Card

HINT_LINES = 6  # options the hint lists: the best few, so it reads at a glance on a phone


def draw_name(action: D.Action, taken: Sequence[Card]) -> str:
    """A way to draw as the coach names it: "Draw from the deck", "Take 1 (the Savage)", "Take 3 (down to
    the Mill)"."""
    if isinstance(action, D.TakeQueue) and taken:
        if action.n == 1:
            return t("deluxe.hint.take-one", card=words.title(taken[-1]))
        return t("deluxe.hint.take-many", n=action.n, card=words.title(taken[-1]))
    return t("deluxe.hint.deck")


def binds_text(melds: Sequence[D.Meld]) -> str:
    """What a draw lets the seat bind this turn: "binds now: bharg set, partial straight (+11)"."""
    if not melds:
        return t("deluxe.hint.binds-nothing")
    kinds = ", ".join(kind_word(m.kind) for m in melds)
    return t("deluxe.hint.binds", melds=kinds, points=sum(points(m.cards) for m in melds))


def gift_text(advice: Advice) -> str:
    """What a discard hands the next player, in a few words."""
    action = advice.action
    if advice.gift == "ace" and isinstance(action, D.Discard):
        return t("deluxe.hint.gift-ace", suit=suit_text(action.card.suits[0]))
    if advice.gift == "straight":
        return t("deluxe.hint.gift-straight")
    if advice.gift == "set":
        return t("deluxe.hint.gift-set")
    return t("deluxe.hint.gift-little")


def kept_text(kept: Sequence[Card]) -> str:
    """The hand a choice leaves: "5 cards left (9 pts held)", or "you go out"."""
    if not kept:
        return t("deluxe.hint.go-out")
    return t("deluxe.hint.kept", cards=tn("deluxe.cards", len(kept)), points=tn("deluxe.pts", points(kept)))


def advice_line(advice: Advice, names: Sequence[str], seat: int) -> str:
    """One of the coach's options, as a list item."""
    action = advice.action
    if isinstance(action, D.Draw | D.TakeQueue):
        name = draw_name(action, advice.taken)
        line = t("deluxe.hint.draw-line", option=name, binds=binds_text(advice.binds))
        if isinstance(action, D.TakeQueue):  # the cost of taking: the cards still held after binding
            cards, pts = tn("deluxe.cards", len(advice.kept)), tn("deluxe.pts", points(advice.kept))
            line = t("deluxe.hint.holding", line=line, cards=cards, points=pts)
        return line
    if isinstance(action, D.Bind) and advice.binds:
        return t("deluxe.hint.bind-line", meld=meld_text(advice.binds[0], names, binder=seat))
    if isinstance(action, D.Discard):
        return t(
            "deluxe.hint.discard-line",
            card=card_text(action.card),
            gift=gift_text(advice),
            kept=kept_text(advice.kept),
        )
    return t("deluxe.hint.done-line", kept=kept_text(advice.kept))


def hint_text(advice: Sequence[Advice], names: Sequence[str], seat: int) -> str:
    """The coach's answer for one decision: the options best first, the first being the hard computer
    player's own choice. A bind step lists the melds to bind, then the discards of what they leave."""
    if not advice:
        return t("deluxe.hint.none")
    drawing = isinstance(advice[0].action, D.Draw | D.TakeQueue)
    head = t("deluxe.hint.head-draw") if drawing else t("deluxe.hint.head-turn")
    lines = [head]
    binds = [a for a in advice if isinstance(a.action, D.Bind)]
    rest = [a for a in advice if not isinstance(a.action, D.Bind)]
    shown = [*binds, *rest[: max(1, HINT_LINES - len(binds))]] if not drawing else list(advice[:HINT_LINES])
    for i, a in enumerate(shown, 1):
        line = advice_line(a, names, seat)
        if i == 1:
            line = f"**{line}**"
        if binds and rest and a is rest[0]:
            lines.append(t("deluxe.hint.then"))
        lines.append(f"{i}. {line}")
    return "\n".join(lines)
