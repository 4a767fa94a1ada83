"""Table talk (issue 46): the muggins claim typed as its points and the lines that say what was pegged
(item 5); the ritual clicks as terminal flags, with tips right for each front (item 7); card names taken as
players type them, in both languages (item 9); and the smaller ones — the 4-player intro, whole names on the
text board, one Italian word for the Hint, capitals at the start of the show's lines, the README's
``--language``, the disabled choices' wording."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.base.i18n import ENGLISH, catalog, speaking, t
from bot.base.panel import Button, Option, Select
from bot.cli import play
from bot.cli.play_args import prefs_of
from bot.cli.play_menu import numbered
from bot.games import GAMES, Prefs
from bot.games import bhargage as bhargage_adapter
from bot.games.cribbage import count_answer, read_cards
from bot.games.prefs import DEFAULT
from bot.render import cribbage as R
from bot.render import strip_article, words
from bot.render.board import Lane, draw_board
from bot.render.cards import find_card
from bot.render.cribbage_words import label, name, read_card, short, show_count
from bot.render.refusals import said
from bot.rules import bhargage as bh
from bot.rules import cribbage as C
from bot.rules.cribbage_scoring import count_show
from bot.rules.decktet import card as decktet_card
from bot.rules.errors import UnknownCard
from bot.rules.pack52 import FULL_PACK, RANK_CHARS, card, cards
from tests.test_play_terminal import Player, crib_choose, run, run_cribbage

ROOT = Path(__file__).resolve().parent.parent


def terminal_game(
    game: str,
    *,
    seed: int,
    options: dict[str, Any],
    bots: int = 1,
    prefs: Prefs = DEFAULT,
    language: str = ENGLISH,
    pick: Callable[[play.Terminal], str] = crib_choose,
) -> tuple[play.Terminal, Player, str]:
    """A game to its end through stdin with the player's preferences (the flags), answering by ``pick``."""
    with speaking(language):
        out = io.StringIO()
        player = Player(out)
        adapter = GAMES[game]
        terminal = play.Terminal(
            game, adapter.options(options), bots, "normal", seed, player, out, None, prefs
        )
        player.pick = lambda _chunk: pick(terminal)
        readline = player.readline

        def remember(size: int | None = -1) -> str:
            player.states.append(terminal.table.state)
            return readline(size)

        player.readline = remember  # type: ignore[method-assign]
        assert terminal.run() == 0
    return terminal, player, out.getvalue()


# ---------------------------------------------------------------- item 5: muggins in the terminal


def test_a_claim_is_typed_as_its_points_and_the_lines_say_what_was_pegged() -> None:
    """The claim menus are one question, "type the points": typing 1 claims 1 (it used to claim 0, the first
    line's number); the line before "Muggins!" says the owner pegged 1, not the count."""
    typed: list[tuple[int, int]] = []

    def under_claim(terminal: play.Terminal) -> str:
        state = terminal.table.state
        if state.phase is C.Phase.CLAIM and C.waiting_for(state) == (play.HUMAN,):
            _owner, kind, shown = C.show_order(state)[state.show_step]
            true = C.show_total(shown, state.starter, kind == "crib")
            claim = true - 1 if true else 1
            typed.append((true, claim))
            return str(claim)
        return crib_choose(terminal)

    terminal, player, text = terminal_game(
        "cribbage", seed=2, options={"target": 61, "muggins": True}, pick=under_claim
    )
    assert len(typed) >= 2
    made = [e.points for e in terminal.history if isinstance(e, C.ClaimMade) and e.seat == play.HUMAN]
    assert made == [claim for _true, claim in typed]
    asked = [chunk for chunk in player.prompts if "Type your claim" in chunk]
    assert asked and all("Type your claim: the number of points, 0 to 29." in chunk for chunk in asked)
    assert not any(" 0 points" in chunk or "  1. " in chunk for chunk in asked)  # no numbered lines
    for true, claim in typed:
        assert f"Player claims {claim} (the count is {true})." in text
        assert f"— {min(claim, true)} for Player (" in text
    muggins = [e for e in terminal.history if isinstance(e, C.MugginsTaken) and e.owner == play.HUMAN]
    assert [e.points for e in muggins] == [abs(true - claim) for true, claim in typed]


