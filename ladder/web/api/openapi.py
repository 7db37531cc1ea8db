"""The OpenAPI 3.1 document of /api/v1, kept beside the views it describes.

Three tests hold it to the views and to the tools API clients use: schemathesis
calls the app with generated requests (test_api.py), openapi-core checks recorded
real requests and responses (test_openapi_validation.py), and a client generated
by openapi-python-client, with no warning, passes `mypy --strict` (test_openapi_client.py).
The document states the site's own limits, so it is built from its settings.
"""

from __future__ import annotations

from ladder.models import MAX_ID
from ladder.queries.replay_archive import DEFAULT_LIMIT, MAX_LIMIT
from ladder.services.uploads import size_in_words
from ladder.settings import Settings
from ladder.web.api.schemas import binary, components, ref
from ladder.web.paging import MAX_PAGE, MAX_PER_PAGE, default_per_page

ABOUT = """\
Reads are public. Writes need `Authorization: Bearer <token>` (make a token on the
site under API tokens). A read that shows more to a bot's owner (its validation logs)
takes the same header but does not need it.

Ids: an id in a path names a thing; any id that names nothing (unknown, 0, negative,
above 2147483647, not a number) is 404. An id in a query string or a JSON body is
input: one that is not an integer from 1 to 2147483647 is 400, like any other argument
outside its schema; a well-formed id of nothing is 404 where the call needs the thing
and simply matches nothing where it filters a list.

Errors are JSON objects `{"error": "..."}` that say what was wrong; where one part of
the request is refused, `"field"` names it (`"seat"`, `"opponents[1]"`). A JSON body
is held to its schema's field names: one that lacks a required field, or carries a
field the call does not take, is 400 naming both (`"field"`: the first missing one)."""


def _json(schema: str, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": ref(schema)}}}


WORDS = {
    400: "bad input (an argument outside its schema, or refused for what it says)",
    401: "missing, malformed, unknown or revoked token",
    403: "not yours",
    404: "not found",
    409: "conflicts with the current state",
    410: "gone for good (a replay past the retention policy)",
    405: "not a method this path takes",
    413: "too large",
    429: "over a limit; try again after Retry-After seconds",
}


def _errors(*codes: int, **words: str) -> dict:
    """JSON error responses; `words` (`e404=...`) replaces a code's description."""
    responses = {}
    for code in codes:
        responses[str(code)] = _json("Error", words.get(f"e{code}", WORDS[code]))
    if 401 in codes:
        responses["401"]["headers"] = {
            "WWW-Authenticate": {"required": True, "schema": {"type": "string"}}
        }
    if 429 in codes:
        responses["429"]["headers"] = {
            "Retry-After": {
                "description": "seconds until a try may pass",
                "required": True,
                "schema": {"type": "integer", "minimum": 1},
            }
        }
    return responses


def _download(media_type: str, description: str, filename: str) -> dict:
    """A 200 of raw bytes: the specific media type, or application/octet-stream on asking.

    Both carry the same bytes; a client that sends `Accept: application/octet-stream`
    gets that type. Generators that know no `media_type` read the octet-stream entry.
    """
    schema = binary(media_type)
    return {
        "description": description,
        "headers": {
            "Content-Disposition": {
                "description": f"attachment; filename={filename}",
                "required": True,
                "schema": {"type": "string"},
            }
        },
        "content": {"application/octet-stream": {"schema": schema}, media_type: {"schema": schema}},
    }


def _query(name: str, schema: dict, description: str) -> dict:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        "description": description,
    }


def _path(name: str, schema: dict, description: str | None = None) -> dict:
    found = {"name": name, "in": "path", "required": True, "schema": schema}
    return {**found, "description": description} if description else found


ID = {"type": "integer", "minimum": 1, "maximum": MAX_ID}


def _string(format_: str) -> dict:
    return {"type": "string", "format": format_}


BEARER: list[dict[str, list[str]]] = [{"bearer": []}]


def _path_id(name: str) -> dict:
    return _path(name, ID, "an id; one outside 1..2147483647 names nothing (404)")


