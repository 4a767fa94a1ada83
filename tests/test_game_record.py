"""Game records (``bot.services.game_record``, ``docs/RECORD.md``): many seeded games of both kinds written,
read back and replayed to the same moves, scores and winners; a changed move, seed or result caught; hostile
files refused cleanly; ``/tavern export`` for ended games of the asker's server only; ``python -m bot export``
and ``python -m bot replay`` as the operator runs them."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.base.i18n import speaking
from bot.cli import record_cli
from bot.games import GAMES
from bot.services import game_record as gr
from bot.services import record_grammar as g
from bot.services import record_reader as rr
from bot.services.game_record import RecordError, RecordFile, SeatEntry
from bot.settings import Settings
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeUser
from tests.stored_games import store_finished
from tests.test_bhargage_discord import challenge

REPO = Path(__file__).resolve().parents[1]
HOSTILE = (
    'Mallory"]\n[Seed "1"]',
    "\u202eevil\u2066 name\u2069",
    'back\\slash [bracket] ]" end',
    "x" * 200,
    "Zoë 👩\u200d👩\u200d👧 ملك",
    "tab\tand\rcarriage\u2028line",
)


# ------------------------------------------------------------------------------------------- seeded games


def options_for(game: str, rng: random.Random) -> dict[str, Any]:
    """Options that vary the rules and keep games short."""
    if game == "bhargage":
        return {"target": rng.choice((31, 61, 121)), "sequences": rng.random() < 0.5}
    if game == "cribbage":
        return {
            "target": rng.choice((61, 121)),
            "muggins": rng.random() < 0.4,
            "double_lurch": rng.random() < 0.3,
        }
    return {
        "target": rng.choice((20, 40, 100)),
        "pawns": rng.random() < 0.3,
        "courts": rng.random() < 0.3,
        "fast_start": rng.choice((0, 0, 1, 2, 3)),
    }


def play(game: str, players: int, seed: int, chosen: dict[str, Any] | None = None) -> tuple[RecordFile, Any]:
    """A game the bot's own players play to its end (now and then a seat resigns or leaves midway), as a
    record with hostile names, and the engine's result."""
    adapter = GAMES[game]
    rules = adapter.rules
    rng = random.Random(seed)
    options = adapter.options(options_for(game, rng) if chosen is None else chosen)
    state, _ = rules.start(seed, players, options)
    quit_at = rng.randrange(60) if rng.random() < 0.2 else -1
    level = rng.choice(("easy", "normal", "hard"))
    moves: list[str] = []
    while not rules.is_over(state):
        seat = rules.waiting_for(state)[0]
        if len(moves) == quit_at:
            action = rules.parse_action(f"{seat} {'leave' if game == 'deluxe' else 'resign'}")
        else:
            action = adapter.ai.choose(rules.view(state, seat), rng, level)  # type: ignore[union-attr]
        moves.append(rules.action_text(action))
        state, _ = rules.apply(state, action)
    result = rules.final_result(state)
    seats = [SeatEntry(rng.choice(HOSTILE))]
    for n in range(1, players):
        seats.append(SeatEntry(f"Bot {n + 1} ({level})", level, n + 1) if n % 2 else SeatEntry(f"p{n}"))
    record = RecordFile(
        game=game,
        seed=seed,
        options=tuple(sorted(options.to_dict().items())),
        seats=tuple(seats),
        moves=tuple(moves),
        status="finished",
        result=gr.Outcome(tuple(result.scores), tuple(result.winners), result.how),
        started=1_700_000_000.0 + seed,
        ended=1_700_003_600.0 + seed,
        game_id=seed,
    )
    return record, result


GAMES_PLAYED = (
    [("bhargage", 2, seed) for seed in range(1, 31)]
    + [("deluxe", 2 + seed % 5, seed) for seed in range(1, 31)]
    + [("cribbage", 2 + seed % 3, seed) for seed in range(1, 31)]
)


def test_every_game_is_among_the_seeded_records() -> None:
    assert {game for game, _, _ in GAMES_PLAYED} == set(GAMES)


