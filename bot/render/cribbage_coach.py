"""The Cribbage coach in words: the lay-away table (every choice's expected points, best first: its first line
is the hard player's lay-away) and the card the hard player would play, with why."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ai.cribbage import DiscardLine, PlayAdvice
from bot.base.i18n import number, t
from bot.render.cribbage_words import call_text, cards_short, short

HINT_LINES = 5  # choices the Hint lists (of 15 with six cards): the best few read at a glance on a phone


def _line(rank: int, line: DiscardLine) -> str:
    said = t(
        "cribbage.hint.lay-away-line",
        laid=cards_short(line.laid),
        kept=cards_short(line.kept),
        total=number(line.total),
        hand=number(line.hand),
        crib=number(line.crib, signed=True),
    )
    return f"{rank}. {said}"


def discard_text(lines: Sequence[DiscardLine], *, ours: bool, limit: int = HINT_LINES) -> str:
    """The coach's lay-away list: the best ``limit`` choices, each with the points it can be expected to bring
    this hand — the kept hand's show and the crib's (added when the crib is your side's, else taken off)."""
    head = t("cribbage.hint.lay-away-ours") if ours else t("cribbage.hint.lay-away-theirs")
    body = [_line(i, line) for i, line in enumerate(lines[:limit], 1)]
    return "\n".join([head, *body, t("cribbage.hint.lay-away-key")])


def play_text(advice: PlayAdvice, count: int) -> str:
    """The coach's word in the play: the card the strongest bot would play, what it scores, how the rest of
    the play looks after it."""
    card, after = short(advice.card), count + advice.card.value
    if advice.now:
        head = t(
            "cribbage.hint.play-scores", card=card, count=after, calls=", ".join(map(call_text, advice.now))
        )
    else:
        head = t("cribbage.hint.play-nothing", card=card, count=after)
    if advice.net >= 0.05:
        return t("cribbage.hint.play-ahead", head=head, net=number(advice.net))
    if advice.net <= -0.05:
        return t("cribbage.hint.play-behind", head=head, net=number(-advice.net))
    return t("cribbage.hint.play-even", head=head)
