"""What a message shows, without Discord: text, an optional embed, and controls.

Game adapters describe panels with these plain values; ``bot.edge.delivery`` turns them into Discord messages.
A control names only its verb, freshness token and argument: the delivery layer adds the address of the
table or lobby it belongs to (``tv:<scope>:<key>:<token>:<verb>[:<arg>]``), so a game never builds custom ids.
A button with a ``url`` is a link (it opens the address, and no press ever comes back to the bot).
A panel may ask to be ``layout``: one container of Discord's layout components, its text in text blocks, its
picture in a gallery and its controls in rows, in its ``accent`` colour. That is how it is drawn on Discord
only; its text, picture and controls are the same values, so every other reader (the terminal, the pages)
reads it unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Literal

Style = Literal["primary", "secondary", "success", "danger"]


@dataclass(frozen=True)
class Button:
    label: str
    verb: str
    token: str = ""
    arg: str = ""
    style: Style = "secondary"
    emoji: str | None = None
    disabled: bool = False
    row: int | None = None
    url: str = ""  # a link button: opens this address (no verb, token or argument; ``style`` unused)


@dataclass(frozen=True)
class Option:
    label: str
    value: str
    description: str | None = None
    default: bool = False


@dataclass(frozen=True)
class Select:
    placeholder: str
    verb: str
    options: tuple[Option, ...]
    token: str = ""
    arg: str = ""
    min_values: int = 1
    max_values: int = 1
    disabled: bool = False
    row: int | None = None
    # Where a player may type the value itself: the options' values are whole numbers (a claim in points), and
    # this is the question to ask for one. A client that numbers its choices (the terminal) asks it instead of
    # numbering these options, so a number typed is the value, never a line's number.
    typed: str = ""

    @property
    def values(self) -> frozenset[str]:
        """The values this menu offers: a client may only send these back."""
        return frozenset(o.value for o in self.options)


Control = Button | Select


@dataclass(frozen=True)
class Pick:
    """One option a hint speaks of, as the panel it answers offers it: the control's verb and the values to
    choose in its menu, or the button's argument. A client that numbers the controls (the terminal) gives
    the option its numbers; Discord's hint names it by its label."""

    verb: str
    values: tuple[str, ...] = ()
    arg: str = ""


@dataclass(frozen=True)
class Embed:
    description: str
    title: str | None = None
    colour: int = 0x1F8B4C


@dataclass(frozen=True)
class Picture:
    """An image sent with a message. ``draw`` makes the PNG only when the message goes out (the renderer
    caches it), so building a panel costs nothing; the text beside it says the same for screen readers and
    for when the picture can't be drawn or sent. ``alt`` is the attachment's description."""

    filename: str
    draw: Callable[[], bytes] = field(compare=False, repr=False)
    alt: str = ""
    # What the picture shows, as a hashable value (its scene): the same key is the same picture, drawn once
    # and never uploaded again to a message that shows it already. None: nothing says so; drawn each time.
    key: Hashable | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Panel:
    """A message: ``content`` and/or ``embed``, an optional ``picture``, plus ``controls`` (none = a message
    with no live controls). ``pings`` are the user ids whose mentions in it notify them: nobody else's do,
    and never a role or everyone. ``layout``: drawn as one container (``accent``: its colour, 0xRRGGBB;
    None: the client's own)."""

    content: str = ""
    embed: Embed | None = None
    controls: tuple[Control, ...] = field(default=())
    picture: Picture | None = None
    pings: tuple[int, ...] = ()
    layout: bool = False
    accent: int | None = None

    def laid_out(self, accent: int | None = None) -> Panel:
        """The same panel as one container, in ``accent`` (or the colour it has)."""
        return replace(self, layout=True, accent=self.accent if accent is None else accent)

    def with_note(self, note: str) -> Panel:
        """The same panel with a line put first (what just happened, where the game is)."""
        if not note:
            return self
        return replace(self, content=f"{note}\n{self.content}" if self.content else note)

    def without_controls(self) -> Panel:
        return replace(self, controls=())