@pytest.mark.parametrize("language", ["en", "it"])
def test_the_line_before_muggins_says_the_claim_and_what_the_owner_pegged(language: str) -> None:
    hand, starter = cards("2C 3D 4H 9S"), card("5D")
    items = count_show(hand, starter)  # 15 for 2 and a run of 4: 6
    counted = C.HandCounted(1, 1, "hand", hand, starter, items, 6, 5, 25, claimed=5)
    under = C.MugginsTaken(side=0, seat=0, owner=1, points=1, total_after=13, over=False)
    with speaking(language):
        lines = R.Lines(("Ann", "Bo"), 2, 121).of([counted, under])
        count = words.capital(show_count(items))
    if language == ENGLISH:
        assert lines == [
            "Bo claims 5 (the count is 6).",
            "• 15 for 2 — 2♣ 4♥ 9♠",
            "• a run of 4 — 2♣ 3♦ 4♥ 5♦",
            f"**{count}** — 5 for Bo (25)",
            "**Muggins!** 1 for Ann (13): Bo left 1 out.",
        ]
    else:
        assert lines == [
            "Bo dichiara 5 (i punti sono 6).",
            "• 15 per 2 — 2♣ 4♥ 9♠",
            "• scala di 4 — 2♣ 3♦ 4♥ 5♦",
            f"**{count}** — 5 per Bo (25)",
            "**Muggins!** 1 per Ann (13): Bo ne ha dimenticato 1.",
        ]


def test_a_typed_menu_takes_its_values_and_numbers_the_rest_after_them() -> None:
    ask = "Type your claim: the number of points, 0 to 29."
    low = Select(
        "Claim 0 to 14 points…", "tally", tuple(Option(f"{n} points", str(n)) for n in range(15)), typed=ask
    )
    high = Select(
        "Claim 15…", "tally", tuple(Option(f"{n} points", str(n)) for n in range(15, 30)), typed=ask
    )
    lines, choices = numbered([low, high, Button("Hint", "hint")])
    assert lines == [ask, "  30. Hint"]
    assert choices[0].value == "0" and choices[2].value == "2" and choices[29].control is high
    assert isinstance(choices[30].control, Button)


# ---------------------------------------------------------------- item 7: the ritual clicks


def test_the_flags_are_the_switches_with_discords_defaults() -> None:
    assert Prefs() == Prefs(auto_cut=True, auto_play=True, quick_discard=False)
    parse = play.parser().parse_args
    assert prefs_of(parse(["cribbage"])) == Prefs()
    assert prefs_of(parse(["bhargage", "--no-auto-cut", "--no-auto-play", "--quick-discard"])) == Prefs(
        auto_cut=False, auto_play=False, quick_discard=True
    )
    assert prefs_of(parse(["deluxe"])) == Prefs()
    with pytest.raises(SystemExit):
        parse(["deluxe", "--no-auto-cut"])  # Deluxe has neither a cut nor an only card


def test_by_default_the_terminal_cuts_and_plays_an_only_card_for_you() -> None:
    terminal, player, text = terminal_game("cribbage", seed=4, options={"target": 61})
    cuts = [e for e in terminal.history if isinstance(e, C.StarterTurned) and e.seat == play.HUMAN]
    assert cuts and "Your cut" not in text and "/tavern me" not in text
    asked = [s for s in player.states if s.phase is C.Phase.PLAY and C.waiting_for(s) == (play.HUMAN,)]
    assert asked and all(len(C.legal_actions(s, play.HUMAN)) > 1 for s in asked)
    played = [e for e in terminal.history if isinstance(e, C.CardPlayed) and e.seat == play.HUMAN]
    assert len(played) > len(asked)  # the only cards played themselves


