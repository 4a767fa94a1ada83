"""What a watcher of a table may see in a browser: the board, the score and the calls, as plain text and the
board's scene — public information only, in the language in force.

Everything here comes from the two things the game's channel shows everyone: the adapter's ``board`` (the
board message and its picture) and its ``announce`` (the calls). A seat's panel is never read, so a page can
show nothing the channel did not: no hand, no lay-away, no deck. The Discord markup is made plain by the
game record's own ``plain`` (mentions as names, no bold, suit emojis as their symbols, hidden characters
cut); the scene's words get the same cleaning, since a seat's name in a caption is a stored, escaped name.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.base.i18n import both, t
from bot.base.panel import Panel, Picture
from bot.games import Table
from bot.pictures import BACK, Row, Scene, Track
from bot.render import deluxe as deluxe_words
from bot.rules import bhargage as bh
from bot.rules import cribbage as cr
from bot.rules import deluxe as dx
from bot.services import record_grammar as g
from bot.services import replay as rp

_FENCE = re.compile(r"^```", re.MULTILINE)
FSI, PDI = "\u2068", "\u2069"  # first-strong isolate, pop directional isolate


@dataclass(frozen=True)
class Call:
    """What the channel was told at one step: plain lines, and the picture's scene that went with them (a
    show: everyone's cards as they were shown), drawn after the first ``scene_at`` lines (the message it
    went with; None: after them all). ``code`` holds the indexes of lines that were a code block (a score
    table), shown in a fixed-width font. ``seq``: the table's action count after the step (0: unknown)."""

    lines: tuple[str, ...]
    scene: Scene | None = None
    alt: str = ""
    code: frozenset[int] = frozenset()
    scene_at: int | None = None
    seq: int = 0


@dataclass(frozen=True)
class SeatSight:
    """One seat as anyone at the table sees it: its name, its score (None: the game keeps none per seat),
    how many cards it holds (never which; None: not known for this game), whether the game waits for it,
    deals, or has left, and what lies face up in front of it (Deluxe: its melds, a scene row)."""

    name: str
    score: int | None = None
    held: int | None = None
    turn: bool = False
    dealer: bool = False
    gone: bool = False
    row: Row | None = None


@dataclass(frozen=True)
class Sight:
    """A table as everyone may see it: its title and players, the score line, the board message's text as
    plain lines (``code``: the indexes of fixed-width lines), the board's scene and its alt text, whether the
    game is over, and the table's ``seq`` (what a page is up to); then the table as it sits: its
    ``seats`` (counts of the hands, never their cards), the ``deck``'s size (None: not known), whom it
    ``waiting`` for in words, and when the last move was made (``moved_at``, seconds since the epoch: the
    page counts the idle time from it)."""

    game: str
    title: str
    players: tuple[str, ...]
    score: str
    board: tuple[str, ...]
    scene: Scene | None
    alt: str
    over: bool
    seq: int
    code: frozenset[int] = frozenset()
    seats: tuple[SeatSight, ...] = ()
    deck: int | None = None
    waiting: str = ""
    moved_at: float = 0.0


clean = g.legible  # a stored text (a seat's name) as people read it, as the calls' lines are


def _namer(table: Table) -> Callable[[int], str]:
    """A mention's user id → the seat's name as people read it."""
    names = {s.user_id: clean(n) for s, n in zip(table.seats, table.names, strict=True)}
    return lambda uid: names.get(uid, "?")


def _isolator(table: Table) -> Callable[[str], str]:
    """Cleans a text (:func:`clean`) and sets each right-to-left name in it apart (first-strong isolate …
    pop), so the words and numbers after "ملك" stay where they were written; other names are left as
    they are."""
    rtl = sorted(
        {n for n in map(clean, table.names) if any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in n)},
        key=len,
        reverse=True,
    )

    def fix(text: str) -> str:
        text = clean(text)
        for name in rtl:
            text = text.replace(name, f"{FSI}{name}{PDI}")
        return text

    return fix


def plain_lines(
    text: str, names: Callable[[int], str], *, code: bool = True
) -> tuple[tuple[str, ...], frozenset[int]]:
    """Discord text as plain lines, with the indexes of the lines that were inside a code block; ``code``
    False leaves code blocks out (the board's text pegs, which the scene's track shows)."""
    lines: list[str] = []
    fixed: set[int] = set()
    for n, part in enumerate(_FENCE.split(text)):
        inside = n % 2 == 1
        if inside and not code:
            continue
        part = part.split("\n", 1)[1] if inside and "\n" in part else part  # the fence's language tag
        found = g.plain(part, names)
        if inside:
            fixed.update(range(len(lines), len(lines) + len(found)))
        lines.extend(found)
    return tuple(lines), frozenset(fixed)


