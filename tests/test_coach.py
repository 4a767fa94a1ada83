"""The Bhargage and Cribbage coaches explain (issue 46): what a keep already is and what the bhargage or the
crib is likely worth, the threat a card leaves and the cards that answer it (checked against the engines'
own scoring), why the first choice is first, and the race near the end — in English and Italian."""

from __future__ import annotations

import random

import pytest

from bot.ai import bhargage as bh_ai
from bot.ai import bhargage_why as bh_why
from bot.ai import cribbage as cr_ai
from bot.ai import cribbage_why as cr_why
from bot.base.i18n import speaking
from bot.render import bhargage_coach as bh_coach
from bot.render import cribbage_coach as cr_coach
from bot.rules import bhargage as bh
from bot.rules import cribbage as cr
from bot.rules.bhargage_scoring import count_hand, peg_points
from bot.rules.cribbage_scoring import peg_items, show_total
from bot.rules.decktet import ALL_CARDS, card
from bot.rules.pack52 import FULL_PACK, cards
from tests.test_ai_bhargage import play_view as bh_play_view
from tests.test_ai_cribbage import _play_view as cr_play_view


def bh_hint(view: bh.SeatView) -> str:
    advice = bh_ai.play_advice(view)
    assert advice is not None
    return bh_coach.play_hint(advice, bh_why.play_why(view, advice), view.count).text


def cr_hint(view: cr.SeatView) -> str:
    advice = cr_ai.play_advice(view)
    assert advice is not None
    return cr_coach.play_hint(advice, cr_why.play_why(view, advice), view.count).text


# ---------------------------------------------------------------- what a keep is


def test_a_bhargage_keep_says_what_it_scores_and_what_the_bhargage_is_worth() -> None:
    """ "A bharg and a pair: 8 in hand" (the issue's own words): the Light Keeper and the Rite make a bharg,
    the Light Keeper and the Watchman a pair of Pawns; the bhargage's likely worth is said beside it."""
    dealt = [card(x) for x in ("light keeper", "rite", "watchman", "sea", "end")]
    lines = bh_ai.discard_table(dealt, True)
    text = bh_coach.discard_hint_text(lines, dealt, dealer=True)
    first = text.split("\n")[1]
    assert first.startswith(
        "• **the Sea (Crown) 🌊 + the End (Crown) 🍃 — keep the Light Keeper, the Rite, and "
    )
    assert "(2 for a pair and 6 for bharg: 8 in hand); your bhargage about 7.2; about 17.0 in all.**" in first
    assert first.endswith("First for your bhargage: about 7.2, against 5.7 for the next choice.")
    with speaking("it"):
        text = bh_coach.discard_hint_text(lines, dealt, dealer=True)
    assert "(2 per una coppia e 6 per il bharg: 8 in mano); il tuo bhargage circa 7,2" in text


def test_a_cribbage_keep_is_counted_as_players_count_it_before_the_starter() -> None:
    assert cr_coach.kept_text(cr_why.held_items(cards("5H 5S JD QC"))) == (
        "15 for 2, 15 for 4, 15 for 6, 15 for 8 and a pair for 10: 10 before the starter"
    )
    assert cr_coach.kept_text(cr_why.held_items(cards("4D 5D 6D KD"))) == (
        "15 for 2, 15 for 4, a run of 3 for 7 and flush for 11: 11 before the starter"
    )
    assert cr_coach.kept_text(cr_why.held_items(cards("2C 4D 6H 8S"))) == "nothing before the starter"
    dealt = cards("4D 5D 6C 6D 7H KD")
    text = cr_coach.discard_text(cr_ai.discard_table(dealt, dealer=True), dealt, ours=True)
    assert "• **Lay away 6♣ 7♥, keep 4♦ 5♦ 6♦ K♦ (15 for 2, 15 for 4, a run of 3 for 7 and flush" in text
    assert "your crib about 5.4; about 19.2 in all.** First for your crib" in text


