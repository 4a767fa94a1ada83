"""Before and after pictures of each panel kind (issue 47, item 4): what ``bot.edge.delivery`` sends for one
panel, as a classic message (content, embed, rows of buttons) and as one layout container, drawn by a small
renderer in Discord's dark theme. The panels are real: a seeded game of each kind, its tables drawn at one
step by the adapters, with the game's own pictures.

    python -m bench.panel_pictures [--out docs/pictures/panels]

Markdown is shown plain (``**`` dropped); a select is drawn as its placeholder; what a client does with
emoji it lacks a font for is not imitated (the shipped emoji subset draws what it has)."""

from __future__ import annotations

import argparse
import io
import re
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from bot.base.i18n import speaking
from bot.base.panel import Panel
from bot.edge import delivery
from bot.edge.shows import Shown
from bot.games import GAMES
from bot.games.lobby import Lobby
from bot.games.seats import TABLE_ACCENT
from bot.pictures import text as fonts
from bot.pictures import writing
from tests.test_layout_limits import steps

WIDTH = 620
BG, CARD, INK, DIM, LINE = (49, 51, 56), (43, 45, 49), (219, 222, 225), (148, 155, 164), (63, 65, 71)
STYLE = {1: (88, 101, 242), 2: (78, 80, 88), 3: (36, 128, 70), 4: (218, 55, 60), 5: (78, 80, 88)}
SIZE = 15
_MARKS = re.compile(r"\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)|^#+ |^-# ", re.M)


class Canvas:
    """A growing picture of one message, drawn top to bottom."""

    def __init__(self) -> None:
        self.im = Image.new("RGB", (WIDTH, 4000), BG)
        self.y = 16

    def text(
        self, words: str, x: int, width: int, colour: tuple[int, int, int] = INK, bold: bool = False
    ) -> None:
        fnt = fonts.font(SIZE, bold)
        for line in _MARKS.sub("", words).split("\n"):
            for part in writing.wrap(line, fnt, width, 12) if line.strip() else ("",):
                writing.write(self.im, (x, self.y), part, fnt, colour)
                self.y += SIZE + 6

    def image(self, png: bytes, x: int, width: int) -> None:
        picture = Image.open(io.BytesIO(png)).convert("RGB")
        if picture.width > width:
            picture = picture.resize((width, round(picture.height * width / picture.width)))
        self.im.paste(picture, (x, self.y + 4))
        self.y += picture.height + 10

    def row(self, components: list[dict[str, Any]], x: int) -> None:
        d = ImageDraw.Draw(self.im)
        fnt = fonts.font(SIZE - 1)
        for comp in components:
            label = comp.get("label") or comp.get("placeholder") or ""
            if comp.get("emoji"):
                label = f"{comp['emoji'].get('name', '')} {label}".strip()
            w = 380 if comp.get("type") != 2 else max(40, round(writing.length(label, fnt)) + 24)
            if x + w > WIDTH - 20:
                x, self.y = 28, self.y + 40
            colour = STYLE.get(comp.get("style", 2), STYLE[2]) if comp.get("type") == 2 else (30, 31, 34)
            d.rounded_rectangle((x, self.y, x + w, self.y + 32), 6, fill=colour)
            writing.write(self.im, (x + w / 2, self.y + 16), writing.fit(label, fnt, w - 12), fnt, INK, "mm")
            x += w + 8
        self.y += 42

    def done(self) -> Image.Image:
        return self.im.crop((0, 0, WIDTH, self.y + 12))