@pytest.mark.parametrize(("game", "players", "seed"), GAMES_PLAYED)
def test_a_record_reads_back_and_replays_to_the_same_moves_scores_and_winners(
    game: str, players: int, seed: int
) -> None:
    record, result = play(game, players, seed)
    with speaking("it" if seed % 3 == 0 else "en"):
        text = gr.encode(record)
    assert len(text.encode()) < g.MAX_BYTES
    back = rr.decode(text)
    assert back == dataclasses.replace(record, language="it" if seed % 3 == 0 else "en")
    assert back.moves == record.moves and back.seats == record.seats
    replayed = gr.replay_record(back)
    assert replayed.outcome is not None
    assert replayed.outcome.scores == tuple(result.scores)
    assert replayed.outcome.winners == tuple(result.winners)
    assert replayed.replay.finished and replayed.replay.steps[-1].last == len(record.moves)
    with speaking(back.language):
        assert rr.decode(gr.encode(back)) == back  # writing what was read changes nothing
    # Every header line is one line, whatever the names hold.
    headers = [line for line in text.split("\n") if line.startswith("[")]
    assert all(g.HEADER.fullmatch(line) for line in headers)
    assert sum(line.startswith("[Seed ") for line in headers) == 1


def test_a_changed_move_seed_or_result_does_not_reproduce() -> None:
    for game, players, seed in (("bhargage", 2, 5), ("deluxe", 3, 5), ("deluxe", 5, 8), ("cribbage", 2, 5)):
        record, _ = play(game, players, seed)
        for other in (seed + 1, seed + 1000, 0):
            with pytest.raises(RecordError):
                gr.replay_record(dataclasses.replace(record, seed=other))
        moves = list(record.moves)
        first_play = next(i for i, m in enumerate(moves) if " play " in m or " bind " in m)
        seat = moves[first_play].split()[0]
        moves[first_play] = {
            "bhargage": f"{seat} play excuse",
            "deluxe": f"{seat} bind excuse,end,sea",
            "cribbage": f"{seat} claim 99",  # a claim in the play
        }[game]
        with pytest.raises(RecordError, match=f"Move {first_play + 1} "):
            gr.replay_record(dataclasses.replace(record, moves=tuple(moves)))
        with pytest.raises(RecordError, match="Move 1 "):  # the other seat's move
            wrong = f"{1 - int(record.moves[0].split()[0])} {record.moves[0].split(maxsplit=1)[1]}"
            gr.replay_record(dataclasses.replace(record, moves=(wrong, *record.moves[1:])))
        with pytest.raises(RecordError, match="don't finish it"):
            gr.replay_record(dataclasses.replace(record, moves=record.moves[:-1]))
        with pytest.raises(RecordError, match="past its end"):
            gr.replay_record(dataclasses.replace(record, moves=(*record.moves, record.moves[-1])))
        assert record.result is not None
        scores = (record.result.scores[0] + 1, *record.result.scores[1:])
        changed = dataclasses.replace(record, result=dataclasses.replace(record.result, scores=scores))
        with pytest.raises(RecordError, match="the record says"):
            gr.replay_record(changed)
        text = gr.encode(record)
        edited = text.replace(
            f'[Result "{g.write_ints(record.result.scores)}"]', f'[Result "{g.write_ints(scores)}"]'
        )
        assert edited != text
        with pytest.raises(RecordError, match="the record says"):
            gr.replay_record(rr.decode(edited))
        with pytest.raises(RecordError, match="did not finish"):
            gr.replay_record(dataclasses.replace(record, status="abandoned", result=None))


