"""``bot.base.recent.keep_newest``: what the bot's bounded memories (what its messages show, recent replays)
keep, so that none grows with the bot's uptime."""

from __future__ import annotations

from collections import OrderedDict

from bot.base.recent import keep_newest
from bot.edge.shows import Shows


def test_the_least_recently_used_entries_go_past_the_bound() -> None:
    kept: OrderedDict[str, int] = OrderedDict()
    for n, key in enumerate("abcd"):
        keep_newest(kept, key, n, 3)
    assert list(kept.items()) == [("b", 1), ("c", 2), ("d", 3)]
    keep_newest(kept, "b", 9, 3)  # used again: the newest now, with its new value
    keep_newest(kept, "e", 4, 3)
    assert list(kept.items()) == [("d", 3), ("b", 9), ("e", 4)]


def test_what_messages_show_is_remembered_for_the_newest_only() -> None:
    shows = Shows(most=2)
    for message_id in (1, 2, 3):
        shows.remember(message_id, laid=True)
        shows.edit(message_id)
    assert [shows.laid(m) for m in (1, 2, 3)] == [None, True, True]
    assert [shows.edits(m) for m in (1, 2, 3)] == [0, 1, 1]
    assert shows.edit(2) == 2  # counted on from what it remembered
