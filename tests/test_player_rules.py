"""The player-facing rules: docs/rules-*.md, the short ``/… rules`` texts and ``/tavern help``.

Every worked example in the docs is written as a machine-readable line (``**Count:** …``, ``**Play:** …``,
``**Partial:** …``, ``**Score:** …``) and recomputed here from the engines, so a wrong example fails.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from bot.base.text import RULES_DOCS, rules_link
from bot.render import bhargage as bh_render
from bot.render import deluxe as dx_render
from bot.rules.bhargage_scoring import count_hand, peg_points, shortage
from bot.rules.decktet import Suit, card, cards
from bot.rules.deluxe_melds import (
    BHARG_SET,
    COMPLETE,
    Meld,
    card_points,
    find_partial,
    is_bharg_set,
    is_complete_straight,
)
from bot.settings import Settings, SettingsError, settings_from_env
from cogs.stats import RATING_LEGEND, leaderboard_text, shown_rating
from tests.conftest import StartBot, plural
from tests.fakediscord import FakeDiscord

DOCS = Path(__file__).resolve().parent.parent / "docs"
BHARGAGE_DOC = (DOCS / "rules-bhargage.md").read_text(encoding="utf-8")
DELUXE_DOC = (DOCS / "rules-deluxe.md").read_text(encoding="utf-8")
CRIBBAGE_DOC = (DOCS / "rules-cribbage.md").read_text(encoding="utf-8")
README = (DOCS.parent / "README.md").read_text(encoding="utf-8")

COUNT = re.compile(
    r"^\*\*Count:\*\* (hand|bhargage) `([^`]+)` \+ up-card `([^`]+)` = \*\*(\d+)\*\*"
    r" · shortage \*\*(\d+)\*\*$",
    re.M,
)
PLAY = re.compile(r"^\*\*Play:\*\* `([^`]+)` → the last card scores \*\*(\d+)\*\*$", re.M)
PARTIAL = re.compile(r"^\*\*Partial:\*\* `([^`]+)` on `([^`]+)` with the Ace of (\w+) on top$", re.M)
REFUSED = re.compile(r"^\*\*Refused:\*\* `([^`]+)` with the Ace of (\w+) on top$", re.M)
CRIB_COUNT = re.compile(r"^\*\*Count:\*\* (hand|crib) `([^`]+)` \+ starter `([^`]+)` = \*\*(\d+)\*\*$", re.M)
SCORE = re.compile(r"^\*\*Score:\*\* bound `([^`]+)` left `([^`]+)` = \*\*(-?\d+)\*\*$", re.M)

# The table of the Deluxe examples (the seed's Maire/Shar examples, suits from the Italian text's pictures).
MAIRE_SET = cards("painter, forest, cave")
OPPONENT_SET = cards("desert, lunatic, merchant")
SHAR_STRAIGHT = cards("battle, soldier, market")
DELUXE_TABLE = [
    (0, Meld(BHARG_SET, MAIRE_SET)),
    (1, Meld(BHARG_SET, OPPONENT_SET)),
    (2, Meld(COMPLETE, SHAR_STRAIGHT)),
]


# ---------------------------------------------------------------- worked examples against the engines


def test_every_bhargage_show_example_is_the_engines_count() -> None:
    found = COUNT.findall(BHARGAGE_DOC)
    assert len(found) >= 4
    for kind, kept, up, total, short in found:
        kept_cards, up_card = cards(kept), card(up)
        hc = count_hand(kept_cards, up_card, bhargage=kind == "bhargage")
        assert hc.total == int(total), (kept, up, [(i.reason, i.points) for i in hc.items])
        assert shortage((*kept_cards, up_card)) == int(short), (kept, up)


def test_the_bhargage_examples_follow_the_rule_texts() -> None:
    """The seed's own numbers: Crown-Crown-Ace with a Pawn up has 4 × 2 = 8 in 11s; three 5s: set + bharg."""
    hc = count_hand(cards("sea, windfall, ace of moons"), card("harvest"))
    assert sum(i.points for i in hc.items if i.reason == "11 for 2") == 8
    hc = count_hand(cards("forest, discovery, soldier"), card("ace of moons"))
    assert {(i.reason, i.points) for i in hc.items} >= {("6 for three", 6), ("6 for bharg", 6)}
    hc = count_hand(cards("light keeper, rite, excuse"), card("ace of moons"))
    assert [i.reason for i in hc.items] == ["6 for bharg", "6 for bharg"]


