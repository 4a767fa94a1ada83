"""Small wording helpers shared by every text the bot writes (no Discord, no game rules)."""

from __future__ import annotations

from bot.i18n import t

RULES_DOCS = {"bhargage": "rules-bhargage.md", "deluxe": "rules-deluxe.md"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """``plural(1, "game")`` → "1 game", ``plural(2, "game")`` → "2 games"; ``many`` for irregular words.

    English only: player text counts with :func:`bot.i18n.tn` (this stays for code not yet moved to it)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def rules_link(doc: str, base: str | None = None) -> str:
    """Where the full rules ``doc`` (e.g. "rules-bhargage.md") can be read.

    ``base`` is the operator's ``TAVERN_RULES_URL`` (the published docs/ folder); without it, the file's place
    in the repository.
    """
    if base:
        return f"{base.rstrip('/')}/{doc}"
    return t("general.rules.repository", doc=doc)
