"""The one error the renderer raises, so callers can fall back to text with a single ``except``."""

from __future__ import annotations


class PictureError(Exception):
    """A picture that cannot be drawn (e.g. a card the renderer does not know): the caller logs it and sends
    text."""
