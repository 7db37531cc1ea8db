"""Pure game rules for Tradewinds: the registry of games and replays.

`engine` imports nothing else of ours and does no I/O: a state is plain data,
its chance comes only from its own seeded generator.
"""

from __future__ import annotations

import importlib

from engine.core import Game, IllegalAction, State

__all__ = ["Game", "IllegalAction", "State", "game_names", "get_game", "replay", "replay_start"]

# name -> module that defines GAME; one line per game.
_GAMES: dict[str, str] = {
    "manila": "engine.manila",
    "caravelas": "engine.caravelas",
    "meuterer": "engine.meuterer",
}


def game_names() -> list[str]:
    """Names of every registered game, sorted."""
    return sorted(_GAMES)


def get_game(name: str) -> Game:
    """The registered game called `name`; ValueError for an unknown one."""
    try:
        module = _GAMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(game_names())}") from None
    return importlib.import_module(module).GAME


def replay_start(record: dict) -> State:
    """The state a replay record starts from, playing the rules of the record's version.

    A record of the current version, or of one listed in the game's `replays`,
    starts a state of that version (old records keep their old rules); a record
    without `engine_version` plays the current rules. Raises ValueError for any
    other version, saying which versions this engine replays.
    """
    return get_game(record["game"]).new_game(
        record["players"],
        seed=record["seed"],
        options=record.get("options"),
        version=record.get("engine_version"),
    )


def replay(record: dict) -> State:
    """Rebuild the final state of a replay record by re-applying its actions.

    The record is played under the rules of its own engine version (see
    `replay_start`). Raises ValueError for a version this engine cannot replay
    or actions not played by the seats they name, IllegalAction for an illegal
    action.
    """
    state = replay_start(record)
    for i, (seat, action) in enumerate(record["actions"]):
        if seat != state.current_player():
            raise ValueError(
                f"action {i} is recorded for seat {seat},"
                f" but seat {state.current_player()} was on move"
            )
        state.apply(action)
    return state
