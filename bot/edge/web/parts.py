"""The pieces the web pages are built of: a card, a suit, a row of cards, a peg board, a scene, the calls,
and the felt (the table as it sits: whose turn, the seats around the board, the deck).

Every value that comes from a table goes through :func:`esc` on its way in; a card is an ``<img>`` with its
name as alt text, a suit the bot's own symbol (never an emoji: a page ships no colour-emoji font), a hand
face down as backs with its count in words beside them, so a screen reader, or a browser without
pictures, reads the whole table.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import replace

from bot.base.i18n import current, t, tn
from bot.edge.web.cards import AnyCard, card_file, card_words, suit_file
from bot.edge.web.sight import Call, SeatSight, Sight
from bot.pictures import BACK, Row, Scene, Track, street_marks
from bot.pictures.faces import Worth
from bot.render import words
from bot.rules.decktet import Suit

LARGE = (64, 90)  # CSS px of a card: the scenes' large cards (96 px) and small ones (58 px), phone-sized
SMALL = (46, 64)


def esc(value: object) -> str:
    """``value`` as text that stays text in HTML, in an element or an attribute (quotes escaped too)."""
    return html.escape(str(value), quote=True)


# A suit's emoji in a line (with or without its variation selector): drawn as the bot's own symbol.
_SUIT_OF = {suit.emoji.rstrip("\ufe0f"): suit for suit in Suit}
_SUIT_EMOJI = re.compile("(" + "|".join(map(re.escape, _SUIT_OF)) + ")\ufe0f?")
# Any other emoji the calls carry (a meld's mark, the deal's, the winner's cup): left out, the words say it.
_OTHER_EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff]\ufe0f? ?")
HAND_BACKS = 12  # card backs drawn for a hidden hand at most (its count is written beside them)


def _suit(suit: Suit) -> str:
    """A suit's symbol as a small picture, its name as alt text."""
    src = f"/c/{current()}/{suit_file(suit)}"
    name = esc(words.suit(suit))
    size = 'width="18" height="18"'  # i18n: not text
    return f'<img class="suit" src="{esc(src)}" alt="{name}" title="{name}" {size}>'  # i18n: not text


def line_html(line: str) -> str:
    """A line as HTML: escaped, each suit emoji drawn as the bot's symbol, any other emoji left out (the
    page ships no colour-emoji font: it would show as an empty box)."""
    parts = _SUIT_EMOJI.split(line)
    return "".join(
        _suit(_SUIT_OF[part]) if n % 2 else esc(_OTHER_EMOJI.sub("", part)) for n, part in enumerate(parts)
    )


def _card(card: AnyCard, worth: Worth, small: bool, picked: bool, tap: bool = False) -> str:
    """A card face up; ``tap``: it carries its index (``data-card``), for the Activity's page to press the
    control that names it."""
    w, h = SMALL if small else LARGE
    src = f"/c/{current()}/{card_file(card, worth)}"
    cls = "card picked" if picked else "card"  # i18n: not text
    alt = card_words(card)
    index = getattr(card, "index", None)
    data = f' data-card="{int(index)}"' if tap and isinstance(index, int) else ""  # i18n: not text
    img = f'<img class="{cls}" src="{esc(src)}" alt="{esc(alt)}" width="{w}" height="{h}"{data}>'
    return img  # i18n: not text


def _row(row: Row, worth: Worth, tap: bool = False) -> str:
    """A row of a scene: its caption (and suit symbols), then each group of cards with its label."""
    suits = ", ".join(f"{_suit(s)} {esc(words.suit(s))}" for s in row.suits)
    mark = f' <span class="suits">{suits}</span>'  # i18n: not text
    caption = line_html(row.caption) + (mark if suits else "")
    picked = set(row.picked)
    groups = []
    for g, group in enumerate(row.groups):
        cards = "".join(_card(c, worth, row.small, (g, i) in picked, tap) for i, c in enumerate(group))
        label = row.labels[g] if g < len(row.labels) else ""
        tail = f'<span class="label">{esc(label)}</span>' if label else ""  # i18n: not text
        groups.append(f'<li class="group"><span class="cards">{cards}</span>{tail}</li>')
    head = f'<p class="caption">{caption}</p>' if caption else ""
    body = f'<ul class="groups">{"".join(groups)}</ul>' if groups else ""  # i18n: not text
    return f'<div class="row{" small" if row.small else ""}">{head}{body}</div>'


def _backs(count: int, small: bool = True) -> str:
    """``count`` cards face down (at most ``HAND_BACKS`` drawn): pictures only, the same for every card; the
    words beside them say how many."""
    w, h = SMALL if small else LARGE
    src = esc(f"/c/{current()}/{card_file(BACK)}")
    one = f'<img class="back" src="{src}" alt="" width="{w}" height="{h}">'  # i18n: not text
    return f'<span class="backs" aria-hidden="true">{one * min(count, HAND_BACKS)}</span>' if count else ""


