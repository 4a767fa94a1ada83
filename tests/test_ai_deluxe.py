"""Bharg Deluxe computer player: always legal, deterministic, fast enough on a 30-card hand, and it plays.

Whole seeded games for 2–6 seats over every option combination (Pawns, Courts, fast start 0–3) with the three
levels mixed at the table; every game must end (D8 ends every hand) within a generous step cap.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from bot.ai import Level, UnknownLevel
from bot.ai import deluxe as ai
from bot.ai import deluxe_why as why
from bot.games import deluxe_panel
from bot.render import deluxe as R
from bot.render import deluxe_coach as coach
from bot.rules import deluxe as D
from bot.rules.decktet import Rank, Suit, deluxe_deck, shuffled
from bot.rules.deluxe_melds import bharg_sets, complete_straights

LEVELS: tuple[Level, ...] = ("easy", "normal", "hard")
OPTION_SETS = [
    D.Options(target=25, pawns=p, courts=c, fast_start=f)
    for p, c, f in itertools.product((False, True), (False, True), (0, 1, 2, 3))
]
MAX_STEPS = 20_000  # far beyond any real game: a game still going has looped


def play(
    seed: str, players: int, options: D.Options, levels: list[Level], max_steps: int = MAX_STEPS
) -> tuple[D.State, list[D.Action]]:
    state, _ = D.start(seed, players, options)
    rngs = [random.Random(f"{seed}:{s}") for s in range(players)]
    actions: list[D.Action] = []
    while not D.is_over(state):
        assert len(actions) < max_steps, "the game did not end"
        seat = D.waiting_for(state)[0]
        view = D.view(state, seat)
        action = ai.choose(view, rngs[seat], levels[seat])
        assert action in view.legal, (levels[seat], action, view.legal)
        assert not isinstance(action, D.Leave)
        state, _ = D.apply(state, action)
        actions.append(action)
    return state, actions


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_level_plays_legal_whole_games_with_every_option(players: int) -> None:
    for i, (options, seed) in enumerate(itertools.product(OPTION_SETS, (0, 1))):
        levels = [LEVELS[(i + s) % 3] for s in range(players)]
        state, _ = play(f"t{players}:{i}:{seed}", players, options, levels)
        result = D.final_result(state)
        assert len(result.winners) == 1
        assert max(result.scores) >= options.target


@pytest.mark.parametrize("players", [3, 6])
def test_a_table_of_hard_players_ends_every_game(players: int) -> None:
    """Hard takes from the queue only to bind what it takes: a table of hard players that only swapped the
    queue's top card round and round would never empty the deck, and the hand would never end (D8)."""
    seeds = [(f"all-hard:{players}:{i}", options) for i, options in enumerate(OPTION_SETS)]
    seeds.append((f"coach:{players}:1", OPTION_SETS[2]))  # a deal where every seat once swapped the Battle
    for seed, options in seeds:
        state, _ = play(seed, players, replace(options, target=20), ["hard"] * players, max_steps=1500)
        assert D.is_over(state)


def test_deterministic_for_a_fixed_rng() -> None:
    options = D.Options(target=25, pawns=True, courts=True, fast_start=3)
    a_state, a_actions = play("det", 4, options, ["easy", "normal", "hard", "hard"])
    b_state, b_actions = play("det", 4, options, ["easy", "normal", "hard", "hard"])
    assert a_actions == b_actions
    assert a_state.totals == b_state.totals


def big_view(i: int, phase: D.Phase) -> D.View:
    """Seat 0 holds 30 cards, 6 seats, a crowded table and a 12-card queue."""
    rng = random.Random(f"big:{i}")
    state, _ = D.start(f"big:{i}", 6, D.Options(pawns=True, courts=True))
    deck = list(shuffled(deluxe_deck(pawns=True, courts=True), rng))
    hand, pool = tuple(deck[:30]), deck[30:]
    suit = list(Suit)[i % 6]
    bound: list[list[D.Meld]] = [[] for _ in range(6)]
    for k, cs in enumerate(complete_straights(pool, suit, pawns=True, courts=True)[:2]):
        bound[k].append(D.Meld(D.COMPLETE, cs))
    for k, cs in enumerate(bharg_sets(pool)[::37][:10]):
        bound[(k + 2) % 6].append(D.Meld(D.BHARG_SET, cs))
    ace = next(c for c in deluxe_deck() if c.rank == Rank.ACE and c.suits[0] == suit)
    state = replace(
        state,
        hands=(hand, *state.hands[1:]),
        bound=tuple(tuple(b) for b in bound),
        ace_pile=(ace,),
        turn=0,
        phase=phase,
        queue=tuple(pool[-12:]),
    )
    return D.view(state, 0)


