"""What the players see, built from engine events and views with no Discord objects (so it is easy to
test): message text, and the scenes :mod:`bot.pictures` draws beside it."""

from __future__ import annotations

from functools import partial

from bot import pictures
from bot.panel import Picture


def picture(filename: str, scene: pictures.Scene, alt: str) -> Picture:
    """A scene to draw when its message goes out (the drawing is cached by the scene's value)."""
    return Picture(filename, partial(pictures.draw, scene), alt)
