"""``python -m bot play``'s command line: the games, their options and the computer's level, with the help
in the language in force; what the arguments make of a game's options, its seats and the player's
preferences (:mod:`bot.cli.play` plays it). Each game's own switches are named after its engine's options
(``game_options``), the preferences' after ``/tavern me``'s (``--auto-cut``, ``--no-auto-cut``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from bot.ai import DEFAULT_LEVEL, LEVELS
from bot.base.i18n import ENGLISH, LANGUAGES, t, tn
from bot.games.prefs import DEFAULT, Prefs

PROG = "python -m bot play"  # i18n: not text


def language_of(argv: Sequence[str] | None) -> str:
    """The ``--language`` given (English if none): read first, so the help itself is in that language."""
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--language", choices=LANGUAGES, default=ENGLISH)
    known, _ = first.parse_known_args(argv)
    language: str = known.language
    return language


def parser() -> argparse.ArgumentParser:
    """The command line, its help in the language in force."""
    top = argparse.ArgumentParser(prog=PROG, description=t("general.play.args.description"))
    top.add_argument("--language", choices=LANGUAGES, default=ENGLISH, help=t("general.play.args.language"))
    games = top.add_subparsers(dest="game", required=True, metavar=t("general.play.args.game-metavar"))

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(  # also after the game's name (it is read before the rest: ``language_of``)
            "--language", choices=LANGUAGES, default=argparse.SUPPRESS, help=t("general.play.args.language")
        )
        p.add_argument("--level", choices=LEVELS, default=DEFAULT_LEVEL, help=t("general.play.args.level"))
        p.add_argument("--seed", type=int, help=t("general.play.args.seed"))
        p.add_argument("--target", type=int, help=t("general.play.args.target"))
        p.add_argument("--name", help=t("general.play.args.name"))

    bh = games.add_parser("bhargage", help=t("general.play.args.bhargage"))
    common(bh)
    bh.add_argument("--sequences", action="store_true", help=t("general.play.args.sequences"))
    bh.set_defaults(game_options=("sequences",))
    switches(bh)
    dx = games.add_parser("deluxe", help=t("general.play.args.deluxe"))
    common(dx)
    dx.set_defaults(game_options=("pawns", "courts", "fast_start"))
    dx.add_argument(
        "--bots",
        type=int,
        default=2,
        choices=range(1, 6),
        metavar="1-5",
        help=tn("general.play.args.default", 2),
    )
    dx.add_argument("--pawns", action="store_true", help=t("general.play.args.pawns"))
    dx.add_argument("--courts", action="store_true", help=t("general.play.args.courts"))
    dx.add_argument(
        "--fast-start",
        type=int,
        default=0,
        choices=range(4),
        metavar="0-3",
        help=tn("general.play.args.default", 0),
    )
    cr = games.add_parser("cribbage", help=t("general.play.args.cribbage"))
    common(cr)
    cr.add_argument(
        "--players",
        type=int,
        default=2,
        choices=range(2, 5),
        metavar="2-4",
        help=t("general.play.args.players") + "; " + tn("general.play.args.default", 2),
    )
    cr.add_argument("--muggins", action="store_true", help=t("general.play.args.muggins"))
    cr.add_argument("--double-lurch", action="store_true", help=t("general.play.args.double-lurch"))
    cr.set_defaults(game_options=("muggins", "double_lurch"))
    switches(cr)
    return top


def flag(name: str) -> str:
    """A preference's flag: "--auto-cut" (and "--no-auto-cut" to turn it off)."""
    return "--" + name.replace("_", "-")


def switches(game: argparse.ArgumentParser) -> None:
    """``/tavern me``'s switches as flags, on or off as Discord has them for a player who never chose."""
    helps = {
        "auto_cut": t("general.play.args.auto-cut"),
        "auto_play": t("general.play.args.auto-play"),
        "quick_discard": t("general.play.args.quick-discard"),
    }
    for name in Prefs.names():
        on = bool(getattr(DEFAULT, name))
        state = t("general.play.args.on") if on else t("general.play.args.off")
        game.add_argument(
            flag(name),
            action=argparse.BooleanOptionalAction,
            default=on,
            help=f"{helps[name]} ({state})",
        )


def prefs_of(args: argparse.Namespace) -> Prefs:
    """The player's preferences: the flags given, else the defaults (a game without them keeps these)."""
    return Prefs(**{name: bool(getattr(args, name, getattr(DEFAULT, name))) for name in Prefs.names()})


def how_to_turn_on(name: str) -> str:
    """What a panel's tip says turns a switch on, in the terminal: the flag to start with, or the one to
    leave out when it is on by default ("start without --no-auto-cut")."""
    if getattr(DEFAULT, name):
        return t("general.play.start-without", flag="--no-" + flag(name)[2:])
    return t("general.play.start-with", flag=flag(name))


def options_of(args: argparse.Namespace) -> dict[str, Any]:
    """The engine's options as stored: the target when given, and the options the game's own switches name
    (``game_options``: each switch's name is the option's)."""
    raw: dict[str, Any] = {name: getattr(args, name) for name in args.game_options}
    if args.target is not None:
        raw["target"] = args.target
    return raw


def computer_seats(args: argparse.Namespace) -> int:
    """How many computer players sit with the human: ``--bots``, or ``--players`` less the human, else one."""
    players: int | None = getattr(args, "players", None)
    return players - 1 if players is not None else int(getattr(args, "bots", 1))
