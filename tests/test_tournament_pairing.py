"""The tournaments' pairings and standings on their own: a Swiss round never pairs a rematch while a pairing
without one exists (checked by brute force over every pairing), byes go round before anyone has a second,
a round robin meets everyone once, a knockout keeps the top two seeds apart until the final, Deluxe tables
are as even as the field allows, and the scoring and tie-breaks are the documented ones, counted by hand."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.services.tournaments import pairing, standings
from bot.services.tournaments.standings import Game


def pairings(players: list[int]) -> Iterator[list[tuple[int, int]]]:
    """Every way to pair an even list of players."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        for tail in pairings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def fewest_rematches(players: list[int], seen: set[frozenset[int]]) -> int:
    return min(sum(frozenset(p) in seen for p in pairs) for pairs in pairings(players))


def simulate(n: int, rounds: int, seed: int) -> tuple[list[pairing.Round], list[Game]]:
    """A Swiss event of ``n`` players, ``rounds`` rounds, random two-player results, paired as the bot
    pairs."""
    rng = random.Random(seed)
    players = list(range(1, n + 1))
    played: list[pairing.Round] = []
    games: list[Game] = []
    for _ in range(rounds):
        byes = [r.bye for r in played if r.bye is not None]
        lines = standings.standings(players, games, byes, {})
        history = [pair for r in played for pair in r.pairs]
        paired = pairing.swiss(standings.order(lines), history, byes)
        played.append(paired)
        for a, b in paired.pairs:
            winner, loser = (a, b) if rng.random() < 0.5 else (b, a)
            games.append(Game((winner, loser), (121, rng.randrange(60, 121)), 121, winner, lurch_line=91))
    return played, games


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=10), st.integers(min_value=1, max_value=7), st.integers(0, 10**6))
def test_a_swiss_round_pairs_a_rematch_only_when_none_can_be_avoided(n: int, rounds: int, seed: int) -> None:
    played, _ = simulate(n, rounds, seed)
    seen: set[frozenset[int]] = set()
    for paired in played:
        everyone = [p for pair in paired.pairs for p in pair] + (
            [paired.bye] if paired.bye is not None else []
        )
        assert sorted(everyone) == list(range(1, n + 1)), "everyone once: paired, or the bye"
        rematches = sum(frozenset(pair) in seen for pair in paired.pairs)
        field = sorted(p for pair in paired.pairs for p in pair)
        assert rematches == fewest_rematches(field, seen)
        seen |= {frozenset(pair) for pair in paired.pairs}


def test_byes_go_round_before_anyone_has_a_second() -> None:
    played, _ = simulate(9, 9, seed=4)
    byes = [r.bye for r in played]
    assert None not in byes and sorted(byes) == list(range(1, 10))  # nine rounds, nine different byes


def test_the_bye_goes_to_the_lowest_placed_player_without_one() -> None:
    order = [5, 3, 1, 4, 2]
    assert pairing.swiss(order, [], byes=[]).bye == 2
    assert pairing.swiss(order, [], byes=[2, 4]).bye == 1
    assert pairing.swiss(order, [], byes=order).bye == 2  # all had one: the lowest again


def test_swiss_pairs_top_down_by_standings() -> None:
    assert pairing.swiss([1, 2, 3, 4], [], []).pairs == ((1, 2), (3, 4))
    # 1 has met 2: 1 takes 3, and 2 takes 4.
    assert pairing.swiss([1, 2, 3, 4], [(1, 2)], []).pairs == ((1, 3), (2, 4))
    # 1 met 2 and 3; 2 met 4: 1–4 leaves 2–3.
    assert pairing.swiss([1, 2, 3, 4], [(1, 2), (1, 3), (2, 4)], []).pairs == ((1, 4), (2, 3))


