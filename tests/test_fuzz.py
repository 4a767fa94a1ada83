"""Fuzzing the whole bot through the fake Discord: seeded random sequences of what 3–5 players in one server
(2–3 channels) can send — slash commands with odd options, the controls they can see, old and forged custom
ids, another player's controls, double presses, clicks racing each other, select values no menu offered —
with restarts and clock jumps in between.

After every step the harness checks what must always hold:

* nothing was logged at ERROR;
* every interaction was acknowledged (within the fake's callback deadline: a later callback is refused);
* no user holds a seat at two active tables when one of them is a game that seats a player at one table at a
  time (``GameAdapter.exclusive``, Bhargage), read from the store;
* every live table equals the engine's replay of its stored log, and the store's active games are exactly
  the live tables;
* a seat's private panel (its hand) only ever reached its own user: every panel the adapters draw is
  fingerprinted with its owner, and every message the fake receives or edits is matched against them and
  its viewers (DM recipient, ephemeral viewer, everyone for a channel message).

Each sequence gets a fresh fake Discord, bot and database, so a seed reproduces on its own. Knobs
(environment variables):

* ``FUZZ_SEQUENCES`` (default 120), ``FUZZ_STEPS`` (default 25 per sequence), ``FUZZ_SEED`` (the first seed,
  default 0) or ``FUZZ_SEEDS=3,17`` (exactly these);
* ``FUZZ_AVOID=nonascii,long_ids,races,long_count`` leaves out input families that hit a known bug, so the
  rest can be explored (see ``FAMILIES``);
* ``FUZZ_TRACE=1`` prints every step (use with ``-s`` to reproduce one seed).

The long run: ``FUZZ_SEQUENCES=500 FUZZ_STEPS=40 pytest tests/test_fuzz.py -s`` (about 20,000 interactions).
The test fails listing every distinct failure with the smallest (step, seed) showing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import random
import re
import string
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import discord
import pytest
import yarl

from bot.base.panel import Panel
from bot.edge.app import TavernBot, create_bot
from bot.games import GAMES, Table
from bot.games import bhargage as bhargage_adapter
from bot.games import deluxe as deluxe_adapter
from bot.rules.decktet import ALL_CARDS
from tests.conftest import ErrorLogGuard, make_settings
from tests.fakediscord import (
    Button,
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    InteractionResult,
    Select,
    parse_buttons,
    parse_selects,
)

SEQUENCES = int(os.environ.get("FUZZ_SEQUENCES", "120"))
STEPS = int(os.environ.get("FUZZ_STEPS", "25"))
FIRST_SEED = int(os.environ.get("FUZZ_SEED", "0"))
SEEDS = [int(s) for s in os.environ.get("FUZZ_SEEDS", "").split(",") if s.strip()]
TRACE = os.environ.get("FUZZ_TRACE", "") not in ("", "0")

# Input families a run can leave out (FUZZ_AVOID), each the trigger of a bug found by this harness:
FAMILIES = {
    "nonascii": "non-ASCII characters (digits such as '²' included) in forged custom ids, values and options",
    "long_ids": "digit runs longer than a snowflake (21–41 digits) in forged custom ids and options",
    "races": "two different players' clicks sent at the same moment (e.g. two Accepts by one player)",
    "long_count": "/bhargage count with card lists of more than 200 characters",
    "forged_options": "slash command options no Discord client can send (user ids Discord did not resolve, "
    "integers out of range or of the wrong type)",
}
AVOID = {w.strip() for w in os.environ.get("FUZZ_AVOID", "").split(",") if w.strip()}
assert set(FAMILIES) >= AVOID, f"FUZZ_AVOID knows {sorted(FAMILIES)}, got {sorted(AVOID)}"

NAMES = ["ann", "bob", "cat", "dan", "eve"]
SETTLE_TIMEOUT = 10.0
CARD_WORDS = [c.title for c in ALL_CARDS] + [c.name for c in ALL_CARDS] + [str(i) for i in range(50)]
# The custom ids the bot makes (bot/edge/delivery.py): one that does not fit was forged.
ID_SHAPE = re.compile(
    r"tv:([gl]):[0-9]{1,20}:[0-9a-z\-]{0,24}:([a-z_]{1,16})(?::[0-9a-z.\-]{0,48})?", re.ASCII
)
NON_ASCII_DIGITS = ["²", "١", "٣", "๓", "１", "₂", "߂", "𝟘"]


# ------------------------------------------------------------------------------------------- findings


@dataclasses.dataclass
class Failure:
    kind: str  # error-log | unanswered | divergence | double-seat | wrong-user-hand | fake | hang
    signature: str  # what makes two failures the same one
    seed: int
    step: int
    action: str
    detail: str


@dataclasses.dataclass
class Totals:
    sequences: int = 0
    interactions: int = 0
    steps: int = 0
    error_logs: int = 0
    unanswered: int = 0
    divergences: int = 0
    double_seats: int = 0
    wrong_user_hands: int = 0
    dropped: int = (
        0  # forged ids outside the bot's pattern: discord.py drops them (not counted as unanswered)
    )
    restarts: int = 0
    games_started: int = 0
    games_finished: int = 0
    threads: int = 0  # games' threads opened (odd seeds play with threads on)


def _shape(text: str) -> str:
    """A message with its numbers and quoted values blanked, so one bug gives one signature."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    return re.sub(r"\d+", "N", text)[:160]


def short(value: Any) -> Any:
    """A long string option, shortened for the step's description."""
    if isinstance(value, str) and len(value) > 80:
        return f"{value[:60]}…({len(value)} characters)"
    return value


