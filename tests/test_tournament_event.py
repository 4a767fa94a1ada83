"""A tournament's steps from sign-up to the final standings, with every game played by the real engines and
computer players at every seat (seeded), the event stored and read back after every step as a restart
would read it, and the standings checked against a count written here, independently of
``bot.services.tournaments.standings``."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

import pytest

from bot.ai import bhargage as ai_bh
from bot.ai import cribbage as ai_cr
from bot.ai import deluxe as ai_dx
from bot.rules import bhargage, cribbage, deluxe
from bot.services.tournaments.event import LURCH_LINES, Event, GameDone, Match, Settings, TournamentError
from bot.services.tournaments.stored import doc_of, event_of

RULES: dict[str, Any] = {
    "bhargage": (bhargage, ai_bh),
    "cribbage": (cribbage, ai_cr),
    "deluxe": (deluxe, ai_dx),
}


def played(event: Event, m: Match, seed: int) -> GameDone:
    """One game of match ``m``, every seat a computer player (easy: quick, and still a real game)."""
    rules, ai = RULES[event.settings.game]
    options = rules.Options.from_dict(event.settings.options)
    rng = random.Random(seed)
    state, _ = rules.start(seed, len(m.players), options)
    while not rules.is_over(state):
        seat = rules.waiting_for(state)[0]
        state, _ = rules.apply(state, ai.choose(rules.view(state, seat), rng, "easy"))
    result = rules.final_result(state)
    lurch = LURCH_LINES.get(options.target) if event.settings.game == "cribbage" else None
    winner = m.players[result.winners[0]]
    return GameDone(m.players, tuple(result.scores), options.target, winner, "played", lurch)


def restarted(event: Event) -> Event:
    """The event as a restarted process reads it from the store: JSON text and back."""
    again = event_of(json.loads(json.dumps(doc_of(event))))
    assert doc_of(again) == doc_of(event)
    return again


def run(event: Event, seed: int) -> Event:
    """Play the event to its end, one game at a time in a seeded order, a restart after every step."""
    rng = random.Random(seed)
    todo = event.start()
    event = restarted(event)
    n = 0
    while todo:
        m = todo.pop(rng.randrange(len(todo)))
        busy = [p for other in todo for p in other.players]
        assert not set(m.players) & set(busy), "a player sits in one match at a time"
        n += 1
        todo += event.record(m.key, played(event, event.match(m.key), seed * 1000 + n))
        event = restarted(event)
    assert event.status == "finished"
    return event


def hand_count(event: Event) -> dict[int, tuple[int, int, int]]:
    """(match points, Buchholz, spread) per player, counted from the games as the docs describe them."""
    points: dict[int, int] = defaultdict(int)
    spread: dict[int, int] = defaultdict(int)
    met: dict[int, list[int]] = defaultdict(list)
    for matches in event.rounds:
        for m in matches:
            if len(m.players) == 1:
                points[m.players[0]] += 2
            for g in m.games:
                for p in g.players:
                    met[p] += [q for q in g.players if q != p]
                if len(g.players) == 2:
                    loser = next(p for p in g.players if p != g.winner)
                    lost = g.scores[g.players.index(loser)]
                    margin = 0 if g.how == "awarded" else g.target - lost
                    skunk = g.lurch_line is not None and g.how != "awarded" and lost < g.lurch_line
                    points[g.winner] += 3 if skunk else 2
                    spread[g.winner] += margin * (2 if skunk else 1)
                    spread[loser] -= margin * (2 if skunk else 1)
                else:
                    size = len(g.players)
                    for p, score in zip(g.players, g.scores, strict=True):
                        better = sum(1 for s in g.scores if s > score)
                        place = 2 if p != g.winner and better == 0 else better + 1
                        points[p] += {3: (6, 3, 0), 4: (6, 4, 2, 0)}[size][place - 1]
                        spread[p] += int((score - sum(g.scores) / size) // 1)
    return {
        e.user_id: (points[e.user_id], sum(points[q] for q in met[e.user_id]), spread[e.user_id])
        for e in event.entrants
    }


def field(game: str, fmt: Any, n: int, **settings: Any) -> Event:
    event = Event(Settings(f"Spring {fmt} 2026", game, fmt, **settings), organiser_id=1)
    for i in range(n):
        event.join(100 + i, f"player {i}", rating=1500.0 + 10 * ((i * 7) % n))
    return event


@pytest.mark.parametrize("seed", [1, 2])
def test_a_twelve_player_bhargage_swiss_of_four_rounds(seed: int) -> None:
    event = run(field("bhargage", "swiss", 12, options={"target": 61}, rounds=4), seed)
    assert len(event.rounds) == 4 and all(len(r) == 6 for r in event.rounds)
    pairs = [frozenset(m.players) for r in event.rounds for m in r]
    assert len(set(pairs)) == len(pairs), "no rematch while one is avoidable"
    counted = hand_count(event)
    lines = event.lines()
    assert {ln.player: (ln.points, ln.buchholz, ln.spread) for ln in lines} == counted
    keys = [counted[ln.player] for ln in lines]
    assert keys == sorted(keys, key=lambda k: (-k[0], -k[1], -k[2])), "points, then Buchholz, then spread"
    assert sum(k[0] for k in keys) == 2 * 24, "Bhargage has no lurch: 2 points a game"


def test_an_eight_player_cribbage_knockout_best_of_three() -> None:
    event = run(field("cribbage", "knockout", 8, options={"target": 61}, best_of=3), 5)
    assert [len(r) for r in event.rounds] == [4, 2, 1]
    for r in event.rounds:
        for m in r:
            assert m.winner is not None and m.wins(m.winner) == 2 and 2 <= len(m.games) <= 3
            loser = next(p for p in m.players if p != m.winner)
            assert m.wins(loser) == len(m.games) - 2
    # seeded by rating: the top two seeds can meet only in the final
    ranked = sorted(event.entrants, key=lambda e: -e.rating)
    first = {frozenset(m.players) for m in event.rounds[0]}
    assert frozenset((ranked[0].user_id, ranked[7].user_id)) in first
    champion = event.rounds[-1][0].winner
    places = dict(event.places())
    assert places[champion] == 1 and sorted(places.values()) == [1, 2, 3, 3, 5, 5, 5, 5]
    assert [m.winner for m in event.rounds[1]] == list(event.rounds[2][0].players)


def test_a_ten_player_deluxe_event_at_tables_of_three_and_four() -> None:
    event = run(field("deluxe", "swiss", 10, options={"target": 30}, rounds=2, least=3, most=4), 3)
    assert [sorted(len(m.players) for m in r) for r in event.rounds] == [[3, 3, 4]] * 2
    for r in event.rounds:
        seated = [p for m in r for p in m.players]
        assert sorted(seated) == sorted(e.user_id for e in event.entrants)
    counted = hand_count(event)
    assert {ln.player: (ln.points, ln.buchholz, ln.spread) for ln in event.lines()} == counted
    after_one = event_of(doc_of(event))
    after_one.rounds.pop()
    leaders = [ln.player for ln in after_one.lines()][:4]
    assert set(event.rounds[1][0].players) == set(leaders), "round 2's first table is round 1's leaders'"


def test_an_odd_round_robin_gives_each_player_one_bye() -> None:
    event = run(field("bhargage", "round_robin", 5, options={"target": 31}), 9)
    assert len(event.rounds) == 5
    assert sorted(event.byes()) == sorted(e.user_id for e in event.entrants)
    pairs = [frozenset(m.players) for r in event.rounds for m in r if len(m.players) == 2]
    assert len(pairs) == 10 == len(set(pairs))


def test_the_organisers_steps_and_their_refusals() -> None:
    event = field("cribbage", "swiss", 5, options={"target": 61}, rounds=3)
    with pytest.raises(TournamentError, match="joined") as err:
        event.join(100, "again", 1500.0)
    assert err.value.msgid == "tournament.refuse.joined"
    todo = event.start()
    assert len(todo) == 2 and len(event.byes()) == 1
    with pytest.raises(TournamentError) as err:
        event.join(999, "late", 1500.0)
    assert err.value.msgid == "tournament.refuse.signup-closed"
    m = todo[0]
    opened, closing = event.award(m.key, m.players[1])
    assert opened == [] and closing is None and m.winner == m.players[1]
    with pytest.raises(TournamentError) as err:
        event.award(m.key, m.players[0])
    assert err.value.msgid == "tournament.refuse.decided"
    with pytest.raises(TournamentError) as err:
        event.record(m.key, GameDone(m.players, (61, 20), 61, m.players[0]))
    assert err.value.msgid == "tournament.refuse.decided"
    # a drop awards the open match to the opponent and the next round pairs without the dropped player
    other = todo[1]
    dropped = other.players[0]
    other.game_id = 77  # its table is open
    opened, closing = event.drop(dropped)
    assert closing == [77] and other.game_id is None, "the awarded match's table is closed"
    assert other.winner == other.players[1] and len(event.rounds) == 2 and len(opened) == 2
    assert all(dropped not in mm.players for mm in event.current) and event.current[0].players != (dropped,)
    # re-pairing the round while none of its games has finished pairs the same players again
    again, closing = event.repair()
    assert closing == [] and {mm.players for mm in again} == {mm.players for mm in opened}
    event.pause()
    first, second = again
    assert event.record(first.key, played(event, first, 4)) == [], "a paused event opens nothing"
    assert event.resume() == [second]
    last = event.record(second.key, played(event, second, 5))
    assert [mm.round for mm in last] == [3] * len(last)
    assert event.end() == [] and event.status == "finished"
    with pytest.raises(TournamentError) as err:
        event.end()
    assert err.value.msgid == "tournament.refuse.over"
    with pytest.raises(TournamentError) as err:
        event.leave(100)
    assert err.value.msgid == "tournament.refuse.over", "nobody leaves an event that is over"


def test_one_player_cannot_start_and_a_stored_event_is_read_strictly() -> None:
    event = field("bhargage", "swiss", 1)
    with pytest.raises(TournamentError) as err:
        event.start()
    assert err.value.msgid == "tournament.refuse.too-few"
    doc = doc_of(event)
    for broken in (
        {**doc, "v": 2},
        {**doc, "status": "won"},
        {**doc, "entrants": [[100, "x", "1500", False]]},
        {**doc, "organiser_id": True},
    ):
        with pytest.raises(ValueError):
            event_of(broken)


@pytest.mark.parametrize(("players", "seed"), [(8, 1), (6, 2), (5, 3)])
def test_a_double_knockout_puts_a_player_out_after_two_lost_matches(players: int, seed: int) -> None:
    event = run(field("cribbage", "double_knockout", players, options={"target": 61}), seed)
    lost: dict[int, int] = defaultdict(int)
    for r in event.rounds:
        seated = [p for m in r for p in m.players]
        assert len(seated) == len(set(seated)), "one match a round each"
        for m in r:
            assert all(lost[p] < 2 for p in m.players), "nobody plays on after two lost matches"
            for p in m.players:
                lost[p] += m.loses(p)
    champion = next(p for p, place in event.places() if place == 1)
    assert lost[champion] <= 1 and all(lost[e.user_id] == 2 for e in event.entrants if e.user_id != champion)
    matches = sum(1 for r in event.rounds for m in r if len(m.players) == 2)
    assert matches in (2 * players - 2, 2 * players - 1), "every loss a match: the final reset or not"
    places = dict(event.places())
    assert sorted(places.values())[:2] == [1, 2]
