"""The table in a browser, its pages (``bot/edge/web``: sight, pages, cards): real games played through the
engines and adapters, shown as HTML — public information only (no card of a hidden hand, the deck or the
crib, whatever the step), every name escaped, nothing inline that the Content-Security-Policy forbids, the
cards as real PNGs from a strictly parsed name, English and Italian by the browser's language."""

from __future__ import annotations

import html
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from html.parser import HTMLParser
from typing import Any

import pytest

from bot.base.i18n import speaking
from bot.edge.web import cards, pages, parts
from bot.edge.web.sight import Call, Sight, calls, plain_lines, replay_step, sight
from bot.games import GAMES, Seat, Table
from bot.games.seats import bot_id, bot_name
from bot.pictures import BACK, Row, Scene
from bot.render import cribbage_words as cw
from bot.render import words
from bot.render.deluxe import MELD_EMOJI
from bot.rules import deluxe as dx
from bot.rules import pack52
from bot.rules.decktet import ALL_CARDS, Suit
from bot.services import record_grammar as g
from bot.services import replay as rp

HOSTILE = "<script>alert(\"x\")</script> & 'q' \u202eevil\u2066"
ARABIC = "Zoë 👩\u200d👩\u200d👧 ملك"
NAMES = (HOSTILE, ARABIC, "Bo", "Cy")
PLAYERS = {"bhargage": (2,), "deluxe": (2, 4), "cribbage": (2, 3, 4)}
IT_HEADER = "it-IT,it;q=0.9,en;q=0.5"


# ------------------------------------------------------------------------------------------------ games


@cache
def replay_of(game: str, players: int, seed: int = 3) -> rp.Replay:
    """A whole game the bot's own players play (the last seat a computer player), walked step by step."""
    adapter = GAMES[game]
    rules = adapter.rules
    rng = random.Random(seed)
    options = adapter.options({})
    state, _ = rules.start(seed, players, options)
    moves: list[str] = []
    while not rules.is_over(state):
        seat = rules.waiting_for(state)[0]
        action = adapter.ai.choose(rules.view(state, seat), rng, "easy")  # type: ignore[union-attr]
        moves.append(rules.action_text(action))
        state, _ = rules.apply(state, action)
    seats = [Seat(1000 + n, NAMES[n]) for n in range(players - 1)]
    seats.append(Seat(bot_id("easy", 0), bot_name("easy", 0)))
    table = Table(
        id=41,
        game=game,
        adapter=adapter,
        guild_id=1,
        channel_id=2,
        seed=seed,
        options=options,
        seats=tuple(seats),
        state=None,
        seq=0,
        created_at=0.0,
        last_action_at=0.0,
    )
    return rp.walk(adapter, table, moves)


def tables() -> Iterator[tuple[str, int]]:
    for game, counts in PLAYERS.items():
        for players in counts:
            yield game, players


def hidden(game: str, state: Any) -> set[Any]:
    """Every card no one but its holder (or no one at all) may see in ``state``, from the engine's state."""
    out: set[Any] = set()
    if game == "bhargage":
        groups = (*state.hands, *state.discards, state.bhargage, state.deck)
    elif game == "deluxe":
        groups = (*state.hands, state.deck, (state.drawn,) if state.drawn else ())
    else:
        groups = (*state.hands, *state.laid, state.crib, state.deck)
    for group in groups:
        out.update(group)
    return out


def scene_list(scene: Scene | None) -> list[Any]:
    """Every card a scene shows, in order (twins twice)."""
    if scene is None:
        return []
    return [c for part in scene.parts if isinstance(part, Row) for group in part.groups for c in group]


def scene_cards(scene: Scene | None) -> set[Any]:
    return set(scene_list(scene))


def table_list(seen: Sight) -> list[Any]:
    """Every card the table shows face up, in order: the board's scene, then what lies before each seat
    (a Deluxe seat's melds)."""
    rows = [seat.row for seat in seen.seats if seat.row is not None]
    return [*scene_list(seen.scene), *(c for row in rows for group in row.groups for c in group)]


def faces_drawn(fragment: str) -> Counter[str]:
    """The card faces a fragment draws (a hand's or the deck's backs and the suits' symbols are not faces)."""
    return Counter(re.findall(r'<img class="card[^"]*" src="/c/en/([^"]+)"', fragment))