def error_signature(record: logging.LogRecord) -> str:
    where = ""
    if record.exc_info and record.exc_info[1] is not None:
        exc = record.exc_info[1]
        tb = exc.__traceback__
        last = None
        while tb is not None:
            last = tb
            tb = tb.tb_next
        if last is not None:
            code = last.tb_frame.f_code
            where = f" at {Path(code.co_filename).name}:{code.co_name}"
        where = f" {type(exc).__name__}: {_shape(str(exc))[:80]}{where}"
    message = re.sub(r" by user .*", "", record.getMessage().splitlines()[0])
    return f"{record.name}: {_shape(message)}{where}"


# ------------------------------------------------------------------------------------- hand fingerprints


def fingerprint(content: str | None, description: str | None) -> tuple[str, str]:
    return ((content or "")[:2000], description or "")


class HandWatch:
    """Remembers every seat panel the adapters drew (fingerprint → owners) and checks every message the
    fake Discord receives or edits against them: a panel may only be seen by the users it belongs to."""

    def __init__(self) -> None:
        self.owners: dict[tuple[str, str], set[int]] = {}
        self.leaks: list[str] = []
        self.users: dict[int, str] = {}

    def record(self, table: Table, seat: int, panel: Panel) -> Panel:
        key = fingerprint(panel.content, panel.embed.description if panel.embed else None)
        self.owners.setdefault(key, set()).add(table.user_ids[seat])
        return panel

    def on_message(self, msg: FakeMessage) -> None:
        if msg.deleted:
            return
        desc = msg.embeds[0].get("description") if msg.embeds else None
        owners = self.owners.get(fingerprint(msg.content, desc))
        if not owners:
            return
        if msg.ephemeral:
            viewers = {msg.viewer.id} if msg.viewer is not None else set()
            where = "an ephemeral"
        elif msg.channel.is_dm:
            assert msg.channel.recipient is not None
            viewers = {msg.channel.recipient.id}
            where = "a DM"
        else:
            self.leaks.append(
                f"a seat panel of {self._who(owners)} was posted in channel #{msg.channel.name}, "
                f"where everyone sees it ({msg.source}): {msg.content[:80]!r}"
            )
            return
        wrong = viewers - owners
        if wrong:
            self.leaks.append(
                f"a seat panel of {self._who(owners)} reached {self._who(wrong)} in {where} "
                f"({msg.source}): {msg.content[:80]!r}"
            )

    def _who(self, ids: set[int]) -> str:
        return ",".join(sorted(self.users.get(i, str(i)) for i in ids))


def spy_on_panels(monkeypatch: pytest.MonkeyPatch, watch: HandWatch) -> None:
    """Wrap every function that draws a seat's private panel (both games)."""
    bh_cls = type(bhargage_adapter.ADAPTER)
    original = bh_cls._panel

    def bh_panel(self: Any, table: Table, seat: int, *args: Any, **kwargs: Any) -> Panel:
        return watch.record(table, seat, original(self, table, seat, *args, **kwargs))

    monkeypatch.setattr(bh_cls, "_panel", bh_panel)
    for name in ("turn_panel", "closed_panel"):
        fn = getattr(deluxe_adapter, name)

        def wrapped(table: Table, seat: int, *args: Any, _fn: Callable[..., Panel] = fn, **kw: Any) -> Panel:
            return watch.record(table, seat, _fn(table, seat, *args, **kw))

        monkeypatch.setattr(deluxe_adapter, name, wrapped)


# --------------------------------------------------------------------------------------- one sequence