def _bar(front: int, back: int | None, target: int) -> str:
    """One lane's peg board as SVG: the holes to the target, the score filled in (the last points brighter),
    a mark at the end of each street. Drawn by attributes and classes only; the text beside it says it."""
    high = 10
    back = front if back is None else max(0, min(back, front))
    marks = "".join(  # i18n: not text
        f'<line class="mark" x1="{m}" y1="0" x2="{m}" y2="{high}" vector-effect="non-scaling-stroke"/>'
        for m in street_marks(target)
    )
    return (  # i18n: not text
        f'<svg class="bar" viewBox="0 0 {target} {high}" preserveAspectRatio="none" aria-hidden="true"'
        f' focusable="false"><rect class="hole" width="{target}" height="{high}"/>'
        f'<rect class="fill" width="{back}" height="{high}"/>'
        f'<rect class="gain" x="{back}" width="{front - back}" height="{high}"/>{marks}</svg>'
    )


def _track(track: Track) -> str:
    """A peg board: a lane per player or side, its name, its score of the target, the points it last
    pegged, and the board drawn beside them."""
    lanes = []
    target = max(1, track.target)
    for n, lane in enumerate(track.lanes):
        front = max(0, min(lane.front, target))
        gained = f' <span class="gained">{lane.gained:+d}</span>' if lane.gained else ""  # i18n: not text
        points = t("web.track.points", score=lane.front, target=track.target)
        lanes.append(  # i18n: not text
            f'<li class="lane lane{n % 6}"><span class="who"><bdi>{esc(lane.name)}</bdi></span>'
            f' <span class="pts">{esc(points)}</span>{gained}{_bar(front, lane.back, target)}</li>'
        )
    label = t("web.track.label", target=track.target)
    return f'<ul class="track" aria-label="{esc(label)}">{"".join(lanes)}</ul>'  # i18n: not text


def _scene(scene: Scene, level: int, tap: bool = False) -> str:
    """A scene as HTML: its title as a heading of ``level``, then its rows and peg boards, top to bottom;
    ``tap``: each card carries its index (a seat's own hand on the Activity's page)."""
    title = f'<h{level} class="scene-title">{esc(scene.title)}</h{level}>' if scene.title else ""
    parts = "".join(_track(p) if isinstance(p, Track) else _row(p, scene.worth, tap) for p in scene.parts)
    return f'<div class="scene">{title}{parts}</div>'  # i18n: not text


def hand_html(scene: Scene) -> str:
    """A seat's own cards (its panel's picture) face up at full size, each carrying its index, so a tap on a
    card presses the control of the panel that names it (the Activity's page)."""
    return _scene(scene, 3, tap=True)


def _lines(lines: Sequence[str], code: frozenset[int], start: int = 0) -> str:
    """Plain lines as paragraphs; a run of code-block lines (a score table) as one fixed-width block.
    ``start``: the index of the first line among those ``code`` counts."""
    out: list[str] = []
    block: list[str] = []
    for n, line in enumerate(lines, start):
        if n in code:
            block.append(esc(line))
            continue
        if block:
            out.append('<pre class="code">' + "\n".join(block) + "</pre>")  # i18n: not text
            block = []
        out.append(f'<p class="line">{line_html(line)}</p>')
    if block:
        out.append('<pre class="code">' + "\n".join(block) + "</pre>")  # i18n: not text
    return "".join(out)


def _call(call: Call, newest: bool = False) -> str:
    """One step's calls in the order they were told, the show's cards after the message they went with
    (before the next hand's deal)."""
    at = len(call.lines) if call.scene_at is None else call.scene_at
    shown = _scene(call.scene, 3) if call.scene is not None else ""
    said = _lines(call.lines[:at], call.code) + shown + _lines(call.lines[at:], call.code, at)
    cls = "call newest" if newest else "call"  # i18n: not text
    return f'<li class="{cls}" data-seq="{int(call.seq)}">{said}</li>'  # i18n: not text


def calls_list(calls: Sequence[Call], quiet: str, *, newest_first: bool = False) -> str:
    """The calls as a list: a live table's newest first (the newest marked), a replay's one step."""
    said = [c for c in calls if c.lines or c.scene is not None]
    if newest_first:
        said.reverse()
    items = "".join(_call(c, newest_first and n == 0) for n, c in enumerate(said))
    if not items:
        items = f'<li class="quiet">{esc(quiet)}</li>'  # i18n: not text
    heading = esc(t("web.calls.heading"))
    where = ' id="log" tabindex="0"' if newest_first else ""  # a scrolling box the keyboard can scroll
    return (  # i18n: not text
        f'<section class="calls"{where} aria-labelledby="calls-h"><h2 id="calls-h">{heading}</h2>'
        f'<ol class="call-list">{items}</ol></section>'
    )


# ------------------------------------------------------------------------------------------------ the felt