def clean_scene(scene: Scene, fix: Callable[[str], str] = clean) -> Scene:
    """The scene with every word cleaned by ``fix`` (its captions hold seats' stored names)."""
    parts: list[Row | Track] = []
    for part in scene.parts:
        if isinstance(part, Track):
            lanes = tuple(replace(lane, name=fix(lane.name)) for lane in part.lanes)
            parts.append(replace(part, lanes=lanes))
        else:
            parts.append(replace(part, caption=fix(part.caption), labels=tuple(fix(x) for x in part.labels)))
    return replace(scene, parts=tuple(parts), title=fix(scene.title))


def scene_of(picture: Picture | None, fix: Callable[[str], str] = clean) -> Scene | None:
    """A picture's scene when its key is one (every game's board and show), cleaned."""
    key = picture.key if picture is not None else None
    return clean_scene(key, fix) if isinstance(key, Scene) else None


def _panel_text(panel: Panel) -> str:
    parts = [panel.content]
    if panel.embed is not None:
        parts += [panel.embed.title or "", panel.embed.description]
    return "\n".join(p for p in parts if p)


def _public(
    table: Table,
) -> tuple[tuple[int | None, ...], tuple[int | None, ...], int | None, int, tuple[bool, ...]]:
    """What anyone at the table can count: each seat's score and cards held (lengths only: no card is
    read), the deck's size, the dealer (-1: none) and who has left, from the engine's state."""
    state, n = table.state, len(table.seats)
    if isinstance(state, bh.State):
        return state.scores, tuple(map(len, state.hands)), len(state.deck), state.dealer, (False,) * n
    if isinstance(state, cr.State):
        scores = tuple(state.scores[cr.side_of(state, s)] for s in range(n))
        return scores, tuple(map(len, state.hands)), len(state.deck), state.dealer, (False,) * n
    if isinstance(state, dx.State):
        return state.totals, tuple(map(len, state.hands)), len(state.deck), -1, state.left
    return (None,) * n, (None,) * n, None, -1, (False,) * n


def _seats(table: Table, over: bool, scene: Scene | None) -> tuple[tuple[SeatSight, ...], Scene | None]:
    """The seats as they sit, and the board's scene without what the seats now show: a Deluxe table's
    scene opens with a row per seat (its melds), which goes to that seat's place."""
    scores, held, _deck, dealer, gone = _public(table)
    waited = set() if over else set(table.waiting_for())
    rows: tuple[Row | None, ...] = (None,) * len(table.seats)
    if isinstance(table.state, dx.State) and scene is not None:
        n = len(table.seats)
        rows = tuple(replace(p, caption="") if isinstance(p, Row) else None for p in scene.parts[:n])
        scene = replace(scene, parts=scene.parts[n:])
    seats = tuple(
        SeatSight(
            name=clean(name),
            score=scores[s],
            held=held[s],
            turn=s in waited,
            dealer=s == dealer,
            gone=gone[s],
            row=rows[s],
        )
        for s, name in enumerate(table.names)
    )
    return seats, scene


def sight(table: Table) -> Sight:
    """The table as its channel shows it to everyone now: the board message (never a seat's panel), and
    the seats as anyone sitting there sees them (how many cards each holds, not which)."""
    adapter = table.adapter
    names, fix = _namer(table), _isolator(table)
    board = adapter.board(table)
    scene = scene_of(board.picture, fix)
    has_track = scene is not None and any(isinstance(p, Track) for p in scene.parts)
    lines, code = plain_lines(_panel_text(board), names, code=not has_track)
    players = tuple(clean(n) for n in table.names)
    title = t("web.sight.title", game=adapter.title, id=table.id, players=both(map(fix, players)))
    over = table.status != "active" or table.is_over()
    seats, scene = _seats(table, over, scene)
    waiting = "" if over else fix(" ".join(g.plain(adapter.waiting_text(table), names)))
    return Sight(
        game=table.game,
        title=title,
        players=players,
        score=fix(" ".join(g.plain(adapter.score_line(table), names))),
        board=tuple(map(fix, lines)),
        scene=scene,
        alt=clean(board.picture.alt) if board.picture is not None else "",
        over=over,
        seq=table.seq,
        code=code,
        seats=seats,
        deck=_public(table)[2],
        waiting=waiting,
        moved_at=table.last_action_at,
    )


