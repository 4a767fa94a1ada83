"""The Bhargage coach in words: what to lay away and why (what each keep already scores, what the bhargage
is likely worth, what puts the first choice first), the card to play and why (the threat it leaves and the
cards that answer it, or what a greedier card would leave), and the race near the end.

The options and their order are the hard computer player's (``discard_table``, ``play_advice``); the facts
come from :mod:`bot.ai.bhargage_why`. Each option names the card(s) as the panel shows them, and carries a
:class:`~bot.base.panel.Pick` so the terminal can give its numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bot.ai.bhargage import DiscardLine, PlayAdvice
from bot.ai.bhargage_why import KeepWhy, PlayWhy, Threat, first_part, keep_why
from bot.ai.counting import Race
from bot.ai.odds import chance_held
from bot.base.i18n import both, number, t
from bot.base.panel import Pick
from bot.render import suits, words
from bot.render.bhargage import call_text
from bot.render.hints import Hint, fitted, odds
from bot.rules.bhargage_scoring import ScoreItem
from bot.rules.decktet import Card, Rank, Suit

HINT_LINES = 4  # discard choices the hint lists (of 10): the best few read at a glance on a phone


def kept_text(items: Sequence[ScoreItem]) -> str:
    """What kept cards score among themselves: "6 for bharg and 11 for 2 (×2): 10 in hand", or "nothing
    yet"."""
    if not items:
        return t("bhargage.why.kept-nothing")
    counts = Counter(it.reason for it in items)
    said = [
        call_text(reason) if n == 1 else t("bhargage.why.times", call=call_text(reason), n=n)
        for reason, n in counts.items()
    ]
    return t("bhargage.why.kept", items=both(said), points=sum(it.points for it in items))


def _first_text(lines: Sequence[DiscardLine], part: str | None, dealer: bool) -> str:
    """Why the first discard is first: the part of its value where it gains most on the second."""
    a, b = lines[0], lines[1] if len(lines) > 1 else lines[0]
    if part == "hand":
        return t("bhargage.why.first-hand", points=number(a.hand), next=number(b.hand))
    if part == "bhargage":
        if dealer:
            return t("bhargage.why.first-bhargage-mine", points=number(a.bhargage), next=number(b.bhargage))
        return t("bhargage.why.first-bhargage-theirs", points=number(-a.bhargage), next=number(-b.bhargage))
    if part == "shortage":
        return t("bhargage.why.first-shortage", points=number(a.shortage), next=number(b.shortage))
    if part == "pegging":
        return t(
            "bhargage.why.first-pegging",
            points=number(a.pegging, signed=True),
            next=number(b.pegging, signed=True),
        )
    return ""


def race_text(race: Race) -> str:
    """Who counts first in the show and what each side needs."""
    if race.first:
        return t("bhargage.why.race-first", need=race.need, their=race.their_need)
    return t("bhargage.why.race-second", need=race.need, their=race.their_need)


def _bhargage_text(points: float, dealer: bool) -> str:
    if dealer:
        return t("bhargage.why.bhargage-mine", points=number(points))
    return t("bhargage.why.bhargage-theirs", points=number(points))


def _discard_line(line: DiscardLine, why: KeepWhy, dealer: bool, need: int | None) -> str:
    pair = " + ".join(words.label(c) for c in line.cards)
    kept = both([words.title(c) for c in why.kept])
    bhargage = abs(line.bhargage)
    said = t(
        "bhargage.why.discard-line",
        pair=pair,
        kept=kept,
        keep=kept_text(why.items),
        bhargage=_bhargage_text(bhargage, dealer),
        total=number(line.total),
    )
    if need is not None and why.reach is not None:
        said = t("bhargage.why.reach", line=said, need=need, reach=why.reach, ups=why.ups)
    return said


def discard_hint(
    lines: Sequence[DiscardLine],
    dealt: Sequence[Card],
    *,
    dealer: bool,
    sequences: bool = False,
    race: Race | None = None,
    limit: int = HINT_LINES,
) -> Hint:
    """The coach's discard list: the best ``limit`` choices, each with what it keeps (and what that scores
    already), what the bhargage is likely worth and the points expected in all; the first says why it is
    first; near the end, the race and how often each keep's show reaches what this seat needs."""
    role = t("bhargage.hint.role-dealer") if dealer else t("bhargage.hint.role-not-dealer")
    hint = Hint()
    if sequences:
        hint.add(t("bhargage.hint.discard-head-sequences", role=role))
    else:
        hint.add(t("bhargage.hint.discard-head", role=role))
    if race is not None:
        hint.add(race_text(race))
    part = first_part(lines)
    for i, line in enumerate(lines[:limit]):
        why = keep_why(line, dealt, sequences=sequences, race=race)
        said = _discard_line(line, why, dealer, race.need if race else None)
        if i == 0:
            said = f"**{said}** {_first_text(lines, part, dealer)}".rstrip()
        hint.option(said, Pick("pick", tuple(str(c.index) for c in line.cards)))
    hint.add(t("bhargage.hint.discard-key"))
    return hint


