"""Bhargage as pictures: the board, a seat's panel and the show as scenes for :mod:`bot.pictures` to draw,
their words in the language in force."""

from __future__ import annotations

from collections.abc import Sequence

from bot import pictures as pic
from bot.base.i18n import t
from bot.render import picture_names
from bot.render.bhargage import call_text, whose_hand
from bot.render.rows import card_and_pile, hand_row
from bot.rules import bhargage as bh
from bot.rules.decktet import Card, sort_key


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
    shown = [c for _, c in pile] if playing else []
    return card_and_pile(up, t("bhargage.picture.up-card"), shown, t("bhargage.picture.count", count=count))


def board_scene(state: bh.State, names: Sequence[str]) -> pic.Scene:
    """The board as a picture: both pegs on a cribbage track (back peg, last points, target), the up-card
    and the pile."""
    parts: list[pic.Row | pic.Track] = [
        pic.Track(_lanes(state.scores, state.backs, picture_names(names)), state.options.target)
    ]
    if state.phase is not bh.Phase.OVER:
        row = _play_row(state.up, state.pile, state.count, state.phase is bh.Phase.PLAY)
        if row is not None:
            parts.append(row)
    if state.phase is not bh.Phase.OVER:
        title = t("bhargage.picture.board-hand", hand=state.hand_no)
    else:
        title = t("bhargage.picture.board-final")
    return pic.Scene(tuple(parts), title=title)


def dealt(view: bh.SeatView) -> tuple[Card, ...]:
    """The seat's five cards of this deal, discards included, low to high: the order of its discard menu."""
    return tuple(sorted((*view.hand, *view.discard), key=sort_key))


def panel_scene(view: bh.SeatView, picked: Sequence[Card] = ()) -> pic.Scene:
    """A seat's panel as a picture: its cards (while discarding, all five with the chosen two raised), then
    the up-card and the pile."""
    if view.phase is bh.Phase.DISCARD:
        hand = hand_row(t("bhargage.picture.choose"), dealt(view), set(picked or view.discard))
    else:
        hand = hand_row(t("bhargage.picture.your-cards"), view.hand)
    parts: list[pic.Row | pic.Track] = [hand]
    row = _play_row(view.up, view.pile, view.count, view.phase is bh.Phase.PLAY)
    if row is not None:
        parts.append(row)
    return pic.Scene(tuple(parts))


def show_scene(events: Sequence[bh.Event], names: Sequence[str]) -> pic.Scene | None:
    """The show as a picture: each counted hand (and the bhargage) beside the up-card, with what it scored,
    and under it the shortage its opponent claimed (the suits it lacks); None when these events hold no
    show."""
    names = picture_names(names)
    rows: list[pic.Row | pic.Track] = []
    for ev in events:
        if isinstance(ev, bh.HandCounted):
            whose = whose_hand(ev, names)
            scored = ", ".join(call_text(it.reason) for it in ev.items) or t("bhargage.picture.nothing")
            rows.append(
                pic.Row(
                    caption=t("bhargage.picture.counted", whose=whose, total=ev.total, calls=scored),
                    groups=(ev.cards, (ev.up,)),
                    labels=("", t("bhargage.picture.up-card")),
                )
            )
        elif isinstance(ev, bh.ShortageClaimed) and ev.points:
            who, total = names[ev.claimant], ev.total_after
            said = t("bhargage.picture.shortage", points=ev.points, name=who, total=total)
            rows.append(pic.Row(caption=said, suits=ev.missing))
    return pic.Scene(tuple(rows), title=t("bhargage.picture.show")) if rows else None
