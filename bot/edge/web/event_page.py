"""A tournament's page (``/e/<token>``): the event's title (game, format, status), its standings — a
knockout's bracket round by round instead — and each round's matches, each with its live table's link while
it plays and each finished game's replay.

Pure: it is handed the event and the links' makers and writes HTML, every name through ``esc`` (an entrant's
name is anyone's input), in the page's language. Like the server page it holds no script: it is built anew
every few seconds (``event_routes``) and a reload shows what changed.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.base.i18n import speaking, t
from bot.edge.tournament_posts import format_name
from bot.edge.web.pages import document, header, href
from bot.edge.web.parts import esc
from bot.services.tournaments.event import KNOCKOUTS, Event, GameDone, Match

Link = Callable[[int], str]  # a game's id → its page's address


def _status(event: Event) -> str:
    status = event.status
    if status == "signup":
        return t("web.event.status.signup")
    if status == "paused":
        return t("web.event.status.paused")
    if status == "finished":
        return t("web.event.status.finished")
    if status == "cancelled":
        return t("web.event.status.cancelled")
    return t("web.event.status.running")


def _name(event: Event, user_id: int) -> str:
    """A player's name as the page shows it: inside ``<bdi>`` (a right-to-left name stays in its place)."""
    entrant = event.entrant(user_id)
    return f"<bdi>{esc(entrant.name if entrant and entrant.name else user_id)}</bdi>"


def _standings(event: Event) -> str:
    """The standings table: place, name (a dropped player marked), points, Buchholz, spread."""
    heads = (
        t("web.event.col.place"),
        t("web.event.col.player"),
        t("web.event.col.points"),
        t("web.event.col.buchholz"),
        t("web.event.col.spread"),
    )
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in heads)  # i18n: not text
    rows = []
    for place, line in enumerate(event.lines(), start=1):
        entrant = event.entrant(line.player)
        gone = entrant is not None and entrant.dropped
        left = f' <span class="mark">{esc(t("web.event.left"))}</span>' if gone else ""  # i18n: not text
        rows.append(  # i18n: not text
            f'<tr><td class="num">{place}</td><th scope="row">{_name(event, line.player)}{left}</th>'
            f'<td class="num">{line.points}</td><td class="num">{line.buchholz}</td>'
            f'<td class="num">{line.spread:+d}</td></tr>'
        )
    if not rows:
        return f'<p class="quiet">{esc(t("web.event.nobody"))}</p>'  # i18n: not text
    caption = esc(t("web.event.standings"))
    return (  # i18n: not text
        f'<table class="standings"><caption class="sr-only">{caption}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _fate(m: Match, player: int) -> str:
    """A bracket line's class: the match's winner, one it put out, or still playing."""
    return "won" if player == m.winner else "out" if m.decided else "on"  # i18n: not text


def _bracket(event: Event) -> str:
    """A knockout's bracket: a column a round, each match's players with its winner marked."""
    if not event.rounds:
        return f'<p class="quiet">{esc(t("web.event.no-round"))}</p>'  # i18n: not text
    columns = []
    for r, matches in enumerate(event.rounds, start=1):
        items = []
        for m in matches:
            names = "".join(  # i18n: not text
                f'<li class="{_fate(m, p)}">{_name(event, p)}</li>' for p in m.players
            )
            items.append(f'<li class="duel"><ol class="pair">{names}</ol></li>')  # i18n: not text
        heading = esc(t("web.event.round", round=r, rounds=event.total_rounds()))
        duels = "".join(items)
        stage = f'<li class="stage"><h3>{heading}</h3><ol class="duels">{duels}</ol></li>'  # i18n: not text
        columns.append(stage)
    return f'<ol class="bracket">{"".join(columns)}</ol>'  # i18n: not text


def _game(event: Event, n: int, game: GameDone, replay: Link) -> str:
    """One finished game of a match: its scores by player, how it ended when not by play, its replay."""
    scores = " · ".join(f"{_name(event, p)} {s}" for p, s in zip(game.players, game.scores, strict=False))
    if game.how == "awarded":
        scores = esc(t("web.event.awarded"))
    elif game.how == "forfeit":
        scores += f' <span class="mark">{esc(t("web.event.forfeit"))}</span>'  # i18n: not text
    label = esc(t("web.event.game", game=n))
    link = ""
    if game.game_id is not None:
        link = f' <a href="{href(replay(game.game_id))}">{esc(t("web.event.replay"))}</a>'  # i18n: not text
    return f'<li class="game"><span class="label">{label}</span> {scores}{link}</li>'  # i18n: not text


def _match(event: Event, m: Match, live: Link, replay: Link) -> str:
    """A match: its players, its games, its live table while one plays, and its winner once decided."""
    if len(m.players) == 1:
        bye = esc(t("web.event.bye"))
        return f'<li class="entry match"><p>{bye} {_name(event, m.players[0])}</p></li>'  # i18n: not text
    players = " – ".join(_name(event, p) for p in m.players)
    said = esc(t("web.event.match", match=m.key))
    head = f'<p><span class="label">{said}</span> {players}</p>'  # i18n: not text
    games = "".join(_game(event, n, g, replay) for n, g in enumerate(m.games, start=1))
    tail = ""
    if m.game_id is not None:
        watch = esc(t("web.event.watch"))
        tail = f'<p class="after"><a href="{href(live(m.game_id))}">{watch}</a></p>'  # i18n: not text
    elif m.winner is not None:
        won = esc(t("web.event.winner"))
        tail = f'<p class="after"><strong>{won}</strong> {_name(event, m.winner)}</p>'  # i18n: not text
    listed = f'<ul class="games">{games}</ul>' if games else ""  # i18n: not text
    return f'<li class="entry match">{head}{listed}{tail}</li>'  # i18n: not text


def _rounds(event: Event, live: Link, replay: Link) -> str:
    """Every round's matches, the newest round first (where the tables play now)."""
    if not event.rounds:
        return f'<p class="quiet">{esc(t("web.event.no-round"))}</p>'  # i18n: not text
    out = []
    for r in range(len(event.rounds), 0, -1):
        heading = esc(t("web.event.round", round=r, rounds=event.total_rounds()))
        matches = "".join(_match(event, m, live, replay) for m in event.rounds[r - 1])
        out.append(f'<h3>{heading}</h3><ul class="tables">{matches}</ul>')  # i18n: not text
    return "".join(out)


def event_page(event: Event, game: str, *, lang: str, live: Link, replay: Link) -> str:
    """The whole page: ``game`` is the game's title; ``live`` and ``replay`` make a table's addresses."""
    with speaking(lang):
        name = event.settings.name
        sub = t("web.event.sub", game=game, format=format_name(event.settings.format), status=_status(event))
        knockout = event.settings.format in KNOCKOUTS
        first = t("web.event.bracket") if knockout else t("web.event.standings")
        table = _bracket(event) if knockout else _standings(event)
        main = (  # i18n: not text
            f'<main id="event"><section class="part" aria-labelledby="first-h">'
            f'<h2 id="first-h">{esc(first)}</h2>{table}</section>'
            f'<section class="part" aria-labelledby="rounds-h"><h2 id="rounds-h">{esc(t("web.event.rounds"))}'
            f"</h2>{_rounds(event, live, replay)}</section></main>"
        )
        body = header(name, f'<p class="sub">{esc(sub)}</p>') + main  # i18n: not text
        return document(lang, name, body)
