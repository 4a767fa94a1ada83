"""``/stats``: a member's profile card — the picture (a real PNG, drawn for a phone, hostile names and all),
the same facts as text beside it (rating trend, wins by game, best hand, favourite opponent, the games
against the bot), "Post in channel" (public, pinging nobody; forged ids refused), in Italian too — and the
store's read behind it, on SQLite and PostgreSQL, with each game's best hand recorded at its end."""

from __future__ import annotations

import dataclasses
import io
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.edge import custom_ids
from bot.edge.app import TavernBot
from bot.games.seats import bot_id
from bot.pictures import profile as pic
from bot.rules import bhargage as bh
from bot.services.tables.moves import finish_from
from bot.settings import Settings
from bot.store import Finish, NewAction, NewGame, PostgresStore, SQLiteStore, open_store
from tests.conftest import StartBot
from tests.fakediscord import FakeDiscord, FakeMessage
from tests.test_bhargage_discord import challenge
from tests.test_history import finish_one

# ---------------------------------------------------------------- helpers


def png(data: bytes) -> Image.Image:
    """The bytes as an image, checked to be a PNG that opens, and not one flat colour."""
    im = Image.open(io.BytesIO(data))
    im.load()
    assert im.format == "PNG"
    rgb = im.convert("RGB")
    assert len(rgb.getcolors(1 << 16) or ()) > 8, "a blank picture"
    return rgb


def picture_of(fake: FakeDiscord, message: FakeMessage) -> Image.Image:
    [att] = message.attachments
    assert att["filename"] == "profile.png" and att.get("description")
    return png(fake.attachment_bytes(att))


async def play_to_the_end(bot: TavernBot, channel_id: int) -> dict[int, list[int]]:
    """Play the channel's Bhargage table to its end through the table service, each seat taking its first
    legal action; every hand the shows counted, per user id (what "best hand" must come to)."""
    table = await bot.tables.table_for_channel(channel_id)
    assert table is not None
    counted: dict[int, list[int]] = {s.user_id: [] for s in table.seats}
    while not table.is_over():
        seat = table.waiting_for()[0]
        result = await bot.tables.act(
            table.id, table.seats[seat].user_id, bh.legal_actions(table.state, seat)[0]
        )
        for e in result.events:
            if isinstance(e, bh.HandCounted):
                counted[table.seats[e.seat].user_id].append(e.total)
        table = result.table
    return counted


# ---------------------------------------------------------------- through the fake Discord


