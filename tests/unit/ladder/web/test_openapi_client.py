"""The API as a generated client sees it: openapi-python-client turns the served
document into a client without a warning, a program using that client passes
`mypy --strict`, and the same client talks to the real app (in process, through
httpx's WSGI transport: no network) to list, read, upload and download.
"""

from __future__ import annotations

import gzip
import importlib
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

import engine
from ladder import settings
from ladder.services import accounts, matches
from ladder.web.api.openapi import document
from tests.unit.ladder.conftest import BOT_SOURCE, make_active_bot
from tests.unit.ladder.helpers import outcome_for

PACKAGE = "tradewinds_client"
BIN = Path(sys.executable).parent
GENERATE = [
    "--path",
    "openapi.json",
    "--output-path",
    PACKAGE,
    "--meta",
    "none",
    "--fail-on-warning",
]
# The generated package is checked as strictly as the program, but for client.py: the
# generator's fixed template (nothing in it comes from our document) forwards
# `*args: object` to httpx's __exit__, which mypy 2 refuses.
MYPY_INI = f"[mypy]\n[mypy-{PACKAGE}.client]\nignore_errors = True\n"

# What an outside programmer writes against the generated client; type-checked only.
PROGRAM = '''
"""Walk the ladder with the generated client: every call typed, no cast."""

import gzip
import io
from typing import assert_type

from tradewinds_client import AuthenticatedClient, Client
from tradewinds_client.api.default import (
    get_bot,
    get_bot_replays,
    get_match,
    get_replay,
    get_tournament_schedule,
    leaderboard,
    list_games,
    list_matches,
    start_challenge,
    upload_version,
)
from tradewinds_client.models import (
    Bot,
    ChallengeRequest,
    Error,
    GameName,
    GameList,
    Leaderboard,
    Match,
    MatchList,
    MatchState,
    SeatStatus,
    TournamentFormat,
    TournamentSchedule,
    UploadVersionBody,
    Version,
    VersionKind,
    VersionState,
)
from tradewinds_client.types import File


def first_game(public: Client) -> GameName:
    games = list_games.sync(client=public)
    assert isinstance(games, GameList)
    return games.games[0].name


def best_bot(public: Client, game: GameName) -> Bot | None:
    board = leaderboard.sync(game, client=public, page=1)
    if not isinstance(board, Leaderboard) or not board.entries:
        return None
    assert_type(board.game, GameName)
    found = get_bot.sync(board.entries[0].bot_id, client=public)  # public: no token
    return found if isinstance(found, Bot) else None


def faults(public: Client, game: GameName) -> list[SeatStatus]:
    listing = list_matches.sync(client=public, game=game, per_page=10)
    assert isinstance(listing, MatchList)
    return [
        seat.status
        for match in listing.matches
        if match.state is MatchState.FINISHED and match.game is game
        for seat in match.seats
        if seat.status is not None and seat.status is not SeatStatus.OK
    ]


def upload(client: AuthenticatedClient, game: GameName, source: bytes) -> Version:
    body = UploadVersionBody(
        game=game,
        name="typed",
        file=File(payload=io.BytesIO(source), file_name="bot.py", mime_type="text/x-python"),
    )
    created = upload_version.sync(client=client, body=body)
    if isinstance(created, Error):
        raise RuntimeError(created.error)
    assert isinstance(created, Version)
    assert created.state is VersionState.PENDING and created.kind is VersionKind.PY
    return created


def replay(public: Client, match_id: int) -> bytes:
    got = get_replay.sync(match_id, client=public)
    if not isinstance(got, File):
        raise RuntimeError(f"no replay: {got!r}")
    data: bytes = gzip.decompress(got.payload.read())
    return data


def archive(public: Client, bot_id: int) -> bytes:
    got = get_bot_replays.sync(bot_id, client=public, limit=5)
    assert isinstance(got, File)
    return got.payload.read()


def challenge(client: AuthenticatedClient, mine: int, theirs: int) -> MatchState:
    started = start_challenge.sync(
        client=client, body=ChallengeRequest(version_id=mine, opponents=[theirs], seed=3)
    )
    assert isinstance(started, Match)
    assert_type(started.game, GameName)
    again = get_match.sync(started.id, client=client)
    assert isinstance(again, Match)
    return again.state


def bracket_format(public: Client, tournament_id: int) -> TournamentFormat | None:
    schedule = get_tournament_schedule.sync(tournament_id, client=public)
    return schedule.format_ if isinstance(schedule, TournamentSchedule) else None
'''


