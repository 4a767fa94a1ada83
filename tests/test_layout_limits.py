"""Every game's largest layout panels stay within Discord's limits for a layout message (issue 47, item 4).

Whole seeded games of each game and player count (six-player Bharg Deluxe with pawns and courts included),
played by the computer players with names of 32 characters, are drawn at every step as Discord gets them:
each seat's private panel, the board and the summary, with their pictures. Each is made into the message's
components by ``bot.edge.delivery`` and measured as Discord counts (``bot.edge.contract.limits``): 40
components counting nested ones, 4,000 characters of text display. The largest of each game and kind is
printed (``pytest -s tests/test_layout_limits.py``) with how far it is from each limit, and every panel must
keep all its controls and all its text: none is cut (the six-player Deluxe board with the longest names was,
until a table card's owner was named in a meld's line by at most 12 characters)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from bot.base.panel import Panel
from bot.edge import delivery
from bot.edge.contract import limits
from bot.edge.layout import FLAG, texts
from bot.edge.shows import Shown
from bot.games import GAMES, Seat, Table
from bot.games.seats import TABLE_ACCENT

NAME = "W" * 32  # a display name as long as Discord allows, in the widest letter
GAMES_PLAYED = {
    ("bhargage", 2, ()): (1, 2, 3),
    ("bhargage", 2, (("sequences", True),)): (4,),
    ("cribbage", 2, ()): (1, 2),
    ("cribbage", 3, ()): (3,),
    ("cribbage", 4, (("muggins", True),)): (4, 5),
    ("deluxe", 2, ()): (1,),
    ("deluxe", 4, ()): (2,),
    ("deluxe", 6, (("pawns", True), ("courts", True))): (3, 4),
}


def steps(game: str, players: int, options: dict[str, Any], seed: int) -> Iterator[Table]:
    """The table at every step of a whole game its computer players play."""
    adapter = GAMES[game]
    rules = adapter.rules
    rng = random.Random(seed)
    opts = adapter.options(options)
    state, _ = rules.start(seed, players, opts)
    seq = 0
    seats = tuple(Seat(1000 + n, f"{NAME[:-1]}{n}") for n in range(players))
    while True:
        yield Table(
            id=41,
            game=game,
            adapter=adapter,
            guild_id=1,
            channel_id=2,
            seed=seed,
            options=opts,
            seats=seats,
            state=state,
            seq=seq,
            created_at=0.0,
            last_action_at=0.0,
        )
        if rules.is_over(state):
            return
        seat = rules.waiting_for(state)[0]
        action = adapter.ai.choose(rules.view(state, seat), rng, "easy")  # type: ignore[union-attr]
        state, _ = rules.apply(state, action)
        seq += 1


def measured(panel: Panel) -> tuple[int, int, dict[str, Any]]:
    """The panel as a layout message's body, and its component count and text length as Discord counts."""
    kept = Shown("key", panel.picture.filename, 1) if panel.picture is not None else None
    sent = delivery.kwargs(panel, "g", 41, new=True, kept=kept)
    body = {"flags": FLAG, "components": sent["view"].to_components()}
    count, text = limits._v2_size(body["components"])
    return count, text, body


def controls(components: list[dict[str, Any]]) -> int:
    return sum(1 for _, c in limits._walk(components, ()) if c.get("type") in (2, 3))


def panels(table: Table) -> Iterator[tuple[str, Panel]]:
    adapter = table.adapter
    for seat in range(len(table.seats)):
        yield "seat panel", adapter.private_panel(table, seat)
    yield "board", adapter.board(table).laid_out(TABLE_ACCENT)
    yield "summary", adapter.summary(table, "<#123456789012345678>").laid_out(TABLE_ACCENT)


def test_the_largest_panels_of_every_game_fit(capsys: pytest.CaptureFixture[str]) -> None:
    largest: dict[tuple[str, str], tuple[int, str, int, str]] = {}
    cut = 0
    for (game, players, options), seeds in GAMES_PLAYED.items():
        for seed in seeds:
            for table in steps(game, players, dict(options), seed):
                for kind, panel in panels(table):
                    count, text, body = measured(panel)
                    where = f"{players}p seed {seed} step {table.seq}"
                    assert not limits.check("create_message", body, (), frozenset()), (game, kind, where)
                    assert count <= limits.V2_COMPONENTS_MAX and text <= limits.V2_TEXT_MAX, (
                        game,
                        kind,
                        where,
                    )
                    assert controls(body["components"]) == len(panel.controls), (game, kind, where)
                    blocks = texts(panel)
                    whole = len(panel.content.strip("\n")) + (
                        len(panel.embed.description) if panel.embed is not None else 0
                    )
                    at_limit = text == limits.V2_TEXT_MAX and blocks[-1].endswith("…")  # (how it cuts)
                    assert sum(len(b) for b in blocks) >= whole or at_limit, (game, kind, where)
                    cut += at_limit
                    most = largest.get((game, kind), (0, "", 0, ""))
                    largest[(game, kind)] = (
                        *((count, where) if count > most[0] else most[:2]),
                        *((text, where) if text > most[2] else most[2:]),
                    )
    with capsys.disabled():
        print("\nlargest layout panels (components of 40, text characters of 4,000):")
        for (game, kind), (count, at, text, longest) in sorted(largest.items()):
            print(
                f"  {game:9} {kind:11} {count:2} components ({limits.V2_COMPONENTS_MAX - count:2} to spare; "
                f"{at}), {text:4} characters ({limits.V2_TEXT_MAX - text:4} to spare; {longest})"
            )
        print(f"  panels cut at 4,000 characters: {cut}")
    assert {g for g, _ in largest} == set(GAMES)
    assert cut == 0, f"{cut} panels lost text at Discord's limit"