async def test_profile_card_and_its_facts(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    bot = await start_bot(dataclasses.replace(settings, openings_per_minute=100))
    ann, ben, cat = fake.add_user("ann"), fake.add_user("ben"), fake.add_user("cat")
    await challenge(fake, ann, ben, target=61)  # a few hands: both seats counted
    counted = await play_to_the_end(bot, fake.channel.id)
    assert counted[ann.id] and counted[ben.id]  # the game went through shows
    await finish_one(fake, ann, ben, loser=ben)
    await finish_one(fake, ann, cat, loser=cat)
    await fake.slash(ann, fake.channel, "bhargage practice", level="easy")
    ask = await fake.slash(ann, fake.channel, "bhargage resign")
    await fake.click(ann, ask.message, "Resign")
    await fake.settle()

    mine = await fake.slash(ann, fake.channel, "stats")
    assert mine.ephemeral and mine.message.pinged_user_ids() == []
    text = mine.message.content
    card = picture_of(fake, mine.message)
    assert card.width == pic.WIDTH and 500 < card.height < 1400
    rating = await bot.store.rating_of(fake.guild.id, "bhargage", ann.id)
    assert rating is not None and rating["games"] == 3
    change = round(rating["rating"]) - 1500
    word = "up" if change > 0 else "down"
    assert f"__Bhargage__ · rating {1000 + change}? · {word} {abs(change)} over the last 3 games" in text
    wins, losses = rating["wins"], rating["losses"]
    assert f"3 games · {wins} wins · {losses} loss{'es' if losses != 1 else ''} · " in text
    assert f"Best hand {max(counted[ann.id])}" in text
    assert "Favourite opponent: ben (2 games," in text
    assert (
        "Against the bot (practice: not rated, not on the leaderboard)\nBhargage, easy: 1 game · 0 wins"
        in text
    )
    assert "Deluxe" not in text

    cats = await fake.slash(ann, fake.channel, "stats", player=cat)
    assert "__Bhargage__ · rating " in cats.message.content and " · down " in cats.message.content
    assert "0 wins · 1 loss · 0%" in cats.message.content
    assert "Favourite opponent: ann (1 game, 0 wins)" in cats.message.content
    bens = await fake.slash(cat, fake.channel, "stats", player=ben)
    assert f"Best hand {max(counted[ben.id])}" in bens.message.content
    nobody = await fake.slash(ann, fake.channel, "stats", player=fake.add_user("dan"))
    assert "has not finished a game" in nobody.content and not nobody.message.attachments
    assert not nobody.message.buttons()

    before = len(fake.channel_messages(fake.channel))
    posted = await fake.click(ann, mine.message, "Post in channel")
    public = posted.message
    assert not public.ephemeral and public.channel is fake.channel
    assert len(fake.channel_messages(fake.channel)) == before + 1
    assert public.content == text and not public.buttons()
    assert public.pinged_user_ids() == [] and not public.pings_everyone
    assert (public.allowed_mentions or {}).get("parse") == []
    assert picture_of(fake, public).size == card.size


async def test_post_in_channel_refuses_forged_ids(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await start_bot()
    ann, ben = fake.add_user("ann"), fake.add_user("ben")
    await finish_one(fake, ann, ben, loser=ben)
    mine = await fake.slash(ann, fake.channel, "stats")
    real = mine.message.button("Post in channel").custom_id
    assert real == f"tv:prof:{ann.id}:{ann.id}"
    before = len(fake.channel_messages(fake.channel))
    forged = (
        (ann, f"tv:prof:{ann.id}:{ben.id}"),  # not on the message
        (ben, real),  # not the asker's press
        (ann, f"tv:prof:{ann.id}:{ann.id}:1"),
        (ann, f"tv:prof:{ann.id}:x"),
        (ann, f"tv:prof:{ann.id}:-{ann.id}"),
        (ann, f"tv:prof:{ann.id}:{2**64}"),
    )
    for who, cid in forged:
        data = {"custom_id": cid, "component_type": 2}
        answer = await fake._interact(3, who, fake.channel, data, "forged", message=mine.message)
        assert answer.ephemeral and "out of date" in answer.content
    assert len(fake.channel_messages(fake.channel)) == before


async def test_profile_in_italian(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    await start_bot()
    ann, ben = fake.add_user("ann"), fake.add_user("ben")
    await finish_one(fake, ann, ben, loser=ben)
    ann.locale = "it"
    mine = await fake.slash(ann, fake.channel, "stats")
    text = mine.message.content
    assert "__Bhargage__ · valutazione 1016? · in salita di 16 nell'ultima partita" in text
    assert "1 partita · 1 vittoria · 0 sconfitte · 100%" in text
    assert "Avversario preferito: ben (1 partita, 1 vittoria)" in text
    assert mine.message.button("Pubblica nel canale")
    picture_of(fake, mine.message)
    nobody = await fake.slash(ann, fake.channel, "stats", player=fake.add_user("dan"))
    assert "non ha ancora concluso una partita" in nobody.content


# ---------------------------------------------------------------- the picture alone

HOSTILE = (
    "🐉✨🔥",  # nothing a shipped font has
    "שלום עולם مرحبا",  # right to left
    "Z̸̢̧̛̛a̴̡̛͓l̷̨̛g̶̢̛o̵̢̧" * 3,  # combining marks piled up
    "W" * 200,
    "\u202eevil\u202c <@1> **bold**",
    "",
)


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_draw(name: str) -> None:
    game = pic.GameCard(name, "1032", "+32", 1, (1000, 1016, 1032), name, (name, "Best hand 24"))
    card = pic.ProfileCard(name, name, (game, pic.GameCard("Deluxe", "—", name)), (name,) * 3)
    assert png(pic.draw(card)).width == pic.WIDTH


def test_card_sizes_and_refusals() -> None:
    flat = pic.GameCard("Bhargage", "1000?", "±0", 0, (1000, 1000), "last game", ())
    one = pic.GameCard("Bhargage", "1000?", "", 0, (1000,))
    small = png(pic.draw(pic.ProfileCard("ann", games=(one,))))
    big = png(pic.draw(pic.ProfileCard("ann", "sub", (flat, one), ("a", "b"))))
    assert small.width == big.width == pic.WIDTH and small.height < big.height
    for bad in (
        pic.ProfileCard(3, games=()),  # type: ignore[arg-type]
        pic.ProfileCard("ann", games=[one]),  # type: ignore[arg-type]
        pic.ProfileCard("ann", games=(dataclasses.replace(one, trend=(1.5, 2.0)),)),
        pic.ProfileCard("ann", games=(dataclasses.replace(one, direction=2),)),
        pic.ProfileCard("ann", games=(one,) * (pic.MAX_GAMES + 1)),
    ):
        with pytest.raises(pic.PictureError):
            pic.draw(bad)


# ---------------------------------------------------------------- the store's read and the best hand


def test_best_hand_is_the_highest_hand_score() -> None:
    @dataclasses.dataclass
    class Scored:
        scores: tuple[int, ...] = (104, 80)
        winners: tuple[int, ...] = (0,)
        muggins: bool = False
        how: str = "target"
        hand_scores: tuple[tuple[int, ...], ...] = ((3, -2, 12), ())

    finish = finish_from(Scored(), 1.0)
    assert finish.best_hand == (12, None) and finish.hand_score_avg == (13 / 3, None)
    shows = finish_from(bh.Result((30, 21), (0,), False, "target", (9, 0)), 1.0)
    assert shows.best_hand == (9, 0) and shows.hand_score_avg == ()
    assert finish_from(bh.Result((30, 21), (0,), False, "target"), 1.0).best_hand == ()


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[SQLiteStore | PostgresStore]:
    location = str(tmp_path / "t.db") if request.param == "sqlite" else request.getfixturevalue("pg_url")
    s = await open_store(location)
    assert isinstance(s, SQLiteStore | PostgresStore)
    yield s
    await s.close()


GUILD = 7


async def finished(store: Any, seats: list[tuple[int, str]], winner: int, at: float, **kw: Any) -> int:
    game_id: int = await store.create_game(
        NewGame(kw.pop("game", "bhargage"), GUILD, int(at), 1, seats, {}, at)
    )
    scores = tuple(121 if i == winner else 90 for i in range(len(seats)))
    finish = Finish(scores, (winner,), False, "target", at + 1, **kw)
    await store.append_action(NewAction(game_id, 1, 0, "0 resign", at + 1, finish=finish))
    return game_id


async def test_profile_read(store: SQLiteStore | PostgresStore) -> None:
    ann, ben, cat, easy = (1, "ann"), (2, "ben"), (3, "cat"), (bot_id("easy", 0), "Bot")
    await finished(store, [ann, ben], 0, 10.0, best_hand=(12, 20))
    await finished(store, [ben, ann], 0, 20.0, best_hand=(8, None))
    await finished(store, [ann, cat], 0, 30.0, best_hand=(5, 29))
    await finished(store, [ann, cat], 1, 40.0)
    await finished(store, [ann, easy], 0, 50.0, best_hand=(24, 3))  # against the bot: best hand, no rating
    await finished(store, [ann, easy], 1, 55.0)
    deluxe = (11.5, 2.0, 9.0)
    await finished(
        store, [ann, ben, cat], 2, 60.0, game="deluxe", best_hand=(18, 7, 31), hand_score_avg=deluxe
    )
    await finished(store, [(9, "dee"), ben], 0, 70.0)
    await finished(store, [cat, (9, "dee")], 0, 80.0)

    p = await store.profile(GUILD, 1)
    assert p.name == "ann" and not p.empty
    assert [g.game for g in p.games] == ["bhargage", "deluxe"]
    bh_, dx = p.games
    assert (bh_.games, bh_.wins, bh_.losses, bh_.best_hand) == (4, 2, 2, 24)
    assert bh_.rating is not None and bh_.trend[0] == 1500 and len(bh_.trend) == 5
    assert round(bh_.trend[-1]) == bh_.rating
    assert (dx.games, dx.wins, dx.best_hand, dx.hand_score_avg) == (1, 0, 18, 11.5)
    # 3 games each with ben and cat, the last one together: the lower id
    assert p.favourite is not None and p.favourite.name == "ben"
    assert (p.favourite.user_id, p.favourite.games, p.favourite.wins) == (2, 3, 1)
    assert [(r.game, r.level, r.games, r.wins) for r in p.against_bot] == [("bhargage", "easy", 2, 1)]
    short = await store.profile(GUILD, 1, trend=2)
    assert len(short.games[0].trend) == 3 and short.games[0].trend[-1] == bh_.trend[-1]
    dee = await store.profile(GUILD, 9)
    assert dee.favourite is not None and dee.favourite.name == "cat" and dee.favourite.wins == 0  # met last
    nobody = await store.profile(GUILD, 4)
    assert nobody.empty and nobody.name == "" and nobody.favourite is None
    assert (await store.profile(GUILD + 1, 1)).empty  # another server


def test_custom_ids_parse_strictly() -> None:
    from bot.edge import profile_card

    assert profile_card.parse("tv:prof:12:34") == (12, 34)
    for bad in (
        "tv:prof:12:34:",
        "tv:prof:012:34",
        "tv:prof:0:34",
        "tv:prof:12",
        12,
        None,
        "tv:prof:1:" + "9" * 20,
    ):
        with pytest.raises(custom_ids.Refused):
            profile_card.parse(bad)
    assert re.fullmatch(r"tv:prof:\d+:\d+", "tv:prof:1:2")
