"""The terminal's text and menu (``python -m bot play``): Discord markup made plain, a panel's controls as
numbered choices, and what a typed answer names — numbers, a button's label, or cards by name as players
say them ("soldier", "the Soldier, light keeper", "guardiano", "4s", "4♠", "four of spades")."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.base.i18n import t, tn
from bot.base.panel import Control, Pick, Select
from bot.render import words
from bot.render.cards import find_card
from bot.render.cribbage_words import read_card, short
from bot.render.typed import typed_cards
from bot.rules.decktet import ALL_CARDS
from bot.rules.errors import RulesError
from bot.rules.pack52 import FULL_PACK


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


def command_words(resign_command: str) -> dict[str, tuple[str, ...]]:
    """The words the prompt takes for each command, in English and the player's language."""
    english_resign = f"resign leave {resign_command}"  # i18n: not text
    return {
        "quit": words_for("quit exit q", t("general.play.words.quit")),  # i18n: not text
        "help": words_for("help ?", t("general.play.words.help")),  # i18n: not text
        "board": words_for("board", t("general.play.words.board")),  # i18n: not text
        "hand": words_for("hand panel", t("general.play.words.hand")),  # i18n: not text
        "rules": words_for("rules", t("general.play.words.rules")),  # i18n: not text
        "resign": words_for(english_resign, t("general.play.words.resign")),
        "hint": words_for("hint", t("general.play.words.hint")),  # i18n: not text
    }


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
    """The controls as prompt lines, and what each number means. Disabled buttons are shown unnumbered. A
    menu whose value may be typed (``Select.typed``, a claim in points) is its question, once, and a number
    typed is its value ("2" claims 2); any other choice is numbered after the largest value."""
    lines: list[str] = []
    choices: dict[int, Choice] = {
        int(option.value): Choice(control, option.value)
        for control in controls
        if isinstance(control, Select) and control.typed and not control.disabled
        for option in control.options
        if option.value.isascii() and option.value.isdigit()
    }
    after = max(choices, default=0)
    for control in controls:
        if isinstance(control, Select):
            if control.disabled:
                continue
            if control.typed:
                if control.typed not in lines:
                    lines.append(control.typed)
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
                n = after = after + 1
                choices[n] = Choice(control, option.value)
                mark = "[x] " if option.default else ""
                extra = f" — {option.description}" if option.description else ""
                lines.append(f"  {n:>2}. {mark}{option.label}{extra}")
        elif control.disabled:
            lines.append(t("general.play.not-now", label=control.label))
        else:
            n = after = after + 1
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


@dataclass(frozen=True)
class Deck:
    """A pack whose cards a player may type by name: how a name is read (``UnknownCard`` when it is no card),
    and how a choice's label starts when it is one of its cards (a title, a mark)."""

    read: Callable[[str], Any]
    title: Callable[[Any], str]
    cards: Sequence[Any]


DECKTET = Deck(find_card, words.title, ALL_CARDS)  # "soldier", "il Soldato", "guardiano"
PACK52 = Deck(read_card, short, FULL_PACK)  # "4s", "4♠", "four of spades", "quattro di picche"


def names_card(label: str, card: Any, deck: Deck = DECKTET) -> bool:
    """Whether a choice's label is this card (its title first, and no other card named after it): a card's
    button or menu option, not a meld that starts with it."""
    title, text = folded(deck.title(card)), folded(label)
    if text != title and not text.startswith(title + " "):
        return False
    rest = text[len(title) :]
    return not any(folded(deck.title(other)) in rest for other in deck.cards if other != card)


def deck_of(choices: dict[int, Choice]) -> Deck:
    """The pack the choices' cards are of (the 52-card pack's marks, "4♠ → 14"), else the Decktet."""
    labels = [choice.label for choice in choices.values()]
    if any(names_card(label, c, PACK52) for label in labels for c in FULL_PACK):
        return PACK52
    return DECKTET


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
    cards by name (of the pack the choices hold), one choice each. A refusal (``RulesError``) when a name is
    no card, or no choice or several are that card."""
    wanted = folded(text)
    for n, choice in choices.items():
        if choice.value is None and folded(choice.label) == wanted:
            return [n]
    labelled = by_label(text, choices)
    if labelled is not None:
        return labelled
    picked: list[int] = []
    deck = deck_of(choices)
    for card in typed_cards(text, deck.read):
        matches = [n for n, choice in choices.items() if names_card(choice.label, card, deck)]
        if not matches:
            raise RulesError("general.play.not-a-choice", card=deck.title(card))
        if len(matches) > 1:
            raise RulesError("general.play.which-one", card=deck.title(card))
        picked += matches
    return picked
