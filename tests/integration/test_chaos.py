"""A live ladder on PostgreSQL shrugs off crashed services.

Two worker processes, beat, Redis and a private PostgreSQL play house-bot
matches while one fault of each kind strikes, in an order drawn from a seed
(CHAOS_SEED, printed on failure): a worker killed -9, beat killed -9, Redis
restarted empty, PostgreSQL stopped in immediate mode and restarted, a worker
frozen (SIGSTOP) for longer than its lease and then resumed. Then the ladder is
left alone to settle, and the database must show:

- nothing stuck: every match finished (or failed with a reason that is not a bot's);
- no fault charged to a house bot (they never misbehave: any fault was ours);
- each version's ratings chaining from match to match, none lost or doubled;
- every rating recomputed from the recorded seats with TrueSkill itself;
- every finished match with its replay.

It prints how long the ladder took to pick up again after each fault.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import random
import shutil
import signal
import time

import pytest
import trueskill
from sqlalchemy import select

import engine
from ladder.broker import store as broker
from ladder.cli.processes import start_redis
from ladder.models import Match, MatchSeat, Rating, RatingHistory
from ladder.ranking import ratings
from tests.integration.conftest import needs_bwrap
from tests.integration.live import LiveLadder, create_ranked, house_versions, wait_until
from tests.pgcluster import bin_dir, start_cluster

SEED = int(os.environ.get("CHAOS_SEED", "20261203"))
LEASE_S = 3
FAULTS = ("kill_worker", "kill_beat", "redis_empty", "postgres_immediate", "freeze_worker")
DONE = ("finished", "failed")


def _no_postgres() -> str | None:
    try:
        bin_dir()
    except RuntimeError as exc:
        return str(exc)
    return None


pytestmark = [
    pytest.mark.integration,
    needs_bwrap,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.skipif(_no_postgres() is not None, reason=str(_no_postgres())),
]


class Chaos:
    """The ladder under test, and the faults it suffers."""

    def __init__(self, live: LiveLadder, cluster, rng: random.Random) -> None:
        self.live, self.cluster, self.rng = live, cluster, rng
        self.incarnations = itertools.count(1)
        self.workers = [self.start_worker(), self.start_worker()]
        self.recovery: dict[str, float] = {}

    def start_worker(self) -> str:
        name = f"worker-{next(self.incarnations)}"
        self.live.start_worker(name)
        return name

    def states(self, ids) -> dict[int, str]:
        with self.live.session() as s:
            rows = s.execute(select(Match.id, Match.state).where(Match.id.in_(ids))).all()
        return {ident: str(state) for ident, state in rows}

    def picked_up(self, fault: str, waiting: list[int], since: float) -> None:
        """How soon the matches that were waiting are sent again (marked in the new Redis,
        or taken already), and how soon every one of them is taken."""
        redis = broker.Client.from_url(self.live.env["REDIS_URL"])

        def sent_again() -> bool:
            states = self.states(waiting)
            queued = [i for i in waiting if states[i] == "queued"]
            return not queued or all(redis.mget([broker.announced_key("match", i) for i in queued]))

        wait_until(sent_again, 30, f"the matches queued before {fault} to be sent again")
        self.recovery[f"{fault}: sent again"] = time.monotonic() - since
        wait_until(
            lambda: all(s != "queued" for s in self.states(waiting).values()),
            60,
            f"the matches queued before {fault} to be taken",
        )
        self.recovery[f"{fault}: taken"] = time.monotonic() - since
        redis.close()

    # The faults.
    def kill_worker(self) -> None:
        victim = self.rng.choice(self.workers)
        self.live.kill(victim)
        self.workers.remove(victim)
        time.sleep(1)
        self.workers.append(self.start_worker())

    def kill_beat(self) -> None:
        self.live.kill("beat")
        time.sleep(1)
        self.live.start_beat()

    def redis_empty(self, ids) -> None:
        port = int(self.live.env["REDIS_URL"].rsplit(":", 1)[1].split("/")[0])
        self.live.kill("redis")
        shutil.rmtree(self.live.var / "redis", ignore_errors=True)  # its dump: gone too
        waiting = [i for i, s in self.states(ids).items() if s == "queued"]
        self.live.procs["redis"] = start_redis(self.live.var, port)
        self.picked_up("redis_empty", waiting, time.monotonic())

    def postgres_immediate(self) -> None:
        self.cluster.halt()
        time.sleep(2)
        self.cluster.start()

    def freeze_worker(self) -> None:
        victim = self.live.procs[self.rng.choice(self.workers)]
        os.killpg(victim.pid, signal.SIGSTOP)
        time.sleep(LEASE_S + 3)  # its lease lapses, and its match is handed out again
        os.killpg(victim.pid, signal.SIGCONT)


@pytest.fixture
def cluster():
    # Commits must survive the server's crash, as they do in production: the suite's
    # other clusters trade that for speed (synchronous_commit off loses the last ones).
    cluster = start_cluster(synchronous_commit="on")
    yield cluster
    cluster.stop()


def test_the_ladder_shrugs_off_crashed_services(tmp_path, cluster, game, capsys):
    rng = random.Random(SEED)
    url = cluster.create_database("chaos")
    live = LiveLadder(
        tmp_path,
        url,
        LADDER_IN_FLIGHT="0",  # the test queues every match itself
        LEASE_S=str(LEASE_S),
        MAX_ATTEMPTS="8",  # a match may be struck by several faults in a row
    )
    try:
        versions = house_versions(live, game)
        players = engine.get_game(game).min_players
        chaos = Chaos(live, cluster, rng)
        live.start_beat()

        def queue(n: int) -> list[int]:
            return [
                create_ranked(live, game, rng.sample(versions, players), seed=rng.randrange(10**6))
                for _ in range(n)
            ]

        ids = queue(3)
        order = list(FAULTS)
        rng.shuffle(order)
        for fault in order:
            time.sleep(rng.uniform(1.5, 3))
            ids += queue(2)  # work waiting in the queue when the fault strikes
            if fault == "redis_empty":
                chaos.redis_empty(ids)
            else:
                getattr(chaos, fault)()
        ids += queue(1)
        settled_from = time.monotonic()
        wait_until(
            lambda: all(s in DONE for s in chaos.states(ids).values()),
            120,
            f"every match to end after the faults {order} (CHAOS_SEED={SEED})",
        )
        settle_s = time.monotonic() - settled_from
        assert sorted(chaos.states(ids)) == sorted(ids)  # no committed match lost
        check_invariants(live, ids)
    finally:
        live.close()
    with capsys.disabled():
        print(
            f"\nchaos (seed {SEED}, faults {order}): {len(ids)} matches;"
            + "".join(f" {what} in {s:.1f} s;" for what, s in chaos.recovery.items())
            + f" settled in {settle_s:.1f} s after the last fault"
        )


def check_invariants(live: LiveLadder, ids: list[int]) -> None:
    client = live.app.test_client()
    env = trueskill.TrueSkill(
        mu=ratings.MU,
        sigma=ratings.SIGMA,
        beta=ratings.BETA,
        tau=ratings.OPEN_PLAY_TAU,
        draw_probability=ratings.DRAW_PROBABILITY,
        backend=None,
    )
    with live.session() as s:
        matches = s.scalars(select(Match).where(Match.id.in_(ids)).order_by(Match.id)).all()
        finished = [m for m in matches if m.state == "finished"]
        for match in matches:
            if match.state == "failed":  # given up on: never a bot's doing
                assert match.unrated_reason and "attempts failed" in match.unrated_reason, (
                    match.id,
                    match.unrated_reason,
                )
        failed = [(m.id, m.state, m.unrated_reason) for m in matches if m not in finished]
        assert len(finished) >= len(ids) - 2, failed
        for match in finished:
            seats = sorted(match.seats, key=lambda seat: seat.seat)
            # No fault charged to a house bot: a frozen or killed host is never a bot's fault.
            assert [seat.status for seat in seats] == ["ok"] * len(seats), (
                match.id,
                [(seat.status, seat.error) for seat in seats],
            )
            # The ratings as TrueSkill computes them from the recorded seats.
            rated = env.rate(
                [(env.create_rating(seat.mu_before, seat.sigma_before),) for seat in seats],
                ranks=[seat.rank - 1 for seat in seats],
            )
            for seat, (after,) in zip(seats, rated, strict=True):
                assert seat.mu_after == pytest.approx(after.mu), match.id
                assert seat.sigma_after == pytest.approx(after.sigma), match.id
            # Every finished match has its replay.
            answer = client.get(f"/api/v1/matches/{match.id}/replay")
            assert answer.status_code == 200, (match.id, answer.get_data(as_text=True)[:300])
            record = json.loads(gzip.decompress(answer.data))
            assert record["result"]["scores"] == [seat.score for seat in seats]
        # Each version's ratings chain from match to match: none lost, none doubled.
        versions = {seat.version_id for m in finished for seat in m.seats}
        for version_id in versions:
            rows = s.scalars(
                select(RatingHistory)
                .where(RatingHistory.version_id == version_id)
                .order_by(RatingHistory.id)
            ).all()
            played = [seat for m in finished for seat in m.seats if seat.version_id == version_id]
            assert len(rows) == len(played) == s.get(Rating, version_id).games
            assert len({row.match_id for row in rows}) == len(rows)
            for before, after in itertools.pairwise(rows):
                seat = s.scalar(
                    select(MatchSeat).where(
                        MatchSeat.match_id == after.match_id, MatchSeat.version_id == version_id
                    )
                )
                assert seat.mu_before == pytest.approx(before.mu)
                assert seat.sigma_before == pytest.approx(before.sigma)
            assert s.get(Rating, version_id).mu == pytest.approx(rows[-1].mu)
