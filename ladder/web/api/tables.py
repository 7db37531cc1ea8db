"""API views of live tables (the fixed tables API, ARCHITECTURE.md): seat, read, move,
resign, join. Each write is one unit of work.

A caller is the bearer token's user, or else the logged-in browser's: a write sent
with the session cookie must carry the page's CSRF token (`X-CSRFToken`), as the
site's forms do, since the rest of the API (bearer tokens only) is exempt from it.
"""

from __future__ import annotations

import time

from flask import jsonify
from flask_wtf.csrf import CSRFError

from ladder.broker import store
from ladder.errors import ServiceError
from ladder.extensions import app_settings, broker_client, db
from ladder.models import LiveTableState
from ladder.queries import tables as queries
from ladder.services import tables
from ladder.transactions import unit_of_work
from ladder.web.api.bodies import json_body
from ladder.web.api.routes import _caller, _known_caller, bp

# A move's answer waits for the runner to apply it (a few milliseconds while the runner
# is alive: it is blocked on the table's Redis list) and at most this long, which is what
# a runner that died costs one web worker. The bots' answers come with the page's polls.
MOVE_WAIT_S = 1.0
MOVE_POLL_S = 0.02  # how often the wait reads the table's row


@bp.errorhandler(CSRFError)
def _csrf_error(_exc: CSRFError):
    return jsonify({"error": "a write with the session cookie needs the page's X-CSRFToken"}), 400


def _push(table_id: int, message: dict) -> None:
    store.push_move(broker_client(), table_id, message)


def _url(table_id: int) -> str:
    return f"/tables/{table_id}"


@bp.post("/tables")
def create_table():
    user = _known_caller(write=True)
    body = json_body("TableRequest")
    game = body["game"]
    if not isinstance(game, str):
        raise ServiceError("game must be a game's name", field="game")
    with unit_of_work(db.session):
        made = tables.create_table(
            db.session,
            app_settings(),
            user,
            game,
            body["players"],
            body.get("seat"),
            body["opponents"],
        )
    table_id = made.table.id
    answer: dict = {"id": table_id, "seat": made.seat, "url": _url(table_id)}
    if made.invitations:
        answer["invitations"] = [
            {"seat": seat, "token": token, "url": f"{_url(table_id)}/join/{token}"}
            for seat, token in sorted(made.invitations.items())
        ]
    return jsonify(answer), 201


@bp.get("/tables/<id:table_id>")
def table(table_id: int):
    user = _caller()
    found = queries.get_table(db.session, table_id)
    return jsonify(queries.table_detail(db.session, app_settings(), found, user))


@bp.post("/tables/<id:table_id>/join")
def join_table(table_id: int):
    user = _known_caller(write=True)
    body = json_body("JoinRequest")
    with unit_of_work(db.session):
        found = tables.join(db.session, app_settings(), user, table_id, body["token"])
    return jsonify(queries.table_detail(db.session, app_settings(), found, user))


@bp.post("/tables/<id:table_id>/move")
def move(table_id: int):
    """Check the move, hand it to the runner, and answer once it is applied (or after
    MOVE_WAIT_S, with the table as it then stands)."""
    user = _known_caller(write=True)
    body = json_body("MoveRequest")
    with unit_of_work(db.session):
        step = tables.move(db.session, user, table_id, body["action"], _push)
    return jsonify(_after(table_id, user, step))


@bp.post("/tables/<id:table_id>/resign")
def resign(table_id: int):
    user = _known_caller(write=True)
    with unit_of_work(db.session):
        found = tables.resign(db.session, user, table_id, _push)
    return jsonify(queries.table_detail(db.session, app_settings(), found, user))


def _after(table_id: int, user, step: int) -> dict:
    """The table once the runner applied the move checked at `step` (or the wait ran out)."""
    deadline = time.monotonic() + MOVE_WAIT_S
    while True:
        db.session.rollback()  # a fresh snapshot: the runner commits in another process
        found = queries.get_table(db.session, table_id)
        applied = len(found.actions) > step or found.state == LiveTableState.OVER
        if applied or time.monotonic() >= deadline:
            return queries.table_detail(db.session, app_settings(), found, user)
        time.sleep(MOVE_POLL_S)