class Sequence:
    """One seeded run: a fresh fake Discord, bot and database, ``steps`` random steps, checks after each."""

    def __init__(
        self,
        seed: int,
        steps: int,
        tmp: Path,
        monkeypatch: pytest.MonkeyPatch,
        guard: ErrorLogGuard,
        watch: HandWatch,
        totals: Totals,
    ) -> None:
        self.seed, self.steps, self.tmp = seed, steps, tmp
        self.monkeypatch, self.guard, self.watch, self.totals = monkeypatch, guard, watch, totals
        self.rng = random.Random(seed)
        self.game_seeds = random.Random(seed * 7919 + 1)
        self.failures: list[Failure] = []
        self._seen: set[str] = set()
        self.stopped = False
        self.step_no = 0
        self.action = ""
        self.bot: TavernBot | None = None
        self._task: asyncio.Task[None] | None = None
        self.clock_offset = 0.0
        self.game_ids: set[int] = set()
        self.finished_ids: set[int] = set()
        self.received: set[int] = set()  # interaction ids the bot's client dispatched

    # ---------------------------------------------------------------- set-up

    async def run(self) -> list[Failure]:
        await self.open()
        try:
            for step in range(self.steps):
                if self.stopped:
                    break
                self.step_no = step
                await self.one_step()
        finally:
            await self.close()
        return self.failures

    async def open(self) -> None:
        """The fake Discord with the sequence's users and channels, and the bot on a new database."""
        self.fake = FakeDiscord()
        self.fake.quiet = 0.004
        await self.fake.start()
        self.monkeypatch.setattr(discord.http.Route, "BASE", self.fake.api_base)
        self.monkeypatch.setattr(
            discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(self.fake.gateway_url)
        )
        self.watch.leaks.clear()
        self.watch.owners.clear()
        self.fake.listeners.append(self.watch.on_message)
        rng = self.rng
        self.users: list[FakeUser] = []
        for name in NAMES[: rng.randint(3, 5)]:
            user = self.fake.add_user(name, dms_closed=rng.random() < 0.15)
            self.users.append(user)
            self.watch.users[user.id] = name
        self.channels: list[FakeChannel] = [self.fake.channel]
        for i in range(rng.randint(1, 2)):
            self.channels.append(self.fake.add_channel(f"room{i + 2}"))
        self.settings = make_settings(self.tmp, threads=self.seed % 2 == 1)  # odd seeds: a thread per game
        await self.start_bot()

    async def close(self) -> None:
        self.action = "closing the bot"
        try:
            await self.stop_bot()
        finally:
            await self.fake.stop()
        for record in self.guard.take():
            self.totals.error_logs += 1
            self.fail("error-log", error_signature(record), ErrorLogGuard.render(record))
        self.totals.sequences += 1
        self.totals.interactions += len(self.fake.interactions)
        self.totals.games_started += len(self.game_ids)
        self.totals.games_finished += len(self.finished_ids)
        self.totals.threads += sum(len(self.fake.threads(c)) for c in self.channels)

    async def start_bot(self) -> None:
        bot = create_bot(self.settings, guild_ready_timeout=0.01)
        task = asyncio.create_task(bot.start(bot.settings.token), name="fuzz-bot")
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait({task, ready}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            if task in done:
                task.result()
            raise AssertionError("the bot was not ready within 10 s")
        # The checks compare every live table with the store: they start once the tables are restored.
        await asyncio.wait_for(bot.tables.restored(), 10)
        bot.clock.offset = self.clock_offset
        bot.add_listener(self._on_interaction, "on_interaction")
        bot.lobbies.seed_source = lambda: self.game_seeds.randrange(1 << 62)
        self.bot, self._task = bot, task

    async def _on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        self.received.add(interaction.id)

    async def stop_bot(self) -> None:
        bot, task = self.bot, self._task
        self.bot = self._task = None
        if bot is None or task is None:
            return
        self.clock_offset = bot.clock.offset
        await bot.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)

    # ---------------------------------------------------------------- what users can see

    def visible(self, user: FakeUser) -> list[FakeMessage]:
        out = list(self.fake.dms(user)) + self.fake.ephemerals(user)
        for place in self.places():
            out += self.fake.channel_messages(place)
        return out

    def places(self) -> list[FakeChannel]:
        """The channels and the games' threads in them: where users read and type commands."""
        return [*self.channels, *(t for c in self.channels for t in self.fake.threads(c))]

    @staticmethod
    def controls(msg: FakeMessage) -> list[Button | Select]:
        items: list[Button | Select] = [
            b for b in msg.buttons() if b.custom_id is not None and b.url is None and not b.disabled
        ]
        items += [s for s in msg.selects() if not s.disabled]
        return items

    async def waited_users(self) -> list[FakeUser]:
        """Whom something waits for: seats a live table waits on, an open challenge's invited player, an
        open lobby's host (the one who can start it)."""
        assert self.bot is not None
        by_id = {u.id: u for u in self.users}
        ids = []
        for table in self.bot.tables.active_tables():
            ids += [table.user_ids[seat] for seat in table.waiting_for()]
        for lobby in await self.bot.store.open_lobbies():
            ids.append(lobby.invited_id if lobby.invited_id is not None else lobby.host_id)
        return [by_id[i] for i in ids if i in by_id]

    async def busy_users(self) -> list[FakeUser]:
        """Players seated at a live table or invited to an open challenge."""
        assert self.bot is not None
        ids = {uid for t in self.bot.tables.active_tables() for uid in t.user_ids}
        ids |= {lobby.invited_id for lobby in await self.bot.store.open_lobbies() if lobby.invited_id}
        return [u for u in self.users if u.id in ids]

    async def pick_user(self) -> FakeUser:
        waited = await self.waited_users()
        if waited and self.rng.random() < 0.7:
            return self.rng.choice(waited)
        return self.rng.choice(self.users)

    def pick_control(self, user: FakeUser) -> tuple[FakeMessage, Button | Select] | None:
        """Uniform over the controls of the messages ``user`` sees; more often their newest private panel."""
        rng = self.rng
        private = [m for m in [*self.fake.dms(user), *self.fake.ephemerals(user)] if self.controls(m)]
        if private and rng.random() < 0.55:
            msg = max(private, key=lambda m: (m.edited or m.created, m.id))
            return msg, rng.choice(self.controls(msg))
        pairs = [(m, c) for m in self.visible(user) for c in self.controls(m)]
        return rng.choice(pairs) if pairs else None

    def valid_values(self, sel: Select) -> list[str]:
        rng = self.rng
        values = sel.values()
        lo, hi = sel.min_values, min(sel.max_values, len(values))
        if hi < lo:
            return values[:lo]
        k = rng.choice([lo, min(lo + 1, hi), min(lo + 1, hi), rng.randint(lo, hi)])
        return rng.sample(values, k)

    # ---------------------------------------------------------------- sending

    async def send_click(self, user: FakeUser, msg: FakeMessage, ctl: Button | Select) -> None:
        if isinstance(ctl, Button):
            assert ctl.custom_id is not None
            await self.fake.click(user, msg, ctl.custom_id, expect_reply=False, settle=False)
        else:
            values = self.valid_values(ctl)
            await self.fake.select(user, msg, ctl.custom_id, values, expect_reply=False, settle=False)

    async def send_raw(
        self,
        user: FakeUser,
        carrier: FakeMessage | None,
        custom_id: str,
        *,
        component_type: int = 2,
        values: list[str] | None = None,
    ) -> None:
        """A component interaction as a modified client could send it. discord.py only runs the bot's handler
        when the message the interaction carries has a component with that custom id and type, so the carried
        message is a copy of ``carrier`` (what the user sees) showing that one component: as if Discord
        passed on whatever the client claims, the most hostile case."""
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        component: dict[str, Any] = {"type": 2, "style": 1, "label": "x", "custom_id": custom_id}
        if component_type != 2:
            data["values"] = list(values or [])
            options = [{"label": "x", "value": "x"}]
            component = {
                "type": 3,
                "custom_id": custom_id,
                "options": options,
                "min_values": 0,
                "max_values": 1,
            }
        if carrier is None:
            carrier = (
                self.fake.last_message(self.fake.channel)
                if self.fake.channel_messages(self.fake.channel)
                else None
            )
        if carrier is None:
            return
        shown = dataclasses.replace(carrier, components=[{"type": 1, "components": [component]}], edits=[])
        await self.fake.forge(
            3, user, carrier.channel, data, message=shown, description=f"forged {custom_id!r} ({values!r})"
        )

    # ---------------------------------------------------------------- the steps

    async def one_step(self) -> None:
        rng = self.rng
        kinds = {
            "move": 42,
            "slash": 22,
            "stale": 5,
            "forge": 7,
            "wrong_user": 5,
            "double": 5,
            "race": 0 if "races" in AVOID else 5,
            "raw_select": 4,
            "raw_slash": 0 if "forged_options" in AVOID else 3,
            "restart": 2,
            "clock": 2,
        }
        kind = rng.choices(list(kinds), weights=list(kinds.values()))[0]
        before = len(self.fake.interactions)
        self.action = kind
        try:
            await getattr(self, f"step_{kind}")()
        except AssertionError as err:
            self.fail("harness", f"harness:{_shape(str(err))[:60]}", str(err))
        await self.check(before)
        if TRACE:
            print(f"seed {self.seed} step {self.step_no}: {self.action}")
            for it in self.fake.interactions[before:]:
                answer = " | ".join(m.text().replace("\n", " ")[:100] for m in InteractionResult(it).messages)
                print(f"    -> callback {it.callback_type}: {answer}")

    async def step_move(self) -> None:
        user = await self.pick_user()
        found = self.pick_control(user)
        if found is None:
            await self.step_slash()
            return
        msg, ctl = found
        self.action = f"move: {user.name} uses {self._label(ctl)} on {self._where(msg)}"
        await self.send_click(user, msg, ctl)

    async def step_double(self) -> None:
        user = await self.pick_user()
        found = self.pick_control(user)
        if found is None:
            await self.step_slash()
            return
        msg, ctl = found
        self.action = f"double: {user.name} presses {self._label(ctl)} on {self._where(msg)} twice at once"
        if isinstance(ctl, Select):
            values = self.valid_values(ctl)
            await asyncio.gather(
                *(
                    self.fake.select(user, msg, ctl.custom_id, values, expect_reply=False, settle=False)
                    for _ in range(2)
                )
            )
        else:
            assert ctl.custom_id is not None
            cid = ctl.custom_id
            await asyncio.gather(
                *(self.fake.click(user, msg, cid, expect_reply=False, settle=False) for _ in range(2))
            )

    async def step_race(self) -> None:
        """Two or three valid clicks sent at the same moment: one player's different controls (two Accepts,
        Join here and Start there), or different players'."""
        rng = self.rng
        picks: list[tuple[FakeUser, FakeMessage, Button | Select]] = []
        if rng.random() < 0.4:
            # One player answering several challenges or lobbies at once (one control per lobby).
            for user in rng.sample(self.users, len(self.users)):
                per_lobby: dict[str, tuple[FakeMessage, Button | Select]] = {}
                for m in self.visible(user):
                    for c in self.controls(m):
                        found = re.match(r"tv:l:(\d+):.*:(accept|start|join)$", c.custom_id or "")
                        if found:
                            per_lobby.setdefault(found[1], (m, c))
                if len(per_lobby) >= 2:
                    picks = [(user, m, c) for m, c in per_lobby.values()]
                    break
        if picks:
            pass
        elif rng.random() < 0.5:
            user = await self.pick_user()
            pairs = [(m, c) for m in self.visible(user) for c in self.controls(m)]
            lobby = [(m, c) for m, c in pairs if re.match(r"tv:l:.*:(accept|start|join)$", c.custom_id or "")]
            pool = lobby if len(lobby) >= 2 and rng.random() < 0.7 else pairs
            picks = [(user, m, c) for m, c in rng.sample(pool, min(len(pool), rng.randint(2, 3)))]
        else:
            for _ in range(rng.randint(2, 3)):
                user = rng.choice(self.users)
                found = self.pick_control(user)
                if found is not None:
                    picks.append((user, *found))
        if len(picks) < 2:
            await self.step_move()
            return
        self.action = "race: " + "; ".join(f"{u.name} uses {self._label(c)}" for u, _, c in picks)
        await asyncio.gather(*(self.send_click(u, m, c) for u, m, c in picks))

    async def step_stale(self) -> None:
        """A control from an earlier version of a message (before the bot edited it), or an old message's."""
        user = self.rng.choice(self.users)
        olds = []
        for msg in self.visible(user):
            for snap in msg.edits:
                olds += [(msg, c) for c in parse_buttons(snap.components) if c.custom_id and not c.url]
                olds += [(msg, c) for c in parse_selects(snap.components)]
        if not olds:
            await self.step_move()
            return
        msg, ctl = self.rng.choice(olds)
        self.action = f"stale: {user.name} re-sends old {self._label(ctl)} on {self._where(msg)}"
        if isinstance(ctl, Select):
            await self.send_raw(user, msg, ctl.custom_id, component_type=3, values=self.valid_values(ctl))
        else:
            assert ctl.custom_id is not None
            await self.send_raw(user, msg, ctl.custom_id)

    async def step_wrong_user(self) -> None:
        """Another player's private control (DM or ephemeral), sent by someone else on a message they see."""
        owner, other = self.rng.sample(self.users, 2)
        waited = [u for u in await self.waited_users() if u is not owner]
        if waited and self.rng.random() < 0.6:
            other = self.rng.choice(waited)  # the player to move: their own panel gets drawn
        private = [m for m in [*self.fake.dms(owner), *self.fake.ephemerals(owner)] if self.controls(m)]
        if not private:
            await self.step_move()
            return
        msg = self.rng.choice(private)
        ctl = self.rng.choice(self.controls(msg))
        carriers = self.visible(other)
        public = [m for m in carriers if not m.ephemeral and not m.channel.is_dm]
        carrier = self.rng.choice(public if public and self.rng.random() < 0.5 else carriers or [None])
        self.action = (
            f"wrong user: {other.name} sends {owner.name}'s {self._label(ctl)} on "
            f"{self._where(carrier) if carrier else 'no message'}"
        )
        if isinstance(ctl, Select):
            await self.send_raw(
                other, carrier, ctl.custom_id, component_type=3, values=self.valid_values(ctl)
            )
        else:
            assert ctl.custom_id is not None
            await self.send_raw(other, carrier, ctl.custom_id)

    async def step_forge(self) -> None:
        user = self.rng.choice(self.users)
        carriers = self.visible(user)
        carrier = self.rng.choice(carriers) if carriers else None
        cid = self.forged_id()
        if self.rng.random() < 0.3:
            values = [self.junk(self.rng.randint(0, 8)) for _ in range(self.rng.randint(0, 3))]
            self.action = f"forge: {user.name} selects {values!r} in {cid!r}"
            await self.send_raw(user, carrier, cid, component_type=3, values=values)
        else:
            self.action = f"forge: {user.name} clicks {cid!r}"
            await self.send_raw(user, carrier, cid)

    async def step_raw_select(self) -> None:
        """A real select, with values its options do not offer (or too many, or none)."""
        user = await self.pick_user()
        sels = [(m, s) for m in self.visible(user) for s in m.selects()]
        if not sels:
            await self.step_move()
            return
        msg, sel = self.rng.choice(sels)
        rng = self.rng
        pool = [*sel.values(), "", "-1", "99", "0", "1e3", "9" * 30, " 1", "1 ", "0x1", "25", "100"]
        pool += [self.junk(rng.randint(1, 12))]
        values = [rng.choice(pool) for _ in range(rng.choice([0, 1, 1, 2, 3, 30]))]
        self.action = f"raw select: {user.name} sends {values!r} to {self._label(sel)} on {self._where(msg)}"
        await self.fake.select(user, msg, sel.custom_id, values, expect_reply=False, settle=False, force=True)

    async def step_restart(self) -> None:
        self.action = "restart: the bot closes and a new one starts on the same database"
        await self.stop_bot()
        await self.start_bot()
        self.totals.restarts += 1

    async def step_clock(self) -> None:
        assert self.bot is not None
        minutes = self.rng.choice([3, 11, 16, 61, 130])
        self.action = f"clock: {minutes} minutes pass, then the timers run"
        self.bot.clock.advance(minutes * 60)
        await self.bot.controller.timers.run()

    async def step_slash(self) -> None:
        rng = self.rng
        user = rng.choice(self.users)
        channel = rng.choice(self.places())
        game = rng.choice(["bhargage", "deluxe"])
        options: dict[str, Any] = {}
        choices = {
            "challenge": 6,
            "create": 5,
            "hand": 4,
            "board": 2,
            "resign": 1.5,
            "rules": 0.5,
            "count": 2,
            "leaderboard": 1,
            "stats": 1,
            "tavern": 0.5,
        }
        what = rng.choices(list(choices), weights=list(choices.values()))[0]
        if what == "challenge":
            command = "bhargage challenge"
            others = [u for u in self.users if u is not user] if rng.random() < 0.9 else self.users
            busy = [u for u in await self.busy_users() if u is not user]
            if busy and rng.random() < 0.5:
                others = busy  # someone already invited or seated: two answers may then race
            options = {"opponent": rng.choice(others), "target": rng.choice([21, 21, 25, 31, 221])}
            if rng.random() < 0.3:
                options["sequences"] = True
        elif what == "create":
            command = "deluxe create"
            options = {"target": rng.choice([10, 10, 15, 25])}
            for flag in ("pawns", "courts"):
                if rng.random() < 0.3:
                    options[flag] = True
            if rng.random() < 0.4:
                options["fast_start"] = rng.randint(0, 3)
        elif what in ("hand", "rules"):
            command = f"{game} {what}"
        elif what == "board":
            command = "bhargage board" if game == "bhargage" else "deluxe table"
        elif what == "resign":
            command = "bhargage resign" if game == "bhargage" else "deluxe leave"
        elif what == "count":
            command = "bhargage count"
            options = {"cards": self.count_text(), "up": self.count_text(single=True)}
            for flag in ("bhargage", "sequences"):
                if rng.random() < 0.3:
                    options[flag] = True
        elif what == "leaderboard":
            command = "leaderboard"
            if rng.random() < 0.7:
                options = {"game": rng.choice(["bhargage", "deluxe"])}
        elif what == "stats":
            command = "stats"
            if rng.random() < 0.6:
                options = {"player": rng.choice(self.users)}
        else:
            command = f"tavern {rng.choice(['help', 'ping'])}"
        shown = {k: (v.name if isinstance(v, FakeUser) else short(v)) for k, v in options.items()}
        self.action = f"slash: {user.name} /{command} {shown} in #{channel.name}"
        await self.fake.slash(user, channel, command, options=options, expect_reply=False, settle=False)

    async def step_raw_slash(self) -> None:
        """A command whose option values no Discord client would send: out of range, forged user ids."""
        rng = self.rng
        user = rng.choice(self.users)
        channel = rng.choice(self.places())
        which = rng.choice(["challenge", "create", "stats", "leaderboard", "count"])
        if which == "challenge":
            path, valid = "bhargage challenge", {"opponent": rng.choice(self.users), "target": 21}
        elif which == "create":
            path, valid = "deluxe create", {"target": 10, "fast_start": 0}
        elif which == "stats":
            path, valid = "stats", {"player": rng.choice(self.users)}
        elif which == "leaderboard":
            path, valid = "leaderboard", {"game": "deluxe"}
        else:
            path, valid = "bhargage count", {"cards": "a,b,c", "up": "d"}
        data = self.fake._command_data(user, channel, path, valid, force=True)
        leaf = data["options"]
        while leaf and leaf[0].get("type") in (1, 2):
            leaf = leaf[0]["options"]
        opt = rng.choice(leaf)
        opt["value"] = self.odd_value(opt["type"])
        self.action = f"raw slash: {user.name} /{path} {opt['name']}={opt['value']!r} in #{channel.name}"
        if opt["type"] in (6, 9) and rng.random() < 0.5:
            data.pop("resolved", None)
        await self.fake.forge(2, user, channel, data, description=f"/{path} (forged options)")

    # ---------------------------------------------------------------- odd inputs

    def junk(self, n: int) -> str:
        rng = self.rng
        alphabet = string.ascii_letters + string.digits + ":-_.,  "
        if "nonascii" not in AVOID:
            alphabet += "".join(NON_ASCII_DIGITS) + "éß€😀\u200b"
        return "".join(rng.choice(alphabet) for _ in range(n))

    def digits_words(self) -> list[str]:
        return [] if "nonascii" in AVOID else [self.rng.choice(NON_ASCII_DIGITS), "1" + NON_ASCII_DIGITS[0]]

    def odd_number(self) -> str:
        rng = self.rng
        pool = ["0", "-1", "1", "", "00", "9" * 20, str(2**63), str(2**64)]
        if "long_ids" not in AVOID:
            pool += ["9" * 21, "1" * 41, "1" + "0" * 40]
        if "nonascii" not in AVOID:
            pool += [rng.choice(NON_ASCII_DIGITS), "1" + rng.choice(NON_ASCII_DIGITS), "١٢٣"]
        return rng.choice(pool)

    def odd_value(self, otype: int) -> Any:
        rng = self.rng
        if otype == 4:
            return rng.choice([-(2**63), -1, 0, 1, 20, 222, 1001, 2**53, 2**63, 2**64, "12", 1.5])
        if otype == 5:
            return rng.choice(["yes", 1, None])
        if otype in (6, 9):
            return self.odd_number()
        return rng.choice([self.junk(rng.randint(0, 30)), "", " ", "x" * 120])

    def count_text(self, single: bool = False) -> str:
        rng = self.rng
        if single:
            return rng.choice(
                [rng.choice(CARD_WORDS), self.junk(rng.randint(0, 10)), " ", *self.digits_words()]
            )
        n = rng.choice([0, 1, 3, 3, 3, 4, 4, 5, 9])
        odd = ["45", "99", "-1", "0", "", " ", "the", "ace of", "Moons Ace", *self.digits_words()]
        words = [
            rng.choice(CARD_WORDS)
            if rng.random() < 0.75
            else (rng.choice(odd) if rng.random() < 0.5 else self.junk(rng.randint(1, 10)))
            for _ in range(n)
        ]
        text = rng.choice([", ", ",", " , ", ";"]).join(words)
        if "long_count" not in AVOID and rng.random() < 0.2:
            if rng.random() < 0.5:
                text = ",".join(rng.choice(CARD_WORDS) for _ in range(rng.randint(60, 400)))
            else:  # one long unknown name: the reply quotes it
                text = rng.choice(CARD_WORDS) + "," + self.junk(rng.randint(200, 5000)).replace(",", "")
        if "long_count" in AVOID:
            text = text[:200]
        return text

    def known_ids(self) -> list[str]:
        ids = []
        for user in self.users:
            for msg in self.visible(user):
                ids += [c.custom_id for c in self.controls(msg) if c.custom_id]
        return ids

    def forged_id(self) -> str:
        rng = self.rng
        known = self.known_ids()
        roll = rng.random()
        if roll < 0.15 or not known:
            return rng.choice(
                ["", "tv", "tv:", "tv:g", "x" * 100, "tv:g:1:0:hand:" + "9" * 86, self.junk(40)]
            )
        if roll < 0.3:
            ids = sorted(self.game_ids) or [1]
            verb = rng.choice(
                [
                    *("hand", "play", "pick", "discard", "cut", "draw", "take", "bind", "disc"),
                    *("meld", "toss", "build", "back", "resign"),
                ]
            )
            token = rng.choice(["", "0", "999", "1-0", "zz", self.junk(3).lower()])
            arg = rng.choice(["", "0", "1-2", "0.0", "9" * 48])
            return f"tv:g:{rng.choice(ids)}:{token}:{verb}" + (f":{arg}" if arg else "")
        parts = rng.choice(known).split(":")
        while len(parts) < 6:
            parts.append("")
        i = rng.choice([1, 2, 2, 3, 4, 5, 5])
        if i == 1:
            parts[1] = rng.choice(["g", "l", "x", "G", ""])
        elif i == 2:
            parts[2] = self.odd_number()
        elif i == 3:
            parts[3] = rng.choice(["", "0", "a" * 25, "-", str(rng.randint(0, 99)), self.junk(4)])
        elif i == 4:
            parts[4] = rng.choice(["zz", "PLAY", "hand ", "rematch", "claim", "accept", "start", "x" * 17])
        else:
            parts[5] = rng.choice(
                [self.odd_number(), "9" * 48, "-" * 48, "0-0", "1.2.3", "z" * 48, "0.zzzzzzzzzzzzzzzzzzzzz"]
            )
        text = ":".join(parts).rstrip(":")
        return text[:100]  # Discord keeps no longer custom id on a message

    # ---------------------------------------------------------------- checks

    def fail(self, kind: str, signature: str, detail: str) -> None:
        key = f"{kind}|{signature}"
        if key in self._seen:
            return
        self._seen.add(key)
        action = self.action if len(self.action) < 400 else self.action[:400] + "…"
        self.failures.append(Failure(kind, signature, self.seed, self.step_no, action, detail[:1500]))

    async def check(self, before: int) -> None:
        fake = self.fake
        # The bot's client dispatches each interaction after scheduling its handler: once all were
        # dispatched (or a moment passed), settling waits for the handlers.
        sent = {it.id for it in fake.interactions[before:]}
        deadline = time.monotonic() + 2.0
        while not sent <= self.received and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        try:
            await fake.settle(timeout=SETTLE_TIMEOUT)
        except AssertionError as err:
            self.fail("hang", "the bot did not go quiet", str(err))
            self.stopped = True
        self.totals.steps += 1
        for record in self.guard.take():
            self.totals.error_logs += 1
            self.fail("error-log", error_signature(record), ErrorLogGuard.render(record))
        for it in fake.unanswered(before):
            self.totals.unanswered += 1
            self.fail("unanswered", self._interaction_shape(it), it.description)
        if self.watch.leaks:
            for leak in self.watch.leaks:
                self.totals.wrong_user_hands += 1
                kind = "in a channel" if "posted in channel" in leak else "to another user"
                self.fail("wrong-user-hand", f"a seat panel shown {kind}", leak)
            self.watch.leaks.clear()
        if fake.errors or fake.unhandled:
            self.fail(
                "fake", "fake Discord error or unmodelled route", "\n".join(fake.errors + fake.unhandled)
            )
            fake.errors.clear()
            fake.unhandled.clear()
        if self.bot is not None:
            await self.check_store()

    async def check_store(self) -> None:
        bot = self.bot
        assert bot is not None
        records = await bot.store.active_games()
        live = {t.id: t for t in bot.tables.active_tables()}
        stored = {r.id: r for r in records}
        self.game_ids |= set(live) | set(stored)
        self.finished_ids |= self.game_ids - set(stored)
        if set(live) != set(stored):
            self.totals.divergences += 1
            self.fail(
                "divergence",
                "live tables differ from the store's active games",
                f"live {sorted(live)} vs stored active {sorted(stored)}",
            )
        for gid, table in live.items():
            record = stored.get(gid) or await bot.store.load_game(gid)
            if record is None:
                continue
            module = GAMES[record.game].rules
            state, _ = module.start(record.seed, record.players, module.Options.from_dict(record.options))
            for action in record.actions:
                state, _ = module.apply(state, module.parse_action(action.text))
            if state != table.state or len(record.actions) != table.seq:
                self.totals.divergences += 1
                self.fail(
                    "divergence",
                    f"{record.game} table differs from the replay of its log",
                    f"game {gid}: live seq {table.seq}, log has {len(record.actions)} actions; "
                    f"states equal: {state == table.state}",
                )
        # Seats: a table of a game that seats a player at one table at a time (an adapter's ``exclusive``;
        # every game where adapters no longer say) must not open while one of its players sits at another
        # active table of the same server.
        seated: dict[tuple[int, int], list[Any]] = {}
        for r in records:
            for s in r.seats:
                seated.setdefault((r.guild_id, s.user_id), []).append(r)
        for (_, user_id), games in seated.items():
            games.sort(key=lambda r: r.id)
            for i, later in enumerate(games):
                if i > 0 and getattr(GAMES[later.game], "exclusive", True):
                    self.totals.double_seats += 1
                    who = self.watch.users.get(user_id, str(user_id))
                    self.fail(
                        "double-seat",
                        f"a {later.game} table opened with a player already seated elsewhere",
                        f"{who} sits at active games {[(g.id, g.game, g.channel_id) for g in games]}",
                    )

    # ---------------------------------------------------------------- naming things

    @staticmethod
    def _label(ctl: Button | Select) -> str:
        if isinstance(ctl, Select):
            return f"select {ctl.custom_id}"
        return f"button {ctl.label!r} ({ctl.custom_id})"

    def _where(self, msg: FakeMessage) -> str:
        if msg.ephemeral:
            return f"an ephemeral of {msg.viewer.name if msg.viewer else '?'}"
        if msg.channel.is_dm:
            return f"a DM to {msg.channel.recipient.name if msg.channel.recipient else '?'}"
        return f"a message in #{msg.channel.name}"

    @staticmethod
    def _interaction_shape(it: FakeInteraction) -> str:
        if it.type == 2:
            return "command " + it.command_path
        cid = str(it.data.get("custom_id", ""))
        m = ID_SHAPE.fullmatch(cid)
        if m:
            return f"component tv:{m[1]}:…:{m[2]}"
        return "component whose custom id the bot never makes" + (
            "" if cid.startswith("tv:") else " (not tv:…)"
        )


