"""The seam between the web process and the workers.

A service that creates work (a version to validate, a match to play) stores
it in the database in its waiting state and calls `notify`. Without a broker
(no REDIS_URL) nothing listens and the work simply waits; with one,
`ladder.jobs.celery_app` sets `app.config["DISPATCH"]` to a callable
`(kind, ident)` that queues the task, and that task calls the services below.

- kind "validate", ident = BotVersion.id:
  `services.bots.start_validation`, then `services.bots.finish_validation`.
- kind "match", ident = Match.id:
  `services.matches.match_job` → `workers.match.run_match(...)` →
  `services.matches.record_match` (or `services.matches.fail_match`).
- kind "tournament", ident = Match.id of a tournament match: played like a
  "match", on the tournament queue, then `services.tournaments.advance`.
- kind "challenge", ident = Match.id of a user's challenge: played like a
  "match", on the challenge queue.
"""

from __future__ import annotations

from collections.abc import Mapping

KINDS = ("validate", "match", "tournament", "challenge")


def notify(config: Mapping, kind: str, ident: int) -> None:
    """Tell the workers about new work, if anything is listening."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of work {kind!r}")
    hook = config.get("DISPATCH")
    if hook is not None:
        hook(kind, ident)
