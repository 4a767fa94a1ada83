"""Bharg Deluxe text rendering: hand, table, events, score sheet, lobby and rules help."""

from __future__ import annotations

from dataclasses import replace

from bot.render import deluxe as R
from bot.rules import deluxe as D
from bot.rules.decktet import Suit, card, cards, deluxe_deck
from tests.conftest import plural

NAMES = ("Ann", "Bob", "Cat")


def test_hand_is_grouped_by_rank_with_points_and_copies() -> None:
    hand = cards("sea, ace of moons, forest, the forest, consul, author, end")
    text = R.hand_text(hand)
    lines = text.splitlines()
    assert lines[0] == "**Ace** (1 pt each): Ace of Moons 🌙"
    assert lines[1] == "**2** (2 pts each): the Author 🌙🪢"
    assert lines[2] == "**5** (2 pts each): the Forest 🌙🍃 ×2"
    assert lines[3] == "**Court** (3 pts each): the Consul 🌙🌊🪢"
    assert lines[4] == "**Crown** (1 pt each): the Sea 🌊, the End 🍃"
    assert lines[5] == "*7 cards, 12 points if left in hand.*"
    assert R.hand_text(()) == "*(no cards)*"


def test_queue_is_listed_top_first_as_take_n_counts() -> None:
    queue = cards("forest, sailor, pact")  # bottom first, top last
    assert R.queue_text(queue) == "1. the Pact 🌙☀️ · 2. the Sailor 🌊🍃 · 3. the Forest 🌙🍃"
    assert R.take_preview(queue, 2) == [card("pact"), card("sailor")]
    assert R.queue_text(()) == "*(empty)*"


def test_a_long_queue_reads_in_rows_of_five() -> None:
    """Issue 46, item 6: twelve cards are not one line of twelve names but rows of five under the heading,
    each card still numbered as "take n" counts it."""
    queue = tuple(deluxe_deck())[:12]
    said = R.queue_text(queue)
    rows = said.split("\n")
    assert rows[0] == "" and len(rows) == 4  # the rows start below the line that names the queue
    assert [row.count(" · ") for row in rows[1:]] == [4, 4, 1]
    assert rows[1].startswith(f"1. {R.card_text(queue[-1])} · 2. ") and rows[3].endswith(
        R.card_text(queue[0])
    )
    assert R.queue_text(queue[:5]).count("\n") == 0


def test_partial_straight_names_the_table_cards_and_their_owners() -> None:
    meld = D.Meld(D.PARTIAL, cards("journey"), ((1, cards("author")), (0, cards("ace of moons"))))
    text = R.meld_text(meld, NAMES, binder=0)
    assert text == (
        "➕ partial straight: the Journey 🌙🌊 — with the Author 🌙🪢 (Bob's); Ace of Moons 🌙 (yours) (+2)"
    )
    public = R.event_lines([D.MeldBound(0, D.PARTIAL, meld.cards, meld.used)], NAMES)[0]
    assert public.startswith("Ann bound a ➕ partial straight") and "Ace of Moons 🌙 (their own)" in public
    bharg = D.Meld(D.BHARG_SET, cards("sea, end, author, penitent"))
    assert R.meld_text(bharg, NAMES).endswith("(+6)") and "bharg set" in R.meld_text(bharg, NAMES)


def test_table_text_shows_suit_queue_deck_melds_sizes_and_scores() -> None:
    state, _ = D.start(5, 3, D.Options(target=50))
    state = replace(
        state,
        bound=((D.Meld(D.BHARG_SET, cards("sea, end, author, penitent")),), (), ()),
        totals=(12, -3, 0),
    )
    v = D.view(state, -1)
    text = R.table_text(v, NAMES)
    top = state.ace_pile[-1]
    assert f"Straight suit: **{top.suits[0].value} {top.suits[0].emoji}** (Ace Pile: {top.title})" in text
    assert f"Deck: {len(state.deck)} cards" in text
    assert R.queue_text(state.queue) in text
    assert "**Ann** — 12/50 pts ▰▱▱▱▱ · 10 cards in hand" in text and "**Bob** — -3/50 pts ▱▱▱▱▱" in text
    assert R.progress_line(v, NAMES) == "Ann 12/50 ▰▱▱▱▱ · Bob -3/50 ▱▱▱▱▱ · Cat 0/50 ▱▱▱▱▱"
    assert "🔷 bharg set: the Sea 🌊, the End 🍃, the Author 🌙🪢, the Penitent ☀️🐉 (+6)" in text
    assert "bound this hand: +6" in text
    assert f"Waiting for **{NAMES[state.turn]}** to draw." in text
    assert f"▶️ **{NAMES[state.turn]}**" in text


def test_progress_bar_is_clamped_to_the_target() -> None:
    assert R.progress_bar(0, 100) == "▱▱▱▱▱"
    assert R.progress_bar(-20, 100) == "▱▱▱▱▱"
    assert R.progress_bar(45, 100) == "▰▰▱▱▱"
    assert R.progress_bar(99, 100) == "▰▰▰▰▱"
    assert R.progress_bar(100, 100) == R.progress_bar(250, 100) == "▰▰▰▰▰"
    assert R.progress(45, 100) == "45/100 ▰▰▱▱▱"


