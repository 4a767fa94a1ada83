"""Classic Cribbage's words, panels and pictures without Discord: the calls as RULES.md C8 says them, in
English and Italian; every panel, board and announcement of whole seeded games within Discord's limits; the
controls read back strictly; a partner's hand never shown; snapshots of its states read back equal."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from bot import pictures
from bot.ai import cribbage as ai
from bot.base.i18n import speaking
from bot.base.panel import Button, Select
from bot.base.refusals import UserFacingError
from bot.games import Click, Seat, StaleAction, Table
from bot.games import cribbage_panel as P
from bot.games.cribbage import ADAPTER, count_answer, read_cards
from bot.render import cribbage as R
from bot.render import cribbage_scenes as scenes
from bot.render.cribbage_words import call_text, label, name, score_line, show_count
from bot.rules import cribbage as C
from bot.rules.cribbage_scoring import ScoreItem, count_show
from bot.rules.errors import UnknownCard
from bot.rules.pack52 import card, cards
from bot.services import snapshots

NAMES = ("Ann", "Bo", "Cy", "Dee")


def new_table(players: int, options: C.Options, seed: int = 1) -> tuple[Table, list[Any]]:
    state, events = C.start(seed, players, options)
    seats = tuple(Seat(100 + i, n) for i, n in enumerate(NAMES[:players]))
    table = Table(7, "cribbage", ADAPTER, 1, 2, seed, options, seats, state, 0, 0.0, 0.0)
    return table, events


def played(players: int, options: C.Options, seed: int) -> Iterator[tuple[Table, list[Any]]]:
    """A whole game by the normal computer player at every seat: the table after each action, its events."""
    table, events = new_table(players, options, seed)
    yield table, events
    rng = random.Random(seed)
    while not C.is_over(table.state):
        seat = C.waiting_for(table.state)[0]
        table.state, events = C.apply(table.state, ai.choose(C.view(table.state, seat), rng, "normal"))
        table.seq += 1
        if C.is_over(table.state):
            table.status = "finished"
        yield table, events


# ------------------------------------------------------------------------------------------- words


def test_cards_are_named_as_players_say_them() -> None:
    assert label(card("5H")) == "5♥ five of hearts"
    with speaking("it"):
        said = [name(c) for c in cards("AS 5H JC QD KD TS")]
    assert said == [
        "asso di picche",
        "cinque di cuori",
        "fante di fiori",
        "donna di quadri",
        "re di quadri",
        "dieci di picche",
    ]


def items(hand: str, starter: str, crib: bool = False) -> tuple[ScoreItem, ...]:
    return count_show(cards(hand), card(starter), crib)


def test_the_show_is_counted_aloud_as_players_do() -> None:
    assert show_count(items("5H 5S 4C 6D", "KC")) == (
        "15 for 2, 15 for 4, 15 for 6, 15 for 8, a pair for 10, a run of 3 for 13 and a run of 3 for 16"
    )
    assert show_count(items("2H 3S 4C 9D", "9C")) == "15 for 2, 15 for 4, a pair for 6 and a run of 3 for 9"
    assert show_count(items("2C 4D 6H 8S", "KD")) == "19 — nothing"
    assert show_count(items("JC 2D 4H 6S", "KC")) == "1 for his nob"
    assert show_count(items("2H 4H 6H 8H", "KD")) == "flush for 4"
    assert show_count(items("2H 4H 6H 8H", "KD", crib=True)) == "19 — nothing"
    assert show_count(items("5C 5D 5H JS", "5S")).endswith(
        "double pair royal for 28 and 1 for his nob makes 29"
    )
    with speaking("it"):
        assert show_count(items("2H 3S 4C 9D", "9C")) == "15 per 2, 15 per 4, coppia per 6 e scala di 3 per 9"
        assert show_count(items("2C 4D 6H 8S", "KD")) == "19 — niente"


def test_the_show_names_the_cards_of_every_combination() -> None:
    """Issue 46, item 10: like Bhargage's, the show says which cards make each "15 for 2", pair, run, flush
    and nob, then the count as it is said, so a player can check it (muggins asks them to count)."""
    lines = R.Lines(NAMES[:2], 2, 121)
    hand, starter = cards("5H 5S JD QC"), card("KD")
    items = count_show(hand, starter)
    shown = lines.of([C.HandCounted(0, 0, "hand", hand, starter, items, 8, 8, 30)])
    assert shown == [
        "Ann's hand: 5♥ 5♠ J♦ Q♣ · starter K♦",
        "• 15 for 2 — 5♥ J♦",
        "• 15 for 2 — 5♠ J♦",
        "• 15 for 2 — 5♥ Q♣",
        "• 15 for 2 — 5♠ Q♣",
        "• 15 for 2 — 5♥ K♦",
        "• 15 for 2 — 5♠ K♦",
        "• a pair for 2 — 5♥ 5♠",
        "• a run of 3 — J♦ Q♣ K♦",
        "• 1 for his nob — J♦",
        f"**{show_count(items)}** — Ann (30)",
    ]
    assert sum(it.points for it in items) == 18  # six fifteens, a pair, a run of 3 and his nob
    with speaking("it"):
        said = lines.of([C.HandCounted(0, 0, "crib", hand, starter, items, 8, 8, 30)])
    assert said[1] == "• 15 per 2 — 5♥ J♦" and said[-2] == "• 1 per il fante del seme — J♦"


def test_every_call_of_the_play_in_both_languages() -> None:
    calls = {
        "fifteen": ("15 for 2", "15 per 2"),
        "thirty-one": ("31 for 2", "31 per 2"),
        "pair": ("a pair for 2", "coppia per 2"),
        "pair-royal": ("pair royal for 6", "tris per 6"),
        "double-pair-royal": ("double pair royal for 12", "poker per 12"),
        "go": ("1 for the go", "1 per il passo"),
        "last": ("1 for last", "1 per l'ultima carta"),
        "heels": ("2 for his heels", "2 per il fante scoperto"),
        "nobs": ("1 for his nob", "1 per il fante del seme"),
    }
    for kind, (english, italian) in calls.items():
        item = ScoreItem(kind, 0, ())  # type: ignore[arg-type]
        assert call_text(item) == english
        with speaking("it"):
            assert call_text(item) == italian
    assert call_text(ScoreItem("run", 3, ())) == "a run of 3"
    assert call_text(ScoreItem("flush", 4, ())) == "flush for 4"


def test_the_score_line_names_each_side() -> None:
    assert score_line(NAMES, 4, (87, 64)) == "Ann & Cy 87 — Bo & Dee 64"
    assert score_line(NAMES[:3], 3, (10, 20, 30)) == "Ann 10 — Bo 20 — Cy 30"
    with speaking("it"):
        assert score_line(NAMES, 4, (87, 64)) == "Ann e Cy 87 — Bo e Dee 64"


def test_the_end_says_game_and_lurched() -> None:
    lines = R.Lines(NAMES, 4, 121)
    won = C.GameWon(sides=(1,), seats=(1, 3), how="target", scores=(84, 121), lurch="lurch")
    assert lines.of([won]) == [
        "**Game!** Bo & Dee reach 121.",
        "**Lurched!** Ann & Cy did not reach 91: a double game.",
        "🏆 **Bo & Dee** win — Ann & Cy 84 — Bo & Dee 121 (a lurch)",
    ]
    two = R.Lines(NAMES[:2], 2, 121)
    heels = C.PointsScored(side=0, seat=0, points=2, reason="heels", cards=(card("JD"),), total_after=9)
    assert two.of([heels]) == ["**2 for his heels** — Ann (9)"]
    with speaking("it"):
        assert lines.of([won])[:2] == [
            "**Partita!** Bo e Dee arrivano a 121.",
            "**Cappotto!** Ann e Cy: meno di 91 punti, partita doppia.",
        ]


def test_muggins_is_called_with_its_points_for_whoever_pegs_them() -> None:
    """C9: "Muggins! 2 for Ann", for what an under-claim missed and what an over-claim overstated alike."""
    two = R.Lines(NAMES[:2], 2, 121)
    hand = cards("2C 3D 4H 9S")
    starter = card("5D")
    counted = C.HandCounted(1, 1, "hand", hand, starter, count_show(hand, starter), 6, 6, 26, claimed=9)
    over = C.MugginsTaken(side=0, seat=0, owner=1, points=3, total_after=15, over=True)
    under = C.MugginsTaken(side=0, seat=0, owner=1, points=1, total_after=13, over=False)
    assert two.of([counted, over]) == [
        "Bo claims 9 (the count is 6).",
        "• 15 for 2 — 2♣ 4♥ 9♠",
        "• a run of 4 — 2♣ 3♦ 4♥ 5♦",
        f"**{show_count(counted.items)}** — 6 for Bo (26)",
        "**Muggins!** 3 for Ann (15): Bo claimed 3 too many.",
    ]
    assert two.of([under]) == ["**Muggins!** 1 for Ann (13): Bo left 1 out."]
    four = R.Lines(NAMES, 4, 121)
    assert four.of([C.MugginsTaken(0, 2, 1, 2, 40, over=False)]) == [
        "**Muggins!** 2 for Ann & Cy (40): Bo left 2 out."
    ]
    with speaking("it"):
        assert two.of([over]) == ["**Muggins!** 3 per Ann (15): Bo ne ha dichiarati 3 di troppo."]
        assert two.of([under]) == ["**Muggins!** 1 per Ann (13): Bo ne ha dimenticato 1."]
        assert two.of([C.MugginsTaken(0, 0, 1, 2, 14, over=False)]) == [
            "**Muggins!** 2 per Ann (14): Bo ne ha dimenticati 2."
        ]
        assert two.of([C.MugginsTaken(0, 0, 1, 1, 13, over=True)]) == [
            "**Muggins!** 1 per Ann (13): Bo ne ha dichiarato 1 di troppo."
        ]


# ------------------------------------------------------------------------------------------- whole games


def check_panel(panel: Any) -> None:
    assert len(panel.content) <= 2000
    rows = sum(1 for c in panel.controls if isinstance(c, Select)) + -(
        -sum(1 for c in panel.controls if isinstance(c, Button)) // 5
    )
    assert rows <= 5
    for c in panel.controls:
        if isinstance(c, Select):
            assert len(c.options) <= 25 and len(c.placeholder) <= 150
            assert all(len(o.label) <= 100 for o in c.options)
        else:
            assert len(c.label) <= 80


@pytest.mark.parametrize(
    ("players", "options"),
    [(2, C.Options()), (3, C.Options(target=61, muggins=True)), (4, C.Options(muggins=True))],
    ids=["two", "three-muggins", "four-muggins"],
)
def test_whole_games_fit_discord_and_hide_every_other_hand(players: int, options: C.Options) -> None:
    for language in ("en", "it"):
        with speaking(language):
            for table, events in played(players, options, seed=players):
                said = ADAPTER.announce(table, events)
                assert all(len(m) <= 2000 for m in said.messages)
                assert len(ADAPTER.board(table).content) <= 2000
                ADAPTER.redraws(table, events)
                for seat in range(players):
                    panel = ADAPTER.seat_panel(table, seat)
                    check_panel(panel)
                    mine = C.view(table.state, seat)
                    for other in range(players):
                        theirs = C.view(table.state, other).hand
                        if other != seat and theirs:
                            assert R.cards_short(theirs) not in panel.content.replace(
                                R.cards_short(mine.hand), ""
                            )
    assert table.status == "finished"


def test_the_lay_away_token_is_per_seat() -> None:
    table, _ = new_table(2, C.Options(), seed=3)
    before = (P.token(table, 0), P.token(table, 1))
    dealt = scenes.dealt(C.view(table.state, 0))
    table.state, _ = C.apply(table.state, C.LayAway(0, dealt[:2]))
    table.seq += 1
    assert P.token(table, 1) == before[1] and P.token(table, 0) != before[0]


# ------------------------------------------------------------------------------------------- controls


@pytest.mark.parametrize("arg", ["52", "007", "-1", "1e2", "٣", "", "5 ", "99"])
def test_a_forged_card_is_refused(arg: str) -> None:
    with pytest.raises(UserFacingError):
        P.card_at(arg)


def test_forged_lay_aways_and_claims_are_refused() -> None:
    assert P.laid_arg("4-17", 2) == (card("5S"), card("5H"))
    for arg, size in (("4", 2), ("4-4", 2), ("4-17-18", 2), ("4-17", 1), ("", 1)):
        with pytest.raises(UserFacingError):
            P.laid_arg(arg, size)
    assert P.claim_arg("lo", ("14",)) == 14 and P.claim_arg("hi", ("29",)) == 29
    for menu, values in (
        ("lo", ("15",)),
        ("hi", ("14",)),
        ("hi", ("30",)),
        ("mid", ("3",)),
        ("lo", ("1", "2")),
    ):
        with pytest.raises(UserFacingError):
            P.claim_arg(menu, values)


def test_a_stale_lay_away_menu_is_refused_and_a_fresh_one_asks_for_confirm() -> None:
    table, _ = new_table(2, C.Options(), seed=3)
    dealt = scenes.dealt(C.view(table.state, 1))
    values = tuple(str(c.index) for c in dealt[:2])
    with pytest.raises(StaleAction):
        ADAPTER.click(table, 1, Click("g", 7, "9-9", "pick", "", values))
    panel = ADAPTER.click(table, 1, Click("g", 7, P.token(table, 1), "pick", "", values))
    assert not isinstance(panel, tuple)
    assert "Confirm" in [c.label for c in getattr(panel, "controls", ()) if isinstance(c, Button)]


def test_typed_cards_are_read_strictly() -> None:
    assert read_cards("5h, 10♣ ; JD  a♠", 4) == cards("5H TC JD AS")
    with pytest.raises(UnknownCard):
        read_cards("5H 11C", 4)
    with pytest.raises(UserFacingError):
        read_cards("5H 6H 7H 8H 9H", 4)
    with pytest.raises(UserFacingError):
        count_answer("5H " * 40, "5C", crib=False)
    assert "**19 — nothing** — 0 in all." in count_answer("2C 4D 6H 8S", "KD", crib=False)


# ------------------------------------------------------------------------------------ pictures, snapshots


def test_the_board_the_panel_and_the_show_draw() -> None:
    table, _ = new_table(4, C.Options(), seed=2)
    for table, events in played(4, C.Options(), seed=2):
        show = scenes.show_scene(events, table.names)
        if show is not None and table.state.phase is C.Phase.DISCARD:
            break
    assert show is not None
    for scene in (
        show,
        scenes.board_scene(table.state, table.names),
        scenes.panel_scene(C.view(table.state, 0)),
    ):
        assert pictures.draw(scene).startswith(b"\x89PNG")


def test_snapshots_of_cribbage_states_read_back_equal() -> None:
    codec = snapshots.codec(C)
    assert codec is not None and codec.tag == f"json1:cribbage:{C.STATE_VERSION}"
    seen = 0
    for players, options in ((2, C.Options()), (3, C.Options(target=61, muggins=True)), (4, C.Options())):
        for table, _ in played(players, options, seed=players + 10):
            data = codec.dump(table.state)
            back = codec.load(data, seed=table.state.seed, options=table.state.options)
            assert back == table.state and codec.dump(back) == data
            seen += 1
    assert seen > 200


def test_the_cut_and_an_only_card_are_made_at_once_unless_turned_off() -> None:
    from bot.games.prefs import Prefs

    table, _ = new_table(2, C.Options(), seed=3)
    for seat in (0, 1):
        dealt = scenes.dealt(C.view(table.state, seat))
        table.state, _ = C.apply(table.state, C.LayAway(seat, dealt[:2]))
    cutter = C.waiting_for(table.state)[0]
    assert ADAPTER.forced(table, lambda seat: Prefs(auto_cut=False)) is None  # a player who turned it off
    assert ADAPTER.forced(table, lambda seat: Prefs()) == (cutter, C.Cut(cutter))  # on by default
    table.seats = (table.seats[0], Seat(-200, "Bot (easy)"))
    if cutter == 1:
        assert ADAPTER.forced(table, lambda seat: Prefs(auto_cut=True)) is None  # the bot cuts for itself
