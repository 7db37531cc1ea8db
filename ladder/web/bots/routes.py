"""Bot views: thin wrappers over `services.bots` and `queries.boards`.

A view that changes state is one unit of work (`ladder.transactions`); an upload
owns its transactions (every try counts) and is called outside one. A file over the
size limit shows the upload form again, whether the view caught it or Flask refused
the whole body before any view (`web.uploads`).
"""

from __future__ import annotations

import io

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from flask_login import current_user, login_required
from sqlalchemy import select
from werkzeug.exceptions import RequestEntityTooLarge

import engine
from ladder.errors import Forbidden, ServiceError
from ladder.extensions import app_settings, db
from ladder.inputs import whole_number
from ladder.models import Bot, VersionState, active_version, valid_id
from ladder.queries import boards as queries
from ladder.queries import certainty, resolved, table_mix
from ladder.queries import tables as table_queries
from ladder.queries import tournaments as tournament_queries
from ladder.queries import version_tests as test_queries
from ladder.services import bots, triage, version_tests
from ladder.services.uploads import size_in_words, too_large
from ladder.transactions import unit_of_work
from ladder.web.boards import charts
from ladder.web.bots.forms import PromoteForm, ResumeForm, RetireForm, UploadForm
from ladder.web.cache import keep_while, shared_page
from ladder.web.errors import respond
from ladder.web.matches.forms import ChallengeForm
from ladder.web.matches.routes import opponent_choices
from ladder.web.tables.forms import HumanPlayForm
from ladder.web.uploads import read_bot_file, refused_body

bp = Blueprint("bots", __name__)


def _form_page(form: UploadForm, status: int = 200, headers: dict[str, str] | None = None):
    settings = app_settings()
    limits = {
        "size": size_in_words(settings.max_bot_bytes),
        "accepted": settings.uploads_per_hour,
        "refused": settings.refused_uploads_per_hour,
    }
    return render_template("bots/upload.html", form=form, limits=limits), status, headers or {}


@bp.route("/bots/upload", methods=["GET", "POST"])
@login_required
def upload():
    form = UploadForm()
    form.game.choices = engine.game_names()
    bot_id = whole_number(request.args.get("bot"))
    if request.method == "GET" and bot_id is not None:
        bot = db.session.get(Bot, bot_id) if valid_id(bot_id) else None
        if bot is not None and bot.owner_id == current_user.id:
            form.game.data, form.name.data = bot.game, bot.name
    status, headers = 200, dict[str, str]()
    refused_bytes = whole_number(request.args.get("refused_bytes"))
    if request.method == "GET" and (refused_bytes or 0) > app_settings().max_bot_bytes:
        # nginx's answer to a body over its own limit (deploy/nginx): the form, and why.
        limit = app_settings().max_bot_bytes
        form.file.errors = [too_large("", refused_bytes, limit, unread=True)]
        status = 413
    if form.validate_on_submit():
        try:
            version = bots.upload_version(
                db.session,
                app_settings(),
                current_user,
                form.game.data,
                form.name.data,
                form.file.data.filename or "",
                read_bot_file(form.file.data, app_settings().max_bot_bytes),
                candidate=form.candidate.data,
                promote=form.promote.data,
            )
        except ServiceError as exc:
            # Under the field it refuses (game, name); the file and the hourly limits
            # under the file.
            target = form[exc.field] if exc.field in ("game", "name") else form.file
            target.errors.append(str(exc))
            status, headers = exc.status, getattr(exc, "headers", {})
        else:
            then = " and its test against the active version" if form.candidate.data else ""
            flash(f"Uploaded {version.label}; it waits for validation{then}.")
            return redirect(url_for("bots.bot", bot_id=version.bot_id))
    elif form.is_submitted():
        status = 400
    return _form_page(form, status, headers)


@bp.errorhandler(RequestEntityTooLarge)
def _body_too_large(exc: RequestEntityTooLarge):
    """A body over MAX_CONTENT_LENGTH, refused before any view: on the upload form, the
    form again with the upload's size and the limit under the file, and the fields sent
    before it kept (nothing was counted or stored)."""
    if request.endpoint != "bots.upload":
        return respond(413)
    if not current_user.is_authenticated:
        return current_app.login_manager.unauthorized()  # type: ignore[attr-defined]
    refused = refused_body(app_settings().max_bot_bytes)
    form = UploadForm(formdata=refused.fields)
    form.game.choices = engine.game_names()
    form.file.errors = [refused.message]
    return _form_page(form, 413)


@bp.get("/bots/mine")
@login_required
def mine():
    rows = db.session.scalars(
        select(Bot).where(Bot.owner_id == current_user.id).order_by(Bot.game, Bot.name)
    ).all()
    faults = queries.version_faults(db.session, *(b.id for b in rows)) if rows else {}
    return render_template("bots/mine.html", bots=rows, faults=faults)


def compare_arg() -> int | None:
    """The bot a bot page is compared with (?compare=<bot id>), None when not asked; 400
    for anything but an id."""
    raw = request.args.get("compare")
    if raw is None or raw == "":
        return None
    value = whole_number(raw)
    if value is None or not valid_id(value):
        raise ServiceError(f"compare takes a bot's id, not {raw!r}", field="compare")
    return value


