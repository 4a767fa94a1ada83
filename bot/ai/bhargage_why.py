"""Why the Bhargage coach says what it says: the facts a hint names, from the engine's own scoring — what a
keep already scores, what a card in the play leaves the opponent and which unseen cards answer it, which
part of a discard's value puts it first, and the race near the end (who counts first, what each needs).

The hint's order is the hard player's (``discard_table``, ``play_advice``); nothing here changes it. No words
either: :mod:`bot.render.bhargage_coach` says these facts in the player's language.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

from bot.ai.bhargage_cards import MASK, NCARDS, RANK, VAL
from bot.ai.bhargage_discard import DiscardLine
from bot.ai.bhargage_play import PlayAdvice, best_of, evaluate
from bot.ai.counting import NEAR, PlayFacts, Race, greedier, race
from bot.rules import bhargage as bh
from bot.rules.bhargage_scoring import BHARG, ELEVEN, TWENTY_THREE, ScoreItem, count_hand, peg_points
from bot.rules.decktet import ALL_CARDS, Card

_SEARCH_NEAR = 40  # as the play search: nearer than this, its choice weighs pegging out

Answer = Literal["value", "rank", "suits", "run"]
Part = Literal["hand", "bhargage", "shortage", "pegging"]


@dataclass(frozen=True, slots=True)
class Threat:
    """What the opponent scores by answering a card: the engine's call and its points, what the answering
    cards share (``answer``: a value for 11 and 23, a rank for a set or a run, suits for a bharg, as ``key``)
    and those cards among the ones this seat has not seen."""

    reason: str
    points: int
    answer: Answer
    key: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PlayWhy(PlayFacts[Card, Threat]):
    """The coach's card in the play and why (:class:`~bot.ai.counting.PlayFacts`; ``held``: the opponent's
    cards), and whether the opponent can answer at all (it has cards and has not said go)."""

    answers: bool


@dataclass(frozen=True, slots=True)
class KeepWhy:
    """A discard's keep: the 3 kept cards, what they score among themselves before the up-card (the engine's
    items), and near the end how many of the unseen up-cards make their show reach this seat's need."""

    kept: tuple[Card, ...]
    items: tuple[ScoreItem, ...]
    reach: int | None
    ups: int


def race_of(view: bh.SeatView, near: int = NEAR) -> Race | None:
    """The race, once either side is within ``near`` of the target (R9: the non-dealer counts first)."""
    need = view.target - view.scores[view.seat]
    theirs = view.target - view.scores[1 - view.seat]
    return race(need, theirs, view.seat != view.dealer, near)


def _seen(view: bh.SeatView) -> set[int]:
    seen = {c.index for c in (*view.hand, *view.discard)}
    if view.up is not None:
        seen.add(view.up.index)
    seen.update(c.index for _, c in view.pile)
    return seen


def threats(view: bh.SeatView, card: Card) -> list[Threat]:
    """Everything the opponent could score by answering ``card`` with a card this seat has not seen, the
    biggest (points times answering cards) first."""
    pile = [*(c for _, c in view.pile), card]
    count = sum(VAL[c.index] for c in pile)
    seen = _seen(view) | {card.index}
    groups: dict[tuple[str, Answer, int], list[Card]] = {}
    points: dict[tuple[str, Answer, int], int] = {}
    for i in range(NCARDS):
        if i in seen or count + VAL[i] > bh.LIMIT:
            continue
        answer = ALL_CARDS[i]
        for item in peg_points([*pile, answer], sequences=view.sequences):
            key = _key(item.reason, i)
            groups.setdefault(key, []).append(answer)
            points[key] = item.points
    found = [Threat(k[0], points[k], k[1], k[2], tuple(cs)) for k, cs in groups.items()]
    found.sort(key=lambda th: (-th.points * len(th.cards), -th.points, th.key))
    return found


def _key(reason: str, i: int) -> tuple[str, Answer, int]:
    """What the cards that make this call share: a value, a rank, suits, or a rank in a run."""
    if reason in (ELEVEN, TWENTY_THREE):
        return reason, "value", VAL[i]
    if reason == BHARG:
        return reason, "suits", MASK[i]
    if reason.endswith("for a run"):
        return reason, "run", RANK[i]
    return reason, "rank", RANK[i]


def play_why(view: bh.SeatView, advice: PlayAdvice) -> PlayWhy:
    """The facts the play hint names for the hard player's card."""
    card = advice.card
    plays = [a.card for a in view.legal if isinstance(a, bh.Play)]
    pile = [c for _, c in view.pile]

    def now(c: Card) -> int:
        return sum(it.points for it in peg_points([*pile, c], sequences=view.sequences))

    greedy, greedy_threat = greedier(plays, card, now, partial(threats, view))
    points_pick: Card | None = None
    if min(view.target - s for s in view.scores) <= _SEARCH_NEAR:
        _, best, _ = best_of(evaluate(view, score_aware=False))
        if best != card.index:
            points_pick = ALL_CARDS[best]
    mine = threats(view, card)
    unseen = NCARDS - len(_seen(view))
    answers = view.opponent_hand_size > 0 and not view.gone[1 - view.seat]
    return PlayWhy(
        card=card,
        threat=mine[0] if mine and answers else None,
        unseen=unseen,
        held=view.opponent_hand_size,
        answers=answers,
        greedy=greedy,
        greedy_threat=greedy_threat,
        race=race_of(view) if points_pick is None else race_of(view, _SEARCH_NEAR),
        points_pick=points_pick,
    )


def keep_why(
    line: DiscardLine, dealt: Sequence[Card], *, sequences: bool, race: Race | None = None
) -> KeepWhy:
    """What a discard keeps: the 3 cards, what they already score together (counted by the engine as a show
    of 3 cards, without the Chief's Friends, which need the up-card), and near the end how many of the
    unseen up-cards bring this seat's show to its need."""
    kept = tuple(c for c in dealt if c not in line.cards)
    items = count_hand(kept[:2], kept[2], bhargage=True, sequences=sequences).items
    reach: int | None = None
    taken = {c.index for c in dealt}
    ups = [c for c in ALL_CARDS if c.index not in taken]
    if race is not None:
        reach = sum(1 for up in ups if count_hand(kept, up, sequences=sequences).total >= race.need)
    return KeepWhy(kept, tuple(items), reach, len(ups))


def first_part(lines: Sequence[DiscardLine]) -> Part | None:
    """Which part of its value puts the first discard ahead of the second: the part where it gains most
    (its show, the bhargage, the shortages or the play); None when there is no second."""
    if len(lines) < 2:
        return None
    a, b = lines[0], lines[1]
    gains: dict[Part, float] = {
        "hand": a.hand - b.hand,
        "bhargage": a.bhargage - b.bhargage,
        "shortage": a.shortage - b.shortage,
        "pegging": a.pegging - b.pegging,
    }
    return max(gains, key=lambda part: gains[part])
