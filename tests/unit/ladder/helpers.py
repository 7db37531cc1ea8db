"""Matches for ladder tests: outcomes in the shape a worker reports, random games played to
the end, matches recorded through the services and live tables finished as their
matches (for fixtures, see conftest.py)."""

from __future__ import annotations

import dataclasses
import random

import engine
from ladder.models import Match
from ladder.queries import tables as table_queries
from ladder.services import matches, tables
from tests.unit.ladder.conftest import make_active_bot
from workers import Outcome


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


def aged_matches(session, config, alice, bob, days_old: int = 40) -> dict[str, int]:
    """Finished matches of every kind, their finish moved `days_old` days back (and one
    recent ladder match), plus one still running, for the replay retention policy:
    kind -> match id. Alice is made staff to run the tournament."""
    from datetime import timedelta

    from sqlalchemy import update

    from ladder.models import utcnow
    from ladder.queries import tournaments as tournament_queries
    from ladder.services import tournaments

    a = make_active_bot(session, config, alice, name="old-a")
    b = make_active_bot(session, config, bob, name="old-b")
    ids = {}
    for kind in ("ladder", "ladder2", "recent"):
        match = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
        matches.record_match(session, config, match.id, outcome_for(match, [1, 2]))
        ids[kind] = match.id
    # Unrated, asked for by nobody: the shape a table with a human seat would take.
    unranked = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=False)
    matches.record_match(session, config, unranked.id, outcome_for(unranked, [1, 2]))
    ids["unranked"] = unranked.id
    challenge = matches.create_challenge(session, config, alice, a.id, [b.id])
    matches.record_match(session, config, challenge.id, outcome_for(challenge, [2, 1]))
    ids["challenge"] = challenge.id
    running = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
    matches.start_match(session, running.id)
    ids["running"] = running.id
    session.commit()
    alice.is_staff = True
    cup = tournaments.create_tournament(session, alice, "Old cup", "toyrace", "elimination", seed=2)
    tournaments.open_tournament(session, alice, cup.id)
    tournaments.enter(session, alice, cup.id, a.bot_id)
    tournaments.enter(session, bob, cup.id, b.bot_id)
    tournaments.start(session, config, alice, cup.id)
    session.commit()
    first = next(iter(tournament_queries.slots(session, cup.id).values()))
    matches.record_match(session, config, first.id, outcome_for(first, [2, 1]))
    ids["tournament"] = first.id
    old = utcnow() - timedelta(days=days_old)
    aged = [i for kind, i in ids.items() if kind != "recent"]
    session.execute(update(Match).where(Match.id.in_(aged)).values(created_at=old, finished_at=old))
    session.execute(update(Match).where(Match.id == ids["running"]).values(finished_at=None))
    session.commit()
    return ids


def played_out(table, chooser: random.Random) -> Outcome:
    """Play the table's game to the end as a runner would (random moves for every seat),
    recording each step, and return the Outcome `run_table` would: its replay names a
    person's seat by the username (`table_play.play_table`'s labels), a bot's by its
    version's seat label."""
    state = table_queries.game_state(table)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    record = state.record()
    result = record["result"]
    n = table.players
    record.update(
        seats=[
            s.user.username if s.user is not None else s.version.seat_label for s in table.seats
        ],
        statuses=["ok"] * n,
        ranks=result["ranks"],
        errors=[None] * n,
        decision_ms=[1] * len(record["actions"]),
    )
    return Outcome.from_dict(
        {
            "game": table.game,
            "seed": table.seed,
            "players": n,
            "options": {},
            "statuses": ["ok"] * n,
            "scores": result["scores"],
            "ranks": result["ranks"],
            "replay": record,
        }
    )


def finished_table(session, config, user, opponents, players=2, joiners=()):
    """A table `user` sits at in seat 0, each open seat taken by one of `joiners`, played
    to the end and stored as its match (the runner's stderr for the last seat)."""
    made = tables.create_table(session, config, user, "toyrace", players, 0, opponents)
    session.commit()
    for person, token in zip(joiners, made.invitations.values(), strict=True):
        tables.join(session, config, person, made.table.id, token)
        session.commit()
    table = made.table
    outcome = played_out(table, random.Random(3))
    stderr = (None,) * (players - 1) + ("thinking about the race",)
    match = tables.finish(session, config, table.id, dataclasses.replace(outcome, stderr=stderr))
    session.commit()
    return table, match