def discard_hint_text(
    lines: Sequence[DiscardLine],
    dealt: Sequence[Card],
    *,
    dealer: bool,
    sequences: bool = False,
    limit: int = HINT_LINES,
) -> str:
    """The discard list as text alone (``/bhargage discard``, where there is no panel to point at), within
    one message."""
    return fitted(lambda n: discard_hint(lines, dealt, dealer=dealer, sequences=sequences, limit=n), limit)


# ---------------------------------------------------------------- the play


def value_name(value: int) -> str:
    """A card value as players say it: "an Ace", "a 5", "a Crown", "a 0 (Pawn, Court or Excuse)"."""
    if value == 1:
        return t("bhargage.why.value-ace")
    if value == 10:
        return t("bhargage.why.value-crown")
    if value == 0:
        return t("bhargage.why.value-zero")
    return t("bhargage.why.value", value=value)


def _rank_name(threat: Threat) -> str:
    card = threat.cards[0]
    if card.rank is Rank.EXCUSE:
        return words.title(card)
    return words.rank(card.rank)


def answer_text(threat: Threat) -> str:
    """The cards that answer a card with this threat: "a 2", "another 7", "a 🌙🍃 card"."""
    if threat.answer == "value":
        return value_name(threat.key)
    if threat.answer == "suits":
        marks = suits.marks(s for i, s in enumerate(Suit) if threat.key >> i & 1)
        return t("bhargage.why.suits", suits=marks)
    if threat.answer == "rank":
        return t("bhargage.why.another", rank=_rank_name(threat))
    return t("bhargage.why.rank", rank=_rank_name(threat))


def threat_text(threat: Threat, unseen: int, held: int) -> str:
    """ "6 for bharg to a 🌙🍃 card (2 of 30 unseen: about 1 in 5 that they hold one)"."""
    chance = chance_held(len(threat.cards), unseen, held)
    return t(
        "bhargage.why.threat",
        call=call_text(threat.reason),
        answer=answer_text(threat),
        n=len(threat.cards),
        unseen=unseen,
        odds=odds(chance),
    )


def play_why_text(why: PlayWhy) -> str:
    """The one reason that matters most for the card: the race when it changed the choice, else what a card
    that scores more now would leave, else the threat this card leaves (or that nothing scores on it)."""
    if why.points_pick is not None and why.race is not None:
        other, race = words.title(why.points_pick), why.race
        return t("bhargage.why.race-choice", other=other, need=race.need, their=race.their_need)
    if why.greedy is not None:
        if why.greedy_threat is None:
            return t("bhargage.why.greedy-safe", other=words.title(why.greedy))
        return t(
            "bhargage.why.greedy",
            other=words.title(why.greedy),
            threat=threat_text(why.greedy_threat, why.unseen, why.held),
        )
    if not why.answers and why.held == 0:
        return t("bhargage.why.no-answer-empty")
    if not why.answers:
        return t("bhargage.why.no-answer-go")
    if why.threat is None:
        return t("bhargage.why.no-threat")
    return t("bhargage.why.leaves", threat=threat_text(why.threat, why.unseen, why.held))


def play_hint(advice: PlayAdvice, why: PlayWhy, count: int) -> Hint:
    """The coach's word in the play: the card, what it scores now, the reason, the rest of the count, and
    near the end the race."""
    card, after = words.title(advice.card), count + advice.card.value
    if advice.now:
        calls = ", ".join(call_text(it.reason) for it in advice.now)
        head = t("bhargage.hint.play-scores", card=card, count=count, after=after, calls=calls)
    else:
        head = t("bhargage.hint.play-nothing", card=card, count=count, after=after)
    hint = Hint()
    hint.picks.append((0, Pick("play", arg=str(advice.card.index))))
    hint.add(head)
    if advice.net >= 0.05:
        rest = t("bhargage.why.play-ahead", net=number(advice.net))
    elif advice.net <= -0.05:
        rest = t("bhargage.why.play-behind", net=number(-advice.net))
    else:
        rest = t("bhargage.why.play-even")
    hint.add(f"{play_why_text(why)} {rest}")
    if why.race is not None:
        hint.add(race_text(why.race))
    return hint