def test_with_the_switches_off_the_terminal_asks_and_its_tip_names_its_flag() -> None:
    off = Prefs(auto_cut=False, auto_play=False)
    _terminal, player, text = terminal_game("cribbage", seed=4, options={"target": 61}, prefs=off)
    assert "(The cut decides nothing: start without --no-auto-cut and it is made for you.)" in text
    assert "/tavern me" not in text
    asked = [s for s in player.states if s.phase is C.Phase.PLAY and C.waiting_for(s) == (play.HUMAN,)]
    assert any(len(C.legal_actions(s, play.HUMAN)) == 1 for s in asked)
    with speaking("it"):
        _terminal, _player, italian = terminal_game(
            "bhargage", seed=2, options={"target": 31}, prefs=off, language="it", pick=first_choice
        )
    assert "Nota: avvia senza --no-auto-cut e il taglio lo fa il bot per te." in italian
    assert "/taverna io" not in italian


def first_choice(terminal: play.Terminal) -> str:
    """Confirm, cut or the first card: a player who answers from the menu's meaning, in any language."""
    verbs: dict[str, list[int]] = {}
    for n, choice in terminal.choices.items():
        verbs.setdefault(choice.control.verb, []).append(n)
    for verb in ("discard", "cut"):
        if verb in verbs:
            return str(verbs[verb][0])
    if "pick" in verbs:
        return " ".join(str(n) for n in verbs["pick"][:2])
    return str(min(n for n, c in terminal.choices.items() if c.control.verb != "hint"))


def test_lay_away_without_confirm_lays_the_picked_cards_away_in_the_terminal() -> None:
    def pick_only(terminal: play.Terminal) -> str:
        picks = [n for n, c in terminal.choices.items() if c.control.verb == "pick"]
        assert not any(c.control.verb == "lay" for c in terminal.choices.values()), "Confirm was offered"
        return " ".join(map(str, picks[:2])) if picks else crib_choose(terminal)

    terminal, _player, _text = terminal_game(
        "cribbage", seed=5, options={"target": 61}, prefs=Prefs(quick_discard=True), pick=pick_only
    )
    assert C.is_over(terminal.table.state)


def test_the_discord_tip_names_the_switch_in_the_players_language() -> None:
    table = bhargage_table_at_the_cut()
    cutter = table.state.non_dealer
    for language, tip in (
        ("en", "Tip: turn on **Cut for me** in `/tavern me` and the cut is made for you."),
        ("it", "Nota: attiva **Taglia per me** in `/taverna io` e il taglio lo fa il bot per te."),
    ):
        with speaking(language):
            assert tip in bhargage_adapter.ADAPTER.seat_panel(table, cutter).content


def bhargage_table_at_the_cut() -> Any:
    from bot.games import Seat, Table

    adapter = bhargage_adapter.ADAPTER
    state, _ = bh.start(3, 2, bh.Options(target=61))
    for seat in (0, 1):
        state, _ = bh.apply(state, bh.Discard(seat, tuple(state.hands[seat][:2])))  # type: ignore[arg-type]
    assert state.phase is bh.Phase.CUT
    return Table(
        1, "bhargage", adapter, 1, 1, 3, state.options, (Seat(1, "Ann"), Seat(2, "Bob")), state, 0, 0, 0
    )


# ---------------------------------------------------------------- item 9: card names as players type them


def test_a_52_card_is_read_as_players_write_it() -> None:
    four = card("4S")
    for typed in (
        "4s",
        "4S",
        "4♠",
        "4♠\ufe0f",
        "4 ♠",
        "four of spades",
        "Four Of Spades",
        "the four of spades",
    ):
        assert read_card(typed) == four, typed
    assert read_card("4 of spades") == four and read_card("four of sp") == four  # a start only it has
    assert read_card("10h") == read_card("TH") == read_card("10♥") == read_card("ten of hearts") == card("TH")
    assert read_card("as") == read_card("a♠") == read_card("ace of spades") == card("AS")
    with speaking("it"):
        assert read_card("quattro di picche") == read_card("il quattro di picche") == four
        assert read_card("4 di picche") == read_card("quattro di p") == four
        assert read_card("l'asso di cuori") == card("AH") and read_card("re di fiori") == card("KC")
        assert read_card("four of spades") == four  # English too
        assert label(four) == "4♠ quattro di picche"
    with pytest.raises(UnknownCard) as several:
        read_card("four")
    assert "could be more than one card" in said(several.value) and "4♣ four of clubs" in said(several.value)
    with pytest.raises(UnknownCard):
        read_card("4x")
    assert all(read_card(short(c)) == c and read_card(name(c)) == c for c in FULL_PACK)
    assert all(read_card(RANK_CHARS[c.rank - 1] + c.suit.value) == c for c in FULL_PACK)


