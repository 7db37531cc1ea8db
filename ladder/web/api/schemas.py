"""The named schemas of the OpenAPI document: every body the API answers or takes.

Each value with a fixed set of words (a game, a seat status, a state, a kind, a
format) is one named enum that every schema refers to, so a generated client has
one type for it (`GameName`, not a `LeaderboardGame` beside a `ListMatchesGame`).
"""

from __future__ import annotations

from ladder.models import (
    SEAT_STATUSES,
    LiveTableState,
    MatchState,
    TournamentState,
    VersionState,
    VersionTestState,
)
from ladder.queries.boards import FORMER_PLAYER
from ladder.settings import RATINGS_SHOWN
from ladder.tournaments.model import FORMATS
from ladder.tournaments.sprt import BETTER, INCONCLUSIVE, NOT_BETTER

# What an uploaded file is stored as (services.uploads.check_bot_file): a module or a zip.
VERSION_KINDS = ("py", "zip")


def nullable(kind: str, **extra) -> dict:
    return {"type": [kind, "null"], **extra}


def bot_field(kind: str, what: str, **extra) -> dict:
    """A seat's fact about its bot, null for a person's seat at a live table."""
    return {**nullable(kind, **extra), "description": f"{what}; null: a person's seat"}


def obj(properties: dict, optional: tuple[str, ...] = ()) -> dict:
    """A closed object: every property required unless named in `optional`."""
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
        "additionalProperties": False,
    }


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def maybe(name: str) -> dict:
    """The named schema, or null."""
    return {"oneOf": [{"type": "null"}, ref(name)]}


def binary(media_type: str) -> dict:
    """Raw bytes (a file part, a download), spelled so that both kinds of tool take it.

    OpenAPI 3.1 describes raw bytes by a schema without `type` (optionally naming
    `contentMediaType`); validators such as openapi-core check bytes against that and
    refuse them as `type: string`. Generators such as openapi-python-client make a
    file only of 3.0's `type: string, format: binary`. Any bytes meet one branch.
    """
    return {"anyOf": [{"type": "string", "format": "binary"}, {"contentMediaType": media_type}]}


def enums(games: list[str]) -> dict:
    """The shared enums; `games` are the site's registered games."""
    return {
        "GameName": (
            {"type": "string", "enum": list(games), "description": "a registered game"}
            if games
            else {"type": "string", "description": "a registered game (none yet)"}
        ),
        "SeatStatus": {
            "type": "string",
            "enum": list(SEAT_STATUSES),
            "description": "how a seat's bot ended: ok, or the fault that ended it",
        },
        "MatchState": {"type": "string", "enum": [s.value for s in MatchState]},
        "VersionState": {"type": "string", "enum": [s.value for s in VersionState]},
        "VersionKind": {
            "type": "string",
            "enum": list(VERSION_KINDS),
            "description": "py: one module; zip: bot.py at its root with helpers",
        },
        "TournamentState": {"type": "string", "enum": [s.value for s in TournamentState]},
        "TestState": {"type": "string", "enum": [s.value for s in VersionTestState]},
        "TestVerdict": {"type": "string", "enum": [BETTER, NOT_BETTER, INCONCLUSIVE]},
        "Flag": {"type": "string", "enum": ["true", "false"], "description": "yes or no"},
        "TournamentFormat": {"type": "string", "enum": list(FORMATS)},
        "TableState": {"type": "string", "enum": [s.value for s in LiveTableState]},
        "TableSeatKind": {"type": "string", "enum": ["human", "bot"]},
        "RatingKind": {
            "type": "string",
            "enum": list(RATINGS_SHOWN),
            "description": "online: TrueSkill, moved by each result; resolved: TrueSkill"
            " Through Time over the history, re-solved periodically (ladder/RATINGS.md)",
        },
    }


TIME = nullable("string", format="date-time")
# A bot's record in one cell of its table mix (ladder.queries.table_mix).
RECORD_LINE = {
    "games": {"type": "integer", "minimum": 0},
    "wins": {"type": "integer", "minimum": 0, "description": "rank 1"},
    "mean_rank": nullable("number", minimum=1),
    "faults": {"type": "integer", "minimum": 0},
}
ID = {"type": "integer", "minimum": 1}
PAGES = {
    "page": {"type": "integer", "minimum": 1},
    "per_page": {"type": "integer", "minimum": 1},
    "total": {"type": "integer", "minimum": 0},
    "pages": {"type": "integer", "minimum": 1},
}

