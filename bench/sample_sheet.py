"""Sample pictures a person can open: the deck, a hand, a board, a show and a Bharg Deluxe table.

Run from the repository root:

    python -m bench.sample_sheet                        # writes docs/pictures/*.png and prints the paths
    python -m bench.sample_sheet --update-references    # also rewrites tests/reference/*.png (pixel tests)

The same scenes (and ``scene(kind, rng)`` for varied ones) feed ``bench/bench_images.py`` and the tests.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.pictures import Lane, Row, Scene, Track, draw, gallery
from bot.rules.decktet import ALL_CARDS, BASIC_CARDS, Card, Rank, Suit, cards

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "pictures"
REFERENCES = ROOT / "tests" / "reference"

NAMES = ("Ana", "Bértrand le Magnifique", "Chen 陈", "Dee 🐉✨", "Eilidh", "Fitz")


def hand_scene(
    hand: tuple[Card, ...], up: Card, pile: tuple[Card, ...], picked: tuple[int, ...] = (1, 4)
) -> Scene:
    count = sum(c.value for c in pile)
    return Scene(
        (
            Row("Your hand · choose two for the crib", (hand,), picked=tuple((0, i) for i in picked)),
            Row("", ((up,), pile), labels=("up-card", f"pile · count {count}"), small=True),
        ),
        title="Bhargage · round 2",
    )


def board_scene(lanes: tuple[Lane, ...], up: Card, pile: tuple[Card, ...], target: int = 121) -> Scene:
    return Scene(
        (
            Track(lanes, target),
            Row(
                "",
                ((up,), pile),
                labels=("up-card", f"pile · count {sum(c.value for c in pile)}"),
            ),
        ),
        title=f"Bhargage · to {target}",
    )


def show_scene() -> Scene:
    return Scene(
        (
            Row(
                "Ana's hand",
                (cards("author, origin, forest, sailor"), cards("mountain")),
                labels=("15 for 2 · pair for 2 · run of 3 for 3 = 7", "up-card"),
            ),
            Row(
                "The crib (Fitz)",
                (cards("ace of suns, cave, harvest, consul"), cards("mountain")),
                labels=("15 for 4 · suit of 3 for 3 = 7", "up-card"),
                small=True,
            ),
        ),
        title="The show",
    )


def table_scene(rng: random.Random, players: int = 6) -> Scene:
    """A full Bharg Deluxe table: a queue, the Ace pile, the straight suit, and each player's bound melds."""
    deck = [c for c in BASIC_CARDS if c.rank != Rank.ACE] * 4  # more than a real table holds: a stress test
    rng.shuffle(deck)
    aces = tuple(c for c in ALL_CARDS if c.rank == Rank.ACE)[: rng.randint(2, 6)]
    parts: list[Row | Track] = [
        Row("Queue", (tuple(deck.pop() for _ in range(6)),), picked=((0, rng.randrange(6)),), small=True),
        Row("Ace pile", (aces,), small=True),
        Row("Straight suit:", suits=(rng.choice(list(Suit)),)),
    ]
    for p in range(players):
        melds = tuple(
            tuple(deck.pop() for _ in range(rng.choice((3, 3, 4)))) for _ in range(rng.choice((3, 4)))
        )
        labels = tuple(
            f"{rng.choice(('Bharg set', 'straight', 'suit run'))} · {sum(c.value for c in m)}" for m in melds
        )
        score = sum(sum(c.value for c in m) for m in melds)
        parts.append(Row(f"{NAMES[p]} · {score}", melds, labels=labels, small=True))
    return Scene(tuple(parts), title="Bharg Deluxe · round 3")


def scene(kind: str, rng: random.Random) -> Scene:
    """A varied scene of one kind ("hand", "board", "deluxe table") for benchmarks."""
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    if kind == "hand":
        return hand_scene(tuple(deck[:6]), deck[6], tuple(deck[7:11]), picked=tuple(rng.sample(range(6), 2)))
    if kind == "board":
        lanes = tuple(
            Lane(NAMES[i], rng.randint(30, 110), rng.randint(0, 29), rng.randint(1, 12)) for i in range(2)
        )
        return board_scene(lanes, deck[0], tuple(deck[1:5]))
    if kind == "deluxe table":
        return table_scene(rng)
    raise ValueError(kind)


def samples() -> dict[str, bytes]:
    """The documented pictures (fixed, so they double as pixel references)."""
    return {
        "cards": gallery(),
        "hand": draw(
            hand_scene(
                cards("ace of moons, desert, journey, market, pact, watchman"),
                card_("the sea"),
                cards("castle, mill, ace of knots, lunatic"),
            )
        ),
        "board": draw(
            board_scene(
                (Lane("Ana", 87, 79, 8), Lane("Bértrand le Magnifique", 112, 100, 12), Lane("Dee 🐉✨", 0)),
                card_("the bard"),
                cards("castle, mill, ace of knots"),
            )
        ),
        "board-61": draw(
            board_scene((Lane("Ana", 61, 55, 6), Lane("Chen 陈", 58, 52, 6)), card_("excuse"), (), target=61)
        ),
        "show": draw(show_scene()),
        "deluxe-table": draw(table_scene(random.Random(3))),
    }


def card_(name: str) -> Card:
    return cards(name)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--update-references", action="store_true", help="also rewrite tests/reference/*.png")
    args = ap.parse_args()
    DOCS.mkdir(parents=True, exist_ok=True)
    for name, png in samples().items():
        out = DOCS / f"{name}.png"
        out.write_bytes(png)
        print(f"{out.relative_to(ROOT)}  {len(png) / 1024:.0f} KB")
        if args.update_references:
            REFERENCES.mkdir(parents=True, exist_ok=True)
            ref = REFERENCES / f"{name}.png"
            ref.write_bytes(png)
            print(f"{ref.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
