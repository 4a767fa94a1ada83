"""Bharg Deluxe panels: the private turn panel (DM or ephemeral), the lobby, and the channel's messages.

Every component is a ``cogs.ui`` item addressed ``tv:g:<game>:<seq>:<verb>[:<arg>]``: the token is the table's
action count when the panel was drawn, so a panel goes stale as soon as anything is played. Cards are named
by their position in the sorted hand (the engine's ``view`` order), and a selection of cards travels in the
custom id as a base-36 bitmask of positions: no panel state lives in memory, and old panels survive a restart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.render import deluxe as R
from bot.rules import deluxe as D
from bot.rules.decktet import Card
from bot.rules.errors import IllegalAction, RulesError
from bot.store import Lobby
from bot.tables import Table
from cogs import ui

CHUNK = 25  # options per select (Discord's limit)
MAX_SELECTS = 4  # four select rows plus one row of buttons
SUGGESTIONS_SHOWN = 10
SUGGEST_BUTTONS = 5
EMBED_LIMIT = 4000
COLOUR = discord.Colour.dark_teal()


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
        raise IllegalAction("That button is damaged; use /deluxe hand for fresh controls.") from None


def positions(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def chosen(hand: Sequence[Card], mask: int) -> list[Card]:
    """The cards a mask names in the sorted hand; a position past the hand means a stale panel."""
    out = []
    for i in positions(mask):
        if i >= len(hand):
            raise IllegalAction(
                "Those cards are no longer in your hand; use /deluxe hand for fresh controls."
            )
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


def judge(state: D.State, seat: int, cards: Sequence[Card]) -> tuple[D.Meld | None, str | None]:
    """What the selected cards would bind as, or the engine's reason why they bind as nothing."""
    if not cards:
        return None, None
    try:
        return D.classify(state, seat, cards), None
    except RulesError as err:
        return None, str(err)


# ------------------------------------------------------------------------------------------- the panel


def _embed(title: str, text: str) -> discord.Embed:
    if len(text) > EMBED_LIMIT:
        text = text[: EMBED_LIMIT - 1] + "…"
    return discord.Embed(title=title, description=text, colour=COLOUR)


def _public_summary(v: D.View, table: Table) -> str:
    return "\n".join(
        [
            R.straight_line(v),
            f"Deck: {R.plural(v.deck_count, 'card')} · Discard Queue (top first): {R.queue_text(v.queue)}",
            "Scores: " + " · ".join(f"{n} {s}" for n, s in zip(table.names, v.scores, strict=True)),
        ]
    )


def turn_panel(table: Table, seat: int, *, mask: int = 0, suggest: bool = False, note: str = "") -> ui.Panel:
    """The seat's private panel: its hand and, when it is their move, the controls for that step."""
    state: D.State = table.state
    v = D.view(state, seat)
    hand = v.hand
    gid, seq = table.id, table.seq
    my_move = not D.is_over(state) and v.turn == seat and not v.left[seat]
    lines = [_public_summary(v, table), "", "**Your hand**", R.hand_text(hand)]
    items: list[discord.ui.Item[Any]] = []
    title = f"Bharg Deluxe · hand {v.hand_no}"
    if D.is_over(state):
        header = "The game is over."
    elif v.left[seat]:
        header = "You have left this game."
    elif not my_move:
        header = f"Waiting for {table.names[v.turn]}."
    elif v.phase == D.Phase.DRAW:
        header = "**Your turn: draw** — the top of the deck, or the top cards of the Discard Queue."
        items += _draw_items(gid, seq, v.queue)
    else:
        final = v.phase == D.Phase.FINAL_BIND
        header = (
            "**Final bind** — bind what you can, then press Done."
            if final
            else "**Bind, then discard** — pick cards in the menus; one picked card can be discarded."
        )
        if suggest:
            text, more = _suggestions(table, seat, hand)
            lines += ["", text]
            items += more
        else:
            picked = chosen(hand, mask)
            meld, reason = judge(state, seat, picked)
            if picked:
                lines += ["", "**Picked:** " + R.cards_text(picked)]
                lines.append(R.selection_text(meld, reason, table.names, seat))
            items += _card_items(gid, seq, hand, mask, meld is not None, picked, final)
    if note:
        lines.insert(0, note)
    return ui.Panel(content=header, embeds=[_embed(title, "\n".join(lines))], items=items)