def test_comments_change_nothing_and_an_abandoned_game_keeps_its_moves() -> None:
    record, _ = play("bhargage", 2, 7)
    text = gr.encode(record)
    lines = text.split("\n")
    told = [line for line in lines if line.startswith("; ")]
    assert any("discards are in" in line for line in told) and not any("**" in line for line in told)
    quiet = "\n".join("; nothing to see" if line.startswith(";") else line for line in lines)
    assert rr.decode(quiet) == rr.decode(text)
    bare = gr.encode(record, with_calls=False)
    assert not any(line.startswith("; ") and "discards" in line for line in bare.split("\n"))
    assert rr.decode(bare) == rr.decode(text)
    cut = dataclasses.replace(record, moves=record.moves[:20], status="abandoned", result=None, ended=None)
    back = rr.decode(gr.encode(cut))
    assert back == cut and '[Result "*"]' in gr.encode(cut) and "[Ended " not in gr.encode(cut)
    assert gr.replay_record(back).outcome is None
    deluxe, _ = play("deluxe", 4, 12)
    mid_turn = next(n for n in range(30, 90) if deluxe.moves[n].split()[1] == "draw") + 1  # drawn, not ended
    moves = deluxe.moves[:mid_turn]
    live = dataclasses.replace(deluxe, moves=moves, status="active", result=None, ended=None)
    text = gr.encode(live)
    assert rr.decode(text) == live and text.rstrip("\n").endswith(f"{mid_turn}. {live.moves[-1]}")
    assert gr.replay_record(rr.decode(text)).replay.steps[-1].last < mid_turn  # not told yet: no calls


# ------------------------------------------------------------------------------------------ hostile files


def sample() -> str:
    record, _ = play("bhargage", 2, 3, {"target": 121})
    assert record.result is not None and len(record.result.winners) == 1
    return gr.encode(record)


