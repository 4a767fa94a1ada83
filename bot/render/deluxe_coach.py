"""Bharg Deluxe's coach as text: every option of one decision, best first, in words a newcomer reads at a
glance — what a draw lets them bind (the same "+N to bind now" as the draw menu) and what it leaves in hand,
what a discard risks with the next player (what is known, and how likely the rest is), why the first option
is first, and the race when going out would end the game.

The options and their order are the hard computer player's (:func:`bot.ai.deluxe.advise`); the facts come
from :mod:`bot.ai.deluxe_why`. Each option on the panel carries a :class:`~bot.base.panel.Pick` so the
terminal can give its numbers; a discard that comes after a bind has none (the menu is redrawn first).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from bot.ai.deluxe_hand import Advice
from bot.ai.deluxe_why import DiscardWhy, Explained, Race, Safety
from bot.base.i18n import both, t, tn
from bot.base.panel import Pick
from bot.render import words
from bot.render.deluxe import card_text, meld_text, points, suit_text
from bot.render.hints import Hint, odds
from bot.render.suits import marks
from bot.rules import deluxe as D
from bot.rules.decktet import Card, Suit

PickOf = Callable[[D.Action], Pick | None]  # how the panel offers an action now (None: it doesn't)

HINT_LINES = 6  # options the hint lists: the best few, so it reads at a glance on a phone


def draw_name(action: D.Action, taken: Sequence[Card]) -> str:
    """A way to draw as the coach names it: "Draw from the deck", "Take 1 (the Savage)", "Take 3 (down to
    the Mill)"."""
    if isinstance(action, D.TakeQueue) and taken:
        if action.n == 1:
            return t("deluxe.hint.take-one", card=words.title(taken[-1]))
        return t("deluxe.hint.take-many", n=action.n, card=words.title(taken[-1]))
    return t("deluxe.hint.deck")


def binds_text(melds: Sequence[D.Meld], *, hand: bool = False) -> str:
    """What a turn binds: "then bind a bharg set and a partial straight (10 in all)"; with ``hand``, what
    the hand binds whatever the deck gives ("your hand binds a bharg set (6 in all)")."""
    kinds = both(melds_said(melds))
    total = sum(points(m.cards) for m in melds)
    if hand:
        return (
            t("deluxe.why.hand-binds", melds=kinds, points=total)
            if melds
            else t("deluxe.why.hand-binds-nothing")
        )
    return t("deluxe.hint.binds", melds=kinds, points=total) if melds else t("deluxe.hint.binds-nothing")


def a_meld(kind: str) -> str:
    """A meld's kind with its article, inside a sentence: "a bharg set", "a partial straight"."""
    if kind == D.COMPLETE:
        return t("deluxe.why.a-complete")
    if kind == D.PARTIAL:
        return t("deluxe.why.a-partial")
    return t("deluxe.why.a-set")


def melds_said(melds: Sequence[D.Meld]) -> list[str]:
    """Melds by kind, counted: ["2 bharg sets", "a partial straight"]."""
    counts = Counter(m.kind for m in melds)
    said = []
    for kind, n in counts.items():
        if n == 1:
            said.append(a_meld(kind))
        elif kind == D.COMPLETE:
            said.append(tn("deluxe.why.completes", n))
        elif kind == D.PARTIAL:
            said.append(tn("deluxe.why.partials", n))
        else:
            said.append(tn("deluxe.why.sets", n))
    return said


def kept_text(kept: Sequence[Card]) -> str:
    """The hand a choice leaves: "5 cards left (9 pts held)", or "you go out"."""
    if not kept:
        return t("deluxe.hint.go-out")
    return t("deluxe.hint.kept", cards=tn("deluxe.cards", len(kept)), points=tn("deluxe.pts", points(kept)))


def gain_text(gain: int) -> str:
    """A take's gain as the draw menu says it: "+4 to bind now", or "nothing more to bind"."""
    return t("deluxe.panel.take-gain", points=gain) if gain else t("deluxe.panel.take-no-gain")


# ---------------------------------------------------------------- a discard's risk


def need_text(safety: Safety) -> Any:
    """The cards that would bind a discard, as a list placeholder: "a 🌙🍃 card and a 🐉🪢 card", "a 6 with
    🍃"."""
    if safety.straight_meld and safety.suit is not None:
        mark = marks((safety.suit,))
        said = [t("deluxe.why.ranked", rank=words.rank(c.rank), suit=mark) for c in safety.cards]
    else:
        said = [t("deluxe.why.suited", suits=marks(c.suits)) for c in safety.cards]
    return both(said)