def _draw_items(gid: int, seq: int, queue: Sequence[Card]) -> list[discord.ui.Item[Any]]:
    items: list[discord.ui.Item[Any]] = [
        ui.button("Draw from deck", "g", gid, "draw", token=seq, style=discord.ButtonStyle.primary, row=0)
    ]
    top_first = list(reversed(queue))
    for k in range(min(MAX_SELECTS, (len(queue) + CHUNK - 1) // CHUNK)):
        options = []
        for n in range(k * CHUNK + 1, min(len(queue), (k + 1) * CHUNK) + 1):
            taken = top_first[:n]
            label = f"Take {n}: " + ("" if n == 1 else "… + ") + taken[-1].title
            options.append(
                discord.SelectOption(
                    label=label[:100],
                    value=str(n),
                    description=(R.plural(R.points(taken), "pt") + ": " + ", ".join(c.title for c in taken))[
                        :100
                    ],
                )
            )
        first, last = k * CHUNK + 1, k * CHUNK + len(options)
        placeholder = "Take from the Discard Queue…" if k == 0 else f"Take {first}–{last} from the queue…"
        items.append(ui.select(placeholder, "g", gid, "take", options, token=seq, arg=str(k), row=k + 1))
    return items


def _card_items(
    gid: int,
    seq: int,
    hand: Sequence[Card],
    mask: int,
    can_bind: bool,
    picked: Sequence[Card],
    final: bool,
) -> list[discord.ui.Item[Any]]:
    items: list[discord.ui.Item[Any]] = []
    m = mask_text(mask)
    chunks = min(MAX_SELECTS, (len(hand) + CHUNK - 1) // CHUNK)
    for k in range(chunks):
        part = list(enumerate(hand))[k * CHUNK : (k + 1) * CHUNK]
        options = [
            discord.SelectOption(
                label=f"{c.title} {c.suit_emoji}"[:100],
                value=str(i),
                description=f"{c.rank.label if c.rank.label.isdigit() else R.rank_name(c.rank)} · "
                + R.plural(len(c.suits), "pt"),
                default=bool(mask >> i & 1),
            )
            for i, c in part
        ]
        lo, hi = part[0][1], part[-1][1]
        placeholder = (
            "Pick cards to bind or discard…"
            if chunks == 1
            else f"Cards {k * CHUNK + 1}–{k * CHUNK + len(part)} "
            f"({R.rank_name(lo.rank)}–{R.rank_name(hi.rank)})…"
        )
        items.append(
            ui.select(
                placeholder,
                "g",
                gid,
                "pick",
                options,
                token=seq,
                arg=f"{k}.{m}",
                min_values=0,
                max_values=len(options),
                row=k,
            )
        )
    row = chunks
    items.append(
        ui.button(
            "Bind picked cards",
            "g",
            gid,
            "bind",
            token=seq,
            arg=m,
            style=discord.ButtonStyle.success,
            disabled=not can_bind,
            row=row,
        )
    )
    if final:
        items.append(
            ui.button("Done", "g", gid, "done", token=seq, style=discord.ButtonStyle.primary, row=row)
        )
    else:
        one = len(picked) == 1
        label = f"Discard {picked[0].title}" if one else "Discard (pick 1 card)"
        items.append(
            ui.button(
                label,
                "g",
                gid,
                "disc",
                token=seq,
                arg=m,
                style=discord.ButtonStyle.danger,
                disabled=not one,
                row=row,
            )
        )
    items.append(ui.button("Suggest melds", "g", gid, "sug", token=seq, row=row))
    if mask:
        items.append(ui.button("Clear", "g", gid, "clr", token=seq, row=row))
    return items


def _suggestions(table: Table, seat: int, hand: Sequence[Card]) -> tuple[str, list[discord.ui.Item[Any]]]:
    melds = D.bindable_melds(table.state, seat)
    gid, seq = table.id, table.seq
    items: list[discord.ui.Item[Any]] = []
    if not melds:
        text = "**Suggestions:** nothing in your hand binds right now."
    else:
        shown = melds[:SUGGESTIONS_SHOWN]
        rows = [f"{i}. {R.meld_text(m, table.names, binder=seat)}" for i, m in enumerate(shown, 1)]
        more = f"\n…and {len(melds) - len(shown)} more." if len(melds) > len(shown) else ""
        text = f"**Suggestions ({len(melds)}):**\n" + "\n".join(rows) + more
        for i, m in enumerate(melds[:SUGGEST_BUTTONS], 1):
            arg = mask_text(mask_of(hand, m.cards))
            items.append(
                ui.button(
                    f"Bind {i}",
                    "g",
                    gid,
                    "bind",
                    token=seq,
                    arg=arg,
                    style=discord.ButtonStyle.success,
                    row=0,
                )
            )
    items.append(ui.button("Back to my cards", "g", gid, "clr", token=seq, row=1))
    return text, items


def closed_panel(table: Table, seat: int, lines: Sequence[str]) -> ui.Panel:
    """What a panel turns into once the player's move is over: what they did and their hand, no controls."""
    v = D.view(table.state, seat)
    body = "\n".join([*lines, "", "**Your hand**", R.hand_text(v.hand)]).strip()
    return ui.Panel(
        content="Done — you'll get a new message on your next turn.", embeds=[_embed("Bharg Deluxe", body)]
    )


# ------------------------------------------------------------------------------------------- channel


def hand_button(gid: int, row: int | None = None) -> discord.ui.Item[Any]:
    return ui.button("Show my hand", "g", gid, "hand", emoji="🃏", row=row)


def board_kwargs(table: Table) -> dict[str, Any]:
    v = D.view(table.state, -1)
    for detail in (2, 1, 0):  # the fullest text that fits one embed
        text = R.table_text(v, table.names, detail=detail)
        if len(text) <= EMBED_LIMIT:
            break
    embed = _embed(f"Bharg Deluxe · {R.option_text(table.options)}", text)
    view = ui.view_of(hand_button(table.id)) if not D.is_over(table.state) else None
    return {"content": None, "embed": embed, "view": view}


def lobby_kwargs(lobby: Lobby, names: dict[str, str]) -> dict[str, Any]:
    options = D.Options.from_dict(lobby.options.get("game", {}))
    host = names.get(str(lobby.host_id), "someone")
    members = [names.get(str(m), str(m)) for m in lobby.members]
    text = R.lobby_text(host, members, options, lobby.status)
    if lobby.status != "open":
        return {"content": text, "view": None}
    lid = lobby.id
    view = ui.view_of(
        ui.button("Join", "l", lid, "join", style=discord.ButtonStyle.success),
        ui.button("Leave", "l", lid, "leave"),
        ui.button("Start", "l", lid, "start", style=discord.ButtonStyle.primary),
        ui.button("Cancel", "l", lid, "cancel", style=discord.ButtonStyle.danger),
    )
    return {"content": text, "view": view}
