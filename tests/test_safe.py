"""``bot.base.safe``: whatever a name holds, Discord shows its characters and nothing else."""

from __future__ import annotations

import re

import pytest

from bot.base import safe

Z = "\u200b"  # the zero-width space that breaks a form


def test_markdown_is_escaped_and_mentions_broken() -> None:
    assert safe.plain("**boss** _x_ `y` ~~z~~ ||s|| <3 \\") == (
        "\\*\\*boss\\*\\* \\_x\\_ \\`y\\` \\~\\~z\\~\\~ \\|\\|s\\|\\| <3 \\\\"
    )
    assert safe.plain("@everyone <@123>") == f"@{Z}everyone <{Z}@{Z}123>"


def test_a_masked_link_is_text() -> None:
    shown = safe.plain("[Prize](https://evil.io/x)")
    assert not re.search(r"(?<!\\)\]\(", shown) and "://" not in shown
    assert shown == f"[Prize\\](https:{Z}//evil.io/x)"
    assert safe.plain("[Free Nitro]") == "[Free Nitro\\]"  # a "(" after the name can't complete it


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("# Boss", "\\# Boss"),
        ("### Boss", "\\### Boss"),
        ("#", "\\#"),  # "# played the Forest": the template's space would make it a heading
        ("-# tiny", "\\-# tiny"),
        ("- item", "\\- item"),
        ("+ item", "\\+ item"),
        ("1. first", "1\\. first"),
        ("> quote", "\\> quote"),
        (">>> quote", "\\>>> quote"),
        ("<3 >_<", "<3 >\\_<"),
        ("#1 fan", "#1 fan"),  # no heading without its space: left as typed
        ("Jean-Luc", "Jean-Luc"),
    ],
)
def test_no_heading_subtext_quote_or_list_where_a_line_begins(text: str, shown: str) -> None:
    assert safe.plain(text) == shown


def test_bare_links_and_invites_do_not_unfurl() -> None:
    assert safe.plain("see https://evil.io/x now") == f"see https:{Z}//evil.io/x now"
    assert safe.plain("HTTP://EVIL.IO") == f"HTTP:{Z}//EVIL.IO"
    assert safe.plain("discord.gg/abc") == f"discord{Z}.gg/abc"
    assert safe.plain("discord.com/invite/abc") == f"discord{Z}.com/invite/abc"


@pytest.mark.parametrize("form", ["<#123456>", "<t:1700000000:R>", "<:pog:123>", "<a:pog:123>", "</end:1>"])
def test_channel_timestamp_emoji_and_command_forms_are_text(form: str) -> None:
    shown = safe.plain(form)
    assert shown == "<" + Z + form[1:]
    assert not re.search(r"<(#|t:|a?:|/)", shown)


def test_bidi_controls_and_invisible_characters_are_removed() -> None:
    for control in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c":
        assert safe.plain(f"ab{control}cd") == "abcd", hex(ord(control))
    assert safe.plain("a\u200bb\u2060c\ufeffd\u00ade") == "abcde"
    assert safe.plain("x\U000e0041\U000e0042y") == "xy"  # tag characters: hidden text
    assert safe.plain("👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"  # a family emoji keeps its joiners


@pytest.mark.parametrize(
    "blank",
    [
        "\u200b\u200b",
        "\u2060",
        "\ufeff",
        "\u3164\u3164",
        "\u2800",
        "\u115f\u1160",
        "\uffa0",
        "\u200d",
        " \u3000",
    ],
)
def test_a_name_with_nothing_visible_becomes_the_placeholder(blank: str) -> None:
    assert safe.plain(blank) == ""
    assert safe.name(blank) == "?"
    assert safe.name(blank, "bob_99") == "bob\\_99"  # the username, where given


def test_blank_look_alikes_inside_a_name_are_spaces() -> None:
    assert safe.plain("Ann\u3164\u3164\u2800Lee") == "Ann Lee"


def test_combining_marks_are_capped_per_character() -> None:
    zalgo = "Z" + "\u0301\u0302\u0303\u0304\u0305" * 20 + "a" + "\u0316" * 50
    assert safe.plain(zalgo) == "\u0179\u0302\u0303a\u0316\u0316"  # Ź (composed) and two marks more
    assert safe.plain("Nguyê\u0303n") == "Nguyễn"  # composed: accents are kept
    assert safe.plain("\u0301\u0301\u0301") == ""  # marks alone show nothing


def test_one_bounded_line() -> None:
    assert safe.plain("a\nb\r\n\tc\x00d") == "a b c d"
    assert safe.name("x" * 100) == "x" * 31 + "…"
    assert len(safe.plain("y" * 500)) == safe.QUOTE_LIMIT
