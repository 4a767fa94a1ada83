"""Asserting a refusal of the rules by its sentence: a rules error carries an id and data, and reads as the
sentence a player would see through :func:`bot.render.refusals.said`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from bot.render.refusals import said
from bot.rules.errors import RulesError


@contextmanager
def refused(kind: type[RulesError], match: str) -> Iterator[None]:
    """Like ``pytest.raises(kind, match=...)``, matched against the sentence the player reads."""
    with pytest.raises(kind) as err:
        yield
    assert re.search(match, said(err.value)), said(err.value)