def calls(table: Table, events: Sequence[Any]) -> Call:
    """What the channel was told of ``events`` (``table`` is as it stood after them), for a spectator:
    every message, made plain, with the show's scene after the message it went with. Left out by their
    kind, never by their words: the ping line (a prompt to the players it calls: "your turn", "your new
    hand is on your panel") and, where the board draws the pegs, the code blocks (that board in text)."""
    adapter = table.adapter
    told = adapter.announce(table, events)
    board = adapter.board(table).picture
    key = board.key if board is not None else None
    pegs = isinstance(key, Scene) and any(isinstance(p, Track) for p in key.parts)
    names, picture, fix = _namer(table), told.picture, _isolator(table)
    lines: list[str] = []
    code: set[int] = set()
    scene_at: int | None = None
    for n, message in enumerate(told.messages):
        found, fixed = plain_lines(message, names, code=not pegs)
        code.update(len(lines) + i for i in fixed)
        lines.extend(found)
        if n == told.picture_at:
            scene_at = len(lines)
    alt = clean(picture.alt) if picture is not None else ""
    scene = scene_of(picture, fix)
    if picture is None and (scene := moves(events)) is not None:
        scene_at = min(len(lines), _moves_told(table, events, names))
    return Call(
        lines=tuple(map(fix, lines)),
        scene=scene,
        alt=alt,
        code=frozenset(code),
        scene_at=scene_at,
        seq=table.seq,
    )


_MOVES = (dx.CardDrawn, dx.AceDrawnToPile, dx.QueueTaken, dx.MeldBound, dx.CardDiscarded)


def _moves_told(table: Table, events: Sequence[Any], names: Callable[[int], str]) -> int:
    """How many of a Deluxe step's plain lines tell its moves (the announcement words them one event at a
    time, in order, as ``event_lines`` does): the moves' cards go right after them, before the end of the
    hand or the next one's deal that may follow in the same step."""
    last = max(n for n, event in enumerate(events) if isinstance(event, _MOVES))
    said = deluxe_words.event_lines(list(events[: last + 1]), table.names)
    return len(plain_lines("\n".join(said), names)[0])


def moves(events: Sequence[Any]) -> Scene | None:
    """A Deluxe turn's moves as cards, in the order they were made: a draw from the deck face down (the
    event names no card), an Ace drawn to its pile, the cards taken from the Discard Queue, each meld bound,
    the card discarded; None for anything else (a game's show has a picture of its own)."""
    groups: list[tuple[Any, ...]] = []
    labels: list[str] = []
    for event in events:
        match event:
            case dx.CardDrawn():
                groups.append((BACK,))
                labels.append(t("web.move.drew"))
            case dx.AceDrawnToPile(card=card):
                groups.append((card,))
                labels.append(t("web.move.ace"))
            case dx.QueueTaken(cards=cards):
                groups.append(tuple(cards))
                labels.append(t("web.move.took"))
            case dx.MeldBound(cards=cards):
                groups.append(tuple(cards))
                labels.append(t("web.move.bound"))
            case dx.CardDiscarded(card=card):
                groups.append((card,))
                labels.append(t("web.move.discarded"))
    if not groups:
        return None
    return Scene((Row(groups=tuple(groups), labels=tuple(labels), small=True),), worth="suits")


@dataclass(frozen=True)
class ReplayStep:
    """One step of a finished game as its replay page shows it: the table after it, what it told, where it
    stands (``index`` from 0 of ``total``, in hand ``hand`` of ``hands``) and where each stepper leads."""

    sight: Sight
    call: Call
    index: int
    total: int
    targets: dict[str, int]
    hand: int
    hands: int

    @property
    def final(self) -> bool:
        return self.index == self.total - 1


def replay_step(replay: rp.Replay, index: int) -> ReplayStep:
    """Step ``index`` (clamped to the steps there are) of ``replay``, in the language in force."""
    index = max(0, min(index, len(replay.steps) - 1))
    step, table = replay.steps[index], replay.at(index)
    return ReplayStep(
        sight=sight(table),
        call=calls(table, step.events),
        index=index,
        total=len(replay.steps),
        targets=replay.targets(index),
        hand=step.hand,
        hands=replay.steps[-1].hand,
    )