# ----------------------------------------------------------------------------------------------- the test


def report(failures: list[Failure], totals: Totals, seconds: float) -> str:
    lines = [
        f"fuzz: {totals.sequences} sequences, {totals.interactions} interactions, {totals.steps} steps, "
        f"{totals.restarts} restarts, {totals.games_started} games ({totals.games_finished} finished, "
        f"{totals.threads} in threads) in "
        f"{seconds:.1f} s — ERROR logs {totals.error_logs}, unanswered {totals.unanswered}, "
        f"divergences {totals.divergences}, double seats {totals.double_seats}, "
        f"wrong-user hands {totals.wrong_user_hands}"
    ]
    groups: dict[str, list[Failure]] = {}
    for f in failures:
        groups.setdefault(f"{f.kind}: {f.signature}", []).append(f)
    if groups:
        lines.append(f"{len(groups)} distinct failure(s):")
    for name, found in sorted(groups.items()):
        first = min(found, key=lambda f: (f.step, f.seed))
        seeds = sorted({f.seed for f in found})
        lines.append(
            f"- {name}\n  in {len(seeds)} sequence(s); smallest: seed {first.seed} step {first.step} "
            f"(FUZZ_SEEDS={first.seed} FUZZ_STEPS={first.step + 1})\n  step: {first.action}\n"
            f"  {first.detail.splitlines()[0][:300] if first.detail else ''}"
        )
    return "\n".join(lines)