def test_a_round_robin_meets_everyone_once() -> None:
    for n in range(2, 12):
        rounds = pairing.round_robin(list(range(n)))
        assert len(rounds) == (n if n % 2 else n - 1)
        meetings = Counter(frozenset(pair) for r in rounds for pair in r.pairs)
        assert set(meetings.values()) == {1} and len(meetings) == n * (n - 1) // 2, n
        for r in rounds:
            seated = [p for pair in r.pairs for p in pair]
            assert len(seated) == len(set(seated)) and (r.bye is None) == (n % 2 == 0)
        if n % 2:
            assert sorted(r.bye for r in rounds if r.bye is not None) == list(range(n))


def test_a_knockout_keeps_the_top_seeds_apart_and_gives_them_the_byes() -> None:
    assert pairing.seeds(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    ratings = {p: 2000.0 - 10 * p for p in range(1, 17)}  # player p is seed p
    first = pairing.knockout(ratings, list(range(16, 0, -1)))
    assert first[:2] == ((1, 16), (8, 9))
    # The better seed always wins: the final is 1 against 2.
    slots = first
    while len(slots) > 1:
        slots = pairing.next_knockout([min(p for p in slot if p is not None) for slot in slots])
    assert slots == ((1, 2),)
    six = pairing.knockout(ratings, [6, 5, 4, 3, 2, 1])
    assert ((1, None) in six) and ((2, None) in six) and len(six) == 4


def test_deluxe_tables_are_as_few_and_as_even_as_the_field_allows() -> None:
    assert pairing.tables(list(range(10)), 3, 4) == [(0, 1, 2, 3), (4, 5, 6), (7, 8, 9)]
    for n in range(3, 40):
        for least, most in ((3, 4), (3, 6), (4, 6), (2, 6)):
            if n < least:
                continue
            try:
                cut = pairing.tables(list(range(n)), least, most)
            except ValueError:
                assert all(not (k * least <= n <= k * most) for k in range(1, n + 1)), (n, least, most)
                continue
            sizes = [len(t) for t in cut]
            assert [p for t in cut for p in t] == list(range(n))
            assert all(least <= s <= most for s in sizes) and max(sizes) - min(sizes) <= 1
            assert len(cut) == min(k for k in range(1, n + 1) if k * least <= n <= k * most)


def test_the_scoring_and_the_tie_breaks_counted_by_hand() -> None:
    # Cribbage to 121: a win by 121–100 is 2 points and 21 of spread; 121–85 is a lurch (short of 91):
    # 3 points and twice the margin, 72.
    assert standings.two_player(Game((1, 2), (121, 100), 121, 1, lurch_line=91)) == {1: (2, 21), 2: (0, -21)}
    assert standings.two_player(Game((1, 2), (85, 121), 121, 2, lurch_line=91)) == {2: (3, 72), 1: (0, -72)}
    # Bhargage knows no lurch.
    assert standings.two_player(Game((3, 4), (61, 30), 61, 3)) == {3: (2, 31), 4: (0, -31)}
    # Deluxe at four: 6, 4, 2, 0 by place; spread from the table's average (25).
    deluxe = Game((5, 6, 7, 8), (40, 30, 20, 10), 40, 5)
    assert standings.by_place(deluxe) == {5: (6, 15), 6: (4, 5), 7: (2, -5), 8: (0, -15)}
    # 1 beat 2, 3 beat 4, 2 beat 4, 3 beat 1.
    games = [
        Game((1, 2), (121, 100), 121, 1, lurch_line=91),
        Game((3, 4), (121, 110), 121, 3, lurch_line=91),
        Game((2, 4), (121, 120), 121, 2, lurch_line=91),
        Game((1, 3), (100, 121), 121, 3, lurch_line=91),
    ]
    lines = standings.standings([1, 2, 3, 4], games, [], {})
    # Points: 3 has 4; 1 and 2 have 2 each; 4 has 0. Buchholz: 1 met 2 (2) and 3 (4): 6; 2 met 1 (2) and
    # 4 (0): 2. So 1 is above 2.
    assert [(ln.player, ln.points, ln.buchholz) for ln in lines] == [
        (3, 4, 2),
        (1, 2, 6),
        (2, 2, 2),
        (4, 0, 6),
    ]