def _paging(per_page: int) -> list[dict]:
    return [
        _query(
            "page",
            {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
            "page number; past the last page, an empty page",
        ),
        _query(
            "per_page",
            {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE, "default": per_page},
            "rows a page",
        ),
    ]


def _upload(settings: Settings) -> dict:
    """POST /versions: a multipart form with the file as a file part."""
    max_bytes, per_hour = settings.max_bot_bytes, settings.uploads_per_hour
    refused = settings.refused_uploads_per_hour
    in_words = size_in_words(max_bytes)
    about = (
        f"The file is at most {max_bytes:,} bytes"
        + (f" ({in_words})" if in_words != f"{max_bytes:,} bytes" else "")
        + ": a larger one is 413 with the words the upload form shows"
        f' (`"bot.zip is 1.2 MiB; the limit is {in_words}"`, `"field": "file"`); a request'
        " body too large to read at all is told by its Content-Length, roughly"
        f' (`"the upload of bot.zip is about 3 MiB; the limit is {in_words}"`).'
        f" A zip may unpack to at most {settings.max_unzipped_bytes:,} bytes in at most"
        f" {settings.max_zip_files} files; beyond that, or a file that is not a bot,"
        " is 400.\n\nTries are counted per user and rolling hour, web and API together,"
        f" in two buckets: {per_hour} uploads stored, and {refused} refused for what was"
        " sent (400: a syntax error, a bad zip, an unknown game or name), so fixing a file"
        " by trial does not use up the stored ones. Past either, every upload is 429 naming"
        " that limit, with Retry-After (a full refused bucket stops good files too). A"
        " 413 or a 429 counts in neither. The version is stored as pending; a worker"
        " validates it and it becomes active or failed."
    )
    form = {
        "type": "object",
        "required": ["game", "name", "file"],
        "properties": {
            "game": ref("GameName"),
            "name": {"type": "string", "minLength": 1, "maxLength": 60},
            "file": {
                **binary("application/octet-stream"),
                "description": "a file part: .py, or .zip with bot.py at its root",
            },
            "candidate": {
                **ref("Flag"),
                "description": "true: once validated, test it against the bot's active"
                " version (getVersionTest) instead of replacing that at once",
            },
            "promote": {
                **ref("Flag"),
                "description": "a candidate's: make it active on a `better` verdict"
                " (default true), or only report",
            },
        },
    }
    return {
        "operationId": "uploadVersion",
        "summary": "Upload a bot version (a new bot on first upload)",
        "description": about,
        "security": BEARER,
        "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": form}}},
        "responses": {
            "201": _json("Version", "stored, state pending"),
            **_errors(
                400,
                401,
                409,
                413,
                429,
                e409="the bot of that name is retired, or a simultaneous upload won",
                e413=f"the file is over {max_bytes:,} bytes: its size and the limit",
                e429=f"over {per_hour} stored or {refused} refused uploads an hour",
            ),
        },
    }


def _upload_refused(settings: Settings) -> dict:
    """GET /versions: the answer nginx gives an upload over its own body limit."""
    return {
        "operationId": "explainRefusedUpload",
        "summary": "Why the proxy refused an upload (answered for nginx, not called by you)",
        "description": "Behind the site's nginx, a POST /versions whose body is over"
        " nginx's own limit never reaches the app: nginx asks this for its answer, so the"
        " upload gets the 413 the app gives a file over"
        f' {settings.max_bot_bytes:,} bytes (the size and the limit, `"field": "file"`),'
        " in JSON. Any other GET is 405: upload with POST.",
        "parameters": [
            {
                "name": "refused_bytes",
                "in": "query",
                "required": False,
                "description": "the refused body's Content-Length",
                "schema": {"type": "integer", "minimum": 0},
            }
        ],
        "responses": _errors(
            405,
            413,
            e405="no refused size over the limit: upload with POST",
            e413="the refused upload's size and the limit",
        ),
    }


def _me() -> dict:
    return {
        "operationId": "getMe",
        "summary": "You, your bots with every version, your ratings at live tables",
        "description": "What your own pages show: each bot's game, active version,"
        " pause, rating and record, and every version with its state, validation log,"
        " matches by how its seat ended, last fault and (a candidate's) test, with links"
        " to each on the site and here. A bearer token or a logged-in session; without"
        " either, 401.",
        "security": BEARER,
        "responses": {"200": _json("Me", "yours"), **_errors(401)},
    }


