"""Finished games stored as the bot stores them, played by the bot's own players: for tests of what reads
finished games (replay, records)."""

from __future__ import annotations

import random

from bot.edge.app import TavernBot
from bot.games import GAMES
from bot.services.tables.moves import finish_from
from bot.store.records import NewAction, NewGame
from tests.fakediscord import FakeUser


async def store_finished(
    bot: TavernBot, game: str, players: list[FakeUser], seed: int, guild: int, channel: int = 1
) -> int:
    """A game the engine's own players finish, stored as the bot stores one: each action, the last with its
    end (results and ratings). ``channel``: where it was played (channel 1 exists nowhere: only its players
    may see such a game)."""
    adapter = GAMES[game]
    rules = adapter.rules
    options = rules.Options()
    state, _ = rules.start(seed, len(players), options)
    rng = random.Random(seed)
    texts: list[str] = []
    while not rules.is_over(state):
        seat = rules.waiting_for(state)[0]
        action = adapter.ai.choose(rules.view(state, seat), rng, "normal")  # type: ignore[union-attr]
        texts.append(rules.action_text(action))
        state, _ = rules.apply(state, action)
    new = NewGame(game, guild, channel, seed, [(u.id, u.name) for u in players], options.to_dict(), 1000.0)
    game_id = await bot.store.create_game(new)
    for seq, text in enumerate(texts, 1):
        end = finish_from(rules.final_result(state), 2000.0, rules, state) if seq == len(texts) else None
        await bot.store.append_action(NewAction(game_id, seq, int(text.split()[0]), text, 1000.0 + seq, end))
    return game_id