def revisions(bot_id: int, other_id: int | None) -> tuple[int, int | None]:
    """What a bot page (compared with `other_id`) is right as long as."""
    other = None if other_id is None else queries.bot_revision(db.session, other_id)
    return queries.bot_revision(db.session, bot_id), other


@bp.get("/bots/<id:bot_id>")
@shared_page  # an anonymous visitor's page: its owner's (forms, stderr links) is never kept
def bot(bot_id: int):
    other_id = compare_arg()
    # Kept until the bot changes (and the bot it is compared with): read the revisions
    # before anything the page shows. A re-solve changes every page it touches
    # (`services.resolve`). The "compare with" list may lag a new bot by up to
    # PAGE_CACHE_DONE_S: it names bots, no figures of theirs.
    keep_while(lambda: revisions(bot_id, other_id))
    found = bots.get_bot(db.session, bot_id)
    owner_view = current_user.is_authenticated and current_user.id == found.owner_id
    challenge = None
    active = active_version(found)
    if owner_view and active is not None:
        challenge = ChallengeForm(version_id=active.id)
        challenge.opponents.choices = opponent_choices(active)
    history = queries.rating_history(db.session, bot_id)
    curves = resolved.bot_curves(db.session, bot_id)
    faults = queries.version_faults(db.session, bot_id)
    standing = certainty.standing(db.session, active) if active is not None else None
    return render_template(
        "bots/bot.html",
        bot=found,
        owner_view=owner_view,
        summary=queries.bot_summary(found, owner_view),
        history=history,
        history_rows=history[::-1][: queries.HISTORY_TABLE_ROWS],
        series=charts.rating_series(history, curves),
        curves=curves,
        standing=standing,
        resolve=resolved.last_run(db.session, found.game),
        comparison=certainty.compare(db.session, found, other_id) if other_id else None,
        choices=certainty.compare_choices(db.session, found) if standing else [],
        other_id=other_id,
        certainty_limits=certainty.LIMITS,
        sparkline=charts.sparkline_points(history),
        chart_library=charts.library_ready(),
        record=queries.bot_record(faults),
        table_record=table_mix.table_record(db.session, bot_id, found.game),
        h2h=queries.head_to_head(db.session, bot_id),
        recent=queries.recent_matches(db.session, bot_id),
        faults=faults,
        resume_form=ResumeForm() if owner_view else None,
        challenge=challenge,
        entered=tournament_queries.bot_tournaments(db.session, bot_id),
        tests=test_queries.bot_tests(db.session, bot_id),
        people=table_queries.record_against_people(db.session, bot_id),
        human_play_form=HumanPlayForm(allowed=found.human_play) if owner_view else None,
    )


@bp.get("/versions/<id:version_id>/test")
@shared_page  # an anonymous visitor's page; the owner's carries the promote button
def version_test(version_id: int):
    """A candidate's test as it stands; the page refreshes itself while the test runs."""
    found = test_queries.test_of_version(db.session, version_id)
    version = found.version
    owner_view = current_user.is_authenticated and current_user.id == version.bot.owner_id
    detail = test_queries.test_detail(db.session, found)
    can_promote = owner_view and version.state == VersionState.CANDIDATE
    return render_template(
        "bots/test.html",
        test=detail,
        bot=version.bot,
        candidate=version,
        chart=charts.llr_chart(detail["history"], detail["bounds"]),
        promote_form=PromoteForm() if can_promote else None,
    )


@bp.post("/versions/<id:version_id>/promote")
@login_required
def promote(version_id: int):
    """Make a candidate the active version by hand (its owner only), whatever its test."""
    with unit_of_work(db.session):  # CSRF checked app-wide
        test = version_tests.promote(db.session, current_user, version_id)
    flash(f"{test.version.label} is now the active version.")
    return redirect(url_for("bots.bot", bot_id=test.bot_id))


@bp.route("/bots/<id:bot_id>/retire", methods=["GET", "POST"])
@login_required
def retire(bot_id: int):
    """Retiring is permanent, so it asks first: a page with a box to tick."""
    found = bots.get_bot(db.session, bot_id)
    if found.owner_id != current_user.id:
        raise Forbidden("only the bot's owner can retire it")
    if found.retired_at is not None:
        flash("The bot is already retired.")
        return redirect(url_for("bots.bot", bot_id=bot_id))
    form = RetireForm()
    if form.validate_on_submit():
        with unit_of_work(db.session):
            bots.retire_bot(db.session, current_user, bot_id)
        flash("The bot is retired.")
        return redirect(url_for("bots.bot", bot_id=bot_id))
    status = 400 if form.is_submitted() else 200
    return render_template("bots/retire.html", bot=found, form=form), status


@bp.post("/versions/<id:version_id>/resume")
@login_required
def resume(version_id: int):
    """Put a version that crash triage paused back into matchmaking (its owner only)."""
    with unit_of_work(db.session):  # CSRF checked app-wide
        version = triage.resume(db.session, current_user, version_id)
    flash(f"{version.label} is back in matchmaking.")
    return redirect(url_for("bots.bot", bot_id=version.bot_id))


@bp.get("/versions/<id:version_id>/download")
@login_required
def download(version_id: int):
    version = bots.get_version(db.session, version_id)
    data = bots.version_file(db.session, app_settings(), current_user, version)
    name = f"{version.bot.name}-v{version.number}.{version.kind}"
    return send_file(io.BytesIO(data), as_attachment=True, download_name=name)