@pytest.mark.parametrize("seed", range(6))
def test_every_listed_keep_names_the_engines_own_count(seed: int) -> None:
    """Every line of a seeded deal's list says what its keep scores: the engine's count of the kept cards
    among themselves; the calculators fit one message, saying how many choices they leave out."""
    rng = random.Random(seed)
    dealt = rng.sample(ALL_CARDS, 5)
    lines = bh_ai.discard_table(dealt, seed % 2 == 0)
    text = bh_coach.discard_hint_text(lines, dealt, dealer=seed % 2 == 0, limit=len(lines))
    assert len(text) <= 1900
    for line in lines:
        kept = [c for c in dealt if c not in line.cards]
        said = bh_coach.kept_text(count_hand(kept[:2], kept[2], bhargage=True).items)
        assert f"({said})" in text or "more choice" in text
    pack = rng.sample(FULL_PACK, 6)
    text = cr_coach.discard_text(cr_ai.discard_table(pack, dealer=False), pack, ours=False, limit=15)
    assert len(text) <= 1900 and "more choices, worth less." in text


# ---------------------------------------------------------------- the threat a card leaves


def test_the_bhargage_play_names_the_threat_and_the_cards_that_answer_it() -> None:
    """Not "favours your opponent by about 0.4 points": after the Savage makes 11, a Pawn, a Court or the
    Excuse (value 0) makes 11 again for the opponent, and the hint counts those cards among the unseen."""
    text = bh_hint(bh_play_view("sailor,savage,mountain", [(1, "diplomat")]))
    assert text.split("\n")[1].startswith(
        "It leaves them 11 for 2 with a Pawn, a Court or the Excuse: 9 of 38 unseen cards, about 2 in 5"
    )
    assert "keeps that smallest" not in text


def test_the_cribbage_play_says_a_ten_card_makes_31() -> None:
    text = cr_hint(cr_play_view("AS", [(1, "KC"), (0, "QD")]))
    assert text.split("\n")[1].startswith(
        "It leaves the next player 31 for 2 with any ten-card (10, J, Q, K): 13 of 46 unseen cards, "
        "about 2 in 3"
    )
    assert "this card loses the least" not in text
    with speaking("it"):
        said = cr_hint(cr_play_view("AS", [(1, "KC"), (0, "QD")]))
    assert "31 per 2 con qualsiasi dieci o figura (10, J, Q, K): 13 delle 46 carte non viste" in said


def test_a_greedier_card_is_named_with_what_it_would_leave() -> None:
    """When the coach's card pegs less now than another, it says what that other card would leave."""
    found = {"bhargage": "", "cribbage": ""}
    for seed in range(40):
        if all(found.values()):
            break
        state, _ = bh.start(seed, 2, bh.Options(target=121))
        rng = random.Random(seed)
        while not bh.is_over(state) and not found["bhargage"]:
            view = bh.view(state, bh.waiting_for(state)[0])
            advice = bh_ai.play_advice(view) if view.phase is bh.Phase.PLAY else None
            if advice is not None:
                why = bh_why.play_why(view, advice)
                if why.greedy is not None and why.points_pick is None and why.greedy_threat is not None:
                    found["bhargage"] = bh_hint(view)
                    assert (
                        f"{why.greedy.title} would score more now, but it leaves them " in found["bhargage"]
                    )
            state, _ = bh.apply(state, bh_ai.choose(view, rng, "hard"))
        cstate, _ = cr.start(seed, 2, cr.Options(target=121))
        while not cr.is_over(cstate) and not found["cribbage"]:
            cview = cr.view(cstate, cr.waiting_for(cstate)[0])
            cadvice = cr_ai.play_advice(cview) if cview.phase is cr.Phase.PLAY else None
            if cadvice is not None:
                cwhy = cr_why.play_why(cview, cadvice)
                if cwhy.greedy is not None and cwhy.points_pick is None and cwhy.greedy_threat is not None:
                    found["cribbage"] = cr_hint(cview)
                    other = cr_coach.short(cwhy.greedy)
                    assert f"{other} would peg more now, but it leaves the next player " in found["cribbage"]
            cstate, _ = cr.apply(cstate, cr_ai.choose(cview, rng, "hard"))
    assert all(found.values())