LADDER = {
    "Error": obj(
        {
            "error": {"type": "string", "description": "what was wrong, in words"},
            "field": {
                "type": "string",
                "description": "the part of the request refused, where it is one:"
                " a body field's name, `opponents[i]` for an entry of a list",
            },
        },
        optional=("field",),
    ),
    "Game": obj(
        {
            "name": ref("GameName"),
            "min_players": {"type": "integer", "minimum": 1},
            "max_players": {"type": "integer", "minimum": 1},
            "version": {"type": "string"},
            "options": {"type": "object", "description": "the game's options and defaults"},
        }
    ),
    "GameList": obj({"games": {"type": "array", "items": ref("Game")}}),
    "LeaderboardEntry": obj(
        {
            "rank": {"type": "integer", "minimum": 1},
            "bot_id": ID,
            "bot": {"type": "string"},
            "owner": {"type": "string"},
            "version_id": ID,
            "version": {"type": "integer", "minimum": 1},
            "skill": {"type": "number"},
            "mu": {"type": "number"},
            "sigma": {"type": "number"},
            "games": {"type": "integer", "minimum": 0},
            "last_played_at": TIME,
            "paused": {
                "type": "boolean",
                "description": "Crash triage keeps this version out of matchmaking until its"
                " owner resumes it; it keeps its rating and place meanwhile.",
            },
            "provisional": {
                "type": "boolean",
                "description": "σ of the rating the board is ordered by is above 2.5, or the"
                " version met fewer than 24 opponents (a match at a table of n meets n − 1),"
                " or (re-solved board) the last re-solve did not see it. Provisional"
                " versions come after every settled one (ladder/RATINGS.md).",
            },
            "provisional_reason": {**nullable("string"), "description": "why, in words"},
            "resolved": {
                **maybe("ResolvedRating"),
                "description": "the re-solved rating; null: the last re-solve did not see it",
            },
        }
    ),
    "ResolvedRating": obj(
        {
            "mu": {"type": "number"},
            "sigma": {"type": "number", "minimum": 0},
            "skill": {"type": "number"},
            "matches": {"type": "integer", "minimum": 0, "description": "in the re-solve"},
        }
    ),
    "Leaderboard": obj(
        {
            "game": ref("GameName"),
            **PAGES,
            "rating": {**ref("RatingKind"), "description": "the rating the board is ordered by"},
            "settled": {
                "type": "integer",
                "minimum": 0,
                "description": "settled versions: the first `settled` ranks; the rest are"
                " provisional",
            },
            "scale": {
                "oneOf": [
                    {"type": "null"},
                    obj({"low": {"type": "number"}, "high": {"type": "number"}}),
                ],
                "description": "the lowest μ − 2σ and highest μ + 2σ on the whole board"
                " (of the rating it is ordered by): one scale for its bars; null: empty",
            },
            "resolve": {
                "oneOf": [
                    {"type": "null"},
                    obj(
                        {
                            "solved_at": {"type": "string", "format": "date-time"},
                            "matches": {"type": "integer", "minimum": 0},
                        }
                    ),
                ],
                "description": "the game's last re-solve; null: none has run",
            },
            "entries": {"type": "array", "items": ref("LeaderboardEntry")},
        }
    ),
    "Figures": obj(
        {
            "mu": {"type": "number"},
            "sigma": {"type": "number", "minimum": 0},
            "skill": {"type": "number", "description": "μ − 3σ"},
            "low": {"type": "number", "description": "μ − 2σ"},
            "high": {"type": "number", "description": "μ + 2σ"},
            "games": {"type": "integer", "minimum": 0, "description": "online: rated matches"},
            "matches": {"type": "integer", "minimum": 0, "description": "re-solved: matches"},
        },
        optional=("games", "matches"),
    ),
    "ComparedBot": obj(
        {
            "id": ID,
            "name": {"type": "string"},
            "owner": {"type": "string"},
            "version_id": ID,
            "version": {"type": "integer", "minimum": 1},
            "online": ref("Figures"),
            "resolved": {**maybe("Figures"), "description": "null: not in the last re-solve"},
            "provisional": {"type": "boolean", "description": "on the online rating"},
            "provisional_reason": nullable("string"),
            "opponents_met": {
                **nullable("integer", minimum=0),
                "description": "counted below 24 rated matches only; null: not counted",
            },
            "information_per_match": {
                "type": "number",
                "exclusiveMinimum": 0,
                "description": "1/σ² one match adds, from the version's own history (or an"
                " even match at its usual table size)",
            },
            "matches_per_day": {"type": "number", "exclusiveMinimum": 0},
        }
    ),
    "Comparison": obj(
        {
            "bot": ref("ComparedBot"),
            "other": ref("ComparedBot"),
            "prob_stronger": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "P(bot's skill > other's) on the online ratings:"
                " Φ((μa − μb) / √(σa² + σb²))",
            },
            "prob_stronger_resolved": {
                **nullable("number", minimum=0, maximum=1),
                "description": "the same on the re-solved ratings; null: one has none",
            },
            "matches_to_95": {
                **nullable("integer", minimum=0),
                "description": "more matches of `bot` (the other at its own rate) until the"
                " one ahead in μ is stronger with probability 95 %, if μ stay put and each"
                " match adds `information_per_match`; 0: already; null: not within 10 000",
            },
        }
    ),
    "Rating": obj(
        {
            "mu": {"type": "number"},
            "sigma": {"type": "number"},
            "skill": {"type": "number"},
            "games": {"type": "integer", "minimum": 0},
            "last_played_at": TIME,
        }
    ),
    "Pause": obj(
        {
            "at": {"type": "string", "format": "date-time"},
            "reason": {"type": "string"},
        }
    ),
    "Version": obj(
        {
            "id": ID,
            "bot_id": ID,
            "number": {"type": "integer", "minimum": 1},
            "state": ref("VersionState"),
            "size": {"type": "integer", "minimum": 1},
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "kind": ref("VersionKind"),
            "created_at": {"type": "string", "format": "date-time"},
            "validated_at": TIME,
            "rating": maybe("Rating"),
            "paused": {
                **maybe("Pause"),
                "description": "Set while crash triage keeps the version out of matchmaking"
                " (its last ladder matches all faulted); its owner can resume it.",
            },
            "validation_log": {
                "type": "string",
                "description": "Present only for the bot's owner (token or session).",
            },
        },
        optional=("validation_log",),
    ),
    "VersionRef": obj(
        {"id": ID, "number": {"type": "integer", "minimum": 1}, "label": {"type": "string"}}
    ),
    "VersionTest": obj(
        {
            "id": ID,
            "version_id": ID,
            "version": ref("VersionRef"),
            "baseline_id": nullable("integer", minimum=1),
            "baseline": maybe("VersionRef"),
            "state": ref("TestState"),
            "verdict": {
                "oneOf": [{"type": "null"}, ref("TestVerdict")],
                "description": "set once the test is over (null if it was cancelled)",
            },
            "promote": {"type": "boolean", "description": "made active on `better`"},
            "paused": {"type": "boolean", "description": "crash triage paused the candidate"},
            "table_size": nullable("integer", minimum=2),
            "opponents": {"type": "array", "items": ID, "description": "version ids, cycled"},
            "hypotheses": obj(
                {
                    "s0": {"type": "number"},
                    "s1": {"type": "number"},
                    "alpha": {"type": "number"},
                    "beta": {"type": "number"},
                    "max_sets": {"type": "integer", "minimum": 2},
                }
            ),
            "sets": {"type": "integer", "minimum": 0, "description": "sets counted"},
            "matches": {"type": "integer", "minimum": 0, "description": "in the sets counted"},
            "in_flight": {"type": "integer", "minimum": 0},
            "void_sets": {"type": "integer", "minimum": 0},
            "llr": {"type": "number"},
            "bounds": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
            "score": nullable("number", minimum=0, maximum=1),
            "interval": {
                "oneOf": [
                    {"type": "null"},
                    {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
                ]
            },
            "mean_rank": obj({"new": nullable("number"), "old": nullable("number")}),
            "faults": obj(
                {"new": {"type": "integer", "minimum": 0}, "old": {"type": "integer", "minimum": 0}}
            ),
            "history": {
                "type": "array",
                "items": obj(
                    {
                        "set": {"type": "integer", "minimum": 1},
                        "llr": {"type": "number"},
                        "score": {"type": "number"},
                    }
                ),
            },
            "note": nullable("string"),
            "created_at": {"type": "string", "format": "date-time"},
            "started_at": TIME,
            "finished_at": TIME,
            "promoted_at": TIME,
        }
    ),
    "Bot": obj(
        {
            "id": ID,
            "name": {"type": "string"},
            "game": ref("GameName"),
            "owner": {"type": "string"},
            "created_at": {"type": "string", "format": "date-time"},
            "retired": {"type": "boolean"},
            "versions": {"type": "array", "items": ref("Version")},
            "table_record": ref("TableRecord"),
        }
    ),
    "TableRecord": obj(
        {
            "games": {
                "type": "integer",
                "minimum": 0,
                "description": "rated ladder matches of every version of the bot",
            },
            "sizes": {
                "type": "array",
                "items": ref("RecordAtSize"),
                "description": "one line per table size of the game, and any other it played",
            },
            "seats": {
                "type": "array",
                "items": ref("RecordAtSeat"),
                "description": "one line per seat (from 0) at each of those sizes",
            },
        }
    ),
    "RecordAtSize": obj(
        {
            "players": {"type": "integer", "minimum": 2},
            **RECORD_LINE,
            "share": {
                **nullable("number", minimum=0, maximum=1),
                "description": "of the bot's rated matches; null while it has none",
            },
            "target": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "the share the ladder's matchmaking steers it toward",
            },
        }
    ),
    "RecordAtSeat": obj(
        {
            "players": {"type": "integer", "minimum": 2},
            "seat": {"type": "integer", "minimum": 0, "description": "0 moves first"},
            **RECORD_LINE,
            "share": {
                **nullable("number", minimum=0, maximum=1),
                "description": "of its rated matches at that size; null while it has none",
            },
            "target": {"type": "number", "minimum": 0, "maximum": 1},
        }
    ),
    "Seat": obj(
        {
            "seat": {"type": "integer", "minimum": 0},
            "person": {
                **nullable("string"),
                "description": "a person's seat at a live table: their name"
                f" ({FORMER_PLAYER!r} once the account is gone); null: a bot's seat",
            },
            "bot_id": bot_field("integer", "the bot's id", minimum=1),
            "bot": bot_field("string", "the bot's name"),
            "owner": bot_field("string", "the bot's owner"),
            "version_id": bot_field("integer", "the version's id", minimum=1),
            "version": bot_field("integer", "the version's number", minimum=1),
            "status": {**maybe("SeatStatus"), "description": "null until the match is played"},
            "rank": nullable("integer", minimum=1),
            "score": nullable("number"),
            "error": nullable("string"),
            "mu_before": nullable("number"),
            "mu_after": nullable("number"),
            "sigma_before": nullable("number"),
            "sigma_after": nullable("number"),
            "skill_change": nullable("number"),
            "stderr": {
                "type": "string",
                "description": "What the seat's bot wrote to stderr (capped; empty when"
                " nothing was kept). Present only for the caller who owns the seat's bot"
                " (token or session); absent for anyone else.",
            },
        },
        optional=("stderr",),
    ),
    "Match": obj(
        {
            "id": ID,
            "game": ref("GameName"),
            "seed": {"type": "integer", "minimum": 0},
            "players": {"type": "integer", "minimum": 1},
            "ranked": {"type": "boolean"},
            "state": ref("MatchState"),
            "unrated_reason": nullable(
                "string", description="why the match moved no rating: it failed, or was void"
            ),
            "created_at": {"type": "string", "format": "date-time"},
            "started_at": TIME,
            "finished_at": TIME,
            "engine_version": nullable("string"),
            "has_replay": {"type": "boolean"},
            "seats": {"type": "array", "items": ref("Seat")},
        }
    ),
    "MatchList": obj({**PAGES, "matches": {"type": "array", "items": ref("Match")}}),
}

