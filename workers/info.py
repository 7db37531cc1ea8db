"""What a bot is told when its match starts (`setup(info)`): one shape in every mode.

Validation, rated ladder matches, challenges, tournaments (on the service and
`ladder tournament run`), `ladder play` and `ladder replay` all build a bot's
`info` here, so a bot cannot tell them apart by it. `info` is
`{"game", "seat", "players", "options", "limits", "seed", "seats"}`:

- `seats`: one dict per seat, `{"name": str, "owner": str, "version": int}`,
  always all three. A stored bot is its ladder name, its owner's username and
  its version number; a house bot is its name (`random`) owned by the house
  account; a file run locally is named after its file or folder, owned by
  LOCAL_OWNER, version LOCAL_VERSION; a person at a live table
  (`workers.table`) is their seat's label, owned by HUMAN_OWNER, version
  HUMAN_VERSION (0, which no bot version is: bots are told a person sits there).
- `seed`: the seat's own integer, derived from the match seed (`bot_seed`).
- `limits`: the move, bank and init times the match enforces (`Limits.wire`).

The match runner keeps every seat's `info` in the replay (`bot_infos`, and all
the limits as `bot_limits`), and `ladder replay` gives a bot exactly the one
its seat had; `record_infos`
rebuilds it, in the same shape, for a record older than that.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from workers.limits import Limits

# The house account's name unless the service is configured otherwise (HOUSE_USER).
HOUSE_OWNER = "demo"
HOUSE_VERSION = 1  # a house bot run from this checkout: the first (seeded) version
LOCAL_OWNER = "local"  # a bot file run by `ladder play`, `tournament run` or `replay`
LOCAL_VERSION = 1
HUMAN_OWNER = "human"  # a person's seat at a live table (workers.table)
HUMAN_VERSION = 0  # bot versions count from 1
NAME_CHARS = 60  # as long as a ladder bot's name may be


def seat(name: str, owner: str, version: int) -> dict:
    """One entry of `info["seats"]`; TypeError for a field missing or of another type."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"a seat's name is a non-empty string, not {name!r}")
    if not isinstance(owner, str) or not owner:
        raise TypeError(f"a seat's owner is a non-empty string, not {owner!r}")
    if type(version) is not int:
        raise TypeError(f"a seat's version is an integer, not {version!r}")
    return {"name": name, "owner": owner, "version": version}


def house_seat(name: str, owner: str = HOUSE_OWNER, version: int = HOUSE_VERSION) -> dict:
    """A house bot (`random`, not `manila/random`), owned by the house account."""
    return seat(name, owner, version)


def human_seat(label: str) -> dict:
    """A person's seat at a live table, named by its label (`alice (human)`)."""
    return seat(label, HUMAN_OWNER, HUMAN_VERSION)


def local_name(path: Path | str) -> str:
    """The name a local bot file plays under: `greedy` for `greedy.py`, `greedy.zip` or
    `greedy/bot.py`; `bot` when there is nothing better."""
    path = Path(path)
    if path.name == "bot.py":
        path = path.parent
    name = path.stem if path.suffix in (".py", ".zip") else path.name
    name = " ".join(name.split())[:NAME_CHARS]
    return name or "bot"


def local_seat(path: Path | str) -> dict:
    """A bot file run on this machine, in the one seat shape."""
    return seat(local_name(path), LOCAL_OWNER, LOCAL_VERSION)


def bot_seed(match_seed: int, seat: int) -> int:
    """The seed a seat's bot gets in `setup(info)` (and `random` is seeded with).

    Derived from the match seed and the seat, so a replay's seed is enough to
    give a bot the same seed again, and two seats never share one.
    """
    digest = hashlib.sha256(f"tradewinds-bot-seed:{match_seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def match_infos(
    game: str, players: int, options: dict, limits: Limits, match_seed: int, seats: list[dict]
) -> list[dict]:
    """Every seat's `info`, in seat order: the one place a bot's info is made."""
    if len(seats) != players:
        raise ValueError(f"{players} players but {len(seats)} seats")
    who = [seat(s["name"], s["owner"], s["version"]) for s in seats]
    return [
        {
            "game": game,
            "seat": i,
            "players": players,
            "options": dict(options),
            "limits": limits.wire(),
            "seed": bot_seed(match_seed, i),
            "seats": [dict(s) for s in who],
        }
        for i in range(players)
    ]


def label_seat(label: str) -> dict:
    """The seat a replay's label names, for a record without `bot_infos`: `owner/name vN`
    (the service's labels), `game/name` (a house bot run locally), else a local file."""
    owner, slash, rest = label.partition("/")
    name, v, number = rest.rpartition(" v")
    if slash and v and name and number.isdigit() and owner:
        return seat(name, owner, int(number))
    if slash and "/" not in rest and not rest.endswith((".py", ".zip")) and owner and rest:
        return house_seat(rest)
    return local_seat(label)


def record_infos(record: dict, limits: Limits | None = None) -> list[dict]:
    """Every seat's `info` in a replay record: as stored (`bot_infos`), or for an older
    record rebuilt from its labels and seeds, with `limits` (the defaults if None)."""
    stored = record.get("bot_infos")
    if stored:
        return [dict(info) for info in stored]
    players = record["players"]
    labels = record.get("seats") or [f"seat {i}" for i in range(players)]
    infos = match_infos(
        record["game"],
        players,
        record.get("options") or {},
        limits or Limits(),
        record["seed"],
        [label_seat(str(label)) for label in labels],
    )
    for info, seed in zip(infos, record.get("bot_seeds") or [], strict=False):
        info["seed"] = seed  # the seeds the record says its bots had
    return infos