@pytest.mark.parametrize("seed", range(4))
def test_every_threat_is_the_engines_own_scoring_of_unseen_cards(seed: int) -> None:
    """Over seeded games of both games: each card a threat counts is unseen by the seat and scores the
    call when played on the coach's card (the engines' ``peg_points`` and ``peg_items``)."""
    state, _ = bh.start(seed, 2, bh.Options(target=121, sequences=seed % 2 == 1))
    rng = random.Random(seed)
    checked = 0
    while not bh.is_over(state):
        seat = bh.waiting_for(state)[0]
        view = bh.view(state, seat)
        advice = bh_ai.play_advice(view) if view.phase is bh.Phase.PLAY else None
        if advice is not None:
            pile = [c for _, c in view.pile]
            seen = {*view.hand, *view.discard, *pile, *([view.up] if view.up else [])}
            for threat in bh_why.threats(view, advice.card):
                for answer in threat.cards:
                    assert answer not in seen
                    made = peg_points([*pile, advice.card, answer], sequences=view.sequences)
                    assert any(it.reason == threat.reason and it.points == threat.points for it in made)
                checked += 1
        state, _ = bh.apply(state, bh_ai.choose(view, rng, "hard"))
    assert checked > 20
    cstate, _ = cr.start(seed, 2, cr.Options(target=121))
    checked = 0
    while not cr.is_over(cstate):
        seat = cr.waiting_for(cstate)[0]
        view = cr.view(cstate, seat)
        cadvice = cr_ai.play_advice(view) if view.phase is cr.Phase.PLAY else None
        if cadvice is not None:
            pile52 = [c for _, c in view.pile]
            for cthreat in cr_why.threats(view, cadvice.card):
                answers = [
                    c
                    for c in FULL_PACK
                    if (c.value if cthreat.answer == "value" else c.rank) == cthreat.key
                    and c not in cr_why._seen(view) | {cadvice.card}
                ]
                assert len(answers) == cthreat.count
                for answer in answers:
                    made52 = peg_items([*pile52, cadvice.card, answer])
                    assert any(it.kind == cthreat.kind and it.points == cthreat.points for it in made52)
                checked += 1
        cstate, _ = cr.apply(cstate, cr_ai.choose(view, rng, "hard"))
    assert checked > 20


# ---------------------------------------------------------------- the race near the end


def test_the_race_changes_the_bhargage_play_and_the_hint_says_so() -> None:
    """The opponent needs 2: the points alone would take the Savage's 11 for 2, but the hard player plays
    the Mountain (the search weighs their pegging out), and the hint says the race decided it."""
    text = bh_hint(bh_play_view("sailor,savage,mountain", [(1, "diplomat")], scores=(10, 119)))
    lines = text.split("\n")
    assert lines[0] == "💡 Play **the Mountain** (8 → 12): it scores nothing now."
    assert lines[1].startswith(
        "The race decides: for points alone the Savage would be better, but with you needing 111 and your "
        "opponent 2, this card gives you the better chance to win."
    )
    assert lines[2] == "Near the end: you count first in the show and need 111; your opponent needs 2."


