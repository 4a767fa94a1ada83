"""Slash commands in the player's language: names, descriptions and choices come from the message catalog.

Cogs write ``cmd("cmd.bhargage.challenge")`` wherever discord.py takes a command's, option's or choice's name
or description: the English text becomes what Discord shows by default, and :class:`CatalogTranslator` gives
Discord the other languages' text when the tree is synced (``name_localizations`` and friends). A
translation that breaks Discord's rules for names (1–32 characters, lowercase, letters, digits, ``-`` and
``_``) or descriptions (1–100 characters) is left out with a warning, so a sync never fails on one.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.base.i18n import ENGLISH, LANGUAGES, catalog, speaking, t

log = logging.getLogger("tavern.translator")

NAME = re.compile(r"^[-_\w]{1,32}$")
NAMES = (Where.command_name, Where.group_name, Where.parameter_name)
DESCRIPTION_LIMIT = 100
MENU_NAME_LIMIT = 32
CHOICE_LIMIT = 100


def cmd(msgid: str) -> app_commands.locale_str:
    """A command's name, description, option or choice: the English text, carrying its id for translation."""
    with speaking(ENGLISH):
        text = t(msgid)
    return app_commands.locale_str(text, msgid=msgid)


def fits(text: str, where: Where, *, menu: bool = False) -> bool:
    """Whether ``text`` obeys Discord's rules for what it names (a context menu's name: 1-32 characters,
    any case, spaces too)."""
    if menu:
        return 1 <= len(text) <= MENU_NAME_LIMIT
    if where in NAMES:
        return bool(NAME.match(text)) and text == text.lower()
    limit = CHOICE_LIMIT if where is Where.choice_name else DESCRIPTION_LIMIT
    return 1 <= len(text) <= limit


def localized(
    text: str | app_commands.locale_str, language: str, where: Where, *, menu: bool = False
) -> str | None:
    """A command's name or description in ``language``: its catalog text when it carries an id and the text
    fits Discord's rules for ``where`` (a misfit is logged and left out); None otherwise."""
    msgid = text.extras.get("msgid") if isinstance(text, app_commands.locale_str) else None
    entry = catalog(language).entries.get(msgid) if isinstance(msgid, str) else None
    if entry is None:
        return None
    if not fits(entry.forms[0], where, menu=menu):
        log.warning("The %s text of %r does not fit Discord's rules for it: left out", language, msgid)
        return None
    return entry.forms[0]


class CatalogTranslator(app_commands.Translator):
    """Gives Discord each command's text in every language of the catalog (English is the default)."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContext[Any, Any],
    ) -> str | None:
        base = locale.value.split("-")[0]
        if base not in LANGUAGES or base == ENGLISH:
            return None
        menu = isinstance(context.data, app_commands.ContextMenu)
        return localized(string, base, context.location, menu=menu)