def _challenge(settings: Settings) -> dict:
    per_hour, at_once = settings.challenges_per_hour, settings.challenges_in_flight
    return {
        "operationId": "startChallenge",
        "summary": "Queue an unrated match between your active version and opponents",
        "description": f"At most {per_hour} challenges a rolling hour and {at_once} queued"
        " or running at once per user; beyond, 429 with Retry-After.",
        "security": BEARER,
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ref("ChallengeRequest")}},
        },
        "responses": {
            "201": _json("Match", "queued"),
            **_errors(
                400,
                401,
                403,
                404,
                429,
                e403="version_id is not your bot's",
                e404="no version of one of those ids",
            ),
        },
    }


TABLE_AUTH = (
    " A bearer token or a logged-in session; a write with the session cookie carries"
    " the page's CSRF token in `X-CSRFToken`."
)


def _body(schema: str) -> dict:
    return {"required": True, "content": {"application/json": {"schema": ref(schema)}}}


def _tables(settings: Settings) -> dict:
    """The live tables' calls: people seated against bots (the fixed tables API)."""
    open_limit = settings.table_open_per_user
    move_s, match_s = settings.table_move_ms // 1000, settings.table_match_ms // 1000
    table_id = [_path_id("table_id")]
    return {
        "/tables": {
            "post": {
                "operationId": "createTable",
                "summary": "Sit down at a live table against bots (or open seats for friends)",
                "description": f"You take `seat`; every other seat is an opponent: an active"
                " bot of the game whose owner allows human play (or your own), a house bot"
                " by name, or null for a seat another person takes through an invitation."
                f" A person has {move_s} s a move and {match_s} s a match. At most"
                f" {open_limit} tables not over per user; beyond, 429 with Retry-After."
                + TABLE_AUTH,
                "security": BEARER,
                "requestBody": _body("TableRequest"),
                "responses": {
                    "201": _json("TableCreated", "seated"),
                    **_errors(
                        400,
                        401,
                        403,
                        404,
                        429,
                        e403="a bot whose owner does not allow human play",
                        e404="no version of one of those ids",
                    ),
                },
            }
        },
        "/tables/{table_id}": {
            "get": {
                "operationId": "getTable",
                "summary": "A live table: your seat's view and legal actions, or a spectator's",
                "description": "Public. Your seat's view with `legal` when you hold a seat"
                " (token or session); anyone else gets the spectators' view (no seat's"
                " secrets) and no `legal`.",
                "parameters": table_id,
                "responses": {"200": _json("Table", "the table"), **_errors(401, 404)},
            }
        },
        "/tables/{table_id}/move": {
            "post": {
                "operationId": "moveAtTable",
                "summary": "Make your move: one of `legal`",
                "description": "Answers with the table once the move is applied (waiting"
                " up to about 2 s for it). 400 naming why an action is not legal (nothing"
                " changes); 403 without a seat; 409 when it is not your turn or the table"
                " is not being played." + TABLE_AUTH,
                "security": BEARER,
                "parameters": table_id,
                "requestBody": _body("MoveRequest"),
                "responses": {
                    "200": _json("Table", "the table after the move"),
                    **_errors(400, 401, 403, 404, 409),
                },
            }
        },
        "/tables/{table_id}/resign": {
            "post": {
                "operationId": "resignAtTable",
                "summary": "Give up your seat: the fallback policy plays it out",
                "description": "A table still waiting for its people ends." + TABLE_AUTH,
                "security": BEARER,
                "parameters": table_id,
                "responses": {
                    "200": _json("Table", "the table"),
                    **_errors(401, 403, 404, 409),
                },
            }
        },
        "/tables/{table_id}/join": {
            "post": {
                "operationId": "joinTable",
                "summary": "Take the open seat an invitation is for",
                "description": f"Counts against the {open_limit} tables not over a user may"
                " have." + TABLE_AUTH,
                "security": BEARER,
                "parameters": table_id,
                "requestBody": _body("JoinRequest"),
                "responses": {
                    "200": _json("Table", "seated"),
                    **_errors(
                        400, 401, 403, 404, 409, 429, e403="the invitation is not for this table"
                    ),
                },
            }
        },
    }


