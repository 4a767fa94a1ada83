"""What speaking two languages costs: reading the catalogs at start, one lookup, and drawing a whole seat
panel and board in English and in Italian.

    .venv/bin/python -m bench.bench_i18n [--lookups 100000] [--panels 2000]
"""

from __future__ import annotations

import argparse
import time

from bot.base import i18n
from bot.games import GAMES, Seat, Table


def _table(game: str) -> Table:
    adapter = GAMES[game]
    state, _ = adapter.rules.start(7, 2, adapter.options({}))
    return Table(
        id=1,
        game=game,
        adapter=adapter,
        guild_id=1,
        channel_id=1,
        seed=7,
        options=adapter.options({}),
        seats=(Seat(1, "giulia"), Seat(2, "oliver")),
        state=state,
        seq=0,
        created_at=0.0,
        last_action_at=0.0,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--lookups", type=int, default=100_000)
    parser.add_argument("--panels", type=int, default=2_000)
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    english, italian = i18n.catalog("en"), i18n.catalog("it")
    loaded = time.perf_counter() - t0
    plural = sum(e.plural for e in english.entries.values())
    sizes = f"{len(english.entries)} en, {len(italian.entries)} it; {plural} plural"
    print(f"catalogs read          {loaded * 1000:7.1f} ms  ({sizes})")
    for language in ("en", "it"):
        with i18n.speaking(language):
            t0 = time.perf_counter()
            for _ in range(args.lookups):
                i18n.t("tavern.lobby.full", most=6)
            per = (time.perf_counter() - t0) / args.lookups
        print(f"t() in {language}              {per * 1e6:7.2f} µs per lookup ({args.lookups} lookups)")
    for game in ("bhargage", "deluxe"):
        table = _table(game)
        for language in ("en", "it"):
            with i18n.speaking(language):
                t0 = time.perf_counter()
                for _ in range(args.panels):
                    table.adapter.seat_panel(table, 0)
                    table.adapter.board(table)
                per = (time.perf_counter() - t0) / args.panels
            print(f"{game:<8} panel+board {language}  {per * 1e3:7.3f} ms ({args.panels} draws, text only)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