def test_every_bhargage_play_example_is_the_engines_score() -> None:
    found = PLAY.findall(BHARGAGE_DOC)
    assert len(found) >= 4
    for pile, points in found:
        assert sum(i.points for i in peg_points(cards(pile))) == int(points), pile


def test_every_deluxe_example_is_the_engines_meld() -> None:
    assert is_bharg_set(MAIRE_SET) and is_bharg_set(OPPONENT_SET)
    assert is_complete_straight(SHAR_STRAIGHT, Suit.KNOTS)
    partials = PARTIAL.findall(DELUXE_DOC)
    assert len(partials) == 3
    for new, used, suit in partials:
        found = find_partial(cards(new), DELUXE_TABLE, Suit[suit.upper()])
        assert found is not None, new
        assert sorted(c.title for _, cs in found for c in cs) == sorted(c.title for c in cards(used))
    refused = REFUSED.findall(DELUXE_DOC)
    assert refused == [("the Market", "Knots")]
    for new, suit in refused:
        assert find_partial(cards(new), DELUXE_TABLE, Suit[suit.upper()]) is None
    # The doc's sentence: the Painter and the Castle build on Shar's straight *whole*.
    for new in ("painter", "castle"):
        used = find_partial([card(new)], [(2, Meld(COMPLETE, SHAR_STRAIGHT))], Suit.KNOTS)
        assert used is not None and {c for _, cs in used for c in cs} == set(SHAR_STRAIGHT)


def test_every_deluxe_score_example_is_the_engines_points() -> None:
    found = SCORE.findall(DELUXE_DOC)
    assert found
    for bound, left, total in found:
        score = sum(card_points(c) for c in cards(bound)) - sum(card_points(c) for c in cards(left))
        assert score == int(total)


def test_the_docs_show_the_bots_suit_emoji_and_card_values() -> None:
    for doc in (BHARGAGE_DOC, DELUXE_DOC):
        for suit in Suit:
            assert f"| {suit.emoji} | {suit.value} |" in doc
    for c in cards("author, light keeper, huntress, excuse, ace of wyrms"):
        row = next(line for line in BHARGAGE_DOC.splitlines() if c.title in line and line.startswith("|"))
        assert f"| {c.value} |" in row, c
    for c in cards("ace of suns, origin, borderland, island, end"):
        row = next(line for line in DELUXE_DOC.splitlines() if c.title in line and line.startswith("|"))
        assert f"| {card_points(c)} |" in row, c


def test_every_cribbage_example_is_the_engines_count() -> None:
    """The show and play examples of docs/rules-cribbage.md, counted again by the engine's scoring."""
    from bot.rules.cribbage_scoring import play_points, show_points

    counts = CRIB_COUNT.findall(CRIBBAGE_DOC)
    assert len(counts) >= 6 and {kind for kind, *_ in counts} == {"hand", "crib"}
    for kind, kept, starter, total in counts:
        assert show_points(kept.split(), starter, kind == "crib") == int(total), (kind, kept, starter)
    plays = PLAY.findall(CRIBBAGE_DOC)
    assert len(plays) >= 6
    for pile, points in plays:
        assert play_points(pile.split()) == int(points), pile
    assert ("5S 7H 6D 3C 4H", "5") in plays  # the rules' Annie and Benny: a run of five
    assert ("6S 7H 7D 8C", "0") in plays  # the paired card breaks the run


def test_the_cribbage_doc_covers_what_players_meet() -> None:
    for words in (
        "Ace low",
        "never pass 31",
        "**go**",
        "1 for the go",
        "1 for last",
        "2 for his heels",
        "1 for his nob",
        "pair royal",
        "double pair royal",
        "in 6, 7, 7, 8 the second Seven",
        "only when all five cards",
        "**19**",
        "**121**",
        "**61**",
        "**lurched**",
        "**double lurch**",
        "Three players",
        "Four players: partnerships",
        "share **one score**",
        "## Muggins",
        "**The coach.**",
        "/cribbage challenge @friend",
        "/cribbage create",
        "/cribbage practice",
        "python -m bot play cribbage",
    ):
        assert words in CRIBBAGE_DOC, words


# ---------------------------------------------------------------- what players read


RULING = re.compile(r"\b[RDC]\d+\b")  # the rulings of RULES.md: R1, D4, C7


@pytest.mark.parametrize(
    "text",
    [
        BHARGAGE_DOC,
        DELUXE_DOC,
        CRIBBAGE_DOC,
        bh_render.rules_text(),
        dx_render.rules_text(),
        bh_render.RULES,
        dx_render.RULES,
    ],
)
def test_no_ruling_numbers_in_player_texts(text: str) -> None:
    assert not RULING.findall(text)
    assert "RULES.md" not in text


