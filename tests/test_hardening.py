"""Hardening, through the real client and the fake Discord: forged input, limits checked in code, one seat per
player, write failures, a reply that fails after the move was saved, and the admin commands."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.base.i18n import t
from bot.edge.app import TavernBot
from bot.games import Table
from bot.rules import bhargage as bh
from bot.services.tables import TableService
from bot.store import SQLiteStore
from tests import fakegame
from tests.conftest import StartBot
from tests.fakediscord import ALL_PERMISSIONS, FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.test_bhargage_discord import (
    BOARD_HEAD,
    board,
    challenge,
    every_click_mine,
    play_out,
    step,
    waiting_line,
)

MEMBER = discord.Permissions(view_channel=True, send_messages=True, read_message_history=True).value


async def forge(
    fake: FakeDiscord, user: FakeUser, message: FakeMessage, cid: Any, values: list[Any] | None = None
) -> Any:
    """A component interaction with any custom id and values, as a modified client can send."""
    data: dict[str, Any] = {"custom_id": cid, "component_type": 2 if values is None else 3}
    if values is not None:
        data["values"] = values
    return await fake._interact(3, user, message.channel, data, f"forged {cid!r}", message=message)


async def slash_raw(
    fake: FakeDiscord, user: FakeUser, channel: FakeChannel, path: str, values: dict[str, Any], **forced: Any
) -> Any:
    """``/path`` with option values Discord's UI would never let through (``forced`` replaces them)."""
    data = fake._command_data(user, channel, path, values, force=False)

    def patch(options: list[dict[str, Any]]) -> None:
        for option in options:
            if option["name"] in forced:
                option["value"] = forced[option["name"]]
            patch(option.get("options", []))

    patch(data.get("options", []))
    return await fake._interact(2, user, channel, data, f"/{path} (raw)")


async def bhargage_started(
    fake: FakeDiscord, start_bot: StartBot
) -> tuple[TavernBot, FakeUser, FakeUser, Table]:
    """A bot, and alice and bob at the Bhargage table she challenged him to."""
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    return bot, alice, bob, table


async def stored_seq(bot: TavernBot, table: Table) -> int:
    return len(await bot.store.actions(table.id))


# ------------------------------------------------------------------------------------- forged input


