"""The terminal's text and menu (``python -m bot play``): Discord markup made plain, a panel's controls as
numbered choices, and what a typed answer names — numbers, a button's label, or cards by name ("soldier",
"the Soldier, light keeper")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.base.i18n import t, tn
from bot.base.panel import Control, Pick, Select
from bot.render import words
from bot.render.cards import find_card
from bot.rules.decktet import ALL_CARDS, Card
from bot.rules.errors import RulesError, UnknownCard


def plain_text(text: str, names: dict[int, str]) -> str:
    """Discord markup made readable in a terminal: mentions become names; emphasis, fences and the subtext
    mark ("-# ") go."""
    someone, here, soon = t("general.play.someone"), t("general.play.this-table"), t("general.play.soon")
    text = re.sub(r"<@!?(\d+)>", lambda m: names.get(int(m.group(1)), someone), text)
    text = re.sub(r"<#\d+>", lambda m: here, text)
    text = re.sub(r"<a?(:\w+:)\d+>", r"\1", text)  # custom emoji
    text = re.sub(r"<t:(\d+)(?::\w)?>", lambda m: soon, text)
    text = text.replace("**", "").replace("__", "")
    text = re.sub(r"(?<![\w*])\*(\S(?:[^*\n]*\S)?)\*(?![\w*])", r"\1", text)  # *italics*
    lines = [line.removeprefix("-# ") for line in text.split("\n") if not line.startswith("```")]
    return "\n".join(lines)


def tidy(lines: Sequence[str]) -> list[str]:
    """Lines without blank ones at either end or two in a row."""
    out: list[str] = []
    for line in lines:
        if line.strip() or (out and out[-1].strip()):
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out


def words_for(english: str, local: str) -> tuple[str, ...]:
    """The words a player may type for one command: the English ones and those of the language in force."""
    return tuple(dict.fromkeys([*english.split(), *local.lower().split()]))


@dataclass(frozen=True)
class Choice:
    """A numbered line of the prompt: a button, or one option of a menu."""

    control: Control
    value: str | None = None  # the option's value (menus only)

    @property
    def label(self) -> str:
        if isinstance(self.control, Select):
            return next((o.label for o in self.control.options if o.value == self.value), "")
        return self.control.label


def numbered(controls: Sequence[Control]) -> tuple[list[str], dict[int, Choice]]:
    """The controls as prompt lines, and what each number means. Disabled buttons are shown unnumbered."""
    lines: list[str] = []
    choices: dict[int, Choice] = {}
    for control in controls:
        if isinstance(control, Select):
            if control.disabled:
                continue
            low, high = control.min_values, control.max_values
            if high > 1 and low == high:
                how = tn("general.play.menu.type-n", low)
            elif high > 1 and low == 0:
                how = tn("general.play.menu.type-up-to", high)
            elif high > 1:
                how = t("general.play.menu.type-range", low=low, high=high)
            else:
                how = tn("general.play.menu.type-n", 1)
            lines.append(t("general.play.menu.head", menu=control.placeholder, how=how))
            for option in control.options:
                n = len(choices) + 1
                choices[n] = Choice(control, option.value)
                mark = "[x] " if option.default else ""
                extra = f" — {option.description}" if option.description else ""
                lines.append(f"  {n:>2}. {mark}{option.label}{extra}")
        elif control.disabled:
            lines.append(t("general.play.not-now", label=control.label))
        else:
            n = len(choices) + 1
            choices[n] = Choice(control)
            lines.append(f"  {n:>2}. {control.label}")
    return lines, choices


def numbers_of(pick: Pick, choices: dict[int, Choice]) -> list[int]:
    """The numbers a hint's option has in the printed menu: one per value to choose in its menu, or its
    button's; none when the panel does not offer it now."""
    found: list[int] = []
    for value in pick.values or (None,):
        n = next(
            (
                n
                for n, choice in choices.items()
                if choice.control.verb == pick.verb
                and choice.value == value
                and (value is not None or choice.control.arg == pick.arg)
            ),
            None,
        )
        if n is None:
            return []
        found.append(n)
    return found


def parse_numbers(text: str) -> list[int] | None:
    words = [w for w in re.split(r"[\s,]+", text.strip()) if w]
    if not words or not all(w.isascii() and w.isdigit() and len(w) <= 3 for w in words):
        return None
    return [int(w) for w in words]


def folded(text: str) -> str:
    return " ".join(text.lower().split())


def _card(name: str) -> Card | None:
    if name.isdigit():  # the card parser reads a deck index; here a number is a choice's
        return None
    try:
        return find_card(name)
    except UnknownCard:
        return None


def typed_cards(text: str) -> list[Card]:
    """The cards typed by name (in the language in force or in English, with or without the article),
    separated by commas, "+" or just spaces; ``UnknownCard`` (with the closest names) for a name not read."""
    found: list[Card] = []
    for part in re.split(r"[,+;]", text):
        names = part.split()
        while names:
            for n in range(len(names), 0, -1):
                card = _card(" ".join(names[:n]))
                if card is not None:
                    found.append(card)
                    names = names[n:]
                    break
            else:
                rest = " ".join(names)
                if not rest.isdigit():
                    find_card(rest)  # raises UnknownCard, with the closest names
                raise UnknownCard(rest, ())
    return found


def names_card(label: str, card: Card) -> bool:
    """Whether a choice's label is this card (its title first, and no other card named after it): a card's
    button or menu option, not a meld that starts with it."""
    title, text = folded(words.title(card)), folded(label)
    if text != title and not text.startswith(title + " "):
        return False
    rest = text[len(title) :]
    return not any(folded(words.title(other)) in rest for other in ALL_CARDS if other != card)


def by_label(text: str, choices: dict[int, Choice]) -> list[int] | None:
    """The choices a typed answer names by their labels, whatever the game: each part (between commas, "+"
    or ";") the whole label, or its words before or after the first ("five of hearts" for "5♥ five of
    hearts"), of exactly one choice; None unless every part names one."""
    picked: list[int] = []
    for part in (folded(p) for p in re.split(r"[,+;]", text)):
        if not part:
            return None
        found = [
            n
            for n, choice in choices.items()
            if (label := folded(choice.label)) == part
            or label.endswith(" " + part)
            or label.startswith(part + " ")
        ]
        if len(found) != 1:
            return None
        picked += found
    return picked


def by_name(text: str, choices: dict[int, Choice]) -> list[int]:
    """The choices a typed answer names: a button by its label ("confirm"), choices by their labels, or
    Decktet cards by name, one choice each. A refusal (``RulesError``) when a name is no card, or no choice
    or several are that card."""
    wanted = folded(text)
    for n, choice in choices.items():
        if choice.value is None and folded(choice.label) == wanted:
            return [n]
    labelled = by_label(text, choices)
    if labelled is not None:
        return labelled
    picked: list[int] = []
    for card in typed_cards(text):
        matches = [n for n, choice in choices.items() if names_card(choice.label, card)]
        if not matches:
            raise RulesError("general.play.not-a-choice", card=card)
        if len(matches) > 1:
            raise RulesError("general.play.which-one", card=card)
        picked += matches
    return picked
