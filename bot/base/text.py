"""Small wording helpers shared by every text the bot writes (no Discord, no game rules)."""

from __future__ import annotations

from bot.base.i18n import t

RULES_DOCS = {
    "bhargage": "rules-bhargage.md",
    "deluxe": "rules-deluxe.md",
    "cribbage": "rules-cribbage.md",
}


def rules_link(doc: str, base: str | None = None) -> str:
    """Where the full rules ``doc`` (e.g. "rules-bhargage.md") can be read.

    ``base`` is the operator's ``TAVERN_RULES_URL`` (the published docs/ folder); without it, the file's place
    in the repository.
    """
    if base:
        return f"{base.rstrip('/')}/{doc}"
    return t("general.rules.repository", doc=doc)


def game_rules_link(game: str, base: str | None = None) -> str | None:
    """Where a game's full rules can be read, if the bot has them (see :func:`rules_link`)."""
    doc = RULES_DOCS.get(game)
    return rules_link(doc, base) if doc is not None else None
