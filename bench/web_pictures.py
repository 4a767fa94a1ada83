"""Screenshots of each game's table as a watcher's browser shows it and as its seated player sees it in
the Activity, and the pages' heights.

The real bot runs on the fake Discord (``tests/fakediscord``) with its pages on a free port; a game of each
kind is stored mid-play, as the bot stores one (its own players' moves, the last made ``IDLE`` seconds ago),
and Debian's headless chromium (``tests/browser.py``, the one the browser tests use) opens its live link at
360×740 (a phone) and 1280×800 (a desktop), waits for the socket to bring the table, and takes the whole
page. Then the same table in the Activity, seen by the player it waits for: the browser plays Discord's
client at ``https://discord.com`` framing the Activity and Discord's proxy (as
``tests/test_activity_browser.py`` does), the frame filling the window, as Discord's client shows it.
Written to ``docs/pictures/web/<game>-<players>p-<width>.png`` and ``…-activity-<width>.png``; printed:
each page's height in CSS px.

    python -m bench.web_pictures [--out docs/pictures/web] [--heights-only]

``--heights-only`` takes no pictures (the figures alone: the issue's "over 2,000 px" is the 4-player Deluxe
table at 1280 px).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from bench.bench_load import running_bot
from bot.edge.app import TavernBot
from bot.games import GAMES
from bot.settings import Settings
from bot.store.records import NewAction, NewGame
from tests import debian
from tests.browser import Chromium, find_chromium
from tests.fakediscord import CLIENT_SECRET, FAKE_TOKEN, FakeDiscord, FakeUser
from tests.test_activity_browser import in_frame, launch, setup_for

ROOT = Path(__file__).resolve().parent.parent
SIZES = ((360, 740), (1280, 800))
# (game, players, seed, how far into the game, as a share of its moves): a hand's play under way, a show
# told a little before (Bhargage, Cribbage), melds bound (Deluxe)
TABLES = (("bhargage", 2, 7, 0.42), ("cribbage", 2, 7, 0.45), ("deluxe", 4, 7, 0.55))
NAMES = ("Ann", "Bob", "Cy", "Dee")
IDLE = 42.0  # seconds since the last move: the page counts on from there
# The page is live (its socket brought the table) and has counted the idle time (a page that counts none
# has nothing to wait for).
SHOWN = """() => {
  const live = document.getElementById('status').textContent
    === document.getElementById('table').dataset.live;
  const idle = document.querySelector('.idle-time');
  return live && (!idle || idle.textContent !== '');
}"""


def _moves(game: str, players: int, seed: int, share: float) -> tuple[list[str], int]:
    """The moves of a game the bot's own players play, cut at ``share`` of it (moved on to a seat that is
    waited for alone, so the page has one player to point at); the options' defaults."""
    adapter = GAMES[game]
    rules = adapter.rules
    rng = random.Random(seed)
    state, _ = rules.start(seed, players, rules.Options())
    texts: list[str] = []
    while not rules.is_over(state):
        seat = rules.waiting_for(state)[0]
        action = adapter.ai.choose(rules.view(state, seat), rng, "normal")  # type: ignore[union-attr]
        texts.append(rules.action_text(action))
        state, _ = rules.apply(state, action)
    cut = int(len(texts) * share)
    state, _ = rules.start(seed, players, rules.Options())
    for text in texts[:cut]:
        state, _ = rules.apply(state, rules.parse_action(text))
    while len(rules.waiting_for(state)) != 1 and cut < len(texts) - 1:
        state, _ = rules.apply(state, rules.parse_action(texts[cut]))
        cut += 1
    return texts[:cut], len(texts)


async def _store(
    bot: TavernBot, fake: FakeDiscord, game: str, players: int, seed: int, share: float
) -> tuple[str, str, FakeUser]:
    """The game stored mid-play at a table of its own, its last move ``IDLE`` seconds ago; its live link,
    where it stands, and the player it waits for."""
    texts, total = _moves(game, players, seed, share)
    rules = GAMES[game].rules
    users = [fake.add_user(name) for name in NAMES[:players]]  # a player sits at one table at a time
    seats = [(u.id, u.name) for u in users]
    now = time.time()
    channel = fake.add_channel(game)
    where = channel.id
    new = NewGame(game, fake.guild.id, where, seed, seats, rules.Options().to_dict(), now - 3600)
    game_id = await bot.store.create_game(new)
    for seq, text in enumerate(texts, 1):
        at = now - IDLE - (len(texts) - seq) * 20.0
        await bot.store.append_action(NewAction(game_id, seq, int(text.split()[0]), text, at))
    assert bot.links is not None
    table = await bot.tables.get(game_id)
    waited = users[table.waiting_for()[0]]
    fake.oauth.launch(channel, *users)
    return bot.links.live(game_id, bot.clock()), f"{players} seats, move {len(texts)} of {total}", waited


