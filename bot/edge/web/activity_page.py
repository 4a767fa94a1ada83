"""The Activity's page (docs/ACTIVITY.md): what Discord's frame loads at ``/?frame_id=…&instance_id=…``, its
own Content-Security-Policy (the one answer Discord's client may frame), the seat's private panel as HTML,
and the Activity's own static files (the pinned Embedded App SDK and ``activity.js``).

The page is one document: ``activity.js`` signs in (the SDK's handshake, ``authorize``, ``POST /a/token``,
``authenticate``) and opens ``/a/ws``, which sends the table's public frames (as the live page gets them)
and, to a seated player only, their own panel. Every word it shows comes from the page's data attributes.

A seat's panel is drawn from the same :class:`~bot.base.panel.Panel` the DM shows, each control carrying
the very custom id it has in Discord (``custom_ids.custom_id``), so a press from the page is read by the same
``custom_ids.parse`` as a press from Discord.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from pathlib import Path

from aiohttp import web

from bot.base.i18n import speaking, t
from bot.base.panel import Button, Control, Option, Panel, Select
from bot.edge import custom_ids
from bot.edge.web.answers import CSP, page
from bot.edge.web.pages import LIVE_TABLE, document, versioned
from bot.edge.web.parts import esc, hand_html, line_html
from bot.pictures import Row, Scene
from bot.render import cribbage_words as cw
from bot.render import words
from bot.rules import pack52
from bot.rules.decktet import Card

SDK_VERSION = "2.5.0"  # tools/build_sdk.sh builds it; the name carries the version, so it is cached for good
SDK = f"embedded-app-sdk-{SDK_VERSION}.js"
STATIC = Path(__file__).resolve().parent / "static"
_JS = "text/javascript; charset=utf-8"  # i18n: not text
_TYPES = {SDK: _JS, "activity.js": _JS}
# Discord's client origins: the only pages that may frame the Activity (the SDK accepts messages from these;
# docs/ACTIVITY.md, "frame-ancestors").
DISCORD_ORIGINS = (
    "https://discord.com",  # i18n: not text
    "https://ptb.discord.com",  # i18n: not text
    "https://canary.discord.com",  # i18n: not text
    "https://discordapp.com",  # i18n: not text
    "https://ptb.discordapp.com",  # i18n: not text
    "https://canary.discordapp.com",  # i18n: not text
)
# The SDK's query parameters, as this side takes them (the SDK itself needs the first three).
QUERY = {
    "frame_id": re.compile(r"[A-Za-z0-9_.:-]{1,128}", re.ASCII),
    "instance_id": re.compile(r"[A-Za-z0-9_-]{1,64}", re.ASCII),
    "platform": re.compile(r"desktop|mobile", re.ASCII),
}
_MARKUP = re.compile(r"<a?:([A-Za-z0-9_]{1,32}):[0-9]{1,20}>|\*\*|__|~~|`", re.ASCII)
# Discord's per-message rows of five: the page draws a panel's controls in the same rows.
ROW = 5


def csp(app_id: int) -> str:
    """The Activity page's policy: the pages' own (``answers.CSP``, derived, not copied), but framed by
    Discord's client only, and its socket named (older WebKit does not take ``'self'`` for ``wss:``)."""
    own = {d.split(" ", 1)[0]: d for d in CSP.split("; ")}
    own["connect-src"] = f"connect-src 'self' wss://{app_id}.discordsays.com"  # i18n: not text
    own["frame-ancestors"] = "frame-ancestors " + " ".join(DISCORD_ORIGINS)  # i18n: not text
    return "; ".join(own.values())


def answer(query: dict[str, str], lang: str, app_id: int | None) -> web.Response | None:
    """The Activity's page where ``query`` is Discord's frame loading it (None: it is not), with the policy
    that lets Discord's client frame it."""
    if app_id is None or not is_launch(query):
        return None
    response = page(activity_page(lang=lang, app_id=app_id))
    response.headers["Content-Security-Policy"] = csp(app_id)
    return response


