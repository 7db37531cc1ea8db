"""Matches for ladder tests: outcomes in the shape a worker reports, random games played to
the end, and matches recorded through the services (for fixtures, see conftest.py)."""

from __future__ import annotations

import random

import engine
from ladder.models import Match
from ladder.services import matches
from tests.unit.ladder.conftest import make_active_bot


def outcome_for(match: Match, ranks, statuses=None, scores=None) -> dict:
    """An outcome in the agreed shape for `match`."""
    n = match.players
    statuses = statuses or ["ok"] * n
    scores = scores or [10 * (n - r) for r in ranks]
    return {
        "game": match.game,
        "seed": match.seed,
        "players": n,
        "options": {},
        "statuses": statuses,
        "scores": scores,
        "ranks": ranks,
        "errors": [None if s == "ok" else f"{s} on move 3" for s in statuses],
        "stderr": [f"stderr of seat {i}" for i in range(n)],
        "replay": {
            "game": match.game,
            "engine_version": "1",
            "seed": match.seed,
            "players": n,
            "options": {},
            "actions": [[0, {"add": 1}]],
            "result": {"scores": scores, "ranks": ranks},
            "statuses": statuses,
            "ranks": ranks,
            "errors": [None] * n,
            "decision_ms": [3],
            "seats": [f"seat{i}" for i in range(n)],
        },
    }


def play(session, config, versions, statuses, ranked=True):
    """Create and record a toyrace match of `versions` whose seats end with `statuses` (an
    `ok` seat ranks 1, a faulted one 3); returns the match's id."""
    match = matches.create_match(
        session, config, "toyrace", [v.id for v in versions], ranked=ranked, seed=1
    )
    ranks = [1 if s == "ok" else 3 for s in statuses]
    matches.record_match(session, config, match.id, outcome_for(match, ranks, statuses))
    session.commit()
    return match.id


def played(name: str, n: int, seed: int = 4) -> dict:
    """The record of a random game played to the end, with the ladder's extra fields."""
    state = engine.get_game(name).new_game(n, seed=seed)
    chooser = random.Random(seed)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    record = state.record()
    record.update(seats=[f"bot{i} v1" for i in range(n)], statuses=["ok"] * n)
    return record


def stored_match(session, config, owners, game="manila", seed=11):
    """A finished match of a real game whose stored replay is a real record."""
    versions = [
        make_active_bot(session, config, owner, name=f"{game}{i}", game=game)
        for i, owner in enumerate(owners)
    ]
    match = matches.create_match(
        session, config, game, [v.id for v in versions], ranked=False, seed=seed
    )
    record = played(game, len(owners), seed=seed)
    outcome = outcome_for(match, record["result"]["ranks"], scores=record["result"]["scores"])
    outcome["replay"] = record
    matches.record_match(session, config, match.id, outcome)
    session.commit()
    return match, record
