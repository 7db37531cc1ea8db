"""The match list's totals come from `match_tallies`, which the database keeps in step
with `matches` by triggers, whatever writes the rows."""

from __future__ import annotations

from sqlalchemy import delete, func, insert, select

from ladder.models import Match, MatchTally
from ladder.queries import boards


def _tallies(session) -> dict[str, int]:
    return {game: n for game, n in session.execute(select(MatchTally.game, MatchTally.matches))}


def _rows(game: str, n: int) -> list[dict]:
    return [{"game": game, "seed": i, "players": 2} for i in range(n)]


def test_tallies_follow_inserts_and_deletes_of_every_kind(session):
    session.execute(insert(Match), _rows("toyrace", 3))  # one statement, many rows
    session.add_all(
        [Match(game="manila", seed=1, players=3), Match(game="toyrace", seed=9, players=2)]
    )
    session.commit()
    assert _tallies(session) == {"toyrace": 4, "manila": 1}
    session.execute(delete(Match).where(Match.game == "toyrace", Match.seed < 2))
    session.commit()
    assert _tallies(session) == {"toyrace": 2, "manila": 1}
    counted = {
        g: n for g, n in session.execute(select(Match.game, func.count()).group_by(Match.game))
    }
    assert _tallies(session) == counted


def test_a_rolled_back_insert_leaves_the_tallies_alone(session):
    session.execute(insert(Match), _rows("toyrace", 2))
    session.rollback()
    assert _tallies(session) == {}


def test_match_list_totals_read_the_tallies(session):
    session.execute(insert(Match), _rows("toyrace", 5) + _rows("manila", 2))
    session.commit()
    assert boards.match_list(session, 1, 3)["total"] == 7
    assert boards.match_list(session, 1, 3, game="manila")["total"] == 2
    assert boards.match_list(session, 1, 3, game="caravelas")["total"] == 0
    assert boards.match_list(session, 3, 3)["pages"] == 3
