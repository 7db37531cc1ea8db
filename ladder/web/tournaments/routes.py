"""Tournament views: thin wrappers over `services.tournaments`, each action one unit of
work (`ladder.transactions`), rolled back before a ServiceError is flashed."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, url_for
from flask_login import current_user, login_required

import engine
from ladder.errors import ServiceError
from ladder.extensions import app_settings, db
from ladder.queries import tournaments as tournament_queries
from ladder.services import tournaments
from ladder.tournaments import rules
from ladder.transactions import unit_of_work
from ladder.web.forms import EmptyForm
from ladder.web.staff.routes import staff_required
from ladder.web.tournaments.forms import CreateForm, EnterForm, HouseForm

bp = Blueprint("tournaments", __name__, url_prefix="/tournaments")


@bp.get("")
def tournament_list():
    return render_template(
        "tournaments/list.html",
        sections=tournament_queries.listing(db.session),
        form=EmptyForm(),
        rules=_rules(),
    )


def _rules() -> list[rules.Part]:
    """How tournaments are scheduled and scored, with the site's rule for a failed match."""
    return rules.parts(failed_match_score=tournament_queries.FAILED_SCORE)


def _forms(found) -> dict:
    forms: dict[str, Any] = {"action": EmptyForm(), "enter": None, "house": None}
    if not current_user.is_authenticated:
        return forms
    if found.state == "open":
        bots = tournament_queries.enterable_bots(db.session, current_user, found)
        if bots:
            forms["enter"] = EnterForm()
            forms["enter"].bot_id.choices = [(b.id, b.name) for b in bots]
    if current_user.is_staff and found.state in ("draft", "open"):
        house = tournament_queries.house_choices(db.session, app_settings(), found)
        if house:
            forms["house"] = HouseForm()
            forms["house"].version_id.choices = [(v.id, v.label) for v in house]
    return forms


@bp.get("/<id:tournament_id>")
def tournament(tournament_id: int):
    found = tournament_queries.get_tournament(db.session, tournament_id)
    info = tournament_queries.detail(db.session, found)
    return render_template("tournaments/tournament.html", t=info, rules=_rules(), **_forms(found))


@bp.route("/new", methods=["GET", "POST"])
@staff_required
def create():
    form = CreateForm()
    form.game.choices = [(name, name) for name in engine.game_names()]
    if form.validate_on_submit():
        try:
            with unit_of_work(db.session):
                made = tournaments.create_tournament(
                    db.session,
                    current_user,
                    form.name.data,
                    form.game.data,
                    form.format.data,
                    table_size=form.table_size.data,
                    rounds=form.rounds.data,
                    duplicate=form.duplicate.data,
                    advance=form.advance.data,
                    seed=form.seed.data,
                )
        except ServiceError as exc:
            flash(f"Not created: {exc}")
        else:
            flash("Tournament created as a draft: open it for entries when ready.")
            return redirect(url_for("tournaments.tournament", tournament_id=made.id))
    return render_template("tournaments/new.html", form=form, rules=_rules())


def _act(tournament_id: int, action, done: str):
    """Run a staff action from a CSRF-checked empty form, flash what happened."""
    if not EmptyForm().validate_on_submit():
        flash("The form expired; try again.")
    else:
        try:
            with unit_of_work(db.session):
                action()
        except ServiceError as exc:
            flash(f"Not done: {exc}")
        else:
            flash(done)
    return redirect(url_for("tournaments.tournament", tournament_id=tournament_id))


@bp.post("/<id:tournament_id>/open")
@staff_required
def open_entries(tournament_id: int):
    return _act(
        tournament_id,
        lambda: tournaments.open_tournament(db.session, current_user, tournament_id),
        "Open for entries.",
    )


@bp.post("/<id:tournament_id>/start")
@staff_required
def start(tournament_id: int):
    return _act(
        tournament_id,
        lambda: tournaments.start(db.session, app_settings(), current_user, tournament_id),
        "Started: the first round is queued.",
    )


@bp.post("/<id:tournament_id>/cancel")
@staff_required
def cancel(tournament_id: int):
    return _act(
        tournament_id,
        lambda: tournaments.cancel(db.session, current_user, tournament_id),
        "Cancelled.",
    )


@bp.post("/<id:tournament_id>/house")
@staff_required
def add_house(tournament_id: int):
    found = tournament_queries.get_tournament(db.session, tournament_id)
    form = HouseForm()
    house = tournament_queries.house_choices(db.session, app_settings(), found)
    form.version_id.choices = [(v.id, v.label) for v in house]
    if not form.validate_on_submit():
        flash("Choose a house bot.")
    else:
        try:
            with unit_of_work(db.session):
                tournaments.add_house_bot(
                    db.session, app_settings(), current_user, tournament_id,
                    form.version_id.data,
                )  # fmt: skip
        except ServiceError as exc:
            flash(f"Not added: {exc}")
        else:
            flash("House bot added.")
    return redirect(url_for("tournaments.tournament", tournament_id=tournament_id))


@bp.post("/<id:tournament_id>/enter")
@login_required
def enter(tournament_id: int):
    found = tournament_queries.get_tournament(db.session, tournament_id)
    form = EnterForm()
    form.bot_id.choices = [
        (b.id, b.name) for b in tournament_queries.enterable_bots(db.session, current_user, found)
    ]
    if not form.validate_on_submit():
        flash("Choose one of your bots with an active version.")
    else:
        try:
            with unit_of_work(db.session):
                entrant = tournaments.enter(
                    db.session, current_user, tournament_id, form.bot_id.data
                )
        except ServiceError as exc:
            flash(f"Not entered: {exc}")
        else:
            flash(
                f"Entered {entrant.version.label}: this version plays, whatever you upload later."
            )
    return redirect(url_for("tournaments.tournament", tournament_id=tournament_id))