def _reads(games_schema: dict, per_page: int, rating_shown: str) -> dict:
    owner_note = (
        " Public; for the bot's owner (token or logged-in session) the versions carry"
        " their validation logs. A token that is sent must be valid (401)."
    )
    return {
        "/games": {
            "get": {
                "operationId": "listGames",
                "summary": "Registered games",
                "responses": {"200": _json("GameList", "the games")},
            }
        },
        "/games/{game}/leaderboard": {
            "get": {
                "operationId": "leaderboard",
                "summary": "Active bots of a game by skill (μ − 3σ), settled ones first",
                "description": "Settled versions first, then provisional ones (`settled`"
                " says how many are settled), each part by μ − 3σ of the rating asked for."
                " Every entry carries both ratings.",
                "parameters": [
                    _path("game", games_schema),
                    *_paging(per_page),
                    _query(
                        "rating",
                        {**ref("RatingKind"), "default": rating_shown},
                        "the rating to order by (the default is the site's RATING_SHOWN)",
                    ),
                ],
                "responses": {
                    "200": _json("Leaderboard", "one page"),
                    **_errors(400, 404, e404="unknown game (the message names it)"),
                },
            }
        },
        "/bots/{bot_id}": {
            "get": {
                "operationId": "getBot",
                "summary": "A bot and its versions",
                "description": "A bot and every version of it." + owner_note,
                "parameters": [_path_id("bot_id")],
                "responses": {"200": _json("Bot", "the bot"), **_errors(401, 404)},
            }
        },
        "/bots/{bot_id}/compare/{other_id}": {
            "get": {
                "operationId": "compareBots",
                "summary": "Two bots of one board: how likely the first is stronger",
                "description": "Both bots' active versions must be rated. The chance is on"
                " skills, not on one match's finish; the matches to 95 % are an"
                " approximation (ladder/RATINGS.md).",
                "parameters": [_path_id("bot_id"), _path_id("other_id")],
                "responses": {
                    "200": _json("Comparison", "the comparison"),
                    **_errors(
                        400,
                        404,
                        e400="the same bot twice, bots of two games, or a bot without a"
                        " rated active version",
                    ),
                },
            }
        },
        "/versions/{version_id}": {
            "get": {
                "operationId": "getVersion",
                "summary": "One bot version",
                "description": "One version of a bot." + owner_note,
                "parameters": [_path_id("version_id")],
                "responses": {"200": _json("Version", "the version"), **_errors(401, 404)},
            }
        },
        "/bots/{bot_id}/replays": {
            "get": {
                "operationId": "getBotReplays",
                "summary": "A bot's replays as one zip, newest first",
                "description": "The zip holds match-<id>.json.gz per match (gzipped JSON,"
                " as getReplay serves it), index.json (one row per seat of the bot: match"
                " id, time, seat, version and status) and, last, manifest.json (a"
                " ReplayManifest: each match's id, file in the zip, game and finish time,"
                " every seat's bot, version, owner, rank, score and status, and `my_seats`,"
                " the seats of this bot, two where a candidate's test seats two of its"
                " versions). Streamed: any count is served in bounded memory.",
                "parameters": [
                    _path_id("bot_id"),
                    _query("version", ID, "only matches of this version number"),
                    _query(
                        "since",
                        {"anyOf": [_string("date-time"), _string("date")]},
                        "only matches finished at or after this time or date (ISO 8601;"
                        " without a zone, UTC)",
                    ),
                    _query(
                        "limit",
                        {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": MAX_LIMIT,
                            "default": DEFAULT_LIMIT,
                        },
                        "at most this many matches",
                    ),
                ],
                "responses": {
                    "200": _download(
                        "application/zip", "a zip of the replays", "<bot>-<id>-replays.zip"
                    ),
                    **_errors(400, 404),
                },
            }
        },
        "/matches": {
            "get": {
                "operationId": "listMatches",
                "summary": "Matches, newest first",
                "parameters": [
                    *_paging(per_page),
                    _query("game", games_schema, "only this game (unknown: 400)"),
                    _query("bot", ID, "only matches with this bot"),
                ],
                "responses": {"200": _json("MatchList", "one page"), **_errors(400)},
            }
        },
        "/matches/{match_id}": {
            "get": {
                "operationId": "getMatch",
                "summary": "One match with its seats",
                "description": "Every seat, in seat order. A live table's match also seats"
                " people: such a seat has `person` and null bot fields. A seat whose bot is"
                " the caller's (token or session) carries its `stderr`; no other seat has"
                " that key. A token that is sent must be valid (401).",
                "parameters": [_path_id("match_id")],
                "responses": {"200": _json("Match", "the match"), **_errors(401, 404)},
            }
        },
        "/matches/{match_id}/replay": {
            "get": {
                "operationId": "getReplay",
                "summary": "The replay record as gzipped JSON",
                "description": "The body is the replay record, JSON compressed with gzip"
                " (as stored, never re-encoded): decompress it, then parse it. Served as"
                " application/gzip, or as application/octet-stream to a client that asks"
                " for that type in Accept. 404 until the match has been played; 410 once its"
                " replay expired (ladder matches keep theirs REPLAY_KEEP_DAYS days).",
                "parameters": [_path_id("match_id")],
                "responses": {
                    "200": _download(
                        "application/gzip", "the replay, gzipped JSON", "match-<id>.json.gz"
                    ),
                    **_errors(404, 410, e404="no such match, or no replay yet"),
                },
            }
        },
        "/tournaments": {
            "get": {
                "operationId": "listTournaments",
                "summary": "Tournaments: upcoming, running, finished (and cancelled)",
                "responses": {"200": _json("TournamentList", "every tournament")},
            }
        },
        "/tournaments/{tournament_id}": {
            "get": {
                "operationId": "getTournament",
                "summary": "A tournament's settings, state and entrants",
                "parameters": [_path_id("tournament_id")],
                "responses": {"200": _json("Tournament", "the tournament"), **_errors(404)},
            }
        },
        "/tournaments/{tournament_id}/standings": {
            "get": {
                "operationId": "getTournamentStandings",
                "summary": "Standings so far (empty before the start)",
                "parameters": [_path_id("tournament_id")],
                "responses": {"200": _json("TournamentStandings", "the standings"), **_errors(404)},
            }
        },
        "/tournaments/{tournament_id}/schedule": {
            "get": {
                "operationId": "getTournamentSchedule",
                "summary": "Every round known so far, its tables and matches; the bracket",
                "parameters": [_path_id("tournament_id")],
                "responses": {"200": _json("TournamentSchedule", "the schedule"), **_errors(404)},
            }
        },
    }