def is_launch(query: dict[str, str]) -> bool:
    """Whether a request for ``/`` is Discord's frame loading the Activity (the SDK's parameters, well
    formed)."""
    return all(name in query and pattern.fullmatch(query[name]) for name, pattern in QUERY.items())


@cache
def _file(name: str) -> bytes:
    return (STATIC / name).read_bytes()


def static(name: str) -> tuple[bytes, str] | None:
    """One of the Activity's own files and its content type; None for any other name."""
    kind = _TYPES.get(name)
    return None if kind is None else (_file(name), kind)


def activity_page(*, lang: str, app_id: int) -> str:
    """The Activity's page: the table's place, the seat's place, and the words ``activity.js`` says."""
    with speaking(lang):
        words = {
            "client": str(app_id),
            "signing": t("web.activity.signing"),
            "live": t("web.activity.live"),
            "failed": t("web.activity.failed"),
            "reconnecting": t("web.activity.reconnecting"),
            "ended": t("web.activity.ended"),
            "lang": lang,
        }
        data = "".join(f' data-{key}="{esc(value)}"' for key, value in words.items())
        title = t("web.activity.title")
        body = (
            f'<header class="top"><p class="brand">{esc(t("web.brand"))}</p>'
            f'<p id="status" class="status" role="status">{esc(words["signing"])}</p></header>\n'
            f'<main id="activity"{data}>'
            '<div id="table" tabindex="-1"></div>'  # i18n: not text
            f'<section id="seat" class="seat" aria-label="{esc(t("web.activity.seat"))}" hidden></section>'
            "</main>"
        )
        # the SDK's name carries its version: it is cached for good as it is
        return document(lang, title, body, f"/static/{SDK}", versioned(LIVE_TABLE), versioned("activity.js"))


def nothing_html(lang: str) -> str:
    """What the table's place says when the instance has no table to show."""
    with speaking(lang):
        return f'<p class="quiet">{esc(t("web.activity.no-table"))}</p>'  # i18n: not text


def _text(content: str) -> str:
    """A panel's text as plain paragraphs: Discord's markup and custom emojis dropped (an emoji's name
    kept), every character escaped."""
    lines = [_MARKUP.sub(lambda m: f":{m[1]}:" if m[1] else "", line) for line in content.splitlines()]
    return "".join(f'<p class="line">{esc(line)}</p>' for line in lines if line.strip())


def controls_of(panel: Panel, key: int) -> dict[str, Control]:
    """The panel's controls by the custom id each carries in Discord (links carry none and are left out):
    what a press from the page may name."""
    found: dict[str, Control] = {}
    for control in panel.controls:
        if isinstance(control, Button) and control.url:
            continue
        cid = custom_ids.custom_id("g", key, control.verb, token=control.token, arg=control.arg)
        found[cid] = control
    return found


def _button(cid: str, button: Button) -> str:
    off = " disabled" if button.disabled else ""
    arg = f' data-arg="{esc(button.arg)}"' if button.arg else ""  # a card's index: its picture presses it
    return (  # i18n: not text
        f'<button type="button" class="press {esc(button.style)}" data-press="{esc(cid)}"{off}{arg}>'
        f"{line_html(button.label)}</button>"  # no emoji: the page ships no emoji font; suits are drawn
    )


def _choice(cid: str, option: Option, off: str, card: int | None) -> str:
    """One choice of a one-choice menu as its own button, sent when pressed (as Discord sends a menu's one
    value when it closes); ``card``: the index of the seat's card it names, so a tap on that card presses
    it."""
    arg = f' data-arg="{card}"' if card is not None else ""  # i18n: not text
    desc = f'<span class="desc">{line_html(option.description)}</span>' if option.description else ""
    return (  # i18n: not text
        f'<button type="button" class="press choice" data-press="{esc(cid)}" data-value="{esc(option.value)}"'
        f"{arg}{off}>{line_html(option.label)}{desc}</button>"
    )


