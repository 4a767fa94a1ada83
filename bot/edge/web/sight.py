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
from bot.pictures import Row, Scene, Track
from bot.services import record_grammar as g
from bot.services import replay as rp

_FENCE = re.compile(r"^```", re.MULTILINE)
FSI, PDI = "\u2068", "\u2069"  # first-strong isolate, pop directional isolate


@dataclass(frozen=True)
class Call:
    """What the channel was told at one step: plain lines, and the picture's scene that went with them (a
    show: everyone's cards as they were shown). ``code`` holds the indexes of lines that were a code block
    (a score table), shown in a fixed-width font."""

    lines: tuple[str, ...]
    scene: Scene | None = None
    alt: str = ""
    code: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Sight:
    """A table as everyone may see it: its title and players, the score line, the board message's text as
    plain lines (``code``: the indexes of fixed-width lines), the board's scene and its alt text, whether the
    game is over, and the table's ``seq`` (what a page is up to)."""

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


def sight(table: Table) -> Sight:
    """The table as its channel shows it to everyone now: the board message (never a seat's panel)."""
    adapter = table.adapter
    names, fix = _namer(table), _isolator(table)
    board = adapter.board(table)
    scene = scene_of(board.picture, fix)
    has_track = scene is not None and any(isinstance(p, Track) for p in scene.parts)
    lines, code = plain_lines(_panel_text(board), names, code=not has_track)
    players = tuple(clean(n) for n in table.names)
    title = t("web.sight.title", game=adapter.title, id=table.id, players=both(map(fix, players)))
    return Sight(
        game=table.game,
        title=title,
        players=players,
        score=fix(" ".join(g.plain(adapter.score_line(table), names))),
        board=tuple(map(fix, lines)),
        scene=scene,
        alt=clean(board.picture.alt) if board.picture is not None else "",
        over=table.status != "active" or table.is_over(),
        seq=table.seq,
        code=code,
    )


def calls(table: Table, events: Sequence[Any]) -> Call:
    """What the channel was told of ``events`` (``table`` is as it stood after them): every message and
    the line calling the players, made plain, with the show's scene if one went with them."""
    told = table.adapter.announce(table, events)
    text = "\n".join([*told.messages, told.ping])
    lines, code = plain_lines(text, _namer(table))
    picture, fix = told.picture, _isolator(table)
    alt = clean(picture.alt) if picture is not None else ""
    return Call(lines=tuple(map(fix, lines)), scene=scene_of(picture, fix), alt=alt, code=code)


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
