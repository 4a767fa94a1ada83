"""The web pages of a table: server-rendered HTML5, light enough for a phone, in English or Italian.

Every value that comes from a table (a player's name above all, which is anyone's input) goes through
``html.escape`` on its way into the page: nothing here trusts a string. The pages load nothing from another
origin and hold no inline script or style (not even a ``style=`` attribute: the Content-Security-Policy
forbids them): one stylesheet and one small script from ``/static``, the cards from ``/c/<lang>/…``. The
pieces (cards, rows, peg boards, the calls, the felt) come from :mod:`bot.edge.web.parts`; the board's and the
calls' text is always there too, so a screen reader, or a browser without pictures, reads the whole table.

The live page's ``<main id="table">`` holds :func:`table_html`, which ``live.js`` replaces with each frame
of the table's WebSocket; the replay page's ``<main id="replay">`` holds :func:`replay_fragment`, which
``replay.js`` fetches step by step. Both pages work without their script (the replay by plain links).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bot.base.i18n import ENGLISH, LANGUAGES, Msg, speaking, t
from bot.edge.web.parts import calls_list, esc, felt, line_html
from bot.edge.web.sight import Call, ReplayStep, Sight

STATIC = Path(__file__).resolve().parent / "static"
_JS = "text/javascript; charset=utf-8"  # i18n: not text
_TYPES = {"tavern.css": "text/css; charset=utf-8", "live.js": _JS, "replay.js": _JS, "table.js": _JS}
LIVE_TABLE = "table.js"  # the idle clock and the pings, before the script of a page with a live table
ERRORS: dict[str, Msg] = {
    "web.error.not-found": Msg("web.error.not-found"),
    "web.error.expired": Msg("web.error.expired"),
    "web.error.busy": Msg("web.error.busy"),
    "web.error.bad": Msg("web.error.bad"),
    "web.error.server": Msg("web.error.server"),
}
_BY_STATUS = {
    404: "web.error.not-found",
    410: "web.error.expired",
    429: "web.error.busy",
    400: "web.error.bad",
}
_TAG = re.compile(r"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*", re.ASCII)
_Q = re.compile(r"q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)", re.ASCII | re.IGNORECASE)
MAX_LANGUAGES = 32  # entries of an Accept-Language header read; the rest are ignored
NAV = (  # (which, symbol): the replay's six links, in order
    ("first", "⇤"),
    ("hand-", "«"),
    ("prev", "‹"),
    ("next", "›"),
    ("hand+", "»"),
    ("last", "⇥"),
)


def href(url: str) -> str:
    """A link's address on this site, escaped: a full address (``Links`` makes them) keeps its path only,
    so no page names an origin (the same page can run behind another one, as in Discord's Activity frame);
    anything but a path (``javascript:``, ``//elsewhere``) is no link."""
    if url.startswith(("https://", "http://")):
        parts = urlsplit(url)
        url = urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))
    ok = url.startswith(("/", "?")) and not url.startswith(("//", "/\\")) and "\\" not in url
    return esc(url if ok else "#")


# ------------------------------------------------------------------------------------------------ language


def _quality(params: list[str]) -> float:
    for param in params:
        param = param.strip()
        if param[:2].lower() == "q=":
            found = _Q.fullmatch(param)
            return float(found[1]) if found else -1.0
    return 1.0


def language(accept_language: str | None, asked: str | None = None) -> str:
    """The page's language: ``asked`` (``?lang=``) when the bot speaks it, else the browser's first choice
    it speaks by the header's q-values ("it-IT,it;q=0.9,en;q=0.5" → "it"), else English."""
    chosen = asked.strip().lower().split("-")[0] if isinstance(asked, str) else ""
    if chosen in LANGUAGES:
        return chosen
    wanted: list[tuple[float, int, str]] = []
    for n, item in enumerate((accept_language or "")[:1024].split(",")[:MAX_LANGUAGES]):
        tag, *params = item.split(";")
        tag = tag.strip()
        q = _quality(params)
        if _TAG.fullmatch(tag) and q > 0:
            wanted.append((-q, n, tag.split("-")[0].lower()))
    for _, _, base in sorted(wanted):
        if base in LANGUAGES:
            return base
        if base == "*":
            return ENGLISH
    return ENGLISH