def generate(tmp: Path, doc: dict) -> tuple[Path, str]:
    """Write `doc`, generate the client package beside it; (its folder, the tool's output)."""
    (tmp / "openapi.json").write_text(json.dumps(doc))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [BIN / "openapi-python-client", "generate", *GENERATE],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return tmp / PACKAGE, output


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A client generated from the document a site with the real games (and the toy) serves."""
    tmp = tmp_path_factory.mktemp("generated")
    config = settings.Settings.from_env({"SECRET_KEY": "x", "LADDER_VAR": str(tmp)})
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(engine._GAMES, "toyrace", "tests.unit.ladder.toygame")
        doc = document(engine.game_names(), config)
    package, output = generate(tmp, doc)
    assert "warning" not in output.lower(), output
    assert (package / "api" / "default" / "get_replay.py").is_file()
    return tmp


def test_each_shared_value_is_one_type_in_the_generated_client(generated):
    enums = {
        p.stem for p in (generated / PACKAGE / "models").glob("*.py") if "Enum)" in p.read_text()
    }
    # Not a copy per use, as LeaderboardGame, ListMatchesGame, UploadVersionBodyGame were.
    assert enums == {
        "game_name",
        "seat_status",
        "match_state",
        "version_state",
        "version_kind",
        "tournament_state",
        "tournament_format",
        "test_state",
        "test_verdict",
        "flag",
        "table_state",
        "table_seat_kind",
        "rating_kind",
    }
    get_bot = (generated / PACKAGE / "api" / "default" / "get_bot.py").read_text()
    assert "client: AuthenticatedClient | Client" in get_bot  # a public read takes either


def test_a_program_using_the_generated_client_passes_mypy_strict(generated):
    (generated / "program.py").write_text(textwrap.dedent(PROGRAM))
    (generated / "mypy.ini").write_text(MYPY_INI)
    cache = str(generated / ".mypy_cache")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            "mypy.ini",
            "--cache-dir",
            cache,
            "program.py",
        ],
        cwd=generated,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def client_module(generated, monkeypatch):
    """The generated package, imported for one test and forgotten after it."""
    monkeypatch.syspath_prepend(str(generated))
    yield importlib.import_module(PACKAGE)
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def test_the_generated_client_works_against_the_app(client_module, app, session, config, alice):
    """List, read, upload and download through the generated client, in process."""
    from tradewinds_client.api.default import (
        get_bot,
        get_replay,
        leaderboard,
        list_games,
        upload_version,
    )
    from tradewinds_client.models import Bot, GameName, UploadVersionBody, Version
    from tradewinds_client.types import File

    mine = make_active_bot(session, config, alice, name="anchor")
    other = make_active_bot(session, config, alice, name="second")
    played = matches.create_match(
        session, config, "toyrace", [mine.id, other.id], ranked=True, seed=9
    )
    matches.record_match(session, config, played.id, outcome_for(played, [1, 2]))
    _row, token = accounts.create_token(session, alice, "generated")
    session.commit()

    transport = httpx.WSGITransport(app=app)
    base = "http://ladder.test/api/v1"
    public = client_module.Client(base_url=base, httpx_args={"transport": transport})
    owner = client_module.AuthenticatedClient(
        base_url=base, token=token, httpx_args={"transport": transport}
    )
    assert "toyrace" in [g.name.value for g in list_games.sync(client=public).games]
    board = leaderboard.sync(GameName("toyrace"), client=public)
    assert [e.bot for e in board.entries] == ["anchor", "second"]
    bot = get_bot.sync(mine.bot_id, client=public)
    assert isinstance(bot, Bot) and bot.versions[0].state.value == "active"

    body = UploadVersionBody(
        game=GameName("toyrace"),
        name="generated",
        file=File(payload=io.BytesIO(BOT_SOURCE), file_name="bot.py"),
    )
    created = upload_version.sync(client=owner, body=body)
    assert isinstance(created, Version), created
    assert (created.number, created.kind.value, created.size) == (1, "py", len(BOT_SOURCE))

    got = get_replay.sync(played.id, client=public)
    assert isinstance(got, File)
    assert json.loads(gzip.decompress(got.payload.read()))["seed"] == 9
