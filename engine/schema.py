"""The shapes of a game's views and actions: a JSON Schema document per game, as data.

Each game package keeps a `schema.json` (after kaggle-environments' spec per
environment): `phases` maps every phase a view can show to a `view` schema
(what `view(seat)` returns then) and an `action` schema (any one entry of
`legal_actions()` then; none where nobody acts), `spectate` is the shape of
`spectate()`, and the parts they share sit under `$defs`, where every `$ref`
points. The schemas are JSON Schema draft 2020-12.

The engine only reads the document: it imports the standard library alone (it
runs inside the bot sandbox too), so it has no validator: `standalone` hands
one part to whatever validator the caller has (the engine's tests check every
view and legal action of many random games with `jsonschema_rs`). From a shell:

    python -m engine.schema manila            # the whole document
    python -m engine.schema manila auction    # one phase's view and action
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

FILE = "schema.json"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def load(package: str) -> dict:
    """The schema document in `package` (a game's package name), fresh on every call.

    Read beside the package's own files: `importlib.resources` would import zipfile,
    tempfile and threading (some 30 ms) into a bot's sandbox that asks for it. `json`
    and `os` are imported here, not with the engine, which every sandbox preloads.
    """
    import json
    import os

    folder = os.path.dirname(importlib.import_module(package).__file__ or "")
    with open(os.path.join(folder, FILE), encoding="utf-8") as handle:
        return json.load(handle)


def loader(package: str) -> Callable[[], dict]:
    """`load` bound to one package: what a game passes as `Game(schema=...)`."""
    return lambda: load(package)


def standalone(document: dict, *path: str) -> dict:
    """The schema at `path` in `document` as one that stands alone, with the document's
    dialect and `$defs`: `standalone(doc, "phases", "auction", "view")`, or
    `standalone(doc, "spectate")`. KeyError for a path the document does not have
    (a phase where nobody acts has no "action").
    """
    schema = document
    for key in path:
        schema = schema[key]
    return {"$schema": DIALECT, **schema, "$defs": document["$defs"]}


def main(argv: list[str] | None = None) -> int:
    """Print a game's schema document, or one phase of it, as JSON."""
    import json

    import engine

    args = sys.argv[1:] if argv is None else argv
    if not 1 <= len(args) <= 2:
        print("usage: python -m engine.schema GAME [PHASE]", file=sys.stderr)
        return 2
    try:
        game = engine.get_game(args[0])
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    if game.schema is None:
        print(f"{game.name} declares no schema", file=sys.stderr)
        return 1
    document = game.schema()
    if len(args) == 2:
        phases = document["phases"]
        if args[1] not in phases:
            print(f"{game.name} has no phase {args[1]!r}: {', '.join(phases)}", file=sys.stderr)
            return 2
        document = {"phase": args[1], **phases[args[1]], "$defs": document["$defs"]}
    print(json.dumps(document, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
