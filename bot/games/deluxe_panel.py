"""Bharg Deluxe's private turn panel: what a seat sees and may do on its turn, drawn from the engine's view.

Every control carries the table's action count when the panel was drawn, so a panel goes stale as soon as
anything is played. Cards are named by their position in the sorted hand (the engine's ``view`` order), and a
set of cards travels as a base-36 bitmask of positions (a meld in the "Bind a meld…" menu's values, a
selection being built by hand in the custom ids): no panel state lives in memory, and old panels survive a
restart. The bind step offers every bindable meld in one menu and every discard in another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.ai import deluxe as computer
from bot.base.i18n import t, tn
from bot.base.panel import Button, Control, Embed, Option, Panel, Pick, Picture, Select
from bot.games import Table
from bot.render import deluxe as R
from bot.render import deluxe_scenes as scenes
from bot.render import picture, words
from bot.render.refusals import said
from bot.rules import deluxe as D
from bot.rules.decktet import Card
from bot.rules.errors import IllegalAction, RulesError

CHUNK = 25  # options per select (Discord's limit)
MAX_SELECTS = 4  # four select rows plus one row of buttons (the meld menu takes one of the four)
EMBED_LIMIT = 4000
COLOUR = 0x11806A


# ------------------------------------------------------------------------------------------- selections


def mask_text(mask: int) -> str:
    return _b36(mask)


def _b36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def parse_mask(text: str) -> int:
    try:
        return int(text or "0", 36)
    except ValueError:
        raise IllegalAction("deluxe.panel.damaged") from None


def positions(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def chosen(hand: Sequence[Card], mask: int) -> list[Card]:
    """The cards a mask names in the sorted hand; a position past the hand means a stale panel."""
    out = []
    for i in positions(mask):
        if i >= len(hand):
            raise IllegalAction("deluxe.panel.cards-gone")
        out.append(hand[i])
    return out


def mask_of(hand: Sequence[Card], cards: Sequence[Card]) -> int:
    """Positions in the sorted hand holding these cards (two copies of a card take two positions)."""
    used: set[int] = set()
    mask = 0
    for c in cards:
        for i, h in enumerate(hand):
            if i not in used and h == c:
                used.add(i)
                mask |= 1 << i
                break
    return mask


def pick_of(state: D.State, seat: int) -> Callable[[D.Action], Pick | None]:
    """How the turn panel offers an action now (the coach's option as the player's menu shows it): Draw, a
    take's menu option, a meld's, a discard's, Done; None for what the panel does not offer."""
    hand = D.view(state, seat).hand
    melds, _ = meld_choices(state, seat, hand) if state.phase != D.Phase.DRAW else ({}, 0)
    tosses = {i for chunk in discard_menus(state, seat, hand, bool(melds)) for i in chunk}

    def pick(action: D.Action) -> Pick | None:
        if isinstance(action, D.Draw):
            return Pick("draw")
        if isinstance(action, D.TakeQueue):
            return Pick("take", (str(action.n),)) if action.n <= MAX_SELECTS * CHUNK else None
        if isinstance(action, D.Done):
            return Pick("done")
        if isinstance(action, D.Bind):
            value = mask_text(mask_of(hand, action.cards))
            return Pick("meld", (value,)) if value in melds else None
        if isinstance(action, D.Discard) and action.card in hand:
            i = hand.index(action.card)
            return Pick("toss", (str(i),)) if i in tosses else None
        return None

    return pick


def judge(state: D.State, seat: int, cards: Sequence[Card]) -> tuple[D.Meld | None, str | None]:
    """What the selected cards would bind as, or the engine's reason why they bind as nothing."""
    if not cards:
        return None, None
    try:
        return D.classify(state, seat, cards), None
    except RulesError as err:
        return None, said(err)


# ------------------------------------------------------------------------------------------- the panel


def embed(title: str, text: str) -> Embed:
    if len(text) > EMBED_LIMIT:
        text = text[: EMBED_LIMIT - 1] + "…"
    return Embed(title=title, description=text, colour=COLOUR)


def _public_summary(v: D.View, table: Table) -> str:
    """What the whole table can see, compactly: the straight suit, the piles, the scores, each seat's melds
    (the table cards a partial straight may build on) — and, once the game is over, the final scores."""
    lines = [
        R.straight_line(v),
        t("deluxe.panel.piles", deck=R.deck_text(v), queue=R.queue_text(v.queue)),
        t("deluxe.panel.scores", scores=R.progress_line(v, table.names)),
    ]
    melds = R.table_lines(v, table.names)
    if melds:
        lines += [t("deluxe.panel.table"), *melds]
    if D.is_over(table.state):
        lines = [R.final_text(D.final_result(table.state), table.names), "", *lines]
    return "\n".join(lines)


