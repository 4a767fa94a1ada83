"""How a whole game reads and clicks: one seeded game of each kind, played through the fake Discord by
players who click what a person would (the hard computer player chooses each move; the player finds it on
their own panel), with the figures the table-flow issue asks for.

Prints, per game: messages posted in the channel and in the game's thread, DMs per player, message edits
(by REST, and through interaction responses), REST requests outside interaction responses per move, and
clicks per turn (a Bhargage turn is one decision: a discard, a cut, a card played; a Deluxe turn runs from a
player's draw to their discard).

    python -m bench.bench_flow [--seed N] [--deluxe-seed N] [--players 3] [--think S] [--games G] [--json]

The bot runs with its production coalescing and attention settings, so ``--think`` matters: flat out, a
table's calls share posts; at a person's pace (``--think 2``) each window holds fewer moves.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import re
import statistics
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from bench.bench_load import _verb, running_bot
from bot.ai import bhargage as bh_ai
from bot.ai import deluxe as dx_ai
from bot.edge.app import TavernBot
from bot.games import Table
from bot.games import deluxe_panel as dx_panel
from bot.rules import bhargage as bh
from bot.rules import deluxe as D
from bot.rules.decktet import Card
from bot.settings import Settings
from tests.fakediscord import FAKE_TOKEN, FakeChannel, FakeDiscord, FakeMessage, FakeUser


@dataclass
class Figures:
    game: str
    hands: int = 0
    moves: int = 0
    channel_messages: int = 0
    thread_messages: int = 0
    dms: dict[str, int] = field(default_factory=dict)
    rest_edits: int = 0
    response_edits: int = 0
    rest_outside: int = 0
    clicks: list[int] = field(default_factory=list)  # per turn
    beyond_binds: list[int] = field(default_factory=list)  # per turn, the clicks that were not one per bind
    routes: Counter[str] = field(default_factory=Counter)
    uploads: int = 0  # requests that carried a picture
    upload_bytes: int = 0
    pictures: Counter[str] = field(default_factory=Counter)  # uploads by file name, edit or new message
    unchanged: int = 0  # edits that uploaded the very picture the message showed already

    def lines(self) -> list[str]:
        per_turn = Counter(self.clicks)
        spread = ", ".join(f"{k} click{'s' if k != 1 else ''}: {n}" for k, n in sorted(per_turn.items()))
        return [
            f"== {self.game}: {self.hands} hands, {self.moves} moves, {len(self.clicks)} turns",
            f"channel messages      {self.channel_messages}",
            f"thread messages       {self.thread_messages}",
            "DMs per player        " + ", ".join(f"{k} {v}" for k, v in self.dms.items()),
            f"edits                 {self.rest_edits} by REST, {self.response_edits} through interactions",
            f"REST outside answers  {self.rest_outside} "
            f"({self.rest_outside / max(self.moves, 1):.2f} per move)",
            f"clicks per turn       mean {statistics.fmean(self.clicks or [0]):.2f}, "
            f"max {max(self.clicks or [0])} ({spread})",
            "REST by route         " + ", ".join(f"{r} {n}" for r, n in self.routes.most_common()),
            f"pictures uploaded     {self.uploads} ({self.uploads / max(self.moves, 1):.2f} per move, "
            f"{self.upload_bytes / 1024 / max(self.moves, 1):.0f} KB per move, "
            f"{self.upload_bytes / 1024 / max(self.uploads, 1):.0f} KB each)",
            "pictures by kind      " + ", ".join(f"{k} {n}" for k, n in self.pictures.most_common()),
            f"pictures re-uploaded  {self.unchanged} (edits uploading the picture shown already)",
            *(
                [f"clicks besides binds  {dict(sorted(Counter(self.beyond_binds).items()))} (turns by count)"]
                if self.beyond_binds
                else []
            ),
        ]


_ID = re.compile(r"\d{6,}")


def _route(method: str, path: str) -> str:
    return f"{method} {_ID.sub('{id}', path.split('/api/v10', 1)[-1])}"


def _arg(custom_id: str | None) -> str:
    parts = (custom_id or "").split(":")
    return parts[5] if len(parts) > 5 else ""


def _live(msg: FakeMessage) -> bool:
    return any(not b.disabled for b in msg.buttons()) or any(not s.disabled for s in msg.selects())


class Player:
    """Clicks through whatever the bot shows one user: their newest live DM panel, else a public message
    with a control for them (a Cut in the channel, say)."""

    think: ClassVar[float] = 0.0  # seconds before each click (``--think``): a person's pace, not a script's

    def __init__(self, fake: FakeDiscord, user: FakeUser, places: list[FakeChannel]) -> None:
        self.fake = fake
        self.user = user
        self.places = places  # the channel and any thread the table plays in
        self.clicks = 0

    def panel(self) -> FakeMessage:
        live = [m for m in self.fake.dms(self.user) if _live(m)]
        if not live:
            raise AssertionError(f"{self.user.name} has no live panel")
        return live[-1]

    def public(self, verb: str) -> FakeMessage | None:
        for place in self.places:
            for m in reversed(self.fake.channel_messages(place)):
                if any(_verb(b.custom_id) == verb and not b.disabled for b in m.buttons()):
                    return m
        return None

    async def press(self, msg: FakeMessage, verb: str, arg: str | None = None) -> FakeMessage:
        found = [
            b
            for b in msg.buttons()
            if _verb(b.custom_id) == verb and (arg is None or _arg(b.custom_id) == arg) and not b.disabled
        ]
        assert found, f"no {verb}:{arg} on {msg!r}: {[b.custom_id for b in msg.buttons()]}"
        self.clicks += 1
        await asyncio.sleep(self.think)
        result = await self.fake.click(self.user, msg, found[0].custom_id or "")
        return result.message

    async def choose(self, msg: FakeMessage, verb: str, values: list[str]) -> FakeMessage:
        for s in msg.selects():
            if _verb(s.custom_id) == verb and set(values) <= set(s.values()):
                self.clicks += 1
                await asyncio.sleep(self.think)
                return (await self.fake.select(self.user, msg, s.custom_id, values)).message
        raise AssertionError(f"no {verb} select offering {values} on {msg!r}")

    def has_select(self, msg: FakeMessage, verb: str, value: str) -> bool:
        return any(_verb(s.custom_id) == verb and value in s.values() for s in msg.selects())


# ------------------------------------------------------------------------------------------ Bhargage


async def _bhargage_move(table: Table, players: list[Player], rng: random.Random) -> None:
    state: bh.State = table.state
    seat = bh.waiting_for(state)[0]
    action = bh_ai.choose(bh.view(state, seat), rng, "hard")
    p = players[seat]
    if isinstance(action, bh.Discard):
        panel = p.panel()
        picked = await p.choose(panel, "pick", [str(c.index) for c in action.cards])
        await p.press(picked, "discard")
    elif isinstance(action, bh.Cut):
        mine = [m for m in p.fake.dms(p.user) if any(_verb(b.custom_id) == "cut" for b in m.buttons())]
        where = mine[-1] if mine and _live(mine[-1]) else p.public("cut")
        assert where is not None, "no Cut button anywhere"
        await p.press(where, "cut")
    else:
        assert isinstance(action, bh.Play)
        await p.press(p.panel(), "play", str(action.card.index))


# ------------------------------------------------------------------------------------------ Deluxe


async def _deluxe_step(table: Table, p: Player, seat: int, rng: random.Random) -> D.Action:
    """Play the hard player's choice through the panel; returns the action."""
    state: D.State = table.state
    view = D.view(state, seat)
    action = dx_ai.choose(view, rng, "hard")
    panel = p.panel()
    hand = view.hand
    await _deluxe_click(p, panel, hand, action)
    return action


