"""Classic Cribbage as pictures: the board (a peg lane per side to 121 or 61, the starter, the count, the crib
face down), a seat's panel and the show, as scenes for :mod:`bot.pictures` to draw, their words in the
language in force."""

from __future__ import annotations

from collections.abc import Sequence

from bot import pictures as pic
from bot.base.i18n import t
from bot.render import picture_names
from bot.render.cribbage_words import show_count, side_names
from bot.render.rows import card_and_pile, hand_row
from bot.rules import cribbage as C
from bot.rules.pack52 import Card, sort_key

Part = pic.Row | pic.Track


def _play_row(
    starter: Card | None, pile: Sequence[tuple[int, Card]], count: int, playing: bool
) -> pic.Row | None:
    """The starter and, during the play, the cards of this count."""
    if starter is None:
        return None
    shown = [c for _, c in pile] if playing else []
    return card_and_pile(
        starter, t("cribbage.picture.starter"), shown, t("cribbage.picture.count", count=count)
    )


def track(state: C.State, names: Sequence[str]) -> pic.Track:
    """The peg board: a lane per side ("Ana & Cy" in partnerships), names as pictures write them."""
    names = picture_names(names)
    lanes = tuple(
        pic.Lane(who, score)
        for who, score in zip(side_names(names, state.players), state.scores, strict=True)
    )
    return pic.Track(lanes, state.options.target)


def board_scene(state: C.State, names: Sequence[str]) -> pic.Scene:
    """The board as a picture: the pegs of every side, the starter and the count's cards, the crib face down
    (with its owner) while it waits for the show."""
    parts: list[Part] = [track(state, names)]
    if state.phase is C.Phase.OVER:
        return pic.Scene(tuple(parts), title=t("cribbage.picture.board-final"))
    row = _play_row(state.starter, state.pile, state.count, state.phase is C.Phase.PLAY)
    if row is not None:
        parts.append(row)
    if state.phase in (C.Phase.CUT, C.Phase.PLAY):
        caption = t("cribbage.picture.crib", name=picture_names(names)[state.dealer])
        parts.append(pic.Row(caption=caption, groups=((pic.BACK,) * 4,), small=True))
    return pic.Scene(tuple(parts), title=t("cribbage.picture.board-hand", hand=state.hand_no))


def dealt(view: C.SeatView) -> tuple[Card, ...]:
    """The seat's cards of this deal, its lay-away included, low to high: the order of its lay-away menu."""
    return tuple(sorted((*view.hand, *view.laid_away), key=sort_key))


def panel_scene(view: C.SeatView, picked: Sequence[Card] = ()) -> pic.Scene:
    """A seat's panel as a picture: its cards (while laying away, all of them with the chosen ones raised),
    then the starter and the count's cards."""
    parts: list[Part] = []
    if view.phase is C.Phase.DISCARD:
        parts.append(hand_row(t("cribbage.picture.choose"), dealt(view), set(picked or view.laid_away)))
    elif view.hand:
        parts.append(hand_row(t("cribbage.picture.your-cards"), view.hand))
    row = _play_row(view.starter, view.pile, view.count, view.phase is C.Phase.PLAY)
    if row is not None:
        parts.append(row)
    return pic.Scene(tuple(parts))


def show_scene(events: Sequence[C.Event], names: Sequence[str]) -> pic.Scene | None:
    """The show as a picture: each counted hand (and the crib) beside the starter, with its count; None when
    these events hold no show. A long count wraps onto more lines of its caption."""
    names = picture_names(names)
    rows: list[Part] = []
    for ev in events:
        if isinstance(ev, C.HandCounted):
            if ev.kind == "crib":
                whose = t("cribbage.show.whose-crib", name=names[ev.seat])
            else:
                whose = t("cribbage.show.whose-hand", name=names[ev.seat])
            caption = t("cribbage.picture.counted", whose=whose, total=ev.total, count=show_count(ev.items))
            rows.append(
                pic.Row(
                    caption=caption,
                    groups=(ev.cards, (ev.starter,)),
                    labels=("", t("cribbage.picture.starter")),
                )
            )
    return pic.Scene(tuple(rows), title=t("cribbage.picture.show")) if rows else None