@pytest.mark.parametrize("render, game", [(bh_render, "bhargage"), (dx_render, "deluxe")])
def test_the_short_rules_are_short_and_end_with_the_full_rules(render: object, game: str) -> None:
    text = render.rules_text()  # type: ignore[attr-defined]
    assert len(text) <= 1200
    assert text.endswith(f"**Full rules:** `docs/rules-{game}.md` in the bot's repository")
    link = rules_link(RULES_DOCS[game], "https://example.org/tavern/docs/")
    assert link == f"https://example.org/tavern/docs/rules-{game}.md"
    linked = render.rules_text(link)  # type: ignore[attr-defined]
    assert linked.endswith(link) and len(linked) <= 1200
    for suit in Suit:
        assert suit.emoji in text and suit.value in text
    assert "\n\n" not in text


def test_the_short_rules_carry_the_essentials() -> None:
    bh = bh_render.rules_text()
    for words in (
        "Ace 1",
        "Crown 10",
        "Pawn, Court and Excuse 0",
        "23",
        "11 → 2",
        "bharg",
        "121",
        "start at 10",
        "say **go**",
        "(the **Chief's Friend**)",
        "missing suits: 1 missing → 1, 2 → 3, 3 → 6, 4 → 10",
        "the dealer's **bhargage** (the crib)",
        "Bharg Deluxe is another game",
    ):
        assert words in bh, words
    assert "/bhargage challenge" in bh and "/bhargage practice" in bh and "Hint" in bh
    dx = dx_render.rules_text()
    for words in (
        "Ace Pile",
        "Discard Queue",
        "bharg set",
        "partial straight",
        "Ace and Crown 1",
        "100",
        "Bharg is an older Decktet game",
        "Bhargage (`/bhargage`) is another game",
    ):
        assert words in dx, words
    assert "/deluxe create" in dx and "Join" in dx


def test_the_full_bhargage_rules_keep_every_ruling_players_meet() -> None:
    """What the long help used to pin (the rulings as players meet them) now lives in the full rules."""
    for words in (
        "Excuse | 0",
        "cut again",
        "start at **10**",
        "**121**",
        "exactly 2",
        "2 for the Chief",
        "never go above 23",
        "never starts again at 0",
        "11 for 2",
        "23 for 3",
        "2 for a pair",
        "6 for three",
        "12 for four",
        "20 for five",
        "Game!",
        "6 for bharg",
        "1 for last",
        "1 for the Chief's Friend",
        "**again**",
        "doubles",
        "Muggins!",
        "sequences",
        "not in the bhargage",
        "can change your mind until both",
    ):
        assert words in BHARGAGE_DOC, words


def test_the_full_deluxe_rules_keep_every_ruling_players_meet() -> None:
    for words in (
        "Ace Pile",
        "Discard Queue",
        "from the top down",
        "only as a whole",
        "stays bound",
        "9 and Crown are next to each other",
        "bind from their\nhand once",
        "The second time the deck runs out in the same hand",
        "can be negative",
        "another hand is played",
        "a die picks the first straight suit",
        "/deluxe leave",
        "Excuse is never used",
    ):
        assert words in DELUXE_DOC, words


def test_readme_links_both_docs_near_the_top() -> None:
    head = README[: README.index("## Try it in a terminal")]
    assert "## How to play" in head
    assert "(docs/rules-bhargage.md)" in head and "(docs/rules-deluxe.md)" in head
    assert "(docs/rules-cribbage.md)" in head


def test_every_game_has_its_player_rules() -> None:
    """Each game of the registry has a docs/rules-<game>.md that the help links."""
    from bot.games import ADAPTER_PATHS

    assert set(RULES_DOCS) == set(ADAPTER_PATHS)
    for game, doc in RULES_DOCS.items():
        assert doc == f"rules-{game}.md" and (DOCS / doc).is_file()


# ---------------------------------------------------------------- the setting, the helpers


def test_rules_url_setting(tmp_path: Path) -> None:
    env = {"DISCORD_TOKEN": "x", "TAVERN_DB_PATH": str(tmp_path / "db.sqlite3")}
    assert settings_from_env(env).rules_url is None
    url = "https://github.com/someone/decktet-tavern/blob/main/docs/"
    assert settings_from_env({**env, "TAVERN_RULES_URL": url}).rules_url == url.rstrip("/")
    for bad in ("github.com/x/docs", "https://a b", "ftp://x"):
        with pytest.raises(SettingsError, match="TAVERN_RULES_URL"):
            settings_from_env({**env, "TAVERN_RULES_URL": bad})
    assert "TAVERN_RULES_URL=" in (DOCS.parent / ".env.example").read_text(encoding="utf-8")