def backs_drawn(fragment: str) -> list[str]:
    """Every face-down card a fragment draws for a hidden hand or the deck, as its whole tag."""
    return re.findall(r'<img class="back"[^>]*>', fragment)


def card_marks(card: Any) -> list[str]:
    """What would give a card away in a page: its picture's path, its alt text, its name as text."""
    paths = {cards.card_file(card, "count"), cards.card_file(card, "suits")}
    out = [f"/c/en/{p}" for p in paths] + [f'alt="{html.escape(cards.card_words(card))}"']
    if isinstance(card, pack52.Card):
        out += [cw.short(card), cw.name(card)]
    else:
        out += [words.title(card)]
    return out


# ------------------------------------------------------------------------------------------------ HTML


class Tags(HTMLParser):
    """Every tag with its attributes, and the page's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(page: str) -> Tags:
    found = Tags()
    found.feed(page)
    found.close()
    return found


def assert_safe(page: str) -> None:
    """Nothing the CSP forbids or that reaches another origin: scripts only by ``src`` from ``/static``, no
    ``style`` attribute or element, no ``on…`` handler, every address on this site."""
    found = parsed(page)
    for tag, attrs in found.tags:
        assert tag != "style", page
        assert not any(a == "style" or a.startswith("on") for a in attrs), (tag, attrs)
        if tag == "script":
            assert (attrs.get("src") or "").startswith("/static/"), attrs
        for key in ("src", "href", "action", "data-ws"):
            value = attrs.get(key)
            if value is not None:
                assert value.startswith(("/", "?", "#")) and not value.startswith("//"), (tag, attrs)
    assert not re.search(r"<script(?![^>]*\bsrc=)", page)
    assert "http://" not in page and "https://" not in page and "javascript:" not in page


def step_html(replay: rp.Replay, index: int, lang: str = "en") -> tuple[Sight, Call, str]:
    table = replay.at(index)
    with speaking(lang):
        seen, said = sight(table), calls(table, replay.steps[index].events)
    return seen, said, pages.table_html(seen, [said], lang)


# ------------------------------------------------------------------------------------------------ live


@pytest.mark.parametrize(("game", "players"), list(tables()))
def test_a_live_table_shows_its_score_and_every_board_card(game: str, players: int) -> None:
    replay = replay_of(game, players)
    for index in (0, len(replay.steps) // 3, len(replay.steps) // 2, len(replay.steps) - 1):
        seen, said, fragment = step_html(replay, index)
        assert seen.game == game and seen.seq == replay.steps[index].last
        assert parts.line_html(seen.score) in fragment  # (its emoji left out: the page draws none)
        assert seen.scene is not None
        for card in set(table_list(seen)) | scene_cards(said.scene):
            assert f'alt="{html.escape(cards.card_words(card))}"' in fragment, (game, index, card)
        for line in seen.board:
            assert parts.line_html(line) in fragment
        for line in said.lines:
            assert "**" not in line and "<@" not in line and "\u202e" not in line
            assert parts.line_html(line) in fragment or html.escape(line) in fragment  # (a score table)
        page = pages.live_page(seen, [said], lang="en", ws_path="/t/41.9.sig/ws", replay_url="/r/41.sig")
        assert_safe(page)
        assert 'id="table"' in page and 'data-ws="/t/41.9.sig/ws"' in page and fragment in page
        assert ('id="after" class="after" hidden' in page) is (not seen.over)


@pytest.mark.parametrize(("game", "players"), list(tables()))
def test_no_card_of_a_hidden_hand_the_deck_or_the_crib_is_ever_shown(game: str, players: int) -> None:
    """At every step, the board's page (the part a step's state makes: no calls) names and draws none of
    the cards the engine keeps hidden: hands, lay-aways, the bhargage or crib, the deck, a Deluxe draw."""
    replay = replay_of(game, players)
    checked = 0
    for index in range(len(replay.steps)):
        table = replay.at(index)
        seen = sight(table)
        fragment = pages.table_html(seen, [], "en")
        assert seen.scene is not None
        shown = table_list(seen)
        assert faces_drawn(fragment) == Counter(cards.card_file(c, seen.scene.worth) for c in shown)
        # a hand and the deck are face down: the same picture, no words, whatever the cards
        assert set(backs_drawn(fragment)) <= {
            '<img class="back" src="/c/en/back.png" alt="" width="46" height="64">',
            '<img class="back" src="/c/en/back.png" alt="" width="64" height="90">',
        }
        secret = hidden(game, table.state) - set(shown)  # Deluxe: a twin may be public
        checked += bool(secret)
        for card in secret:
            for mark in card_marks(card):
                assert mark not in fragment, (game, index, card, mark)
    assert checked > len(replay.steps) // 2


def test_the_three_player_crib_card_and_the_crib_stay_face_down() -> None:
    replay = replay_of("cribbage", 3)
    table = replay.at(0)
    assert len(table.state.crib) == 1  # dealt from the deck at once
    seen, _, fragment = step_html(replay, 0)
    for mark in card_marks(table.state.crib[0]):
        assert mark not in pages.table_html(seen, [], "en")
    cut = next(i for i, s in enumerate(replay.steps) if replay.at(i).state.phase.name == "PLAY")
    seen, _, fragment = step_html(replay, cut)
    assert BACK in scene_cards(seen.scene)
    assert fragment.count('alt="face down"') == 4 and faces_drawn(fragment)["back.png"] == 4


def test_a_show_is_told_with_everyones_cards_as_they_were_shown() -> None:
    replay = replay_of("bhargage", 2)
    index = next(i for i, s in enumerate(replay.steps) if calls(replay.at(i), s.events).scene is not None)
    _seen, said, fragment = step_html(replay, index)
    assert said.scene is not None and said.alt
    shown = scene_cards(said.scene)
    assert len(shown) >= 4
    for card in shown:
        assert f'src="/c/en/{cards.card_file(card)}"' in fragment


def test_a_score_table_keeps_its_columns() -> None:
    replay = replay_of("deluxe", 2)
    index = next(i for i, s in enumerate(replay.steps) if calls(replay.at(i), s.events).code)
    _, said, fragment = step_html(replay, index)
    block = re.search(r'<pre class="code">(.*?)</pre>', fragment, re.S)
    assert block is not None
    assert block.group(1).split("\n") == [html.escape(said.lines[n]) for n in sorted(said.code)]


def test_hostile_names_stay_text() -> None:
    replay = replay_of("cribbage", 3)
    seen, said, _fragment = step_html(replay, 5)
    page = pages.live_page(seen, [said], lang="en", ws_path="/t/x/ws", replay_url=None)
    assert_safe(page)
    assert "<script>alert" not in page and "\u202e" not in page and "\u2066" not in page
    assert html.escape("<script>alert(\"x\")</script> & 'q' evil") in page
    assert ARABIC in page and "\u200d" in page  # joiners kept: the emoji stay one
    assert f"\u2068{ARABIC}\u2069" in seen.score  # set apart: the score after it stays in its place
    text = "".join(parsed(page).text)
    assert "<script>alert(\"x\")</script> & 'q' evil" in text
    assert seen.players[0] == "<script>alert(\"x\")</script> & 'q' evil"
    assert seen.players[-1] == "Bot (easy)" and 'id="after"' not in page


def test_italian_by_the_browsers_language() -> None:
    lang = pages.language(IT_HEADER)
    assert lang == "it"
    replay = replay_of("bhargage", 2)
    seen, said, _fragment = step_html(replay, 4, lang)
    page = pages.live_page(seen, [said], lang=lang, ws_path="/t/x/ws", replay_url="/r/y")
    assert (
        '<html lang="it">' in page and "Cosa ha detto il tavolo" in page and 'data-live="In diretta"' in page
    )
    assert "/c/it/d" in page and "/c/en/d" not in page
    assert any(w in seen.score for w in ("Mano", "mano"))
    card = next(iter(scene_cards(seen.scene) - {BACK}))
    with speaking("it"):
        assert f'alt="{html.escape(cards.card_words(card))}"' in page


@pytest.mark.parametrize(
    ("header", "asked", "expected"),
    [
        (IT_HEADER, None, "it"),
        ("en-GB,en;q=0.9,it;q=0.8", None, "en"),
        ("fr-FR,fr;q=0.9,it;q=0.5,en;q=0.3", None, "it"),
        ("en;q=0.2, it;q=0.7", None, "it"),
        ("it;q=0, en", None, "en"),
        ("it;q=abc", None, "en"),
        ("de, *;q=0.5", None, "en"),
        ("IT", None, "it"),
        (None, None, "en"),
        ("", None, "en"),
        ("x" * 5000, None, "en"),
        (IT_HEADER, "en", "en"),
        ("en", "IT", "it"),
        ("en", "it-IT", "it"),
        ("en", "de", "en"),
    ],
)
def test_the_language_of_a_page(header: str | None, asked: str | None, expected: str) -> None:
    assert pages.language(header, asked) == expected


# ------------------------------------------------------------------------------------------------ replay


def replay_html(replay: rp.Replay, index: int, lang: str = "en") -> str:
    with speaking(lang):
        step = replay_step(replay, index)
    return pages.replay_page(step, lang=lang, record_path="/r/41.sig/record")


def links(page: str) -> dict[str, str]:
    return {
        a["data-which"] or "": a["href"] or "" for t, a in parsed(page).tags if t == "a" and "data-which" in a
    }


def test_a_replay_steps_by_move_and_by_hand_with_plain_links() -> None:
    replay = replay_of("cribbage", 2)
    last = len(replay.steps) - 1
    first = replay_html(replay, 0)
    assert_safe(first)
    assert links(first) == {  # in the page's language, however it was chosen
        "next": "?step=1&lang=en",
        "hand+": f"?step={replay.hand_starts()[1]}&lang=en",
        "last": f"?step={last}&lang=en",
    }
    assert links(replay_html(replay, 0, "it"))["next"] == "?step=1&lang=it"
    assert "Step 1 of" in first and f"Hand 1 of {replay.steps[-1].hand}" in first
    assert 'href="/r/41.sig/record" download' in first and "Download the game record" in first
    assert f'<script src="{pages.versioned("replay.js")}" defer>' in first and "Final score" not in first
    middle = replay_html(replay, 10)
    assert set(links(middle)) == {"first", "hand-", "prev", "next", "hand+", "last"}
    assert links(middle)["prev"] == "?step=9&lang=en" and links(middle)["next"] == "?step=11&lang=en"
    end = replay_html(replay, last)
    assert set(links(end)) == {"first", "hand-", "prev"} and "Final score" in end
    seen = sight(replay.at(last))
    assert seen.over and "🏆" in seen.score and parts.line_html(seen.score) in end and "🏆" not in end


def test_the_replay_fragment_is_the_main_region_only() -> None:
    replay = replay_of("deluxe", 2)
    with speaking("it"):
        fragment = pages.replay_fragment(replay_step(replay, 3), "it")
    assert "<html" not in fragment and "<main" not in fragment and "Passo 4 di" in fragment
    assert "Mano successiva" in fragment and "/c/it/s" in fragment  # Deluxe faces show their points
    assert fragment in replay_html(replay, 3, "it")


# ------------------------------------------------------------------------------------------------ others


def test_the_server_page_lists_live_tables() -> None:
    seen = sight(replay_of("bhargage", 2).at(3))
    entries = [
        ("https://tavern.example/t/41.9.sig", seen),
        ("javascript:alert(1)", seen),
        ("//x.example/t", seen),
    ]
    page = pages.server_page(entries, lang="en")
    assert_safe(page)
    assert (
        page.count(html.escape(seen.title)) >= 3
        and 'href="/t/41.9.sig"' in page
        and page.count('href="#"') == 2
    )
    empty = pages.server_page([], lang="it")
    assert "Tavoli in corso" in empty and "<ul" not in empty


def test_message_pages_say_why_in_the_readers_language() -> None:
    page = pages.message_page(410, "web.error.expired", lang="en")
    assert_safe(page)
    assert "ask for a new link with /tavern tables" in page and "410" in page
    assert "/taverna tavoli" in pages.message_page(410, "web.error.expired", lang="it")
    assert "Too many requests" in pages.message_page(429, "nonsense <b>", lang="en")
    assert "<b>" not in pages.message_page(400, "<b>", lang="en")
    for msgid in pages.ERRORS:
        assert pages.message_page(404, msgid, lang="it") != pages.message_page(404, msgid, lang="en")


def test_static_files() -> None:
    for name, kind in (
        ("tavern.css", "text/css"),
        ("live.js", "text/javascript"),
        ("replay.js", "text/javascript"),
    ):
        found = pages.static(name)
        assert found is not None and found[1].startswith(kind) and found[0]
        body = found[0].decode()
        assert "http://" not in body and "https://" not in body and "@import" not in body
        if name.endswith(".js"):
            assert '"use strict"' in body and "eval(" not in body and "Function(" not in body
    for bad in ("../pages.py", "tavern.CSS", "", "static/live.js", "live.js/", "x.js"):
        assert pages.static(bad) is None


# ------------------------------------------------------------------------------------------------ cards


def test_card_pictures_are_real_pngs_for_exactly_the_cards() -> None:
    good = ["d0.png", "d12.png", f"d{len(ALL_CARDS) - 1}.png", "s12.png", "f5H.png", "fTC.png", "fAS.png"]
    good += ["fKD.png", "back.png"]
    for name in good:
        for lang in ("en", "it"):
            png = cards.card_png(name, lang)
            assert png is not None and png.startswith(b"\x89PNG"), name
    assert cards.card_png("d12.png", "en") != cards.card_png("d12.png", "it")  # the name on the face
    assert cards.card_png("d12.png", "en") != cards.card_png("s12.png", "en")  # the badge
    assert cards.card_png("f5H.png", "en") == cards.card_png("f5H.png", "it")
    bad = ["../x", "d99.png", "d45.png", "d1.PNG", "f5h.png", "f10H.png", "f1H.png", "d01.png", "d-1.png"]
    bad += [
        "d1.png/..",
        "back.PNG",
        "BACK.png",
        "d1",
        "d1.png ",
        " d1.png",
        "d1.png\n",
        "x.png",
        "",
        "f5X.png",
    ]
    for name in bad:
        assert cards.card_png(name, "en") is None, name
    assert cards.card_png("d1.png", "fr") is None and cards.card_png("d1.png", "../en") is None


def test_every_card_of_a_scene_has_a_file_and_words() -> None:
    every: list[cards.AnyCard] = [*ALL_CARDS, *pack52.FULL_PACK, BACK]
    for card in every:
        name = cards.card_file(card)
        assert cards.card_png(name, "en") is not None
        with speaking("it"):
            assert cards.card_words(card)
    assert cards.card_words(BACK) == "face down"
    with speaking("it"):
        assert cards.card_words(BACK) == "coperta"
    forest = next(c for c in ALL_CARDS if c.slug == "forest")
    assert cards.card_words(forest) == "Forest (5; Moons and Leaves)"
    assert cards.card_words(pack52.card("5H")) == "Five of hearts"


def test_a_board_without_a_picture_says_its_alt_text() -> None:
    seen = sight(replay_of("bhargage", 2).at(2))
    bare = replace(seen, scene=None, alt='Board <b> "x"')
    fragment = pages.table_html(bare, [], "en")
    assert "Board &lt;b&gt; &quot;x&quot;" in fragment and not faces_drawn(fragment)


# ------------------------------------------------------------------------------------------------ the table


def seat_items(fragment: str) -> list[str]:
    """Each seat's place in a fragment, top row then bottom row, as its HTML."""
    return re.findall(r'<li class="seat seat\d[^"]*".*?</li>', fragment)