def replaced(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def test_malformed_and_hostile_files_are_refused_with_a_reason() -> None:
    good = sample()
    cases: list[tuple[str | bytes, str]] = [
        (replaced(good, "decktet-tavern-record 1", "decktet-tavern-record 2"), "version 2 of the format"),
        (replaced(good, "decktet-tavern-record 1", "decktet-tavern-record 1.0"), "version \\? of the format"),
        (
            replaced(good, "decktet-tavern-record 1", "some-other-format 1"),
            "not a Decktet Tavern game record",
        ),
        ("hello\nworld\n", "not a Decktet Tavern game record"),
        ("", "not a Decktet Tavern game record"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8"),
        (good + ";" + "x" * g.MAX_BYTES, "too big"),
        (good + "\n" * g.MAX_LINES, "too many lines"),
        (good + "; " + "x" * g.MAX_LINE + "\n", "too long"),
        (re.sub(r'\[Seed "\d+"\]\n', "", good), "lacks the header Seed"),
        (re.sub(r'\[Seat0 "[^\n]*"\]\n', "", good), "lacks the header Seat0"),
        (replaced(good, '[Game "bhargage"]', '[Game "bhargage"] x'), "not a header"),
        (replaced(good, '[Game "bhargage"]', '[Game  "bhargage"]'), "not a header"),
        (replaced(good, '[Game "bhargage"]', "[Game 'bhargage']"), "not a header"),
        (replaced(good, "[Seed ", '[Seat0 "a"b"]\n[Seed '), "not a header"),
        (replaced(good, "[Seed ", '[Seat9 "a\\x41"]\n[Seed '), "not a header"),
        (replaced(good, "[Seed ", '[Seat9 "\\ud800"]\n[Seed '), "not a header"),
        (replaced(good, "[Seed ", '[Seat0 "one"]\n[Seed '), "Seat0 comes twice"),
        (replaced(good, "[Seed ", '[Seat0 "Mallory"]\n[Seed "1"]\n[Seed '), "comes twice"),
        (replaced(good, "[Seed ", '[Elo "2800"]\n[Seed '), "no header Elo"),
        (replaced(good, "[Seed ", '[Seat2 "ghost"]\n[Seed '), "Seat2 holds a value"),
        (replaced(good, "[Seed ", '[Seat0Bot "godlike 1"]\n[Seed '), "Seat0Bot holds a value"),
        (replaced(good, "[Seed ", "[Seed\u202e "), "control or invisible"),
        (replaced(good, "Hand 1\n", "Hand 1\u0000\n"), "control or invisible"),
        (replaced(good, '[Game "bhargage"]', '[Game "chess"]'), "Game holds a value"),
        (replaced(good, '[Players "2"]', '[Players "3"]'), "Players holds a value"),
        (replaced(good, "target=121", "target=5"), "options can't be played"),
        (replaced(good, "sequences=false", "rocket=true sequences=false"), "options can't be played"),
        (replaced(good, "sequences=false target=121", "target=121 sequences=false"), "Options holds a value"),
        (replaced(good, '[Status "finished"]', '[Status "won"]'), "Status holds a value"),
        (re.sub(r'\[Winners "\d"\]', '[Winners "7"]', good), "Winners holds a value"),
        (re.sub(r'\[Result "[^"]*"\]', '[Result "*"]', good), "Result holds a value"),
        (re.sub(r'\[Date "[^"]*"\]', '[Date "2025-02-30T00:00:00Z"]', good), "Date holds a value"),
        (re.sub(r'\[Seed "\d+"\]', '[Seed "007"]', good), "Seed holds a value"),
        (re.sub(r'\[Moves "\d+"\]', '[Moves "3"]', good), "says it has 3 moves"),
        (replaced(good, "\n1. ", '\n[Seed "9"]\n1. '), "header after the moves"),
        (replaced(good, "\n2. ", "\n3. "), "the next move is number 2"),
        (replaced(good, "\nHand 2\n", "\nHand 3\n"), "the next hand is Hand 2"),
        (replaced(good, "\n1. ", "\nplay the excuse\n1. "), "none of a move"),
        (replaced(good, "\n1. 0 discard", "\n1. 0 DISCARD"), "none of a move"),
        (replaced(good, "\n1. 0 discard ", "\n1. 0 discard nothing "), "Move 1"),
    ]
    for data, reason in cases:
        with pytest.raises(RecordError, match=reason):
            gr.replay_record(rr.decode(data))


def test_a_cribbage_record_keeps_its_capital_cards_and_only_its_engines_spelling() -> None:
    record, _ = play("cribbage", 4, 9)
    text = gr.encode(record)
    first = record.moves[0]
    assert re.search(r"^1\. [0-3] lay [2-9TJQKA][SHDC]$", text, re.M), first  # "0 lay 5H" with four
    assert rr.decode(text).moves == record.moves
    seat, _, card = first.split()
    for other, reason in (
        (f"{seat} LAY {card}", "none of a move"),  # the engine reads it, but writes it otherwise
        (f"{seat} lay {card.lower()}", "Move 1"),  # no card of the pack: the replay refuses it
    ):
        with pytest.raises(RecordError, match=reason):
            gr.replay_record(rr.decode(replaced(text, f"\n1. {first}\n", f"\n1. {other}\n")))


def test_a_name_that_tries_to_inject_a_header_stays_a_name() -> None:
    record, _ = play("bhargage", 2, 4)
    evil = 'Mallory"]\n[Seed "1"]\n[Result "*'
    record = dataclasses.replace(record, seats=(SeatEntry(evil), record.seats[1]))
    text = gr.encode(record)
    assert '[Seat0 "Mallory\\"]\\u000a[Seed \\"1\\"]\\u000a[Result \\"*"]' in text
    back = rr.decode(text)
    assert back.seats[0].name == evil and back.seed == record.seed
    # Written raw, the same name breaks the line and is refused, never read as a header.
    raw = text.replace('[Seat0 "Mallory\\"]\\u000a[Seed \\"1\\"]\\u000a[Result \\"*"]', f'[Seat0 "{evil}"]')
    with pytest.raises(RecordError):
        rr.decode(raw)


def test_random_damage_is_refused_or_read_never_a_crash() -> None:
    good = sample().encode()
    rng = random.Random(31)
    refused = 0
    for _ in range(300):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data))
            how = rng.randrange(3)
            if how == 0:
                data[at] = rng.randrange(256)
            elif how == 1:
                del data[at : at + rng.randint(1, 40)]
            else:
                data[at:at] = bytes(rng.choice(b'"\\[]\n\r; 0123456789abc') for _ in range(rng.randint(1, 5)))
        try:
            gr.replay_record(rr.decode(bytes(data)))
        except RecordError as err:
            refused += 1
            assert str(err) and "{" not in str(err)
    assert refused > 200