def _select(cid: str, select: Select, hand: dict[str, int]) -> str:
    """A menu: one choice is a button per option, pressed and sent at once (a phone's tap, a key; a
    ``<select>`` cannot be tapped by card); several are checkboxes sent with a button (its label the menu's
    placeholder), as Discord sends a menu's values when it closes. ``hand``: the seat's cards' indexes by
    name, to know an option that names one (a tap on that card presses or ticks it)."""
    off = " disabled" if select.disabled else ""
    label = esc(select.placeholder)
    if select.max_values <= 1:
        choices = "".join(_choice(cid, o, off, _card_of(o, hand)) for o in select.options)
        return (  # i18n: not text
            f'<fieldset class="menu choices" data-choose="{esc(cid)}"><legend>{label}</legend>{choices}'
            "</fieldset>"
        )
    boxes = "".join(_box(o, off, _card_of(o, hand)) for o in select.options)
    return (  # i18n: not text
        f'<fieldset class="menu" data-menu="{esc(cid)}" data-min="{select.min_values}"'
        f' data-max="{select.max_values}"><legend>{label}</legend>{boxes}'
        f'<button type="button" class="press primary" data-press="{esc(cid)}" data-values="1"{off}>'
        f"{label}</button></fieldset>"
    )


def _box(option: Option, off: str, card: int | None) -> str:
    """One choice of a several-choice menu: a labelled checkbox (``data-card``: the card it names)."""
    data = f' data-card="{card}"' if card is not None else ""  # i18n: not text
    on = " checked" if option.default else ""
    box = f'<input type="checkbox" value="{esc(option.value)}"{data}{on}{off}>'  # i18n: not text
    return f'<label class="pick">{box} {esc(option.label)}</label>'  # i18n: not text


def _card_of(option: Option, hand: dict[str, int]) -> int | None:
    """The index of the seat's card an option names (its label that card's name, then nothing or a space:
    "the Sea 🌊", "6♠ six of spades"), else None (a number of cards, of points)."""
    named = [name for name in hand if option.label == name or option.label.startswith(name + " ")]
    return hand[max(named, key=len)] if named else None


def _hand(row: Row) -> dict[str, int]:
    """The indexes of a row's cards by the name a menu's option gives them."""
    found: dict[str, int] = {}
    for group in row.groups:
        for card in group:
            if isinstance(card, Card):
                found[words.title(card)] = card.index
            elif isinstance(card, pack52.Card):
                found[cw.short(card)] = card.index
    return found


def panel_html(panel: Panel, key: int) -> str:
    """A seat's private panel as HTML: its own cards (its picture's first row) face up and big (a card that
    a control names presses it when tapped), then its controls in Discord's rows, each with its custom id,
    then its text (and embed), folded away where the cards are drawn (it says what they show)."""
    said = [_text(panel.content)]
    if panel.embed is not None:
        if panel.embed.title:
            said.append(f'<h2 class="embed-title">{esc(panel.embed.title)}</h2>')
        said.append(_text(panel.embed.description))
    scene = panel.picture.key if panel.picture is not None else None
    parts: list[str] = []
    hand: dict[str, int] = {}
    if isinstance(scene, Scene) and scene.parts and isinstance(scene.parts[0], Row):
        hand = _hand(scene.parts[0])
        # the picture's first row is the seat's own cards; the rest is the board, drawn on the table above
        own = replace(scene, parts=scene.parts[:1])
        parts.append(f'<div class="own-hand">{hand_html(own)}</div>')  # i18n: not text
        summary = f"<summary>{esc(t('web.activity.words'))}</summary>"  # i18n: not text
        after = f'<details class="said">{summary}{"".join(said)}</details>'  # i18n: not text
    else:
        parts.extend(said)
        after = ""
    rows: dict[int, list[str]] = {}
    for n, (cid, control) in enumerate(controls_of(panel, key).items()):
        row = control.row if control.row is not None else n // ROW
        drawn = _button(cid, control) if isinstance(control, Button) else _select(cid, control, hand)
        rows.setdefault(row, []).append(drawn)
    parts.extend(f'<div class="controls">{"".join(rows[r])}</div>' for r in sorted(rows))  # i18n: not text
    return "".join(parts) + after
