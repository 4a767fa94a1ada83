"""The Bhargage text rendering: board drawing, channel lines in the seed's words (R13), panels, help."""

from __future__ import annotations

from bot.render import bhargage as render
from bot.render.board import BACK, FRONT, Lane, draw_board
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import count_hand, missing_suits
from bot.rules.decktet import Suit, card, cards

NAMES = ("Ann", "Ben")


def _lane(text: str, name: str) -> str:
    line = next(ln for ln in text.splitlines() if ln.startswith(name))
    return line[len(name) + 1 :]


def test_board_pegs_sit_between_start_and_target() -> None:
    text = draw_board([Lane("Ann", 10), Lane("Ben", 121, 100)], 10, 121, width=31)
    ann, ben = _lane(text, "Ann"), _lane(text, "Ben")
    assert ann.index(FRONT) == 0 and ann.endswith(" 10")
    assert ben.index(FRONT) == 30 and ben.endswith(" 121")
    assert 0 < ben.index(BACK) < 30  # the back peg shows where the last score started
    assert text.splitlines()[0].split() == ["10", "121"]


def test_board_clamps_and_hides_a_back_peg_under_the_front() -> None:
    text = draw_board([Lane("Ann", 200, 200), Lane("Ben", 40, 31)], 10, 61, width=21)
    ann = _lane(text, "Ann")
    assert ann.index(FRONT) == 20 and BACK not in ann
    ben = _lane(text, "Ben")
    assert ben.index(BACK) < ben.index(FRONT)


def test_play_lines_use_the_seed_words() -> None:
    forest, sailor = card("forest"), card("sailor")
    events: list[bh.Event] = [
        bh.CardPlayed(0, forest, 5),
        bh.CardPlayed(1, card("market"), 11),
        bh.PointsScored(1, 2, "11 for 2", (forest,), 14),
        bh.WentGo(0),
        bh.CardPlayed(1, sailor, 15),
        bh.PointsScored(1, 1, "1 for last", (sailor,), 15),
        bh.PlayEnded(15),
    ]
    lines = render.event_lines(events, NAMES)
    assert lines == [
        f"Ann plays **{forest.label}** — count **5**",
        f"Ben plays **{card('market').label}** — count **11**",
        "**11 for 2** — Ben (14)",
        "Ann: **go**",
        f"Ben plays **{sailor.label}** — count **15**",
        "**1 for last** — Ben (15)",
        "The play is over at 15.",
    ]


def test_secret_discard_says_nothing_and_chief_is_announced() -> None:
    bard = card("bard")
    lines = render.event_lines(
        [
            bh.DiscardChosen(0),
            bh.UpCardTurned(1, bard),
            bh.PointsScored(0, 2, "2 for the Chief", (bard,), 22),
        ],
        NAMES,
    )
    assert lines == [
        f"Ben cuts: the up-card is **{render.card_label(bard)}**",
        "**2 for the Chief** — Ann (22)",
    ]


def test_show_is_itemised_in_order_and_zero_shortage_hidden() -> None:
    up = card("bard")
    kept_nd = cards("forest, sailor, ace of moons")
    kept_d = cards("pact, mill, desert")
    hc_nd = count_hand(kept_nd, up)
    hc_d = count_hand(kept_d, up)
    events: list[bh.Event] = [
        bh.PlayEnded(19),
        bh.HandCounted(1, "hand", kept_nd, up, hc_nd.items, hc_nd.total, 30),
        bh.ShortageClaimed(0, 1, "hand", (Suit.WYRMS, Suit.KNOTS), 3, 25),
        bh.HandCounted(0, "hand", kept_d, up, hc_d.items, hc_d.total, 40),
        bh.ShortageClaimed(1, 0, "hand", (), 0, 30),
        bh.HandCounted(0, "bhargage", (), up, (), 0, 40),
        bh.ShortageClaimed(1, 0, "bhargage", (Suit.MOONS,), 1, 31),
        bh.HandDealt(2, 1),
    ]
    msgs = render.messages(events, NAMES)
    assert len(msgs) == 3
    assert msgs[0] == "The play is over at 19."
    show = msgs[1]
    assert show.startswith("**The show**")
    order = [show.index("__Ben's hand__"), show.index("__Ann's hand__"), show.index("__Ann's bhargage__")]
    assert order == sorted(order)
    for item in hc_nd.items:
        assert f"• {item.reason} — {' + '.join(c.title for c in item.cards)}" in show
    # Each shortage line names whose cards fall short and who scores for it.
    assert (
        "**Shortage in Ben's hand: 3 for Ann** (25) — missing" in show
        and "Shortage in Ann's hand" not in show
    )
    assert "**Shortage in Ann's bhargage: 1 for Ben** (31) — missing 🌙 Moons" in show
    assert msgs[2].startswith("**Hand 2** — Ben deals")
    # Then the board: the pegs close the show, not the next deal's message.
    state = bh.start(1, 2, bh.Options(target=61))[0]
    pegs = render.pegs_text(state, NAMES)
    assert pegs.startswith("```") and "●" in pegs and "61" in pegs
    with_pegs = render.messages(events, NAMES, after_show=pegs)
    assert with_pegs[1] == f"{show}\n{pegs}" and with_pegs[2] == msgs[2]