async def test_fuzz_the_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error_logs: ErrorLogGuard
) -> None:
    seeds = SEEDS or list(range(FIRST_SEED, FIRST_SEED + SEQUENCES))
    watch = HandWatch()
    spy_on_panels(monkeypatch, watch)
    totals = Totals()
    failures: list[Failure] = []
    started = time.perf_counter()
    for seed in seeds:
        folder = tmp_path / f"seq{seed}"
        folder.mkdir()
        sequence = Sequence(seed, STEPS, folder, monkeypatch, error_logs, watch, totals)
        failures += await sequence.run()
        error_logs.take()  # counted by the sequence (errors while closing the bot included below)
    text = report(failures, totals, time.perf_counter() - started)
    print("\n" + text)
    if failures:
        pytest.fail(text, pytrace=False)


async def test_the_checks_catch_what_they_look_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error_logs: ErrorLogGuard
) -> None:
    """Each check of the fuzz run fails when its rule is broken on purpose, so a clean run means something."""
    watch = HandWatch()
    spy_on_panels(monkeypatch, watch)
    seq = Sequence(0, 0, tmp_path, monkeypatch, error_logs, watch, Totals())
    await seq.open()
    try:
        fake, bot = seq.fake, seq.bot
        assert bot is not None
        ann, bob, cat = seq.users[:3]
        for user in (ann, bob, cat):
            user.dms_closed = False
        here, there = seq.channels[:2]
        posted = await fake.slash(ann, here, "bhargage challenge", opponent=bob, target=21)
        await fake.click(bob, posted.message, "Accept")
        await seq.check(0)
        assert seq.failures == []
        before = len(fake.interactions)

        # A seat's panel reaching another user, and one posted in a channel.
        panel = fake.dms(ann)[-1]
        assert watch.owners.get(fingerprint(panel.content, None)) == {ann.id}
        fake._new_message(fake.dm_channel(cat), "channel", {"content": panel.content}, {})
        fake._new_message(there, "channel", {"content": fake.dms(bob)[-1].content}, {})
        # The live table ahead of its stored log.
        table = await bot.tables.table_for_channel(here.id)
        assert table is not None
        table.seq += 1
        # A second Bhargage game for a seated player, active in the store but not live (planted in what the
        # store answers: the bot itself refuses to open it).
        stored = await bot.store.active_games()
        first = stored[0]
        planted = dataclasses.replace(
            first,
            id=first.id + 100,
            channel_id=there.id,
            seats=(dataclasses.replace(first.seats[0], user_id=cat.id), first.seats[0]),
        )
        original = bot.store.active_games

        async def with_planted() -> list[Any]:
            return [*await original(), planted]

        monkeypatch.setattr(bot.store, "active_games", with_planted)
        # An interaction the bot never answers, and an ERROR.
        monkeypatch.setattr(bot.controller, "lobby_click", lambda *args: asyncio.sleep(0))
        monkeypatch.setattr(bot.controller, "table_click", lambda *args: asyncio.sleep(0))
        accept = parse_buttons(posted.message.edits[0].components)[0].custom_id
        await seq.send_raw(bob, posted.message, accept)
        logging.getLogger("tavern.fuzzcheck").error("planted")
        await seq.check(before)
        found = {(f.kind, f.signature) for f in seq.failures}
        assert found == {
            ("wrong-user-hand", "a seat panel shown to another user"),
            ("wrong-user-hand", "a seat panel shown in a channel"),
            ("divergence", "bhargage table differs from the replay of its log"),
            ("divergence", "live tables differ from the store's active games"),
            ("double-seat", "a bhargage table opened with a player already seated elsewhere"),
            ("unanswered", "component tv:l:…:accept"),
            ("error-log", "tavern.fuzzcheck: planted"),
        }, found
    finally:
        monkeypatch.undo()
        await seq.close()
