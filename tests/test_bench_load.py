"""Smoke test of the load benchmark's core, so ``bench/bench_load.py`` can't rot: a couple of tables, a few
seconds, the bot in its own process, and the figures must show measured interactions, games that moved, no
failures and the routes used. The measurements themselves are checked on made-up requests. No timing
asserts: a run ends after so many interactions, not so many seconds, so a busy machine takes longer and
shows the same; the latencies (and any answer past 3 s) are the bench's to judge."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bench import bench_load as bench
from bench import loop_monitor
from bot.base.i18n import t
from tests.fakediscord import FakeDiscord, FakeInteraction, RequestRecord


async def test_bhargage_tables_play_and_are_measured(tmp_path: Path) -> None:
    config = bench.Config(
        tables=2, seconds=120.0, max_interactions=60, think=0.0, target=21, seed=7, db_dir=tmp_path
    )
    result = await bench.run_bench(config)

    game = result.series["bhargage"]
    noop = result.series["noop"]
    text = result.report()
    assert len(game.callback) >= 20, text
    assert len(noop.callback) == len(game.callback)  # one no-op per game interaction, all answered
    assert all(v > 0 for v in game.callback + noop.callback)
    assert all(c <= d <= v for c, d, v in zip(game.callback, game.done, game.delivered, strict=True))
    # The games moved: every kind of move was made and committed, and a short game got to its end.
    assert {"/bhargage challenge", "accept", "pick", "discard", "cut", "play"} <= set(game.by_label)
    assert result.actions.get("bhargage", 0) >= 10
    assert result.games_finished.get("bhargage", 0) >= 1, text
    assert result.errors == [], text
    # No refusal, but the one a race makes: a player's press on a panel whose game the bot has just ended
    # by a move it made for them (the cut, an only card: on by default), as a person could press too.
    ended = t("tavern.table.closed")
    assert all(ended in why for why in game.refusals), text
    assert result.unanswered == 0 and result.not_sent == 0, text
    # The bot ran apart and said what it cost; its requests are counted by route.
    assert result.bot_counters is not None and result.bot_counters["cpu_seconds"] > 0
    assert result.bot_cpu_seconds is not None
    routes = result.traffic.routes
    assert routes["POST /interactions/{token}/{token}/callback"] == 0  # ids are ids, tokens are tokens
    assert routes["POST /interactions/{id}/{token}/callback"] == len(game.interactions)  # no-ops left out
    assert routes["POST /channels/{id}/messages"] > 0
    for words in ("FAILURES: 0 unanswered,", "past 3 s", "interactions/s", "delivered", "per move", "no-op"):
        assert words in text
    # The bot process measured its own loop (counts, not timings): turns of the loop, lag samples and
    # heartbeats acknowledged during the run (the fake beats every second in the bench).
    assert len(result.loops) == 1, text
    run = loop_monitor.window(result.loops[0], result.started, result.started + result.duration)
    assert run["turns"] > 0 and run["lag"] and run["heartbeat"], text
    assert len(run["heartbeat"]) == len(run["heartbeat_written"])
    # Every interaction reached the bot as one gateway event; the bot asks for no other kind it would drop.
    assert result.gateway_events["INTERACTION_CREATE"] == result.presses(result.started)[1], text
    assert set(result.gateway_events) <= {"INTERACTION_CREATE", "THREAD_CREATE"}, text
    # Each table waited on the bot (a press unanswered, a panel not shown yet) and on a player.
    tables = {t for t, _, _ in result.waits.bot} & {t for t, _, _ in result.waits.player}
    assert len(tables) == 2, text
    for words in ("event loop, whole run: busy", "ms per game press", "heartbeat lateness", "on the bot"):
        assert words in text


async def test_deluxe_tables_play_and_are_measured(tmp_path: Path) -> None:
    config = bench.Config(
        tables=0,
        deluxe_tables=2,
        seconds=120.0,
        max_interactions=60,
        think=0.0,
        deluxe_target=10,
        db_dir=tmp_path,
    )
    result = await bench.run_bench(config)

    game = result.series["deluxe"]
    assert len(game.callback) >= 20, result.report()
    assert len(result.series["noop"].callback) == len(game.callback)
    # The players' random choices vary with the bot's timing (another process): every turn draws or takes,
    # binds or not, and discards from the menu or by hand.
    labels = set(game.by_label)
    assert {"/deluxe create", "join", "start", "draw"} <= labels, result.report()
    assert labels & {"toss", "disc"} and labels & {"meld", "build", "pick"}, result.report()
    assert result.actions.get("deluxe", 0) >= 10
    assert result.errors == [] and result.unanswered == 0 and result.stuck == 0, result.report()


async def test_in_process_run_is_bounded_by_max_interactions(tmp_path: Path) -> None:
    config = bench.Config(
        tables=0,
        ping_tables=2,
        seconds=30.0,
        think=0.0,
        max_interactions=25,
        db_dir=tmp_path,
        in_process=True,
    )
    result = await bench.run_bench(config)
    assert 25 <= result.count() <= 27  # each table stops after its in-flight interaction
    assert len(result.series["noop"].callback) == result.count()
    assert "one process" in result.report()


def _interaction(fake: FakeDiscord, n: int, sent: float, callback: float | None) -> FakeInteraction:
    it = FakeInteraction(
        id=n, token=f"tok{n}", type=3, user=fake.owner, channel=fake.channel, data={}, description=""
    )
    it.sent_at, it.callback_at = sent, callback
    if callback is not None:
        it.callback_type = 6
    fake.interactions.append(it)
    return it


def test_failures_are_counted_not_dropped() -> None:
    fake = FakeDiscord()
    answered = _interaction(fake, 1, 10.0, 10.1)
    late = _interaction(fake, 2, 20.0, None)
    silent = _interaction(fake, 3, 30.0, None)
    series = bench.Series(interactions=[answered, late, silent])
    series.finish(late_callbacks={"tok2": 23.5}, delivered_at={})
    assert (series.unanswered, series.late) == (1, 1)
    assert [round(v) for v in series.callback] == [100, 3500]  # the late one stays in the samples


def test_a_move_is_delivered_with_its_tables_last_request_before_the_next_move() -> None:
    fake = FakeDiscord()
    dm = fake.dm_channel(fake.owner)
    table, other = fake.channel.id, fake.add_channel("other").id
    first = _interaction(fake, 1, 10.0, 10.1)
    second = _interaction(fake, 2, 12.0, 12.1)
    log = [
        RequestRecord(10.1, "POST", "/interactions/1/tok1/callback", 204, None, "tok1"),
        RequestRecord(10.5, "POST", f"/channels/{dm.id}/messages", 200, dm.id, None),  # a player's DM
        RequestRecord(11.0, "PATCH", f"/channels/{other}/messages/5", 200, other, None),  # another table
        RequestRecord(12.1, "POST", "/interactions/2/tok2/callback", 204, None, "tok2"),
        RequestRecord(12.3, "PATCH", "/webhooks/9/tok2/messages/@original", 200, None, "tok2"),
    ]
    fake.request_log.extend(log)
    traffic = bench.analyse(fake, 0, {"tok1": table, "tok2": table}, {dm.id: table})
    assert traffic.delivered_at == {first.token: 10.5, second.token: 12.3}
    assert traffic.routes["PATCH /channels/{id}/messages/{id}"] == 1
    assert (traffic.global_requests, traffic.global_peak) == (2, 1)


def test_routes_blank_ids_and_tokens() -> None:
    assert bench.route("PATCH", "/channels/12/messages/34") == "PATCH /channels/{id}/messages/{id}"
    assert bench.route("PATCH", "/webhooks/1/abc/messages/@original") == (
        "PATCH /webhooks/{id}/{token}/messages/@original"
    )
    assert bench.is_interaction_endpoint("/webhooks/1/abc") and not bench.is_interaction_endpoint(
        "/channels/1"
    )


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert bench.percentile(values, 50) == 50.0
    assert bench.percentile(values, 99) == 99.0
    assert bench.percentile([3.0], 99) == 3.0


def test_a_moves_latency_is_its_own_answer_not_the_next_moves_redraw() -> None:
    """Ann moves at 10.0: her answer at 10.1, Bob's panel at 10.3, the thread at 11.2. Bob moves at 12.0,
    answered at 12.2; his press's token redraws his panel again after Ann's next move (at 14.5), which is
    no answer to his press. The first move: (a) 100 ms, (b) 300 ms, (c) 1,200 ms."""
    fake = FakeDiscord()
    ann, bob = fake.owner, fake.add_user("bob")
    table = fake.channel.id
    bob_dm = fake.dm_channel(bob)
    first = _interaction(fake, 1, 10.0, 10.01)
    first.first_reply_at = 10.1
    second = _interaction(fake, 2, 12.0, 12.01)
    second.user = bob
    second.first_reply_at = 12.2
    third = _interaction(fake, 3, 14.0, 14.01)
    third.first_reply_at = 14.4
    fake.request_log.extend(
        [
            RequestRecord(10.1, "PATCH", "/webhooks/9/tok1/messages/@original", 200, None, "tok1"),
            RequestRecord(10.3, "PATCH", f"/channels/{bob_dm.id}/messages/7", 200, bob_dm.id, None),
            RequestRecord(11.2, "POST", f"/channels/{table}/messages", 200, table, None),
            RequestRecord(12.2, "PATCH", "/webhooks/9/tok2/messages/@original", 200, None, "tok2"),
            RequestRecord(12.5, "PATCH", "/webhooks/9/tok1/messages/@original", 200, None, "tok1"),
            RequestRecord(14.4, "PATCH", "/webhooks/9/tok3/messages/@original", 200, None, "tok3"),
            RequestRecord(14.5, "PATCH", "/webhooks/9/tok2/messages/@original", 200, None, "tok2"),
        ]
    )
    tables_of = {"tok1": table, "tok2": table, "tok3": table}
    out = bench.honest(fake, 0, tables_of, {table: (ann.id, bob.id)}, {bob_dm.id: bob.id})
    assert [round(v) for v in out.mover] == [100, 200, 400]  # the first answer, not 14.5's redraw of tok2
    assert [round(v) for v in out.others] == [300, 500, 500]
    assert [round(v) for v in out.thread] == [1200] and out.thread_missing == 2
    assert out.mover_missing == out.others_missing == 0


def test_what_a_table_waits_on_is_cut_into_intervals() -> None:
    waits = bench.Waits()
    waits.mark(1, "bot", 0.0)  # table 1 opens: the bot owes its first panel
    waits.mark(2, "bot", 1.0)
    waits.mark(1, "player", 2.0)
    waits.mark(1, "player", 2.5)  # still the player: one wait, not two
    waits.mark(2, "player", 4.0)
    waits.mark(1, "bot", 6.0)  # pressed
    waits.close(7.0)
    assert waits.bot == [(1, 0.0, 2.0), (2, 1.0, 4.0), (1, 6.0, 7.0)]
    assert waits.player == [(1, 2.0, 6.0), (2, 4.0, 7.0)]
    assert bench.Waits.most_at_once(waits.bot, 0.0, 7.0) == 2
    assert bench.Waits.within(waits.bot, 3.0, 7.0) == [(2, 1.0), (1, 1.0)]


def test_the_loop_figures_keep_to_the_seconds_of_the_run() -> None:
    figures = {
        "seconds": {"9": [0.5, 0.2, 10], "10": [0.25, 0.1, 5], "11": [0.5, 0.3, 7]},
        "lag": [[9.5, 0.4], [10.5, 0.01]],
        "heartbeats": [[9.0, 9.1, 9.2], [10.2, 10.3, 10.7]],
    }
    w = loop_monitor.window(figures, 10.0, 12.0)
    assert (w["busy"], w["longest"], w["turns"]) == (0.75, 0.3, 12)
    assert w["lag"] == [0.01]
    assert [round(v, 2) for v in w["heartbeat"]] == [0.5]
    assert [round(v, 2) for v in w["heartbeat_written"]] == [0.1]


def test_the_monitor_counts_the_turns_of_its_loop() -> None:
    monitor = loop_monitor.Monitor()

    async def a_few_turns() -> None:
        for _ in range(5):
            await asyncio.sleep(0)

    with asyncio.Runner(loop_factory=monitor.loop) as runner:
        runner.run(a_few_turns())
    assert sum(int(row[2]) for row in monitor.seconds.values()) >= 5