def test_plural() -> None:
    assert plural(1, "game") == "1 game" and plural(2, "game") == "2 games" and plural(0, "win") == "0 wins"
    assert plural(1, "loss", "losses") == "1 loss" and plural(3, "loss", "losses") == "3 losses"


def test_shown_ratings_start_at_1000_and_are_provisional_at_first() -> None:
    assert shown_rating("bhargage", 1500, 0) == "1000?"
    assert shown_rating("deluxe", 0, 0) == "1000?"
    assert shown_rating("deluxe", -166, 1) == "834?"
    assert shown_rating("bhargage", 1532, 5) == "1032"
    assert shown_rating("deluxe", -5000, 9) == "0"


def test_stats_text_has_no_bad_plurals() -> None:
    from bot.edge.profile_card import text as profile_text
    from bot.games import GAMES
    from bot.store.records import BotRecord, GameProfile, Profile

    one = GameProfile("bhargage", 1, 1, 0, 1, 1516, (1500.0, 1516.0), 12, None)
    text = profile_text("ann", Profile(1, "ann", (one,), None, (BotRecord("deluxe", "hard", 1, 1),)), GAMES)
    assert "rating 1016? · up 16 over the last game" in text
    assert "1 game · 1 win · 0 losses · 100% · 1 muggins win" in text
    assert "Bharg Deluxe, hard: 1 game · 1 win" in text
    assert not re.search(r"\b1 (games|wins|losses|points|hands|cards)\b", text)


def test_leaderboard_explains_the_rating_in_one_line() -> None:
    from bot.store.records import LeaderRow

    rows = [LeaderRow(1, "ann", 6, 5, 1, 83.3, 2, 1600), LeaderRow(2, "ben", 1, 0, 1, 0.0, 0, 1484)]
    text = leaderboard_text("bhargage", rows)
    assert "1100" in text and "984?" in text
    legend = [ln for ln in text.splitlines() if ln.startswith("rating:")]
    assert legend == [RATING_LEGEND] and "new player starts at 1000" in RATING_LEGEND


# ---------------------------------------------------------------- /tavern help through the fake Discord


async def test_help_onboards_a_newcomer(fake_discord: FakeDiscord, start_bot: StartBot) -> None:
    fake = fake_discord
    bot = await start_bot()
    result = await fake.slash(fake.owner, fake.channel, "tavern help")
    assert result.ephemeral
    embed = result.embeds[0]
    text = embed.get("description", "") + "\n".join(f["name"] + "\n" + f["value"] for f in embed["fields"])
    for words in (
        "/bhargage challenge @friend",
        "/bhargage practice",
        "/deluxe create",
        "Join",
        "Start",
        "Add a bot",
        "DM",
        "direct messages from server members",
        "Privacy & Safety",
        "Show my hand",
        "only you see it",
        "View Channel",
        "Send Messages",
        "Embed Links",
        "Read Message History",
        "Create Public Threads",
        "Send Messages in Threads",
        "played in the channel",
        "docs/rules-bhargage.md",
        "docs/rules-deluxe.md",
        "docs/rules-cribbage.md",
        "**Cribbage** (2–4 players)",
        "`/cribbage rules`",
        "`/cribbage hand`",
        "`/tavern ping`",  # the generated command list is still there
    ):
        assert words in text, words
    total = sum(len(embed.get(k, "")) for k in ("title", "description"))
    total += sum(len(f["name"]) + len(f["value"]) for f in embed["fields"])
    assert total <= 6000 and all(len(f["value"]) <= 1024 for f in embed["fields"])
    assert bot.settings.rules_url is None


async def test_help_links_the_published_rules(
    fake_discord: FakeDiscord, start_bot: StartBot, settings: Settings
) -> None:
    fake = fake_discord
    base = "https://example.org/tavern/docs"
    await start_bot(dataclasses.replace(settings, rules_url=base))
    result = await fake.slash(fake.owner, fake.channel, "tavern help")
    fields = {f["name"]: f["value"] for f in result.embeds[0]["fields"]}
    assert (
        f"{base}/rules-bhargage.md" in fields["Full rules"]
        and f"{base}/rules-deluxe.md" in fields["Full rules"]
        and f"{base}/rules-cribbage.md" in fields["Full rules"]
    )