def test_refusals_speak_italian() -> None:
    with speaking("it"), pytest.raises(RecordError) as found:
        rr.decode(sample().replace("decktet-tavern-record 1", "decktet-tavern-record 9"))
    with speaking("it"):
        assert "versione 9 del formato" in str(found.value)


def test_the_example_in_the_spec_is_a_record_that_replays() -> None:
    """docs/RECORD.md's example (made by ``encode``, its last show trimmed to a comment) reads and replays;
    its headers and moves are what the code writes for that game now."""
    spec = (REPO / "docs" / "RECORD.md").read_text(encoding="utf-8")
    example = spec.split("<!-- record example -->\n```text\n", 1)[1].split("\n```", 1)[0] + "\n"
    record = rr.decode(example)
    outcome = gr.replay_record(record).outcome
    assert record.game == "bhargage" and outcome is not None and outcome.scores == (25, 34)
    assert record.seats[0].name == 'Ada "the Knot" Lovelace'
    structure = [line for line in example.split("\n") if line and not line.startswith(";")]
    assert structure == [line for line in gr.encode(record).split("\n") if line and not line.startswith(";")]


# ------------------------------------------------------------------------------------ the terminal replay


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_terminal_replay_steps_by_move_and_by_hand(tmp_path: Path) -> None:
    record, result = play("bhargage", 2, 9)
    path = tmp_path / "game.txt"
    path.write_text(gr.encode(record), encoding="utf-8")
    out = io.StringIO()
    assert record_cli.replay_main([str(path)], io.StringIO(), out) == 0
    text = out.getvalue()
    assert "Bhargage — " in text and "#1 " in text and "— Hand 2 —" in text and "Enter" not in text
    assert re.search(rf"Final score: .*{result.scores[0]}.*{result.scores[1]}\. .* won\.", text)
    assert "The replay reproduces the record's result." in text
    screen = Terminal()
    assert record_cli.replay_main([str(path), "--language", "it"], Terminal("\nh\ne\n"), screen) == 0
    shown = screen.getvalue()
    assert "Invio: passo successivo" in shown and shown.count("[Invio / m / e]") == 3
    assert "— Mano 2 —" in shown and "— Mano 3 —" not in shown and "Punteggio finale" not in shown
    bad = tmp_path / "bad.txt"
    bad.write_text(gr.encode(record).replace("decktet-tavern-record 1", "decktet-tavern-record 2"))
    assert record_cli.replay_main([str(bad)], io.StringIO(), io.StringIO()) == 1
    assert record_cli.replay_main([str(tmp_path / "none.txt")], io.StringIO(), io.StringIO()) == 1


# ------------------------------------------------------------------------------------------ through Discord