async def test_forged_ids_and_values_are_refused_quietly(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    """Whatever custom id or select values arrive, the press is answered privately and nothing changes; no
    ERROR is logged (the autouse guard fails the test otherwise)."""
    fake = fake_discord
    bot, alice, _bob, table = await bhargage_started(fake, start_bot)
    dm = fake.dms(alice)[-1]
    pick = dm.selects()[0].custom_id
    held = set(dm.selects()[0].values())
    not_held = [str(i) for i in range(45) if str(i) not in held][:2]  # the seed (so the hand) is random
    token = pick.split(":")[3]
    ids = [
        f"{pick}:x",  # an argument the verb doesn't take
        f"tv:g:{table.id}:{token}:play:²",  # a non-ASCII digit
        f"tv:g:{table.id}:{token}:play:{'9' * 48}",  # a card far out of range
        "tv:g:" + "9" * 41 + f":{token}:play:1",  # a 41-digit game id
        "tv:g:" + "9" * 19 + f":{token}:play:1",  # 19 digits, past SQLite's integers
        f"tv:g:{table.id}:{token}:zzz",  # an unknown verb
        f"tv:g:{table.id}:{token}:claim:{'1' * 40}",  # a claim against a seat that isn't there
        f"tv:l:{table.id}:{token}:accept",  # a lobby that isn't one
        "tv:" + "g" * 200,  # too long for a custom id
        "nonsense",  # not the bot's at all
        12345,  # not even a string
    ]
    for cid in ids:
        result = await forge(fake, alice, dm, cid)
        assert result.ephemeral, cid
        assert result.message.viewer is alice and len(result.text()) < 300, cid
    bad_values: list[list[Any]] = [
        not_held,  # cards alice doesn't hold
        ["0"],  # one card where two are needed
        ["1", "1"],  # the same value twice
        ["x" * 101],  # longer than any option value
        [str(i) for i in range(26)],  # more values than a select holds
        [1, 2],  # not strings
        ["²", "1"],
    ]
    for values in bad_values:
        result = await forge(fake, alice, dm, pick, values)
        assert result.ephemeral, values
    assert table.seq == 0 and await stored_seq(bot, table) == 0
    refusals = [it for it in fake.interactions if it.description.startswith("forged")]
    assert len(refusals) == len(ids) + len(bad_values) and all(it.answered.is_set() for it in refusals)
    assert t("tavern.out-of-date") in {r.text() for r in [await forge(fake, alice, dm, ids[1])]}


async def test_count_with_huge_input_gets_a_short_clear_answer(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    await start_bot()
    alice = fake.add_user("alice")
    long = await fake.slash(alice, fake.channel, "bhargage count", cards="forest, " * 700, up="bard" * 800)
    assert long.ephemeral and "from 1 to 200 characters" in long.text() and len(long.text()) < 2000
    typo = await fake.slash(
        alice, fake.channel, "bhargage count", cards="**@everyone**, sailor, pact", up="bard"
    )
    text = typo.text()
    assert "@everyone" not in text and "\\*\\*" in text  # echoed, but defused
    assert typo.message.pings_everyone is False


async def test_out_of_range_options_are_refused_in_code(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    ann, bob = fake.add_user("ann"), fake.add_user("bob")
    for target in (5, 5000, -1):
        result = await slash_raw(fake, ann, fake.channel, "deluxe create", {"target": 100}, target=target)
        assert result.ephemeral and "from 10 to 1000" in result.text(), target
    for target in (1, 999):
        result = await slash_raw(
            fake, ann, fake.channel, "bhargage challenge", {"opponent": bob, "target": 61}, target=target
        )
        assert result.ephemeral and f"from {bh.MIN_TARGET} to {bh.MAX_TARGET}" in result.text()
    assert await bot.store.open_lobbies() == []


# ------------------------------------------------------------------------------------- one seat


async def test_one_player_accepting_two_challenges_at_once_is_seated_once(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    other = fake.add_channel("other")
    for _ in range(5):
        a = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=carol)
        b = await fake.slash(bob, other, "bhargage challenge", opponent=carol)
        both = await asyncio.gather(
            fake.click(carol, a.message, "Accept"), fake.click(carol, b.message, "Accept")
        )
        await fake.settle()
        games = await bot.store.active_games()
        assert len(games) == 1
        seated = [g for g in games if carol.id in {s.user_id for s in g.seats}]
        assert len(seated) == 1
        refused = [r for r in both if r.ephemeral or any(f.ephemeral for f in r.followups)]
        assert len(refused) == 1
        text = refused[0].text() + " ".join(f.content for f in refused[0].followups)
        assert f"already playing in <#{seated[0].channel_id}>" in text
        # Free the seats for the next round: everyone resigns (from any channel).
        asked = await fake.slash(carol, fake.channel, "bhargage resign")
        await fake.click(carol, asked.message, "Resign")
        await fake.settle()
        for lobby in await bot.store.open_lobbies():  # the refused challenge is still open: withdraw it
            await bot.store.update_lobby(lobby.id, status="cancelled")
        bot.clock.advance(61)  # past the cooldown on opening tables


# ------------------------------------------------------------------------------------- write failures


class Faulty:
    """The store's connection, failing one chosen ``execute``: before running it (nothing happened), or
    after running it (a COMMIT that reached the disk and then reported a fault)."""

    def __init__(self, real: Any, fail_at: int, *, after: bool = False) -> None:
        self.real, self.fail_at, self.after, self.calls = real, fail_at, after, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    async def _call(self, method: str, sql: str, params: Any) -> Any:
        self.calls += 1
        failing = self.calls == self.fail_at
        if failing and not self.after:
            raise sqlite3.OperationalError("disk I/O error")
        result = await getattr(self.real, method)(sql, params)
        if failing:
            raise sqlite3.OperationalError("disk I/O error")
        return result

    async def execute(self, sql: str, params: Any = ()) -> Any:
        return await self._call("execute", sql, params)

    async def executemany(self, sql: str, params: Any) -> Any:
        return await self._call("executemany", sql, params)


def replay(record: Any) -> Any:
    state, _ = fakegame.start(record.seed, len(record.seats), fakegame.Options.from_dict(record.options))
    for action in record.actions:
        state, _ = fakegame.apply(state, fakegame.parse_action(action.text))
    return state


async def agree(store: SQLiteStore, svc: TableService, table_id: int) -> Table:
    """The live table is exactly what the store has."""
    record = await store.load_game(table_id)
    assert record is not None
    live = await svc.get(table_id)
    assert live.seq == len(record.actions) and live.state == replay(record) and live.status == record.status
    return live


def race_service(store: SQLiteStore) -> TableService:
    clock = iter(range(1000, 100000))
    return TableService(store, clock=lambda: float(next(clock)), games={"race": fakegame.ADAPTER})


@pytest.mark.parametrize("after", [False, True], ids=["fails", "commits-then-reports-a-fault"])
async def test_a_failed_write_leaves_store_and_table_agreeing(tmp_path: Path, after: bool) -> None:
    """Inject a fault at every statement of a move (BEGIN, the INSERT, the meta, COMMIT) and of a finishing
    move (results, ratings): afterwards, and after a restart, the live table is what the store has; a move
    that did not commit is reported as not saved and can be made again."""
    path = tmp_path / "t.db"
    store = await SQLiteStore.open(path, rating_systems={"race": "elo"})
    svc = race_service(store)
    table, _ = await svc.create("race", 1, 10, [(1, "Ann"), (2, "Bob")], {"target": 40}, seed=3)
    real = store.db
    outcomes: list[str] = []
    for fail_at in range(1, 30):
        live = await svc.get(table.id)
        if live.status != "active":
            break
        seat = live.waiting_for()[0]
        before = live.seq
        store.db = Faulty(real, fail_at, after=after)  # type: ignore[assignment]
        error: Exception | None = None
        try:
            await svc.act(table.id, seat + 1, "add 3", expected_seq=before)
            outcomes.append("saved")
        except Exception as err:
            error = err
            outcomes.append("refused")
        finally:
            calls = store.db.calls  # type: ignore[attr-defined]
            store.db = real
        now = await agree(store, svc, table.id)
        assert error is None or "not saved" in str(error), error
        assert now.seq in (before, before + 1)
        assert (now.seq == before + 1) == (outcomes[-1] == "saved")
        if calls < fail_at:  # the fault was never reached: this move wrote fewer statements
            continue
    assert "refused" in outcomes or after
    assert "saved" in outcomes
    # A restart rebuilds the same table from the same log.
    final = await svc.get(table.id)
    await store.close()
    store2 = await SQLiteStore.open(path, rating_systems={"race": "elo"})
    try:
        svc2 = race_service(store2)
        await svc2.restore()
        again = await agree(store2, svc2, table.id)
        assert again.state == final.state and again.seq == final.seq
    finally:
        await store2.close()


async def test_a_failed_commit_through_discord_says_press_again(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    bot, alice, _bob, table = await bhargage_started(fake, start_bot)
    store: Any = bot.store
    real = store.db
    fails = {"left": 1}
    original = real.execute

    async def execute(sql: str, params: Any = ()) -> Any:
        if sql == "COMMIT" and fails["left"]:
            fails["left"] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return await original(sql, params)

    monkeypatch.setattr(real, "execute", execute)
    dm = fake.dms(alice)[-1]
    pick = dm.selects()[0]
    chosen = await fake.select(alice, dm, pick.custom_id, pick.values()[:2])
    result = await fake.click(alice, chosen.message, "Confirm")
    await fake.settle()
    said = result.text() + " ".join(f.content for f in result.followups)
    assert "not saved" in said and "press again" in said
    assert table.seq == 0 and await stored_seq(bot, table) == 0
    again = await fake.click(alice, chosen.message, "Confirm")
    await fake.settle()
    live = await bot.tables.table_for_channel(fake.channel.id)
    assert live is not None and live.seq == 1 == await stored_seq(bot, live)
    assert not again.ephemeral


# ------------------------------------------------------------------------------------- saved, then delivered


async def test_a_move_whose_reply_fails_is_still_announced(
    fake_discord: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord refuses the edit of the clicked panel after the move was saved: the player is not told it
    failed, and the channel, the board and the next player's ping still go out."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await every_click_mine(fake, [alice, bob])  # the cut is pressed, not made for them
    await challenge(fake, alice, bob)
    for _ in range(2):  # both discards, so the cut is next
        await step(fake, fake.channel, [alice, bob])
    line = waiting_line(fake, fake.channel)
    assert "to cut" in line
    posts_before = len(fake.channel_messages(fake.channel))

    async def refuse(self: discord.Interaction[Any], **kwargs: Any) -> None:
        raise discord.HTTPException(SimpleNamespace(status=500, reason="Server Error"), "down")  # type: ignore[arg-type]

    monkeypatch.setattr(discord.Interaction, "edit_original_response", refuse)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    seq = table.seq
    await step(fake, fake.channel, [alice, bob])  # the cut
    await fake.settle()
    assert table.seq == seq + 1 == await stored_seq(bot, table)
    after = fake.channel_messages(fake.channel)[posts_before:]
    assert after, "nothing was announced"
    assert "up-card" in "\n".join(m.content for m in after)
    mover = table.waiting_for()[0]
    pinged = [alice, bob][mover]
    assert any(pinged.mention in m.content for m in after)
    assert "Sorry" not in " ".join(m.content for m in fake.ephemerals(alice) + fake.ephemerals(bob))
    assert board(fake, fake.channel).edits


# ------------------------------------------------------------------------------------- admin controls


async def test_tavern_end_by_admin_only_once_and_with_no_rating_change(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob, mod = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("mod")
    alice.permissions = bob.permissions = MEMBER
    mod.permissions = MEMBER | discord.Permissions(manage_channels=True).value
    nothing = await fake.slash(mod, fake.channel, "tavern-admin end")
    assert nothing.ephemeral and "no game or open table" in nothing.text()
    await challenge(fake, alice, bob)
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None
    # Discord does not offer her the admin group; a modified client can still send it, and it is refused.
    refused = await fake.slash(alice, fake.channel, "tavern-admin end", force=True)
    assert refused.ephemeral and "Manage Server or Manage Channels" in refused.text()
    assert await bot.tables.table_for_channel(fake.channel.id) is table
    first, second = await asyncio.gather(
        fake.slash(mod, fake.channel, "tavern-admin end"), fake.slash(mod, fake.channel, "tavern-admin end")
    )
    await fake.settle()
    texts = sorted([first.text(), second.text()])
    assert any("The game is ended" in t for t in texts) and any("no game or open table" in t for t in texts)
    record = await bot.store.load_game(table.id)
    assert record is not None and record.status == "abandoned"
    assert await bot.store.rating_of(fake.guild.id, "bhargage", alice.id) is None
    last = fake.last_message(fake.channel)
    assert "ended this Bhargage game" in last.content and alice.mention in last.content
    assert set(last.pinged_user_ids()) == {alice.id, bob.id}
    # The channel and the players are free again.
    await challenge(fake, bob, alice)
    # An open lobby is closed the same way.
    other = fake.add_channel("other")
    carol = fake.add_user("carol")
    opened = await fake.slash(carol, other, "deluxe create")
    closed = await fake.slash(mod, other, "tavern-admin end")
    assert "open table is closed" in closed.text()
    assert opened.message.buttons() == [] and (await bot.store.open_lobbies(channel_id=other.id)) == []


async def test_tavern_settings_checked_stored_and_used(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob, admin = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("admin")
    alice.permissions = bob.permissions = MEMBER
    admin.permissions = ALL_PERMISSIONS
    refused = await fake.slash(alice, fake.channel, "tavern-admin settings", nudge_minutes=1, force=True)
    assert refused.ephemeral and "Manage Server" in refused.text()
    shown = await fake.slash(admin, fake.channel, "tavern-admin settings")
    assert "after 10 min" in shown.text() and "changed here" not in shown.text()
    for forced in ({"nudge_minutes": -5}, {"claim_minutes": 10**6}):
        raw = await slash_raw(
            fake,
            admin,
            fake.channel,
            "tavern-admin settings",
            {"nudge_minutes": 1, "claim_minutes": 2},
            **forced,
        )
        assert raw.ephemeral and "outside what this option takes: from 0 to" in raw.text()
    bad_target = await fake.slash(admin, fake.channel, "tavern-admin settings", game="deluxe", target=5)
    assert "from 10 to 1000" in bad_target.text()
    no_game = await fake.slash(admin, fake.channel, "tavern-admin settings", game="chess", target=50)
    assert "no game" in no_game.text()
    assert await bot.store.guild_settings(fake.guild.id) == {}
    ok = await fake.slash(
        admin, fake.channel, "tavern-admin settings", nudge_minutes=1, game="bhargage", target=31, dms=False
    )
    assert "Settings saved" in ok.text() and "after 1 min *(changed here)*" in ok.text()
    stored = await bot.store.guild_settings(fake.guild.id)
    assert stored == {"nudge_minutes": 1, "dms": False, "targets": {"bhargage": 31}}
    # The server's usual target, its nudge time and its no-DMs choice are what a new game gets.
    dms_before = len(fake.dms(alice))
    posted = await fake.slash(alice, fake.channel, "bhargage challenge", opponent=bob)
    assert "31" in posted.text()
    await fake.click(bob, posted.message, "Accept")
    await fake.settle()
    table = await bot.tables.table_for_channel(fake.channel.id)
    assert table is not None and table.options.target == 31
    assert len(fake.dms(alice)) == dms_before  # no DMs in this server
    shows = [
        b
        for m in fake.channel_messages(fake.channel)
        for b in m.buttons()
        if b.custom_id and ":hand:" in b.custom_id
    ]
    assert shows, "players are given Show my hand instead"
    bot.clock.advance(61)
    await bot.controller.timers.run()
    await fake.settle()
    assert "waiting for you (idle 1 min)" in fake.last_message(fake.channel).content
    reset = await fake.slash(admin, fake.channel, "tavern-admin settings", reset=True)
    assert "changed here" not in reset.text() and await bot.store.guild_settings(fake.guild.id) == {}


async def test_opening_tables_and_the_calculator_have_cooldowns(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    channels = [fake.channel, *(fake.add_channel(f"c{i}") for i in range(3))]
    for channel in channels[:3]:  # one open challenge at a time: each is declined before the next
        posted = await fake.slash(alice, channel, "bhargage challenge", opponent=bob)
        assert not posted.ephemeral
        await fake.click(bob, posted.message, "Decline")
    slow = await fake.slash(alice, channels[3], "bhargage challenge", opponent=bob)
    assert slow.ephemeral and "Slow down" in slow.text()
    assert await bot.store.open_lobbies() == []
    bot.clock.advance(61)
    again = await fake.slash(alice, channels[3], "bhargage challenge", opponent=bob)
    assert not again.ephemeral
    for _ in range(10):
        counted = await fake.slash(
            bob, fake.channel, "bhargage count", cards="forest, sailor, ace of moons", up="bard"
        )
        assert "Slow down" not in counted.text()
    flood = await fake.slash(
        bob, fake.channel, "bhargage count", cards="forest, sailor, ace of moons", up="bard"
    )
    assert "Slow down" in flood.text()


async def test_a_long_game_plays_out_after_all_this(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    """The hardened paths leave the ordinary game alone."""
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    await challenge(fake, alice, bob, target=31)
    await play_out(fake, fake.channel, [alice, bob])
    assert [m for m in fake.channel_messages(fake.channel) if m.content.startswith(BOARD_HEAD)]
    assert not bot.tables.active_tables()


async def test_names_with_mentions_and_markdown_ping_nobody(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    await start_bot()
    bob, carol = fake.add_user("bob"), fake.add_user("carol")
    evil = fake.add_user(f"@everyone **boss** <@{carol.id}>\nnew line")
    await challenge(fake, evil, bob)
    messages = fake.channel_messages(fake.channel)
    # The challenge became the board, the opening calls follow: the name shows in each, as plain text.
    assert len(messages) >= 2 and messages[0].content.startswith(BOARD_HEAD)
    for m in messages:
        assert "@everyone" not in m.content and f"<@{carol.id}>" not in m.content, m.content
        assert not m.pings_everyone and set(m.pinged_user_ids()) <= {evil.id, bob.id}, m.content
    assert all("\\*\\*boss\\*\\*" in m.content for m in messages)