def test_a_decktet_card_is_taken_by_a_start_only_it_has() -> None:
    keeper = decktet_card("light keeper")
    with speaking("it"):
        assert find_card("guardiano") == keeper  # it used to answer "Forse intendevi il Guardiano del Faro?"
        assert find_card("faro") == keeper and find_card("Guardiano del") == keeper
        with pytest.raises(UnknownCard) as several:
            find_card("cas")
        assert said(several.value) == (
            "“cas” può essere più di una carta. Forse intendevi **l'Incontro Casuale** o **il Castello**?"
        )
        with pytest.raises(UnknownCard) as typo:
            find_card("guardano")
        assert "Forse intendevi **il Guardiano del Faro**" in said(typo.value)
    assert find_card("sol") == decktet_card("soldier") and find_card("moons") == decktet_card("ace of moons")
    with pytest.raises(UnknownCard) as aces:
        find_card("ace")
    assert said(aces.value).count("**Ace of") == 6


@pytest.mark.parametrize("language", ["en", "it"])
def test_cribbage_cards_are_played_by_any_name_in_the_terminal(language: str) -> None:
    """ "4s", "4S", "4♠", "four of spades" ("quattro di picche") and a start only one card has, each plays the
    card it names (the first three used to be refused at the play)."""
    typed: list[Any] = []
    forms: list[Callable[[Any], str]] = [
        lambda c: (RANK_CHARS[c.rank - 1] + c.suit.value).lower().replace("t", "10"),
        lambda c: RANK_CHARS[c.rank - 1] + c.suit.value,
        short,
        name,
        lambda c: name(c)[:-2],
    ]

    def by_name(terminal: play.Terminal) -> str:
        state = terminal.table.state
        legal = [a.card for a in C.legal_actions(state, play.HUMAN) if isinstance(a, C.Play)]
        if state.phase is C.Phase.PLAY and legal and C.waiting_for(state) == (play.HUMAN,):
            chosen = legal[-1]
            typed.append(chosen)
            return forms[len(typed) % len(forms)](chosen)
        return crib_choose(terminal)

    terminal, _player, text = terminal_game(
        "cribbage", seed=3, options={"target": 61}, language=language, pick=by_name
    )
    assert len(typed) >= len(forms)
    played = [e.card for e in terminal.history if isinstance(e, C.CardPlayed) and e.seat == play.HUMAN]
    assert [c for c in played if c in typed] == typed
    assert "There is no card" not in text and "Nessuna carta" not in text


def test_an_italian_decktet_name_started_is_taken_in_the_terminal() -> None:
    """ "guardiano" is the Light Keeper's start alone: it is picked, with no "Forse intendevi…"."""
    keeper = decktet_card("light keeper")
    seed = next(s for s in range(100) if keeper in bh.start(s, 2, bh.Options(target=31))[0].hands[0])
    other = next(c for c in bh.start(seed, 2, bh.Options(target=31))[0].hands[0] if c != keeper)
    with speaking("it"):
        title = words.title(other)
        out = io.StringIO()
        player = Player(out, [f"guardiano, {strip_article(title)}"], limit=1)
        options = GAMES["bhargage"].options({"target": 31})
        play.Terminal("bhargage", options, 1, "normal", seed, player, out).run()
    assert "[x] il Guardiano del Faro" in player.prompts[1] and f"[x] {title}" in player.prompts[1]
    assert "Forse intendevi" not in player.prompts[1]


def test_the_calculators_take_names_in_the_language_in_force() -> None:
    codes = count_answer("5H 5S JD TC", "5C", crib=False)
    assert count_answer("five of hearts, 5♠ jd 10c", "five of clubs", crib=False) == codes
    assert read_cards("queen of diamonds king of clubs", 2) == (card("QD"), card("KC"))
    with speaking("it"):
        italian = count_answer("5H 5S JD TC", "5C", crib=False)
        assert (
            count_answer("cinque di cuori, cinque di picche, fante di quadri, 10♣", "5 di fiori", crib=False)
            == italian
        )
        forest = bhargage_adapter.count_answer(
            "forest, light keeper, sea", "ace of moons", bhargage=False, sequences=False
        )
        assert (
            bhargage_adapter.count_answer(
                "la Foresta, guardiano, il Mare", "Asso di Lune", bhargage=False, sequences=False
            )
            == forest
        )


