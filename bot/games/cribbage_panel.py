"""Classic Cribbage's private panel: what a seat sees and may do, drawn from the engine's view of that seat
only (a partner's hand is never in it), and the reading back of its controls.

Controls name cards by their index in the 52-card pack (``Card.index``, 0–51) and claims by their number;
:func:`card_at`, :func:`laid_arg` and :func:`claim_arg` read them back strictly, refusing anything a panel
could not have offered. Lay-away controls carry "<hand>-<0|1 laid already>" as their freshness token (every
seat lays away at once: one seat's choice does not make another's menu stale); the others carry the table's
action count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.base.i18n import t, tn
from bot.base.panel import Button, Control, Option, Panel, Select
from bot.base.refusals import UserFacingError
from bot.games import Table
from bot.games.controls import play_buttons
from bot.games.prefs import how_to_turn_on
from bot.render import cribbage as render
from bot.render import cribbage_scenes as scenes
from bot.render import picture
from bot.render.cribbage_words import label, short
from bot.rules import cribbage as C
from bot.rules.pack52 import FULL_PACK, Card

# A claim is any number from 0 to 29 whatever the count (C9): more than a Discord select holds (25), so two
# menus of 15, the same at every claim.
CLAIM_MENUS = (("lo", range(0, 15)), ("hi", range(15, C.MAX_CLAIM + 1)))


def _refused() -> UserFacingError:
    return UserFacingError("tavern.out-of-date")


def _number(text: str, below: int) -> int:
    """A small whole number as a control carries it: ASCII digits only, no sign, no leading zero."""
    if not text.isascii() or not text.isdigit() or len(text) > 2 or (len(text) > 1 and text[0] == "0"):
        raise _refused()
    value = int(text)
    if value >= below:
        raise _refused()
    return value


def card_at(text: str) -> Card:
    """A card by its index in the pack, as controls carry it; anything else is a stale or forged id."""
    return FULL_PACK[_number(text, len(FULL_PACK))]


def laid_arg(text: str, size: int) -> tuple[Card, ...]:
    """The cards of a Confirm button ("12-40", or "12" when one card is laid away)."""
    parts = text.split("-")
    if len(parts) != size:
        raise _refused()
    cards = tuple(card_at(p) for p in parts)
    if len(set(cards)) != size:
        raise _refused()
    return cards


def claim_arg(menu: str, values: Sequence[str]) -> int:
    """The points chosen in one of the two claim menus: one value, of that menu's numbers."""
    numbers = dict(CLAIM_MENUS).get(menu)
    if numbers is None or len(values) != 1:
        raise _refused()
    points = _number(values[0], C.MAX_CLAIM + 1)
    if points not in numbers:
        raise _refused()
    return points


def token(table: Table, seat: int) -> str:
    state: C.State = table.state
    if state.phase is C.Phase.DISCARD:
        return f"{state.hand_no}-{int(bool(state.laid[seat]))}"
    return str(table.seq)


def hint_button() -> Button:
    return Button(t("cribbage.button.hint"), "hint", emoji="💡")


# ---------------------------------------------------------------- the panel


def seat_panel(table: Table, seat: int, note: str = "", chosen: tuple[Card, ...] | None = None) -> Panel:
    """The seat's cards with whatever it may do now; ``chosen`` = the cards picked to lay away, awaiting
    Confirm."""
    view = C.view(table.state, seat)
    panel = Panel(content=render.hand_text(view, table.names)).with_note(note)
    shown = scenes.panel_scene(view, chosen or ())
    if shown.parts:
        alt = ", ".join(label(c) for c in scenes.dealt(view)) or t("cribbage.picture.starter")
        panel = replace(panel, picture=picture("hand.png", shown, alt))
    if table.status != "active":
        return panel
    controls = _controls(table, view, chosen)
    if view.phase is C.Phase.CUT and view.seat == (view.dealer + 1) % view.players:
        tip = t("cribbage.panel.cut-tip", how=how_to_turn_on("auto_cut"))
        panel = replace(panel, content=f"{panel.content}\n{tip}")
    return replace(panel, controls=controls)


def _controls(table: Table, view: C.SeatView, chosen: tuple[Card, ...] | None) -> tuple[Control, ...]:
    tok = token(table, view.seat)
    if view.phase is C.Phase.DISCARD:
        return _lay_away_controls(view, tok, chosen)
    if view.phase is C.Phase.CUT and view.seat == (view.dealer + 1) % view.players:
        return (Button(t("cribbage.button.cut"), "cut", token=tok, style="primary"),)
    if view.phase is C.Phase.PLAY and view.to_move == view.seat:
        legal = {a.card for a in view.legal if isinstance(a, C.Play)}
        return (*play_buttons(view.hand, lambda c: render.play_label(c, view), legal, tok), hint_button())
    if view.phase is C.Phase.CLAIM and view.claim is not None and view.claim.seat == view.seat:
        # A claim is final (C9): options say "4 points", and where a player types it (the terminal) the
        # number typed is the points claimed, never a line's number.
        typed = t("cribbage.select.claim-typed", most=C.MAX_CLAIM)
        return tuple(
            Select(
                t("cribbage.select.claim", low=numbers[0], high=numbers[-1]),
                "tally",  # not "claim": the shared table takes that verb for an idle player
                tuple(Option(tn("cribbage.select.points", n), str(n)) for n in numbers),
                token=tok,
                arg=menu,
                typed=typed,
            )
            for menu, numbers in CLAIM_MENUS
        )
    return ()


def _lay_away_controls(view: C.SeatView, tok: str, chosen: tuple[Card, ...] | None) -> tuple[Control, ...]:
    size = C.lay_away_size(view.players)
    picked = {c.index for c in chosen or ()}
    options = tuple(
        Option(label=label(c)[:100], value=str(c.index), default=c.index in picked)
        for c in scenes.dealt(view)
    )
    if view.laid[view.seat]:
        placeholder = tn("cribbage.select.change", size)
    else:
        placeholder = tn("cribbage.select.choose", size)
    out: list[Control] = [Select(placeholder, "pick", options, token=tok, min_values=size, max_values=size)]
    if chosen is not None:
        arg = "-".join(str(c.index) for c in chosen)
        out.append(Button(t("cribbage.button.confirm"), "lay", token=tok, arg=arg, style="success"))
    out.append(hint_button())
    return tuple(out)


def you_laid(cards: Sequence[Card]) -> str:
    return tn("cribbage.panel.you-laid-away", len(cards), cards=" ".join(short(c) for c in cards))
