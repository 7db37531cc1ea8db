"""The Tradewinds ladder: `create_app`, the app factory (in `ladder.app`, imported
from here only when asked for, so `ladder play` starts without Flask).

The layers, each a package, top to bottom: `web` (blueprints and the API),
`jobs` (the Celery app, its thin tasks, heartbeat and leases: the only layer that
imports Celery) and `cli` (the `ladder` command); `services` (commands: they
change state) and `queries` (what pages and the API read); `broker` (the Redis
names and announcing work after a commit), `ranking` (ratings and matchmaking,
pure), `tournaments` (schedules and standings, pure), `artifacts`, `models`,
`errors`; and below them all `workers` and `engine`. Beside them `settings`,
`extensions` and `transactions` (the unit of work a view, task or command opens and
commits around the services it calls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ladder.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from ladder.app import create_app

        return create_app
    raise AttributeError(f"module 'ladder' has no attribute {name!r}")