# ---------------------------------------------------------------- the smaller ones


@pytest.mark.parametrize(
    ("language", "intro"),
    [
        (
            "en",
            "you are Player (seat 1), partnered with Bot 2 (normal), against Bot (normal), Bot 3 (normal).",
        ),
        (
            "it",
            "sei Giocatore (posto 1), in coppia con Bot 2 (normale), contro Bot (normale), Bot 3 (normale).",
        ),
    ],
)
def test_the_four_player_intro_names_the_partner_apart(language: str, intro: str) -> None:
    _terminal, _player, text, _code = run_cribbage(
        players=4, seed=3, options={"target": 61}, language=language, script=["quit", "y"]
    )
    assert intro in text.split("\n")[0]


def test_long_names_stand_whole_above_their_lanes() -> None:
    pair, others = "Player & Bot 2 (normal)", "Bot (normal) & Bot 3 (normal)"
    board = draw_board([Lane(pair, 10), Lane(others, 50, 40)], 0, 61).split("\n")
    assert board[1] == pair and board[3] == others  # whole, never cut
    assert board[2].startswith("─") and board[2].endswith(" 10") and board[4].endswith(" 50")
    short_names = draw_board([Lane("Ann", 10), Lane("Ben", 12)], 0, 61).split("\n")
    assert len(short_names) == 3 and short_names[1].startswith("Ann ─")
    with speaking(ENGLISH):
        panel = GAMES["cribbage"].board(
            run_cribbage(players=4, seed=3, options={}, script=["quit", "y"])[0].table
        )
    assert pair in panel.content and others in panel.content


def test_the_hint_has_one_name_in_italian() -> None:
    with speaking("it"):
        hints = {t("cribbage.button.hint"), t("bhargage.button.hint"), t("deluxe.button.hint")}
    assert hints == {"Suggerimento"}
    entries = catalog("it").entries
    assert not [key for key, entry in entries.items() if any("onsiglio" in form for form in entry.forms)]


def test_the_shows_lines_start_with_a_capital_in_italian() -> None:
    hand, starter = cards("2C 2D 4H 9S"), card("5D")
    events: list[C.Event] = [
        C.HandCounted(1, 1, "hand", hand, starter, count_show(hand, starter), 4, 4, 20),
        C.HandCounted(0, 0, "crib", hand, starter, count_show(hand, starter, True), 4, 4, 24),
        C.PointsScored(0, 0, 2, "pair", (card("2C"), card("2D")), 26),
    ]
    with speaking("it"):
        said = R.Lines(("Ann", "Bo"), 2, 121).of(events)
    lines = [line for line in said if not line.startswith("• ")]  # a show's items: its cards, as Bhargage's
    assert lines[0].startswith("La mano di Bo: ") and lines[2].startswith("Il crib di Ann: ")
    assert lines[4] == "**Coppia per 2** — Ann (26)"
    assert all(line.lstrip("*")[:1].isupper() or line.lstrip("*")[:1].isdigit() for line in lines), lines


def test_the_readme_tells_the_terminal_language_and_flags() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Try it in a terminal", 1)[1].split("\n## ", 1)[0]
    for flag in ("--language", "--no-auto-cut", "--no-auto-play", "--quick-discard"):
        assert flag in section, flag


def test_a_greyed_out_card_says_why_once() -> None:
    """ "the Calamity 🐉 10 (over 23) (not now)" read as two remarks: the terminal says "not now" first."""
    lines, choices = numbered(
        [Button("the Calamity 🐉 10 (over 23)", "play", disabled=True), Button("Hint", "hint")]
    )
    with speaking(ENGLISH):
        assert lines[0] == "   –  not now: the Calamity 🐉 10 (over 23)" and ") (" not in lines[0]
    assert list(choices) == [1]
    _terminal, _player, text, _code = run("bhargage", seed=2, target=61)
    assert ") (not now)" not in text and "greyed" not in text