TOURNAMENT = {
    "id": ID,
    "name": {"type": "string"},
    "game": ref("GameName"),
    "format": ref("TournamentFormat"),
    "state": ref("TournamentState"),
    "table_size": nullable("integer", description="null: the default, known once entered"),
    "rounds": nullable("integer", description="null: the default, known once entered"),
    "duplicate": {"type": "boolean"},
    "advance": nullable("integer", description="elimination: the top k of a table advance"),
    "seed": {"type": "integer"},
    "entrants": {"type": "integer", "minimum": 0},
    "created_at": {"type": "string", "format": "date-time"},
    "started_at": TIME,
    "finished_at": TIME,
}
ENTRANT = {
    "version_id": ID,
    "bot_id": ID,
    "bot": {"type": "string"},
    "owner": {"type": "string"},
    "version": {"type": "integer", "minimum": 1},
    "house": {"type": "boolean"},
}
NAMES = {"type": "array", "items": {"type": "string"}}

TOURNAMENTS = {
    "TournamentSummary": obj(TOURNAMENT),
    "TournamentList": obj(
        {
            section: {"type": "array", "items": ref("TournamentSummary")}
            for section in ("upcoming", "running", "finished")
        }
    ),
    "Entrant": obj(ENTRANT),
    "Tournament": obj(
        {
            **TOURNAMENT,
            "entrant_list": {"type": "array", "items": ref("Entrant")},
            "match_counts": {
                "type": "object",
                "additionalProperties": {"type": "integer", "minimum": 0},
                "description": "matches of the tournament by state, and their total",
            },
        }
    ),
    "Standing": obj(
        {
            **ENTRANT,
            "rank": {"type": "integer", "minimum": 1},
            "points": {"type": "number"},
            "matches": {"type": "integer", "minimum": 0},
            "wins": {"type": "integer", "minimum": 0},
            "mean_rank": nullable("number"),
            "mean_score": {"type": "number"},
            "faults": {"type": "integer", "minimum": 0},
            "byes": {"type": "integer", "minimum": 0},
        }
    ),
    "TournamentStandings": obj(
        {
            "id": ID,
            "state": ref("TournamentState"),
            "standings": {"type": "array", "items": ref("Standing")},
        }
    ),
    "ScheduledSeat": obj(
        {
            "bot": {"type": "string"},
            "bot_id": ID,
            "version_id": ID,
            "rank": nullable("integer", minimum=1),
            "score": nullable("number"),
            "status": maybe("SeatStatus"),
        }
    ),
    "ScheduledMatch": obj(
        {
            "rotation": {"type": "integer", "minimum": 0},
            "seed": {"type": "integer"},
            "match_id": {
                "type": ["integer", "null"],
                "minimum": 1,
                "description": "null until it is scheduled",
            },
            "state": {
                "anyOf": [ref("MatchState"), {"const": "unscheduled"}],
                "description": "the match's state once it is scheduled",
            },
            "seats": {"type": "array", "items": ref("ScheduledSeat")},
        }
    ),
    "ScheduledRound": obj(
        {
            "round": {"type": "integer", "minimum": 1},
            "byes": NAMES,
            "tables": {"type": "array", "items": ref("ScheduledTable")},
        }
    ),
    "ScheduledTable": obj(
        {
            "table": {"type": "integer", "minimum": 1},
            "matches": {"type": "array", "items": ref("ScheduledMatch")},
        }
    ),
    "BracketRound": obj(
        {
            "round": {"type": "integer", "minimum": 1},
            "final": {"type": "boolean"},
            "byes": NAMES,
            "tables": {"type": "array", "items": ref("BracketTable")},
        }
    ),
    "BracketTable": obj(
        {
            "table": {"type": "integer", "minimum": 1},
            "size": {"type": "integer", "minimum": 1},
            "entrants": NAMES,
            "places": {"oneOf": [{"type": "null"}, NAMES]},
            "advancing": NAMES,
        }
    ),
    "TournamentSchedule": obj(
        {
            "id": ID,
            "state": ref("TournamentState"),
            "format": ref("TournamentFormat"),
            "schedule": {"type": "array", "items": ref("ScheduledRound")},
            "bracket": {
                "oneOf": [{"type": "null"}, {"type": "array", "items": ref("BracketRound")}],
                "description": "elimination only: every round of the bracket",
            },
        }
    ),
}


