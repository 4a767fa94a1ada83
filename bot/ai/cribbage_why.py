"""Why the Cribbage coach says what it says: the facts a hint names, from the engine's own scoring — what a
keep already scores before the starter, what a card in the play leaves the next players and which ranks
answer it, which part of a lay-away's value puts it first, and the race near the end (who counts first, what
each side needs).

The hint's order is the hard player's (``discard_table``, ``play_advice``); nothing here changes it. No words
either: :mod:`bot.render.cribbage_coach` says these facts in the player's language.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

from bot.ai.counting import NEAR, PlayFacts, Race, greedier, race
from bot.ai.cribbage_discard import DiscardLine
from bot.ai.cribbage_play import PlayAdvice, evaluate
from bot.rules import cribbage as cr
from bot.rules.cribbage_scoring import LIMIT, ScoreItem, ScoreKind, peg_items, set_kind, show_runs, show_total
from bot.rules.pack52 import FULL_PACK, Card, Suit

_SEARCH_NEAR = 61  # as the play search: nearer than this, its choice weighs pegging out

Answer = Literal["value", "rank"]
Next = Literal["opponent", "partner", "nobody"]


@dataclass(frozen=True, slots=True)
class Threat:
    """What the next players score by answering a card: the engine's call (``kind``) and its points, what the
    answering cards share (a value for 15 and 31 — 10 is any ten-card —, a rank for a pair or a run, as
    ``key``) and how many of them this seat has not seen."""

    kind: ScoreKind
    points: int
    answer: Answer
    key: int
    count: int


@dataclass(frozen=True, slots=True)
class PlayWhy(PlayFacts[Card, Threat]):
    """The coach's card in the play and why (:class:`~bot.ai.counting.PlayFacts`), and who plays next
    (``next``: an opponent, this seat's partner, or nobody: no one else can play this count)."""

    next: Next


@dataclass(frozen=True, slots=True)
class KeepWhy:
    """A lay-away's keep: the kept cards, what they score among themselves before the starter, and near the
    end how many of the unseen starters bring their show to this seat's need (of how many)."""

    kept: tuple[Card, ...]
    items: tuple[ScoreItem, ...]
    reach: int | None
    starters: int


def _order(view: cr.SeatView) -> list[int]:
    """The seats in the order the show counts them: from the dealer's left, the dealer last."""
    n = view.players
    return [(view.dealer + k) % n for k in range(1, n + 1)]


def race_of(view: cr.SeatView, near: int = NEAR) -> Race | None:
    """The race, once a side is within ``near`` of the target: this seat's side against the nearest rival."""
    mine = view.sides[view.seat]
    needs = [view.target - s for s in view.scores]
    rivals = [side for side in range(len(needs)) if side != mine]
    rival = min(rivals, key=lambda side: needs[side])
    order = [view.sides[s] for s in _order(view)]
    return race(needs[mine], needs[rival], order.index(mine) < order.index(rival), near)


def _seen(view: cr.SeatView) -> set[Card]:
    seen = {*view.hand, *view.kept, *view.laid_away, *(c for _, c in view.played), *(c for _, c in view.pile)}
    if view.starter is not None:
        seen.add(view.starter)
    return seen


def threats(view: cr.SeatView, card: Card) -> list[Threat]:
    """What the next player could peg by answering ``card`` with a card this seat has not seen, the biggest
    (points times answering cards) first."""
    pile = [*(c for _, c in view.pile), card]
    count = view.count + card.value
    seen = _seen(view) | {card}
    groups: dict[tuple[ScoreKind, Answer, int], int] = {}
    points: dict[tuple[ScoreKind, Answer, int], int] = {}
    for answer in FULL_PACK:
        if answer in seen or count + answer.value > LIMIT:
            continue
        for item in peg_items([*pile, answer]):
            kind = item.kind
            key: tuple[ScoreKind, Answer, int] = (
                (kind, "value", answer.value)
                if kind in ("fifteen", "thirty-one")
                else (kind, "rank", answer.rank)
            )
            groups[key] = groups.get(key, 0) + 1
            points[key] = item.points
    found = [Threat(k[0], points[k], k[1], k[2], n) for k, n in groups.items()]
    found.sort(key=lambda th: (-th.points * th.count, -th.points, th.key))
    return found


def _next_player(view: cr.SeatView) -> int | None:
    """The next seat to play after this one, if any still can."""
    for k in range(1, view.players):
        seat = (view.seat + k) % view.players
        if view.hand_sizes[seat] and not view.gone[seat]:
            return seat
    return None


def play_why(view: cr.SeatView, advice: PlayAdvice, points_best: Card | None = None) -> PlayWhy:
    """The facts the play hint names for the advised card; ``points_best``: the card the same player would
    choose for points alone (None: the hard player's, searched here)."""
    card = advice.card
    plays = [a.card for a in view.legal if isinstance(a, cr.Play)]
    pile = [c for _, c in view.pile]

    def now(c: Card) -> int:
        return sum(it.points for it in peg_items([*pile, c]))

    greedy, greedy_threat = greedier(plays, card, now, partial(threats, view))
    points_pick: Card | None = None
    if min(view.target - s for s in view.scores) <= _SEARCH_NEAR:
        best = points_best or evaluate(view, score_aware=False)[0][1]
        if best.rank != card.rank:
            points_pick = best
    after = _next_player(view)
    mine = threats(view, card)
    nxt: Next = (
        "nobody" if after is None else "partner" if view.sides[after] == view.sides[view.seat] else "opponent"
    )
    return PlayWhy(
        card=card,
        threat=mine[0] if mine and after is not None else None,
        unseen=len(FULL_PACK) - len(_seen(view)),
        held=view.hand_sizes[after] if after is not None else 0,
        next=nxt,
        greedy=greedy,
        greedy_threat=greedy_threat,
        race=race_of(view) if points_pick is None else race_of(view, _SEARCH_NEAR),
        points_pick=points_pick,
    )


def held_items(kept: Sequence[Card]) -> tuple[ScoreItem, ...]:
    """What kept cards score among themselves before the starter, as the show counts them (C5): fifteens,
    pairs, the longest runs, a four-card flush. His nob waits for the starter."""
    items = [
        ScoreItem("fifteen", 2, combo)
        for k in range(2, len(kept) + 1)
        for combo in itertools.combinations(kept, k)
        if sum(c.value for c in combo) == 15
    ]
    by_rank: dict[int, list[Card]] = {}
    for c in sorted(kept, key=lambda c: c.rank):
        by_rank.setdefault(c.rank, []).append(c)
    items += [
        ScoreItem(set_kind(len(group)), len(group) * (len(group) - 1), tuple(group))
        for group in by_rank.values()
        if len(group) >= 2
    ]
    items += show_runs(by_rank)
    suit: Suit = kept[0].suit
    if len(kept) == 4 and all(c.suit is suit for c in kept):
        items.append(ScoreItem("flush", 4, tuple(kept)))
    return tuple(items)


def keep_why(line: DiscardLine, dealt: Sequence[Card], race: Race | None = None) -> KeepWhy:
    """What a lay-away keeps: the cards, what they already score, and near the end how many of the unseen
    starters make their show reach this seat's need."""
    starters = [c for c in FULL_PACK if c not in dealt]
    reach: int | None = None
    if race is not None:
        reach = sum(1 for s in starters if show_total(line.kept, s) >= race.need)
    return KeepWhy(line.kept, held_items(line.kept), reach, len(starters))


def first_part(lines: Sequence[DiscardLine]) -> Literal["hand", "crib"] | None:
    """Which part of its value puts the first lay-away ahead of the second: its hand or the crib."""
    if len(lines) < 2:
        return None
    a, b = lines[0], lines[1]
    return "hand" if a.hand - b.hand >= a.crib - b.crib else "crib"
