"""Properties of Bhargage over many seeded random games, and the scoring against a plain reference count."""

import copy
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules import bhargage as bh
from bot.rules.bhargage import Action, Cut, Discard, Options, Phase, Play, Resign, State
from bot.rules.decktet import ALL_CARDS, ALL_SUITS, Card
from bot.rules.errors import GameOver, IllegalAction, NotYourTurn
from tests.test_rules_review import (
    check_odd_actions,
    peg_reference,
    shortage_reference,
    show_reference,
)

ALL = frozenset(ALL_CARDS)


# ---------------------------------------------------------------- the scoring against the literal reading


card_st = st.sampled_from(ALL_CARDS)


@given(st.lists(card_st, min_size=5, max_size=5, unique=True), st.booleans(), st.booleans())
def test_count_hand_matches_the_reference(five: list[Card], as_bhargage: bool, sequences: bool) -> None:
    if as_bhargage:
        hand, up = tuple(five[:4]), five[4]
    else:
        hand, up = tuple(five[:3]), five[3]
    got = bh.count_hand(hand, up, bhargage=as_bhargage, sequences=sequences)
    assert got.total == show_reference(hand, up, as_bhargage, sequences)
    assert got.total == sum(it.points for it in got.items)
    for it in got.items:
        assert set(it.cards) <= {*hand, up}


@given(st.lists(card_st, min_size=4, max_size=5, unique=True))
def test_shortage_counts_missing_suits(cs: list[Card]) -> None:
    assert bh.shortage(cs) == shortage_reference(tuple(cs))
    assert len(ALL_SUITS - {s for c in cs for s in c.suits}) <= 4


@given(st.lists(card_st, min_size=1, max_size=8, unique=True), st.booleans())
def test_peg_points_match_the_reference(pile: list[Card], sequences: bool) -> None:
    items = bh.peg_points(pile, sequences=sequences)
    expected = peg_reference(pile, sequences)
    assert any(it.reason == "Game!" for it in items) == (expected is None)
    if expected is not None:
        assert sum(it.points for it in items) == expected


@given(st.lists(card_st, min_size=3, max_size=5, unique=True))
def test_sequences_only_add_runs(cs: list[Card]) -> None:
    hand, up = tuple(cs[:-1]), cs[-1]
    plain = bh.count_hand(hand, up)
    seq = bh.count_hand(hand, up, sequences=True)
    runs = [it for it in seq.items if it.reason.endswith("for a run")]
    assert seq.total == plain.total + sum(it.points for it in runs)
    for it in runs:
        ranks = sorted(int(c.rank) for c in it.cards)
        assert ranks == list(range(ranks[0], ranks[0] + len(ranks))) and len(ranks) >= 3


# ---------------------------------------------------------------- random games


def all_cards_in(state: State) -> list[Card]:
    out: list[Card] = [*state.hands[0], *state.hands[1], *state.discards[0], *state.discards[1]]
    out += [*state.bhargage, *state.deck, *(c for _, c in state.pile)]
    if state.up is not None:
        out.append(state.up)
    return out


def hidden_from(state: State, seat: int) -> set[Card]:
    other = 1 - seat
    theirs = state.bhargage[:2] if other == state.non_dealer else state.bhargage[2:]
    return {*state.hands[other], *state.discards[other], *theirs, *state.deck}


def cards_in_view(v: bh.SeatView) -> set[Card]:
    seen: set[Card] = {*v.hand, *v.discard, *(c for _, c in v.pile)}
    if v.up is not None:
        seen.add(v.up)
    for a in v.legal:
        if isinstance(a, Discard):
            seen.update(a.cards)
        elif isinstance(a, Play):
            seen.add(a.card)
    return seen


def random_action(state: State, rng: random.Random, resign_rate: float) -> Action:
    if rng.random() < resign_rate:
        return Resign(rng.randrange(2), rng.choice(["resign", "forfeit"]))
    seats = list(bh.waiting_for(state))
    if state.phase is Phase.DISCARD:
        # A seat that already discarded may change its mind while the other still thinks.
        seats += [s for s in (0, 1) if state.discards[s]]
    seat = rng.choice(seats)
    return rng.choice(bh.legal_actions(state, seat))


def play_random_game(
    seed: int, options: Options, rng: random.Random, *, deep: bool, resign_rate: float = 0.0
) -> tuple[State, list[str]]:
    state, _ = bh.start(seed, 2, options)
    texts: list[str] = []
    while not bh.is_over(state):
        cs = all_cards_in(state)
        assert len(cs) == 45 and set(cs) == ALL, "every card is somewhere exactly once"
        action = random_action(state, rng, resign_rate)
        text = bh.action_text(action)
        assert bh.parse_action(text) == action
        before = state.scores
        state, events = bh.apply(state, action)
        texts.append(text)
        assert state.scores[0] >= before[0] and state.scores[1] >= before[1]
        assert events, "every action is announced"
        if deep:
            for seat in (0, 1):
                v = bh.view(state, seat)
                assert not cards_in_view(v) & hidden_from(state, seat)
                assert len(v.hand) == len(state.hands[seat])
                assert v.opponent_hand_size == len(state.hands[1 - seat])
                assert v.legal == tuple(bh.legal_actions(state, seat))
                if state.phase in (Phase.CUT, Phase.PLAY):
                    assert len(v.discard) == 2 and set(v.discard) <= set(state.bhargage)
            if state.phase is Phase.PLAY:
                assert 0 <= state.count <= 23
                assert state.count == sum(c.value for _, c in state.pile)
    return state, texts