async def _shoot(chromium: Chromium, url: str, size: tuple[int, int], path: Path | None) -> int:
    """The live page at ``size``, once its socket brought the table: its height, and its picture at
    ``path`` (None: none)."""
    tab = await chromium.open(width=size[0], height=size[1])
    try:
        status = await tab.goto(url)
        assert status == 200, f"{url} answered {status}"
        await tab.wait_for(SHOWN, timeout=15)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            await tab.screenshot(path)
        return int(await tab.evaluate("document.documentElement.scrollHeight"))
    finally:
        await tab.close()


# The Activity is signed in, its table and the seat's panel shown, the player's seat moved to the bottom.
SEATED = """() => {
  const seat = document.getElementById('seat');
  const idle = document.querySelector('.idle-time');
  return seat && !seat.hidden && !!document.querySelector('#felt li.seat.mine')
    && (!idle || idle.textContent !== '');
}"""
FILL = """() => {
  document.body.style.margin = '0';
  const frame = document.getElementById('activity');
  frame.style.display = 'block';
  frame.style.border = '0';
  document.getElementById('forger').style.display = 'none';
  frame.width = innerWidth;
  frame.height = innerHeight;
}"""


async def _seated(
    chromium: Chromium,
    bot: TavernBot,
    fake: FakeDiscord,
    user: FakeUser,
    size: tuple[int, int],
    path: Path | None,
) -> int:
    """The Activity as ``user`` sees it in a window of ``size`` (the frame filling it, as Discord's does; the
    page scrolls inside it): its page's height, and the window's picture at ``path`` (None: none)."""
    instance = next(i for i in fake.oauth.instances.values() if user in i.users)
    tab = await chromium.open(width=size[0], height=size[1])
    try:
        await launch(tab, bot, setup_for(bot, fake, instance.id, user, user))
        await tab.evaluate(FILL)
        await in_frame(tab, SEATED, timeout=15)
        tall = int(await in_frame(tab, "() => document.documentElement.scrollHeight"))
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            await tab.screenshot(path)
        return tall
    finally:
        await tab.settle()
        await tab.close()


async def _pictures(out: Path, heights_only: bool) -> None:
    executable = find_chromium()
    if executable is None:
        debian.install("chromium", lambda: find_chromium() is not None, recommends=True)
        executable = find_chromium()
    if executable is None:
        raise SystemExit("Debian's chromium is missing (apt-get install chromium)")
    chromium = Chromium(executable).start()
    fake = FakeDiscord()
    try:
        with tempfile.TemporaryDirectory(prefix="tavern-pictures-") as tmp:
            db = Path(tmp) / "tavern.sqlite3"
            settings = Settings(
                token=FAKE_TOKEN, db_path=db, web_port=0, bot_delay=0.0, client_secret=CLIENT_SECRET
            )
            async with running_bot(fake, settings) as bot:
                for game, players, seed, share in TABLES:
                    url, where, waited = await _store(bot, fake, game, players, seed, share)
                    for size in SIZES:
                        path = None if heights_only else out / f"{game}-{players}p-{size[0]}.png"
                        tall = await _shoot(chromium, url, size, path)
                        print(f"{game} ({where}) at {size[0]} px: {tall} px tall")
                    for size in SIZES:
                        path = None if heights_only else out / f"{game}-{players}p-activity-{size[0]}.png"
                        tall = await _seated(chromium, bot, fake, waited, size, path)
                        print(
                            f"{game} in the Activity, {waited.name}'s seat, at {size[0]} px: {tall} px tall"
                        )
    finally:
        chromium.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "pictures" / "web")
    parser.add_argument("--heights-only", action="store_true", help="print the heights, take no pictures")
    args = parser.parse_args(argv)
    asyncio.run(_pictures(args.out, args.heights_only))


if __name__ == "__main__":
    main()
