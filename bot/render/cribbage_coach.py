"""The Cribbage coach in words: what to lay away and why (what each keep already scores, what the crib is
likely worth, what puts the first choice first), the card to play and why (the threat it leaves and the
ranks that answer it — "a ten-card makes 31" —, or what a greedier card would leave), and the race near the
end.

The options and their order are the hard computer player's (``discard_table``, ``play_advice``); the facts
come from :mod:`bot.ai.cribbage_why`. Each option names the cards as the panel shows them, and carries a
:class:`~bot.base.panel.Pick` so the terminal can give its numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.ai.counting import Race
from bot.ai.cribbage import DiscardLine, PlayAdvice, crib_weight
from bot.ai.cribbage_why import KeepWhy, PlayWhy, Threat, first_part, keep_why
from bot.ai.odds import chance_held
from bot.base.i18n import number, t
from bot.base.panel import Pick
from bot.render.cribbage_words import call_text, cards_short, rank_name, short, show_count
from bot.render.hints import Hint, fitted, odds
from bot.rules.cribbage_scoring import ScoreItem
from bot.rules.pack52 import QUEEN, Card

HINT_LINES = 4  # choices the Hint lists (of 15 with six cards): the best few read at a glance on a phone


def kept_text(items: Sequence[ScoreItem]) -> str:
    """What kept cards score before the starter, counted as players say it: "15 for 2 and a pair for 4"."""
    if not items:
        return t("cribbage.why.kept-nothing")
    return t("cribbage.why.kept", count=show_count(items), points=sum(it.points for it in items))


def race_text(race: Race) -> str:
    """Who counts first in the show and what each side needs."""
    if race.first:
        return t("cribbage.why.race-first", need=race.need, their=race.their_need)
    return t("cribbage.why.race-second", need=race.need, their=race.their_need)


def _crib_text(line: DiscardLine, weight: float) -> str:
    points = number(line.crib / weight)
    return (
        t("cribbage.why.crib-ours", points=points)
        if weight > 0
        else t("cribbage.why.crib-theirs", points=points)
    )


def _first_text(lines: Sequence[DiscardLine], weight: float) -> str:
    """Why the first lay-away is first: its hand, or the crib."""
    part = first_part(lines)
    if part is None:
        return ""
    a, b = lines[0], lines[1]
    if part == "hand":
        return t("cribbage.why.first-hand", points=number(a.hand), next=number(b.hand))
    crib_a, crib_b = number(a.crib / weight), number(b.crib / weight)
    if weight > 0:
        return t("cribbage.why.first-crib-ours", points=crib_a, next=crib_b)
    return t("cribbage.why.first-crib-theirs", points=crib_a, next=crib_b)


def _line(line: DiscardLine, why: KeepWhy, weight: float, need: int | None) -> str:
    said = t(
        "cribbage.why.lay-away-line",
        laid=cards_short(line.laid),
        kept=cards_short(line.kept),
        keep=kept_text(why.items),
        crib=_crib_text(line, weight),
        total=number(line.total),
    )
    if need is not None and why.reach is not None:
        said = t("cribbage.why.reach", line=said, need=need, reach=why.reach, starters=why.starters)
    return said


def discard_hint(
    lines: Sequence[DiscardLine],
    dealt: Sequence[Card],
    *,
    ours: bool,
    players: int = 2,
    race: Race | None = None,
    limit: int = HINT_LINES,
) -> Hint:
    """The coach's lay-away list: the best ``limit`` choices, each with what it keeps (and what that scores
    already), what the crib is likely worth and the points expected in all; the first says why it is first;
    near the end, the race and how often each keep's show reaches what this seat's side needs."""
    weight = crib_weight(players, ours)
    hint = Hint()
    hint.add(t("cribbage.hint.lay-away-ours") if ours else t("cribbage.hint.lay-away-theirs"))
    if race is not None:
        hint.add(race_text(race))
    for i, line in enumerate(lines[:limit]):
        said = _line(line, keep_why(line, dealt, race), weight, race.need if race else None)
        if i == 0:
            said = f"**{said}** {_first_text(lines, weight)}".rstrip()
        hint.option(said, Pick("pick", tuple(str(c.index) for c in line.laid)))
    hint.add(t("cribbage.hint.lay-away-key"))
    return hint


def discard_text(
    lines: Sequence[DiscardLine],
    dealt: Sequence[Card],
    *,
    ours: bool,
    players: int = 2,
    limit: int = HINT_LINES,
) -> str:
    """The lay-away list as text alone (``/cribbage discard``, where there is no panel to point at), within
    one message."""
    return fitted(lambda n: discard_hint(lines, dealt, ours=ours, players=players, limit=n), limit)


# ---------------------------------------------------------------- the play


def answer_text(threat: Threat) -> str:
    """The cards that answer a card with this threat: "any ten-card", "any 5", "another seven"."""
    if threat.answer == "value":
        if threat.key == 10:
            return t("cribbage.why.ten-card")
        if threat.key == 1:
            return t("cribbage.why.any-ace")
        return t("cribbage.why.any-value", value=threat.key)
    if threat.kind == "run":
        return t("cribbage.why.any-rank", rank=rank_name(threat.key))
    if threat.key == QUEEN:
        return t("cribbage.why.another-queen", rank=rank_name(threat.key))
    return t("cribbage.why.another", rank=rank_name(threat.key))


def threat_text(threat: Threat, unseen: int, held: int) -> str:
    """ "31 for 2 to any ten-card (16 of 40 unseen cards: about 4 in 5 they hold one)"."""
    return t(
        "cribbage.why.threat",
        call=call_text(ScoreItem(threat.kind, threat.points, ())),
        answer=answer_text(threat),
        n=threat.count,
        unseen=unseen,
        odds=odds(chance_held(threat.count, unseen, held)),
    )


def play_why_text(why: PlayWhy) -> str:
    """The one reason that matters most: the race when it changed the choice, else what a card that pegs
    more now would leave, else the threat this card leaves (or that nothing pegs on it)."""
    if why.points_pick is not None and why.race is not None:
        other, race = short(why.points_pick), why.race
        return t("cribbage.why.race-choice", other=other, need=race.need, their=race.their_need)
    if why.next == "nobody":
        return t("cribbage.why.alone")
    if why.greedy is not None:
        if why.greedy_threat is None or why.next == "partner":
            return t("cribbage.why.greedy-safe", other=short(why.greedy))
        return t(
            "cribbage.why.greedy",
            other=short(why.greedy),
            threat=threat_text(why.greedy_threat, why.unseen, why.held),
        )
    if why.threat is None:
        return t("cribbage.why.no-threat")
    if why.next == "partner":
        return t("cribbage.why.partner", threat=threat_text(why.threat, why.unseen, why.held))
    return t("cribbage.why.leaves", threat=threat_text(why.threat, why.unseen, why.held))


def play_hint(advice: PlayAdvice, why: PlayWhy, count: int) -> Hint:
    """The coach's word in the play: the card, what it pegs now, the reason, the rest of the play, and near
    the end the race."""
    card, after = short(advice.card), count + advice.card.value
    if advice.now:
        head = t(
            "cribbage.hint.play-scores", card=card, count=after, calls=", ".join(map(call_text, advice.now))
        )
    else:
        head = t("cribbage.hint.play-nothing", card=card, count=after)
    hint = Hint()
    hint.picks.append((0, Pick("play", arg=str(advice.card.index))))
    hint.add(head)
    if advice.net >= 0.05:
        rest = t("cribbage.why.play-ahead", net=number(advice.net))
    elif advice.net <= -0.05:
        rest = t("cribbage.why.play-behind", net=number(-advice.net))
    else:
        rest = t("cribbage.why.play-even")
    hint.add(f"{play_why_text(why)} {rest}")
    if why.race is not None:
        hint.add(race_text(why.race))
    return hint