def test_game_end_words() -> None:
    muggins = render.event_lines([bh.GameWon(1, "muggins", (55, 61))], NAMES, 61)
    assert (
        muggins[0].startswith("**Muggins!**")
        and muggins[1] == "🏆 **Ben** reaches 61 and wins — Ben 61, Ann 55"
    )
    game = render.event_lines(
        [bh.PointsScored(0, 0, "Game!", (), 40), bh.GameWon(0, "game", (40, 30))], NAMES
    )
    assert "**Game!**" in game[0] and game[-1] == "🏆 **Ann** wins — Ann 40, Ben 30"
    assert render.event_lines([bh.GameWon(0, "forfeit", (20, 12))], NAMES)[0] == (
        "Ben forfeited (the table waited too long)."
    )


def test_chunk_keeps_messages_under_the_limit() -> None:
    lines = [f"line {i} " + "x" * 90 for i in range(60)]
    parts = render.chunk(lines, limit=500)
    assert all(len(p) <= 500 for p in parts)
    assert "\n".join(parts).splitlines() == lines


def test_board_text_through_a_real_game() -> None:
    state, _ = bh.start(9, 2, bh.Options(target=61))
    text = render.board_text(state, NAMES, game_id=7)
    assert text.startswith("**Bhargage** (to 61) · hand 1")
    assert f"{NAMES[state.dealer]} deals" in text
    assert "Waiting for Ann and Ben to lay 2 cards away." in text and "game #7" in text
    for seat in (0, 1):
        dealt = sorted(state.hands[seat], key=lambda c: (int(c.rank), c.index))
        state, _ = bh.apply(state, bh.Discard(seat, (dealt[0], dealt[1])))
    assert f"Waiting for {NAMES[state.non_dealer]} to cut" in render.board_text(state, NAMES)
    state, _ = bh.apply(state, bh.Cut(state.non_dealer))
    mover = state.to_move
    first = bh.legal_actions(state, mover)[0]
    state, _ = bh.apply(state, first)
    text = render.board_text(state, NAMES, {mover: 10})
    assert state.up is not None and f"Up-card: {render.card_label(state.up)}" in text
    assert isinstance(first, bh.Play)
    assert f"Play: {render.card_label(first.card)} — count **{state.count}**" in text
    assert "Suits: 🌙 Moons" in text


def test_hand_panel_text() -> None:
    state, _ = bh.start(9, 2, bh.Options(target=61))
    view = bh.view(state, 0)
    text = render.hand_text(view, NAMES)
    assert "Choose exactly 2 cards" in text
    for c in view.hand:
        assert render.card_label(c) in text
    dealt = view.hand
    state, _ = bh.apply(state, bh.Discard(0, (dealt[0], dealt[1])))
    after = render.hand_text(bh.view(state, 0), NAMES)
    assert "You laid away" in after and "Waiting for Ben." in after


def test_rules_help_is_the_short_version() -> None:
    """``/bhargage rules`` is the short version; the rulings players meet are pinned in the full rules by
    tests/test_player_rules.py (test_the_full_bhargage_rules_keep_every_ruling_players_meet)."""
    text = render.rules_text()
    assert len(text) <= 1200
    for words in ("Crown 10", "23", "11 → 2", "bhargage", "121", "Full rules"):
        assert words in text, words
    # R11: a muggins win is *listed* on the leaderboard; it is not counted double there.
    assert "counts double on the leaderboard" not in text


def test_calculator_text() -> None:
    kept = cards("forest, sailor, ace of moons")
    up = card("bard")
    hc = count_hand(kept, up)
    missing = missing_suits((*kept, up))
    text = render.count_text(
        kept, up, hc, bhargage=False, sequences=False, missing=missing, shortage_points=6
    )
    assert f"**Total: {hc.total}**" in text and "Shortage: 6 for the opponent" in text
    assert all(f"{s.emoji} {s.value}" in text for s in missing)
    empty = count_hand(cards("author, desert, journey"), card("excuse"))
    text = render.count_text(
        cards("author, desert, journey"),
        card("excuse"),
        empty,
        bhargage=False,
        sequences=False,
        missing=(),
        shortage_points=0,
    )
    assert ("• nothing scores" in text) == (empty.total == 0) and "No shortage" in text


def test_a_card_button_in_the_play_says_its_value_the_count_and_what_it_scores() -> None:
    """Over seeded games: every card's button gives its value and the count it makes, the calls it would
    score there, or that it would pass 23 (and then it can't be played)."""
    from random import Random

    from bot.rules.bhargage_scoring import card_value, peg_points

    scoring = too_high = 0
    for seed in range(12):
        rng = Random(seed)
        state, _ = bh.start(seed, 2, bh.Options(target=61))
        while state.phase is not bh.Phase.OVER and state.hand_no <= 3:
            seat = bh.waiting_for(state)[0]
            view = bh.view(state, seat)
            if state.phase is bh.Phase.PLAY:
                legal = {a.card for a in view.legal if isinstance(a, bh.Play)}
                for c in view.hand:
                    label = render.play_label(c, view)
                    assert len(label) <= 80 and label.startswith(c.title)
                    value, count = card_value(c), view.count + card_value(c)
                    if count > bh.LIMIT:
                        assert label.endswith(f" {value} (over 23)") and c not in legal
                        too_high += 1
                        continue
                    assert f" {value} → {count}" in label
                    calls = peg_points([*(x for _, x in view.pile), c], sequences=view.sequences)
                    for item in calls:
                        assert render.call_text(item.reason) in label
                    scoring += bool(calls)
            state, _ = bh.apply(state, rng.choice(bh.legal_actions(state, seat)))
    assert scoring > 10 and too_high > 10  # both kinds of button were seen
