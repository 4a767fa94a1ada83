"""Bharg Deluxe as pictures: the scenes ``bot.pictures`` draws of the table and of a player's hand."""

from __future__ import annotations

from collections.abc import Sequence

from bot import pictures as pic
from bot.base.i18n import t
from bot.render import picture_names
from bot.render.deluxe import points
from bot.rules import deluxe as D
from bot.rules.decktet import Card


def kind_short(kind: str) -> str:
    """A meld's kind under its cards in a picture: "Bharg set", "Straight", "Partial"."""
    if kind == D.BHARG_SET:
        return t("deluxe.kind-short.bharg-set")
    if kind == D.COMPLETE:
        return t("deluxe.kind-short.complete")
    if kind == D.PARTIAL:
        return t("deluxe.kind-short.partial")
    return kind


def table_scene(v: D.View, names: Sequence[str]) -> pic.Scene:
    """The table as a picture: each player's melds bound this hand (with kind and points), the Discard
    Queue top first, and the Ace Pile with the suit straights follow."""
    rows: list[pic.Row | pic.Track] = []
    for seat, name in enumerate(picture_names(names)):
        turn = "» " if v.phase != D.Phase.OVER and v.turn == seat else ""
        left = t("deluxe.left-mark") if v.left[seat] else ""
        bound = v.bound[seat]
        rows.append(
            pic.Row(
                caption=f"{turn}{name}{left} · {v.scores[seat]}/{v.target}",
                groups=tuple(m.cards for m in bound),
                labels=tuple(f"{kind_short(m.kind)} +{points(m.cards)}" for m in bound),
                small=True,
            )
        )
    top_first = tuple(reversed(v.queue))
    queue = t("deluxe.picture.queue", count=len(v.queue)) if v.queue else t("deluxe.picture.queue-empty")
    rows.append(pic.Row(caption=queue, groups=(top_first,) if top_first else (), small=True))
    suit = v.straight_suit
    aces = pic.Row(
        caption=t("deluxe.picture.aces") if suit is not None else t("deluxe.picture.aces-none"),
        groups=(tuple(v.ace_pile),) if v.ace_pile else (),
        suits=(suit,) if suit is not None else (),
        small=True,
    )
    rows.append(aces)
    return pic.Scene(tuple(rows), title=t("deluxe.picture.title", hand=v.hand_no), worth="suits")


# Cards a line in a hand's picture: a phone shows a picture about 360 px wide, where five large cards a line
# are each about 64 px wide (nine were 36 px: tests/test_pictures_phone.py measures it).
HAND_PER_LINE = 5


def hand_scene(hand: Sequence[Card], picked: Sequence[int] = ()) -> pic.Scene:
    """A player's hand as a picture, in the view's order (the order the menus list it, so ``picked``, the
    positions of the cards picked for a meld, are raised), five cards a line."""
    row = pic.Row(
        caption=t("deluxe.picture.your-hand"),
        groups=(tuple(hand),),
        picked=tuple((0, i) for i in picked),
        per_line=HAND_PER_LINE,
    )
    return pic.Scene((row,), worth="suits")