async def _deluxe_click(p: Player, panel: FakeMessage, hand: tuple[Card, ...], action: D.Action) -> None:
    if isinstance(action, D.Draw):
        await p.press(panel, "draw")
    elif isinstance(action, D.TakeQueue):
        await p.choose(panel, "take", [str(action.n)])
    elif isinstance(action, D.Done):
        await p.press(panel, "done")
    elif isinstance(action, D.Bind):
        mask = dx_panel.mask_text(dx_panel.mask_of(hand, action.cards))
        if p.has_select(panel, "meld", mask):
            await p.choose(panel, "meld", [mask])
            return
        if any(_verb(b.custom_id) == "build" for b in panel.buttons()):
            panel = await p.press(panel, "build")
        panel = await _pick(p, panel, dx_panel.positions(dx_panel.mask_of(hand, action.cards)))
        await p.press(panel, "bind")
    elif isinstance(action, D.Discard):
        pos = str(dx_panel.mask_of(hand, [action.card]).bit_length() - 1)
        if p.has_select(panel, "toss", pos):
            await p.choose(panel, "toss", [pos])
            return
        panel = await _pick(p, panel, [int(pos)])
        await p.press(panel, "disc")
    else:
        raise AssertionError(f"the bench does not play {action!r}")


async def _pick(p: Player, panel: FakeMessage, wanted: list[int]) -> FakeMessage:
    """The pick-cards menus (one per 25 cards): choose the wanted positions in each menu that has some."""
    for s in [s for s in panel.selects() if _verb(s.custom_id) == "pick"]:
        values = [str(i) for i in wanted if str(i) in s.values()]
        if values:
            p.clicks += 1
            panel = (await p.fake.select(p.user, panel, s.custom_id, values)).message
    return panel


