"""The six suit emojis the application owns: made once (the first time the bot starts), found again at every
start, so suits read as the same symbols in every server's messages as on the card pictures.

Application emojis need no server and no permission. Listing them is one request at start; creating them
happens only for names that are missing, so a restart (or a second process) never makes duplicates. While
this runs, and wherever Discord refuses, message text keeps the unicode suit symbols
(:mod:`bot.render.suits`).
"""

from __future__ import annotations

import asyncio
import logging

import discord

from bot import pictures
from bot.render import suits
from bot.rules.decktet import Suit

log = logging.getLogger("tavern.emojis")


async def suit_emojis(client: discord.Client) -> dict[Suit, str]:
    """Each suit's emoji as message text (``<:decktet_moons:…>``), creating the missing ones; a suit Discord
    refused to create is left out (logged)."""
    have = {e.name: e for e in await client.fetch_application_emojis()}
    out: dict[Suit, str] = {}
    for suit, name in suits.EMOJI_NAMES.items():
        emoji = have.get(name)
        if emoji is None:
            try:
                image = await asyncio.to_thread(pictures.suit_icon, suit)
                emoji = await client.create_application_emoji(name=name, image=image)
            except (discord.HTTPException, pictures.PictureError) as err:
                # Another bot process starting at the same moment may have just made it.
                have = {e.name: e for e in await client.fetch_application_emojis()}
                emoji = have.get(name)
                if emoji is None:
                    log.warning("could not create the %s emoji (%s); %s stay unicode", name, err, suit.value)
                    continue
            else:
                log.info("created the application emoji %s", name)
        out[suit] = str(emoji)
    return out


async def load_suit_emojis(client: discord.Client) -> None:
    """Switch message text to the application's suit emojis; on any Discord failure keep unicode."""
    try:
        marks = await suit_emojis(client)
    except discord.HTTPException as err:
        log.warning("could not list the application's emojis (%s); suits are shown in unicode", err)
        return
    suits.use(marks)
