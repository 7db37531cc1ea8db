"""A file over the upload limit, on the form and in the API, and the two hourly buckets.

Over MAX_BOT_BYTES a file is caught in the view (the body was read: the file's own size
is told); far over it Flask refuses the whole body before any view (MAX_CONTENT_LENGTH:
the request's Content-Length is told, roughly, as the upload's). Either way the form
comes back with the fields typed, the words under the file field, and the API answers
the same words.
"""

from __future__ import annotations

import io
import re

import pytest
from sqlalchemy import func, select
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

from ladder.models import BotVersion, ThrottleEvent
from ladder.services import accounts
from ladder.services.uploads import too_large
from ladder.web.uploads import HEAD_BYTES
from tests.unit.ladder.conftest import BOT_SOURCE, csrf_token, login, override_settings

LIMIT = 512 * 1024  # MAX_BOT_BYTES's default, which the tests keep
SYNTAX_ERROR = b"def act(view, legal)\n    return legal[0]\n"
# Over MAX_BOT_BYTES, its body under MAX_CONTENT_LENGTH (the limit and 64 KiB): the view reads it.
IN_VIEW = BOT_SOURCE + b"#" * (540 * 1024 - len(BOT_SOURCE))


class CountingStream(io.BytesIO):
    """A request body that remembers how many of its bytes were read."""

    taken = 0

    def read(self, size=-1):
        data = super().read(size)
        self.taken += len(data)
        return data

    def readinto(self, buffer):
        count = super().readinto(buffer)
        self.taken += count
        return count

    def readline(self, size=-1):
        data = super().readline(size)
        self.taken += len(data)
        return data


def form_body(client, data, filename="bot.py", **fields):
    """The upload form's body as a browser sends it: its fields in page order, the file last."""
    values = {
        "csrf_token": csrf_token(client, "/bots/upload"),
        "game": "toyrace",
        "name": "harbour-bot",
        **fields,
        "file": FileStorage(io.BytesIO(data), filename),
    }
    return encode_multipart(values)


def post_form(client, data, filename="bot.py", **fields):
    boundary, body = form_body(client, data, filename, **fields)
    stream = CountingStream(body)
    response = client.post(
        "/bots/upload",
        input_stream=stream,
        content_length=len(body),
        content_type=f"multipart/form-data; boundary={boundary}",
    )
    return response, len(body), stream


def api_upload(client, headers, data, filename="bot.py"):
    """POST /api/v1/versions, encoded in memory (the client's encoder leaks a temp file)."""
    file = FileStorage(io.BytesIO(data), filename)
    boundary, body = encode_multipart({"game": "toyrace", "name": "x", "file": file})
    return client.post(
        "/api/v1/versions",
        data=body,
        content_type=f"multipart/form-data; boundary={boundary}",
        headers=headers,
    )


def file_error(page: str) -> str:
    """The message shown under the file field (the field's label, then its errors)."""
    found = re.search(r'name="file"[^>]*>\s*</label>\s*<div class="error">([^<]*)</div>', page)
    assert found, "no message under the file field"
    return found.group(1)


def counted(session) -> int:
    return session.scalar(
        select(func.count(ThrottleEvent.id)).where(ThrottleEvent.kind.like("upload%"))
    )


@pytest.fixture
def logged_in(client, alice):
    assert login(client).status_code == 302
    return client


@pytest.fixture
def token(session, alice):
    _row, plain = accounts.create_token(session, alice, "tests")
    session.commit()
    return {"Authorization": f"Bearer {plain}"}


# -- over the size limit ----------------------------------------------------
def test_a_file_over_the_limit_caught_in_the_view_shows_the_form_again(logged_in, app, session):
    override_settings(app, REFUSED_UPLOADS_PER_HOUR=1)
    response, length, stream = post_form(logged_in, IN_VIEW, candidate="y")
    assert length < app.config["MAX_CONTENT_LENGTH"]
    assert stream.taken == length  # read whole: the view weighed the file itself
    assert response.status_code == 413
    page = response.get_data(as_text=True)
    assert file_error(page) == "bot.py is 540 KiB; the limit is 512 KiB"
    assert file_error(page) == too_large("bot.py", len(IN_VIEW), LIMIT)
    assert 'value="harbour-bot"' in page
    assert re.search(r'<option selected value="toyrace">|<option value="toyrace" selected>', page)
    assert re.search(r'name="candidate"[^>]*checked|checked[^>]*name="candidate"', page)
    assert "At most 512 KiB" in page
    assert session.scalar(select(func.count(BotVersion.id))) == 0
    assert counted(session) == 0  # in neither bucket: a bad file may still be tried
    response, _length, _stream = post_form(logged_in, SYNTAX_ERROR)
    assert response.status_code == 400


def test_a_body_over_the_request_limit_is_refused_unread_and_shows_the_form(
    logged_in, app, session
):
    data = b"#" * (3 * 1024 * 1024)  # far over MAX_CONTENT_LENGTH
    response, length, stream = post_form(
        logged_in, data, filename="fleet.zip", name="my fleet", candidate="y"
    )
    assert response.status_code == 413
    assert stream.taken <= HEAD_BYTES  # only the fields before the file were read
    page = response.get_data(as_text=True)
    message = file_error(page)
    assert message == too_large("fleet.zip", length, LIMIT, unread=True)  # the length sent
    assert message == "the upload of fleet.zip is about 3 MiB; the limit is 512 KiB"
    assert 'value="my fleet"' in page
    assert re.search(r'name="candidate"[^>]*checked|checked[^>]*name="candidate"', page)
    assert not re.search(r'name="promote"[^>]*checked|checked[^>]*name="promote"', page)
    assert 'name="csrf_token"' in page  # a fresh form, ready to send again
    assert counted(session) == 0 and session.scalar(select(func.count(BotVersion.id))) == 0