def test_a_30_card_hand_gets_a_legal_decision() -> None:
    """How quick it is on such hands is bench/bench_ai_deluxe.py's to say (its 30-card line: p50, p99)."""
    for i in range(6):
        for phase in (D.Phase.DRAW, D.Phase.BIND):
            view = big_view(i, phase)
            assert len(view.hand) == 30
            for lv in LEVELS:
                action = ai.choose(view, random.Random(i), lv)
                assert action in view.legal
            if phase == D.Phase.BIND and any(isinstance(a, D.Bind) for a in view.legal):
                assert isinstance(ai.choose(view, random.Random(i), "hard"), D.Bind)


def test_unknown_level_is_refused() -> None:
    state, _ = D.start("lv", 3)
    view = D.view(state, D.waiting_for(state)[0])
    with pytest.raises(UnknownLevel):
        ai.choose(view, random.Random(0), "grandmaster")  # type: ignore[arg-type]


def test_the_view_shows_the_table_options_and_the_whole_ace_pile() -> None:
    options = D.Options(pawns=True, courts=True, fast_start=1)
    state, _ = D.start("view:opts", 3, options)
    rng = random.Random(0)
    piles = set()
    for _ in range(120):  # long enough for several Aces to reach the pile
        seat = D.waiting_for(state)[0]
        view = D.view(state, seat)
        assert view.options == options and view.ace_pile == state.ace_pile
        piles.add(len(view.ace_pile))
        state, _ = D.apply(state, ai.choose(view, rng, "easy"))
        if D.is_over(state):
            break
    assert max(piles) >= 2


def test_hard_beats_easy_players() -> None:
    options = D.Options(target=40)
    hard_wins = 0
    for g in range(6):
        levels: list[Level] = ["easy", "easy", "easy"]
        levels[g % 3] = "hard"
        state, _ = play(f"strength:{g}", 3, options, levels)
        hard_wins += (g % 3) in D.final_result(state).winners
    assert hard_wins >= 5


def test_partial_positions_match_find_partial() -> None:
    """The helper the hard player uses agrees with the engine's partial-straight search (D6)."""
    from bot.rules.decktet import card
    from bot.rules.deluxe_melds import find_partial, partial_positions

    # Moons: the Journey (3) and the Mountain (4) bound loose in a bharg set; the Forest-Lunatic-Chance
    # Meeting (5-6-7) bound as a complete straight, usable only whole.
    table = [
        (
            1,
            D.Meld(
                D.BHARG_SET, (card("journey"), card("mountain"), card("sea"), card("end"), card("calamity"))
            ),
        ),
        (2, D.Meld(D.COMPLETE, (card("forest"), card("lunatic"), card("chance meeting")))),
    ]
    singles, pairs = partial_positions(table, Suit.MOONS)
    moons = [c for c in deluxe_deck()[:36] if Suit.MOONS in c.suits and c.rank != Rank.CROWN]
    pos = {c.rank: int(c.rank) - 1 for c in moons}
    for c in moons:
        assert (pos[c.rank] in singles) == (find_partial((c,), table, Suit.MOONS) is not None), c
    for i, c in enumerate(moons):
        for d in moons[i + 1 :]:
            if c.rank != d.rank:
                key = tuple(sorted((pos[c.rank], pos[d.rank])))
                assert (key in pairs) == (find_partial((c, d), table, Suit.MOONS) is not None), (c, d)
    assert 1 in singles  # the Author (2) below the Journey-Mountain
    assert 7 in singles  # the Diplomat (8) on top of the 3-4 and the whole 5-6-7