# ------------------------------------------------------------------------------------------ the run


async def _table(bot: TavernBot, channel: FakeChannel) -> Table:
    for table in bot.tables.active_tables():
        if table.channel_id == channel.id:
            return table
    raise AssertionError("no table")


def _places(fake: FakeDiscord, channel: FakeChannel) -> list[FakeChannel]:
    """The channel and its threads. The fake of older trees has no threads: the bench also runs there, to
    print the "before" figures of a change."""
    threads = getattr(fake, "threads", None)
    return [*(threads(channel) if threads is not None else []), channel]


async def _quiet(fake: FakeDiscord) -> None:
    """Until the bot's own moves are made (its tasks ``bots-<table>``: the computer players, and a person's
    forced move, the cut and an only card, which the bot makes for them by default) and Discord caught up:
    the next move read from the table is then a person's."""
    while tasks := [t for t in asyncio.all_tasks() if t.get_name().startswith("bots-") and not t.done()]:
        await asyncio.gather(*tasks, return_exceptions=True)
    await fake.settle()


async def _finished(bot: TavernBot, table_id: int) -> Table:
    return await bot.tables.get(table_id)


async def play_bhargage(
    fake: FakeDiscord, bot: TavernBot, channel: FakeChannel, users: list[FakeUser], seed: int, target: int
) -> Figures:
    a, b = users
    bot.lobbies.seed_source = lambda: seed
    made = await fake.slash(a, channel, "bhargage challenge", opponent=b, target=target)
    start = len(fake.requests)
    await fake.click(b, made.message, "Accept")
    table = await _table(bot, channel)
    players = [Player(fake, u, _places(fake, channel)) for u in (a, b)]
    rng = random.Random(seed)
    clicks: list[int] = []
    while table.status == "active":
        before = [p.clicks for p in players]
        seat = bh.waiting_for(table.state)[0]
        await _bhargage_move(table, players, rng)
        clicks.append(players[seat].clicks - before[seat])
        await _quiet(fake)
        table = await _finished(bot, table.id)
        for p in players:
            p.places = _places(fake, channel)
    figures = _figures(fake, "Bhargage", channel, [a, b], start, table)
    figures.hands = table.state.hand_no
    figures.clicks = clicks
    return figures


async def play_deluxe(
    fake: FakeDiscord, bot: TavernBot, channel: FakeChannel, users: list[FakeUser], seed: int, target: int
) -> Figures:
    bot.lobbies.seed_source = lambda: seed
    lobby = (await fake.slash(users[0], channel, "deluxe create", target=target)).message
    for u in users[1:]:
        await fake.click(u, lobby, "Join")
    start = len(fake.requests)
    await fake.click(users[0], lobby, "Start")
    table = await _table(bot, channel)
    players = [Player(fake, u, _places(fake, channel)) for u in users]
    rng = random.Random(seed)
    clicks: list[tuple[int, int]] = []  # per turn: (clicks, binds)
    current: tuple[int, int] | None = None  # (seat, clicks at the turn's start)
    binds = 0
    while table.status == "active":
        state: D.State = table.state
        seat = state.turn
        if current is None or current[0] != seat or state.phase == D.Phase.DRAW:  # a turn starts with a draw
            if current is not None:
                clicks.append((players[current[0]].clicks - current[1], binds))
            current, binds = (seat, players[seat].clicks), 0
        action = await _deluxe_step(table, players[seat], seat, rng)
        binds += isinstance(action, D.Bind)
        await _quiet(fake)
        table = await _finished(bot, table.id)
    if current is not None:
        clicks.append((players[current[0]].clicks - current[1], binds))
    figures = _figures(fake, "Bharg Deluxe", channel, users, start, table)
    figures.hands = table.state.hand_no
    figures.clicks = [c for c, _ in clicks if c]
    figures.beyond_binds = [c - b for c, b in clicks if c]
    return figures


