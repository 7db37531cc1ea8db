"""Record a real random-move game of every registered game and replay it from storage."""

from __future__ import annotations

import random

import pytest

import engine
from ladder import artifacts
from ladder.models import Match
from ladder.services import matches, storage
from tests.unit.ladder.conftest import make_active_bot, make_user

GAMES = ["toyrace", *engine.game_names()]


def play(game: str, players: int, seed: int) -> dict:
    """A finished game as the runner would report it (every seat ok)."""
    state = engine.get_game(game).new_game(players, seed=seed)
    chooser = random.Random(seed)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    record = state.record()
    result = record["result"]
    return {
        "game": game,
        "seed": seed,
        "players": players,
        "options": record["options"],
        "statuses": ["ok"] * players,
        "scores": result["scores"],
        "ranks": result["ranks"],
        "errors": [None] * players,
        "stderr": [""] * players,
        "replay": {
            **record,
            "statuses": ["ok"] * players,
            "ranks": result["ranks"],
            "errors": [None] * players,
            "decision_ms": [1] * len(record["actions"]),
            "seats": [f"seat {i}" for i in range(players)],
        },
    }


@pytest.mark.parametrize("game", GAMES)
def test_recorded_replay_rebuilds_the_game(session, config, game):
    spec = engine.get_game(game)
    versions = [
        make_active_bot(session, config, make_user(session, f"owner{i}"), game=game)
        for i in range(spec.min_players)
    ]
    match = matches.create_match(session, config, game, [v.id for v in versions], ranked=True)
    outcome = play(game, spec.min_players, match.seed)
    matches.record_match(session, config, match.id, outcome)
    stored = session.get(Match, match.id)
    assert stored.engine_version == spec.version
    replay = storage.load_replay(artifacts.store(config, session), stored.replay_key)
    assert engine.replay(replay).result() == outcome["replay"]["result"]
    assert sorted(s.rank for s in stored.seats) == sorted(outcome["ranks"])