ANY_OBJECT = {"type": "object", "additionalProperties": True}
TABLES = {
    "TableSeat": obj(
        {
            "seat": {"type": "integer", "minimum": 0},
            "kind": ref("TableSeatKind"),
            "player": {
                **nullable("string"),
                "description": "a person's name, a bot's `owner/name vN`; null: an open seat",
            },
            "status": maybe("SeatStatus"),
            "error": nullable("string"),
        }
    ),
    "TableResult": obj(
        {
            "scores": {"type": "array", "items": {"type": ["number", "null"]}},
            "ranks": {"type": "array", "items": {"type": ["integer", "null"]}},
            "statuses": {"type": "array", "items": maybe("SeatStatus")},
        }
    ),
    "Table": obj(
        {
            "id": ID,
            "game": ref("GameName"),
            "state": ref("TableState"),
            "players": {"type": "integer", "minimum": 1},
            "step": {"type": "integer", "minimum": 0, "description": "actions applied so far"},
            "seat": {**nullable("integer", minimum=0), "description": "yours; null: watching"},
            "to_move": {
                **nullable("integer", minimum=0),
                "description": "the seat to move; null unless the table is being played",
            },
            "seats": {"type": "array", "items": ref("TableSeat")},
            "created_at": {"type": "string", "format": "date-time"},
            "view": {
                **ANY_OBJECT,
                "description": "your seat's view; for anyone else the spectators' view,"
                " which shows no seat's secrets",
            },
            "legal": {
                "type": "array",
                "items": ANY_OBJECT,
                "description": "your legal actions (empty unless it is your turn);"
                " never sent to spectators",
            },
            "time_left_ms": {
                **nullable("integer", minimum=0),
                "description": "your clock; a spectator: the clock of the person to move",
            },
            "note": {**nullable("string"), "description": "why it ended without a match"},
            "match_id": ID,
            "result": ref("TableResult"),
        },
        optional=("legal", "note", "match_id", "result"),
    ),
    "TableCreated": obj(
        {
            "id": ID,
            "seat": {"type": "integer", "minimum": 0},
            "url": {"type": "string"},
            "invitations": {
                "type": "array",
                "items": obj(
                    {
                        "seat": {"type": "integer", "minimum": 0},
                        "token": {"type": "string"},
                        "url": {"type": "string"},
                    }
                ),
                "description": "one per open seat: send its link to the person who takes it",
            },
        },
        optional=("invitations",),
    ),
}


