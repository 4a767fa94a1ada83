"""The pure rules core: cards, decks and one state machine per game.

No Discord, asyncio or database code lives here, and no words: the engines import nothing of the bot but
this package, and every sentence a player reads is built in :mod:`bot.render`. Randomness comes only from
``random.Random`` objects seeded from the game's seed, so a game is fully determined by (seed, players,
options, action log).

Every game module (``bhargage``, ``deluxe``, ``cribbage``) exposes the same shape, which the service layer
relies on (``bot.rules.engine.Engine`` says it in types):

- ``Options`` — frozen dataclass with ``to_dict()`` / ``Options.from_dict(d)``.
- ``start(seed, players, options) -> (State, list[Event])`` — a new game, with the opening events.
- ``legal_actions(state, seat) -> list[Action]`` — what that seat may do now (empty when not its move).
- ``apply(state, action) -> (State, list[Event])`` — raises a ``RulesError`` subclass: a refusal id and its
  values as data (:mod:`bot.rules.errors`), made a sentence where it is shown (``bot.render.refusals.said``).
- ``check(state, action) -> None`` — raises exactly the ``RulesError`` (type and message) that ``apply`` would
  raise, without changing anything; ``apply`` validates through the same code, so the two never disagree.
  Cheap enough to run on every click before the move is applied.
- ``can(state, action) -> bool`` — whether ``apply`` would accept the action (``check`` without the reason).
- ``parse_action(text) -> Action`` and ``action_text(action) -> str`` — the log's text form; they round-trip.
- ``waiting_for(state) -> tuple[int, ...]`` — seats whose move the table is waiting for.
- ``is_over(state) -> bool`` and ``final_result(state) -> Result`` (scores, winners, muggins, how it ended).
- ``view(state, seat)`` — what that seat may see.
- ``replay(seed, players, options, texts) -> State`` — rebuild a state from the action log.

States, actions and events are frozen dataclasses; events are named in the past tense.

``counting`` is no game: it is the core that Bhargage and Classic Cribbage share (the cut for the deal, the
deal, the play's turn order with go, the show's order and the events of the play); each of the two takes it
and keeps its own deck, scoring and deviations.
"""
