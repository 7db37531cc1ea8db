"""The OpenAPI 3.1 document of /api/v1, kept beside the views it describes.

tests/unit/ladder/web/test_api.py runs schemathesis against the live app, so a
response that drifts from this document fails the tests.
"""

from __future__ import annotations

from ladder.models import MAX_ID, SEAT_STATUSES, MatchState, TournamentState, VersionState
from ladder.tournaments.model import FORMATS


def _nullable(kind: str, **extra) -> dict:
    return {"type": [kind, "null"], **extra}


def _object(properties: dict, optional: tuple[str, ...] = ()) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
        "additionalProperties": False,
    }


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


TIME = _nullable("string", format="date-time")
PAGES = {
    "page": {"type": "integer", "minimum": 1},
    "per_page": {"type": "integer", "minimum": 1},
    "total": {"type": "integer", "minimum": 0},
    "pages": {"type": "integer", "minimum": 1},
}

SCHEMAS = {
    "Error": _object({"error": {"type": "string"}}),
    "Game": _object(
        {
            "name": {"type": "string"},
            "min_players": {"type": "integer"},
            "max_players": {"type": "integer"},
            "version": {"type": "string"},
            "options": {"type": "object"},
        }
    ),
    "Games": _object({"games": {"type": "array", "items": _ref("Game")}}),
    "LeaderboardEntry": _object(
        {
            "rank": {"type": "integer", "minimum": 1},
            "bot_id": {"type": "integer"},
            "bot": {"type": "string"},
            "owner": {"type": "string"},
            "version_id": {"type": "integer"},
            "version": {"type": "integer"},
            "skill": {"type": "number"},
            "mu": {"type": "number"},
            "sigma": {"type": "number"},
            "games": {"type": "integer", "minimum": 0},
            "last_played_at": TIME,
        }
    ),
    "Leaderboard": _object(
        {
            "game": {"type": "string"},
            **PAGES,
            "entries": {"type": "array", "items": _ref("LeaderboardEntry")},
        }
    ),
    "Rating": _object(
        {
            "mu": {"type": "number"},
            "sigma": {"type": "number"},
            "skill": {"type": "number"},
            "games": {"type": "integer", "minimum": 0},
            "last_played_at": TIME,
        }
    ),
    "Version": _object(
        {
            "id": {"type": "integer"},
            "bot_id": {"type": "integer"},
            "number": {"type": "integer", "minimum": 1},
            "state": {"type": "string", "enum": [s.value for s in VersionState]},
            "size": {"type": "integer", "minimum": 1},
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "kind": {"type": "string", "enum": ["py", "zip"]},
            "created_at": {"type": "string", "format": "date-time"},
            "validated_at": TIME,
            "rating": {"oneOf": [{"type": "null"}, _ref("Rating")]},
            "paused": {
                "oneOf": [{"type": "null"}, _ref("Pause")],
                "description": "Set while crash triage keeps the version out of matchmaking"
                " (its last ladder matches all faulted); its owner can resume it.",
            },
            "validation_log": {
                "type": "string",
                "description": "Only for the bot's owner (with the owner's token).",
            },
        },
        optional=("validation_log",),
    ),
    "Pause": _object(
        {
            "at": {"type": "string", "format": "date-time"},
            "reason": {"type": "string"},
        }
    ),
    "Bot": _object(
        {
            "id": {"type": "integer"},
            "name": {"type": "string"},
            "game": {"type": "string"},
            "owner": {"type": "string"},
            "created_at": {"type": "string", "format": "date-time"},
            "retired": {"type": "boolean"},
            "versions": {"type": "array", "items": _ref("Version")},
        }
    ),
    "Seat": _object(
        {
            "seat": {"type": "integer", "minimum": 0},
            "bot_id": {"type": "integer"},
            "bot": {"type": "string"},
            "owner": {"type": "string"},
            "version_id": {"type": "integer"},
            "version": {"type": "integer"},
            "status": {
                "oneOf": [{"type": "null"}, {"type": "string", "enum": list(SEAT_STATUSES)}]
            },
            "rank": _nullable("integer", minimum=1),
            "score": _nullable("number"),
            "error": _nullable("string"),
            "mu_before": _nullable("number"),
            "mu_after": _nullable("number"),
            "sigma_before": _nullable("number"),
            "sigma_after": _nullable("number"),
            "skill_change": _nullable("number"),
        }
    ),
    "Match": _object(
        {
            "id": {"type": "integer"},
            "game": {"type": "string"},
            "seed": {"type": "integer"},
            "players": {"type": "integer"},
            "ranked": {"type": "boolean"},
            "state": {"type": "string", "enum": [s.value for s in MatchState]},
            "unrated_reason": _nullable(
                "string", description="why the match moved no rating: it failed, or was void"
            ),
            "created_at": {"type": "string", "format": "date-time"},
            "started_at": TIME,
            "finished_at": TIME,
            "engine_version": _nullable("string"),
            "has_replay": {"type": "boolean"},
            "seats": {"type": "array", "items": _ref("Seat")},
        }
    ),
    "MatchList": _object({**PAGES, "matches": {"type": "array", "items": _ref("Match")}}),
    "ChallengeRequest": _object(
        {
            "version_id": {"type": "integer", "description": "your active version"},
            "opponents": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
            "seed": _nullable("integer", minimum=0, maximum=2**31 - 1),
        },
        optional=("seed",),
    ),
}