LINK = {"type": "string", "format": "uri"}
COUNT = {"type": "integer", "minimum": 0}
OWNER = {
    "OwnTest": obj(
        {
            "state": ref("TestState"),
            "verdict": {
                "oneOf": [{"type": "null"}, ref("TestVerdict")],
                "description": "set once the test is over (null if it was cancelled)",
            },
            "sets": COUNT,
            "matches": COUNT,
            "score": nullable("number", minimum=0, maximum=1),
            "note": nullable("string"),
            "promoted": {"type": "boolean"},
            "links": obj({"page": LINK, "api": {**LINK, "description": "getVersionTest"}}),
        }
    ),
    "LastFault": obj(
        {
            "match_id": ID,
            "seat": {"type": "integer", "minimum": 0},
            "status": ref("SeatStatus"),
            "error": nullable("string"),
            "at": TIME,
        }
    ),
    "OwnVersion": obj(
        {
            **LADDER["Version"]["properties"],
            "validation_log": {
                "type": "string",
                "description": "what validation said: why a failed version failed",
            },
            "matches": {**COUNT, "description": "finished matches, a candidate's test apart"},
            "seat_results": {
                "type": "object",
                "additionalProperties": COUNT,
                "description": "those matches by how the version's seat ended (SeatStatus)",
            },
            "last_fault": maybe("LastFault"),
            "test": {**maybe("OwnTest"), "description": "a candidate's test; null: none"},
            "links": obj({"api": LINK, "download": {**LINK, "description": "the code"}}),
        }
    ),
    "OwnBot": obj(
        {
            "id": ID,
            "name": {"type": "string"},
            "game": ref("GameName"),
            "created_at": {"type": "string", "format": "date-time"},
            "retired": {"type": "boolean"},
            "human_play": {"type": "boolean", "description": "others may seat it against people"},
            "active_version": {
                "oneOf": [{"type": "null"}, obj({"id": ID, "number": ID})],
                "description": "the version on the ladder; null: none",
            },
            "paused": {
                "type": "boolean",
                "description": "crash triage keeps the active version out of matchmaking",
            },
            "rating": {**maybe("Rating"), "description": "the active version's"},
            "record": obj(
                {"games": COUNT, "wins": COUNT, "mean_rank": nullable("number", minimum=1)}
            ),
            "versions": {"type": "array", "items": ref("OwnVersion")},
            "links": obj(
                {
                    "page": LINK,
                    "api": {**LINK, "description": "getBot"},
                    "matches": {**LINK, "description": "listMatches of the bot"},
                    "replays": {**LINK, "description": "getBotReplays"},
                }
            ),
        }
    ),
    "TableRating": obj(
        {
            "game": ref("GameName"),
            "mu": {"type": "number"},
            "sigma": {"type": "number"},
            "skill": {"type": "number"},
            "games": COUNT,
        }
    ),
    "Me": obj(
        {
            "user": obj({"id": ID, "name": {"type": "string"}}),
            "bots": {"type": "array", "items": ref("OwnBot")},
            "table_ratings": {
                "type": "array",
                "items": ref("TableRating"),
                "description": "your own ratings at live tables, one per game played",
            },
            "links": obj(
                {
                    "page": {**LINK, "description": "your bots' page"},
                    "account": LINK,
                    "upload": {**LINK, "description": "uploadVersion"},
                }
            ),
        }
    ),
}
MANIFEST_SEAT = {
    name: LADDER["Seat"]["properties"][name]
    for name in ("seat", "person", "bot_id", "bot", "owner", "version_id", "version")
}
REPLAYS = {
    "ManifestSeat": obj(
        {
            **MANIFEST_SEAT,
            "rank": nullable("integer", minimum=1),
            "score": nullable("number"),
            "status": maybe("SeatStatus"),
        }
    ),
    "ManifestMatch": obj(
        {
            "match_id": ID,
            "file": {
                **nullable("string"),
                "description": "the replay's name in the zip; null when it is missing",
            },
            "missing": {"type": "boolean", "description": "the replay could not be read"},
            "game": ref("GameName"),
            "finished_at": TIME,
            "my_seats": {
                "type": "array",
                "items": {"type": "integer", "minimum": 0},
                "description": "the seats of the bot the zip is for (two in a candidate's"
                " test match, where two of its versions sit)",
            },
            "seats": {"type": "array", "items": ref("ManifestSeat")},
        }
    ),
    "ReplayManifest": obj(
        {
            "bot": obj(
                {
                    "id": ID,
                    "name": {"type": "string"},
                    "game": ref("GameName"),
                    "owner": {"type": "string"},
                }
            ),
            "matches": {"type": "array", "items": ref("ManifestMatch")},
        }
    ),
}