def _seat(seat: SeatSight, n: int, worth: Worth) -> str:
    """One seat's place: its name and score, whether the table waits for it (marked, and said), its hand
    face down with how many cards it holds, and what it has laid face up."""
    flags = (("turn", seat.turn), ("dealer", seat.dealer), ("gone", seat.gone))
    cls = " ".join(["seat", f"seat{n % 6}", *(name for name, on in flags if on)])  # i18n: not text
    said = (
        (t("web.seat.to-play"), seat.turn, "mark to-play"),  # i18n: not text
        (t("web.seat.dealer"), seat.dealer, "mark"),
        (t("web.seat.left"), seat.gone, "mark"),
    )
    mark = '<span class="{}">{}</span>'  # i18n: not text
    marks = "".join(mark.format(kind, esc(text)) for text, on, kind in said if on)
    score = ""
    if seat.score is not None:
        points = esc(t("web.seat.score", score=seat.score))
        score = f'<span class="seat-score">{points}</span>'  # i18n: not text
    name = f'<bdi class="seat-name">{esc(seat.name)}</bdi>'  # i18n: not text
    head = f'<p class="seat-head">{name}{score}{marks}</p>'  # i18n: not text
    hand = ""
    if seat.held is not None and not seat.gone:
        held = esc(tn("web.seat.held", seat.held, count=seat.held))
        hand = f'<p class="hand">{_backs(seat.held)}<span class="held">{held}</span></p>'  # i18n: not text
    row = _row(seat.row, worth) if seat.row is not None and seat.row.groups else ""
    current = ' aria-current="true"' if seat.turn else ""  # i18n: not text
    return f'<li class="{cls}" data-seat="{int(n)}"{current}>{head}{hand}{row}</li>'  # i18n: not text


def _places(count: int) -> tuple[list[int], list[int]]:
    """The seats above the board and below it, each row left to right, play going clockwise around: the
    first half across the top and the rest back along the bottom. (The Activity's page moves a seated
    player's own seat alone to the bottom by its ``data-seat``: the frame is the same for every viewer.)"""
    top = (count + 1) // 2
    return list(range(top)), list(reversed(range(top, count)))


def _turn(sight: Sight, live: bool) -> str:
    """Whose turn it is, in words, and how long the table has waited (``live.js`` counts it on from the last
    move's time); the game's end once it is over."""
    if sight.over or not sight.waiting:
        if not sight.over:
            return ""
        said = esc(t("web.live.over"))
        return f'<div class="turn-bar over"><p class="turn-who">{said}</p></div>'  # i18n: not text
    since = max(0.0, sight.moved_at)
    idle = ""
    if since and live:
        clock = f'<time class="idle-time" data-since="{since:.0f}"></time>'  # i18n: not text
        idle = f'<p class="idle">{esc(t("web.turn.idle"))} {clock}</p>'  # i18n: not text
    who = f'<p class="turn-who">{line_html(sight.waiting)}</p>'  # i18n: not text
    return f'<div class="turn-bar">{who}{idle}</div>'  # i18n: not text


def felt(sight: Sight, *, live: bool = True) -> str:
    """The table: whose turn (a live table: since when, and the score), the seats around the board (hands
    face down, counted), the deck, the board's scene, and the board's words folded away (they say what
    the pictures show)."""
    worth: Worth = sight.scene.worth if sight.scene is not None else "count"
    top, bottom = _places(len(sight.seats))
    label = esc(t("web.seats.label"))

    def ring(which: list[int], where: str) -> str:
        if not which:
            return ""
        places = "".join(_seat(sight.seats[s], s, worth) for s in which)
        return f'<ul class="seats {where}" aria-label="{label}">{places}</ul>'  # i18n: not text

    deck = ""
    if sight.deck is not None and not sight.over:
        words_ = esc(tn("web.deck.count", sight.deck, count=sight.deck))
        pile = _backs(1, small=False) if sight.deck else ""
        deck = f'<p class="deck">{pile}<span class="deck-count">{words_}</span></p>'  # i18n: not text
    heading = sight.scene.title if sight.scene is not None and sight.scene.title else t("web.board.heading")
    if sight.scene is not None:
        drawn = _scene(replace(sight.scene, title=""), 3)
    else:
        drawn = f'<p class="alt">{esc(sight.alt)}</p>' if sight.alt else ""
    said = _lines(sight.board, sight.code)
    if said:
        summary = esc(t("web.board.words"))
        said = f'<details class="said"><summary>{summary}</summary>{said}</details>'  # i18n: not text
    turn = _turn(sight, live)
    if live:
        turn += f'<p class="score">{line_html(sight.score)}</p>'
    centre = (  # i18n: not text
        f'<div class="centre"><h3 class="board-title">{esc(heading)}</h3>{deck}{drawn}{said}</div>'
    )
    return (  # i18n: not text
        f'<section id="felt" class="felt" aria-labelledby="felt-h"><h2 id="felt-h" class="sr-only">'
        f"{esc(t('web.felt.heading'))}</h2>{turn}"
        f"{ring(top, 'top')}{centre}{ring(bottom, 'bottom')}</section>"
    )