def ranked_melds(state: D.State, seat: int) -> list[D.Meld]:
    """What the seat can bind now, best first: most points, then most cards (ties keep the engine's order)."""
    melds = D.bindable_melds(state, seat)
    return sorted(melds, key=lambda m: (-R.points(m.cards), -len(m.cards)))


def meld_choices(state: D.State, seat: int, hand: Sequence[Card]) -> tuple[dict[str, D.Meld], int]:
    """The "Bind a meld…" menu: up to 25 of the best melds by the base-36 mask of their cards in the sorted
    hand (one value per set of cards), and how many melds there are in all."""
    melds = ranked_melds(state, seat)
    out: dict[str, D.Meld] = {}
    for m in melds:
        value = mask_text(mask_of(hand, m.cards))
        if value not in out:
            out[value] = m
        if len(out) == CHUNK:
            break
    return out, len(melds)


def discard_chunks(state: D.State, seat: int, hand: Sequence[Card]) -> list[list[int]]:
    """Positions in the sorted hand of the cards the seat may discard now, in menus of 25."""
    if state.phase != D.Phase.BIND or state.turn != seat:
        return []
    legal = [i for i, c in enumerate(hand) if D.can(state, D.Discard(seat, c))]
    return [legal[k : k + CHUNK] for k in range(0, len(legal), CHUNK)]


def discard_menus(state: D.State, seat: int, hand: Sequence[Card], has_melds: bool) -> list[list[int]]:
    """The discard menus the bind step has room for: four select rows, less the meld menu's. A hand of more
    than 75 cards (the whole Discard Queue taken) discards the rest by hand."""
    return discard_chunks(state, seat, hand)[: MAX_SELECTS - (1 if has_melds else 0)]


def turn_panel(table: Table, seat: int, *, mask: int = 0, build: bool = False, note: str = "") -> Panel:
    """The seat's private panel: its hand and, when it is their move, the controls for that step.

    The bind step offers every bindable meld in one menu and every discard in another, so a turn is a click
    to draw, one per meld and one to discard. "Build a meld by hand" (``build``) opens the card menus, where
    ``mask`` is the selection so far."""
    state: D.State = table.state
    v = D.view(state, seat)
    hand = v.hand
    my_move = not D.is_over(state) and v.turn == seat and not v.left[seat]
    lines = [_public_summary(v, table), "", t("deluxe.panel.your-hand"), R.hand_text(hand)]
    items: list[Control] = []
    title = t("deluxe.panel.title", hand=v.hand_no)
    final = v.phase == D.Phase.FINAL_BIND
    if D.is_over(state):
        header = t("deluxe.rules.over")
    elif v.left[seat]:
        header = t("deluxe.rules.you-left")
    elif not my_move:
        header = t("deluxe.panel.waiting", name=table.names[v.turn])
    elif v.phase == D.Phase.DRAW:
        header = t("deluxe.panel.head-draw")
        items = _draw_items(str(table.seq), v.queue, computer.unlocks(v, limit=MAX_SELECTS * CHUNK))
    elif build:
        header = t("deluxe.panel.head-build")
        more, items = _build_step(table, seat, hand, mask, final)
        lines += more
    else:
        header, more, items = _bind_step(table, seat, hand, final)
        lines += more
    if note:
        lines.insert(0, note)
    return Panel(
        content=header,
        embed=embed(title, "\n".join(lines)),
        controls=tuple(items),
        picture=_hand_picture(hand, positions(mask) if build else ()),
    )


def _build_step(
    table: Table, seat: int, hand: Sequence[Card], mask: int, final: bool
) -> tuple[list[str], list[Control]]:
    """Building a meld by hand: what the selection so far would bind as (or why not), and the card menus."""
    picked = chosen(hand, mask)
    meld, reason = judge(table.state, seat, picked)
    if len(picked) < 2 and meld is None:
        reason = pick_hint()
    lines = [
        "",
        t("deluxe.panel.picked", cards=R.cards_text(picked)),
        R.selection_text(meld, reason, table.names, seat),
    ]
    return lines, _card_items(table, seat, hand, mask, meld is not None, picked, final)