def components(games: list[str], id_max: int) -> dict:
    """Every named schema; `id_max` bounds the ids a request may carry."""
    request_id = {"type": "integer", "minimum": 1, "maximum": id_max}
    requests = {
        "ChallengeRequest": obj(
            {
                "version_id": {**request_id, "description": "your active version"},
                "opponents": {
                    "type": "array",
                    "items": request_id,
                    "minItems": 1,
                    "description": "active versions of the same game, one seat each",
                },
                "seed": nullable("integer", minimum=0, maximum=2**31 - 1),
            },
            optional=("seed",),
        ),
    }
    requests["TableRequest"] = obj(
        {
            "game": ref("GameName"),
            "players": {"type": "integer", "minimum": 1, "maximum": 16},
            "seat": {
                **nullable("integer", minimum=0, maximum=15),
                "description": "your seat, from 0; absent or null: a random one",
            },
            "opponents": {
                "type": "array",
                "items": {
                    "anyOf": [
                        {**request_id, "description": "a version id"},
                        {"type": "string", "description": "a house bot's name"},
                        {"type": "null", "description": "an open seat, by invitation"},
                    ]
                },
                "description": "one per other seat, in seat order",
            },
        },
        optional=("seat",),
    )
    requests["MoveRequest"] = obj({"action": ANY_OBJECT})
    requests["JoinRequest"] = obj({"token": {"type": "string", "minLength": 1}})
    return {**enums(games), **LADDER, **OWNER, **REPLAYS, **TOURNAMENTS, **TABLES, **requests}