TOURNAMENT_STATE = {"type": "string", "enum": [s.value for s in TournamentState]}
TOURNAMENT = {
    "id": {"type": "integer"},
    "name": {"type": "string"},
    "game": {"type": "string"},
    "format": {"type": "string", "enum": list(FORMATS)},
    "state": TOURNAMENT_STATE,
    "table_size": _nullable("integer", description="null: the default, known once entered"),
    "rounds": _nullable("integer", description="null: the default, known once entered"),
    "duplicate": {"type": "boolean"},
    "advance": _nullable("integer", description="elimination: the top k of a table advance"),
    "seed": {"type": "integer"},
    "entrants": {"type": "integer", "minimum": 0},
    "created_at": {"type": "string", "format": "date-time"},
    "started_at": TIME,
    "finished_at": TIME,
}
ENTRANT = {
    "version_id": {"type": "integer"},
    "bot_id": {"type": "integer"},
    "bot": {"type": "string"},
    "owner": {"type": "string"},
    "version": {"type": "integer", "minimum": 1},
    "house": {"type": "boolean"},
}
NAMES = {"type": "array", "items": {"type": "string"}}
SCHEMAS.update(
    {
        "TournamentSummary": _object(TOURNAMENT),
        "TournamentList": _object(
            {
                section: {"type": "array", "items": _ref("TournamentSummary")}
                for section in ("upcoming", "running", "finished")
            }
        ),
        "Entrant": _object(ENTRANT),
        "Tournament": _object(
            {
                **TOURNAMENT,
                "entrant_list": {"type": "array", "items": _ref("Entrant")},
                "match_counts": {
                    "type": "object",
                    "additionalProperties": {"type": "integer", "minimum": 0},
                    "description": "matches of the tournament by state, and their total",
                },
            }
        ),
        "Standing": _object(
            {
                **ENTRANT,
                "rank": {"type": "integer", "minimum": 1},
                "points": {"type": "number"},
                "matches": {"type": "integer", "minimum": 0},
                "wins": {"type": "integer", "minimum": 0},
                "mean_rank": _nullable("number"),
                "mean_score": {"type": "number"},
                "faults": {"type": "integer", "minimum": 0},
                "byes": {"type": "integer", "minimum": 0},
            }
        ),
        "Standings": _object(
            {
                "id": {"type": "integer"},
                "state": TOURNAMENT_STATE,
                "standings": {"type": "array", "items": _ref("Standing")},
            }
        ),
        "ScheduledSeat": _object(
            {
                "bot": {"type": "string"},
                "bot_id": {"type": "integer"},
                "version_id": {"type": "integer"},
                "rank": _nullable("integer", minimum=1),
                "score": _nullable("number"),
                "status": {
                    "oneOf": [{"type": "null"}, {"type": "string", "enum": list(SEAT_STATUSES)}]
                },
            }
        ),
        "ScheduledMatch": _object(
            {
                "rotation": {"type": "integer", "minimum": 0},
                "seed": {"type": "integer"},
                "match_id": _nullable("integer", description="null until it is scheduled"),
                "state": {
                    "type": "string",
                    "enum": [*[s.value for s in MatchState], "unscheduled"],
                },
                "seats": {"type": "array", "items": _ref("ScheduledSeat")},
            }
        ),
        "ScheduledRound": _object(
            {
                "round": {"type": "integer", "minimum": 1},
                "byes": NAMES,
                "tables": {
                    "type": "array",
                    "items": _object(
                        {
                            "table": {"type": "integer", "minimum": 1},
                            "matches": {"type": "array", "items": _ref("ScheduledMatch")},
                        }
                    ),
                },
            }
        ),
        "BracketRound": _object(
            {
                "round": {"type": "integer", "minimum": 1},
                "final": {"type": "boolean"},
                "byes": NAMES,
                "tables": {
                    "type": "array",
                    "items": _object(
                        {
                            "table": {"type": "integer", "minimum": 1},
                            "size": {"type": "integer", "minimum": 1},
                            "entrants": NAMES,
                            "places": {"oneOf": [{"type": "null"}, NAMES]},
                            "advancing": NAMES,
                        }
                    ),
                },
            }
        ),
        "Schedule": _object(
            {
                "id": {"type": "integer"},
                "state": TOURNAMENT_STATE,
                "format": {"type": "string", "enum": list(FORMATS)},
                "schedule": {"type": "array", "items": _ref("ScheduledRound")},
                "bracket": {
                    "oneOf": [{"type": "null"}, {"type": "array", "items": _ref("BracketRound")}],
                    "description": "elimination only: every round of the bracket",
                },
            }
        ),
    }
)