def _figures(
    fake: FakeDiscord, game: str, channel: FakeChannel, users: list[FakeUser], start: int, table: Table
) -> Figures:
    f = Figures(game, moves=table.seq)
    every = list(fake.messages.values())
    threads = {c.id for c in _places(fake, channel) if c is not channel}
    f.channel_messages = sum(1 for m in every if m.channel is channel and not m.ephemeral)
    f.thread_messages = sum(1 for m in every if m.channel.id in threads and not m.ephemeral)
    for u in users:
        dm = fake.dm_channel(u)
        f.dms[u.name] = sum(1 for m in every if m.channel is dm)
    for method, path, _status in fake.requests[start:]:
        inside = "/interactions/" in path or "/webhooks/" in path
        if method == "PATCH" and "/messages/" in path:
            if inside:
                f.response_edits += 1
            else:
                f.rest_edits += 1
        if not inside:
            f.rest_outside += 1
            f.routes[_route(method, path)] += 1
    f.response_edits += sum(1 for it in fake.interactions if it.callback_type == 7)
    sent = [u for u in fake.uploads if u.status < 300]
    f.uploads, f.upload_bytes = len(sent), sum(sum(u.sizes) for u in sent)
    f.pictures = Counter(
        f"{'/'.join(u.filenames)} {'edit' if u.method == 'PATCH' else 'new'}"
        + (" (answer)" if "/interactions/" in u.path or "/webhooks/" in u.path else "")
        for u in sent
    )
    f.unchanged = sum(_unchanged(fake, m) for m in every)
    return f


def _unchanged(fake: FakeDiscord, message: FakeMessage) -> int:
    """How many of the message's edits uploaded a picture of the same name and bytes as the one it showed."""
    states = [s.attachments for s in message.edits] + [message.attachments]
    count = 0
    for before, after in itertools.pairwise(states):
        shown = {a["filename"]: fake.attachment_bytes(a) for a in before}
        old = {a["id"] for a in before}
        count += sum(
            1 for a in after if a["id"] not in old and shown.get(a["filename"]) == fake.attachment_bytes(a)
        )
    return count


async def run(
    seed: int,
    deluxe_seed: int,
    players: int,
    target: int,
    deluxe_target: int,
    games: tuple[str, ...] = ("bhargage", "deluxe"),
) -> list[Figures]:
    out = []
    with tempfile.TemporaryDirectory(prefix="tavern-flow-") as tmp:
        for kind in games:
            settings = Settings(
                token=FAKE_TOKEN,
                db_path=Path(tmp) / f"{kind}.sqlite3",
                log_level="WARNING",
                nudge_minutes=0,
                claim_minutes=0,
                bot_delay=0.0,
                suit_emojis=False,  # made once at the first start: no part of a move
            )
            fake = FakeDiscord()
            n = 2 if kind == "bhargage" else players
            users = [fake.add_user(name) for name in ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")[:n]]
            channel = fake.add_channel(kind)  # known before the bot connects, as a server's channels are
            async with running_bot(fake, settings) as bot:
                if kind == "bhargage":
                    out.append(await play_bhargage(fake, bot, channel, users, seed, target))
                else:
                    out.append(await play_deluxe(fake, bot, channel, users, deluxe_seed, deluxe_target))
            fake.check_healthy()
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7, help="the Bhargage table's seed")
    parser.add_argument("--deluxe-seed", type=int, default=5)
    parser.add_argument("--players", type=int, default=3, help="Deluxe players (2-6)")
    parser.add_argument("--target", type=int, default=121)
    parser.add_argument("--deluxe-target", type=int, default=100)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds each player waits before a click (0: flat out)"
    )
    parser.add_argument("--games", default="bhargage,deluxe", help="which games to play, comma-separated")
    args = parser.parse_args(argv)
    Player.think = args.think
    games = tuple(g.strip() for g in args.games.split(",") if g.strip())
    figures = asyncio.run(
        run(args.seed, args.deluxe_seed, args.players, args.target, args.deluxe_target, games)
    )
    if args.json:
        print(
            json.dumps(
                [{**vars(f), "routes": dict(f.routes), "pictures": dict(f.pictures)} for f in figures],
                indent=1,
            )
        )
        return
    for f in figures:
        print("\n".join(f.lines()))


if __name__ == "__main__":
    main()