def _bind_step(
    table: Table, seat: int, hand: Sequence[Card], final: bool
) -> tuple[str, list[str], list[Control]]:
    """The bind step's header, its notes on what the menus leave out, and the meld and discard menus."""
    state: D.State = table.state
    choices, total = meld_choices(state, seat, hand)
    if final:
        header = t("deluxe.panel.head-final")
    elif choices:
        header = t("deluxe.panel.head-bind")
    else:
        header = t("deluxe.panel.head-discard")
    chunks = discard_chunks(state, seat, hand)
    tosses = chunks[: MAX_SELECTS - (1 if choices else 0)]  # as discard_menus, from the chunks made once
    lines: list[str] = []
    if total > len(choices):
        lines += ["", t("deluxe.panel.more-melds", shown=len(choices), total=total)]
    elif not choices and final:
        lines += ["", t("deluxe.panel.nothing-binds")]
    if len(tosses) < len(chunks):
        lines += ["", t("deluxe.panel.discard-limit")]
    return header, lines, _bind_items(str(table.seq), table, seat, choices, tosses, hand, final)


def _hand_picture(hand: Sequence[Card], picked: Sequence[int] = ()) -> Picture | None:
    if not hand:
        return None
    alt = t("deluxe.panel.hand-alt", cards=", ".join(words.title(c) for c in hand))
    return picture("hand.png", scenes.hand_scene(hand, picked), alt)


def pick_hint() -> str:
    """What a selection of fewer than two cards that binds as nothing is told."""
    return t("deluxe.panel.pick-hint")


def __getattr__(name: str) -> Any:
    """``PICK_HINT``, as older callers read it: in the language in force when read."""
    if name == "PICK_HINT":
        return pick_hint()
    raise AttributeError(name)


def hint_button(seq: str, row: int) -> Button:
    return Button(t("deluxe.button.hint"), "hint", token=seq, emoji="💡", row=row)