def classic(panel: Panel, png: bytes | None) -> Image.Image:
    """The panel as the classic message delivery sends: content, its embed (with the picture), rows."""
    sent = delivery.kwargs(panel, "g", 1, new=True, laid=False)
    c = Canvas()
    if sent.get("content"):
        c.text(sent["content"], 20, WIDTH - 40)
    for embed in sent.get("embeds", []):
        top = c.y
        c.y += 10
        if embed.title:
            c.text(embed.title, 34, WIDTH - 70, bold=True)
        c.text(embed.description or "", 34, WIDTH - 70)
        if png is not None:
            c.image(png, 34, WIDTH - 80)
        d = ImageDraw.Draw(c.im)
        d.rectangle((20, top, 23, c.y), fill=embed.colour.to_rgb() if embed.colour else LINE)
        c.y += 8
    if png is not None and not sent.get("embeds"):
        c.image(png, 20, WIDTH - 40)
    view = sent.get("view")
    for row in view.to_components() if view is not None else []:
        c.row(row["components"], 20)
    return c.done()


def laid(panel: Panel, png: bytes | None) -> Image.Image:
    """The panel as one layout container: its accent bar, text blocks, gallery, separator and rows."""
    kept = Shown("k", panel.picture.filename, 1) if panel.picture is not None else None
    sent = delivery.kwargs(panel, "g", 1, new=True, kept=kept, laid=True)
    (container,) = sent["view"].to_components()
    c = Canvas()
    top = c.y
    c.y += 12
    for comp in container["components"]:
        kind = comp["type"]
        if kind == 10:
            c.text(comp["content"], 36, WIDTH - 72)
            c.y += 4
        elif kind == 12 and png is not None:
            c.image(png, 36, WIDTH - 72)
        elif kind == 14:
            ImageDraw.Draw(c.im).line((36, c.y + 4, WIDTH - 36, c.y + 4), fill=LINE, width=1)
            c.y += 12
        elif kind == 1:
            c.row(comp["components"], 36)
    d = ImageDraw.Draw(c.im)
    accent = container.get("accent_color")
    box = Image.new("RGB", (WIDTH - 32, c.y - top + 8), CARD)
    body = c.im.crop((16, top, WIDTH - 16, c.y + 8))
    box.paste(body)
    c.im.paste(box, (16, top))
    d.rounded_rectangle((16, top, WIDTH - 16, c.y + 8), 8, outline=LINE)
    if accent is not None:
        d.rectangle(
            (16, top + 1, 20, c.y + 7), fill=((accent >> 16) & 255, (accent >> 8) & 255, accent & 255)
        )
    c.y += 12
    return c.done()


def panels() -> dict[str, Panel]:
    """One panel of each kind, from seeded games at a step where each shows its usual controls."""
    out: dict[str, Panel] = {}
    for game, players, step in (("bhargage", 2, 3), ("cribbage", 2, 3), ("deluxe", 3, 4)):
        table = next(t for t in steps(game, players, {}, 2) if t.seq == step)
        adapter = table.adapter
        seat = table.module.waiting_for(table.state)[0]
        out[f"{game}-seat-panel"] = adapter.private_panel(table, seat)
        out[f"{game}-board"] = adapter.board(table).laid_out(TABLE_ACCENT)
    table = next(iter(steps("bhargage", 2, {}, 2)))
    out["summary"] = table.adapter.summary(table, "#bhargage-thread").laid_out(TABLE_ACCENT)
    lobby = Lobby(
        id=1,
        game="deluxe",
        guild_id=1,
        channel_id=2,
        host_id=10,
        invited_id=None,
        options={},
        names={10: "Ann", 11: "Ben"},
        members=(10, 11),
        message_id=None,
        created_at=0.0,
        expires_at=None,
        status="open",
        game_id=None,
    )
    out["deluxe-lobby"] = GAMES["deluxe"].lobby_panel(lobby).laid_out(TABLE_ACCENT)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs/pictures/panels")
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    with speaking("en"):
        for name, panel in panels().items():
            png = panel.picture.draw() if panel.picture is not None else None
            classic(panel, png).save(out / f"{name}-before.png", optimize=True)
            laid(panel, png).save(out / f"{name}-after.png", optimize=True)
            print(out / f"{name}-before.png", out / f"{name}-after.png")


if __name__ == "__main__":
    main()