def check_finished(state: State) -> None:
    result = bh.final_result(state)
    assert len(result.winners) == 1
    winner = result.winners[0]
    assert result.muggins == (result.how == "muggins")
    if result.how in ("target", "muggins"):
        assert result.scores[winner] >= state.options.target
        assert result.scores[1 - winner] < state.options.target
    elif result.how == "game":
        assert max(result.scores) < state.options.target
    else:
        assert result.how in ("resign", "forfeit")
    assert bh.waiting_for(state) == ()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**40),
    choice_seed=st.integers(min_value=0, max_value=2**32),
    target=st.sampled_from([61, 121]),
    sequences=st.booleans(),
    resign=st.sampled_from([0.0, 0.0, 0.01]),
)
def test_random_games_keep_the_invariants_and_replay(
    seed: int, choice_seed: int, target: int, sequences: bool, resign: float
) -> None:
    options = Options(target=target, sequences=sequences)
    state, texts = play_random_game(seed, options, random.Random(choice_seed), deep=True, resign_rate=resign)
    check_finished(state)
    assert bh.replay(seed, 2, options, texts) == state


def test_thousands_of_seeded_games_end_properly() -> None:
    hows: Counter[str] = Counter()
    for i in range(2000):
        options = Options(sequences=i % 4 == 0)
        state, _ = play_random_game(i, options, random.Random(-i), deep=False)
        check_finished(state)
        hows[state.how] += 1
    # Random play reaches the target through the play, the show and shortage claims.
    assert hows["target"] > 0 and hows["muggins"] > 0
    assert set(hows) <= {"target", "muggins", "game"}


# ---------------------------------------------------------------- check() and can()


def odd_actions(state: State, rng: random.Random) -> list[tuple[Action, bool]]:
    """Actions to try on a state, each with whether it is certainly illegal.

    Wrong seats, cards not held, plays past 23, discards of 1 or 3 cards, a cut by the dealer, a bad resign.
    """
    out: list[tuple[Action, bool]] = [
        (Play(2, ALL_CARDS[0]), True),
        (Cut(-1), True),
        (Resign(0, "quit"), True),  # type: ignore[arg-type]
    ]
    for seat in (0, 1):
        held = (*state.hands[seat], *state.discards[seat])
        stranger = rng.choice([c for c in ALL_CARDS if c not in held])
        out += [(Play(seat, stranger), True), (Cut(seat), False), (Discard(seat, (stranger, stranger)), True)]
        out += [(Play(seat, c), False) for c in state.hands[seat]]
        if held:
            out += [
                (Discard(seat, (held[0],)), True),  # type: ignore[arg-type]
                (Discard(seat, (held[0], stranger)), True),
                (Discard(seat, (held[0], held[0])), True),
            ]
        if len(held) >= 3:
            out.append((Discard(seat, held[:3]), True))  # type: ignore[arg-type]
    return out


def test_check_agrees_with_apply_on_every_state_of_random_games() -> None:
    """Legal actions pass ``check``; odd ones raise what ``apply`` raises; ``check`` changes nothing."""
    seen: Counter[str] = Counter()
    for i in range(80):
        rng = random.Random(f"check:{i}")
        state, _ = bh.start(i, 2, Options(target=61 if i % 2 else 121, sequences=i % 3 == 0))
        while True:
            snapshot = copy.deepcopy(state)
            for seat in (0, 1):
                for action in bh.legal_actions(state, seat):
                    assert bh.check(state, action) is None and bh.can(state, action)
            over = bh.is_over(state)
            check_odd_actions(bh, state, odd_actions(state, rng), seen)
            assert state == snapshot
            if over:
                assert not bh.can(state, Resign(0)) and not bh.can(state, Resign(1))
                break
            state, _ = bh.apply(state, random_action(state, rng, 0.002))
    assert seen[f"{NotYourTurn.__name__}: It is not your turn."]
    assert seen[f"{GameOver.__name__}: The game is over."]
    for message in (
        "That card would take the count past 23.",
        "You don't hold that card.",
        "Discard exactly two different cards.",
        "There is no such seat at this table.",
        "You can only resign or forfeit.",
        "You can't do that now: it is time to cut for the up-card.",
    ):
        assert seen[f"{IllegalAction.__name__}: {message}"], message


# ---------------------------------------------------------------- back pegs


def test_back_pegs_follow_each_seats_latest_scoring_and_survive_replay() -> None:
    """``backs[seat]`` is the score before that seat's latest scoring of 1+ points, None before any."""
    for i in range(150):
        rng = random.Random(f"backs:{i}")
        options = Options(target=61 if i % 2 else 121, sequences=i % 3 == 0)
        state, _ = bh.start(i, 2, options)
        expected: list[int | None] = [None, None]
        texts: list[str] = []
        assert state.backs == (None, None)
        while not bh.is_over(state):
            action = random_action(state, rng, 0.001)
            texts.append(bh.action_text(action))
            state, events = bh.apply(state, action)
            for e in events:
                if isinstance(e, bh.PointsScored) and e.points > 0:
                    expected[e.seat] = e.total_after - e.points
                elif isinstance(e, bh.HandCounted) and e.total > 0:
                    expected[e.seat] = e.total_after - e.total
                elif isinstance(e, bh.ShortageClaimed) and e.points > 0:
                    expected[e.claimant] = e.total_after - e.points
            assert state.backs == tuple(expected)
            for seat in (0, 1):
                back = state.backs[seat]
                assert back is None or bh.START_SCORE <= back < state.scores[seat]
        assert bh.replay(i, 2, options, texts).backs == state.backs