def named_in(line: str, action: D.Action) -> bool:
    """The coach's line names this action: the draw, the take's size, the meld's or the discard's cards."""
    match action:
        case D.Draw():
            return line.startswith("Draw from the deck")
        case D.TakeQueue(_, n):
            return line.startswith(f"Take {n} (")
        case D.Bind(_, cards):
            return line.startswith("Bind ") and all(R.card_text(c) in line for c in cards)
        case D.Discard(_, card):
            return line.startswith(f"Discard {R.card_text(card)} — ")
        case D.Done():
            return line.startswith("Done — ")
    return False


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_coach_answers_every_decision_with_the_hard_players_choice_on_top(players: int) -> None:
    """At every decision of whole games (every seat, every phase), the Deluxe hint lists options and its
    first line is what the hard player plays there, offered by the panel under the number the hint gives;
    every line it lists is a legal action."""
    names = [f"P{s}" for s in range(players)]
    for k, options in enumerate(OPTION_SETS[:: 5 - players // 2]):
        state, _ = D.start(f"coach:{players}:{k}", players, replace(options, target=20))
        rng = random.Random(k)
        decisions = 0
        while not D.is_over(state):
            seat = D.waiting_for(state)[0]
            view = D.view(state, seat)
            advice = ai.advise(view)
            chosen = ai.choose(view, rng, "hard")
            assert advice and advice[0].action == chosen
            assert all(a.action in view.legal for a in advice)
            pick_of = deluxe_panel.pick_of(state, seat)
            said = coach.hint(advice, why.explain(view, advice), names, pick_of)
            options = [line for line in said.lines if line.startswith("• ")]
            first = options[0].removeprefix("• **").split("**")[0]
            assert named_in(first, chosen), (first, chosen)
            assert said.picks[0] == (said.lines.index(options[0]), pick_of(chosen)) and pick_of(chosen)
            assert len(said.text) <= 2000
            state, _ = D.apply(state, chosen)
            decisions += 1
        assert decisions > 10


def test_the_draw_menu_says_what_each_take_unlocks() -> None:
    """``unlocks`` is the extra points a take lets the seat bind this turn beyond its hand alone: two cards
    that bind nothing, and a queue whose top card completes a bharg set with them, unlock its points."""
    numbers = [c for c in deluxe_deck() if len(c.suits) == 2]
    a, b, c = next(
        (x, y, z)
        for x, y, z in itertools.combinations(numbers, 3)
        if len({*x.suits, *y.suits, *z.suits}) == 6
    )
    junk = next(x for x in numbers if x not in (a, b, c))
    state, _ = D.start("unlocks", 2, D.Options())
    state = replace(
        state,
        hands=((a, b), state.hands[1]),
        queue=(junk, c),
        ace_pile=(),
        die_suit=None,
        turn=0,
        phase=D.Phase.DRAW,
    )
    view = D.view(state, 0)
    assert view.straight_suit is None and not D.bindable_melds(replace(state, phase=D.Phase.BIND), 0)
    gains = ai.unlocks(view)
    assert gains[1] == R.points((a, b, c)) == 6
    assert gains[2] >= gains[1]


def seat_view(players: int, others: int, *, one_near: bool = False) -> D.View:
    """Seat 0 to discard from 4 cards; every other seat holds ``others`` cards (one of them 1 if
    ``one_near``), with the deck full."""
    state, _ = D.start(f"risk:{players}", players, D.Options())
    deck = list(deluxe_deck())
    hands = [tuple(deck[:4])] + [tuple(deck[4 : 4 + others]) for _ in range(players - 1)]
    if one_near:
        hands[1] = hands[1][:1]
    state = replace(state, hands=tuple(hands), turn=0, phase=D.Phase.BIND)
    return D.view(state, 0)


def test_holding_a_point_is_riskier_the_more_seats_and_the_nearer_one_is_to_going_out() -> None:
    """The weight of a held point (D9) follows the tempo of the hand: five others are likelier than two to
    end it before our next turn, and a seat holding one card likelier still."""
    from bot.ai.deluxe_hand import context_of

    three = context_of(seat_view(3, 6)).end_risk
    six = context_of(seat_view(6, 6)).end_risk
    near = context_of(seat_view(3, 6, one_near=True)).end_risk
    assert three < six < 1.0
    assert three < near < 1.0


def test_hard_does_not_discard_what_completes_a_bharg_set_on_the_queue() -> None:
    """Denial: of two cards worth the same, hard keeps the one that would complete a bharg set with the two
    cards on top of the queue — whoever draws next would take the three and bind them."""
    from bot.rules.decktet import card

    # The Author (Moons, Knots) with the Sailor (Waves, Leaves) and the Penitent (Suns, Wyrms) on the queue
    # is a bharg set; the Desert (Suns, Wyrms) completes nothing with them.
    author, desert = card("author"), card("desert")
    state, _ = D.start("denial", 3, D.Options())
    state = replace(
        state,
        hands=((author, desert, card("forest")), *state.hands[1:]),
        queue=(card("mill"), card("sailor"), card("penitent")),
        ace_pile=(),
        die_suit=None,
        turn=0,
        phase=D.Phase.BIND,
    )
    view = D.view(state, 0)
    advice = ai.advise(view)
    gifts = {a.action.card.index: a.gift for a in advice if isinstance(a.action, D.Discard)}
    assert gifts[author.index] == "set" and gifts[desert.index] != "set"
    chosen = ai.choose(view, random.Random(0), "hard")
    assert isinstance(chosen, D.Discard) and chosen.card != author