def document(lang: str, title: str, body: str, *scripts: str) -> str:
    """A whole page: the head (viewport, the one stylesheet, the page's scripts by their addresses, run in
    this order), then ``body``. The Activity's page is one too."""
    tag = "".join(f'<script src="{esc(s)}" defer></script>\n' for s in scripts)  # i18n: not text
    return (
        f'<!DOCTYPE html>\n<html lang="{esc(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'  # i18n: not text
        '<meta name="referrer" content="no-referrer">\n<meta name="color-scheme" content="dark">\n'
        f"<title>{esc(title)}</title>\n"
        f'<link rel="stylesheet" href="{esc(versioned("tavern.css"))}">\n'
        '<link rel="icon" href="/c/en/back.png">\n'
        f"{tag}</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def header(title: str, extra: str = "") -> str:
    """A page's top: the brand, ``title`` as its heading, then ``extra`` (HTML). The tournament page's too."""
    return (  # i18n: not text
        f'<header class="top"><p class="brand">{esc(t("web.brand"))}</p><h1>{esc(title)}</h1>{extra}</header>'
    )


# ------------------------------------------------------------------------------------------------ live


def table_html(sight: Sight, calls: Sequence[Call], lang: str) -> str:
    """What ``<main id="table">`` holds, and each WebSocket frame brings: the felt (the seats around the
    board, each with its ``data-seat``), then the calls, newest first. ``live.js`` swaps in the parts by
    their ids. One fragment per table and language, whoever views it: the Activity's page puts a seated
    player's own seat at the bottom itself."""
    with speaking(lang):
        log = calls_list(calls, t("web.calls.none"), newest_first=True)
        return f"{felt(sight)}{log}"


def live_page(
    sight: Sight,
    calls: Sequence[Call],
    *,
    lang: str,
    ws_path: str,
    replay_url: str | None,
    inner: str | None = None,
) -> str:
    """A table's live page: ``live.js`` keeps ``#table`` current through the WebSocket at ``ws_path``; the
    link to the replay shows once the game is over. ``inner``: the table's fragment (:func:`table_html`)
    where it was built already, else it is built from ``sight`` and ``calls``."""
    with speaking(lang):
        status = t("web.live.over") if sight.over else ""
        inner = table_html(sight, calls, lang) if inner is None else inner
        main = (  # i18n: not text
            f'<main id="table" tabindex="-1" data-ws="{href(ws_path)}" data-seq="{sight.seq}"'
            f' data-over="{int(sight.over)}" data-live="{esc(t("web.live.live"))}"'
            f' data-reconnecting="{esc(t("web.live.reconnecting"))}" data-done="{esc(t("web.live.over"))}"'
            f' data-expired="{esc(t("web.error.expired"))}" data-off="{esc(t("web.live.off"))}">'
            f"{inner}</main>"
        )
        extra = f'<p id="status" class="status" role="status">{esc(status)}</p>'
        after = ""
        if replay_url:
            hidden = "" if sight.over else " hidden"
            link = f'<a href="{href(replay_url)}">{esc(t("web.live.replay"))}</a>'
            after = f'<p id="after" class="after"{hidden}>{link}</p>'
        foot = (  # i18n: not text
            f'<footer class="foot">{after}<p id="turn-said" class="sr-only" aria-live="polite"></p>'
            f'<p id="latest" class="sr-only" aria-live="polite"></p>'
            f'<noscript><p class="note">{esc(t("web.live.noscript"))}</p></noscript></footer>'
        )
        body = header(sight.title, extra) + main + foot
        return document(lang, sight.title, body, versioned(LIVE_TABLE), versioned("live.js"))


# ------------------------------------------------------------------------------------------------ replay


def _nav(index: int, targets: dict[str, int], lang: str) -> str:
    """The six steppers as links (``?step=N&lang=L``, usable without script, in the page's language whether
    the browser or the address chose it); one that would not move is text."""
    labels = {
        "first": t("web.replay.first"),
        "hand-": t("web.replay.hand-back"),
        "prev": t("web.replay.prev"),
        "next": t("web.replay.next"),
        "hand+": t("web.replay.hand-on"),
        "last": t("web.replay.last"),
    }
    items = []
    for which, symbol in NAV:
        to = targets.get(which, index)
        inner = f'<span class="sym" aria-hidden="true">{symbol}</span> {esc(labels[which])}'  # i18n: not text
        if to == index or to < 0:
            off = f'<span class="step off" aria-disabled="true">{inner}</span>'  # i18n: not text
            items.append(f"<li>{off}</li>")
        else:
            step = f"?step={int(to)}&amp;lang={esc(lang)}"  # i18n: not text
            data = f'data-step="{int(to)}" data-which="{esc(which)}"'  # i18n: not text
            items.append(f'<li><a class="step" href="{step}" {data}>{inner}</a></li>')  # i18n: not text
    label, listed = esc(t("web.replay.nav")), "".join(items)
    return f'<nav class="steps" aria-label="{label}"><ul>{listed}</ul></nav>'  # i18n: not text


def replay_fragment(step: ReplayStep, lang: str) -> str:
    """What ``<main id="replay">`` holds for a step: the steppers, where the step is, the score (the final
    one on the last step), the table after it, and what the step told."""
    with speaking(lang):
        at = esc(t("web.replay.step", step=step.index + 1, steps=step.total))
        hand = esc(t("web.replay.hand", hand=step.hand, hands=step.hands))
        where = f'<p class="where"><span>{at}</span> · <span>{hand}</span></p>'  # i18n: not text
        scored = line_html(step.sight.score)
        if step.final:
            final = esc(t("web.replay.final"))
            score = f'<p class="score final"><strong>{final}</strong> {scored}</p>'  # i18n: not text
        else:
            score = f'<p class="score">{scored}</p>'  # i18n: not text
        said = calls_list([step.call], t("web.replay.quiet"))
        return f"{_nav(step.index, step.targets, lang)}{where}{score}{felt(step.sight, live=False)}{said}"


def replay_page(step: ReplayStep, *, lang: str, record_path: str) -> str:
    """A finished game's replay at one step: links step it without script, ``replay.js`` without
    reloading the page (and with the arrow keys)."""
    inner = replay_fragment(step, lang)
    sight = step.sight
    with speaking(lang):
        title = t("web.replay.title", title=sight.title)
        foot = (  # i18n: not text
            f'<footer class="foot"><p><a href="{href(record_path)}" download>'
            f"{esc(t('web.replay.record'))}</a></p></footer>"
        )
        body = header(sight.title, f'<p class="sub">{esc(t("web.replay.heading"))}</p>')
        body += f'<main id="replay" tabindex="-1">{inner}</main>{foot}'  # i18n: not text
        return document(lang, title, body, versioned("replay.js"))


# ------------------------------------------------------------------------------------------------ others


def server_page(entries: Sequence[tuple[str, Sight]], *, lang: str) -> str:
    """A server's live tables: each one's title, score, and the link to its live page."""
    with speaking(lang):
        title = t("web.server.title")
        items = "".join(  # i18n: not text
            f'<li class="entry"><a href="{href(url)}">{esc(s.title)}</a>'
            f'<p class="score">{line_html(s.score)}</p></li>'
            for url, s in entries
        )
        listed = (  # i18n: not text
            f'<ul class="tables">{items}</ul>'
            if items
            else f'<p class="quiet">{esc(t("web.server.none"))}</p>'
        )
        return document(lang, title, header(title) + f'<main id="tables">{listed}</main>')  # i18n: not text


def message_page(status: int, message: str, *, lang: str) -> str:
    """A short page saying why there is nothing to show: ``message`` is one of ``ERRORS`` (another id, or
    none, says what the status means)."""
    with speaking(lang):
        msg = ERRORS.get(message) or ERRORS[_BY_STATUS.get(status, "web.error.server")]
        text = str(msg)
        return document(  # i18n: not text
            lang, text, header(text) + f'<main id="message"><p class="status-code">{int(status)}</p></main>'
        )


@cache
def _static(name: str) -> bytes:
    return (STATIC / name).read_bytes()


@cache
def versioned(name: str) -> str:
    """``/static/<name>?v=<its digest>``: a file of ``/static`` whose name carries no version still arrives
    anew when it changes (it is cached for a day; Discord's proxy keeps the header)."""
    return f"/static/{name}?v={hashlib.sha256(_static(name)).hexdigest()[:12]}"


def static(name: str) -> tuple[bytes, str] | None:
    """A file of ``/static`` (the stylesheet, the two scripts) and its content type; None for any other
    name."""
    kind = _TYPES.get(name) if isinstance(name, str) else None
    if kind is None:
        return None
    return _static(name), kind