def test_a_raw_body_over_the_request_limit_still_gets_the_form(logged_in, app):
    big = b"#" * (app.config["MAX_CONTENT_LENGTH"] + 10)
    response = logged_in.post(
        "/bots/upload", data=big, content_type="multipart/form-data; boundary=zz"
    )
    assert response.status_code == 413
    page = response.get_data(as_text=True)
    assert file_error(page) == "the upload is about 576 KiB; the limit is 512 KiB"
    assert "<h1>Upload a bot</h1>" in page


def test_a_body_over_the_request_limit_elsewhere_gets_the_plain_413(logged_in, app, alice, session):
    big = b"#" * (app.config["MAX_CONTENT_LENGTH"] + 10)
    response = logged_in.post(
        "/account/tokens", data=big, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 413
    assert "The upload is too large." in response.get_data(as_text=True)


def test_a_body_over_the_request_limit_without_a_login_goes_to_the_login(client):
    big = b"#" * (2 * 1024 * 1024)
    response = client.post(
        "/bots/upload", data=big, content_type="multipart/form-data; boundary=zz"
    )
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_nginxs_refusal_shows_the_form_with_the_size(logged_in):
    """deploy/nginx sends a body over its own limit to the form as ?refused_bytes=N."""
    response = logged_in.get("/bots/upload?refused_bytes=3145728")
    assert response.status_code == 413
    words = "the upload is about 3 MiB; the limit is 512 KiB"
    assert file_error(response.get_data(as_text=True)) == words
    for within in ("5", "524288", "lots", ""):  # not over the limit: the plain form
        response = logged_in.get(f"/bots/upload?refused_bytes={within}")
        assert response.status_code == 200 and 'class="error"' not in response.get_data(
            as_text=True
        )


def test_the_api_says_the_same_words_in_both_cases(client, logged_in, token, session):
    data = IN_VIEW
    site = file_error(post_form(logged_in, data)[0].get_data(as_text=True))
    answer = api_upload(client, token, data)
    assert answer.status_code == 413
    assert answer.get_json() == {"error": site, "field": "file"}

    answer = api_upload(client, token, b"#" * 3_000_000, "big.zip")
    length = int(answer.request.headers["Content-Length"])
    assert answer.status_code == 413
    words = too_large("big.zip", length, LIMIT, unread=True)
    assert answer.get_json() == {"error": words, "field": "file"}
    assert words == "the upload of big.zip is about 2.9 MiB; the limit is 512 KiB"
    assert counted(session) == 0


def test_the_api_asks_for_a_token_before_it_weighs_the_body(client):
    body = b"#" * (2 * 1024 * 1024)
    answer = client.post(
        "/api/v1/versions", data=body, content_type="multipart/form-data; boundary=zz"
    )
    assert answer.status_code == 401


# -- the two hourly buckets -------------------------------------------------
def test_refused_tries_on_the_form_leave_the_accepted_uploads(logged_in, app, session):
    override_settings(app, UPLOADS_PER_HOUR=1, REFUSED_UPLOADS_PER_HOUR=5)
    for _ in range(4):
        response, _length, _stream = post_form(logged_in, SYNTAX_ERROR)
        assert response.status_code == 400
        assert "syntax error on line 1" in file_error(response.get_data(as_text=True))
    assert post_form(logged_in, BOT_SOURCE)[0].status_code == 302
    response, _length, _stream = post_form(logged_in, BOT_SOURCE)
    assert response.status_code == 429
    assert file_error(response.get_data(as_text=True)).startswith(
        "at most 1 accepted uploads an hour; try again in 60 minutes"
    )
    assert 3590 <= int(response.headers["Retry-After"]) <= 3600


def test_a_flood_of_refused_tries_gets_a_429_naming_its_limit(logged_in, app, client, token):
    override_settings(app, UPLOADS_PER_HOUR=20, REFUSED_UPLOADS_PER_HOUR=2)
    for _ in range(2):
        assert post_form(logged_in, SYNTAX_ERROR)[0].status_code == 400
    response, _length, _stream = post_form(logged_in, BOT_SOURCE)
    assert response.status_code == 429
    words = "at most 2 refused uploads an hour; try again in 60 minutes"
    assert file_error(response.get_data(as_text=True)) == words
    assert 'value="harbour-bot"' in response.get_data(as_text=True)
    answer = api_upload(client, token, BOT_SOURCE)
    assert answer.status_code == 429 and answer.get_json()["error"] == words
    assert 3590 <= int(answer.headers["Retry-After"]) <= 3600


def test_a_refusal_shows_under_the_field_it_refuses(logged_in):
    response, _length, _stream = post_form(logged_in, BOT_SOURCE, name="tab\tname")
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert re.search(
        r'name="name"[^>]*>\s*</label>\s*<div class="error">a bot name is 1 to 60', page
    )