def run_module(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {"PATH": os.environ.get("PATH", "/usr/bin"), "PYTHONPATH": str(REPO), **env}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=clean,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


async def exported(fake: FakeDiscord, user: FakeUser, game_id: int) -> bytes:
    answer = await fake.slash(user, fake.channel, "tavern export", game=game_id)
    assert answer.ephemeral
    [attachment] = answer.message.attachments
    assert attachment["filename"] == f"decktet-tavern-game-{game_id}.txt"
    assert f"game #{game_id}" in answer.message.text()
    return fake.attachment_bytes(attachment)


async def test_export_gives_a_record_that_replays_to_the_stored_result(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings, tmp_path: Path
) -> None:
    fake = fake_discord
    bot = await start_bot()
    alice, bob = fake.add_user("alice"), fake.add_user("bob_the_\u202ebuilder")
    await challenge(fake, alice, bob)
    for move in ("bhargage resign",):
        ask = await fake.slash(bob, fake.channel, move)
        await fake.click(bob, ask.message, "Resign")
    await fake.settle()
    deluxe = await store_finished(bot, "deluxe", [alice, bob, fake.add_user("cleo")], 11, fake.guild.id)
    for game_id in (1, deluxe):
        data = await exported(fake, alice, game_id)
        stored = await bot.store.load_game(game_id)
        assert stored is not None and stored.status == "finished" and stored.result is not None
        record = rr.decode(data)
        outcome = gr.replay_record(record).outcome
        assert outcome is not None
        assert list(outcome.scores) == stored.result["scores"]
        assert list(outcome.winners) == stored.result["winners"]
        assert record.moves == tuple(a.text for a in stored.actions)
        assert record.game_id == game_id and record.status == "finished"
    record = rr.decode(await exported(fake, bob, 1))
    assert [s.name for s in record.seats] == ["alice", "bob_the_builder"]  # as people read them

    # ``python -m bot replay`` prints the game to its final score.
    path = tmp_path / "exported.txt"
    path.write_bytes(await exported(fake, alice, 1))
    shown = await asyncio.to_thread(run_module, tmp_path, "replay", str(path))
    assert shown.returncode == 0, shown.stderr
    assert record.result is not None
    scores = ", ".join(f"{s.name} {n}" for s, n in zip(record.seats, record.result.scores, strict=True))
    assert f"Final score: {scores}." in shown.stdout and "Traceback" not in shown.stderr

    # ``python -m bot export`` reads the same database and writes the same record.
    out = tmp_path / "from-cli.txt"
    env = {"TAVERN_DB_PATH": str(settings.db_path)}
    written = await asyncio.to_thread(run_module, tmp_path, "export", "1", "--out", str(out), **env)
    assert written.returncode == 0, written.stderr
    assert "Wrote the record of game #1" in written.stdout
    assert out.read_bytes() == path.read_bytes()
    again = await asyncio.to_thread(run_module, tmp_path, "export", "1", "--out", str(out), **env)
    assert again.returncode == 1 and "already exists" in again.stderr
    piped = await asyncio.to_thread(run_module, tmp_path, "export", str(deluxe), **env)
    assert piped.returncode == 0 and rr.decode(piped.stdout).game == "deluxe"
    missing = await asyncio.to_thread(run_module, tmp_path, "export", "999", **env)
    assert missing.returncode == 1 and "no game #999" in missing.stderr
    nowhere = await asyncio.to_thread(
        run_module, tmp_path, "export", "1", TAVERN_DB_PATH=str(tmp_path / "x.db")
    )
    assert nowhere.returncode == 2 and "no database" in nowhere.stderr and not (tmp_path / "x.db").exists()


async def test_a_live_game_and_other_servers_games_are_not_exported(
    fake_discord: FakeDiscord, start_bot: StartBot
) -> None:
    fake = fake_discord
    other = fake.add_channel("far", fake.add_guild("Far Tavern"))
    bot = await start_bot()
    alice, bob, cleo = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("cleo")
    await challenge(fake, alice, bob)
    for user in (alice, bob, cleo):  # its own players too: the seed would show every hidden card
        answer = await fake.slash(user, fake.channel, "tavern export", game=1)
        assert answer.ephemeral and not answer.message.attachments
        assert "Game #1 is still being played" in answer.text() and "once it ends" in answer.text()
    dan, eve = fake.add_user("dan"), fake.add_user("eve")
    elsewhere = await store_finished(bot, "bhargage", [dan, eve], 3, fake.guild.id + 1)
    for game_id in (elsewhere, 9999):
        answer = await fake.slash(alice, fake.channel, "tavern export", game=game_id)
        assert answer.ephemeral and not answer.message.attachments
        assert answer.text() == f"There is no game #{game_id} here."
    far = await store_finished(bot, "bhargage", [dan, eve], 5, other.guild.id, other.id)  # type: ignore[union-attr]
    answer = await fake.slash(alice, other, "tavern export", game=far)
    assert answer.ephemeral and len(answer.message.attachments) == 1
    answer = await fake.slash(alice, fake.channel, "tavern export", game=far)
    assert answer.text() == f"There is no game #{far} here."