@pytest.mark.parametrize(("game", "players"), list(tables()))
def test_each_seat_shows_how_many_cards_it_holds_never_which(game: str, players: int) -> None:
    """Every seat is at the table with its score and its hand face down, counted (the backs, the words),
    and the deck's size is said: counts only, from the state, whatever the step."""
    replay = replay_of(game, players)
    for index in range(0, len(replay.steps), max(1, len(replay.steps) // 25)):
        table = replay.at(index)
        state = table.state
        seen, _, fragment = step_html(replay, index)
        if seen.over:
            continue
        assert [s.name for s in seen.seats] == list(seen.players)
        assert [s.held for s in seen.seats] == [len(h) for h in state.hands]
        assert seen.deck == len(state.deck)
        items = seat_items(fragment)
        places = dict(zip(re.findall(r'class="seat-name">([^<]*)<', "".join(items)), items, strict=True))
        assert len(places) == players
        for seat in seen.seats:
            place = places[html.escape(seat.name)]
            gone = seat.gone and "Left the game" in place
            held = f"{seat.held} card in hand" if seat.held == 1 else f"{seat.held} cards in hand"
            assert gone or held in place, (index, seat, place)
            assert gone or len(backs_drawn(place)) == min(seat.held or 0, parts.HAND_BACKS)
        deck = f"{seen.deck} cards in the deck" if seen.deck != 1 else "1 card in the deck"
        assert deck in fragment


@pytest.mark.parametrize(("game", "players"), list(tables()))
def test_the_seats_the_game_waits_for_are_marked_and_said(game: str, players: int) -> None:
    """Whose turn it is is unmistakable: the seat's place is marked (and ``aria-current``), the bar above the
    table says it in words, with the time of the last move for the page to count the idle time from."""
    replay = replay_of(game, players)
    for index in (1, len(replay.steps) // 3, len(replay.steps) // 2):
        table = replay.at(index)
        table = replace(table, last_action_at=1_700_000_042.0)
        with speaking("en"):
            seen = sight(table)
            fragment = pages.table_html(seen, [], "en")
        waited = set(table.waiting_for())
        assert {n for n, s in enumerate(seen.seats) if s.turn} == waited
        marked = [item for item in seat_items(fragment) if 'aria-current="true"' in item]
        assert len(marked) == len(waited) and all(" turn" in m and "To play" in m for m in marked)
        with speaking("en"):
            said = " ".join(g.plain(table.adapter.waiting_text(table), lambda uid: "?"))
        bar = re.search(r'<div class="turn-bar">(.*?)</div>', fragment)
        assert bar is not None and html.escape(said.split(" ")[0]) in bar[1]
        assert '<time class="idle-time" data-since="1700000042">' in bar[1]


def test_the_seats_sit_around_the_board_each_marked_with_its_number() -> None:
    """The fragment seats the first half across the top and the rest back along the bottom, the same for
    every viewer (one frame per table and language); each seat carries its number (``data-seat``), by which
    the Activity's page moves a seated player's own seat to the bottom (tests/test_activity_browser.py)."""
    replay = replay_of("deluxe", 4)
    seen = sight(replay.at(30))
    names = [html.escape(s.name) for s in seen.seats]

    def rows(fragment: str) -> list[list[tuple[str, str]]]:
        top = fragment[fragment.index('<ul class="seats top"') : fragment.index('<div class="centre">')]
        bottom = fragment[fragment.index('<ul class="seats bottom"') : fragment.index('id="log"')]
        seat = r'data-seat="([0-9]+)"[^>]*><p class="seat-head"><bdi class="seat-name">([^<]*)<'
        return [[(n, name) for n, name in re.findall(seat, row)] for row in (top, bottom)]

    watched = pages.table_html(seen, [], "en")
    assert rows(watched) == [[("0", names[0]), ("1", names[1])], [("3", names[3]), ("2", names[2])]]
    assert "own-seat" not in watched


@pytest.mark.parametrize(("game", "players"), list(tables()))
def test_the_log_is_newest_first_without_prompts_or_the_text_pegboard(game: str, players: int) -> None:
    """The calls of the last steps, newest first (the newest marked), none of the lines calling a player
    to act (the announcement's ping: "your turn", "your new hand is on your panel") and, where the board
    draws the pegs, none of the pegboard in text."""
    replay = replay_of(game, players)
    prompts: set[str] = set()
    pegboards: set[str] = set()  # the lines of the code blocks the channel was told (not a score table's)
    said: list[Call] = []
    for index in range(len(replay.steps)):
        table = replay.at(index)
        with speaking("en"):
            told = table.adapter.announce(table, replay.steps[index].events)
            if told.ping:
                prompts.update(g.plain(told.ping, lambda uid: "?"))
            text, code = plain_lines("\n".join(told.messages), lambda uid: "?")
            pegboards.update(line for n, line in enumerate(text) if n in code and "|" not in line)
            said.append(calls(table, replay.steps[index].events))
    assert prompts, "the game calls nobody to act: nothing to check"
    kept = [c for c in said if c.lines or c.scene is not None]
    seen = sight(replay.at(len(replay.steps) // 2))
    fragment = pages.table_html(seen, kept, "en")
    log = fragment[fragment.index('id="log"') :]
    seqs = [int(n) for n in re.findall(r'<li class="call[^"]*" data-seq="(\d+)"', log)]
    assert seqs == sorted(seqs, reverse=True) and len(seqs) == len(kept)
    newest = re.findall(r'<li class="call newest" data-seq="(\d+)"', log)
    assert newest == [str(seqs[0])]
    lines = {line for c in kept for line in c.lines}
    for prompt in prompts:
        tail = prompt.split(":", 1)[-1].split(",", 1)[-1].strip()  # the words after the name(s)
        assert not any(tail in line for line in lines), (prompt, tail)
    if game in ("bhargage", "cribbage"):  # the board draws the pegs: the channel's text of them is left out
        assert pegboards, "the channel was told no pegboard: nothing to check"
        assert '<pre class="code">' not in log and not any(c.code for c in kept)
        assert not pegboards & lines


def test_a_shows_picture_comes_with_its_own_lines_before_the_next_hands_deal() -> None:
    """A step that shows the hands and deals the next one: the show's cards come right after the show's
    lines, before the new hand's "deals" line (as Discord shows the picture with its message)."""
    for game in ("bhargage", "cribbage"):
        replay = replay_of(game, 2)
        checked = 0
        for index, step in enumerate(replay.steps):
            table = replay.at(index)
            with speaking("en"):
                said = calls(table, step.events)
            if said.scene is None or said.scene_at is None or said.scene_at == len(said.lines):
                continue
            fragment = pages.table_html(sight(table), [said], "en")
            log = fragment[fragment.index('id="log"') :]
            scene = log.index('<div class="scene">')
            after = said.lines[said.scene_at]
            assert "deal" in after.lower(), after
            assert log.index(parts.line_html(after)) > scene, (game, index)
            assert log.index(parts.line_html(said.lines[said.scene_at - 1])) < scene
            checked += 1
        assert checked, f"{game}: no step both shows and deals"


def test_suits_are_the_bots_own_pictures() -> None:
    """No suit emoji reaches a page (they need a colour-emoji font the page does not ship): each is the
    bot's symbol, a picture with the suit's name as its alt text; no other emoji either (a meld's mark
    would be an empty box)."""
    emoji = [suit.emoji.rstrip("\ufe0f") for suit in Suit]
    replay = replay_of("deluxe", 2)
    drawn: set[str] = set()
    binds = 0
    for index in range(0, len(replay.steps), 7):
        _, _, fragment = step_html(replay, index)
        page = pages.replay_page(replay_step(replay, index), lang="en", record_path="/r/x/record")
        for text in (fragment, page):
            assert not any(e in text for e in emoji), index
            assert not any(mark in text for mark in MELD_EMOJI.values()), index
        binds += fragment.count(" bound a ")
        drawn.update(re.findall(r'<img class="suit" src="/c/en/u\d\.png" alt="([A-Za-z]+)"', fragment))
    assert drawn == {words.suit(s) for s in Suit}
    assert binds > 0  # the melds' calls were among those looked at
    for n in range(6):
        png = cards.card_png(f"u{n}.png", "en")
        assert png is not None and png.startswith(b"\x89PNG") and png == cards.card_png(f"u{n}.png", "it")
    assert cards.card_png("u6.png", "en") is None and cards.card_png("u01.png", "en") is None


@pytest.mark.parametrize("players", [2, 4])
def test_a_deluxe_turn_shows_its_moves_in_order_a_draw_face_down(players: int) -> None:
    """Each move of a Deluxe turn is drawn in the order it was made — a draw from the deck as a card back
    (the event names no card), the cards taken, bound and discarded — right after the lines telling them,
    before a hand's score or the next deal told in the same step."""
    replay = replay_of("deluxe", players)
    draws = ends = 0
    for index, step in enumerate(replay.steps):
        table = replay.at(index)
        with speaking("en"):
            said = calls(table, step.events)
        kinds = [
            e
            for e in step.events
            if isinstance(e, dx.CardDrawn | dx.QueueTaken | dx.MeldBound | dx.CardDiscarded)
        ]
        if not kinds:
            continue
        assert said.scene is not None and said.scene_at is not None
        [row] = said.scene.parts
        assert isinstance(row, Row)
        groups = [
            group for group, label in zip(row.groups, row.labels, strict=True) if label != "Ace to its pile"
        ]
        for event, group in zip(kinds, groups, strict=True):
            if isinstance(event, dx.CardDrawn):
                assert group == (BACK,)
                draws += 1
            elif isinstance(event, dx.CardDiscarded):
                assert group == (event.card,)
            else:
                assert group == tuple(event.cards)
        if said.code:  # a hand scored in this step: its sheet comes after the moves' cards
            assert said.scene_at < min(said.code)
            ends += 1
    assert draws and ends