def _meld_word(safety: Safety) -> str:
    return t("deluxe.why.a-straight") if safety.straight_meld else t("deluxe.why.a-set")


def safety_text(safety: Safety, card: Card, names: Sequence[str]) -> str:
    """What discarding ``card`` risks, saying only what is known: the Ace Pile, a bind anyone or the next
    player can make at once with cards in sight, the chance it binds with cards not seen, or that none can."""
    name = names[safety.seat]
    if safety.kind == "ace":
        return t("deluxe.hint.gift-ace", suit=suit_text(card.suits[0]))
    if safety.kind == "straight":
        return t("deluxe.hint.gift-straight")
    if safety.kind == "queue":
        return t(
            "deluxe.why.queue", cards=both([words.title(c) for c in safety.cards]), meld=_meld_word(safety)
        )
    if safety.kind == "known":
        cards = both([words.title(c) for c in safety.cards])
        return t("deluxe.why.known", name=name, cards=cards, meld=_meld_word(safety))
    if safety.kind == "none":
        return t("deluxe.why.none", name=name)
    if safety.passed is not None:
        card_passed = words.title(safety.passed)
        return t(
            "deluxe.why.chance-passed",
            name=name,
            need=need_text(safety),
            card=card_passed,
            odds=odds(safety.chance),
        )
    return t("deluxe.why.chance", name=name, need=need_text(safety), odds=odds(safety.chance))


def first_text(why: DiscardWhy, names: Sequence[str], seat: int) -> str:
    """Why the first discard beats the second."""
    other = words.title(why.other)
    if why.reason == "even":
        return t("deluxe.why.first-even", other=other)
    if why.reason == "points":
        return t("deluxe.why.first-points", other=other)
    if why.reason == "gift":
        return t("deluxe.why.first-gift", other=other, name=names[seat])
    if why.reason == "ace":
        return t("deluxe.why.first-ace")
    if why.need:
        need = marks(s for i, s in enumerate(Suit) if why.need >> i & 1)
        return t(
            "deluxe.why.first-potential",
            other=other,
            cards=both([words.title(c) for c in why.keeps]),
            need=need,
        )
    return t("deluxe.why.first-keeps", other=other)


def _score(points: int) -> str:
    return str(points).replace("-", "−")  # a true minus sign, as every score the coach says


def race_text(race: Race, names: Sequence[str]) -> str:
    """Going out would end the game: with this seat on top, or with a rival on top."""
    mine, their, name = _score(race.mine), _score(race.their), names[race.rival]
    if race.mine > race.their:
        return t("deluxe.why.race-ahead", mine=mine, their=their, name=name)
    return t("deluxe.why.race-behind", mine=mine, their=their, name=name)


# ---------------------------------------------------------------- the lines


def _draw_line(advice: Advice, why: Explained) -> str:
    action = advice.action
    if isinstance(action, D.TakeQueue):
        option, gain = draw_name(action, advice.taken), gain_text(why.unlocks.get(action.n, 0))
        if not advice.binds:
            return t("deluxe.why.take-line-nothing", option=option, gain=gain, kept=kept_text(advice.kept))
        return t(
            "deluxe.why.take-line",
            option=option,
            gain=gain,
            binds=binds_text(advice.binds),
            kept=kept_text(advice.kept),
        )
    return t("deluxe.why.deck-line", binds=binds_text(advice.binds, hand=True), odds=odds(why.deck_chance))


def _draw_first(advice: Sequence[Advice], why: Explained) -> str:
    """Why the first draw is first: against the deck, or against the best take."""
    first = advice[0].action
    if isinstance(first, D.TakeQueue):
        return t("deluxe.why.first-take", odds=odds(why.deck_chance))
    takes = [a for a in advice[1:] if isinstance(a.action, D.TakeQueue)]
    if not takes:
        return t("deluxe.why.first-deck-alone")
    best = takes[0]
    assert isinstance(best.action, D.TakeQueue)
    return t(
        "deluxe.why.first-deck",
        option=draw_name(best.action, best.taken),
        gain=gain_text(why.unlocks.get(best.action.n, 0)),
        kept=kept_text(best.kept),
    )