def _json(schema: str, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": _ref(schema)}}}


def _errors(*codes: int) -> dict:
    words = {
        400: "bad input",
        401: "missing or bad token",
        403: "not yours",
        404: "not found",
        409: "conflicts with the current state",
        413: "too large",
        429: "over a limit (uploads or challenges an hour, challenges at once); see Retry-After",
    }
    responses = {str(code): _json("Error", words[code]) for code in codes}
    if 429 in codes:
        responses["429"]["headers"] = {
            "Retry-After": {
                "description": "seconds until a try may pass",
                "schema": {"type": "integer", "minimum": 1},
            }
        }
    return responses


def _query(name: str, schema: dict, description: str) -> dict:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        "description": description,
    }


def _path(name: str, schema: dict) -> dict:
    return {"name": name, "in": "path", "required": True, "schema": schema}


PAGING = [
    _query("page", {"type": "integer", "minimum": 1, "maximum": 1_000_000}, "page number"),
    _query("per_page", {"type": "integer", "minimum": 1, "maximum": 100}, "rows a page"),
]
ID = {"type": "integer", "minimum": 1, "maximum": MAX_ID}
BEARER = [{"bearer": []}]


def document(games: list[str]) -> dict:
    """The whole OpenAPI document for a site that plays `games`."""
    game = {"type": "string", "enum": games} if games else {"type": "string"}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Tradewinds ladder API",
            "version": "1",
            "description": "Reads are public. Writes need 'Authorization: Bearer <token>' "
            "(make a token on the site under API tokens).",
        },
        "servers": [{"url": "/api/v1"}],
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "paths": {
            "/games": {
                "get": {
                    "operationId": "listGames",
                    "summary": "Registered games",
                    "responses": {"200": _json("Games", "the games")},
                }
            },
            "/games/{game}/leaderboard": {
                "get": {
                    "operationId": "leaderboard",
                    "summary": "Active bots of a game by skill (μ − 3σ)",
                    "parameters": [_path("game", game), *PAGING],
                    "responses": {"200": _json("Leaderboard", "one page"), **_errors(400, 404)},
                }
            },
            "/bots/{bot_id}": {
                "get": {
                    "operationId": "getBot",
                    "summary": "A bot and its versions (logs only for its owner)",
                    "parameters": [_path("bot_id", ID)],
                    "security": [{}, *BEARER],
                    "responses": {"200": _json("Bot", "the bot"), **_errors(401, 404)},
                }
            },
            "/versions/{version_id}": {
                "get": {
                    "operationId": "getVersion",
                    "summary": "One bot version (its log only for its owner)",
                    "parameters": [_path("version_id", ID)],
                    "security": [{}, *BEARER],
                    "responses": {"200": _json("Version", "the version"), **_errors(401, 404)},
                }
            },
            "/versions/{version_id}/resume": {
                "post": {
                    "operationId": "resumeVersion",
                    "summary": "Put a paused version back into matchmaking (its owner only)",
                    "parameters": [_path("version_id", ID)],
                    "security": BEARER,
                    "responses": {
                        "200": _json("Version", "resumed"),
                        **_errors(401, 403, 404, 409),
                    },
                }
            },
            "/bots/{bot_id}/replays": {
                "get": {
                    "operationId": "getBotReplays",
                    "summary": "A bot's replays as one zip, newest first",
                    "description": "The zip holds match-<id>.json.gz per match (gzipped JSON,"
                    " as getReplay serves it) and index.json (each match's id, time, seat,"
                    " version and status). Streamed: any count is served in bounded memory.",
                    "parameters": [
                        _path("bot_id", ID),
                        _query("version", ID, "only matches of this version number"),
                        _query(
                            "since",
                            {"type": "string", "format": "date-time"},
                            "only matches finished at or after this time (ISO 8601, UTC)",
                        ),
                        _query(
                            "limit",
                            {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100},
                            "at most this many matches",
                        ),
                    ],
                    "responses": {
                        "200": {
                            "description": "a zip of the replays",
                            "content": {
                                "application/zip": {
                                    "schema": {"type": "string", "format": "binary"}
                                }
                            },
                        },
                        **_errors(400, 404),
                    },
                }
            },
            "/versions": {
                "post": {
                    "operationId": "uploadVersion",
                    "summary": "Upload a bot version (a new bot on first upload)",
                    "security": BEARER,
                    "requestBody": {
                        "required": True,
                        "content": {
                            "multipart/form-data": {
                                "schema": {
                                    "type": "object",
                                    "required": ["game", "name", "file"],
                                    "properties": {
                                        "game": game,
                                        "name": {"type": "string", "minLength": 1, "maxLength": 60},
                                        "file": {
                                            "type": "string",
                                            "format": "binary",
                                            "description": ".py, or .zip with bot.py at its root",
                                        },
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "201": _json("Version", "stored, state pending"),
                        **_errors(400, 401, 409, 413, 429),
                    },
                }
            },
            "/matches": {
                "get": {
                    "operationId": "listMatches",
                    "summary": "Matches, newest first",
                    "parameters": [
                        *PAGING,
                        _query("game", game, "only this game"),
                        _query("bot", ID, "only matches with this bot"),
                    ],
                    "responses": {"200": _json("MatchList", "one page"), **_errors(400)},
                }
            },
            "/matches/{match_id}": {
                "get": {
                    "operationId": "getMatch",
                    "summary": "One match with its seats",
                    "parameters": [_path("match_id", ID)],
                    "responses": {"200": _json("Match", "the match"), **_errors(404)},
                }
            },
            "/matches/{match_id}/replay": {
                "get": {
                    "operationId": "getReplay",
                    "summary": "The replay record, gzipped JSON",
                    "parameters": [_path("match_id", ID)],
                    "responses": {
                        "200": {
                            "description": "gzipped JSON replay",
                            "content": {
                                "application/gzip": {
                                    "schema": {"type": "string", "format": "binary"}
                                }
                            },
                        },
                        **_errors(404),
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
                    "parameters": [_path("tournament_id", ID)],
                    "responses": {"200": _json("Tournament", "the tournament"), **_errors(404)},
                }
            },
            "/tournaments/{tournament_id}/standings": {
                "get": {
                    "operationId": "getTournamentStandings",
                    "summary": "Standings so far (empty before the start)",
                    "parameters": [_path("tournament_id", ID)],
                    "responses": {"200": _json("Standings", "the standings"), **_errors(404)},
                }
            },
            "/tournaments/{tournament_id}/schedule": {
                "get": {
                    "operationId": "getTournamentSchedule",
                    "summary": "Every round known so far, its tables and matches; the bracket",
                    "parameters": [_path("tournament_id", ID)],
                    "responses": {"200": _json("Schedule", "the schedule"), **_errors(404)},
                }
            },
            "/challenges": {
                "post": {
                    "operationId": "startChallenge",
                    "summary": "Queue an unrated match between your active version and opponents",
                    "security": BEARER,
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _ref("ChallengeRequest")}},
                    },
                    "responses": {
                        "201": _json("Match", "queued"),
                        **_errors(400, 401, 403, 404, 429),
                    },
                }
            },
        },
    }