def test_a_meld_as_a_menu_option_names_its_cards_kind_and_points() -> None:
    bharg = D.Meld(D.BHARG_SET, cards("sea, end, author, penitent"))
    label, desc = R.meld_option(bharg, NAMES, binder=0)
    assert label == "the Sea 🌊, the End 🍃, the Author 🌙🪢, the Penitent ☀️🐉"
    assert desc == "Bharg set of 4 · 6 pts"
    partial = D.Meld(D.PARTIAL, cards("journey"), ((1, cards("author")), (0, cards("ace of moons"))))
    label, desc = R.meld_option(partial, NAMES, binder=0)
    assert label == "the Journey 🌙🌊"
    assert desc == "Partial straight of 1 · 2 pts · with the Author (Bob's), Ace of Moons (yours)"
    straight = cards("ace of moons, author, desert, mountain, forest, bard, lunatic, diplomat")
    long = D.Meld(D.COMPLETE, straight)
    label, desc = R.meld_option(long, NAMES, binder=0)
    assert len(label) <= 100 and desc.startswith("Complete straight of 8")


def test_straight_line_without_an_ace_and_with_the_die() -> None:
    state, _ = D.start(2, 3, D.Options())
    assert not state.ace_pile
    assert "no straights can be bound yet" in R.straight_line(D.view(state, 0))
    die = replace(state, die_suit=Suit.WYRMS)
    assert R.straight_line(D.view(die, 0)) == "Straight suit: **Wyrms 🐉** (the die's; the Ace Pile is empty)"


def test_event_lines_keep_deck_draws_secret_and_say_what_happened() -> None:
    c = card("forest")
    events: list[D.Event] = [
        D.CardDrawn(0),
        D.QueueTaken(1, cards("pact, sailor")),
        D.MeldBound(1, D.COMPLETE, cards("ace of moons, author, journey"), ()),
        D.CardDiscarded(1, c, "queue"),
        D.CardDiscarded(2, card("ace of knots"), "ace pile"),
        D.TurnStarted(2),
        D.SeatLeft(0),
        D.TiePlayedOn((1, 2), 55),
        D.GameWon((2,), (1, 2, 3)),
    ]
    lines = R.event_lines(events, NAMES)
    assert lines[0] == "Ann drew from the deck."
    assert lines[1] == "Bob took 2 from the Discard Queue: the Pact 🌙☀️, the Sailor 🌊🍃."
    assert lines[2].startswith("Bob bound a 📏 complete straight: Ace of Moons 🌙, the Author")
    assert lines[3] == "Bob discarded the Forest 🌙🍃."
    assert lines[4] == "Cat discarded Ace of Knots 🪢 onto the Ace Pile: the straight suit is now Knots 🪢."
    assert lines[5] == "🚪 Ann left the game."
    assert lines[6] == "Bob and Cat are tied at 55: another hand is played."
    assert lines[7] == "🏆 **Cat** won the game!"
    assert len(lines) == 8  # TurnStarted has no line: it is the ping


def test_the_channel_is_told_the_deck_was_rebuilt_and_why_the_hand_ended() -> None:
    """D8: the rebuild warns it happens once; the end says whether the deck ran out again or couldn't be
    rebuilt; the table marks a rebuilt deck."""
    lines = R.event_lines([D.DeckReshuffled(7), D.DeckRanOut(1, rebuilt=True), D.DeckRanOut(2, False)], NAMES)
    assert lines[0] == (
        "🔄 The deck ran out: the Discard Queue except its top card (7 cards) was shuffled into a new deck. "
        "This happens once a hand: if the deck runs out again, the hand ends."
    )
    assert (
        lines[1]
        == "📭 Bob can't draw: the deck ran out a second time this hand. The hand ends and is scored."
    )
    assert lines[2] == (
        "📭 Cat can't draw: the deck is empty and the Discard Queue has too few cards to rebuild it. "
        "The hand ends and is scored."
    )
    state, _ = D.start(5, 3, D.Options())
    assert "Deck: " + plural(len(state.deck), "card") + " ·" in R.table_text(D.view(state, -1), NAMES)
    rebuilt = D.view(replace(state, deck=state.deck[:1], reshuffles=1), -1)
    assert "Deck: 1 card (rebuilt: the hand ends when it runs out) ·" in R.table_text(rebuilt, NAMES)


def test_score_table_lines_up_bound_penalty_score_total() -> None:
    rows = (D.ScoreRow(0, 14, 4, 10, 31), D.ScoreRow(1, 0, 9, -9, 2), D.ScoreRow(2, 6, 0, 6, 6))
    text = R.score_table(2, rows, NAMES, (False, True, False))
    lines = text.splitlines()
    assert lines[0] == "**Hand 2 scored**"
    assert lines[4:7] == [
        "Ann        14    -4    +10     31",
        "Bob*        0    -9     -9      2",
        "Cat         6     0     +6      6",
    ]
    assert "left the game" in text


def test_final_lobby_and_rules_text() -> None:
    res = D.Result((31, 2, 40), (2,), False, "reached the target of 30")
    text = R.final_text(res, NAMES)
    assert text.splitlines() == [
        "**Game over** — reached the target of 30.",
        "1. Cat — 40 🏆",
        "2. Ann — 31",
        "3. Bob — 2",
    ]
    lobby = R.lobby_text("Ann", ["Ann", "Bob"], D.Options(target=50, pawns=True, fast_start=3))
    assert "target 50, Pawns, fast start 3" in lobby and "Players (2/6): Ann, Bob" in lobby
    assert R.FAST_START_NAMES[3] in lobby
    assert "not started in time" in R.lobby_text("Ann", ["Ann"], D.Options(), "expired")
    rules = R.rules_text()  # the short version; tests/test_player_rules.py pins the full rules
    for words in ("Ace Pile", "Discard Queue", "partial straight", "Full rules"):
        assert words in rules
    assert "\n\n" not in rules and len(rules) <= 1200
