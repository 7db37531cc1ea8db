"""Live table pages: thin views over `services.tables` (the commands the API calls) and
`queries.tables` / `queries.table_pages` (the reads). The table itself updates in the
browser (static/js/table.js) through the fixed tables API."""

from __future__ import annotations

from flask import Blueprint, flash, jsonify, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required

import engine
from ladder.errors import ServiceError
from ladder.extensions import app_settings, db
from ladder.inputs import whole_number
from ladder.models import LiveTableState
from ladder.queries import replays
from ladder.queries import table_pages as pages
from ladder.queries import tables as queries
from ladder.services import table_settings, tables
from ladder.transactions import unit_of_work
from ladder.web.boards.games import known_game
from ladder.web.forms import EmptyForm, place_error
from ladder.web.tables.forms import OPEN, RANDOM, HumanPlayForm, PlayForm

bp = Blueprint("tables", __name__)

INVITES = "table_invitations"  # the Flask session's {table id: {seat: token}}: shown once


# -- the play form -----------------------------------------------------------------
def play_form(game: str, formdata=None) -> PlayForm:
    """The play form for `game`, its opponents the bots the tables service would seat."""
    spec = engine.get_game(game)
    offered = pages.opponent_choices(db.session, app_settings(), game, _user())
    choices = [(f"house:{name}", f"{name} (house bot)") for name in offered["house"]]
    choices += [(f"v:{version_id}", label) for version_id, label in offered["bots"]]
    choices.append((OPEN, "Open seat (invite a friend)"))
    form = PlayForm(formdata=formdata) if formdata is not None else PlayForm()
    form.offer(spec.min_players, spec.max_players, choices)
    return form


def _user():
    return current_user._get_current_object() if current_user.is_authenticated else None


def _opponent(value: str):
    """A choice as the service takes it: a house bot's name, a version id, None (open)."""
    if value.startswith("house:"):
        return value.removeprefix("house:")
    if value.startswith("v:"):
        return whole_number(value.removeprefix("v:"))
    return None


def _place_error(form: PlayForm, exc: ServiceError, used: int) -> None:
    """Put a refusal of the service under the field it names (`forms.place_error`); an
    opponent's ("opponents[i]", or the list as a whole) goes under that entry of the list."""
    field = exc.field or ""
    entries = list(form.opponents)[:used]
    index = field.removeprefix("opponents[").removesuffix("]") if field != "opponents" else "0"
    if field.startswith("opponents") and index.isdigit() and int(index) < len(entries):
        entry = entries[int(index)]
        entry.errors = [*entry.errors, str(exc)]
    else:
        place_error(form, exc)


@bp.get("/play/<game>")
@login_required
def play(game: str):
    game = known_game(game)
    return render_template("tables/play.html", game=game, form=play_form(game))


@bp.post("/play/<game>")
@login_required
def start(game: str):
    """Make the table (the same command the API calls), then go and sit at it."""
    game = known_game(game)
    form = play_form(game, request.form)
    status, headers = 400, dict[str, str]()
    if form.validate():
        players = form.players.data
        seat = None if form.seat.data == RANDOM else int(form.seat.data)
        opponents = [_opponent(e.data) for e in list(form.opponents)[: players - 1]]
        try:
            with unit_of_work(db.session):
                made = tables.create_table(
                    db.session, app_settings(), current_user, game, players, seat, opponents
                )
        except ServiceError as exc:
            _place_error(form, exc, players - 1)
            status, headers = exc.status, getattr(exc, "headers", {})
        else:
            if made.invitations:
                kept = dict(session.get(INVITES) or {})
                kept[str(made.table.id)] = {str(s): t for s, t in made.invitations.items()}
                session[INVITES] = kept
            return redirect(url_for("tables.table", table_id=made.table.id))
    page = render_template("tables/play.html", game=game, form=form)
    return page, status, headers


# -- a table -------------------------------------------------------------------------
@bp.get("/tables/<id:table_id>")
def table(table_id: int):
    """The table from the caller's seat, or as a spectator sees it; table.js keeps it live."""
    found = queries.get_table(db.session, table_id)
    user = _user()
    detail = queries.table_detail(db.session, app_settings(), found, user)
    invitations = []
    if user is not None and found.created_by_id == user.id:
        kept = (session.get(INVITES) or {}).get(str(table_id), {})
        open_seats = {s.seat for s in found.seats if s.kind == queries.HUMAN and s.user_id is None}
        invitations = [
            {
                "seat": int(seat),
                "url": url_for("tables.join", table_id=table_id, token=token, _external=True),
            }
            for seat, token in sorted(kept.items())
            if int(seat) in open_seats and found.state == LiveTableState.WAITING
        ]
    return (
        render_template(
            "tables/table.html",
            table=detail,
            ranked=_by_rank(detail),
            board=replays.board_for(found.game),
            invitations=invitations,
            resign_form=EmptyForm(),
            api_url=url_for("api.table", table_id=table_id),
        ),
        200,
        {"Cache-Control": "no-store"},
    )


def _by_rank(detail: dict) -> list[int]:
    """The seats of a finished table's result, best first (seat order among equals)."""
    result = detail.get("result")
    if not result:
        return []
    ranks = result["ranks"]
    return sorted(range(len(ranks)), key=lambda i: (ranks[i] or len(ranks), i))


@bp.get("/tables/<id:table_id>/log.json")
def table_log(table_id: int):
    """The table's public events after step `since` (what every seat and spectator saw)."""
    found = queries.get_table(db.session, table_id)
    since = whole_number(request.args.get("since"))
    return jsonify(pages.public_log(found, -1 if since is None else since))


@bp.route("/tables/<id:table_id>/join/<token>", methods=["GET", "POST"])
@login_required
def join(table_id: int, token: str):
    """An invitation: a page with one button (a link alone never takes a seat), which
    takes the open seat through the service and goes to the table."""
    found = queries.get_table(db.session, table_id)
    form = EmptyForm()
    if form.validate_on_submit():
        with unit_of_work(db.session):
            tables.join(db.session, app_settings(), current_user, table_id, token)
        return redirect(url_for("tables.table", table_id=table_id))
    detail = queries.table_detail(db.session, app_settings(), found, current_user)
    status = 400 if form.is_submitted() else 200
    return render_template("tables/join.html", table=detail, form=form), status


@bp.get("/tables")
def table_list():
    return render_template("tables/list.html", live=queries.live_tables(db.session))


# -- people's side -------------------------------------------------------------------------
@bp.get("/leaderboard/<game>/people")
def people(game: str):
    game = known_game(game)
    return render_template(
        "tables/people.html", game=game, board=queries.human_leaderboard(db.session, game)
    )


@bp.post("/bots/<id:bot_id>/human-play")
@login_required
def human_play(bot_id: int):
    """The bot page's switch: may others seat this bot against people (its owner only)."""
    form = HumanPlayForm()
    if not form.validate_on_submit():
        raise ServiceError("the form expired; reload the bot's page and try again")
    with unit_of_work(db.session):
        bot = table_settings.set_human_play(db.session, current_user, bot_id, form.allowed.data)
    flash(
        f"People may now play against {bot.name}."
        if bot.human_play
        else f"Only you may seat {bot.name} at a live table now."
    )
    return redirect(url_for("bots.bot", bot_id=bot_id) + "#people")
