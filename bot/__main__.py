"""``python -m bot``: load settings, run until SIGINT/SIGTERM, exit with a readable message on failure."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

import aiohttp
import discord

from bot.app import TavernBot, create_bot
from bot.logging_setup import setup_logging
from bot.settings import MissingTokenError, Settings, SettingsError, load_settings

log = logging.getLogger("tavern.main")

BAD_TOKEN = (
    "Discord rejected the bot token (login failed).\n"
    "Reset it in the Discord Developer Portal (Applications -> your application -> Bot -> Reset Token)\n"
    "and put the new one in .env as DISCORD_TOKEN=..."
)
NO_NETWORK = "Could not reach Discord: check this machine's internet connection and try again"
INTENTS_HELP = (
    "Discord refused a privileged intent. This bot needs none; if you changed the intents, undo that or "
    "enable them in the Developer Portal (Applications -> Bot -> Privileged Gateway Intents)."
)


async def run(settings: Settings, *, bot: TavernBot | None = None, stop: asyncio.Event | None = None) -> int:
    """Run the bot until it stops or ``stop`` is set (SIGINT/SIGTERM set it); returns the exit code."""
    bot = bot or create_bot(settings)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    runner = asyncio.create_task(bot.start(settings.token), name="tavern-bot")
    stopper = asyncio.create_task(stop.wait(), name="tavern-stop")
    try:
        done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if runner not in done:
            log.info("Shutting down")
            await bot.close()
        try:
            await runner
        except discord.LoginFailure:
            print(BAD_TOKEN, file=sys.stderr)
            return 1
        except discord.PrivilegedIntentsRequired:
            print(INTENTS_HELP, file=sys.stderr)
            return 1
        except (aiohttp.ClientConnectionError, OSError) as err:
            print(f"{NO_NETWORK} ({err.__class__.__name__}: {err})", file=sys.stderr)
            return 1
        except Exception:
            log.exception("The bot stopped because of an error")
            return 1
        return 0
    finally:
        stopper.cancel()
        for sig in installed:
            loop.remove_signal_handler(sig)
        await bot.close()


def main() -> int:
    try:
        settings = load_settings()
    except MissingTokenError as err:
        print(err, file=sys.stderr)
        return 2
    except SettingsError as err:
        print(f"Configuration error: {err}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level, secrets=[settings.token])
    try:
        return asyncio.run(run(settings))
    except KeyboardInterrupt:  # a second Ctrl-C while closing
        return 130


if __name__ == "__main__":
    sys.exit(main())