def _other_takes(hint: Hint, advice: Sequence[Advice], why: Explained, pick_of: PickOf) -> None:
    """Every other take on offer, consecutive ones of equal gain in one line ("Take 3–7: nothing more to
    bind"): the hard player weighs only takes whose cards it binds, and the hint lists the best few of those,
    but the menu offers them all."""
    weighed = {a.action.n for a in advice if isinstance(a.action, D.TakeQueue)}
    rest = [n for n in sorted(why.unlocks) if n not in weighed]
    runs: list[list[int]] = []
    for n in rest:
        if runs and runs[-1][-1] == n - 1 and why.unlocks[runs[-1][-1]] == why.unlocks[n]:
            runs[-1].append(n)
        else:
            runs.append([n])
    for run in runs:
        gain = gain_text(why.unlocks[run[0]])
        if len(run) == 1:
            take = D.TakeQueue(why.seat, run[0])
            hint.option(t("deluxe.why.take-other", n=run[0], gain=gain), pick_of(take))
        else:
            hint.option(t("deluxe.why.takes-other", first=run[0], last=run[-1], gain=gain))


def _draw_hint(hint: Hint, advice: Sequence[Advice], why: Explained, pick_of: PickOf) -> None:
    shown = list(advice[:HINT_LINES])
    shown += [a for a in advice[HINT_LINES:] if isinstance(a.action, D.Draw)]  # the deck is always on offer
    for i, a in enumerate(shown):
        line = _draw_line(a, why)
        if i == 0:
            line = f"**{line}** {_draw_first(advice, why)}"
        hint.option(line, pick_of(a.action))
    _other_takes(hint, shown, why, pick_of)


def _discard_line(advice: Advice, why: Explained, names: Sequence[str]) -> str:
    action = advice.action
    assert isinstance(action, D.Discard)
    safety = why.safety.get(action.card.index)
    risk = safety_text(safety, action.card, names) if safety is not None and advice.kept else ""
    if not risk:
        return t("deluxe.why.discard-out", card=card_text(action.card), kept=kept_text(advice.kept))
    return t("deluxe.hint.discard-line", card=card_text(action.card), gift=risk, kept=kept_text(advice.kept))


def _turn_hint(
    hint: Hint, advice: Sequence[Advice], why: Explained, names: Sequence[str], pick_of: PickOf
) -> None:
    """A bind step: the melds to bind, then the discards of what they leave (or, in a final bind, Done). A
    discard after a bind names no number: the menu is drawn again once the meld is bound."""
    binds = [a for a in advice if isinstance(a.action, D.Bind)]
    rest = [a for a in advice if not isinstance(a.action, D.Bind)]
    for a in binds:
        line = t("deluxe.hint.bind-line", meld=meld_text(a.binds[0], names, binder=why.seat))
        hint.option(f"**{line}**" if a is advice[0] else line, pick_of(a.action))
    if binds and rest:
        hint.add(t("deluxe.hint.then"))
    elif binds and not why.left:
        hint.add(t("deluxe.why.binds-out"))
    discards = [a for a in rest if isinstance(a.action, D.Discard)]
    for a in rest[: max(1, HINT_LINES - len(binds))]:
        if not isinstance(a.action, D.Discard):
            hint.option(t("deluxe.hint.done-line", kept=kept_text(a.kept)), pick_of(a.action))
            continue
        line = _discard_line(a, why, names)
        if a is discards[0] and why.first is not None:
            line = f"{line} {first_text(why.first, names, why.next)}"
        if a is advice[0]:
            line = f"**{line}**"
        hint.option(line, None if binds else pick_of(a.action))


def hint(advice: Sequence[Advice], why: Explained, names: Sequence[str], pick_of: PickOf) -> Hint:
    """The coach's answer for one decision: the options best first (the first is the hard computer player's
    own choice), each with its reason; the race when going out would end the game."""
    said = Hint()
    if not advice:
        said.add(t("deluxe.hint.none"))
        return said
    drawing = isinstance(advice[0].action, D.Draw | D.TakeQueue)
    said.add(t("deluxe.hint.head-draw") if drawing else t("deluxe.hint.head-turn"))
    if why.race is not None:
        said.add(race_text(why.race, names))
    if drawing:
        _draw_hint(said, advice, why, pick_of)
    else:
        _turn_hint(said, advice, why, names, pick_of)
    return said