def test_near_the_end_each_keep_says_how_often_its_show_reaches_the_need() -> None:
    """Who counts first and what each needs, then for each keep the up-cards (Bhargage) or starters
    (Cribbage) that bring its show to the need, recounted here with the engines."""
    dealt = [card(x) for x in ("ace of suns", "painter", "castle", "watchman", "sea")]
    race = bh_why.Race(need=12, their_need=23, first=True)
    lines = bh_ai.discard_table(dealt, False)
    hint = bh_coach.discard_hint(lines, dealt, dealer=False, race=race)
    assert hint.lines[1] == "Near the end: you count first in the show and need 12; your opponent needs 23."
    for line, said in zip(lines[:4], hint.lines[2:6], strict=True):
        kept = [c for c in dealt if c not in line.cards]
        ups = [c for c in ALL_CARDS if c not in dealt]
        reach = sum(1 for up in ups if count_hand(kept, up).total >= 12)
        assert f"Your show reaches 12 with {reach} of the 40 up-cards." in said
    pack = cards("4D 5D 6C 6D 7H KD")
    crace = cr_why.Race(need=9, their_need=30, first=False)
    clines = cr_ai.discard_table(pack, dealer=True)
    chint = cr_coach.discard_hint(clines, pack, ours=True, race=crace)
    assert chint.lines[1] == (
        "Near the end: the other side counts first in the show and needs 30; your side needs 9."
    )
    starters = [c for c in FULL_PACK if c not in pack]
    reach = sum(1 for s in starters if show_total(clines[0].kept, s) >= 9)
    assert f"Your hand reaches 9 with {reach} of the 46 starters." in chint.lines[2]


def test_the_race_is_read_from_the_seats_view() -> None:
    """Bhargage: the non-dealer counts first (R9). Cribbage: from the dealer's left, so with two players the
    non-dealer; near means within 20 of the target for either side."""
    view = bh_play_view("sailor,savage,mountain", [(1, "diplomat")], scores=(105, 100))
    assert bh_why.race_of(view) == bh_why.Race(16, 21, True)  # seat 0, the dealer is seat 1
    assert bh_why.race_of(bh_play_view("sailor", [], scores=(50, 60))) is None
    cview = cr_play_view("AS 6H", [(1, "KC")], scores=(110, 90))
    assert cr_why.race_of(cview) == cr_why.Race(11, 31, True)


def test_the_threat_is_spoken_of_whoever_plays_next() -> None:
    """A threat is the next player's: with four players a partner may play next (then it is a chance for
    the side), or no one else can play this count; in Bhargage an opponent who said go can't answer."""
    said: dict[str, int] = {"partner": 0, "nobody": 0, "go": 0}
    for seed in range(6):
        state, _ = cr.start(seed, 4, cr.Options(target=121))
        rng = random.Random(seed)
        while not cr.is_over(state) and state.hand_no < 4:
            view = cr.view(state, cr.waiting_for(state)[0])
            advice = cr_ai.play_advice(view) if view.phase is cr.Phase.PLAY else None
            if advice is not None:
                why = cr_why.play_why(view, advice)
                text = cr_hint(view)
                if why.next == "partner" and why.threat is not None and why.greedy is None:
                    assert "Your partner plays next: it leaves them " in text
                    said["partner"] += 1
                if why.next == "nobody" and why.points_pick is None:
                    assert "No one else can play on it this count." in text
                    said["nobody"] += 1
                assert not ("It leaves the next player" in text and why.next != "opponent")
            state, _ = cr.apply(state, cr_ai.choose(view, rng, "hard"))
        bstate, _ = bh.start(seed, 2, bh.Options(target=121))
        while not bh.is_over(bstate) and bstate.hand_no < 4:
            bview = bh.view(bstate, bh.waiting_for(bstate)[0])
            badvice = bh_ai.play_advice(bview) if bview.phase is bh.Phase.PLAY else None
            if badvice is not None and bview.gone[1 - bview.seat]:
                bwhy = bh_why.play_why(bview, badvice)
                if bwhy.greedy is None and bwhy.points_pick is None:
                    assert "Your opponent has said go: they can't play on it." in bh_hint(bview)
                    said["go"] += 1
            bstate, _ = bh.apply(bstate, bh_ai.choose(bview, rng, "hard"))
    assert min(said.values()) >= 1, said