def document(games: list[str], settings: Settings) -> dict:
    """The whole OpenAPI document for a site that plays `games`, with its settings' limits."""
    games_schema = ref("GameName")
    paths = _reads(games_schema, default_per_page(settings), settings.rating_shown)
    paths["/me"] = {"get": _me()}
    paths["/versions"] = {"post": _upload(settings), "get": _upload_refused(settings)}
    paths["/versions/{version_id}/resume"] = {
        "post": {
            "operationId": "resumeVersion",
            "summary": "Put a paused version back into matchmaking (its owner only)",
            "parameters": [_path_id("version_id")],
            "security": BEARER,
            "responses": {
                "200": _json("Version", "resumed"),
                **_errors(401, 403, 404, 409, e409="the version is not paused"),
            },
        }
    }
    paths["/versions/{version_id}/test"] = {
        "get": {
            "operationId": "getVersionTest",
            "summary": "A candidate version's test against the active one, as it stands",
            "description": "Sets and matches counted, the LLR with its bounds after each set,"
            " the mean set score with a 95 % interval, and the verdict once it is over.",
            "parameters": [_path_id("version_id")],
            "responses": {
                "200": _json("VersionTest", "the test"),
                **_errors(404, e404="no such version, or it is not a candidate"),
            },
        }
    }
    paths["/versions/{version_id}/promote"] = {
        "post": {
            "operationId": "promoteVersion",
            "summary": "Make a candidate the bot's active version (its owner only)",
            "parameters": [_path_id("version_id")],
            "security": BEARER,
            "responses": {
                "200": _json("Version", "now active"),
                **_errors(401, 403, 404, 409, e409="not a candidate, or a newer version is active"),
            },
        }
    }
    paths["/challenges"] = {"post": _challenge(settings)}
    paths.update(_tables(settings))
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tradewinds ladder API", "version": "1", "description": ABOUT},
        "servers": [{"url": "/api/v1"}],
        "components": {
            "schemas": components(games, MAX_ID),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "paths": paths,
    }