def _draw_items(seq: str, queue: Sequence[Card], unlocks: dict[int, int]) -> list[Control]:
    """The draw step: Draw and Hint, then the queue in menus of 25, each option with what it unlocks (the
    points it lets the seat bind this turn beyond its hand alone) and the cards it takes."""
    items: list[Control] = [
        Button(t("deluxe.panel.draw"), "draw", token=seq, style="primary", row=0),
        hint_button(seq, 0),
    ]
    top_first = list(reversed(queue))
    for k in range(min(MAX_SELECTS, (len(queue) + CHUNK - 1) // CHUNK)):
        options = []
        for n in range(k * CHUNK + 1, min(len(queue), (k + 1) * CHUNK) + 1):
            taken = top_first[:n]
            last_card = f"{words.title(taken[-1])} {taken[-1].suit_emoji}"
            if n == 1:
                label = t("deluxe.panel.take-one", n=n, card=last_card)
            else:
                label = t("deluxe.panel.take-many", n=n, card=last_card)
            gain = unlocks.get(n, 0)  # the cards taken are the queue's top n, listed above: the gain is news
            unlocked = t("deluxe.panel.take-gain", points=gain) if gain else t("deluxe.panel.take-no-gain")
            options.append(Option(label=label[:100], value=str(n), description=_fit(unlocked)))
        first, last = k * CHUNK + 1, k * CHUNK + len(options)
        if k == 0:
            placeholder = t("deluxe.panel.take-placeholder")
        else:
            placeholder = t("deluxe.panel.take-range", first=first, last=last)
        items.append(Select(placeholder, "take", tuple(options), token=seq, arg=str(k), row=k + 1))
    return items


def _fit(text: str, limit: int = 100) -> str:
    """A menu description within Discord's limit: a list too long ends at the last whole name, with "…"
    (never half a card's name)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    comma = cut.rfind(", ")
    return (cut[:comma] if comma > 0 else cut) + "…"


def _card_option(i: int, c: Card, *, default: bool = False) -> Option:
    return Option(
        label=f"{words.title(c)} {c.suit_emoji}"[:100],
        value=str(i),
        description=t(
            "deluxe.panel.card-desc", rank=R.rank_name(c.rank), points=tn("deluxe.pts", len(c.suits))
        ),
        default=default,
    )


def _bind_items(
    seq: str,
    table: Table,
    seat: int,
    choices: dict[str, D.Meld],
    tosses: Sequence[Sequence[int]],
    hand: Sequence[Card],
    final: bool,
) -> list[Control]:
    """The bind step: row 0 the melds, then the discard menus, then a row of buttons."""
    items: list[Control] = []
    row = 0
    if choices:
        options = []
        for value, m in choices.items():
            label, desc = R.meld_option(m, table.names, binder=seat)
            options.append(Option(label=label, value=value, description=desc))
        items.append(Select(t("deluxe.panel.meld-placeholder"), "meld", tuple(options), token=seq, row=row))
        row += 1
    for k, part in enumerate(tosses):
        lo, hi = hand[part[0]], hand[part[-1]]
        if len(tosses) == 1:
            placeholder = t("deluxe.panel.discard-placeholder")
        else:
            placeholder = t("deluxe.panel.discard-range", low=R.rank_name(lo.rank), high=R.rank_name(hi.rank))
        options = [_card_option(i, hand[i]) for i in part]
        items.append(Select(placeholder, "toss", tuple(options), token=seq, arg=str(k), row=row))
        row += 1
    items.append(Button(t("deluxe.panel.build"), "build", token=seq, row=row))
    if final:
        items.append(Button(t("deluxe.panel.done"), "done", token=seq, style="primary", row=row))
    items.append(hint_button(seq, row))
    return items


def _card_items(
    table: Table,
    seat: int,
    hand: Sequence[Card],
    mask: int,
    can_bind: bool,
    picked: Sequence[Card],
    final: bool,
) -> list[Control]:
    """Build a meld by hand: the whole hand in menus of 25 (the picks travel in the custom ids), then Bind,
    Discard (one picked card, in the bind step), Clear and Back."""
    seq = str(table.seq)
    m = mask_text(mask)
    items: list[Control] = [*_pick_menus(seq, hand, mask)]
    row = len(items)
    items.append(
        Button(
            t("deluxe.panel.bind"), "bind", token=seq, arg=m, style="success", disabled=not can_bind, row=row
        )
    )
    state: D.State = table.state
    if not final and len(picked) == 1 and D.can(state, D.Discard(seat, picked[0])):
        label = t("deluxe.panel.discard-card", card=words.title(picked[0]))
        items.append(Button(label[:80], "disc", token=seq, arg=m, style="danger", row=row))
    if mask:
        items.append(Button(t("deluxe.panel.clear"), "clr", token=seq, row=row))
    items.append(Button(t("deluxe.panel.back"), "back", token=seq, row=row))
    return items


def _pick_menus(seq: str, hand: Sequence[Card], mask: int) -> list[Select]:
    """The whole hand in menus of 25, the cards in ``mask`` ticked; each menu's id carries the selection so
    far, so a pick in one menu keeps those made in the others."""
    m = mask_text(mask)
    chunks = min(MAX_SELECTS, (len(hand) + CHUNK - 1) // CHUNK)
    menus: list[Select] = []
    for k in range(chunks):
        part = list(enumerate(hand))[k * CHUNK : (k + 1) * CHUNK]
        options = [_card_option(i, c, default=bool(mask >> i & 1)) for i, c in part]
        lo, hi = part[0][1], part[-1][1]
        if chunks == 1:
            placeholder = t("deluxe.panel.pick-placeholder")
        else:
            placeholder = t(
                "deluxe.panel.pick-range",
                first=k * CHUNK + 1,
                last=k * CHUNK + len(part),
                low=R.rank_name(lo.rank),
                high=R.rank_name(hi.rank),
            )
        menus.append(
            Select(
                placeholder,
                "pick",
                tuple(options),
                token=seq,
                arg=f"{k}.{m}",
                min_values=0,
                max_values=len(options),
                row=k,
            )
        )
    return menus


def closed_panel(table: Table, seat: int, lines: Sequence[str]) -> Panel:
    """What the live panel shows once the player's turn is over: what they did and their hand, no controls
    until it is redrawn for their next turn."""
    v = D.view(table.state, seat)
    body = "\n".join([*lines, "", t("deluxe.panel.your-hand"), R.hand_text(v.hand)]).strip()
    if D.is_over(table.state):  # the end: the result and every score, no promise of a next turn
        body = "\n".join([R.final_text(D.final_result(table.state), table.names), "", body])
        return Panel(content=t("deluxe.rules.over"), embed=embed("Bharg Deluxe", body))  # i18n: not text
    return Panel(
        content=t("deluxe.panel.closed"),
        embed=embed("Bharg Deluxe", body),  # i18n: not text (the game's name)
        picture=_hand_picture(v.hand),
    )
